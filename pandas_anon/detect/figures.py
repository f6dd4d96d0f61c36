"""See the risk: singletons, identifiers and risk figures of a quasi-identifier.

Definitions follow Pastore et al. (2020), "Detecting and Generalizing Quasi-Identifiers by
Affecting Singletons", section 3.1: a
*singleton* is a row whose combination of values on the quasi-identifier (QID) occurs once;
an *identifier* (ID) is a column set whose values are all distinct.

Every figure is read from the frequency set of the columns (the backend's
:func:`~pandas_anon.engine.backends.pandas.tabulate`): a singleton is a combination of count 1,
the class sizes are the counts. Rows are reached again only when a result is asked for them
(:attr:`~pandas_anon.detect.results.Singletons.mask`), through the backend's map from rows to
combinations.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pandas_anon.detect.population import (
    check_population,
    population_size,
    population_uniqueness,
)
from pandas_anon.detect.results import Risk, Singletons, class_size_table
from pandas_anon.detect.subsets import SubsetSearch, check_max_size
from pandas_anon.engine.backends import dask_backend, is_dask, tabulate
from pandas_anon.engine.columns import (
    all_columns,
    as_label_list,
    columns_except,
    require_data,
    resolve_columns,
)
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.weights import Weights, weight_column
from pandas_anon.errors import InvalidQIDError

QID = Iterable[Hashable] | Hashable

if TYPE_CHECKING:
    from pandas_anon.engine.backends.dask import DaskTabulation
    from pandas_anon.engine.backends.pandas import Tabulation


def singletons(
    frame: pd.DataFrame, qid: QID, *, dropna: bool = True, weights: Weights | None = None
) -> Singletons:
    """Count (and locate) the rows unique on ``qid``.

    A *singleton* is a row whose combination of values on the quasi-identifier (QID) occurs
    once: the rows sharing a combination form an equivalence class, and a singleton is alone
    in its class, so whoever knows those values of a person finds the person's row. This is
    the definition of Pastore et al. [1]_. The figures are read from the frequency set of the
    ``qid`` columns; the rows themselves are reached only when ``mask`` or ``rows`` of the
    result is read. ``df.anon.singletons(qid, ...)`` is the same function as an accessor.

    With ``dropna=True`` rows missing any QID value are dropped first and reported in
    ``.dropped``; with ``dropna=False`` missing is a value like any other.

    ``weights``: for an aggregated table, the count column (or one count per row) giving
    the people each row stands for (:mod:`pandas_anon.engine.weights`). Every figure is then
    about people, as on the table exploded to one row per person: a singleton is a
    combination counting one person, and ``mask`` marks the rows (cells) holding one.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, never modified. A Dask DataFrame is accepted too: its frequency set is
        counted where its partitions are, and ``mask`` is then a lazy Dask Series.
    qid : label or iterable of labels
        The quasi-identifier: one column label, or several (a tuple that is a label of the
        frame, as with MultiIndex columns, is one label). Their order does not matter: the
        result lists them in the frame's column order.
    dropna : bool, default True
        Leave out the rows missing a value in any ``qid`` column (as the seed paper does) and
        count them in ``dropped``. False: a missing value is a value of its own.
    weights : label, sequence of int, numpy.ndarray or pandas.Series, optional
        The people each row of an aggregated table stands for: the label of a count column
        (which must not be in ``qid``), or one count per row, taken by position. Counts are
        whole numbers from 0 up (text that reads as such is accepted); a missing count is 0,
        and rows counting nobody are not examined. Default None: each row is one person.

    Returns
    -------
    Singletons
        ``qid`` (the columns, in the frame's column order), ``count`` (the singletons),
        ``fraction`` (``count / examined``), ``distinct`` (the equivalence classes),
        ``examined`` and ``dropped`` (the rows counted and the rows left out for a missing
        value; people, with ``weights``) and ``class_sizes``; on request, ``mask`` (a
        boolean Series aligned to ``frame``, named ``singleton``, True on singleton rows and
        False on dropped rows) and ``rows`` (the singleton rows, every column, as a new
        DataFrame).

    Raises
    ------
    InvalidQIDError
        ``qid`` is empty, names a column twice, or holds the count column ``weights`` names.
    ColumnNotFoundError
        A ``qid`` column, or the count column ``weights`` names, is not in the frame.
    DuplicateColumnsError
        A name in ``qid`` labels several columns of the frame.
    EmptyDataError
        The frame has no rows or no columns; with ``dropna=True``, every row misses a value
        in some ``qid`` column; with ``weights``, every row counts nobody.
    AllMissingColumnError
        A ``qid`` column holds only missing values (with ``weights``: on the rows counting
        someone), whatever ``dropna``.
    UnhashableValueError
        A ``qid`` column holds values that cannot be compared for equality (lists, dicts,
        sets).
    InvalidParameterError
        ``weights`` is not one count per row (a sequence of another length), or a count is
        not a whole number from 0 to 2**53 (negative, fractional, true/false or text that is
        no number); or ``weights`` is given with a Dask frame.

    Warns
    -----
    IncompleteRowsWarning
        With ``dropna=True``, fewer than half of the rows (people, with ``weights``) are
        complete on ``qid``; the message names the emptiest columns.

    See Also
    --------
    pandas_anon.risk : Risk figures of a QID, its singletons among them.
    pandas_anon.best_qid : Elect the column subset exposing the most singletons.
    pandas_anon.identifiers : Column sets whose values are all distinct.
    pandas_anon.melt_counts : Put a table of one count column per category in long form.
    pandas_anon.generalize : Generalize the singletons alone (``rows="singletons"``).
    pandas_anon.kanon : Make every class hold at least k rows.

    References
    ----------
    .. [1] Pastore, Pellegrino and Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797,
       paper 32), section 3.1.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {"year": [1980, 1980, 1991, 1991, 1975], "sex": ["f", "m", "f", "f", "m"]}
    ... )
    >>> found = pandas_anon.singletons(df, ["year", "sex"])
    >>> found.count, found.distinct, found.examined
    (3, 4, 5)
    >>> found.mask.tolist()
    [True, True, False, False, True]
    >>> df.anon.singletons("sex").count
    0

    A row missing a value is left out, unless ``dropna=False`` makes missing a value:

    >>> gaps = pd.DataFrame({"year": [1980, 1980, None, 1975], "sex": ["f", "f", "m", "m"]})
    >>> found = pandas_anon.singletons(gaps, ["year", "sex"])
    >>> found.count, found.examined, found.dropped
    (1, 3, 1)
    >>> pandas_anon.singletons(gaps, ["year", "sex"], dropna=False).count
    2

    On a count table the figures are about people: one man lives in the north.

    >>> counts = pd.DataFrame(
    ...     {"area": ["north", "north", "south"], "sex": ["m", "f", "m"], "n": [1, 4, 2]}
    ... )
    >>> found = pandas_anon.singletons(counts, ["area", "sex"], weights="n")
    >>> found.count, found.examined
    (1, 7)
    """
    _outside(frame, qid, weights)
    return _singletons(frame, tabulate(frame, qid, dropna=dropna, weights=weights))


def _singletons(frame: pd.DataFrame, tabulation: Tabulation | DaskTabulation) -> Singletons:
    frequencies = tabulation.frequencies
    return Singletons(
        qid=frequencies.columns,
        count=int(np.count_nonzero(frequencies.counts == 1)),
        distinct=len(frequencies),
        examined=tabulation.n_examined,
        dropped=tabulation.n_dropped,
        _frame=frame,
        _tabulation=tabulation,
    )


def identifiers(
    frame: pd.DataFrame, columns: QID | None = None, *, max_size: int = 1
) -> list[tuple[Hashable, ...]]:
    """Find the minimal column sets of up to ``max_size`` columns whose values are all distinct.

    Such a column set is an *identifier* (ID): it tells every row apart by itself, as a
    record number does. Pastore et al. [1]_ set IDs apart from quasi-identifiers, and so does
    :func:`pandas_anon.best_qid`. A set is minimal when no smaller set inside it is an
    identifier: the supersets of an identifier are not listed.

    Every row counts: a missing value is a value, so a column with two empty cells is not an
    identifier. Columns with no value at all are skipped when ``columns`` is None.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, never modified (a Dask DataFrame is accepted too).
    columns : label, iterable of labels or None, default None
        The columns searched: one label or several. None: every column of the frame holding
        at least one value.
    max_size : int, default 1
        The most columns in a set: 1 finds the single identifier columns, 2 pairs of columns
        as well, and so on. A whole number of at least 1.

    Returns
    -------
    list of tuple
        Each minimal identifier as a tuple of labels in the frame's column order; the
        smallest sets first, then in the frame's column order. Empty when there is none.

    Raises
    ------
    InvalidParameterError
        ``max_size`` is not a whole number of at least 1 (a bool or text is refused).
    InvalidQIDError
        ``columns`` is empty or names a column twice; or, ``columns`` being None, no column
        of the frame holds a value.
    ColumnNotFoundError
        A column of ``columns`` is not in the frame.
    DuplicateColumnsError
        A column searched (named in ``columns``, or any column when it is None) shares its
        name with another column of the frame.
    EmptyDataError
        The frame has no rows or no columns.
    AllMissingColumnError
        A column named in ``columns`` holds only missing values.
    UnhashableValueError
        A column searched holds values that cannot be compared for equality (lists, dicts,
        sets).

    See Also
    --------
    pandas_anon.singletons : Rows unique on a quasi-identifier.
    pandas_anon.best_qid : Elect the best quasi-identifier, identifiers left out.
    pandas_anon.kanon : Anonymize a frame; it drops the direct identifier columns it finds
        (``identifiers=``).

    References
    ----------
    .. [1] Pastore, Pellegrino and Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797,
       paper 32), section 3.1.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {
    ...         "id": [4, 3, 2, 1],
    ...         "year": [1980, 1980, 1991, 1991],
    ...         "sex": ["f", "m", "f", "m"],
    ...         "note": ["x", None, None, "y"],
    ...     }
    ... )
    >>> pandas_anon.identifiers(df)
    [('id',)]
    >>> pandas_anon.identifiers(df, max_size=2)
    [('id',), ('year', 'sex'), ('year', 'note'), ('sex', 'note')]

    ``note`` alone is no identifier: its two missing cells are equal.
    """
    check_max_size(max_size)
    frequencies, _ = candidate_frequencies(frame, columns, dropna=False)
    search = SubsetSearch(frequencies, max_size=max_size)
    for _ in search.levels():
        pass
    return [tuple(frequencies.columns[i] for i in ids) for ids in search.identifiers]


def risk(
    frame: pd.DataFrame,
    qid: QID,
    *,
    dropna: bool = True,
    weights: Weights | None = None,
    population: int | None = None,
    sampling_fraction: float | None = None,
) -> Risk:
    """Measure the re-identification risk of ``qid`` from its equivalence classes.

    Risk figures of ``qid``: sample uniques, prosecutor and marketer risk, class sizes, and
    how many singletons disappear when each column is dropped from the QID. ``weights``:
    people per row of an aggregated table, as :func:`singletons` takes them; every figure is
    then about people. ``df.anon.risk(qid, ...)`` is the same function as an accessor.

    Without ``population`` or ``sampling_fraction`` the table is taken as the whole
    population, so these are sample figures (a row unique in the table may share its values
    with people outside it). With one of them the table is a sample of a population of that
    size, and the result adds ``population_uniques``, the estimated fraction of the
    population's records unique on ``qid`` (what ARX 3.9 reports as population uniqueness)
    by a log-linear model of the sample's combinations (:mod:`pandas_anon.detect.loglinear`),
    and ``population_uniques_by_model``: that model's figure (``loglinear``) and ARX's, by
    Dankar et al.'s decision rule [3]_ (``dankar``) among the models of Zayatz, Pitman and the
    slide negative binomial, read from the class-size histogram
    (:mod:`pandas_anon.detect.population`).
    The sample uniques are the singletons of Pastore et al. [1]_. A row in a class of f rows
    has a prosecutor risk of 1 / f [2]_: the largest is 1 / (smallest class size), and the
    average over the rows is classes / rows, which is also the marketer risk (the expected
    share of rows re-identified by an attacker who links every row to an outside list of the
    same people).
    The figures without each column are counted on the same examined rows as the whole QID:
    no row comes back when a column is removed.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, never modified (a Dask DataFrame is accepted too).
    qid : label or iterable of labels
        The quasi-identifier: one column label, or several, as :func:`singletons` takes it.
    dropna : bool, default True
        Leave out the rows missing a value in any ``qid`` column. False: a missing value is a
        value of its own.
    weights : label, sequence of int, numpy.ndarray or pandas.Series, optional
        The people each row of an aggregated table stands for: the label of a count column
        (not in ``qid``) or one count per row, as :func:`singletons` takes them. Default
        None: each row is one person.
    population : int, optional
        The size of the population the table was drawn from (people), at least the table's
        rows (people, with ``weights``). Not with ``sampling_fraction``.
    sampling_fraction : float, optional
        The table's share of that population, in (0, 1]; the population is then
        ``round(rows / sampling_fraction)``, as ARX rounds it. Not with ``population``.

    Returns
    -------
    Risk
        ``uniques`` (the :class:`~pandas_anon.Singletons` of the same QID; its ``mask``
        locates the sample uniques), ``qid``, ``examined``, ``dropped``, ``classes``,
        ``sample_uniques`` and ``sample_uniques_fraction``, ``smallest_class``,
        ``prosecutor_max`` (1 / ``smallest_class``), ``prosecutor_avg`` and ``marketer``
        (``classes / examined``), ``highest_risk_records`` and ``highest_risk_fraction``
        (the rows in classes of the smallest size), ``class_sizes`` (a DataFrame of the
        classes and rows per class size: 1, 2, 3-4, 5-9, 10-99, 100+) and ``contributions``
        (a DataFrame giving, for each QID column, the ``singletons without it`` and the
        ``singletons removed`` by dropping it); with a population, ``population_estimate``
        (its size, the sampling fraction, the model, the model Dankar et al.'s rule chose),
        ``population_uniques`` (the log-linear model's) and ``population_uniques_by_model``
        (``zayatz``, ``pitman``, ``snb``, ``dankar``, ``loglinear``: a fraction, or None where
        ARX has no estimate), else None.

    Raises
    ------
    InvalidQIDError, ColumnNotFoundError, DuplicateColumnsError, EmptyDataError
        As :func:`singletons` raises them, for the same ``qid``, ``dropna`` and ``weights``.
    AllMissingColumnError, UnhashableValueError, InvalidParameterError
        As :func:`singletons` raises them.
    InvalidParameterError
        Both ``population`` and ``sampling_fraction``; a ``population`` that is not a whole
        number or is smaller than the table; a ``sampling_fraction`` outside (0, 1].

    Warns
    -----
    IncompleteRowsWarning
        As :func:`singletons` warns (most rows missing a QID value, with ``dropna=True``).

    See Also
    --------
    pandas_anon.singletons : The singletons alone, and the rows holding them.
    pandas_anon.best_qid : Elect the column subset exposing the most singletons.
    pandas_anon.kanon : Make every class hold at least k rows.

    References
    ----------
    .. [1] Pastore, Pellegrino and Scarano (2020), "Detecting and Generalizing
       Quasi-Identifiers by Affecting Singletons", CeDEM/EGOV 2020 (CEUR-WS Vol-2797,
       paper 32), section 3.1.
    .. [2] El Emam et al. (2009), "A Globally Optimal k-Anonymity Method for the
       De-Identification of Health Data", section 2.
    .. [3] Dankar, El Emam, Neisa and Roffey (2012), "Estimating the re-identification risk
       of clinical data sets", BMC Medical Informatics and Decision Making 12:66, section
       "Methods: Decision rule".

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> df = pd.DataFrame(
    ...     {"year": [1980, 1980, 1991, 1991, 1975], "sex": ["f", "m", "f", "f", "m"]}
    ... )
    >>> r = pandas_anon.risk(df, ["year", "sex"])
    >>> r.sample_uniques, r.classes, r.smallest_class, r.highest_risk_records
    (3, 4, 1, 3)
    >>> r.prosecutor_max, r.prosecutor_avg
    (1.0, 0.8)

    Dropping ``year`` from the QID would remove its 3 singletons, dropping ``sex`` 2:

    >>> r.contributions["singletons removed"].tolist()
    [3, 2]

    On ``sex`` alone the table is 2-anonymous:

    >>> r = df.anon.risk("sex")
    >>> r.sample_uniques, r.smallest_class, r.prosecutor_max
    (0, 2, 0.5)
    """
    _outside(frame, qid, weights)
    check_population(population, sampling_fraction)
    tabulation = tabulate(frame, qid, dropna=dropna, weights=weights)
    found = _singletons(frame, tabulation)
    frequencies = tabulation.frequencies
    sizes = found.class_sizes
    uniques = found.count
    without = {
        column: _singleton_count(frequencies, [c for c in frequencies.columns if c != column])
        for column in frequencies.columns
    }
    contributions = pd.DataFrame(
        {
            "column": [str(c) for c in without],
            "singletons without it": list(without.values()),
            "singletons removed": [uniques - left for left in without.values()],
        }
    )
    smallest = int(sizes.min())
    size = population_size(found.examined, population, sampling_fraction)
    return Risk(
        uniques=found,
        smallest_class=smallest,
        highest_risk_records=int(sizes[sizes == smallest].sum()),
        class_sizes=class_size_table(sizes),
        contributions=contributions,
        population_estimate=(
            None if size is None else population_uniqueness(sizes, size, frequencies.codes)
        ),
    )


def _singleton_count(frequencies: FrequencySet, columns: list[Hashable]) -> int:
    """Combinations of ``columns`` carrying one row (the frequency set projected on them)."""
    projected, _ = frequencies.project(columns)
    return int(np.count_nonzero(projected.counts == 1))


def candidate_columns(
    frame: pd.DataFrame, columns: QID | None, weights: Weights | None = None
) -> tuple[Hashable, ...]:
    """``columns`` checked, or (None) every column of the frame holding at least one value,
    less the count column ``weights`` names; :class:`EmptyDataError` for a frame without
    rows or columns."""
    if is_dask(frame):  # checked as the frame is read, in one pass
        return (
            dask_backend().present_columns(frame)
            if columns is None
            else resolve_columns(frame, columns)
        )
    require_data(frame)
    if columns is not None:
        _outside(frame, columns, weights)
        return resolve_columns(frame, columns)
    counted = weight_column(frame, weights)
    return tuple(c for c in columns_except(all_columns(frame), counted) if frame[c].notna().any())


def candidate_frequencies(
    frame: pd.DataFrame, columns: QID | None, *, dropna: bool, weights: Weights | None = None
) -> tuple[FrequencySet, int]:
    """The frequency set of the :func:`candidate_columns`, and the rows of the frame it
    leaves out (missing a value, with ``dropna``; people, with ``weights``); the map back to
    rows is not kept."""
    tabulation = tabulate(
        frame, candidate_columns(frame, columns, weights), dropna=dropna, weights=weights
    )
    return tabulation.frequencies, tabulation.n_dropped


def _outside(frame: pd.DataFrame, qid: QID, weights: Weights | None) -> None:
    """Refuse a count column inside the quasi-identifier: it counts people, it describes
    none."""
    counted = weight_column(frame, weights)
    if counted is not None and counted in as_label_list(qid, frame.columns):
        raise InvalidQIDError(
            f"the count column {counted!r} (weights=) is inside the quasi-identifier; it counts "
            f"the people of each row and describes none of them: leave it out"
        )
