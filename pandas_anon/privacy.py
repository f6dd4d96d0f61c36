"""Privacy levels a table reaches, measured on its equivalence classes.

k-anonymity: every combination of quasi-identifier values is shared by at least k rows
(survey ``003_a9e852f42da10ca2.txt``); distinct l-diversity: every class holds at least l
different values of a sensitive column (Machanavajjhala et al., cited in seed 000).
These functions measure a given frame; the anonymization algorithms use the same
definitions on frequency sets.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from .detect import QID
from .columns import as_label_list
from .encoding import EncodedFrame, compress
from .errors import InvalidQIDError


def k_anonymity(frame: pd.DataFrame, qid: QID, *, dropna: bool = True) -> int:
    """The k the frame reaches on ``qid``: the size of its smallest equivalence class."""
    grouping = EncodedFrame(frame, qid, dropna=dropna).grouping()
    return int(grouping.class_sizes.min())


def l_diversity(frame: pd.DataFrame, qid: QID, sensitive: Hashable, *, dropna: bool = True) -> int:
    """The distinct l the frame reaches: the fewest different ``sensitive`` values in any
    class of ``qid``. With ``dropna``, rows missing a QID or the sensitive value are left out."""
    encoded = EncodedFrame(frame, _with_sensitive(qid, sensitive, frame), dropna=dropna)
    quasi = [c for c in encoded.columns if c != sensitive]
    class_of_row, n_classes = compress(encoded.grouping(quasi))
    n_values = encoded.cardinality(sensitive)
    pairs = pd.unique(class_of_row * n_values + encoded.codes[sensitive])  # (class, value)
    return int(np.bincount(pairs // n_values, minlength=n_classes).min())


def _with_sensitive(qid: QID, sensitive: Hashable, frame: pd.DataFrame) -> list[Hashable]:
    columns = as_label_list(qid, frame.columns)
    if sensitive in columns:
        raise InvalidQIDError(
            f"the sensitive column {sensitive!r} is part of the quasi-identifier; a column is "
            f"either one or the other"
        )
    return [*columns, sensitive]
