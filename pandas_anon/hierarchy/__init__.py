"""Generalization hierarchies: the model, its builders and the registry of named ones."""

from pandas_anon.hierarchy.builders import (
    auto,
    dates,
    intervals,
    masking,
    row_groups,
    suppression,
    top_bottom,
)
from pandas_anon.hierarchy.model import TOP, Hierarchy

__all__ = [
    "TOP",
    "Hierarchy",
    "auto",
    "dates",
    "intervals",
    "masking",
    "row_groups",
    "suppression",
    "top_bottom",
]
