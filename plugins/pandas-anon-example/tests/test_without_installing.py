"""The plugin registered at run time, without installing it: what docs/plugins.md shows."""

import pandas as pd
import pytest

import pandas_anon
import pandas_anon_example
from pandas_anon.plugins import manager as plugins


@pytest.fixture
def example(monkeypatch):
    """pandas-anon with its built-in plugin and this one only."""
    monkeypatch.setenv("PANDAS_ANON_PLUGINS", "")
    plugins.reset()
    plugins.get_plugin_manager().register(pandas_anon_example, name="example")
    yield
    plugins.reset()


def test_ages_go_to_decades(example):
    assert {"example.age", "example.sex"} <= set(pandas_anon.hierarchies()["name"])
    ages = pandas_anon.get_hierarchy("example.age", pd.Series([34, 51]))
    assert list(ages.labels(1)) == ["30-39", "50-59"]
