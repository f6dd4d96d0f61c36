"""Shared helpers of the benchmark scripts: import path, best-of-N timing, result table.

Importing this module puts the repository root first on ``sys.path``, so the benchmarks
measure the checkout they live in (not some other installed copy of pandas-anon).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tabulate import tabulate  # noqa: E402

#: ARX 3.9 with its driver (``arx_bench``), and ARX's copy of UCI Adult with its hierarchies.
ARX = ROOT.parent / "shared" / "tools" / "arx"
ADULT_CSV = ROOT.parent / "shared" / "data" / "adult"

#: Repeats of a slow baseline (a full best-QID election done with one groupby per subset).
SLOW_REPEAT = 2


class Mismatch(AssertionError):
    """pandas-anon and the plain-pandas baseline disagree: the timing would be meaningless."""


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Run ``fn`` once to warm up, then ``repeat`` times; return the best time and the result."""
    result = fn()
    best = float("inf")
    for _ in range(max(repeat, 1)):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def arx_server() -> Any:
    """A warm ARX (``arx_bench.Arx``, not yet entered), or None, said, without Java or the
    tool."""
    sys.path.insert(0, str(ARX))
    try:
        from arx_bench import Arx, available
    except ImportError:
        print(f"ARX is not at {ARX}: its figures are skipped")
        return None
    if not available():
        print("Java is not installed: ARX's figures are skipped")
        return None
    return Arx()


def require_same(what: str, ours: Any, baseline: Any, reference: str = "plain pandas") -> None:
    """Abort loudly when the two implementations (or ours and a known answer) differ."""
    if ours != baseline:
        raise Mismatch(f"{what}: pandas-anon gives {ours!r}, {reference} gives {baseline!r}")


@dataclass
class Case:
    """One comparison, timed unless ``unit`` says otherwise (``"MiB"``: memory).
    ``min_ratio`` (baseline / ours at least), ``max_seconds`` and ``max_share`` (ours /
    baseline at most) are the targets (None: info)."""

    name: str
    ours: float
    baseline: float | None
    min_ratio: float | None = None
    max_seconds: float | None = None
    max_share: float | None = None
    unit: str = "s"

    @property
    def ratio(self) -> float | None:
        return None if self.baseline is None else self.baseline / self.ours

    @property
    def target(self) -> str:
        if self.min_ratio is not None:
            return f"ratio >= {self.min_ratio:g}"
        if self.max_seconds is not None:
            return f"ours < {self.max_seconds * 1000:g} ms"
        if self.max_share is not None:
            return f"ours <= {self.max_share:g}x baseline"
        return "info"

    @property
    def passed(self) -> bool | None:
        if self.min_ratio is not None:
            return self.ratio is not None and self.ratio >= self.min_ratio
        if self.max_seconds is not None:
            return self.ours < self.max_seconds
        if self.max_share is not None:
            return self.baseline is not None and self.ours <= self.max_share * self.baseline
        return None

    def shown(self, value: float | None) -> str:
        """A value of the case in its unit."""
        if value is None:
            return "-"
        return f"{value:.4f}" if self.unit == "s" else f"{value:,.0f} {self.unit}"

    def summary(self) -> tuple[str, str, str]:
        return self.name, self.target, verdict(self.passed)


def verdict(passed: bool | None) -> str:
    return "-" if passed is None else ("PASS" if passed else "FAIL")


def case_table(cases: Sequence[Case]) -> str:
    """The side-by-side table every script prints (times in seconds unless the value says
    its unit)."""
    rows = [
        [
            c.name,
            c.shown(c.ours),
            c.shown(c.baseline),
            "-" if c.ratio is None else f"{c.ratio:.2f}",
            c.target,
            verdict(c.passed),
        ]
        for c in cases
    ]
    headers = [
        "case",
        "pandas-anon (s)",
        "baseline (s)",
        "ratio (baseline / ours)",
        "target",
        "PASS/FAIL",
    ]
    return tabulate(rows, headers=headers, disable_numparse=True)


def measured(
    description: str,
    argv: Sequence[str] | None,
    measure: Callable[[argparse.Namespace], list[Case]],
    options: Callable[[argparse.ArgumentParser], None] | None = None,
) -> list[tuple[str, str, str]]:
    """A script's ``main``: parse the shared options (and the script's own, which
    ``options`` adds to the parser), run ``measure``, print its cases and how long it all
    took; return the (case, target, verdict) rows for the run_all summary."""
    shared = parser(description)
    if options is not None:
        options(shared)
    args = shared.parse_args(argv)
    started = time.perf_counter()
    cases = measure(args)
    print(case_table(cases))
    print(f"({time.perf_counter() - started:.1f} s)\n")
    return [c.summary() for c in cases]


def parser(description: str) -> argparse.ArgumentParser:
    """Command-line options shared by the scripts."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="timed repeats after one warm-up; the best is kept (default 5; "
        f"slow baselines use at most {SLOW_REPEAT})",
    )
    p.add_argument(
        "--rows",
        type=int,
        default=6_400_000,
        help="rows of the synthetic Lombardia-like table (default 6,400,000)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the synthetic table")
    return p
