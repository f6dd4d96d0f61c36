"""Start-up cost: ``import pandas_anon`` and ``pandas-anon check --help`` beside ``import pandas``.

Each command runs in a fresh interpreter with this checkout first on ``PYTHONPATH``; its wall
time (interpreter start and imports included) is the best of ``--repeat`` runs (at least
:data:`MIN_REPEAT`) after one warm-up, which also writes the bytecode caches. The commands:

- ``python -c "import pandas"``: the baseline; pandas-anon cannot start faster than pandas;
- ``python -c "import pandas_anon"``: registers ``df.anon``, nothing else;
- ``pandas-anon check --help`` and ``pandas-anon --help``: what the console script runs
  (``from pandas_anon.cli.main import main``), without the launcher script of the environment
  (a pyenv shim alone costs more than the whole target).

Target: each command at most :data:`MAX_EXTRA` seconds more than ``import pandas``. Also shown:
which of pandera, ``pyarrow.csv``, pluggy and the plugin manager each command leaves in
``sys.modules`` (none should: they are imported by the calls that need them; pandas itself may
import ``pyarrow``), and the largest cumulative entries of ``python -X importtime -c "import
pandas_anon"`` that are pandas-anon's, pandera's, pyarrow's or pluggy's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tabulate import tabulate

import harness

#: Most seconds a command may add to ``import pandas``.
MAX_EXTRA = 0.2
#: Fewest timed runs per command: one start-up is short and noisy.
MIN_REPEAT = 7
#: What the console script ``pandas-anon`` runs (``[project.scripts]`` in pyproject.toml).
CONSOLE = "import sys; from pandas_anon.cli.main import main; sys.exit(main())"
#: (label, arguments after ``python``), the baseline first.
COMMANDS = [
    ("import pandas", ["-c", "import pandas"]),
    ("import pandas_anon", ["-c", "import pandas_anon"]),
    ("pandas-anon check --help", ["-c", CONSOLE, "check", "--help"]),
    ("pandas-anon --help", ["-c", CONSOLE, "--help"]),
]
#: Modules that no command above should import (pandas may import pyarrow itself).
HEAVY = ("pandera", "pyarrow.csv", "pluggy", "pandas_anon.plugins.manager")
#: Prefixes of the importtime entries shown.
OURS = ("pandas_anon", "pandera", "pyarrow", "pluggy")
#: Prints the HEAVY modules in sys.modules at exit, whatever the command does before.
REPORT_AT_EXIT = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('LOADED', *[m for m in {heavy!r} if m in sys.modules], "
    "file=sys.stderr))\n"
)


def child_env() -> dict[str, str]:
    """The environment of every child: this checkout first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(harness.ROOT), env.get("PYTHONPATH")]))
    return env


def run(arguments: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *arguments], env=env, capture_output=True, text=True, check=True
    )


def best_time(arguments: list[str], repeat: int, env: dict[str, str]) -> float:
    """Best wall time of ``python *arguments`` over ``repeat`` runs after one warm-up."""
    run(arguments, env)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run(arguments, env)
        best = min(best, time.perf_counter() - start)
    return best


def loaded(arguments: list[str], env: dict[str, str]) -> list[str]:
    """The :data:`HEAVY` modules in ``sys.modules`` when ``python *arguments`` exits."""
    if arguments[0] != "-c":
        raise ValueError(arguments)
    code = REPORT_AT_EXIT.format(heavy=HEAVY) + arguments[1]
    err = run(["-c", code, *arguments[2:]], env).stderr
    line = next(line for line in err.splitlines() if line.startswith("LOADED"))
    return line.split()[1:]


def importtime(env: dict[str, str], top: int = 12) -> list[tuple[str, int, int]]:
    """The ``top`` largest cumulative importtime entries of ``import pandas_anon`` whose module
    is one of :data:`OURS`, or pandas itself: (module, self us, cumulative us)."""
    err = run(["-X", "importtime", "-c", "import pandas_anon"], env).stderr
    entries = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|")
        module = name.strip()
        if module == "pandas" or module.split(".")[0] in OURS:
            entries.append((module, int(own), int(cumulative)))
    return sorted(entries, key=lambda entry: -entry[2])[:top]


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the tables; return (case, target, verdict) rows for the run_all summary."""
    args = harness.parser(__doc__.splitlines()[0]).parse_args(argv)
    repeat = max(args.repeat, MIN_REPEAT)
    env = child_env()
    print(f"\n== start-up: fresh interpreters, best of {repeat}, checkout {harness.ROOT} ==")
    help_text = run(COMMANDS[2][1], env).stdout
    if "usage: pandas-anon check" not in help_text:
        raise harness.Mismatch(f"pandas-anon check --help printed {help_text[:200]!r}")
    times = {label: best_time(arguments, repeat, env) for label, arguments in COMMANDS}
    baseline = times[COMMANDS[0][0]]
    rows, summary = [], []
    for label, arguments in COMMANDS:
        extra = times[label] - baseline
        heavy = ", ".join(loaded(arguments, env)) or "none"
        if label == COMMANDS[0][0]:
            rows.append([label, f"{times[label]:.3f}", "-", "-", heavy, "baseline", "-"])
            continue
        verdict = harness.verdict(extra <= MAX_EXTRA)
        target = f"<= import pandas + {MAX_EXTRA:g} s"
        ratio = f"{times[label] / baseline:.2f}"
        rows.append([label, f"{times[label]:.3f}", f"{extra:+.3f}", ratio, heavy, target, verdict])
        summary.append((f"start-up: {label}", target, verdict))
    headers = [
        "command (fresh process)",
        "best (s)",
        "- import pandas (s)",
        "ratio (ours / pandas)",
        "heavy modules loaded",
        "target",
        "PASS/FAIL",
    ]
    print(tabulate(rows, headers=headers, disable_numparse=True))
    print('\nlargest cumulative imports of `python -X importtime -c "import pandas_anon"`:')
    print(
        tabulate(
            [
                (module, f"{own / 1000:.1f}", f"{cumulative / 1000:.1f}")
                for module, own, cumulative in importtime(env)
            ],
            headers=["module (ours, pandera, pyarrow, pluggy)", "self (ms)", "cumulative (ms)"],
            disable_numparse=True,
        )
    )
    print("(a module's cumulative time includes pandas and pyarrow when it imports them first)")
    # the same times as cases (against import pandas), for compare_revisions.py to read
    print(
        harness.case_table(
            [
                harness.Case(f"start-up: {label}", times[label], baseline)
                for label, _ in COMMANDS[1:]
            ]
        )
    )
    return summary


if __name__ == "__main__":
    main()
