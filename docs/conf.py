"""Sphinx configuration of the pandas-anon documentation site.

The pages are the Markdown files of this folder (MyST); the API reference is generated from
the package's numpydoc docstrings (``api.md``). ``.ci/run`` builds the site with warnings as
errors: ``sphinx-build -W --keep-going -b html docs docs/_build/html``.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path
from typing import Any

from numpydoc.docscrape_sphinx import SphinxDocString

import pandas_anon
from pandas_anon.accessor import AnonAccessor

project = "pandas-anon"
author = "pandas-anon developers"
copyright = "2026, pandas-anon developers"  # noqa: A001  (Sphinx's name)
release = version = getattr(pandas_anon, "__version__", "0.1.0")

sys.path.insert(0, str(Path(__file__).with_name("_ext")))

extensions = [
    "executed_examples",  # every example runs when the site is built (docs/_ext)
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinxcontrib.mermaid",  # the architecture page's diagrams (drawn by the browser)
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "examples", "figures/*.py"]

# MyST: headings up to level 3 get anchors, so that the pages' links to sections
# (``kanon.md#performance-and-status``) resolve; ``$`` math is not used.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]
myst_fence_as_directive = ["mermaid"]  # as GitHub renders them

# The API reference: one page per public name, from the docstrings (numpydoc sections).
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters give the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

html_theme = "pydata_sphinx_theme"
html_title = "pandas-anon"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}


# -- the API reference, generated from the package ----------------------------------------

#: Where the generated reference goes (a page of this folder, not kept in git).
REFERENCE = Path(__file__).with_name("reference.rst")


def _accessor_methods() -> list[tuple[str, Any]]:
    """The public methods of ``df.anon``, in the order the class defines them."""
    found: dict[str, Any] = {}
    for klass in reversed(AnonAccessor.__mro__[:-1]):  # the base's methods first
        found.update(
            (name, member)
            for name, member in vars(klass).items()
            if not name.startswith("_") and callable(member)
        )
    return list(found.items())


def _method_entry(name: str, method: Any) -> str:
    """``DataFrame.anon.<name>`` as a Python-domain method, its docstring rendered by
    numpydoc (Parameters, Returns, See Also, References, Examples)."""
    signature = inspect.signature(method)
    shown = signature.replace(  # the types are in the Parameters section
        parameters=[
            p.replace(annotation=inspect.Parameter.empty)
            for p in signature.parameters.values()
            if p.name != "self"
        ],
        return_annotation=inspect.Signature.empty,
    )
    body = str(SphinxDocString(inspect.getdoc(method) or "", config={}))
    lines = [f".. py:method:: DataFrame.anon.{name}{shown}", ""]
    lines += [f"   {line}" if line.strip() else "" for line in body.splitlines()]
    return "\n".join(lines) + "\n"


def _kinds() -> dict[str, list[str]]:
    """The names of ``pandas_anon.__all__`` by kind."""
    kinds: dict[str, list[str]] = {"functions": [], "classes": [], "errors": [], "modules": []}
    for name in sorted(pandas_anon.__all__, key=str.lower):
        value = getattr(pandas_anon, name)
        if inspect.ismodule(value):
            kinds["modules"].append(name)
        elif inspect.isclass(value) and issubclass(value, BaseException):
            kinds["errors"].append(name)
        elif inspect.isclass(value):
            kinds["classes"].append(name)
        elif inspect.isfunction(value):
            kinds["functions"].append(name)
        else:  # hookimpl: pluggy's marker, documented on the plugins page
            kinds["modules"].append(name)
    return kinds


def _autosummary(names: list[str], toctree: bool = True) -> str:
    lines = [".. autosummary::"]
    if toctree:
        lines.append("   :toctree: generated")
    lines.append("")
    lines += [f"   {name}" for name in names]
    return "\n".join(lines) + "\n"


def write_reference(_app: object, _config: object = None) -> None:
    """Write ``reference.rst``: the accessor's methods, then every public name."""
    kinds = _kinds()
    heading = "API reference"
    parts = [
        f"{heading}\n{'=' * len(heading)}\n",
        "Generated from the docstrings of the package: every name of ``pandas_anon.__all__``"
        " and every method of the ``.anon`` accessor.\n",
        ".. currentmodule:: pandas_anon\n",
        "The accessor: ``DataFrame.anon``\n--------------------------------\n",
        "``import pandas_anon`` registers ``.anon`` on pandas DataFrames (and on Dask "
        "DataFrames once Dask is imported). Each method calls the function of the same "
        "name with the frame as its first argument.\n",
        *(_method_entry(name, method) for name, method in _accessor_methods()),
        "Functions\n---------\n",
        _autosummary(kinds["functions"]),
        "Classes\n-------\n",
        _autosummary(kinds["classes"]),
        "Errors and warnings\n-------------------\n",
        _autosummary(kinds["errors"]),
        "Modules and plugin hooks\n------------------------\n",
        _autosummary(kinds["modules"], toctree=False),
    ]
    text = "\n".join(parts)
    if not REFERENCE.exists() or REFERENCE.read_text() != text:
        REFERENCE.write_text(text)


# -- links out of this folder -------------------------------------------------------------

#: A Markdown link to a file of the repository outside ``docs/`` (which GitHub follows but
#: the site does not hold), or to a folder of ``docs/examples``.
_OUTSIDE = re.compile(r"\[([^\]]+)\]\((\.\./[^)#\s]+|examples/[^)#\s]+)\)")


def _repository_paths(_app: object, _docname: str, source: list[str]) -> None:
    """On the site, a link to the benchmarks' README goes to the benchmarks page, and a link
    to another file of the repository becomes its path in the repository."""

    def replace(found: re.Match[str]) -> str:
        text, target = found.group(1), found.group(2)
        if target == "../benchmarks/README.md":
            return f"[{text}](benchmarks.md)"
        return f"{text} (`{target.removeprefix('../')}` in the repository)"

    source[0] = _OUTSIDE.sub(replace, source[0])


def setup(app: Any) -> None:
    app.connect("config-inited", write_reference)
    app.connect("source-read", _repository_paths)
