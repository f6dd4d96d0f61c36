"""Judge a lattice node: which classes violate the privacy models, what is suppressed, and
whether the suppressed rows fit the limit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pandas_anon.anonymization.fulldomain.lattice import Lattice
from pandas_anon.engine.classes import Classes, Node
from pandas_anon.privacy.models import Context, PrivacyModel


@dataclass(frozen=True)
class NodeStats:
    """A node's classes and verdict: ``violating`` classes are suppressed."""

    node: Node
    classes: Classes
    violating: np.ndarray
    suppressed: int
    feasible: bool

    @property
    def kept_sizes(self) -> np.ndarray:
        return self.classes.sizes[~self.violating]


class Evaluator:
    """Evaluate nodes of ``lattice`` against ``models`` with at most ``max_suppression``
    (a fraction of the rows) suppressed, and never every row (a node releasing no row is no
    solution, whatever the limit); counts the nodes it evaluated."""

    def __init__(
        self, lattice: Lattice, models: Sequence[PrivacyModel], max_suppression: float
    ) -> None:
        self.lattice = lattice
        self.models = tuple(models)
        self.limit = min(int(np.floor(max_suppression * lattice.n_rows + 1e-9)), lattice.n_rows - 1)
        self.evaluated = 0
        #: what the models read besides the classes: the sensitive column, when one reads it
        self.context = Context(
            lattice.sensitive_domain(ordered=any(m.reads_order for m in self.models))
            if any(m.reads_sensitive for m in self.models)
            else None
        )

    def __call__(self, node: Node) -> NodeStats:
        self.evaluated += 1
        return self.judge(self.lattice.classes(node))

    def judge(self, classes: Classes) -> NodeStats:
        """The verdict on a node's classes."""
        first, *others = self.models
        violating = first.violations(classes, self.context)
        for model in others:
            violating = violating | model.violations(classes, self.context)
        suppressed = int(classes.sizes[violating].sum()) if violating.any() else 0
        return NodeStats(classes.node, classes, violating, suppressed, suppressed <= self.limit)

    def reached(self, stats: NodeStats) -> dict[str, float]:
        """The privacy level each model reaches on the classes a node keeps."""
        kept = ~stats.violating
        return dict(model.reached(stats.classes, kept, self.context) for model in self.models)
