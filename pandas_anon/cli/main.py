"""The ``pandas-anon`` command: ``scan`` a CSV for singletons, ``study`` the seed paper's
strategies on it, ``anonymize`` it (never over the input, every cell it did not change written
as it was), ``check`` files against the gate's limits, ``demo`` on the embedded data, list
``plugins``.

Each command is a module of :mod:`pandas_anon.cli` (:class:`Command`); this one builds the
parser and runs the command asked for. Only that command's options are built, and each command
imports the library when it runs, so that ``pandas-anon --help`` and ``pandas-anon check
--help`` load little.

Exit codes: 0 done, 2 bad usage or unreadable input (one line on stderr naming the file or
column); ``check`` exits 1 when a file exceeds its limits; 130 when stopped by Ctrl-C
(SIGINT), 143 by SIGTERM, with one line on stderr and no traceback: the signal is raised as
an exception where the command is, so every ``finally`` clause runs and a file being written
is left as it was (its temporary file removed). Reports hold counts and column names
only, never quasi-identifier values, so they are safe to print in a public CI log.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import NoReturn, Protocol

from pandas_anon import __version__
from pandas_anon.cli import (
    anonymize,
    check,
    compare,
    demo,
    init,
    ke_anon,
    plugins,
    report,
    scan,
    study,
)
from pandas_anon.cli.options import input_limits
from pandas_anon.errors import AnonError, InputFileError, OutputFileError, capture_warnings


class Command(Protocol):
    """What a command module holds: its one-line ``HELP``, the function adding its options to
    its parser, and the one running it (returning the exit code)."""

    HELP: str

    def add_arguments(self, command: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


#: The commands, in the order ``pandas-anon --help`` lists them.
COMMANDS: dict[str, Command] = {
    "scan": scan,
    "study": study,
    "anonymize": anonymize,
    "ke-anon": ke_anon,
    "compare": compare,
    "report": report,
    "demo": demo,
    "plugins": plugins,
    "check": check,
    "init": init,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code instead of exiting (testable)."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_in(words))
    try:
        args = parser.parse_args(words)
    except SystemExit as stop:  # argparse exits 2 on usage errors, 0 on --help
        return int(stop.code or 0)
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show a name or a box
        if hasattr(stream, "reconfigure"):  # character gets an escape, not a traceback
            stream.reconfigure(errors="backslashreplace")
    try:
        with _termination_raised(), _warnings_as_lines(), _reading_limited(args):
            return COMMANDS[args.command].run(args)
    except (KeyboardInterrupt, _Terminated) as stop:
        signum = stop.signum if isinstance(stop, _Terminated) else signal.SIGINT
        how = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name
        print(
            f"pandas-anon: stopped by {how}; a file being written is left as it was",
            file=sys.stderr,
        )
        return 128 + signum
    except AnonError as error:
        where = str(getattr(args, "file", "") or "")
        named = isinstance(error, InputFileError | OutputFileError)  # begin with their file
        prefix = f"{where}: " if where and not named else ""
        print(f"pandas-anon: error: {prefix}{error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head`: stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (no flush error at exit)
        return 0


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``pandas-anon``: every command listed, with its options when it is
    ``command`` (``None``: none of them, enough for ``pandas-anon --help``)."""
    parser = _Parser(
        prog="pandas-anon", description="Find re-identification risk in tables about people."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    if command in COMMANDS:
        parser.helped = f"pandas-anon {command} --help"
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        options = commands.add_parser(name, help=module.HELP)
        if name == command:
            module.add_arguments(options)
    return parser


def _command_in(words: Sequence[str]) -> str | None:
    """The command the words name: the first that is not an option (the options before a
    command, ``--help`` and ``--version``, take no value)."""
    return next((word for word in words if not word.startswith("-")), None)


@contextlib.contextmanager
def _reading_limited(args: argparse.Namespace) -> Iterator[None]:
    """Within the block, files are read within the limits the command's options set
    (:func:`~pandas_anon.cli.options.add_input_limits`; ``check`` applies each file's own
    settings inside)."""
    limits = input_limits(args)
    if limits is None:
        yield
        return
    from pandas_anon.gate.limits import applied

    with applied(limits):
        yield


class _Terminated(BaseException):
    """SIGTERM, raised as an exception where the command is (a BaseException, as
    KeyboardInterrupt is, so that no ``except Exception`` stops it) for every ``finally``
    clause to run on the way out."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _termination_raised() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`_Terminated` (Python's default would end the
    process at once, leaving a half-written temporary file); the previous handler is
    restored after. Only the main thread can handle signals: elsewhere, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: FrameType | None) -> None:
        raise _Terminated(signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """Print our warnings as one ``pandas-anon: warning:`` line each (even if the command
    then fails); leave other libraries' warnings to Python's usual display."""
    messages: list[str] = []
    try:
        with capture_warnings(lambda w: messages.append(str(w.message))):
            yield
    finally:
        for message in dict.fromkeys(messages):
            print(f"pandas-anon: warning: {message}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error ending in the one ``pandas-anon: error:`` line that every
    other error prints (the usage line above it names the command); an option the command
    does not take is told where its options are listed (``helped``)."""

    #: The help that lists the options of the command being parsed.
    helped = "pandas-anon --help"

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        if message.startswith("unrecognized arguments"):
            message += f"; see {self.helped} for the options it takes"
        self.exit(2, f"pandas-anon: error: {message}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
