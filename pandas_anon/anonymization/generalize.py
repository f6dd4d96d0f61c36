"""Fix the risk: generalize columns along hierarchies, globally or on chosen rows.

Global recoding changes every row; local recoding only the rows selected, typically the
singletons of a quasi-identifier (Pastore et al. 2020, section 3.2: generalizing the
municipality of the singleton rows only removes nearly all singletons while touching ~2 % of
the rows). The output is a new frame with the same index and column order; what changed
travels with it in ``DataFrame.attrs`` and reads back with ``out.anon.report()``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import pandas as pd

from pandas_anon.anonymization.recoding import SpecValue, resolve_spec
from pandas_anon.anonymization.reports import GeneralizationReport
from pandas_anon.anonymization.transformation import ColumnRecoding, Transformation
from pandas_anon.detect.figures import singletons
from pandas_anon.engine.backends.pandas import tabulate
from pandas_anon.errors import InvalidParameterError

Rows = str | Sequence[bool] | np.ndarray | pd.Series
#: The label of the selection in the frequency set (a fresh object: no column can have it).
_SELECTED = object()


def generalize(
    frame: pd.DataFrame,
    spec: Mapping[Hashable, SpecValue],
    *,
    rows: Rows = "all",
    qid: Sequence[Hashable] | None = None,
) -> pd.DataFrame:
    """Replace the values of the columns in ``spec`` by their hierarchy labels.

    ``spec`` maps a column to ``(hierarchy, level)`` (a Hierarchy, a registered name such
    as ``"it.comune"``, or a builder called with the column), or to a hierarchy alone for
    level 1. ``rows`` is ``"all"`` (global recoding), ``"singletons"`` (the rows unique on
    ``qid``: local recoding) or a boolean mask aligned to the frame.
    """
    plan = resolve_spec(frame, spec)
    selected = select_rows(frame, rows, qid)
    tabulation = tabulate(frame, list(plan)).refine(_SELECTED, selected)
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
        rows=len(frame),
        selection=rows if isinstance(rows, str) else "mask",
        qid=[str(c) for c in qid] if qid is not None else None,
        touched=int(selected.sum()),
        modified=0,  # counted when written
        removed=0,
        columns={
            str(column): {"hierarchy": hierarchy.described(), "level": int(level)}
            for column, (hierarchy, level) in plan.items()
        },
    )
    return Transformation(
        method="generalize",
        tabulation=tabulation,
        qid=tuple(plan),
        recodings=recodings,
        suppressed=np.zeros(len(frequencies), dtype=bool),
        report=report,
        treatment="keep",
    ).apply(frame)


def select_rows(frame: pd.DataFrame, rows: Rows, qid: Sequence[Hashable] | None) -> np.ndarray:
    """The rows to recode as a boolean array."""
    if isinstance(rows, str):
        if rows == "all":
            return np.ones(len(frame), dtype=bool)
        if rows == "singletons":
            if qid is None:
                raise InvalidParameterError(
                    "rows='singletons' needs qid=[...]: the columns whose singletons to recode"
                )
            return singletons(frame, qid).mask.to_numpy()
        raise InvalidParameterError(
            f"rows must be 'all', 'singletons' or a boolean mask, got {rows!r}"
        )
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
