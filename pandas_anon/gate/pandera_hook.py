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
import of pandera: it is reported as an :class:`~pandas_anon.errors.AnonWarning`
(:mod:`pandas_anon.imports` does the waiting).
"""

from __future__ import annotations

from pandas_anon.imports import when_imported

#: The package whose import registers the checks.
PANDERA = "pandera"


def install() -> None:
    """Register the checks now if pandera is imported, else when it is (once)."""
    when_imported(PANDERA, register, "its pandera checks (pa.Check.anon_*)")


def register() -> None:
    """Register the checks with pandera."""
    from pandas_anon.gate import pandera_checks

    pandera_checks.register()
