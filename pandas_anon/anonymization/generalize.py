"""Fix the risk: generalize columns along hierarchies, globally or on chosen rows.

Global recoding changes every row; local recoding only the rows selected, typically the
singletons of a quasi-identifier (Pastore et al. 2020, section 3.2: generalizing the
municipality of the singleton rows only removes nearly all singletons while touching ~2 % of
the rows). The output is a new frame with the same index and column order; what changed
travels with it in ``DataFrame.attrs`` and reads back with ``out.anon.report()``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from pandas_anon.anonymization.recoding import (
    SpecValue,
    read_beside,
    resolve_spec,
    spec_columns,
    spec_sources,
)
from pandas_anon.anonymization.reports import GeneralizationReport, attach, report_of
from pandas_anon.anonymization.transformation import ColumnRecoding, Transformation
from pandas_anon.detect.figures import singletons
from pandas_anon.engine.backends import dask_backend, is_dask
from pandas_anon.engine.backends.pandas import tabulate
from pandas_anon.errors import InvalidParameterError

Rows = str | Sequence[bool] | np.ndarray | pd.Series
#: The label of the selection in the frequency set (and in a Dask frame's digest).
_SELECTED = "__pandas_anon_selected__"


def generalize(
    frame: Any,
    spec: Mapping[Hashable, SpecValue],
    *,
    rows: Rows = "all",
    qid: Sequence[Hashable] | None = None,
) -> Any:
    """Replace the values of the columns in ``spec`` by their hierarchy labels.

    Each column of ``spec`` is written at a level of its hierarchy on the rows selected:
    every row (``rows="all"``: global recoding), or only some, typically the rows that are
    singletons on a quasi-identifier (``rows="singletons"``: local recoding, which removes
    nearly all singletons while touching few rows [1]_). Rows not selected keep their
    values, and a missing value stays missing on every row. The output is a new frame with
    the same index and column order; the input is not modified. What changed travels with
    the output in ``DataFrame.attrs`` and reads back with ``out.anon.report()``.

    Every entry of ``spec`` (its column, hierarchy and level) is checked before any column is
    recoded, and a value of a column that its hierarchy lacks stops the call: it never
    silently becomes missing.

    Parameters
    ----------
    frame : pandas.DataFrame or dask.dataframe.DataFrame
        The table to generalize.
    spec : mapping
        Maps a column to ``(hierarchy, level)``, or to a hierarchy alone for level 1. The
        hierarchy is a :class:`~pandas_anon.hierarchy.Hierarchy`, a registered name such as
        ``"it.comune"``, or a builder called with the column (the whole column, not only the
        selected rows, so the levels are the same whichever rows are recoded). The level is
        1 for the first level above the values, up to ``hierarchy.height`` (``*``).
    rows : {"all", "singletons"} or array-like of bool, default "all"
        The rows to recode: ``"all"`` (global recoding); ``"singletons"``, the rows unique
        on ``qid`` in the input (local recoding; a row missing a ``qid`` value is never one);
        or a boolean mask aligned to the frame: a NumPy array or list of ``len(frame)``
        booleans, or a boolean Series with exactly the frame's index, without missing
        values. On a Dask frame, ``"all"``, ``"singletons"`` or a boolean Dask Series of the
        frame's rows.
    qid : sequence of hashable, optional
        The quasi-identifier whose singletons ``rows="singletons"`` recodes (required
        then); the report names it. Default None.

    Returns
    -------
    pandas.DataFrame or dask.dataframe.DataFrame
        The generalized copy, with its report attached (``out.anon.report()``, a
        :class:`~pandas_anon.anonymization.reports.GeneralizationReport`: the rows, the
        selection, the rows selected (``touched``), modified and removed, and each column's
        hierarchy and level). On a Dask frame: a lazy Dask frame, its report computed.

    Raises
    ------
    InvalidParameterError
        When ``spec`` is not a non-empty mapping, an entry is neither a hierarchy nor a
        ``(hierarchy, level)`` pair, ``rows`` is another name, ``rows="singletons"`` comes
        without ``qid``, or the mask is not ``len(frame)`` True/False values (a missing value
        in it, another index, another length; on a Dask frame, not a boolean Dask Series).
    ColumnNotFoundError
        When a column of ``spec`` or ``qid`` is not in the frame.
    InvalidQIDError
        When ``qid`` is empty or names a column twice.
    DuplicateColumnsError
        When a column named labels several columns of the frame.
    EmptyDataError
        When the pandas frame has no row.
    HierarchyError
        When a level is not a whole number or not a level of the hierarchy, a value of the
        column is missing from its hierarchy (the message quotes those values), a builder
        returns no ``Hierarchy``, or a registered hierarchy cannot be built for the column.
    UnknownNameError
        When a hierarchy name is not registered.
    AllMissingColumnError, UnhashableValueError
        When, with ``rows="singletons"``, a ``qid`` column holds only missing values or
        values that cannot be compared (lists, dicts).

    See Also
    --------
    pandas_anon.kanon : Choose the levels that make the frame k-anonymous.
    pandas_anon.study : Compare global and local generalization strategies.
    pandas_anon.singletons : The rows unique on a quasi-identifier.

    Notes
    -----
    On a Dask frame the output is a lazy Dask frame (the report is computed): the decision
    is taken on the distinct combinations of the columns (and of the selection), then each
    partition's rows are written as their combination is
    (:mod:`pandas_anon.engine.backends.dask`).

    References
    ----------
    .. [1] M. Pastore, M. A. Pellegrino and V. Scarano, "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797),
       section 3.2 (global and local recoding).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> df = pd.DataFrame({
    ...     "town": ["Aosta", "Aosta", "Aosta", "Nus", "Fenis", "Ivrea", "Turin"],
    ...     "province": ["AO", "AO", "AO", "AO", "AO", "TO", "TO"],
    ...     "sex": ["F", "F", "M", "M", "M", "F", "F"],
    ... })
    >>> towns = Hierarchy.from_columns(df, ["town", "province"])

    Global recoding, every town to its province:

    >>> pandas_anon.generalize(df, {"town": towns})["town"].tolist()
    ['AO', 'AO', 'AO', 'AO', 'AO', 'TO', 'TO']

    Local recoding, only the rows unique on (town, sex):

    >>> local = pandas_anon.generalize(df, {"town": towns}, rows="singletons", qid=["town", "sex"])
    >>> local["town"].tolist()
    ['Aosta', 'Aosta', 'AO', 'AO', 'AO', 'TO', 'TO']
    >>> report = local.anon.report()
    >>> report.touched, report.modified
    (5, 5)
    >>> local.anon.singletons(["town", "sex"]).count
    0

    A mask, and level 2 (the top, ``*``):

    >>> men = df["sex"] == "M"
    >>> pandas_anon.generalize(df, {"town": (towns, 2)}, rows=men)["town"].tolist()
    ['Aosta', 'Aosta', '*', '*', '*', 'Ivrea', 'Turin']
    """
    digest = None
    columns = spec_columns(frame, spec)
    if is_dask(frame):  # decided on the digest of the columns and the selection
        flagged = frame.assign(**{_SELECTED: _dask_selection(frame, rows, qid)})
        beside = read_beside(frame, spec_sources(spec))  # what plugins' factories read
        digest = dask_backend().digest(flagged, [*columns, *beside, _SELECTED])
        local, weights = digest.frame, digest.counts
        selected = local[_SELECTED].to_numpy(dtype=bool)
        n_rows, touched = digest.n_rows, int(weights[selected].sum())
    else:
        local, weights, selected = frame, None, select_rows(frame, rows, qid)
        n_rows, touched = len(frame), int(selected.sum())
    plan = resolve_spec(local, spec)
    tabulation = tabulate(local, list(plan), weights=weights).refine(_SELECTED, selected)
    frequencies = tabulation.frequencies
    chosen = frequencies.codes[:, frequencies.position(_SELECTED)].astype(bool)
    recodings = {}
    for column, (hierarchy, level) in plan.items():
        codes = frequencies.codes[:, frequencies.position(column)]
        counts = np.bincount(
            codes, weights=frequencies.counts, minlength=frequencies.cardinality(column)
        )
        positions = hierarchy.positions(frequencies.values[column], column=column, counts=counts)
        recodings[column] = ColumnRecoding.at_level(
            hierarchy, positions[codes], level, selected=chosen, missing_at_top=False
        )
    report = GeneralizationReport(
        rows=n_rows,
        selection=rows if isinstance(rows, str) else "mask",
        qid=[str(c) for c in qid] if qid is not None else None,
        touched=touched,
        modified=0,  # counted when written
        removed=0,
        columns={
            str(column): {"hierarchy": hierarchy.described(), "level": int(level)}
            for column, (hierarchy, level) in plan.items()
        },
    )
    transformation = Transformation(
        method="generalize",
        tabulation=tabulation,
        qid=tuple(plan),
        recodings=recodings,
        suppressed=np.zeros(len(frequencies), dtype=bool),
        report=report,
        treatment="keep",
        digest=digest,
    )
    if digest is None:
        return transformation.apply(frame)
    written = transformation.apply(flagged)
    return attach(written.drop(columns=[_SELECTED]), report_of(written))


def _dask_selection(frame: Any, rows: Rows, qid: Sequence[Hashable] | None) -> Any:
    """The rows of a Dask frame to recode, as a lazy boolean Series: every row, the
    singletons of ``qid``, or a boolean Dask Series of the frame's rows."""
    if isinstance(rows, str):
        if _selection(rows, qid) == "singletons":
            return singletons(frame, qid).mask  # lazy
        return frame.map_partitions(
            lambda part: pd.Series(True, index=part.index), meta=pd.Series(dtype=bool)
        )
    dask_rows: Any = rows
    if not is_dask(dask_rows) or getattr(dask_rows, "ndim", 0) != 1:
        raise InvalidParameterError(
            f"on a Dask frame, rows must be 'all', 'singletons' or a boolean Dask Series of "
            f"the frame's rows (such as ddf['age'] > 80), got {type(rows).__name__}"
        )
    if not pd.api.types.is_bool_dtype(dask_rows.dtype):
        raise InvalidParameterError(
            f"the rows mask must be True/False values without missing ones, got {dask_rows.dtype}"
        )
    return dask_rows.map_partitions(_flags, meta=pd.Series(dtype=bool))


def _selection(rows: str, qid: Sequence[Hashable] | None) -> str:
    """A selection given by name, checked: ``"all"``, or ``"singletons"`` with a ``qid``."""
    if rows not in ("all", "singletons"):
        raise InvalidParameterError(
            f"rows must be 'all', 'singletons' or a boolean mask, got {rows!r}"
        )
    if rows == "singletons" and qid is None:
        raise InvalidParameterError(
            "rows='singletons' needs qid=[...]: the columns whose singletons to recode"
        )
    return rows


def _flags(mask: pd.Series) -> pd.Series:
    """A partition of a Dask row mask as numpy booleans, refusing a missing value."""
    if mask.isna().any():
        raise InvalidParameterError(
            "the rows mask must be True/False values without missing ones; fill them first "
            "(mask.fillna(False))"
        )
    return mask.astype(bool)


def select_rows(frame: pd.DataFrame, rows: Rows, qid: Sequence[Hashable] | None) -> np.ndarray:
    """The rows to recode as a boolean array."""
    if isinstance(rows, str):
        if _selection(rows, qid) == "all":
            return np.ones(len(frame), dtype=bool)
        return singletons(frame, cast(Sequence[Hashable], qid)).mask.to_numpy()
    if isinstance(rows, pd.Series):
        if not rows.index.equals(frame.index):
            raise InvalidParameterError(
                "the rows mask must have the frame's index; align it first (mask.reindex(df.index))"
            )
        rows = rows.to_numpy()
    mask = np.asarray(rows)
    if mask.dtype != bool or mask.shape != (len(frame),):
        raise InvalidParameterError(
            f"the rows mask must be {len(frame):,} True/False values without missing ones, got "
            f"{mask.dtype} of shape {mask.shape}"
        )
    return mask
