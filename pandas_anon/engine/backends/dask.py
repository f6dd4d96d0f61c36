"""The Dask backend: a Dask frame's frequency set, counted where its partitions are.

A Dask frame is never collected. Its frequency set is counted where the partitions are:
each partition counts its own combinations with the pandas backend
(:func:`partition_frequencies`), and Dask adds up the counts of equal combinations across
partitions (``groupby(columns, observed=True).sum()``), in the same pass that counts the
frame's rows. Only the distinct combinations and their counts reach the caller, at most one row per
combination whatever the number of rows. The pandas backend then reads that table, each
combination weighing its count (:func:`pandas_anon.engine.backends.pandas.tabulate` with
``weights``), so every figure comes from the same code, and equals what pandas gives on the
same rows. Rows are reached again only lazily: :meth:`DaskTabulation.mask` is a Dask Series,
each partition's rows joined with the combinations flagged.

What does not scale is a quasi-identifier whose combinations are themselves too many for
one machine (nearly one per row, on billions of rows): its frequency set is as large as the
frame. The election (:func:`pandas_anon.best_qid`) counts the combinations of every
candidate column together, so it is bounded by those.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask.dataframe.utils import make_meta

from pandas_anon.engine.backends import pandas as pandas_backend
from pandas_anon.engine.columns import all_columns, resolve_columns
from pandas_anon.engine.encoding import check_complete
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.errors import EmptyDataError

#: The column of the flags joined with each partition's rows (:meth:`DaskTabulation.mask`).
_FLAG = "__pandas_anon_flag__"
#: The column of each partition's counts of its combinations (:func:`partition_frequencies`).
_COUNT = "__pandas_anon_rows__"


@dataclass(frozen=True)
class DaskTabulation:
    """A Dask frame read once: its frequency set (computed), and what maps its rows to
    combinations lazily: the distinct combinations as Dask counted them (``combinations``,
    a pandas frame) and the combination of the frequency set each of them is
    (``combination_of``)."""

    frequencies: FrequencySet
    combinations: pd.DataFrame
    combination_of: np.ndarray
    n_rows: int

    @property
    def n_examined(self) -> int:
        """Rows examined: the rows the frequency set counts."""
        return self.frequencies.n_rows

    @property
    def n_dropped(self) -> int:
        """Rows of the frame left out, missing a value (``dropna=True``)."""
        return self.n_rows - self.n_examined

    def mask(self, frame: Any, per_combination: np.ndarray, name: str) -> Any:
        """A lazy boolean per row of ``frame`` (the Dask frame tabulated): its combination's
        value of ``per_combination`` (False on rows not examined), partition by partition: a
        Dask Series (typed ``Any`` as the frame, so that results serve both backends)."""
        columns = list(self.combinations.columns)
        table = self.combinations.assign(**{_FLAG: per_combination[self.combination_of]})

        def flags(partition: pd.DataFrame) -> pd.Series:
            joined = partition[columns].merge(table, how="left", on=columns, sort=False)
            found = joined[_FLAG].to_numpy(dtype=object)
            return pd.Series(found == True, index=partition.index, name=name)  # noqa: E712

        return frame.map_partitions(flags, meta=pd.Series(dtype=bool, name=name))


def tabulate(
    frame: dd.DataFrame, columns: Iterable[Hashable] | Hashable, *, dropna: bool = False
) -> DaskTabulation:
    """Count the combinations of ``columns`` across the partitions of ``frame`` (a missing
    value is a value of its own unless ``dropna``, which leaves the rows missing one out, as
    the pandas backend does, with the same error and warning): one pass over the frame,
    which also counts its rows."""
    names = list(resolve_columns(frame, columns))
    meta = make_meta(frame[names]).assign(**{_COUNT: np.zeros(0, dtype=np.int64)})
    counted = frame[names].map_partitions(partition_frequencies, names, meta=meta)
    sizes = counted.groupby(names, dropna=False, observed=True, sort=False)[_COUNT].sum()
    counts, n_rows = dask.compute(sizes, frame.shape[0])
    if n_rows == 0:
        raise EmptyDataError("the frame has no rows: there is nothing to examine")
    combinations = counts.index.to_frame(index=False)
    combinations.columns = names
    weights = counts.to_numpy(dtype=np.int64)
    if dropna:  # the rows missing a value, left out as the pandas backend leaves them out
        incomplete = combinations.isna()
        complete = ~incomplete.any(axis=1).to_numpy()
        check_complete(
            names,
            {name: int(weights[incomplete[name].to_numpy()].sum()) for name in names},
            kept=int(weights[complete].sum()),
            total=int(n_rows),
            any_complete=bool(complete.any()),
        )
        combinations = combinations[complete].reset_index(drop=True)
        weights = weights[complete]
    local = pandas_backend.tabulate(combinations, names, weights=weights)
    return DaskTabulation(local.frequencies, combinations, local.row_combination, int(n_rows))


def partition_frequencies(partition: pd.DataFrame, names: list[Hashable]) -> pd.DataFrame:
    """One partition's combinations of ``names`` (a missing value a value of its own) and
    the rows of each, in a column of their own: what Dask then adds up across partitions.
    Counted by the pandas backend (several times faster than ``groupby().size()`` on
    millions of rows), or by ``groupby`` on a partition where a column holds no value
    (which the backend refuses, rightly, for a whole frame)."""
    part = partition[names]
    if len(part) == 0 or part.isna().all().any():
        sizes = part.groupby(names, dropna=False, observed=True, sort=False).size()
        table = sizes.index.to_frame(index=False)
        table.columns = names
        return table.assign(**{_COUNT: sizes.to_numpy(dtype=np.int64)})
    frequencies = pandas_backend.tabulate(part, names, dropna=False).frequencies
    table = pd.DataFrame(
        {
            column: frequencies.values[column]
            .take(frequencies.codes[:, j])
            .astype(part[column].dtype)
            for j, column in enumerate(frequencies.columns)
        }
    )
    return table.assign(**{_COUNT: frequencies.counts})


def present_columns(frame: dd.DataFrame) -> tuple[Hashable, ...]:
    """The columns of ``frame`` holding at least one value (one pass over the frame)."""
    columns = all_columns(frame)
    if not columns:
        raise EmptyDataError("the frame has no columns: there is nothing to examine")
    held = (~frame.isna()).any().compute()
    return tuple(c for c in columns if bool(held[c]))
