"""``pandas_anon.ke_plan``: choose (k, ε) before publishing.

For each k the k-quasis are k-anonymized once (:func:`~.ke.ke_decide`); each ε then only
rescales the classes' noise (:meth:`~.ke.NoisePlan.with_eps`). Per (k, ε) the grid holds:

- the **predicted information loss**, exact before any noise (Holohan et al. 2017, section
  V-A; :meth:`~.ke.NoisePlan.predicted_loss`);
- the **linking risk** and the share of rows **α-confident k-anonymity** would suppress
  (sections V-B, V-C), which depend on the noise drawn: estimated as their mean over
  ``runs`` draws of seeded noise, with the spread of the linking risk over those draws.

Nothing is released: no noisy value leaves this module, only figures.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon import formatting, plotting
from pandas_anon.anonymization.noise.ke import NoisePlan, confidence, ke_decide
from pandas_anon.anonymization.noise.sources import SeededLaplace
from pandas_anon.engine.backends import is_dask
from pandas_anon.errors import InvalidParameterError
from pandas_anon.params import flag, known_options, real, whole
from pandas_anon.progress import Progress

#: The columns of :attr:`KEPlanning.table`, in order.
COLUMNS = (
    "k",
    "eps",
    "classes",
    "suppressed",
    "predicted_loss",
    "linking_risk",
    "linking_risk_sd",
    "alpha_suppressed",
)


@dataclass(frozen=True, repr=False)
class KEPlanning:
    """The figures of a (k, ε) grid, one row per pair (see the module).

    ``table`` columns: ``k``, ``eps``; ``classes`` of the k-quasis; ``suppressed``, the share
    of rows the k-anonymization suppressed; ``predicted_loss``, the expected mean relative
    error of the ε-quasis (exact); ``linking_risk`` and its standard deviation over the runs
    (``linking_risk_sd``); ``alpha_suppressed``, the mean share of rows α-confident
    k-anonymity suppresses (with the ``alpha`` given).
    """

    table: pd.DataFrame = field(compare=False)
    k_quasi: tuple[str, ...]
    eps_quasi: tuple[str, ...]
    algorithm: str
    alpha: float
    runs: int
    seconds: float

    def smallest_eps(self, max_loss: float = 0.05) -> dict[int, float | None]:
        """Per k, the smallest ε of the grid whose predicted loss is at most ``max_loss``
        (None: no ε of the grid is enough)."""
        limit = real(max_loss, "max_loss", low=0, example=0.05)
        found: dict[int, float | None] = {}
        for k in sorted(self.table["k"].unique()):
            rows = self.table[self.table["k"] == k]
            enough = rows.loc[rows["predicted_loss"] <= limit, "eps"]
            found[int(k)] = float(enough.min()) if len(enough) else None
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "k_quasi": list(self.k_quasi),
            "eps_quasi": list(self.eps_quasi),
            "algorithm": self.algorithm,
            "alpha": self.alpha,
            "runs": self.runs,
            "seconds": self.seconds,
            "table": self.table.to_dict(orient="records"),
        }

    def __repr__(self) -> str:
        return formatting.render(
            "(k, ε) planning (Holohan et al. 2017): figures before publishing",
            [
                ("k-quasis", formatting.columns(self.k_quasi)),
                ("ε-quasis", formatting.columns(self.eps_quasi)),
                ("k-anonymity", self.algorithm),
                ("estimated over", f"{formatting.plural(self.runs, 'draw')} of seeded noise"),
                ("alpha", self.alpha),
                ("seconds", self.seconds),
            ],
            ("", self.table.astype(object)),  # per column: k and classes stay whole
        )

    def plot(self, axes: Any = None) -> Any:
        """The grid as three panels against ε (log scale), one line per k: predicted loss,
        linking risk, α-confident suppression. Needs matplotlib (``pip install
        'pandas-anon[plot]'``); returns the array of axes."""
        if axes is None:
            _, axes = plotting.pyplot().subplots(1, 3, figsize=(13, 3.8), constrained_layout=True)
        panels = (
            ("predicted_loss", "relative error (predicted)"),
            ("linking_risk", "linking risk"),
            ("alpha_suppressed", f"suppressed at α = {self.alpha}"),
        )
        for ax, (column, title) in zip(axes, panels):
            for k, rows in self.table.groupby("k", sort=True):
                ax.plot(rows["eps"], rows[column], marker="o", label=f"k = {k}")
            ax.set_xscale("log")
            ax.set_xlabel("ε")
            ax.set_title(title)
        axes[0].set_yscale("log")
        axes[-1].legend(fontsize="small")
        return axes


def ke_plan(
    frame: pd.DataFrame,
    k_values: Iterable[int],
    eps_values: Iterable[float],
    *,
    alpha: float | str = 0.99,
    runs: int = 5,
    seed: int = 0,
    progress: bool | None = None,
    **options: Any,
) -> KEPlanning:
    """Tabulate what (k, ε)-anonymity would cost and risk, for a grid of k and ε.

    Give the predicted information loss, linking risk and α-confident suppression of
    (k, ε)-anonymity [1]_ for every pair of ``k_values`` and ``eps_values`` (see the module).
    For each k the k-quasis are k-anonymized once (:func:`~.ke.ke_decide`); each ε then only
    rescales the classes' noise (:meth:`~.ke.NoisePlan.with_eps`). The predicted loss is
    exact before any noise (section V-A); the linking risk and the share of rows α-confident
    k-anonymity would suppress (sections V-B and V-C) depend on the noise drawn, and are
    estimated as their mean over ``runs`` draws of seeded noise, with the spread of the
    linking risk over those draws. Nothing is released: no noisy value leaves this
    function, only figures.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to plan for (a pandas frame: plan on a sample of a Dask frame).
    k_values : iterable of int
        The k of the grid: whole numbers of at least 1, at least one (a single number is a
        grid of one). Repeated values count once; the grid is sorted.
    eps_values : iterable of float
        The ε of the grid: finite numbers above 0, at least one; likewise deduplicated and
        sorted.
    alpha : float or str, default 0.99
        The confidence of the α-confident k-anonymity whose suppression is estimated,
        strictly between 0 and 1.
    runs : int, default 5
        The noise draws per pair for the estimates: a whole number of at least 1.
    seed : int, default 0
        Where the draws come from: a whole number of at least 0; the same seed gives the
        same grid.
    progress : bool, optional
        A progress bar on stderr over the draws. Default None: only when stderr is a
        terminal.
    **options
        The options of :func:`~.ke.ke_decide` (``qid``, ``eps_quasi``, ``bounds``,
        ``algo``, ``hierarchies``, ``max_suppression``, ``identifiers``), applied alike to
        every k.
        Without ``qid``, zero configuration elects the quasi-identifiers with the first
        (smallest) k, and every k compares those columns.

    Returns
    -------
    KEPlanning
        ``table``: one row per (k, ε) with the columns ``k``, ``eps``, ``classes`` of the
        k-quasis, ``suppressed`` (the share of rows the k-anonymization suppressed),
        ``predicted_loss`` (the expected mean relative error of the ε-quasis),
        ``linking_risk`` and its standard deviation over the runs ``linking_risk_sd`` (of
        the values as released: rounded and clamped into their domain), and
        ``alpha_suppressed`` (the mean share of rows α-confident k-anonymity suppresses);
        also ``k_quasi``, ``eps_quasi``, ``algorithm``, ``alpha``, ``runs`` and ``seconds``.
        ``smallest_eps(max_loss)`` gives, per k, the smallest ε of the grid within a loss;
        ``plot()`` draws the grid.

    Raises
    ------
    InvalidParameterError
        When ``frame`` is a Dask frame; a grid is empty or holds a value out of range;
        ``runs``, ``seed`` or ``alpha`` is out of range; and for every argument
        :func:`~.ke.ke_decide` refuses.
    AllMissingColumnError, ColumnNotFoundError, InvalidQIDError, DuplicateColumnsError
        As :func:`~.ke.ke_decide`: a column that holds only missing values, or a column
        selection the frame does not match.
    EmptyDataError
        When the frame has no row or no column.
    HierarchyError, UnknownNameError, InfeasibleError
        From the k-anonymization of the k-quasis, for some k of the grid.

    Warns
    -----
    OneClassWarning, IdentifierWarning, HierarchyFallbackWarning
        From the k-anonymization of the k-quasis, as
        :func:`~pandas_anon.anonymization.kanon.anonymize` warns.

    See Also
    --------
    pandas_anon.ke_anon : The release, once k and ε are chosen.
    pandas_anon.ke_decide : The plan of one (k, ε).

    References
    ----------
    .. [1] N. Holohan, S. Antonatos, S. Braghin and P. Mac Aonghusa, "(k, ε)-Anonymity:
       k-Anonymity with ε-Differential Privacy", IBM Research, 2017, sections V-A to V-C.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame({
    ...     "sex": ["F", "F", "F", "M", "M", "M"],
    ...     "height": [160.0, 165.0, 170.0, 175.0, 180.0, 185.0],
    ... })
    >>> grid = pandas_anon.ke_plan(df, [2, 3], [1, 10], qid=["sex", "height"])
    >>> len(grid.table), grid.eps_quasi
    (4, ('height',))
    >>> grid.table["predicted_loss"].round(4).tolist()
    [0.0581, 0.0058, 0.0581, 0.0058]
    >>> grid.smallest_eps(max_loss=0.05)
    {2: 10.0, 3: 10.0}
    """
    if is_dask(frame):
        raise InvalidParameterError(
            "ke_plan draws the noise of every pair many times over the rows: it takes a "
            "pandas frame; plan on a sample (ddf.sample(frac=...).compute()), then release "
            "the Dask frame with ke_anon"
        )
    ks = _grid(k_values, "k_values", lambda v: whole(v, "k_values", example=5))
    epsilons = _grid(
        eps_values, "eps_values", lambda v: real(v, "eps_values", low=0, above=True, example=1)
    )
    runs = whole(runs, "runs", example=5)
    seed = whole(seed, "seed", low=0, example=0)
    progress = flag(progress, "progress", optional=True)
    known_options(options, "ke_plan", [ke_decide], fixed=["progress"])
    level = confidence(alpha)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    plan: NoisePlan | None = None
    total = len(ks) * len(epsilons) * runs
    with Progress("(k, ε) grid", total=total, unit="draw", enabled=progress) as bar:
        for k in ks:
            plan = ke_decide(frame, k, epsilons[0], progress=False, **options)
            # zero configuration elects with the first k; every k compares the same columns
            options = {**options, "qid": (*plan.k_quasi, *plan.eps_quasi)}
            options["eps_quasi"] = plan.eps_quasi
            for eps in epsilons:
                rows.append(_figures(plan.with_eps(eps), level, runs, seed, bar))
    assert plan is not None  # the grids are not empty
    return KEPlanning(
        table=pd.DataFrame(rows, columns=list(COLUMNS)),
        k_quasi=tuple(str(c) for c in plan.k_quasi),
        eps_quasi=tuple(str(c) for c in plan.eps_quasi),
        algorithm=plan.transformation.method,
        alpha=level,
        runs=runs,
        seconds=round(time.perf_counter() - started, 3),
    )


def _figures(plan: NoisePlan, alpha: float, runs: int, seed: int, bar: Progress) -> dict:
    """One row of the grid: the plan's exact figures and the means over ``runs`` draws."""
    risks, removed = [], []
    for run in range(runs):
        # one stream per (seed, run), the same whatever the pair: pairs compare like for like;
        # the risks of the values a release would hold (rounded, clamped)
        released = plan.post_process(plan.draw(SeededLaplace(_stream(seed, run))))
        exposure = plan.exposure(released, alpha)
        risks.append(exposure.linking_risk)
        removed.append(exposure.removed.mean() if len(exposure.removed) else 0.0)
        bar.advance(f"k={plan.k}, ε={plan.eps:g}")
    return {
        "k": plan.k,
        "eps": plan.eps,
        "classes": len(plan.diameter),
        "suppressed": float((plan.row_class < 0).mean()) if len(plan.row_class) else 0.0,
        "predicted_loss": plan.predicted_loss()["mean"],
        "linking_risk": float(np.mean(risks)),
        "linking_risk_sd": float(np.std(risks)),
        "alpha_suppressed": float(np.mean(removed)),
    }


def _stream(seed: int, run: int) -> int:
    """The seed of draw ``run`` from ``seed`` (independent streams, reproducible)."""
    sequence = np.random.SeedSequence([seed, run])
    return int(sequence.generate_state(1, np.uint64)[0])


def _grid(values: Iterable[Any], name: str, check: Any) -> list[Any]:
    """The distinct values of a grid, checked, in increasing order; at least one."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        values = [values]
    found = sorted({check(v) for v in values})
    if not found:
        raise InvalidParameterError(f"{name} is empty; give at least one value, such as [5, 10]")
    return found
