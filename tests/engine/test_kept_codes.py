"""A text column's codes are kept between calls for its very Arrow array, and only for it:
a value assigned, another array of the same texts, or the array gone, and the column is
read again."""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd
import pytest

from pandas_anon.engine import kept_codes
from pandas_anon.engine.backends.pandas import tabulate
from pandas_anon.engine.encoding import arrow_text
from pandas_anon.engine.hashing import COMPILED

pytestmark = pytest.mark.skipif(not COMPILED, reason="the extension is not compiled")

ARROW_TEXT = "str" if int(pd.__version__.split(".")[0]) >= 3 else "string[pyarrow]"


@pytest.fixture(autouse=True)
def _nothing_kept():
    kept_codes.forget()
    yield
    kept_codes.forget()


def _frame(n: int = 1_000) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "sex": pd.Series(rng.choice(["F", "M", None], n), dtype=ARROW_TEXT),
            "town": pd.Series(rng.choice(["Aosta", "Ivrea", "Turin"], n), dtype=ARROW_TEXT),
            "age": rng.integers(18, 90, n),
        }
    )


def _counts(frame: pd.DataFrame) -> dict:
    found = tabulate(frame, list(frame.columns)).frequencies
    return found.to_frame().astype(object).set_index(list(frame.columns))["count"].to_dict()


def test_the_codes_of_an_array_are_kept_and_read_again_the_same():
    frame = _frame()
    first = _counts(frame)
    assert kept_codes.held() == 2 * 8 * len(frame)  # the two text columns, not the numbers
    kept = kept_codes.kept(arrow_text(frame["sex"]))
    assert kept is not None and not kept.codes.flags.writeable
    assert list(kept.values[:-1]) == list(pd.unique(frame["sex"].dropna()))
    assert pd.isna(kept.values[-1]) and kept.codes.max() == kept.cardinality - 1  # missing last
    assert _counts(frame) == first


def test_a_value_assigned_makes_a_new_array_read_again():
    frame = _frame()
    _counts(frame)
    frame.loc[0, "town"] = "Courmayeur"  # pandas writes a new Arrow array
    found = _counts(frame)
    assert sum(n for key, n in found.items() if key[1] == "Courmayeur") == 1
    assert found == _counts(frame.copy(deep=True))


def test_another_array_of_the_same_texts_is_not_served_the_kept_codes():
    frame = _frame()
    _counts(frame)
    same_texts = pd.Series(frame["town"].tolist(), dtype=ARROW_TEXT)  # a new Arrow array
    assert kept_codes.kept(arrow_text(same_texts)) is None
    shuffled = frame.iloc[::-1].reset_index(drop=True)
    assert _counts(shuffled) == _counts(frame)


def test_the_codes_go_with_their_array():
    frame = _frame()
    _counts(frame)
    assert kept_codes.held() > 0
    del frame
    gc.collect()
    _counts(_frame(10))  # the next call drops the entries of arrays gone
    assert kept_codes.held() == 2 * 8 * 10


def test_the_least_recently_used_codes_are_given_up_beyond_the_limit(monkeypatch):
    monkeypatch.setattr(kept_codes, "LIMIT", 3 * 8 * 1_000)
    one, two = _frame(), _frame()
    _counts(one)
    _counts(two[["sex"]])
    assert kept_codes.held() == 3 * 8 * 1_000
    _counts(two[["town"]])  # the oldest entry (one's sex) goes
    assert kept_codes.held() == 3 * 8 * 1_000
    assert kept_codes.kept(arrow_text(one["sex"])) is None
    assert kept_codes.kept(arrow_text(one["town"])) is not None
    monkeypatch.setattr(kept_codes, "LIMIT", 8 * 999)  # a column too long: not kept
    kept_codes.forget()
    _counts(one)
    assert kept_codes.held() == 0
