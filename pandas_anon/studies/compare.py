"""``pandas_anon.compare``: several anonymization methods on one table, side by side.

Each method is run by :func:`~pandas_anon.anonymization.kanon.kanon` with the same k,
quasi-identifier, hierarchies and options, and measured by the same utility module as every
method (:mod:`pandas_anon.anonymization.utility`): rows suppressed and modified, cells
modified, equivalence classes and the smallest, precision (where every column is written
along a hierarchy), discernibility (DM), C_avg, GCP, the largest prosecutor risk, and the
time it took. So global recoding, Mondrian and local recoding can be weighed on the table
they are meant for.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon import formatting
from pandas_anon.anonymization.kanon import anonymize
from pandas_anon.errors import InvalidParameterError

#: What :func:`compare` runs by default: global (optimal), Mondrian and local recoding.
DEFAULT_METHODS = ("ola", "mondrian", "local")


@dataclass(frozen=True, repr=False)
class Comparison:
    """The table of :func:`compare`: one row per method, its columns the figures."""

    table: pd.DataFrame = field(compare=False)
    k: int
    qid: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        table = self.table.reset_index(names="method").astype(object)
        return {
            "k": self.k,
            "qid": list(self.qid),
            # no figure is None, not NaN: the dict goes to JSON
            "table": table.where(table.notna(), None).to_dict(orient="records"),
        }

    def __repr__(self) -> str:
        shown = self.table.reset_index(names="method").astype(object)
        for column in ("precision", "C_avg", "GCP", "risk max"):
            shown[column] = [_number(v) for v in self.table[column]]
        return formatting.render(
            f"{self.k}-anonymity on {formatting.columns(self.qid)}: methods compared",
            [],
            ("", shown),
        )


def _number(value: float) -> str:
    """A figure to 4 decimals; '-' where a method has none (precision without hierarchies)."""
    return "-" if pd.isna(value) else f"{value:.4f}"


def compare(
    frame: pd.DataFrame,
    k: int,
    *,
    methods: Sequence[Any] = DEFAULT_METHODS,
    qid: Sequence[Hashable] | None = None,
    **options: Any,
) -> Comparison:
    """Run each of ``methods`` (names such as ``"ola"``, ``"mondrian"``, ``"local"``, or
    algorithm objects; each once) with the same ``k``, ``qid`` and ``options`` (hierarchies,
    max_suppression, metric, l, t, sensitive: as
    :func:`~pandas_anon.anonymization.kanon.kanon` takes them) and measure each
    release the same way (see the module). The quasi-identifier is elected once (by the
    first method, when ``qid`` is None) and given to the others.

    Examples
    --------
    >>> pandas_anon.compare(adult, 5, qid=qid, hierarchies=hierarchies)  # doctest: +SKIP
    """
    if isinstance(methods, str) or not len(methods):
        raise InvalidParameterError(
            f"methods must be a list of algorithms such as ['ola', 'mondrian', 'local'], "
            f"got {methods!r}"
        )
    rows: dict[str, dict[str, Any]] = {}
    chosen: list[Hashable] | None = list(qid) if qid is not None else None
    for method in methods:
        started = time.perf_counter()
        decided = anonymize(frame, k, qid=chosen, algo=method, **options)
        out = decided.apply(frame)
        seconds = time.perf_counter() - started
        report = out.anon.report()
        if chosen is None:  # elected once: the next methods get that quasi-identifier
            chosen = list(decided.qid)
            if options.get("hierarchies"):
                given = options["hierarchies"]
                options = {**options, "hierarchies": {c: given[c] for c in given if c in chosen}}
        name = method if isinstance(method, str) else report.algorithm
        if name in rows:
            raise InvalidParameterError(
                f"methods names {name!r} twice; give each method once (for two settings of "
                f"one algorithm, compare them in two calls)"
            )
        rows[name] = _figures(report, seconds)
    return Comparison(
        table=pd.DataFrame.from_dict(rows, orient="index"),
        k=k,
        qid=tuple(str(c) for c in chosen or ()),
    )


def _figures(report: Any, seconds: float) -> dict:
    """One method's row: what it changed and what it kept."""
    metrics = report.metrics
    return {
        "suppressed": report.suppressed,
        "modified rows": report.modified,
        "modified cells": sum(report.changed.values()),
        "classes": report.classes,
        "smallest class": report.k_reached,
        "precision": metrics.get("precision", np.nan),
        "DM": metrics["dm"],
        "C_avg": metrics["c_avg"],
        "GCP": metrics.get("gcp", np.nan),
        "risk max": report.risk["prosecutor_max"],
        "seconds": round(seconds, 3),
    }
