"""Run the benchmarks of run_all on two revisions and print their figures side by side.

Issue 37's last target: no figure gets slower by more than 10 % between two revisions.
Each revision other than the working tree is checked out into a temporary ``git worktree``,
its compiled extensions built by ``pip wheel`` (build isolation: a recent setuptools) and
copied into it. Then, script by script, the "before" tree's script runs, then the "after"
tree's, each in a fresh interpreter, so that both see the same machine conditions. A small
runner records the :class:`harness.Case` objects each script prints (through
``harness.case_table``, which ``harness.measured`` calls too), and the table compares their
``ours`` figures: after / before above :data:`TOLERANCE` is flagged. The last column, the
same ratio for the baseline (code that is the same in both revisions when the script is),
shows how much of a change is the machine's noise.

Usage::

    python benchmarks/compare_revisions.py BEFORE_REV [--after AFTER_REV] [--scripts a,b]
        [--repeat N] [--rows N]

``--after`` defaults to the working tree this script lives in (as it is, uncommitted changes
and in-place extensions included). Each script's output goes to a log file (one per script
and revision, in the directory printed first), which also says where ``pandas_anon`` was
imported from. A script that prints no ``Case`` table (such as ``bench_startup``) is run, but
has no figures to compare.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tabulate import tabulate

#: The working tree holding this script.
REPO = Path(__file__).resolve().parent.parent
#: after / before above this is flagged (10 % slower, or 10 % more memory).
TOLERANCE = 1.10
#: Units of the figures that are flagged when they grow: time and memory.
FLAGGED_UNITS = ("s", "MiB")
#: Run in the tree's benchmarks directory as ``python -c RUNNER JSON_PATH SCRIPT ARGV...``:
#: records every Case that harness.case_table prints (harness.measured calls it too) into
#: JSON_PATH, then runs the script's main(ARGV); exits with 3 if pandas_anon does not come
#: from the tree.
RUNNER = """
import importlib, json, sys
from pathlib import Path
out, script, *argv = sys.argv[1:]
import harness
import pandas_anon
origin = Path(pandas_anon.__file__).resolve()
print(f"pandas_anon imported from {origin}", flush=True)
if harness.ROOT not in origin.parents:
    sys.exit(f"pandas_anon is not the tree's ({harness.ROOT})")
cases = []
printed = harness.case_table
def recording(table_cases):
    cases.extend(table_cases)
    return printed(table_cases)
harness.case_table = recording
try:
    importlib.import_module(script).main(argv)
finally:
    with open(out, "w") as f:
        json.dump([[c.name, c.ours, c.baseline, getattr(c, "unit", "s")] for c in cases], f)
"""


@dataclass
class Run:
    """One script run on one revision: its exit status and the figures it printed."""

    status: int
    #: case name -> (ours, baseline, unit); a repeated name gets " #2", " #3"...
    figures: dict[str, tuple[float, float | None, str]] = field(default_factory=dict)


def git(*args: str) -> str:
    """``git *args`` in the repository; its stdout, stripped (its error ends the run)."""
    done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def run_all_scripts(tree: Path) -> list[str]:
    """The scripts whose ``main`` the tree's ``benchmarks/run_all.py`` calls, in its order."""
    source = (tree / "benchmarks" / "run_all.py").read_text()
    calls = sorted(
        (node.lineno, node.col_offset, node.func.value.id)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "main"
        and isinstance(node.func.value, ast.Name)
    )
    return list(dict.fromkeys(name for _, _, name in calls))


def check_extensions(tree: Path) -> None:
    """Warn about each C source of the package whose compiled module is missing or older."""
    for source in (tree / "pandas_anon").rglob("*.c"):
        built = list(source.parent.glob(f"{source.stem}.*.so"))
        if not built or max(b.stat().st_mtime for b in built) < source.stat().st_mtime:
            print(f"warning: {source.relative_to(tree)} is not compiled (or is newer than its .so)")


@contextmanager
def checkout(rev: str, logs: Path) -> Iterator[Path]:
    """A temporary worktree of ``rev`` with its extensions built; removed on exit.

    The worktree's ``benchmarks/.cache`` is this tree's (a link), so that the synthetic
    tables are not built again; beside it, ``shared`` links to this tree's ``../shared``
    (the data and ARX the benchmarks find there, ``harness.ARX`` and ``harness.ADULT_CSV``).
    """
    parent = Path(tempfile.mkdtemp(prefix="compare_revisions_"))
    tree = parent / "tree"
    cache = tree / "benchmarks" / ".cache"
    try:
        git("worktree", "add", "--detach", str(tree), rev)
        wheels = parent / "wheels"
        build_log = logs / f"build_{rev.replace('/', '_')}.log"
        with open(build_log, "w") as log:
            built = subprocess.run(
                [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels), str(tree)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        if built.returncode:
            raise SystemExit(f"building {rev} failed: see {build_log}")
        for wheel in wheels.glob("*.whl"):
            with zipfile.ZipFile(wheel) as archive:
                for name in archive.namelist():
                    if name.startswith("pandas_anon/") and name.endswith(".so"):
                        archive.extract(name, tree)
        check_extensions(tree)
        if (REPO.parent / "shared").is_dir():
            (parent / "shared").symlink_to(REPO.parent / "shared")
        (REPO / "benchmarks" / ".cache").mkdir(exist_ok=True)
        if cache.parent.is_dir() and not cache.exists():
            cache.symlink_to(REPO / "benchmarks" / ".cache")
        yield tree
    finally:
        if cache.is_symlink():
            cache.unlink()
        if tree.exists():
            git("worktree", "remove", "--force", str(tree))
        shutil.rmtree(parent, ignore_errors=True)


def run_script(tree: Path, script: str, argv: list[str], log: Path) -> Run:
    """Run ``script``'s main(argv) of ``tree`` in a fresh interpreter; its output to ``log``."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = Path(out.name)
    try:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        with open(log, "w") as stream:
            status = subprocess.run(
                [sys.executable, "-c", RUNNER, str(path), script, *argv],
                cwd=tree / "benchmarks",
                env=env,
                stdout=stream,
                stderr=subprocess.STDOUT,
            ).returncode
        run = Run(status)
        for name, ours, baseline, unit in json.loads(path.read_text() or "[]"):
            key, seen = name, 1
            while key in run.figures:
                seen += 1
                key = f"{name} #{seen}"
            run.figures[key] = (ours, baseline, unit)
        return run
    finally:
        path.unlink()


def ratio(after: float | None, before: float | None) -> float | None:
    """after / before, None where either is missing or before is not positive."""
    if after is None or before is None or not before > 0:
        return None
    return after / before


def compare(before: Run, after: Run, script: str) -> list[list[str]]:
    """Table rows of one script: each case of either run, the flag where after grew."""
    rows = []
    for name in {**before.figures, **after.figures}:
        ours_b, base_b, unit = before.figures.get(name, (None, None, ""))
        ours_a, base_a, unit_a = after.figures.get(name, (None, None, unit))
        grown = ratio(ours_a, ours_b)
        flag = grown is not None and grown > TOLERANCE and unit_a in FLAGGED_UNITS
        rows.append(
            [
                script,
                name,
                unit_a,
                "-" if ours_b is None else f"{ours_b:.4g}",
                "-" if ours_a is None else f"{ours_a:.4g}",
                "-" if grown is None else f"{grown:.2f}",
                "SLOWER" if flag else "",
                "-" if (noise := ratio(base_a, base_b)) is None else f"{noise:.2f}",
            ]
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    """Build both revisions, run the scripts interleaved, print the comparison.

    Parameters
    ----------
    argv : list of str, optional
        ``BEFORE_REV [--after REV] [--scripts a,b] [--repeat N] [--rows N]``; None: the
        command line.

    Returns
    -------
    int
        0 (a slower figure or a failed script is reported, not fatal, as in run_all).
    """
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before", help="the revision compared against (a commit, tag, HEAD~5...)")
    p.add_argument("--after", help="the other revision (default: this working tree, as it is)")
    p.add_argument("--scripts", help="comma-separated script names (default: run_all's)")
    p.add_argument("--repeat", type=int, help="passed on to each script")
    p.add_argument("--rows", type=int, help="passed on to each script")
    args = p.parse_args(argv)
    forwarded = [
        item
        for option in ("repeat", "rows")
        if getattr(args, option) is not None
        for item in (f"--{option}", str(getattr(args, option)))
    ]
    logs = Path(tempfile.mkdtemp(prefix="compare_revisions_logs_"))
    print(f"logs in {logs}")
    labels = {"before": args.before, "after": args.after or "working tree"}
    with ExitStack() as stack:
        trees = {"before": stack.enter_context(checkout(args.before, logs))}
        if args.after is None:
            check_extensions(REPO)
            trees["after"] = REPO
        else:
            trees["after"] = stack.enter_context(checkout(args.after, logs))
        for side, tree in trees.items():
            print(
                f"{side}: {labels[side]} ({git('-C', str(tree), 'rev-parse', '--short', 'HEAD')})"
            )
        if args.scripts:
            scripts = args.scripts.split(",")
        else:
            scripts = run_all_scripts(trees["after"])
            scripts += [s for s in run_all_scripts(trees["before"]) if s not in scripts]
        rows: list[list[str]] = []
        notes: list[str] = []
        for script in scripts:
            present = [s for s, t in trees.items() if (t / "benchmarks" / f"{script}.py").exists()]
            if len(present) < 2:
                notes.append(f"{script}: only in {present[0] if present else 'neither'} revision")
                continue
            runs = {}
            for side, tree in trees.items():
                print(f"running {script} ({side})", flush=True)
                runs[side] = run_script(tree, script, forwarded, logs / f"{script}_{side}.log")
            for side, run in runs.items():
                if run.status:
                    notes.append(f"{script}: failed in {side} (exit {run.status}, see its log)")
            if not any(run.figures for run in runs.values()):
                notes.append(f"{script}: prints no Case table, no figures to compare")
            rows += compare(runs["before"], runs["after"], script)
    headers = ["script", "case", "unit", "before (ours)", "after (ours)", "after/before"]
    headers += [f"> {TOLERANCE:g}x", "baseline after/before"]
    print()
    print(tabulate(rows, headers=headers, disable_numparse=True))
    slower = sum(row[6] == "SLOWER" for row in rows)
    compared = sum(row[5] != "-" for row in rows)
    print(f"\n{compared} figures compared, {slower} slower by more than {TOLERANCE - 1:.0%}")
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
