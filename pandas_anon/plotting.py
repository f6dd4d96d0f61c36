"""Figures of results, drawn with matplotlib (the optional ``plot`` extra), imported only
when a figure is asked for.

Every ``.plot()`` of a result (:class:`~pandas_anon.detect.results.Singletons`,
:class:`~pandas_anon.detect.results.BestQID`, :class:`~pandas_anon.studies.strategy.Study`,
:class:`~pandas_anon.anonymization.noise.planning.KEPlanning`), and a full-domain decision's
``plot_lattice()``, draws on the axes given, or
on new ones, and returns them, as pandas' own ``.plot()`` does; figures show counts and
column names only, never a value of the data. A column name is written as it is spelled
(:func:`literal`: a ``$`` in it is no mathtext), and a title wraps to the figure's width
(:func:`title`) rather than being cut.
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


def literal(text: object) -> str:
    """``text`` as matplotlib is to show it, verbatim: each ``$`` escaped, so that a column
    named ``$x$`` is written so, not parsed as mathtext (which fails on most such names,
    ``a$b^$`` for one, and so would the figure)."""
    return str(text).replace("$", r"\$")


def title(axes: Any, text: str) -> None:
    """Title ``axes`` with ``text`` verbatim (:func:`literal`), medium-sized, wrapped to the
    figure's width where it is longer."""
    axes.set_title(literal(text), fontsize="medium", wrap=True)


def axes_for(axes: Any, figsize: tuple[float, float]) -> Any:
    """``axes``, or new ones of ``figsize`` inches."""
    if axes is not None:
        return axes
    _, created = pyplot().subplots(figsize=figsize, constrained_layout=True)
    return created


def label_bars(axes: Any, bars: Any, values: list[int]) -> None:
    """Write each bar's count at its end (thousands separated)."""
    axes.bar_label(bars, labels=[f"{v:,}" for v in values], padding=2, fontsize="small")


def plot_lattice(explored: Any, axes: Any = None) -> Any:
    """Draw an :class:`~pandas_anon.anonymization.fulldomain.base.Explored` lattice: each node
    at the height of its levels' sum, spread across its height in lexicographic order,
    coloured by its verdict, the evaluated nodes outlined and the optimum starred."""
    import numpy as np

    shape = tuple(h + 1 for h in explored.heights)
    nodes = np.indices(shape).reshape(len(shape), -1).T  # lexicographic order
    height = nodes.sum(axis=1)
    position = np.zeros(len(nodes))
    for level in np.unique(height):  # each height's nodes side by side, centred on 0
        at = np.flatnonzero(height == level)
        position[at] = (np.arange(len(at)) - (len(at) - 1) / 2) / max(len(at), 1)
    status = explored.status.reshape(-1)
    evaluated = explored.evaluated.reshape(-1)
    ax = axes_for(axes, (7.2, 4.8))
    size = max(4.0, 3000.0 / max(len(nodes), 1) ** 0.75)
    for verdict, colour, name in (
        (1, "#27ae60", "feasible"),
        (-1, REST, "infeasible"),
        (0, "#d5d8dc", "unknown"),
    ):
        chosen = status == verdict
        count = int(chosen.sum())
        ax.scatter(
            position[chosen],
            height[chosen],
            s=size,
            c=colour,
            edgecolors=np.where(evaluated[chosen], "black", "none").tolist(),
            linewidths=0.5,
            label=f"{name} ({count:,})",
        )
    if explored.optimum is not None:
        best = int(np.ravel_multi_index(explored.optimum, shape))
        ax.scatter(
            [position[best]],
            [height[best]],
            s=12 * size,
            marker="*",
            c=HIGHLIGHT,
            label=f"optimum {list(explored.optimum)}",
        )
    ax.set_xticks([])
    ax.set_xlabel(literal(f"nodes of each height, levels of ({', '.join(explored.qid)})"))
    ax.set_ylabel("sum of the levels")
    ax.set_title(
        f"{len(explored.qid)} quasi-identifiers: {len(nodes):,} nodes, "
        f"{int(evaluated.sum()):,} evaluated (outlined)",
        fontsize="medium",
    )
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
    return ax
