"""No false assurance: direct identifiers, the gate's rule, suppressed rows, zero configuration.

Every figure is checked against plain pandas (tests/verify.py and the helpers below), which
share no code with the engine.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon.cli.main import main
from pandas_anon.detect.exposure import SUPPRESSED, direct_identifiers, scan
from pandas_anon.errors import IdentifierWarning
from pandas_anon.gate.pandera_checks import measure
from pandas_anon.hierarchy import Hierarchy

from verify import naive_counts, verify_anonymized


def unique_share(column: pd.Series) -> float:
    """Plain pandas: the share of rows whose value occurs once (missing is a value)."""
    codes, _ = pd.factorize(column, use_na_sentinel=False)  # missing: one more value
    return float((np.bincount(codes)[codes] == 1).mean())


def naive_rows_below(frame: pd.DataFrame, columns: list, k: int) -> int:
    """Plain pandas: rows in classes of fewer than k rows, suppressed rows (every value
    ``*``) left out unless every row is one."""
    part = frame[list(columns)].astype(object)
    starred = (part == SUPPRESSED).all(axis=1)
    if 0 < starred.sum() < len(part):
        part = part[~starred]
    sizes = part.groupby(list(columns), dropna=False, sort=False).size()
    return int(sizes[sizes < k].sum())


def naive_worst(frame: pd.DataFrame, columns: list, k: int, max_size: int):
    """Plain pandas, every subset: the most rows below k, and the smallest subsets reaching it."""
    table = {
        subset: naive_rows_below(frame, list(subset), k)
        for size in range(1, max_size + 1)
        for subset in itertools.combinations(columns, size)
    }
    top = max(table.values())
    smallest = min(len(s) for s, v in table.items() if v == top)
    return top, {s for s, v in table.items() if v == top and len(s) == smallest}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(path: Path, frame: pd.DataFrame) -> Path:
    frame.to_csv(path, index=False)
    return path


# -- direct identifiers ---------------------------------------------------------------------


def test_direct_identifiers_of_valle_daosta(licences):
    found = direct_identifiers(licences)
    assert [f.column for f in found] == ["id"]
    assert found[0].unique_share == unique_share(licences["id"]) == 1.0
    assert found[0].hinted
    for column in licences.columns.drop("id"):  # every other column is far from it
        assert unique_share(licences[column]) < 0.5


def test_a_name_hint_lowers_the_share_never_decides_alone():
    values = [f"p{i}@x.org" for i in range(6)] + ["a@x.org"] * 4  # 6 of 10 rows alone
    frame = pd.DataFrame({"email": values, "other": values, "id": ["same"] * 10})
    assert unique_share(frame["email"]) == 0.6
    assert [f.column for f in direct_identifiers(frame)] == ["email"]  # 0.6 >= 0.5 hinted
    # 'other' (same values, no hint) is below 0.9; 'id' is hinted but constant


def test_near_distinct_birth_dates_are_identifiers():
    rng = np.random.default_rng(1)
    dates = pd.Series(pd.date_range("1950-01-01", periods=40).astype(str))
    for unique in (40, 38):  # both fail now (38 unique dates: 36 rows alone, 90 %)
        frame = pd.DataFrame(
            {
                "data_nascita": dates.where(dates.index < unique, dates[0]),
                "sesso": rng.choice(["M", "F"], 40),
            }
        )
        found = direct_identifiers(frame)
        assert [f.column for f in found] == ["data_nascita"]
        assert found[0].unique_share == unique_share(frame["data_nascita"]) >= 0.9


@settings(max_examples=200, deadline=None)
@given(
    repeated=st.integers(0, 6_000),
    distinct=st.integers(1, 6_000),
    tail_unique=st.booleans(),
    hinted=st.booleans(),
    dtype=st.sampled_from(["object", "string[pyarrow]", "category"]),
)
def test_identifiers_are_judged_on_the_whole_column(repeated, distinct, tail_unique, hinted, dtype):
    """Giving up on a column from its first rows (when they already share too much: their
    count of distinct values says so) never changes the verdict: the rows share or are
    alone as in the whole column."""
    head = [f"v{i % distinct}" for i in range(repeated)]
    tail = [f"u{i}" for i in range(4_000)] if tail_unique else ["same"] * 4_000
    name = "email" if hinted else "value"
    frame = pd.DataFrame({name: pd.Series(head + tail, dtype=dtype)})
    share = unique_share(frame[name])
    found = direct_identifiers(frame)
    assert [f.column for f in found] == ([name] if share >= (0.5 if hinted else 0.9) else [])
    if found:
        assert found[0].unique_share == share


# -- the gate's rule: pandas-anon check with no configuration -------------------------------


@pytest.fixture
def people(tmp_path) -> dict[str, Path]:
    """Tables of 40 rows: safe ones and each kind of exposure."""
    rng = np.random.default_rng(7)
    safe = pd.DataFrame(
        {"sesso": list("MF") * 20, "comune": (["A"] * 2 + ["B"] * 2) * 10, "classe": ["x"] * 40}
    )
    codes = [f"RSSMRA{70 + i}A01H501{chr(65 + i % 26)}" for i in range(40)]
    return {
        "safe": write(tmp_path / "safe.csv", safe),
        "codice_fiscale": write(tmp_path / "cf.csv", safe.assign(codice_fiscale=codes)),
        "birth_dates": write(
            tmp_path / "dates.csv",
            safe.assign(data_nascita=pd.date_range("1950-01-01", periods=40).astype(str)),
        ),
        # no column on its own, but (a, b) makes every row unique
        "identifier_set": write(
            tmp_path / "pairs.csv",
            pd.DataFrame({"a": np.repeat(np.arange(8), 5), "b": np.tile(np.arange(5), 8)}),
        ),
        "qid": write(
            tmp_path / "qid.csv",
            pd.DataFrame(
                {
                    "anno": rng.integers(1930, 2000, 40),
                    "comune": rng.choice(list("ABCDEFG"), 40),
                    "sesso": rng.choice(["M", "F"], 40),
                }
            ),
        ),
        "sparse": write(tmp_path / "sparse.csv", safe.assign(note=["rare"] + [None] * 39)),
    }


@pytest.mark.parametrize("kind", ["codice_fiscale", "birth_dates"])
def test_check_fails_a_file_holding_a_direct_identifier(capsys, people, kind):
    code, out, err = run(capsys, "check", str(people[kind]))
    column = {"codice_fiscale": "codice_fiscale", "birth_dates": "data_nascita"}[kind]
    assert code == 1 and err == ""
    assert f"'{column}' (100.00 % of the rows alone on its value" in out
    assert "identifies people on its own" in out and "--allow-identifier" in out
    frame = pd.read_csv(people[kind], dtype=str)
    assert not any(value in out for value in frame[column])  # never a value
    # allowed by name, the rest of the file is measured as usual (and is safe)
    assert run(capsys, "check", str(people[kind]), "--allow-identifier", column)[0] == 0


def test_check_fails_a_column_set_that_makes_every_row_unique(capsys, people):
    code, out, _ = run(capsys, "check", str(people["identifier_set"]), "--format", "json")
    found = json.loads(out)["files"][0]
    frame = pd.read_csv(people["identifier_set"])
    assert naive_counts(frame, ["a", "b"])["singletons"] == 40  # the truth
    assert (
        naive_counts(frame, ["a"])["singletons"] == naive_counts(frame, ["b"])["singletons"] == 0
    )  # neither column alone exposes anyone
    assert code == 1 and found["qid"] == ["a", "b"] and found["singletons"] == 40


def test_check_fails_a_risky_quasi_identifier_and_passes_a_safe_file(capsys, people):
    code, out, _ = run(capsys, "check", str(people["qid"]), "--format", "json")
    found = json.loads(out)["files"][0]
    frame = pd.read_csv(people["qid"])
    top, winners = naive_worst(frame, list(frame.columns), 2, 3)
    assert code == 1 and tuple(found["qid"]) in winners and found["singletons"] == top
    assert run(capsys, "check", str(people["safe"]))[0] == 0
    assert run(capsys, "check", str(people["safe"]), "--k", "10")[0] == 0
    # k=20 is too much for (sesso, comune): elected by rows below k, not by singletons
    code, out, _ = run(capsys, "check", str(people["safe"]), "--k", "20", "--format", "json")
    found = json.loads(out)["files"][0]
    assert code == 1 and found["qid"] == ["sesso", "comune"] and found["k"] == 10


def test_sparse_columns_do_not_shrink_the_rows_examined(capsys, people, licences):
    # a single 'rare' note on 40 rows: counted as a value it is a singleton
    code, out, _ = run(capsys, "check", str(people["sparse"]), "--format", "json")
    found = json.loads(out)["files"][0]
    assert code == 1 and found["qid"] == ["note"] and found["examined"] == 40
    assert found["singletons"] == 1
    # Valle d'Aosta: the election examines every row, not the 985 complete on every column
    found = scan(licences)
    assert found.election.examined == 87_642 and found.election.dropped == 0


def test_election_by_rows_below_k_equals_brute_force(licences):
    columns = ["anno_nascita", "sesso", "categoria_patente", "abilitato_a", "punti_patente"]
    part = licences[columns].iloc[:20_000]
    for k in (2, 5, 11):
        elected = pandas_anon.best_qid(part, columns, max_size=3, k=k, dropna=False)
        top, winners = naive_worst(part, columns, k, 3)
        assert elected.at_risk == top and elected.columns in winners, k
        if k == 2:
            assert elected.singletons == elected.at_risk


# -- suppressed rows: one definition for kanon, the checks and the gate ---------------------


@pytest.fixture
def mostly_classes() -> pd.DataFrame:
    """Two classes of 6 rows on (town, year), plus 2 suppressed rows."""
    return pd.DataFrame(
        {
            "town": ["A"] * 6 + ["B"] * 6 + [SUPPRESSED] * 2,
            "year": ["1970"] * 12 + [SUPPRESSED] * 2,
            "note": list("abcdefghijklmn"),
        }
    )


def test_suppressed_rows_belong_to_no_class(mostly_classes):
    found = measure(mostly_classes, ["town", "year"])
    assert (found.rows, found.examined, found.suppressed, found.smallest_class) == (14, 12, 2, 6)
    assert naive_rows_below(mostly_classes, ["town", "year"], 5) == found.rows_below(5) == 0
    pandas_anon.gate.pandera_checks.anon_k_anonymous(mostly_classes, qid=["town", "year"], k=5)
    # a row is suppressed only when every QID value is the marker
    partly = mostly_classes.assign(year=["1970"] * 14)
    assert measure(partly, ["town", "year"]).smallest_class == 2
    # every row suppressed: one class of them all
    every = mostly_classes.iloc[12:]
    assert measure(every, ["town", "year"]).class_sizes.tolist() == [2]


def test_kanon_output_with_fewer_than_k_suppressed_rows_passes_the_gate(capsys, tmp_path):
    # 3 rows of a rare town: suppressing them is cheaper than generalizing the town
    frame = pd.DataFrame(
        {"town": ["A"] * 10 + ["B"] * 10 + ["C"] * 3, "year": ["1970", "1971"] * 10 + ["1970"] * 3}
    )
    towns = Hierarchy.from_frame(pd.DataFrame({"town": list("ABC"), "area": ["N", "N", "S"]}))
    out = pandas_anon.kanon(
        frame, 5, qid=["town", "year"], hierarchies={"town": towns}, max_suppression=0.2
    )
    report = out.anon.report()
    assert report.suppressed == 3 and 0 < report.suppressed < 5
    assert (out.loc[20:, ["town", "year"]] == SUPPRESSED).all().all()
    checked = verify_anonymized(out, ["town", "year"], 5, max_suppressed=4)
    assert checked["suppressed"] == 3 and checked["k"] == report.k_reached == 5
    pandas_anon.gate.pandera_checks.anon_k_anonymous(out, qid=["town", "year"], k=5)
    path = write(tmp_path / "out.csv", out)
    assert run(capsys, "check", str(path), "--qid", "town,year", "--k", "5")[0] == 0
    assert run(capsys, "check", str(path), "--k", "5")[0] == 0  # zero configuration too


# -- zero configuration ---------------------------------------------------------------------


def test_zero_configuration_passes_its_own_gate(capsys, tmp_path, licences):
    source = write(tmp_path / "patenti.csv", licences)
    target = tmp_path / "patenti_k5.csv"
    code, out, err = run(capsys, "anonymize", str(source), str(target), "--k", "5")
    assert code == 0, err
    released = pd.read_csv(target, dtype=str, keep_default_na=False, na_values=[""])
    assert "id" not in released.columns  # dropped, and said so
    assert "id" in out and "dropped" in out
    assert direct_identifiers(released) == ()  # no column unique on its own
    for column in released.columns:
        assert unique_share(released[column]) < 0.5
    code, out, err = run(capsys, "check", "--k", "5", str(target))
    assert (code, err) == (0, ""), out
    # and by brute force: every subset of up to 3 released columns is 5-anonymous, and
    # all of them together are (zero configuration's guarantee)
    top, _ = naive_worst(released, list(released.columns), 5, 3)
    assert top == 0
    assert verify_anonymized(released, list(released.columns), 5, 0)["k"] >= 5
    code, out, err = run(
        capsys, "check", "--qid", ",".join(released.columns), "--k", "5", str(target)
    )
    assert (code, err) == (0, ""), out


def test_zero_configuration_report_states_what_it_protects(licences):
    sample = licences.iloc[:3000]
    out = sample.anon.kanon(5)
    report = out.anon.report()
    assert report.identifiers == {"id": "dropped"} and "id" not in out.columns
    assert report.exposure["passes"] and report.exposure["rows_below_k"] == 0
    assert report.choices["qid"].startswith("every released column (13 columns")
    assert report.choices["qid"].endswith("the release is 5-anonymous on all of them together")
    released = list(out.columns)
    top, _ = naive_worst(out, released, 5, 3)
    assert top == 0
    assert verify_anonymized(out, released, 5, 0)["k"] >= 5
    assert sample.equals(licences.iloc[:3000])  # the caller's frame is untouched


def test_identifiers_hash_and_keep(licences):
    sample = licences.iloc[:2000]
    qid = ["anno_nascita", "sesso"]
    hashed = sample.anon.kanon(5, qid=qid, identifiers="hash", salt="s3cret-0123456789abcdef")
    again = sample.anon.kanon(5, qid=qid, identifiers="hash", salt="s3cret-0123456789abcdef")
    other = sample.anon.kanon(5, qid=qid, identifiers="hash")
    assert hashed["id"].nunique() == 2000 and hashed["id"].equals(again["id"])
    assert not hashed["id"].equals(other["id"])  # a random key: not linkable
    assert not hashed["id"].astype(str).isin(sample["id"].astype(str)).any()
    assert hashed.anon.report().identifiers == {"id": "hashed"}
    assert "s3cret-0123456789abcdef" not in json.dumps(hashed.attrs, default=str)
    with pytest.warns(IdentifierWarning, match=r"'id' \(100.00 % of the rows"):
        kept = sample.anon.kanon(5, qid=qid, identifiers="keep")
    assert kept["id"].equals(sample["id"]) and kept.anon.report().identifiers == {"id": "kept"}
    dropped = sample.anon.kanon(5, qid=qid)
    assert "id" not in dropped.columns and dropped.anon.report().identifiers == {"id": "dropped"}


def test_kanon_writes_object_integers_beyond_int64_exactly():
    # Index.append re-inferred object integers: 2**63 + 1 was written as 9.223372036854776e18
    frame = pd.DataFrame(
        {
            "code": pd.Series([2**63 + 1, 5, None, 5, 2**63 + 1, None], dtype=object),
            "x": list("aabbab"),
        }
    )
    out = pandas_anon.kanon(frame, 2, qid=["code", "x"], max_suppression=1)
    assert out["code"].tolist()[0] == 2**63 + 1 and type(out["code"][0]) is int
    assert out["code"].tolist()[1:4:2] == [SUPPRESSED, SUPPRESSED]
    assert verify_anonymized(out, ["code", "x"], 2, 6)["k"] == 2


def test_a_list_column_outside_the_qid_does_not_stop_kanon():
    # identifier detection reads every column outside the QID; lists are compared as written
    frame = pd.DataFrame(
        {
            "year": [1970, 1970, 1971, 1971] * 3,
            "tags": [["a"], ["b"]] * 6,
            "ref": [[i] for i in range(12)],
        }
    )
    out = pandas_anon.kanon(frame, 2, qid=["year"])
    assert out.anon.report().identifiers == {"ref": "dropped"}
    assert list(out.columns) == ["year", "tags"]


def test_kanon_l_diverse_output_with_suppressed_rows_passes_the_pandera_check():
    frame = pd.DataFrame(
        {"town": ["A"] * 10 + ["B"] * 10 + ["C"] * 2, "diagnosis": ["X", "Y"] * 10 + ["X", "X"]}
    )
    towns = Hierarchy.from_frame(pd.DataFrame({"town": list("ABC"), "area": ["N", "N", "S"]}))
    out = pandas_anon.kanon(
        frame,
        2,
        qid=["town"],
        hierarchies={"town": towns},
        sensitive="diagnosis",
        l=2,
        max_suppression=0.1,
    )
    assert out.anon.report().suppressed == 2 and out.anon.report().levels == {"town": 0}
    # the two suppressed rows share one diagnosis, but they are in no class
    assert pandas_anon.privacy.measures.l_diversity(out, ["town"], "diagnosis") == 2
    pandas_anon.gate.pandera_checks.anon_l_diverse(out, qid=["town"], sensitive="diagnosis", l=2)
    pandas_anon.gate.pandera_checks.anon_k_anonymous(out, qid=["town"], k=2)


def test_interval_bounds_near_the_integer_limits_are_exact():
    # the bounds were computed in int64 (wrapping past 2**63) and uint64 was read as int64
    from pandas_anon.hierarchy import builders

    unsigned = pd.Series(np.array([2**64 - 1, 5, 2**63 + 3, 7], dtype=np.uint64))
    levels = builders.intervals(unsigned, width=[10, 1000])
    assert list(levels.labels(1)) == [
        "[0, 10)",
        "[9223372036854775810, 9223372036854775820)",
        "[18446744073709551610, 18446744073709551620)",
    ]
    signed = pd.Series(np.array([-(2**63), 5, 2**63 - 1], dtype=np.int64))
    assert list(builders.intervals(signed, width=[10]).labels(1)) == [
        "[-9223372036854775810, -9223372036854775800)",
        "[0, 10)",
        "[9223372036854775800, 9223372036854775810)",
    ]


@pytest.mark.parametrize(
    "numbers",
    [
        [i * 1e-300 for i in range(25)],  # every label was '[0, 0)'
        [i * 1e-16 for i in range(25)],  # labels falling under several labels
        [5e-324 * i for i in range(25)],  # ZeroDivisionError
        [1e308, -1e308] + [float(i) for i in range(20)],  # OverflowError
        [float("inf")] + [float(i) for i in range(30)],  # HierarchyError in zero configuration
    ],
)
@pytest.mark.filterwarnings("ignore::pandas_anon.OneClassWarning")  # x to * leaves one class
def test_auto_suppresses_floats_no_interval_can_label(numbers):
    from pandas_anon.hierarchy import builders

    assert builders.auto(pd.Series(numbers)).name == "auto:suppression"
    frame = pd.DataFrame({"x": numbers, "y": ["a"] * len(numbers)})
    out = pandas_anon.kanon(frame, 2, qid=["x", "y"])
    assert verify_anonymized(out, ["x", "y"], 2, 0)["k"] >= 2
