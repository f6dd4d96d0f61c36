"""A validation corpus: every ISTAT comune name rewritten the ways real files write them.

:func:`build` applies each rewrite of :data:`REWRITES` to every one of the 7,896 names of
``data/comuni.csv`` (deterministically: no sampling, no seed), keeping the rewrites that change
the name; :func:`score` resolves them and sorts each into

* ``right``: resolved to its own comune;
* ``province``: resolved to several comuni of one province, its own among them (the hierarchy
  generalizes it to the right province, but the comune is not known);
* ``refused``: ``ambiguous`` (the candidates are listed) or ``unmatched`` (with suggestions);
* ``wrong``: resolved to another comune, or to a province that is not its own;
* ``collision``: the rewrite is, after :func:`~pandas_anon_italy.key`, the name, or a former
  name, of another comune (``PATERNO`` for Paternò is also Paterno, in Basilicata): no
  matcher can tell, so it counts in none of the shares.

``python tests/corpus.py`` prints the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd

import pandas_anon_italy as italy
from pandas_anon_italy.names import strip_accents

#: Rewritten particles: (written in ISTAT's name, as the rewrite writes it).
_PARTICLE_CHANGES = {"DI": "DEL", "DEL": "DI", "DELLA": "DI", "DEI": "DI", "DEGLI": "DI",
                     "DELLE": "DI", "SUL": "SU", "SULLA": "SU", "NEL": "IN", "IN": "NEL"}  # fmt: skip
_PARTICLES = r"(?:DI|DEL|DELLO|DELLA|DEI|DEGLI|DELLE|NEL|NELLA|IN|SUL|SULLA|SULLE)"
_ABBREVIATIONS = [
    (r"\bSANTA ", "S.TA "),
    (r"\bSANTO ", "S.TO "),
    (r"\bSANT'", "S."),
    (r"\bSAN ", "S."),
    (r"\bSANTI ", "SS. "),
    (r"\bSAINT-", "ST."),
    (r"\bSANKT ", "ST. "),
    (r"\b(?:DEGLI|DELLA|DELLE|DELLO|DEL|DEI|DI) ", "D."),
    (r"\bVAL(?:LE)? ", "V."),
    (r"\bMONTE ", "M."),
]


def _sub_all(patterns: list[tuple[str, str]]) -> Callable[[str], str]:
    def rewrite(name: str) -> str:
        for pattern, written in patterns:
            name = re.sub(pattern, written, name)
        return name

    return rewrite


def _accent_apostrophe(name: str) -> str:
    """``CITTÀ`` -> ``CITTA'``: a final accented vowel typed as the vowel and an apostrophe."""
    return re.sub(r"([ÀÈÉÌÒÙ])\b", lambda m: strip_accents(m.group(1)) + "'", name)


def _particles_changed(name: str) -> str:
    return re.sub(
        rf"\b({'|'.join(_PARTICLE_CHANGES)})\b", lambda m: _PARTICLE_CHANGES[m.group(1)], name
    )


def _typo(name: str) -> str:
    """One letter doubled (the last consonant of the longest word), a common slip; only
    names of ten letters or more, the length the fuzzy stage is meant for."""
    if len(re.sub(r"[^A-Z]", "", strip_accents(name))) < 10:
        return name
    word = max(name.split(), key=len)
    consonants = [i for i, c in enumerate(word) if c in "BCDFGLMNPRSTVZ"]
    if not consonants:
        return name
    i = consonants[-1]
    return name.replace(word, word[: i + 1] + word[i] + word[i + 1 :], 1)


#: Rewrite name -> function of the upper-cased ISTAT name (``comune`` column).
REWRITES: dict[str, Callable[[str], str]] = {
    "upper case": lambda name: name,
    "accents dropped": strip_accents,
    "accents as apostrophes": _accent_apostrophe,
    "particles dropped": lambda name: re.sub(
        r" +", " ", re.sub(rf"\b{_PARTICLES} |\bD'", "", name)
    ).strip(),
    "particles changed": _particles_changed,
    "hyphens and slashes as spaces": lambda name: re.sub(r"[-/]", " ", name),
    "first part of a bilingual name": lambda name: name.split("/")[0],
    "second part of a bilingual name": lambda name: name.split("/")[-1],
    "abbreviated": _sub_all(_ABBREVIATIONS),
    "J as I": lambda name: name.replace("J", "I"),
    "J as G": lambda name: name.replace("J", "G"),
    "Saint as St": _sub_all([(r"\bSAINT\b", "ST"), (r"\bSANKT\b", "ST.")]),
    "typo": _typo,
}
#: Rewrites that the acceptance share (>= 99 % right) is computed over: all but ``typo``,
#: which is reported on its own.
ACCEPTED = tuple(kind for kind in REWRITES if kind != "typo")


def build(comuni: pd.DataFrame) -> pd.DataFrame:
    """One row per (rewrite, comune) whose rewrite changes the name (``upper case`` always):
    ``kind``, ``written``, ``codice_istat``, ``sigla``."""
    rows = []
    for code, name, sigla in comuni[["codice_istat", "comune", "sigla"]].itertuples(index=False):
        upper = name.upper()
        for kind, rewrite in REWRITES.items():
            written = rewrite(upper)
            if written and (written != upper or kind == "upper case"):
                rows.append((kind, written, code, sigla))
    return pd.DataFrame(rows, columns=["kind", "written", "codice_istat", "sigla"])


def score(corpus: pd.DataFrame, *, with_province: bool) -> pd.DataFrame:
    """Resolve the corpus (with each comune's province as a province column, or without) and
    sort every row into ``outcome``: right, province, refused, wrong or collision."""
    province = corpus["sigla"] if with_province else None
    table = italy.resolve(corpus["written"], province=province)
    found = table.loc[corpus["written"]].reset_index(drop=True)
    names = _name_keys()
    outcome = []
    for (_, row), (_, hit) in zip(corpus.iterrows(), found.iterrows()):
        codes = str(hit["codice_istat"]).split(" | ")
        others = names.get(italy.key(row["written"]), set()) - {row["codice_istat"]}
        resolved = hit["how"] in italy.RESOLVED
        if resolved and codes == [row["codice_istat"]]:
            outcome.append("right")
        elif resolved and row["codice_istat"] in codes:
            outcome.append("province")
        elif others:
            outcome.append("collision")
        elif not resolved and (hit["how"] == "ambiguous" or isinstance(hit["suggestions"], str)):
            outcome.append("refused")
        else:
            outcome.append("wrong")
    return corpus.assign(outcome=outcome, how=found["how"].to_numpy())


def _name_keys() -> dict[str, set[str]]:
    """key of every ISTAT name and part, and of every former name -> the codes of the comuni
    it names."""
    out: dict[str, set[str]] = {}
    columns = ["codice_istat", "comune", "comune_italiano", "comune_altra_lingua"]
    for code, *names in italy.load_comuni()[columns].itertuples(index=False):
        for name in names:
            for part in [name, *name.split("/")]:
                if part:
                    out.setdefault(italy.key(part), set()).add(code)
    for name, code in italy.load_former_names()[["name", "codice_istat"]].itertuples(index=False):
        out.setdefault(italy.key(name), set()).add(code)
    return out


def shares(scored: pd.DataFrame) -> pd.DataFrame:
    """Per rewrite and in total over :data:`ACCEPTED`: how many rows, and the share of each
    outcome among the rows that are not collisions."""
    counted = scored[scored["outcome"] != "collision"]
    table = pd.crosstab(counted["kind"], counted["outcome"]).reindex(
        columns=["right", "province", "refused", "wrong"], fill_value=0
    )
    table.loc["all but typo"] = table.loc[list(ACCEPTED)].sum()
    rows = table.sum(axis=1)
    out = table.div(rows, axis=0).mul(100).round(2)
    out.insert(0, "rows", rows)
    out["collisions"] = scored.groupby("kind")["outcome"].apply(lambda o: (o == "collision").sum())
    out.loc["all but typo", "collisions"] = out.loc[list(ACCEPTED), "collisions"].sum()
    return out.reindex([*REWRITES, "all but typo"]).fillna(0)


if __name__ == "__main__":
    corpus = build(italy.load_comuni())
    for with_province in (False, True):
        print(f"with a province column: {with_province}")
        print(shares(score(corpus, with_province=with_province)).to_string(), end="\n\n")
