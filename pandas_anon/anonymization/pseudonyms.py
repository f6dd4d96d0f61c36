"""Keyed pseudonyms: replace the values of a direct identifier column by keyed hashes.

A plain hash of a tax code or a record number can be reversed by hashing every possible
value; a keyed hash (BLAKE2b with a secret key, RFC 7693) cannot without the key. The key is
never stored in the output or in a report: with a random key, the tokens of two releases
cannot be linked; with the same key, equal values get equal tokens again.

A key is only as secret as it is hard to guess: a short one (``"s3cret"``, or the empty text,
a constant anyone can try) is found by trying keys until the tokens of a few guessable
identifiers (``PAT0000``, ``PAT0001``, ...) come out, and then every token is reversed.
:func:`salt_key` refuses a key of fewer than :data:`MIN_SALT_BYTES` bytes.
"""

from __future__ import annotations

import hashlib
import secrets

import numpy as np
import pandas as pd

from pandas_anon.engine.encoding import factorize
from pandas_anon.errors import InvalidParameterError

#: Hex digits of a token (64 bits of a BLAKE2b digest: no collision expected below 2^32 values).
TOKEN_DIGITS = 16
#: The shortest key :func:`salt_key` accepts: 128 bits, as ``secrets.token_hex(16)`` draws.
MIN_SALT_BYTES = 16


def salt_key(salt: bytes | str | None) -> bytes:
    """The key of ``identifiers="hash"``: ``salt`` (text as UTF-8), or a random one, never
    stored, when it is None or empty.

    Raises
    ------
    InvalidParameterError
        When ``salt`` is neither text nor bytes, or is shorter than :data:`MIN_SALT_BYTES`
        bytes (the message never shows it).

    Examples
    --------
    >>> len(salt_key(None)), salt_key("0123456789abcdef0123")[:4]
    (32, b'0123')
    """
    if salt is None or (isinstance(salt, (str, bytes, bytearray)) and not salt):
        return secrets.token_bytes(32)
    if not isinstance(salt, (str, bytes, bytearray)):
        raise InvalidParameterError(
            f"salt must be text or bytes (the secret key of identifiers='hash'), got "
            f"{type(salt).__name__}; use a random one such as secrets.token_hex(16), or leave "
            f"it out for a random key that is never stored"
        )
    key = salt.encode("utf-8") if isinstance(salt, str) else bytes(salt)
    if len(key) < MIN_SALT_BYTES:
        raise InvalidParameterError(
            f"salt is {len(key)} bytes long, shorter than {MIN_SALT_BYTES}: a key that short "
            f"can be found by trying keys, and then every hashed identifier reversed; use a "
            f"random one such as secrets.token_hex(16) (PANDAS_ANON_SALT on the command "
            f"line), kept secret, or leave it out for a random key that is never stored"
        )
    return key


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
