"""Draw the docs' figures of results on the bundled Valle d'Aosta licence file:
``python docs/figures/draw_results.py`` (from the repository root; needs the plot extra)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas_anon  # noqa: E402,F401  (registers df.anon)
from pandas_anon.datasets import (  # noqa: E402
    load_adult,
    load_adult_hierarchies,
    load_driver_licenses,
)
from pandas_anon.hierarchy import Hierarchy  # noqa: E402

HERE = Path(__file__).parent
QID = ["anno_nascita", "comune_residenza", "sesso"]


def adult_lattice():
    """The lattice the optimal search explores on UCI Adult, 5 QIs, k=10, 2 % suppression."""
    adult = load_adult()
    qid = ["age", "sex", "race", "marital-status", "education"]
    tables = load_adult_hierarchies()
    hierarchies = {c: Hierarchy.from_frame(tables[c], name=c) for c in qid}
    decision = pandas_anon.anonymize(
        adult, 10, qid=qid, hierarchies=hierarchies, max_suppression=0.02
    )
    return decision.plot_lattice()


def main() -> None:
    frame = load_driver_licenses()
    drawn = {
        "singletons_class_sizes.png": frame.anon.singletons(QID).plot(),
        "best_qid_subsets.png": frame.anon.best_qid([*QID, "provincia_residenza"]).plot(),
        "study_tradeoff.png": frame.anon.study(
            year="anno_nascita", sex="sesso", place="comune_residenza"
        ).plot()[0],
        "kanon_cost_by_column.png": frame.anon.kanon(5, qid=QID, max_suppression=0.02)
        .anon.report()
        .plot(),
        "kanon_lattice.png": adult_lattice(),
    }
    for name, axes in drawn.items():
        axes.figure.savefig(HERE / name, dpi=110)
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
