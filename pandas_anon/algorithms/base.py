"""What every lattice algorithm returns, and the order used to break ties."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..evaluation import NodeStats


@dataclass
class Search:
    """The chosen node (None: no node satisfies the constraints) and search statistics."""

    algorithm: str
    best: NodeStats | None
    value: float
    evaluated: int
    lattice_size: int
    notes: dict = field(default_factory=dict)


def tie_key(value: float, node: tuple[int, ...]) -> tuple:
    """Smaller metric first, then the lower node, then the lexicographically smaller."""
    return (value, sum(node), node)
