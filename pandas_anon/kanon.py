"""k-anonymity by full-domain generalization and suppression: ``df.anon.kanon(5)``.

The frame is reduced once to a lattice over its frequency set (:mod:`pandas_anon.lattice`);
an algorithm picks a node (one level per quasi-identifier) satisfying the privacy models with
at most ``max_suppression`` of the rows suppressed; the node is then applied to the rows:
each quasi-identifier replaced by its label at the chosen level, and the rows of violating
classes suppressed (every quasi-identifier set to the top value ``*``, or dropped).
:func:`anonymize` returns the decision and its report without touching the rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .algorithms import datafly, incognito, ola, samarati
from .columns import resolve_columns
from .detect import candidate_columns
from .election import best_qid
from .errors import InfeasibleError, InvalidParameterError, OneClassWarning, warn
from .evaluation import Evaluator, NodeStats
from .hierarchy import Hierarchy
from .hierarchy.builders import auto
from .hierarchy.registry import claimed_hierarchy
from .lattice import Lattice
from .metrics import average_class_size, discernibility, precision, resolve_metric
from .models import KAnonymity, LDiversity, TCloseness
from .recode import HierarchyLike, hierarchy_for, output_copy, recode
from .results import Anonymization, attach

ALGORITHMS: dict[str, Callable] = {
    "ola": ola.search, "datafly": datafly.search, "samarati": samarati.search,
    "incognito": incognito.search,
}
#: Largest quasi-identifier ``kanon`` elects by itself when none is given.
AUTO_QID_SIZE = 3


@dataclass(frozen=True)
class Decision:
    """What an anonymization decided, before any row is written."""

    lattice: Lattice
    stats: NodeStats
    row_class: np.ndarray
    report: Anonymization


def anonymize(
    frame: pd.DataFrame,
    k: int,
    *,
    qid: Sequence[Hashable] | None = None,
    hierarchies: Mapping[Hashable, HierarchyLike] | None = None,
    algo: str = "ola",
    max_suppression: float = 0.0,
    metric: str | Callable[[NodeStats], float] = "precision",
    l: float | LDiversity | None = None,  # noqa: E741  (the model's name)
    t: float | TCloseness | None = None,
    sensitive: Hashable | None = None,
    progress: bool | None = None,
) -> Decision:
    """Choose the transformation (node and suppressed classes) and its report.

    ``l``: distinct l-diversity of ``sensitive`` for a number, or an :class:`LDiversity`
    (``LDiversity(3, "entropy")``, ``LDiversity(3, "recursive", c=2)``); ``t``: t-closeness,
    with the ordered distance when ``sensitive`` is numeric and the equal distance otherwise,
    or a :class:`TCloseness` choosing it."""
    started = time.perf_counter()
    models = _models(k, l, t, sensitive, frame)
    if algo not in ALGORITHMS:
        raise InvalidParameterError(f"unknown algo {algo!r}; choose one of {sorted(ALGORITHMS)}")
    if not 0 <= max_suppression <= 1:
        raise InvalidParameterError(f"max_suppression must be between 0 and 1, got {max_suppression}")
    choices: dict[str, str] = {}
    qid = _qid(frame, qid, sensitive, choices)
    if k > len(frame):
        raise InvalidParameterError(f"k={k} exceeds the {len(frame):,} rows of the frame")
    chosen = _hierarchies(frame, qid, hierarchies or {}, choices)
    lattice = Lattice(frame, qid, chosen, sensitive=sensitive)
    evaluator = Evaluator(lattice, models, max_suppression)
    search = ALGORITHMS[algo](evaluator, resolve_metric(metric, lattice.heights, lattice.n_rows, k),
                              progress=progress)
    if search.best is None:
        raise InfeasibleError(
            f"no generalization of {list(map(str, qid))} satisfies {', '.join(map(str, models))} "
            f"with at most {max_suppression:.2%} of the {lattice.n_rows:,} rows suppressed "
            f"(no node found by {algo}); allow more suppression (max_suppression=), lower "
            f"k/l or raise t"
        )
    classes, row_class = lattice.assign(search.best.node)
    stats = evaluator.judge(classes)
    if int((~stats.violating).sum()) == 1 and lattice.size > 1:
        warn(
            f"the result is one class: every kept row is alike on {list(map(str, qid))} "
            f"(levels {dict(zip(map(str, qid), stats.node))}), so they tell nothing apart; "
            f"allow some suppression (max_suppression=, --max-suppression), lower k, or "
            f"choose the quasi-identifier (qid=, --qid)",
            OneClassWarning,
        )
    report = _report(frame, qid, chosen, lattice, stats, models, search, choices, k,
                     max_suppression, evaluator.reached(stats), time.perf_counter() - started)
    return Decision(lattice, stats, row_class, report)


def kanon(frame: pd.DataFrame, k: int, *, suppress: str = "mask", **options) -> pd.DataFrame:
    """A k-anonymous copy of ``frame`` (same index and column order; with
    ``suppress="drop"`` the suppressed rows are left out). Options as :func:`anonymize`;
    the report: ``out.anon.report()``."""
    if suppress not in ("mask", "drop"):
        raise InvalidParameterError(f"suppress must be 'mask' or 'drop', got {suppress!r}")
    decision = anonymize(frame, k, **options)
    lattice, stats = decision.lattice, decision.stats
    suppressed_rows = stats.violating[decision.row_class]
    modified = suppressed_rows.copy()
    out = output_copy(frame)
    for column, hierarchy, level in zip(lattice.qid, lattice.hierarchies, stats.node):
        recoded = recode(frame[column], hierarchy, level)
        values = recoded.to_series(frame.index, column)
        modified |= recoded.changed
        top = hierarchy.labels(hierarchy.height)[0]
        if level == hierarchy.height:  # as in the lattice: missing values are merged too
            modified |= values.isna().to_numpy()
            values = pd.Series(top, index=frame.index, name=column, dtype=object)
        elif suppressed_rows.any():
            values = values.astype(object).where(~suppressed_rows, top)
        out[column] = values
    if suppress == "drop":
        out = out.loc[~suppressed_rows]
    return attach(out, replace(decision.report, modified=int(modified.sum())))


def _models(k, l, t, sensitive, frame) -> list:
    models = [KAnonymity(k)]
    if (l is not None or t is not None) and sensitive is None:
        raise InvalidParameterError("l-diversity and t-closeness need sensitive=<column>")
    if sensitive is not None:
        resolve_columns(frame, [sensitive])
        if l is not None:
            models.append(l if isinstance(l, LDiversity) else LDiversity(l))
        if t is not None:
            models.append(t if isinstance(t, TCloseness) else TCloseness(
                t, ordered=pd.api.types.is_numeric_dtype(frame[sensitive])))
    return models


def _qid(frame, qid, sensitive, choices) -> tuple[Hashable, ...]:
    if qid is None:
        candidates = [c for c in candidate_columns(frame, None) if c != sensitive]
        elected = best_qid(frame, candidates, max_size=AUTO_QID_SIZE, dropna=False)
        choices["qid"] = (f"best_qid over {len(candidates)} columns (max_size={AUTO_QID_SIZE}, "
                          f"missing counted as a value)")
        return elected.columns
    qid = resolve_columns(frame, qid)
    if sensitive is not None and sensitive in qid:
        raise InvalidParameterError(
            f"the sensitive column {sensitive!r} is inside the quasi-identifier; a column is "
            f"either one or the other"
        )
    return qid


def _hierarchies(frame, qid, given, choices) -> dict[Hashable, Hierarchy]:
    """The given hierarchies; for the other columns a registered one that claims the column,
    else one built from the data (intervals, dates or suppression: ``auto``)."""
    unknown = [c for c in given if c not in qid]
    if unknown:
        raise InvalidParameterError(f"hierarchies given for columns outside the qid: {unknown!r}")
    chosen = {}
    for column in qid:
        if column in given:
            chosen[column] = hierarchy_for(frame[column], given[column])
            continue
        claimed = claimed_hierarchy(str(column))
        source = claimed if claimed is not None else auto
        chosen[column] = hierarchy_for(frame[column], source)
        choices[f"hierarchy {column}"] = claimed or chosen[column].name or "auto"
    return chosen


def _report(frame, qid, chosen, lattice, stats, models, search, choices, k, limit, privacy,
            seconds) -> Anonymization:
    n = lattice.n_rows
    kept = stats.kept_sizes
    modified_levels = sum(level > 0 for level in stats.node)
    return Anonymization(
        algorithm=search.algorithm,
        qid=[str(c) for c in qid],
        levels={str(c): int(level) for c, level in zip(qid, stats.node)},
        hierarchies={str(c): chosen[c].name or "(unnamed)" for c in qid},
        models=[str(m) for m in models],
        rows=n,
        suppressed=stats.suppressed,
        max_suppression=limit,
        classes=int(len(kept)),
        k_reached=int(kept.min()) if len(kept) else 0,
        metrics={
            "precision": precision(stats, lattice.heights, n),
            "dm": discernibility(stats, n),
            "c_avg": average_class_size(stats, n, k),
        },
        risk={
            "prosecutor_max": float(1 / kept.min()) if len(kept) else 0.0,
            "prosecutor_avg": float(len(kept) / kept.sum()) if len(kept) else 0.0,
            "sample_uniques": int((kept == 1).sum()),
        },
        search={"lattice_size": search.lattice_size, "evaluated": search.evaluated,
                "seconds": round(seconds, 4), "generalized_columns": modified_levels},
        choices=choices,
        privacy=privacy,
    )
