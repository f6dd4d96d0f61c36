"""Progress of the Dask work a call asks for: Dask's own bar on a distributed cluster (the
scheduler's count of the tasks), tqdm's on Dask's local schedulers; none where the call
says ``progress=False``, nor where no person watches (captured output, CI logs)."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

if not os.environ.get("CI"):  # CI installs the test extra, which has Dask: never skipped there
    pytest.importorskip("distributed", reason='pip install -e ".[test]" (the dask extra)')

import dask.dataframe as dd

import pandas_anon

FRAME = pd.DataFrame({"age": [20, 21, 22, 23, 24, 25] * 20, "sex": list("FM") * 60})


def test_a_cluster_shows_dask_progress_when_asked(client, capsys):
    frame = dd.from_pandas(FRAME, npartitions=3)
    pandas_anon.kanon(frame, 5, qid=["age", "sex"], progress=True)
    shown = capsys.readouterr()
    assert "100% Completed" in shown.out + shown.err
    pandas_anon.kanon(frame, 5, qid=["age", "sex"], progress=False)
    quiet = capsys.readouterr()
    assert "Completed" not in quiet.out + quiet.err
    pandas_anon.kanon(frame, 5, qid=["age", "sex"])  # captured: nobody watches
    quiet = capsys.readouterr()
    assert "Completed" not in quiet.out + quiet.err


def test_the_local_schedulers_show_tqdm_progress_when_asked():
    """No cluster in a fresh interpreter: Dask's local scheduler, tqdm's callback."""
    script = (
        "import dask.dataframe as dd, pandas as pd, pandas_anon\n"
        "frame = dd.from_pandas(pd.DataFrame({'age': [20, 21, 22] * 20, 'sex': list('FM') * 30}),"
        " npartitions=2)\n"
        "pandas_anon.kanon(frame, 5, qid=['age', 'sex'], progress=True)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert "dask" in shown.stderr and "100%" in shown.stderr
