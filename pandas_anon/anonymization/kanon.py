"""k-anonymity by full-domain generalization and suppression: ``df.anon.kanon(5)``.

The frame is reduced once to a lattice over its frequency set (:mod:`pandas_anon.anonymization.fulldomain.lattice`);
an algorithm picks a node (one level per quasi-identifier) satisfying the privacy models with
at most ``max_suppression`` of the rows suppressed; the node is then applied to the rows:
each quasi-identifier replaced by its label at the chosen level, and the rows of violating
classes suppressed (every quasi-identifier set to the top value ``*``, or dropped).
:func:`anonymize` returns the decision and its report without touching the rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from pandas_anon.anonymization.algorithms import Algorithm, Problem, get_algorithm
from pandas_anon.anonymization.recoding import (
    KEEP,
    HierarchyLike,
    hierarchy_for,
    read_beside,
    recode,
)
from pandas_anon.anonymization.reports import AnonymizationReport, column_keys
from pandas_anon.anonymization.transformation import Transformation
from pandas_anon.anonymization.utility import measure
from pandas_anon.detect.exposure import MAX_SIZE, DirectIdentifier, direct_identifiers, scan
from pandas_anon.detect.figures import candidate_columns
from pandas_anon.engine.backends import dask_backend, is_dask
from pandas_anon.engine.backends.pandas import tabulate
from pandas_anon.engine.columns import (
    require_columns,
    require_data,
    resolve_columns,
    sensitive_outside,
)
from pandas_anon.errors import (
    HierarchyError,
    HierarchyFallbackWarning,
    IdentifierWarning,
    InvalidParameterError,
    InvalidQIDError,
    OneClassWarning,
    warn,
)
from pandas_anon.formatting import plural
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.hierarchy.builders import auto
from pandas_anon.params import fraction, one_of, whole
from pandas_anon.plugins.registry import claimed_hierarchy
from pandas_anon.privacy.models import KAnonymity, LDiversity, PrivacyModel, TCloseness

#: Largest column set the gate's rule examines in zero configuration (as ``check`` does).
AUTO_QID_SIZE = MAX_SIZE
#: What ``identifiers=`` may do with a direct identifier column outside the QID.
IDENTIFIER_TREATMENTS = ("drop", "hash", "keep")


@dataclass(frozen=True)
class _Request:
    """What every search of one call shares (zero configuration runs several)."""

    frame: pd.DataFrame
    k: int
    models: list[PrivacyModel]
    hierarchies: Mapping[Hashable, HierarchyLike]
    algo: Algorithm
    max_suppression: float
    metric: str | Callable
    sensitive: Hashable | None
    progress: bool | None
    built: dict = field(default_factory=dict)  # hierarchies built so far, per column
    #: the people each row of ``frame`` stands for (a Dask frame's digest), or None
    weights: np.ndarray | None = None


def anonymize(
    frame: pd.DataFrame,
    k: int,
    *,
    qid: Sequence[Hashable] | None = None,
    hierarchies: Mapping[Hashable, HierarchyLike] | None = None,
    algo: str | Algorithm = "ola",
    max_suppression: float | str = 0.0,
    metric: str | Callable = "precision",
    l: float | LDiversity | None = None,  # noqa: E741  (the model's name)
    t: float | str | TCloseness | None = None,
    sensitive: Hashable | None = None,
    identifiers: str = "drop",
    progress: bool | None = None,
) -> Transformation:
    """Choose the transformation (the recoding of each combination, the suppressed ones)
    and its report, without writing a row (:meth:`Transformation.apply` writes them).

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
    k = whole(k, "k", example=5)  # as KAnonymity parses it: a plain int
    models = _models(k, l, t, sensitive, frame)
    algorithm = get_algorithm(algo) if isinstance(algo, str) else _algorithm(algo)
    one_of(identifiers, "identifiers", IDENTIFIER_TREATMENTS)
    max_suppression = fraction(max_suppression, "max_suppression")  # 0.05, "5%" or "0.05"
    digest = None
    if is_dask(frame):
        require_columns(frame)
    else:
        require_data(frame)
        _rows_for(k, len(frame))  # before the election, whose errors would hide this one
    if hierarchies is not None and not isinstance(hierarchies, Mapping):
        raise InvalidParameterError(
            f"hierarchies must map columns to hierarchies, such as "
            f"{{'age': 'intervals'}}, got {type(hierarchies).__name__} {hierarchies!r}"
        )
    if qid is None:
        found = _identifiers(frame, [c for c in frame.columns if c != sensitive], identifiers)
        read = None  # the columns holding a value, less the identifiers (on a Dask frame)
    else:
        qid = resolve_columns(frame, qid)
        sensitive_outside(qid, sensitive)
        outside = [c for c in frame.columns if c not in qid and c != sensitive]
        found = _identifiers(frame, outside, identifiers)
        read = [*qid, *([sensitive] if sensitive is not None else [])]
    local, weights = frame, None
    if is_dask(frame):  # decided on the digest: every figure weighs the rows of a combination
        if read is None:
            read = [c for c in candidate_columns(frame, None) if c not in _columns(found)]
        given = hierarchies or {}
        sources = {c: given[c] if c in given else _claimed(c) for c in read}
        digest = dask_backend().digest(frame, [*read, *read_beside(frame, sources)])
        local, weights = digest.frame, digest.counts
        _rows_for(k, digest.n_rows)
    request = _Request(
        local,
        k,
        models,
        hierarchies or {},
        algorithm,
        max_suppression,
        metric,
        sensitive,
        progress,
        weights=weights,
    )
    if qid is None:
        decision = _zero_configuration(request, _columns(found))
    else:
        decision = _decide(request, qid, {})
    report = decision.report
    assert isinstance(report, AnonymizationReport)
    if report.classes == 1 and report.search.get("lattice_size", 2) > 1:
        warn(
            f"the result is one class: every kept row is alike on {report.qid} (levels "
            f"{report.levels or 'none'}), so they tell nothing apart; allow some suppression "
            f"(max_suppression=, --max-suppression), lower k, or choose the quasi-identifier "
            f"(qid=, --qid)",
            OneClassWarning,
        )
    treated = {"drop": "dropped", "hash": "hashed", "keep": "kept"}[identifiers]
    seconds = round(time.perf_counter() - started, 4)
    keys = column_keys([f.column for f in found])
    return replace(
        decision,
        digest=digest,
        identifiers=tuple(keys),
        treatment=identifiers,
        report=replace(
            report,
            identifiers={key: treated for key in keys.values()},
            search={**report.search, "seconds": seconds},
        ),
    )


def kanon(
    frame: pd.DataFrame,
    k: int,
    *,
    suppress: str = "mask",
    salt: bytes | str | None = None,
    **options: Any,
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
    return anonymize(frame, k, **options).apply(frame, suppress=suppress, salt=salt)


def _claimed(column: Hashable) -> str | None:
    """The hierarchy claiming ``column``, if one does (several: none here, the search says
    so when it builds the column's hierarchy)."""
    try:
        return claimed_hierarchy(column)
    except HierarchyError:
        return None


def _rows_for(k: int, rows: int) -> None:
    """Refuse a ``k`` above the rows of the frame."""
    if k > rows:
        raise InvalidParameterError(f"k={k} exceeds the {rows:,} rows of the frame")


def _columns(found: Sequence[DirectIdentifier]) -> list[Hashable]:
    """The columns of direct identifiers found."""
    return [f.column for f in found]


def _algorithm(algo: object) -> Algorithm:
    """An algorithm object given as ``algo=`` (such as ``Mondrian(relaxed=True)``)."""
    if not isinstance(algo, Algorithm):
        raise InvalidParameterError(
            f"algo must be an algorithm's name (such as 'ola' or 'mondrian') or an algorithm "
            f"object (such as pandas_anon.Mondrian(relaxed=True)), got {type(algo).__name__} "
            f"{algo!r}"
        )
    return algo


def _identifiers(
    frame: pd.DataFrame, columns: Sequence[Hashable], treatment: str
) -> tuple[DirectIdentifier, ...]:
    """The direct identifier columns among ``columns``; kept ones are warned about."""
    found = direct_identifiers(frame, columns)  # an empty column shares its one value
    if found and treatment == "keep":
        warn(
            f"releasing {plural(len(found), 'direct identifier column')} as asked "
            f"(identifiers='keep'): {', '.join(f.describe() for f in found)}; each identifies "
            f"people on its own, and pandas-anon check fails the file unless its configuration "
            f"allows the column (allow_identifiers)",
            IdentifierWarning,
        )
    return found


def _decide(
    request: _Request, qid: tuple[Hashable, ...], choices: dict[str, str]
) -> Transformation:
    """Run the algorithm on the frequency set of ``qid`` and report what it decided."""
    frame = request.frame
    columns = [*qid, request.sensitive] if request.sensitive is not None else list(qid)
    tabulation = tabulate(frame, columns, weights=request.weights)  # first: an all-missing
    # column is refused alike
    chosen = _hierarchies(
        frame,
        qid,
        request.hierarchies,
        choices,
        request.built,
        build=getattr(request.algo, "default_hierarchies", True),
    )
    problem = Problem(
        tabulation=tabulation,
        qid=qid,
        hierarchies=chosen,
        models=tuple(request.models),
        k=request.k,
        max_suppression=request.max_suppression,
        metric=request.metric,
        sensitive=request.sensitive,
        progress=request.progress,
    )
    decided = request.algo.decide(problem)
    return replace(decided, report=_report(decided, problem, choices))


def _zero_configuration(request: _Request, identifiers: Sequence[Hashable]) -> Transformation:
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
    weights = request.weights
    qid = list(scan(released, k=max(k, 2), max_size=AUTO_QID_SIZE, weights=weights).qid)
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
        found = scan(
            decision.write(released).frame, k=max(k, 2), max_size=AUTO_QID_SIZE, weights=weights
        )
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
            report = cast(AnonymizationReport, decision.report)
            return replace(decision, report=replace(report, exposure=exposure))
        qid = [*qid, *wider]


def _models(
    k: int,
    l: float | LDiversity | None,  # noqa: E741  (the model's name)
    t: float | str | TCloseness | None,
    sensitive: Hashable | None,
    frame: pd.DataFrame,
) -> list[PrivacyModel]:
    """The privacy models asked for: k-anonymity, then l-diversity and t-closeness of
    ``sensitive``."""
    models: list[PrivacyModel] = [KAnonymity(k)]
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
                else TCloseness(
                    fraction(t, "t"), ordered=pd.api.types.is_numeric_dtype(frame[sensitive])
                )
            )
    return models


def _hierarchies(
    frame: pd.DataFrame,
    qid: Sequence[Hashable],
    given: Mapping[Hashable, HierarchyLike],
    choices: dict[str, str],
    built: dict[Hashable, tuple[Hierarchy | None, str]] | None = None,
    *,
    build: bool = True,
) -> dict[Hashable, Hierarchy]:
    """The given hierarchies; for the other columns a registered one that claims the column,
    else (with ``build``) one built from the data (intervals, dates or suppression:
    ``auto``), taken from ``built`` (column -> hierarchy and choice) when an earlier search
    built it. Without ``build`` a column with neither has no hierarchy."""
    built = {} if built is None else built
    unknown = [c for c in given if c not in qid]
    if unknown:
        raise InvalidParameterError(f"hierarchies given for columns outside the qid: {unknown!r}")
    chosen: dict[Hashable, Hierarchy] = {}
    keys = column_keys(qid)
    for column in qid:
        if column in given:
            chosen[column] = hierarchy_for(frame[column], given[column], frame)
        else:
            if column not in built:
                built[column] = _by_default(frame, column, build=build)
            hierarchy, choices[f"hierarchy {keys[column]}"] = built[column]
            if hierarchy is not None:
                chosen[column] = hierarchy
    return chosen


def _by_default(
    frame: pd.DataFrame, column: Hashable, *, build: bool = True
) -> tuple[Hierarchy | None, str]:
    """The registered hierarchy claiming the column if it covers the column, else ``auto``
    (with ``build``; without it, no hierarchy: the algorithm cuts the column by its values),
    with a :class:`HierarchyFallbackWarning` when a claiming one falls short; and the
    choice as the report states it. The warning counts the values left out, never quotes
    them: only a hierarchy the user named may list them (its own error)."""
    series = frame[column]
    claimed = claimed_hierarchy(series.name)
    if claimed is not None:
        try:
            hierarchy = hierarchy_for(series, claimed, frame)
            recode(series, hierarchy, 0)  # a HierarchyError if it misses a value of the column
            return hierarchy, hierarchy.described(claimed)
        except HierarchyError as error:
            problem = (
                "cannot be built for the column"
                if error.unmatched is None
                else f"does not cover {plural(error.unmatched, 'value')} of the column"
            )
    built = hierarchy_for(series, auto) if build else None
    name = (built.name or "auto") if built is not None else "none (written by value)"
    if claimed is None:
        return built, name
    instead = f"a hierarchy built from its data instead ({name})" if build else "its values instead"
    warn(
        f"hierarchy {claimed!r} claims column {series.name!r} but {problem}; the column is "
        f"generalized by {instead}. To use "
        f"{claimed!r}, pass hierarchies={{{series.name!r}: {claimed!r}}}: its error then says "
        f"which values to clean or map",
        HierarchyFallbackWarning,
    )
    return built, f"{name} (fallback: {claimed} {problem})"


def _report(
    transformation: Transformation, problem: Problem, choices: dict[str, str]
) -> AnonymizationReport:
    """What the call reports: the levels chosen, the privacy reached and the utility kept
    (:mod:`pandas_anon.anonymization.utility`, the same figures for every algorithm)."""
    utility = measure(transformation, problem.k)
    keys = column_keys(problem.qid)
    recodings = {c: transformation.recodings[c] for c in problem.qid}
    counts = transformation.tabulation.frequencies.counts
    kept = ~transformation.suppressed
    written = kept if kept.any() else np.ones_like(kept)  # every row suppressed: all of them
    levels = {  # the level of columns written at one level of a hierarchy on the kept rows
        keys[c]: int(r.levels[written][0])
        for c, r in recodings.items()
        if r.levels is not None
        and len(r.levels)
        and (r.levels[written] == r.levels[written][0]).all()
    }
    rows_by_level = {  # columns written at several levels (local recoding): rows per level
        keys[c]: {
            int(level): int(counts[kept & (r.levels == level)].sum())
            for level in np.unique(r.levels[kept])
        }
        for c, r in recodings.items()
        if r.levels is not None and len(r.levels) and keys[c] not in levels
    }
    generalized = sum(
        bool((r.levels > 0).any()) if r.levels is not None else bool((r.codes != KEEP).any())
        for r in recodings.values()
    )
    return AnonymizationReport(
        algorithm=transformation.method,
        qid=[keys[c] for c in problem.qid],
        levels=levels,
        rows_by_level=rows_by_level,
        hierarchies={
            keys[c]: problem.hierarchies[c].described()
            if c in problem.hierarchies
            else "none (written by value)"
            for c in problem.qid
        },
        models=[str(m) for m in problem.models],
        rows=utility.rows,
        suppressed=utility.suppressed,
        max_suppression=problem.max_suppression,
        classes=utility.classes,
        k_reached=utility.smallest,
        metrics=utility.metrics(),
        ncp={keys[c]: value for c, value in utility.ncp.items()},
        risk=utility.risk(),
        search={
            **transformation.search,
            "seconds": 0.0,
            "generalized_columns": generalized,
        },
        choices=choices,
        privacy=dict(transformation.privacy),
    )
