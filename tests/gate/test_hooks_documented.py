"""Every hook of the plugin API has a docstring, a section in docs/plugins.md, and a test."""

from __future__ import annotations

import inspect
from pathlib import Path

import pluggy
import pytest

from pandas_anon.plugins import hookspecs

ROOT = Path(__file__).resolve().parents[2]
_SPECS = pluggy.PluginManager("pandas_anon")
HOOKS = sorted(name for name in dir(hookspecs) if _SPECS.parse_hookspec_opts(hookspecs, name))


def test_the_hookspecs_are_found():
    assert "register_hierarchies" in HOOKS
    _SPECS.add_hookspecs(hookspecs)
    assert sorted(name for name, caller in vars(_SPECS.hook).items() if caller.has_spec()) == HOOKS


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_a_docstring(hook):
    assert len(inspect.getdoc(getattr(hookspecs, hook)) or "") > 100


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_documented(hook):
    assert f"`{hook}`" in (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_tested(hook):
    others = [p for p in (ROOT / "tests").rglob("test_*.py") if p.name != Path(__file__).name]
    assert any(hook in p.read_text(encoding="utf-8") for p in others)
