"""Checks on arguments that the API, the configuration file and the pandera checks share,
so that each accepts the same values (each caller words its own error)."""

from __future__ import annotations

import numpy as np


def is_whole(value: object, low: int) -> bool:
    """Whether ``value`` is an integer (Python or numpy, not a bool) of at least ``low``."""
    return (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))
            and value >= low)
