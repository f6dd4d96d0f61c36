"""Issue 36's risk figures in one run: population uniques, individual risk, WP29's attacks.

Runs, one after the other and with their own defaults, the three benchmarks that print the
figures docs/risk.md gives, each described in its own module:

a. ``bench_population``: the estimated population uniques of samples of the licence file and
   of Adult (f = 0.01, 0.1, 0.3; 10 seeds) against the truth counted on the whole table, the
   log-linear model beside ARX 3.9's Dankar estimate (our port of it), and the estimates' time
   on the 6.4 M-row synthetic table.              targets: half of Dankar's error, <= 30 % for
                                                  f >= 0.1; <= 1 s on 6.4 M rows
b. ``bench_individual_risk``: the expected re-identifications of samples of the licence file
   against the truth, SUDA's DIS scores against the sample uniques also unique in the
   population, and the timings of ``individual_risk`` and ``suda``.       informational
c. ``bench_attacks``: ``pandas_anon.attacks`` against anonymeter 1.1.0 (in its own virtual
   environment, skipped without it) on Adult and the licence file, raw and released by
   ``kanon(5)``, Mondrian, local recoding and ``ke_anon``.   target: attacks on Adult <= 60 s

    python benchmarks/bench_risk.py
"""

from __future__ import annotations

import sys
import time

import bench_attacks
import bench_individual_risk
import bench_population

PARTS = (bench_population, bench_individual_risk, bench_attacks)


def main() -> None:
    """Each part's ``main`` with its default options, its output under a heading."""
    for part in PARTS:
        started = time.perf_counter()
        print(f"== {part.__name__}: {(part.__doc__ or '').splitlines()[0]}\n", flush=True)
        sys.argv = [part.__file__]  # its own parser, its defaults
        part.main()
        print(f"\n({time.perf_counter() - started:.1f} s)\n", flush=True)


if __name__ == "__main__":
    main()
