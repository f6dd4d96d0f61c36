"""k-anonymity by full-domain generalization and suppression: ``df.anon.kanon(5)``.

The frame is reduced once to a lattice over its frequency set (:mod:`pandas_anon.anonymization.fulldomain.lattice`);
an algorithm picks a node (one level per quasi-identifier) satisfying the privacy models with
at most ``max_suppression`` of the rows suppressed; the node is then applied to the rows:
each quasi-identifier replaced by its label at the chosen level, and the rows of violating
classes suppressed (every quasi-identifier set to the top value ``*``, or dropped).
:func:`anonymize` returns the decision and its report without touching the rows.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from pandas_anon.anonymization.fulldomain import datafly, incognito, ola, samarati
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator, NodeStats
from pandas_anon.anonymization.fulldomain.lattice import Lattice
from pandas_anon.anonymization.fulldomain.metrics import (
    average_class_size,
    discernibility,
    precision,
    resolve_metric,
)
from pandas_anon.anonymization.pseudonyms import keyed_hash
from pandas_anon.anonymization.recoding import HierarchyLike, hierarchy_for, output_copy, recode
from pandas_anon.detect.exposure import (
    MAX_SIZE,
    SUPPRESSED,
    DirectIdentifier,
    direct_identifiers,
    scan,
)
from pandas_anon.detect.figures import candidate_columns
from pandas_anon.detect.results import Anonymization, attach, column_keys
from pandas_anon.engine.columns import require_data, resolve_columns
from pandas_anon.errors import (
    HierarchyError,
    HierarchyFallbackWarning,
    IdentifierWarning,
    InfeasibleError,
    InvalidParameterError,
    InvalidQIDError,
    OneClassWarning,
    warn,
)
from pandas_anon.formatting import plural
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.hierarchy.builders import auto
from pandas_anon.params import fraction, one_of
from pandas_anon.plugins.registry import claimed_hierarchy
from pandas_anon.privacy.models import KAnonymity, LDiversity, TCloseness

ALGORITHMS: dict[str, Callable] = {
    "ola": ola.search,
    "datafly": datafly.search,
    "samarati": samarati.search,
    "incognito": incognito.search,
}
#: Largest column set the gate's rule examines in zero configuration (as ``check`` does).
AUTO_QID_SIZE = MAX_SIZE
#: What ``identifiers=`` may do with a direct identifier column outside the QID.
IDENTIFIER_TREATMENTS = ("drop", "hash", "keep")


@dataclass(frozen=True)
class Decision:
    """What an anonymization decided, before any row is written."""

    lattice: Lattice
    stats: NodeStats
    row_class: np.ndarray
    report: Anonymization
    identifiers: tuple[Hashable, ...] = ()  # direct identifier columns outside the QID
    treatment: str = "drop"  # what kanon does with them: drop, hash or keep


@dataclass(frozen=True)
class _Request:
    """What every search of one call shares (zero configuration runs several)."""

    frame: pd.DataFrame
    k: int
    models: list
    hierarchies: Mapping[Hashable, HierarchyLike]
    algo: str
    max_suppression: float
    metric: str | Callable[[NodeStats], float]
    sensitive: Hashable | None
    progress: bool | None
    built: dict = field(default_factory=dict)  # hierarchies built so far, per column


def anonymize(
    frame: pd.DataFrame,
    k: int,
    *,
    qid: Sequence[Hashable] | None = None,
    hierarchies: Mapping[Hashable, HierarchyLike] | None = None,
    algo: str = "ola",
    max_suppression: float | str = 0.0,
    metric: str | Callable[[NodeStats], float] = "precision",
    l: float | LDiversity | None = None,  # noqa: E741  (the model's name)
    t: float | str | TCloseness | None = None,
    sensitive: Hashable | None = None,
    identifiers: str = "drop",
    progress: bool | None = None,
) -> Decision:
    """Choose the transformation (node and suppressed classes) and its report.

    ``l``: distinct l-diversity of ``sensitive`` for a number, or an :class:`LDiversity`
    (``LDiversity(3, "entropy")``, ``LDiversity(3, "recursive", c=2)``); ``t``: t-closeness,
    with the ordered distance when ``sensitive`` is numeric and the equal distance otherwise,
    or a :class:`TCloseness` choosing it. ``max_suppression`` and ``t`` are fractions from 0
    to 1, or text as on the command line (``"5%"``, ``"0.05"``).

    ``identifiers``: what :func:`kanon` does with the direct identifier columns outside the
    QID (:func:`pandas_anon.detect.exposure.direct_identifiers`: a column on which nearly every row
    is alone): ``"drop"`` them (the default), ``"hash"`` them (a keyed hash whose key is
    never stored) or ``"keep"`` them (with an :class:`IdentifierWarning`); the report lists
    each.

    Without ``qid`` (zero configuration) every released column may identify: the QID is
    elected by the gate's rule (:mod:`pandas_anon.detect.exposure`, as ``pandas-anon check`` elects
    it), the search runs, the rule is applied to the output, and the most exposed column set
    left joins the QID until the output passes the rule (``report.exposure``), so that
    ``pandas-anon check --k K`` accepts what ``kanon(K)`` releases.
    """
    started = time.perf_counter()
    models = _models(k, l, t, sensitive, frame)
    k = models[0].k  # as parsed: a plain int
    one_of(algo, "algo", ALGORITHMS)
    one_of(identifiers, "identifiers", IDENTIFIER_TREATMENTS)
    max_suppression = fraction(max_suppression, "max_suppression")  # 0.05, "5%" or "0.05"
    require_data(frame)
    if k > len(frame):  # before the election, whose errors would hide this one
        raise InvalidParameterError(f"k={k} exceeds the {len(frame):,} rows of the frame")
    if hierarchies is not None and not isinstance(hierarchies, Mapping):
        raise InvalidParameterError(
            f"hierarchies must map columns to hierarchies, such as "
            f"{{'age': 'intervals'}}, got {type(hierarchies).__name__} {hierarchies!r}"
        )
    request = _Request(
        frame, k, models, hierarchies or {}, algo, max_suppression, metric, sensitive, progress
    )
    if qid is None:
        found = _identifiers(frame, [c for c in frame.columns if c != sensitive], identifiers)
        decision = _zero_configuration(request, [f.column for f in found])
    else:
        qid = _qid(frame, qid, sensitive)
        outside = [c for c in frame.columns if c not in qid and c != sensitive]
        found = _identifiers(frame, outside, identifiers)
        decision = _decide(request, qid, {})
    stats, lattice = decision.stats, decision.lattice
    if int((~stats.violating).sum()) == 1 and lattice.size > 1:
        warn(
            f"the result is one class: every kept row is alike on {list(map(str, lattice.qid))} "
            f"(levels {dict(zip(map(str, lattice.qid), stats.node))}), so they tell nothing "
            f"apart; allow some suppression (max_suppression=, --max-suppression), lower k, or "
            f"choose the quasi-identifier (qid=, --qid)",
            OneClassWarning,
        )
    treated = {"drop": "dropped", "hash": "hashed", "keep": "kept"}[identifiers]
    seconds = round(time.perf_counter() - started, 4)
    keys = column_keys([f.column for f in found])
    return replace(
        decision,
        identifiers=tuple(keys),
        treatment=identifiers,
        report=replace(
            decision.report,
            identifiers={key: treated for key in keys.values()},
            search={**decision.report.search, "seconds": seconds},
        ),
    )


def kanon(
    frame: pd.DataFrame,
    k: int,
    *,
    suppress: str = "mask",
    salt: bytes | str | None = None,
    **options,
) -> pd.DataFrame:
    """A k-anonymous copy of ``frame`` (same index and column order, less the direct
    identifier columns it drops; with ``suppress="drop"`` the suppressed rows are left out).
    Options as :func:`anonymize`; the report: ``out.anon.report()``.

    Suppressed rows hold :data:`~pandas_anon.detect.exposure.SUPPRESSED` (``*``) in every QID
    column, which the gate and the pandera checks recognise (such a row is in no class).
    ``salt``: the key of ``identifiers="hash"`` (default: a random one, never stored, so the
    tokens of two calls cannot be linked; give one to get the same tokens again).
    """
    one_of(suppress, "suppress", ("mask", "drop"))
    decision = anonymize(frame, k, **options)
    out, modified, suppressed_rows = _write(frame, decision)
    out = _treat_identifiers(out, decision.identifiers, decision.treatment, salt)
    if suppress == "drop":
        out = out.loc[~suppressed_rows]
    return attach(out, replace(decision.report, modified=int(modified.sum())))


def _write(frame: pd.DataFrame, decision: Decision) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The decision applied to the rows: the output, the rows modified, the rows suppressed."""
    lattice, stats = decision.lattice, decision.stats
    suppressed_rows = stats.violating[decision.row_class]
    modified = suppressed_rows.copy()
    out = output_copy(frame)
    for column, hierarchy, level in zip(lattice.qid, lattice.hierarchies, stats.node):
        recoded = recode(frame[column], hierarchy, level)
        values = recoded.to_series(frame.index, column)
        modified |= recoded.changed
        if level == hierarchy.height:  # as in the lattice: missing values are merged too
            modified |= values.isna().to_numpy()
            values = pd.Series(
                hierarchy.labels(level)[0], index=frame.index, name=column, dtype=object
            )
        if suppressed_rows.any():
            values = values.astype(object).where(~suppressed_rows, SUPPRESSED)
        out[column] = values
    return out, modified, suppressed_rows


def _identifiers(
    frame: pd.DataFrame, columns: Sequence[Hashable], treatment: str
) -> tuple[DirectIdentifier, ...]:
    """The direct identifier columns among ``columns``; kept ones are warned about."""
    found = direct_identifiers(frame, [c for c in columns if frame[c].notna().any()])
    if found and treatment == "keep":
        warn(
            f"releasing {plural(len(found), 'direct identifier column')} as asked "
            f"(identifiers='keep'): {', '.join(f.describe() for f in found)}; each identifies "
            f"people on its own, and pandas-anon check fails the file unless its configuration "
            f"allows the column (allow_identifiers)",
            IdentifierWarning,
        )
    return found


def _treat_identifiers(
    out: pd.DataFrame, columns: Sequence[Hashable], treatment: str, salt: bytes | str | None
) -> pd.DataFrame:
    """Drop or hash the direct identifier ``columns`` of ``out`` (or keep them)."""
    if not columns or treatment == "keep":
        return out
    if treatment == "drop":
        return out.drop(columns=list(columns))
    key = salt.encode() if isinstance(salt, str) else salt or secrets.token_bytes(32)
    for column in columns:
        out[column] = keyed_hash(out[column], key)
    return out


def _decide(request: _Request, qid: tuple[Hashable, ...], choices: dict[str, str]) -> Decision:
    """Search the lattice of ``qid`` and report the node found."""
    frame, models = request.frame, request.models
    chosen = _hierarchies(frame, qid, request.hierarchies, choices, request.built)
    lattice = Lattice(frame, qid, chosen, sensitive=request.sensitive)
    evaluator = Evaluator(lattice, models, request.max_suppression)
    search = ALGORITHMS[request.algo](
        evaluator,
        resolve_metric(request.metric, lattice.heights, lattice.n_rows, request.k),
        progress=request.progress,
    )
    if search.best is None:
        if evaluator.limit == lattice.n_rows - 1:  # only suppressing every row would do
            raise InfeasibleError(
                f"every generalization of {list(map(str, qid))} suppresses all "
                f"{lattice.n_rows:,} rows to satisfy {', '.join(map(str, models))}, and a "
                f"release of no row is no result; lower k/l, raise t, or choose other columns "
                f"(qid=, sensitive=)"
            )
        raise InfeasibleError(
            f"no generalization of {list(map(str, qid))} satisfies {', '.join(map(str, models))} "
            f"with at most {request.max_suppression:.2%} of the {lattice.n_rows:,} rows "
            f"suppressed (no node found by {request.algo}); allow more suppression "
            f"(max_suppression=), lower k/l or raise t"
        )
    classes, row_class = lattice.assign(search.best.node)
    stats = evaluator.judge(classes)
    report = _report(
        frame,
        qid,
        chosen,
        lattice,
        stats,
        models,
        search,
        choices,
        request.k,
        request.max_suppression,
        evaluator.reached(stats),
        0.0,
    )
    return Decision(lattice, stats, row_class, report)


def _zero_configuration(request: _Request, identifiers: Sequence[Hashable]) -> Decision:
    """Elect the QID by the gate's rule and widen it until the output passes the rule."""
    frame, k = request.frame, request.k
    candidates = [
        c for c in candidate_columns(frame, None) if c != request.sensitive and c not in identifiers
    ]
    if not candidates:
        raise InvalidQIDError(
            "no column is left to anonymize: every column holding a value is the sensitive "
            "column or a direct identifier; pass qid= to choose the quasi-identifier"
        )
    outside = [c for c in request.hierarchies if c not in candidates]
    if outside:
        raise InvalidParameterError(
            f"hierarchies given for columns that are not candidates for the quasi-identifier "
            f"(not in the frame, empty, the sensitive column or direct identifiers): "
            f"{outside!r}"
        )
    released = frame[candidates]
    qid = scan(released, k=max(k, 2), max_size=AUTO_QID_SIZE).qid
    rounds = 0
    while True:
        rounds += 1
        choices = {
            "qid": (
                f"the gate's rule: the subset of up to {AUTO_QID_SIZE} of "
                f"{plural(len(candidates), 'column')} with most rows below k={k}, widened in "
                f"{plural(rounds, 'round')} until the output passes it"
            )
        }
        given = {c: h for c, h in request.hierarchies.items() if c in qid}
        decision = _decide(replace(request, hierarchies=given), tuple(qid), choices)
        out, _, _ = _write(released, decision)
        found = scan(out, k=max(k, 2), max_size=AUTO_QID_SIZE)
        worst = found.election
        exposure = {
            "columns": [str(c) for c in found.qid],
            "k": k,
            "rows_below_k": worst.at_risk if worst is not None and k > 1 else 0,
            "max_size": AUTO_QID_SIZE,
        }
        exposure["passes"] = exposure["rows_below_k"] == 0 and not found.identifiers
        wider = [c for c in found.qid if c not in qid]
        if exposure["passes"] or not wider:
            return replace(decision, report=replace(decision.report, exposure=exposure))
        qid = [*qid, *wider]


def _models(k, l, t, sensitive, frame) -> list:
    models = [KAnonymity(k)]
    if (l is not None or t is not None) and sensitive is None:
        given = f"l={l!r}" if l is not None else f"t={t!r}"
        raise InvalidParameterError(
            f"{given} needs sensitive=<column>: l-diversity and "
            f"t-closeness protect the values of a sensitive column"
        )
    if sensitive is not None:
        resolve_columns(frame, [sensitive])
        if l is not None:
            models.append(l if isinstance(l, LDiversity) else LDiversity(l))
        if t is not None:
            models.append(
                t
                if isinstance(t, TCloseness)
                else TCloseness(t, ordered=pd.api.types.is_numeric_dtype(frame[sensitive]))
            )
    return models


def _qid(frame, qid, sensitive) -> tuple[Hashable, ...]:
    qid = resolve_columns(frame, qid)
    if sensitive is not None and sensitive in qid:
        raise InvalidParameterError(
            f"the sensitive column {sensitive!r} is inside the quasi-identifier; a column is "
            f"either one or the other"
        )
    return qid


def _hierarchies(frame, qid, given, choices, built=None) -> dict[Hashable, Hierarchy]:
    """The given hierarchies; for the other columns a registered one that claims the column,
    else one built from the data (intervals, dates or suppression: ``auto``), taken from
    ``built`` (column -> hierarchy and choice) when an earlier search built it."""
    built = {} if built is None else built
    unknown = [c for c in given if c not in qid]
    if unknown:
        raise InvalidParameterError(f"hierarchies given for columns outside the qid: {unknown!r}")
    chosen, keys = {}, column_keys(qid)
    for column in qid:
        if column in given:
            chosen[column] = hierarchy_for(frame[column], given[column])
        else:
            if column not in built:
                built[column] = _by_default(frame[column])
            chosen[column], choices[f"hierarchy {keys[column]}"] = built[column]
    return chosen


def _by_default(series: pd.Series) -> tuple[Hierarchy, str]:
    """The registered hierarchy claiming the column if it covers the column, else ``auto``
    (with a :class:`HierarchyFallbackWarning` when a claiming one falls short); and the
    choice as the report states it. The warning counts the values left out, never quotes
    them: only a hierarchy the user named may list them (its own error)."""
    claimed = claimed_hierarchy(series.name)
    if claimed is not None:
        try:
            hierarchy = hierarchy_for(series, claimed)
            recode(series, hierarchy, 0)  # a HierarchyError if it misses a value of the column
            return hierarchy, claimed
        except HierarchyError as error:
            problem = (
                "cannot be built for the column"
                if error.unmatched is None
                else f"does not cover {plural(error.unmatched, 'value')} of the column"
            )
    built = hierarchy_for(series, auto)
    name = built.name or "auto"
    if claimed is None:
        return built, name
    warn(
        f"hierarchy {claimed!r} claims column {series.name!r} but {problem}; the column is "
        f"generalized by a hierarchy built from its data instead ({name}). To use "
        f"{claimed!r}, pass hierarchies={{{series.name!r}: {claimed!r}}}: its error then says "
        f"which values to clean or map",
        HierarchyFallbackWarning,
    )
    return built, f"{name} (fallback: {claimed} {problem})"


def _report(
    frame, qid, chosen, lattice, stats, models, search, choices, k, limit, privacy, seconds
) -> Anonymization:
    n = lattice.n_rows
    kept = stats.kept_sizes  # never empty: a node suppressing every row is no solution
    modified_levels = sum(level > 0 for level in stats.node)
    keys = column_keys(qid)
    return Anonymization(
        algorithm=search.algorithm,
        qid=[keys[c] for c in qid],
        levels={keys[c]: int(level) for c, level in zip(qid, stats.node)},
        hierarchies={keys[c]: chosen[c].name or "(unnamed)" for c in qid},
        models=[str(m) for m in models],
        rows=n,
        suppressed=stats.suppressed,
        max_suppression=limit,
        classes=int(len(kept)),
        k_reached=int(kept.min()),
        metrics={
            "precision": precision(stats, lattice.heights, n),
            "dm": discernibility(stats, n),
            "c_avg": average_class_size(stats, n, k),
        },
        risk={
            "prosecutor_max": float(1 / kept.min()),
            "prosecutor_avg": float(len(kept) / kept.sum()),
            "sample_uniques": int((kept == 1).sum()),
        },
        search={
            "lattice_size": search.lattice_size,
            "evaluated": search.evaluated,
            "seconds": round(seconds, 4),
            "generalized_columns": modified_levels,
        },
        choices=choices,
        privacy=privacy,
    )
