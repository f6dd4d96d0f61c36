/*
 * The optimal full-domain search of pandas_anon.anonymization.fulldomain.ola, compiled for
 * its most common case: k-anonymity alone (no sensitive column), with precision or DM.
 *
 * The search is the one ola.py documents and implements in Python (best-first branch and
 * bound, predictive tagging, Flash's probes), step for step: the same nodes are taken,
 * probed and evaluated in the same order, and the same node wins, so the tests compare the
 * two on random lattices. What changes is the cost of a step: the lattice's arrays are
 * walked in C, and a node's classes are rolled up from the cached node below it with the
 * fewest classes (the grouping of _grouping.h) without a Python object per node.
 *
 * Nodes are indexed in row-major order of the levels (the last quasi-identifier varies
 * fastest), the order numpy's arrays of shape heights + 1 and the lexicographic order of
 * level tuples share. A node's classes are a table of keys (n_words int64 words per class,
 * word-major) with row counts; each quasi-identifier's codes sit in a field (word, shift,
 * mask) of the keys, and raising it from level a to level b adds, to a key whose field holds
 * code v, the shift table's entry v: (code at b of a position coded v at a - v) << shift.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_grouping.h"

#define MAX_COLUMNS 64
#define FEASIBLE 1
#define INFEASIBLE (-1)
#define UNKNOWN 0
#define CLOSED INT64_MAX
#define PRECISION 0
#define DISCERNIBILITY 1
#define SIZE_CLASSES 256

typedef struct table {
    int64_t *keys;   /* n_words x size, word-major */
    int64_t *counts; /* rows of each class */
    Py_ssize_t size; /* classes */
    int64_t used;    /* the search's clock when last read (least recently used goes first) */
} table;

/* A buffer given back (free_table), kept for a table of the same size class. */
typedef struct spare {
    struct spare *next;
} spare;

typedef struct {
    /* the lattice */
    int q;
    int64_t heights[MAX_COLUMNS], strides[MAX_COLUMNS];
    Py_ssize_t n_nodes;
    int levels; /* the most levels of a column (max height + 1) */
    /* the keys: fields, and per column and level each position's code */
    Py_ssize_t n_words;
    const int64_t *fields;
    const int64_t *lookups;
    const int64_t *lookup_at; /* q x levels: where column j's level l starts in lookups */
    const int64_t *positions; /* per column: positions (with missing, the last) */
    int64_t **shift_tables;   /* (j, a, b) -> table, computed when first needed */
    /* the model, the limit, the metric */
    int64_t k, limit, n_rows, least, scale;
    int metric;
    int64_t weights[MAX_COLUMNS];
    int beyond;
    /* what the search knows */
    int64_t *lower, *pending;
    int8_t *status, *verdict;
    uint8_t *evaluated, *open;
    Py_ssize_t best; /* -1: none yet */
    int64_t best_value, best_sum;
    Py_ssize_t n_evaluated, probes;
    /* the class tables kept */
    table bottom;
    table **tables; /* per node (NULL: not kept) */
    Py_ssize_t *kept; /* the nodes kept, n_kept of them (room for kept_room) */
    Py_ssize_t n_kept, kept_room;
    Py_ssize_t *path; /* a probe's path: at most one node per level of the lattice */
    /* a roll-up's work space, sized once for the bottom's table (no table is larger) */
    int64_t *rewritten, *first, *sums, *slots;
    /* the buffers of evicted tables, by size class, for the tables evaluated next: a search
     * evicts and keeps tables by the thousand, and memory the system hands out again costs a
     * page fault per 4 KiB (more than rolling a table up) */
    spare *spares[SIZE_CLASSES];
    int64_t spare_bytes; /* at most a quarter of the cache's budget in bytes */
    int64_t entries, budget, clock;
    PyObject *progress; /* called with the evaluations so far, every 500; or None */
} search;

static inline int64_t level_of(const search *s, Py_ssize_t node, int j) {
    return (node / s->strides[j]) % (s->heights[j] + 1);
}

static inline int64_t level_sum(const search *s, Py_ssize_t node) {
    int64_t sum = 0;
    for (int j = 0; j < s->q; j++) {
        sum += level_of(s, node, j);
    }
    return sum;
}

/* -- boxes of the lattice: the nodes above a node, the nodes below it --------------------- */

enum box_action { RAISE, TAG_FEASIBLE, TAG_INFEASIBLE };

/* Apply `action` to every node whose level of each column j lies in low[j]..high[j]: a run of
 * consecutive indices per combination of the other columns' levels. */
static void for_box(search *s, const int64_t *low, const int64_t *high, enum box_action action,
                    int64_t bound) {
    int64_t at[MAX_COLUMNS];
    const int last = s->q - 1;
    const Py_ssize_t run = (Py_ssize_t)(high[last] - low[last] + 1);
    memcpy(at, low, sizeof(int64_t) * s->q);
    for (;;) {
        Py_ssize_t start = 0;
        for (int j = 0; j < s->q; j++) {
            start += at[j] * s->strides[j];
        }
        for (Py_ssize_t i = start; i < start + run; i++) {
            switch (action) {
            case RAISE: /* CLOSED stays CLOSED: it is above every bound */
                if (s->lower[i] < bound) s->lower[i] = bound;
                if (s->pending[i] < bound) s->pending[i] = bound;
                break;
            case TAG_FEASIBLE:
                s->status[i] = FEASIBLE;
                break;
            case TAG_INFEASIBLE:
                s->status[i] = INFEASIBLE;
                s->open[i] = 0;
                s->pending[i] = CLOSED;
                break;
            }
        }
        int j = last - 1;
        while (j >= 0 && at[j] == high[j]) {
            at[j] = low[j];
            j--;
        }
        if (j < 0) {
            return;
        }
        at[j]++;
    }
}

static void above(search *s, Py_ssize_t node, enum box_action action, int64_t bound) {
    int64_t low[MAX_COLUMNS];
    for (int j = 0; j < s->q; j++) {
        low[j] = level_of(s, node, j);
    }
    for_box(s, low, s->heights, action, bound);
}

static void below(search *s, Py_ssize_t node, enum box_action action) {
    int64_t low[MAX_COLUMNS] = {0}, high[MAX_COLUMNS];
    for (int j = 0; j < s->q; j++) {
        high[j] = level_of(s, node, j);
    }
    for_box(s, low, high, action, 0);
}

/* -- class tables --------------------------------------------------------------------------- */

/* The size class of a buffer of `bytes`: four classes per doubling (at most 25 % unused). */
static int size_class(size_t bytes) {
    if (bytes <= 64) {
        return 0;
    }
    int e = 6; /* 2**e < bytes <= 2**(e + 1) */
    while (((size_t)1 << (e + 1)) < bytes) {
        e++;
    }
    const size_t step = (size_t)1 << (e - 2);
    return (e - 6) * 4 + (int)((bytes - ((size_t)1 << e) + step - 1) / step);
}

static size_t class_bytes(int c) {
    if (c == 0) {
        return 64;
    }
    const int e = (c - 1) / 4 + 6;
    return ((size_t)1 << e) + (size_t)((c - 1) % 4 + 1) * ((size_t)1 << (e - 2));
}

/* A buffer of at least `bytes`: a spare one of its size class, else a new one. */
static void *take(search *s, size_t bytes) {
    const int c = size_class(bytes);
    if (c >= SIZE_CLASSES) {
        return NULL;
    }
    spare *found = s->spares[c];
    if (found != NULL) {
        s->spares[c] = found->next;
        s->spare_bytes -= (int64_t)class_bytes(c);
        return found;
    }
    return malloc(class_bytes(c));
}

/* Give back a buffer of `bytes` taken with take(). */
static void give(search *s, void *buffer, size_t bytes) {
    if (buffer == NULL) {
        return;
    }
    const int c = size_class(bytes);
    if (s->spare_bytes + (int64_t)class_bytes(c) > 2 * s->budget) { /* 8 bytes an entry / 4 */
        free(buffer);
        return;
    }
    spare *kept = buffer;
    kept->next = s->spares[c];
    s->spares[c] = kept;
    s->spare_bytes += (int64_t)class_bytes(c);
}

static size_t keys_bytes(const search *s, Py_ssize_t size) {
    return sizeof(int64_t) * (size_t)(s->n_words * size + 1);
}

static size_t counts_bytes(Py_ssize_t size) { return sizeof(int64_t) * (size_t)(size + 1); }

static void free_table(search *s, table *t) {
    if (t != NULL) {
        give(s, t->keys, keys_bytes(s, t->size));
        give(s, t->counts, counts_bytes(t->size));
        free(t);
    }
}

/* The shift table raising column j from level a to level b (NULL when memory runs out). */
static const int64_t *shift_table(search *s, int j, int64_t a, int64_t b) {
    int64_t **slot = &s->shift_tables[((Py_ssize_t)j * s->levels + a) * s->levels + b];
    if (*slot != NULL) {
        return *slot;
    }
    const int64_t *from = s->lookups + s->lookup_at[j * s->levels + a];
    const int64_t *to = s->lookups + s->lookup_at[j * s->levels + b];
    const int64_t positions = s->positions[j], shift = s->fields[3 * j + 1];
    int64_t codes = 0;
    for (int64_t p = 0; p < positions; p++) {
        codes = from[p] >= codes ? from[p] + 1 : codes;
    }
    int64_t *position = malloc(sizeof(int64_t) * (size_t)(codes > 0 ? codes : 1));
    int64_t *gains = malloc(sizeof(int64_t) * (size_t)(codes > 0 ? codes : 1));
    if (position == NULL || gains == NULL) {
        free(position);
        free(gains);
        return NULL;
    }
    for (int64_t v = 0; v < codes; v++) {
        position[v] = -1;
    }
    for (int64_t p = positions - 1; p >= 0; p--) { /* the first position of each code */
        position[from[p]] = p;
    }
    for (int64_t v = 0; v < codes; v++) { /* a code no position has is in no key */
        gains[v] = position[v] < 0 ? 0 : (int64_t)((uint64_t)(to[position[v]] - v) << shift);
    }
    free(position);
    *slot = gains;
    return gains;
}

/* The classes of `node` rolled up from `source`, the classes of node `from` below it, in
 * the search's work space; only the table kept is allocated. */
static table *roll_up(search *s, const table *source, Py_ssize_t from, Py_ssize_t node) {
    const Py_ssize_t n = source->size, n_words = s->n_words;
    int64_t *rewritten = s->rewritten;
    memcpy(rewritten, source->keys, sizeof(int64_t) * (size_t)(n_words * n));
    for (int j = 0; j < s->q; j++) {
        const int64_t a = level_of(s, from, j), b = level_of(s, node, j);
        if (a == b) {
            continue;
        }
        const int64_t *gains = shift_table(s, j, a, b);
        if (gains == NULL) {
            return NULL;
        }
        const int64_t word = s->fields[3 * j], shift = s->fields[3 * j + 1];
        const int64_t mask = s->fields[3 * j + 2];
        const int64_t *keys = source->keys + word * n;
        int64_t *target = rewritten + word * n;
        for (Py_ssize_t i = 0; i < n; i++) {
            target[i] += gains[(keys[i] >> shift) & mask];
        }
    }
    const Py_ssize_t groups =
        group_keys_in(s->slots, rewritten, n_words, n, source->counts, s->first, s->sums, NULL);
    table *t = calloc(1, sizeof(table));
    if (t == NULL) {
        return NULL;
    }
    t->size = groups;
    t->keys = take(s, keys_bytes(s, groups));
    t->counts = take(s, counts_bytes(groups));
    if (t->keys == NULL || t->counts == NULL) {
        free_table(s, t);
        return NULL;
    }
    for (Py_ssize_t w = 0; w < n_words; w++) {
        for (Py_ssize_t g = 0; g < groups; g++) {
            t->keys[w * groups + g] = rewritten[w * n + s->first[g]];
        }
    }
    memcpy(t->counts, s->sums, sizeof(int64_t) * (size_t)groups);
    return t;
}

static int64_t table_entries(const search *s, const table *t) {
    return (s->n_words + 1) * (int64_t)t->size;
}

/* Keep the classes of `node`, forgetting the least recently used tables over the budget.
 * 0, or -1 when memory runs out (the table is then freed). */
static int keep(search *s, Py_ssize_t node, table *t) {
    if (s->n_kept == s->kept_room) {
        Py_ssize_t room = 2 * s->kept_room;
        Py_ssize_t *kept = realloc(s->kept, sizeof(Py_ssize_t) * (size_t)room);
        if (kept == NULL) {
            free_table(s, t);
            return -1;
        }
        s->kept = kept;
        s->kept_room = room;
    }
    t->used = s->clock++;
    s->tables[node] = t;
    s->kept[s->n_kept++] = node;
    s->entries += table_entries(s, t);
    while (s->entries > s->budget && s->n_kept > 1) {
        Py_ssize_t oldest = 0;
        for (Py_ssize_t i = 1; i < s->n_kept; i++) {
            if (s->tables[s->kept[i]]->used < s->tables[s->kept[oldest]]->used) {
                oldest = i;
            }
        }
        Py_ssize_t gone = s->kept[oldest];
        s->entries -= table_entries(s, s->tables[gone]);
        free_table(s, s->tables[gone]);
        s->tables[gone] = NULL;
        s->kept[oldest] = s->kept[--s->n_kept];
    }
    return 0;
}

/* The kept table below `node` with the fewest classes, its node in *from: among the direct
 * predecessors first (the coarsest nodes below), else among every kept node below; else the
 * bottom's. */
static const table *coarsest_below(search *s, Py_ssize_t node, Py_ssize_t *from) {
    const table *best = NULL;
    for (int j = 0; j < s->q; j++) {
        if (level_of(s, node, j) > 0) {
            const table *t = s->tables[node - s->strides[j]];
            if (t != NULL && (best == NULL || t->size < best->size)) {
                best = t;
                *from = node - s->strides[j];
            }
        }
    }
    if (best == NULL) {
        for (Py_ssize_t i = 0; i < s->n_kept; i++) {
            const Py_ssize_t other = s->kept[i];
            const table *t = s->tables[other];
            int is_below = 1;
            for (int j = 0; j < s->q && is_below; j++) {
                is_below = level_of(s, other, j) <= level_of(s, node, j);
            }
            if (is_below && (best == NULL || t->size < best->size)) {
                best = t;
                *from = other;
            }
        }
    }
    if (best == NULL) {
        *from = 0;
        return &s->bottom;
    }
    ((table *)best)->used = s->clock++;
    return best;
}

/* -- the search ------------------------------------------------------------------------------ */

/* Evaluate `node`: its classes, verdict, bound and value; tag what it settles. 0, or -1 with
 * a Python error set. */
static int evaluate(search *s, Py_ssize_t node) {
    table *t = NULL;
    const table *classes = &s->bottom;
    if (node != 0) {
        Py_ssize_t from = 0;
        const table *source = coarsest_below(s, node, &from);
        t = roll_up(s, source, from, node);
        if (t == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        classes = t;
    }
    int64_t suppressed = 0, squares = 0, bound = 0;
    for (Py_ssize_t g = 0; g < classes->size; g++) {
        const int64_t c = classes->counts[g];
        if (c < s->k) {
            suppressed += c;
        } else {
            squares += c * c;
        }
        bound += c * (c > s->least ? c : s->least);
    }
    if (t != NULL && keep(s, node, t) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    const int feasible = suppressed <= s->limit;
    int64_t value;
    if (s->metric == PRECISION) {
        int64_t share = 0;
        for (int j = 0; j < s->q; j++) {
            share += level_of(s, node, j) * s->weights[j];
        }
        bound = share * s->n_rows;
        value = bound + (s->scale - share) * suppressed;
    } else {
        value = squares + s->n_rows * suppressed;
    }
    s->n_evaluated++;
    s->evaluated[node] = 1;
    s->verdict[node] = feasible ? FEASIBLE : INFEASIBLE;
    s->open[node] = 0;
    s->pending[node] = CLOSED;
    if (bound > s->lower[node]) { /* bounds rise upwards: else no node above is raised */
        above(s, node, RAISE, bound);
    }
    if (feasible) {
        const int64_t sum = level_sum(s, node);
        if (s->best < 0 || value < s->best_value ||
            (value == s->best_value &&
             (sum < s->best_sum || (sum == s->best_sum && node < s->best)))) {
            s->best = node;
            s->best_value = value;
            s->best_sum = sum;
        }
        above(s, node, TAG_FEASIBLE, 0);
    } else {
        below(s, node, TAG_INFEASIBLE);
    }
    if (s->n_evaluated % 500 == 0 && s->progress != Py_None) {
        PyObject *answer = PyObject_CallFunction(s->progress, "n", s->n_evaluated);
        if (answer == NULL) {
            return -1;
        }
        Py_DECREF(answer);
    }
    if (s->n_evaluated % 64 == 0 && PyErr_CheckSignals() < 0) {
        return -1;
    }
    return 0;
}

static inline int64_t best_value(const search *s) {
    return s->best < 0 ? CLOSED : s->best_value;
}

static inline int worth(const search *s, Py_ssize_t node) {
    return !s->evaluated[node] && s->status[node] != INFEASIBLE &&
           s->lower[node] <= best_value(s);
}

/* Binary-search a path up from `node` for its lowest feasible node (ola._State.probe). */
static int probe(search *s, Py_ssize_t node) {
    Py_ssize_t *path = s->path;
    s->probes++;
    Py_ssize_t length = 1;
    path[0] = node;
    for (;;) {
        const Py_ssize_t top = path[length - 1];
        Py_ssize_t step = -1;
        for (int j = 0; j < s->q; j++) {
            if (level_of(s, top, j) == s->heights[j]) {
                continue;
            }
            const Py_ssize_t next = top + s->strides[j];
            if (s->status[next] == UNKNOWN && (s->beyond || s->lower[next] <= best_value(s)) &&
                (step < 0 || s->lower[next] > s->lower[step])) { /* the steepest, first on ties */
                step = next;
            }
        }
        if (step < 0) {
            break;
        }
        path[length++] = step;
    }
    Py_ssize_t low = 0, high = length - 1;
    while (low <= high) {
        const Py_ssize_t middle = (low + high) / 2;
        if (s->status[path[middle]] == UNKNOWN) {
            if (!(s->beyond || worth(s, path[middle]))) {
                return 0;
            }
            if (evaluate(s, path[middle]) < 0) {
                return -1;
            }
        }
        if (s->status[path[middle]] == FEASIBLE) {
            high = middle - 1;
        } else {
            low = middle + 1;
        }
    }
    return 0;
}

/* Take the open node of least bound (the first in index order on ties) until the least bound
 * left exceeds the best (ola._State.run). */
static int run(search *s) {
    for (;;) {
        Py_ssize_t node = 0;
        for (Py_ssize_t i = 1; i < s->n_nodes; i++) {
            if (s->pending[i] < s->pending[node]) {
                node = i;
            }
        }
        if (!s->open[node] || s->lower[node] > best_value(s)) {
            return 0;
        }
        s->open[node] = 0;
        s->pending[node] = CLOSED;
        if (s->status[node] == UNKNOWN && probe(s, node) < 0) {
            return -1;
        }
        if (worth(s, node) && evaluate(s, node) < 0) {
            return -1;
        }
    }
}

static void release(search *s) {
    if (s->tables != NULL) {
        for (Py_ssize_t i = 0; i < s->n_kept; i++) {
            free_table(s, s->tables[s->kept[i]]);
        }
    }
    for (int c = 0; c < SIZE_CLASSES; c++) {
        while (s->spares[c] != NULL) {
            spare *next = s->spares[c]->next;
            free(s->spares[c]);
            s->spares[c] = next;
        }
    }
    if (s->shift_tables != NULL) {
        for (Py_ssize_t i = 0; i < (Py_ssize_t)s->q * s->levels * s->levels; i++) {
            free(s->shift_tables[i]);
        }
    }
    free(s->shift_tables);
    free(s->tables);
    free(s->kept);
    free(s->path);
    free(s->rewritten);
    free(s->first);
    free(s->sums);
    free(s->slots);
    free(s->pending);
    free(s->open);
}

/* A buffer of `n` items of `size` bytes, or a ValueError naming `what`. */
static int sized(const Py_buffer *view, Py_ssize_t n, Py_ssize_t size, const char *what) {
    if (view->itemsize != size || view->len != n * size) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes, got %zd bytes", what,
                     n, size, view->len);
        return 0;
    }
    return 1;
}

static PyObject *ola(PyObject *self, PyObject *args) {
    Py_buffer heights = {0}, fields = {0}, lookups = {0}, lookup_at = {0}, positions = {0};
    Py_buffer keys = {0}, counts = {0}, weights = {0}, lower = {0}, status = {0}, verdict = {0};
    Py_buffer evaluated = {0};
    Py_ssize_t n_words, n_classes;
    long long k, limit, n_rows, least, scale, budget;
    int metric, beyond;
    PyObject *progress, *result = NULL;
    search s;
    memset(&s, 0, sizeof(s));
    if (!PyArg_ParseTuple(args, "y*y*ny*y*y*y*y*nLLLiy*LLiLw*w*w*w*O", &heights, &fields,
                          &n_words, &lookups, &lookup_at, &positions, &keys, &counts, &n_classes,
                          &k, &limit, &n_rows, &metric, &weights, &scale, &least, &beyond,
                          &budget, &lower, &status, &verdict, &evaluated, &progress)) {
        return NULL;
    }
    const Py_ssize_t q = heights.len / 8;
    s.q = (int)q;
    s.n_nodes = 1;
    for (Py_ssize_t j = q - 1; j >= 0 && q <= MAX_COLUMNS; j--) {
        s.heights[j] = ((const int64_t *)heights.buf)[j];
        s.strides[j] = s.n_nodes;
        s.n_nodes *= s.heights[j] + 1;
        s.levels = s.heights[j] + 1 > s.levels ? (int)s.heights[j] + 1 : s.levels;
    }
    if (q < 1 || q > MAX_COLUMNS || heights.itemsize != 8 || metric < 0 || metric > 1) {
        PyErr_SetString(PyExc_ValueError, "heights: expected 1 to 64 int64 heights");
    } else if (sized(&fields, 3 * q, 8, "fields") && sized(&lookup_at, q * s.levels, 8,
                                                             "lookup_at") &&
               sized(&positions, q, 8, "positions") && sized(&weights, q, 8, "weights") &&
               sized(&keys, n_words * n_classes, 8, "keys") &&
               sized(&counts, n_classes, 8, "counts") && sized(&lower, s.n_nodes, 8, "lower") &&
               sized(&status, s.n_nodes, 1, "status") &&
               sized(&verdict, s.n_nodes, 1, "verdict") &&
               sized(&evaluated, s.n_nodes, 1, "evaluated")) {
        s.n_words = n_words;
        s.fields = fields.buf;
        s.lookups = lookups.buf;
        s.lookup_at = lookup_at.buf;
        s.positions = positions.buf;
        s.k = k;
        s.limit = limit;
        s.n_rows = n_rows;
        s.least = least;
        s.scale = scale;
        s.metric = metric;
        s.beyond = beyond;
        s.budget = budget;
        memcpy(s.weights, weights.buf, sizeof(int64_t) * (size_t)q);
        s.lower = lower.buf;
        s.status = status.buf;
        s.verdict = verdict.buf;
        s.evaluated = evaluated.buf;
        s.best = -1;
        s.progress = progress;
        s.bottom.keys = keys.buf;
        s.bottom.counts = counts.buf;
        s.bottom.size = n_classes;
        s.pending = malloc(sizeof(int64_t) * (size_t)s.n_nodes);
        s.open = malloc((size_t)s.n_nodes);
        s.tables = calloc((size_t)s.n_nodes, sizeof(table *));
        s.kept_room = 64;
        s.kept = malloc(sizeof(Py_ssize_t) * (size_t)s.kept_room);
        s.shift_tables = calloc((size_t)(q * s.levels * s.levels), sizeof(int64_t *));
        int64_t steps = 1;
        for (Py_ssize_t j = 0; j < q; j++) {
            steps += s.heights[j];
        }
        s.path = malloc(sizeof(Py_ssize_t) * (size_t)steps);
        s.rewritten = malloc(sizeof(int64_t) * (size_t)(n_words * n_classes + 1));
        s.first = malloc(sizeof(int64_t) * (size_t)(n_classes + 1));
        s.sums = malloc(sizeof(int64_t) * (size_t)(n_classes + 1));
        s.slots = malloc(sizeof(int64_t) << table_bits(n_classes));
        if (s.pending == NULL || s.open == NULL || s.tables == NULL || s.kept == NULL ||
            s.shift_tables == NULL || s.path == NULL || s.rewritten == NULL || s.first == NULL ||
            s.sums == NULL || s.slots == NULL) {
            PyErr_NoMemory();
        } else {
            memcpy(s.pending, s.lower, sizeof(int64_t) * (size_t)s.n_nodes);
            memset(s.open, 1, (size_t)s.n_nodes);
            if (run(&s) == 0) {
                result = Py_BuildValue("nLnn", s.best, (long long)s.best_value, s.n_evaluated,
                                       s.probes);
            }
        }
    }
    release(&s);
    Py_buffer *views[] = {&heights, &fields,  &lookups, &lookup_at, &positions, &keys,
                          &counts,  &weights, &lower,   &status,    &verdict,   &evaluated};
    for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
        if (views[i]->obj != NULL) {
            PyBuffer_Release(views[i]);
        }
    }
    return result;
}

static PyMethodDef methods[] = {
    {"ola", ola, METH_VARARGS,
     "ola(heights, fields, n_words, lookups, lookup_at, positions, keys, counts, n_classes, k, "
     "limit, n_rows, metric, weights, scale, least, beyond, budget, lower, status, verdict, "
     "evaluated, progress) -> (best, value, evaluated, probes)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ola",
    "The optimal full-domain search for k-anonymity (see "
    "pandas_anon.anonymization.fulldomain.ola).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__ola(void) { return PyModule_Create(&module); }
