"""The gate's rule: how exposed the people of a table are, with nothing configured.

``pandas-anon check`` applies it to a file without a configured quasi-identifier, and
zero-configuration :func:`pandas_anon.kanon` applies it to its own output (which must pass
it), so that the library never calls a table safe that its own gate fails:

1. **Direct identifiers** (:func:`direct_identifiers`): a column on which (nearly) every row
   is alone, such as a record number, a tax code, an e-mail address or an exact birth date,
   identifies people by itself. A name such as ``id`` or ``codice_fiscale`` is a hint that
   lowers the share required, never enough on its own.
2. **The most exposed column set** (:func:`scan`): among the subsets of up to ``max_size`` of
   the other columns, the one with the most rows in classes of fewer than ``k`` rows (``k=2``:
   the singletons; Pastore et al. 2020, "Detecting and Generalizing Quasi-Identifiers by Affecting
   Singletons", section 3.1, elect the
   subset with the most singletons). A column set on which every row is distinct is the most
   exposed of all, never left out as the seed paper's election does. A missing value counts as
   a value (as :func:`pandas_anon.kanon` counts it), so sparse columns do not shrink the rows
   examined. The subsets are searched on the frequency set of those columns, read once
   (:class:`~pandas_anon.detect.subsets.SubsetSearch`), within a budget of subsets
   (:data:`~pandas_anon.detect.subsets.MAX_SUBSETS` by default): past it the rule gives no
   answer but :class:`~pandas_anon.errors.LimitExceededError`, saying how to continue.
3. **Suppressed rows** (:func:`suppressed_rows`): a row whose every value on the measured
   columns is the suppression marker ``*`` (how :func:`pandas_anon.kanon` masks the rows it
   suppresses) says nothing about those columns; it belongs to no class, as a removed row
   would (ARX counts suppressed records the same way). The one exception: when every row is
   suppressed, they form a single class. The search reads a frequency set, so the marker is
   found per combination (:func:`marked_combinations`), and a combination holding it weighs
   its rows.

The measure itself (:func:`pandas_anon.gate.pandera_checks.measure`) is the one the pandera checks and
``check --qid`` use too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pandas_anon.detect import subsets
from pandas_anon.detect.best_qid import elect
from pandas_anon.detect.figures import candidate_columns
from pandas_anon.detect.results import BestQID
from pandas_anon.detect.subsets import SubsetSearch
from pandas_anon.engine.backends import DASK_WEIGHTS as _DASK_WEIGHTS
from pandas_anon.engine.backends import dask_backend, is_dask
from pandas_anon.engine.backends.pandas import search_entries
from pandas_anon.engine.encoding import distinct_count, value_sizes
from pandas_anon.engine.frequency import FrequencySet
from pandas_anon.engine.parallel import thread_map
from pandas_anon.engine.weights import Weights, read_weights
from pandas_anon.errors import InvalidParameterError, LimitExceededError, UnhashableValueError

#: Largest column set the rule examines (``check``'s ``max_size`` default, zero-config ``kanon``).
MAX_SIZE = 3
#: What a suppressed cell holds (written by :func:`pandas_anon.kanon`, recognised by the gate).
SUPPRESSED = "*"
#: Share of the rows alone on a column's value from which the column is a direct identifier.
IDENTIFYING_SHARE = 0.9
#: The same share for a column whose name says it identifies (``id``, ``email``, ...).
HINTED_SHARE = 0.5
#: Words of column names that usually hold direct identifiers (a hint, never a verdict).
_HINTS = frozenset(
    {
        "id",
        "ids",
        "uid",
        "uuid",
        "guid",
        "key",
        "identifier",
        "codice",
        "fiscale",
        "cf",
        "ssn",
        "nino",
        "nhs",
        "passport",
        "passaporto",
        "email",
        "mail",
        "phone",
        "telephone",
        "telefono",
        "tel",
        "mobile",
        "cellulare",
        "iban",
        "name",
        "nome",
        "cognome",
        "surname",
        "firstname",
        "lastname",
        "address",
        "indirizzo",
        "matricola",
        "targa",
        "plate",
        "record",
        "patient",
    }
)
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class DirectIdentifier:
    """A column that identifies (nearly) every row on its own (its values never kept)."""

    column: Hashable
    unique_share: float  # rows alone on their value, over all rows
    hinted: bool  # the column's name says it identifies

    def describe(self) -> str:
        """``"'id' (100.00 % of the rows alone on its value)"``."""
        hint = "; its name says it identifies" if self.hinted else ""
        return f"{self.column!r} ({100 * self.unique_share:.2f} % of the rows alone on its value{hint})"

    def to_dict(self) -> dict:
        return {
            "column": str(self.column),
            "unique_share": self.unique_share,
            "name_hint": self.hinted,
        }


def name_hints_identifier(name: Hashable) -> bool:
    """Whether a column's name holds a word that usually names a direct identifier."""
    words = _WORD.findall(str(name).lower())
    return any(word in _HINTS for word in words) or "codicefiscale" in "".join(words)


def direct_identifiers(
    frame: pd.DataFrame,
    columns: Sequence[Hashable] | None = None,
    *,
    weights: Weights | None = None,
) -> tuple[DirectIdentifier, ...]:
    """The columns of ``columns`` (default: every column holding a value) on which at least
    :data:`IDENTIFYING_SHARE` of the rows are alone (:data:`HINTED_SHARE` for a column whose
    name hints at an identifier). A missing value is a value: a mostly empty column is none.
    With ``weights`` (an aggregated table), the people alone on their value, among all.

    Examples
    --------
    >>> frame = pd.DataFrame({"id": [101, 102, 103, 104], "sex": list("MFMF")})
    >>> [found.column for found in direct_identifiers(frame)]
    ['id']
    """
    if columns is not None and len(columns) == 0:
        return ()

    def needed(column: Hashable) -> float:
        return HINTED_SHARE if name_hints_identifier(column) else IDENTIFYING_SHARE

    def verdict(column: Hashable, alone: int, total: int) -> DirectIdentifier | None:
        share = alone / total if total else 0.0
        found = share >= needed(column) and total > 1
        return DirectIdentifier(column, share, name_hints_identifier(column)) if found else None

    def sharing(column: Hashable, total: int) -> int:
        return total - math.ceil(needed(column) * total)  # people who may share a value

    candidates = candidate_columns(frame, columns, weights)
    if is_dask(frame):  # counted where the partitions are
        if weights is not None:
            raise InvalidParameterError(_DASK_WEIGHTS)
        alone, total = dask_backend().alone_counts(frame, candidates, sharing)
        return tuple(
            found
            for column, count in alone.items()
            if count is not None and (found := verdict(column, count, total)) is not None
        )
    people = None if weights is None else read_weights(frame, weights)
    total = len(frame) if people is None else int(people.sum())

    def identifying(column: Hashable) -> DirectIdentifier | None:
        series, most = frame[column], sharing(column, total)
        for rows in _first_heads(most):  # a column of few values: proven by the first rows
            if rows < len(series) and _sharing_at_least(series, people, rows) > most:
                return None  # the first rows already share too much: so does the column
        alone, _ = _alone_counts(series, people)
        return verdict(column, alone, total)

    return tuple(f for f in thread_map(identifying, candidates, rows=len(frame)) if f is not None)


def _first_heads(sharing: int) -> tuple[int, int]:
    """How many first rows :func:`direct_identifiers` reads to prove that more than
    ``sharing`` people share their value: first just enough for a column of up to
    :data:`_FEW_VALUES` distinct values (most columns), then twice as many and more."""
    return sharing + _FEW_VALUES + 1, 2 * sharing + 1024


#: Distinct values that the shortest first head of :func:`direct_identifiers` allows.
_FEW_VALUES = 256


def _sharing_at_least(series: pd.Series, people: np.ndarray | None, head: int) -> int:
    """At least how many people of the first ``head`` rows of ``series`` share their value:
    of ``h`` rows holding ``d`` distinct values at most ``d`` are alone (a count of distinct
    values costs far less than counting each value's rows); the exact count
    (:func:`_alone_counts`) with weights."""
    if people is None:
        distinct = distinct_count(series, head=head)
        if distinct is not None:
            return min(head, len(series)) - distinct
    return _alone_counts(series, people, slice(0, head))[1]


def _alone_counts(
    series: pd.Series, people: np.ndarray | None, rows: slice = slice(None)
) -> tuple[int, int]:
    """How many people of ``series[rows]`` (its rows, or the ``people`` each stands for)
    are alone on their value, and how many share it (a missing value is one more value).
    A person sharing their value within the first rows of a column shares it in the whole
    column, which lets :func:`direct_identifiers` give up on a column from its first rows."""
    series = series.iloc[rows]
    weights = None if people is None else people[rows]
    try:
        counts = value_sizes(series, weights)  # missing: one value, counted first
    except UnhashableValueError:  # lists or dicts in cells: compare them as written
        counts = value_sizes(series.astype(str).where(series.notna()), weights)
    alone = int(np.count_nonzero(counts[1:] == 1) + (counts[0] == 1))
    return alone, (len(series) if weights is None else int(weights.sum())) - alone


def suppressed_rows(frame: pd.DataFrame, columns: Sequence[Hashable]) -> np.ndarray:
    """Rows whose every value on ``columns`` is :data:`SUPPRESSED` (boolean array)."""
    rows = np.ones(len(frame), dtype=bool)
    for column in columns:
        rows &= _marked(frame[column])
        if not rows.any():
            break
    return rows


def without_suppressed(
    frame: pd.DataFrame, columns: Sequence[Hashable], weights: Hashable | None = None
) -> tuple[pd.DataFrame, int]:
    """``frame`` less its rows suppressed on ``columns``, and how many they were (the people
    they count, with the count column ``weights``); every row when all are suppressed (they
    then form one class)."""
    rows = suppressed_rows(frame, [c for c in columns if c in frame.columns])
    count = int(rows.sum())
    if 0 < count < len(frame):
        if weights is not None:
            count = int(read_weights(frame, weights)[rows].sum())
        return frame.loc[~rows], count
    return frame, 0


def _marked(series: pd.Series) -> np.ndarray:
    """Rows holding the marker (only text-like columns can)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        if SUPPRESSED not in series.cat.categories:
            return np.zeros(len(series), dtype=bool)
    elif pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_datetime64_any_dtype(
        series.dtype
    ):
        return np.zeros(len(series), dtype=bool)
    return (series == SUPPRESSED).fillna(False).to_numpy(dtype=bool)


def marked_combinations(frequencies: FrequencySet) -> dict[int, np.ndarray]:
    """For each column of ``frequencies`` holding the marker, the combinations holding it
    (what :class:`~pandas_anon.detect.subsets.SubsetSearch` takes to leave suppressed rows
    out)."""
    marked = {}
    for position, column in enumerate(frequencies.columns):
        values = frequencies.values[column]
        if values.dtype != object and not pd.api.types.is_string_dtype(values.dtype):
            continue
        if SUPPRESSED not in values:  # a lookup in the index's hash table: most columns
            continue
        hits = np.flatnonzero(np.asarray(values.astype(object) == SUPPRESSED, dtype=bool))
        if len(hits):
            marked[position] = frequencies.codes[:, position] == hits[0]
    return marked


@dataclass(frozen=True)
class Scan:
    """What the gate's rule found in a table: direct identifiers, and the most exposed
    column set (``election.columns``) with its measure."""

    identifiers: tuple[DirectIdentifier, ...]
    allowed: tuple[DirectIdentifier, ...]
    election: BestQID | None  # None when no column is left to elect from

    @property
    def qid(self) -> tuple[Hashable, ...]:
        return () if self.election is None else self.election.columns


def scan(
    frame: pd.DataFrame,
    columns: Sequence[Hashable] | None = None,
    *,
    k: int = 2,
    max_size: int = MAX_SIZE,
    allowed: Collection[Hashable] = (),
    weights: Weights | None = None,
    max_subsets: int | None = None,
    remedy: str = "name the quasi-identifier (qid=[...])",
) -> Scan:
    """Apply the gate's rule to ``columns`` of ``frame`` (default: every column holding a
    value): direct identifiers (those named in ``allowed`` are reported apart), then the
    most exposed subset of up to ``max_size`` of the other columns, ranked by the rows in
    classes below ``k``, suppressed rows left out, missing counted as a value. With
    ``weights`` (an aggregated table: its count column, or one count per row) every figure
    is about people, as on the table exploded to one row per person.

    The election examines at most ``max_subsets`` column subsets (None:
    :data:`~pandas_anon.detect.subsets.MAX_SUBSETS`, read at each call;
    :meth:`~pandas_anon.detect.subsets.SubsetSearch.lead`); past them it raises
    :class:`~pandas_anon.errors.LimitExceededError`, its message ending with ``remedy``
    (how the caller names the quasi-identifier or raises the budget)."""
    columns = candidate_columns(frame, columns, weights)
    found = direct_identifiers(frame, columns, weights=weights)
    flagged = tuple(f for f in found if f.column not in allowed)
    allowed_found = tuple(f for f in found if f.column in allowed)
    rest = [c for c in columns if c not in {f.column for f in found}]
    if not rest:
        return Scan(flagged, allowed_found, None)
    if is_dask(frame):  # its digest: each combination of the columns weighing its rows
        digest = dask_backend().digest(frame, rest)
        frequencies = search_entries(digest.frame, rest, weights=digest.counts)
    else:
        frequencies = search_entries(frame, rest, weights=weights)
    search = SubsetSearch(
        frequencies,
        max_size=max_size,
        k=k,
        marked=marked_combinations(frequencies),
        prune=True,
        max_subsets=subsets.MAX_SUBSETS if max_subsets is None else max_subsets,
    )
    try:
        election = elect(search, identifiers_win=True, progress=False)
    except LimitExceededError as error:
        raise LimitExceededError(f"{error}; {remedy}") from None
    return Scan(flagged, allowed_found, election)
