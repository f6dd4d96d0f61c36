"""Match written comune names to ISTAT's list.

Each distinct spelling goes through these stages; the first that finds a comune decides:

1. ``alias`` given by the caller (``aliases=``), matched on :func:`~.names.key`;
2. ``exact``: the spelling is, character for character, an ISTAT name;
3. ``normalized``: equal after :func:`~.names.key` (case, accents, apostrophes, hyphens, dots
   and spaces ignored);
4. ``alias``: the shipped alias table (``data/aliases.csv``: historical and variant names);
5. ``abbreviation``: one reading of its abbreviations (:func:`~.names.expansions`) is a name;
6. ``loose``: equal after :func:`~.names.loose` (particles such as ``di``, ``del``, ``sul``
   dropped or changed, ``S.``/``SANTA``/``SAINT`` made one, ``J`` read as ``I``; a name
   holding ``J`` also matches written with ``G``, ``GESI`` for Jesi, among the other names);
7. ``former``: a former name of a comune, renamed or merged (``data/former_names.csv``, from
   ANPR's historical archive: ``SPACCAFORNO`` is Ispica, ``VALVASONE`` is Valvasone Arzene);
8. ``fuzzy``: the most similar name, by the better of :func:`rapidfuzz.fuzz.token_sort_ratio`
   and :func:`rapidfuzz.fuzz.ratio` on the :func:`~.names.loose` forms, accepted only for
   spellings of at least
   :data:`FUZZY_MIN_LETTERS` letters, when its score is at least :data:`FUZZY_THRESHOLD`
   **and** at least :data:`FUZZY_MARGIN` above the best-scoring other comune
   (``VALTURNENCHE`` is Valtournenche; ``CASTRO`` stays ambiguous). It runs only on the
   spellings the exact stages left unmatched.

Stages 2, 3, 5 and 6 first look at each comune's main names (the full official name and its
Italian form) and only then at its other-language name and at each part of a ``/``-separated
bilingual name (``Bozen``, ``Aldein``), so ``CORVARA`` is Corvara (Pescara) rather than the
Ladin name of Corvara in Badia.

**Scopes.** ``within=`` (provinces or regions) limits every stage. ``province=`` gives each
row's province (a column aligned with the values: names such as ``TORINO``, codes such as
``TO``, or the names of :data:`PROVINCE_NAMES` such as ``AOSTA``; a value that names no
ISTAT province, or is missing, does not narrow). The stages then run first over the comuni of
the row's province (tens instead of 7,896, so ``CASTRO`` with ``LECCE`` is Castro (LE));
stages 1-7 then run over all of them, so a file whose provinces predate a reorganization
still resolves, but stage 8 does not: a typo matched in another province would contradict
the row's province. ``by_province`` says when the province found the match.

A spelling that fits several comuni of one province resolves to that province
(``ambiguous-same-province``); one that fits comuni of several provinces is ``ambiguous`` and,
like one that fits none (``unmatched``), is not resolved: both are listed, with their row
counts, in ``attrs["unmatched"]``, and each unmatched one gets up to :data:`SUGGESTIONS` ISTAT
names in ``suggestions``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process

from pandas_anon.errors import InvalidParameterError

from .istat import _aliases, _comuni, _former_names
from .names import expansions, key, loose, loose_normalized, normalize

__all__ = [
    "FUZZY_MARGIN",
    "FUZZY_MIN_LETTERS",
    "FUZZY_THRESHOLD",
    "HOWS",
    "PROVINCE_NAMES",
    "RESOLVED",
    "SUGGESTIONS",
    "resolve",
]

#: Values of the ``how`` column, resolved ones first, in the order of the matching stages.
HOWS = (
    "exact",
    "normalized",
    "alias",
    "abbreviation",
    "loose",
    "former",
    "fuzzy",
    "ambiguous-same-province",
    "ambiguous",
    "unmatched",
)
#: The ``how`` values of a resolved spelling (one province known).
RESOLVED = HOWS[:8]
#: Lowest similarity (0-100, :data:`_SCORERS`) a ``fuzzy`` match needs: one wrong
#: letter in a name of ten letters (``VALTURNENCHE``, 96), not two.
FUZZY_THRESHOLD = 90.0
#: How far (in score points) a ``fuzzy`` match must lead the best-scoring other comune.
FUZZY_MARGIN = 8.0
#: Fewest letters (of the :func:`~.names.loose` form) a spelling needs for the ``fuzzy``
#: stage: one letter off in a shorter name lands too often on another comune (a typo of
#: Bibiana, ``BIBIENA``, scores 93 for Bibbiena).
FUZZY_MIN_LETTERS = 9
#: How many ISTAT names an unmatched spelling is offered (most similar first).
SUGGESTIONS = 3
#: Province names files use that ISTAT's list does not (by :func:`~.names.key`) -> the sigla:
#: the province of Valle d'Aosta, labelled like its region, is called after its capital.
PROVINCE_NAMES = {"AOSTA": "AO"}

#: The fuzzy stage's similarities (0-100), the better of which counts: words sorted (word
#: order ignored), and as written (sorting can part words that belong together:
#: ``CASTEL EZZANO`` and ``AZZANO CASTEL``).
_SCORERS = (fuzz.token_sort_ratio, fuzz.ratio)

_Positions = tuple[int, ...]
_Tiers = tuple[dict[str, _Positions], dict[str, _Positions]]  # main names, other names


@dataclass(frozen=True)
class _Index:
    exact: _Tiers
    keys: _Tiers
    loose: _Tiers
    aliases: dict[str, _Positions]
    former: dict[str, _Positions]
    codes: dict[str, int]
    names: list[str]  # the loose form of every name, for the fuzzy stage
    owners: np.ndarray  # the comune (position) of each of ``names``


def _add(index: dict[str, list[int]], name: str, position: int) -> None:
    if name:
        positions = index.setdefault(name, [])
        if position not in positions:
            positions.append(position)


def _freeze(index: dict[str, list[int]]) -> dict[str, _Positions]:
    return {name: tuple(positions) for name, positions in index.items()}


@lru_cache(maxsize=1)
def _index() -> _Index:
    comuni = _comuni()
    exact: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    keys: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    loose_keys: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    fuzzy: dict[str, list[int]] = {}
    forms: dict[str, tuple[str, str]] = {}  # name -> (key, loose form), each found once

    def forms_of(name: str) -> tuple[str, str]:
        found = forms.get(name)
        if found is None:
            normalized = normalize(name)
            found = forms[name] = (normalized.replace(" ", ""), loose_normalized(normalized))
        return found

    rows = comuni[["comune", "comune_italiano", "comune_altra_lingua"]].itertuples(index=False)
    for position, (full, italian, other) in enumerate(rows):
        main = dict.fromkeys([full, italian])
        others = dict.fromkeys([other, *full.split("/"), *italian.split("/"), *other.split("/")])
        for tier, names in enumerate((main, others)):
            for name in names:
                name_key, loose_form = forms_of(name)
                _add(exact[tier], name.strip(), position)
                _add(keys[tier], name_key, position)
                _add(loose_keys[tier], loose_form.replace(" ", ""), position)
                _add(fuzzy, loose_form, position)
            for name in names:  # J written G (JESI as GESI): with the other names, after them
                if "J" in forms_of(name)[0]:
                    written_g = loose_normalized(normalize(name).replace("J", "G"))
                    _add(loose_keys[1], written_g.replace(" ", ""), position)
    aliases: dict[str, list[int]] = {}
    for alias, targets, sigla in _aliases()[["alias", "comuni", "sigla"]].itertuples(index=False):
        for target in targets.split("|"):
            found = [p for p in exact[0].get(target, ()) if comuni["sigla"].iat[p] == sigla]
            if len(found) != 1:
                raise RuntimeError(f"aliases.csv: {target!r} ({sigla}) is not one ISTAT comune")
            _add(aliases, key(alias), found[0])
    codes = {code: position for position, code in enumerate(comuni["codice_istat"])}
    former: dict[str, list[int]] = {}
    for name, code in _former_names()[["name", "codice_istat"]].itertuples(index=False):
        _add(former, key(name), codes[code])
    pairs = [(name, p) for name, positions in fuzzy.items() for p in positions]
    return _Index(
        exact=(_freeze(exact[0]), _freeze(exact[1])),
        keys=(_freeze(keys[0]), _freeze(keys[1])),
        loose=(_freeze(loose_keys[0]), _freeze(loose_keys[1])),
        aliases=_freeze(aliases),
        former=_freeze(former),
        codes=codes,
        names=[name for name, _ in pairs],
        owners=np.array([p for _, p in pairs], dtype=np.int64),
    )


@lru_cache(maxsize=4_096)
def _area(area_key: str, columns: tuple[str, ...]) -> np.ndarray | None:
    """Mask of the comuni whose ``columns`` (or a ``/``-part of one) have key ``area_key``;
    ``None`` when there are none."""
    comuni = _comuni()
    hit = np.zeros(len(comuni), dtype=bool)
    for column in columns:
        labels = comuni[column]
        for label in labels.unique():
            if area_key and area_key in {key(label), *(key(p) for p in label.split("/"))}:
                hit |= (labels == label).to_numpy()
    return hit if hit.any() else None


def _allowed(within: str | Iterable[str] | None) -> np.ndarray | None:
    """Mask of the comuni in the provinces or regions named by ``within``."""
    if within is None:
        return None
    wanted = [within] if isinstance(within, str) else list(within)
    mask = np.zeros(len(_comuni()), dtype=bool)
    unknown = []
    for area in wanted:
        hit = _area(key(area), ("provincia", "sigla", "regione"))
        if hit is None:
            unknown.append(area)
        else:
            mask |= hit
    if unknown:
        raise InvalidParameterError(
            f"within: {', '.join(repr(a) for a in unknown)} is not an ISTAT province (name or "
            f"code, e.g. 'Torino', 'TO') or region (e.g. 'Piemonte')"
        )
    return mask


def _user_aliases(aliases: Mapping[str, str | Sequence[str]] | None) -> dict[str, _Positions]:
    """``{spelling: ISTAT code(s) or name(s)}`` -> ``{key(spelling): positions}``."""
    if not aliases:
        return {}
    index = _index()
    out: dict[str, list[int]] = {}
    for spelling, targets in aliases.items():
        for target in [targets] if isinstance(targets, str) else list(targets):
            target = str(target).strip()
            if target in index.codes:
                found: _Positions = (index.codes[target],)
            else:
                found = index.keys[0].get(key(target), ()) or index.keys[1].get(key(target), ())
            if len(found) != 1:
                what = (
                    "is not an ISTAT comune"
                    if not found
                    else (
                        "names several comuni (" + ", ".join(_labelled(found)) + "); give its "
                        "ISTAT code ("
                        + ", ".join(_columns()["codice_istat"][p] for p in found)
                        + ")"
                    )
                )
                raise InvalidParameterError(f"aliases: {spelling!r} -> {target!r} {what}")
            _add(out, key(spelling), found[0])
    return _freeze(out)


@lru_cache(maxsize=1)
def _columns() -> dict[str, list[str]]:
    """The ISTAT table as plain lists (fast to index one position at a time)."""
    return {column: _comuni()[column].tolist() for column in _comuni().columns}


def _labelled(positions: Iterable[int]) -> list[str]:
    comuni = _columns()
    return [f"{comuni['comune'][p]} ({comuni['sigla'][p]})" for p in positions]


def _exact(
    text: str, user: dict[str, _Positions], allowed: np.ndarray | None
) -> tuple[_Positions, str | None]:
    """Stages 1-7: positions of the comuni ``text`` fits, and the stage that found them."""
    index = _index()
    value_key = key(text)

    def keep(found: Iterable[int]) -> _Positions:
        return tuple(p for p in found if allowed is None or allowed[p])

    if found := keep(user.get(value_key, ())):
        return found, "alias"
    for tier in (0, 1):
        if found := keep(index.exact[tier].get(text.strip(), ())):
            return found, "exact"
    for tier in (0, 1):
        if found := keep(index.keys[tier].get(value_key, ())):
            return found, "normalized"
    if found := keep(index.aliases.get(value_key, ())):
        return found, "alias"
    readings = expansions(text)
    for tier in (0, 1):
        hits: list[int] = []
        for reading in readings:
            hits.extend(p for p in index.keys[tier].get(reading, ()) if p not in hits)
        if found := keep(hits):
            return found, "abbreviation"
    loose_key = loose(text).replace(" ", "")
    for tier in (0, 1):
        if found := keep(index.loose[tier].get(loose_key, ())):
            return found, "loose"
    if found := keep(index.former.get(value_key, ())):
        return found, "former"
    return (), None


def _ranked(
    text: str, allowed: np.ndarray | None, limit: int, cutoff: float = 0.0
) -> list[tuple[int, float]]:
    """The ``limit`` comuni whose names are most similar to ``text`` (scoring at least
    ``cutoff``), best first, with their scores: each comune's best name by the better of
    :data:`_SCORERS`."""
    index = _index()
    query = loose(text) or normalize(text)  # a name of particles only ("NEI") is kept whole
    if not query:
        return []
    choices = _choices(None if allowed is None else allowed.tobytes())
    best: dict[int, float] = {}
    for scorer in _SCORERS:
        # enough names to see ``limit`` comuni even when each has several names
        for _, score, i in process.extract(
            query, choices, scorer=scorer, processor=None, limit=4 * limit + 8, score_cutoff=cutoff
        ):
            owner = int(index.owners[i])
            best[owner] = max(score, best.get(owner, 0.0))
    return sorted(best.items(), key=lambda item: -item[1])[:limit]


@lru_cache(maxsize=256)
def _choices(allowed: bytes | None) -> dict[int, str]:
    """The fuzzy stage's names of the allowed comuni, by their index in ``_Index.names``."""
    index = _index()
    if allowed is None:
        return dict(enumerate(index.names))
    mask = np.frombuffer(allowed, dtype=bool)[index.owners]
    return {int(i): index.names[i] for i in np.flatnonzero(mask)}


def _fuzzy(text: str, allowed: np.ndarray | None) -> tuple[_Positions, float]:
    """Stage 8: the comune ``text`` is clearly most similar to, and its score; ``()`` if
    ``text`` is shorter than :data:`FUZZY_MIN_LETTERS` or no comune scores
    :data:`FUZZY_THRESHOLD` while leading the next by :data:`FUZZY_MARGIN`."""
    if len(loose(text).replace(" ", "")) < FUZZY_MIN_LETTERS:
        return (), np.nan
    # a runner-up under this cutoff cannot come within the margin of an accepted match
    ranked = _ranked(text, allowed, 2, cutoff=FUZZY_THRESHOLD - FUZZY_MARGIN)
    if not ranked or ranked[0][1] < FUZZY_THRESHOLD:
        return (), np.nan
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < FUZZY_MARGIN:
        return (), np.nan
    return (ranked[0][0],), ranked[0][1]


@dataclass(frozen=True)
class _Match:
    found: _Positions = ()
    stage: str | None = None
    score: float = np.nan
    by_province: bool = False


def _match(
    text: str, user: dict[str, _Positions], scopes: list[tuple[np.ndarray | None, bool]]
) -> _Match:
    """Stages 1-7 over each scope (the row's province first), then stage 8 over the first
    only: a typo matched outside the row's province would contradict the province."""
    for allowed, narrowed in scopes:
        found, stage = _exact(text, user, allowed)
        if found:
            return _Match(found, stage, by_province=narrowed)
    allowed, narrowed = scopes[0]
    found, score = _fuzzy(text, allowed)
    return _Match(found, "fuzzy", score, narrowed) if found else _Match()


def _scopes(province: Hashable, within: np.ndarray | None) -> list[tuple[np.ndarray | None, bool]]:
    """Where to look for a row whose province is ``province``: (mask, narrowed by province)."""
    everywhere = [(within, False)]
    if province is None:  # a missing province (factorized out)
        return everywhere
    province_key = key(province)
    mask = _area(PROVINCE_NAMES.get(province_key, province_key), ("provincia", "sigla"))
    if mask is None:
        return everywhere
    return [(mask if within is None else mask & within, True), *everywhere]


def _province_groups(
    codes: np.ndarray, n_values: int, province: Iterable[Hashable] | pd.Series | None, n_rows: int
) -> list[list[Hashable]]:
    """For each distinct value, the distinct provinces of its rows (``[None]`` without any)."""
    if province is None:
        return [[None] for _ in range(n_values)]
    provinces = province if isinstance(province, pd.Series) else pd.Series(list(province))
    if len(provinces) != n_rows:
        raise InvalidParameterError(
            f"province: {len(provinces):,} values for {n_rows:,} rows; give one per row "
            f"(a column of the same frame)"
        )
    province_codes, province_names = pd.factorize(provinces, use_na_sentinel=True)
    present = codes >= 0
    pairs = pd.unique(codes[present] * (len(province_names) + 1) + province_codes[present] + 1)
    groups: list[list[Hashable]] = [[] for _ in range(n_values)]
    for pair in np.sort(pairs):
        value, code = divmod(int(pair), len(province_names) + 1)
        groups[value].append(province_names[code - 1] if code else None)
    return groups


def _combine(matches: list[_Match]) -> _Match:
    """One spelling seen with several provinces: unmatched if it is in one of them, else the
    union of what each found, the weakest stage, the lowest score."""
    if len(matches) == 1 or not all(m.found for m in matches):
        return next((m for m in matches if not m.found), matches[0])
    found = tuple(dict.fromkeys(p for m in matches for p in m.found))
    stage = max((m.stage for m in matches if m.stage), key=HOWS.index)
    scores = [m.score for m in matches if not np.isnan(m.score)]
    return _Match(found, stage, min(scores, default=np.nan), any(m.by_province for m in matches))


def resolve(
    values: Iterable[Hashable] | pd.Series,
    *,
    within: str | Iterable[str] | None = None,
    province: Iterable[Hashable] | pd.Series | None = None,
    aliases: Mapping[str, str | Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Match each distinct spelling in ``values`` to ISTAT's comuni.

    Parameters
    ----------
    values
        Comune names as written (a column); missing values are skipped.
    within
        Province names or codes, or region names (``"AO"``, ``"Molise"``) to search in.
    province
        Each row's province (name or code), aligned with ``values`` by position: the matching
        stages look first among that province's comuni (see the module docstring).
    aliases
        Extra ``{spelling: ISTAT code or name, or a list of them}``, tried first.

    Returns
    -------
    pandas.DataFrame
        One row per distinct non-missing value (index ``value``, in order of first
        appearance) with columns ``rows`` (how many times it occurs), ``comune`` and
        ``codice_istat`` (the ISTAT name and code; several joined by ``" | "`` when the
        spelling fits several comuni), ``provincia``, ``sigla``, ``regione``,
        ``ripartizione`` (missing when not resolved), ``how`` (one of :data:`HOWS`),
        ``stage`` (the stage that found the candidates; missing if none did), ``score``
        (the ``fuzzy`` stage's similarity, 0-100), ``by_province`` (the row's province found
        it) and ``suggestions`` (for an ``unmatched`` value, up to :data:`SUGGESTIONS` ISTAT
        names, ``" | "``-joined). ``attrs["unmatched"]`` lists the ``ambiguous`` and
        ``unmatched`` values, most rows first. A spelling whose rows name several provinces
        combines what each found: one comune, or several of one province, resolves, with the
        weakest stage among them.
    """
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    allowed = _allowed(within)
    user = _user_aliases(aliases)
    groups = _province_groups(codes, len(uniques), province, len(series))
    comuni = _columns()
    columns = ["comune", "codice_istat", "provincia", "sigla", "regione", "ripartizione"]
    records = []
    for value, provinces in zip(uniques, groups):
        text = str(value)
        match = _combine([_match(text, user, _scopes(p, allowed)) for p in provinces])
        found = match.found
        record: dict[str, object] = dict.fromkeys(columns, np.nan)
        record["suggestions"] = np.nan
        if not found:
            how = "unmatched"
            ranked = _ranked(text, _scopes(provinces[0], allowed)[0][0], SUGGESTIONS)
            if ranked:
                record["suggestions"] = " | ".join(_labelled(p for p, _ in ranked))
        else:
            provinces_found = {comuni["sigla"][p] for p in found}
            one_province = len(provinces_found) == 1
            how = (
                match.stage
                if len(found) == 1
                else ("ambiguous-same-province" if one_province else "ambiguous")
            )
            names = [comuni["comune"][p] for p in found] if one_province else _labelled(found)
            record["comune"] = " | ".join(names)
            record["codice_istat"] = " | ".join(comuni["codice_istat"][p] for p in found)
            if one_province:
                for column in ("provincia", "sigla", "regione", "ripartizione"):
                    record[column] = comuni[column][found[0]]
        record["how"] = how
        record["stage"] = match.stage if match.stage is not None else np.nan
        record["score"] = match.score
        record["by_province"] = match.by_province
        records.append(record)
    order = [*columns, "how", "stage", "score", "by_province", "suggestions"]
    table = pd.DataFrame(records, columns=order, dtype=object)
    table["score"] = table["score"].astype(float)
    table["by_province"] = table["by_province"].astype(bool)
    table.insert(0, "rows", counts.astype(np.int64))
    table.index = pd.Index(uniques, name="value")
    bad = table[~table["how"].isin(RESOLVED)].sort_values("rows", ascending=False, kind="stable")
    table.attrs["unmatched"] = list(bad.index)
    return table
