"""Run anonymeter 1.1.0's three evaluators on the tables bench_attacks.py wrote.

Runs in anonymeter's own virtual environment (it pins numpy<1.27 and pyarrow<22, so it cannot
share pandas-anon's), never imports pandas_anon:

    /tmp/anonymeter-venv/bin/python benchmarks/anonymeter_attacks.py SPEC.json

SPEC.json (written by bench_attacks.py) names the directory of the CSV files (original.csv,
control.csv, one <release>.csv per release, read back with the column types given), the
columns, the secret, the linkability attacker's two tables, n_attacks, n_cols,
max_attempts and the seed. Prints one JSON object: per release, per attack, the risk, its
interval and the success rates with their counts; or, asked to repeat one attack on one
release with several seeds, its risks. The singling-out evaluator takes the
seed; the linkability and inference evaluators draw their targets with pandas' sample, seeded
here through numpy's global state (their random baselines use unseeded generators).
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator


def read(path: Path, columns: list[str], text: list[str]) -> pd.DataFrame:
    frame = pd.read_csv(path, usecols=columns, dtype={c: str for c in text})
    return frame[columns]


def figures(evaluator) -> dict:
    results = evaluator.results(confidence_level=0.95)
    risk = results.risk()
    rate = lambda r: None if r is None else [r.value, r.error]  # noqa: E731
    return {
        "risk": risk.value,
        "ci": list(risk.ci),
        "attack": rate(results.attack_rate),
        "baseline": rate(results.baseline_rate),
        "control": rate(results.control_rate),
        "n_success": int(results.n_success),
        "n_baseline": int(results.n_baseline),
        "n_control": None if results.n_control is None else float(results.n_control),
    }


def evaluators(spec: dict, original, released, control, seed: int) -> dict:
    """The three evaluators, unevaluated, for one release and seed."""
    columns, secret = spec["columns"], spec["secret"]
    return {
        "singling out": lambda: SinglingOutEvaluator(
            ori=original,
            syn=released,
            control=control,
            n_attacks=spec["n_attacks"],
            n_cols=spec["n_cols"],
            max_attempts=spec["max_attempts"],
            seed=seed,
        ).evaluate(mode="multivariate"),
        "linkability": lambda: LinkabilityEvaluator(
            ori=original,
            syn=released,
            control=control,
            n_attacks=spec["n_attacks"],
            aux_cols=tuple(spec["link_columns"]),
            n_neighbors=1,
        ).evaluate(n_jobs=1),
        "inference": lambda: InferenceEvaluator(
            ori=original,
            syn=released,
            control=control,
            aux_cols=[c for c in columns if c != secret],
            secret=secret,
            n_attacks=spec["n_attacks"],
        ).evaluate(n_jobs=1),
    }


def main(spec_path: str) -> None:
    """Every attack on every release with the spec's seed; or, with ``repeat`` in the spec
    (``{"release", "attack", "seeds"}``), one attack on one release with each seed."""
    spec = json.loads(Path(spec_path).read_text())
    folder = Path(spec["dir"])
    columns = spec["columns"]
    repeat = spec.get("repeat")
    out: dict = {}
    for release, text in spec["releases"].items():
        if repeat and release != repeat["release"]:
            continue
        original = read(folder / "original.csv", columns, text)
        control = read(folder / "control.csv", columns, text)
        released = read(folder / f"{release}.csv", columns, text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if repeat:
                risks = []
                for seed in repeat["seeds"]:
                    np.random.seed(seed)
                    attack = evaluators(spec, original, released, control, seed)[repeat["attack"]]
                    risks.append(attack().risk().value)
                out["repeat"] = risks
                continue
            np.random.seed(spec["seed"])
            started = time.perf_counter()
            attacks = evaluators(spec, original, released, control, spec["seed"])
            out[release] = {name: figures(run()) for name, run in attacks.items()}
            out[release]["seconds"] = time.perf_counter() - started
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
