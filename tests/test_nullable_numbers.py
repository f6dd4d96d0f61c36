"""Nullable numbers (``Float64``, ``Int8``, ``UInt64``, ... holding ``pd.NA``) through every
entry point that anonymizes or reports (issue 46, 5).

numpy holds no ``pd.NA`` and Python cannot compare it (``bool(pd.NA)`` raises), so code that
read a nullable column's values raw crashed Mondrian's labels, and with them the default
``kanon``, ``ke_anon``, ``risk_report``, ``report_html`` and ``compare``. Values are read as
numbers in one place, ``engine.encoding.numeric_values`` (numbers and a missing mask); these
tests run each entry point on the Valle d'Aosta licences with their birth years as
``Float64`` and some of them missing, and check each release with the independent verifier.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon import AllMissingColumnError
from pandas_anon.engine.encoding import numeric_values, with_missing, written_indexer

from verify import release_classes

pytestmark = pytest.mark.filterwarnings("ignore::pandas_anon.AnonWarning")

QID = ["anno_nascita", "comune_residenza", "sesso"]
ROWS = 5000  # the first licences: every entry point in well under a second
K = 5


@pytest.fixture
def years(licences: pd.DataFrame) -> pd.DataFrame:
    """The first licences, birth years as ``Float64`` (whole numbers), one in 25 missing."""
    part = licences.iloc[:ROWS]
    years = part["anno_nascita"].astype("Float64").mask(np.arange(ROWS) % 25 == 0)
    return part.assign(anno_nascita=years)


def test_kanon_zero_configuration(years):
    before = years.copy(deep=True)
    out = pandas_anon.kanon(years, K)
    pd.testing.assert_frame_equal(years, before)
    assert release_classes(out, list(out.columns))["k"] >= K  # every released column


def test_mondrian(years):
    out = pandas_anon.kanon(years, K, qid=QID, algo="mondrian")
    assert release_classes(out, QID)["k"] >= K
    written = out["anno_nascita"].astype(object)
    ranges = written[written.map(lambda v: isinstance(v, str))]
    assert len(ranges) and ranges.str.fullmatch(r"\[\d{4}-\d{4}\]( or missing)?").all()


def test_ke_anon_with_a_nullable_k_quasi(years):
    out = pandas_anon.ke_anon(
        years, K, 1.0, qid=[*QID, "punti_patente"], eps_quasi=["punti_patente"], seed=0
    )
    assert release_classes(out, QID)["k"] >= K


def test_risk_report(years):
    report = pandas_anon.risk_report(years, qid=QID)
    assert list(report.qid) == QID and report.comparison is not None


def test_report_html(years):
    page = pandas_anon.report_html(years, qid=QID)
    assert "anno_nascita" in page


def test_compare(years):
    found = pandas_anon.compare(years, K, qid=QID)
    assert set(found.reports) == {"ola", "mondrian", "local"}
    assert all(report.k_reached >= K for report in found.reports.values())


@pytest.mark.parametrize(
    "call",
    [
        lambda f: pandas_anon.kanon(f, K, qid=[*QID, "vuoto"]),
        lambda f: pandas_anon.kanon(f, K, qid=[*QID, "vuoto"], algo="mondrian"),
        lambda f: pandas_anon.ke_anon(f, K, 1.0, qid=[*QID, "vuoto"], eps_quasi=["anno_nascita"]),
        lambda f: pandas_anon.risk_report(f, qid=[*QID, "vuoto"]),
        lambda f: pandas_anon.compare(f, K, qid=[*QID, "vuoto"]),
    ],
    ids=["kanon", "mondrian", "ke_anon", "risk_report", "compare"],
)
def test_an_all_missing_nullable_column_is_refused_by_name(years, call):
    frame = years.assign(vuoto=pd.array([pd.NA] * ROWS, dtype="Float64"))
    with pytest.raises(AllMissingColumnError, match="'vuoto'"):
        call(frame)


@pytest.mark.parametrize("algo", ["ola", "mondrian", "local"])
def test_nan_beside_na_is_a_value_of_its_own(algo):
    """A nullable float's NaN that pandas tells from ``pd.NA`` (pandas 2.2 after arithmetic,
    ``future.distinguish_nan_and_na`` in pandas 3) is a value, as groupby reads it: a class
    of its own, not merged with the missing values."""
    rng = np.random.default_rng(0)
    numbers = pd.Series(rng.integers(0, 30, 200) / 2, dtype="Float64")
    zero = pd.Series(np.where(np.arange(200) % 10 == 0, 0.0, 1.0), dtype="Float64")
    with pd.option_context(*_distinguish()):
        x = (numbers * zero / zero).mask(np.arange(200) % 10 == 5)  # 0/0: NaN
        frame = pd.DataFrame({"x": x, "g": rng.choice(list("abc"), 200)})
        assert frame["x"].isna().sum() == 20  # NaN is not missing
        out = pandas_anon.kanon(frame, 4, qid=["x", "g"], algo=algo)
        assert release_classes(out, ["x", "g"])["k"] >= 4


def _distinguish() -> tuple:
    """The option under which pandas 3 keeps a nullable float's NaN apart from ``pd.NA``
    (pandas 2.2 does without one)."""
    try:
        pd.get_option("future.distinguish_nan_and_na")
    except KeyError:  # pandas 2.2 (pd.option_context() needs a pair: a harmless one)
        return ("display.max_rows", pd.get_option("display.max_rows"))
    return ("future.distinguish_nan_and_na", True)


@pytest.mark.parametrize(
    "dtype", ["Int8", "Int64", "UInt64", "Float32", "Float64", "boolean", "float64", "int64"]
)
def test_numeric_values_reads_numbers_and_a_missing_mask(dtype):
    values = pd.Series(pd.array([1, None, 0], dtype=dtype) if dtype != "int64" else [1, 2, 0])
    numbers, missing = numeric_values(values)
    assert numbers.dtype == np.float64
    assert missing.tolist() == values.isna().tolist()
    assert numbers[~missing].tolist() == values.dropna().astype(float).tolist()
    assert np.isnan(numbers[missing]).all()


def test_with_missing_appends_a_missing_value_not_a_nan():
    with pd.option_context(*_distinguish()):
        found = with_missing(pd.Index([1.5, 2.0], dtype="Float64"))
        assert found.isna().tolist() == [False, False, True]


def test_signed_zeros_beside_na_are_three_values():
    """``0.0``, ``-0.0`` and ``pd.NA`` in one nullable float column: the zeros are two values
    as written, read beside a missing value without reading ``pd.NA`` as a float (local
    recoding looks them up in its hierarchy so)."""
    zeros = pd.Series([0.0, -0.0, None, 1.5] * 6, dtype="Float64")
    frame = pd.DataFrame({"x": zeros, "g": list("ab") * 12})
    out = pandas_anon.kanon(frame, 3, qid=["x", "g"], algo="local")
    assert release_classes(out, ["x", "g"])["k"] >= 3
    held = pd.Index(pd.array([0.0, -0.0, None, 1.5], dtype="Float64"))
    assert written_indexer(held, held).tolist() == [0, 1, 2, 3]
