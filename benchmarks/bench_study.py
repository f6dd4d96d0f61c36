"""The seed paper's strategy study: ``pandas_anon.study`` against the same table in plain pandas.

The baseline materializes every strategy the way a pandas script would: replace the values of
the generalized columns (``Series.map`` / ``.where`` on the rows), then ``groupby().size()``
on the quasi-identifier, for each of the 15 rows of Table 1. Both must give the same table.

Valle d'Aosta, hierarchy from the data's comune -> provincia columns   target <= 0.3 s
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import pandas_anon
import pandas_anon.datasets
from pandas_anon.hierarchy import Hierarchy

import harness
from harness import Case, best_of, require_same

QID = ["anno_nascita", "comune_residenza", "sesso"]
YEAR, PLACE, SEX, PARENT = "anno_nascita", "comune_residenza", "sesso", "provincia_residenza"


def plain_pandas_study(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1 by hand: singletons, modified and distinct for each strategy."""
    data = frame.dropna(subset=QID)
    province = dict(zip(frame[PLACE], frame[PARENT]))
    years = np.sort(data[YEAR].unique())
    ranges = {
        y: f"{years[i // 4 * 4]}-{years[min(i // 4 * 4 + 3, len(years) - 1)]}"
        for i, y in enumerate(years)
    }
    ordered = data[YEAR].sort_values().to_numpy()
    size = len(ordered) // 4
    runs = [ordered[i * size : (i + 1) * size if i < 3 else len(ordered)] for i in range(4)]
    average = {y: next(r[len(r) // 2] for r in runs if r[0] <= y <= r[-1]) for y in years}

    def singles(table: pd.DataFrame) -> pd.Series:
        return table.groupby(QID, sort=False)[YEAR].transform("size") == 1

    def measure(table: pd.DataFrame) -> tuple[int, int, int]:
        sizes = table.groupby(QID, sort=False).size()
        modified = (table[QID] != data[QID]).any(axis=1).sum()
        return int((sizes == 1).sum()), int(modified), len(sizes)

    alone = singles(data)
    s_loc = data.assign(sesso=data[SEX].where(~alone, "*"))
    m_loc = data.assign(comune_residenza=data[PLACE].where(~alone, data[PLACE].map(province)))
    again = singles(s_loc)
    sm_loc = s_loc.assign(comune_residenza=s_loc[PLACE].where(~again, s_loc[PLACE].map(province)))
    recodings = {
        "S": {SEX: lambda s: s.map(lambda _: "*")},
        "M": {PLACE: lambda s: s.map(province)},
        "Y_ran": {YEAR: lambda s: s.map(ranges)},
        "Y_avg": {YEAR: lambda s: s.map(average)},
    }
    rows = {
        "original": measure(data),
        "S_loc": measure(s_loc),
        "M_loc": measure(m_loc),
        "S, M_loc": measure(sm_loc),
    }
    for name in (
        "S",
        "M",
        "Y_ran",
        "Y_avg",
        "S, M",
        "S, Y_ran",
        "S, Y_avg",
        "M, Y_ran",
        "M, Y_avg",
        "S,M,Y_ran",
        "S,M,Y_avg",
    ):
        table = data
        for part in name.replace(" ", "").split(","):
            ((column, change),) = recodings[part].items()
            table = table.assign(**{column: change(table[column])})
        rows[name] = measure(table)
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=["singletons", "modified", "distinct"]
    )


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the table; return (case, target, verdict) rows for the run_all summary."""
    args = harness.parser(__doc__.splitlines()[0]).parse_args(argv)
    frame = pandas_anon.datasets.load_driver_licenses()
    places = Hierarchy.from_columns(frame, [PLACE, PARENT])

    def ours() -> pd.DataFrame:
        return pandas_anon.study(
            frame, QID, year=YEAR, sex=SEX, place=PLACE, hierarchy=places
        ).table

    ours_seconds, table = best_of(ours, args.repeat)
    base_seconds, expected = best_of(lambda: plain_pandas_study(frame), args.repeat)
    as_rows = lambda t: t[["singletons", "modified", "distinct"]].astype(int).to_dict("index")  # noqa: E731
    require_same("Table 1", as_rows(table), as_rows(expected))
    print(f"\n== strategy study (15 strategies), best of {args.repeat} ==")
    print(f"answer: the 15 rows agree with plain pandas; M_loc {as_rows(table)['M_loc']}")
    cases = [
        Case(
            "study, Valle d'Aosta (data's own province hierarchy)",
            ours_seconds,
            base_seconds,
            max_seconds=0.3,
        )
    ]
    print(harness.case_table(cases))
    return [c.summary() for c in cases]


if __name__ == "__main__":
    main()
