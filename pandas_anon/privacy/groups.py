"""Which groups of combinations break the privacy models.

An algorithm that forms its own classes (Mondrian's partitions, local recoding's recoded
combinations) groups the combinations of a quasi-identifier's frequency set and asks, per
group, whether the privacy models hold: k-anonymity from the rows, l-diversity and
t-closeness from the sensitive values each group holds (:class:`GroupJudge`). The models'
own definitions decide (:mod:`~pandas_anon.privacy.models`); this module only turns groups of
combinations into the classes they read.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from pandas_anon.engine.classes import Classes, SensitiveColumn
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.errors import InfeasibleError
from pandas_anon.privacy.models import Context, KAnonymity, PrivacyModel


class GroupJudge:
    """Which groups of combinations break a privacy model: k-anonymity from the counts,
    l-diversity and t-closeness from the sensitive values each group holds.

    ``frequencies``: the frequency set of the quasi-identifier (and of ``sensitive`` when a
    model reads it); ``qi_of``: each of its combinations' combination of the quasi-identifier
    alone, of which there are ``n_qi``. Groups are of those ``n_qi`` combinations.
    """

    def __init__(
        self,
        frequencies: FrequencySet,
        models: tuple[PrivacyModel, ...],
        sensitive: Hashable | None,
        *,
        qi_of: np.ndarray,
        n_qi: int,
    ) -> None:
        self.models = models
        #: a group of fewer rows breaks k-anonymity (1 without it): no cut can leave a half
        #: of fewer rows
        self.min_rows = max((m.k for m in models if isinstance(m, KAnonymity)), default=1)
        self.counts = np.bincount(qi_of, weights=frequencies.counts, minlength=n_qi)
        self.qi_of, self.n_qi = qi_of, n_qi
        self.pair_counts = frequencies.counts
        self.sensitive: SensitiveColumn | None = None
        context = None
        if any(m.reads_sensitive for m in self.models) and sensitive is not None:
            self.sensitive = SensitiveColumn.read(frequencies, sensitive)
            context = self.sensitive.domain(ordered=any(m.reads_order for m in self.models))
        self.context = Context(context)

    def classes(self, combinations: np.ndarray, groups: np.ndarray, n_groups: int) -> Classes:
        """The groups as classes (with their sensitive values when a model reads them)."""
        sizes = np.bincount(groups, weights=self.counts[combinations], minlength=n_groups)
        sizes = sizes.astype(np.int64)
        if self.sensitive is None:
            return Classes((), (), sizes, sizes)
        group_of = np.full(self.n_qi, -1, dtype=np.int64)
        group_of[combinations] = groups
        owner = group_of[self.qi_of]
        inside = owner >= 0
        key = owner[inside] * self.sensitive.radix + self.sensitive.codes[inside]
        pairs, inverse = np.unique(key, return_inverse=True)
        rows = np.bincount(inverse.ravel(), weights=self.pair_counts[inside], minlength=len(pairs))
        return Classes(
            (),
            (),
            rows.astype(np.int64),
            sizes,
            pairs // self.sensitive.radix,
            pairs % self.sensitive.radix,
        )

    def __call__(self, combinations: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
        """Per group, whether it breaks a model: ``combinations`` (of the quasi-identifier)
        fall in ``groups`` (ids below ``n_groups``); a group holding none breaks nothing."""
        classes = self.classes(combinations, groups, n_groups)
        broken = np.zeros(n_groups, dtype=bool)
        for model in self.models:
            broken |= model.violations(classes, self.context)
        return broken & (classes.sizes > 0)

    @property
    def width(self) -> int:
        """The columns of a histogram (:meth:`histograms`): one per sensitive code when a
        model reads the sensitive column, else one (the rows)."""
        return 1 if self.sensitive is None else self.sensitive.radix

    def sensitive_codes(self) -> np.ndarray:
        """Each combination of the frequency set's column of a histogram."""
        if self.sensitive is None:
            return np.zeros(len(self.pair_counts), dtype=np.int64)
        return self.sensitive.codes

    def broken_histograms(self, histograms: np.ndarray) -> np.ndarray:
        """Per group given as a histogram (its rows per sensitive code, :attr:`width`
        columns), whether it breaks a model; a group holding no row breaks nothing."""
        sizes = np.rint(histograms.sum(axis=1)).astype(np.int64)
        if self.sensitive is None:
            classes = Classes((), (), sizes, sizes)
        else:
            owner, value = np.nonzero(histograms)
            rows = np.rint(histograms[owner, value]).astype(np.int64)
            classes = Classes((), (), rows, sizes, owner, value)
        broken = np.zeros(len(sizes), dtype=bool)
        for model in self.models:
            broken |= model.violations(classes, self.context)
        return broken & (sizes > 0)

    def require_feasible(self) -> None:
        """Refuse a table that breaks the models as a whole: no grouping of it can hold."""
        everything = np.arange(self.n_qi)
        if self(everything, np.zeros(self.n_qi, dtype=np.int64), 1)[0]:
            raise InfeasibleError(
                f"the whole table does not satisfy {', '.join(map(str, self.models))}: no "
                f"partition of it can; lower k/l, raise t, or choose another sensitive column"
            )

    def reached(
        self, output_class: np.ndarray, combinations: np.ndarray | None = None
    ) -> dict[str, float]:
        """The level each model reaches on the output's classes (``output_class`` of each
        combination of the quasi-identifier; ``combinations``: the kept ones, default all)."""
        kept = np.arange(self.n_qi) if combinations is None else combinations
        if not len(kept):
            return {}
        groups = output_class[kept]
        n_classes = int(groups.max()) + 1
        classes = self.classes(kept, groups, n_classes)
        present = classes.sizes > 0
        return dict(model.reached(classes, present, self.context) for model in self.models)
