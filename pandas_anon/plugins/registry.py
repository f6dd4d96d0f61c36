"""Named hierarchies contributed by plugins (hook ``register_hierarchies``), built-ins included.

Each plugin's hook is called on its own, on first use, with a ``register`` callback of its
own. A plugin whose hook raises is broken: none of its hierarchies is kept, a warning names
it, the other plugins are unaffected. Collisions are never settled by load order: a name
registered by two plugins cannot be used (:func:`get_hierarchy` says which plugins to
choose from), and a column claimed by two names has no default (:func:`claimed_hierarchy`
says so). Both are warned about once and shown by :func:`plugin_status`.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import pandas as pd
import pluggy

from pandas_anon.engine.encoding import factorize
from pandas_anon.errors import (
    AnonWarning,
    HierarchyError,
    InvalidParameterError,
    UnknownNameError,
    warn,
)
from pandas_anon.hierarchy.model import Hierarchy
from pandas_anon.plugins import manager as plugins
from pandas_anon.plugins.hookspecs import Factory

_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)+")
_RESERVED = "builtin."
_CHOOSE = (
    f"uninstall one of them, or load only one with {plugins.ALLOWLIST} "
    "(`pandas-anon plugins` lists them)"
)


@dataclass(frozen=True)
class Registration:
    """One ``register(...)`` call of one plugin."""

    name: str
    hierarchy: Hierarchy | Factory
    plugin: str
    source: str
    description: str = ""
    columns: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "hierarchy" if isinstance(self.hierarchy, Hierarchy) else "factory"

    @property
    def origin(self) -> str:
        return f"plugin {self.plugin} ({self.source})"


def hierarchies() -> pd.DataFrame:
    """List every hierarchy usable by name, the built-in ones and those of the plugins.

    Names in collision (registered by two plugins) are left out: :func:`plugin_status` lists
    them. The plugins are loaded on first use, those the ``PANDAS_ANON_PLUGINS`` allowlist
    lets through when it is set; a broken plugin contributes nothing, and is warned about
    rather than raised. ``pandas-anon plugins`` lists them too.

    Returns
    -------
    pandas.DataFrame
        One row per hierarchy, sorted by name, with the columns ``name``, ``kind``
        (``hierarchy`` or ``factory``), ``plugin``, ``source`` (``built-in`` or the
        distribution and its version), ``description`` and ``claims`` (a tuple of the column
        names it claims).

    Warns
    -----
    AnonWarning
        When the plugins are loaded, as :func:`plugin_status` says.

    See Also
    --------
    get_hierarchy : Build the hierarchy registered under a name.
    plugin_status : Every plugin, and what is wrong with it.

    Examples
    --------
    >>> import pandas_anon
    >>> table = pandas_anon.hierarchies()
    >>> list(table.columns)
    ['name', 'kind', 'plugin', 'source', 'description', 'claims']
    >>> table.set_index("name").loc["builtin.mask", ["kind", "plugin", "source"]].tolist()
    ['factory', 'builtin', 'built-in']
    """
    rows = [
        (r.name, r.kind, r.plugin, r.source, r.description, r.columns)
        for found in _registry().names.values()
        if len(found) == 1
        for r in found
    ]
    columns = ["name", "kind", "plugin", "source", "description", "claims"]
    return pd.DataFrame(rows, columns=columns).sort_values("name", ignore_index=True)


def plugin_status() -> pd.DataFrame:
    """List every plugin with its status, and why it is not working when it is not.

    The plugins are loaded on first use. A plugin is ``broken`` when it fails to load or
    when its hook raises (none of its hierarchies is kept), ``disabled`` when the
    ``PANDAS_ANON_PLUGINS`` allowlist leaves it out, ``not installed`` when the allowlist
    names it but no installed package provides it. A plugin that works may still be part of
    a collision: a name it registers is also registered by another plugin (the name cannot
    be used), or a column it claims is claimed by another name (the column has no default
    hierarchy). ``pandas-anon plugins`` prints the same table.

    Returns
    -------
    pandas.DataFrame
        One row per plugin: the built-in one first, then the installed ones by name, then
        those the allowlist names that are not installed, then those registered at run
        time. Columns ``name``, ``source`` (``built-in``, the distribution and its version,
        or ``registered at run time``), ``status`` (``ok``, ``broken``, ``disabled``,
        ``not installed``) and ``problem``: why it is broken (or disabled, or not
        installed), or the collisions it is part of, separated by semicolons (empty when
        there is nothing to say).

    Warns
    -----
    AnonWarning
        When the plugins are loaded (on first use, and again after they change): for each
        plugin that fails to load or whose hook raises (it is skipped, the others are
        unaffected), each plugin named by ``PANDAS_ANON_PLUGINS`` that is not installed, and
        each collision.

    See Also
    --------
    hierarchies : The hierarchies usable by name.
    get_hierarchy : Build the hierarchy registered under a name.

    Examples
    --------
    >>> import pandas_anon
    >>> status = pandas_anon.plugin_status()
    >>> list(status.columns)
    ['name', 'source', 'status', 'problem']
    >>> status.iloc[0].tolist()
    ['builtin', 'built-in', 'ok', '']
    """
    registry = _registry()
    rows = []
    for record in plugins.records():
        status, problems = record.status, [record.problem] if record.problem else []
        if status == "ok":
            if record.name in registry.broken:
                status = "broken"
                problems.append(registry.broken[record.name])
            problems += [text for involved, text in registry.collisions if record.name in involved]
        rows.append((record.name, record.source, status, "; ".join(problems)))
    return pd.DataFrame(rows, columns=["name", "source", "status", "problem"])


def get_hierarchy(
    name: str, data: pd.Series | None = None, *, frame: pd.DataFrame | None = None
) -> Hierarchy:
    """Build the hierarchy registered as ``name`` by a plugin (or by pandas-anon itself).

    A plugin registers either a :class:`~pandas_anon.Hierarchy`, returned as it is, or a
    factory, called at each call (its results are not cached). A factory is called with
    ``data`` (the column the hierarchy is for, or ``None`` for the canonical hierarchy), and
    with ``frame=`` (the frame holding the column, when known) if it takes that keyword: a
    factory may read another column of the frame, such as each row's province. ``frame`` is
    passed only together with ``data``. An unnamed hierarchy is named ``name``.

    The names usable are those :func:`hierarchies` lists; the specs of
    :func:`pandas_anon.generalize` and the ``hierarchies`` of :func:`pandas_anon.kanon` take
    them as well.

    Parameters
    ----------
    name : str
        The registered name, such as ``"builtin.mask"`` or ``"it.comune"``.
    data : pandas.Series or None, default None
        The column the hierarchy is for, handed to a factory (which may match its spellings
        or cover its values). None: the canonical hierarchy, for the factories that have one
        (the built-in ones are built from a column and need it). Unused for a registered
        Hierarchy.
    frame : pandas.DataFrame or None, default None
        The frame holding ``data``, handed as ``frame=`` to a factory that takes that
        keyword, when ``data`` is given too.

    Returns
    -------
    Hierarchy
        The hierarchy; its name, when it had none, is ``name``.

    Raises
    ------
    UnknownNameError
        No hierarchy is registered as ``name``; the message lists the valid names.
    HierarchyError
        ``name`` is registered by several plugins (the message names them and how to keep
        one); the factory raised (the message names the plugin and the error, and a
        factory's ``HierarchyError`` passes on its ``unmatched``), as the built-in factories
        do without ``data``; or the factory returned something other than a Hierarchy.
    UnhashableValueError
        The factory failed on ``data`` holding values that cannot be compared for equality
        (lists, dicts, sets).

    Warns
    -----
    AnonWarning
        When the plugins are loaded, as :func:`plugin_status` says.

    See Also
    --------
    hierarchies : The hierarchies usable by name.
    plugin_status : Every plugin, and what is wrong with it.
    pandas_anon.generalize : Replace values by their labels at a level of a hierarchy.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> zips = pd.Series(["11058", "11059", "20100"], name="zip")
    >>> masked = pandas_anon.get_hierarchy("builtin.mask", zips)
    >>> masked.generalize(zips, 2).tolist()
    ['110**', '110**', '201**']
    >>> masked.name
    'zip'
    >>> pandas_anon.get_hierarchy("builtin.suppress", pd.Series(["a", "b"])).name
    'builtin.suppress'
    >>> pandas_anon.get_hierarchy("builtin.zip")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    pandas_anon.errors.UnknownNameError: unknown hierarchy name 'builtin.zip'; valid ...
    """
    found = _registry().names.get(name, [])
    if not found:
        raise UnknownNameError(name, hierarchies()["name"], kind="hierarchy name")
    if len(found) > 1:
        raise HierarchyError(
            f"hierarchy name {name!r} is registered by {_and(r.origin for r in found)}; {_CHOOSE}"
        )
    registration = found[0]
    built = registration.hierarchy
    if not isinstance(built, Hierarchy):
        built = _call(registration, built, data, frame)
    if built.name is None:
        built.name = name
    return built


def columns_read(
    source: object, column: Hashable, columns: Sequence[Hashable]
) -> tuple[Hashable, ...]:
    """The other columns of a frame (labelled ``columns``) that the factory registered as
    ``source`` reads to build the hierarchy of ``column``: what its ``reads`` attribute names
    (:mod:`~pandas_anon.plugins.hookspecs`) among ``columns``; none for anything else (a
    hierarchy object, a builder, a name unknown or registered twice, whose errors come when
    the hierarchy is built)."""
    if not isinstance(source, str):
        return ()
    found = _registry().names.get(source, [])
    if len(found) != 1 or isinstance(found[0].hierarchy, Hierarchy):
        return ()
    reads = getattr(found[0].hierarchy, "reads", None)
    if not callable(reads) or not _takes_frame(found[0].hierarchy):
        return ()
    try:
        named = list(reads(list(columns), column))
    except Exception as error:  # a plugin must not break the core, whatever it raises
        raise HierarchyError(
            f"hierarchy {source!r} of {found[0].origin}: its reads() failed: "
            f"{plugins.one_line(error)}"
        ) from error
    return tuple(c for c in columns if c in named and c != column)


def claimed_hierarchy(column: Hashable) -> str | None:
    """The name of the hierarchy claiming ``column`` (compared as in :func:`normalize`), or
    ``None``; :class:`HierarchyError` when several names claim it."""
    if not isinstance(column, str):
        return None
    names = _registry().claims.get(normalize(column), [])
    if len(names) > 1:
        raise HierarchyError(
            f"column {column!r} is claimed by hierarchies {_and(names)}: give "
            f"the hierarchy for it explicitly, or {_CHOOSE}"
        )
    return names[0] if names else None


def normalize(column: str) -> str:
    """How claims are compared: ``" Comune-Residenza "`` -> ``"comune_residenza"``."""
    return re.sub(r"[\s_-]+", "_", column.strip()).casefold()


# -- building the registry ----------------------------------------------------------------------


@dataclass
class _Registry:
    names: dict[str, list[Registration]] = field(default_factory=dict)
    claims: dict[str, list[str]] = field(default_factory=dict)  # normalized column -> names
    broken: dict[str, str] = field(default_factory=dict)  # plugin -> its hook's error
    collisions: list[tuple[set[str], str]] = field(default_factory=list)  # plugins, message

    def add(self, registration: Registration) -> None:
        self.names.setdefault(registration.name, []).append(registration)
        for column in registration.columns:
            names = self.claims.setdefault(normalize(column), [])
            if registration.name not in names:
                names.append(registration.name)

    def find_collisions(self) -> None:
        self.collisions = [
            (
                {r.plugin for r in found},
                f"hierarchy name {name!r} is registered by {_and(r.origin for r in found)}: "
                f"it cannot be used",
            )
            for name, found in self.names.items()
            if len(found) > 1
        ] + [
            (
                {r.plugin for name in names for r in self.names[name]},
                f"column {column!r} is claimed by {_and(names)}: it has no default hierarchy",
            )
            for column, names in self.claims.items()
            if len(names) > 1
        ]


class _Collector:
    """The ``register`` callback of one plugin: checks each call and keeps it aside until the
    plugin's hook has returned."""

    def __init__(self, plugin: str, source: str) -> None:
        self.plugin, self.source = plugin, source
        self.registered: dict[str, Registration] = {}

    def __call__(
        self,
        name: str,
        hierarchy: Hierarchy | Factory,
        *,
        description: str = "",
        columns: Sequence[str] = (),
    ) -> None:
        problems = registration_problems(
            name, hierarchy, columns, plugin=self.plugin, registered=self.registered
        )
        if problems:
            raise InvalidParameterError(problems[0])
        self.registered[name] = Registration(
            name, hierarchy, self.plugin, self.source, str(description), tuple(columns)
        )


def registration_problems(
    name: object,
    hierarchy: object,
    columns: object = (),
    *,
    plugin: str,
    registered: Collection[str] = (),
) -> list[str]:
    """What is wrong with one ``register(name, hierarchy, columns=columns)`` call of
    ``plugin`` (``registered``: the names it registered before), each problem with its fix;
    empty when the call is valid. ``register`` raises the first as
    :class:`~pandas_anon.errors.InvalidParameterError`; :mod:`pandas_anon.testing` lists all."""
    problems = []
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        problems.append(
            f"register: name {name!r} is not a namespaced name like 'it.comune' (lowercase "
            f"letters, digits, _ and -, parts joined by dots)"
        )
    elif name.startswith(_RESERVED) and plugin != plugins.BUILTIN:
        problems.append(f"register: {name!r}: the {_RESERVED} namespace is reserved to pandas-anon")
    if isinstance(name, str) and name in registered:
        problems.append(f"register: {name!r} registered twice by the same plugin")
    if not isinstance(hierarchy, Hierarchy) and not callable(hierarchy):
        problems.append(
            f"register: {name!r}: expected a Hierarchy or a factory "
            f"function, got {type(hierarchy).__name__}"
        )
    if (
        isinstance(columns, str)
        or not isinstance(columns, Iterable)
        or not all(isinstance(c, str) and c.strip() for c in columns)
    ):
        problems.append(f"register: {name!r}: columns must be a list of non-empty column names")
    return problems


def registrations() -> list[Registration]:
    """Every ``register(...)`` call of the loaded plugins that are not broken, by name, those
    in collision included (:func:`hierarchies` leaves them out)."""
    return [r for found in _registry().names.values() for r in found]


_cache: tuple[pluggy.PluginManager, set[object], _Registry] | None = None


def _registry() -> _Registry:
    """The registry of the current plugin manager, rebuilt when its plugins change."""
    global _cache
    pm = plugins.get_plugin_manager()
    if _cache is None or _cache[0] is not pm or _cache[1] != pm.get_plugins():
        _cache = (pm, pm.get_plugins(), _build(pm))
    return _cache[2]


def _build(pm: pluggy.PluginManager) -> _Registry:
    registry, sources = _Registry(), plugins.sources()
    for impl in pm.hook.register_hierarchies.get_hookimpls():
        source = sources.get(impl.plugin_name, plugins.RUNTIME)
        arguments = {"register": _Collector(impl.plugin_name, source)}
        try:  # called as pluggy would, but one plugin at a time
            impl.function(*[arguments[arg] for arg in impl.argnames])
        except Exception as error:  # a plugin must not break the core, whatever it raises
            registry.broken[impl.plugin_name] = plugins.one_line(error)
            warn(
                f"plugin {impl.plugin_name!r} ({source}) failed to register its hierarchies and "
                f"is skipped: {plugins.one_line(error)}",
                AnonWarning,
            )
            continue
        for registration in arguments["register"].registered.values():
            registry.add(registration)
    registry.find_collisions()
    for _, message in registry.collisions:
        warn(f"{message}; {_CHOOSE}", AnonWarning)
    return registry


def _call(
    registration: Registration,
    factory: Factory,
    data: pd.Series | None,
    frame: pd.DataFrame | None,
) -> Hierarchy:
    name = registration.name
    try:
        if frame is not None and data is not None and _takes_frame(factory):
            # the Factory type names the data alone; this one was checked to take frame=
            built = factory(data, frame=frame)  # type: ignore[call-arg]
        else:
            built = factory(data)
    except Exception as error:
        if isinstance(error, TypeError) and data is not None:
            factorize(data)  # lists or dicts in the column: UnhashableValueError, by name
        raise HierarchyError(
            f"hierarchy {name!r} of {registration.origin} could not be built: "
            f"{plugins.one_line(error)}",
            unmatched=error.unmatched if isinstance(error, HierarchyError) else None,
        ) from error
    if not isinstance(built, Hierarchy):
        raise HierarchyError(
            f"hierarchy {name!r} of {registration.origin}: the factory returned "
            f"{type(built).__name__}, not a Hierarchy"
        )
    return built


def _takes_frame(factory: Factory) -> bool:
    """Whether ``factory`` takes the keyword ``frame``."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a callable without a signature: called with data only
        return False
    found = parameters.get("frame")
    return found is not None and found.kind in (found.KEYWORD_ONLY, found.POSITIONAL_OR_KEYWORD)


def _and(names: Iterable[str]) -> str:
    items = list(names)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)
