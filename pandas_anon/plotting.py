"""Figures of results, drawn with matplotlib (the optional ``plot`` extra), imported only
when a figure is asked for.

Every ``.plot()`` of a result (:class:`~pandas_anon.detect.results.Singletons`,
:class:`~pandas_anon.detect.results.BestQID`, :class:`~pandas_anon.studies.strategy.Study`,
:class:`~pandas_anon.anonymization.noise.planning.KEPlanning`) draws on the axes given, or
on new ones, and returns them, as pandas' own ``.plot()`` does; figures show counts and
column names only, never a value of the data.
"""

from __future__ import annotations

from typing import Any

from pandas_anon.errors import MissingDependencyError

#: The colour of what a figure points at (the singletons, the elected subset, the best
#: strategy), and of the rest.
HIGHLIGHT = "#c0392b"
REST = "#7f8c8d"


def pyplot() -> Any:
    """``matplotlib.pyplot``; :class:`MissingDependencyError` saying what to install when
    matplotlib is not."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise MissingDependencyError(
            "plot() draws with matplotlib, which is not installed; "
            "pip install 'pandas-anon[plot]' (or matplotlib)"
        ) from error
    return plt


def axes_for(axes: Any, figsize: tuple[float, float]) -> Any:
    """``axes``, or new ones of ``figsize`` inches."""
    if axes is not None:
        return axes
    _, created = pyplot().subplots(figsize=figsize, constrained_layout=True)
    return created


def label_bars(axes: Any, bars: Any, values: list[int]) -> None:
    """Write each bar's count at its end (thousands separated)."""
    axes.bar_label(bars, labels=[f"{v:,}" for v in values], padding=2, fontsize="small")
