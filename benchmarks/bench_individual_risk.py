"""Individual risk against the truth, and the time of individual_risk and suda.

Valle d'Aosta's licence file is the population (87,642 records; QID birth year, comune, sex,
licence category; a missing sex is a value, ``dropna=False``). From it, simple random samples
of fractions 0.01, 0.1 and 0.3 are drawn (``DataFrame.sample``, seeds 0 to ``--seeds - 1``);
each sample's expected number of re-identifications (``pandas_anon.individual_risk(sample,
qid, sampling_fraction=f)``, the sum of Benedetti and Franconi's risks) is compared with the
truth, the sum over the sampled records of ``1 / F``, ``F`` the record's class size in the
population. The table gives the mean truth and estimate over the seeds, and the mean, lowest
and highest relative error (the bounds tests/detect/test_individual.py holds).

SUDA's DIS score estimates the probability that a record's unique match in the population
is correct: on the same samples (``suda(sample, qid, sampling_fraction=f)``), the sum of the
DIS scores, and ``dis`` times the sample uniques, are compared with the number of sample
uniques that are unique in the population (a unique match that is correct).

Then the timings on the whole file (best of ``--repeat``): individual_risk with a sampling
fraction and with a weights array; suda on the four-column QID and on ten columns at
``max_size`` 2 to all, with the MSUs found by size.

    python benchmarks/bench_individual_risk.py [--seeds 5] [--repeat 5]
"""

from __future__ import annotations

import argparse

import numpy as np
from tabulate import tabulate

import pandas_anon
from pandas_anon.datasets import load_driver_licenses

import harness

FRACTIONS = (0.01, 0.1, 0.3)
QID = ["anno_nascita", "comune_residenza", "sesso", "categoria_patente"]
#: A wider QID for SUDA: ten columns of the file.
WIDE = [
    *QID,
    "stato_estero_nascita",
    "abilitato_a",
    "punti_patente",
    "provincia_residenza",
    "data_rilascio",
    "stato_estero_primo_rilascio",
]


def accuracy(population, seeds: int) -> list[list]:
    """One row per fraction: the sample's size, the truth and the estimate (means over the
    seeds), and the relative error's mean, lowest and highest."""
    keys = [population[c].astype(object).fillna("<missing>") for c in QID]
    sizes = population.groupby(keys)[QID[0]].transform("size").to_numpy()
    rows = []
    for fraction in FRACTIONS:
        truths, estimates = [], []
        for seed in range(seeds):
            sample = population.sample(frac=fraction, random_state=seed)
            truths.append(float(np.sum(1 / sizes[population.index.get_indexer(sample.index)])))
            estimates.append(
                pandas_anon.individual_risk(
                    sample, QID, sampling_fraction=fraction, dropna=False
                ).expected_reidentifications
            )
        relative = np.array(estimates) / np.array(truths) - 1
        rows.append(
            [
                fraction,
                f"{round(fraction * len(population)):,}",
                f"{np.mean(truths):,.1f}",
                f"{np.mean(estimates):,.1f}",
                f"{np.mean(relative):+.3f}",
                f"{relative.min():+.3f}",
                f"{relative.max():+.3f}",
            ]
        )
    return rows


def dis_accuracy(population, seeds: int) -> list[list]:
    """One row per fraction: the sample uniques on the QID and, of them, those unique in the
    population (the unique matches that are correct), against SUDA's estimates of that
    number: ``dis`` times the uniques, and the sum of the DIS scores (means over the seeds),
    with the relative error of the sum (mean, lowest, highest)."""
    keys = [population[c].astype(object).fillna("<missing>") for c in QID]
    sizes = population.groupby(keys)[QID[0]].transform("size").to_numpy()
    rows = []
    for fraction in FRACTIONS:
        found: dict[str, list[float]] = {"uniques": [], "truth": [], "dis": [], "scores": []}
        for seed in range(seeds):
            sample = population.sample(frac=fraction, random_state=seed)
            result = pandas_anon.suda(sample, QID, sampling_fraction=fraction)
            in_sample = sample.groupby([k.loc[sample.index] for k in keys])[QID[0]].transform(
                "size"
            )
            unique = in_sample.to_numpy() == 1
            in_population = sizes[population.index.get_indexer(sample.index)]
            found["uniques"].append(result.sample_uniques)
            found["truth"].append(float(np.sum(in_population[unique] == 1)))
            found["dis"].append(result.dis * result.sample_uniques)
            found["scores"].append(float(result.dis_score.sum()))
        relative = np.array(found["scores"]) / np.array(found["truth"]) - 1
        rows.append(
            [
                fraction,
                *(f"{np.mean(found[k]):,.1f}" for k in ("uniques", "truth", "dis", "scores")),
                f"{np.mean(relative):+.3f}",
                f"{relative.min():+.3f}",
                f"{relative.max():+.3f}",
            ]
        )
    return rows


def timings(population, repeat: int) -> list[list]:
    """Seconds of each call on the whole file, and what it found."""
    weights = np.random.default_rng(0).uniform(1, 20, len(population))
    calls = {
        "individual_risk, sampling_fraction=0.1": lambda: pandas_anon.individual_risk(
            population, QID, sampling_fraction=0.1
        ),
        "individual_risk, weights (array)": lambda: pandas_anon.individual_risk(
            population, QID, weights=weights
        ),
        "suda, 4 columns": lambda: pandas_anon.suda(population, QID),
    }
    for size in (2, 3, 4, 5, None):
        calls[f"suda, 10 columns, max_size={size or 'all'}"] = lambda size=size: pandas_anon.suda(
            population, WIDE, max_size=size
        )
    rows = []
    for name, call in calls.items():
        seconds, result = harness.best_of(call, repeat)
        if name.startswith("suda"):
            found = ", ".join(f"{k}: {n:,}" for k, n in result.msus_by_size.items())
        else:
            found = f"{result.expected_reidentifications:,.1f} expected re-identifications"
        rows.append([name, f"{seconds:.3f}", found])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    population = load_driver_licenses()
    print(f"Expected re-identifications against the truth ({args.seeds} seeds per fraction)")
    print(
        tabulate(
            accuracy(population, args.seeds),
            headers=["f", "sample", "truth", "estimate", "error", "lowest", "highest"],
            tablefmt="github",
        )
    )
    print("\nCorrect unique matches against SUDA's DIS (sampling_fraction=f)")
    print(
        tabulate(
            dis_accuracy(population, args.seeds),
            headers=[
                "f",
                "sample uniques",
                "population uniques among them",
                "dis x uniques",
                "sum of DIS scores",
                "error",
                "lowest",
                "highest",
            ],
            tablefmt="github",
        )
    )
    print(f"\nTimings on the licence file ({len(population):,} rows, best of {args.repeat})")
    print(
        tabulate(
            timings(population, args.repeat),
            headers=["call", "seconds", "found"],
            tablefmt="github",
        )
    )


if __name__ == "__main__":
    main()
