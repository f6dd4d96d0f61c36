/*
 * Grouping bit-packed keys in an open-addressing hash table: shared by the kernels of
 * pandas_anon.engine.hashing (_kernels.c) and the optimal search (fulldomain/_ola.c).
 *
 * A key is one or more int64 words; `words` holds them word-major (word w of key i at
 * words[w * n + i]). One pass through the table (linear probing, Fibonacci hashing, at least
 * twice as many slots as keys) numbers the distinct keys in the order of their first
 * occurrence and adds up their counts.
 */
#ifndef PANDAS_ANON_GROUPING_H
#define PANDAS_ANON_GROUPING_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN 0x9E3779B97F4A7C15ULL

/* Bits of a table of at least twice `n` slots (at least 16). */
static inline int table_bits(Py_ssize_t n) {
    int bits = 4;
    while (((Py_ssize_t)1 << bits) < 2 * n) {
        bits++;
    }
    return bits;
}

static inline uint64_t slot_of(const int64_t *words, Py_ssize_t n_words, Py_ssize_t stride,
                               Py_ssize_t i, int bits) {
    uint64_t h = 0;
    for (Py_ssize_t w = 0; w < n_words; w++) {
        h = (h ^ (uint64_t)words[w * stride + i]) * GOLDEN;
    }
    return h >> (64 - bits);
}

static inline int same_key(const int64_t *words, Py_ssize_t n_words, Py_ssize_t stride,
                           Py_ssize_t i, Py_ssize_t j) {
    for (Py_ssize_t w = 0; w < n_words; w++) {
        if (words[w * stride + i] != words[w * stride + j]) {
            return 0;
        }
    }
    return 1;
}

/*
 * Number the distinct keys of `words` (n_words x n): first[g] is the position of group g's
 * first key, sums[g] the sum of `counts` over its keys (NULL: one each), inverse[i] (when
 * given) key i's group. `slots` is the caller's table of 1 << table_bits(n) entries (its content is
 * overwritten), so that a caller grouping many tables allocates one. Returns the number of
 * groups.
 */
static inline Py_ssize_t group_words_in(int64_t *slots, const int64_t *words, Py_ssize_t n_words,
                                        Py_ssize_t n, const int64_t *counts, int64_t *first,
                                        int64_t *sums, int64_t *inverse) {
    int bits = table_bits(n);
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    memset(slots, 0xff, sizeof(int64_t) << bits); /* -1: empty */
    Py_ssize_t groups = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t h = slot_of(words, n_words, n, i, bits);
        int64_t g;
        for (;;) {
            g = slots[h];
            if (g < 0) {
                g = groups++;
                slots[h] = g;
                first[g] = i;
                sums[g] = 0;
                break;
            }
            if (same_key(words, n_words, n, first[g], i)) {
                break;
            }
            h = (h + 1) & mask;
        }
        sums[g] += counts != NULL ? counts[i] : 1;
        if (inverse != NULL) {
            inverse[i] = g;
        }
    }
    return groups;
}

/* group_words_in, compiled apart for keys of one word (most keys): n_words a constant there. */
static inline Py_ssize_t group_keys_in(int64_t *slots, const int64_t *words, Py_ssize_t n_words,
                                       Py_ssize_t n, const int64_t *counts, int64_t *first,
                                       int64_t *sums, int64_t *inverse) {
    if (n_words == 1) {
        return group_words_in(slots, words, 1, n, counts, first, sums, inverse);
    }
    return group_words_in(slots, words, n_words, n, counts, first, sums, inverse);
}

/* group_keys_in with a table of its own: the number of groups, or -1 when memory runs out. */
static inline Py_ssize_t group_keys(const int64_t *words, Py_ssize_t n_words, Py_ssize_t n,
                                    const int64_t *counts, int64_t *first, int64_t *sums,
                                    int64_t *inverse) {
    int64_t *slots = malloc(sizeof(int64_t) << table_bits(n));
    if (slots == NULL) {
        return -1;
    }
    Py_ssize_t groups = group_keys_in(slots, words, n_words, n, counts, first, sums, inverse);
    free(slots);
    return groups;
}

#endif
