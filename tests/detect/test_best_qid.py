"""The seed paper's best-QID election, on its data and against brute force."""

from __future__ import annotations

import pandas as pd
import pytest

import pandas_anon

from conftest import PERSONAL, SEED_QID
from verify import naive_counts, naive_election

ELEVEN = [
    "anno_nascita",
    "comune_residenza",
    "provincia_residenza",
    "regione_residenza",
    "sesso",
    "categoria_patente",
    "data_rilascio",
    "abilitato_a",
    "data_abilitazione_a",
    "data_scadenza",
    "punti_patente",
]


def test_elects_the_seed_qid_among_the_personal_columns(licences):
    result = licences.anon.best_qid(PERSONAL)
    assert result.columns == tuple(SEED_QID)
    assert result.singletons == 1_684
    assert result.distinct == 9_174
    assert result.ties == ()
    assert result.identifiers == ()
    table = result.table.set_index("columns")
    # the 4-column set ties on singletons but is larger; it is not even counted: the
    # province is constant, so every set holding it is derived from the set without it
    assert table.loc[[tuple(SEED_QID)], "singletons"].item() == 1_684
    assert table.loc[[tuple(PERSONAL[:3])], "status"].item() == "derived"


def test_table_figures_are_exact_for_every_subset(licences):
    result = licences.anon.best_qid(PERSONAL, exhaustive=True)
    assert len(result.table) == 15
    dropped = licences[PERSONAL].dropna()
    for row in result.table.itertuples():
        expected = naive_counts(dropped, list(row.columns))
        assert (row.singletons, row.distinct) == (expected["singletons"], expected["distinct"])
        assert row.size == len(row.columns)
    derived = result.table[result.table["status"] == "derived"]
    assert all("provincia_residenza" in c for c in derived["columns"])


def test_identifiers_of_the_raw_file(licences):
    assert licences.anon.identifiers() == [("id",)]
    assert pandas_anon.identifiers(licences, ["id", "sesso"]) == [("id",)]


def test_election_over_all_thirteen_non_id_columns_runs(licences):
    with pytest.warns(pandas_anon.IncompleteRowsWarning, match="only 985 of 87,642 rows") as seen:
        result = licences.anon.best_qid(max_size=4)
    assert "'stato_estero_nascita' (80,738 missing)" in str(seen[0].message)
    assert seen[0].filename == __file__  # points at the caller's line
    assert ("id",) in result.identifiers
    assert "id" not in result.columns
    assert not any(
        "id" in c for c in result.table.loc[result.table.status != "identifier", "columns"]
    )
    complete = licences.dropna()
    assert result.examined == len(complete)
    expected = naive_counts(complete, list(result.columns))
    assert result.singletons == expected["singletons"]


def test_eleven_columns_agree_with_brute_force(licences):
    result = licences.anon.best_qid(ELEVEN, max_size=4)
    winner, top, ties, ids, table = naive_election(licences, ELEVEN, 4)
    assert result.columns == winner
    assert result.singletons == top
    assert list(result.ties) == ties
    assert list(result.identifiers) == ids
    assert len(result.table) == len(table) + len(ids) == 561
    for row in result.table.itertuples():
        if row.status != "identifier":
            assert table[row.columns] == (row.singletons, row.distinct), row.columns


def test_report_and_dict(licences):
    result = licences.anon.best_qid(PERSONAL)
    text = repr(result)
    assert "(anno_nascita, comune_residenza, sesso)" in text and "1,684" in text
    payload = result.to_dict()
    assert payload["columns"] == SEED_QID
    assert payload["singletons"] == 1_684
    assert payload["evaluated"] + payload["derived"] == len(result.table)


def test_input_is_not_mutated(licences):
    before = licences.copy(deep=True)
    with pytest.warns(pandas_anon.IncompleteRowsWarning):
        licences.anon.best_qid(max_size=2)
    pd.testing.assert_frame_equal(licences, before)


@pytest.mark.parametrize("share", [0.0, 2.0], ids=["always-compact", "never-compact"])
def test_row_compaction_never_changes_the_figures(licences, monkeypatch, share):
    from pandas_anon.detect import subsets

    monkeypatch.setattr(subsets, "COMPACT_SHARE", share)
    result = licences.anon.best_qid(ELEVEN[:8], max_size=3, exhaustive=True)
    winner, top, ties, ids, table = naive_election(licences, ELEVEN[:8], 3)
    assert (result.columns, result.singletons, list(result.ties)) == (winner, top, ties)
    counted = result.table[result.table["status"] != "identifier"]
    assert {r.columns: (r.singletons, r.distinct) for r in counted.itertuples()} == table


@pytest.mark.parametrize("path", ["parallel-threads", "sparse-keys"])
def test_large_table_paths_never_change_the_figures(licences, monkeypatch, path):
    """Large tables count each size in threads, and sparse key spaces by hashing (subsets
    with children) or sorting (the last size): forced here on the embedded table."""
    from pandas_anon.engine import grouping, parallel

    if path == "parallel-threads":
        monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 0)
        monkeypatch.setattr(parallel.os, "cpu_count", lambda: 2)
    else:
        monkeypatch.setattr(grouping, "DENSE_LABELS_PER_ROW", 0)
        monkeypatch.setattr(grouping, "_DENSE_MIN_LABELS", 0)
        monkeypatch.setattr(grouping, "SIZES_DENSE_LABELS_PER_ROW", 0)
    result = licences.anon.best_qid(ELEVEN[:8], max_size=3, exhaustive=True)
    winner, top, ties, ids, table = naive_election(licences, ELEVEN[:8], 3)
    assert (result.columns, result.singletons, list(result.ties)) == (winner, top, ties)
    assert list(result.identifiers) == ids
    counted = result.table[result.table["status"] != "identifier"]
    assert {r.columns: (r.singletons, r.distinct) for r in counted.itertuples()} == table


def test_the_table_ranks_by_rows_below_k(licences):
    """With k above 2 the table puts the subsets with most rows in classes below k first
    (then fewest columns), as the election ranks them."""
    columns = ["anno_nascita", "sesso", "comune_residenza", "categoria_patente"]
    found = pandas_anon.best_qid(licences, columns, max_size=2, k=5)
    electable = found.table[found.table["status"] != "identifier"]
    ranked = electable.sort_values(
        ["rows below k=5", "size"], ascending=[False, True], kind="stable"
    )
    assert electable["rows below k=5"].tolist() == ranked["rows below k=5"].tolist()
    assert electable.iloc[0]["columns"] == found.columns


@pytest.mark.parametrize("k", [2, 3, 5])
def test_the_bound_of_a_largest_subset_sums_what_each_class_below_can_leave_at_risk(licences, k):
    """An election's bound on each triple of the personal columns, from its pairs' class
    sizes on the real file: the least, over the column c added, of
    sum(min(size, (k - 1) * values(c))) over the classes of the other two (plain pandas),
    and at most k - 1 rows per combination of the four; it holds (rows at risk counted),
    and with k above 2 it is below what counting every class as large gave on some triples."""
    from itertools import combinations

    from pandas_anon.detect.exposure import marked_combinations
    from pandas_anon.detect.subsets import SubsetSearch
    from pandas_anon.engine.backends.pandas import tabulate

    frame = licences[list(PERSONAL)]
    frequencies = tabulate(frame, list(PERSONAL), dropna=False).frequencies
    search = SubsetSearch(frequencies, 3, k=k, marked=marked_combinations(frequencies), prune=True)
    for size in (1, 2):  # the singles and the pairs, counted with their class sizes
        for columns in combinations(range(len(PERSONAL)), size):
            search.subsets[columns] = search._count(columns, histogram=True)
    tighter = 0
    for triple in combinations(range(len(PERSONAL)), 3):
        names = [PERSONAL[i] for i in triple]
        by_column, earlier = [], []
        for c in names:
            sizes = frame.groupby([x for x in names if x != c], dropna=False).size()
            cap = (k - 1) * frequencies.cardinality(c)  # its codes (missing among them)
            by_column.append(int(sizes.clip(upper=cap).sum()))
            earlier.append(len(sizes) * cap)
        ceiling = min(len(frame), (k - 1) * len(frequencies))
        bound = search.bound(triple)
        assert bound == min(*by_column, ceiling)
        classes = frame.groupby(names, dropna=False).size()
        assert int(classes[classes < k].sum()) <= bound
        tighter += bound < min(*earlier, ceiling)
    assert tighter or k == 2  # k = 2: one row per combination of the four bounds them first


def _two_valued(columns: int, rows: int) -> pd.DataFrame:
    """``columns`` random two-valued columns: no subset of up to 3 of them identifies rows
    (8 combinations at most), so an election must examine every subset."""
    import numpy as np

    codes = np.random.default_rng(0).integers(0, 2, (rows, columns))
    return pd.DataFrame(codes, columns=[f"c{i}" for i in range(columns)])


def test_zero_configuration_kanon_needs_no_election(monkeypatch):
    """Zero-configuration kanon protects every released column together, so it elects no
    QID: with a budget of 50 subsets (12 columns have 298 subsets of up to 3, which made the
    election fail closed when zero configuration elected its QID), the release is
    2-anonymous on the 12 columns, and the gate's rule measured on it (which stops as soon
    as no row is below k) passes."""
    from pandas_anon.detect import subsets

    monkeypatch.setattr(subsets, "MAX_SUBSETS", 50)
    frame = _two_valued(12, 40)
    out = frame.anon.kanon(2)
    report = out.anon.report()
    assert report.qid == list(frame.columns) and report.exposure["passes"]
    assert out.astype(str).groupby(list(out.columns)).size().min() >= 2


def test_the_election_budget_counts_the_subsets_examined_in_order():
    """The gate's election examines subsets by size in a fixed order: on two-valued columns
    it examines all 12 + 66 + 220 of them; a budget of exactly that many elects what no
    budget elects, one fewer raises; a budget that is not a whole number is refused."""
    from pandas_anon.detect.exposure import scan
    from pandas_anon.errors import InvalidParameterError, LimitExceededError

    frame = _two_valued(12, 40)
    unbounded = scan(frame, max_subsets=10**9).election
    assert unbounded is not None
    exact = scan(frame, max_subsets=298).election
    assert exact is not None
    assert (exact.columns, exact.at_risk, len(exact.table)) == (
        unbounded.columns,
        unbounded.at_risk,
        298,
    )
    with pytest.raises(LimitExceededError, match="budget of 297 column subsets"):
        scan(frame, max_subsets=297)
    with pytest.raises(InvalidParameterError, match="max_subsets"):
        scan(frame, max_subsets=0)


def test_a_suppressed_row_leaves_the_gate_once():
    """A suppressed row (``*`` in the column) belongs to no class: on ``a`` the lone ``z``
    is the one row at risk. Every combination of ``a`` and ``b`` is distinct (the frequency
    set weighs one row each), so the election counts ``a`` with the batch of
    :meth:`~pandas_anon.detect.subsets.SubsetSearch._batch_census`, which took the
    suppressed row out twice and gave 0 rows at risk (found by
    ``test_the_gate_searches_rows_as_it_searches_combinations`` on a random draw)."""
    from pandas_anon.detect.exposure import scan

    frame = pd.DataFrame({"a": ["*", "x", "x", "y", "y", "z"], "b": ["*", *"pqpqp"]})
    election = scan(frame, max_size=1).election
    assert election is not None
    assert (election.columns, election.at_risk, election.singletons) == (("a",), 1, 1)
