"""Architecture rules that import-linter cannot state (the layers are its contracts, in
pyproject.toml, run by .ci/run):

- no module uses a private name (``_x``) of another module. A private name belongs to the
  module or package defining it; a package's private module (``hierarchy/_levels.py``) is
  shared by that package's modules only;
- the CLI's command modules import the library when a command runs, not when the command line
  starts;
- ``import pandas_anon``, ``pandas-anon --help`` and ``pandas-anon check --help`` import neither
  pandera, pyarrow's CSV reader nor the plugins (each in a fresh interpreter), and the pandera
  checks are registered whichever of pandera and pandas_anon is imported first.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
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


#: Imported by the calls that need them, never by ``import pandas_anon`` nor by ``--help``.
#: (pandas itself may import pyarrow; its CSV reader is ours to import.)
HEAVY = ("pandera", "pyarrow.csv", "pluggy", "pandas_anon.plugins.manager")
#: The library modules ``pandas-anon check --help`` may load besides the CLI's.
LIGHT = {
    "pandas_anon",
    "pandas_anon.accessor",
    "pandas_anon.errors",
    "pandas_anon.gate",
    "pandas_anon.gate.limits",  # check --help shows its defaults (the standard library only)
    "pandas_anon.gate.pandera_hook",
    "pandas_anon.imports",
    "pandas_anon.params",
}


def fresh(code: str, *argv: str) -> dict:
    """Run ``code`` in a fresh interpreter importing this checkout; it prints one JSON line."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE.parent), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_import_loads_no_pandera_csv_reader_or_plugins():
    """``import pandas_anon`` registers df.anon only; a call imports what it needs, and no call
    here loads the plugins' entry points."""
    found = fresh(
        """
import importlib.metadata, json, sys
groups = []
entry_points = importlib.metadata.entry_points
def spy(**selection):
    groups.append(selection.get("group"))
    return entry_points(**selection)
importlib.metadata.entry_points = spy

import pandas as pd
import pandas_anon

heavy = [name for name in sys.argv[1:] if name in sys.modules]
frame = pd.DataFrame({"a": [1, 1, 2, 3], "b": ["x", "x", "y", "z"]})
count = frame.anon.singletons(["a", "b"]).count
print(json.dumps({"heavy": heavy, "count": count, "after": [
    name for name in ("pandera", "pyarrow.csv") if name in sys.modules
], "plugin_groups": [group for group in groups if group == "pandas_anon"]}))
""",
        *HEAVY,
    )
    assert found == {"heavy": [], "count": 2, "after": [], "plugin_groups": []}


@pytest.mark.parametrize("argv", [["check", "--help"], ["--help"]])
def test_help_loads_little(argv):
    found = fresh(
        """
import contextlib, io, json, sys
from pandas_anon.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    status = main(sys.argv[1:])
print(json.dumps({"status": status, "usage": out.getvalue().startswith("usage: pandas-anon"),
                  "modules": sorted(sys.modules)}))
""",
        *argv,
    )
    assert (found["status"], found["usage"]) == (0, True)
    assert [name for name in HEAVY if name in found["modules"]] == []
    library = {m for m in found["modules"] if m.split(".")[0] == "pandas_anon"}
    assert {m for m in library if not m.startswith("pandas_anon.cli")} <= LIGHT


REGISTERED = """
import json, sys
{first}
{second}
pandera = sys.modules["pandera"]
names = ("anon_max_singletons", "anon_k_anonymous", "anon_l_diverse")
print(json.dumps({{
    "registered": [name for name in names if name in pa.Check.REGISTERED_CUSTOM_CHECKS],
    "own_loader": pandera.__loader__ is pandera.__spec__.loader
    and type(pandera.__loader__).__module__.startswith(("importlib", "_frozen_importlib")),
    "awaited": [f.package for f in sys.meta_path
                if type(f).__module__.startswith("pandas_anon")],
}}))
"""


@pytest.mark.parametrize("pandera_first", [True, False], ids=["pandera first", "pandas_anon first"])
def test_pandera_checks_are_registered_in_either_import_order(pandera_first):
    """The checks are on ``pa.Check`` once both packages are imported, whichever comes first;
    pandera keeps its own loader and the finder waiting for it is gone (the one waiting for
    Dask's DataFrame, never imported here, stays)."""
    imports = ["import pandera.pandas as pa", "import pandas_anon"]
    first, second = imports if pandera_first else imports[::-1]
    found = fresh(REGISTERED.format(first=first, second=second))
    assert found == {
        "registered": ["anon_max_singletons", "anon_k_anonymous", "anon_l_diverse"],
        "own_loader": True,
        "awaited": ["dask.dataframe"],
    }


def test_registrations_wait_for_their_package_and_a_failing_one_only_warns(tmp_path, monkeypatch):
    """:func:`pandas_anon.imports.when_imported`: nothing runs before the package is imported;
    then every registration asked for it runs once, in order, right after its import; one
    that raises is an AnonWarning naming it, and the import and the others go on."""
    from pandas_anon.imports import ImportFinder, when_imported

    (tmp_path / "awaited_package.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ran: list[object] = []

    def broken() -> None:
        raise RuntimeError("no such attribute")

    def record() -> None:
        ran.append(sys.modules["awaited_package"].VALUE)

    when_imported("awaited_package", record, "a recorder")
    when_imported("awaited_package", broken, "a broken hook")
    when_imported("awaited_package", record, "a recorder")  # asked again: not added twice
    assert ran == []
    with pytest.warns(pandas_anon.AnonWarning, match="could not register a broken hook"):
        import awaited_package  # noqa: F401
    assert ran == [7]
    assert not any(
        isinstance(f, ImportFinder) and f.package == "awaited_package" for f in sys.meta_path
    )
    when_imported("awaited_package", record, "a recorder")  # imported: runs at once
    assert ran == [7, 7]
    monkeypatch.delitem(sys.modules, "awaited_package")
