"""The validation corpus (``corpus.py``): every ISTAT name rewritten as real files write it.

Deterministic, over the whole list (about 23,000 rewrites, each resolved twice: without and
with a province column); about 30 s. The shares are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import os

import pandas as pd
import pytest

if os.environ.get("CI"):
    import pandas_anon_italy as italy
else:
    italy = pytest.importorskip(
        "pandas_anon_italy", reason="pip install -e plugins/pandas-anon-italy"
    )

import corpus


@pytest.fixture(scope="module")
def rewrites() -> pd.DataFrame:
    return corpus.build(italy.load_comuni())


def test_every_rewrite_kind_is_exercised(rewrites):
    counts = rewrites["kind"].value_counts()
    assert set(counts.index) == set(corpus.REWRITES)
    assert counts["upper case"] == 7_896
    assert counts.drop(["upper case", "typo"]).sum() > 3_000


@pytest.mark.parametrize("with_province", [False, True], ids=["no province", "province"])
def test_rewritten_names_resolve_right_or_are_refused_never_wrong(rewrites, with_province):
    scored = corpus.score(rewrites, with_province=with_province)
    table = corpus.shares(scored)
    print(f"\nwith a province column: {with_province}\n{table.to_string()}")
    assert (scored["outcome"] == "wrong").sum() == 0, scored[scored["outcome"] == "wrong"]
    assert table.loc["all but typo", "right"] >= 99.0
    assert table.loc["typo", "right"] >= 95.0
    # collisions are rewrites that are another comune's name (or former name): no matcher
    # can tell them, so they are counted apart from the shares; there must be few
    assert table.loc["all but typo", "collisions"] < 0.5 / 100 * table.loc["all but typo", "rows"]
