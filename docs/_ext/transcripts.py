"""The shell transcripts of the site run when it is built, and print what the page shows.

A transcript is a fenced ``text`` block whose first line runs pandas-anon (``$ pandas-anon ...``):
each ``$`` line is run by ``bash`` in the page's folder, in order, and what it prints (its
output, then its errors) must be the lines below it, up to the next ``$`` line, compared as
the sessions are (:mod:`executed_examples`: ``...`` stands for a part that varies, such as a
time, and runs of spaces are one space). ``echo $?`` prints the status of the command
before it. The folder holds the files the pages work on, written before the first command
(:data:`FILES`, :data:`PAGE_FILES`). The pages of :data:`NOT_YET` are not run.
"""

from __future__ import annotations

import doctest
import io
import lzma
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

#: A fenced block: its opening fence, its info string, its body.
_FENCE = re.compile(
    r"^(?P<fence>```+)(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S
)
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: A transcript's first line: the command line, with variables of the environment first.
_COMMAND = re.compile(r"\$ (?:(?:[A-Z_]+=\S* )*pandas-anon\b|cat |pytest\b)")
#: Seconds one command may take.
TIMEOUT = 300


def _embedded(name: str) -> Callable[[Path], bytes]:
    """The bytes of a data file embedded in the package, decompressed."""

    def read(root: Path) -> bytes:
        return lzma.decompress((root / "pandas_anon/datasets/data" / name).read_bytes())

    return read


def _text(content: str) -> Callable[[Path], bytes]:
    return lambda _root: content.encode()


def _zipped(member: str, read: Callable[[Path], bytes]) -> Callable[[Path], bytes]:
    """A .zip archive holding one file."""

    def archive(root: Path) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as written:
            written.writestr(member, read(root))
        return buffer.getvalue()

    return archive


def _years(root: Path) -> bytes:
    """A hierarchy file of the licences' years: decades, then twenty-year periods."""
    rows = [
        f"{year};{year // 10 * 10}-{year // 10 * 10 + 9};{year // 20 * 20}-{year // 20 * 20 + 19};*"
        for year in range(1900, 2011)
    ]
    return ("\n".join(rows) + "\n").encode()


def _counted_by_band(root: Path) -> bytes:
    """The licences counted by 5-year birth band and sex, the cells of 16 people or more
    (33 cells): a count table whose count column is ``n``."""
    import pandas as pd  # the build has it; only this page's folder needs it

    licences = pd.read_csv(io.BytesIO(FILES["patenti.csv"](root)))
    born = licences["anno_nascita"] // 5 * 5
    band = born.astype("Int64").astype(str) + "-" + (born + 4).astype("Int64").astype(str)
    cells = licences.assign(nascita=band).groupby(["nascita", "sesso"]).size()
    table = cells[cells >= 16].rename("n").reset_index()
    return table.to_csv(index=False).encode()


#: The files every page's folder holds: name -> the function of the repository's root giving
#: their bytes (the Valle d'Aosta licences and UCI Adult as the package embeds them).
FILES: dict[str, Callable[[Path], bytes]] = {
    "patenti.csv": _embedded("driver_licenses_valle_daosta.csv.xz"),
    "adult.csv": _embedded("adult.csv.xz"),
}
#: The files of one page besides: the licences under their open-data name, a ragged CSV, a
#: text file that is no table.
PAGE_FILES: dict[str, dict[str, Callable[[Path], bytes]]] = {
    "cli.md": {
        "patenti.zip": _zipped("patenti.csv", FILES["patenti.csv"]),
        "toy.csv": _text("year,sex,place,parent\n1950,M,A,P\n1951,F,A,P\n1952,M,B,\n1953,F,A,P\n"),
        "anni.csv": _years,
    },
    "check.md": {
        "driverLicense_ValleAosta.csv": FILES["patenti.csv"],
        "broken.csv": _text("anno_nascita,comune_residenza,sesso\n1950,AOSTA,M\n1951,AOSTA,F,1\n"),
        "README.txt": _text("The licences of Valle d'Aosta, as published.\n"),
        "patenti-per-eta.csv": _counted_by_band,
    },
}

#: The plugin guide's made-up distributions, installed in a folder on ``PYTHONPATH`` (a
#: module and its metadata, which is all entry points need) for the commands of the plugin
#: guide whose ``PANDAS_ANON_PLUGINS`` names one of them (elsewhere they are not installed):
#: ``pandas-anon-geo`` imports geopandas (not installed: a broken plugin), and
#: ``acme-hierarchies`` registers ``example.sex`` too and claims ``eta_anni`` (collisions).
MADE_UP_PLUGINS = {
    "pandas_anon_geo": ("pandas-anon-geo", "0.3.0", "geo", "import geopandas  # noqa: F401\n"),
    "acme_hierarchies": (
        "acme-hierarchies",
        "2.0",
        "acme",
        "import pandas_anon\n"
        "from pandas_anon.hierarchy import Hierarchy\n\n\n"
        "@pandas_anon.hookimpl\n"
        "def register_hierarchies(register):\n"
        "    register('example.sex', Hierarchy(['M', 'F', 'X']))\n"
        "    register('acme.age', lambda data: Hierarchy(['0-49', '50+']), columns=['eta_anni'])\n",
    ),
}


def _install_made_up(site: Path) -> None:
    """Write the made-up plugins as distributions in ``site``."""
    for module, (name, version, entry, code) in MADE_UP_PLUGINS.items():
        (site / f"{module}.py").write_text(code, encoding="utf-8")
        info = site / f"{module}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(
            f"[pandas_anon]\n{entry} = {module}\n", encoding="utf-8"
        )


#: Folders of the repository a page's folder holds: page -> {where in the folder ("." for the
#: folder itself): the repository's folder copied there}. The plugin guide runs the example
#: plugin's tests in a copy of the plugin, as its own repository; the command line's page
#: runs ``init`` on the vaccination excerpt.
PAGE_FOLDERS: dict[str, dict[str, str]] = {
    "plugins.md": {".": "plugins/pandas-anon-example"},
    "cli.md": {"vaccini": "tests/gate/data/covid19-opendata-vaccini"},
}

#: Symbolic links of a page's folder: name -> the file it points to.
LINKS: dict[str, dict[str, str]] = {"cli.md": {"latest.csv": "patenti.csv"}}

#: The pages whose transcripts do not run yet: the plugin guide's show plugins that are not
#: installed here (``acme-hierarchies``, a plugin in the making); every other page's do.
NOT_YET: set[str] = set()


def transcripts(text: str) -> list[tuple[int, list[tuple[str, str]]]]:
    """The transcripts of a page: (line of the block's first line, [(command, expected)])."""
    found = []
    for block in _FENCE.finditer(text):
        body = block.group("body")
        if block.group("info").strip() not in ("text", "console") or not _COMMAND.match(body):
            continue  # not a transcript of pandas-anon (a benchmark's output, a listing)
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        line = text.count("\n", 0, block.start("body")) + 1
        found.append((line, [(command, "\n".join(out) + "\n") for command, out in steps]))
    return found


def run_page(path: Path, work: Path, root: Path) -> list[tuple[int, str]]:
    """Run a page's transcripts in ``work``; the problems, each with its block's line. A
    ``$ cat FILE`` shows a file the page works on: FILE is written with the lines shown."""
    for name, read in {**FILES, **PAGE_FILES.get(path.name, {})}.items():
        (work / name).write_bytes(read(root))
    for name, target in LINKS.get(path.name, {}).items():
        (work / name).symlink_to(target)
    for place, source in PAGE_FOLDERS.get(path.name, {}).items():
        shutil.copytree(root / source, work / place, dirs_exist_ok=True)
    checker = doctest.OutputChecker()
    # unbuffered: errors and output interleave as in a terminal
    environment = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    site = work / ".site-packages"  # the made-up plugins, for the commands naming them
    site.mkdir()
    _install_made_up(site)
    made_up = (
        {entry for _name, _version, entry, _code in MADE_UP_PLUGINS.values()}
        if path.name == "plugins.md"  # the page that makes them up
        else set()
    )
    problems = []
    for line, steps in transcripts(path.read_text(encoding="utf-8")):
        status = 0
        for command, expected in steps:
            shown = re.fullmatch(r"cat (\S+)", command.strip())
            if shown:  # the file as the page shows it
                (work / shown.group(1)).write_text(expected, encoding="utf-8")
            if command.strip() == "echo $?":
                printed = f"{status}\n"
            else:
                allowed = re.match(r"PANDAS_ANON_PLUGINS=(\S*) ", command)
                named = set(allowed.group(1).split(",")) if allowed else set()
                done = subprocess.run(
                    ["bash", "-c", f"{{ {command}\n}} 2>&1"],  # errors after the output
                    cwd=work,
                    env={**environment, "PYTHONPATH": str(site)}
                    if named & made_up
                    else environment,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT,
                )
                status, printed = done.returncode, done.stdout
            if not checker.check_output(expected, printed, _FLAGS):
                problems.append((line, f"$ {command}\nexpected:\n{expected}printed:\n{printed}"))
    return problems


def main() -> None:
    """Run every page's transcripts and print what differs (``python transcripts.py``)."""
    import tempfile

    root = Path(__file__).resolve().parents[2]
    for page in sorted((root / "docs").glob("*.md")):
        with tempfile.TemporaryDirectory() as folder:
            problems = run_page(page, Path(folder), root)
        print(f"{page.name}: {len(problems)} problem(s)")
        for line, problem in problems:
            print(f"  line {line}: {problem}")


if __name__ == "__main__":
    main()
