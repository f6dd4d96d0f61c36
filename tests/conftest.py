"""Shared fixtures: the real data (loaded once) and an independent verifier."""

from __future__ import annotations

import pandas as pd
import pytest

import pandas_anon  # noqa: F401  (registers df.anon)
from pandas_anon.datasets import load_driver_licenses

SEED_QID = ["anno_nascita", "comune_residenza", "sesso"]
PERSONAL = ["anno_nascita", "comune_residenza", "provincia_residenza", "sesso"]


@pytest.fixture(scope="session")
def _licences() -> pd.DataFrame:
    return load_driver_licenses()


@pytest.fixture
def licences(_licences: pd.DataFrame) -> pd.DataFrame:
    """The Valle d'Aosta driving-licence table (a fresh copy per test: tests may not share
    mutations, and the copy is what the no-mutation checks compare against)."""
    return _licences.copy()
