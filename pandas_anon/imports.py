"""Run code when another package is imported, without importing it.

pandas-anon registers things with optional packages (its checks on pandera's ``pa.Check``,
its ``.anon`` accessor on Dask frames) as soon as both are imported, in either order, while
``import pandas_anon`` imports neither:

- the package imported first: :func:`when_imported` runs the registration at once;
- pandas_anon imported first: :func:`when_imported` puts a finder at the front of
  ``sys.meta_path`` (Python's import system, PEP 451) that waits for the package to be
  imported, lets the usual finders find it, and runs the registration right after the
  package's ``__init__`` has run, before the ``import`` statement returns. The finder then
  removes itself.

A registration that fails does not break the import of the package: it is reported as an
:class:`~pandas_anon.errors.AnonWarning` naming what could not be registered.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from pandas_anon.errors import AnonWarning, warn

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import ModuleType


def when_imported(package: str, register: Callable[[], None], what: str) -> None:
    """Run ``register`` now if ``package`` (a dotted name) is imported, else right after it
    is, once (the same registration asked again while it waits is not added twice).
    ``what`` names what it registers, for the warning should it fail."""
    if package in sys.modules:
        _run(register, what)
        return
    for finder in sys.meta_path:
        if isinstance(finder, ImportFinder) and finder.package == package:
            if (register, what) not in finder.registrations:
                finder.registrations.append((register, what))
            return
    sys.meta_path.insert(0, ImportFinder(package, [(register, what)]))


def _run(register: Callable[[], None], what: str) -> None:
    """Run a registration, reporting a failure as a warning."""
    try:
        register()
    except Exception as error:  # a newer release of the package must not break its import
        warn(
            f"pandas-anon could not register {what}: {type(error).__name__}: {error}",
            AnonWarning,
        )


class ImportFinder:
    """A ``sys.meta_path`` finder answering only for ``package``: it asks the other finders,
    then wraps the loader they return so that its ``registrations`` run after the package
    has, in the order they were asked for."""

    def __init__(self, package: str, registrations: list[tuple[Callable[[], None], str]]) -> None:
        self.package = package
        self.registrations = registrations

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != self.package:
            return None
        from importlib.util import find_spec

        if self in sys.meta_path:
            sys.meta_path.remove(self)  # once, and not asked again by find_spec below
        spec = find_spec(name)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            # a Loader by duck typing
            spec.loader = cast("Loader", RegisteringLoader(spec.loader, self))
        return spec


class RegisteringLoader:
    """The package's own loader, running the registration once the package's ``__init__``
    has run. The module and its spec name the package's loader, not this one, before any of
    the package runs."""

    def __init__(self, loader: Any, finder: ImportFinder) -> None:
        self.loader = loader
        self.finder = finder

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        for register, what in self.finder.registrations:
            _run(register, what)
