"""A generalization hierarchy: the levels of one column, as integer lookup arrays.

Level 0 holds the original values, each higher level a coarser label for every value
(municipality -> province -> region), and the top level a single value (``*``, suppressed).
Each level is stored as ``codes(level)``, an integer array giving, for each level-0 value,
the position of its label in ``labels(level)``; generalizing a frequency set is then one
array lookup per column (docs/architecture.md), and the rows are touched once, at the end.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from os import PathLike
from typing import IO, Any

import numpy as np
import pandas as pd

from pandas_anon.engine.columns import as_label_list, resolve_columns
from pandas_anon.engine.encoding import factorize, written_indexer
from pandas_anon.engine.grouping import compress, first_occurrence, group_codes
from pandas_anon.errors import HierarchyError, InvalidParameterError
from pandas_anon.formatting import plural
from pandas_anon.params import whole

#: Label of the top level appended when a hierarchy's last level has several labels.
TOP = "*"
#: How many values an error message lists before saying how many more there are.
_LISTED = 10


class Hierarchy:
    """Levels of generalization for one column.

    Level 0 holds the original values, each higher level a coarser label for every value
    (municipality -> province -> region) [1]_ [2]_, and the top level a single value.
    ``values`` are the level-0 values; ``levels`` gives, for each level above 0, the label
    of every value (same order and length as ``values``). Exact duplicate rows are merged;
    a value listed twice with different labels, a missing label, or a label that splits
    again at a higher level (one province in two regions) raises :class:`HierarchyError`.
    When the last level has more than one label (or there is no level above 0), a top level
    ``*`` is added. Builders: :meth:`from_frame`, :meth:`from_columns`, :meth:`from_csv`,
    :meth:`from_arx_csv`, and those of :mod:`pandas_anon.hierarchy`.

    ``note``: what a report using the hierarchy should say about how it was built, in counts
    (a builder that could not place some values of the column says how many, never which):
    reports show it after the name (:meth:`described`).

    Parameters
    ----------
    values : sequence of hashable, pandas.Index or pandas.Series
        The level-0 values (those of the column).
    levels : sequence of (sequence of hashable, pandas.Index or pandas.Series), default ()
        For each level above 0, the label of every value, in the order of ``values`` and of
        its length. Default (): no level but the top ``*``.
    name : str, optional
        The hierarchy's name, as errors and reports give it. Default None: unnamed.
    level_names : sequence of str, optional
        A name for each level, from level 0 up, at most one per level (the top ``*`` added
        included); levels without one are called ``level_<n>``, and two levels may not share
        a name. Default None: ``level_0``, ``level_1``...
    note : str, optional
        What a report should say about how the hierarchy was built, in counts, never values.
        Default None: nothing.

    Attributes
    ----------
    name, note : str or None
        As given.
    level_names : tuple of str
        The name of every level, level 0 and the top included.
    values : pandas.Index
        The level-0 values, each once.
    n_levels : int
        Number of levels, level 0 and the top level included.
    height : int
        Index of the top level (``n_levels - 1``).

    Raises
    ------
    HierarchyError
        When a level's length differs from that of ``values``, a value is listed with
        different labels, a label is missing or falls under several labels of the next
        level, or ``level_names`` has more names than levels or repeats a name.
    UnhashableValueError
        When a value or label cannot be compared (lists, dicts).

    See Also
    --------
    pandas_anon.generalize : Generalize columns along hierarchies.
    pandas_anon.kanon : k-anonymity by generalization along hierarchies.
    pandas_anon.get_hierarchy : A hierarchy registered by a plugin, by name.

    References
    ----------
    .. [1] Saroha (2014), "Survey of k-Anonymity", sections 2.3 to 2.5 (generalization,
       suppression, the domain generalization lattice).
    .. [2] M. Pastore, M. A. Pellegrino and V. Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020, section 3.2.

    Examples
    --------
    >>> import pandas as pd
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> towns = Hierarchy(
    ...     ["Aosta", "Ivrea", "Turin"], [["AO", "TO", "TO"]],
    ...     name="towns", level_names=["comune", "provincia"],
    ... )
    >>> towns
    Hierarchy(towns: 3 levels, labels 3 -> 2 -> 1)
    >>> towns.level_names, towns.height
    (('comune', 'provincia', 'level_2'), 2)
    >>> towns.generalize(pd.Series(["Turin", "Aosta"]), 1).tolist()
    ['TO', 'AO']
    """

    def __init__(
        self,
        values: Sequence[Hashable] | pd.Index | pd.Series,
        levels: Sequence[Sequence[Hashable] | pd.Index | pd.Series] = (),
        *,
        name: str | None = None,
        level_names: Sequence[str] | None = None,
        note: str | None = None,
    ) -> None:
        self.name = name
        self.note = note
        #: each level-0 value's position, built when first looked up (:meth:`_indexer`)
        self._position_of: dict[Hashable, int] | None = None
        table = _level_table(values, levels)
        table = _merge_duplicates(table, name, [] if level_names is None else list(level_names))
        if len(factorize(table.iloc[:, -1])[1]) > 1 or table.shape[1] == 1:
            table[len(table.columns)] = TOP
        self._labels: list[pd.Index] = []
        self._codes: list[np.ndarray] = []
        for j in range(table.shape[1]):
            codes, labels = factorize(table.iloc[:, j])  # values as written: 0.0 is not -0.0
            self._codes.append(np.asarray(codes, dtype=np.int64))
            self._labels.append(pd.Index(labels))
        self._check_monotone()
        names = list(level_names) if level_names is not None else []
        if len(names) > self.n_levels:
            raise HierarchyError(
                f"hierarchy {name or '(unnamed)'}: {len(names)} level names for "
                f"{self.n_levels} levels (a top level * is added only when the last level has "
                f"several labels); give one name per level"
            )
        self.level_names = tuple(names + [f"level_{j}" for j in range(len(names), self.n_levels)])
        if len(set(self.level_names)) < len(self.level_names):
            raise HierarchyError(
                f"hierarchy {name or '(unnamed)'}: level names {list(self.level_names)!r} repeat "
                f"a name; give each level its own name"
            )

    # -- structure -------------------------------------------------------------------------

    @property
    def values(self) -> pd.Index:
        """The level-0 values, each once."""
        return self._labels[0]

    @property
    def n_levels(self) -> int:
        """Number of levels, level 0 and the top level included."""
        return len(self._labels)

    @property
    def height(self) -> int:
        """Index of the top level (``n_levels - 1``)."""
        return self.n_levels - 1

    def labels(self, level: int) -> pd.Index:
        """The distinct labels of ``level``."""
        return self._labels[self._level(level)]

    def codes(self, level: int) -> np.ndarray:
        """For each level-0 value (by position), the position of its label at ``level``."""
        return self._codes[self._level(level)]

    def _level(self, level: int) -> int:
        level = whole(level, "level", low=0, example=1)
        if level >= self.n_levels:
            raise HierarchyError(
                f"hierarchy {self.name or '(unnamed)'} has levels 0..{self.height}; level "
                f"{level} does not exist"
            )
        return level

    def to_frame(self) -> pd.DataFrame:
        """One row per level-0 value, one column per level (the table form)."""
        return pd.DataFrame(
            {name: self.labels(j).take(self.codes(j)) for j, name in enumerate(self.level_names)}
        )

    def described(self, unnamed: str = "(unnamed)") -> str:
        """The hierarchy as a report names it: its name (``unnamed`` without one), then its
        :attr:`note` in brackets.

        Examples
        --------
        >>> demo = Hierarchy(["a", "b"], [["x", "x"]], name="demo", note="1 value by hand")
        >>> demo.described()
        'demo (1 value by hand)'
        """
        name = self.name or unnamed
        return f"{name} ({self.note})" if self.note else name

    def __repr__(self) -> str:
        sizes = " -> ".join(f"{len(labels):,}" for labels in self._labels)
        return f"Hierarchy({self.name or 'unnamed'}: {self.n_levels} levels, labels {sizes})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hierarchy):
            return NotImplemented
        return self.to_frame().equals(other.to_frame())

    # Unhashable, as a mutable-looking value object with __eq__: typeshed declares object's
    # __hash__ a method, so None needs the ignore (typeshed's own list does the same)
    __hash__ = None  # type: ignore[assignment]

    # -- matching data --------------------------------------------------------------------

    def positions(
        self, data_values: pd.Index, *, column: Hashable = None, counts: np.ndarray | None = None
    ) -> np.ndarray:
        """Level-0 position of each of ``data_values`` (distinct values of a column).

        Values are matched exactly; when the hierarchy holds text and the column does not
        (ages read as numbers, a hierarchy read from CSV), they are matched by their text
        (``1944.0`` as ``"1944"``). Missing values map to -1. A present value that the
        hierarchy lacks raises :class:`HierarchyError` naming it (with its row count when
        ``counts`` is given: values with no rows are then not required) and how to fix it.
        """
        found = self.lookup(data_values)
        if len(found) == 0 or found.min() >= 0:
            return found
        absent = (found < 0) & ~pd.isna(data_values)
        if counts is not None:  # a value no row holds needs no label (any position will do)
            unused = absent & (counts == 0)
            found[unused], absent = 0, absent & ~unused
        if absent.any():
            raise self._not_covered(
                data_values[absent], column, None if counts is None else counts[absent]
            )
        return found

    def lookup(self, data_values: pd.Index) -> np.ndarray:
        """Level-0 position of each of ``data_values`` (distinct values of a column), -1 for a
        missing value or one the hierarchy lacks; matched as :meth:`positions` does, without
        raising. ``(h.lookup(values) >= 0).mean()`` is the share of the values it places.

        Examples
        --------
        >>> h = Hierarchy(["1944", "1950"], [["1940s", "1950s"]])
        >>> h.lookup(pd.Index([1950, 1999, None])).tolist()
        [1, -1, -1]
        """
        found = self._typed_text_lookup(data_values)
        if found is not None:
            return found
        by_text = _is_text(self.values) and not _is_text(data_values)
        if by_text and not pd.api.types.is_object_dtype(self.values.dtype):
            # typed text against numbers or dates: nothing matches exactly, only by text
            found = self._indexer(_as_text(data_values))
            return np.where(pd.isna(data_values), -1, found)
        found = self._indexer(data_values)
        absent = (found < 0) & ~pd.isna(data_values)
        if absent.any() and by_text:
            found = self._indexer(_as_text(data_values))
        return found

    def _typed_text_lookup(self, data_values: pd.Index) -> np.ndarray | None:
        """:meth:`lookup` for the most common case, in a few µs: a hierarchy of typed text
        (``str``, no missing value; read from a CSV) and a few distinct values of a column
        of typed text (a missing one maps to -1) or of integers (matched by their text, as
        ``astype(str)`` writes them). None for any other case."""
        position_of = self._text_positions()
        if position_of is None or len(data_values) > _DICT_LOOKUP:
            return None
        dtype = data_values.dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "iu":
            texts: Iterable[Any] = map(str, data_values.tolist())
        elif isinstance(dtype, pd.StringDtype):
            texts = data_values.tolist()  # a missing value is no text: not found
        else:
            return None
        return np.fromiter(
            (position_of.get(text, -1) for text in texts), dtype=np.int64, count=len(data_values)
        )

    def _text_positions(self) -> dict[Hashable, int] | None:
        """:meth:`_value_positions` when the level-0 values are typed text without a missing
        value, else None."""
        values = self.values
        typed = isinstance(values.dtype, pd.StringDtype) and not values.hasnans
        return self._value_positions() if typed else None

    def _value_positions(self) -> dict[Hashable, int]:
        """The position of each level-0 value, as a dict (built once)."""
        position_of = getattr(self, "_position_of", None)  # None: not built yet
        if position_of is None:
            position_of = {value: at for at, value in enumerate(self.values.tolist())}
            self._position_of = position_of
        return position_of

    def _indexer(self, data_values: pd.Index) -> np.ndarray:
        """``self.values.get_indexer(data_values)`` as int64: for a few values (the
        distinct values of a column, most of the time) through a dict of the level-0 values
        built once, several times cheaper than pandas' call; for many values, or missing
        ones on either side (pandas matches a missing value with a missing value, a dict
        does not), or of kinds that Python compares otherwise than pandas (``True == 1``),
        pandas'; as written (:func:`~pandas_anon.engine.encoding.written_indexer`) when
        either side holds values pandas would merge."""
        written = written_indexer(self.values, data_values)
        if written is not None:
            return written
        if (
            len(data_values) > _DICT_LOOKUP
            or data_values.hasnans
            or self.values.hasnans
            or _kind(data_values) != _kind(self.values)
            or _kind(data_values) is None
        ):
            return np.asarray(self.values.get_indexer(data_values), dtype=np.int64)
        position_of = self._value_positions()
        return np.fromiter(
            (position_of.get(value, -1) for value in data_values.tolist()),
            dtype=np.int64,
            count=len(data_values),
        )

    def _not_covered(
        self, missing: pd.Index, column: Hashable, counts: np.ndarray | None
    ) -> HierarchyError:
        shown = [
            f"{value!r}" + ("" if counts is None else f" ({plural(int(n), 'row')})")
            for value, n in zip(missing[:_LISTED], counts if counts is not None else missing)
        ]
        more = f" and {len(missing) - _LISTED:,} more" if len(missing) > _LISTED else ""
        where = f" of column {column!r}" if column is not None else ""
        rows = f" ({plural(int(counts.sum()), 'row')})" if counts is not None else ""
        return HierarchyError(
            f"{plural(len(missing), 'value')}{where}{rows} missing from hierarchy "
            f"{self.name or '(unnamed)'}: {', '.join(shown)}{more}; add them to the hierarchy "
            f"or clean the column",
            unmatched=len(missing),
        )

    def generalize(self, series: pd.Series, level: int) -> pd.Series:
        """``series`` with every value replaced by its label at ``level`` (missing stays
        missing); same index and name."""
        level = self._level(level)
        codes, uniques = factorize(series)
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        where = self.positions(pd.Index(uniques), column=series.name, counts=counts)
        label_codes = self.codes(level)[where][codes]
        out = pd.Series(self.labels(level).take(label_codes), index=series.index, name=series.name)
        return out.mask(codes < 0) if (codes < 0).any() else out

    # -- builders from tables ---------------------------------------------------------------

    @classmethod
    def from_frame(cls, table: pd.DataFrame, *, name: str | None = None) -> Hierarchy:
        """One row per value, one column per level (column 0 the values themselves)."""
        if table.shape[1] == 0 or len(table) == 0:
            raise HierarchyError("a hierarchy table needs at least one row and one column")
        columns = [table.iloc[:, j] for j in range(table.shape[1])]
        names = [str(c) for c in table.columns] if not _default_names(table) else None
        return cls(columns[0], columns[1:], name=name, level_names=names)

    @classmethod
    def from_csv(
        cls,
        path: str | PathLike[str] | IO[str] | IO[bytes],
        *,
        sep: str = ";",
        encoding: str = "utf-8",
        header: bool = False,
        name: str | None = None,
    ) -> Hierarchy:
        """Read the one-row-per-value, one-column-per-level format (ARX's, used by the Adult
        hierarchies): values are kept as text, "NA" included. A file that is missing, not
        text in ``encoding``, empty, ragged or not a tree raises :class:`HierarchyError`
        naming it and the line. The same as
        :func:`~pandas_anon.hierarchy.arx_csv.read_arx_csv` (``sep`` is its ``delimiter``)."""
        return cls.from_arx_csv(path, delimiter=sep, encoding=encoding, header=header, name=name)

    @classmethod
    def from_arx_csv(
        cls,
        source: str | PathLike[str] | IO[str] | IO[bytes],
        *,
        delimiter: str = ";",
        encoding: str = "utf-8",
        header: bool = False,
        name: str | None = None,
    ) -> Hierarchy:
        """A hierarchy saved by ARX (``Hierarchy.save``), or any file in its CSV format:
        :func:`~pandas_anon.hierarchy.arx_csv.read_arx_csv`.

        Examples
        --------
        >>> import io
        >>> Hierarchy.from_arx_csv(io.StringIO("Male;*\\nFemale;*\\n"), name="sex")
        Hierarchy(sex: 2 levels, labels 2 -> 1)
        """
        from pandas_anon.hierarchy.arx_csv import read_arx_csv

        return read_arx_csv(
            source, delimiter=delimiter, encoding=encoding, header=header, name=name
        )

    def to_arx_csv(
        self,
        target: str | PathLike[str] | IO[str] | None = None,
        *,
        delimiter: str = ";",
        encoding: str = "utf-8",
    ) -> str | None:
        """Write the hierarchy in ARX's CSV format, for ARX's ``Hierarchy.create(file,
        charset, delimiter)``: :func:`~pandas_anon.hierarchy.arx_csv.write_arx_csv`; the text
        when ``target`` is ``None``.

        Examples
        --------
        >>> print(Hierarchy(["Male", "Female"]).to_arx_csv(), end="")
        Male;*
        Female;*
        """
        from pandas_anon.hierarchy.arx_csv import write_arx_csv

        return write_arx_csv(self, target, delimiter=delimiter, encoding=encoding)

    @classmethod
    def from_columns(
        cls, frame: pd.DataFrame, columns: Sequence[Hashable], *, name: str | None = None
    ) -> Hierarchy:
        """Levels taken from columns of the data itself, finest first
        (``["comune_residenza", "provincia_residenza"]``), topped by ``*``; incomplete rows
        are ignored."""
        columns = as_label_list(columns, getattr(frame, "columns", ()))
        if not columns:
            raise InvalidParameterError(
                "columns must name at least one column of the frame, finest first, such as "
                "['town', 'region']"
            )
        resolve_columns(frame, columns)  # a frame, each column in it once
        table = frame[list(columns)].dropna()  # the constructor merges duplicate rows
        if len(table) == 0:
            raise HierarchyError(f"columns {list(columns)!r} have no complete row to learn from")
        if not (table.iloc[:, -1] == TOP).all():
            table = table.assign(**{TOP: TOP})
        return cls.from_frame(table, name=name or str(columns[0]))

    # -- checks -------------------------------------------------------------------------------

    def _check_monotone(self) -> None:
        """Each label of a level has a single label at the next level."""
        for j in range(1, self.n_levels - 1):
            low, high = self._codes[j], self._codes[j + 1]
            n_high = len(self._labels[j + 1])
            pairs = np.unique(low * n_high + high)
            parents = np.bincount(pairs // n_high, minlength=len(self._labels[j]))
            split = np.flatnonzero(parents > 1)
            if len(split):
                names = ", ".join(repr(v) for v in self._labels[j].take(split[:_LISTED]))
                raise HierarchyError(
                    f"hierarchy {self.name or '(unnamed)'}: level {j} label(s) {names} fall under "
                    f"several labels of level {j + 1}; a label must generalize to one parent"
                )


def require_hierarchy(value: object, where: str) -> Hierarchy:
    """``value`` when it is a :class:`Hierarchy`; else a HierarchyError naming ``where`` (the
    function or parameter) and how to build one."""
    if not isinstance(value, Hierarchy):
        raise HierarchyError(
            f"{where}: expected a Hierarchy, got {type(value).__name__}; build one with "
            f"Hierarchy(values, levels) or a builder"
        )
    return value


def _level_table(values: object, levels: Sequence[object]) -> pd.DataFrame:
    if isinstance(levels, str | bytes) or not isinstance(levels, Iterable):
        raise HierarchyError(
            f"levels must be a list of levels, each one label per value (such as "
            f"[['30-39', '30-39', '50-59']]), got {type(levels).__name__} {levels!r}"
        )
    columns = [pd.Series(values).reset_index(drop=True)]
    for j, level in enumerate(levels, start=1):
        column = pd.Series(level).reset_index(drop=True)
        if len(column) != len(columns[0]):
            raise HierarchyError(
                f"level {j} has {plural(len(column), 'label')} for "
                f"{plural(len(columns[0]), 'value')}; give one label per value"
            )
        columns.append(column)
    table = pd.concat(columns, axis=1, ignore_index=True)
    if len(table) == 0:
        raise HierarchyError("a hierarchy needs at least one value")
    holes = table.isna()
    if holes.to_numpy().any():
        j = int(np.flatnonzero(holes.any(axis=0).to_numpy())[0])
        what = "value" if j == 0 else "label"
        raise HierarchyError(
            f"level {j} of the hierarchy has {plural(int(holes.iloc[:, j].sum()), 'missing ' + what)}; "
            f"every value needs a label at every level"
        )
    return table


def _merge_duplicates(
    table: pd.DataFrame, name: str | None, level_names: Sequence[str]
) -> pd.DataFrame:
    """Drop exact duplicate rows; refuse a value listed with different labels, and cells
    that cannot be compared (lists, dicts: :class:`~pandas_anon.errors.UnhashableValueError`)."""
    named = [
        f"level {j}" + (f" ({level_names[j]!r})" if j < len(level_names) else "")
        for j in range(table.shape[1])
    ]
    coded = [
        factorize(table.iloc[:, j], where=f"{named[j]} of hierarchy {name or '(unnamed)'}")
        for j in range(table.shape[1])
    ]
    rows, n = compress(
        group_codes(
            [codes for codes, _ in coded], [len(uniques) for _, uniques in coded], n_rows=len(table)
        )
    )
    table = table.take(np.sort(first_occurrence(rows, n))).reset_index(drop=True)
    value_codes, _ = factorize(table.iloc[:, 0])  # as written: 0.0 and -0.0 are two values
    repeated = np.bincount(value_codes)[value_codes] > 1
    if repeated.any():
        values = ", ".join(repr(v) for v in table.iloc[:, 0][repeated].unique()[:_LISTED])
        raise HierarchyError(
            f"hierarchy {name or '(unnamed)'}: value(s) {values} listed more than once with "
            f"different labels; keep one row per value"
        )
    return table


#: Most values looked up through the dict of level-0 values (:meth:`Hierarchy._indexer`).
_DICT_LOOKUP = 4096


def _kind(index: pd.Index) -> str | None:
    """What a dict lookup may match ``index``'s values against: text, or values of one
    numpy dtype other than bool (whose Python values pandas compares alike); None for
    anything else (mixed objects, booleans)."""
    dtype = index.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iufmM":
        return dtype.str
    if pd.api.types.is_string_dtype(dtype) and (
        not pd.api.types.is_object_dtype(dtype)
        or pd.api.types.infer_dtype(index, skipna=False) == "string"
    ):
        return "text"
    return None


def _is_text(index: pd.Index) -> bool:
    return pd.api.types.is_string_dtype(index.dtype) or index.dtype == object


def _as_text(values: pd.Index) -> pd.Index:
    """Text form of non-text values, whole floats without their ``.0`` (years, ages)."""
    if pd.api.types.is_float_dtype(values.dtype):
        whole = values.notna() & (values == np.floor(values))
        return pd.Index([str(int(v)) if w else str(v) for v, w in zip(values, whole)])
    return values.astype(str)


def _default_names(table: pd.DataFrame) -> bool:
    return list(table.columns) == list(range(table.shape[1]))
