"""The check behind ``pandas-anon check FILE...``: does a table single people out?

Each file is read (only the columns needed, through :func:`pandas_anon.gate.parsers.read`,
which accounts for every value of the file: one left unread fails it),
its quasi-identifier taken from its settings (the command line over the configuration,
:mod:`pandas_anon.gate.config`) or else elected by the gate's rule
(:func:`pandas_anon.detect.exposure.scan`), and its singletons and smallest class compared
with the file's limits (:class:`pandas_anon.gate.pandera_checks.Limits`).

Three parts, kept apart as check-jsonschema keeps them: the results (:class:`FileResult`, one
per table, and :func:`exit_status`), the checking (:func:`check_files` and the functions it
calls), and the reporters that render results (:class:`TextReporter`, :class:`JsonReporter`;
those for CI systems are in :mod:`pandas_anon.gate.reporters`).
Reports hold counts, fractions and column names, never a value. Files are only read, never
written. Reading the command line is :mod:`pandas_anon.cli.check`'s.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import pandas as pd

from pandas_anon import formatting as report
from pandas_anon.detect.exposure import DirectIdentifier, direct_identifiers, scan
from pandas_anon.detect.results import BestQID
from pandas_anon.errors import (
    AnonError,
    ConfigError,
    CopiesWarning,
    EmptyDataError,
    IncompleteRowsWarning,
    InputFileError,
    capture_warnings,
    warn,
)
from pandas_anon.gate import limits as reading
from pandas_anon.gate.config import Config, Settings
from pandas_anon.gate.copies import copies, one_copy, partitions_copies
from pandas_anon.gate.counts import CountTable, SmallCells, looks_like_counts
from pandas_anon.gate.dask_reading import read_dask, require_rows
from pandas_anon.gate.io import ZipMember, no_rows, tables_in
from pandas_anon.gate.pandera_checks import Exposure, Limits, measure, share
from pandas_anon.gate.parsers import read
from pandas_anon.gate.parsers.account import Account, unread_error
from pandas_anon.gate.parsers.text import with_partitions_text

# -- results --------------------------------------------------------------------------------

#: The label of the singletons counted each way a row missing a QID value can be counted, by
#: the setting choosing that way (the ``keep_missing`` key, ``--keep-missing`` and
#: ``--drop-missing``): ``scan`` and ``check`` print both, labelled so (:class:`ByMissing`).
SINGLETONS_BY_MISSING = {
    "keep_missing": "singletons, missing as a value (--keep-missing)",
    "drop_missing": "singletons, incomplete rows dropped (--drop-missing)",
}


@dataclass(frozen=True)
class Counted:
    """The singletons of a QID counted one way (:data:`SINGLETONS_BY_MISSING`): among the
    rows ``examined`` (people, for a count table), ``dropped`` rows left out as incomplete."""

    singletons: int
    examined: int
    dropped: int

    @property
    def fraction(self) -> float | None:
        """Singletons over rows examined (None when no row is examined)."""
        return self.singletons / self.examined if self.examined else None

    def describe(self, unit: str = "rows") -> str:
        """``'1,800 of 87,642 rows (2.05 %)'``."""
        share_ = "" if self.fraction is None else f" ({share(self.fraction)})"
        return f"{report.count(self.singletons)} of {report.count(self.examined)} {unit}{share_}"

    def to_dict(self) -> dict:
        """``singletons``, ``examined``, ``dropped``, ``fraction`` (None: no row examined)."""
        return {**asdict(self), "fraction": self.fraction}


@dataclass(frozen=True)
class ByMissing:
    """The singletons of a QID counted both ways (:data:`SINGLETONS_BY_MISSING`), and the
    way the other figures of a report count (``keep_missing``: with missing as a value;
    ``check``'s verdict counts this way)."""

    kept: Counted  # missing as a value: every row examined but the suppressed
    dropped: Counted  # rows missing a QID value left out, as the seed paper counts
    keep_missing: bool

    def to_dict(self) -> dict:
        """The keys ``scan`` and ``check`` add to their JSON reports: ``keep_missing`` and
        ``singletons_by_missing`` (``keep_missing`` and ``drop_missing``: :meth:`Counted.to_dict`)."""
        return {
            "keep_missing": self.keep_missing,
            "singletons_by_missing": {
                "keep_missing": self.kept.to_dict(),
                "drop_missing": self.dropped.to_dict(),
            },
        }

    @classmethod
    def from_dict(cls, found: Mapping[str, object]) -> ByMissing:
        """Read back the keys of :meth:`to_dict` (from a report that holds them)."""
        ways = found["singletons_by_missing"]
        assert isinstance(ways, Mapping)
        kept, dropped = (
            Counted(ways[way]["singletons"], ways[way]["examined"], ways[way]["dropped"])
            for way in ("keep_missing", "drop_missing")
        )
        return cls(kept, dropped, keep_missing=bool(found["keep_missing"]))

    def lines(self, used: str, unit: str = "rows") -> list[tuple[str, str]]:
        """(label, figures) of each way, the way the report counts marked with ``used``
        (``'the way the verdict counts'``)."""
        return [
            (SINGLETONS_BY_MISSING[way], found.describe(unit) + (f", {used}" if mine else ""))
            for way, found, mine in (
                ("keep_missing", self.kept, self.keep_missing),
                ("drop_missing", self.dropped, not self.keep_missing),
            )
        ]


#: How ``check``'s reports mark the way its verdict counts (:meth:`ByMissing.lines`).
VERDICT_COUNTS = "the way the verdict counts"


def by_missing(mine: Counted, count: Callable[[bool], Counted], keep_missing: bool) -> ByMissing:
    """Both ways of counting from ``mine``, the singletons counted the way a report counts
    (``keep_missing``), and ``count(dropna)``, which counts them the other way. Its warnings
    are left out (they are about a way the report does not use); with no complete row, it
    examines none."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IncompleteRowsWarning)
        try:
            other = count(keep_missing)
        except EmptyDataError:  # every row misses a QID value: only when dropping them
            other = Counted(0, 0, mine.examined + mine.dropped)
    if keep_missing:
        return ByMissing(mine, other, keep_missing=True)
    return ByMissing(other, mine, keep_missing=False)


#: Exit status of each file status; a check exits with the highest (:func:`exit_status`).
EXIT = {"pass": 0, "skipped": 0, "fail": 1, "error": 2}


@dataclass
class FileResult:
    """What ``check`` found in one file."""

    file: str
    status: str  # pass, fail, error or skipped
    exposure: Exposure | None = None
    elected: bool = False
    limits: Limits | None = None
    problems: list[str] = field(default_factory=list)
    error: str = ""
    warnings: list[str] = field(default_factory=list)
    reason: str = ""  # why it is skipped, when a file kind says so
    cells: SmallCells | None = None  # a count table's published counts
    election: BestQID | None = None  # how the QID was elected, without a configured one
    by_missing: ByMissing | None = None  # the singletons counted both ways, with exposure


def exit_status(results: Sequence[FileResult]) -> int:
    """The exit status of a check: the highest of its files' (:data:`EXIT`)."""
    return max(EXIT[result.status] for result in results)


# -- checking -------------------------------------------------------------------------------


def check_files(
    files: Sequence[str], config: Config, command_line: Mapping[str, object]
) -> list[FileResult]:
    """Check every table of every file with its settings: the configuration's for the file,
    overridden by ``command_line`` (settings fields, as :meth:`Config.settings` takes them).
    Whatever one file raises but our own errors (:func:`contained`), it is an ``error``
    result and the others are still checked."""
    return [
        result for file in files for result in contained(check_tables, file, config, command_line)
    ]


def contained(
    check: Callable[[str, Config, Mapping[str, object]], list[FileResult]],
    file: str,
    config: Config,
    command_line: Mapping[str, object],
) -> list[FileResult]:
    """``check(file, config, command_line)``'s results; if it raises anything but an
    :class:`~pandas_anon.errors.AnonError` (which says what to fix and is reported where it
    is raised) or what stops the program (``KeyboardInterrupt``, ``SystemExit``): a
    ``MemoryError`` (pyarrow's too), a ``RecursionError``, a library's ``ValueError``, one
    ``error`` result naming the file and the kind of failure, never the exception's text,
    which may quote a value."""
    try:
        return check(file, config, command_line)
    except AnonError:
        raise
    except MemoryError:
        problem = (
            "reading or checking it ran out of memory; check it with --engine dask, which "
            "reads it by partitions, or lower the input limits (--max-cells, "
            "--max-sheet-cells) so that such files are refused first"
        )
    except RecursionError:
        problem = "it is nested too deeply to be read; flatten it, or leave it out"
    except Exception as error:
        problem = (
            f"reading or checking it failed with an unexpected {type(error).__name__}; "
            "please report it (pandas-anon's issue tracker), without the file if it is private"
        )
    return [FileResult(file, "error", error=f"{file} cannot be checked: {problem}")]


def check_tables(file: str, config: Config, command_line: Mapping[str, object]) -> list[FileResult]:
    """Check each table the file ``file`` holds (:func:`pandas_anon.gate.io.tables_in`).

    A ``.zip`` gives a result per member (archives inside it too), named
    ``archive.zip:member``, and a workbook one per sheet, named ``book.xlsx:Sheet1``: a check
    of each table, whatever its name, ``skipped`` for a folder, a ``.txt`` of prose and an
    empty sheet, ``error`` for what cannot be read (an archive that cannot be opened is one).
    Each table gets the settings of the file and of its own name (:meth:`Config.settings`
    with the files holding it), so that a rule can skip one member by name.
    """
    settings = config.settings(file, command_line)
    if settings.skip or settings.engine == "dask":  # Dask reads the whole folder or glob
        return [check_file(file, settings, skips=_skips(config, command_line))]
    try:
        with reading.applied(settings.input_limits()):
            entries = tables_in(file, sep=settings.delimiter, encoding=settings.encoding)
    except InputFileError as error:
        return [FileResult(file, "error", error=str(error))]
    results = []
    for entry in entries:
        own = config.settings(entry.name, command_line, within=_holders(entry.name))
        if own.skip:
            results.append(FileResult(entry.name, "skipped", reason="skipped by a rule"))
        elif entry.skipped:
            results.append(FileResult(entry.name, "skipped", reason=entry.skipped))
        elif entry.error:
            results.append(FileResult(entry.name, "error", error=_unread(entry.name, entry.error)))
        else:
            results.append(check_file(entry.name, own, skips=_skips(config, command_line)))
    return results


def _unread(name: str, error: str) -> str:
    """The message for a file that cannot be read: for a member of an archive, also how to
    leave it out when it holds no table (a README, an image)."""
    if not isinstance(name, ZipMember):
        return error
    return f'{error}; if it holds no table, skip it by name: a rule with files = "{name}" and skip = true'


def _holders(name: str) -> list[str]:
    """The files holding the table ``name``, outermost first: the archives of a
    :class:`~pandas_anon.gate.io.ZipMember`, the workbook of a sheet (and the archives
    holding that workbook)."""
    holder = getattr(name, "archive", getattr(name, "book", None))
    return [] if holder is None else [*_holders(holder), holder]


def _skips(config: Config, command_line: Mapping[str, object]) -> Callable[[str], bool]:
    """Whether a rule of ``config`` skips a part of a file by its name (``file:$.meta``)."""
    return lambda part: config.settings(part, command_line).skip


def check_file(
    file: str, settings: Settings, *, skips: Callable[[str], bool] = lambda part: False
) -> FileResult:
    """Measure one file against its settings; an unusable file gives an ``error`` result.

    Every column is read. With a QID configured, it is measured, and the other columns are
    examined for direct identifiers (allowed by name in ``allow_identifiers``). Without one,
    the gate's rule (:func:`pandas_anon.detect.exposure.scan`) reads every column: a direct
    identifier column fails the file unless ``allow_identifiers`` names it, and the most exposed column set of
    up to ``max_size`` columns (ranked by rows in classes below ``k``, missing counted as a
    value) is measured against the limits; an election that needs more than ``max_subsets``
    subsets is an ``error`` (:data:`ELECTION_REMEDY` says how to continue). A count table
    (``count``/``counts`` settings) is measured on the people it counts, and its cells
    against ``min_count`` (:mod:`pandas_anon.gate.counts`). A file passes only when its
    reader accounts for every value in it (:mod:`pandas_anon.gate.parsers`): a part not
    read into the table is an ``error`` naming it, unless ``skips`` says a rule skips it.
    """
    if settings.skip:
        return FileResult(file, "skipped")
    result = FileResult(file, "error")
    limits = settings.limits()
    identifiers: list[str] = []
    try:
        with _warnings_of(file, result.warnings.append):
            table = settings.count_table()
            with reading.applied(settings.input_limits()):
                frame, weights, result.cells = _read(file, settings, table, skips)
            if table is None:
                frame = _one_copy(frame, settings.engine == "dask")
            qid: Sequence[str] | None = settings.qid
            if qid is None and table is None and settings.engine == "pandas":
                guess = looks_like_counts(frame)  # cells judged as people: ask for the counts
                if guess is not None:
                    raise ConfigError(guess.advice(file))
            if qid is not None and table is None:  # a QID leaves no column unexamined
                outside = [c for c in frame.columns if c not in set(qid)]
                found_ids = direct_identifiers(frame, outside, weights=weights)
                identifiers = [
                    _identifier_problem(f)
                    for f in found_ids
                    if f.column not in settings.allow_identifiers
                ]
            if qid is None:
                found = scan(
                    frame,
                    k=max(limits.k or 2, 2),
                    max_size=settings.max_size,
                    allowed=settings.allow_identifiers,
                    weights=weights,
                    max_subsets=settings.max_subsets,
                    remedy=ELECTION_REMEDY,
                )
                identifiers = [_identifier_problem(f) for f in found.identifiers]
                qid = [str(c) for c in found.qid]
                result.election = found.election
            if qid:
                measured = measure(frame, qid, dropna=not settings.keep_missing, weights=weights)
                result.exposure = limits.estimated(measured)  # a sample: its population estimate
                result.by_missing = by_missing(
                    _counted(measured),
                    lambda dropna: _counted(measure(frame, qid, dropna=dropna, weights=weights)),
                    settings.keep_missing,
                )
    except AnonError as error:
        # file errors already begin with the path; any other error gets it in front
        result.error = (
            _unread(file, str(error)) if isinstance(error, InputFileError) else f"{file}: {error}"
        )
        return result
    result.elected = settings.qid is None
    result.limits = limits
    result.problems = (
        identifiers
        + (result.cells.violations() if result.cells is not None else [])
        + (limits.violations(result.exposure) if result.exposure is not None else [])
    )
    result.status = "fail" if result.problems else "pass"
    return result


def _one_copy(frame: pd.DataFrame, partitioned: bool) -> pd.DataFrame:
    """``frame`` (a Dask frame when ``partitioned``), or, when it is written ``m > 1`` times
    over (:func:`~pandas_anon.gate.copies.copies`), one copy of it, saying so
    (:class:`~pandas_anon.errors.CopiesWarning`)."""
    if partitioned:
        m = partitions_copies(frame)
        once = frame.drop_duplicates() if m > 1 else frame
        rows = ""
    else:
        m = copies(frame)
        once = one_copy(frame) if m > 1 else frame
        rows = f" ({len(frame):,} rows, {len(once):,} distinct records)"
    if m > 1:
        warn(f"every record appears {m} times{rows}: judged as one copy", CopiesWarning)
    return once


def _identifier_problem(found: DirectIdentifier) -> str:
    """The problem a direct identifier column makes, and how to solve it."""
    return (
        f"{found.describe()} identifies people on its own: drop it, hash it "
        f"(pandas-anon anonymize --identifiers hash), or allow it by name "
        f"(--allow-identifier, allow_identifiers)"
    )


def _counted(found: Exposure) -> Counted:
    """The singletons of a measure, with the rows it examined and dropped."""
    return Counted(found.singletons, found.examined, found.rows - found.examined - found.suppressed)


#: How to continue when the election of a file's QID goes past its budget of subsets.
ELECTION_REMEDY = (
    "name the quasi-identifier with --qid (or the qid configuration key), or raise the "
    "budget with --max-subsets (or the max_subsets configuration key)"
)


def _read(
    file: str, settings: Settings, table: CountTable | None, skips: Callable[[str], bool]
) -> tuple[pd.DataFrame, str | None, SmallCells | None]:
    """The file's columns (every one, a QID's and the others: a column outside the QID may
    still identify people on its own), a count table in long form with its count column,
    and its small cells; an InputFileError when its account leaves a value unread that no
    rule skips."""
    if settings.engine == "dask":
        if table is not None:
            raise ConfigError(
                "count tables (count, counts, min_count) are checked with the pandas engine "
                "only: they are small by nature; drop --engine dask for this file"
            )
        frame = read_dask(
            file,
            sep=settings.delimiter,
            encoding=settings.encoding,
            header=settings.header,
            skipped=skips,
        )
        require_rows(frame, file)
        # the text outside its values, found as the pandas engine finds it, partition by partition
        unread = unread_error(with_partitions_text(frame, Account(file, {}, {})), skips)
        if unread is not None:
            raise unread
        return frame, None, None
    frame, account = read(
        file,
        sep=settings.delimiter,
        encoding=settings.encoding,
        header=settings.header,
    )
    unread = unread_error(account, skips)
    if unread is not None:
        raise unread
    if frame.empty:
        raise no_rows(file)
    if table is None:
        return frame, None, None
    return table.read(frame)


def election_figures(election: BestQID) -> dict:
    """How a QID was elected, as the JSON report gives it (counts and column names)."""
    return {
        "candidates": len(election.candidates),
        "max_size": election.max_size,
        "at_risk": election.at_risk,
        "k": election.k,
        "counted": int((election.table["status"] != "derived").sum()),
        "derived": int((election.table["status"] == "derived").sum()),
        "pruned": election.pruned,
    }


def elected(result: FileResult) -> str:
    """The decision of the gate's rule on one table, in a sentence (``--verbose``)."""
    assert result.election is not None and result.exposure is not None
    figures = election_figures(result.election)
    below = "alone" if figures["k"] == 2 else f"in classes below k={figures['k']}"
    return (
        f"{report.columns(result.exposure.qid)} elected among "
        f"{report.plural(figures['candidates'], 'column')} (subsets of up to "
        f"{figures['max_size']}): {result.exposure.unit(figures['at_risk'])} {below}; "
        f"{report.plural(figures['counted'], 'subset')} counted, {figures['derived']:,} derived "
        f"from a dependency, {figures['pruned']:,} left out by their bound"
    )


@contextmanager
def _warnings_of(file: str, record: Callable[[str], None]) -> Iterator[None]:
    """Re-issue our warnings prefixed with the file's name (and record them), even when the
    file then fails; pass other libraries' warnings on unchanged."""

    def forward(w: warnings.WarningMessage) -> None:
        record(str(w.message))
        warnings.warn(f"{file}: {w.message}", w.category, stacklevel=2)

    with capture_warnings(forward):
        yield


# -- reporters ------------------------------------------------------------------------------


class JsonReporter:
    """The full report as JSON (a CI artifact): whether every file passed, and for each file
    its status, figures, limits, problems and warnings."""

    def report(self, results: Sequence[FileResult]) -> str:
        """The report as indented JSON text."""
        payload = {
            "passed": all(EXIT[r.status] == 0 for r in results),
            "files": [self.file(r) for r in results],
        }
        return json.dumps(payload, indent=2, ensure_ascii=False)

    @staticmethod
    def file(result: FileResult) -> dict:
        """One file's entry of the report, as a JSON-able dict."""
        out: dict = {"file": result.file, "status": result.status}
        if result.error:
            out["error"] = result.error
        if result.reason:
            out["reason"] = result.reason
        if result.cells is not None:
            out["cells"] = result.cells.to_dict()
        if result.exposure is not None and result.limits is not None:
            out.update(result.exposure.to_dict())
            if result.by_missing is not None:
                out.update(result.by_missing.to_dict())
            out["qid_elected"] = result.elected
            if result.election is not None:
                out["election"] = election_figures(result.election)
            out["limits"] = asdict(result.limits)
        if result.status in ("pass", "fail"):  # checked: what fails it (identifiers included)
            out["problems"] = result.problems
        if result.warnings:
            out["warnings"] = result.warnings
        return out


class TextReporter:
    """The table of failing files (every measured file with ``verbose``), then each one's
    singletons counted both ways (:class:`ByMissing`) and the reasons; silent when every
    file passes, unless ``verbose``."""

    def __init__(self, *, verbose: bool = False) -> None:
        self.verbose = verbose

    def report(self, results: Sequence[FileResult]) -> str:
        """The tables as text, or ``""`` when there is nothing to show."""
        if not self.verbose and not any(r.status == "fail" for r in results):
            return ""
        shown = [r for r in results if r.status != "error" and (self.verbose or r.status == "fail")]
        table = pd.DataFrame(
            [self.row(r) for r in shown],
            columns=["file", "rows", "QID", "singletons", "%", "k", "threshold", "status"],
        )
        failed = sum(r.status == "fail" for r in results)
        summary = (
            f"{failed} of {report.plural(len(results), 'file')} "
            f"exceed{'s' if failed == 1 else ''} the limits"
            if failed
            else f"{report.plural(len(results), 'file')} checked, none exceeds the limits"
        )
        counted = [
            f"{r.file}: {label}: {figures}"
            for r in shown
            if r.by_missing is not None and r.exposure is not None
            for label, figures in r.by_missing.lines(
                VERDICT_COUNTS, "people" if r.exposure.weighted else "rows"
            )
        ]
        reasons = counted + [f"{r.file}: {problem}" for r in results for problem in r.problems]
        reasons += [f"{r.file}: skipped, {r.reason}" for r in shown if r.reason]
        if self.verbose:
            reasons += [f"{r.file}: {elected(r)}" for r in shown if r.election is not None]
        title = f"pandas-anon check: {summary}"
        return "\n".join([report.render(title, [], ("", table)), *reasons])

    @staticmethod
    def row(result: FileResult) -> tuple:
        """One file's row of the table."""
        found = result.exposure
        if found is None or result.limits is None:  # skipped
            return result.file, "", "", "", "", "", "", result.status.upper()
        qid = report.columns(found.qid) + (" elected" if result.elected else "")
        threshold = result.limits.describe()
        if result.cells is not None and result.cells.min_count is not None:
            threshold += f", cells 0 or >= {result.cells.min_count}"
        return (
            result.file,
            report.count(found.rows) + (" people" if found.weighted else ""),
            qid,
            report.count(found.singletons),
            share(found.fraction),
            found.smallest_class,
            threshold,
            result.status.upper(),
        )
