"""The packaged datasets load complete, with the documented dtypes, and match their NOTICE."""

from __future__ import annotations

import hashlib
import io
import lzma
from importlib.resources import files

import pandas as pd
import pytest

from pandas_anon import datasets
from pandas_anon.errors import AnonError, UnknownNameError

DRIVER_COLUMNS = [
    "id",
    "anno_nascita",
    "comune_residenza",
    "provincia_residenza",
    "regione_residenza",
    "stato_estero_nascita",
    "sesso",
    "categoria_patente",
    "data_rilascio",
    "abilitato_a",
    "data_abilitazione_a",
    "data_scadenza",
    "stato_estero_primo_rilascio",
    "punti_patente",
]
DRIVER_DATES = ["data_rilascio", "data_abilitazione_a", "data_scadenza"]
DRIVER_MISSING = {
    "anno_nascita": 1,
    "sesso": 177,
    "data_rilascio": 3,
    "stato_estero_nascita": 80_738,
    "stato_estero_primo_rilascio": 86_586,
}
PACKAGE = files("pandas_anon.datasets")
DATA_FILES = sorted((f for f in (PACKAGE / "data").iterdir() if f.is_file()), key=lambda f: f.name)
# What plain pd.read_csv gives a text column in the installed pandas (str in 3.x, object in 2.x).
DEFAULT_TEXT_DTYPE = pd.read_csv(io.StringIO("a\nx\n"))["a"].dtype


@pytest.fixture(scope="module")
def licences() -> pd.DataFrame:
    return datasets.load_driver_licenses()


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return datasets.load_adult()


def test_driver_licenses_shape_order_and_dtypes(licences: pd.DataFrame) -> None:
    assert licences.shape == (87_642, 14)
    assert list(licences.columns) == DRIVER_COLUMNS
    assert licences["id"].dtype == "int64"
    assert licences["punti_patente"].dtype == "int64"
    assert licences["anno_nascita"].dtype == pd.Int64Dtype()
    for column in DRIVER_DATES:
        assert pd.api.types.is_datetime64_dtype(licences[column]), column
    not_text = {"id", "anno_nascita", "punti_patente", *DRIVER_DATES}
    for column in (c for c in DRIVER_COLUMNS if c not in not_text):
        assert licences[column].dtype == DEFAULT_TEXT_DTYPE, column
    assert licences["id"].is_unique


def test_driver_licenses_missing_counts_are_exact(licences: pd.DataFrame) -> None:
    expected = {column: DRIVER_MISSING.get(column, 0) for column in DRIVER_COLUMNS}
    assert licences.isna().sum().to_dict() == expected


def test_only_empty_cells_become_missing(licences: pd.DataFrame) -> None:
    # Read every cell literally: a value such as "NA" or "NULL" must not have turned into NaN.
    with (PACKAGE / "data" / "driver_licenses_valle_daosta.csv.xz").open("rb") as fh:
        raw = pd.read_csv(fh, compression="xz", dtype=str, keep_default_na=False)
    assert (raw == "").sum().to_dict() == licences.isna().sum().to_dict()
    assert licences["comune_residenza"].tolist() == raw["comune_residenza"].tolist()


def test_driver_licenses_dates(licences: pd.DataFrame) -> None:
    as_text = datasets.load_driver_licenses(parse_dates=False)
    for column in DRIVER_DATES:
        assert as_text[column].dtype == DEFAULT_TEXT_DTYPE
        reparsed = pd.to_datetime(as_text[column], format="%Y-%m-%d %H:%M:%S")
        assert licences[column].equals(reparsed.astype(licences[column].dtype)), column
        assert (licences[column].dropna() == licences[column].dropna().dt.normalize()).all()
    pd.testing.assert_frame_equal(
        licences.drop(columns=DRIVER_DATES), as_text.drop(columns=DRIVER_DATES)
    )


def test_driver_licenses_reproduces_the_paper(licences: pd.DataFrame) -> None:
    """Table 1 of Pastore et al. (2020), Valle d'Aosta: size 87,464, DV 9,174, #S 1,684."""
    assert licences["comune_residenza"].nunique() == 79
    qid = licences[["anno_nascita", "comune_residenza", "sesso"]].dropna()
    counts = qid.value_counts()
    assert len(qid) == 87_464
    assert len(counts) == 9_174
    assert int((counts == 1).sum()) == 1_684


def test_adult_shape_order_and_dtypes(adult: pd.DataFrame) -> None:
    assert adult.shape == (30_162, 9)
    assert tuple(adult.columns) == datasets.ADULT_HIERARCHY_ATTRIBUTES
    assert adult["age"].dtype == "int64"
    for column in adult.columns.drop("age"):
        assert adult[column].dtype == DEFAULT_TEXT_DTYPE, column
    assert int(adult.isna().sum().sum()) == 0
    assert set(adult["salary-class"]) == {"<=50K", ">50K"}  # no stray "\r" from the CRLF file


@pytest.mark.parametrize("attribute", datasets.ADULT_HIERARCHY_ATTRIBUTES)
def test_adult_hierarchy_covers_every_value(adult: pd.DataFrame, attribute: str) -> None:
    hierarchy = datasets.load_adult_hierarchy(attribute)
    assert list(hierarchy.columns) == [f"level_{i}" for i in range(hierarchy.shape[1])]
    assert hierarchy.shape[1] >= 2
    for column in hierarchy.columns:
        assert pd.api.types.is_string_dtype(hierarchy[column]), column
        assert hierarchy[column].map(type).eq(str).all(), column
    assert hierarchy["level_0"].is_unique
    assert (hierarchy.iloc[:, -1] == "*").all()
    values = set(adult[attribute].astype(str))
    assert values <= set(hierarchy["level_0"])


def test_age_hierarchy_level_0_is_text() -> None:
    level_0 = datasets.load_adult_hierarchy("age")["level_0"]
    assert level_0.tolist() == [str(age) for age in range(1, 101)]


def test_load_adult_hierarchies_returns_all_in_order() -> None:
    hierarchies = datasets.load_adult_hierarchies()
    assert tuple(hierarchies) == datasets.ADULT_HIERARCHY_ATTRIBUTES
    education = datasets.load_adult_hierarchy("education")
    pd.testing.assert_frame_equal(hierarchies["education"], education)


def test_unknown_attribute_names_the_valid_ones() -> None:
    with pytest.raises(UnknownNameError) as caught:
        datasets.load_adult_hierarchy("zip")
    assert isinstance(caught.value, KeyError)
    assert isinstance(caught.value, AnonError)
    message = str(caught.value)
    assert message.startswith("unknown")  # str(), not KeyError's quoted repr
    assert "'zip'" in message
    for attribute in datasets.ADULT_HIERARCHY_ATTRIBUTES:
        assert repr(attribute) in message


def test_package_data_is_small_and_documented() -> None:
    notice = (PACKAGE / "NOTICE.md").read_text(encoding="utf-8")
    names = {f.name for f in DATA_FILES}
    assert {"driver_licenses_valle_daosta.csv.xz", "adult.csv.xz"} <= names
    assert {f"adult_hierarchy_{a}.csv" for a in datasets.ADULT_HIERARCHY_ATTRIBUTES} <= names
    assert sum(len(f.read_bytes()) for f in DATA_FILES) < 5_000_000
    for data_file in DATA_FILES:
        raw = data_file.read_bytes()
        if data_file.name.endswith(".xz"):
            raw = lzma.decompress(raw)
        assert data_file.name in notice
        assert hashlib.sha256(raw).hexdigest() in notice, data_file.name
