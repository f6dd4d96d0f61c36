"""The pandera checks registered at ``import pandas_anon``: verdicts checked against plain
pandas, messages made of counts only, and pandera's own report leaking nothing."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest
from pandera.errors import SchemaError, SchemaErrors

import pandas_anon.gate.pandera_checks
from pandas_anon.errors import InvalidParameterError
from pandas_anon.gate.pandera_checks import Limits, measure

from conftest import SEED_QID
from verify import naive_counts

SECRETS = ("SECRET_TOWN_17", "SECRET_YEAR_1899", "SECRET_SEX_X")


def smallest_class(frame: pd.DataFrame, qid: list) -> int:
    """k with plain pandas: the smallest group, missing counted as a value (as the gate does)."""
    return int(frame.groupby(qid, sort=False, dropna=False).size().min())


def fails(schema: pa.DataFrameSchema, frame: pd.DataFrame) -> str:
    with pytest.raises(SchemaError) as info:
        schema.validate(frame)
    return str(info.value)


def checked(*checks: pa.Check) -> pa.DataFrameSchema:
    return pa.DataFrameSchema(checks=list(checks))


def test_checks_are_registered_once_at_import():
    for name in ("anon_max_singletons", "anon_k_anonymous", "anon_l_diverse"):
        assert name in pa.Check.REGISTERED_CUSTOM_CHECKS
    importlib.reload(pandas_anon.gate.pandera_checks)  # a second import must not register again


def test_max_singletons_on_the_seed_data(licences):
    # the gate counts a missing value as a value (as kanon does): every row is examined
    expected = naive_counts(licences, SEED_QID, dropna=False)
    assert (expected["singletons"], expected["examined"]) == (1_800, 87_642)
    message = fails(
        checked(pa.Check.anon_max_singletons(qid=SEED_QID, max_fraction=0.01)), licences
    )
    assert message == (
        "anon_max_singletons: 1,800 singletons (2.05 % of 87,642 rows examined) on "
        "(anno_nascita, comune_residenza, sesso): more than the 1 % allowed"
    )
    checked(pa.Check.anon_max_singletons(qid=SEED_QID, max_fraction=0.021)).validate(licences)
    checked(pa.Check.anon_max_singletons(qid=SEED_QID, max_count=1_800)).validate(licences)
    assert "more than the 1,799 allowed" in fails(
        checked(pa.Check.anon_max_singletons(qid=SEED_QID, max_count=1_799)), licences
    )


def test_without_a_threshold_no_singleton_is_allowed():
    frame = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 1, 2, 2]})
    schema = checked(pa.Check.anon_max_singletons(qid=["a", "b"]))
    schema.validate(frame)
    assert "more than the 0 allowed" in fails(schema, frame.iloc[:3])


def test_numpy_integers_are_whole_numbers_everywhere(licences):
    """A k computed with numpy (``sizes.min()``) is accepted like a Python int, as the
    other entry points accept it."""
    qid = ["anno_nascita", "sesso"]
    k = licences.groupby(qid, dropna=False).size().min()  # a numpy integer
    checked(pa.Check.anon_k_anonymous(qid=qid, k=k)).validate(licences)
    with pytest.raises(InvalidParameterError, match="k must be a whole number of at least 1"):
        Limits(k=np.int64(0))


def test_k_anonymous_against_plain_pandas(licences):
    qid = ["anno_nascita", "sesso"]
    k = smallest_class(licences, qid)
    checked(pa.Check.anon_k_anonymous(qid=qid, k=k)).validate(licences)
    message = fails(checked(pa.Check.anon_k_anonymous(qid=qid, k=k + 1)), licences)
    sizes = licences.groupby(qid, dropna=False).size()
    below = int(sizes[sizes < k + 1].sum())
    assert message == (
        f"anon_k_anonymous: k = {k} on (anno_nascita, sesso), below the {k + 1} "
        f"required: {below:,} row{'s' if below != 1 else ''} in classes of fewer "
        f"than {k + 1}"
    )


def test_l_diverse_against_plain_pandas(licences):
    qid, sensitive = ["provincia_residenza", "sesso"], "categoria_patente"
    # a missing QID value is a value (a class), a missing sensitive value is none
    reached = int(licences.groupby(qid, dropna=False)[sensitive].nunique().min())
    checked(pa.Check.anon_l_diverse(qid=qid, sensitive=sensitive, l=reached)).validate(licences)
    message = fails(
        checked(pa.Check.anon_l_diverse(qid=qid, sensitive=sensitive, l=reached + 1)), licences
    )
    assert message.startswith(
        f"anon_l_diverse: distinct l = {reached} on (provincia_residenza, "
        f"sesso) for 'categoria_patente', below the {reached + 1} required"
    )


def test_usable_in_a_dataframe_model(licences):
    class Licences(pa.DataFrameModel):
        anno_nascita: pd.Int64Dtype = pa.Field(nullable=True)

        class Config:
            anon_max_singletons = {"qid": SEED_QID, "max_fraction": 0.01}
            anon_k_anonymous = {"qid": ["provincia_residenza"], "k": 2}

    with pytest.raises(SchemaErrors) as info:
        Licences.validate(licences, lazy=True)
    assert "1,800 singletons" in str(info.value)
    assert "anon_k_anonymous" not in str(info.value)  # a single province: one class
    generalized = licences.assign(comune_residenza=licences["provincia_residenza"])
    Licences.validate(generalized)


def test_data_problems_fail_the_check_with_our_message(licences):
    missing = fails(checked(pa.Check.anon_k_anonymous(qid=["anno_nascita", "nope"], k=2)), licences)
    assert missing.startswith("anon_k_anonymous: column 'nope' not found")
    empty = licences.assign(sesso=pd.NA)
    assert "holds only missing values" in fails(
        checked(pa.Check.anon_max_singletons(qid=SEED_QID, max_count=5)), empty
    )


@pytest.mark.parametrize(
    "check",
    [
        pa.Check.anon_max_singletons(qid=SEED_QID, max_fraction=1.5),
        pa.Check.anon_max_singletons(qid=SEED_QID, max_count=-1),
        pa.Check.anon_k_anonymous(qid=SEED_QID, k=0),
        pa.Check.anon_l_diverse(qid=SEED_QID, sensitive="categoria_patente", l=True),
    ],
)
def test_bad_thresholds_are_reported(licences, check):
    assert "must be" in fails(checked(check), licences)


def test_the_frame_is_not_modified(licences):
    before = licences.copy(deep=True)
    with pytest.raises(SchemaErrors):
        checked(
            pa.Check.anon_max_singletons(qid=SEED_QID),
            pa.Check.anon_k_anonymous(qid=SEED_QID, k=3),
            pa.Check.anon_l_diverse(qid=SEED_QID, sensitive="categoria_patente", l=2),
        ).validate(licences, lazy=True)
    pd.testing.assert_frame_equal(licences, before)


@pytest.fixture
def planted() -> pd.DataFrame:
    """Ten people sharing one combination, and one unique person whose values are distinctive."""
    return pd.DataFrame(
        {
            "town": ["AOSTA"] * 10 + [SECRETS[0]],
            "year": ["1970"] * 10 + [SECRETS[1]],
            "sex": ["F"] * 10 + [SECRETS[2]],
            "diagnosis": ["flu", "cold"] * 5 + ["rare"],
        }
    )


def test_pandera_default_report_would_leak(planted):
    """Why the checks build their own message: a plain row-wise check lists the values."""
    naive = checked(pa.Check(lambda df: df.duplicated(["town", "year", "sex"], keep=False)))
    with pytest.raises(SchemaError) as info:
        naive.validate(planted)
    assert any(secret in str(info.value) for secret in SECRETS)


@pytest.mark.parametrize("lazy", [False, True])
def test_no_quasi_identifier_value_in_pandera_errors(planted, lazy):
    qid = ["town", "year", "sex"]
    schema = checked(
        pa.Check.anon_max_singletons(qid=qid, max_fraction=0.01),
        pa.Check.anon_k_anonymous(qid=qid, k=5),
        pa.Check.anon_l_diverse(qid=qid, sensitive="diagnosis", l=2),
    )
    with pytest.raises((SchemaError, SchemaErrors)) as info:
        schema.validate(planted, lazy=lazy)
    error = info.value
    texts = [str(error), repr(error), str(error.failure_cases)]
    if lazy:
        texts += [error.failure_cases.to_string(), json.dumps(error.message, default=str)]
        assert error.error_counts == {"DATAFRAME_CHECK": 3}
    assert "1 singleton (9.09 % of 11 rows examined)" in texts[0]
    for text in texts:
        assert not any(secret in text for secret in SECRETS)


def test_measure_and_limits(licences):
    found = measure(licences, SEED_QID)  # missing counted as a value, as kanon counts it
    assert (found.rows, found.examined, found.singletons, found.distinct) == (
        87_642,
        87_642,
        1_800,
        9_312,
    )
    assert found.smallest_class == 1 and found.rows_below(2) == 1_800
    seed = measure(licences, SEED_QID, dropna=True)  # the seed paper's way
    assert (seed.rows, seed.examined, seed.singletons, seed.distinct) == (
        87_642,
        87_464,
        1_684,
        9_174,
    )
    assert Limits().describe() == "<= 0 singletons"
    assert Limits(max_fraction=0.005, k=5).describe() == "<= 0.5 % singletons, k >= 5"
    assert Limits(max_fraction=0.021).violations(found) == []
    with pytest.raises(InvalidParameterError, match="k must be a whole number of at least 1"):
        Limits(k=2.5)
