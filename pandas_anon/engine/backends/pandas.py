"""The pandas backend: a frame's frequency set, and the map from its rows to combinations."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pandas_anon.engine.encoding import EncodedFrame
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.grouping import compress, first_occurrence, group_labels


@dataclass(frozen=True)
class Tabulation:
    """A frame read once: its frequency set, and the combination of each row examined.

    ``positions``: the positions of the examined rows in the frame (None: every row), when
    rows missing a value are left out (``dropna=True``).
    """

    frequencies: FrequencySet
    row_combination: np.ndarray
    positions: np.ndarray | None
    n_rows: int

    def refine(self, label: Hashable, flags: np.ndarray) -> Tabulation:
        """The tabulation with one more column, ``label``: a boolean given for every row of
        the frame (such as the rows a user selected), examined rows only."""
        frequencies = self.frequencies
        examined = flags if self.positions is None else flags[self.positions]
        key = self.row_combination * 2 + examined.astype(np.int64)
        refined, n = compress(group_labels(key, 2 * len(frequencies)))
        first = first_occurrence(refined, n)
        codes = np.column_stack(
            [frequencies.codes[self.row_combination[first]], examined[first].astype(np.int64)]
        )
        return Tabulation(
            FrequencySet(
                [*frequencies.columns, label],
                codes,
                np.bincount(refined, minlength=n),
                {**frequencies.values, label: pd.Index([False, True])},
                frequencies.dtypes,
            ),
            refined,
            self.positions,
            self.n_rows,
        )

    def rows_where(self, combinations: np.ndarray) -> np.ndarray:
        """Spread a boolean per combination to the frame's rows (False on rows not
        examined)."""
        examined = combinations[self.row_combination]
        if self.positions is None:
            return examined
        mask = np.zeros(self.n_rows, dtype=bool)
        mask[self.positions] = examined
        return mask


def tabulate(
    frame: pd.DataFrame, columns: Sequence[Hashable], *, dropna: bool = False
) -> Tabulation:
    """Read ``columns`` of ``frame`` into a frequency set (a missing value is a value of its
    own unless ``dropna``, which leaves the rows missing one out)."""
    encoded = EncodedFrame(frame, columns, dropna=dropna)
    frequencies, row_combination = encoded.tabulate()
    return Tabulation(frequencies, row_combination, encoded.positions, encoded.n_rows)
