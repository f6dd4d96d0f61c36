"""Every example of the site and the README runs when the site is built, and its printed
output must be the one the page shows.

An example is a fenced Python block written as an interactive session (``>>>`` lines, the
output below them). The blocks of a page run in order in one namespace, as doctest runs
them (with ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``: ``...`` stands for a part that varies,
such as a time); a failure is a Sphinx warning at the block's line, so the build, run with
warnings as errors (``.ci/run``), fails when an output changes. A fenced Python block that
is not a session is a warning too: every example runs. The shell transcripts run too
(:mod:`transcripts`).
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import transcripts
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: A fenced block: its opening fence, its info string, its body.
_FENCE = re.compile(
    r"^(?P<fence>```+)(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S
)
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

#: Pages whose examples work on files of the repository, copied into their folder first
#: (the worked example edits the open-data repository's files: its excerpt in the tests, with
#: the configuration the page describes).
WORKING_FILES = {
    "example-open-data.md": (
        "tests/gate/data/covid19-opendata-vaccini",
        "docs/examples/covid19-opendata-vaccini",
    ),
}


def sessions(text: str) -> list[tuple[int, str]]:
    """The Python session blocks of a Markdown page: (line of the block's first line, body)."""
    found = []
    for block in _FENCE.finditer(text):
        info = block.group("info").strip().lower()
        if info in ("python", "pycon", "py") or info.startswith("{code-block} python"):
            line = text.count("\n", 0, block.start("body")) + 1
            found.append((line, block.group("body")))
    return found


def listing(body: str, root: Path) -> bool | None:
    """For a block listing a file (its first line ``# <path>``, a file of the repository or
    of one of its plugins), whether it is that file's text; None for any other block."""
    first, _, rest = body.partition("\n")
    if not first.startswith("# ") or " " in first[2:].strip():
        return None
    candidates = [root / first[2:].strip(), *root.glob(f"plugins/*/{first[2:].strip()}")]
    found = [c for c in candidates if c.is_file()]
    if not found:
        return None
    return any(c.read_text(encoding="utf-8") == rest for c in found)


def run_page(path: Path, name: str, root: Path) -> list[tuple[int, str]]:
    """Run a page's sessions (a file listed is compared with the file, not run); the
    problems, each with its line."""
    problems: list[tuple[int, str]] = []
    globs: dict[str, Any] = {"__name__": "__main__"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    for line, body in sessions(path.read_text(encoding="utf-8")):
        listed = listing(body, root)
        if listed is not None:  # the file as the repository holds it, not an example
            if not listed:
                problems.append(
                    (line, f"the listing of {body.split(chr(10))[0][2:]} differs from the file")
                )
            continue
        if ">>>" not in body:
            problems.append(
                (
                    line,
                    "a Python block that is not a session (>>> lines with their output): it is not run",
                )
            )
            continue
        test = parser.get_doctest(body, globs, name, str(path), line - 1)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        globs.update(test.globs)  # a doctest runs on a copy: the next block sees this one's names
        problems += [(line, text) for text in report]
    return problems


def check(app: Any, env: Any, docnames: list[str]) -> None:
    """Run the examples of every page read, and of the README."""
    source = Path(app.srcdir)
    pages = [
        (source / f"{doc}.md", f"{doc}.md", doc)
        for doc in docnames
        if (source / f"{doc}.md").exists()
    ]
    pages.append((source.parent / "README.md", "README.md", "index"))
    for path, name, doc in pages:
        before = changed_files(source.parent)
        problems = run_in_folder(path, name, source.parent)
        left = changed_files(source.parent) - before
        if left:  # the examples write into their own folder, never the repository
            problems.append((1, f"running the examples changed the repository: {sorted(left)}"))
        for line, problem in problems:
            logger.warning(
                "example of %s does not run as shown:\n%s",
                name,
                problem,
                location=(doc, line) if name != "README.md" else None,
            )


def changed_files(root: Path) -> set[str]:
    """The files of the repository at ``root`` that git sees as new or changed (``git status``
    lines, ignored files left out); none outside a git work tree."""
    try:
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return set()
    return set(status.stdout.splitlines())


def run_in_folder(path: Path, name: str, root: Path) -> list[tuple[int, str]]:
    """Run a page's examples in a folder of their own (the files they write stay there),
    holding a copy of the repository's files the page works on."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        for folder in WORKING_FILES.get(name, ()):
            shutil.copytree(root / folder, work, dirs_exist_ok=True)
        os.chdir(work)
        try:
            problems = run_page(path, name, root)
        finally:
            os.chdir(here)
    if name in transcripts.NOT_YET or name == "README.md":
        return problems
    with tempfile.TemporaryDirectory() as work:  # the shell transcripts, in a folder of theirs
        return problems + transcripts.run_page(path, Path(work), root)


def setup(app: Any) -> dict[str, Any]:
    app.connect("env-before-read-docs", check)
    return {"parallel_read_safe": True}
