"""The built-in plugin: the builders as named hierarchies, registered through the same hook as
a third-party plugin's (the ``builtin.`` namespace is reserved to it)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from pandas_anon.errors import HierarchyError
from pandas_anon.hierarchy import builders
from pandas_anon.hierarchy.model import Hierarchy
from pandas_anon.plugins.hookspecs import Factory, Register, hookimpl


@hookimpl
def register_hierarchies(register: Register) -> None:
    for name, builder, description in [
        (
            "builtin.auto",
            builders.auto,
            "chosen from the column: dates, intervals of nice widths, or suppression",
        ),
        ("builtin.dates", builders.dates, "dates -> month -> year -> decade -> *"),
        (
            "builtin.mask",
            builders.masking,
            "codes masked from the right, one character per level: 11058 -> 1105* -> ... -> *",
        ),
        ("builtin.suppress", builders.suppression, "every value -> *"),
    ]:
        register(name, _of_column(name, builder), description=description)


def _of_column(name: str, builder: Callable[[pd.Series], Hierarchy]) -> Factory:
    """A factory calling ``builder`` with its default parameters on the column."""

    def factory(data: pd.Series | None) -> Hierarchy:
        if data is None:
            raise HierarchyError(f"{name} is built from a column's values: give the column")
        return builder(data)

    return factory
