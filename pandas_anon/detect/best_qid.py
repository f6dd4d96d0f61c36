"""Elect the best quasi-identifier (Pastore et al. 2020, section 3.1).

Among the column subsets of up to ``max_size`` candidate columns (identifiers and their
supersets excluded), the subset exposing the most singletons wins; ties go to the subset
with the fewest columns; subsets still tied are listed in ``ties``.

Because refining a partition never removes a singleton, no subset can expose more
singletons than the whole candidate set (identifier columns left out). That count is an
exact upper bound, computed once: as soon as a size reaches it, every larger subset can at
best tie with more columns, so the search stops after that size (``exhaustive=True``
visits every size up to ``max_size`` anyway, to fill ``table``). The frame is read once,
into the frequency set of every candidate column (the backend's
:func:`~pandas_anon.engine.backends.pandas.tabulate`), whose classes are also that bound's; see
:mod:`pandas_anon.detect.subsets` for how each subset is counted on it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np
import pandas as pd

from pandas_anon.detect.figures import QID, candidate_frequencies
from pandas_anon.detect.results import BestQID
from pandas_anon.detect.subsets import (
    IDENTIFIER,
    MAX_SUBSETS,
    STATUSES,
    Examined,
    Subset,
    SubsetSearch,
    check_max_size,
)
from pandas_anon.engine.weights import Weights
from pandas_anon.errors import InvalidQIDError
from pandas_anon.params import flag, whole
from pandas_anon.progress import Progress, with_distributed_progress


@with_distributed_progress
def best_qid(
    frame: pd.DataFrame,
    columns: QID | None = None,
    *,
    max_size: int | None = None,
    dropna: bool = True,
    k: int = 2,
    exhaustive: bool = False,
    progress: bool | None = None,
    weights: Weights | None = None,
    max_subsets: int | None = None,
) -> BestQID:
    """Elect the smallest column subset exposing the most singletons.

    This is the best quasi-identifier of Pastore et al. [1]_, "the minimum number of
    columns/attributes that leads to the disclosure of the highest number of singletons".
    Among the column subsets of up to ``max_size`` candidate columns, the subset with the
    most singletons wins; among subsets with the same count, the one with the fewest
    columns; subsets still tied (same count, same size) are listed in ``ties``, the first of
    them in the candidates' column order being elected. Identifiers (column sets whose rows
    are all distinct) and their supersets cannot be elected, as the paper separates IDs from
    QIDs: they are listed in ``identifiers``. ``df.anon.best_qid(columns, ...)`` is the same
    function as an accessor.

    ``columns`` are the candidates (default: every column holding a value); with ``dropna``
    rows missing a candidate value are dropped first, as the seed paper does.
    ``k`` above 2 ranks subsets by the rows in classes of fewer than ``k`` rows instead of
    the singletons (the subset farthest from k-anonymity; ``at_risk`` in the result).
    ``progress`` reports each subset size on stderr (default: only on a terminal).
    ``weights``: people per row of an aggregated table (a count column, left out of the
    candidates, or one count per row), as :func:`pandas_anon.singletons` takes them.

    The frame is read once. Adding a column never removes a singleton (nor takes a row out
    of a class below ``k``), so no subset exposes more than all the candidates together
    (identifier columns left out): once a subset reaches that count (``upper_bound`` in the
    result), larger subsets can at best tie with more columns, and the search stops after
    that size.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, never modified (a Dask DataFrame is accepted too).
    columns : label, iterable of labels or None, default None
        The candidate columns. None: every column of the frame holding at least one value,
        less the count column ``weights`` names.
    max_size : int or None, default None
        The most columns in a subset examined, a whole number of at least 1 (capped at the
        number of candidates). None: every size. The subsets grow fast in number: 14 columns
        give 469 subsets of up to 3 columns.
    dropna : bool, default True
        Leave out the rows missing a value in any candidate column (the same rows for every
        subset). False: a missing value is a value of its own.
    k : int, default 2
        Rank subsets by the rows in classes of fewer than ``k`` rows; 2 ranks them by their
        singletons. A whole number of at least 2.
    exhaustive : bool, default False
        Visit every size up to ``max_size`` even after the winner is known, to fill the
        result's ``table``; the winner is the same.
    progress : bool or None, default None
        Show a progress bar on stderr, advanced at each subset size. None: only when stderr
        is a terminal or the code runs in a Jupyter notebook.
    weights : label, sequence of int, numpy.ndarray or pandas.Series, optional
        The people each row of an aggregated table stands for: the label of a count column
        (left out of the candidates) or one count per row, as
        :func:`pandas_anon.singletons` takes them. Default None: each row is one person.
    max_subsets : int or None, default None
        The most column subsets the search may examine: before each size, the subsets of
        that size are counted, and a search that would pass the budget stops with
        :class:`~pandas_anon.errors.LimitExceededError` rather than run for hours on a wide
        frame (1,030 columns hold 181 million subsets of 3). None: 1,000,000, the budget of
        the gate's election. A whole number of at least 1.

    Returns
    -------
    BestQID
        ``columns`` (the elected subset, in the frame's column order), ``singletons``,
        ``fraction`` (singletons / examined) and ``distinct`` (its classes), ``at_risk``
        (rows in classes below ``k``), ``examined`` and ``dropped`` (rows counted and rows
        left out), ``ties``, ``identifiers`` (the minimal identifier column sets found),
        ``candidates``, ``max_size``, ``upper_bound`` and ``table`` (every subset visited,
        the most exposed first).

    Raises
    ------
    InvalidParameterError
        ``max_size`` is not a whole number of at least 1, or ``k`` one of at least 2 (a bool
        or text is refused); ``weights`` is not one count per row, or a count is not a whole
        number from 0 to 2**53; or ``weights`` is given with a Dask frame.
    InvalidQIDError
        ``columns`` is empty, names a column twice or holds the count column ``weights``
        names; ``columns`` being None, no column holds a value; or every candidate column is
        an identifier, so that no subset is left to elect.
    ColumnNotFoundError
        A column of ``columns``, or the count column ``weights`` names, is not in the frame.
    DuplicateColumnsError
        A candidate column (named in ``columns``, or any column when it is None) shares its
        name with another column of the frame.
    EmptyDataError
        The frame has no rows or no columns; with ``dropna=True``, every row misses a value
        in some candidate column; with ``weights``, every row counts nobody.
    AllMissingColumnError
        A column named in ``columns`` holds only missing values.
    UnhashableValueError
        A candidate column holds values that cannot be compared for equality (lists, dicts,
        sets).
    LimitExceededError
        The subsets of up to ``max_size`` candidate columns are more than ``max_subsets``;
        the message says how many.

    Warns
    -----
    IncompleteRowsWarning
        With ``dropna=True``, fewer than half of the rows (people, with ``weights``) are
        complete on the candidates; the message names the emptiest columns.

    See Also
    --------
    pandas_anon.singletons : The singletons of one quasi-identifier.
    pandas_anon.identifiers : The identifier column sets alone.
    pandas_anon.risk : Risk figures of the elected quasi-identifier.
    pandas_anon.kanon : Make every class hold at least k rows.

    References
    ----------
    .. [1] Pastore, Pellegrino and Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797,
       paper 32), introduction and section 3.1.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {
    ...         "id": [1, 2, 3, 4, 5],
    ...         "year": [1980, 1980, 1991, 1991, 1975],
    ...         "sex": ["f", "m", "f", "f", "m"],
    ...         "town": ["a", "a", "b", "b", "c"],
    ...     }
    ... )
    >>> best = pandas_anon.best_qid(df)
    >>> best.columns, best.singletons
    (('year', 'sex'), 3)
    >>> best.ties, best.identifiers
    ((('sex', 'town'),), (('id',),))

    One column at most, or ranked by the rows in classes of fewer than 3 rows:

    >>> df.anon.best_qid(max_size=1).columns
    ('year',)
    >>> below_3 = pandas_anon.best_qid(df, ["year", "sex", "town"], k=3)
    >>> below_3.columns, below_3.at_risk
    (('year',), 5)
    """
    check_max_size(max_size)
    k = whole(k, "k", low=2, example=5)
    exhaustive = bool(flag(exhaustive, "exhaustive"))
    progress = flag(progress, "progress", optional=True)
    frequencies, dropped = candidate_frequencies(frame, columns, dropna=dropna, weights=weights)
    budget = MAX_SUBSETS if max_subsets is None else max_subsets
    search = SubsetSearch(frequencies, max_size=max_size, k=k, max_subsets=budget)
    return elect(search, dropped=dropped, exhaustive=exhaustive, progress=progress)


def elect(
    search: SubsetSearch,
    *,
    dropped: int = 0,
    exhaustive: bool = False,
    progress: bool | None = None,
    identifiers_win: bool = False,
) -> BestQID:
    """Run the election on a prepared search (see :func:`best_qid`); ``dropped``: the rows
    of the frame left out of its frequency set (missing a value).

    ``identifiers_win`` (the gate's rule, :mod:`pandas_anon.detect.exposure`): a column set whose
    rows are all distinct is the most exposed subset of all, elected as soon as it is found,
    instead of being set aside as the seed paper does. A search with ``prune`` is such an
    election (:meth:`~pandas_anon.detect.subsets.SubsetSearch.lead`, within its budget of
    subsets): it lists the subsets it examined before it stopped.
    """
    names = search.names
    if search.prune:
        assert identifiers_win, "a pruned search is the gate's election"
        found = search.lead()
        identifiers = [found.leader.columns] if found.leader.status == IDENTIFIER else []
        return _result(
            search, found.leader, found.examined, identifiers, found.upper_bound, dropped
        )
    best: Subset | None = None
    bound: int | None = None
    with Progress("best_qid", total=search.max_size, unit="size", enabled=progress) as bar:
        for level in search.levels():
            bar.advance(f"{len(level)} subset{'s' if len(level) != 1 else ''}")
            if identifiers_win and search.identifiers:
                best = next(n for n in level if n.status == IDENTIFIER)
                bound = search.n
                break
            electable = [n for n in level if n.status != IDENTIFIER]
            leader = max(electable, key=lambda n: n.at_risk, default=None)
            if leader is not None and (best is None or leader.at_risk > best.at_risk):
                best = leader
            if bound is None and search.frequencies.distinct:  # identifier columns are
                # known once size 1 is done; over rows (not combinations) the bound would
                # cost a grouping of every row, so a search of rows goes without it
                bound = search.upper_bound({i for (i,) in search.identifiers})
            if bound is not None and best is not None and best.at_risk >= bound and not exhaustive:
                break
    if best is None:
        raise InvalidQIDError(
            f"every candidate column of {list(names)!r} is an identifier (all values "
            f"distinct), so no quasi-identifier is left to elect; pass other columns"
        )
    examined = Examined.of(search.subsets.values(), search.max_size)
    return _result(search, best, examined, search.identifiers, bound, dropped)


def _result(
    search: SubsetSearch,
    best: Subset,
    examined: Examined,
    identifiers: list[tuple[int, ...]],
    bound: int | None,
    dropped: int,
) -> BestQID:
    """The election's result: ``best`` elected, among the subsets ``examined``."""
    names = search.names
    same = (
        (examined.status == STATUSES.index(best.status))
        & (examined.sizes() == best.size)
        & (examined.at_risk == best.at_risk)
    )
    ties = [examined.positions(int(row)) for row in np.flatnonzero(same)]
    ties = [t for t in ties if t != best.columns]
    return BestQID(
        columns=_names(names, best.columns),
        singletons=best.singletons,
        distinct=best.distinct,
        examined=search.n,
        dropped=dropped,
        ties=tuple(_names(names, t) for t in ties),
        identifiers=tuple(_names(names, i) for i in identifiers),
        candidates=names,
        table_of=_table(examined, names, search.k, search.n),
        max_size=search.max_size,
        upper_bound=bound,
        k=search.k,
        at_risk=best.at_risk,
        pruned=search.pruned,
    )


def _names(names: tuple[Hashable, ...], positions: tuple[int, ...]) -> tuple[Hashable, ...]:
    return tuple(names[i] for i in positions)


def _table(
    examined: Examined, names: tuple[Hashable, ...], k: int, n: int
) -> Callable[[], pd.DataFrame]:
    """What builds the table of every subset ``examined``, most singletons first, then
    fewest columns: the frame is built when asked (the figures are a few numbers a subset)."""

    def build() -> pd.DataFrame:
        found = pd.DataFrame(
            {
                "columns": examined.named(names),
                "size": examined.sizes(),
                "singletons": examined.singletons,
                "at_risk": examined.at_risk,
                "distinct": examined.distinct,
                "status": [STATUSES[code] for code in examined.status],
            }
        )
        table = found[["columns", "size", "singletons"]].assign(
            fraction=found["singletons"] / n,
            **({f"rows below k={k}": found["at_risk"]} if k != 2 else {}),
            distinct=found["distinct"],
            status=found["status"],
        )
        order = table.assign(electable=table["status"] != IDENTIFIER).sort_values(
            ["electable", f"rows below k={k}" if k != 2 else "singletons", "size"],
            ascending=[False, False, True],
            kind="stable",
        )
        return table.loc[order.index].reset_index(drop=True)

    return build
