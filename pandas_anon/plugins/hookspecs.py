"""The hooks a pandas-anon plugin can implement: this module is the plugin API.

A plugin is a module (or any object) holding functions marked ``@pandas_anon.hookimpl`` and
named after a hook below; a package makes it known through an entry point of group
``pandas_anon`` (see ``docs/plugins.md``). pandas-anon's own hierarchies come from a plugin
registered the same way (:mod:`pandas_anon.plugins.builtin`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import pandas as pd
import pluggy

from pandas_anon.hierarchy.model import Hierarchy

#: Marks the hook specifications below (for pandas-anon itself).
hookspec = pluggy.HookspecMarker("pandas_anon")
#: Marks a plugin's hook implementations: ``@pandas_anon.hookimpl``.
hookimpl = pluggy.HookimplMarker("pandas_anon")

#: Builds a hierarchy on demand: called with the column's data when a spec uses the
#: hierarchy, with ``None`` for the canonical hierarchy (``pandas_anon.get_hierarchy(name)``).
Factory = Callable[[pd.Series | None], Hierarchy]


class Register(Protocol):
    """The ``register`` callback handed to :func:`register_hierarchies`."""

    def __call__(
        self,
        name: str,
        hierarchy: Hierarchy | Factory,
        *,
        description: str = "",
        columns: Sequence[str] = (),
    ) -> None: ...


@hookspec
def register_hierarchies(register: Register) -> None:
    """Register named generalization hierarchies by calling ``register`` once for each.

    ``register(name, hierarchy, *, description="", columns=())``:

    - ``name``: namespaced, lowercase: letters, digits, ``_`` or ``-``, in at least two parts
      joined by dots (``"it.comune"``). The ``builtin.`` namespace belongs to pandas-anon.
    - ``hierarchy``: a :class:`~pandas_anon.hierarchy.Hierarchy`, or a factory
      ``f(data: pandas.Series | None) -> Hierarchy``. A factory runs only when the hierarchy is
      used: with the column's data (to match its spellings, or to cover its values), or with
      ``None`` for the canonical hierarchy. A factory that also takes the keyword ``frame``
      gets the frame holding the column whenever the caller has it (``kanon``,
      ``generalize``): it may read another column of the row, such as its province. Such a
      factory names those columns in an attribute ``reads``, a function
      ``reads(columns, column) -> iterable`` of the frame's column labels and the column the
      hierarchy is for: on a Dask frame, the frame the factory gets holds the distinct
      combinations of the columns the method reads and of those (the rows are not
      gathered), so a column it reads without naming it is missing there.
      Results are not cached. Errors it raises are reported as
      :class:`~pandas_anon.errors.HierarchyError` naming the plugin; a factory that cannot
      place some values of the column raises ``HierarchyError(message, unmatched=n)``, so
      that zero configuration can say how many when it falls back.
    - ``description``: one line, shown by ``pandas_anon.hierarchies()`` and
      ``pandas-anon plugins``.
    - ``columns``: the column names this hierarchy claims by default, so that it is used
      without configuration on a column of that name. Claims are compared after normalizing
      both sides: case-insensitive, surrounding spaces ignored, and runs of spaces, ``-`` and
      ``_`` equal to one ``_`` (``"Comune Residenza"`` claims ``comune_residenza``).

    ``register`` raises :class:`~pandas_anon.errors.InvalidParameterError` on a malformed
    call or a name the plugin registers twice; a hook that raises makes its plugin broken:
    none of its hierarchies is kept, a warning names it, the other plugins are unaffected. A
    name registered by two plugins, or a column claimed by two names, is a collision: neither
    side is used for it until one plugin is removed (see ``docs/plugins.md``).
    """


class AlgorithmRegister(Protocol):
    """The ``register`` callback handed to :func:`register_algorithms`."""

    def __call__(self, algorithm: object) -> None: ...


@hookspec
def register_algorithms(register: AlgorithmRegister) -> None:
    """Register anonymization algorithms by calling ``register`` once for each.

    ``register(algorithm)``: an object following
    :class:`pandas_anon.anonymization.algorithms.Algorithm`: a ``name`` (lowercase letters,
    digits, ``_`` and ``-``; what ``kanon(k, algo=name)`` and ``--algo`` take), a one-line
    ``description``, and ``decide(problem) -> Transformation``, which reads the problem's
    frequency set and returns the per-combination recoding and suppression it chose
    (``docs/architecture.md``, "Where a new algorithm goes"). pandas-anon's own algorithms
    are registered the same way (:mod:`pandas_anon.anonymization.builtin`) and their names
    are reserved. A hook that raises makes its plugin broken: none of its algorithms is
    kept, a warning names it. A name registered by two plugins is used by neither.
    """
