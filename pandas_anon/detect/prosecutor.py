"""Prosecutor risk: the chance that an attacker who knows a person is in the table picks
their row, when the table is its own population (El Emam et al. 2009, section 2).

A row in a class of s rows is picked with probability 1/s. One definition, used by
:func:`pandas_anon.risk` before anything changes and by the reports of every anonymizing
method after (:mod:`pandas_anon.anonymization.utility`).
"""

from __future__ import annotations


def highest(smallest_class: int) -> float:
    """The largest prosecutor risk of a row: 1 / the size of the smallest class."""
    return 1.0 / smallest_class


def average(classes: int, rows: int) -> float:
    """The prosecutor risk averaged over the rows: classes / rows (each class contributes
    its size times 1 / its size)."""
    return classes / rows
