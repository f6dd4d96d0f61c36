"""The public API's docstrings: every public function documents its parameters and what it
returns (numpydoc sections), and every example in the package's docstrings runs and prints
what it shows."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import pandas_anon

FUNCTIONS = [name for name in pandas_anon.__all__ if inspect.isfunction(getattr(pandas_anon, name))]
MODULES = sorted(
    module.name
    for module in pkgutil.walk_packages(pandas_anon.__path__, prefix="pandas_anon.")
    if not module.name.endswith("__main__")
)


def sections(doc: str) -> set[str]:
    """The numpydoc sections of a docstring: a title line underlined with dashes."""
    lines = doc.splitlines()
    return {
        lines[i].strip()
        for i in range(len(lines) - 1)
        if lines[i].strip() and set(lines[i + 1].strip()) == {"-"}
    }


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_public_function_documents_its_parameters_and_result(name):
    function = getattr(pandas_anon, name)
    found = sections(inspect.getdoc(function) or "")
    takes = [p for p in inspect.signature(function).parameters if p not in ("self",)]
    assert "Returns" in found, f"{name}: no Returns section"
    assert "Examples" in found, f"{name}: no Examples section"
    if takes:
        assert "Parameters" in found, f"{name}: no Parameters section"
        described = documented_parameters(inspect.getdoc(function) or "")
        missing = [p for p in takes if p not in described]
        assert not missing, f"{name}: parameters not described: {missing}"


def documented_parameters(doc: str) -> set[str]:
    """The names the Parameters section describes: its unindented lines, before `` : ``
    (``x, y : int`` describes both; ``**options`` is ``options``)."""
    lines = doc.split("Parameters\n----------\n", 1)[1].splitlines()
    names: set[str] = set()
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            break  # the next section
        if line and not line[0].isspace():
            names |= {n.strip().lstrip("*") for n in line.split(" : ")[0].split(",")}
    return names


def test_the_examined_functions_are_the_api():
    assert {"singletons", "best_qid", "kanon", "anonymize", "ke_anon", "generalize"} <= set(
        FUNCTIONS
    )


@pytest.mark.parametrize("module", MODULES)
def test_every_example_in_the_docstrings_runs(module):
    """``>>>`` examples print what they show (``+SKIP`` ones excepted: drawn figures, long
    runs); the examples import what they use."""
    found = importlib.import_module(module)
    result = doctest.testmod(
        found, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{module}: {result.failed} of {result.attempted} examples fail"
