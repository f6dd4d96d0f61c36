"""``pre-commit run --all-files`` over 1,000 small CSV and JSON tables, as an open-data
repository runs the gate.

A temporary git repository holds :data:`FILES` tables (half CSV, half JSON records), each
:data:`ROWS` rows resampled from the embedded Valle d'Aosta driving-licence table (its
personal columns, no record number), in folders of 50, with no configuration: the gate's
rule elects a QID per file. Its ``.pre-commit-config.yaml`` runs the ``pandas-anon-singletons``
hook of this checkout's committed ``HEAD`` (pre-commit installs a repository's hooks from a
commit: uncommitted changes are not measured). One untimed run first installs the hook's
environment (cached in ``benchmarks/.cache/pre-commit``); then the best of ``--repeat`` (at most
3) timed runs. The hook runs one process for all the files (``require_serial``): start-up is
paid once, not per file.
Baseline, same run: ``pandas-anon check`` on the same files, called directly (no pre-commit):
the ratio shows what pre-commit adds. Both must find the same files failing.
                                                            pre-commit run <= 15 s
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import harness
from harness import Case, require_same

#: Tables written, and rows in each.
FILES, ROWS = 1_000, 200
#: Target: seconds of ``pre-commit run --all-files`` (hook environment installed).
MAX_SECONDS = 15.0
PERSONAL = ["anno_nascita", "comune_residenza", "provincia_residenza", "sesso", "categoria_patente"]


def write_repository(root: Path, seed: int) -> list[str]:
    """The tables, committed in a new git repository at ``root``; their paths."""
    from pandas_anon.datasets import load_driver_licenses

    licences = load_driver_licenses()[PERSONAL]
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(FILES):
        table = licences.iloc[rng.integers(0, len(licences), ROWS)]
        path = root / f"dati/{i // 50:02d}" / f"tabella_{i:04d}.{'csv' if i % 2 else 'json'}"
        path.parent.mkdir(parents=True, exist_ok=True)
        if i % 2:
            table.to_csv(path, index=False)
        else:
            path.write_text(table.to_json(orient="records", force_ascii=False), encoding="utf-8")
        paths.append(str(path.relative_to(root)))
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=harness.ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {harness.ROOT}\n    rev: {head}\n"
        "    hooks:\n      - id: pandas-anon-singletons\n"
    )
    for command in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(command, cwd=root, check=True)
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.org",
            "commit",
            "-qm",
            "x",
        ],
        cwd=root,
        check=True,
    )
    return paths


def timed(command: list[str], root: Path, env: dict[str, str]) -> tuple[float, str]:
    """Wall time and standard output of ``command`` run in ``root`` (exit 0 or 1)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise harness.Mismatch(f"{command[0]} exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds, done.stdout


def failing(report: str) -> set[str]:
    """The files a JSON report of ``pandas-anon check`` fails."""
    return {f["file"] for f in json.loads(report)["files"] if f["status"] == "fail"}


def measure(args) -> list[Case]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(harness.ROOT / "benchmarks/.cache/pre-commit")}
    repeat = max(1, min(args.repeat, 3))
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        paths = write_repository(root, args.seed)
        hook = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
        direct = [
            str(Path(sys.executable).parent / "pandas-anon"),
            "check",
            *paths,
            "--format",
            "json",
        ]
        timed(hook, root, env)  # installs the hook's environment once
        hooked = [timed(hook, root, env) for _ in range(repeat)]
        runs = [timed(direct, root, env) for _ in range(repeat)]
        ours, baseline = (min(seconds for seconds, _ in r) for r in (hooked, runs))
        failed = failing(runs[0][1])
        named = {path for path in paths if f"{path}: " in hooked[0][1]}  # its reasons' lines
        require_same("files failing", sorted(named), sorted(failed), "the hook's report")
    print(
        f"\n== pre-commit run --all-files over {FILES:,} tables ({FILES // 2} CSV, "
        f"{FILES // 2} JSON) of {ROWS} rows: {len(failed):,} fail, best of {repeat} =="
    )
    return [
        Case(
            f"pre-commit run --all-files, {FILES:,} files vs pandas-anon check on them",
            ours,
            baseline,
            max_seconds=MAX_SECONDS,
        )
    ]


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    return harness.measured(__doc__.splitlines()[0], argv, measure)


if __name__ == "__main__":
    main()
    sys.exit(0)
