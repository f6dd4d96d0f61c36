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

    ``spec`` maps a column to ``(hierarchy, level)`` (a Hierarchy, a registered name such
    as ``"it.comune"``, or a builder called with the column), or to a hierarchy alone for
    level 1. ``rows`` is ``"all"`` (global recoding), ``"singletons"`` (the rows unique on
    ``qid``: local recoding) or a boolean mask aligned to the frame.

    On a Dask frame the output is a lazy Dask frame (the report is computed): the
    decision is taken on the distinct combinations of the columns (and of the selection),
    then each partition's rows are written as their combination is
    (:mod:`pandas_anon.engine.backends.dask`); ``rows`` is then ``"all"``,
    ``"singletons"`` or a boolean Dask Series of the frame's rows.
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
