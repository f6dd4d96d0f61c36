"""One anonymization in a fresh interpreter, as a user runs it: read the table and its
hierarchies, anonymize, write the output CSV (bench_arx.py's cold whole-process comparison
with ARX's ArxOnce.java; the process is timed from outside).

    python once.py CSV HIERARCHY_PATTERN QIS K SUPPRESSION precision|dm OUT
"""

import sys

import pandas as pd

import pandas_anon
from pandas_anon.hierarchy import Hierarchy

csv, pattern, qis, k, suppression, metric, out = sys.argv[1:8]
qid = qis.split(",")
frame = pd.read_csv(csv, sep=";", dtype=str, keep_default_na=False)
hierarchies = {c: Hierarchy.from_csv(pattern % c) for c in qid}
released = pandas_anon.kanon(
    frame,
    int(k),
    qid=qid,
    hierarchies=hierarchies,
    max_suppression=float(suppression),
    metric=metric,
    progress=False,
)
released.to_csv(out, sep=";", index=False)
