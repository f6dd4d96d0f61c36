"""``compare``: methods side by side, each row the figures of the method's own release,
its modified cells counted independently; bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon import InvalidParameterError
from pandas_anon.hierarchy import Hierarchy

from conftest import SEED_QID


def differing_cells(frame: pd.DataFrame, out: pd.DataFrame, qid: list) -> int:
    """Cells written otherwise than read, missing equal to missing (plain Python)."""
    count = 0
    for column in qid:
        for a, b in zip(out[column].tolist(), frame.loc[out.index, column].tolist()):
            if not (pd.isna(a) and pd.isna(b)) and (pd.isna(a) or pd.isna(b) or a != b):
                count += 1
    return count


def test_each_row_is_the_methods_own_release(licences):
    provinces = Hierarchy.from_columns(licences, ["comune_residenza", "provincia_residenza"])
    options = {"qid": SEED_QID, "hierarchies": {"comune_residenza": provinces}}
    found = licences.anon.compare(2, methods=["ola", "mondrian", "local"], **options)
    assert list(found.table.index) == ["ola", "mondrian", "local"]
    assert found.qid == tuple(SEED_QID) and found.k == 2
    for method in found.table.index:
        out = licences.anon.kanon(2, algo=method, **options)
        report = out.anon.report()
        row = found.table.loc[method]
        assert row["classes"] == report.classes and row["DM"] == report.metrics["dm"]
        assert row["modified rows"] == report.modified
        assert row["modified cells"] == differing_cells(licences, out, SEED_QID)
    local = found.table.loc["local"]
    assert local["modified rows"] == 1796 and local["suppressed"] == 0
    assert local["modified rows"] < found.table.loc["ola"]["modified rows"]
    shown = repr(found)
    assert "methods compared" in shown and "AOSTA" not in shown  # figures, never values
    assert set(found.to_dict()["table"][0]) >= {"method", "precision", "DM", "modified cells"}


def test_the_quasi_identifier_is_elected_once(licences):
    found = pandas_anon.compare(licences, 5, methods=["mondrian", "local"])
    elected = licences.anon.kanon(5, algo="mondrian").anon.report().qid
    assert found.qid == tuple(elected)  # the first method's election, given to the next
    assert (found.table["smallest class"] >= 5).all()
    assert np.isnan(found.table.loc["mondrian", "precision"])  # cut by value: no hierarchy


@pytest.mark.parametrize("methods", ["ola", []])
def test_methods_must_be_a_list(licences, methods):
    with pytest.raises(InvalidParameterError, match="methods must be a list"):
        pandas_anon.compare(licences, 2, methods=methods, qid=SEED_QID)


def test_the_command_line_prints_the_same_table(tmp_path, licences, capsys):
    from pandas_anon.cli.main import main

    path = tmp_path / "licences.csv"
    licences.to_csv(path, index=False)
    argv = ["compare", str(path), "--k", "2", "--qid", ",".join(SEED_QID)]
    code = main([*argv, "--methods", "mondrian,local", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    import json

    table = {row["method"]: row for row in json.loads(out)["table"]}
    assert set(table) == {"mondrian", "local"}
    assert table["local"]["suppressed"] == 0 and table["local"]["smallest class"] >= 2
    assert main([*argv, "--methods", "magic"]) == 2
    assert "algo must be one of" in capsys.readouterr().err


def test_labels_that_are_not_text_and_hierarchies_of_columns_not_elected():
    frame = pd.DataFrame({0: list("aabbcc") * 3, 1: list("xyxyxy") * 3, "s": range(18)})
    found = pandas_anon.compare(frame, 2, methods=["local", "ola"])  # integer labels elected
    assert list(found.table.index) == ["local", "ola"]
    assert (found.table["smallest class"] >= 2).all()


def test_a_method_given_twice_is_refused(licences):
    with pytest.raises(InvalidParameterError, match="'local' twice"):
        pandas_anon.compare(licences, 2, methods=["local", "local"], qid=SEED_QID)


def test_the_dict_holds_no_nan(licences):
    import json

    found = pandas_anon.compare(licences, 2, methods=["mondrian"], qid=SEED_QID)
    text = json.dumps(found.to_dict())
    assert "NaN" not in text and json.loads(text)["table"][0]["precision"] is None
