/*
 * Grouping bit-packed keys by hashing: the kernels of pandas_anon.engine.hashing.
 *
 * The grouping itself is in _grouping.h, shared with the optimal search's kernel. The Python
 * side allocates every output array and checks the shapes; these functions only read and
 * write the buffers given.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static inline text_key key_of_text(const uint8_t *text, int64_t len, int64_t room) {
    text_key key = {{0, 0}, 0, 0};
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (room >= 16) { /* two loads, the bytes past the text masked off */
        memcpy(key.head, text, 16);
        if (len < 16) {
            const uint64_t bits = 8 * (uint64_t)len;
            key.head[1] &= bits > 64 ? (~(uint64_t)0 >> (128 - bits)) : 0;
            key.head[0] &= bits >= 64 ? ~(uint64_t)0 : (bits ? ~(uint64_t)0 >> (64 - bits) : 0);
        }
    } else
#endif
        memcpy(key.head, text, (size_t)(len < 16 ? len : 16));
    /* the words are multiplied side by side (no chain of multiplications), then mixed */
    uint64_t h = ((uint64_t)len * GOLDEN) ^ (key.head[0] * 0xff51afd7ed558ccdULL) ^
                 (key.head[1] * 0xc4ceb9fe1a85ec53ULL);
    if (len > 16) {
        memcpy(&key.tail, text + len - 8, 8);
        h ^= key.tail * 0x9fb21c651e98df25ULL;
        for (int64_t at = 16; at < len - 8; at += 8) { /* the middle of a longer text */
            uint64_t w;
            memcpy(&w, text + at, 8);
            h = (h ^ w) * 0xff51afd7ed558ccdULL;
        }
    }
    h = (h ^ (h >> 32)) * 0xd6e8feb86659fd93ULL;
    key.hash = h ^ (h >> 29);
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
    int bits = 6;
    text_slot *slots = NULL;
    Py_ssize_t uniques = 0;
    for (;;) { /* a table for 2**(bits - 1) texts; when more come, start again twice as big */
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
            uint64_t h = key.hash & mask;
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
 * Take texts by code, first step: text codes[i] of an Arrow (large) string array (bytes
 * offsets[start + v] to offsets[start + v + 1] of `data` are text v) is to become text i of a
 * new one, or with `rows` text codes[rows[i]] (the codes of a few entries, spread to many
 * rows); its offsets (one more than the texts, from 0) go to out_offsets, a code of -1
 * (missing) taking no bytes. Returns the bytes the new texts take (copy_texts then copies
 * them).
 */
static PyObject *text_offsets(PyObject *self, PyObject *args) {
    Py_buffer offsets, data, codes, rows = {0}, out_offsets;
    Py_ssize_t start, n_texts;
    PyObject *rows_object, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*nny*Ow*", &offsets, &data, &start, &n_texts, &codes,
                          &rows_object, &out_offsets)) {
        return NULL;
    }
    const Py_ssize_t n_codes = codes.len / 8;
    const int64_t *code = codes.buf, *at = (const int64_t *)offsets.buf + start;
    if (optional_rows(rows_object, &rows) && text_offsets_fit(&offsets, &data, start, n_texts) &&
        int64_buffer(&codes, n_codes, "codes") && codes_of_texts(code, n_codes, n_texts)) {
        const int64_t *row = rows.buf;
        const Py_ssize_t n = row == NULL ? n_codes : rows.len / 8;
        if (int64_buffer(&out_offsets, n + 1, "out_offsets")) {
            int64_t *out = out_offsets.buf, total = 0;
            out[0] = 0;
            Py_ssize_t i = 0;
            for (; i < n; i++) {
                const int64_t v = code_at(code, n_codes, row, i);
                if (v == -2) {
                    break;
                }
                total += v < 0 ? 0 : at[v + 1] - at[v];
                out[i + 1] = total;
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
    PyBuffer_Release(&out_offsets);
    return result;
}

/*
 * Take texts by code, second step: copy the texts into out_data at the offsets text_offsets
 * wrote (checked again as they are copied: each text's room is its length), which must leave
 * 32 bytes past the last text: a text of at most 32 bytes is copied as 32 (loads and stores
 * of a fixed size, no call to memcpy and no branch on its length), what it writes past its
 * end being overwritten by the texts after it.
 */
static PyObject *copy_texts(PyObject *self, PyObject *args) {
    Py_buffer offsets, data, codes, rows = {0}, out_offsets, out_data;
    Py_ssize_t start, n_texts;
    PyObject *rows_object, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*nny*Oy*w*", &offsets, &data, &start, &n_texts, &codes,
                          &rows_object, &out_offsets, &out_data)) {
        return NULL;
    }
    const Py_ssize_t n_codes = codes.len / 8;
    const int64_t *code = codes.buf, *at = (const int64_t *)offsets.buf + start;
    const int64_t *out = out_offsets.buf;
    int checked = optional_rows(rows_object, &rows) &&
                  text_offsets_fit(&offsets, &data, start, n_texts) &&
                  int64_buffer(&codes, n_codes, "codes") && codes_of_texts(code, n_codes, n_texts);
    const int64_t *row = rows.buf;
    const Py_ssize_t n = row == NULL ? n_codes : rows.len / 8;
    checked = checked && int64_buffer(&out_offsets, n + 1, "out_offsets");
    if (checked && (out[0] != 0 || out[n] < 0 || out_data.len < out[n] + 32)) {
        checked = 0;
    }
    Py_ssize_t i = 0;
    if (checked) {
        char *bytes = out_data.buf;
        const char *texts = data.buf;
        const int64_t readable = data.len - 32; /* a text starting here has 32 bytes */
        Py_BEGIN_ALLOW_THREADS
        for (; i < n; i++) {
            const int64_t v = code_at(code, n_codes, row, i);
            const int64_t length = v < 0 ? 0 : at[v + 1] - at[v];
            if (v == -2 || out[i + 1] - out[i] != length || out[i] < 0 || out[i + 1] > out[n]) {
                break;
            }
            if (length <= 32 && at[v] <= readable) {
                memcpy(bytes + out[i], texts + at[v], 32);
            } else if (length > 0) {
                memcpy(bytes + out[i], texts + at[v], (size_t)length);
            }
        }
        Py_END_ALLOW_THREADS
    }
    if (checked && i == n) {
        Py_INCREF(Py_None);
        result = Py_None;
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError,
                        "rows, out_offsets, out_data: expected text_offsets' offsets and 32 bytes "
                        "more than the texts");
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

static PyMethodDef methods[] = {
    {"factorize_strings", factorize_strings, METH_VARARGS,
     "factorize_strings(offsets, data, validity, offset, n, codes, first) -> number of texts"},
    {"group", group, METH_VARARGS,
     "group(words, n_words, n, counts, first, sums[, inverse]) -> number of groups"},
    {"rollup", rollup, METH_VARARGS,
     "rollup(words, n_words, n, fields, n_fields, tables, offsets, counts, out, sums) -> "
     "number of groups"},
    {"text_offsets", text_offsets, METH_VARARGS,
     "text_offsets(offsets, data, start, n_texts, codes, rows, out_offsets) -> bytes taken"},
    {"copy_texts", copy_texts, METH_VARARGS,
     "copy_texts(offsets, data, start, n_texts, codes, rows, out_offsets, out_data) -> None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Grouping bit-packed keys by hashing (see pandas_anon.engine.hashing).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
