"""Plugin loading: one pluggy ``PluginManager``, created on first use.

Nothing is loaded at ``import pandas_anon``. The first call that needs plugins (listing or
looking up a hierarchy) creates the manager, registers the built-in plugin, then imports
each installed entry point of group ``pandas_anon`` that the ``PANDAS_ANON_PLUGINS``
allowlist lets through. An entry point that fails to import or to register is skipped and
recorded as broken, with a warning naming it; the rest load normally.
"""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import os
from dataclasses import dataclass

import pluggy

from pandas_anon.errors import AnonWarning, warn
from pandas_anon.plugins import builtin, hookspecs

#: Entry-point group (and pluggy project name) of pandas-anon plugins.
GROUP = "pandas_anon"
#: Comma-separated entry-point names to load; unset: all; empty: none (built-ins only).
ALLOWLIST = "PANDAS_ANON_PLUGINS"
#: Name of the built-in plugin.
BUILTIN = "builtin"
#: Source shown for plugins registered with ``get_plugin_manager().register(...)``.
RUNTIME = "registered at run time"


@dataclass(frozen=True)
class PluginRecord:
    """A plugin and where it came from. ``status``: ``ok``, ``broken``, ``disabled`` (left
    out by the allowlist) or ``not installed`` (named by the allowlist, not found)."""

    name: str
    source: str
    status: str = "ok"
    problem: str = ""


def get_plugin_manager() -> pluggy.PluginManager:
    """The plugin manager, with the built-in and the allowed installed plugins loaded."""
    return _loaded()[0]


def records() -> list[PluginRecord]:
    """Every plugin: built-in, then entry points by name, then those registered at run time."""
    pm, loaded = _loaded()
    known = {record.name for record in loaded if record.status == "ok"}
    extra = [
        PluginRecord(name, RUNTIME)
        for name, plugin in pm.list_name_plugin()
        if plugin is not None and name not in known
    ]
    return loaded + extra


def sources() -> dict[str, str]:
    """Source of each registered plugin, by plugin name."""
    return {record.name: record.source for record in records() if record.status == "ok"}


def reset() -> None:
    """Forget the manager; the next use loads the plugins again and re-reads the allowlist."""
    _loaded.cache_clear()


def one_line(error: BaseException) -> str:
    """``ModuleNotFoundError: No module named 'x'``: an error as one line."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


@functools.cache
def _loaded() -> tuple[pluggy.PluginManager, list[PluginRecord]]:
    pm = pluggy.PluginManager(GROUP)
    pm.add_hookspecs(hookspecs)
    pm.register(builtin, name=BUILTIN)
    return pm, [PluginRecord(BUILTIN, "built-in"), *_load_entry_points(pm)]


def _load_entry_points(pm: pluggy.PluginManager) -> list[PluginRecord]:
    allowed = _allowlist()
    found = sorted(metadata.entry_points(group=GROUP), key=lambda ep: ep.name)
    loaded = []
    for ep in found:
        source = _source(ep)
        if allowed is not None and ep.name not in allowed:
            loaded.append(PluginRecord(ep.name, source, "disabled", f"not in {ALLOWLIST}"))
            continue
        try:
            _register(pm, ep)
        except Exception as error:  # a plugin must not break the core, whatever it raises
            problem = one_line(error)
            loaded.append(PluginRecord(ep.name, source, "broken", problem))
            warn(
                f"plugin {ep.name!r} ({source}) failed to load and is skipped: {problem}",
                AnonWarning,
            )
        else:
            loaded.append(PluginRecord(ep.name, source))
    for name in sorted((allowed or set()) - {ep.name for ep in found} - {BUILTIN}):
        problem = f"named in {ALLOWLIST} but no installed package provides it"
        loaded.append(PluginRecord(name, "", "not installed", problem))
        warn(f"plugin {name!r} {problem}", AnonWarning)
    return loaded


def _register(pm: pluggy.PluginManager, ep: metadata.EntryPoint) -> None:
    """Import and register one entry point, leaving the manager untouched if that fails."""
    if pm.has_plugin(ep.name):
        raise ValueError(f"another plugin is already named {ep.name!r}")
    try:
        plugin = ep.load()
        pm.register(plugin, name=ep.name)
        unknown = unknown_hooks(pm, plugin)
        if unknown:
            raise ValueError(
                f"unknown hook(s) {', '.join(unknown)}; pandas-anon hooks: "
                f"{', '.join(spec_names(pm))}"
            )
    except Exception:
        pm.unregister(name=ep.name)
        raise


def unknown_hooks(pm: pluggy.PluginManager, plugin: object) -> list[str]:
    """Hooks the registered ``plugin`` implements that no hookspec defines (a typo), unless
    marked ``optionalhook``."""
    return sorted(
        caller.name
        for caller in pm.get_hookcallers(plugin) or ()
        if not caller.has_spec()
        and any(impl.plugin is plugin and not impl.optionalhook for impl in caller.get_hookimpls())
    )


def spec_names(pm: pluggy.PluginManager) -> list[str]:
    """The hooks pandas-anon defines, by name."""
    return sorted(name for name in dir(hookspecs) if pm.parse_hookspec_opts(hookspecs, name))


def _allowlist() -> set[str] | None:
    value = os.environ.get(ALLOWLIST)
    if value is None:
        return None
    return {name.strip() for name in value.split(",") if name.strip()}


def _source(ep: metadata.EntryPoint) -> str:
    """``pandas-anon-italy 0.1.0``: the distribution providing the entry point."""
    dist = getattr(ep, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else f"entry point {ep.value}"
