"""Fixtures of the plugin's tests: the Valle d'Aosta table embedded in pandas-anon."""

from __future__ import annotations

import pandas as pd
import pytest

from pandas_anon.datasets import load_driver_licenses


@pytest.fixture(scope="session")
def valle_daosta() -> pd.DataFrame:
    """Read once per run; tests take :func:`licences`, a copy of it."""
    return load_driver_licenses()


@pytest.fixture
def licences(valle_daosta: pd.DataFrame) -> pd.DataFrame:
    """A fresh copy of the driving-licence table for each test."""
    return valle_daosta.copy()
