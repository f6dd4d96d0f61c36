"""ARX 3.9's population uniqueness estimates, recorded for tests/detect/test_population.py.

Runs ARX 3.9.2 (``../shared/tools/arx``, compiled from commit aacd487) through
``arx/ArxPopulation.java`` (compiled here with javac; ``ArxRisk.java``'s figures at full
precision) and prints ARX's Zayatz, Pitman, SNB and Dankar estimates (fractions of the
population, ``None`` where ARX says the model has no estimate), the model Dankar et al.'s rule
chose, ours beside them and the relative differences, for:

- the tests' data sets: Adult with 5 and with 9 quasi-identifiers and Valle d'Aosta (birth
  year, comune, sex, licence category), at sampling fractions 0.01, 0.1 and 0.5. Each table is
  written as ARX reads it (';'-separated, the quasi-identifier columns only, the rows missing
  one of them left out, as ``pandas_anon.risk(..., dropna=True)`` leaves them out), so both
  tools see the same class sizes;
- the tests' small histograms (sizes and counts given to ARX directly), chosen so that every
  branch of Dankar et al.'s rule is taken, and two where ARX's closed-form Jacobian (its
  trigamma) decides that Pitman has no estimate.

``--python`` prints ARX's figures as the Python literals the tests hold (``ARX_DATA``,
``ARX_HISTOGRAMS``). Without Java or the ARX folder the script says so and prints our figures
alone.

    python benchmarks/arx_population_reference.py [--python]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tabulate import tabulate

import pandas_anon
from pandas_anon.datasets import ADULT_HIERARCHY_ATTRIBUTES, load_adult, load_driver_licenses
from pandas_anon.detect.population import MODELS, PopulationUniqueness, population_uniqueness

from harness import ARX

FRACTIONS = (0.01, 0.1, 0.5)
#: The data sets: name -> (loader, quasi-identifier).
DATA = {
    "adult-5": (load_adult, ["age", "sex", "race", "marital-status", "education"]),
    "adult-9": (load_adult, list(ADULT_HIERARCHY_ATTRIBUTES)),
    "valle-daosta": (
        load_driver_licenses,
        ["anno_nascita", "comune_residenza", "sesso", "categoria_patente"],
    ),
}
#: The histograms ("size:count,..." as ArxPopulation reads them) and the population sizes.
HISTOGRAMS = {
    "1:10,2:5,3:2,5:1": (37, 100, 10000),
    "1:50,2:30,3:20,4:10,5:8,10:3": (300, 500, 1000, 5000),
    "1:39,2:1,3:21,5:26": (468,),
    "2:5,3:4": (100,),
    # Pitman's closed form, with ARX's trigamma, ends at a root giving no estimate (or none);
    # the exact Jacobian would find one.
    "1:43,3:179,5:260,18:268,19:222": (45036,),
    "1:114,2:129,9:78,37:255,50:247,60:42": (135719,),
}


def java_ready() -> bool:
    """Whether ARX's folder and a Java compiler and runtime are here; says why not."""
    if not (ARX / "arx-core.jar").exists():
        print(f"ARX is not at {ARX}: its figures are skipped")
        return False
    if shutil.which("java") is None or shutil.which("javac") is None:
        print("Java is not installed: ARX's figures are skipped")
        return False
    return True


def arx_lines(build: Path, *arguments: str) -> list[dict]:
    """ArxPopulation's JSON lines for ``arguments``."""
    out = subprocess.run(
        ["java", "-cp", f"arx-core.jar:lib/*:{build}", "ArxPopulation", *arguments],
        cwd=ARX,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def recorded(line: dict) -> dict:
    """ARX's figures as the tests hold them: the four models and the chosen one (None for a
    sample without uniques, where ARX names its rule itself)."""
    figures = {model: line[model] for model in MODELS}
    figures["model"] = None if line["model"] == "DANKAR" else line["model"].lower()
    return figures


def arx_figures(work: Path) -> tuple[dict, dict]:
    """ARX's figures for :data:`DATA` (by name and fraction) and :data:`HISTOGRAMS` (by
    histogram and population)."""
    here = Path(__file__).resolve().parent / "arx"
    classpath = f"{ARX / 'arx-core.jar'}:{ARX / 'lib'}/*"
    subprocess.run(
        ["javac", "-cp", classpath, "-d", str(work), str(here / "ArxPopulation.java")],
        check=True,
    )
    data = {}
    for name, (load, qid) in DATA.items():
        csv = work / f"{name}.csv"
        load()[qid].dropna().to_csv(csv, sep=";", index=False)
        lines = arx_lines(work, "csv", str(csv), ",".join(qid), *map(str, FRACTIONS))
        for fraction, line in zip(FRACTIONS, lines, strict=True):
            data[name, fraction] = recorded(line)
    histograms = {}
    for spec, populations in HISTOGRAMS.items():
        lines = arx_lines(work, "histogram", spec, *map(str, populations))
        for population, line in zip(populations, lines, strict=True):
            histograms[spec, population] = recorded(line)
    return data, histograms


def class_sizes(spec: str) -> np.ndarray:
    """The class sizes of a histogram written ``size:count,...``."""
    pairs = [tuple(map(int, pair.split(":"))) for pair in spec.split(",")]
    return np.repeat([size for size, _ in pairs], [count for _, count in pairs])


def difference(ours: float | None, theirs: float | None) -> str:
    if ours is None or theirs is None:
        return "both none" if ours is None and theirs is None else "ONE IS NONE"
    return f"{abs(ours - theirs) / abs(theirs):.1e}" if theirs else f"{abs(ours):.1e}"


def rows(label: str, estimate: PopulationUniqueness, arx: dict | None) -> list[list]:
    """Table rows comparing one estimate of ours with ARX's."""
    out = []
    for model in MODELS:
        theirs = arx[model] if arx else None
        mine = estimate.by_model[model]
        out.append([label, model, theirs, mine, difference(mine, theirs) if arx else ""])
    out.append([label, "chosen", arx["model"] if arx else "", estimate.model, ""])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="store_true", help="print the tests' literals")
    args = parser.parse_args()
    data: dict = {}
    histograms: dict = {}
    if java_ready():
        with tempfile.TemporaryDirectory() as work:
            data, histograms = arx_figures(Path(work))
    table = []
    for name, (load, qid) in DATA.items():
        frame = load()
        for fraction in FRACTIONS:
            start = time.perf_counter()
            result = pandas_anon.risk(frame, qid, sampling_fraction=fraction)
            seconds = time.perf_counter() - start
            label = f"{name} f={fraction} ({seconds:.2f} s with the table read)"
            table += rows(label, result.population_estimate, data.get((name, fraction)))
    for spec, populations in HISTOGRAMS.items():
        for population in populations:
            estimate = population_uniqueness(class_sizes(spec), population)
            table += rows(f"{spec} N={population}", estimate, histograms.get((spec, population)))
    print(tabulate(table, headers=["case", "model", "ARX 3.9", "ours", "relative difference"]))
    if args.python and data:
        print("ARX_DATA = {")
        for key, figures in data.items():
            print(f"    {key!r}: {figures!r},")
        print("}")
        print("ARX_HISTOGRAMS = {")
        for key, figures in histograms.items():
            print(f"    {key!r}: {figures!r},")
        print("}")


if __name__ == "__main__":
    sys.exit(main())
