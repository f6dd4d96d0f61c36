"""``df.anon.reinforce(goal, sensitive=...)``: Lan et al.'s privacy reinforcement as a call.

A thin layer over :func:`pandas_anon.kanon` with ``algo=TreeReinforcement(...)``: the goal is
given as the privacy models themselves (``KAnonymity(5)``, ``LDiversity(2)``,
``TCloseness(0.2)``, or several), as Lan et al. state it ("a reinforcement goal in terms of
privacy protection metrics").
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import pandas as pd

from pandas_anon.anonymization.kanon import anonymize, kanon
from pandas_anon.anonymization.recoding import HierarchyLike
from pandas_anon.anonymization.reinforcement.algorithm import TreeReinforcement
from pandas_anon.anonymization.reinforcement.mates import Utility
from pandas_anon.errors import InvalidParameterError
from pandas_anon.params import known_options
from pandas_anon.privacy.models import KAnonymity, LDiversity, PrivacyModel, TCloseness


def reinforce(
    frame: pd.DataFrame,
    goal: PrivacyModel | Sequence[PrivacyModel],
    *,
    sensitive: Hashable,
    qid: Sequence[Hashable] | None = None,
    hierarchies: Mapping[Hashable, HierarchyLike] | None = None,
    utility: Utility | None = None,
    max_depth: int | None = None,
    max_suppression: float | str = 0.0,
    **options: Any,
) -> pd.DataFrame:
    """A copy of ``frame`` meeting ``goal`` in which only the records at risk are masked:
    Lan et al.'s decision-tree privacy reinforcement (see
    :mod:`pandas_anon.anonymization.reinforcement.algorithm`).

    Parameters
    ----------
    frame
        The table (never modified).
    goal
        The privacy goal: a :class:`~pandas_anon.KAnonymity`, an
        :class:`~pandas_anon.LDiversity` (any variant) or a :class:`~pandas_anon.TCloseness`,
        or a list of them (one of each kind at most).
    sensitive
        The sensitive column: the decision tree's label, and what l-diversity and
        t-closeness read.
    qid
        The quasi-identifier (default: elected as :func:`pandas_anon.kanon` elects it).
    hierarchies
        Per column, a hierarchy to mask it along (``{"zip": "masking"}``); numbers and dates
        without one are masked by threshold ranges, other columns by ``*``.
    utility
        The utility of a mate (a function of a
        :class:`~pandas_anon.anonymization.reinforcement.mates.Mate`, higher is better);
        default: Lan et al.'s, 1 / (records x distance sum of the singular paths).
    max_depth
        The deepest the decision trees grow (default: until every leaf is one class).
    max_suppression
        The fraction of rows that may be suppressed instead of masking rows that meet the
        goal, when the records at risk cannot meet it together.
    **options
        As :func:`pandas_anon.kanon`: ``identifiers``, ``suppress``, ``progress``, ...

    Returns
    -------
    pandas.DataFrame
        The reinforced copy; its report (``out.anon.report()``) gives the masked rows and
        cells (``search``) and the utility figures of every method.

    References
    ----------
    Lan, Huang, Chen, Chung, Grandison, Tseng, "A Privacy Reinforcement Approach against
    De-identified Dataset" (IBM), sections III and IV.

    Examples
    --------
    >>> out = df.anon.reinforce(pandas_anon.LDiversity(2), sensitive="disease")  # doctest: +SKIP
    """
    known_options(options, "reinforce", [kanon, anonymize], fixed=["algo", "l", "t"])
    k, l, t = _goal(goal)
    algorithm = TreeReinforcement(utility=utility, max_depth=max_depth)
    return kanon(
        frame,
        k,
        qid=qid,
        hierarchies=hierarchies,
        algo=algorithm,
        max_suppression=max_suppression,
        l=l,
        t=t,
        sensitive=sensitive,
        **options,
    )


def _goal(
    goal: PrivacyModel | Sequence[PrivacyModel],
) -> tuple[int, LDiversity | None, TCloseness | None]:
    """k (1 when the goal has none), the l-diversity and the t-closeness of a goal."""
    models = [goal] if not isinstance(goal, Sequence) or isinstance(goal, str) else list(goal)
    k, l, t = 1, None, None  # noqa: E741
    kinds: set[type] = set()
    for model in models:
        if not isinstance(model, (KAnonymity, LDiversity, TCloseness)):
            raise InvalidParameterError(
                f"goal must be KAnonymity(k), LDiversity(l) or TCloseness(t), or a list of "
                f"them, got {type(model).__name__} {model!r}"
            )
        if type(model) in kinds:
            raise InvalidParameterError(
                f"goal holds two {type(model).__name__} models; give one of each kind"
            )
        kinds.add(type(model))
        if isinstance(model, KAnonymity):
            k = model.k
        elif isinstance(model, LDiversity):
            l = model  # noqa: E741
        else:
            t = model
    if not models:
        raise InvalidParameterError(
            "goal is empty: give KAnonymity(k), LDiversity(l) or TCloseness(t)"
        )
    return k, l, t
