"""Bit-packed keys: the codes of several columns in int64 words.

Each column gets a fixed field of bits, wide enough for its largest code, so the key of a
combination is its codes side by side, the first column in the highest bits. Two things
follow. Replacing one column's codes (raising a quasi-identifier by a level in the
lattice) rewrites only its field: shift, mask, look up, add, on every key at once
(:func:`pandas_anon.engine.hashing.rollup` does it in the pass that groups the keys). And
sorting keys (:func:`run_ids`) groups equal combinations into runs, in the lexicographic
order of the columns. Keys too wide for one word span several.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Bits of a key word (an int64 kept non-negative).
WORD_BITS = 62

Words = tuple[np.ndarray, ...]


class KeyLayout:
    """Where each column's code sits: ``radixes`` bound the codes (``0..radix-1``) of each
    column."""

    def __init__(self, radixes: Sequence[int]) -> None:
        self.bits = [max(1, (int(r) - 1).bit_length()) for r in radixes]
        groups: list[list[int]] = [[]]
        used = 0
        for column, bits in enumerate(self.bits):
            if groups[-1] and used + bits > WORD_BITS:
                groups.append([])
                used = 0
            groups[-1].append(column)
            used += bits
        self.word_bits = [sum(self.bits[j] for j in group) for group in groups]
        self.fields: list[tuple[int, int]] = []  # (word, shift) per column
        for word, group in enumerate(groups):
            shift = self.word_bits[word]
            for column in group:
                shift -= self.bits[column]
                self.fields.append((word, shift))

    @property
    def n_words(self) -> int:
        return len(self.word_bits)

    def encode(self, codes: Sequence[np.ndarray]) -> Words:
        """The keys of rows given each column's codes."""
        words = [np.zeros(len(codes[0]), dtype=np.int64) for _ in self.word_bits]
        for (word, shift), column_codes in zip(self.fields, codes):
            words[word] |= column_codes.astype(np.int64) << shift
        return tuple(words)

    def decode(self, words: Words, column: int) -> np.ndarray:
        """One column's codes."""
        word, shift = self.fields[column]
        return (words[word] >> shift) & ((1 << self.bits[column]) - 1)

    def shift_table(self, column: int, mapping: np.ndarray) -> np.ndarray:
        """What :meth:`recode` adds to a key holding each code of ``column`` to replace it by
        ``mapping[code]`` (which must stay within the column's radix)."""
        codes = np.arange(len(mapping), dtype=np.int64)
        return (mapping.astype(np.int64) - codes) << self.fields[column][1]

    def recode(self, words: Words, column: int, shift_table: np.ndarray) -> Words:
        """The keys with ``column``'s codes replaced (new arrays where they change), through
        a :meth:`shift_table`."""
        word = self.fields[column][0]
        changed = words[word] + shift_table[self.decode(words, column)]
        return words[:word] + (changed,) + words[word + 1 :]

    def field_table(self, columns: Sequence[int]) -> np.ndarray:
        """One row ``(word, shift, mask)`` per column of ``columns``: where its field sits
        (what :func:`pandas_anon.engine.hashing.rollup` rewrites)."""
        return np.array(
            [(*self.fields[j], (1 << self.bits[j]) - 1) for j in columns], dtype=np.int64
        ).reshape(-1, 3)

    def prefix(self, words: Words, n_columns: int) -> Words:
        """The keys of the first ``n_columns`` columns only (same order)."""
        if n_columns == len(self.fields):
            return words
        word, shift = self.fields[n_columns - 1]
        return words[:word] + (words[word] >> shift,)


def sort_order(words: Words) -> np.ndarray:
    """Positions that sort the keys (lexicographically over the words)."""
    if len(words) == 1:
        return np.argsort(words[0])
    return np.lexsort(words[::-1])


def run_starts(sorted_words: Words) -> np.ndarray:
    """Positions where a run of equal keys begins, in sorted keys."""
    n = len(sorted_words[0])
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = sorted_words[0][1:] != sorted_words[0][:-1]
        for word in sorted_words[1:]:
            new[1:] |= word[1:] != word[:-1]
    return np.flatnonzero(new)


def run_ids(words: Words) -> np.ndarray:
    """Each row's rank among the distinct keys, sorted."""
    order = sort_order(words)
    ordered = tuple(w[order] for w in words)
    new = np.zeros(len(order), dtype=np.int64)
    new[run_starts(ordered)] = 1
    ids = np.empty(len(order), dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids
