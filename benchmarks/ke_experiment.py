"""Holohan et al.'s (k, ε) experiment (2017, section VI) on UCI Adult with a height.

The k-quasis (age, sex, race, marital status, with the paper's hierarchies) are
k-anonymized by OLA (at most 5 % suppression) and by Mondrian for k in 2, 5, 10, 20, 50, 100;
the height gets the noise of each ε in 0.01 ... 16, 30 draws per (k, ε) (the paper's runs).
Per cell: the predicted information loss (exact before noise), the mean measured relative
error over the draws and their gap, the nearest-neighbour linking risk, and the share of
rows 99 %-confident k-anonymity suppresses. Printed: the worst gap between prediction and
measure where the error exceeds 0.1 %, the smallest ε whose error is under 5 % per k,
the linking risk and the suppression by (k, ε); ``--plots DIR`` draws the paper's figures
3 to 6 there (needs matplotlib: the ``plot`` extra) and ``--csv FILE`` saves every cell.
The data and hierarchies: :mod:`ke_data`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from pandas_anon.anonymization.noise.ke import ke_decide
from pandas_anon.anonymization.noise.sources import SeededLaplace

import ke_data

KS = [2, 5, 10, 20, 50, 100]
EPSILONS = [0.01, 0.05, 0.1, 0.5, 1, 2, 4, 8, 16]
ALGORITHMS = {"ola": {"max_suppression": 0.05}, "mondrian": {}}
ALPHA = 0.99


def cells(frame: pd.DataFrame, runs: int, seed: int) -> pd.DataFrame:
    """Every (algorithm, k, ε) cell of the experiment, averaged over ``runs`` draws."""
    hierarchies = ke_data.paper_hierarchies(frame)
    qid = [*ke_data.K_QUASI, "height"]
    rows = []
    for algo, options in ALGORITHMS.items():
        for k in KS:
            plan = ke_decide(
                frame,
                k,
                1.0,
                qid=qid,
                eps_quasi=["height"],
                algo=algo,
                hierarchies=hierarchies if algo == "ola" else None,
                progress=False,
                **options,
            )
            for eps in EPSILONS:
                at = plan.with_eps(eps)
                errors, risks, removed = [], [], []
                for run in range(runs):
                    stream = int(np.random.SeedSequence([seed, run]).generate_state(1)[0])
                    noisy = at.draw(SeededLaplace(stream))
                    exposure = at.exposure(noisy, ALPHA)
                    errors.append(at.relative_error(noisy)["height"])
                    risks.append(exposure.linking_risk)
                    removed.append(exposure.removed.mean())
                predicted = at.predicted_loss()["height"]
                measured = float(np.mean(errors))
                rows.append(
                    {
                        "algorithm": algo,
                        "k": k,
                        "eps": eps,
                        "suppressed (k-anonymity)": float((plan.row_class < 0).mean()),
                        "predicted": predicted,
                        "measured": measured,
                        "gap": abs(measured / predicted - 1) if predicted else 0.0,
                        "linking risk": float(np.mean(risks)),
                        "suppressed (99 %-confident)": float(np.mean(removed)),
                    }
                )
            print(f"  {algo} k={k}: done", file=sys.stderr)
    return pd.DataFrame(rows)


def pivot(table: pd.DataFrame, column: str) -> pd.DataFrame:
    """``column`` with one row per (algorithm, k) and one column per ε, in percent."""
    shown = table.pivot_table(index=["algorithm", "k"], columns="eps", values=column) * 100
    return shown.reindex(list(ALGORITHMS), level=0).round(2)


def smallest_eps(table: pd.DataFrame, limit: float = 0.05) -> pd.DataFrame:
    """Per (algorithm, k), the smallest ε whose measured error is under ``limit``."""
    under = table[table["measured"] < limit]
    found = under.groupby(["algorithm", "k"])["eps"].min()
    return found.reindex(pd.MultiIndex.from_product([list(ALGORITHMS), KS])).to_frame()


def plots(table: pd.DataFrame, folder: Path) -> None:
    """The paper's figures 3 to 6: error against k and against ε, linking risk and
    99 %-confident suppression against ε, one panel per algorithm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    figures = [
        ("ke_error_vs_k.png", "k", "eps", "measured", "relative error", True),
        ("ke_error_vs_eps.png", "eps", "k", "measured", "relative error", True),
        ("ke_linking_vs_eps.png", "eps", "k", "linking risk", "linking risk", False),
        (
            "ke_suppression_vs_eps.png",
            "eps",
            "k",
            "suppressed (99 %-confident)",
            "suppressed, 99 %-confident",
            False,
        ),
    ]
    for name, x, line, y, label, log_y in figures:
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True, constrained_layout=True)
        for ax, algo in zip(axes, ALGORITHMS):
            part = table[table["algorithm"] == algo]
            for value, rows in part.groupby(line):
                legend = "ε" if line == "eps" else line
                ax.plot(rows[x], rows[y], marker="o", label=f"{legend} = {value:g}")
            ax.set_xscale("log")
            if log_y:
                ax.set_yscale("log")
            ax.set_title(f"{algo}, Adult + height: {label} against {'ε' if x == 'eps' else x}")
            ax.set_xlabel("ε" if x == "eps" else x)
        axes[0].set_ylabel(label)
        axes[-1].legend(fontsize="small", ncol=2)
        fig.savefig(folder / name, dpi=110)
        plt.close(fig)
        print(f"wrote {folder / name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="noise draws per cell (30)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draws (0)")
    parser.add_argument("--plots", type=Path, help="folder for the figures (needs matplotlib)")
    parser.add_argument("--csv", type=Path, help="file for every cell")
    args = parser.parse_args(argv)
    frame = ke_data.adult_with_height()
    started = time.perf_counter()
    table = cells(frame, args.runs, args.seed)
    seconds = time.perf_counter() - started
    print(
        f"Adult + height, {len(frame):,} rows; {len(table)} cells x {args.runs} draws in "
        f"{seconds:.1f} s\n"
    )
    measured = table[table["measured"] > 0.001]
    worst = measured.loc[measured["gap"].idxmax()]
    print(
        f"predicted vs measured relative error, cells with error > 0.1 % ({len(measured)} of "
        f"{len(table)}): worst gap {worst['gap']:.2%} at {worst['algorithm']} k={worst['k']} "
        f"ε={worst['eps']:g} (predicted {worst['predicted']:.4%}, measured "
        f"{worst['measured']:.4%}); target within 5 %"
    )
    print("\nsmallest ε of the grid with a measured relative error under 5 %:")
    print(tabulate(smallest_eps(table), headers=["algorithm, k", "ε"], tablefmt="simple"))
    for column in ("measured", "linking risk", "suppressed (99 %-confident)"):
        print(f"\n{column} (%), rows (algorithm, k), columns ε:")
        print(tabulate(pivot(table, column), headers="keys", tablefmt="simple"))
    print("\nsuppressed by the k-anonymity step (%):")
    first = table.groupby(["algorithm", "k"])["suppressed (k-anonymity)"].first() * 100
    print(tabulate(first.round(2).to_frame(), headers=["algorithm, k", "%"], tablefmt="simple"))
    if args.csv:
        table.to_csv(args.csv, index=False)
        print(f"\nwrote {args.csv}")
    if args.plots:
        plots(table, args.plots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
