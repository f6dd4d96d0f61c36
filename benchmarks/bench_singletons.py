"""Singletons on (anno_nascita, comune_residenza, sesso) of the 6.4M-row Lombardia-like table.

Time: ``pandas_anon.singletons(df, qid).count`` against ``df.groupby(qid, sort=False).size()``
followed by ``(sizes == 1).sum()`` (target: at least as fast), and ``.mask`` against
``~df.duplicated(qid, keep=False)`` on complete rows (informational).

Memory: a fresh subprocess (this script with ``--memory-child``) loads the cached frame,
resets the kernel's peak-RSS counter (``echo 5 > /proc/self/clear_refs``, Linux >= 4.0),
reads VmRSS, runs the call and reads VmHWM. ``VmHWM_after - VmRSS_before`` is what the call
added on top of the loaded frame. It is exact when the reset works; when it does not, VmHWM
still holds the loading peak, so the figure is an upper bound (never an underestimate).
Target: at most 3 times ``df.memory_usage(deep=True).sum()``.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import numpy as np
import pandas as pd
from tabulate import tabulate

import pandas_anon

import harness
from harness import Case, best_of, require_same
from synthetic import QID, lombardia_like

MAX_PEAK_PER_FRAME = 3.0


def pandas_count(df: pd.DataFrame) -> tuple[int, int]:
    """Singletons and distinct combinations with plain pandas (groupby drops rows missing a
    key, like dropna=True)."""
    sizes = df.groupby(QID, sort=False).size()
    return int((sizes == 1).sum()), len(sizes)


def ours_count(df: pd.DataFrame) -> tuple[int, int]:
    result = pandas_anon.singletons(df, QID)
    return result.count, result.distinct


def pandas_mask(df: pd.DataFrame) -> pd.Series:
    """Singleton rows with plain pandas: not duplicated on the QID, and complete."""
    return ~df.duplicated(QID, keep=False) & df[QID].notna().all(axis=1)


def ours_mask(df: pd.DataFrame) -> pd.Series:
    return pandas_anon.singletons(df, QID).mask


def _status_kib(field: str) -> int:
    """A ``/proc/self/status`` field (VmRSS, VmHWM) in KiB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def memory_child(rows: int, seed: int, which: str) -> dict:
    """Run in a fresh process: peak RSS added by one call, over the frame's own size."""
    df = lombardia_like(rows, seed)
    frame_bytes = int(df.memory_usage(deep=True).sum())
    gc.collect()
    hwm_after_load = _status_kib("VmHWM")
    reset = _reset_peak()
    before = _status_kib("VmRSS")
    if which == "ours":
        result = pandas_anon.singletons(df, QID)
        answer = (result.count, int(result.mask.sum()))
    else:
        answer = (pandas_count(df)[0], int(pandas_mask(df).sum()))
    peak = _status_kib("VmHWM")
    return {
        "which": which,
        "frame_bytes": frame_bytes,
        "hwm_after_load_kib": hwm_after_load,
        "reset": reset,
        "rss_before_kib": before,
        "hwm_after_kib": peak,
        "answer": answer,
    }


def run_memory_child(rows: int, seed: int, which: str) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--memory-child",
            which,
            "--rows",
            str(rows),
            "--seed",
            str(seed),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def peak_ratio(r: dict) -> float:
    """(VmHWM after - VmRSS before) / frame bytes, from a memory child's report."""
    return (r["hwm_after_kib"] - r["rss_before_kib"]) * 1024 / r["frame_bytes"]


def memory_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        added = (r["hwm_after_kib"] - r["rss_before_kib"]) * 1024
        ratio = peak_ratio(r)
        ours = r["which"] == "ours"
        rows.append(
            [
                "singletons + .mask" if ours else "groupby.size + duplicated (baseline)",
                f"{r['frame_bytes'] / 2**20:,.1f}",
                f"{r['rss_before_kib'] / 1024:,.1f}",
                f"{r['hwm_after_kib'] / 1024:,.1f}",
                f"{added / 2**20:,.1f}",
                f"{ratio:.2f}",
                "yes" if r["reset"] else "no (upper bound)",
                f"<= {MAX_PEAK_PER_FRAME:g}" if ours else "info",
                ("PASS" if ratio <= MAX_PEAK_PER_FRAME else "FAIL") if ours else "-",
            ]
        )
    headers = [
        "case (fresh process)",
        "frame (MiB)",
        "RSS before (MiB)",
        "peak after (MiB)",
        "peak - before (MiB)",
        "(peak - before) / frame",
        "peak reset",
        "target",
        "PASS/FAIL",
    ]
    return tabulate(rows, headers=headers, disable_numparse=True)


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    """Print the tables; return (case, target, verdict) rows for the run_all summary."""
    p = harness.parser(__doc__.splitlines()[0])
    p.add_argument(
        "--memory-child",
        choices=["ours", "baseline"],
        help="internal: measure one call in this fresh process, print JSON",
    )
    args = p.parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_child(args.rows, args.seed, args.memory_child)))
        return []

    df = lombardia_like(args.rows, args.seed)
    print(
        f"\n== singletons on {tuple(QID)}: {len(df):,} rows "
        f"(Lombardia-like, seed {args.seed}), best of {args.repeat} =="
    )
    t_ours, (ours, distinct) = best_of(lambda: ours_count(df), args.repeat)
    t_base, base = best_of(lambda: pandas_count(df), args.repeat)
    require_same("(singletons, distinct combinations)", (ours, distinct), base)
    t_mask, mask = best_of(lambda: ours_mask(df), args.repeat)
    t_bmask, bmask = best_of(lambda: pandas_mask(df), args.repeat)
    require_same("singleton mask", np.array_equal(mask.to_numpy(), bmask.to_numpy()), True)
    require_same("mask total", int(mask.sum()), ours)
    print(f"answer: {ours:,} singletons, {distinct:,} distinct combinations (both agree)")
    cases = [
        Case("singletons(...).count vs groupby.size()", t_ours, t_base, min_ratio=1.0),
        Case("singletons(...).mask vs ~duplicated(keep=False)", t_mask, t_bmask),
    ]
    print(harness.case_table(cases))

    results = [run_memory_child(args.rows, args.seed, w) for w in ("ours", "baseline")]
    for r in results:
        require_same(f"{r['which']} answer in the memory child", tuple(r["answer"]), (ours, ours))
    print("\npeak memory of one call in a fresh process (VmHWM after - VmRSS before):")
    print(memory_table(results))
    memory = (
        "singletons + .mask: peak memory / frame",
        f"<= {MAX_PEAK_PER_FRAME:g}",
        harness.verdict(peak_ratio(results[0]) <= MAX_PEAK_PER_FRAME),
    )
    return [c.summary() for c in cases] + [memory]


if __name__ == "__main__":
    main()
