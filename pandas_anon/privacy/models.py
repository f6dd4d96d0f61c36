"""Privacy models as predicates on equivalence classes.

Each model names the classes that violate it; an anonymization suppresses those classes'
rows, and a node is acceptable when the suppressed rows fit the suppression limit.
k-anonymity and distinct l-diversity are monotone under generalization with suppression
(merging passing classes never creates a violation), which lets Incognito and Samarati
prune; entropy and recursive l-diversity and t-closeness are not once rows can be
suppressed, so those searches check every candidate for them. The optimal search (ola)
prunes only on the metric's bound and is exact for every model.

- k-anonymity: a class holds at least k rows (Saroha 2014, "Survey of k-Anonymity", 2.2).
- l-diversity (Machanavajjhala et al. 2007): *distinct*: at least l sensitive values per
  class; *entropy*: the entropy of the class's sensitive values is at least log(l);
  *recursive (c, l)*: the most frequent value occurs fewer than c times the total of the
  values from the l-th most frequent on.
- t-closeness (Li et al. 2007): the Earth Mover's Distance between a class's sensitive
  distribution and the whole table's is at most t; equal distance between categories (half
  the sum of the absolute differences), or ordered distance for numbers: the m distinct values
  present in the whole table, sorted (as pandas sorts the column), neighbours 1/(m-1) apart,
  as ARX and Li et al. define it (values no row holds are not walked).

Missing sensitive values (one definition, shared by :func:`pandas_anon.privacy.measures.l_diversity`,
the pandera check ``anon_l_diverse`` and the tests' verifier): a row missing its sensitive
value counts in its class's size (k) but is never one of the class's values, in distinct,
entropy and recursive l-diversity; t-closeness compares distributions over the known values
only (the whole table's and the class's). A class whose sensitive values are all missing has
distinct l = 0 and violates every l-diversity (even l = 1), and is at distance 1 for t
(violating any t < 1). The models read the sensitive column through a
:class:`~pandas_anon.engine.classes.SensitiveDomain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from pandas_anon.engine.classes import Classes, SensitiveDomain
from pandas_anon.errors import InvalidParameterError
from pandas_anon.params import flag, fraction, one_of, real, whole


@dataclass(frozen=True)
class Context:
    """What a privacy model reads besides the classes: the sensitive column over the whole
    table (None when no model of the search reads it)."""

    sensitive: SensitiveDomain | None = None

    def sensitive_domain(self) -> SensitiveDomain:
        """The sensitive column; an :class:`InvalidParameterError` when none was read."""
        if self.sensitive is None:
            raise InvalidParameterError(
                "l-diversity and t-closeness read a sensitive column: pass sensitive=<column>"
            )
        return self.sensitive


@runtime_checkable
class PrivacyModel(Protocol):
    """What every privacy model offers the methods that enforce it.

    ``violations`` names the classes that break the model and ``reached`` the level the kept
    classes reach (a name and a number, as reports show it). ``merge_safe``: a class made of
    several classes, one of which satisfies the model, satisfies it (monotone under merging),
    which lets the searches prune (:mod:`pandas_anon.anonymization.fulldomain.incognito`).
    ``reads_sensitive`` and ``reads_order``: whether the model reads the sensitive column,
    and the order of its values, through the :class:`Context`.
    """

    @property
    def merge_safe(self) -> bool: ...

    @property
    def reads_sensitive(self) -> bool: ...

    @property
    def reads_order(self) -> bool: ...

    def violations(self, classes: Classes, context: Context) -> np.ndarray: ...

    def reached(
        self, classes: Classes, kept: np.ndarray, context: Context
    ) -> tuple[str, float]: ...


def merge_safe(models: Sequence[PrivacyModel]) -> bool:
    """Whether every model is monotone under merging classes (k-anonymity, distinct
    l-diversity): then a node above a feasible node is feasible, and a node with an
    infeasible projection is infeasible."""
    return all(model.merge_safe for model in models)


@dataclass(frozen=True)
class KAnonymity:
    """k-anonymity: every class holds at least ``k`` rows.

    A class of fewer than ``k`` rows violates the model; "k-anonymity states that there
    should be at least k tuples having the same quasi-identifier values" [1]_. The model is
    monotone under merging classes (``merge_safe``), so Incognito and Samarati prune on it.
    :func:`pandas_anon.kanon` always enforces it (``KAnonymity(k)``); give it to
    :func:`pandas_anon.reinforce` as the privacy goal. A report names it ``"<k>-anonymity"``
    and gives the smallest kept class as the level reached (``"k"``).

    Parameters
    ----------
    k : int
        The smallest class size: a whole number of at least 1 (Python or numpy integer, not
        a bool or text); anything else raises
        :class:`~pandas_anon.errors.InvalidParameterError`.

    Attributes
    ----------
    merge_safe : bool
        True: a class made of several classes, one of which holds ``k`` rows, holds ``k``.
    reads_sensitive, reads_order : bool
        False: the model reads no sensitive column.

    See Also
    --------
    pandas_anon.kanon : k-anonymity by generalization and suppression (its ``k``).
    pandas_anon.reinforce : Privacy reinforcement towards a model such as this one.
    LDiversity, TCloseness : The models of the sensitive column.

    References
    ----------
    .. [1] Saroha (2014), "Survey of k-Anonymity", section 2.2; after L. Sweeney (2002),
       "k-Anonymity: A Model for Protecting Privacy".

    Examples
    --------
    >>> from pandas_anon import KAnonymity
    >>> model = KAnonymity(5)
    >>> str(model), model.k, model.merge_safe
    ('5-anonymity', 5, True)
    >>> KAnonymity(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pandas_anon.errors.InvalidParameterError: k must be a whole number of at least 1 ...
    """

    k: int
    merge_safe: ClassVar[bool] = True
    reads_sensitive: ClassVar[bool] = False
    reads_order: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", whole(self.k, "k", example=5))

    def violations(self, classes: Classes, context: Context) -> np.ndarray:
        return classes.sizes < self.k

    def reached(self, classes: Classes, kept: np.ndarray, context: Context) -> tuple[str, float]:
        """What the kept classes reach: the smallest class."""
        return "k", _smallest(classes.sizes[kept])

    def __str__(self) -> str:
        return f"{self.k}-anonymity"


@dataclass(frozen=True)
class LDiversity:
    """l-diversity of the sensitive column, in one of three variants.

    l-diversity of the sensitive column [1]_, in one of three ``variant``s (``"distinct"``,
    ``"entropy"``, ``"recursive"`` with its ``c``): *distinct*: at least ``l`` sensitive
    values per class; *entropy*: the entropy of the class's sensitive values is at least
    log(``l``); *recursive (c, l)*: the most frequent value occurs fewer than ``c`` times the
    total of the values from the ``l``-th most frequent on. A row missing its sensitive value
    counts in its class's size but is never one of its values; a class whose sensitive values
    are all missing violates every variant (even ``l = 1``). Only distinct l-diversity is
    monotone under merging classes (``merge_safe``); entropy and recursive (c, l) can turn bad
    when a good class merges with a bad one. Give it as ``l=`` to :func:`pandas_anon.kanon`
    (with ``sensitive=``), or as the goal of :func:`pandas_anon.reinforce`.

    Parameters
    ----------
    l : int or float
        The diversity asked for. Distinct and recursive l count values: a whole number of
        at least 1; the entropy's ``l`` may be fractional: a finite number of at least 1.
    variant : {"distinct", "entropy", "recursive"}, default "distinct"
        Which l-diversity.
    c : float, default 1.0
        The constant of recursive (c, l)-diversity, a finite number above 0 (read by the
        ``"recursive"`` variant only).

    Attributes
    ----------
    merge_safe : bool
        True for ``"distinct"`` only: a union has at least the distinct values of any part.
    reads_sensitive : bool
        True: the model reads the sensitive column.
    reads_order : bool
        False: the order of the sensitive values does not matter.

    Raises
    ------
    InvalidParameterError
        When ``variant`` is not one of the three, ``l`` is not as above or ``c`` is not a
        finite number above 0.

    See Also
    --------
    pandas_anon.kanon : k-anonymity, with l-diversity of ``sensitive`` (its ``l``).
    pandas_anon.reinforce : Privacy reinforcement towards a model such as this one.
    KAnonymity, TCloseness : The other privacy models.

    References
    ----------
    .. [1] A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam (2007),
       "l-Diversity: Privacy Beyond k-Anonymity", ACM TKDD, section 4 (the principle, entropy
       and recursive (c, l)-diversity).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon import LDiversity
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> str(LDiversity(3, "recursive", c=2)), LDiversity(2.5, "entropy").merge_safe
    ('recursive l-diversity (c=2, l=3)', False)
    >>> df = pd.DataFrame({
    ...     "age": [21, 21, 22, 22, 35, 36, 37, 38],
    ...     "sex": ["F", "F", "M", "M", "F", "M", "F", "M"],
    ...     "disease": ["flu", "cold", "flu", "flu", "cold", "flu", "hiv", "flu"],
    ... })
    >>> decades = Hierarchy([21, 22, 35, 36, 37, 38], [["20-29"] * 2 + ["30-39"] * 4])
    >>> out = pandas_anon.kanon(
    ...     df, 2, qid=["age", "sex"], hierarchies={"age": decades},
    ...     l=LDiversity(2), sensitive="disease",
    ... )
    >>> out.anon.report().privacy
    {'k': 4.0, 'distinct l': 2.0}
    """

    l: float
    variant: str = "distinct"  # distinct | entropy | recursive
    c: float = 1.0
    reads_sensitive: ClassVar[bool] = True
    reads_order: ClassVar[bool] = False

    @property
    def merge_safe(self) -> bool:
        """Only distinct l-diversity: a union has at least the distinct values of any part;
        entropy and recursive (c, l) can turn bad when a good class merges with a bad one."""
        return self.variant == "distinct"

    def __post_init__(self) -> None:
        """Distinct and recursive l count values (whole); the entropy's l may be fractional."""
        one_of(self.variant, "variant", ("distinct", "entropy", "recursive"))
        l = (
            real(self.l, "l", low=1, example=2.5)
            if self.variant == "entropy"  # noqa: E741
            else whole(self.l, "l", example=2)
        )
        object.__setattr__(self, "l", l)
        object.__setattr__(self, "c", real(self.c, "c", low=0, above=True, example=2))

    def violations(self, classes: Classes, context: Context) -> np.ndarray:
        sensitive = context.sensitive_domain()
        if self.variant == "distinct":
            return self._distinct(classes, sensitive) < self.l
        if self.variant == "entropy":
            entropy, known = self._entropy(classes, sensitive)
            return ~known | (entropy < np.log(self.l) - 1e-12)
        top, tail = self._recursive(classes, sensitive)
        return ~(top < self.c * tail)

    def reached(self, classes: Classes, kept: np.ndarray, context: Context) -> tuple[str, float]:
        """What the kept classes reach: the fewest distinct values; the smallest exp(entropy)
        (the l they are entropy-diverse for; 0 for a class with no known value); or the
        largest ratio of the most frequent count to the tail from the l-th on (c must exceed
        it; inf when the tail is empty)."""
        sensitive = context.sensitive_domain()
        if self.variant == "distinct":
            return "distinct l", _smallest(self._distinct(classes, sensitive)[kept])
        if self.variant == "entropy":
            entropy, known = self._entropy(classes, sensitive)
            return "entropy l", _smallest(np.where(known, np.exp(entropy), 0.0)[kept])
        top, tail = self._recursive(classes, sensitive)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(tail > 0, top / tail, np.inf)
        return f"recursive c (l={self.l:g})", _largest(ratio[kept])

    @staticmethod
    def _distinct(classes: Classes, sensitive: SensitiveDomain) -> np.ndarray:
        owner, value, _ = classes.pairs()
        return distinct_values(owner, value, len(classes.sizes), sensitive.missing)

    @staticmethod
    def _entropy(classes: Classes, sensitive: SensitiveDomain) -> tuple[np.ndarray, np.ndarray]:
        """Per class: the entropy of its known values, and whether it has any."""
        n = len(classes.sizes)
        known = sensitive.known(classes)
        owner, _, count = (part[known] for part in classes.pairs())
        total = np.bincount(owner, weights=count, minlength=n)
        share = count / total[owner]
        return np.bincount(owner, weights=-share * np.log(share), minlength=n), total > 0

    def _recursive(
        self, classes: Classes, sensitive: SensitiveDomain
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per class: the most frequent known value's count (0 when none is known), and the
        total from the l-th most frequent known value on."""
        n = len(classes.sizes)
        known = sensitive.known(classes)
        owner, _, count = (part[known] for part in classes.pairs())
        order = np.lexsort((-count, owner))
        owner, count = owner[order], count[order]
        starts = np.searchsorted(owner, np.arange(n))
        rank = np.arange(len(owner)) - starts[owner]  # 0 for the most frequent value
        top = np.zeros(n, dtype=np.int64)
        top[owner[rank == 0]] = count[rank == 0]
        tail = np.bincount(owner, weights=np.where(rank >= int(self.l) - 1, count, 0), minlength=n)
        return top, tail

    def __str__(self) -> str:
        extra = f"c={self.c:g}, " if self.variant == "recursive" else ""
        return f"{self.variant} l-diversity ({extra}l={self.l:g})"


@dataclass(frozen=True)
class TCloseness:
    """t-closeness of the sensitive column: equal distance, or ``ordered`` distance.

    A class violates t-closeness [1]_ when the Earth Mover's Distance between its sensitive
    distribution and the whole table's exceeds ``t``. The equal distance between categories
    is half the sum of the absolute differences; the ordered distance, for numbers, walks
    the m distinct values present in the whole table, sorted (as pandas sorts the column),
    neighbours 1/(m-1) apart, as ARX and Li et al. define it (values no row holds are not
    walked). Distributions are compared over the known values only; a class whose sensitive
    values are all missing is at distance 1 (violating any ``t`` < 1). The model is not
    monotone under merging classes once rows can be suppressed, so the searches check every
    candidate for it. Give it as ``t=`` to :func:`pandas_anon.kanon` (with ``sensitive=``; a
    number there picks the ordered distance for a numeric column), or as the goal of
    :func:`pandas_anon.reinforce`.

    Parameters
    ----------
    t : float or str
        The largest distance allowed: a fraction from 0 to 1, or text holding a percentage
        (``"20%"``) or a decimal.
    ordered : bool, default False
        Use the ordered distance (True) rather than the equal distance; True or False only.

    Attributes
    ----------
    merge_safe : bool
        False: a merge of classes may break the model.
    reads_sensitive : bool
        True: the model reads the sensitive column.
    reads_order : bool
        ``ordered``: the ordered distance walks the sensitive values in sorted order.

    Raises
    ------
    InvalidParameterError
        When ``t`` is not a fraction from 0 to 1, or ``ordered`` not True or False.

    See Also
    --------
    pandas_anon.kanon : k-anonymity, with t-closeness of ``sensitive`` (its ``t``).
    pandas_anon.reinforce : Privacy reinforcement towards a model such as this one.
    KAnonymity, LDiversity : The other privacy models.

    References
    ----------
    .. [1] N. Li, T. Li and S. Venkatasubramanian (2007), "t-Closeness: Privacy Beyond
       k-Anonymity and l-Diversity", ICDE 2007, sections 3 (the model) and 4 (the Earth
       Mover's Distance, equal and ordered).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon import TCloseness
    >>> model = TCloseness("20%", ordered=True)
    >>> str(model), model.t, model.reads_order
    ('ordered-distance t-closeness (t=0.2)', 0.2, True)
    >>> df = pd.DataFrame({
    ...     "age": [21, 21, 22, 22, 35, 36, 37, 38],
    ...     "sex": ["F", "F", "M", "M", "F", "M", "F", "M"],
    ...     "disease": ["flu", "cold", "flu", "flu", "cold", "flu", "hiv", "flu"],
    ... })
    >>> out = pandas_anon.kanon(
    ...     df, 2, qid=["age", "sex"], t=TCloseness(0.5), sensitive="disease"
    ... )
    >>> out.anon.report().privacy
    {'k': 4.0, 't': 0.375}
    """

    t: float
    ordered: bool = False
    merge_safe: ClassVar[bool] = False
    reads_sensitive: ClassVar[bool] = True

    @property
    def reads_order(self) -> bool:
        """The ordered distance walks the sensitive values in sorted order."""
        return self.ordered

    def __post_init__(self) -> None:
        object.__setattr__(self, "t", fraction(self.t, "t"))
        object.__setattr__(self, "ordered", flag(self.ordered, "ordered"))

    def violations(self, classes: Classes, context: Context) -> np.ndarray:
        return self.distances(classes, context.sensitive_domain()) > self.t + 1e-12

    def reached(self, classes: Classes, kept: np.ndarray, context: Context) -> tuple[str, float]:
        """What the kept classes reach: the largest distance."""
        return "t", _largest(self.distances(classes, context.sensitive_domain())[kept])

    def distances(self, classes: Classes, sensitive: SensitiveDomain) -> np.ndarray:
        """Each class's Earth Mover's Distance to the whole table, between distributions of
        known values; 1 for a class with none. The ordered distance walks the m values in
        ``sensitive.rank`` order."""
        n, m = len(classes.sizes), len(sensitive.counts)
        known = sensitive.known(classes)
        owner, position, count = (part[known] for part in classes.pairs())
        reference = sensitive.counts.astype(float)
        if self.ordered:
            if sensitive.rank is None:
                raise InvalidParameterError(
                    "the ordered distance needs the order of the sensitive values "
                    "(SensitiveDomain.rank)"
                )
            position = sensitive.rank[position]
            reference[sensitive.rank] = sensitive.counts
        table = np.bincount(owner * m + position, weights=count, minlength=n * m).reshape(n, m)
        held = table.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = table / held[:, None] - reference / reference.sum()
        if self.ordered and m > 1:
            distance = np.abs(np.cumsum(gap, axis=1)).sum(axis=1) / (m - 1)
        else:
            distance = np.abs(gap).sum(axis=1) / 2
        return np.where(held > 0, distance, 1.0)

    def __str__(self) -> str:
        return f"{'ordered' if self.ordered else 'equal'}-distance t-closeness (t={self.t:g})"


def distinct_values(
    pair_class: np.ndarray, pair_value: np.ndarray, n_classes: int, missing: int
) -> np.ndarray:
    """The distinct known sensitive values of each of ``n_classes`` classes, from their
    distinct (class, value code) pairs: what distinct l-diversity counts, here and in
    :func:`pandas_anon.privacy.measures.l_diversity`. Code ``missing`` (and above) is a missing value,
    which is no value."""
    return np.bincount(pair_class[pair_value < missing], minlength=n_classes)


def _smallest(values: np.ndarray) -> float:
    """The smallest value (0 when no class is kept)."""
    return float(values.min()) if len(values) else 0.0


def _largest(values: np.ndarray) -> float:
    """The largest value (0 when no class is kept)."""
    return float(values.max()) if len(values) else 0.0
