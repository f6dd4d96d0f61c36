"""``attacks``: a release compared with its original value for value as written, and the
parameters bounded (issue 46, "No false assurance from the API").

A release read back from a file may hold another dtype than its original: a zero-padded code
read as an integer, dates left as text, integers with a missing value read as floats. Each is
either aligned to the original's values exactly (the figures of the release as it was) or
refused naming the column, never compared silently; a generalized label stays a value of its
own. Then the parameters: a seed numpy refuses, a repeated column, counts and attempts without
bound."""

from __future__ import annotations

import io
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon import ColumnNotFoundError, DuplicateColumnsError, InvalidParameterError
from pandas_anon.datasets import load_adult, load_driver_licenses
from pandas_anon.errors import InvalidQIDError
from pandas_anon.studies import attacks as attacks_module

#: The licence columns attacked: a year with one missing value (Int64), a town, the sex and
#: the date the licence was issued (datetime64).
LICENCE_COLUMNS = ["anno_nascita", "comune_residenza", "sesso", "data_rilascio"]


def through_csv(frame: pd.DataFrame, **read) -> pd.DataFrame:
    """``frame`` written to CSV and read back as pandas reads it (types may change)."""
    return pd.read_csv(io.StringIO(frame.to_csv(index=False)), **read).set_axis(frame.index)


def figures(result: pandas_anon.Attacks) -> dict:
    return {r.attack: (r.risk, r.ci, r.n_success, r.n_control) for r in result.risks}


@pytest.fixture(scope="module")
def licences() -> pd.DataFrame:
    """1,200 licence holders of Valle d'Aosta, with ``cap``: a code written with leading
    zeros (``"0042"``) numbering the town of residence, as a postcode is written."""
    table = load_driver_licenses().sample(1200, random_state=7)
    towns = pd.factorize(table["comune_residenza"], sort=True)[0]
    return table.assign(cap=pd.Series(towns, index=table.index).astype(str).str.zfill(4))


def split(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return table.iloc[:1000], table.iloc[1000:]


# -- the release's dtypes are not the original's ---------------------------------------------


def test_a_zero_padded_code_read_back_as_a_number_is_the_originals_code(licences):
    """Issue 46 (3): released as is but read back from CSV, ``"0100"`` becomes 100; compared
    as written, no release record was any original record, and the risk was near 0."""
    original, control = split(licences[["cap", "anno_nascita", "sesso"]])
    released = through_csv(original)
    assert released["cap"].dtype == np.int64 and original["cap"].str.startswith("0").all()
    as_is = pandas_anon.attacks(original, original, control=control, n_attacks=200)
    read_back = pandas_anon.attacks(original, released, control=control, n_attacks=200)
    assert as_is.singling_out.risk > 0.9
    assert figures(read_back) == figures(as_is)


def test_codes_that_one_number_stands_for_are_refused_naming_the_column(licences):
    original, control = split(licences[["cap", "anno_nascita", "sesso"]])
    # one town written without its leading zeros: "0042" and "42" are two values of the
    # original that the release's integer 42 cannot tell apart
    town = original["cap"].mode()[0]
    holders = original.index[original["cap"] == town]
    original = original.copy()
    original.loc[holders[::2], "cap"] = town.lstrip("0")
    with pytest.raises(InvalidParameterError, match="column 'cap'") as info:
        pandas_anon.attacks(original, through_csv(original), control=control, n_attacks=50)
    message = str(info.value)
    assert "str" in message and "int64" in message and "dtype={'cap': str}" in message
    assert town not in message and town.lstrip("0") not in message  # no value of the data


def test_dates_written_with_their_time_are_the_originals_dates(licences):
    """The licence file writes its dates ``1983-12-21 00:00:00``; read without parsing them
    they are text that a date column's CSV (``1983-12-21``) does not write alike."""
    original, control = split(licences[LICENCE_COLUMNS])
    text = load_driver_licenses(parse_dates=False).loc[original.index, LICENCE_COLUMNS]
    assert text["data_rilascio"].str.endswith(" 00:00:00").all()
    as_is = pandas_anon.attacks(original, original, control=control, n_attacks=200)
    as_text = pandas_anon.attacks(original, text, control=control, n_attacks=200)
    assert as_is.singling_out.risk > 0.9
    assert figures(as_text) == figures(as_is)


def test_a_category_of_numbers_read_back_as_floats_is_the_original(licences):
    """A categorical column of years, read back as floats (as a file holding a missing year
    is): its text (1983.0) is not the category's (1983), its value is."""
    table = licences[LICENCE_COLUMNS[:3]].assign(
        anno_nascita=licences["anno_nascita"].astype("category")
    )
    original, control = split(table)
    released = original.assign(anno_nascita=original["anno_nascita"].astype(float))
    as_is = pandas_anon.attacks(original, original, control=control, n_attacks=200)
    read_back = pandas_anon.attacks(original, released, control=control, n_attacks=200)
    assert as_is.singling_out.risk > 0.5
    assert figures(read_back) == figures(as_is)


def test_integers_with_a_missing_value_read_back_as_floats_are_the_original():
    table = load_driver_licenses()[LICENCE_COLUMNS[:3]]
    table = table.iloc[np.r_[np.flatnonzero(table["anno_nascita"].isna()), 0:1199]]
    original, control = split(table)
    assert original["anno_nascita"].dtype == "Int64" and original["anno_nascita"].isna().any()
    released = through_csv(original)
    assert released["anno_nascita"].dtype == np.float64
    as_is = pandas_anon.attacks(original, original, control=control, n_attacks=200)
    assert figures(pandas_anon.attacks(original, released, control=control, n_attacks=200)) == (
        figures(as_is)
    )


def test_text_and_its_category_are_one_value(licences):
    original, control = split(licences[LICENCE_COLUMNS[:3]])
    released = original.assign(comune_residenza=original["comune_residenza"].astype("category"))
    as_is = pandas_anon.attacks(original, original, control=control, n_attacks=200)
    assert figures(pandas_anon.attacks(original, released, control=control, n_attacks=200)) == (
        figures(as_is)
    )


def test_generalized_labels_stay_values_of_their_own():
    """Adult's ages generalized to decades for half the rows: the labels are no original
    age, the ages kept are; as if both columns were written as text."""
    adult = load_adult().sample(1500, random_state=1)[["age", "sex", "race", "education"]]
    original, control = adult.iloc[:1200], adult.iloc[1200:]
    decade = (original["age"] // 10 * 10).map(lambda d: f"[{d}, {d + 10})")
    released = original.assign(age=decade.where(original.index.isin(original.index[::2]), None))
    released["age"] = released["age"].fillna(original["age"].astype(str))
    assert released["age"].dtype != original["age"].dtype
    generalized = pandas_anon.attacks(original, released, control=control, n_attacks=200)
    as_text = pandas_anon.attacks(
        original.assign(age=original["age"].astype(str)),
        released,
        control=control.assign(age=control["age"].astype(str)),
        n_attacks=200,
    )
    as_is = pandas_anon.attacks(original, original, control=control, n_attacks=200)
    assert figures(generalized) == figures(as_text)
    assert generalized.singling_out.n_success < as_is.singling_out.n_success


@pytest.fixture
def flags() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A number, a category and a boolean ``z``."""
    rng = np.random.default_rng(4)
    table = pd.DataFrame(
        {
            "x": rng.integers(0, 50, 300),
            "y": rng.choice(["u", "v"], 300),
            "z": rng.random(300) < 0.5,
        }
    )
    return table.iloc[:200], table.iloc[200:]


def test_values_of_another_type_are_refused_naming_the_column_and_dtypes(flags):
    """Booleans released as 1 and 0: no file writes True as 1, so which is which cannot be
    told (it was compared as the text "True" against "1": nobody matched)."""
    original, control = flags
    released = original.assign(z=original["z"].astype(int))
    with pytest.raises(InvalidParameterError, match="column 'z'") as info:
        pandas_anon.attacks(original, released, control=control, n_attacks=50)
    message = str(info.value)
    assert "bool" in message and "int64" in message and "astype" in message


def test_text_no_boolean_writes_is_a_label_of_its_own(flags):
    original, control = flags
    released = original.assign(z=original["z"].map({True: "yes", False: "no"}))
    labelled = pandas_anon.attacks(original, released, control=control, n_attacks=100)
    as_text = pandas_anon.attacks(
        original.assign(z=original["z"].astype(str)),
        released,
        control=control.assign(z=control["z"].astype(str)),
        n_attacks=100,
    )
    assert figures(labelled) == figures(as_text)


def test_a_column_missing_from_the_release_or_only_in_it_is_named(licences):
    original, control = split(licences[LICENCE_COLUMNS])
    with pytest.raises(ColumnNotFoundError, match="in original: column 'extra' not found"):
        pandas_anon.attacks(original, original.assign(extra=1), control=control)
    with pytest.raises(ColumnNotFoundError, match="in released"):
        pandas_anon.attacks(
            original, original.drop(columns="sesso"), control=control, columns=LICENCE_COLUMNS
        )


def test_the_callers_frames_are_not_changed(licences):
    original, control = split(licences[["cap", "anno_nascita", "sesso"]])
    released = through_csv(original)
    before = [f.copy() for f in (original, released, control)]
    pandas_anon.attacks(original, released, control=control, n_attacks=30)
    for frame, copy in zip((original, released, control), before):
        pd.testing.assert_frame_equal(frame, copy)


_WORDS = st.text(alphabet="bcdxyz", min_size=1, max_size=3)  # no text CSV reads as missing
_COLUMNS = {
    "int": lambda rng, n: pd.Series(rng.integers(0, 12, n)),
    "float": lambda rng, n: pd.Series(
        np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 9, n) / 4)
    ),
    "Int64": lambda rng, n: pd.Series(rng.integers(1950, 1960, n), dtype="Int64").mask(
        rng.random(n) < 0.1
    ),
    "code": lambda rng, n: pd.Series(rng.integers(0, 30, n)).astype(str).str.zfill(4),
    "bool": lambda rng, n: pd.Series(rng.random(n) < 0.3),
    "date": lambda rng, n: pd.Series(
        pd.to_datetime("2001-01-01") + pd.to_timedelta(rng.integers(0, 20, n), unit="D")
    ),
    "category": lambda rng, n: pd.Series(rng.choice(["bx", "cy", "dz"], n)).astype("category"),
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kinds=st.lists(st.sampled_from(sorted(_COLUMNS)), min_size=2, max_size=4),
    words=st.lists(_WORDS, min_size=2, max_size=5, unique=True),
    seed=st.integers(0, 2**16),
)
def test_a_release_read_back_from_csv_is_the_release_or_refused(kinds, words, seed):
    """Any frame released as is but read back through CSV (dtypes may change) gives the
    figures of the frame released as is, or a refusal naming a column."""
    rng = np.random.default_rng(seed)
    n = 90
    table = pd.DataFrame({f"{kind}{i}": _COLUMNS[kind](rng, n) for i, kind in enumerate(kinds)})
    table["word"] = rng.choice(words, n)
    original, control = table.iloc[:60], table.iloc[60:]
    options = {"control": control, "n_attacks": 20, "max_attempts": 2000, "seed": seed}
    as_is = pandas_anon.attacks(original, original, **options)
    try:
        read_back = pandas_anon.attacks(original, through_csv(original), **options)
    except InvalidParameterError as error:
        assert "column " in str(error)
        return
    assert figures(read_back) == figures(as_is)


# -- the parameters ---------------------------------------------------------------------------


@pytest.fixture
def small() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(3)
    table = pd.DataFrame(
        {
            "a": rng.permutation(300) * 1.0,
            "b": rng.choice(list(string.ascii_lowercase[:5]), 300),
            "c": rng.choice(["x", "y", "z"], 300),
        }
    )
    return table.iloc[:200], table.iloc[200:]


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"seed": "1"}, "seed"),
        ({"n_attacks": 10**9}, "n_attacks"),
        ({"n_attacks": attacks_module.MAX_ATTACKS + 1}, "n_attacks"),
        ({"max_attempts": attacks_module.MAX_ATTEMPTS + 1}, "max_attempts"),
        ({"max_attempts": True}, "max_attempts"),
        ({"confidence_level": "0.9"}, "confidence_level"),
        ({"confidence_level": float("nan")}, "confidence_level"),
        ({"regression": "yes", "secret": "a"}, "regression"),
    ],
)
def test_parameters_out_of_range_are_our_error_naming_them(small, options, named):
    original, control = small
    with pytest.raises(InvalidParameterError, match=named):
        pandas_anon.attacks(original, original, control=control, **options)


@pytest.mark.parametrize("which", ["original", "released", "control"])
def test_a_repeated_column_name_is_refused_naming_it(small, which):
    original, control = small
    frames = {"original": original, "released": original, "control": control}
    frames[which] = frames[which].set_axis(["a", "b", "a"], axis=1)
    with pytest.raises(DuplicateColumnsError, match=f"{which} has several columns named 'a'"):
        pandas_anon.attacks(
            frames["original"], frames["released"], control=frames["control"], columns=["a", "b"]
        )


def test_a_column_named_twice_is_refused(small):
    original, control = small
    with pytest.raises(InvalidQIDError, match="columns names 'a' more than once"):
        pandas_anon.attacks(original, original, control=control, columns=["a", "a", "b"])


def test_max_attempts_none_is_bounded(small, monkeypatch):
    """``None`` is anonymeter's default, :data:`MAX_ATTEMPTS`, not "until found": on a
    release that singles out nobody, the search stops there (made small here)."""
    original, control = small
    nothing = original.assign(a="*", b="*", c="*")
    monkeypatch.setattr(attacks_module, "MAX_ATTEMPTS", 3000, raising=False)
    batches = []
    singling = attacks_module._SinglingOut._singling

    def counted(self, predicates, frame):
        batches.append(len(predicates))
        if len(batches) > 50:
            raise AssertionError("max_attempts=None runs without bound")
        return singling(self, predicates, frame)

    monkeypatch.setattr(attacks_module._SinglingOut, "_singling", counted)
    result = pandas_anon.attacks(
        original, nothing, control=control, n_attacks=100, max_attempts=None
    )
    assert result.singling_out.n_queries <= 1  # the one distinct record, once
    assert sum(size for size in batches) <= 3000 + 3 * 100  # the attempts, then scoring
