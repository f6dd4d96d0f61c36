"""Generalization hierarchies: the model and its builders.

Hierarchies known by name (built-in or from plugins) are :mod:`pandas_anon.plugins`', the layer
above, which builds them with these builders.

May import: the engine and the foundation modules.
"""

from pandas_anon.hierarchy.arx_csv import read_arx_csv, write_arx_csv
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
    "read_arx_csv",
    "row_groups",
    "suppression",
    "top_bottom",
    "write_arx_csv",
]
