"""Independent verifier: counts singletons and classes with plain pandas groupby.

It shares no code with pandas_anon's engine (no codes, no keys, no bincount), so agreeing
with it is evidence, not a tautology.
"""

from __future__ import annotations

import datetime
import itertools
import math
import zoneinfo
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd


def as_written(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each float, object or text column (or categorical of such categories;
    the classes' values come back as plain columns) as the text of each value's kind and
    ``repr`` (missing stays missing), which groupby compares as the values are written:
    ``True``, ``1`` and ``1.0`` apart, ``0.0`` and ``-0.0`` apart, ``numpy.int64(2)`` and
    ``2`` together, and texts whole (``repr`` spells a NUL character ``\\x00``, which
    pandas before 3.1 cuts texts at when hashing them). Other columns hold one kind,
    already compared so by groupby."""

    def text(value: object) -> object:
        if value is None or (not isinstance(value, str) and pd.isna(value)):
            return None
        if isinstance(value, np.generic):
            value = value.item()  # numpy's scalars are written as Python's
        return f"{type(value).__name__}:{value!r}"

    def objects(dtype: object) -> bool:  # objects, text or floats (categories too)
        if isinstance(dtype, pd.CategoricalDtype):
            dtype = dtype.categories.dtype
        return pd.api.types.is_string_dtype(dtype) or pd.api.types.is_float_dtype(dtype)

    out = frame.copy()
    for column in frame.columns:
        if objects(frame[column].dtype):
            out[column] = pd.Series(
                [text(v) for v in frame[column].astype(object)], index=frame.index, dtype=object
            )
    return out


def naive_counts(frame: pd.DataFrame, qid: list, *, dropna: bool = True) -> dict:
    """Rows examined, dropped, singletons and distinct combinations of ``qid``, values
    compared as written (:func:`as_written`)."""
    part = as_written(frame[list(qid)])
    if dropna:
        part = part.dropna()
    sizes = part.groupby(list(qid), dropna=False, sort=False, observed=True).size()
    return {
        "examined": len(part),
        "dropped": len(frame) - len(part),
        "singletons": int((sizes == 1).sum()),
        "distinct": len(sizes),
    }


def naive_singleton_mask(frame: pd.DataFrame, qid: list, *, dropna: bool = True) -> pd.Series:
    """True on rows whose qid combination occurs once (False on dropped rows)."""
    part = as_written(frame[list(qid)])
    keep = part.notna().all(axis=1) if dropna else pd.Series(True, index=frame.index)
    sizes = (
        part[keep]
        .groupby(list(qid), dropna=False, sort=False, observed=True)[list(qid)[0]]
        .transform("size")
    )
    mask = pd.Series(False, index=frame.index)
    mask[keep] = (sizes == 1).to_numpy()
    return mask


def naive_election(frame: pd.DataFrame, columns: list, max_size: int, *, dropna: bool = True):
    """The seed's election by brute force: a groupby per subset, in combinations order.

    Returns (winner, singletons, ties, identifiers, table) with table mapping each
    non-excluded subset to (singletons, distinct).
    """
    part = as_written(frame[list(columns)])
    if dropna:
        part = part.dropna()
    n = len(part)
    identifiers, table = [], {}
    for size in range(1, max_size + 1):
        for subset in itertools.combinations(columns, size):
            if any(set(i) <= set(subset) for i in identifiers):
                continue
            sizes = part.groupby(list(subset), dropna=False, sort=False, observed=True).size()
            singles = int((sizes == 1).sum())
            if singles == n:
                identifiers.append(subset)
                continue
            table[subset] = (singles, len(sizes))
    top = max(s for s, _ in table.values())
    smallest = min(len(c) for c, (s, _) in table.items() if s == top)
    winners = [c for c, (s, _) in table.items() if s == top and len(c) == smallest]
    return winners[0], top, winners[1:], identifiers, table


def verify_anonymized(out, qid: list, k: int, max_suppressed: int, top: str = "*") -> dict:
    """Check an anonymized frame with plain pandas: every combination of QI values is shared
    by at least k rows, except rows whose every QI is ``top`` (suppressed), which must fit
    the suppression limit unless they form a class of k or more (the top node)."""
    suppressed = (out[qid].astype(str) == top).all(axis=1)
    kept = out.loc[~suppressed, qid].astype(str)
    sizes = kept.groupby(qid, sort=False, dropna=False).size()  # missing is a value
    n_top = int(suppressed.sum())
    assert n_top <= max_suppressed or n_top >= k, (n_top, max_suppressed)
    assert len(sizes) == 0 or sizes.min() >= k, sizes.min()
    return {
        "suppressed": int(suppressed.sum()),
        "classes": len(sizes),
        "k": int(sizes.min()) if len(sizes) else 0,
        "dm": int((sizes**2).sum()) + len(out) * int(suppressed.sum()),
    }


def verify_l_diverse(
    out, qid: list, sensitive, l: float, variant: str = "distinct", c: float = 1.0, top: str = "*"
) -> tuple[int, float]:
    """Check l-diversity of ``sensitive`` in every class that is not suppressed (some QI
    below ``top``), from the sensitive values' counts per class (:func:`l_level`); returns
    the classes checked and the level reached (distinct: the fewest values; entropy: the
    smallest exp(entropy); recursive: the largest ratio of the top count to the tail)."""
    suppressed = (out[qid].astype(str) == top).all(axis=1)
    kept = out.loc[~suppressed]
    levels = []
    for _, group in kept.groupby([kept[c_].astype(str) for c_ in qid], sort=False, dropna=False):
        level, holds = l_level(group[sensitive], variant, l, c)
        assert holds, (variant, level)
        levels.append(level)
    reached = (max(levels) if variant == "recursive" else min(levels)) if levels else 0.0
    return len(levels), reached


def l_level(values: pd.Series, variant: str, l: float, c: float = 1.0) -> tuple[float, bool]:
    """One class's l-diversity: its level and whether it holds. A missing value counts in the
    class's size but is no value: only the known values' counts are read, and a class with
    none violates every variant (level 0 for distinct and entropy, inf for recursive).
    distinct: at least l values; entropy: entropy at least log(l); recursive (c, l): the most
    frequent count is below c times the sum of the counts from the l-th most frequent on."""
    counts = sorted(values.value_counts(dropna=True).tolist(), reverse=True)
    if variant == "distinct":
        return len(counts), len(counts) >= l
    if not counts:
        return (math.inf if variant == "recursive" else 0.0), False
    if variant == "entropy":
        entropy = -sum(n / sum(counts) * math.log(n / sum(counts)) for n in counts)
        return math.exp(entropy), entropy >= math.log(l) - 1e-12
    tail = sum(counts[int(l) - 1 :])
    return (counts[0] / tail if tail else math.inf), counts[0] < c * tail


def t_distances(
    frame: pd.DataFrame, qid: list, sensitive, *, ordered: bool, whole: pd.Series | None = None
) -> list[Fraction]:
    """Each class's Earth Mover's Distance to the whole table, exactly (Li et al. 2007), one
    per class of ``qid`` (missing is a QI value). Distributions are over the known values:
    the whole table's (``whole``, default ``frame[sensitive]``) and the class's; the ordered
    distance walks the m distinct known values of the whole table, sorted, neighbours
    1/(m-1) apart; the equal distance is half the sum of the absolute differences. A class
    with no known value is at distance 1."""
    reference = (frame[sensitive] if whole is None else whole).dropna()
    values = reference.drop_duplicates().sort_values().tolist()  # as pandas sorts the column
    overall = _shares(reference, values)
    distances = []
    for _, group in frame.groupby([frame[c].astype(str) for c in qid], sort=False, dropna=False):
        known = group[sensitive].dropna()
        if known.empty:
            distances.append(Fraction(1))
            continue
        gap = [p - q for p, q in zip(_shares(known, values), overall)]
        if ordered:
            walked = list(itertools.accumulate(gap))
            distances.append(
                sum(map(abs, walked)) / (len(values) - 1) if len(values) > 1 else Fraction(0)
            )
        else:
            distances.append(sum(map(abs, gap)) / 2)
    return distances


def _shares(known: pd.Series, values: list) -> list[Fraction]:
    """The share of each of ``values`` among ``known``, as exact fractions."""
    counts = known.value_counts()
    return [Fraction(int(counts.get(v, 0)), len(known)) for v in values]


def verify_t_close(
    out: pd.DataFrame,
    qid: list,
    sensitive,
    t: float,
    *,
    ordered: bool,
    whole: pd.Series | None = None,
    top: str = "*",
) -> tuple[int, Fraction]:
    """Check t-closeness of ``sensitive`` in every class that is not suppressed (some QI below
    ``top``) with :func:`t_distances` (``whole``: the table's sensitive column, default
    ``out[sensitive]``: give it when suppressed rows were dropped); returns the classes checked
    and the largest distance."""
    suppressed = (out[qid].astype(str) == top).all(axis=1)
    reference = out[sensitive] if whole is None else whole
    distances = t_distances(out.loc[~suppressed], qid, sensitive, ordered=ordered, whole=reference)
    assert all(d <= Fraction(t) + Fraction(1, 10**12) for d in distances), max(distances)
    return len(distances), max(distances, default=Fraction(0))


def release_classes(out: pd.DataFrame, qid: list, top: str = "*") -> dict:
    """The classes of a released frame, read from its values alone.

    Rows whose every QI holds the text ``top`` are masked; the other rows are grouped by
    their QI values as written (:func:`as_written`: 1 and "1" stay apart, and 1 and True;
    missing is a value equal to itself). Returns ``masked`` (bool Series aligned to
    ``out``), the kept class ``sizes`` (array), ``classes``, ``k`` (smallest kept class, 0
    when none) and ``by_class``: ``out`` with each kept row's QI cells replaced by its class
    number as text (masked rows keep ``top``), which the text-grouping verifiers read
    without collisions.
    """
    is_top = [
        out[c].astype(object).map(lambda v: isinstance(v, str) and v == top).to_numpy(bool)
        for c in qid
    ]
    masked = pd.Series(np.logical_and.reduce(is_top), index=out.index, name="masked")
    kept = as_written(out.loc[~masked.to_numpy(), list(qid)].astype(object))
    groups = kept.groupby(list(qid), dropna=False, sort=False, observed=True)
    sizes = groups.size().to_numpy()
    by_class = out.copy()
    labels = groups.ngroup().astype(str).to_numpy()
    for c in qid:
        column = np.full(len(out), top, dtype=object)
        column[~masked.to_numpy()] = labels
        by_class[c] = column
    return {
        "masked": masked,
        "sizes": sizes,
        "classes": len(sizes),
        "k": int(sizes.min()) if len(sizes) else 0,
        "by_class": by_class,
    }


def verify_generalized(
    original: pd.Series,
    released: pd.Series,
    hierarchy: str,
    level: int,
    kept: np.ndarray,
    top: str = "*",
) -> None:
    """Check that each released value is its original value generalized to ``level`` of the
    ``auto`` hierarchy named ``hierarchy`` (``"... auto:intervals(5,10)"``,
    ``"... auto:dates(day,month,quarter,year,decade)"``, ``"... auto:suppression"``),
    reading only the labels' documented forms: an interval ``[low, high)`` holds the value
    (as written: integers exactly, floats as the numbers the bounds spell), a date label is
    the value's day ``YYYY-MM-DD``, month ``YYYY-MM``, quarter ``YYYY-MM/YYYY-MM`` (its
    first and last months), year ``YYYY`` or decade ``YYYY/YYYY`` in its own time zone; a
    date written as text is read by ``pandas.to_datetime`` (day first unless it starts
    with the year). Below the top, missing stays missing; the top is one label for every row
    (``top``, or the last level's label when that level has one label only). Only the
    ``kept`` rows are checked (suppressed rows hold ``top`` whatever the level); the
    hierarchy's height is read from every row."""
    what, _, spec = hierarchy.rpartition("auto:")[2].partition("(")
    names = [s for s in spec.rstrip(")").split(",") if s]
    if level == 0:
        return
    integer = pd.api.types.is_integer_dtype(original.dtype)

    def holds(value, label: str, name: str) -> bool:
        if what == "intervals":
            low, _, high = label[1:-1].partition(", ")
            parse = int if integer else float
            number = int(value) if integer else float(value)
            return (label[0], label[-1]) == ("[", ")") and parse(low) <= number < parse(high)
        value = as_date(value)
        y, m, d = value.year, value.month, value.day
        first = (m - 1) // 3 * 3 + 1  # the quarter's first month
        return label == {
            "day": f"{y:04d}-{m:02d}-{d:02d}",
            "month": f"{y:04d}-{m:02d}",
            "quarter": f"{y:04d}-{first:02d}/{y:04d}-{first + 2:02d}",
            "year": f"{y:04d}",
            "decade": decade(y),
        }[name] + zone(value)

    def zone(value) -> str:
        """`` Europe/Rome`` after the label of a date in a time zone (its name, or its
        fixed offset ``+01:00``), nothing for a naive one."""
        tz = getattr(value, "tz", None)
        if tz is None:
            return ""
        name = getattr(tz, "key", None) or getattr(tz, "zone", None)
        if name is None:
            minutes = int(tz.utcoffset(None).total_seconds() // 60)
            sign = "-" if minutes < 0 else "+"
            name = f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}" if minutes else "UTC"
        return f" {name}"

    def as_date(value):
        if isinstance(value, str):
            return pd.to_datetime(value, dayfirst=not value[:4].isdigit())
        return value

    def decade(year: int) -> str:
        return f"{year // 10 * 10}/{year // 10 * 10 + 9}"

    known = original.dropna()
    last = {decade(as_date(v).year) + zone(v) for v in known} if names[-1:] == ["decade"] else ()
    height = len(names) + (what != "dates" or len(last) > 1)
    assert 0 < level <= height, (hierarchy, level)
    labels = released[kept].tolist()
    if level == height:  # missing values too
        assert set(labels) <= ({top} if level > len(names) else set(last)), (hierarchy, level)
        return
    for value, label in zip(original[kept].tolist(), labels):
        if pd.isna(value):
            assert pd.isna(label), (hierarchy, level, "missing value released as a label")
        else:
            assert isinstance(label, str) and holds(value, label, names[level - 1]), (
                hierarchy,
                level,
                label,
            )


def verify_gcp(frame: pd.DataFrame, out: pd.DataFrame, qid: list, suppressed: pd.Series) -> float:
    """The global certainty penalty of a release: the mean of :func:`verify_ncp`."""
    found = verify_ncp(frame, out, qid, suppressed)
    return sum(found.values()) / len(found)


def verify_ncp(frame: pd.DataFrame, out: pd.DataFrame, qid: list, suppressed: pd.Series) -> dict:
    """Each column's normalized certainty penalty, from the input and output values alone.

    Each kept cell costs the NCP of the value written: the original values written as that
    same value (among kept rows), for numbers and dates their range over the column's range,
    otherwise their count less one over the column's distinct values less one; 0 when the
    column has a single value, and for a missing value left missing. A suppressed row costs 1
    on every column. The mean over the rows, per column.
    """
    kept = ~suppressed.to_numpy()
    found = {}
    for column in qid:
        total = float(suppressed.sum())
        original, written = frame[column], out[column].astype(object)
        numbers = _as_floats(original)
        if numbers is not None:
            finite = numbers[np.isfinite(numbers)] / 2  # halves: no overflow at 1e308
            domain = float(finite.max() - finite.min()) if len(finite) else 0.0
        else:
            domain = original.nunique(dropna=True) - 1
        if domain > 0:
            table = pd.DataFrame(
                {
                    "written": written.to_numpy()[kept],
                    "original": original.to_numpy(dtype=object)[kept],
                }
            )
            if numbers is not None:
                table["number"] = np.where(np.isfinite(numbers), numbers / 2, np.nan)[kept]
            for _, group in table.groupby("written", sort=False, dropna=True):
                if numbers is not None:
                    spread = group["number"].max() - group["number"].min()
                    cost = 0.0 if np.isnan(spread) else spread / domain
                else:
                    cost = (group["original"].nunique(dropna=True) - 1) / domain
                total += max(cost, 0.0) * len(group)
        found[column] = total / len(frame)
    return found


def _as_floats(column: pd.Series) -> np.ndarray | None:
    """A column of numbers or dates as floats (dates in nanoseconds), missing as NaN; None
    for any other column."""
    if pd.api.types.is_datetime64_any_dtype(column.dtype):
        return np.array([np.nan if pd.isna(v) else float(v.value) for v in column])
    if pd.api.types.is_bool_dtype(column.dtype) or not pd.api.types.is_numeric_dtype(column.dtype):
        return None
    return pd.to_numeric(column.astype(object), errors="coerce").to_numpy(dtype=float)


def unreadable_dates(released: pd.Series) -> int:
    """Cells of a released date column that are neither a date, ``*``, missing, nor a range
    of two dates (``[a/b]``, ``a/b`` or ``[a, b]``, each bound read by ``pandas.to_datetime``
    on its own, as an analyst would read it)."""
    bad = 0
    texts = Counter(v for v in released.astype(object) if isinstance(v, str) and v != "*")
    for value, count in texts.items():
        value = _without_zone(value)
        inner = value[1:-1] if value.startswith("[") and value.endswith("]") else value
        bounds = inner.split(", ") if ", " in inner else inner.split("/")
        try:
            for bound in bounds:
                _read_date(bound)
        except (ValueError, TypeError):
            bad += int(count)
    return bad


def _without_zone(label: str) -> str:
    """``label`` less a trailing time zone, the way a label of tz-aware dates ends
    (``2000/2009 UTC``, ``2020-01 Europe/Rome``, ``[a/b] -05:00``): a zone name the zone
    database knows, or a UTC offset."""
    head, space, zone = label.rpartition(" ")
    if not space:
        return label
    try:
        datetime.datetime.strptime(zone, "%z")
    except ValueError:
        try:
            zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            return label
    return head


def _read_date(text: str) -> None:
    """Read ``text`` as a date (ValueError when it is none): by pandas, or, for a year pandas
    2.2 cannot hold in nanoseconds (a decade ``2260/2269``), by numpy; an instant whose UTC
    offset has seconds (Rome's local mean time before 1893, ``+00:49:56``), which pandas'
    ISO 8601 parser refuses, by Python's."""
    try:
        pd.to_datetime(text, format="ISO8601")
    except pd.errors.OutOfBoundsDatetime:
        np.datetime64(text)
    except ValueError:
        datetime.datetime.fromisoformat(text)


def whole_numbers_with_decimals(released: pd.Series) -> int:
    """Cells of a released whole-number column written with a decimal point (``1983.0``,
    ``[1967.0-1969.0]``), alone or in a range."""
    text = released.astype(object).map(lambda v: v if isinstance(v, str) else repr(v))
    return int(text.str.contains(r"\d\.\d", regex=True).sum())
