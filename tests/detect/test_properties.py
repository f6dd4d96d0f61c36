"""Property tests: on random frames of mixed dtypes the engine agrees with plain groupby on
the values as written (:func:`verify.as_written`)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import pandas_anon

from verify import as_written, naive_counts, naive_election, naive_singleton_mask

# random frames often have more holes than values; the warning about it is not under test
pytestmark = pytest.mark.filterwarnings("ignore::pandas_anon.IncompleteRowsWarning")

KINDS = [
    "int",
    "int_small",
    "float",
    "float_whole",
    "str",
    "category",
    "Int64",
    "pyarrow_str",
    "datetime",
    "bool",
    "object",
    "numbers",
    "signed_zero",
]
#: Values equal in Python but written differently (True == 1 == 1.0, 0.0 == -0.0), and the
#: same value of two types (numpy's 2 and Python's 2): a column of them, by position.
NUMBERS = [1, True, 1.0, 0, False, -0.0, 2, np.int64(2), "1"]


def make_column(kind: str, picks: list[int], holes: list[bool]) -> pd.Series:
    """A column of ``kind`` whose row i holds value number ``picks[i]`` (or is missing)."""
    values = np.array(picks)
    missing = np.array(holes)
    if kind == "int":
        return pd.Series(values * 1_000_003 - 5)  # int64 cannot hold NaN: no holes
    if kind == "int_small":  # coded by subtraction rather than hashing
        return pd.Series(values - 3, dtype="int16")
    if kind == "float":
        return pd.Series(np.where(missing, np.nan, values / 3.0))
    if kind == "float_whole":  # years read with a missing value become floats
        return pd.Series(np.where(missing, np.nan, values + 1950.0))
    if kind == "Int64":
        return pd.Series(pd.array(values, dtype="Int64")).mask(missing)
    if kind == "datetime":
        stamps = pd.Series(pd.Timestamp("2020-01-01") + pd.to_timedelta(values, unit="D"))
        return stamps.mask(missing)
    if kind == "bool":
        return pd.Series(values % 2 == 0)
    if kind == "numbers":  # objects compared as written
        return pd.Series([None if m else NUMBERS[v] for v, m in zip(values, missing)], dtype=object)
    if kind == "signed_zero":  # 0.0 and -0.0 are two values
        return pd.Series(np.where(missing, np.nan, np.where(values % 2, -0.0, values / 2.0)))
    text = pd.Series([f"v{v}" for v in values]).mask(missing)
    if kind == "str":
        return text.astype("str")
    if kind == "category":
        return text.astype("category")
    if kind == "pyarrow_str":
        return text.astype("string[pyarrow]")
    return pd.Series(
        [None if m else (v if v % 2 else f"s{v}") for v, m in zip(values, missing)], dtype=object
    )  # mixed ints and strings


@st.composite
def frames(draw, max_columns: int = 4) -> pd.DataFrame:
    n_rows = draw(st.integers(min_value=1, max_value=40))
    n_columns = draw(st.integers(min_value=1, max_value=max_columns))
    columns = {}
    for j in range(n_columns):
        kind = draw(st.sampled_from(KINDS))
        pool = draw(st.integers(min_value=1, max_value=6))
        picks = draw(st.lists(st.integers(0, pool - 1), min_size=n_rows, max_size=n_rows))
        holes = draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows))
        if draw(st.booleans()):
            holes = [False] * n_rows
        holes[0] = False  # an all-missing column is an error of its own (test_errors.py)
        columns[f"{kind}_{j}"] = make_column(kind, picks, holes)
    return pd.DataFrame(columns)


fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(frame=frames(), dropna=st.booleans())
def test_singleton_counts_equal_groupby(frame, dropna):
    qid = list(frame.columns)
    expected = naive_counts(frame, qid, dropna=dropna)
    if expected["examined"] == 0:
        with pytest.raises(pandas_anon.AnonError):
            frame.anon.singletons(qid, dropna=dropna)
        return
    before = frame.copy(deep=True)
    result = frame.anon.singletons(qid, dropna=dropna)
    assert (result.count, result.distinct) == (expected["singletons"], expected["distinct"])
    assert (result.examined, result.dropped) == (expected["examined"], expected["dropped"])
    assert (result.mask == naive_singleton_mask(frame, qid, dropna=dropna)).all()
    pd.testing.assert_frame_equal(frame, before)


@fast
@given(frame=frames(), dropna=st.booleans())
def test_frequency_set_counts_equal_groupby(frame, dropna):
    qid = list(frame.columns)
    if naive_counts(frame, qid, dropna=dropna)["examined"] == 0:
        return
    table = pandas_anon.EncodedFrame(frame, qid, dropna=dropna).frequency_set().to_frame()
    part = as_written(frame[qid].dropna() if dropna else frame[qid])
    sizes = part.groupby(qid, dropna=False, sort=False, observed=True).size()
    assert sorted(table["count"]) == sorted(sizes)


@fast
@given(frame=frames(max_columns=5), max_size=st.integers(1, 3))
def test_best_qid_equals_brute_force(frame, max_size):
    columns = list(frame.columns)
    part = frame.dropna()
    if len(part) == 0:
        return
    try:
        expected = naive_election(frame, columns, max_size)
    except ValueError:  # every subset is an identifier (e.g. a single row)
        with pytest.raises(pandas_anon.InvalidQIDError):
            frame.anon.best_qid(max_size=max_size)
        return
    winner, top, ties, identifiers, table = expected
    result = frame.anon.best_qid(max_size=max_size, exhaustive=True)
    assert (result.columns, result.singletons) == (winner, top)
    assert list(result.ties) == ties
    assert list(result.identifiers) == identifiers
    electable = result.table[result.table["status"] != "identifier"]
    assert {row.columns: (row.singletons, row.distinct) for row in electable.itertuples()} == table
    # without exhaustive the search may stop early, but never changes the answer
    quick = frame.anon.best_qid(max_size=max_size)
    assert (quick.columns, quick.singletons, quick.ties) == (result.columns, top, result.ties)


@fast
@given(frame=frames(max_columns=4), max_size=st.integers(1, 3))
def test_identifiers_are_the_minimal_all_distinct_sets(frame, max_size):
    import itertools

    columns = list(frame.columns)
    written = as_written(frame)
    distinct = {
        subset
        for size in range(1, max_size + 1)
        for subset in itertools.combinations(columns, size)
        if not written.duplicated(list(subset)).any()
    }
    minimal = {s for s in distinct if not any(set(o) < set(s) for o in distinct)}
    assert set(frame.anon.identifiers(max_size=max_size)) == minimal


# -- the subset search on a weighted frequency set ----------------------------------------

#: Text-like kinds: the only columns that can hold the suppression marker.
TEXT_KINDS = ("str", "category", "pyarrow_str", "object")
#: Forced paths of the search: compaction of singleton entries at every refinement, sparse
#: key spaces (hashing, and sorting at the last size), parallel threads.
SEARCH_PATHS = ("plain", "compact", "sparse", "threads", "few")


def with_marker(column: pd.Series, rows: np.ndarray) -> pd.Series:
    """``column`` holding the suppression marker ``*`` on ``rows`` (text-like columns)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        column = column.cat.add_categories(["*"])
    column = column.copy()
    column[rows] = "*"
    return column


@st.composite
def repeated_frames(draw, max_columns: int = 4) -> pd.DataFrame:
    """A frame whose rows repeat (so its frequency set has counts above 1), some of them
    suppressed (``*`` in every text-like column of some subsets) when drawn so."""
    frame = draw(frames(max_columns=max_columns))
    if draw(st.booleans()):  # a few rows, so that a repeated one is often among them
        rows = np.zeros(len(frame), dtype=bool)
        rows[draw(st.lists(st.integers(0, len(frame) - 1), min_size=1, max_size=3))] = True
        for name in frame.columns:
            if name.rsplit("_", 1)[0] in TEXT_KINDS and draw(st.booleans()):
                frame[name] = with_marker(frame[name], rows)
    complete = np.flatnonzero(frame.notna().all(axis=1))  # row 0 at least: kept by dropna
    copies = draw(st.lists(st.sampled_from(complete), min_size=1, max_size=2 * len(frame)))
    return pd.concat([frame, frame.iloc[copies]], ignore_index=True)


def naive_search(part: pd.DataFrame, max_size: int, k: int) -> dict:
    """The subset search's table by brute force, one groupby of the rows per subset:
    (singletons, distinct, rows at risk, status) for every subset visited.

    Rows holding ``*`` in every column of a subset are suppressed on it: they belong to no
    class (the singletons and rows at risk leave them out; ``distinct`` counts them as the
    class the groupby makes). A subset on which every row is alone is an identifier, and its
    supersets are not visited; a subset is derived when a smaller counted subset showed one
    of its columns to be a function of others it holds (the same number of classes).
    """
    columns = list(part.columns)
    marked = {c: part[c].astype(object).eq("*").to_numpy(dtype=bool) for c in columns}
    part = as_written(part)
    table: dict[tuple, tuple[int, int, int, str]] = {}
    identifiers: list[set] = []
    dependencies: list[tuple[set, object]] = []
    for size in range(1, max_size + 1):
        level = []
        for subset in itertools.combinations(columns, size):
            if any(i <= set(subset) for i in identifiers):
                continue
            sizes = part.groupby(list(subset), dropna=False, sort=False, observed=True).size()
            suppressed = int(np.logical_and.reduce([marked[c] for c in subset]).sum())
            singles = int((sizes == 1).sum())
            if singles == len(part):
                identifiers.append(set(subset))
                table[subset] = (singles, len(sizes), len(part), "identifier")
                continue
            at_risk = int(sizes[sizes < k].sum()) - (suppressed if 0 < suppressed < k else 0)
            derived = any(
                dependent in subset and determinant <= set(subset) - {dependent}
                for determinant, dependent in dependencies
            )
            status = "derived" if derived else "counted"
            table[subset] = (singles - (suppressed == 1), len(sizes), at_risk, status)
            level.append(subset)
        for subset in level:  # what the counted subsets of this size teach larger ones
            if table[subset][3] != "counted":
                continue
            for dependent in subset:
                rest = tuple(c for c in subset if c != dependent)
                if rest and table[rest][1] == table[subset][1]:
                    dependencies.append((set(rest), dependent))
                elif not rest and table[subset][1] == 1:
                    dependencies.append((set(), dependent))
    return table


@fast
@given(
    frame=repeated_frames(max_columns=5),
    max_size=st.integers(1, 3),
    k=st.sampled_from([2, 3, 5]),
    dropna=st.booleans(),
    path=st.sampled_from(SEARCH_PATHS),
)
def test_subset_search_on_a_weighted_frequency_set_equals_groupby(frame, max_size, k, dropna, path):
    from pandas_anon.detect import subsets
    from pandas_anon.detect.exposure import marked_combinations
    from pandas_anon.engine import grouping, parallel
    from pandas_anon.engine.backends.pandas import tabulate

    part = frame.dropna() if dropna else frame
    if len(part) == 0:
        return
    frequencies = tabulate(frame, list(frame.columns), dropna=dropna).frequencies
    assert len(frequencies) < len(part)  # rows repeat: the search runs on weighted entries
    with pytest.MonkeyPatch.context() as patch:
        if path == "compact":
            patch.setattr(subsets, "COMPACT_SHARE", 0.0)
        elif path == "sparse":
            patch.setattr(grouping, "DENSE_LABELS_PER_ROW", 0)
            patch.setattr(grouping, "_DENSE_MIN_LABELS", 0)
            patch.setattr(grouping, "SIZES_DENSE_LABELS_PER_ROW", 0)
        elif path == "threads":
            patch.setattr(parallel, "PARALLEL_MIN_ROWS", 0)
            patch.setattr(parallel.os, "cpu_count", lambda: 2)
        search = subsets.SubsetSearch(
            frequencies, max_size, k=k, marked=marked_combinations(frequencies)
        )
        for _ in search.levels():
            pass
        bound = search.upper_bound(set())
    names = frequencies.columns
    found = {
        tuple(names[i] for i in s.columns): (s.singletons, s.distinct, s.at_risk, s.status)
        for s in search.subsets.values()
    }
    assert found == naive_search(part, max_size, k)
    # the upper bound: rows at risk on every candidate column, read off the frequency set
    sizes = as_written(part).groupby(list(names), dropna=False, sort=False, observed=True).size()
    marked = np.logical_and.reduce([part[c].astype(object).eq("*") for c in names])
    suppressed = int(marked.sum())
    assert bound == int(sizes[sizes < k].sum()) - (suppressed if 0 < suppressed < k else 0)


def _prepared(patch: pytest.MonkeyPatch, path: str, batched: bool) -> None:
    """Force one path of the search (``SEARCH_PATHS``), and of an election: its subsets
    counted many at once, or one by one as on a large frequency set."""
    from pandas_anon.detect import subsets
    from pandas_anon.engine import parallel

    if path == "threads":
        patch.setattr(parallel, "PARALLEL_MIN_ROWS", 0)
        patch.setattr(parallel.os, "cpu_count", lambda: 2)
    elif path == "few":  # the columns of fewest values grouped first
        patch.setattr(subsets, "FEW_MIN_ENTRIES", 0)
        patch.setattr(subsets, "FEW_SHRINK", 1)
    if not batched:
        patch.setattr(subsets, "BATCH_ENTRIES", 0)


def _election_figures(search, found) -> dict:
    """Each subset an election examined, by the names of its columns: its singletons,
    classes, rows at risk and whether it is an identifier (a subset a search derives from a
    dependency, an election may count)."""
    return {
        tuple(search.names[i] for i in columns): (*figures[:3], figures[3] == "identifier")
        for columns, figures in found.examined.figures().items()
    }


@fast
@given(
    frame=repeated_frames(max_columns=5),
    max_size=st.integers(2, 3),
    k=st.sampled_from([2, 3, 5]),
    path=st.sampled_from(SEARCH_PATHS),
    batched=st.booleans(),
)
def test_pruning_the_largest_subsets_keeps_the_election(frame, max_size, k, path, batched):
    """The gate's election (``prune``: in a fixed order, stopping at the first subset
    nothing can beat, subsets of the largest size left out by their bound) elects what the
    full search elects; every subset it examined has the search's figures; those it left
    out by their bound could not have won: each has at most its bound at risk (checked
    against the full search), no more than the leader."""
    from itertools import combinations, islice

    from pandas_anon.detect import subsets
    from pandas_anon.detect.best_qid import elect
    from pandas_anon.detect.exposure import marked_combinations
    from pandas_anon.engine.backends.pandas import tabulate

    frequencies = tabulate(frame, list(frame.columns), dropna=False).frequencies
    marked = marked_combinations(frequencies)
    with pytest.MonkeyPatch.context() as patch:
        _prepared(patch, path, batched)
        full = subsets.SubsetSearch(frequencies, max_size, k=k, marked=marked)
        plain = elect(full, identifiers_win=True, progress=False)
        pruned = subsets.SubsetSearch(frequencies, max_size, k=k, marked=marked, prune=True)
        found = pruned.lead()
        fast_ = elect(
            subsets.SubsetSearch(frequencies, max_size, k=k, marked=marked, prune=True),
            identifiers_win=True,
            progress=False,
        )
    leader = found.leader
    assert (fast_.columns, fast_.at_risk, fast_.singletons) == (
        plain.columns,
        plain.at_risk,
        plain.singletons,
    )
    assert (leader.columns, leader.at_risk) == (
        tuple(full.names.index(c) for c in plain.columns),
        plain.at_risk,
    )
    examined = found.examined.figures()
    for columns, (singletons, distinct, at_risk, status) in examined.items():
        expected = full.subsets[columns]
        assert (singletons, distinct, at_risk) == (
            expected.singletons,
            expected.distinct,
            expected.at_risk,
        )
        assert (status == "identifier") == (expected.status == "identifier")
    in_order = [
        c for size in range(1, max_size + 1) for c in combinations(range(len(full.names)), size)
    ]
    left_out = [c for c in islice(in_order, pruned.examined) if c not in examined]
    assert pruned.pruned == len(left_out)
    assert not left_out or not batched
    for columns in left_out:
        assert full.subsets[columns].at_risk <= pruned.bound(columns) <= plain.at_risk


@fast
@given(
    frame=repeated_frames(max_columns=5),
    max_size=st.integers(1, 3),
    k=st.sampled_from([2, 3, 5]),
    weighted=st.booleans(),
    path=st.sampled_from(SEARCH_PATHS),
    batched=st.booleans(),
)
# one suppressed row among repeated ones, searched in a batch of row entries: its singleton
# was taken out of the singletons and the rows at risk twice (one array held both), (-1, -1)
# for the column holding it, whether it won the election (first) or not (second, found by the
# search of CONTRIBUTING.md)
@example(
    frame=pd.DataFrame({"str_0": ["*"] + ["v0"] * 39}),
    max_size=1,
    k=2,
    weighted=False,
    path="plain",
    batched=True,
)
@example(
    frame=pd.DataFrame({"int_0": [-5] * 37, "str_1": ["*"] + ["v0"] * 36}),
    max_size=1,
    k=2,
    weighted=False,
    path="plain",
    batched=True,
)
def test_the_gate_searches_rows_as_it_searches_combinations(
    frame, max_size, k, weighted, path, batched
):
    """A large table of nearly distinct rows is searched row by row (its rows the entries):
    forced here on small frames, the gate's election and every figure it counts equal those
    of the search on the frequency set (whose bound may stop it earlier: only subsets both
    examined are compared)."""
    from pandas_anon.detect import subsets
    from pandas_anon.detect.best_qid import elect
    from pandas_anon.detect.exposure import marked_combinations
    from pandas_anon.engine.backends import pandas as backend

    weights = np.arange(len(frame)) % 3 if weighted else None  # some rows count nobody
    if weights is not None and not weights.any():
        return
    searches, leads = [], []
    with pytest.MonkeyPatch.context() as patch:
        _prepared(patch, path, batched)
        for as_rows in (False, True):
            patch.setattr(backend, "ROW_ENTRIES_MIN_ROWS", 0 if as_rows else 10**9)
            patch.setattr(backend, "ROW_ENTRIES_SHARE", 0.0)
            try:
                entries = backend.search_entries(frame, list(frame.columns), weights=weights)
            except pandas_anon.AllMissingColumnError:  # on the rows counting someone
                return
            assert entries.distinct is not as_rows
            marked = marked_combinations(entries)
            searches.append(subsets.SubsetSearch(entries, max_size, k=k, marked=marked, prune=True))
            leads.append(
                subsets.SubsetSearch(entries, max_size, k=k, marked=marked, prune=True).lead()
            )
        grouped, rows = searches
        assert rows.entries == int((weights > 0).sum()) if weighted else len(frame)
        by_combinations, by_rows = (
            elect(s, identifiers_win=True, progress=False) for s in searches
        )
    assert (by_rows.columns, by_rows.at_risk, by_rows.singletons) == (
        by_combinations.columns,
        by_combinations.at_risk,
        by_combinations.singletons,
    )
    assert by_rows.upper_bound is None  # over rows, not computed
    assert by_combinations.upper_bound is not None
    one, other = (_election_figures(s, found) for s, found in zip(searches, leads))
    for columns in set(one) & set(other):
        assert one[columns] == other[columns]
    for columns in set(other) - set(one):  # past the bound: cannot win
        assert other[columns][2] <= by_combinations.at_risk


@fast
@given(
    texts=st.lists(
        st.one_of(
            st.none(),
            st.integers(-(2**63), 2**63 - 1).map(str),
            st.sampled_from(["007", "+7", "-0", " 7", "7 ", "7", "0", "1e3", "x", "", "٣"]),
        ),
        min_size=1,
        max_size=150,  # past the 64 values cast first
    )
)
def test_value_sizes_of_text_equal_counting_the_texts(texts):
    """Arrow-backed text read as integers (when every value is one, written canonically)
    counts the same classes as the texts themselves: "007", "+7" and "7" stay apart."""
    from pandas_anon.engine.encoding import value_sizes

    series = pd.Series(texts, dtype="string[pyarrow]")
    sizes = value_sizes(series)
    expected = series.value_counts(dropna=True)
    assert sizes[0] == series.isna().sum()
    assert sorted(sizes[1:].tolist()) == sorted(expected.tolist())
