/*
 * Grouping bit-packed keys by hashing: the kernels of pandas_anon.engine.hashing (and the
 * query error's 2-way estimate, spread_gather, of pandas_anon.anonymization.utility).
 *
 * The grouping itself is in _grouping.h, shared with the optimal search's kernel. The Python
 * side allocates every output array and checks the shapes; these functions only read and
 * write the buffers given.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/mman.h>
#endif

/* numpy's allocation handlers (numpy 1.22 and later); built against any numpy, the module
 * loads in every numpy the package supports */
#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

#include "_grouping.h"

/* A buffer of `n` int64 values, or a TypeError/ValueError naming `what`. */
static int int64_buffer(Py_buffer *view, Py_ssize_t n, const char *what) {
    if (view->itemsize != 8 || view->len != n * 8) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd int64 values, got %zd bytes", what, n,
                     view->len);
        return 0;
    }
    return 1;
}

static PyObject *group(PyObject *self, PyObject *args) {
    Py_buffer words, counts, first, sums, inverse = {0};
    Py_ssize_t n_words, n;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*nny*w*w*|w*", &words, &n_words, &n, &counts, &first, &sums,
                          &inverse)) {
        return NULL;
    }
    if (int64_buffer(&words, n_words * n, "words") && int64_buffer(&counts, n, "counts") &&
        int64_buffer(&first, n, "first") && int64_buffer(&sums, n, "sums") &&
        (inverse.buf == NULL || int64_buffer(&inverse, n, "inverse"))) {
        Py_ssize_t groups;
        Py_BEGIN_ALLOW_THREADS
        groups = group_keys(words.buf, n_words, n, counts.buf, first.buf, sums.buf, inverse.buf);
        Py_END_ALLOW_THREADS
        result = groups < 0 ? PyErr_NoMemory() : PyLong_FromSsize_t(groups);
    }
    PyBuffer_Release(&words);
    PyBuffer_Release(&counts);
    PyBuffer_Release(&first);
    PyBuffer_Release(&sums);
    if (inverse.buf != NULL) {
        PyBuffer_Release(&inverse);
    }
    return result;
}

/* The c-th field rewritten in key `key` of word `word`: what it gains. */
static inline int64_t field_gain(const int64_t *fields, const int64_t *tables,
                                 const int64_t *offsets, Py_ssize_t c, int64_t key) {
    return tables[offsets[c] + ((key >> fields[3 * c + 1]) & fields[3 * c + 2])];
}

/*
 * Rewrite fields of the keys, then group them: fields[3c..3c+2] = (word, shift, mask) of the
 * c-th field rewritten; a key whose field holds code v gains tables[offsets[c] + v]. The
 * distinct rewritten keys go to the front of each row of `out` (n_words x n), in the order
 * of their first occurrence; sums[g] adds up the counts of group g.
 */
static Py_ssize_t rollup_keys(const int64_t *words, Py_ssize_t n_words, Py_ssize_t n,
                              const int64_t *fields, Py_ssize_t n_fields, const int64_t *tables,
                              const int64_t *offsets, const int64_t *counts, int64_t *out,
                              int64_t *sums) {
    int64_t *rewritten = malloc(sizeof(int64_t) * n_words * n);
    int64_t *first = malloc(sizeof(int64_t) * (n > 0 ? n : 1));
    if (rewritten == NULL || first == NULL) {
        free(rewritten);
        free(first);
        return -1;
    }
    memcpy(rewritten, words, sizeof(int64_t) * n_words * n);
    for (Py_ssize_t c = 0; c < n_fields; c++) {
        const int64_t *source = words + fields[3 * c] * n;
        int64_t *target = rewritten + fields[3 * c] * n;
        for (Py_ssize_t i = 0; i < n; i++) {
            target[i] += field_gain(fields, tables, offsets, c, source[i]);
        }
    }
    Py_ssize_t groups = group_keys(rewritten, n_words, n, counts, first, sums, NULL);
    for (Py_ssize_t w = 0; w < n_words && groups > 0; w++) {
        for (Py_ssize_t g = 0; g < groups; g++) {
            out[w * n + g] = rewritten[w * n + first[g]];
        }
    }
    free(rewritten);
    free(first);
    return groups;
}

static PyObject *rollup(PyObject *self, PyObject *args) {
    Py_buffer words, fields, tables, offsets, counts, out, sums;
    Py_ssize_t n_words, n, n_fields;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*nny*ny*y*y*w*w*", &words, &n_words, &n, &fields, &n_fields,
                          &tables, &offsets, &counts, &out, &sums)) {
        return NULL;
    }
    if (int64_buffer(&words, n_words * n, "words") &&
        int64_buffer(&fields, 3 * n_fields, "fields") &&
        int64_buffer(&offsets, n_fields, "offsets") && int64_buffer(&counts, n, "counts") &&
        int64_buffer(&out, n_words * n, "out") && int64_buffer(&sums, n, "sums")) {
        if (tables.itemsize != 8 || tables.len % 8 != 0) {
            PyErr_SetString(PyExc_ValueError, "tables: expected int64 values");
        } else {
            Py_ssize_t groups;
            Py_BEGIN_ALLOW_THREADS
            groups = rollup_keys(words.buf, n_words, n, fields.buf, n_fields, tables.buf,
                                 offsets.buf, counts.buf, out.buf, sums.buf);
            Py_END_ALLOW_THREADS
            result = groups < 0 ? PyErr_NoMemory() : PyLong_FromSsize_t(groups);
        }
    }
    PyBuffer_Release(&words);
    PyBuffer_Release(&fields);
    PyBuffer_Release(&tables);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&counts);
    PyBuffer_Release(&out);
    PyBuffer_Release(&sums);
    return result;
}

/* A text's first 16 bytes, zero-padded (exact for a text of at most 16 bytes, on any byte
 * order), its last 8 (for a text of 17 to 24 bytes: with the first 16, all of it), and a
 * hash of all of it. */
typedef struct {
    uint64_t head[2];
    uint64_t tail;
    uint64_t hash;
} text_key;

#if defined(__SIZEOF_INT128__)
/* The low `bytes` bytes of a word (0 to 8): a shift of 128 bits, which compilers do without
 * a branch (texts of mixed lengths would mispredict one). */
static inline uint64_t low_bytes(int64_t bytes) {
    return (uint64_t)((((unsigned __int128)1) << (8 * bytes)) - 1);
}
#else
static inline uint64_t low_bytes(int64_t bytes) {
    return bytes ? ~(uint64_t)0 >> (64 - 8 * bytes) : 0;
}
#endif

/* Multipliers whose high bits spread texts that differ in any byte (the slot is the hash's
 * high bits): the golden ratio's and xxHash's primes. */
#define MIX_HEAD0 0x9E3779B97F4A7C15ULL
#define MIX_HEAD1 0xC2B2AE3D27D4EB4FULL
#define MIX_TAIL 0x165667B19E3779F9ULL
#define MIX_LENGTH 0x27D4EB2F165667C5ULL

static inline text_key key_of_text(const uint8_t *text, int64_t len, int64_t room) {
    text_key key = {{0, 0}, 0, 0};
    uint64_t h = (uint64_t)len * MIX_LENGTH;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (room >= 16 && len <= 24) { /* fixed loads, the bytes past the text masked off, and
                                    * no branch on the length (texts of mixed lengths) */
        const int64_t first = len < 8 ? len : 8, rest = len - 8 > 0 ? len - 8 : 0;
        const int64_t second = rest < 8 ? rest : 8;
        memcpy(key.head, text, 16);
        key.head[0] &= low_bytes(first);
        key.head[1] &= low_bytes(second);
        uint64_t tail;
        memcpy(&tail, text + (len > 16 ? len - 8 : 0), 8);
        key.tail = len > 16 ? tail : 0;
        /* the words are multiplied side by side (no chain of multiplications) */
        key.hash = h ^ (key.head[0] * MIX_HEAD0) ^ (key.head[1] * MIX_HEAD1) ^ (key.tail * MIX_TAIL);
        return key;
    }
#endif
    memcpy(key.head, text, (size_t)(len < 16 ? len : 16));
    h ^= (key.head[0] * MIX_HEAD0) ^ (key.head[1] * MIX_HEAD1);
    if (len > 16) {
        memcpy(&key.tail, text + len - 8, 8);
        h ^= key.tail * MIX_TAIL;
        for (int64_t at = 16; at < len - 8; at += 8) { /* the middle of a longer text */
            uint64_t w;
            memcpy(&w, text + at, 8);
            h = (h ^ w) * MIX_HEAD0;
        }
    }
    key.hash = h;
    return key;
}

typedef struct {
    text_key key;
    int64_t len;
    int64_t number; /* -1: empty */
} text_slot;

/*
 * Factorize the n texts of an Arrow (large) string array: bytes offsets[offset + i] to
 * offsets[offset + i + 1] of `data` are text i, missing where its validity bit (bit
 * offset + i of `validity`, when given) is 0. codes[i] is the text's number in the order of
 * first occurrence (-1: missing), first[u] the position where text u first occurs. Texts of
 * at most 24 bytes compare by their key; longer ones byte for byte.
 */
static Py_ssize_t factorize_text(const int64_t *offsets, const uint8_t *data,
                                 int64_t data_len, const uint8_t *validity, Py_ssize_t offset,
                                 Py_ssize_t n, int64_t *codes, int64_t *first) {
    int bits = 8;
    text_slot *slots = NULL;
    Py_ssize_t uniques = 0;
    for (;;) { /* a table for 2**(bits - 1) texts (at first 128: a column of words fits, with
                * few collisions); when more come, start again twice as big */
        uint64_t mask = ((uint64_t)1 << bits) - 1;
        free(slots);
        slots = malloc(sizeof(text_slot) << bits);
        if (slots == NULL) {
            return -1;
        }
        for (uint64_t s = 0; s <= mask; s++) {
            slots[s].number = -1;
        }
        uniques = 0;
        Py_ssize_t i = 0;
        for (; i < n && 2 * uniques <= (Py_ssize_t)mask; i++) {
            Py_ssize_t at = offset + i;
            if (validity != NULL && !((validity[at >> 3] >> (at & 7)) & 1)) {
                codes[i] = -1;
                continue;
            }
            const uint8_t *text = data + offsets[at];
            const int64_t len = offsets[at + 1] - offsets[at];
            const text_key key = key_of_text(text, len, data_len - offsets[at]);
            uint64_t h = key.hash >> (64 - bits);
            for (;;) {
                text_slot *slot = &slots[h];
                if (slot->number < 0) {
                    slot->key = key;
                    slot->len = len;
                    slot->number = uniques;
                    first[uniques++] = i;
                    codes[i] = slot->number;
                    break;
                }
                if (slot->key.hash == key.hash && slot->len == len &&
                    slot->key.head[0] == key.head[0] && slot->key.head[1] == key.head[1] &&
                    slot->key.tail == key.tail &&
                    (len <= 24 || memcmp(data + offsets[offset + first[slot->number]], text,
                                         (size_t)len) == 0)) {
                    codes[i] = slot->number;
                    break;
                }
                h = (h + 1) & mask;
            }
        }
        if (i == n) {
            break;
        }
        bits++;
    }
    free(slots);
    return uniques;
}

static PyObject *factorize_strings(PyObject *self, PyObject *args) {
    Py_buffer offsets, data, validity = {0}, codes, first;
    Py_ssize_t offset, n;
    PyObject *validity_object, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*Onnw*w*", &offsets, &data, &validity_object, &offset, &n,
                          &codes, &first)) {
        return NULL;
    }
    int checked = 0;
    if (validity_object != Py_None &&
        PyObject_GetBuffer(validity_object, &validity, PyBUF_SIMPLE) < 0) {
        validity.buf = NULL;
    } else if (offsets.itemsize != 8 || offsets.len < (offset + n + 1) * 8) {
        PyErr_SetString(PyExc_ValueError, "offsets: expected the int64 offsets of every text");
    } else if (validity.buf != NULL && validity.len * 8 < offset + n) {
        PyErr_SetString(PyExc_ValueError, "validity: expected a bit per text");
    } else if (int64_buffer(&codes, n, "codes") && int64_buffer(&first, n, "first")) {
        checked = 1;
    }
    if (checked) {
        Py_ssize_t uniques;
        Py_BEGIN_ALLOW_THREADS
        uniques = factorize_text(offsets.buf, data.buf, data.len, validity.buf, offset, n,
                                 codes.buf, first.buf);
        Py_END_ALLOW_THREADS
        result = uniques < 0 ? PyErr_NoMemory() : PyLong_FromSsize_t(uniques);
    }
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&data);
    if (validity.buf != NULL) {
        PyBuffer_Release(&validity);
    }
    PyBuffer_Release(&codes);
    PyBuffer_Release(&first);
    return result;
}

/* Whether every code names a text of n_texts, or is -1; else a ValueError. */
static int codes_of_texts(const int64_t *code, Py_ssize_t n, Py_ssize_t n_texts) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (code[i] < -1 || code[i] >= n_texts) {
            PyErr_SetString(PyExc_ValueError, "codes: expected codes of texts, or -1");
            return 0;
        }
    }
    return 1;
}

/* Whether `offsets` (int64) hold the offsets of texts start .. start + n_texts of `data`. */
static int text_offsets_fit(const Py_buffer *offsets, const Py_buffer *data, Py_ssize_t start,
                            Py_ssize_t n_texts) {
    const int64_t *at = (const int64_t *)offsets->buf + start;
    if (offsets->itemsize != 8 || start < 0 || offsets->len < (start + n_texts + 1) * 8 ||
        (n_texts > 0 && (at[0] < 0 || at[n_texts] > data->len))) {
        PyErr_SetString(PyExc_ValueError, "offsets: expected the int64 offsets of every text");
        return 0;
    }
    return 1;
}

/* An optional int64 buffer (None: not given), or a ValueError naming `what`. */
static int optional_rows(PyObject *object, Py_buffer *view) {
    if (object == Py_None) {
        view->buf = NULL;
        return 1;
    }
    if (PyObject_GetBuffer(object, view, PyBUF_SIMPLE) < 0) {
        view->buf = NULL;
        return 0;
    }
    if (view->len % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "rows: expected int64 values");
        return 0;
    }
    return 1;
}

/* The code of output text i: codes[rows[i]] (rows given) or codes[i]; -2 when rows[i] names
 * no code. */
static inline int64_t code_at(const int64_t *code, Py_ssize_t n_codes, const int64_t *rows,
                              Py_ssize_t i) {
    if (rows == NULL) {
        return code[i];
    }
    const int64_t r = rows[i];
    return (uint64_t)r < (uint64_t)n_codes ? code[r] : -2;
}

/*
 * The bytes of the texts taken by code (take_texts): text codes[i] of an Arrow (large) string
 * array (bytes offsets[start + v] to offsets[start + v + 1] of `data` are text v), or with
 * `rows` text codes[rows[i]], or with `counts` (int64, one per code; rows then None) text
 * codes[i] counts[i] times; a code of -1 (missing) takes none.
 */
static PyObject *texts_size(PyObject *self, PyObject *args) {
    Py_buffer offsets, data, codes, rows = {0}, counts = {0};
    Py_ssize_t start, n_texts;
    PyObject *rows_object, *counts_object = Py_None, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*nny*O|O", &offsets, &data, &start, &n_texts, &codes,
                          &rows_object, &counts_object)) {
        return NULL;
    }
    const Py_ssize_t n_codes = codes.len / 8;
    const int64_t *code = codes.buf, *at = (const int64_t *)offsets.buf + start;
    if (optional_rows(rows_object, &rows) && optional_rows(counts_object, &counts) &&
        text_offsets_fit(&offsets, &data, start, n_texts) &&
        int64_buffer(&codes, n_codes, "codes") && codes_of_texts(code, n_codes, n_texts)) {
        const int64_t *row = rows.buf, *count = counts.buf;
        const Py_ssize_t n = row == NULL ? n_codes : rows.len / 8;
        int64_t total = 0;
        Py_ssize_t i = 0;
        if (count != NULL && (row != NULL || counts.len != n_codes * 8)) {
            PyErr_SetString(PyExc_ValueError, "counts: expected a count per code, and no rows");
        } else {
            for (; i < n; i++) {
                const int64_t v = code_at(code, n_codes, row, i);
                if (v == -2) {
                    break;
                }
                total += (v < 0 ? 0 : at[v + 1] - at[v]) * (count != NULL ? count[i] : 1);
            }
            if (i < n) {
                PyErr_SetString(PyExc_ValueError, "rows: expected positions of codes");
            } else {
                result = PyLong_FromLongLong((long long)total);
            }
        }
    }
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&data);
    PyBuffer_Release(&codes);
    if (rows.buf != NULL) {
        PyBuffer_Release(&rows);
    }
    if (counts.buf != NULL) {
        PyBuffer_Release(&counts);
    }
    return result;
}

/*
 * Take texts by code in one pass: text codes[i] (or codes[rows[i]]) of an Arrow (large)
 * string array becomes text i of a new one, its offsets (one more than the texts, from 0)
 * written to out_offsets and its bytes to out_data, which must hold them and 32 bytes more
 * (texts_size, or the caller's own count): a text of at most 32 bytes is copied as 32 (loads
 * and stores of a fixed size, no call to memcpy and no branch on its length), what it writes
 * past its end being overwritten by the texts after it. Never writes past out_data: texts
 * that do not fit raise a ValueError. Returns the bytes written.
 */
static PyObject *take_texts(PyObject *self, PyObject *args) {
    Py_buffer offsets, data, codes, rows = {0}, out_offsets, out_data;
    Py_ssize_t start, n_texts;
    PyObject *rows_object, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*nny*Ow*w*", &offsets, &data, &start, &n_texts, &codes,
                          &rows_object, &out_offsets, &out_data)) {
        return NULL;
    }
    const Py_ssize_t n_codes = codes.len / 8;
    const int64_t *code = codes.buf, *at = (const int64_t *)offsets.buf + start;
    int checked = optional_rows(rows_object, &rows) &&
                  text_offsets_fit(&offsets, &data, start, n_texts) &&
                  int64_buffer(&codes, n_codes, "codes") && codes_of_texts(code, n_codes, n_texts);
    const int64_t *row = rows.buf;
    const Py_ssize_t n = row == NULL ? n_codes : rows.len / 8;
    checked = checked && int64_buffer(&out_offsets, n + 1, "out_offsets");
    Py_ssize_t i = 0;
    int64_t position = 0;
    char *padded = NULL; /* a few labels: copied with 32 bytes of room, for fixed loads */
    if (checked && data.len < 65536 && (padded = malloc((size_t)data.len + 32)) != NULL) {
        memcpy(padded, data.buf, (size_t)data.len);
        memset(padded + data.len, 0, 32);
    }
    if (checked) {
        int64_t *out = out_offsets.buf;
        char *bytes = out_data.buf;
        const char *texts = padded != NULL ? padded : data.buf;
        const int64_t room = out_data.len, readable = data.len - (padded != NULL ? 0 : 32);
        out[0] = 0;
        Py_BEGIN_ALLOW_THREADS
        for (; i < n; i++) {
            const int64_t v = code_at(code, n_codes, row, i);
            const int64_t length = v < 0 ? 0 : at[v + 1] - at[v];
            if (v == -2 || position + length + 32 > room) {
                break;
            }
            if (length <= 32 && at[v] <= readable) {
                memcpy(bytes + position, texts + at[v], 32);
            } else if (length > 0) {
                memcpy(bytes + position, texts + at[v], (size_t)length);
            }
            position += length;
            out[i + 1] = position;
        }
        Py_END_ALLOW_THREADS
    }
    free(padded);
    if (checked && i == n) {
        result = PyLong_FromLongLong((long long)position);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError,
                        "rows, out_data: expected positions of codes, and room for the texts "
                        "and 32 bytes more");
    }
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&data);
    PyBuffer_Release(&codes);
    if (rows.buf != NULL) {
        PyBuffer_Release(&rows);
    }
    PyBuffer_Release(&out_offsets);
    PyBuffer_Release(&out_data);
    return result;
}

/* -- a pool of memory for numpy's arrays --------------------------------------------------- */

/*
 * Memory the system hands out costs a page fault per 4 KiB at first touch (2 to 3 µs each on
 * the machines we measure on), and the system allocator gives large blocks back as soon as
 * they are freed: an anonymization allocates and frees the same arrays of a few hundred KiB
 * call after call, and paid more in page faults than in arithmetic. The pool keeps freed
 * blocks of POOL_MIN to POOL_MAX bytes, by size class (four per doubling), for the next
 * arrays of that class, up to `pool_limit` bytes in all (beyond, the spare blocks of the
 * classes least recently used are given back first); smaller and larger blocks go to the
 * system as before. numpy allocates through it inside `pooled()` (pandas_anon.engine.memory):
 * the handler is numpy's per-context allocation policy, so other code is never affected,
 * and an array keeps the handler that allocated it for its whole life.
 *
 * Each block starts with a header (its class, -1 for a block of the system's, -3 for the
 * kernels' sparse scratch, -4 - size for a small one) so that a block is given back to where
 * it came from whatever size numpy says it frees.
 */
#define POOL_MIN ((size_t)64 << 10)
#define POOL_MAX ((size_t)64 << 20)
#define POOL_CLASSES 128
#define HEADER 16 /* keeps the alignment of malloc (16 bytes) */
#define SPARSE_CLASS (-3) /* the header's class of the kernels' sparse scratch */

typedef struct spare_block {
    struct spare_block *next;
} spare_block;

static spare_block *pool_spares[POOL_CLASSES];
static uint64_t pool_touched[POOL_CLASSES]; /* when each class was last allocated or freed */
static uint64_t pool_clock = 0;
static size_t pool_held = 0;               /* bytes kept in pool_spares */
static size_t pool_limit = (size_t)128 << 20;
static PyThread_type_lock pool_lock = NULL;

static int pool_class(size_t bytes) {
    int e = 16; /* 2**e < bytes <= 2**(e + 1), bytes > POOL_MIN = 2**16 */
    while (((size_t)1 << (e + 1)) < bytes) {
        e++;
    }
    const size_t step = (size_t)1 << (e - 2);
    return (e - 16) * 4 + (int)((bytes - ((size_t)1 << e) + step - 1) / step) - 1;
}

static size_t pool_class_bytes(int c) {
    const int e = c / 4 + 16;
    return ((size_t)1 << e) + (size_t)(c % 4 + 1) * ((size_t)1 << (e - 2));
}

static void *with_header(char *block, int64_t c) {
    if (block == NULL) {
        return NULL;
    }
    memcpy(block, &c, sizeof(c));
    return block + HEADER;
}

/* Blocks of fewer bytes than SMALL_SIZES are kept, SMALL_KEEP of each size, as numpy's own
 * allocator keeps them (most arrays are a few bytes): under the GIL, which guards them. */
#define SMALL_SIZES 1024
#define SMALL_KEEP 8
static char *small_blocks[SMALL_SIZES][SMALL_KEEP];
static int small_kept[SMALL_SIZES];

static void *pool_malloc(void *ctx, size_t size) {
    if (size > POOL_MIN && size <= POOL_MAX) {
        const int c = pool_class(size);
        PyThread_acquire_lock(pool_lock, WAIT_LOCK);
        pool_touched[c] = ++pool_clock;
        spare_block *found = pool_spares[c];
        if (found != NULL) {
            pool_spares[c] = found->next;
            pool_held -= pool_class_bytes(c) + HEADER;
        }
        PyThread_release_lock(pool_lock);
        if (found == NULL) {
            found = malloc(pool_class_bytes(c) + HEADER);
        }
        return with_header((char *)found, c);
    }
    if (size < SMALL_SIZES) {
        char *block = NULL;
        if (small_kept[size] > 0 && PyGILState_Check()) {
            block = small_blocks[size][--small_kept[size]];
        }
        return with_header(block != NULL ? block : malloc(size + HEADER), -4 - (int64_t)size);
    }
    return with_header(malloc(size + HEADER), -1);
}

/* Zeroed memory: the system's, whose zero pages cost nothing until they are written (a table
 * of counts, mostly untouched, is common); zeroing a kept block costs more. */
static void *pool_calloc(void *ctx, size_t n, size_t size) {
    if (size != 0 && n > (SIZE_MAX - HEADER) / size) {
        return NULL;
    }
    return with_header(calloc(1, n * size + HEADER), -1);
}

/* Make room for `bytes` more in the pool, under pool_lock: the spare blocks of the classes
 * least recently used (other than `keep`) given back to the system, so that the pool holds
 * the blocks of the work at hand rather than those of earlier, different work (a worker
 * that counts partitions, then adds up their counts). 1 when there is room. */
static int pool_room(size_t bytes, int keep) {
    while (pool_held + bytes > pool_limit) {
        int oldest = -1;
        for (int c = 0; c < POOL_CLASSES; c++) {
            if (c != keep && pool_spares[c] != NULL &&
                (oldest < 0 || pool_touched[c] < pool_touched[oldest])) {
                oldest = c;
            }
        }
        if (oldest < 0) {
            return 0;
        }
        spare_block *spare = pool_spares[oldest];
        pool_spares[oldest] = spare->next;
        pool_held -= pool_class_bytes(oldest) + HEADER;
        free(spare);
    }
    return 1;
}

static void pool_free(void *ctx, void *data, size_t size) {
    if (data == NULL) {
        return;
    }
    char *block = (char *)data - HEADER;
    int64_t c;
    memcpy(&c, block, sizeof(c));
    if (c >= 0) {
        const size_t bytes = pool_class_bytes((int)c) + HEADER;
        PyThread_acquire_lock(pool_lock, WAIT_LOCK);
        pool_touched[c] = ++pool_clock;
        if (bytes <= pool_limit && pool_room(bytes, (int)c)) {
            spare_block *kept = (spare_block *)block;
            kept->next = pool_spares[c];
            pool_spares[c] = kept;
            pool_held += bytes;
            block = NULL;
        }
        PyThread_release_lock(pool_lock);
#ifndef _WIN32
    } else if (c == SPARSE_CLASS) {
        size_t mapped;
        memcpy(&mapped, block + sizeof(int64_t), sizeof(mapped));
        munmap(block, mapped);
        return;
#endif
    } else if (c <= -4) {
        const int64_t small = -4 - c;
        if (small_kept[small] < SMALL_KEEP && PyGILState_Check()) {
            small_blocks[small][small_kept[small]++] = block;
            block = NULL;
        }
    }
    free(block);
}

static void *pool_realloc(void *ctx, void *data, size_t size) {
    if (data == NULL) {
        return pool_malloc(ctx, size);
    }
    int64_t c;
    memcpy(&c, (char *)data - HEADER, sizeof(c));
    if (c < 0) { /* the system's block (small or large): the system's realloc */
        return with_header(realloc((char *)data - HEADER, size + HEADER), -1);
    }
    const size_t room = pool_class_bytes((int)c);
    if (size <= room && size > POOL_MIN) {
        return data; /* still fits its block (numpy shrinks, and grows in steps) */
    }
    char *moved = pool_malloc(ctx, size);
    if (moved != NULL) {
        memcpy(moved, data, size < room ? size : room);
        pool_free(ctx, data, room);
    }
    return moved;
}

static PyDataMem_Handler pool_handler = {
    "pandas_anon_pool",
    1,
    {NULL, pool_malloc, pool_calloc, pool_realloc, pool_free},
};

static PyObject *pool_capsule = NULL;

/* Free the spare blocks; the bytes the pool held. */
static size_t pool_release(void) {
    size_t held;
    PyThread_acquire_lock(pool_lock, WAIT_LOCK);
    held = pool_held;
    for (int c = 0; c < POOL_CLASSES; c++) {
        while (pool_spares[c] != NULL) {
            spare_block *next = pool_spares[c]->next;
            free(pool_spares[c]);
            pool_spares[c] = next;
        }
    }
    pool_held = 0;
    PyThread_release_lock(pool_lock);
    return held;
}

static PyObject *use_pool(PyObject *self, PyObject *args) {
    return PyDataMem_SetHandler(pool_capsule); /* the handler before: restore_handler's */
}

static PyObject *restore_handler(PyObject *self, PyObject *previous) {
    PyObject *ours = PyDataMem_SetHandler(previous);
    if (ours == NULL) {
        return NULL;
    }
    Py_DECREF(ours);
    Py_RETURN_NONE;
}

static PyObject *release_pool(PyObject *self, PyObject *args) {
    return PyLong_FromSize_t(pool_release());
}

static PyObject *pool_state(PyObject *self, PyObject *args) {
    size_t held, limit;
    PyThread_acquire_lock(pool_lock, WAIT_LOCK);
    held = pool_held;
    limit = pool_limit;
    PyThread_release_lock(pool_lock);
    return Py_BuildValue("nn", (Py_ssize_t)held, (Py_ssize_t)limit);
}

static PyObject *set_pool_limit(PyObject *self, PyObject *args) {
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n", &limit)) {
        return NULL;
    }
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "limit: expected a number of bytes, at least 0");
        return NULL;
    }
    PyThread_acquire_lock(pool_lock, WAIT_LOCK);
    pool_limit = (size_t)limit;
    PyThread_release_lock(pool_lock);
    if (pool_held > (size_t)limit) {
        pool_release();
    }
    Py_RETURN_NONE;
}


/* -- a frame's rows grouped into their combinations ----------------------------------------- */

static void *scratch(size_t bytes) { return pool_malloc(NULL, bytes > 0 ? bytes : 1); }

/* Scratch sized for the worst case and mostly left untouched (a slot per row where there is
 * one per distinct value or combination): pages of their own from the system, which cost
 * nothing until written and all go back when freed (class SPARSE, the mapping's size after
 * it in the header), rather than the pool's blocks, which it would hold whole, or malloc's,
 * which may keep a large block's pages once written. Small ones, and where there is no
 * mmap, are the pool's. Freed by scratch_free. */
#define SPARSE_MIN ((size_t)1 << 20)
static void *sparse_scratch(size_t bytes) {
#ifdef _WIN32
    return scratch(bytes);
#else
    if (bytes < SPARSE_MIN) {
        return scratch(bytes);
    }
    const size_t mapped = bytes + HEADER;
    char *block = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) {
        return NULL;
    }
    memcpy(block + sizeof(int64_t), &mapped, sizeof(mapped));
    return with_header(block, SPARSE_CLASS);
#endif
}

static void scratch_free(void *data) { pool_free(NULL, data, 0); }

/* A new int64 numpy array of `n` values (through numpy's handler in this context). */
static PyArrayObject *int64_array(Py_ssize_t n) {
    npy_intp dims[1] = {n};
    return (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT64);
}

/* One column of a frame as tabulate_rows reads it. */
typedef struct {
    int text;
    Py_buffer offsets, data, validity, given, out;
    Py_ssize_t offset, null_count, cardinality;
    int64_t *codes, *first; /* a text column's codes and first rows (factorized) */
    Py_ssize_t found;       /* its distinct texts (-1: out of memory) */
} read_column;

/* Factorize the text columns of `columns` (every other one, from `start`). */
static void factorize_columns(read_column *columns, Py_ssize_t q, Py_ssize_t start,
                              Py_ssize_t step, Py_ssize_t n) {
    for (Py_ssize_t j = start; j < q; j += step) {
        read_column *c = &columns[j];
        if (c->text) {
            c->found = factorize_text(c->offsets.buf, c->data.buf, c->data.len, c->validity.buf,
                                      c->offset, n, c->codes, c->first);
        }
    }
}

typedef struct {
    read_column *columns;
    Py_ssize_t q, n;
    PyThread_type_lock done;
} factorizing;

static void factorize_odd_columns(void *argument) {
    factorizing *work = argument;
    factorize_columns(work->columns, work->q, 1, 2, work->n);
    PyThread_release_lock(work->done);
}

/* Factorize every text column: in two threads (this one the even columns, another the odd
 * ones) when `threads`, else here. */
static void factorize_all(read_column *columns, Py_ssize_t q, Py_ssize_t n, int threads) {
    factorizing work = {columns, q, n, threads ? PyThread_allocate_lock() : NULL};
    int started = 0;
    if (work.done != NULL) {
        PyThread_acquire_lock(work.done, WAIT_LOCK);
        started = PyThread_start_new_thread(factorize_odd_columns, &work) !=
                  PYTHREAD_INVALID_THREAD_ID;
    }
    factorize_columns(columns, q, 0, started ? 2 : 1, n);
    if (started) {
        PyThread_acquire_lock(work.done, WAIT_LOCK); /* the other thread has finished */
    }
    if (work.done != NULL) {
        PyThread_release_lock(work.done);
        PyThread_free_lock(work.done);
    }
}

/* Read column `object` of n rows into `c`: 1, or 0 with a Python error set. */
static int read_spec(PyObject *object, Py_ssize_t n, read_column *c) {
    PyObject *validity = Py_None;
    c->text = PyTuple_Check(object) &&
              (PyTuple_GET_SIZE(object) == 5 || PyTuple_GET_SIZE(object) == 6);
    if (!c->text) {
        if (!PyArg_ParseTuple(object, "y*n", &c->given, &c->cardinality)) {
            return 0;
        }
        if (!int64_buffer(&c->given, n, "codes")) {
            return 0;
        }
        if (c->cardinality < 0) {
            PyErr_SetString(PyExc_ValueError, "codes: expected a cardinality of at least 0");
            return 0;
        }
        c->found = c->cardinality; /* each code checked as it is folded */
        return 1;
    }
    if (!PyArg_ParseTuple(object, "y*y*Onn|w*", &c->offsets, &c->data, &validity, &c->offset,
                          &c->null_count, &c->out)) {
        return 0;
    }
    if (c->out.obj != NULL) { /* the caller's array receives the column's codes */
        if (!int64_buffer(&c->out, n, "codes out")) {
            return 0;
        }
        c->codes = c->out.buf;
    }
    if (validity != Py_None && PyObject_GetBuffer(validity, &c->validity, PyBUF_SIMPLE) < 0) {
        return 0;
    }
    if (c->offsets.itemsize != 8 || c->offset < 0 || c->offsets.len < (c->offset + n + 1) * 8 ||
        (c->validity.buf != NULL && c->validity.len * 8 < c->offset + n)) {
        PyErr_SetString(PyExc_ValueError, "columns: expected the offsets of n texts");
        return 0;
    }
    return 1;
}

static void release_column(read_column *c, int own_codes) {
    if (own_codes) {
        if (c->out.obj == NULL) {
            scratch_free(c->codes);
        }
        scratch_free(c->first);
    }
    Py_buffer *views[] = {&c->offsets, &c->data, &c->validity, &c->given, &c->out};
    for (size_t v = 0; v < 5; v++) {
        if (views[v]->obj != NULL) {
            PyBuffer_Release(views[v]);
        }
    }
}

/* Work space beyond which the text columns are factorized one at a time, in this thread. */
#define THREADED_BYTES ((size_t)64 << 20)
/* Rows beyond which a second thread pays for its start. */
#define THREADED_ROWS 10000
/* The most columns tabulate_rows reads in one call (exported as TABULATED_COLUMNS: a wider
 * frame takes the general path, whose keys are too wide for one word anyway). */
#define TABULATED_COLUMNS 1024

/*
 * tabulate_rows(columns, n, dense_limit, key_limit): the n rows of a frame grouped into their
 * combinations of columns, read in one call (pandas_anon.engine.backends.pandas.tabulate).
 * Each column is either Arrow text, a tuple (offsets as int64, data, validity or None,
 * offset, null count[, codes out]), factorized here in the order of first occurrence (a missing
 * text coded after the others; two columns at a time in two threads on a frame of more than
 * THREADED_ROWS rows; with codes out, a writable int64 array of n, each row's code is left
 * there, a missing text's too: codes such a column can be given as next time); or codes
 * already found, a tuple (int64 codes, cardinality). The codes
 * are folded into mixed-radix keys column by column (the first column the most significant,
 * as grouping.combinations folds them), and the keys grouped in the hash table of
 * _grouping.h, which numbers each row's combination in the same pass, in the order of first
 * occurrence; or, when the key space is at most dense_limit, counted in a table of every key,
 * which numbers the combinations in key order (as grouping.combinations does). Returns None
 * when the keys would reach key_limit, (distinct texts per column, None) when a column holds
 * only missing values, else (distinct values per column, the position of each distinct
 * text's first row per text column (None for codes), each combination's codes (columns x
 * combinations), each combination's rows, each row's combination).
 */
static PyObject *tabulate_rows(PyObject *self, PyObject *args) {
    PyObject *specs;
    Py_ssize_t n;
    long long dense_limit, key_limit;
    if (!PyArg_ParseTuple(args, "O!nLL", &PyList_Type, &specs, &n, &dense_limit, &key_limit)) {
        return NULL;
    }
    const Py_ssize_t q = PyList_GET_SIZE(specs);
    if (n < 1 || q < 1 || q > TABULATED_COLUMNS) {
        PyErr_SetString(PyExc_ValueError,
                        "columns: expected 1 to TABULATED_COLUMNS columns of n > 0 rows");
        return NULL;
    }
    PyObject *result = NULL, *uniques = PyList_New(q), *firsts = PyList_New(q);
    read_column *columns = PyMem_Calloc((size_t)q, sizeof(read_column));
    int64_t *keys = scratch(sizeof(int64_t) * (size_t)n), *sums = NULL;
    PyArrayObject *labels = NULL, *counts = NULL, *combination_codes = NULL;
    Py_ssize_t texts = 0, parsed = 0;
    int own_codes = 0;
    int64_t *shared_codes = NULL, *shared_first = NULL; /* one column at a time: its codes */
    if (uniques == NULL || firsts == NULL || columns == NULL || keys == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; parsed < q; parsed++) {
        if (!read_spec(PyList_GET_ITEM(specs, parsed), n, &columns[parsed])) {
            parsed++;
            goto done;
        }
        texts += columns[parsed].text;
    }
    /* the text columns' codes: all at once (in two threads), or one column at a time */
    own_codes = n > THREADED_ROWS && texts > 1 &&
                (size_t)texts * 16 * (size_t)n <= THREADED_BYTES;
    for (Py_ssize_t j = 0; j < q; j++) {
        read_column *c = &columns[j];
        if (!c->text) {
            continue;
        }
        if (own_codes) { /* each column frees its own (release_column) */
            c->first = sparse_scratch(sizeof(int64_t) * (size_t)n);
            if (c->out.obj == NULL) {
                c->codes = scratch(sizeof(int64_t) * (size_t)n);
            }
        } else {
            if (shared_first == NULL) {
                shared_first = sparse_scratch(sizeof(int64_t) * (size_t)n);
            }
            if (c->out.obj == NULL && shared_codes == NULL) {
                shared_codes = scratch(sizeof(int64_t) * (size_t)n);
            }
            c->first = shared_first;
            if (c->out.obj == NULL) {
                c->codes = shared_codes;
            }
        }
        if (c->codes == NULL || c->first == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (own_codes) {
        Py_BEGIN_ALLOW_THREADS
        factorize_all(columns, q, n, 1);
        Py_END_ALLOW_THREADS
    }
    int64_t n_labels = 1, radixes[TABULATED_COLUMNS];
    for (Py_ssize_t j = 0; j < q; j++) {
        read_column *c = &columns[j];
        const int64_t *code = c->text ? c->codes : c->given.buf;
        if (c->text) {
            if (!own_codes) {
                Py_BEGIN_ALLOW_THREADS
                c->found = factorize_text(c->offsets.buf, c->data.buf, c->data.len,
                                          c->validity.buf, c->offset, n, c->codes, c->first);
                Py_END_ALLOW_THREADS
            }
            if (c->found < 0) {
                PyErr_NoMemory();
                goto done;
            }
            PyArrayObject *positions = int64_array(c->found);
            if (positions == NULL) {
                goto done;
            }
            memcpy(PyArray_DATA(positions), c->first, sizeof(int64_t) * (size_t)c->found);
            PyList_SET_ITEM(firsts, j, (PyObject *)positions);
            c->cardinality = c->found + (c->null_count > 0);
        } else {
            Py_INCREF(Py_None);
            PyList_SET_ITEM(firsts, j, Py_None);
        }
        PyList_SET_ITEM(uniques, j, PyLong_FromSsize_t(c->found));
        if (c->found == 0) { /* missing values only: the caller says which column */
            result = Py_BuildValue("OO", uniques, Py_None);
            goto done;
        }
        if (n_labels > key_limit / c->cardinality) { /* keys too wide for one word */
            Py_INCREF(Py_None);
            result = Py_None;
            goto done;
        }
        n_labels *= c->cardinality;
        radixes[j] = c->cardinality;
        const int64_t missing = c->found; /* a missing text: after the others */
        uint64_t outside = 0; /* given codes: any outside 0 .. cardinality - 1 */
        Py_BEGIN_ALLOW_THREADS
        if (c->text) {
            if (c->out.obj != NULL && c->null_count > 0) { /* the caller's codes: missing coded */
                for (Py_ssize_t i = 0; i < n; i++) {
                    c->codes[i] = c->codes[i] < 0 ? missing : c->codes[i];
                }
            }
            for (Py_ssize_t i = 0; i < n; i++) {
                const int64_t value = code[i] < 0 ? missing : code[i];
                keys[i] = j == 0 ? value : keys[i] * c->cardinality + value;
            }
        } else {
            const uint64_t radix = (uint64_t)c->cardinality;
            for (Py_ssize_t i = 0; i < n; i++) {
                outside |= (uint64_t)code[i] >= radix;
                keys[i] = j == 0 ? code[i] : keys[i] * c->cardinality + code[i];
            }
        }
        Py_END_ALLOW_THREADS
        if (outside) {
            PyErr_SetString(PyExc_ValueError, "codes: expected codes below the cardinality");
            goto done;
        }
    }
    labels = int64_array(n);
    sums = sparse_scratch(sizeof(int64_t) * (size_t)(n + 1));
    const int dense = n_labels <= dense_limit;
    /* dense: a count per key, the keys present numbered in key order (what counting every
     * key gives); else the hash table's numbers, in the order of first occurrence */
    int64_t *table = scratch(sizeof(int64_t) * (dense ? (size_t)n_labels : (size_t)1 << table_bits(n)));
    int64_t *group_key = sparse_scratch(sizeof(int64_t) * (size_t)(n + 1));
    if (labels == NULL || sums == NULL || table == NULL || group_key == NULL) {
        scratch_free(table);
        scratch_free(group_key);
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    int64_t *label = PyArray_DATA(labels);
    Py_ssize_t groups = 0;
    Py_BEGIN_ALLOW_THREADS
    if (dense) {
        memset(table, 0, sizeof(int64_t) * (size_t)n_labels);
        for (Py_ssize_t i = 0; i < n; i++) {
            table[keys[i]]++;
        }
        for (int64_t key = 0; key < n_labels; key++) {
            if (table[key] > 0) {
                sums[groups] = table[key];
                group_key[groups] = key;
                table[key] = groups++;
            }
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            label[i] = table[keys[i]];
        }
    } else {
        groups = group_keys_in(table, keys, 1, n, NULL, group_key, sums, label);
        for (Py_ssize_t g = 0; g < groups; g++) {
            group_key[g] = keys[group_key[g]]; /* the first row's key */
        }
    }
    Py_END_ALLOW_THREADS
    scratch_free(table);
    counts = int64_array(groups);
    npy_intp dims[2] = {q, groups};
    combination_codes = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT64);
    if (counts == NULL || combination_codes == NULL) {
        scratch_free(group_key);
        goto done;
    }
    int64_t *count = PyArray_DATA(counts), *decoded = PyArray_DATA(combination_codes);
    memcpy(count, sums, sizeof(int64_t) * (size_t)groups);
    int kept_codes = 1; /* every column's codes still here: read at each group's first row */
    for (Py_ssize_t j = 0; j < q; j++) {
        kept_codes &= !columns[j].text || own_codes || columns[j].out.obj != NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    if (kept_codes) { /* a gather per column, where dividing the keys costs a division each */
        int64_t *first = group_key; /* the keys are no longer needed */
        for (Py_ssize_t g = 0; g < groups; g++) {
            first[g] = -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            first[label[i]] = first[label[i]] < 0 ? i : first[label[i]];
        }
        for (Py_ssize_t j = 0; j < q; j++) {
            const read_column *c = &columns[j];
            const int64_t *code = c->text ? c->codes : c->given.buf, missing = c->found;
            int64_t *out = decoded + j * groups;
            for (Py_ssize_t g = 0; g < groups; g++) {
                const int64_t value = code[first[g]];
                out[g] = value < 0 ? missing : value;
            }
        }
    } else {
        for (Py_ssize_t g = 0; g < groups; g++) {
            int64_t key = group_key[g];
            for (Py_ssize_t j = q - 1; j >= 0; j--) {
                decoded[j * groups + g] = key % radixes[j];
                key /= radixes[j];
            }
        }
    }
    Py_END_ALLOW_THREADS
    scratch_free(group_key);
    result = Py_BuildValue("OOOOO", uniques, firsts, combination_codes, counts, labels);
done:
    if (columns != NULL) {
        for (Py_ssize_t j = 0; j < parsed; j++) {
            release_column(&columns[j], own_codes);
        }
        if (!own_codes) {
            scratch_free(shared_codes);
            scratch_free(shared_first);
        }
        PyMem_Free(columns);
    }
    Py_XDECREF(uniques);
    Py_XDECREF(firsts);
    Py_XDECREF(labels);
    Py_XDECREF(counts);
    Py_XDECREF(combination_codes);
    scratch_free(keys);
    scratch_free(sums);
    return result;
}

/*
 * The classes of a step of local recoding (pandas_anon.engine.hashing.step_groups): the keys
 * of the combinations `entries` (m positions into `words`, n_words x n), the first n_moved
 * with up[position] added to their word `word` (up NULL: none), grouped; out[i] is entry
 * i's group, numbered in the order of first occurrence, or -1 for a moved entry set aside:
 * with min_rows from 2 to 65,535, the moved keys whose hash bucket (at least twice as many
 * buckets as keys) holds fewer than min_rows rows (rows[position], whole numbers from 0) in
 * all, whose class holds fewer too.
 * Returns the number of groups, or -1 when memory runs out.
 */
static Py_ssize_t step_group_keys(const int64_t *words, Py_ssize_t n_words, Py_ssize_t n,
                                  const int64_t *entries, Py_ssize_t m, Py_ssize_t n_moved,
                                  Py_ssize_t word, const int64_t *up, const int64_t *rows,
                                  int64_t min_rows, int64_t *out) {
    Py_ssize_t size = m > 0 ? m : 1;
    int64_t *keys = malloc(sizeof(int64_t) * n_words * size);
    int64_t *bucket = NULL;
    uint16_t *bucket_rows = NULL; /* rows counted up to min_rows: a small table, in cache */
    int bits = table_bits(m);
    int filter = min_rows > 1 && min_rows <= UINT16_MAX && n_moved > 0;
    if (filter) {
        bucket = malloc(sizeof(int64_t) * size);
        bucket_rows = calloc((size_t)1 << bits, sizeof(uint16_t));
    }
    if (keys == NULL || (filter && (bucket == NULL || bucket_rows == NULL))) {
        free(keys);
        free(bucket);
        free(bucket_rows);
        return -1;
    }
    for (Py_ssize_t w = 0; w < n_words; w++) {
        const int64_t *source = words + w * n;
        int64_t *target = keys + w * m;
        for (Py_ssize_t i = 0; i < m; i++) {
            target[i] = source[entries[i]];
        }
        if (w == word && up != NULL) {
            for (Py_ssize_t i = 0; i < n_moved; i++) {
                target[i] += up[entries[i]];
            }
        }
    }
    Py_ssize_t kept = m;
    if (filter) {
        for (Py_ssize_t i = 0; i < m; i++) {
            bucket[i] = (int64_t)slot_of(keys, n_words, m, i, bits);
            int64_t sum = bucket_rows[bucket[i]] + rows[entries[i]];
            bucket_rows[bucket[i]] = (uint16_t)(sum < min_rows ? sum : min_rows);
        }
        kept = 0; /* the entries grouped, compacted to the front of each word's row */
        for (Py_ssize_t i = 0; i < m; i++) {
            if (i < n_moved && bucket_rows[bucket[i]] < min_rows) {
                out[i] = -1;
                continue;
            }
            for (Py_ssize_t w = 0; w < n_words; w++) {
                keys[w * m + kept] = keys[w * m + i];
            }
            out[i] = kept++;
        }
        free(bucket);
        free(bucket_rows);
        if (kept < m && n_words > 1) { /* rows of `kept` keys apart: the stride grouping reads */
            for (Py_ssize_t w = 1; w < n_words; w++) {
                memmove(keys + w * kept, keys + w * m, sizeof(int64_t) * kept);
            }
        }
    }
    Py_ssize_t groups = 0;
    if (kept > 0) {
        int64_t *first = malloc(sizeof(int64_t) * kept);
        int64_t *sums = malloc(sizeof(int64_t) * kept);
        int64_t *inverse = malloc(sizeof(int64_t) * kept);
        if (first == NULL || sums == NULL || inverse == NULL) {
            groups = -1;
        } else {
            groups = group_keys(keys, n_words, kept, NULL, first, sums, inverse);
        }
        if (groups >= 0) {
            for (Py_ssize_t i = 0; i < m; i++) {
                if (!filter) {
                    out[i] = inverse[i];
                } else if (out[i] >= 0) {
                    out[i] = inverse[out[i]];
                }
            }
        }
        free(first);
        free(sums);
        free(inverse);
    }
    free(keys);
    return groups;
}

static PyObject *step_groups(PyObject *self, PyObject *args) {
    Py_buffer words, entries, up = {0}, rows, out;
    Py_ssize_t n_words, n, m, n_moved, word;
    long long min_rows;
    PyObject *up_object;
    if (!PyArg_ParseTuple(args, "y*nny*nnnOy*Lw*", &words, &n_words, &n, &entries, &m, &n_moved,
                          &word, &up_object, &rows, &min_rows, &out)) {
        return NULL;
    }
    PyObject *result = NULL;
    int has_up = up_object != Py_None;
    if (has_up && PyObject_GetBuffer(up_object, &up, PyBUF_SIMPLE) < 0) {
        up.buf = NULL;
    } else if (int64_buffer(&words, n_words * n, "words") && int64_buffer(&entries, m, "entries") &&
               int64_buffer(&rows, n, "rows") && int64_buffer(&out, m, "out") &&
               (!has_up || int64_buffer(&up, n, "up"))) {
        Py_ssize_t groups;
        Py_BEGIN_ALLOW_THREADS
        groups = step_group_keys(words.buf, n_words, n, entries.buf, m, n_moved, word,
                                 has_up ? up.buf : NULL, rows.buf, (int64_t)min_rows, out.buf);
        Py_END_ALLOW_THREADS
        result = groups < 0 ? PyErr_NoMemory() : PyLong_FromSsize_t(groups);
    }
    PyBuffer_Release(&words);
    PyBuffer_Release(&entries);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&out);
    if (up.buf != NULL) {
        PyBuffer_Release(&up);
    }
    return result;
}

/*
 * The 2-way count estimate of the query error (pandas_anon.anonymization.utility): each
 * released pair of labels (lx[r], ly[r]) spreads its weight w[r] (its rows times ly's share)
 * over the values of ly (y_start/y_values: CSR, label -> values), into a table of
 * (x label, y value); each query (qx[q], qy[q]) then gathers, for each label of its x value
 * (x_start/x_labels: CSR, value -> labels, ascending), that label's share times its cell.
 * The released pairs come sorted by lx; the table holds `block` x labels at a time, so that
 * it stays small: a query keeps a cursor into its labels from one block to the next.
 * Returns 0, or -1 when the table cannot be allocated.
 */
static int spread_gather_pairs(Py_ssize_t n_released, const int64_t *lx, const int64_t *ly,
                               const double *w, const int64_t *y_start, const int64_t *y_values,
                               Py_ssize_t n_queries, const int64_t *qx, const int64_t *qy,
                               const int64_t *x_start, const int64_t *x_labels,
                               const double *x_share, Py_ssize_t n_x_labels, Py_ssize_t n_y_values,
                               Py_ssize_t block, double *out) {
    double *table = calloc((size_t)block * (size_t)n_y_values, sizeof(double));
    int64_t *cursor = malloc(sizeof(int64_t) * (n_queries > 0 ? n_queries : 1));
    if (table == NULL || cursor == NULL) {
        free(table);
        free(cursor);
        return -1;
    }
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        cursor[q] = x_start[qx[q]];
        out[q] = 0.0;
    }
    Py_ssize_t r = 0;
    for (Py_ssize_t low = 0; low < n_x_labels && r < n_released; low += block) {
        Py_ssize_t high = low + block;
        Py_ssize_t first = r;
        for (; r < n_released && lx[r] < high; r++) {
            double *row = table + (lx[r] - low) * n_y_values;
            for (int64_t p = y_start[ly[r]]; p < y_start[ly[r] + 1]; p++) {
                row[y_values[p]] += w[r];
            }
        }
        if (r == first) {
            continue; /* no released pair in the block: its labels gather nothing */
        }
        for (Py_ssize_t q = 0; q < n_queries; q++) {
            int64_t c = cursor[q], end = x_start[qx[q] + 1];
            double sum = 0.0;
            for (; c < end && x_labels[c] < low; c++) {
            }
            for (; c < end && x_labels[c] < high; c++) {
                sum += x_share[x_labels[c]] * table[(x_labels[c] - low) * n_y_values + qy[q]];
            }
            cursor[q] = c;
            out[q] += sum;
        }
        for (Py_ssize_t s = first; s < r; s++) { /* the table back to zeros */
            double *row = table + (lx[s] - low) * n_y_values;
            for (int64_t p = y_start[ly[s]]; p < y_start[ly[s] + 1]; p++) {
                row[y_values[p]] = 0.0;
            }
        }
    }
    free(table);
    free(cursor);
    return 0;
}

static PyObject *spread_gather(PyObject *self, PyObject *args) {
    Py_buffer lx, ly, w, y_start, y_values, qx, qy, x_start, x_labels, x_share, out;
    Py_ssize_t n_released, n_queries, n_x_labels, n_y_values, block;
    if (!PyArg_ParseTuple(args, "ny*y*y*y*y*ny*y*y*y*y*nnnw*", &n_released, &lx, &ly, &w,
                          &y_start, &y_values, &n_queries, &qx, &qy, &x_start, &x_labels,
                          &x_share, &n_x_labels, &n_y_values, &block, &out)) {
        return NULL;
    }
    PyObject *result = NULL;
    if (int64_buffer(&lx, n_released, "lx") && int64_buffer(&ly, n_released, "ly") &&
        int64_buffer(&w, n_released, "w") && int64_buffer(&qx, n_queries, "qx") &&
        int64_buffer(&qy, n_queries, "qy") && int64_buffer(&out, n_queries, "out") &&
        int64_buffer(&x_share, n_x_labels, "x_share") && block > 0) {
        int failed;
        Py_BEGIN_ALLOW_THREADS
        failed = spread_gather_pairs(n_released, lx.buf, ly.buf, w.buf, y_start.buf,
                                     y_values.buf, n_queries, qx.buf, qy.buf, x_start.buf,
                                     x_labels.buf, x_share.buf, n_x_labels, n_y_values, block,
                                     out.buf);
        Py_END_ALLOW_THREADS
        result = failed ? PyErr_NoMemory() : (Py_INCREF(Py_None), Py_None);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "spread_gather: block must be positive");
    }
    Py_buffer *views[] = {&lx, &ly, &w, &y_start, &y_values, &qx, &qy, &x_start, &x_labels,
                          &x_share, &out};
    for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
        PyBuffer_Release(views[i]);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"factorize_strings", factorize_strings, METH_VARARGS,
     "factorize_strings(offsets, data, validity, offset, n, codes, first) -> number of texts"},
    {"group", group, METH_VARARGS,
     "group(words, n_words, n, counts, first, sums[, inverse]) -> number of groups"},
    {"rollup", rollup, METH_VARARGS,
     "rollup(words, n_words, n, fields, n_fields, tables, offsets, counts, out, sums) -> "
     "number of groups"},
    {"texts_size", texts_size, METH_VARARGS,
     "texts_size(offsets, data, start, n_texts, codes, rows[, counts]) -> bytes taken"},
    {"take_texts", take_texts, METH_VARARGS,
     "take_texts(offsets, data, start, n_texts, codes, rows, out_offsets, out_data) -> bytes"},
    {"tabulate_rows", tabulate_rows, METH_VARARGS,
     "tabulate_rows(columns, n, dense_limit, key_limit) -> None, or (uniques, firsts, "
     "combination codes, counts, labels)"},
    {"use_pool", use_pool, METH_NOARGS,
     "use_pool() -> the handler numpy used: numpy allocates from the pool in this context"},
    {"restore_handler", restore_handler, METH_O,
     "restore_handler(previous) -> None: numpy allocates as before use_pool()"},
    {"release_pool", release_pool, METH_NOARGS, "release_pool() -> the bytes freed"},
    {"pool_state", pool_state, METH_NOARGS, "pool_state() -> (bytes held, limit)"},
    {"set_pool_limit", set_pool_limit, METH_VARARGS, "set_pool_limit(bytes) -> None"},
    {"step_groups", step_groups, METH_VARARGS,
     "step_groups(words, n_words, n, entries, m, n_moved, word, up, rows, min_rows, out) -> "
     "number of groups"},
    {"spread_gather", spread_gather, METH_VARARGS,
     "spread_gather(n_released, lx, ly, w, y_start, y_values, n_queries, qx, qy, x_start, "
     "x_labels, x_share, n_x_labels, n_y_values, block, out) -> None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Grouping bit-packed keys by hashing (see pandas_anon.engine.hashing).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void) {
    import_array();
    pool_lock = PyThread_allocate_lock();
    if (pool_lock == NULL) {
        return PyErr_NoMemory();
    }
    pool_capsule = PyCapsule_New(&pool_handler, "mem_handler", NULL);
    if (pool_capsule == NULL) {
        return NULL;
    }
    PyObject *created = PyModule_Create(&module);
    if (created != NULL &&
        PyModule_AddIntConstant(created, "TABULATED_COLUMNS", TABULATED_COLUMNS) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
