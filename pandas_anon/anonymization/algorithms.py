"""One interface for every anonymization algorithm, and the registry that names them.

An algorithm is anything with a ``name``, a one-line ``description`` and
``decide(problem) -> Transformation``: it reads the :class:`Problem` (the frame's frequency
set, the quasi-identifier and its hierarchies, the privacy models, the suppression limit,
the metric) and returns the per-combination recoding and suppression it chose
(:class:`~pandas_anon.anonymization.transformation.Transformation`), without touching rows.
``kanon`` and ``anonymize`` do everything around it: choosing the quasi-identifier and the
hierarchies, writing the rows, the report.

Algorithms are registered through the plugin hook ``register_algorithms``
(:mod:`pandas_anon.plugins.hookspecs`); pandas-anon's own are registered the same way by
:mod:`pandas_anon.anonymization.builtin`, and their names are reserved.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pandas_anon.anonymization.transformation import Transformation
from pandas_anon.engine.backends.pandas import Tabulation
from pandas_anon.errors import AnonWarning, InvalidParameterError, warn
from pandas_anon.formatting import plural
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.params import one_of
from pandas_anon.privacy.models import PrivacyModel

if TYPE_CHECKING:
    import pluggy

_NAME = re.compile(r"[a-z][a-z0-9_-]*")


@dataclass(frozen=True)
class Problem:
    """What an algorithm is asked to solve.

    ``tabulation``: the frame read once (the frequency set of ``qid``, then ``sensitive``
    when given, a missing value counted as a value); ``hierarchies``: one per quasi-identifier;
    ``models``: the privacy models every kept class must satisfy, k-anonymity first (``k``);
    ``max_suppression``: the fraction of rows that may be suppressed; ``metric``: what to
    minimize (``"precision"``, ``"dm"`` or a callable, as the algorithm documents);
    ``progress``: show progress on long work (None: when stderr is a terminal).
    """

    tabulation: Tabulation
    qid: tuple[Hashable, ...]
    hierarchies: Mapping[Hashable, Hierarchy]
    models: tuple[PrivacyModel, ...]
    k: int
    max_suppression: float
    metric: str | Callable
    sensitive: Hashable | None = None
    progress: bool | None = None


@runtime_checkable
class Algorithm(Protocol):
    """An anonymization algorithm (see the module)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def decide(self, problem: Problem) -> Transformation: ...


#: The algorithms of the plugin manager they were collected from, with its plugins then.
_cache: tuple[pluggy.PluginManager, set[object], dict[str, Algorithm]] | None = None


def algorithms() -> dict[str, Algorithm]:
    """Every registered algorithm by name: the built-in ones, then the plugins'; collected
    again only when the plugin manager or its plugins change (as named hierarchies are)."""
    from pandas_anon.plugins.manager import get_plugin_manager

    global _cache
    manager = get_plugin_manager()
    plugins = manager.get_plugins()
    if _cache is None or _cache[0] is not manager or _cache[1] != plugins:
        _cache = (manager, plugins, _collect(manager))
    return dict(_cache[2])


def _collect(manager: pluggy.PluginManager) -> dict[str, Algorithm]:
    """The algorithms of the built-in plugin, then of every plugin of ``manager`` (a
    plugin failing to register, or a name registered twice, is warned about and left out)."""
    from pandas_anon.anonymization import builtin  # registered like a plugin
    from pandas_anon.plugins.manager import one_line

    found: dict[str, Algorithm] = {}
    collector = _Collector("builtin")
    builtin.register_algorithms(collector)
    found.update(collector.registered)
    claimed: dict[str, list[str]] = {}
    offered: dict[str, Algorithm] = {}
    for impl in manager.hook.register_algorithms.get_hookimpls():
        collector = _Collector(impl.plugin_name)
        try:  # called as pluggy would, but one plugin at a time
            impl.function(*[{"register": collector}[arg] for arg in impl.argnames])
        except Exception as error:  # a plugin must not break the core, whatever it raises
            warn(
                f"plugin {impl.plugin_name!r} failed to register its algorithms and is "
                f"skipped: {one_line(error)}",
                AnonWarning,
            )
            continue
        for name, algorithm in collector.registered.items():
            claimed.setdefault(name, []).append(impl.plugin_name)
            offered[name] = algorithm
    for name, owners in claimed.items():
        if name in found:
            warn(
                f"plugin {owners[0]!r} registers algorithm {name!r}, a name of pandas-anon's "
                f"own; the built-in one is used",
                AnonWarning,
            )
        elif len(owners) > 1:
            warn(
                f"algorithm {name!r} is registered by {plural(len(owners), 'plugin')} "
                f"({', '.join(owners)}), so neither is used; uninstall one of them",
                AnonWarning,
            )
        else:
            found[name] = offered[name]
    return found


def get_algorithm(name: str) -> Algorithm:
    """The algorithm registered as ``name``; an :class:`InvalidParameterError` listing the
    registered names otherwise."""
    found = algorithms()
    return found[one_of(name, "algo", found)]


class _Collector:
    """The ``register`` callback of one plugin: checks each algorithm it registers."""

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        self.registered: dict[str, Algorithm] = {}

    def __call__(self, algorithm: object) -> None:
        if not isinstance(algorithm, Algorithm):
            raise InvalidParameterError(
                f"register: expected an algorithm (name, description, decide(problem)), got "
                f"{type(algorithm).__name__}"
            )
        name = algorithm.name
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise InvalidParameterError(
                f"register: algorithm name {name!r} must be lowercase letters, digits, _ and -"
            )
        if name in self.registered:
            raise InvalidParameterError(f"register: {name!r} registered twice by the same plugin")
        self.registered[name] = algorithm
