"""A kit for plugin authors: check a plugin's hierarchies in its own test suite or CI.

:func:`check_plugin` runs the plugin's ``register_hierarchies`` hook on its own (the installed
plugins untouched), builds every hierarchy it registers and returns a :class:`PluginCheck`
listing what is wrong; :func:`assert_plugin` does the same and raises
:class:`PluginCheckError` (an ``AssertionError``) listing every problem, for a pytest test::

    import pandas as pd
    import pandas_anon_example
    from pandas_anon.testing import assert_plugin

    def test_plugin():
        assert_plugin(pandas_anon_example, samples={"example.age": pd.Series([34, 51])})

Plain functions rather than a pytest plugin (no fixture to learn, and the same call works in
any test runner, a notebook or ``pandas-anon plugins --check``).

The checks, each named by the ``check`` of the problems it finds (``skip=`` leaves some out):

- ``register``: the hook runs, every ``register(...)`` call is valid (a namespaced name,
  ``builtin.`` left to pandas-anon, a Hierarchy or a factory, ``columns`` a list of names);
- ``name``: no installed plugin registers the same name, or uses the same namespace;
- ``claims``: no column claimed by two of the plugin's hierarchies or by an installed plugin
  (claims compared as pandas-anon compares them: case, spaces, ``-`` and ``_`` ignored);
- ``canonical``: a factory called with ``None`` returns a Hierarchy (the canonical one);
- ``factory``: a factory called with a sample column returns a Hierarchy without changing
  the column;
- ``coverage``: the hierarchy built for a sample column places at least ``min_coverage`` of
  its distinct values (the problem counts them: it never shows a value);
- ``levels``: each level is a function of the level below (the hierarchy is a tree), the
  number of labels never grows from a level to the next, the top level has one label;
- ``labels``: a label written at two levels stands for the same values at both (otherwise a
  generalized column mixing levels is ambiguous);
- ``time``: the hook and each factory call take at most ``max_seconds``
  (:data:`MAX_SECONDS` unless given): pandas-anon calls factories when a spec uses them.

May import: the plugins, the hierarchies, the engine and the foundation modules.
"""

from __future__ import annotations

import importlib.metadata as metadata
import time
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd
import pluggy

from pandas_anon import formatting as fmt
from pandas_anon.engine.encoding import factorize
from pandas_anon.errors import (
    AnonError,
    AnonWarning,
    HierarchyError,
    InvalidParameterError,
    UnknownNameError,
)
from pandas_anon.hierarchy.model import Hierarchy, require_hierarchy
from pandas_anon.params import known_options
from pandas_anon.plugins import hookspecs
from pandas_anon.plugins import manager as plugins
from pandas_anon.plugins.registry import (
    Registration,
    normalize,
    registration_problems,
    registrations,
)

#: Default limit, in seconds, on the hook and on each factory call (``max_seconds=``).
MAX_SECONDS = 2.0
#: The checks, in the order they run; ``skip=`` takes any of them.
CHECKS = (
    "register",
    "name",
    "claims",
    "canonical",
    "factory",
    "coverage",
    "levels",
    "labels",
    "time",
)
#: How many labels a problem quotes before counting the rest.
_LISTED = 3


class PluginCheckError(AnonError, AssertionError):
    """A plugin failed :func:`assert_plugin`; ``check`` is the :class:`PluginCheck`, whose
    ``problems`` the message lists one per line."""

    def __init__(self, check: PluginCheck) -> None:
        self.check = check
        lines = [f"- {problem}" for problem in check.problems]
        super().__init__(
            f"plugin {check.plugin} has {fmt.plural(len(check.problems), 'problem')}:\n"
            + "\n".join(lines)
        )


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a plugin: the ``check`` that found it (one of :data:`CHECKS`),
    the ``hierarchy`` it is about (``""`` for the plugin as a whole) and a ``message``
    saying what is wrong and how to fix it (counts and names, never a sample's values)."""

    check: str
    hierarchy: str
    message: str

    def __str__(self) -> str:
        where = f"{self.hierarchy}: " if self.hierarchy else ""
        return f"[{self.check}] {where}{self.message}"


@dataclass(frozen=True, repr=False)
class PluginCheck:
    """What :func:`check_plugin` found: the ``problems`` (empty when the plugin passed) and a
    table of the ``hierarchies`` it registers, one row each: ``name``, ``kind``
    (``hierarchy`` or ``factory``), ``claims``, ``levels`` (labels per level of the
    canonical hierarchy, or of the sample's), ``seconds`` (its slowest factory call),
    ``coverage`` (share of the sample's distinct values placed; NaN without a sample) and
    ``unplaced`` (how many are not)."""

    plugin: str
    problems: tuple[Problem, ...]
    hierarchies: pd.DataFrame
    max_seconds: float
    skipped: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """Whether no check found a problem."""
        return not self.problems

    def problems_of(self, check: str) -> list[Problem]:
        """The problems found by one check (a name of :data:`CHECKS`)."""
        return [p for p in self.problems if p.check == check]

    def raise_on_problems(self) -> PluginCheck:
        """Raise :class:`PluginCheckError` listing every problem; ``self`` when none."""
        if self.problems:
            raise PluginCheckError(self)
        return self

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the plugin, whether it passed, its problems and its hierarchies."""
        table = self.hierarchies.assign(claims=self.hierarchies["claims"].map(list))
        table = table.astype(object).where(table.notna(), None)
        return {
            "plugin": self.plugin,
            "ok": self.ok,
            "max_seconds": self.max_seconds,
            "skipped": list(self.skipped),
            "problems": [vars(p) for p in self.problems],
            "hierarchies": table.to_dict("records"),
        }

    def __repr__(self) -> str:
        shown = self.hierarchies.assign(
            claims=self.hierarchies["claims"].map(", ".join),
            coverage=self.hierarchies["coverage"].map(
                lambda c: "" if pd.isna(c) else fmt.percent(c, 1)
            ),
            # each count as a whole number (pandas 2.2 maps an Int64 column as floats: "2.0")
            unplaced=self.hierarchies["unplaced"].map(
                lambda n: "" if pd.isna(n) else fmt.count(int(n))
            ),
            seconds=self.hierarchies["seconds"].map(lambda s: f"{s:.3f}"),
        )
        verdict = "ok" if self.ok else fmt.plural(len(self.problems), "problem")
        text = fmt.render(
            f"Plugin check: {self.plugin}",
            [("result", verdict), ("time limit", f"{self.max_seconds:g} s")],
            ("", shown),
        )
        return "\n".join([text, *(f"- {p}" for p in self.problems)])


def check_plugin(
    plugin: object,
    *,
    samples: Mapping[str, Iterable[object]] | None = None,
    name: str | None = None,
    min_coverage: float = 1.0,
    max_seconds: float = MAX_SECONDS,
    installed: bool = True,
    skip: Collection[str] = (),
) -> PluginCheck:
    """Check a plugin's hierarchies; list every problem instead of stopping at the first.

    Parameters
    ----------
    plugin : module, object or str
        The plugin (what its entry point names: a module or an object holding
        ``@pandas_anon.hookimpl`` functions), or the name of an installed entry point of
        group ``pandas_anon``.
    samples : mapping of str to Series, optional
        A sample column for some of its hierarchies, by registered name: each factory is
        called with it, and the hierarchy must place ``min_coverage`` of its values.
    name : str, optional
        The plugin's name in messages and for ``builtin.`` (default: the entry point's name,
        or the module's).
    min_coverage : float, default 1.0
        Least share of a sample's distinct non-missing values that must be placed.
    max_seconds : float, default :data:`MAX_SECONDS`
        Limit on the hook and on each factory call (a slow CI runner may need more).
    installed : bool, default True
        Compare names and claims with the installed plugins (those ``PANDAS_ANON_PLUGINS``
        lets load), this plugin left out.
    skip : collection of str
        Checks not to run, names from :data:`CHECKS`.

    Returns
    -------
    PluginCheck
        ``ok``, ``problems`` and the ``hierarchies`` table.

    Raises
    ------
    InvalidParameterError
        An argument is out of range: an unknown check in ``skip``, a sample for a name the
        plugin does not register, ``min_coverage`` outside 0..1, ``max_seconds`` not positive.
    UnknownNameError
        ``plugin`` is a name no installed entry point has.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_anon
    >>> from pandas_anon.hierarchy import Hierarchy
    >>> class Plugin:
    ...     @pandas_anon.hookimpl
    ...     def register_hierarchies(self, register):
    ...         register("doc.sex", Hierarchy(["M", "F"]), columns=["doc_sex"])
    >>> result = check_plugin(Plugin(), name="doc", samples={"doc.sex": pd.Series(["F", "X"])})
    >>> result.ok
    False
    >>> print(result.problems[0].message)  # doctest: +ELLIPSIS
    1 of 2 distinct values of the sample (1 row) not placed: coverage 50.0 %, ...
    """
    unknown = sorted(set(skip) - set(CHECKS))
    if isinstance(skip, str) or unknown:
        raise InvalidParameterError(
            f"skip: unknown check(s) {unknown or [skip]!r}; checks: {', '.join(CHECKS)}"
        )
    if not 0 <= min_coverage <= 1:
        raise InvalidParameterError(
            f"min_coverage must be a share between 0 and 1, got {min_coverage!r}; e.g. 0.95"
        )
    if not max_seconds > 0:
        raise InvalidParameterError(f"max_seconds must be positive, got {max_seconds!r}; e.g. 5")
    run = _Run(name or _name_of(plugin), set(skip), min_coverage, max_seconds)
    found: list[Registration] = []
    try:
        loaded, seconds = _timed(lambda: _load(plugin))
    except UnknownNameError:
        raise
    except Exception as error:  # an entry point that cannot be imported
        run.add("register", "", f"importing the plugin raised {plugins.one_line(error)}")
    else:
        found = run.call_hook(loaded, seconds)
    unknown_samples = sorted(set(samples or {}) - {r.name for r in found})
    if found and unknown_samples:
        raise InvalidParameterError(
            f"samples: {unknown_samples!r} not registered by plugin {run.plugin}; it registers "
            f"{', '.join(r.name for r in found)}"
        )
    if installed and found:
        run.compare_with_installed(found, loaded)
    run.claims_within(found)
    rows = [run.hierarchy(r, (samples or {}).get(r.name)) for r in found]
    table = pd.DataFrame(
        rows, columns=["name", "kind", "claims", "levels", "seconds", "coverage", "unplaced"]
    )
    table["unplaced"] = table["unplaced"].astype("Int64")
    table["coverage"] = table["coverage"].astype(float)
    return PluginCheck(run.plugin, tuple(run.problems), table, max_seconds, tuple(sorted(skip)))


def assert_plugin(plugin: object, **options: Any) -> PluginCheck:
    """:func:`check_plugin`, raising :class:`PluginCheckError` (an ``AssertionError``) that
    lists every problem; returns the :class:`PluginCheck` when there is none.

    Parameters
    ----------
    plugin : module, object or str
        As for :func:`check_plugin`.
    **options
        The options of :func:`check_plugin`: ``samples``, ``name``, ``min_coverage``,
        ``max_seconds``, ``installed``, ``skip``.

    Returns
    -------
    PluginCheck
        The passing check, for further assertions on its ``hierarchies`` table.

    Raises
    ------
    PluginCheckError
        The plugin has problems; the message lists them, one per line.

    Examples
    --------
    >>> import pandas_anon
    >>> class Plugin:
    ...     @pandas_anon.hookimpl
    ...     def register_hierarchies(self, register):
    ...         register("Doc Sex", lambda data: None)
    >>> assert_plugin(Plugin(), name="doc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pandas_anon.testing.PluginCheckError: plugin doc has 2 problems:
    - [register] register: name 'Doc Sex' is not a namespaced name like 'it.comune' ...
    - [register] plugin doc registers no usable hierarchy; call register(name, ...
    """
    known_options(options, "assert_plugin", [check_plugin])
    return check_plugin(plugin, **options).raise_on_problems()


# -- the run ----------------------------------------------------------------------------------


def _name_of(plugin: object) -> str:
    if isinstance(plugin, str):
        return plugin
    return str(getattr(plugin, "__name__", None) or type(plugin).__name__)


def _load(plugin: object) -> object:
    """The plugin object: ``plugin`` itself, or the installed entry point of that name."""
    if not isinstance(plugin, str):
        return plugin
    found = {ep.name: ep for ep in metadata.entry_points(group=plugins.GROUP)}
    if plugin not in found:
        raise UnknownNameError(plugin, sorted(found), kind="installed plugin")
    return found[plugin].load()


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


class _Recorder:
    """A ``register`` callback that records every call, valid or not, and never raises."""

    def __init__(self, run: _Run) -> None:
        self.run = run
        self.registered: dict[str, Registration] = {}

    def __call__(
        self, name: str, hierarchy: object, *, description: str = "", columns: object = ()
    ) -> None:
        problems = registration_problems(
            name, hierarchy, columns, plugin=self.run.plugin, registered=self.registered
        )
        for message in problems:
            self.run.add("register", "", message)
        if not problems:
            self.registered[name] = Registration(
                name,
                cast(Hierarchy, hierarchy),  # checked by registration_problems
                self.run.plugin,
                "checked",
                str(description),
                tuple(cast(Iterable[str], columns)),  # idem
            )


@dataclass
class _Run:
    plugin: str
    skip: set[str]
    min_coverage: float
    max_seconds: float
    problems: list[Problem] = field(default_factory=list)
    #: ``unmatched`` of the HierarchyError the last factory call raised, if any.
    unmatched: int | None = None

    def add(self, check: str, hierarchy: str, message: str) -> None:
        if check not in self.skip:
            self.problems.append(Problem(check, hierarchy, message))

    def slow(self, hierarchy: str, what: str, seconds: float) -> None:
        if seconds > self.max_seconds:
            self.add(
                "time",
                hierarchy,
                f"{what} took {seconds:.2f} s, over the {self.max_seconds:g} s limit; load "
                f"large tables once (functools.cache) and build only what the column needs, "
                f"or raise max_seconds",
            )

    # -- the hook

    def call_hook(self, plugin: object, import_seconds: float) -> list[Registration]:
        pm = pluggy.PluginManager(plugins.GROUP)
        pm.add_hookspecs(hookspecs)
        try:
            pm.register(plugin, name=self.plugin)
        except Exception as error:  # pluggy refuses it: a hook with the wrong arguments
            self.add("register", "", f"pluggy refuses the plugin: {plugins.one_line(error)}")
            return []
        unknown = plugins.unknown_hooks(pm, plugin)
        if unknown:
            self.add(
                "register",
                "",
                f"unknown hook(s) {', '.join(unknown)}; pandas-anon hooks: "
                f"{', '.join(plugins.spec_names(pm))} (or mark it optionalhook=True)",
            )
        impls = [i for i in pm.hook.register_hierarchies.get_hookimpls() if i.plugin is plugin]
        if not impls:
            self.add(
                "register",
                "",
                "no register_hierarchies hook: define one marked @pandas_anon.hookimpl",
            )
            return []
        recorder = _Recorder(self)
        arguments = {"register": recorder}
        try:
            _, seconds = _timed(
                lambda: impls[0].function(*[arguments[a] for a in impls[0].argnames])
            )
        except Exception as error:  # what pandas-anon would report as a broken plugin
            self.add(
                "register",
                "",
                f"register_hierarchies raised {plugins.one_line(error)}: pandas-anon would "
                f"skip the plugin as broken",
            )
            return []
        self.slow(
            "", "importing the plugin and running register_hierarchies", import_seconds + seconds
        )
        if not recorder.registered:
            self.add(
                "register",
                "",
                f"plugin {self.plugin} registers no usable hierarchy; call register(name, "
                f"hierarchy) in its register_hierarchies hook",
            )
        return list(recorder.registered.values())

    # -- names and claims

    def compare_with_installed(self, found: list[Registration], plugin: object) -> None:
        with warnings.catch_warnings():  # broken plugins, collisions: theirs to report
            warnings.simplefilter("ignore", AnonWarning)
            own = plugins.get_plugin_manager().get_name(plugin)
            others = [r for r in registrations() if r.plugin not in (own, self.plugin)]
        names = {r.name: r for r in others}
        spaces = {r.name.split(".")[0]: r for r in others}
        claims = {normalize(c): r for r in others for c in r.columns}
        for mine in found:
            space = mine.name.split(".")[0]
            if mine.name in names:
                self.add(
                    "name",
                    mine.name,
                    f"also registered by {names[mine.name].origin}: neither can be used while "
                    f"both are installed; choose a namespace of your own",
                )
            elif space in spaces and space != "builtin":
                self.add(
                    "name",
                    mine.name,
                    f"namespace {space!r} is used by {spaces[space].origin} "
                    f"({spaces[space].name}); choose a namespace of your own",
                )
            for column in mine.columns:
                other = claims.get(normalize(column))
                if other is not None:
                    self.add(
                        "claims",
                        mine.name,
                        f"column {column!r} is also claimed by {other.name} of "
                        f"{other.origin}: it would have no default hierarchy; drop the claim or "
                        f"agree on one owner",
                    )

    def claims_within(self, found: list[Registration]) -> None:
        owner: dict[str, str] = {}
        for mine in found:
            for column in mine.columns:
                first = owner.setdefault(normalize(column), mine.name)
                if first != mine.name:
                    self.add(
                        "claims",
                        mine.name,
                        f"column {column!r} is also claimed by {first} of the same plugin: it "
                        f"would have no default hierarchy; keep the claim on one of them",
                    )

    # -- each hierarchy

    def hierarchy(self, registration: Registration, sample: Iterable[object] | None) -> tuple:
        name, built = registration.name, registration.hierarchy
        slowest, coverage, unplaced = 0.0, np.nan, None
        shown: Hierarchy | None = None
        if isinstance(built, Hierarchy):
            shown = built
            self.structure(name, shown, "the registered hierarchy")
        else:
            canonical, slowest = self.build(name, built, None)
            if canonical is not None:
                self.structure(name, canonical, "the canonical hierarchy")
                shown = canonical
        if sample is not None:
            column = sample.copy() if isinstance(sample, pd.Series) else pd.Series(sample)
            if isinstance(built, Hierarchy):
                for_sample: Hierarchy | None = built
            else:
                for_sample, seconds = self.build(name, built, column)
                slowest = max(slowest, seconds)
            coverage, unplaced = self.coverage(name, for_sample, column)
            if for_sample is not None and not isinstance(built, Hierarchy):
                self.structure(name, for_sample, "the hierarchy built for the sample")
                shown = shown or for_sample
        levels = (
            " -> ".join(f"{len(shown.labels(j)):,}" for j in range(shown.n_levels)) if shown else ""
        )
        return (name, registration.kind, registration.columns, levels, slowest, coverage, unplaced)

    def build(
        self, name: str, factory: Callable[[pd.Series | None], object], data: pd.Series | None
    ) -> tuple[Hierarchy | None, float]:
        """The factory's hierarchy for ``data`` and its time; None (a problem recorded)
        when it fails, except for a HierarchyError with ``unmatched`` on a sample: left to
        the coverage check, which reads the count from :attr:`unmatched`."""
        check = "canonical" if data is None else "factory"
        given = None if data is None else data.copy()
        self.unmatched = None
        start = time.perf_counter()
        try:
            built = factory(data)
        except HierarchyError as error:
            seconds = time.perf_counter() - start
            self.slow(name, "the factory", seconds)
            if data is not None and error.unmatched is not None:
                self.unmatched = error.unmatched
                return None, seconds
            self.add(check, name, self._failed(data, error))
            return None, seconds
        except Exception as error:  # a plugin's factory may raise anything
            seconds = time.perf_counter() - start
            self.slow(name, "the factory", seconds)
            self.add(check, name, self._failed(data, error))
            return None, seconds
        seconds = time.perf_counter() - start
        what = "the factory called with None" if data is None else "the factory on the sample"
        self.slow(name, what, seconds)
        if given is not None and not given.equals(data):
            self.add("factory", name, "the factory changed the column it was given; work on a copy")
        if not isinstance(built, Hierarchy):
            self.add(
                check,
                name,
                f"the factory returned {type(built).__name__}, not a Hierarchy"
                + ("" if data is not None else " for data=None (the canonical hierarchy)"),
            )
            return None, seconds
        return built, seconds

    def _failed(self, data: pd.Series | None, error: Exception) -> str:
        if data is None:
            return (
                f"the factory called with None raised {plugins.one_line(error)}; return the "
                f"canonical hierarchy (get_hierarchy(name) with no data calls it so), or "
                f"skip=['canonical'] if the hierarchy is built from the data only"
            )
        return f"the factory on the sample raised {plugins.one_line(error)}"

    def coverage(
        self, name: str, built: Hierarchy | None, column: pd.Series
    ) -> tuple[float, int | None]:
        present = column.dropna()
        codes, uniques = factorize(present)  # as written, as the anonymizers see them
        distinct = pd.Index(uniques)
        if len(distinct) == 0:
            self.add("coverage", name, "the sample has no value; give one with values")
            return np.nan, None
        rows: int | None = None
        if built is not None:
            found = built.lookup(distinct)
            missed = int((found < 0).sum())
            counts = np.bincount(codes, minlength=len(distinct))
            rows = int(counts[found < 0].sum())
        elif self.unmatched is not None:
            missed = self.unmatched
        else:  # the factory failed: reported already
            return np.nan, None
        share = 1 - missed / len(distinct)
        if share < self.min_coverage:
            of_rows = f" ({fmt.plural(rows, 'row')})" if rows is not None else ""
            self.add(
                "coverage",
                name,
                f"{missed:,} of {fmt.plural(len(distinct), 'distinct value')} of the sample"
                f"{of_rows} not placed: coverage {fmt.percent(share, 1)}, at least "
                f"{fmt.percent(self.min_coverage, 1)} needed; add the missing values to the "
                f"hierarchy (or lower min_coverage)",
            )
        return share, missed

    def structure(self, name: str, hierarchy: Hierarchy, what: str) -> None:
        """The ``levels`` and ``labels`` checks on one hierarchy."""
        try:
            problems = level_problems(hierarchy)
            ambiguous = ambiguous_labels(hierarchy)
        except Exception as error:  # a subclass whose codes or labels are broken
            self.add("levels", name, f"{what} cannot be read: {plugins.one_line(error)}")
            return
        for message in problems:
            self.add("levels", name, f"{what}: {message}")
        for message in ambiguous:
            self.add("labels", name, f"{what}: {message}")


# -- structure --------------------------------------------------------------------------------


def level_problems(hierarchy: Hierarchy) -> list[str]:
    """What makes ``hierarchy`` not a tree of non-increasing levels, read through its public
    ``codes`` and ``labels`` (so a subclass overriding them is checked too); empty when none.

    Examples
    --------
    >>> level_problems(Hierarchy([34, 51], [["30-39", "50-59"]]))
    []
    """
    problems = []
    n_values = len(require_hierarchy(hierarchy, "level_problems").values)
    for j in range(hierarchy.n_levels):
        codes, labels = np.asarray(hierarchy.codes(j)), hierarchy.labels(j)
        if len(codes) != n_values or (
            len(codes) and (codes.min() < 0 or codes.max() >= len(labels))
        ):
            problems.append(
                f"level {j} does not give one label to each of the {n_values:,} values; build "
                f"the hierarchy with Hierarchy(values, levels)"
            )
            return problems
    for j in range(hierarchy.n_levels - 1):
        low, high = np.asarray(hierarchy.codes(j)), np.asarray(hierarchy.codes(j + 1))
        pairs = pd.DataFrame({"low": low, "high": high}).drop_duplicates()
        split = pairs["low"][pairs["low"].duplicated()].unique()
        if len(split):
            shown = ", ".join(repr(v) for v in hierarchy.labels(j).take(split[:_LISTED]))
            more = f" and {len(split) - _LISTED:,} more" if len(split) > _LISTED else ""
            problems.append(
                f"level {j} label(s) {shown}{more} fall under several labels of level {j + 1} "
                f"(not a tree); give each label one parent"
            )
        n_low, n_high = len(hierarchy.labels(j)), len(hierarchy.labels(j + 1))
        if n_high > n_low:
            problems.append(
                f"level {j + 1} has {n_high:,} labels, more than level {j} ({n_low:,}); a level "
                f"must merge the labels below it"
            )
    top = len(hierarchy.labels(hierarchy.height))
    if top != 1:
        problems.append(f"the top level has {top:,} labels; end with one (`*`)")
    return problems


def ambiguous_labels(hierarchy: Hierarchy) -> list[str]:
    """Labels that print the same but stand for different sets of values: at two levels (a
    level-0 value included: local recoding leaves some rows at level 0, so a column can hold
    both), or at one level (``1`` and ``"1"``). Empty when none; otherwise the first few,
    then how many more.

    Examples
    --------
    >>> ambiguous_labels(Hierarchy(["Milano", "Monza"], [["Milano", "Milano"]]))
    ["'Milano' is a label of levels 0 and 1 with different values under it; rename one"]
    """
    require_hierarchy(hierarchy, "ambiguous_labels")
    meaning: dict[str, tuple[int, frozenset[int]]] = {}
    clashes: list[str] = []
    for j in range(hierarchy.n_levels):
        codes = np.asarray(hierarchy.codes(j))
        order = np.argsort(codes, kind="stable")
        bounds = np.flatnonzero(np.diff(codes[order])) + 1
        for members in np.split(order, bounds):
            label = hierarchy.labels(j)[codes[members[0]]]
            under = frozenset(members.tolist())
            level, seen = meaning.setdefault(str(label), (j, under))
            if seen == under:
                continue
            clashes.append(
                f"{label!r} is a label of levels {level} and {j} with different values under "
                f"it; rename one"
                if level != j
                else f"level {j} has several labels printed {str(label)!r} (of different types); "
                f"make them one label, or different texts"
            )
    if len(clashes) > _LISTED:
        more = len(clashes) - _LISTED
        clashes = [*clashes[:_LISTED], f"and {fmt.plural(more, 'more label')} like these"]
    return clashes


__all__: Sequence[str] = [
    "CHECKS",
    "MAX_SECONDS",
    "PluginCheck",
    "PluginCheckError",
    "Problem",
    "ambiguous_labels",
    "assert_plugin",
    "check_plugin",
    "level_problems",
]
