"""``df.anon.ke_anon(k, eps)``: (k, ε)-anonymity.

Holohan, Antonatos, Braghin and Mac Aonghusa (2017), "(k, ε)-Anonymity: k-Anonymity with
ε-Differential Privacy", section IV. The quasi-identifiers are split in two:

- the **k-quasis** are k-anonymized (:func:`~pandas_anon.anonymization.kanon.anonymize`:
  Mondrian by default, or the optimal full-domain search ``algo="ola"``), which groups the
  rows in equivalence classes of at least k;
- the **ε-quasis** (numeric) are made stochastically indistinguishable inside each class:
  every record of class C gets Laplace noise of scale b_C = Δ_C / ε on each ε-quasi, Δ_C
  being the class's L1 diameter (the sum over ε-quasis of max - min in C). The record is the
  unit: one scale for all its ε-quasis, never one per copy of an attribute. A class whose
  ε-quasis do not vary (Δ_C = 0) gets no noise. The rows are shuffled at the end (an order
  would tell which noisy record is which) and get a new index.

Information loss is known before any noise is drawn (section V-A): E|Lap(b)| = b, so the
expected relative error of a record is b_C / |x|, and of the table the mean of those over the
records (:meth:`NoisePlan.predicted_loss`). A record whose ε-quasi is 0 has no relative
error: it is left out of the predicted and of the measured figure alike.

Missing ε-quasi values stay missing and get no noise; they do not widen a class's diameter.
Suppressed rows (by the k-anonymity step, or by α-confident k-anonymity) have their
k-quasis written ``*`` and their ε-quasis missing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from pandas_anon.anonymization.kanon import anonymize
from pandas_anon.anonymization.noise import linking
from pandas_anon.anonymization.noise.sources import NoiseSource, noise_source, random_order
from pandas_anon.anonymization.reports import (
    KEAnonymizationReport,
    attach,
    column_keys,
    report_of,
)
from pandas_anon.anonymization.transformation import Transformation, not_decided
from pandas_anon.detect.exposure import SUPPRESSED, scan
from pandas_anon.detect.figures import candidate_columns
from pandas_anon.engine.backends import is_dask
from pandas_anon.engine.columns import require_columns, require_data, resolve_columns
from pandas_anon.engine.encoding import factorize_objects
from pandas_anon.errors import AllMissingColumnError, InvalidParameterError, InvalidQIDError
from pandas_anon.params import flag, fraction, known_options, one_of, real, whole
from pandas_anon.progress import with_distributed_progress


@dataclass(frozen=True)
class Exposure:
    """What a noisy release gives away: ``linked``, each complete kept record's chance of a
    nearest-neighbour link to itself; ``removed``, per row, whether α-confident k-anonymity
    suppresses it; ``removed_classes``, the classes it empties."""

    linked: np.ndarray
    removed: np.ndarray
    removed_classes: int

    @property
    def linking_risk(self) -> float:
        """The share of records the nearest-neighbour attack links to themselves."""
        return float(self.linked.mean()) if len(self.linked) else 0.0


@dataclass(frozen=True)
class NoisePlan:
    """(k, ε)-anonymity decided, before any noise is drawn.

    ``transformation``: the k-anonymization of the k-quasis; ``row_class``: each row's class
    (-1: suppressed); ``original``: the ε-quasis as floats, one column each (NaN: missing);
    ``diameter``: each class's L1 diameter Δ_C.
    """

    transformation: Transformation
    k: int
    eps: float
    k_quasi: tuple[Hashable, ...]
    eps_quasi: tuple[Hashable, ...]
    row_class: np.ndarray
    original: np.ndarray
    diameter: np.ndarray
    choices: Mapping[str, str]
    #: a Dask frame's rows (lazy: the k-quasis, the ε-quasis as floats, each row's class
    #: and position; :mod:`.partitioned`), whose pieces the plan reads one at a time; None
    #: when ``row_class`` and ``original`` are the frame's rows
    rows: Any = None

    @property
    def scale(self) -> np.ndarray:
        """Each class's Laplace scale b_C = Δ_C / ε."""
        return self.diameter / self.eps

    def with_eps(self, eps: float) -> NoisePlan:
        """The same classes with another ε (the k-anonymization is not run again)."""
        eps = real(eps, "eps", low=0, above=True, example=1)
        if not _finite_scales(self.diameter, eps):
            raise InvalidParameterError(
                f"eps={eps!r} is too small for these values: a class's noise scale Δ/ε "
                f"overflows floating point; use a larger eps"
            )
        return replace(self, eps=eps)

    def row_scale(self) -> np.ndarray:
        """Each row's Laplace scale (0 for a suppressed row)."""
        kept = self.row_class >= 0
        return np.where(kept, self.scale[np.maximum(self.row_class, 0)], 0.0)

    def predicted_loss(self) -> dict[Hashable, float]:
        """The expected mean relative error ``|noisy - x| / |x|`` of each ε-quasi (and their
        ``"mean"``), exact before noise: the mean over the records of ``b_C / |x|`` (section
        V-A: b_C over the harmonic mean of ``|x|`` in C, weighted by the class sizes)."""
        if self.rows is not None:
            from pandas_anon.anonymization.noise import partitioned  # a Dask frame's

            return partitioned.predicted_loss(self)
        return means(self.eps_quasi, *_sums(self.predicted_ratios()))

    def predicted_ratios(self) -> np.ndarray:
        """Per row and ε-quasi, ``b_C / |x|``, what :meth:`predicted_loss` averages (NaN where
        the relative error is undefined: suppressed, missing or 0)."""
        scale = self.row_scale()
        ratios = np.full_like(self.original, np.nan)
        for j in range(len(self.eps_quasi)):
            measured = self._relative(j)
            ratios[measured, j] = scale[measured] / np.abs(self.original[measured, j])
        return ratios

    def relative_error(
        self, noisy: np.ndarray, removed: np.ndarray | None = None
    ) -> dict[Hashable, float]:
        """The measured mean relative error ``|noisy - x| / |x|`` of each ε-quasi (and their
        ``"mean"``) over the rows :meth:`predicted_loss` averages (the figure it predicts),
        less the ``removed`` ones (α-confidence's: not released)."""
        return means(self.eps_quasi, *_sums(self.relative_errors(noisy, removed)))

    def relative_errors(self, noisy: np.ndarray, removed: np.ndarray | None = None) -> np.ndarray:
        """Per row and ε-quasi, ``|noisy - x| / |x|``, what :meth:`relative_error` averages
        (NaN where undefined or ``removed``)."""
        errors = np.full_like(self.original, np.nan)
        for j in range(len(self.eps_quasi)):
            rows = self._relative(j) if removed is None else self._relative(j) & ~removed
            original = self.original[rows, j]
            errors[rows, j] = np.abs(noisy[rows, j] - original) / np.abs(original)
        return errors

    def _relative(self, j: int) -> np.ndarray:
        """The rows whose relative error on ε-quasi ``j`` is defined: kept, present, not 0."""
        values = self.original[:, j]
        return (self.row_class >= 0) & ~np.isnan(values) & (values != 0)

    def apply(
        self,
        frame: pd.DataFrame,
        source: NoiseSource,
        *,
        alpha: float | None = None,
        shuffle: bool = True,
        suppress: str = "mask",
        salt: bytes | str | None = None,
    ) -> pd.DataFrame:
        """The release: the k-quasis written, the ε-quasis noised from ``source``, the rows
        α-confidence suppresses masked (or left out with ``suppress="drop"``), the rows
        shuffled (with a new index), and the report attached. ``salt``: the key of
        ``identifiers="hash"`` (:func:`~pandas_anon.anonymization.kanon.kanon`)."""
        started = time.perf_counter()
        level = _release_options(alpha, shuffle, suppress)
        if self.rows is not None or is_dask(frame):
            if self.rows is None or not is_dask(frame):
                raise InvalidParameterError(
                    "this plan was decided on a "
                    f"{'pandas' if self.rows is None else 'Dask'} frame: apply it to that frame"
                )
            from pandas_anon.anonymization.noise import partitioned  # a Dask frame's

            return partitioned.release(
                self, frame, source, level, shuffle=shuffle, suppress=suppress, salt=salt
            )
        out = self.transformation.apply(frame, suppress="mask", salt=salt)  # k-quasis checked
        self._check_eps_quasis(frame)
        noisy = self.draw(source)
        exposure = self.exposure(noisy, level)
        out, suppressed, modified = self.release(out, frame, noisy, exposure.removed)
        if suppress == "drop":
            out = out.loc[~suppressed]
        if shuffle:
            positions = np.flatnonzero(~suppressed) if suppress == "drop" else None
            order = random_order(source, np.arange(len(out)) if positions is None else positions)
            out = out.iloc[order].reset_index(drop=True)
        figures = ReleaseFigures(
            predicted=self.predicted_loss(),
            measured=self.relative_error(noisy, exposure.removed),
            linking_risk=exposure.linking_risk,
            alpha_suppressed=int(exposure.removed.sum()),
            alpha_suppressed_classes=exposure.removed_classes,
            rows=len(self.row_class),
            suppressed=int((self.row_class < 0).sum()),
            modified=int(modified.sum()),
        )
        kanon = report_of(out).to_dict()  # the k-quasis' report, written by apply
        return attach(out, self.report(kanon, figures, level, source, shuffle, started))

    def _check_eps_quasis(self, frame: pd.DataFrame) -> None:
        """Refuse a frame whose ε-quasis hold other values than those the plan drew its
        noise scales for (its noise is drawn around those values, row by row)."""
        changed = [
            column
            for j, column in enumerate(self.eps_quasi)
            if not np.array_equal(_floats(frame[column]), self.original[:, j], equal_nan=True)
        ]
        if changed:
            raise not_decided(
                f"its ε-quasi{'s' if len(changed) > 1 else ''} "
                f"{', '.join(map(repr, changed))} hold other values than the frame this plan "
                f"was decided on"
            )

    def release(
        self,
        out: pd.DataFrame,
        frame: pd.DataFrame,
        noisy: np.ndarray,
        removed: np.ndarray,
        any_removed: bool | None = None,
    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """``out`` (the k-quasis written, rows as the plan's) with the rows α-confidence
        ``removed`` masked in the k-quasis (when any row of the release is:
        ``any_removed``, default: one of these), the ε-quasis written ``noisy`` (missing on
        suppressed rows); and per row, whether it is suppressed, and modified from
        ``frame``."""
        suppressed = (self.row_class < 0) | removed
        for column in (
            self.k_quasi if (removed.any() if any_removed is None else any_removed) else ()
        ):
            out[column] = out[column].astype(object).where(~removed, SUPPRESSED)
        modified = suppressed | _changed(out, frame, self.k_quasi)
        for j, column in enumerate(self.eps_quasi):
            out[column] = np.where(suppressed, np.nan, noisy[:, j])
            modified |= ~suppressed & (noisy[:, j] != self.original[:, j]) & ~np.isnan(noisy[:, j])
        return out, suppressed, modified

    def draw(self, source: NoiseSource, positions: np.ndarray | None = None) -> np.ndarray:
        """The ε-quasis noised from ``source`` (rows as the input's, one column per
        ε-quasi; NaN where missing or suppressed), each row's draws at its position in the
        frame (``positions``; default: the rows are the frame's, in order)."""
        scale = self.row_scale()
        at = np.arange(len(self.row_class)) if positions is None else positions
        noisy = np.full_like(self.original, np.nan)
        for j in range(len(self.eps_quasi)):
            present = (self.row_class >= 0) & ~np.isnan(self.original[:, j])
            noisy[present, j] = source.perturb(
                self.original[present, j], scale[present], at[present], j
            )
        return noisy

    def exposure(self, noisy: np.ndarray, alpha: float | None = None) -> Exposure:
        """What the ``noisy`` ε-quasis (from :meth:`draw`) still give away: each record's
        chance of a nearest-neighbour link (records with every ε-quasi present), and with
        ``alpha`` the records α-confident k-anonymity removes (section V-B and V-C;
        :mod:`.linking`): each record is judged on the ε-quasis it holds, against the
        originals of its class holding them too, in a box of confidence α."""
        kept = self.row_class >= 0
        missing = np.isnan(self.original)
        complete = kept & ~missing.any(axis=1)
        group = self.row_class[complete]
        linked = linking.linked(group, self.original[complete], noisy[complete])
        removed = np.zeros(len(self.row_class), dtype=bool)
        removed_classes = 0
        if alpha is not None:
            scale = self.row_scale()
            patterns, pattern_of = np.unique(missing, axis=0, return_inverse=True)
            pattern_of = pattern_of.reshape(-1)
            for at, pattern in enumerate(patterns):
                held = np.flatnonzero(~pattern)
                # the originals holding those ε-quasis: the records of this pattern among them
                holding = np.flatnonzero(kept & ~missing[:, held].any(axis=1))
                judged = pattern_of[holding] == at
                if not len(held) or not judged.any():
                    continue
                count = linking.within(
                    self.row_class[holding],
                    self.original[np.ix_(holding, held)],
                    noisy[np.ix_(holding, held)],
                    scale[holding] * _box_half_width(alpha, len(held)),
                )
                removed[holding[judged & (count >= 1) & (count < self.k)]] = True
            removed, removed_classes = self._whole_classes(removed)
        return Exposure(linked, removed, removed_classes)

    def _whole_classes(self, removed: np.ndarray) -> tuple[np.ndarray, int]:
        """``removed`` widened to every row of a class left with fewer than k rows."""
        n = len(self.diameter)
        kept = (self.row_class >= 0) & ~removed
        left = np.bincount(self.row_class[kept], minlength=n)
        had = np.bincount(self.row_class[self.row_class >= 0], minlength=n)
        emptied = (left < self.k) & (had > 0)
        member = self.row_class >= 0
        return removed | (member & emptied[np.maximum(self.row_class, 0)]), int(emptied.sum())

    def report(
        self,
        kanon: dict[str, Any] | None,
        figures: ReleaseFigures,
        alpha: float | None,
        source: NoiseSource,
        shuffle: bool,
        started: float,
    ) -> KEAnonymizationReport:
        """The release's report, from its ``figures`` (measured on its rows)."""
        keys = column_keys([*self.k_quasi, *self.eps_quasi])

        def keyed(found: Mapping[Hashable, float]) -> dict[str, float]:
            return {(keys[c] if c != "mean" else "mean"): value for c, value in found.items()}

        classes = self.diameter
        return KEAnonymizationReport(
            k=self.k,
            eps=self.eps,
            k_quasi=[keys[c] for c in self.k_quasi],
            eps_quasi=[keys[c] for c in self.eps_quasi],
            algorithm=self.transformation.method,
            rows=figures.rows,
            classes=len(classes),
            suppressed=figures.suppressed,
            diameter=_summary(classes),
            scale=_summary(classes / self.eps),
            noiseless_classes=int((classes == 0).sum()),
            predicted_loss=keyed(figures.predicted),
            relative_error=keyed(figures.measured),
            linking_risk=figures.linking_risk,
            alpha=alpha,
            alpha_suppressed=figures.alpha_suppressed,
            alpha_suppressed_classes=figures.alpha_suppressed_classes,
            random_source=source.description,
            shuffled=shuffle,
            kanon=kanon or {},
            choices=dict(self.choices),
            seconds=round(time.perf_counter() - started, 4),
            modified=figures.modified,
        )


@dataclass(frozen=True)
class ReleaseFigures:
    """What a release's report measures on its rows: the predicted and measured relative
    errors per ε-quasi (and their ``"mean"``), the linking risk, the rows α-confidence
    removes and the classes it empties, the rows, those the k-anonymization suppressed, and
    those modified."""

    predicted: dict[Hashable, float]
    measured: dict[Hashable, float]
    linking_risk: float
    alpha_suppressed: int
    alpha_suppressed_classes: int
    rows: int
    suppressed: int
    modified: int


@with_distributed_progress
def ke_decide(
    frame: pd.DataFrame,
    k: int,
    eps: float,
    *,
    qid: Sequence[Hashable] | None = None,
    eps_quasi: Sequence[Hashable] | None = None,
    algo: Any = "mondrian",
    hierarchies: Mapping[Any, Any] | None = None,
    max_suppression: float | str = 0.0,
    identifiers: str = "drop",
    progress: bool | None = None,
) -> NoisePlan:
    """Decide the (k, ε)-anonymization of ``frame``, before any noise is drawn.

    The quasi-identifiers are split in two [1]_: the k-quasis are k-anonymized
    (:func:`~pandas_anon.anonymization.kanon.anonymize`; Mondrian [2]_ by default), which
    groups the rows in equivalence classes of at least k; the ε-quasis, numeric, are to be
    noised in each class C with Laplace noise of scale b_C = Δ_C / ε, Δ_C being the class's
    L1 diameter (the sum over ε-quasis of max - min in C; missing values left out). The plan
    holds the k-anonymization, each row's class, and each class's diameter and noise scale;
    :meth:`NoisePlan.predicted_loss` is exact already (section V-A of [1]_), and
    :meth:`NoisePlan.apply` draws the noise and writes the release (what :func:`ke_anon`
    does).

    Parameters
    ----------
    frame : pandas.DataFrame or dask.dataframe.DataFrame
        The table to plan for. It is not modified.
    k : int
        The smallest class of the k-quasis: a whole number of at least 1.
    eps : float
        ε, a finite number above 0: a class's noise scale is its diameter over ε (smaller ε,
        more noise).
    qid : sequence of hashable, optional
        The quasi-identifiers, k-quasis and ε-quasis together; to be named. Default None:
        refused with an :class:`InvalidQIDError` naming the gate's election as a start,
        since no (k, ε) release passes the gate's rule as zero-configuration ``kanon``'s
        does (the noise leaves each ε-quasi with a distinct value on nearly every row, which
        ``pandas-anon check`` counts as a direct identifier).
    eps_quasi : sequence of hashable, optional
        The numeric quasi-identifiers to noise, all in ``qid``; the others are the k-quasis.
        Default None: every numeric (not boolean) quasi-identifier, which the plan's
        ``choices`` say.
    algo : str or Algorithm, default "mondrian"
        The k-anonymization of the k-quasis: ``"mondrian"``, ``"ola"`` (the optimal
        full-domain search), or any algorithm ``anonymize`` takes.
    hierarchies : mapping, optional
        ``{column: hierarchy}`` for k-quasis, as ``anonymize`` takes them; an ε-quasi takes
        none. Default None.
    max_suppression : float or str, default 0.0
        The share of the rows the k-anonymization may suppress, as ``anonymize`` takes it.
    identifiers : {"drop", "hash", "keep"}, default "drop"
        What becomes of the direct identifier columns outside ``qid``, as ``anonymize``
        takes it.
    progress : bool, optional
        A progress line on stderr during a long k-anonymization search. Default None: only
        when stderr is a terminal.

    Returns
    -------
    NoisePlan
        ``transformation`` (the k-anonymization of the k-quasis), ``k``, ``eps``,
        ``k_quasi`` and ``eps_quasi``, ``row_class`` (each row's class, -1 for a suppressed
        row), ``original`` (the ε-quasis as floats, NaN where missing), ``diameter`` (each
        class's Δ_C), ``scale`` (each class's b_C) and ``choices`` (what zero configuration
        chose, and why). ``with_eps(eps)`` gives the same classes with another ε, without
        k-anonymizing again.

    Raises
    ------
    InvalidParameterError
        When ``k`` or ``eps`` is out of range, or ``eps`` is so small that a class's scale
        Δ/ε overflows floating point; an ε-quasi is not in ``qid``, does not hold real
        numbers (text, objects, complex numbers) or is named ``"mean"``; every
        quasi-identifier is an ε-quasi (no column is left to k-anonymize); no
        quasi-identifier is numeric (with ``eps_quasi=None``); a hierarchy is given for an
        ε-quasi; and for the arguments ``anonymize`` refuses (``algo``,
        ``hierarchies``, ``max_suppression``, ``identifiers``).
    AllMissingColumnError
        When an ε-quasi, or a k-quasi, holds only missing values.
    ColumnNotFoundError, InvalidQIDError, DuplicateColumnsError
        When ``qid`` is not given, or ``qid`` or ``eps_quasi`` name a column that is not in
        the frame, name one twice, are empty, or name a label several columns share.
    EmptyDataError
        When the frame has no column, or (a pandas frame) no row.
    HierarchyError, UnknownNameError, InfeasibleError
        From the k-anonymization of the k-quasis, as :func:`anonymize` raises them.

    Warns
    -----
    OneClassWarning, IdentifierWarning, HierarchyFallbackWarning
        From the k-anonymization of the k-quasis, as :func:`anonymize` warns.

    See Also
    --------
    ke_anon : Decide and release at once.
    pandas_anon.ke_plan : The figures of a grid of (k, ε) before publishing.
    pandas_anon.anonymize : The k-anonymization of the k-quasis.

    Notes
    -----
    On a Dask frame the k-quasis are k-anonymized on the frame's digest, and the plan keeps
    the frame's rows lazily (``plan.rows``): each row's class is joined to them where the
    partitions are, and each class's diameter is counted there (docs/dask.md).

    References
    ----------
    .. [1] N. Holohan, S. Antonatos, S. Braghin and P. Mac Aonghusa, "(k, ε)-Anonymity:
       k-Anonymity with ε-Differential Privacy", IBM Research, 2017, sections IV and V-A.
    .. [2] K. LeFevre, D. J. DeWitt and R. Ramakrishnan, "Mondrian Multidimensional
       k-Anonymity", ICDE 2006.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame({
    ...     "sex": ["F", "F", "F", "M", "M", "M"],
    ...     "height": [160.0, 165.0, 170.0, 175.0, 180.0, 185.0],
    ... })
    >>> plan = pandas_anon.ke_decide(df, 3, 1.0, qid=["sex", "height"])
    >>> plan.k_quasi, plan.eps_quasi
    (('sex',), ('height',))
    >>> plan.row_class.tolist()
    [0, 0, 0, 1, 1, 1]
    >>> plan.diameter.tolist(), plan.scale.tolist()
    ([10.0, 10.0], [10.0, 10.0])
    >>> round(plan.predicted_loss()["height"], 4)
    0.0581
    >>> plan.with_eps(10).scale.tolist()
    [1.0, 1.0]
    """
    if is_dask(frame):
        require_columns(frame)  # its rows are counted as it is read
    else:
        require_data(frame)
    k = whole(k, "k", example=5)
    eps = real(eps, "eps", low=0, above=True, example=1)
    choices: dict[str, str] = {}
    qid, eps_quasi = _quasis(frame, k, qid, eps_quasi, choices)
    k_quasi = tuple(c for c in qid if c not in eps_quasi)
    if not k_quasi:
        raise InvalidParameterError(
            f"every quasi-identifier of {list(qid)} is an ε-quasi, so no column is left to "
            f"k-anonymize and every row would be one class; keep a categorical column in qid, "
            f"or noise fewer columns (eps_quasi=)"
        )
    noised = [c for c in (hierarchies or {}) if c in eps_quasi]
    if noised:
        raise InvalidParameterError(
            f"hierarchies given for the ε-quasi {noised!r}: an ε-quasi is noised, not "
            f"generalized; remove it from eps_quasi to generalize it, or drop its hierarchy"
        )
    transformation = anonymize(
        frame.drop(columns=list(eps_quasi)),
        k,
        qid=k_quasi,
        algo=algo,
        hierarchies=hierarchies,
        max_suppression=max_suppression,
        identifiers=identifiers,
        progress=progress,
    )
    plan = NoisePlan(
        transformation=transformation,
        k=k,
        eps=eps,
        k_quasi=k_quasi,
        eps_quasi=eps_quasi,
        row_class=np.zeros(0, dtype=np.int64),
        original=np.zeros((0, len(eps_quasi))),
        diameter=np.zeros(0),
        choices=choices,
    )
    if is_dask(frame):  # the rows stay where the partitions are
        from pandas_anon.anonymization.noise import partitioned

        plan = partitioned.planned(plan, frame)
    else:
        row_class = combination_classes(transformation)[transformation.tabulation.row_combination]
        original = np.column_stack([_floats(frame[c]) for c in eps_quasi])
        plan = replace(
            plan,
            row_class=row_class,
            original=original,
            diameter=_diameters(row_class, original),
        )
    if not _finite_scales(plan.diameter, eps):
        raise InvalidParameterError(
            f"eps={eps!r} is too small for these values: a class's noise scale Δ/ε overflows "
            f"floating point; use a larger eps"
        )
    return plan


def ke_anon(
    frame: Any,
    k: int,
    eps: float,
    *,
    alpha: float | str | None = None,
    seed: int | None = None,
    secure: bool = False,
    shuffle: bool = True,
    suppress: str = "mask",
    salt: bytes | str | None = None,
    **options: Any,
) -> Any:
    """Return a (k, ε)-anonymous copy of ``frame``.

    The quasi-identifiers are split in two [1]_ (see the module): the k-quasis are made
    k-anonymous (:func:`ke_decide`), and the ε-quasis, numeric, are noised in each class C
    with Laplace noise of scale Δ_C / ε, Δ_C being the class's L1 diameter (a class whose
    ε-quasis do not vary gets none). The rows are then shuffled, with a new index
    (``shuffle=False`` keeps the order and index: an order may tell which record is which).
    The report travels with the output: ``out.anon.report()``, with the information loss
    predicted before the noise and measured after it, and the linking risk (sections V-A and
    V-B of [1]_).

    Missing ε-quasi values stay missing and get no noise. Suppressed rows (by the
    k-anonymity step, or by α-confident k-anonymity) have their k-quasis written ``*`` and
    their ε-quasis missing; ε-quasis come out as floats.

    Parameters
    ----------
    frame : pandas.DataFrame or dask.dataframe.DataFrame
        The table to release. It is not modified.
    k : int
        The smallest class of the k-quasis: a whole number of at least 1.
    eps : float
        ε, a finite number above 0: the noise of a class is its diameter over ε.
    alpha : float or str, optional
        α-confident k-anonymity (section V-C of [1]_): a confidence strictly between 0 and 1
        such as 0.99 (or text such as ``"99%"``). Records that an interval of that
        confidence around their noisy values tells apart among fewer than k originals of
        their class are suppressed, then the classes left with fewer than k records.
        Default None: none.
    seed : int, optional
        Reproducible research noise: numpy's Philox generator, each row's draws at its
        position (the same noise however the frame is cut into pieces). A whole number of at
        least 0. Default None: fresh entropy. Excludes ``secure=True``.
    secure : bool, default False
        True: OpenDP's floating-point-safe sampler, for a release [2]_ [3]_
        (:mod:`~pandas_anon.anonymization.noise.sources`; ``pip install 'pandas-anon[dp]'``).
    shuffle : bool, default True
        Whether to shuffle the rows and give them a new index ``0, 1, ...``.
    suppress : {"mask", "drop"}, default "mask"
        ``"mask"``: suppressed rows stay in the output (k-quasis ``*``, ε-quasis missing);
        ``"drop"``: they are left out.
    salt : bytes or str, optional
        The key of ``identifiers="hash"``. Default None: a random one, never stored.
    **options
        The options of :func:`ke_decide`, passed to it: ``qid``, ``eps_quasi``, ``algo``
        (default ``"mondrian"``), ``hierarchies``, ``max_suppression``, ``identifiers`` and
        ``progress``.

    Returns
    -------
    pandas.DataFrame or dask.dataframe.DataFrame
        The release, its report attached (``out.anon.report()``, a
        :class:`~pandas_anon.anonymization.reports.KEAnonymizationReport`: the k-quasis and
        ε-quasis, the classes, the diameters and noise scales, the predicted and measured
        relative errors, the linking risk, the α-confident suppressions, the random source
        (never a seed) and the k-anonymization's own report). On a Dask frame: a lazy Dask
        frame, its report computed.

    Raises
    ------
    InvalidParameterError
        When ``alpha`` is not a confidence strictly between 0 and 1, ``shuffle`` or
        ``secure`` is not True or False, ``suppress`` is neither ``"mask"`` nor ``"drop"``,
        ``seed`` is not a whole number of at least 0 or comes with ``secure=True``; and for
        every argument :func:`ke_decide` refuses (``k``, ``eps``, ``qid``, ``eps_quasi``,
        the k-anonymization's options).
    MissingDependencyError
        When ``secure=True`` and OpenDP is not installed.
    AllMissingColumnError, ColumnNotFoundError, InvalidQIDError, DuplicateColumnsError,
    EmptyDataError, HierarchyError, UnknownNameError, InfeasibleError
        As :func:`ke_decide` raises them (the plan is decided first).

    Warns
    -----
    OneClassWarning, IdentifierWarning, HierarchyFallbackWarning
        As :func:`ke_decide` warns.

    See Also
    --------
    ke_decide : The plan alone, before any noise.
    pandas_anon.ke_plan : The figures of a grid of (k, ε) before publishing.
    pandas_anon.kanon : k-anonymity alone, every quasi-identifier generalized.

    Notes
    -----
    On a Dask frame the output is a lazy Dask frame (the report computed) equal to the
    pandas path's on the same rows: the classes are decided on the frame's digest, the noise
    is drawn where the partitions are, and linking and α-confidence compare the records of
    each class after a shuffle on the class (:mod:`.partitioned`).

    No report records the seed; seeded noise is for research and tests, not for a release:
    someone holding the original values can try seeds until the release comes out again.
    Publish with ``secure=True``.

    References
    ----------
    .. [1] N. Holohan, S. Antonatos, S. Braghin and P. Mac Aonghusa, "(k, ε)-Anonymity:
       k-Anonymity with ε-Differential Privacy", IBM Research, 2017, sections IV and V.
    .. [2] I. Mironov, "On Significance of the Least Significant Bits for Differential
       Privacy", CCS 2012.
    .. [3] N. Holohan and S. Braghin, "Secure Random Sampling in Differential Privacy",
       ESORICS 2021.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame({
    ...     "sex": ["F", "F", "F", "M", "M", "M"],
    ...     "height": [160.0, 165.0, 170.0, 175.0, 180.0, 185.0],
    ... })
    >>> out = pandas_anon.ke_anon(df, 3, 1.0, qid=["sex", "height"], seed=0)
    >>> len(out), sorted(out["sex"])
    (6, ['F', 'F', 'F', 'M', 'M', 'M'])
    >>> report = out.anon.report()
    >>> report.k_quasi, report.eps_quasi, report.classes
    (['sex'], ['height'], 2)
    >>> report.scale
    {'min': 10.0, 'median': 10.0, 'max': 10.0}

    The same seed gives the same release:

    >>> out.equals(pandas_anon.ke_anon(df, 3, 1.0, qid=["sex", "height"], seed=0))
    True
    """
    known_options(options, "ke_anon", [ke_decide])
    level = _release_options(alpha, shuffle, suppress)  # refused before the long step
    source = noise_source(seed, secure)
    plan = ke_decide(frame, k, eps, **options)
    return plan.apply(frame, source, alpha=level, shuffle=shuffle, suppress=suppress, salt=salt)


def _release_options(alpha: object, shuffle: object, suppress: object) -> float | None:
    """The options of a release checked: α as a confidence (None: not asked)."""
    one_of(suppress, "suppress", ("mask", "drop"))
    flag(shuffle, "shuffle")
    return None if alpha is None else confidence(alpha)


def confidence(alpha: object) -> float:
    """α as a float strictly between 0 and 1."""
    found = fraction(alpha, "alpha")
    if not 0 < found < 1:
        raise InvalidParameterError(
            f"alpha must be a confidence strictly between 0 and 1 such as 0.99, got {alpha!r}"
        )
    return found


def _quasis(
    frame: pd.DataFrame,
    k: int,
    qid: Sequence[Hashable] | None,
    eps_quasi: Sequence[Hashable] | None,
    choices: dict[str, str],
) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...]]:
    """The quasi-identifiers and the ε-quasis among them, checked (``choices``: what was
    chosen for the caller, and why)."""
    chosen = None if eps_quasi is None else resolve_columns(frame, eps_quasi)
    if qid is None:
        raise _no_zero_configuration(frame, k, chosen)
    found = resolve_columns(frame, qid)
    outside = [c for c in chosen or () if c not in found]
    if outside:
        raise InvalidParameterError(
            f"eps_quasi {outside!r} not in qid {list(found)!r}: the ε-quasis are "
            f"quasi-identifiers too; add them to qid"
        )
    if chosen is None:
        chosen = tuple(c for c in found if _is_number(frame[c]))
        if not chosen:
            raise InvalidParameterError(
                f"no numeric column among the quasi-identifiers {list(found)!r} to noise; "
                f"name the ε-quasis (eps_quasi=) or use kanon"
            )
        choices["eps_quasi"] = f"the numeric quasi-identifiers: {', '.join(map(str, chosen))}"
    for column in chosen:
        if column == "mean":
            raise InvalidParameterError(
                "an ε-quasi named 'mean' would hide the report's mean over the ε-quasis; "
                "rename the column (df.rename(columns={'mean': ...}))"
            )
        dtype = frame[column].dtype
        if pd.api.types.is_complex_dtype(dtype):
            raise InvalidParameterError(
                f"ε-quasi {column!r} holds complex numbers ({dtype}): Laplace noise needs real "
                f"numbers, and reading these as real would drop their imaginary part; split "
                f"the column into two real ones (its .real and .imag parts) to noise them, or "
                f"name the ε-quasis without it (eps_quasi=)"
            )
        if not _is_number(frame[column]):
            raise InvalidParameterError(
                f"ε-quasi {column!r} holds {dtype} values, not numbers: Laplace noise needs a "
                f"numeric column; convert it (pd.to_numeric) if it holds numbers, or "
                f"k-anonymize it instead (leave it out of eps_quasi)"
            )
    held = candidate_columns(frame[list(chosen)], None)  # those holding a value, in one pass
    for column in chosen:
        if column not in held:
            raise AllMissingColumnError(
                f"ε-quasi {column!r} holds only missing values: there is nothing to noise; "
                f"remove it from eps_quasi"
            )
    return found, tuple(chosen)


def _no_zero_configuration(
    frame: pd.DataFrame, k: int, eps_quasi: Sequence[Hashable] | None
) -> InvalidQIDError:
    """The error of a call without ``qid``: no (k, ε) release passes the gate's rule (an
    ε-quasi's noise leaves a distinct value on nearly every row, which the rule counts as a
    direct identifier), so zero configuration cannot promise what zero-configuration
    ``kanon`` does; the error names the gate's election as a start."""
    elected = list(scan(frame[list(candidate_columns(frame, None))], k=max(k, 2)).qid)
    named = [*elected, *(c for c in eps_quasi or () if c not in elected)]
    noised = list(eps_quasi) if eps_quasi else [c for c in named if _is_number(frame[c])]
    start = f"qid={named!r}" + (f", eps_quasi={noised!r}" if noised else "")
    return InvalidQIDError(
        f"ke_anon needs qid= (--qid): without it, no (k, ε) release passes pandas-anon check "
        f"--k {k}, since the noise leaves each ε-quasi with a distinct value on nearly every "
        f"row, which the gate counts as a direct identifier. Name the quasi-identifiers and "
        f"the ε-quasis (the gate's election would give {start}) and check the release with "
        f"pandas-anon check --qid <the k-quasis>; or use "
        f"kanon({k}), whose zero-configuration release passes pandas-anon check --k {k}"
    )


def _is_number(series: pd.Series) -> bool:
    dtype = series.dtype
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def floats(part: pd.DataFrame, columns: Sequence[Hashable]) -> np.ndarray:
    """The ``columns`` of ``part`` as floats, one column each (missing, infinite: NaN)."""
    return (
        np.column_stack([_floats(part[c]) for c in columns])
        if columns
        else np.zeros((len(part), 0))
    )


def _floats(series: pd.Series) -> np.ndarray:
    """A numeric column as floats, missing (and infinite) values as NaN."""
    values = series.to_numpy(dtype=float, na_value=np.nan)
    return np.where(np.isfinite(values), values, np.nan)


def combination_classes(transformation: Transformation) -> np.ndarray:
    """Each combination's output class (-1: suppressed), the kept classes numbered 0.."""
    label, _ = transformation.output_classes()
    kept = ~transformation.suppressed
    per_combination = np.full(len(label), -1, dtype=np.int64)
    # a label only suppressed combinations carry is no class
    per_combination[kept] = np.unique(label[kept], return_inverse=True)[1].reshape(-1)
    return per_combination


def _diameters(row_class: np.ndarray, original: np.ndarray) -> np.ndarray:
    """Each class's L1 diameter: the sum over ε-quasis of max - min (missing values left
    out; a class without a value of an ε-quasi adds 0)."""
    n = int(row_class.max()) + 1 if (row_class >= 0).any() else 0
    diameter = np.zeros(n)
    for j in range(original.shape[1]):
        present = (row_class >= 0) & ~np.isnan(original[:, j])
        low = np.full(n, np.inf)
        high = np.full(n, -np.inf)
        np.minimum.at(low, row_class[present], original[present, j])
        np.maximum.at(high, row_class[present], original[present, j])
        diameter += np.where(high >= low, high - low, 0.0)
    return diameter


def _finite_scales(diameter: np.ndarray, eps: float) -> bool:
    """Whether every class's scale Δ/ε is a finite float (a tiny ε overflows it)."""
    with np.errstate(over="ignore"):
        return bool(np.isfinite(diameter / eps).all())


def _box_half_width(alpha: float, dimensions: int) -> float:
    """r / b of a box that holds a record's original with confidence ``alpha``: Laplace
    noise stays within r of each of ``dimensions`` values, independently, with probability
    (1 - exp(-r/b)) ** dimensions; one ε-quasi gives the paper's ln(1 / (1 - α))."""
    return math.log(1 / (1 - alpha ** (1 / dimensions)))


def _changed(out: pd.DataFrame, frame: pd.DataFrame, columns: Sequence[Hashable]) -> np.ndarray:
    """Per row, whether ``out`` writes one of ``columns`` otherwise than ``frame`` holds it
    (missing in both, whatever the marker: unchanged; 1 and "1": changed)."""
    changed = np.zeros(len(frame), dtype=bool)
    for column in columns:
        both = np.concatenate(
            [out[column].to_numpy(dtype=object), frame[column].to_numpy(dtype=object)]
        )
        codes = factorize_objects(both)
        changed |= codes[: len(frame)] != codes[len(frame) :]
    return changed


def _sums(per_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column of a per-row figure, the sum and the number of its defined (not NaN)
    values."""
    defined = ~np.isnan(per_row)
    return np.where(defined, per_row, 0.0).sum(axis=0), defined.sum(axis=0)


def means(
    columns: Sequence[Hashable], sums: np.ndarray, counts: np.ndarray
) -> dict[Hashable, float]:
    """Each column's mean from its sum and count (0 without a value), and their ``"mean"``."""
    found: dict[Hashable, float] = {
        column: float(sums[j] / counts[j]) if counts[j] else 0.0 for j, column in enumerate(columns)
    }
    found["mean"] = float(np.mean([found[c] for c in columns]))
    return found


def _summary(values: np.ndarray) -> dict[str, float]:
    """Smallest, median and largest of per-class figures."""
    if not len(values):
        return {"min": 0.0, "median": 0.0, "max": 0.0}
    return {
        "min": float(values.min()),
        "median": float(np.median(values)),
        "max": float(values.max()),
    }
