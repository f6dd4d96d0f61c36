"""The utility figures a person can judge (issue 35, item 3): the share of quasi-identifier
cells left unchanged, the query error of the 1- and 2-way count queries, and task utility.

The figures are checked by hand on tiny frames, against an independent verifier written
here with plain pandas (groupby and merge on the values as written, no codes) on Adult, and
by property on random frames."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pandas_anon
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES
from pandas_anon.errors import InvalidParameterError, MissingDependencyError
from pandas_anon.hierarchy import Hierarchy

from verify import release_classes

ADULT_QID = list(ADULT_HIERARCHY_ATTRIBUTES)  # its 9 quasi-identifiers
MISSING = "missing"  # a value of its own; the verifier's texts are "kind:repr", never this


def written(series: pd.Series) -> pd.Series:
    """Each value as written (its kind and repr: 1, "1", 1.0 and True apart), missing as
    :data:`MISSING`. A column of floats every known value of which is a whole number (at
    most 2**53, no -0.0: whole numbers read as floats, as a column of years with a gap is
    read) is written as its whole numbers, as a release writes it."""
    if pd.api.types.is_float_dtype(series.dtype):
        known = series.dropna().to_numpy(dtype=float)
        if len(known) and bool(
            np.all((np.floor(known) == known) & (np.abs(known) <= 2**53))
            and not np.any((known == 0) & np.signbit(known))
        ):
            series = series.astype("Int64")

    def text(value: object) -> str:
        if value is None or (not isinstance(value, str) and pd.isna(value)):
            return MISSING
        if isinstance(value, np.generic):
            value = value.item()
        return f"{type(value).__name__}:{value!r}"

    return pd.Series([text(v) for v in series.astype(object)], index=series.index, dtype=object)


def release(frame: pd.DataFrame, k: int, **options) -> tuple[pd.DataFrame, np.ndarray]:
    """The output of ``kanon``, and which rows it suppressed: those its ``suppress="drop"``
    output leaves out (a row generalized to ``*`` in every column is not suppressed, and
    reads differently: its labels stand for the values written as them)."""
    out = pandas_anon.kanon(frame, k, **options)
    dropped = pandas_anon.kanon(frame, k, suppress="drop", **options)
    return out, ~frame.index.isin(dropped.index)


def verify_unchanged(frame: pd.DataFrame, out: pd.DataFrame, qid: list, masked) -> float:
    """The share of QID cells whose value is written as read (a suppressed row's cells
    changed), from the values alone."""
    same = [
        (written(frame[c]).to_numpy() == written(out[c]).to_numpy()) & ~np.asarray(masked)
        for c in qid
    ]
    return float(np.mean(same))


def verify_query_error(
    frame: pd.DataFrame, out: pd.DataFrame, qid: list, masked
) -> tuple[float, int]:
    """The mean relative error of every 1- and 2-way count query, and how many.

    Queries: each value of a column the original holds, each pair of values of two columns
    some original row holds (missing a value). Estimate from the release: a released label's
    rows spread evenly over the original values written as it (among kept rows); a released
    row's two labels independently over their values; a suppressed row evenly over every
    value (pair of values) of the original."""
    masked = np.asarray(masked)
    kept = ~masked
    original = pd.DataFrame({c: written(frame[c]) for c in qid})
    release = pd.DataFrame({c: written(out[c]) for c in qid})
    suppressed = int(masked.sum())
    members = {}
    for c in qid:
        pairs = pd.DataFrame({"label": release[c][kept], "value": original[c][kept]})
        distinct = pairs.drop_duplicates()
        distinct["share"] = 1.0 / distinct.groupby("label")["value"].transform("size")
        members[c] = distinct
    errors = []
    for c in qid:
        truth = original[c].value_counts()
        rows = release[c][kept].value_counts().rename("rows")
        spread = members[c].join(rows, on="label")
        estimate = (spread["rows"] * spread["share"]).groupby(spread["value"]).sum()
        estimate = estimate.reindex(truth.index, fill_value=0.0) + suppressed / len(truth)
        errors += list((estimate - truth).abs() / truth)
    for a, b in combinations(qid, 2):
        truth = original.groupby([a, b]).size()
        released = release[kept].groupby([a, b]).size().rename("n").reset_index()
        released.columns = ["la", "lb", "n"]
        left = members[a].rename(columns={"label": "la", "value": "va", "share": "sa"})
        right = members[b].rename(columns={"label": "lb", "value": "vb", "share": "sb"})
        spread = released.merge(left, on="la").merge(right, on="lb")
        estimate = (
            (spread["n"] * spread["sa"] * spread["sb"]).groupby([spread["va"], spread["vb"]]).sum()
        )
        values = original[a].nunique() * original[b].nunique()
        estimate = estimate.reindex(truth.index, fill_value=0.0) + suppressed / values
        errors += list((estimate - truth).abs() / truth)
    return float(np.mean(errors)), len(errors)


def test_exact_figures_of_a_generalized_frame():
    """Eight rows; age 21, 21, 22, 22 written 20-29 and 35, 36, 37, 38 written 30-39; sex
    kept.

    Unchanged: the 8 age cells changed, the 8 sex cells not: 8 / 16 = 0.5.

    Queries: age 21, 22, 35, 36, 37, 38 and sex F, M (8 one-way); the pairs (21, F),
    (22, M), (35, F), (36, M), (37, F), (38, M) (6 two-way): 14. One-way estimates are
    exact: 20-29's 4 rows spread over 21 and 22 give 2 each (true 2), 30-39's 4 over its
    four values 1 each (true 1), sex as read. Two-way: (20-29, F) has 2 rows, spread over
    (21, F) and (22, F), so (21, F) is estimated 1 for a true 2: error 1/2; (22, M) the
    same; (30-39, F) has 2 rows over 4 pairs, so (35, F) is estimated 0.5 for a true 1:
    error 1/2, and (36, M), (37, F), (38, M) the same. Mean: 6 * 1/2 / 14 = 3/14."""
    df = pd.DataFrame(
        {
            "age": [21, 21, 22, 22, 35, 36, 37, 38],
            "sex": ["F", "F", "M", "M", "F", "M", "F", "M"],
        }
    )
    decades = Hierarchy([21, 22, 35, 36, 37, 38], [["20-29"] * 2 + ["30-39"] * 4])
    out = pandas_anon.kanon(df, 2, qid=["age", "sex"], hierarchies={"age": decades})
    report = out.anon.report()
    assert report.metrics["unchanged"] == 0.5
    assert report.metrics["queries"] == 14
    assert report.metrics["query_error"] == pytest.approx(3 / 14, rel=1e-12)
    assert "QID cells unchanged" in repr(report) and "query error (1-, 2-way)" in repr(report)
    assert report.to_dict()["metrics"]["query_error"] == pytest.approx(3 / 14, rel=1e-12)


def test_exact_figures_with_a_suppressed_row_and_a_missing_value():
    """Five rows: (30, F) twice, (31, M) twice and (50, missing), k = 2, one row may be
    suppressed: the optimal search keeps every value and suppresses (50, missing).

    Unchanged: the suppressed row's 2 cells changed of 10: 0.8.

    Queries: age 30, 31, 50; sex F, M, missing (a value); pairs (30, F), (31, M),
    (50, missing): 9. The suppressed row is spread over the 3 values of each column
    (1/3 each) and over the 3 x 3 pairs (1/9 each). Age 30: 2 + 1/3 for 2, error 1/6; 31
    the same; 50: 1/3 for 1, error 2/3: one-way age sums to 1, sex likewise. (30, F):
    2 + 1/9 for 2, error 1/18; (31, M) the same; (50, missing): 1/9 for 1, error 8/9:
    the two-way sum to 1. Mean: 3 / 9 = 1/3."""
    df = pd.DataFrame({"age": [30, 30, 31, 31, 50], "sex": ["F", "F", "M", "M", None]})
    out = pandas_anon.kanon(df, 2, qid=["age", "sex"], max_suppression=0.2)
    report = out.anon.report()
    assert report.suppressed == 1 and report.modified == 1
    assert report.metrics["unchanged"] == 0.8
    assert report.metrics["queries"] == 9
    assert report.metrics["query_error"] == pytest.approx(1 / 3, rel=1e-12)


def test_exact_figures_of_boxes_and_sets():
    """Mondrian on (35, F), (36, F), (36, M), (37, M), (38, M), k = 2: the first three rows
    are written ([35-36], {F, M}), the last two ([37-38], M).

    One-way age: [35-36]'s 3 rows over 35 and 36, 1.5 each: 35 errs 0.5 (true 1), 36 errs
    0.25 (true 2); [37-38]'s 2 rows over 37 and 38 are exact: 0.75 in all. Sex: {F, M}'s 3
    rows give F 1.5 (true 2, error 1/4) and M 1.5 + 2 = 3.5 (true 3, error 1/6): 5/12.
    Two-way: ([35-36], {F, M})'s 3 rows over 4 pairs, 0.75 each: (35, F), (36, F), (36, M)
    each err 1/4; ([37-38], M)'s 2 over (37, M) and (38, M) are exact: 3/4. Mean over
    4 + 2 + 5 = 11 queries: (3/4 + 5/12 + 3/4) / 11 = 23/132."""
    df = pd.DataFrame({"age": [35, 36, 36, 37, 38], "sex": ["F", "F", "M", "M", "M"]})
    out = pandas_anon.kanon(df, 2, qid=["age", "sex"], algo="mondrian")
    assert out["sex"].tolist()[:3] == ["{F, M}"] * 3  # the case the docstring computes
    report = out.anon.report()
    assert report.metrics["queries"] == 11
    assert report.metrics["query_error"] == pytest.approx(23 / 132, rel=1e-12)


def test_a_value_written_as_two_labels():
    """Local recoding keeps (21, F) twice and writes (21, M) and (22, M) as (20-29, M):
    21 is written "21" and "20-29", and 20-29 stands for 21 and 22.

    One-way: 21 gets "21"'s 2 rows and half of "20-29"'s 2: 3 (true 3); 22 the other half:
    1 (true 1); sex as read. Two-way: (21, F) from ("21", F): 2 (true 2); (20-29, M)'s 2
    rows over (21, M) and (22, M): 1 each (true 1 each). All exact: error 0 over
    2 + 2 + 3 = 7 queries. Unchanged: 2 of the 8 cells changed: 0.75. Were a value's other
    label ignored, 21 would be estimated 2 or 1."""
    ages = Hierarchy([21, 22, 35, 36], [["20-29"] * 2 + ["30-39"] * 2])
    df = pd.DataFrame({"age": [21, 21, 21, 22], "sex": ["F", "F", "M", "M"]})
    out = pandas_anon.kanon(df, 2, qid=["age", "sex"], hierarchies={"age": ages}, algo="local")
    assert out["age"].tolist() == [21, 21, "20-29", "20-29"]  # the case the docstring computes
    report = out.anon.report()
    assert (report.metrics["unchanged"], report.metrics["queries"]) == (0.75, 7)
    assert report.metrics["query_error"] == 0.0


@pytest.mark.parametrize("algo", ["ola", "mondrian"])
def test_figures_agree_with_the_verifier_on_adult(adult, hierarchies, algo):
    """Adult, its 9 quasi-identifiers, k = 5: the report's unchanged share and query error
    are the plain-pandas verifier's, and the unchanged share is the report's cells modified
    turned into a share."""
    given = {"hierarchies": hierarchies} if algo == "ola" else {}
    out, masked = release(adult, 5, qid=ADULT_QID, algo=algo, max_suppression=0.05, **given)
    report = out.anon.report()
    assert int(masked.sum()) == report.suppressed == release_classes(out, ADULT_QID)["masked"].sum()
    cells = len(adult) * len(ADULT_QID)
    assert report.metrics["unchanged"] == pytest.approx(
        verify_unchanged(adult, out, ADULT_QID, masked), abs=1e-12
    )
    assert report.metrics["unchanged"] == 1 - sum(report.changed.values()) / cells
    error, queries = verify_query_error(adult, out, ADULT_QID, masked)
    assert report.metrics["queries"] == queries
    assert report.metrics["query_error"] == pytest.approx(error, rel=1e-9)


@pytest.mark.parametrize(("way", "compiled"), [(0, True), (0, False), (1, True), (2, True)])
@pytest.mark.parametrize("algo", ["mondrian", "local"])
def test_each_way_of_estimating_two_way_queries_agrees_with_the_verifier(
    adult, monkeypatch, algo, way, compiled
):
    """Adult, 9 quasi-identifiers, k = 5: every column pair's 2-way queries estimated one
    way (spread over the second column's values then gathered over the first's labels, the
    other way round, or each query gathering the label pairs of both its values; spread and
    gathered by the compiled kernel, in blocks of a few labels, or by numpy) give the
    verifier's query error."""
    from pandas_anon.anonymization import utility

    monkeypatch.setattr(utility, "_cheapest", lambda work: way)
    monkeypatch.setattr(utility, "_MATRIX", 0)  # no pair by a matrix product
    monkeypatch.setattr(utility, "_BLOCK_CELLS", 1 << 12)  # the kernel's table in blocks
    if not compiled:
        monkeypatch.setattr(utility, "COMPILED", False)
    out, masked = release(adult, 5, qid=ADULT_QID, algo=algo)
    report = out.anon.report()
    error, queries = verify_query_error(adult, out, ADULT_QID, masked)
    assert report.metrics["queries"] == queries
    assert report.metrics["query_error"] == pytest.approx(error, rel=1e-9)


@st.composite
def frames(draw) -> pd.DataFrame:
    """2 or 3 columns of a few values each (numbers, text, missing values), 1 to 30 rows."""
    n = draw(st.integers(1, 30))
    pools = [
        [1, 2, 3, 5, 8, None],
        ["a", "b", "c", None],
        [1.5, 2.5, -0.0, 0.0, np.nan],
    ]
    data = {}
    for j in range(draw(st.integers(2, 3))):
        pool = draw(st.sampled_from(pools))
        data[f"c{j}"] = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    frame = pd.DataFrame(data)
    for column in frame.columns:  # never all missing
        if frame[column].isna().all():
            frame.loc[0, column] = 1
    return frame


@pytest.mark.filterwarnings("ignore::pandas_anon.errors.AnonWarning")  # one class and such
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frame=frames(),
    algo=st.sampled_from(["ola", "mondrian", "local"]),
    k=st.integers(1, 3),
    max_suppression=st.sampled_from([0.0, 0.5]),
)
def test_figures_bounds_identity_and_verifier(frame, algo, k, max_suppression):
    """On random frames: the unchanged share is in [0, 1] and the query error at least 0,
    both the verifier's; a release identical to its input (k = 1 under the full-domain
    search) has share 1 and error 0. (Mondrian at k = 1 may still box 0.0 with -0.0,
    which it does not tell apart.)"""
    k = min(k, len(frame))
    qid = list(frame.columns)
    try:
        out, masked = release(frame, k, qid=qid, algo=algo, max_suppression=max_suppression)
    except pandas_anon.errors.InfeasibleError:
        return
    report = out.anon.report()
    share, error = report.metrics["unchanged"], report.metrics["query_error"]
    assert 0.0 <= share <= 1.0 and error >= 0.0
    assert share == pytest.approx(verify_unchanged(frame, out, qid, masked), abs=1e-12)
    expected, queries = verify_query_error(frame, out, qid, masked)
    assert report.metrics["queries"] == queries
    assert error == pytest.approx(expected, rel=1e-9, abs=1e-12)
    identical = all(written(frame[c]).equals(written(out[c])) for c in qid)
    if k == 1 and algo == "ola":  # level 0 everywhere: the identity
        assert identical
    if identical:
        assert (share, error) == (1.0, 0.0)


def test_both_zeros_and_a_missing_value_are_released_as_read():
    """-0.0, 0.0 and a missing value in one float column, k = 1: the identity, share 1 and
    error 0. (Its hierarchy's lookup crashed: pandas tells neither zero apart from the other,
    and the missing value, absent from the values, was looked up among none; found by the
    property test above.)"""
    frame = pd.DataFrame({"c0": [-0.0, 0.0, np.nan], "c1": [1, 1, 1]})
    out = pandas_anon.kanon(frame, 1, qid=["c0", "c1"])
    assert [repr(v) for v in out["c0"]] == ["-0.0", "0.0", "nan"]
    metrics = out.anon.report().metrics
    assert (metrics["unchanged"], metrics["query_error"], metrics["queries"]) == (1.0, 0.0, 7)


def test_task_utility_on_adult_is_deterministic(adult):
    """salary-class predicted from the other released columns: the three accuracies are in
    [0, 1], the original beats the majority class, Mondrian keeps more of the margin than
    the full-domain search, and a second run gives the same figures."""
    from pandas_anon.anonymization.task_utility import task_utility

    found = pandas_anon.compare(
        adult, 5, sensitive="salary-class", target="salary-class", methods=["ola", "mondrian"]
    )
    table = found.table
    for name in ("ola", "mondrian"):
        row = table.loc[name]
        assert 0 <= row["accuracy majority"] < row["accuracy original"] <= 1
        assert 0 <= row["accuracy"] <= 1
        margin = (row["accuracy"] - row["accuracy majority"]) / (
            row["accuracy original"] - row["accuracy majority"]
        )
        assert row["margin kept"] == pytest.approx(margin, rel=1e-12)
        task = found.reports[name].task
        assert task["target"] == "salary-class" and task["output"] == row["accuracy"]
        assert "task utility" in repr(found.reports[name])
    assert table.loc["mondrian", "margin kept"] > table.loc["ola", "margin kept"]
    out = adult.anon.kanon(5, sensitive="salary-class", algo="ola")  # compare's "ola"
    again = task_utility(adult, out, "salary-class")  # the original's figures computed anew
    assert again.to_dict() == found.reports["ola"].task


def test_task_utility_without_scikit_learn_says_which_extra(adult, without):
    """Without scikit-learn, our error names the extra to install."""
    without("sklearn")
    with pytest.raises(MissingDependencyError, match=r"pandas-anon\[ml\]"):
        pandas_anon.compare(
            adult.head(200), 5, sensitive="salary-class", target="salary-class", methods=["ola"]
        )


def test_task_utility_refuses_a_target_in_the_quasi_identifier(adult):
    with pytest.raises(InvalidParameterError, match="target='salary-class' is in the quasi"):
        pandas_anon.compare(
            adult.head(300), 5, qid=["age", "salary-class"], target="salary-class", methods=["ola"]
        )


def test_task_utility_compares_row_for_row(adult):
    out = adult.head(100).anon.kanon(5, qid=["age", "sex"], suppress="drop")
    if len(out) == 100:
        out = out.iloc[:-1]
    from pandas_anon.anonymization.task_utility import task_utility

    with pytest.raises(InvalidParameterError, match="row for row"):
        task_utility(adult.head(100), out, "salary-class")
