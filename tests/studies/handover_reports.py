"""The risk reports of the real tables, made once per test process and shared by the page's
tests and the browser's: each compares three methods in zero configuration (its QID widened
until its release passes the gate's rule), which takes a while on 87,642 rows."""

from __future__ import annotations

from functools import cache

from pandas_anon.datasets import load_adult, load_driver_licenses
from pandas_anon.studies.handover import RiskReport, risk_report


@cache
def licence_report() -> RiskReport:
    """The report of the Valle d'Aosta driving licences, as ``pandas-anon report`` makes it."""
    return risk_report(load_driver_licenses(), title="patenti.csv")


@cache
def adult_report() -> RiskReport:
    """The report of UCI Adult."""
    return risk_report(load_adult(), title="adult.csv")


@cache
def adult_task_report() -> RiskReport:
    """The report of UCI Adult with ``salary-class`` to predict (the fixes' task utility)."""
    return risk_report(load_adult(), title="adult.csv", target="salary-class")
