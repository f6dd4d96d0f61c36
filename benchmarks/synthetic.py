"""A driving-licence table at Lombardia's size, resampled from the real Valle d'Aosta data.

Lombardia publishes about 6.4 million licences; the embedded Valle d'Aosta file has 87,642.
:func:`lombardia_like` keeps the real joint distribution of (anno_nascita, comune_residenza,
sesso) by sampling complete Valle d'Aosta rows with replacement, then spreads the 79 real
comuni over ``79 * REPLICAS`` synthetic ones (``"AOSTA_17"``: name + "_" + a replica number
drawn uniformly in ``0..REPLICAS-1``), each placed in one of Lombardia's 12 provinces
(``provincia_residenza`` is a function of the comune, as in the real data). With
``REPLICAS = 23`` there are 1,817 comuni and about 210,000 distinct QID combinations.

Dtypes are the loader's: ``anno_nascita`` nullable ``Int64``, text columns pandas' default
string dtype. The frame has no missing value (only complete rows are sampled).

The frame is cached as parquet in ``benchmarks/.cache/`` (gitignored), one file per
``(n_rows, seed, REPLICAS, GENERATOR_VERSION)``: building takes a few seconds, reading it back
about one. Delete the directory to rebuild; bump ``GENERATOR_VERSION`` when changing the
generator. Run ``python benchmarks/synthetic.py`` to build it and print its shape.

:func:`licence_like` is another region's whole file: every column of the embedded one but
``id`` (13 columns), at any size (200,000 rows by default, about the 198,000 licences of a
mid-sized Italian region). It samples Valle d'Aosta rows (complete or not) with replacement,
spreads the 79 comuni over Liguria's 234 (``LICENCE_REPLICAS`` per real comune, ISTAT's names
from the Italy plugin's data, upper case as the licence files write them, each with its real
province and the region), and moves each row's three dates by the same random number of days
(-30..30), so that a sampled row is rarely another's exact copy (the dates keep their order;
points, categories and countries are the real ones). Dates are datetime64 as the loader
reads them; built in memory each time (about a second). :func:`twenty_columns` adds seven
of UCI Adult's columns to it, drawn by whole Adult rows: a table of 20 quasi-identifiers.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import pandas_anon.datasets

import harness

QID = ["anno_nascita", "comune_residenza", "sesso"]
PROVINCES = (
    "BERGAMO",
    "BRESCIA",
    "COMO",
    "CREMONA",
    "LECCO",
    "LODI",
    "MANTOVA",
    "MILANO",
    "MONZA E DELLA BRIANZA",
    "PAVIA",
    "SONDRIO",
    "VARESE",
)
REPLICAS = 23  # 79 * 23 = 1,817 synthetic comuni -> ~210,000 distinct QID combinations
GENERATOR_VERSION = 1
CACHE = Path(__file__).resolve().parent / ".cache"


def cached_path(n_rows: int = 6_400_000, seed: int = 0) -> Path:
    """Where :func:`lombardia_like` keeps the table of ``n_rows`` rows and ``seed``, as
    Parquet (written by its first call)."""
    return CACHE / f"lombardia_like_n{n_rows}_s{seed}_r{REPLICAS}_v{GENERATOR_VERSION}.parquet"


def lombardia_like(n_rows: int = 6_400_000, seed: int = 0, *, cache: bool = True) -> pd.DataFrame:
    """Columns anno_nascita, comune_residenza, provincia_residenza, sesso; ``n_rows`` rows."""
    path = cached_path(n_rows, seed)
    if cache and path.exists():
        return pd.read_parquet(path)
    frame = _build(n_rows, seed)
    if cache:
        CACHE.mkdir(exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        frame.to_parquet(partial, index=False)
        partial.replace(path)  # atomic: a concurrent run never reads half a file
        return pd.read_parquet(path)  # the same (chunked) arrays as every later, cached run
    return frame


def _build(n_rows: int, seed: int) -> pd.DataFrame:
    real = pandas_anon.datasets.load_driver_licenses(parse_dates=False)[QID].dropna()
    real = real.reset_index(drop=True)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(real), n_rows)
    replica = rng.integers(0, REPLICAS, n_rows)
    real_code, real_names = pd.factorize(real["comune_residenza"])
    names = np.array([f"{c}_{r}" for c in real_names for r in range(REPLICAS)], dtype=object)
    province = np.array(PROVINCES, dtype=object)[rng.integers(0, len(PROVINCES), len(names))]
    comune = real_code[rows] * REPLICAS + replica
    return pd.DataFrame(
        {
            "anno_nascita": real["anno_nascita"].array.take(rows),
            "comune_residenza": pd.array(names[comune], dtype="str"),
            "provincia_residenza": pd.array(province[comune], dtype="str"),
            "sesso": pd.array(real["sesso"].to_numpy(dtype=object)[rows], dtype="str"),
        }
    )


LICENCE_REPLICAS = 3  # 79 * 3 = 237 slots for Liguria's 234 comuni
LICENCE_REGION = "Liguria"
LICENCE_DATES = ("data_rilascio", "data_abilitazione_a", "data_scadenza")
ISTAT_COMUNI = (
    harness.ROOT
    / "plugins"
    / "pandas-anon-italy"
    / "src"
    / "pandas_anon_italy"
    / "data"
    / "comuni.csv"
)


def licence_like(n_rows: int = 200_000, seed: int = 0) -> pd.DataFrame:
    """The 13 columns of a licence file (all but ``id``), ``n_rows`` rows resampled from
    the real ones into Liguria's comuni (see the module's docstring)."""
    real = pandas_anon.datasets.load_driver_licenses().drop(columns="id")
    istat = pd.read_csv(ISTAT_COMUNI, dtype=str, keep_default_na=False)
    region = istat[istat["regione"] == LICENCE_REGION]
    names = region["comune_italiano"].str.upper().to_numpy(dtype=object)
    provinces = region["provincia"].str.upper().to_numpy(dtype=object)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(real), n_rows)
    frame = real.take(rows).reset_index(drop=True)
    real_code, _ = pd.factorize(frame["comune_residenza"])
    slot = (real_code * LICENCE_REPLICAS + rng.integers(0, LICENCE_REPLICAS, n_rows)) % len(names)
    text = real["comune_residenza"].dtype
    frame["comune_residenza"] = pd.array(names[slot], dtype=text)
    frame["provincia_residenza"] = pd.array(provinces[slot], dtype=text)
    frame["regione_residenza"] = pd.array([LICENCE_REGION.upper()] * n_rows, dtype=text)
    shift = pd.to_timedelta(rng.integers(-30, 31, n_rows), unit="D")
    for column in LICENCE_DATES:
        frame[column] = frame[column] + shift
    return frame


#: UCI Adult's columns :func:`twenty_columns` adds to a licence file's 13 (its ``sex`` is the
#: licence's ``sesso`` already, and ``salary-class`` is its usual sensitive column).
ADULT_COLUMNS = tuple(
    c for c in pandas_anon.datasets.ADULT_HIERARCHY_ATTRIBUTES if c not in ("sex", "salary-class")
)


def twenty_columns(n_rows: int = 100_000, seed: int = 0) -> pd.DataFrame:
    """20 quasi-identifiers: :func:`licence_like`'s 13 columns, then 7 of UCI Adult's
    (:data:`ADULT_COLUMNS`), each row joined with a whole Adult row drawn with replacement
    (Adult's columns keep their joint distribution, independent of the licence's)."""
    adult = pandas_anon.datasets.load_adult()[list(ADULT_COLUMNS)]
    rows = np.random.default_rng(seed + 1).integers(0, len(adult), n_rows)
    drawn = adult.take(rows).reset_index(drop=True)
    return pd.concat([licence_like(n_rows, seed), drawn], axis=1)


def describe(frame: pd.DataFrame) -> str:
    """Shape, dtypes, size and QID statistics of a generated frame."""
    distinct = len(frame.groupby(QID, sort=False).size())
    return "\n".join(
        [
            f"rows {len(frame):,}; dtypes "
            + ", ".join(f"{c}={t}" for c, t in frame.dtypes.astype(str).items()),
            f"memory_usage(deep=True) {frame.memory_usage(deep=True).sum() / 2**20:,.1f} MiB",
            f"comuni {frame['comune_residenza'].nunique():,}, "
            f"provinces {frame['provincia_residenza'].nunique()}, "
            f"distinct (anno_nascita, comune_residenza, sesso) {distinct:,}",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    args = harness.parser("Build (or read from cache) the Lombardia-like table.").parse_args(argv)
    start = time.perf_counter()
    frame = lombardia_like(args.rows, args.seed)
    print(f"lombardia_like({args.rows:,}, seed={args.seed}) in {time.perf_counter() - start:.1f} s")
    print(describe(frame))


if __name__ == "__main__":
    sys.exit(main())
