"""The pandas-anon-us plugin: its tables, reading ZIP codes as files write them, the us.zip
and us.zip_safe_harbor hierarchies on a sample of real ZIP codes, and discovery through its
entry point.

CI (``CI=true``) installs every plugin under plugins/ before running the suite, so there a
missing plugin fails these tests; elsewhere they are skipped until
``pip install -e plugins/pandas-anon-us``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import os
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_anon

if os.environ.get("CI"):
    import pandas_anon_us as us
else:
    us = pytest.importorskip("pandas_anon_us", reason="pip install -e plugins/pandas-anon-us")
from pandas_anon.errors import HierarchyError, HierarchyFallbackWarning, InvalidParameterError
from pandas_anon.plugins import manager as plugins
from pandas_anon.plugins.registry import claimed_hierarchy, get_hierarchy

#: HHS, "Guidance Regarding Methods for De-identification of Protected Health Information"
#: (2012): the three-digit ZIP codes of 20,000 people or fewer in the 2000 Census, and their
#: states.
HHS_RESTRICTED = {
    "036": "NH",
    "059": "VT",
    "063": "CT",
    "102": "NY",
    "203": "DC",
    "556": "MN",
    "692": "NE",
    "790": "TX",
    "821": "WY",
    "823": "WY",
    "830": "WY",
    "831": "WY",
    "878": "NM",
    "879": "NM",
    "884": "NM",
    "890": "NV",
    "893": "NV",
}
#: ZIP codes of the sample lying in another state than their prefix: ZIP -> (its own state,
#: the prefix's state, which the tree gives it).
ACROSS = {
    "06390": ("NY", "CT"),  # Fishers Island
    "20588": ("MD", "DC"),
    "20598": ("VA", "DC"),
    "72643": ("MO", "AR"),
    "73960": ("TX", "OK"),
    "83414": ("WY", "ID"),  # Alta
    "96799": ("AS", "HI"),  # American Samoa
}
DTYPES = ["object", "string[pyarrow]", "category", "int64"]
DATA = Path(__file__).parent / "data"


@pytest.fixture
def fresh_plugins(monkeypatch):
    """Plugins loaded afresh from the real installed entry points, no allowlist."""
    monkeypatch.delenv(plugins.ALLOWLIST, raising=False)
    plugins.reset()
    yield
    plugins.reset()


def expected_states(sample: pd.DataFrame) -> list[str]:
    """The sample's states (its source's) as the tree gives them: the ZIP codes across a state
    line under their prefix's state, and the source's ``AA`` for Pacific military mail
    (prefixes 962-965) corrected to ``AP``, as the package's NOTICE.md says."""
    return [
        ACROSS[z][1] if z in ACROSS else "AP" if "962" <= z[:3] <= "965" else s
        for z, s in zip(sample["zip"], sample["state"])
    ]


def as_dtype(codes: pd.Series, dtype: str) -> pd.Series:
    """The ZIP codes as a file would hold them in ``dtype`` (numbers lose leading zeros)."""
    return codes.astype("int64") if dtype == "int64" else codes.astype(dtype)


# -- the shipped tables --------------------------------------------------------------------


def test_prefix_table_is_complete_and_consistent():
    zip3 = us.load_zip3()
    assert list(zip3.columns) == ["zip3", "state"]
    assert len(zip3) == 933 and zip3["zip3"].is_unique
    assert zip3["zip3"].str.fullmatch(r"\d{3}").all()
    assert zip3["state"].str.fullmatch(r"[A-Z]{2}").all()
    assert zip3["state"].nunique() == 57  # 50 states, DC, PR, VI, GU, AA, AE, AP
    assert {"DC", "PR", "VI", "GU", "AA", "AE", "AP"} <= set(zip3["state"])
    states = zip3.set_index("zip3")["state"]
    assert states["021"] == "MA" and states["100"] == "NY" and states["834"] == "ID"
    assert (states[[f"{p}" for p in range(962, 967)]] == "AP").all()
    assert "000" not in states.index  # so Safe Harbor's 000 names no real prefix


def test_restricted_prefixes_are_hhs_list():
    assert us.load_restricted() == tuple(HHS_RESTRICTED)
    states = us.load_zip3().set_index("zip3")["state"]
    assert {p: states[p] for p in HHS_RESTRICTED} == HHS_RESTRICTED


def test_shipped_files_match_their_notice():
    package = files("pandas_anon_us")
    notice = (package / "NOTICE.md").read_text(encoding="utf-8")
    for name in ("zip3.csv", "safe_harbor_restricted.csv"):
        raw = (package / "data" / name).read_bytes()
        assert hashlib.sha256(raw).hexdigest() in notice, name
        assert f"{len(raw):,} bytes" in notice, name
    assert "CC BY 4.0" in notice and "164.514(b)(2)(i)(B)" in notice


def test_sample_matches_its_notice(zip_sample):
    raw = (DATA / "zip_sample.csv").read_bytes()
    notice = (DATA / "NOTICE.md").read_text(encoding="utf-8")
    assert hashlib.sha256(raw).hexdigest() in notice and f"{len(raw):,} bytes" in notice
    assert f"{len(zip_sample)} real ZIP codes" in notice
    assert f"{zip_sample['zip'].str[:3].nunique()} prefixes" in notice
    assert zip_sample["zip"].str.fullmatch(r"\d{5}").all() and zip_sample["zip"].is_unique


# -- reading ZIP codes --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "zip5", "how"),
    [
        ("02134", "02134", "zip5"),
        (" 02134 ", "02134", "zip5"),
        (10001, "10001", "zip5"),
        ("02134-1234", "02134", "zip+4"),
        ("02134 - 1234", "02134", "zip+4"),
        ("02134 1234", "02134", "zip+4"),
        ("021341234", "02134", "zip+4"),
        (100011234, "10001", "zip+4"),
        (2134, "02134", "leading zeros"),
        ("2134", "02134", "leading zeros"),
        (2134.0, "02134", "leading zeros"),
        ("2134.0", "02134", "leading zeros"),
        (np.int64(601), "00601", "leading zeros"),  # Adjuntas, PR
        (21341234, "02134", "leading zeros"),  # a ZIP+4 as a number
        ("2134-1234", "02134", "leading zeros"),
        ("00000", None, "prefix not in use"),
        ("00100", None, "prefix not in use"),
        ("ABCDE", None, "not a zip"),
        ("", None, "not a zip"),
        ("0213412345", None, "not a zip"),
        ("02134-12", None, "not a zip"),
        (2134.5, None, "not a zip"),
        (-2134, None, "not a zip"),
        (True, None, "not a zip"),
    ],
)
def test_values_read_as_files_write_them(written, zip5, how):
    table = us.resolve(pd.Series([written], dtype=object))
    row = table.iloc[0]
    assert row["how"] == how
    if zip5 is None:
        assert row[["zip5", "zip3", "state", "safe_harbor"]].isna().all()
        assert table.attrs["unmatched"] == [written]
    else:
        assert (row["zip5"], row["zip3"]) == (zip5, zip5[:3])
        assert table.attrs["unmatched"] == []


def test_resolve_counts_rows_and_lists_unmatched_most_rows_first(sample):
    column = pd.concat([sample["zip"], pd.Series(["N/A", "N/A", "00042", None])])
    table = us.resolve(column)
    assert table["rows"].sum() == column.notna().sum()
    assert table.attrs["unmatched"] == ["N/A", "00042"]
    assert set(table["how"]) == {"zip5", "not a zip", "prefix not in use"} <= set(us.HOWS)


def test_zip5_cleans_a_column(sample):
    messy = pd.Series(
        [int(sample["zip"][0]), sample["zip"][1] + "-0001", " " + sample["zip"][2], None, "n/a"],
        index=[10, 11, 12, 13, 14],
        name="zip",
        dtype=object,
    )
    clean = us.zip5(messy)
    assert clean.index.equals(messy.index) and clean.name == "zip"
    assert clean.tolist()[:3] == sample["zip"][:3].tolist()
    assert clean[13:].isna().all()


# -- us.zip on the sample of real ZIP codes --------------------------------------------------


def test_hierarchy_generalizes_the_sample_at_every_level(sample):
    column = sample["zip"].rename("zip")
    hierarchy = us.zip_hierarchy(column)
    assert hierarchy.name == "us.zip"
    assert hierarchy.level_names == ("zip", "zip3", "state", "*")
    assert set(hierarchy.values) == set(column)
    expected = {
        0: column.tolist(),
        1: column.str[:3].tolist(),
        2: expected_states(sample),
        3: ["*"] * len(column),
    }
    for level, labels in expected.items():
        generalized = hierarchy.generalize(column, level)
        assert generalized.index.equals(column.index) and generalized.name == "zip"
        assert generalized.tolist() == labels, level


def test_zip_codes_across_a_state_line_go_to_their_prefixs_state(sample):
    across = sample[sample["zip"].isin(list(ACROSS))]
    assert set(across["zip"]) == set(ACROSS)  # the sample holds them all
    assert dict(zip(across["zip"], across["state"])) == {z: s for z, (s, _) in ACROSS.items()}
    states = us.zip_hierarchy(across["zip"]).generalize(across["zip"], 2)
    assert states.tolist() == [ACROSS[z][1] for z in across["zip"]]


@pytest.mark.parametrize("dtype", DTYPES)
def test_pandas_dtypes(sample, dtype):
    column = as_dtype(sample["zip"], dtype).rename("zip")
    hierarchy = us.zip_hierarchy(column)
    assert hierarchy.generalize(column, 1).tolist() == sample["zip"].str[:3].tolist()
    assert hierarchy.generalize(column, 2).tolist() == expected_states(sample)
    safe = us.safe_harbor_hierarchy(column).generalize(column, 1)
    assert (safe == "000").sum() == sample["zip"].str[:3].isin(list(HHS_RESTRICTED)).sum()


def test_leading_zeros_lost_as_numbers_are_restored(sample):
    zeros = sample[sample["zip"].str.startswith("0")]
    assert len(zeros) > 90 and zeros["zip"].str.startswith("00").any()  # PR, VI, NY's 005
    as_int = zeros["zip"].astype("int64")
    with_holes = pd.concat([as_int.astype("float64"), pd.Series([np.nan])], ignore_index=True)
    as_text = as_int.astype(str)  # "2134": a spreadsheet's way
    for column in (as_int, with_holes, as_text):
        hierarchy = us.zip_hierarchy(column)
        assert hierarchy.generalize(column, 1).dropna().tolist() == zeros["zip"].str[:3].tolist()
    assert us.zip5(as_int).tolist() == zeros["zip"].tolist()


def test_zip_plus_4(sample):
    plus4 = sample["zip"] + "-" + [f"{n:04d}" for n in range(len(sample))]
    spaced = sample["zip"] + " 0042"
    joined = (sample["zip"] + "0042").astype("int64")  # nine digits as a number
    for column in (plus4, spaced, joined):
        hierarchy = us.zip_hierarchy(column)
        assert hierarchy.generalize(column, 1).tolist() == sample["zip"].str[:3].tolist()
        assert us.zip5(column).tolist() == sample["zip"].tolist()


def test_values_that_are_not_zip_codes_are_counted_never_shown(sample):
    column = pd.concat(
        [sample["zip"], pd.Series(["SECRET-1", "SECRET-1", "00042", "12.5"])], ignore_index=True
    ).rename("zip")
    with pytest.raises(HierarchyError) as error:
        us.zip_hierarchy(column)
    assert error.value.unmatched == 3
    message = str(error.value)
    assert "3 distinct values of column 'zip' (4 rows)" in message
    assert "2 values: not a zip" in message and "1 value: prefix not in use" in message
    assert "resolve(column)" in message
    assert "SECRET" not in message and "00042" not in message and "12.5" not in message
    with pytest.raises(HierarchyError) as error:
        us.safe_harbor_hierarchy(column)
    assert error.value.unmatched == 3 and "SECRET" not in str(error.value)


def test_missing_values_stay_missing(sample):
    column = sample["zip"].where(sample.index % 3 != 0)
    generalized = us.zip_hierarchy(column).generalize(column, 2)
    assert generalized.isna().equals(column.isna())
    with pytest.raises(HierarchyError, match="column 'zip' has no value"):
        us.zip_hierarchy(pd.Series([None, np.nan], name="zip", dtype=object))


def test_canonical_hierarchy_covers_every_code_of_a_prefix_in_use(sample):
    hierarchy = us.zip_hierarchy()
    sizes = [len(hierarchy.labels(level)) for level in range(hierarchy.n_levels)]
    assert sizes == [93_300, 933, 57, 1]
    assert hierarchy.generalize(sample["zip"], 2).tolist() == expected_states(sample)


def test_cleaning_first_keeps_level_0_apart_from_the_prefixes():
    """Puerto Rico's 00601 written 601 and Illinois's prefix 601 share a label, at levels 0
    and 1, until the column is cleaned with zip5 (the README's advice)."""
    column = pd.Series([601, 60101, 2134], name="zip")
    raw = us.zip_hierarchy(column)
    assert raw.generalize(column, 2).tolist() == ["PR", "IL", "MA"]
    assert {str(v) for v in raw.labels(0)} & set(raw.labels(1)) == {"601"}
    clean = us.zip_hierarchy(us.zip5(column))
    assert not set(clean.labels(0)) & set(clean.labels(1))


# -- us.zip_safe_harbor ----------------------------------------------------------------------


def test_safe_harbor_turns_the_restricted_prefixes_into_000(sample):
    column = sample["zip"]
    prefixes = column.str[:3]
    restricted = prefixes.isin(list(HHS_RESTRICTED))
    assert set(prefixes[restricted]) == set(HHS_RESTRICTED)  # the sample has each of them
    hierarchy = us.safe_harbor_hierarchy(column)
    assert hierarchy.name == "us.zip_safe_harbor"
    assert hierarchy.level_names == ("zip", "zip3_safe_harbor", "*")
    safe = hierarchy.generalize(column, 1)
    assert (safe[restricted] == "000").all()
    assert safe[~restricted].equals(prefixes[~restricted])
    assert (hierarchy.generalize(column, 2) == "*").all()
    assert us.resolve(column)["safe_harbor"].tolist() == safe.tolist()


def test_safe_harbor_000_spans_states_so_it_has_no_state_level(sample):
    restricted = sample[sample["zip"].str[:3].isin(list(HHS_RESTRICTED))]
    assert restricted["state"].nunique() > 1  # 000 groups NH, VT, WY, NM...
    canonical = us.safe_harbor_hierarchy()
    sizes = [len(canonical.labels(level)) for level in range(canonical.n_levels)]
    assert sizes == [93_300, 933 - len(HHS_RESTRICTED) + 1, 1]


def test_safe_harbor_with_a_current_list():
    column = pd.Series(["03601", "02134", "10001"], name="zip")
    hierarchy = us.safe_harbor_hierarchy(column, restricted=["021"])
    assert hierarchy.generalize(column, 1).tolist() == ["036", "000", "100"]
    one = us.safe_harbor_hierarchy(column, restricted="100")
    assert one.generalize(column, 1).tolist() == ["036", "021", "000"]
    with pytest.raises(InvalidParameterError, match="restricted"):
        us.safe_harbor_hierarchy(column, restricted=["36", 59])


# -- through pandas-anon: entry point, registry, generalize, kanon ---------------------------------


def test_the_plugin_is_installed_with_its_entry_point():
    found = {ep.name: ep for ep in metadata.entry_points(group="pandas_anon")}
    assert found["us"].value == "pandas_anon_us"
    assert found["us"].load() is us
    assert found["us"].dist.name == "pandas-anon-us"


def test_pandas_anon_discovers_both_hierarchies(fresh_plugins, sample):
    assert [(r.name, r.status) for r in plugins.records() if r.name == "us"] == [("us", "ok")]
    listed = pandas_anon.hierarchies().set_index("name")
    assert listed.loc[["us.zip", "us.zip_safe_harbor"], "plugin"].eq("us").all()
    assert listed.loc[["us.zip", "us.zip_safe_harbor"], "kind"].eq("factory").all()
    assert listed.loc["us.zip", "claims"] == us.COLUMNS
    assert listed.loc["us.zip_safe_harbor", "claims"] == ()
    for column in ("zip", "ZIP Code", "zipcode", "Zip-Code", "zip5"):
        assert claimed_hierarchy(column) == "us.zip", column
    assert claimed_hierarchy("postal_code") is None
    column = sample["zip"]
    assert pandas_anon.get_hierarchy("us.zip", column) == us.zip_hierarchy(column)
    assert get_hierarchy("us.zip_safe_harbor", column) == us.safe_harbor_hierarchy(column)
    assert len(pandas_anon.get_hierarchy("us.zip").values) == 93_300


def test_registry_reports_values_that_are_not_zip_codes(fresh_plugins, sample):
    column = pd.concat([sample["zip"], pd.Series(["SECRET"])], ignore_index=True).rename("zip")
    with pytest.raises(HierarchyError, match=r"us\.zip.*1 distinct value of column 'zip'") as error:
        get_hierarchy("us.zip", column)
    assert "SECRET" not in str(error.value)


def test_generalize_by_name(fresh_plugins, sample):
    frame = pd.DataFrame({"zip": sample["zip"].astype("int64"), "state": sample["state"]})
    out = frame.anon.generalize({"zip": ("us.zip", 1)})
    assert out["zip"].tolist() == sample["zip"].str[:3].tolist()
    assert out["state"].equals(frame["state"])
    safe = frame.anon.generalize({"zip": ("us.zip_safe_harbor", 1)})
    restricted = sample["zip"].str[:3].isin(list(HHS_RESTRICTED))
    assert (safe["zip"][restricted] == "000").all()
    assert (safe["zip"][~restricted] == sample["zip"].str[:3][~restricted]).all()


def _patients(sample: pd.DataFrame) -> pd.DataFrame:
    """Rows of people living at the sample's ZIP codes: each ZIP 2, 4, 6 or 8 times."""
    zips = sample["zip"].repeat(np.resize([2, 4, 6, 8], len(sample))).reset_index(drop=True)
    sex = np.resize(["F", "M", "M"], len(zips))
    return pd.DataFrame({"zip": zips, "sex": sex, "visits": np.arange(len(zips)) % 7})


def test_kanon_uses_us_zip_on_a_claimed_column(fresh_plugins, sample):
    patients = _patients(sample)
    out = patients.anon.kanon(5, qid=["zip", "sex"], max_suppression=0.1)
    report = out.anon.report()
    assert report.hierarchies["zip"] == "us.zip"
    assert report.levels["zip"] == 2  # states: prefixes are too thin for k=5 here
    kept = out[out["zip"] != "*"]
    assert set(kept["zip"]) <= set(expected_states(sample))
    assert kept.groupby(["zip", "sex"]).size().min() >= 5
    assert len(out) - len(kept) == report.suppressed <= 0.1 * len(out)


def test_kanon_with_safe_harbor_named_may_keep_level_0(fresh_plugins, sample):
    """kanon takes the lowest level meeting k: here the ZIP codes themselves (every ZIP
    holds 2 rows or more), which Safe Harbor does not allow; hence the README's advice to
    pin level 1 with generalize."""
    patients = _patients(sample)
    hierarchies = {"zip": "us.zip_safe_harbor"}
    out = patients.anon.kanon(2, qid=["zip"], hierarchies=hierarchies, max_suppression=0.0)
    report = out.anon.report()
    assert report.hierarchies["zip"] == "us.zip_safe_harbor"
    assert report.levels["zip"] == 0 and out["zip"].equals(patients["zip"])
    pinned = patients.anon.generalize({"zip": ("us.zip_safe_harbor", 1)})
    restricted = pinned["zip"] == "000"
    assert restricted.sum() == patients["zip"].str[:3].isin(list(HHS_RESTRICTED)).sum()
    assert pinned["zip"][~restricted].str.fullmatch(r"\d{3}").all()


def test_kanon_falls_back_when_a_claimed_column_holds_other_values(fresh_plugins, sample):
    patients = _patients(sample)
    patients.loc[0, "zip"] = "SECRET"
    with pytest.warns(HierarchyFallbackWarning) as caught:
        patients.anon.kanon(5, qid=["zip", "sex"], max_suppression=0.1)
    assert not any("SECRET" in str(w.message) for w in caught)
