"""Keyed pseudonyms: replace the values of a direct identifier column by keyed hashes.

A plain hash of a tax code or a record number can be reversed by hashing every possible
value; a keyed hash (BLAKE2b with a secret key, RFC 7693) cannot without the key. The key is
never stored in the output or in a report: with a random key, the tokens of two releases
cannot be linked; with the same key, equal values get equal tokens again.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from pandas_anon.engine.encoding import factorize

#: Hex digits of a token (64 bits of a BLAKE2b digest: no collision expected below 2^32 values).
TOKEN_DIGITS = 16


def keyed_hash(series: pd.Series, key: bytes) -> pd.Series:
    """``series`` with each value replaced by its keyed hash (hex text); missing stays missing.

    Each distinct value is hashed once (its text, so ``1`` read as a number and ``"1"`` read
    as text get the same token).

    Examples
    --------
    >>> tokens = keyed_hash(pd.Series([7, 8, 7]), b"secret")
    >>> tokens[0] == tokens[2] != tokens[1]
    True
    """
    secret = hashlib.sha256(key).digest()  # BLAKE2b takes keys of at most 64 bytes
    codes, uniques = factorize(series)
    tokens = np.array(
        [
            hashlib.blake2b(
                str(value).encode("utf-8"), key=secret, digest_size=TOKEN_DIGITS // 2
            ).hexdigest()
            for value in uniques
        ]
        + [None],
        dtype=object,
    )
    return pd.Series(tokens[codes], index=series.index, name=series.name, dtype=object)
