"""Frames wider than the compiled kernels read in one call, and searches too wide to finish.

``tabulate_rows`` reads at most ``TABULATED_COLUMNS`` (1,024) columns; a wider frame once
raised the kernel's own ``ValueError`` from ``kanon``, ``identifiers``, ``suda`` and the
command line. It now takes the general path (its keys are too wide for one word anyway), with
the same answers. The best-QID search counts its subsets before it builds them and stops with
:class:`LimitExceededError` past its budget instead of running for hours (1,030 columns hold
181 million subsets of 3).
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon import LimitExceededError
from pandas_anon.engine import hashing

WIDTH = 1030


@pytest.fixture(scope="module")
def wide() -> pd.DataFrame:
    """60 rows of 1,030 text columns of three values, and a column of distinct codes."""
    rng = np.random.default_rng(0)
    values = rng.integers(0, 3, size=(60, WIDTH)).astype(str)
    frame = pd.DataFrame(values, columns=[f"c{i}" for i in range(WIDTH)])
    frame.insert(0, "code", [f"X{i:04d}" for i in range(60)])
    return frame


def test_the_kernels_read_at_most_their_columns():
    kernels = hashing.kernels
    if kernels is None:
        pytest.skip("the compiled kernels are not built")
    assert kernels.TABULATED_COLUMNS == 1024


def test_identifiers_of_a_frame_wider_than_the_kernels(wide):
    assert pandas_anon.identifiers(wide) == [("code",)]
    narrow = pandas_anon.identifiers(wide.iloc[:, :1000])  # the compiled path
    assert narrow == [("code",)]


def test_kanon_and_suda_on_a_frame_wider_than_the_kernels(wide):
    qid = ["c0", "c1", "c2"]
    out = pandas_anon.kanon(wide, 2, qid=qid)
    assert "code" not in out.columns  # the identifier among the 1,028 other columns, found
    assert out.anon.report().identifiers == {"code": "dropped"}
    assert out.groupby(qid).size().min() >= 2
    assert len(pandas_anon.suda(wide, qid).score) == len(wide)
    everything = pandas_anon.singletons(wide, list(wide.columns))
    assert everything.count == 60


def test_the_best_qid_search_stops_at_its_budget_before_building_it(wide):
    with pytest.raises(LimitExceededError, match=r"1,333,500 column subsets.*max_subsets"):
        pandas_anon.best_qid(wide.iloc[:, 1:201], max_size=3)  # 200 columns: 1.3 M subsets
    twenty = wide.iloc[:, 1:21]  # 20 + 190 + 1,140 subsets of up to 3 columns
    with pytest.raises(LimitExceededError, match="would examine 1,350 column subsets"):
        pandas_anon.best_qid(twenty, max_size=3, max_subsets=1000)
    assert pandas_anon.best_qid(twenty, max_size=3, max_subsets=1350).columns
    assert pandas_anon.best_qid(twenty, max_size=3).columns  # within the default budget


def test_the_command_line_on_a_frame_wider_than_the_kernels(wide, tmp_path):
    source = tmp_path / "wide.csv"
    wide.to_csv(source, index=False)
    target = tmp_path / "out.csv"
    done = subprocess.run(
        [sys.executable, "-m", "pandas_anon.cli", "anonymize", str(source), str(target)]
        + ["--k", "2", "--qid", "c0,c1,c2"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "code" not in pd.read_csv(target, nrows=1).columns
    scanned = subprocess.run(
        [sys.executable, "-m", "pandas_anon.cli", "scan", str(source), "--qid", "c0,c1,c2"],
        capture_output=True,
        text=True,
    )
    assert scanned.returncode == 0, scanned.stderr
    electing = subprocess.run(
        [sys.executable, "-m", "pandas_anon.cli", "scan", str(source), "--max-subsets", "100000"],
        capture_output=True,
        text=True,
    )
    assert electing.returncode == 2  # 530,000 pairs: refused before they are built
    assert re.search(r"would examine [\d,]{7} column subsets \(of up to 2 ", electing.stderr)
    assert "--max-subsets" in electing.stderr and "Traceback" not in electing.stderr
