"""A column's values read as pandas stores them (``column_array``): the values of
``frame[column]``, through pandas' accessor or, without it, through the Series."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pandas_anon import DuplicateColumnsError
from pandas_anon.engine.columns import column_array


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": np.array([30, 40, 50], dtype=np.int64),
            "height": [1.5, 1.6, np.nan],
            "sex": pd.Series(["F", "M", None], dtype="string[pyarrow]"),
            "code": pd.Series([1, None, 3], dtype="Int64"),
            3: pd.Categorical(["a", "b", "a"]),
        }
    )


@pytest.mark.parametrize("accessor", [True, False])
def test_column_array_holds_the_values_of_the_column(accessor, monkeypatch):
    frame = _frame()
    if not accessor:  # a pandas without DataFrame._get_column_array
        monkeypatch.delattr(pd.DataFrame, "_get_column_array")
    for column in frame.columns:
        values = column_array(frame, column)
        assert values.dtype == frame[column].dtype
        expected = frame[column]
        if isinstance(expected.dtype, np.dtype):
            assert isinstance(values, np.ndarray)
            np.testing.assert_array_equal(values, expected.to_numpy())
        else:
            pd.testing.assert_extension_array_equal(values, expected.array)
    assert column_array(frame, "sex").__arrow_array__() is frame["sex"].array.__arrow_array__()


def test_column_array_refuses_a_name_of_several_columns():
    frame = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(DuplicateColumnsError, match="several columns named 'a'"):
        column_array(frame, "a")
