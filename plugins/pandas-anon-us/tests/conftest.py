"""Fixtures of the plugin's tests: a sample of real ZIP codes (tests/data, see its NOTICE)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def zip_sample() -> pd.DataFrame:
    """Read once per run; tests take :func:`sample`, a copy of it."""
    return pd.read_csv(DATA / "zip_sample.csv", dtype=str, keep_default_na=False)


@pytest.fixture
def sample(zip_sample: pd.DataFrame) -> pd.DataFrame:
    """A fresh copy of the sample for each test: ``zip`` (five digits) and ``state``."""
    return zip_sample.copy()
