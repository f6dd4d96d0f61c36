"""Types of the compiled optimal search (``_ola.c``); :mod:`.kernel` calls it."""

from collections.abc import Callable

import numpy as np

def ola(
    heights: np.ndarray,
    fields: np.ndarray,
    n_words: int,
    lookups: np.ndarray,
    lookup_at: np.ndarray,
    positions: np.ndarray,
    keys: np.ndarray,
    counts: np.ndarray,
    n_classes: int,
    k: int,
    limit: int,
    n_rows: int,
    metric: int,
    weights: np.ndarray,
    scale: int,
    least: int,
    beyond: int,
    budget: int,
    lower: np.ndarray,
    status: np.ndarray,
    verdict: np.ndarray,
    evaluated: np.ndarray,
    progress: Callable[[int], None] | None,
    /,
) -> tuple[int, int, int, int]: ...
