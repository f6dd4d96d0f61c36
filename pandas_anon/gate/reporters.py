"""The reports of ``pandas-anon check`` for CI systems, and the reporter of each ``--format``.

Reporters only render the results of :mod:`pandas_anon.gate.check` (:class:`FileResult`):
the exit status is :func:`~pandas_anon.gate.check.exit_status`'s whatever the format, as
check-jsonschema keeps its reporters apart from its results. Besides the table and the JSON
report (:class:`~pandas_anon.gate.check.TextReporter`,
:class:`~pandas_anon.gate.check.JsonReporter`), two formats feed CI systems:

- :class:`GitHubReporter`: GitHub Actions workflow commands, one ``::error`` or ``::warning``
  line per finding, shown as annotations on the files of a pull request;
- :class:`JUnitReporter`: a JUnit XML report, one test case per table, as GitLab
  (``artifacts:reports:junit``), Jenkins and GitHub test-report actions read it.

These reports end up in public CI logs: like every report of the gate they hold file names,
counts, fractions, thresholds and column names, never a value (the problems, errors and
warnings they show are the check's own sentences, which quote none).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from typing import Protocol

from pandas_anon import formatting as report
from pandas_anon.gate.check import VERDICT_COUNTS, FileResult, JsonReporter, TextReporter
from pandas_anon.gate.io import ZipMember
from pandas_anon.gate.pandera_checks import share

#: The name the reports give the check: the annotations' title, the JUnit suite and class.
TITLE = "pandas-anon check"


class Reporter(Protocol):
    """What renders the results of a check: the report as text (``""``: nothing to print)."""

    def report(self, results: Sequence[FileResult]) -> str:
        """Render ``results``, one per table checked, as the report's text."""
        ...


#: The reporter of each ``pandas-anon check --format``, made from the ``verbose`` option
#: (which only the table uses: the other formats always report every file), as
#: check-jsonschema's ``REPORTER_BY_NAME``.
REPORTERS: dict[str, Callable[[bool], Reporter]] = {
    "table": lambda verbose: TextReporter(verbose=verbose),
    "json": lambda verbose: JsonReporter(),
    "github": lambda verbose: GitHubReporter(),
    "junit": lambda verbose: JUnitReporter(),
}


def summary(results: Sequence[FileResult]) -> str:
    """One line saying how many of the tables checked exceed their limits or cannot be checked.

    Parameters
    ----------
    results : sequence of FileResult
        The check's results, one per table.

    Returns
    -------
    str
        ``'pandas-anon check: 2 of 5 files exceed the limits, 1 cannot be checked'``, or
        ``'pandas-anon check: 5 files checked, none exceeds the limits'``.
    """
    failed = sum(r.status == "fail" for r in results)
    errors = sum(r.status == "error" for r in results)
    files = report.plural(len(results), "file")
    if not failed and not errors:
        return f"{TITLE}: {files} checked, none exceeds the limits"
    line = f"{TITLE}: {failed} of {files} exceed{'s' if failed == 1 else ''} the limits"
    return line + (f", {errors} cannot be checked" if errors else "")


def figures(result: FileResult) -> list[tuple[str, str]]:
    """What was measured in one table, and its thresholds, as (label, text) pairs.

    Parameters
    ----------
    result : FileResult
        One table's result.

    Returns
    -------
    list of (str, str)
        A count table's cells; rows (people, for a count table), rows examined, QID, the
        singletons counted both ways (:class:`~pandas_anon.gate.check.ByMissing`; of a result
        made without :func:`~pandas_anon.gate.check.check_file`, the verdict's), smallest
        class and thresholds (counts and column names only); empty for a table that was not
        measured (an error, a skip).
    """
    found, limits, cells = result.exposure, result.limits, result.cells
    lines = []
    if cells is not None:
        small = "" if cells.min_count is None else f", {report.count(cells.small)} below "
        small += "" if cells.min_count is None else f"the minimum count of {cells.min_count}"
        lines.append(
            (
                "cells",
                f"{report.count(cells.cells)} published, {report.count(cells.withheld)} "
                f"withheld{small}",
            )
        )
    if found is not None:
        unit = "people" if found.weighted else "rows"
        counted = (
            [("singletons", f"{report.count(found.singletons)} ({share(found.fraction)})")]
            if result.by_missing is None  # a result made without check_file
            else result.by_missing.lines(VERDICT_COUNTS, unit)
        )
        lines += [
            (unit, report.count(found.rows)),
            (f"{unit} examined", report.count(found.examined)),
            ("QID", report.columns(found.qid) + (" (elected)" if result.elected else "")),
            *counted,
            ("smallest class", report.count(found.smallest_class)),
        ]
    if limits is not None:
        lines.append(("thresholds", limits.describe()))
    return lines


# -- GitHub Actions -------------------------------------------------------------------------


def escape_data(text: str) -> str:
    """Escape the message of a workflow command as @actions/core's ``escapeData`` does.

    Parameters
    ----------
    text : str
        The message.

    Returns
    -------
    str
        ``text`` with ``%``, carriage returns and line feeds as ``%25``, ``%0D`` and ``%0A``.
    """
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property of a workflow command as @actions/core's ``escapeProperty`` does.

    Parameters
    ----------
    text : str
        The property's value (a file name, a title).

    Returns
    -------
    str
        ``text`` escaped as by :func:`escape_data`, with ``:`` and ``,`` also escaped as
        ``%3A`` and ``%2C`` (they end a property's value).
    """
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


class GitHubReporter:
    """GitHub Actions workflow commands, shown as annotations on the files of a pull request.

    One line per finding: ``::error file=PATH,title=pandas-anon check::MESSAGE`` for each
    problem of a failing table and for each table that cannot be checked, ``::warning`` for
    each warning; passing and skipped tables get none. A last plain line sums the check up
    (:func:`summary`). A table inside a ``.zip`` is annotated on the archive (the file in the
    repository), its message beginning with the member's name. Escaping is the toolkit's
    (:func:`escape_property`, :func:`escape_data`).
    """

    def report(self, results: Sequence[FileResult]) -> str:
        """The workflow commands of every finding, then the summary line.

        Parameters
        ----------
        results : sequence of FileResult
            The check's results, one per table.

        Returns
        -------
        str
            The lines to print, joined by line feeds.
        """
        lines = [
            self.command(level, result, message)
            for result in results
            for level, message in self.findings(result)
        ]
        return "\n".join([*lines, summary(results)])

    @staticmethod
    def findings(result: FileResult) -> list[tuple[str, str]]:
        """The (level, message) pairs of one table's annotations.

        Parameters
        ----------
        result : FileResult
            One table's result.

        Returns
        -------
        list of (str, str)
            ``("error", ...)`` for its error (which names the file) and for each problem,
            ``("warning", ...)`` for each warning; the problems and warnings of a ``.zip``
            member begin with the member's name.
        """
        member = f"{result.file.member}: " if isinstance(result.file, ZipMember) else ""
        found = [("error", result.error)] if result.error else []
        found += [("error", member + problem) for problem in result.problems]
        found += [("warning", member + warning) for warning in result.warnings]
        return found

    @staticmethod
    def command(level: str, result: FileResult, message: str) -> str:
        """One workflow command annotating the file of ``result``.

        Parameters
        ----------
        level : {"error", "warning", "notice"}
            The command.
        result : FileResult
            The table the message is about: its file, or the archive holding it.
        message : str
            The annotation's text.

        Returns
        -------
        str
            ``::error file=PATH,title=pandas-anon check::MESSAGE``, escaped.
        """
        path = result.file.archive if isinstance(result.file, ZipMember) else result.file
        properties = ",".join(
            f"{key}={escape_property(value)}" for key, value in (("file", path), ("title", TITLE))
        )
        return f"::{level} {properties}::{escape_data(message)}"


# -- JUnit XML ------------------------------------------------------------------------------

#: Characters XML 1.0 cannot hold, even as references (control characters, lone surrogates
#: from undecodable file names).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """``text`` with each character XML cannot hold written as its Python escape (``\\x07``)."""
    return _NOT_XML.sub(lambda match: ascii(match.group())[1:-1], text)


def _element(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> None:
    """Append a ``tag`` element holding ``text`` and ``attributes`` (made XML-safe)."""
    child = ET.SubElement(parent, tag, {key: _xml(value) for key, value in attributes.items()})
    if text is not None:
        child.text = _xml(text)


class JUnitReporter:
    """A JUnit XML report: one test suite, one test case per table checked.

    ``<testsuites>`` holds one ``<testsuite name="pandas-anon check">`` with the counts of
    ``tests``, ``failures``, ``errors`` and ``skipped``; each table is a ``<testcase
    classname="pandas-anon check" name=FILE>`` holding a ``<failure>`` with its problems when
    it exceeds its limits, an ``<error>`` when it cannot be checked, a ``<skipped>`` with the
    reason when it is skipped, and a ``<system-out>`` with its figures (:func:`figures`) and
    warnings. Built with :mod:`xml.etree.ElementTree` (which escapes), declared UTF-8 and
    written in ASCII (other characters as references), so it reads the same whatever the
    encoding of the stream it is printed to.
    """

    def report(self, results: Sequence[FileResult]) -> str:
        """The XML document, with its declaration.

        Parameters
        ----------
        results : sequence of FileResult
            The check's results, one per table.

        Returns
        -------
        str
            The JUnit XML report.
        """
        counts = {
            "tests": str(len(results)),
            "failures": str(sum(r.status == "fail" for r in results)),
            "errors": str(sum(r.status == "error" for r in results)),
            "skipped": str(sum(r.status == "skipped" for r in results)),
        }
        root = ET.Element("testsuites", {"name": TITLE, **counts})
        suite = ET.SubElement(root, "testsuite", {"name": TITLE, **counts})
        for result in results:
            self.testcase(suite, result)
        ET.indent(root)
        body = ET.tostring(root, encoding="us-ascii").decode("ascii")
        return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}'

    @staticmethod
    def testcase(suite: ET.Element, result: FileResult) -> None:
        """Append the test case of one table to ``suite``.

        Parameters
        ----------
        suite : xml.etree.ElementTree.Element
            The ``<testsuite>`` element.
        result : FileResult
            One table's result.
        """
        case = ET.SubElement(suite, "testcase", classname=TITLE, name=_xml(result.file))
        if result.status == "fail":
            problems = result.problems
            _element(
                case,
                "failure",
                "\n".join(problems),
                message="; ".join(problems),
                type="exceeds the limits",
            )
        elif result.status == "error":
            _element(case, "error", result.error, message=result.error, type="cannot be checked")
        elif result.status == "skipped":
            _element(case, "skipped", message=result.reason or "skipped by the configuration")
        out = [f"{label}: {text}" for label, text in figures(result)]
        out += [f"warning: {warning}" for warning in result.warnings]
        if out:
            _element(case, "system-out", "\n".join(out))
