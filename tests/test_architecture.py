"""Architecture rules that import-linter cannot state (the layers are its contracts, in
pyproject.toml, run by .ci/run):

- no module uses a private name (``_x``) of another module. A private name belongs to the
  module or package defining it; a package's private module (``hierarchy/_levels.py``) is
  shared by that package's modules only;
- the CLI's command modules import the library when a command runs, not when the command line
  starts.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pandas_anon

PACKAGE = Path(pandas_anon.__file__).parent


def module_name(path: Path) -> str:
    """``pandas_anon/hierarchy/model.py`` -> ``pandas_anon.hierarchy.model`` (a package's
    ``__init__.py`` is the package)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def foreign_private(importer: str, target: str) -> bool:
    """Whether the dotted ``target`` (``pandas_anon.x._y``) reaches a private name that belongs
    to a module or package other than ``importer`` and its parents."""
    parts = target.split(".")
    for i, part in enumerate(parts[1:], start=1):
        owner = ".".join(parts[:i])
        if is_private(part) and not (importer == owner or importer.startswith(owner + ".")):
            return True
    return False


def private_uses(source: str, importer: str, is_package: bool = False) -> list[str]:
    """Every use in ``source`` (the module ``importer``) of another module's private name:
    ``from pandas_anon.x import _y``, ``import pandas_anon.x._y``, and ``m._y`` where ``m`` is
    bound to a pandas_anon module; each as ``line N: pandas_anon.x._y``."""
    tree = ast.parse(source)
    package = importer if is_package else importer.rpartition(".")[0]
    modules: dict[str, str] = {}  # local name -> the pandas_anon module it is bound to
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the importer's package
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if not base.startswith("pandas_anon"):
                continue
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.append((node.lineno, target))
                modules[alias.asname or alias.name] = target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("pandas_anon"):
                    found.append((node.lineno, alias.name))
                    bound = alias.asname or alias.name.partition(".")[0]
                    modules[bound] = alias.name if alias.asname else "pandas_anon"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain = [node.attr]
            value = node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in modules:
                found.append((node.lineno, ".".join([modules[value.id], *reversed(chain)])))
    return sorted(
        {f"line {line}: {target}" for line, target in found if foreign_private(importer, target)}
    )


@pytest.mark.parametrize(
    ("importer", "source", "flagged"),
    [
        ("pandas_anon.cli.main", "from pandas_anon.cli.anonymize import _same_file", True),
        ("pandas_anon.detect.figures", "from pandas_anon.hierarchy._levels import build", True),
        ("pandas_anon.hierarchy.numeric", "from pandas_anon.hierarchy._levels import build", False),
        ("pandas_anon.hierarchy.numeric", "from ._levels import build", False),
        ("pandas_anon.detect.figures", "from ..hierarchy._levels import build", True),
        ("pandas_anon.cli.main", "import pandas_anon.plugins.manager as m\nm._loaded()", True),
        ("pandas_anon.cli.main", "from pandas_anon.plugins import manager\nmanager._loaded", True),
        (
            "pandas_anon.cli.main",
            "import pandas_anon.plugins.manager\npandas_anon.plugins._x",
            True,
        ),
        ("pandas_anon.cli.main", "from pandas_anon import __version__", False),
        ("pandas_anon", "from pandas_anon import accessor as _accessor", False),
        ("pandas_anon.cli.main", "import numpy as np\nnp._NoValue", False),
        ("pandas_anon.engine.keys", "def f(frame):\n    return frame._mgr", False),
    ],
)
def test_the_rule_sees_private_names_of_other_modules(importer, source, flagged):
    assert bool(private_uses(source, importer)) is flagged


def test_no_module_uses_a_private_name_of_another_module():
    found = [
        f"{module_name(path)}, {use}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for use in private_uses(
            path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py"
        )
    ]
    assert not found, (
        "private names used outside their module (make the name public, with a docstring, "
        "if it is shared; else move the code that needs it):\n" + "\n".join(found)
    )


def top_level_imports(tree: ast.Module) -> list[str]:
    """The pandas_anon modules a module imports when it is imported (not inside a function,
    nor under ``if TYPE_CHECKING:``)."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pandas_anon"):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("pandas_anon")]
    return found


def test_commands_import_the_library_when_they_run():
    """``pandas-anon --help`` and ``pandas-anon check --help`` load little: a command module
    imports the library inside the functions that build its options or run it."""
    light = {"pandas_anon", "pandas_anon.errors"}  # the version; errors import nothing

    def heavy(path: Path) -> list[str]:
        imported = top_level_imports(ast.parse(path.read_text(encoding="utf-8")))
        return [
            m for m in imported if m not in light and m.split(".")[:2] != ["pandas_anon", "cli"]
        ]

    found = {path.name: heavy(path) for path in sorted((PACKAGE / "cli").glob("*.py"))}
    assert {name: modules for name, modules in found.items() if modules} == {}
