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
