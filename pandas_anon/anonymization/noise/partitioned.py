"""(k, ε)-anonymity of a Dask frame: the plan of :mod:`.ke`, run where the partitions are.

Nothing here is a second implementation of (k, ε)-anonymity: each step hands a piece of the
frame to the :class:`~.ke.NoisePlan` methods that serve pandas frames, pieces chosen so that
each method sees what it needs.

1. **Classes.** The k-quasis are k-anonymized on the frame's digest
   (:func:`~pandas_anon.anonymization.kanon.anonymize` on a Dask frame); each combination's
   class is joined to the rows lazily, with each row's position in the frame.
2. **Diameters and domains.** Each class's minimum and maximum of each ε-quasi, counted
   where the partitions are (a ``groupby`` on the class): only one row per class reaches the
   client; with each ε-quasi's minimum and maximum, for its :class:`~.ke.Domain`
   (:func:`~.ke.domains`).
3. **Noise** is drawn in each partition as it is: the noise source draws each row's noise
   at the row's position in the frame (:class:`~.sources.SeededLaplace`), so the pieces get
   exactly the noise of the whole frame drawn at once, then post-processed
   (:meth:`~.ke.NoisePlan.post_process`: rounded, clamped) as the pandas path does.
4. **Linking and α-confidence** compare the records of one class: the rows are shuffled on
   their class (Dask's shuffle), each partition then holding whole classes, judged by
   :meth:`~.ke.NoisePlan.exposure`; the positions of the records α-confidence removes, and
   the linking counts, reach the client.
5. **The release** is written partition by partition (:meth:`~.ke.NoisePlan.release`) from
   the k-anonymized rows (written as :mod:`pandas_anon.engine.backends.dask` writes them) and
   the same draws; the report's figures are summed over the partitions in one pass. With
   ``shuffle`` the rows are put in the order of a random key drawn at their positions
   (the order the pandas path gives) and numbered 0, 1, ...

So the output, the report and every count equal those of the pandas path on the same rows
(the means of the report, sums of floats taken in another order, to the last bits).
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon.anonymization.noise.ke import (
    NoisePlan,
    ReleaseFigures,
    combination_classes,
    domains,
    floats,
    means,
    warn_utility,
)
from pandas_anon.anonymization.noise.sources import NoiseSource
from pandas_anon.anonymization.reports import attach, report_of
from pandas_anon.engine.backends import dask_backend

#: Columns added to a Dask frame's rows (each row's class and position, the flags and
#: figures of the release).
_CLASS = "__pandas_anon_class__"
_POSITION = "__pandas_anon_position__"
_SUPPRESSED = "__pandas_anon_suppressed__"
_MODIFIED = "__pandas_anon_modified__"
_KEY = "__pandas_anon_order__"
_BUCKET = "__pandas_anon_bucket__"


def planned(
    plan: NoisePlan, frame: Any, given: Mapping[Hashable, tuple[float, float]]
) -> NoisePlan:
    """``plan`` (its k-quasis k-anonymized on the Dask ``frame``) with the frame's rows
    joined to their classes, lazily, each class's diameter and each ε-quasi's domain (from
    the ``given`` bounds, or its observed range) (steps 1 and 2)."""
    backend = dask_backend()
    transformation = plan.transformation
    digest = transformation.digest
    keys = list(transformation.tabulation.frequencies.columns)
    per_row = combination_classes(transformation)[transformation.tabulation.row_combination]
    table = digest.frame[keys].assign(**{_CLASS: per_row, _SUPPRESSED: per_row < 0})
    if len(digest.frame.columns) > len(keys):
        table = table.drop_duplicates(keys, ignore_index=True)
    eps_quasi = list(plan.eps_quasi)
    read = backend.with_positions(frame[[*keys, *eps_quasi]], _POSITION)
    rows = backend.rewrite(
        read, keys, table, {_CLASS: _CLASS}, flag=_SUPPRESSED, then=_as_floats(eps_quasi)
    )
    classes = int(per_row.max()) + 1 if (per_row >= 0).any() else 0
    kept = rows[rows[_CLASS] >= 0]
    extremes, smallest, largest = backend.compute(
        kept.groupby(_CLASS)[eps_quasi].agg(["min", "max"]),
        rows[eps_quasi].min(),
        rows[eps_quasi].max(),
    )
    diameter = np.zeros(classes)
    for column in eps_quasi:
        low = extremes[(column, "min")].reindex(range(classes)).to_numpy(dtype=float)
        high = extremes[(column, "max")].reindex(range(classes)).to_numpy(dtype=float)
        diameter += np.where(high >= low, high - low, 0.0)  # a class without a value: 0
    smallest, largest = (np.asarray(found, dtype=float) for found in (smallest, largest))
    domain = domains(plan, given, smallest, largest)
    return replace(plan, diameter=diameter, rows=rows, domain=domain)


def predicted_loss(plan: NoisePlan) -> dict:
    """:meth:`~.ke.NoisePlan.predicted_loss` of a Dask frame's plan, summed over its
    partitions in one pass."""
    backend = dask_backend()
    per_row = backend.each_partition(plan.rows, _predicted, _template(plan))
    sums, counts = backend.compute(per_row.sum(), per_row.count())
    return means(plan.eps_quasi, sums.to_numpy(), counts.to_numpy())


def release(
    plan: NoisePlan,
    frame: Any,
    source: NoiseSource,
    alpha: float | None,
    *,
    shuffle: bool,
    suppress: str,
    salt: bytes | str | None,
) -> Any:
    """:meth:`~.ke.NoisePlan.apply` on the Dask frame the plan was decided on (steps 3 to
    5): a lazy Dask frame, its report computed."""
    started = time.perf_counter()
    backend = dask_backend()
    template = _template(plan)
    noised = backend.each_partition(plan.rows, _noised, template, source)
    exposures = backend.by_groups(noised, _CLASS, _judged, template, alpha)
    summaries = exposures[exposures["position"] < 0]
    removed = np.sort(exposures.loc[exposures["position"] >= 0, "position"].to_numpy())
    records = int(summaries["records"].sum())

    written = plan.transformation.apply(frame, suppress="mask", salt=salt)
    kanon = report_of(written).to_dict()
    divisions = backend.key_divisions(written.npartitions)
    full = backend.each_partition(
        written, _released, template, source, removed, divisions, beside=plan.rows
    )
    out = full[~full[_SUPPRESSED]] if suppress == "drop" else full
    m = len(plan.eps_quasi)
    predicted, measured = _columns("predicted", m), _columns("measured", m)
    released = _columns("released", m)
    figures_columns = [*predicted, *measured, *released]
    sums, counts, modified, k_suppressed, buckets = backend.compute(
        full[figures_columns].sum(),
        full[figures_columns].count(),
        full[_MODIFIED].sum(),
        (full[_CLASS] < 0).sum(),
        out[_BUCKET].value_counts(),
    )
    expected = means(plan.eps_quasi, sums[predicted].to_numpy(), counts[predicted].to_numpy())
    warn_utility(plan, expected)
    figures = ReleaseFigures(
        predicted=expected,
        measured=means(plan.eps_quasi, sums[measured].to_numpy(), counts[measured].to_numpy()),
        released=means(plan.eps_quasi, sums[released].to_numpy(), counts[released].to_numpy()),
        linking_risk=float(summaries["linked"].sum() / records) if records else 0.0,
        alpha_suppressed=len(removed),
        alpha_suppressed_classes=int(summaries["emptied"].sum()),
        rows=plan.transformation.digest.n_rows,
        suppressed=int(k_suppressed),
        modified=int(modified),
    )
    helpers = [*figures_columns, _SUPPRESSED, _MODIFIED, _CLASS, _BUCKET]
    if shuffle:
        per_part = buckets.reindex(range(len(divisions) - 1), fill_value=0).to_numpy()
        out = backend.sorted_by(out.drop(columns=helpers), _KEY, divisions, per_part)
    else:
        out = out.drop(columns=[*helpers, _KEY])
    return attach(out, plan.report(kanon, figures, alpha, source, shuffle, started))


def piece(template: NoisePlan, part: pd.DataFrame) -> NoisePlan:
    """The plan reading the rows of one piece of the frame: ``part`` of its rows."""
    return replace(
        template,
        row_class=part[_CLASS].to_numpy(dtype=np.int64),
        original=part[list(template.eps_quasi)].to_numpy(dtype=float),
    )


def _template(plan: NoisePlan) -> NoisePlan:
    """What the workers get of ``plan``: no rows of its own, not the Dask frame's, and its
    transformation without the weak references to the Arrow data it read (which do not
    travel, and which the workers do not read)."""
    transformation = plan.transformation
    tabulation = replace(transformation.tabulation, sources={})
    return replace(plan, rows=None, transformation=replace(transformation, tabulation=tabulation))


def _predicted(part: pd.DataFrame, template: NoisePlan) -> pd.DataFrame:
    """A piece's predicted relative errors, per row (NaN where undefined)."""
    found = piece(template, part).predicted_ratios()
    return pd.DataFrame(found, columns=_columns("predicted", found.shape[1]), index=part.index)


def _noised(part: pd.DataFrame, template: NoisePlan, source: NoiseSource) -> pd.DataFrame:
    """A piece's class, position, ε-quasis and their values as released (step 3)."""
    sub = piece(template, part)
    noisy = sub.post_process(sub.draw(source, part[_POSITION].to_numpy()))
    out = part[[_CLASS, _POSITION, *template.eps_quasi]]
    return out.assign(**dict(zip(_columns("noisy", noisy.shape[1]), noisy.T, strict=True)))


def _judged(part: pd.DataFrame, template: NoisePlan, alpha: float | None) -> pd.DataFrame:
    """Linking and α-confidence of a piece holding whole classes (step 4): a row of its
    linking counts and classes emptied (position -1), then the position of each record
    α-confidence removes."""
    noisy = part[_columns("noisy", len(template.eps_quasi))].to_numpy(dtype=float)
    exposure = piece(template, part).exposure(noisy, alpha)
    removed = part[_POSITION].to_numpy()[exposure.removed]
    summary = [-1, float(exposure.linked.sum()), len(exposure.linked), exposure.removed_classes]
    return pd.DataFrame(
        [summary, *([position, 0.0, 0, 0] for position in removed)],
        columns=["position", "linked", "records", "emptied"],
    ).astype({"position": np.int64, "linked": float, "records": np.int64, "emptied": np.int64})


def _released(
    out: pd.DataFrame,
    part: pd.DataFrame,
    template: NoisePlan,
    source: NoiseSource,
    removed_at: np.ndarray,
    divisions: np.ndarray,
) -> pd.DataFrame:
    """A piece of the release (step 5): ``out``, its k-quasis written, with the ε-quasis
    noised and post-processed (the same draws as :func:`_noised`) and the rows
    ``removed_at`` masked, and per row the figures and flags the report adds up and the
    random key of its place."""
    sub = piece(template, part)
    positions = part[_POSITION].to_numpy()
    noisy = sub.draw(source, positions)
    released = sub.post_process(noisy)
    keys = source.order_keys(positions)
    removed = np.isin(positions, removed_at)
    out, suppressed, modified = sub.release(
        out.copy(deep=False), part, released, removed, any_removed=len(removed_at) > 0
    )
    m = len(template.eps_quasi)
    figures = {
        **dict(zip(_columns("predicted", m), sub.predicted_ratios().T, strict=True)),
        **dict(zip(_columns("measured", m), sub.relative_errors(noisy, removed).T, strict=True)),
        **dict(zip(_columns("released", m), sub.relative_errors(released, removed).T, strict=True)),
    }
    return out.assign(
        **figures,
        **{
            _SUPPRESSED: suppressed,
            _MODIFIED: modified,
            _CLASS: sub.row_class,
            _KEY: keys,
            _BUCKET: np.searchsorted(divisions, keys, side="right") - 1,
        },
    )


def _as_floats(columns: list) -> Any:
    """A partition's ``columns`` as floats (missing and infinite values: NaN)."""

    def converted(part: pd.DataFrame) -> pd.DataFrame:
        values = floats(part, columns)
        return part.assign(**{c: values[:, j] for j, c in enumerate(columns)}) if columns else part

    return converted


def _columns(name: str, m: int) -> list[str]:
    """The helper columns of a per-row figure, one per ε-quasi."""
    return [f"__pandas_anon_{name}_{j}__" for j in range(m)]
