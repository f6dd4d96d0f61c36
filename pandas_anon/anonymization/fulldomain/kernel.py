"""The optimal search compiled (``_ola.c``): when it applies, and its call.

:mod:`~pandas_anon.anonymization.fulldomain.ola` documents the search and runs it in Python
for every privacy model and metric. Its most common case, k-anonymity alone (no sensitive
column) minimizing precision or DM in int64, also runs as one C function taking the same
steps: the same nodes taken, probed and evaluated in the same order, the same node chosen
(the tests compare the two on random lattices). In Python the search's bookkeeping (array
slices for the up-sets and down-sets, the cache, the verdict objects) costs more than the
roll-up itself: on Adult's 9 quasi-identifiers with 5 % suppression, 135 µs per node
evaluated with precision against 75 compiled, the lattice built included
(``benchmarks/bench_kanon.py``, case e).

Where the extension could not be compiled, or the case is another, the Python search runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from pandas_anon.anonymization.fulldomain import cache
from pandas_anon.anonymization.fulldomain.evaluation import Evaluator, NodeStats
from pandas_anon.anonymization.fulldomain.metrics import Metric
from pandas_anon.privacy.models import KAnonymity
from pandas_anon.progress import Progress

_ola: ModuleType | None
try:
    from pandas_anon.anonymization.fulldomain import _ola
except ImportError:  # pragma: no cover - the extension is built on every supported platform
    _ola = None

#: Whether the compiled search is available (else the Python search runs every case).
COMPILED = _ola is not None
#: The most quasi-identifiers the compiled search takes.
MAX_COLUMNS = 64


@dataclass(frozen=True)
class Outcome:
    """What the compiled search found: the best node's verdict (None: no node is feasible)
    and its scaled metric value, the nodes evaluated and probes made, and per node (arrays
    of the lattice's shape) the status tagging left, the verdict of each node evaluated, and
    which were."""

    best: NodeStats | None
    value: int
    evaluations: int
    probes: int
    status: np.ndarray
    verdict: np.ndarray
    evaluated: np.ndarray


def applies(evaluator: Evaluator, metric: Metric) -> bool:
    """Whether the compiled search runs this search: k-anonymity the only model, no
    sensitive column, a built-in metric in int64, at most :data:`MAX_COLUMNS` columns."""
    return (
        COMPILED
        and metric.compiled is not None
        and evaluator.lattice.sensitive is None
        and len(evaluator.lattice.qid) <= MAX_COLUMNS
        and all(type(model) is KAnonymity for model in evaluator.models)
    )


def search(evaluator: Evaluator, metric: Metric, bar: Progress) -> Outcome:
    """Run the compiled search (only where :func:`applies`)."""
    assert _ola is not None and metric.compiled is not None
    lattice, spec = evaluator.lattice, metric.compiled
    shape = tuple(h + 1 for h in lattice.heights)
    arrays = lattice.arrays()
    lower = np.ascontiguousarray(metric.floors(), dtype=np.int64).reshape(-1)
    status = np.zeros(shape, dtype=np.int8)
    verdict = np.zeros(shape, dtype=np.int8)
    evaluated = np.zeros(shape, dtype=np.uint8)
    weights = np.zeros(len(shape), dtype=np.int64)
    weights[: len(spec.weights)] = spec.weights
    best, value, evaluations, probes = _ola.ola(
        np.array(lattice.heights, dtype=np.int64),
        arrays.fields,
        arrays.n_words,
        arrays.lookups,
        arrays.lookup_at,
        arrays.positions,
        arrays.keys,
        arrays.counts,
        len(arrays.counts),
        max(model.k for model in evaluator.models if isinstance(model, KAnonymity)),
        evaluator.limit,
        lattice.n_rows,
        spec.kind,
        weights,
        spec.scale,
        spec.least,
        int(evaluator.limit == 0),
        cache.BUDGET,
        lower,
        status.reshape(-1),
        verdict.reshape(-1),
        evaluated.reshape(-1),
        (lambda done: bar.advance(f"{done:,} evaluated")) if bar.enabled else None,
    )
    evaluator.evaluated += evaluations
    found = None
    if best >= 0:
        node = tuple(int(level) for level in np.unravel_index(best, shape))
        found = evaluator.judge(lattice.assign(node)[0])  # kept for writing it
    return Outcome(found, value, evaluations, probes, status, verdict, evaluated.astype(bool))
