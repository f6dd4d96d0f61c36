"""Builders: hierarchies made from the data itself, so numbers, dates and codes need no table.

Every builder takes one column (a Series, or anything ``pd.Series`` accepts) and returns a
:class:`~pandas_anon.hierarchy.Hierarchy` whose level 0 is the column's distinct non-missing
values, sorted when they can be ordered. Missing values (NaN, NaT, None) are ignored: a
hierarchy describes values, and ``generalize`` keeps missing cells missing. A column with no
value at all raises :class:`~pandas_anon.errors.HierarchyError`; a bad argument raises
:class:`~pandas_anon.errors.InvalidParameterError`.

Labels are text (except ``row_groups(label="median" | "first")``, which keeps the column's
dtype). Numbers print without a spurious ``.0`` (years read next to a NaN are floats:
``1940.0`` prints ``1940``). ``[a, b)`` holds ``a <= x < b``, ``[a, b]`` holds
``a <= x <= b``, ``< a`` and ``>= b`` are the open ends. ``Hierarchy.labels(level)`` lists
each level's labels in the order of the values (numeric order); sorting the label text gives
the same order only while the bounds have as many digits (years do, ages 5 and 10 do not).

The work is done once per distinct value: one ``pandas.factorize`` over the rows, then numpy
on the distinct values, so a builder costs about one ``factorize`` of the column.

The builders live in one module per idea, all re-exported here:

- :mod:`.numeric`: :func:`intervals`, :func:`row_groups`, :func:`top_bottom` (the year
  ranges ``Y_ran`` of Pastore et al. 2020, section 3.2);
- :mod:`.datetimes`: :func:`dates` and :data:`DATE_LEVELS`;
- :mod:`.text`: :func:`masking`, :func:`suppression`;
- :mod:`.auto_choice`: :func:`auto`, :data:`AUTO_MIN_DISTINCT`, :data:`AUTO_MAX_INTERVALS`;
- :mod:`._levels`: the steps they share (one column in, distinct values, levels, Hierarchy out).
"""

from pandas_anon.hierarchy.auto_choice import AUTO_MAX_INTERVALS, AUTO_MIN_DISTINCT, auto
from pandas_anon.hierarchy.datetimes import DATE_LEVELS, dates
from pandas_anon.hierarchy.numeric import intervals, row_groups, top_bottom
from pandas_anon.hierarchy.text import masking, suppression

__all__ = [
    "AUTO_MAX_INTERVALS",
    "AUTO_MIN_DISTINCT",
    "DATE_LEVELS",
    "auto",
    "dates",
    "intervals",
    "masking",
    "row_groups",
    "suppression",
    "top_bottom",
]
