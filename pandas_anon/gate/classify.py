"""What ``pandas-anon init`` finds in a repository: each data file's kind, and a configuration.

:func:`data_files` lists the files the gate's hooks hand to ``check`` (:data:`DATA_FILES`,
the ``files`` pattern of ``.pre-commit-hooks.yaml``): those git tracks or would track when
the folder is in a git repository (``git ls-files``: ignored files are left out), else every
file below the folder, ``.git`` left out. :func:`classify` reads each table of each file with
the gate's own readers (:func:`pandas_anon.gate.io.tables_in`, then
:func:`pandas_anon.gate.io.read_columns`) and says what it is:

- a **count table** (:func:`pandas_anon.gate.counts.looks_like_counts`: count columns beside
  dimensions telling each row apart), with its count column or columns;
- a **person-level** table, one row per person: every other table that reads;
- **unreadable**, with the reader's reason (which names no value);
- **skipped**, what the gate skips too (a ``.txt`` of prose, a folder in an archive).

:func:`configuration` writes the ``.pandas-anon.toml`` for the maintainer to review, as
``pre-commit sample-config`` writes a configuration to start from: a rule per count table
(its ``count``/``counts``, its dimensions as the QID, a ``min_count``), and comments saying
how to name the QID of a person-level table and how to leave out one that cannot be read.
Nothing here quotes a cell's value: only file and column names and counts of rows.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pandas_anon import formatting as report
from pandas_anon.errors import AnonError
from pandas_anon.gate.counts import DEFAULT_DIMENSION, CountGuess, looks_like_counts
from pandas_anon.gate.io import no_rows, read_columns, tables_in

#: The files the hooks pass to ``check`` (``files:`` in ``.pre-commit-hooks.yaml``).
DATA_FILES = re.compile(
    r"(?i)\.((csv|tsv|txt|json|jsonl|ndjson|parquet|xlsx|ods)(\.(gz|bz2|xz))?|zip)$"
)
#: The smallest published count the rules written for count tables ask (``min_count``).
MIN_COUNT = 3
#: What :func:`configuration` writes when no configuration name is given.
CONFIG_NAME = ".pandas-anon.toml"

COUNT_TABLE = "count table"
PERSON_LEVEL = "person-level"
UNREADABLE = "unreadable"
SKIPPED = "skipped"
#: The kinds of :class:`Classified`, in the order the summary lists them.
KINDS = (COUNT_TABLE, PERSON_LEVEL, UNREADABLE, SKIPPED)


@dataclass(frozen=True)
class Classified:
    """One table of a repository: its ``name`` relative to the repository (a table inside a
    file as ``archive.zip:member.csv``), its ``kind`` (:data:`KINDS`), what it counts (a count
    table's ``guess``), its ``rows`` and ``columns`` (a table read), or ``reason`` (why it is
    unreadable or skipped)."""

    name: str
    kind: str
    guess: CountGuess | None = None
    rows: int = 0
    columns: tuple[str, ...] = ()
    reason: str = ""

    def describe(self) -> str:
        """One line of the summary: what the table is, never a value."""
        if self.guess is not None:
            return f"{self.kind}: {', '.join(self.guess.toml())} ({self.guess.describe()})"
        if self.kind == PERSON_LEVEL:
            rows, columns = (
                report.plural(self.rows, "row"),
                report.plural(len(self.columns), "column"),
            )
            return f"{self.kind}: {rows}, {columns}"
        return f"{self.kind}: {self.reason}"


def data_files(root: Path) -> list[str]:
    """The data files below ``root`` (:data:`DATA_FILES`), as paths relative to it with
    ``/``, sorted: those ``git ls-files`` lists (tracked, or untracked and not ignored) when
    ``root`` is in a git work tree, else every file found walking it, ``.git`` left out."""
    listed = _git_files(root)
    if listed is None:
        listed = []
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if d != ".git")
            for file in files:
                listed.append((Path(folder) / file).relative_to(root).as_posix())
    return sorted(name for name in listed if DATA_FILES.search(name) and (root / name).is_file())


def _git_files(root: Path) -> list[str] | None:
    """The files git lists below ``root`` (None: not in a git work tree, or no git)."""
    try:
        done = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            check=False,
        )
    except OSError:  # no git
        return None
    if done.returncode != 0:
        return None
    return [name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def classify(root: Path, files: Sequence[str] | None = None) -> list[Classified]:
    """Each table of the data files below ``root`` (``files``: relative paths; default
    :func:`data_files`), in the files' order (an archive's in its own)."""
    return [
        found
        for relative in (data_files(root) if files is None else files)
        for found in classify_file(root, relative)
    ]


def classify_file(root: Path, relative: str) -> list[Classified]:
    """The tables of one file, read as ``check`` reads them with no configuration."""
    path = str(root / relative)

    def named(name: str) -> str:  # the table's name, relative to root
        return relative + str(name)[len(path) :]

    try:
        entries = tables_in(path)
    except AnonError as error:
        return [Classified(relative, UNREADABLE, reason=_relative(str(error), path, relative))]
    found = []
    for entry in entries:
        name = named(entry.name)
        if entry.skipped:
            found.append(Classified(name, SKIPPED, reason=entry.skipped))
        elif entry.error:
            found.append(
                Classified(name, UNREADABLE, reason=_relative(entry.error, path, relative))
            )
        else:
            found.append(_classify_table(entry.name, name, path, relative))
    return found


def _classify_table(table: str, name: str, path: str, relative: str) -> Classified:
    """One table: read whole (every column), then a count table or person-level."""
    try:
        frame = read_columns(table)
        if frame.empty:
            raise no_rows(table)
        guess = looks_like_counts(frame)
    except AnonError as error:
        return Classified(name, UNREADABLE, reason=_relative(str(error), path, relative))
    columns = tuple(str(c) for c in frame.columns)
    kind = PERSON_LEVEL if guess is None else COUNT_TABLE
    return Classified(name, kind, guess, len(frame), columns)


def _relative(message: str, path: str, relative: str) -> str:
    """A reader's message naming the file as the configuration does (relative to root)."""
    return message.replace(path, relative)


# -- the configuration ------------------------------------------------------------------------


def configuration(classified: Sequence[Classified], *, min_count: int = MIN_COUNT) -> str:
    """The ``.pandas-anon.toml`` text for these tables, comments included (see the module)."""
    by_kind = {kind: [c for c in classified if c.kind == kind] for kind in KINDS}
    lines = [
        "# pandas-anon check: the configuration `pandas-anon init` wrote from the data files",
        "# it found. Review it before you commit it: each rule is a guess from a file's",
        "# content. Keys and rules: docs/check.md#configuration.",
        f"# {summary(classified)}",
    ]
    if by_kind[COUNT_TABLE]:
        lines += [
            "",
            "# -- count tables: each row a cell counting people, beside the dimensions that",
            "# describe it. The rules on people then count the people of each class (the QID",
            "# below: the cells' dimensions, so each class is a cell), and min_count fails a",
            f"# published count from 1 to {min_count - 1} (raise it as your disclosure policy says).",
            "# A total the table publishes (a total column or a level such as `totale`) must not",
            "# give back a withheld cell by subtraction: check fails the file when it does.",
        ]
        for table in by_kind[COUNT_TABLE]:
            lines += ["", *_count_rule(table, min_count)]
    if by_kind[PERSON_LEVEL]:
        lines += [
            "",
            "# -- person-level tables: one row per person. No rule is needed: at each check the",
            "# gate finds direct identifiers and elects the quasi-identifier (the most exposed",
            "# columns, up to 3). To name the QID, or set limits (k, max_singletons), uncomment",
            "# its rule and keep the columns an attacker could know about a person:",
        ]
        for table in by_kind[PERSON_LEVEL]:
            lines += ["", *_person_rule(table)]
    if by_kind[UNREADABLE]:
        lines += [
            "",
            "# -- unreadable: check fails each of these (exit 2) until it reads. Fix it, or, if",
            "# it holds no table, leave it out with its rule uncommented:",
        ]
        for table in by_kind[UNREADABLE]:
            lines += [
                "",
                f"# {table.name}: {table.reason}",
                "# [[rules]]",
                f"# files = {_glob(table.name)}",
                "# skip = true",
            ]
    if by_kind[SKIPPED]:
        lines += ["", "# -- skipped by check as well (no table):"]
        lines += [f"# {table.name}: {table.reason}" for table in by_kind[SKIPPED]]
    return "\n".join(lines) + "\n"


def _count_rule(table: Classified, min_count: int) -> list[str]:
    """The rule of a count table: its files, counts, QID and min_count."""
    guess = table.guess
    assert guess is not None
    qid = [*guess.dimensions, *([] if guess.counts is None else [DEFAULT_DIMENSION])]
    what = f"{report.plural(table.rows, 'cell')}: {guess.describe()}"
    if guess.counts is not None:
        what += f"; {DEFAULT_DIMENSION!r} is the dimension its count columns spell"
    return [
        f"# {table.name}: {what}",
        "[[rules]]",
        f"files = {_glob(table.name)}",
        *guess.toml(),
        f"qid = [{', '.join(_text(c) for c in qid)}]",
        f"min_count = {min_count}",
    ]


def _person_rule(table: Classified) -> list[str]:
    """The commented rule naming a person-level table's QID."""
    example = ", ".join(_text(c) for c in table.columns[:3])
    return [
        f"# {table.name}: {report.plural(table.rows, 'row')}, columns "
        f"{report.columns(table.columns)}",
        "# [[rules]]",
        f"# files = {_glob(table.name)}",
        f"# qid = [{example}]",
    ]


def _text(text: str) -> str:
    """``text`` as a TOML basic string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'


def _glob(name: str) -> str:
    """A ``files`` pattern matching exactly ``name`` (glob characters escaped), as TOML."""
    return _text(re.sub(r"([*?\[])", r"[\1]", name))


def summary(classified: Sequence[Classified]) -> str:
    """``6 tables: 4 count tables, 1 person-level, 1 unreadable, 0 skipped``."""
    found = {kind: sum(c.kind == kind for c in classified) for kind in KINDS}
    return (
        f"{report.plural(len(classified), 'table')}: "
        f"{report.plural(found[COUNT_TABLE], COUNT_TABLE)}, "
        + ", ".join(f"{found[kind]:,} {kind}" for kind in KINDS[1:])
    )
