"""Privacy levels a table reaches, measured on its equivalence classes.

k-anonymity: every combination of quasi-identifier values is shared by at least k rows
(Sweeney 2002; Saroha 2014, "Survey of k-Anonymity", section 2.2); distinct l-diversity:
every class holds at least l different values of a sensitive column (Machanavajjhala et al.
2007, "l-Diversity: Privacy Beyond k-Anonymity").
These functions measure a given frame; the anonymization algorithms use the same
definitions on frequency sets (:mod:`pandas_anon.privacy.models`), and by default the same rows: a
missing quasi-identifier value is a value of its own, as in ``kanon``'s lattice (``dropna=True``
leaves those rows out, as the pandera checks do).
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from pandas_anon.detect.exposure import without_suppressed
from pandas_anon.detect.figures import QID
from pandas_anon.engine.columns import as_label_list, resolve_columns, sensitive_outside
from pandas_anon.engine.encoding import EncodedFrame, encode_column
from pandas_anon.engine.grouping import compress
from pandas_anon.privacy.models import distinct_values


def k_anonymity(frame: pd.DataFrame, qid: QID, *, dropna: bool = False) -> int:
    """The k the frame reaches on ``qid``: the size of its smallest equivalence class. A
    missing value is a value of its own, as in ``kanon``'s lattice; with ``dropna``, rows
    missing a QID value are left out instead. Suppressed rows (every QID value ``*``) are in
    no class (:mod:`pandas_anon.detect.exposure`)."""
    frame, _ = without_suppressed(frame, as_label_list(qid, frame.columns))
    grouping = EncodedFrame(frame, qid, dropna=dropna).grouping()
    return int(grouping.class_sizes.min())


def l_diversity(frame: pd.DataFrame, qid: QID, sensitive: Hashable, *, dropna: bool = False) -> int:
    """The distinct l the frame reaches: the fewest different known ``sensitive`` values in
    any class of ``qid``, counted as :func:`pandas_anon.kanon` counts them
    (:mod:`pandas_anon.privacy.models`): a row missing its sensitive value counts in its class but is
    no value, so a class whose sensitive values are all missing has l = 0. A missing QID value
    is a value of its own, as in ``kanon``'s lattice; with ``dropna``, rows missing a QID
    value are left out instead. Suppressed rows (every QID value ``*``) are in no class."""
    columns = _with_sensitive(qid, sensitive, frame)
    frame, _ = without_suppressed(frame, columns[:-1])
    quasi = EncodedFrame(frame, columns[:-1], dropna=dropna)
    resolve_columns(frame, [sensitive])
    codes, values = encode_column(frame[sensitive])
    if quasi.positions is not None:
        codes = codes[quasi.positions]
    missing = len(values)
    codes = np.where(codes < 0, missing, codes)
    class_of_row, n_classes = compress(quasi.grouping())
    pairs = pd.unique(class_of_row * (missing + 1) + codes)  # distinct (class, value)
    return int(
        distinct_values(pairs // (missing + 1), pairs % (missing + 1), n_classes, missing).min()
    )


def _with_sensitive(qid: QID, sensitive: Hashable, frame: pd.DataFrame) -> list[Hashable]:
    columns = as_label_list(qid, frame.columns)
    sensitive_outside(columns, sensitive)
    return [*columns, sensitive]
