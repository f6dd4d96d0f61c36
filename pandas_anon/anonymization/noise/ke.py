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

The noisy values are then post-processed (:meth:`NoisePlan.post_process`), which cannot
weaken the guarantee (Dwork and Roth 2014, "The Algorithmic Foundations of Differential
Privacy", Proposition 2.1): an integer column's are rounded half to even, and every value is
clamped into its column's :class:`Domain` (bounds the caller gives, or the observed range
widened to the coarsest width of :func:`~pandas_anon.hierarchy.auto`'s intervals; always
within the range the dtype holds). The report gives the error after it beside the noise's.
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
from pandas_anon.detect.exposure import SUPPRESSED, direct_identifiers
from pandas_anon.detect.figures import candidate_columns
from pandas_anon.engine.backends import is_dask
from pandas_anon.engine.columns import require_columns, require_data, resolve_columns
from pandas_anon.engine.encoding import factorize_objects, numeric_values
from pandas_anon.errors import (
    AllMissingColumnError,
    ColumnNotFoundError,
    InvalidParameterError,
    InvalidQIDError,
    UtilityWarning,
    warn,
)
from pandas_anon.formatting import plural
from pandas_anon.hierarchy.auto_choice import fits_intervals, nice_widths
from pandas_anon.params import flag, fraction, known_options, one_of, real, whole
from pandas_anon.progress import with_distributed_progress

#: The predicted relative error of an ε-quasi above which a release warns
#: (:class:`~pandas_anon.errors.UtilityWarning`): noise of more than half the values on average.
MAX_PREDICTED_ERROR = 0.5


@dataclass(frozen=True)
class Domain:
    """Where an ε-quasi's released values lie: ``low`` to ``high``, both included, and where
    the bounds come from (``source``: ``"given"``, or ``"default: ..."`` saying how they
    were derived). Whole numbers for an integer column."""

    low: float
    high: float
    source: str

    def to_dict(self, integer: bool) -> dict[str, Any]:
        """The domain as the report holds it (bounds as ``int`` for an integer column)."""
        low, high = (int(self.low), int(self.high)) if integer else (self.low, self.high)
        return {"low": low, "high": high, "source": self.source}


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
    ``diameter``: each class's L1 diameter Δ_C; ``domain``: each ε-quasi's :class:`Domain`;
    ``dtypes``: each ε-quasi's dtype in the frame.
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
    domain: tuple[Domain, ...] = ()
    dtypes: tuple[Any, ...] = ()

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
        """The release: the k-quasis written, the ε-quasis noised from ``source`` and
        post-processed (:meth:`post_process`), the rows α-confidence suppresses masked (or
        left out with ``suppress="drop"``), the rows shuffled (with a new index), and the
        report attached. ``salt``: the key of ``identifiers="hash"``
        (:func:`~pandas_anon.anonymization.kanon.kanon`). Warns (:func:`warn_utility`) when
        an ε-quasi's predicted error exceeds :data:`MAX_PREDICTED_ERROR`."""
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
        released = self.post_process(noisy)
        exposure = self.exposure(released, level)  # what an attacker reads: the release
        out, suppressed, modified = self.release(out, frame, released, exposure.removed)
        if suppress == "drop":
            out = out.loc[~suppressed]
        if shuffle:
            positions = np.flatnonzero(~suppressed) if suppress == "drop" else None
            order = random_order(source, np.arange(len(out)) if positions is None else positions)
            out = out.iloc[order].reset_index(drop=True)
        predicted = self.predicted_loss()
        warn_utility(self, predicted)
        figures = ReleaseFigures(
            predicted=predicted,
            measured=self.relative_error(noisy, exposure.removed),
            released=self.relative_error(released, exposure.removed),
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

    def post_process(self, noisy: np.ndarray) -> np.ndarray:
        """The ``noisy`` ε-quasis (from :meth:`draw`) as released: an integer column's
        values rounded half to even, then every value clamped into its column's
        :class:`Domain` (missing values stay missing). Post-processing: it reads no original
        value, so it cannot weaken the guarantee (see the module)."""
        released = noisy.copy()
        for j, (domain, dtype) in enumerate(zip(self.domain, self.dtypes, strict=True)):
            values = np.rint(noisy[:, j]) if _is_integer(dtype) else noisy[:, j]
            released[:, j] = np.clip(values, domain.low, domain.high)
        return released

    def release(
        self,
        out: pd.DataFrame,
        frame: pd.DataFrame,
        released: np.ndarray,
        removed: np.ndarray,
        any_removed: bool | None = None,
    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """``out`` (the k-quasis written, rows as the plan's) with the rows α-confidence
        ``removed`` masked in the k-quasis (when any row of the release is:
        ``any_removed``, default: one of these), the ε-quasis written ``released`` (from
        :meth:`post_process`; missing on suppressed rows) in their dtypes
        (:func:`released_dtype`); and per row, whether it is suppressed, and modified from
        ``frame``."""
        suppressed = (self.row_class < 0) | removed
        any_removed = bool(removed.any()) if any_removed is None else any_removed
        for column in self.k_quasi if any_removed else ():
            out[column] = out[column].astype(object).where(~removed, SUPPRESSED)
        modified = suppressed | _changed(out, frame, self.k_quasi)
        # whether any row of the whole release is suppressed: one dtype for every piece
        masks = any_removed or bool(self.transformation.suppressed.any())
        for j, column in enumerate(self.eps_quasi):
            values = np.where(suppressed, np.nan, released[:, j])
            out[column] = _written(values, released_dtype(self.dtypes[j], masks))
            modified |= (
                ~suppressed & (released[:, j] != self.original[:, j]) & ~np.isnan(released[:, j])
            )
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
            released_error=keyed(figures.released),
            domain={
                keys[c]: domain.to_dict(_is_integer(dtype))
                for c, domain, dtype in zip(self.eps_quasi, self.domain, self.dtypes, strict=True)
            },
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
    """What a release's report measures on its rows: the predicted relative errors per
    ε-quasi (and their ``"mean"``), those measured on the noisy values and on the values
    released (after :meth:`NoisePlan.post_process`), the linking risk, the rows
    α-confidence removes and the classes it empties, the rows, those the k-anonymization
    suppressed, and those modified."""

    predicted: dict[Hashable, float]
    measured: dict[Hashable, float]
    released: dict[Hashable, float]
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
    bounds: Mapping[Hashable, tuple[float, float]] | None = None,
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
    does). Each ε-quasi gets a :class:`Domain` its released values are clamped into
    (``bounds``, or a coarse default; docs/ke.md, "The domain").

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
        The quasi-identifiers, k-quasis and ε-quasis together. Default None (zero
        configuration): every column holding a value but the direct identifiers, so that the
        k-quasis are k-anonymous on all of them together, as zero-configuration ``kanon``
        releases every column (``pandas-anon check --qid <the k-quasis> --k K`` passes the
        release; ``check --k K`` alone reads the noised ε-quasis as quasi-identifiers too).
    eps_quasi : sequence of hashable, optional
        The numeric quasi-identifiers to noise, all in ``qid``; the others are the k-quasis.
        Default None: every numeric (not boolean) quasi-identifier, which the plan's
        ``choices`` say.
    bounds : mapping, optional
        ``{column: (low, high)}``: the domain of an ε-quasi, finite numbers with low below
        high (whole numbers for an integer column) holding every value of the column; its
        released values are clamped into it (within what its dtype holds). Give bounds that
        do not come from the data (a public range, such as ``{"age": (0, 120)}``). Default
        None; an ε-quasi without bounds gets the default domain: its observed range widened
        outward to multiples of the coarsest width of
        :func:`~pandas_anon.hierarchy.auto`'s intervals for it (ages 17 to 90: 0 to 100),
        which reveals only which cell of that coarse grid holds the smallest and the largest
        value.
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
        class's Δ_C), ``scale`` (each class's b_C), ``domain`` (each ε-quasi's
        :class:`Domain`), ``dtypes`` and ``choices`` (what zero configuration chose, and
        why). ``with_eps(eps)`` gives the same classes with another ε, without
        k-anonymizing again.

    Raises
    ------
    InvalidParameterError
        When ``k`` or ``eps`` is out of range, or ``eps`` is so small that a class's scale
        Δ/ε overflows floating point; an ε-quasi is not in ``qid``, does not hold real
        numbers (text, objects, complex numbers) or is named ``"mean"``; ``bounds`` is not
        a mapping, names a column that is not an ε-quasi, or gives a column bounds that are
        not two finite numbers in increasing order (whole numbers for an integer column) or
        that leave out some of its values; every
        quasi-identifier is an ε-quasi (no column is left to k-anonymize); no
        quasi-identifier is numeric (with ``eps_quasi=None``); a hierarchy is given for an
        ε-quasi; and for the arguments ``anonymize`` refuses (``algo``,
        ``hierarchies``, ``max_suppression``, ``identifiers``).
    AllMissingColumnError
        When an ε-quasi, or a k-quasi, holds only missing values.
    ColumnNotFoundError, InvalidQIDError, DuplicateColumnsError
        When ``qid``, ``eps_quasi`` or ``bounds`` name a column that is not in the frame,
        ``qid`` or ``eps_quasi`` name one twice, are empty, or name a label several columns
        share; or (zero configuration) every column holding a value is a direct identifier.
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
    >>> plan.domain[0].low, plan.domain[0].high
    (160.0, 200.0)
    >>> plan.domain[0].source
    "default: observed range widened to multiples of 20 (auto's coarsest width)"
    """
    if is_dask(frame):
        require_columns(frame)  # its rows are counted as it is read
    else:
        require_data(frame)
    k = whole(k, "k", example=5)
    eps = real(eps, "eps", low=0, above=True, example=1)
    choices: dict[str, str] = {}
    qid, eps_quasi = _quasis(frame, k, qid, eps_quasi, choices)
    dtypes = tuple(frame[c].dtype for c in eps_quasi)
    given = _given_bounds(bounds, frame, eps_quasi, dtypes)
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
        dtypes=dtypes,
    )
    if is_dask(frame):  # the rows stay where the partitions are
        from pandas_anon.anonymization.noise import partitioned

        plan = partitioned.planned(plan, frame, given)
    else:
        row_class = combination_classes(transformation)[transformation.tabulation.row_combination]
        original = np.column_stack([_floats(frame[c]) for c in eps_quasi])
        plan = replace(
            plan,
            row_class=row_class,
            original=original,
            diameter=_diameters(row_class, original),
            domain=domains(plan, given, np.nanmin(original, axis=0), np.nanmax(original, axis=0)),
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
    The noisy values are post-processed, which cannot weaken the guarantee: an integer
    column's rounded half to even, then every value clamped into its column's domain
    (``bounds``, or the default :func:`ke_decide` describes). The report travels with the
    output: ``out.anon.report()``, with the information loss predicted before the noise and
    measured after it and after the post-processing, each ε-quasi's domain and its source,
    and the linking risk (sections V-A and V-B of [1]_).

    Missing ε-quasi values stay missing and get no noise. Suppressed rows (by the
    k-anonymity step, or by α-confident k-anonymity) have their k-quasis written ``*`` and
    their ε-quasis missing. An integer ε-quasi comes out in its dtype (a numpy integer dtype
    as its nullable counterpart, int64 as Int64, when some row is suppressed), any other as
    float64.

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
        The options of :func:`ke_decide`, passed to it: ``qid``, ``eps_quasi``, ``bounds``,
        ``algo`` (default ``"mondrian"``), ``hierarchies``, ``max_suppression``,
        ``identifiers`` and ``progress``.

    Returns
    -------
    pandas.DataFrame or dask.dataframe.DataFrame
        The release, its report attached (``out.anon.report()``, a
        :class:`~pandas_anon.anonymization.reports.KEAnonymizationReport`: the k-quasis and
        ε-quasis, the classes, the diameters and noise scales, the predicted and measured
        relative errors (of the noise and of the values released), each ε-quasi's domain,
        the linking risk, the α-confident suppressions, the random source
        (never a seed) and the k-anonymization's own report). On a Dask frame: a lazy Dask
        frame, its report computed.

    Raises
    ------
    InvalidParameterError
        When ``alpha`` is not a confidence strictly between 0 and 1, ``shuffle`` or
        ``secure`` is not True or False, ``suppress`` is neither ``"mask"`` nor ``"drop"``,
        ``seed`` is not a whole number of at least 0 or comes with ``secure=True``; and for
        every argument :func:`ke_decide` refuses (``k``, ``eps``, ``qid``, ``eps_quasi``,
        ``bounds``, the k-anonymization's options).
    MissingDependencyError
        When ``secure=True`` and OpenDP is not installed.
    AllMissingColumnError, ColumnNotFoundError, InvalidQIDError, DuplicateColumnsError,
    EmptyDataError, HierarchyError, UnknownNameError, InfeasibleError
        As :func:`ke_decide` raises them (the plan is decided first).

    Warns
    -----
    OneClassWarning, IdentifierWarning, HierarchyFallbackWarning
        As :func:`ke_decide` warns.
    UtilityWarning
        When the predicted relative error of an ε-quasi exceeds :data:`MAX_PREDICTED_ERROR`
        (0.5), naming the column and the ε that brings it to at most that.

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
        found = _every_released_column(frame, k, choices)
    else:
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


def _every_released_column(
    frame: pd.DataFrame, k: int, choices: dict[str, str]
) -> tuple[Hashable, ...]:
    """Zero configuration's quasi-identifiers: every column holding a value but the direct
    identifiers (which :func:`~pandas_anon.anonymization.kanon.anonymize` then treats), so
    that the k-quasis are k-anonymous on all of them together, as zero-configuration
    ``kanon`` releases every column."""
    held = candidate_columns(frame, None)
    identifiers = {f.column for f in direct_identifiers(frame, held)}
    found = tuple(c for c in held if c not in identifiers)
    if not found:
        raise InvalidQIDError(
            "no column is left to release: every column holding a value is a direct "
            "identifier; pass qid= to choose the quasi-identifiers"
        )
    choices["qid"] = (
        f"every released column ({plural(len(found), 'column')}: all but the direct "
        f"identifiers): the k-quasis are {k}-anonymous on all of them together"
    )
    return found


def _is_number(series: pd.Series) -> bool:
    dtype = series.dtype
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _is_integer(dtype: Any) -> bool:
    """Whether an ε-quasi's ``dtype`` holds whole numbers (numpy, nullable or Arrow)."""
    return pd.api.types.is_integer_dtype(dtype)


def released_dtype(dtype: Any, masks: bool) -> Any:
    """The dtype an ε-quasi of ``dtype`` is released in: an integer dtype itself, or, for a
    numpy integer dtype when the release ``masks`` rows (their values missing), its
    nullable counterpart (int64: Int64, uint8: UInt8); float64 for any other."""
    if not _is_integer(dtype):
        return np.dtype(np.float64)
    if isinstance(dtype, np.dtype) and masks:
        return pd.api.types.pandas_dtype(
            f"{'UInt' if dtype.kind == 'u' else 'Int'}{dtype.itemsize * 8}"
        )
    return dtype


def _written(values: np.ndarray, dtype: Any) -> Any:
    """Released floats (whole numbers for an integer ``dtype``; NaN: missing) in ``dtype``."""
    return values.astype(dtype) if isinstance(dtype, np.dtype) else pd.array(values, dtype=dtype)


def _dtype_range(dtype: Any) -> tuple[float, float] | None:
    """The floats an integer ``dtype`` holds, as a closed range (the largest at most its
    maximum: float(2**63 - 1) would be 2**63); None for a float dtype."""
    if not _is_integer(dtype):
        return None
    found = np.iinfo(getattr(dtype, "numpy_dtype", dtype))
    high = float(found.max)
    if int(high) > found.max:
        high = float(np.nextafter(high, -np.inf))
    return float(found.min), high


def _given_bounds(
    bounds: object,
    frame: pd.DataFrame,
    eps_quasi: Sequence[Hashable],
    dtypes: Sequence[Any],
) -> dict[Hashable, tuple[float, float]]:
    """``bounds`` checked against the ε-quasis (before the k-anonymization: refused early);
    whether they hold every value is checked by :func:`domains`."""
    if bounds is None:
        return {}
    if not isinstance(bounds, Mapping):
        raise InvalidParameterError(
            f"bounds must be a mapping {{column: (low, high)}} such as {{'age': (0, 120)}}, got "
            f"{type(bounds).__name__}"
        )
    found: dict[Hashable, tuple[float, float]] = {}
    for column, pair in bounds.items():
        if column not in eps_quasi:
            if column not in frame.columns:
                raise ColumnNotFoundError([column], frame.columns)
            raise InvalidParameterError(
                f"bounds given for {column!r}, which is not an ε-quasi (the ε-quasis: "
                f"{list(eps_quasi)!r}): only noised columns are clamped; remove it from bounds"
            )
        integer = _is_integer(dtypes[list(eps_quasi).index(column)])
        kind = "whole numbers" if integer else "numbers"
        if (
            isinstance(pair, (str, bytes))
            or not isinstance(pair, Sequence)
            or len(pair) != 2
            or not all(_is_bound(v) for v in pair)
        ):
            raise InvalidParameterError(
                f"bounds for {column!r} must be a pair (low, high) of {kind} such as (0, 120), "
                f"got {pair!r}"
            )
        low, high = (float(v) for v in pair)
        if not (math.isfinite(low) and math.isfinite(high)):
            raise InvalidParameterError(
                f"bounds for {column!r} must be finite, got {pair!r}: a domain without an end "
                f"clamps nothing; give finite bounds such as (0, 120)"
            )
        if not pair[0] < pair[1]:  # compared as given: 2**53 + 1 is above 2**53
            raise InvalidParameterError(
                f"bounds for {column!r} must have low below high, got {pair!r}; give them in "
                f"increasing order, such as (0, 120)"
            )
        if integer and not (low.is_integer() and high.is_integer()):
            raise InvalidParameterError(
                f"bounds for {column!r}, an integer column, must be whole numbers (its released "
                f"values are), got {pair!r}; such as ({math.ceil(low)}, {math.floor(high)})"
            )
        # read as floats (the noise is), rounded inward: never past a bound given
        found[column] = (
            low if low >= pair[0] else float(np.nextafter(low, np.inf)),
            high if high <= pair[1] else float(np.nextafter(high, -np.inf)),
        )
    return found


def _is_bound(value: object) -> bool:
    """Whether ``value`` is a real number (not a bool, not text)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def domains(
    plan: NoisePlan,
    given: Mapping[Hashable, tuple[float, float]],
    low: np.ndarray,
    high: np.ndarray,
) -> tuple[Domain, ...]:
    """Each ε-quasi's :class:`Domain`: the ``given`` bounds, or the default from its
    observed range (``low`` to ``high`` per ε-quasi); within what its dtype holds. Given
    bounds that leave out an observed value are refused (the values are the user's: the
    message tells them, and names no value)."""
    found = []
    for j, (column, dtype) in enumerate(zip(plan.eps_quasi, plan.dtypes, strict=True)):
        if column in given:
            start, end = given[column]
            if low[j] < start or high[j] > end:
                raise InvalidParameterError(
                    f"bounds for {column!r} ({start:g}, {end:g}) leave out some of its values: "
                    f"clamping would move those originals, not only their noise; widen the "
                    f"bounds to hold every value, or clip the column first "
                    f"(df[{column!r}].clip(low, high)) if those values are errors"
                )
            domain = Domain(start, end, "given")
        else:
            domain = _default_domain(float(low[j]), float(high[j]), _is_integer(dtype))
        held = _dtype_range(dtype)
        if held is not None and (domain.low < held[0] or domain.high > held[1]):
            domain = Domain(
                max(domain.low, held[0]),
                min(domain.high, held[1]),
                f"{domain.source}, within the range of {dtype}",
            )
        found.append(domain)
    return tuple(found)


def _default_domain(low: float, high: float, integer: bool) -> Domain:
    """An ε-quasi's default domain from its observed range (``low`` to ``high``): widened
    outward to multiples of the coarsest width :func:`~pandas_anon.hierarchy.auto` would
    use for it, so that it reveals only the coarse cells holding the extremes (the
    smallest value lies in [low, low + width), the largest in [high - width, high)). Floats
    too narrow or too spread for those widths (a constant column, 1e300 apart) get no
    bounds (the largest floats): give ``bounds``."""
    if not (integer or fits_intervals(pd.Index([low, high]))):
        return Domain(
            float(-np.finfo(np.float64).max),
            float(np.finfo(np.float64).max),
            "default: none (its values are too close together or too far apart for a coarse "
            "grid); give bounds=",
        )
    width = nice_widths(np.array([low, high]))[-1]
    start = width * math.floor(low / width)  # the cells [a, a + width) holding the extremes
    end = width * (math.floor(high / width) + 1)
    return Domain(
        float(start - width if start > low else start),  # a product rounded past the value
        float(end + width if end < high else end),
        f"default: observed range widened to multiples of {width} (auto's coarsest width)",
    )


def warn_utility(plan: NoisePlan, predicted: Mapping[Hashable, float]) -> None:
    """Warn (:class:`~pandas_anon.errors.UtilityWarning`) of each ε-quasi whose
    ``predicted`` relative error exceeds :data:`MAX_PREDICTED_ERROR`, naming the ε that
    brings it to the threshold: the classes do not depend on ε, so the error scales as
    1/ε (the ε given times the error over the threshold, rounded up)."""
    for column in plan.eps_quasi:
        error = predicted[column]
        if error > MAX_PREDICTED_ERROR:
            with np.errstate(over="ignore"):
                needed = _rounded_up(plan.eps * error / MAX_PREDICTED_ERROR)
            remedy = (
                f"eps={needed:g} or more brings it to at most {MAX_PREDICTED_ERROR:.0%} (the "
                f"error scales as 1/eps), or a smaller k (narrower classes)"
                if math.isfinite(needed)
                else "no finite eps brings it under (values so near 0 that any noise is "
                "unboundedly larger than they are)"
            )
            warn(
                f"ε-quasi {column!r}: the noise is predicted to move its values by "
                f"{error:.0%} of themselves on average (above {MAX_PREDICTED_ERROR:.0%}) at "
                f"eps={plan.eps:g}; {remedy}, or make {column!r} a k-quasi",
                UtilityWarning,
            )


def _rounded_up(value: float) -> float:
    """``value`` rounded up to 3 significant digits (never below it; infinity as it is)."""
    if not math.isfinite(value):
        return value
    step = 10.0 ** (math.floor(math.log10(value)) - 2)
    return float(f"{math.ceil(value / step) * step:.3g}")


def floats(part: pd.DataFrame, columns: Sequence[Hashable]) -> np.ndarray:
    """The ``columns`` of ``part`` as floats, one column each (missing, infinite: NaN)."""
    return (
        np.column_stack([_floats(part[c]) for c in columns])
        if columns
        else np.zeros((len(part), 0))
    )


def _floats(series: pd.Series) -> np.ndarray:
    """A numeric column as floats, missing (and infinite) values as NaN."""
    values, _ = numeric_values(series)  # missing: NaN
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
