"""Dask frames on a real LocalCluster (two worker processes): ``ddf.anon`` and the functions
give exactly the pandas results (figures, the lazy row mask, the election), on the bundled
data and on random frames of every partitioning (one partition, seven, uneven, empty ones,
categories differing from one partition to the next)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

if not os.environ.get("CI"):  # CI installs the test extra, which has Dask: never skipped there
    pytest.importorskip("distributed", reason='pip install -e ".[test]" (the dask extra)')

import dask.dataframe as dd
from dask_frames import PARTITIONINGS, frames, objects_kept, outcome, partitioned, written_apart

import pandas_anon
from pandas_anon.errors import InvalidParameterError


def assert_same_singletons(on_dask, on_pandas) -> None:
    figures = ("qid", "count", "distinct", "examined", "dropped")
    assert [getattr(on_dask, f) for f in figures] == [getattr(on_pandas, f) for f in figures]
    assert sorted(on_dask.class_sizes.tolist()) == sorted(on_pandas.class_sizes.tolist())
    mask = on_dask.mask.compute()
    pd.testing.assert_series_equal(mask, on_pandas.mask, check_index_type=False)


def assert_equal(on_dask, on_pandas) -> None:
    assert on_dask == on_pandas


def assert_same_risk(on_dask, on_pandas) -> None:
    assert_same_singletons(on_dask.uniques, on_pandas.uniques)
    assert on_dask.smallest_class == on_pandas.smallest_class
    assert on_dask.highest_risk_records == on_pandas.highest_risk_records
    pd.testing.assert_frame_equal(on_dask.class_sizes, on_pandas.class_sizes)
    pd.testing.assert_frame_equal(on_dask.contributions, on_pandas.contributions)


def assert_same_election(on_dask, on_pandas) -> None:
    assert (on_dask.columns, on_dask.singletons, on_dask.at_risk, on_dask.ties) == (
        on_pandas.columns,
        on_pandas.singletons,
        on_pandas.at_risk,
        on_pandas.ties,
    )
    pd.testing.assert_frame_equal(on_dask.table, on_pandas.table)


@pytest.mark.parametrize("how", PARTITIONINGS)
def test_the_licence_file_gives_the_pandas_figures(client, licences, how):
    """Valle d'Aosta, the seed QID: 1,684 singletons among 87,464 complete rows, the same
    rows, risk figures and election (the four personal columns) as pandas."""
    ddf = partitioned(licences, how)
    qid = ["anno_nascita", "comune_residenza", "sesso"]
    found = ddf.anon.singletons(qid)
    assert (found.count, found.examined, found.dropped) == (1_684, 87_464, 178)
    assert_same_singletons(found, licences.anon.singletons(qid))
    assert_same_risk(ddf.anon.risk(qid), licences.anon.risk(qid))
    personal = ["anno_nascita", "comune_residenza", "provincia_residenza", "sesso"]
    assert_same_election(ddf.anon.best_qid(personal), licences.anon.best_qid(personal))
    assert ddf.anon.identifiers() == licences.anon.identifiers()


def test_the_counts_of_many_partitions_are_added_up_group_by_group(client, licences):
    """Twenty partitions, whose counts are added up by groups of at most eight partitions
    and then those groups': the combinations in the order their first rows come (missing
    values a value), their counts and the singletons are the pandas frame's."""
    from pandas_anon.engine.backends import dask_backend

    qid = ["anno_nascita", "comune_residenza", "provincia_residenza", "sesso"]
    ddf = dd.from_pandas(licences, npartitions=20, sort=False)
    found = dask_backend().digest(ddf, qid)
    expected = licences[qid].drop_duplicates().reset_index(drop=True)
    pd.testing.assert_frame_equal(found.frame, expected.astype(ddf[qid].dtypes.to_dict()))
    sizes = licences.groupby(qid, dropna=False, sort=False).size().to_numpy()
    assert found.counts.tolist() == sizes.tolist() and found.n_rows == len(licences)
    assert_same_singletons(
        ddf.anon.singletons(qid, dropna=False), licences.anon.singletons(qid, dropna=False)
    )


def test_adult_with_missing_counted_as_a_value(client, adult):
    ddf = partitioned(adult, "seven")
    qid = ["age", "sex", "race", "marital-status", "education"]
    assert_same_singletons(
        ddf.anon.singletons(qid, dropna=False), adult.anon.singletons(qid, dropna=False)
    )
    assert_same_election(
        pandas_anon.best_qid(ddf, qid, max_size=3, k=5),
        pandas_anon.best_qid(adult, qid, max_size=3, k=5),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=frames(), how=st.sampled_from(PARTITIONINGS), dropna=st.booleans())
def test_random_frames_give_the_pandas_figures(client, frame, how, dropna):
    """Every figure, the row mask and the election of a random frame, on every partitioning,
    missing values dropped or counted as a value; the same errors and warnings (a frame whose
    every row misses a value, most rows dropped, only identifiers to elect from)."""
    ddf = partitioned(frame, how)
    qid = list(frame.columns)
    calls = {
        "singletons": (lambda f: f.anon.singletons(qid, dropna=dropna), assert_same_singletons),
        "risk": (lambda f: f.anon.risk(qid, dropna=dropna), assert_same_risk),
        "best_qid": (lambda f: f.anon.best_qid(dropna=dropna, max_size=3), assert_same_election),
        "identifiers": (lambda f: f.anon.identifiers(max_size=2), assert_equal),
    }
    for call, same in calls.values():
        (on_dask, dask_warnings), (on_pandas, pandas_warnings) = (
            outcome(call, ddf),
            outcome(call, frame),
        )
        assert dask_warnings == pandas_warnings
        if isinstance(on_pandas, Exception):
            assert (type(on_dask), str(on_dask)) == (type(on_pandas), str(on_pandas))
        else:
            same(on_dask, on_pandas)


def test_the_mask_selects_the_singleton_rows_lazily(client, licences):
    ddf = partitioned(licences, "seven")
    found = ddf.anon.singletons(["anno_nascita", "comune_residenza", "sesso"])
    rows = found.rows
    assert isinstance(rows, dd.DataFrame)
    expected = licences.anon.singletons(["anno_nascita", "comune_residenza", "sesso"]).rows
    got = rows.compute()
    # dask reads pandas' text columns as its string dtype (NA for missing): the same values
    pd.testing.assert_frame_equal(got, expected.astype(got.dtypes.to_dict()))


def test_weights_are_refused_on_a_dask_frame(client, licences):
    ddf = partitioned(licences.assign(n=1), "one")
    with pytest.raises(InvalidParameterError, match="Dask frame"):
        ddf.anon.singletons(["sesso"], weights="n")


@pytest.mark.parametrize("first", ["pandas_anon", "dask.dataframe"])
def test_the_accessor_is_registered_in_either_import_order(first):
    """``ddf.anon`` exists whichever of the two is imported first, and ``import
    pandas_anon`` alone never imports Dask."""
    second = "dask.dataframe" if first == "pandas_anon" else "pandas_anon"
    code = (
        "import sys\nimport pandas_anon\nassert 'dask' not in sys.modules\n"
        if first == "pandas_anon"
        else ""
    ) + (
        f"import {first}\nimport {second}\n"
        "import dask.dataframe as dd, pandas as pd\n"
        "ddf = dd.from_pandas(pd.DataFrame({'a': [1, 1, 2]}), npartitions=2)\n"
        "print(ddf.anon.singletons(['a']).count)\n"
    )
    root = Path(pandas_anon.__file__).parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]


@pytest.mark.parametrize(
    "call",
    [
        "from pandas_anon.engine.backends import dask_backend; dask_backend()",
        "from pandas_anon.cli.main import main; raise SystemExit(main(['check', 'x.parquet', "
        "'--engine', 'dask']))",
    ],
    ids=["api", "check"],
)
def test_without_dask_the_error_says_what_to_install(call):
    """With Dask not installed (its import made to fail), what needs it says which extra to
    install, and the gate exits 2."""
    code = "import sys\nsys.modules['dask'] = None\nsys.modules['dask.dataframe'] = None\n" + call
    root = Path(pandas_anon.__file__).parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert 'pip install "pandas-anon[dask]"' in done.stderr
    assert done.returncode == (2 if "check" in call else 1)


@pytest.mark.parametrize("dtype", [object, "string[python]", "string[pyarrow]"])
def test_texts_differing_past_a_nul_are_counted_apart(client, dtype):
    """Texts that differ past a NUL character, which pandas before 3.1 hashed up to it (so
    Dask's groupby and merge took ``""`` for ``"\\x00"``), are counted apart on a Dask frame
    as on the pandas frame, wherever the partitions cut them."""
    texts = ["", "\x00", "a\x00b", "a\x00c", "a", "\x01\x02", "\x01\x00", None, "a\x00b"]
    frame = pd.DataFrame({"x": pd.Series(texts * 2, dtype=dtype), "y": [1, 2] * 9})
    for npartitions in (1, 3, 6):
        ddf = objects_kept(frame, npartitions)
        assert ddf["x"].dtype == frame["x"].dtype
        found = ddf.anon.singletons(["x", "y"], dropna=False)
        assert (found.count, found.distinct) == (14, 16)
        assert_same_singletons(found, frame.anon.singletons(["x", "y"], dropna=False))
        assert (ddf.anon.singletons(["x"]).count, ddf.anon.singletons(["x"]).distinct) == (0, 7)
        assert ddf.anon.identifiers() == frame.anon.identifiers() == []
        assert_same_risk(ddf.anon.risk(["x", "y"]), frame.anon.risk(["x", "y"]))


@pytest.mark.parametrize("dtype", [object, "string[python]"])
def test_texts_with_lone_surrogates_are_counted_apart(client, dtype):
    """Distinct texts holding a lone surrogate, which pandas before 3.1 hashed from freed
    memory (pandas-dev/pandas#34550: 40 such texts were one value), are counted apart on a
    Dask frame as on the pandas frame, wherever the partitions cut them (an object column's
    texts kept as objects: pandas 3's str, Arrow's UTF-8, holds no lone surrogate)."""
    texts = [*[chr(0xDC00 + i) + "\xca\xeb" for i in range(40)] * 2, "\xca\xeb", ""]
    frame = pd.DataFrame({"x": pd.Series(texts, dtype=dtype), "y": 1})
    for npartitions in (1, 3):
        found = objects_kept(frame, npartitions).anon.singletons(["x", "y"])
        assert (found.count, found.distinct) == (2, 42)
        assert_same_singletons(found, frame.anon.singletons(["x", "y"]))


def test_values_written_apart_are_counted_apart(client):
    """0.0 and -0.0, and 1, True and 1.0, which pandas' equality (and so Dask's groupby,
    merge and value_counts) takes for one value, are counted apart on a Dask frame as on
    the pandas frame: the same figures, row mask, identifiers and election, each zero alone
    in a partition or both in one."""
    frame = written_apart()
    ddf = objects_kept(frame, 4)
    qid = ["x", "m"]
    for columns, count, distinct in ((["x"], 1, 4), (["m"], 0, 4), (qid, 6, 9), (["id"], 12, 12)):
        found = ddf.anon.singletons(columns)
        assert (found.count, found.distinct) == (count, distinct)
        assert_same_singletons(found, frame.anon.singletons(columns))
    assert_same_singletons(
        ddf.anon.singletons(qid, dropna=False), frame.anon.singletons(qid, dropna=False)
    )
    risk = ddf.anon.risk(qid)
    assert (risk.smallest_class, risk.highest_risk_records) == (1, 6)
    assert_same_risk(risk, frame.anon.risk(qid))
    assert ddf.anon.identifiers() == frame.anon.identifiers() == [("id",)]
    assert_same_election(ddf.anon.best_qid(qid), frame.anon.best_qid(qid))
