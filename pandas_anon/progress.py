"""Progress feedback for long work, only where a person is watching: a tqdm bar.

``enabled=None`` (the default everywhere) shows progress only when stderr is a terminal or
the code runs in a Jupyter notebook, so scripts, captured output and CI logs stay quiet;
``True``/``False`` force it. tqdm (a small, pure-Python, widely used library) draws the bar,
its rate and time left in a terminal, and a widget in a notebook where ipywidgets is
installed (its text bar otherwise), rather than a counter of our own. What a bar shows
beside the count (the step's ``detail``) is a count or a level, never a value of the data.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import TracebackType
from typing import Any, ParamSpec, TextIO, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: Whether the Dask computations of the call running show their progress (None: where a
#: person watches, as :class:`Progress` decides), set by :func:`distributed_work`.
_DISTRIBUTED: ContextVar[bool | None] = ContextVar("pandas_anon_dask_progress", default=False)


class Progress:
    """A progress bar: ``label: 2/4 size [00:01<00:01, detail]``, redrawn in place."""

    def __init__(
        self,
        label: str,
        *,
        total: int,
        unit: str,
        enabled: bool | None = None,
        stream: TextIO | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        notebook = stream is None and _in_notebook()
        self.enabled = enabled if enabled is not None else (_is_terminal(self.stream) or notebook)
        self.label, self.total, self.unit = label, total, unit
        self.done = 0
        self._bar: Any = None
        if self.enabled:
            self._bar = _bar_class(notebook)(
                total=total,
                desc=label,
                unit=f" {unit}",
                file=None if notebook else self.stream,
                leave=True,
                dynamic_ncols=True,
            )

    def __enter__(self) -> Progress:
        return self

    def advance(self, detail: str = "") -> None:
        """Count one step (``detail``: what it did, shown beside the count)."""
        self.done += 1
        if self._bar is not None:
            if detail:
                self._bar.set_postfix_str(detail, refresh=False)
            self._bar.update(1)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.close()


@contextmanager
def distributed_work(enabled: bool | None) -> Iterator[None]:
    """Within the block, the Dask computations of the engine show their progress as
    ``enabled`` says (None: where a person watches: a terminal or a notebook)."""
    token = _DISTRIBUTED.set(enabled)
    try:
        yield
    finally:
        _DISTRIBUTED.reset(token)


def with_distributed_progress(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` run with :func:`distributed_work` as its ``progress`` argument says (a
    public function that may compute on a Dask frame: ``anonymize``, ``best_qid``,
    ``ke_anon``)."""

    @functools.wraps(function)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        enabled = kwargs.get("progress")
        with distributed_work(enabled if isinstance(enabled, bool) else None):
            return function(*args, **kwargs)

    return run


def distributed_watched() -> bool:
    """Whether the Dask computation about to run shows its progress."""
    enabled = _DISTRIBUTED.get()
    return enabled if enabled is not None else (_is_terminal(sys.stderr) or _in_notebook())


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _in_notebook() -> bool:
    """Whether the code runs in a Jupyter kernel (IPython's ZMQ shell)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        found = shell.get_ipython()
    except AttributeError:
        return False
    return type(found).__name__ == "ZMQInteractiveShell"


def _bar_class(notebook: bool) -> Any:
    """tqdm's notebook widget in a notebook where ipywidgets is installed, else its text
    bar."""
    if notebook:
        try:
            import ipywidgets  # noqa: F401  (the widget tqdm.notebook draws with)
            from tqdm.notebook import tqdm as widget
        except ImportError:
            pass
        else:
            return widget
    from tqdm.std import tqdm as text

    return text
