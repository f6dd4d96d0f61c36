"""Registering the pandera checks without importing pandera.

``import pandas_anon`` calls :func:`install`, and the three checks of
:mod:`pandas_anon.gate.pandera_checks` are on ``pa.Check`` as soon as both packages are
imported, in either order:

- pandera imported first: :func:`install` registers the checks at once;
- pandas_anon imported first: :func:`install` puts a finder at the front of ``sys.meta_path``
  (Python's import system, PEP 451) that waits for ``pandera`` to be imported, lets the usual
  finders find it, and registers the checks right after pandera's ``__init__`` has run, before
  the ``import pandera`` statement returns. The finder then removes itself.

So ``import pandas_anon`` never imports pandera (about a quarter of a second), and a program
that never imports pandera never pays for it, while code that writes
``import pandera.pandas as pa; import pandas_anon`` (or the other way round) finds
``pa.Check.anon_max_singletons`` as before. A registration that fails does not break the
import of pandera: it is reported as an :class:`~pandas_anon.errors.AnonWarning`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, cast

from pandas_anon.errors import AnonWarning, warn

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import ModuleType

#: The package whose import registers the checks.
PANDERA = "pandera"


def install() -> None:
    """Register the checks now if pandera is imported, else when it is (once)."""
    if PANDERA in sys.modules:
        register()
    elif not any(isinstance(finder, PanderaFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, PanderaFinder())


def register() -> None:
    """Register the checks with pandera, reporting a failure as a warning."""
    try:
        from pandas_anon.gate import pandera_checks

        pandera_checks.register()
    except Exception as error:  # a newer pandera must not break `import pandera`
        warn(
            f"pandas-anon could not register its pandera checks (pa.Check.anon_*): "
            f"{type(error).__name__}: {error}",
            AnonWarning,
        )


class PanderaFinder:
    """A ``sys.meta_path`` finder answering only for ``pandera``: it asks the other finders,
    then wraps the loader they return so that the checks are registered after pandera runs."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != PANDERA:
            return None
        from importlib.util import find_spec

        if self in sys.meta_path:
            sys.meta_path.remove(self)  # once, and not asked again by find_spec below
        spec = find_spec(name)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = cast("Loader", RegisteringLoader(spec.loader))  # a Loader by duck typing
        return spec


class RegisteringLoader:
    """pandera's own loader, registering the checks once pandera's ``__init__`` has run. The
    module and its spec name pandera's loader, not this one, before any of pandera runs."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        register()
