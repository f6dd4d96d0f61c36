"""The pandas backend: a frame's frequency set, and the map from its rows to combinations."""

from __future__ import annotations

import weakref
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon.engine import kept_codes
from pandas_anon.engine.columns import column_array, require_data, resolve_columns
from pandas_anon.engine.encoding import (
    EncodedFrame,
    all_missing,
    arrow_source,
    arrow_text,
    nullable_integer_codes,
    same_source,
    whole_number_codes,
    with_missing,
)
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.grouping import (
    HASHED_ROWS,
    KEY_LIMIT,
    combinations,
    compress,
    dense_limit,
    first_occurrence,
    group_labels,
)
from pandas_anon.engine.hashing import kernels, one_array, text_buffers
from pandas_anon.engine.weights import Weights

#: Rows' keys are read through a table indexed by key when the key space is at most this many
#: times the rows (else by a binary search among the keys).
_KEY_TABLE_PER_ROW = 8


@dataclass(frozen=True)
class Tabulation:
    """A frame read once: its frequency set, and the combination of each row examined.

    ``labels``: a label per examined row, its combination itself when ``keys`` is None,
    otherwise the key of its combination in ``keys`` (ascending): the row map is then built
    only when asked (:attr:`row_combination`, :meth:`rows_where`), so reading a frame's
    frequency set costs no pass over its rows beyond the grouping itself.
    ``positions``: the positions of the examined rows in the frame (None: every row), when
    rows missing a value are left out (``dropna=True``). ``sources``: the immutable Arrow
    data of the Arrow-backed columns read (weakly held; :meth:`combination_codes`).
    """

    frequencies: FrequencySet
    labels: np.ndarray
    positions: np.ndarray | None
    n_rows: int
    keys: np.ndarray | None = None
    sources: Mapping[Hashable, weakref.ref] = field(default_factory=dict)
    weights: np.ndarray | None = None
    total: int | None = None

    @property
    def n_examined(self) -> int:
        """Rows examined: the rows the frequency set counts (people, with weights)."""
        return self.frequencies.n_rows

    @property
    def n_dropped(self) -> int:
        """Rows of the frame left out, missing a value (``dropna=True``); with weights, the
        people they stand for."""
        return (self.n_rows if self.total is None else self.total) - self.n_examined

    @cached_property
    def row_combination(self) -> np.ndarray:
        """The combination of each examined row."""
        if self.keys is None:
            return self.labels
        if not self._dense_keys:  # a binary search of each row's key among the keys
            return np.searchsorted(self.keys, self.labels)
        return self._by_key(np.arange(len(self.keys)))[self.labels]

    @property
    def _dense_keys(self) -> bool:
        """Whether a table indexed by key is small beside the rows (see :meth:`_by_key`)."""
        return self.keys is not None and (
            len(self.keys) == 0 or int(self.keys[-1]) < _KEY_TABLE_PER_ROW * len(self.labels)
        )

    def _by_key(self, per_combination: np.ndarray) -> np.ndarray:
        """A table indexed by the rows' keys giving the value of their combination (only the
        keys of combinations are written, and only they are read)."""
        assert self.keys is not None
        table = np.empty(int(self.keys[-1]) + 1, dtype=per_combination.dtype)
        table[self.keys] = per_combination
        return table

    def mask(self, frame: pd.DataFrame, per_combination: np.ndarray, name: str) -> pd.Series:
        """A boolean per row of ``frame`` (the frame tabulated): its combination's value of
        ``per_combination`` (False on rows not examined)."""
        return pd.Series(self.rows_where(per_combination), index=frame.index, name=name)

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
                np.bincount(refined, weights=self.weights, minlength=n).astype(np.int64),
                {**frequencies.values, label: pd.Index([False, True])},
                frequencies.dtypes,
            ),
            refined,
            self.positions,
            self.n_rows,
            sources=self.sources,
            weights=self.weights,
            total=self.total,
        )

    def combination_codes(
        self, series: pd.Series | Any, column: Hashable = None
    ) -> tuple[np.ndarray, pd.Index] | None:
        """Each combination's code in column ``column`` (default ``series.name``) and the
        value of each code, read from the frequency set, when ``series`` (a Series, or its
        values: :func:`~pandas_anon.engine.columns.column_array`) holds the data this
        tabulation read (so its rows are the combinations' rows), every row was examined
        and none is missing; else None. Arrow data is the data read when it is the very
        Arrow array read (Arrow arrays are immutable); a column of whole numbers or booleans
        in a numpy array (which anyone may write to) when each row holds its combination's
        value, compared row by row (a fraction of the cost of reading the column again)."""
        column = series.name if column is None else column
        if self.positions is not None or column not in self.frequencies.values:
            return None
        values = self.frequencies.values[column]
        if values.hasnans:
            return None
        codes = self.frequencies.codes[:, self.frequencies.position(column)]
        if same_source(series, self.sources.get(column)):
            return codes, values
        kind = series.dtype.kind if isinstance(series.dtype, np.dtype) else None
        if kind is None or kind not in "iub" or values.dtype != series.dtype:
            return None
        held = values.to_numpy()[codes][self.row_combination]
        return (codes, values) if np.array_equal(held, np.asarray(series)) else None

    def rows_where(self, combinations: np.ndarray) -> np.ndarray:
        """Spread a boolean per combination to the frame's rows (False on rows not
        examined)."""
        if self.keys is None or "row_combination" in self.__dict__ or not self._dense_keys:
            examined = combinations[self.row_combination]
        else:  # through the keys: one pass over the rows, no row map built
            examined = self._by_key(combinations)[self.labels]
        if self.positions is None:
            return examined
        mask = np.zeros(self.n_rows, dtype=bool)
        mask[self.positions] = examined
        return mask


def tabulate(
    frame: pd.DataFrame,
    columns: Iterable[Hashable] | Hashable,
    *,
    dropna: bool = False,
    weights: Weights | None = None,
) -> Tabulation:
    """Read ``columns`` of ``frame`` into a frequency set (a missing value is a value of its
    own unless ``dropna``, which leaves the rows missing one out).

    ``weights``: the people each row stands for, in an aggregated table (a count column's
    label, or one count per row; :func:`~pandas_anon.engine.weights.read_weights`): the
    counts of the frequency set are then people, as if each row were repeated that many
    times, and rows counting nobody are left out.

    ``columns`` is read as :class:`~pandas_anon.engine.encoding.EncodedFrame` reads it (one
    label or several; the frequency set's columns come in the frame's order). The codes of
    each column are released as soon as they are folded into the rows' keys, so a frame of
    millions of distinct rows does not hold its codes twice.
    """
    if not dropna and weights is None:
        compiled = _compiled_tabulation(frame, columns)
        if compiled is not None:
            return compiled
    encoded = EncodedFrame(frame, columns, dropna=dropna, weights=weights)
    return _tabulation(encoded, weighted=weights is not None)


def _compiled_tabulation(
    frame: pd.DataFrame, columns: Iterable[Hashable] | Hashable
) -> Tabulation | None:
    """:func:`tabulate` of every row, a missing value counted as a value, in one call of
    the compiled kernels (``tabulate_rows``): each column of Arrow text factorized from
    Arrow's buffers, each column of integers (numpy's, or pandas' nullable ones, a missing
    value coded last) coded ``value - min``, the rows' keys
    folded and grouped without an array per step; the same frequency set, combinations and
    rows as :class:`EncodedFrame` then :func:`combinations` give (the tests compare them).
    None (that path, then) for any other column, a frame of more than ``HASHED_ROWS``
    rows or more columns than the kernels read in one call (``TABULATED_COLUMNS``), keys too
    wide for one word, or without the kernels."""
    require_data(frame)
    names = resolve_columns(frame, columns)
    n_rows = len(frame)
    if kernels is None or n_rows > HASHED_ROWS or len(names) > kernels.TABULATED_COLUMNS:
        return None
    arrays = {c: column_array(frame, c) for c in names}
    specs: list[tuple] = []
    values: dict[Hashable, pd.Index] = {}
    texts = {}
    room = kept_codes.LIMIT  # codes kept for this call's columns, at most
    for column, array in arrays.items():
        text = arrow_text(array)
        if text is not None:
            known = kept_codes.kept(text)
            if known is not None:  # read by an earlier call
                specs.append((known.codes, known.cardinality))
                values[column] = known.values
                continue
            chunk = one_array(text)
            validity, offsets, data = text_buffers(chunk)
            spec: tuple = (offsets, data, validity, chunk.offset, chunk.null_count)
            row_codes = None
            if 8 * n_rows <= room:  # filled by the kernels, then kept
                row_codes, room = np.empty(n_rows, dtype=np.int64), room - 8 * n_rows
                spec = (*spec, row_codes)
            specs.append(spec)
            texts[column] = (text, chunk, row_codes)
            continue
        coded = (
            whole_number_codes(array)
            if isinstance(array.dtype, np.dtype) and array.dtype.kind in "iu"
            else nullable_integer_codes(array)
        )
        if coded is None:
            return None
        specs.append((coded[0], len(coded[1])))
        values[column] = coded[1]
    found = kernels.tabulate_rows(specs, n_rows, dense_limit(n_rows), KEY_LIMIT)
    if found is None:
        return None
    if len(found) == 2:  # a column of missing values only
        uniques = found[0]
        raise all_missing(next(c for c, u in zip(names, uniques) if u == 0))
    _, firsts, codes, counts, labels = found
    for column, first in zip(names, firsts):
        if first is not None:
            text, chunk, row_codes = texts[column]
            distinct = pd.Index(arrays[column].take(first))
            values[column] = with_missing(distinct) if chunk.null_count else distinct
            if row_codes is not None:
                kept_codes.keep(text, kept_codes.KeptCodes(row_codes, values[column]))
    values = {c: values[c] for c in names}
    frequencies = FrequencySet(
        names, codes.T, counts, values, {c: a.dtype for c, a in arrays.items()}
    )
    sources = {c: source for c, a in arrays.items() if (source := arrow_source(a)) is not None}
    return Tabulation(frequencies, labels, None, n_rows, None, sources)


def _tabulation(encoded: EncodedFrame, *, weighted: bool) -> Tabulation:
    """Group the examined rows of ``encoded`` into their combinations (see :func:`tabulate`)."""
    names = encoded.columns
    cardinalities = [encoded.cardinality(c) for c in names]
    found = combinations(
        (encoded.codes.pop(c) for c in names),
        cardinalities,
        n_rows=encoded.n_examined,
        weights=encoded.weights,
    )
    frequencies = FrequencySet(names, found.codes, found.counts, encoded.values, encoded.dtypes)
    return Tabulation(
        frequencies,
        found.labels,
        encoded.positions,
        encoded.n_rows,
        found.keys,
        encoded.sources,
        encoded.weights,
        encoded.total if weighted else None,
    )


#: Frames of at least this many examined rows may be searched row by row
#: (:func:`search_entries`).
ROW_ENTRIES_MIN_ROWS = 1_000_000
#: Rows of the sample that decides it, and the share of them distinct from which the rows
#: are searched as they are.
ROW_ENTRIES_SAMPLE = 1 << 16
ROW_ENTRIES_SHARE = 0.9


def search_entries(
    frame: pd.DataFrame, columns: Iterable[Hashable] | Hashable, *, weights: Weights | None = None
) -> FrequencySet:
    """What a search over column subsets reads (:class:`~pandas_anon.detect.subsets.SubsetSearch`):
    the frequency set of ``columns``, a missing value counted as a value of its own, or the
    rows themselves when grouping them would barely shrink them.

    Grouping millions of rows on a dozen columns is the costliest step of such a search, and
    it gains nothing when nearly every row is a combination of its own (a wide open-data
    file). On a frame of at least :data:`ROW_ENTRIES_MIN_ROWS` examined rows, a sample of
    :data:`ROW_ENTRIES_SAMPLE` of them (fixed seed) decides: when at least
    :data:`ROW_ENTRIES_SHARE` of the sample's rows are distinct, the rows are the entries
    (``distinct=False``; each counts one row, or its weight). The search's figures are the
    same either way (a class weighs the counts of its entries); only its speed differs.
    """
    encoded = EncodedFrame(frame, columns, dropna=False, weights=weights, narrow=True)
    if not _barely_repeats(encoded):
        return _tabulation(encoded, weighted=weights is not None).frequencies
    names = encoded.columns
    widest = max(encoded.cardinality(c) for c in names)
    narrowest = next(
        dtype for dtype in (np.int16, np.int32, np.int64) if widest <= np.iinfo(dtype).max
    )  # a dozen columns of millions of rows: each byte saved per code is tens of MB
    codes = np.empty((encoded.n_examined, len(names)), dtype=narrowest, order="F")
    for j, column in enumerate(names):
        codes[:, j] = encoded.codes.pop(column)  # released as soon as it is copied
    counts = (
        np.ones(encoded.n_examined, dtype=np.int64)
        if encoded.weights is None
        else encoded.weights.astype(np.int64)
    )
    return FrequencySet(names, codes, counts, encoded.values, encoded.dtypes, distinct=False)


def _barely_repeats(encoded: EncodedFrame) -> bool:
    """Whether a large frame's rows are nearly all distinct, judged on a sample of them."""
    n = encoded.n_examined
    if n < ROW_ENTRIES_MIN_ROWS:
        return False
    sample = np.unique(np.random.default_rng(0).integers(0, n, ROW_ENTRIES_SAMPLE))
    found = combinations(
        (encoded.codes[c][sample] for c in encoded.columns),
        [encoded.cardinality(c) for c in encoded.columns],
        n_rows=len(sample),
    )
    return len(found.counts) >= ROW_ENTRIES_SHARE * len(sample)
