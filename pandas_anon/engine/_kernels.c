/*
 * Grouping bit-packed keys by hashing: the kernels of pandas_anon.engine.hashing.
 *
 * A key is one or more int64 words; `words` holds them word-major (word w of key i at
 * words[w * n + i]). One pass through an open-addressing table (linear probing, Fibonacci
 * hashing, at least twice as many slots as keys) numbers the distinct keys in the order of
 * their first occurrence and adds up their counts. The Python side allocates every output
 * array and checks the shapes; these functions only read and write the buffers given.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN 0x9E3779B97F4A7C15ULL

/* Bits of a table of at least twice `n` slots (at least 16). */
static int table_bits(Py_ssize_t n) {
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
 * first key, sums[g] the sum of `counts` over its keys, inverse[i] (when given) key i's
 * group. Returns the number of groups, or -1 when memory runs out.
 */
static inline Py_ssize_t group_words(const int64_t *words, Py_ssize_t n_words, Py_ssize_t n,
                                     const int64_t *counts, int64_t *first, int64_t *sums,
                                     int64_t *inverse) {
    int bits = table_bits(n);
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    int64_t *slots = malloc(sizeof(int64_t) << bits);
    if (slots == NULL) {
        return -1;
    }
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
        sums[g] += counts[i];
        if (inverse != NULL) {
            inverse[i] = g;
        }
    }
    free(slots);
    return groups;
}

/* group_words, compiled apart for keys of one word (most keys): n_words a constant there. */
static Py_ssize_t group_keys(const int64_t *words, Py_ssize_t n_words, Py_ssize_t n,
                             const int64_t *counts, int64_t *first, int64_t *sums,
                             int64_t *inverse) {
    if (n_words == 1) {
        return group_words(words, 1, n, counts, first, sums, inverse);
    }
    return group_words(words, n_words, n, counts, first, sums, inverse);
}

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

/*
 * Rewrite fields of the keys, then group them: fields[3c..3c+2] = (word, shift, mask) of the
 * c-th field rewritten; a key whose field holds code v gains tables[offsets[c] + v]. The
 * rewritten keys go to `rewritten` (n_words x n); their groups as in group_keys.
 */
static Py_ssize_t rollup_keys(const int64_t *words, Py_ssize_t n_words, Py_ssize_t n,
                              const int64_t *fields, Py_ssize_t n_fields, const int64_t *tables,
                              const int64_t *offsets, int64_t *rewritten, const int64_t *counts,
                              int64_t *first, int64_t *sums) {
    memcpy(rewritten, words, sizeof(int64_t) * n_words * n);
    for (Py_ssize_t c = 0; c < n_fields; c++) {
        const int64_t word = fields[3 * c], shift = fields[3 * c + 1], mask = fields[3 * c + 2];
        const int64_t *table = tables + offsets[c];
        const int64_t *source = words + word * n;
        int64_t *target = rewritten + word * n;
        for (Py_ssize_t i = 0; i < n; i++) {
            target[i] += table[(source[i] >> shift) & mask];
        }
    }
    return group_keys(rewritten, n_words, n, counts, first, sums, NULL);
}

static PyObject *rollup(PyObject *self, PyObject *args) {
    Py_buffer words, fields, tables, offsets, rewritten, counts, first, sums;
    Py_ssize_t n_words, n, n_fields;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*nny*ny*y*w*y*w*w*", &words, &n_words, &n, &fields, &n_fields,
                          &tables, &offsets, &rewritten, &counts, &first, &sums)) {
        return NULL;
    }
    if (int64_buffer(&words, n_words * n, "words") &&
        int64_buffer(&fields, 3 * n_fields, "fields") &&
        int64_buffer(&offsets, n_fields, "offsets") &&
        int64_buffer(&rewritten, n_words * n, "rewritten") &&
        int64_buffer(&counts, n, "counts") && int64_buffer(&first, n, "first") &&
        int64_buffer(&sums, n, "sums")) {
        if (tables.itemsize != 8 || tables.len % 8 != 0) {
            PyErr_SetString(PyExc_ValueError, "tables: expected int64 values");
        } else {
            Py_ssize_t groups;
            Py_BEGIN_ALLOW_THREADS
            groups = rollup_keys(words.buf, n_words, n, fields.buf, n_fields, tables.buf,
                                 offsets.buf, rewritten.buf, counts.buf, first.buf, sums.buf);
            Py_END_ALLOW_THREADS
            result = groups < 0 ? PyErr_NoMemory() : PyLong_FromSsize_t(groups);
        }
    }
    PyBuffer_Release(&words);
    PyBuffer_Release(&fields);
    PyBuffer_Release(&tables);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&rewritten);
    PyBuffer_Release(&counts);
    PyBuffer_Release(&first);
    PyBuffer_Release(&sums);
    return result;
}

static PyMethodDef methods[] = {
    {"group", group, METH_VARARGS,
     "group(words, n_words, n, counts, first, sums[, inverse]) -> number of groups"},
    {"rollup", rollup, METH_VARARGS,
     "rollup(words, n_words, n, fields, n_fields, tables, offsets, rewritten, counts, first, "
     "sums) -> number of groups"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Grouping bit-packed keys by hashing (see pandas_anon.engine.hashing).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
