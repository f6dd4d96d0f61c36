"""Match written comune names to ISTAT's list.

Each distinct spelling goes through these stages; the first that finds a comune decides:

1. ``alias`` given by the caller (``aliases=``), matched on :func:`~.names.key`;
2. ``exact``: the spelling is, character for character, an ISTAT name;
3. ``normalized``: equal after :func:`~.names.key` (case, accents, apostrophes, hyphens, dots
   and spaces ignored);
4. ``alias``: the shipped alias table (``data/aliases.csv``: historical and variant names);
5. ``abbreviation``: one reading of its abbreviations (:func:`~.names.expansions`) is a name.

Stages 2, 3 and 5 first look at each comune's main names (the full official name and its
Italian form) and only then at its other-language name and at each part of a ``/``-separated
bilingual name (``Bozen``, ``Aldein``), so ``CORVARA`` is Corvara (Pescara) rather than the
Ladin name of Corvara in Badia.

A spelling that fits several comuni of one province resolves to that province
(``ambiguous-same-province``); one that fits comuni of several provinces is ``ambiguous`` and,
like one that fits none (``unmatched``), is not resolved: both are listed, with their row
counts, in ``attrs["unmatched"]``. ``within=`` limits the search to some provinces or regions.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from pandas_anon.errors import InvalidParameterError

from .istat import _aliases, _comuni
from .names import expansions, key

__all__ = ["HOWS", "RESOLVED", "resolve"]

#: Values of the ``how`` column.
HOWS = (
    "exact",
    "normalized",
    "alias",
    "abbreviation",
    "ambiguous-same-province",
    "ambiguous",
    "unmatched",
)
#: The ``how`` values of a resolved spelling (one province known).
RESOLVED = ("exact", "normalized", "alias", "abbreviation", "ambiguous-same-province")

_Positions = tuple[int, ...]


@dataclass(frozen=True)
class _Index:
    exact: tuple[dict[str, _Positions], dict[str, _Positions]]  # main names, other names
    keys: tuple[dict[str, _Positions], dict[str, _Positions]]
    aliases: dict[str, _Positions]
    codes: dict[str, int]


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
    rows = comuni[["comune", "comune_italiano", "comune_altra_lingua"]].itertuples(index=False)
    for position, (full, italian, other) in enumerate(rows):
        main = [full, italian]
        others = [other, *full.split("/"), *italian.split("/"), *other.split("/")]
        for tier, names in enumerate((main, others)):
            for name in names:
                _add(exact[tier], name.strip(), position)
                _add(keys[tier], key(name), position)
    aliases: dict[str, list[int]] = {}
    for alias, targets, sigla in _aliases()[["alias", "comuni", "sigla"]].itertuples(index=False):
        for target in targets.split("|"):
            found = [p for p in exact[0].get(target, ()) if comuni["sigla"].iat[p] == sigla]
            if len(found) != 1:
                raise RuntimeError(f"aliases.csv: {target!r} ({sigla}) is not one ISTAT comune")
            _add(aliases, key(alias), found[0])
    codes = {code: position for position, code in enumerate(comuni["codice_istat"])}
    return _Index(
        exact=(_freeze(exact[0]), _freeze(exact[1])),
        keys=(_freeze(keys[0]), _freeze(keys[1])),
        aliases=_freeze(aliases),
        codes=codes,
    )


def _allowed(within: str | Iterable[str] | None) -> np.ndarray | None:
    """Mask of the comuni in the provinces or regions named by ``within``."""
    if within is None:
        return None
    wanted = [within] if isinstance(within, str) else list(within)
    comuni = _comuni()
    mask = np.zeros(len(comuni), dtype=bool)
    unknown = []
    for area in wanted:
        area_key = key(area)
        hit = np.zeros(len(comuni), dtype=bool)
        for column in ("provincia", "sigla", "regione"):
            labels = comuni[column]
            for label in labels.unique():
                if area_key and area_key in {key(label), *(key(p) for p in label.split("/"))}:
                    hit |= (labels == label).to_numpy()
        if not hit.any():
            unknown.append(area)
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


def _match(
    value: Hashable, user: dict[str, _Positions], allowed: np.ndarray | None
) -> tuple[_Positions, str | None]:
    """Positions of the comuni ``value`` fits, and the stage that found them."""
    index = _index()
    text = str(value)
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
    return (), None


def resolve(
    values: Iterable[Hashable] | pd.Series,
    *,
    within: str | Iterable[str] | None = None,
    aliases: Mapping[str, str | Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Match each distinct spelling in ``values`` to ISTAT's comuni.

    Returns one row per distinct non-missing value (index ``value``, in order of first
    appearance) with columns ``rows`` (how many times it occurs), ``comune`` and
    ``codice_istat`` (the ISTAT name and code; several joined by ``" | "`` when the spelling
    fits several comuni), ``provincia``, ``sigla``, ``regione``, ``ripartizione`` (missing
    when not resolved), ``how`` (one of :data:`HOWS`) and ``stage`` (the matching stage that
    found the candidates: exact, normalized, alias or abbreviation; missing if none did).
    ``attrs["unmatched"]`` lists the ``ambiguous`` and ``unmatched`` values, most rows first.

    ``within``: province names or codes, or region names (``"AO"``, ``"Molise"``) to search in.
    ``aliases``: extra ``{spelling: ISTAT code or name, or a list of them}`` tried first.
    """
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    allowed = _allowed(within)
    user = _user_aliases(aliases)
    comuni = _columns()
    columns = ["comune", "codice_istat", "provincia", "sigla", "regione", "ripartizione"]
    records = []
    for value in uniques:
        found, stage = _match(value, user, allowed)
        record: dict[str, object] = dict.fromkeys(columns, np.nan)
        if not found:
            how = "unmatched"
        else:
            provinces = {comuni["sigla"][p] for p in found}
            how = (
                stage
                if len(found) == 1
                else ("ambiguous-same-province" if len(provinces) == 1 else "ambiguous")
            )
            one_province = len(provinces) == 1
            names = [comuni["comune"][p] for p in found] if one_province else _labelled(found)
            record["comune"] = " | ".join(names)
            record["codice_istat"] = " | ".join(comuni["codice_istat"][p] for p in found)
            if len(provinces) == 1:
                for column in ("provincia", "sigla", "regione", "ripartizione"):
                    record[column] = comuni[column][found[0]]
        record["how"] = how
        record["stage"] = stage if stage is not None else np.nan
        records.append(record)
    table = pd.DataFrame(records, columns=[*columns, "how", "stage"], dtype=object)
    table.insert(0, "rows", counts.astype(np.int64))
    table.index = pd.Index(uniques, name="value")
    bad = table[~table["how"].isin(RESOLVED)].sort_values("rows", ascending=False, kind="stable")
    table.attrs["unmatched"] = list(bad.index)
    return table
