"""Progress feedback for long searches, on stderr, only where a person is watching.

``enabled=None`` (the default everywhere) shows progress only when stderr is a terminal, so
scripts, notebooks' captured output and CI logs stay quiet; ``True``/``False`` force it.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO


class Progress:
    """A one-line counter: ``label: unit 2/4 (detail) 0.3 s``, redrawn in place."""

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
        self.enabled = enabled if enabled is not None else _is_terminal(self.stream)
        self.label, self.total, self.unit = label, total, unit
        self.done = 0
        self._start = time.perf_counter()

    def __enter__(self) -> Progress:
        return self

    def advance(self, detail: str = "") -> None:
        """Count one step and redraw the line."""
        self.done += 1
        if self.enabled:
            elapsed = time.perf_counter() - self._start
            extra = f" ({detail})" if detail else ""
            self.stream.write(
                f"\r{self.label}: {self.unit} {self.done}/{self.total}{extra} {elapsed:.1f} s"
            )
            self.stream.flush()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
