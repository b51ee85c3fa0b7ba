/* Ahead-of-time compiled kernels of the metrics and search: chrF's n-gram statistics, TER,
 * WER, K-GRR (numerators and alignments), GTM, NIST, tBLEU's affix distances, bootstrap resampling, LCM,
 * ROSE features, MBR pair matches and the lattice oracle.
 *
 * The same algorithms as the plain Python reference implementations in the metric and search modules
 * (metrics/_ngram_kernel.py, metrics/_ter_kernel.py, ...; each wrapper in mtscore/ckernels.py names
 * its reference), which stay in the code as the oracle the compiled kernels are tested against
 * (tests/kernels/test_ckernels.py, tests/kernels/test_ckernels_more.py: hypothesis, bit-identical floats). Compiled once
 * at install time with -ffp-contract=off, so floating-point operations happen in the reference's order.
 *
 * No NumPy dependency: inputs are read through the buffer protocol (the Python wrappers in
 * mtscore/ckernels.py pass C-contiguous int64 / float64 / bool arrays), variable-size outputs are
 * bytearrays that NumPy wraps without copying. Every kernel releases the GIL; the per-segment kernels
 * split the segments (or pairs) between n_threads threads, handing out blocks from an atomic counter.
 * Each segment writes only its own output, so results do not depend on the number of threads. The
 * wrappers call the kernels in chunks so that Ctrl-C is seen between chunks (within a second); the
 * kernels that are one long call (lattice_viterbi, grr_align, nist_*) take the GIL back now and then to check
 * for a pending signal themselves (poll_tick). The functions and their arguments: the method table at
 * the end of this file and the wrappers in mtscore/ckernels.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* threads: the shared pool (_cpool.h), blocks of at most 1024 items */

#include "_cpool.h"

static int run_blocks(block_fn fn, void *ctx, size_t scratch_size, void (*scratch_free)(void *), int64_t n,
                      int n_threads) {
    return run_blocks_max(fn, ctx, scratch_size, scratch_free, n, n_threads, 1024);
}

static int reserve(void **p, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * item);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* chrF: n-gram match statistics per (segment, reference) pair */

typedef struct {
    int64_t *ids1, *ids, *hc, *rc, *used, *pos;
    uint8_t *both;
    size_t cap;
    int64_t *tkeys, *tvals;
    size_t tcap;
    int64_t *lcnt;
    size_t lcap;
} NgScratch;

static void ng_scratch_free(void *p) {
    NgScratch *S = (NgScratch *)p;
    free(S->ids1); free(S->ids); free(S->hc); free(S->rc); free(S->used); free(S->pos); free(S->both);
    free(S->tkeys); free(S->tvals); free(S->lcnt);
}

/* Room for a segment of size symbols and a hash table of tab slots. The table is kept empty (every key
 * -1) between uses: it is filled with -1 only when it is (re)allocated, and each use empties exactly the
 * slots it filled (IdTable.used), so a segment costs O(its n-grams), not O(table size). */
static int ng_reserve(NgScratch *S, size_t size, size_t tab, size_t n_texts) {
    if (size + 1 > S->cap) {
        size_t c = S->cap ? S->cap : 64;
        while (c < size + 1) c *= 2;
        int64_t **arrs[] = {&S->ids1, &S->ids, &S->hc, &S->rc, &S->used, &S->pos};
        for (int k = 0; k < 6; k++) {
            void *q = realloc(*arrs[k], c * sizeof(int64_t));
            if (!q) return -1;
            *arrs[k] = (int64_t *)q;
        }
        void *q = realloc(S->both, c);
        if (!q) return -1;
        S->both = (uint8_t *)q;
        memset(S->hc, 0, c * sizeof(int64_t));
        memset(S->rc, 0, c * sizeof(int64_t));
        memset(S->both, 0, c);
        S->cap = c;
    }
    if (n_texts > S->lcap) {
        void *q = realloc(S->lcnt, n_texts * sizeof(int64_t));
        if (!q) return -1;
        S->lcnt = (int64_t *)q;
        S->lcap = n_texts;
    }
    if (tab > S->tcap) {
        free(S->tkeys);
        free(S->tvals);
        S->tkeys = (int64_t *)malloc(tab * sizeof(int64_t));
        S->tvals = (int64_t *)malloc(tab * sizeof(int64_t));
        if (!S->tkeys || !S->tvals) {
            free(S->tkeys); free(S->tvals);
            S->tkeys = S->tvals = NULL;
            S->tcap = 0;
            return -1;
        }
        for (size_t k = 0; k < tab; k++) S->tkeys[k] = -1;
        S->tcap = tab;
    }
    return 0;
}

/* An exact hash table giving dense ids to non-negative int64 keys in order of first occurrence (full keys
 * compared on every probe: equal ids <=> equal keys). Open addressing over the first cap (a power of two,
 * > 2 * the number of keys) slots of an all-empty table; idt_clear empties the slots filled since the
 * last clear. Same ids as _dense_ids of metrics/_ngram_kernel.py (the reference). */
typedef struct {
    int64_t *tkeys, *tvals, *used;
    int64_t mask, g;
    unsigned shift;
} IdTable;

static inline void idt_init(IdTable *T, NgScratch *S, int64_t cap) {
    int bits = 0;
    while (((int64_t)1 << bits) < cap) bits++;
    T->tkeys = S->tkeys;
    T->tvals = S->tvals;
    T->used = S->used;
    T->mask = cap - 1;
    T->g = 0;
    T->shift = (unsigned)(64 - bits); /* cap >= 16: bits >= 4 */
}

static inline int64_t idt_id(IdTable *T, int64_t key) {
    int64_t slot = (int64_t)(((uint64_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> T->shift);
    for (;;) {
        int64_t tk = T->tkeys[slot];
        if (tk == key) return T->tvals[slot];
        if (tk == -1) {
            T->tkeys[slot] = key;
            T->tvals[slot] = T->g;
            T->used[T->g] = slot;
            return T->g++;
        }
        slot = (slot + 1) & T->mask;
    }
}

static inline void idt_clear(IdTable *T) {
    for (int64_t j = 0; j < T->g; j++) T->tkeys[T->used[j]] = -1;
    T->g = 0;
}

typedef struct {
    const int64_t *sym, *text_off, *seg_text_off;
    int64_t seg_lo;
    int max_order;
    double *out;
    int64_t ncols, col0;
} NgJob;

/* One pass per order over the texts of a segment (hypothesis first, then its references). Order 1 gives every
 * position the id of its symbol. Only n-grams that occur in the hypothesis and in a reference can match, and
 * an n-gram can occur on both sides only if its (n-1)-gram prefix does: so after each order, each text keeps
 * the list of its positions whose n-gram occurs on both sides (both[id]; positions in increasing order, in
 * pos[] from the text's start, lcnt[] of them), and the next order looks up only those, from key (id of the
 * (n-1)-gram at q, id of the symbol at q + n - 1). The numbers of hypothesis and reference n-grams are the
 * texts' lengths - n + 1. The counts are taken in the lookup pass: hc[id] counts the hypothesis n-grams; a
 * reference's clipped matches are the n-grams g with rc[g] <= hc[g] after rc[g]++ (rc emptied after each
 * reference), or with one reference the n-grams that find hc[g] > 0 and take one from it (the first
 * occurrence in the reference sees the whole hypothesis count: both[g] is set then). hc and both are
 * emptied over the ids of the order (dense: 0..g-1). The statistics equal the reference's
 * (metrics/_ngram_kernel.py, which looks up every position); the ids differ. */
static int ng_block(void *ctx, void *scratch, int64_t sa, int64_t sb) {
    NgJob *J = (NgJob *)ctx;
    NgScratch *S = (NgScratch *)scratch;
    const int64_t *text_off = J->text_off;
    for (int64_t si = sa; si < sb; si++) {
        int64_t s = J->seg_lo + si;
        int64_t t0 = J->seg_text_off[s], t1 = J->seg_text_off[s + 1];
        int64_t pair0 = t0 - s;
        int64_t a = text_off[t0], b = text_off[t1];
        int64_t size = b - a;
        if (size == 0) continue;
        int64_t cap = 16;
        while (cap < 2 * size + 2) cap *= 2;
        if (ng_reserve(S, (size_t)size, (size_t)cap, (size_t)(t1 - t0)) != 0) return -1;
        int64_t *ids1 = S->ids1, *ids = S->ids, *hc = S->hc, *rc = S->rc, *pos = S->pos, *lcnt = S->lcnt;
        uint8_t *both = S->both;
        const int64_t *sym = J->sym + a;
        const int single = t1 - t0 == 2;
        IdTable T;
        idt_init(&T, S, cap);
        const int64_t stride = size;
        int64_t n_hyp = 0;
        for (int n = 1; n <= J->max_order; n++) {
            int64_t col = J->col0 + 3 * (n - 1);
            int any = 0;
            for (int64_t t = t0; t < t1; t++) {
                int64_t ts = text_off[t] - a, te = text_off[t + 1] - a - n + 1; /* positions ts..te-1 */
                int64_t n_ng = te > ts ? te - ts : 0, match = 0;
                int64_t *lp = pos + ts, k = n_ng;
                any |= n_ng > 0;
                if (n > 1) { /* the listed positions that still start an n-gram */
                    k = lcnt[t - t0];
                    while (k > 0 && lp[k - 1] >= te) k--;
                    lcnt[t - t0] = k;
                }
#define NG_LOOP(BODY)                                                                           \
    do {                                                                                        \
        if (n == 1) {                                                                           \
            for (int64_t q = ts; q < te; q++) {                                                 \
                int64_t g = idt_id(&T, sym[q]);                                                 \
                BODY                                                                            \
            }                                                                                   \
        } else {                                                                                \
            for (int64_t j = 0; j < k; j++) {                                                   \
                int64_t q = lp[j];                                                              \
                int64_t g = idt_id(&T, ids[q] * stride + ids1[q + n - 1]);                      \
                BODY                                                                            \
            }                                                                                   \
        }                                                                                       \
    } while (0)
                if (t == t0) {
                    n_hyp = n_ng;
                    NG_LOOP(ids[q] = g; hc[g]++;);
                    continue;
                }
                if (single) {
                    NG_LOOP(ids[q] = g; int64_t h = hc[g]; int64_t m = h > 0; match += m; hc[g] = h - m;
                            both[g] |= (uint8_t)m;);
                } else {
                    NG_LOOP(ids[q] = g; match += ++rc[g] <= hc[g]; both[g] |= (uint8_t)(hc[g] > 0););
                    if (n == 1)
                        for (int64_t q = ts; q < te; q++) rc[ids[q]] = 0;
                    else
                        for (int64_t j = 0; j < k; j++) rc[ids[lp[j]]] = 0;
                }
#undef NG_LOOP
                double *row = J->out + (pair0 + (t - t0 - 1)) * J->ncols;
                row[col] = (double)(n_ng > 0 ? n_hyp : 0);
                row[col + 1] = (double)n_ng;
                row[col + 2] = (double)match;
            }
            if (!any) break; /* no n-gram of this order (nor of a higher one) in the segment */
            if (n == 1) memcpy(ids1, ids, (size_t)size * sizeof(int64_t));
            if (n < J->max_order) { /* the next order's positions */
                for (int64_t t = t0; t < t1; t++) {
                    int64_t ts = text_off[t] - a, te = text_off[t + 1] - a - n + 1;
                    int64_t *lp = pos + ts, k = 0;
                    if (n == 1) {
                        for (int64_t q = ts; q < te; q++) {
                            lp[k] = q;
                            k += both[ids[q]];
                        }
                    } else {
                        int64_t m = lcnt[t - t0];
                        for (int64_t j = 0; j < m; j++) {
                            int64_t q = lp[j];
                            lp[k] = q;
                            k += both[ids[q]];
                        }
                    }
                    lcnt[t - t0] = k;
                }
            }
            int64_t g = T.g;
            memset(hc, 0, (size_t)g * sizeof(int64_t));
            memset(both, 0, (size_t)g);
            idt_clear(&T);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* buffers */

typedef struct {
    Py_buffer b[12];
    int n;
} Bufs;

static void bufs_release(Bufs *B) {
    for (int k = 0; k < B->n; k++) PyBuffer_Release(&B->b[k]);
    B->n = 0;
}

/* Gets a C-contiguous buffer of at least min_items items of itemsize bytes. */
static const void *get_buf(Bufs *B, PyObject *obj, Py_ssize_t itemsize, Py_ssize_t min_items, int writable,
                           const char *name, Py_ssize_t *n_items) {
    if (B->n >= (int)(sizeof(B->b) / sizeof(B->b[0]))) {
        PyErr_SetString(PyExc_SystemError, "_cmetrics: too many buffers");
        return NULL;
    }
    Py_buffer *b = &B->b[B->n];
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0) return NULL;
    B->n++;
    if (b->len % itemsize != 0 || b->len / itemsize < min_items) {
        PyErr_Format(PyExc_ValueError, "%s: expected at least %zd items of %zd bytes", name, min_items, itemsize);
        return NULL;
    }
    if (n_items) *n_items = b->len / itemsize;
    return b->buf;
}

static PyObject *bytearray_of(const void *p, size_t nbytes) {
    return PyByteArray_FromStringAndSize((const char *)p, (Py_ssize_t)nbytes);
}

static PyObject *py_ngram_pair_stats(PyObject *self, PyObject *args) {
    PyObject *o_sym, *o_toff, *o_soff, *o_out;
    Py_ssize_t seg_lo, seg_hi, ncols, col0;
    int max_order, n_threads;
    if (!PyArg_ParseTuple(args, "OOOnniOnni", &o_sym, &o_toff, &o_soff, &seg_lo, &seg_hi, &max_order, &o_out, &ncols,
                          &col0, &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t n_sym, n_toff, n_soff, n_out;
    const int64_t *sym = get_buf(&B, o_sym, 8, 0, 0, "sym", &n_sym);
    const int64_t *toff = sym ? get_buf(&B, o_toff, 8, 1, 0, "text_off", &n_toff) : NULL;
    const int64_t *soff = toff ? get_buf(&B, o_soff, 8, 1, 0, "seg_text_off", &n_soff) : NULL;
    double *out = soff ? (double *)get_buf(&B, o_out, 8, 0, 1, "out", &n_out) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    if (seg_lo < 0 || seg_hi < seg_lo || seg_hi > n_soff - 1 || max_order < 1 || col0 < 0 ||
        col0 + 3 * (Py_ssize_t)max_order > ncols || soff[n_soff - 1] > n_toff - 1 ||
        toff[n_toff - 1] > n_sym || (soff[n_soff - 1] - (n_soff - 1)) * ncols > n_out) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "ngram_pair_stats: inconsistent offsets or output shape");
        return NULL;
    }
    NgJob J = {sym, toff, soff, seg_lo, max_order, out, ncols, col0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(ng_block, &J, sizeof(NgScratch), ng_scratch_free, seg_hi - seg_lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static inline int is_ascii_punct(int64_t c) {
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

static inline int is_ws(int64_t c, const uint8_t *ws, Py_ssize_t tw) { return c >= 0 && c < tw && ws[c]; }

static PyObject *py_chrf_word_ids(PyObject *self, PyObject *args) {
    PyObject *o_cps, *o_off, *o_ws;
    if (!PyArg_ParseTuple(args, "OOO", &o_cps, &o_off, &o_ws)) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nc, n_off, tw;
    const int64_t *cps = get_buf(&B, o_cps, 8, 0, 0, "cps", &nc);
    const int64_t *toff = cps ? get_buf(&B, o_off, 8, 1, 0, "text_off", &n_off) : NULL;
    const uint8_t *ws = toff ? get_buf(&B, o_ws, 1, 0, 0, "ws_table", &tw) : NULL;
    if (!ws) {
        bufs_release(&B);
        return NULL;
    }
    if (toff[n_off - 1] > nc) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "chrf_word_ids: offsets beyond the code points");
        return NULL;
    }
    Py_ssize_t n_text = n_off - 1;
    int64_t *tok_s = malloc((size_t)(nc + 1) * sizeof(int64_t)), *tok_e = malloc((size_t)(nc + 1) * sizeof(int64_t));
    int64_t *offsets = calloc((size_t)n_text + 1, sizeof(int64_t));
    int64_t *ids = NULL, *table = NULL;
    int oom = !tok_s || !tok_e || !offsets;
    int64_t k = 0;
    Py_BEGIN_ALLOW_THREADS
    if (!oom) {
        for (Py_ssize_t t = 0; t < n_text; t++) {
            int64_t q = toff[t], end = toff[t + 1];
            while (q < end) {
                if (is_ws(cps[q], ws, tw)) {
                    q++;
                    continue;
                }
                int64_t s = q;
                while (q < end && !is_ws(cps[q], ws, tw)) q++;
                int64_t e = q;
                if (e - s >= 2 && is_ascii_punct(cps[e - 1])) {
                    tok_s[k] = s; tok_e[k] = e - 1; tok_s[k + 1] = e - 1; tok_e[k + 1] = e;
                    k += 2;
                } else if (e - s >= 2 && is_ascii_punct(cps[s])) {
                    tok_s[k] = s; tok_e[k] = s + 1; tok_s[k + 1] = s + 1; tok_e[k + 1] = e;
                    k += 2;
                } else {
                    tok_s[k] = s; tok_e[k] = e;
                    k += 1;
                }
            }
            offsets[t + 1] = k;
        }
        int64_t cap = 16;
        while (cap < 2 * k + 2) cap *= 2;
        ids = malloc((size_t)(k + 1) * sizeof(int64_t));
        table = malloc((size_t)cap * sizeof(int64_t));
        if (!ids || !table) {
            oom = 1;
        } else {
            for (int64_t x = 0; x < cap; x++) table[x] = -1;
            int bits = 0;
            while (((int64_t)1 << bits) < cap) bits++;
            unsigned shift = (unsigned)(64 - bits);
            int64_t n_ids = 0;
            for (int64_t i = 0; i < k; i++) {
                int64_t s = tok_s[i], e = tok_e[i];
                uint64_t h = (uint64_t)(e - s);
                for (int64_t q = s; q < e; q++) h = (h ^ (uint64_t)cps[q]) * UINT64_C(0x100000001B3);
                h = (h ^ (h >> 29)) * UINT64_C(0x9E3779B97F4A7C15);
                int64_t slot = (int64_t)(h >> shift);
                for (;;) {
                    int64_t rep = table[slot];
                    if (rep == -1) {
                        table[slot] = i;
                        ids[i] = n_ids++;
                        break;
                    }
                    int64_t rs = tok_s[rep], re = tok_e[rep];
                    if (re - rs == e - s && memcmp(cps + rs, cps + s, (size_t)(e - s) * sizeof(int64_t)) == 0) {
                        ids[i] = ids[rep];
                        break;
                    }
                    slot = (slot + 1) & (cap - 1);
                }
            }
        }
    }
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    PyObject *res = NULL;
    if (oom) {
        PyErr_NoMemory();
    } else {
        PyObject *a = bytearray_of(ids, (size_t)k * sizeof(int64_t));
        PyObject *b = a ? bytearray_of(offsets, (size_t)(n_text + 1) * sizeof(int64_t)) : NULL;
        if (a && b) res = PyTuple_Pack(2, a, b);
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
    free(tok_s); free(tok_e); free(offsets); free(ids); free(table);
    return res;
}

/* chrF's input layout straight from the strings: the code points of every segment's texts (hypothesis, then
 * its references) concatenated (int64), the text offsets and the segment text offsets, as
 * metrics/_ngram_kernel.py's segment_code_points (the reference) builds them through a joined string, UTF-32
 * and (with ws_table) drop_whitespace. Code points are read from the str objects as stored (lone surrogates
 * included, as UTF-32 'surrogatepass' gives them); with ws_table, those c < len(ws_table) with ws_table[c]
 * are left out. hyps: a sequence of str; refs: a sequence (as long) of sequences of str, or with by_columns
 * the reference columns (refs[k][i]: reference k of segment i; each as long as hyps). The texts are
 * collected (and held) with the GIL, then copied without it (the reader thread runs meanwhile). */
static void cp_text(PyObject *t, int64_t *cps, int64_t *k, const uint8_t *ws, Py_ssize_t tw) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    int kind = PyUnicode_KIND(t);
    const void *data = PyUnicode_DATA(t);
    int64_t j = *k;
#define CP_COPY(T)                                                          \
    do {                                                                    \
        const T *p = (const T *)data;                                       \
        if (ws) {                                                           \
            for (Py_ssize_t i = 0; i < n; i++) {                            \
                int64_t c = p[i];                                           \
                cps[j] = c; /* (overwritten by the next kept one if dropped) */ \
                j += !(c < tw && ws[c]);                                    \
            }                                                               \
        } else {                                                            \
            for (Py_ssize_t i = 0; i < n; i++) cps[j++] = p[i];             \
        }                                                                   \
    } while (0)
    if (kind == PyUnicode_1BYTE_KIND && ws && tw >= 256) { /* (every c < 256 is in the table) */
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        for (Py_ssize_t i = 0; i < n; i++) {
            cps[j] = p[i];
            j += !ws[p[i]];
        }
    } else if (kind == PyUnicode_1BYTE_KIND) CP_COPY(Py_UCS1);
    else if (kind == PyUnicode_2BYTE_KIND) CP_COPY(Py_UCS2);
    else CP_COPY(Py_UCS4);
#undef CP_COPY
    *k = j;
}

/* Appends t (checked to be a str, held) to the text list tx[0..*n) (grown as needed); adds its length to *n_cp. */
static int cp_push(PyObject *t, PyObject ***tx, Py_ssize_t *n, Py_ssize_t *cap, Py_ssize_t *n_cp) {
    if (!PyUnicode_Check(t)) {
        PyErr_Format(PyExc_TypeError, "segment_code_points: expected str, got %.100s", Py_TYPE(t)->tp_name);
        return -1;
    }
    if (*n >= *cap) {
        Py_ssize_t c = *cap ? 2 * *cap : 1024;
        PyObject **q = (PyObject **)realloc(*tx, (size_t)c * sizeof(PyObject *));
        if (!q) {
            PyErr_NoMemory();
            return -1;
        }
        *tx = q;
        *cap = c;
    }
    Py_INCREF(t);
    (*tx)[(*n)++] = t;
    *n_cp += PyUnicode_GET_LENGTH(t);
    return 0;
}

static PyObject *py_segment_code_points(PyObject *self, PyObject *args) {
    PyObject *o_hyps, *o_refs, *o_ws;
    int by_columns = 0;
    if (!PyArg_ParseTuple(args, "OOO|p", &o_hyps, &o_refs, &o_ws, &by_columns)) return NULL;
    PyObject *hyps = PySequence_Fast(o_hyps, "segment_code_points: hyps must be a sequence");
    if (!hyps) return NULL;
    PyObject *refs = PySequence_Fast(o_refs, "segment_code_points: refs must be a sequence");
    if (!refs) {
        Py_DECREF(hyps);
        return NULL;
    }
    Py_ssize_t n_seg = PySequence_Fast_GET_SIZE(hyps), n_cols = 0;
    PyObject **tx = NULL, **cols = NULL, *cps_b = NULL, *toff_b = NULL, *soff_b = NULL, *res = NULL;
    Py_ssize_t n_text = 0, cap = 0, n_cp = 0;
    Bufs B = {.n = 0};
    const uint8_t *ws = NULL;
    Py_ssize_t tw = 0;
    if (o_ws != Py_None && !(ws = get_buf(&B, o_ws, 1, 0, 0, "ws_table", &tw))) goto done;
    if (by_columns) { /* refs[k][i]: reference k of segment i */
        n_cols = PySequence_Fast_GET_SIZE(refs);
        cols = (PyObject **)calloc((size_t)n_cols + 1, sizeof(PyObject *));
        if (!cols) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t k = 0; k < n_cols; k++) {
            cols[k] = PySequence_Fast(PySequence_Fast_GET_ITEM(refs, k), "segment_code_points: refs[k] must be a sequence");
            if (!cols[k]) goto done;
            if (PySequence_Fast_GET_SIZE(cols[k]) != n_seg) {
                PyErr_SetString(PyExc_ValueError, "segment_code_points: a reference column differs in length from hyps");
                goto done;
            }
        }
    } else if (PySequence_Fast_GET_SIZE(refs) != n_seg) {
        PyErr_SetString(PyExc_ValueError, "segment_code_points: hyps and refs differ in length");
        goto done;
    }
    soff_b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((n_seg + 1) * sizeof(int64_t)));
    if (!soff_b) goto done;
    int64_t *soff = (int64_t *)PyByteArray_AS_STRING(soff_b);
    soff[0] = 0;
    /* the texts in order, each checked and held; the number of code points */
    for (Py_ssize_t s = 0; s < n_seg; s++) {
        if (PySequence_Fast_GET_SIZE(hyps) != n_seg || (!by_columns && PySequence_Fast_GET_SIZE(refs) != n_seg)) {
            /* (refs[i] that is not a list or tuple runs Python code, which might change the lists) */
            PyErr_SetString(PyExc_RuntimeError, "segment_code_points: the input changed during the call");
            goto done;
        }
        if (cp_push(PySequence_Fast_GET_ITEM(hyps, s), &tx, &n_text, &cap, &n_cp) != 0) goto done;
        if (by_columns) {
            for (Py_ssize_t k = 0; k < n_cols; k++)
                if (cp_push(PySequence_Fast_GET_ITEM(cols[k], s), &tx, &n_text, &cap, &n_cp) != 0) goto done;
        } else {
            PyObject *seg = PySequence_Fast(PySequence_Fast_GET_ITEM(refs, s), "segment_code_points: refs[i] must be a sequence");
            if (!seg) goto done;
            for (Py_ssize_t r = 0; r < PySequence_Fast_GET_SIZE(seg); r++) {
                if (cp_push(PySequence_Fast_GET_ITEM(seg, r), &tx, &n_text, &cap, &n_cp) != 0) {
                    Py_DECREF(seg);
                    goto done;
                }
            }
            Py_DECREF(seg);
        }
        soff[s + 1] = n_text;
    }
    cps_b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n_cp * sizeof(int64_t)));
    toff_b = cps_b ? PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((n_text + 1) * sizeof(int64_t))) : NULL;
    if (!toff_b) goto done;
    int64_t *cps = (int64_t *)PyByteArray_AS_STRING(cps_b), *toff = (int64_t *)PyByteArray_AS_STRING(toff_b);
    int64_t k = 0;
    Py_BEGIN_ALLOW_THREADS
    toff[0] = 0;
    for (Py_ssize_t t = 0; t < n_text; t++) {
        cp_text(tx[t], cps, &k, ws, tw);
        toff[t + 1] = k;
    }
    Py_END_ALLOW_THREADS
    if (k < n_cp && PyByteArray_Resize(cps_b, (Py_ssize_t)(k * sizeof(int64_t))) != 0) goto done;
    res = PyTuple_Pack(3, cps_b, toff_b, soff_b);
done:
    for (Py_ssize_t t = 0; t < n_text; t++) Py_DECREF(tx[t]);
    free(tx);
    if (cols) {
        for (Py_ssize_t c = 0; c < n_cols; c++) Py_XDECREF(cols[c]);
        free(cols);
    }
    bufs_release(&B);
    Py_XDECREF(cps_b);
    Py_XDECREF(toff_b);
    Py_XDECREF(soff_b);
    Py_DECREF(hyps);
    Py_DECREF(refs);
    return res;
}

static PyObject *py_drop_whitespace(PyObject *self, PyObject *args) {
    PyObject *o_cps, *o_off, *o_ws;
    if (!PyArg_ParseTuple(args, "OOO", &o_cps, &o_off, &o_ws)) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nc, n_off, tw;
    const int64_t *cps = get_buf(&B, o_cps, 8, 0, 0, "cps", &nc);
    const int64_t *toff = cps ? get_buf(&B, o_off, 8, 1, 0, "text_off", &n_off) : NULL;
    const uint8_t *ws = toff ? get_buf(&B, o_ws, 1, 0, 0, "ws_table", &tw) : NULL;
    if (!ws) {
        bufs_release(&B);
        return NULL;
    }
    if (toff[n_off - 1] > nc) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "drop_whitespace: offsets beyond the code points");
        return NULL;
    }
    int64_t *out = malloc((size_t)(nc + 1) * sizeof(int64_t));
    int64_t *off = calloc((size_t)n_off, sizeof(int64_t));
    int64_t k = 0;
    if (out && off) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t t = 0; t < n_off - 1; t++) {
            for (int64_t q = toff[t]; q < toff[t + 1]; q++) {
                int64_t c = cps[q];
                if (!is_ws(c, ws, tw)) out[k++] = c;
            }
            off[t + 1] = k;
        }
        Py_END_ALLOW_THREADS
    }
    bufs_release(&B);
    PyObject *res = NULL;
    if (!out || !off) {
        PyErr_NoMemory();
    } else {
        PyObject *a = bytearray_of(out, (size_t)k * sizeof(int64_t));
        PyObject *b = a ? bytearray_of(off, (size_t)n_off * sizeof(int64_t)) : NULL;
        if (a && b) res = PyTuple_Pack(2, a, b);
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
    free(out);
    free(off);
    return res;
}

/* ------------------------------------------------------------------------------------------------ */
/* TER (metrics/_ter_kernel.py documents every rule) */

#define TER_INF INT64_C(10000000000000000)
#define MAX_SHIFT_SIZE 10
#define MAX_SHIFT_DIST 50
#define BEAM_WIDTH 25
#define MAX_SHIFT_CANDIDATES 1000
enum { OP_NOP = 0, OP_SUB = 1, OP_INS = 2, OP_DEL = 3, OP_UNDEF = 4 };

static void ter_fill_rows(const int64_t *h, int64_t n, const int64_t *r, int64_t m, int64_t start, int64_t *D,
                          int8_t *O, double ratio, int64_t bw, int with_ops) {
    int64_t W = m + 1;
    for (int64_t i = start + 1; i <= n; i++) {
        int64_t *Di = D + i * W, *Dp = D + (i - 1) * W;
        for (int64_t j = 0; j <= m; j++) Di[j] = TER_INF;
        if (with_ops) memset(O + i * W, OP_UNDEF, (size_t)W);
        int64_t pd = (int64_t)floor((double)i * ratio);
        int64_t lo = pd - bw, hi = pd + bw;
        if (lo < 0) lo = 0;
        if (hi > m + 1) hi = m + 1;
        if (i == n) hi = m + 1;
        int64_t w = h[i - 1];
        for (int64_t j = lo; j < hi; j++) {
            if (j == 0) {
                Di[0] = Dp[0] + 1;
                if (with_ops) O[i * W] = OP_DEL;
                continue;
            }
            int64_t best = TER_INF, c;
            int op = OP_UNDEF, cop;
            if (w == r[j - 1]) {
                c = Dp[j - 1];
                cop = OP_NOP;
            } else {
                c = Dp[j - 1] + 1;
                cop = OP_SUB;
            }
            if (best > c) { best = c; op = cop; }
            c = Dp[j] + 1;
            if (best > c) { best = c; op = OP_DEL; }
            c = Di[j - 1] + 1;
            if (best > c) { best = c; op = OP_INS; }
            Di[j] = best;
            if (with_ops) O[i * W + j] = (int8_t)op;
        }
    }
}

static int ter_alignment(const int8_t *O, int64_t n, int64_t m, int64_t *align, int64_t *hyp_err, int64_t *ref_err,
                         int8_t *trace) {
    int64_t W = m + 1, i = n, j = m, k = 0;
    while (i > 0 || j > 0) {
        int op = O[i * W + j];
        trace[k++] = (int8_t)op;
        if (op == OP_NOP || op == OP_SUB) {
            i--;
            j--;
        } else if (op == OP_INS) {
            j--;
        } else if (op == OP_DEL) {
            i--;
        } else {
            return 0;
        }
    }
    int64_t ph = -1, pr = -1;
    for (int64_t t = k - 1; t >= 0; t--) {
        int op = trace[t];
        if (op == OP_NOP || op == OP_SUB) {
            ph++;
            pr++;
            align[pr] = ph;
            int64_t e = op == OP_SUB;
            hyp_err[ph] = e;
            ref_err[pr] = e;
        } else if (op == OP_DEL) {
            ph++;
            hyp_err[ph] = 1;
        } else {
            pr++;
            align[pr] = ph;
            ref_err[pr] = 1;
        }
    }
    return 1;
}

static inline int64_t copy_clipped(const int64_t *src, int64_t n, int64_t a, int64_t b, int64_t *dst, int64_t k) {
    if (a > n) a = n;
    if (b > n) b = n;
    for (int64_t t = a; t < b; t++) dst[k++] = src[t];
    return k;
}

static void perform_shift(const int64_t *w, int64_t n, int64_t start, int64_t length, int64_t target, int64_t *out) {
    int64_t k;
    if (target < start) {
        k = copy_clipped(w, n, 0, target, out, 0);
        k = copy_clipped(w, n, start, start + length, out, k);
        k = copy_clipped(w, n, target, start, out, k);
        copy_clipped(w, n, start + length, n, out, k);
    } else if (target > start + length) {
        k = copy_clipped(w, n, 0, start, out, 0);
        k = copy_clipped(w, n, start + length, target, out, k);
        k = copy_clipped(w, n, start, start + length, out, k);
        copy_clipped(w, n, target, n, out, k);
    } else {
        k = copy_clipped(w, n, 0, start, out, 0);
        k = copy_clipped(w, n, start + length, length + target, out, k);
        k = copy_clipped(w, n, start, start + length, out, k);
        copy_clipped(w, n, length + target, n, out, k);
    }
}

typedef struct {
    int64_t *D, *S, *words, *cand, *best_words, *align, *hyp_err, *ref_err;
    int8_t *O, *trace;
    size_t cap_mat, cap_n, cap_m, cap_nm;
} TerScratch;

static void ter_scratch_free(void *p) {
    TerScratch *T = (TerScratch *)p;
    free(T->D); free(T->S); free(T->O); free(T->words); free(T->cand); free(T->best_words); free(T->align);
    free(T->hyp_err); free(T->ref_err); free(T->trace);
}

/* TER edits of hyp (n ids) against ref (m ids); -1 for an undefined trace; -2 when out of memory. */
static int64_t ter_edits(TerScratch *T, const int64_t *hyp, int64_t n, const int64_t *ref, int64_t m) {
    if (m == 0) return n;
    double ratio = n > 0 ? (double)m / (double)n : 1.0;
    int64_t bw = BEAM_WIDTH < ratio / 2 ? (int64_t)ceil(ratio / 2 + BEAM_WIDTH) : BEAM_WIDTH;
    size_t mat = (size_t)(n + 1) * (size_t)(m + 1);
    size_t c0 = T->cap_mat;
    if (reserve((void **)&T->D, &c0, mat, sizeof(int64_t))) return -2;
    c0 = T->cap_mat;
    if (reserve((void **)&T->S, &c0, mat, sizeof(int64_t))) return -2;
    c0 = T->cap_mat;
    if (reserve((void **)&T->O, &c0, mat, 1)) return -2;
    T->cap_mat = c0;
    c0 = T->cap_n;
    size_t c1 = T->cap_n, c2 = T->cap_n, c3 = T->cap_n;
    if (reserve((void **)&T->words, &c0, (size_t)n + 1, 8) || reserve((void **)&T->cand, &c1, (size_t)n + 1, 8) ||
        reserve((void **)&T->best_words, &c2, (size_t)n + 1, 8) || reserve((void **)&T->hyp_err, &c3, (size_t)n + 1, 8))
        return -2;
    T->cap_n = c0;
    c0 = c1 = T->cap_m;
    if (reserve((void **)&T->align, &c0, (size_t)m + 1, 8) || reserve((void **)&T->ref_err, &c1, (size_t)m + 1, 8))
        return -2;
    T->cap_m = c0;
    c0 = T->cap_nm;
    if (reserve((void **)&T->trace, &c0, (size_t)(n + m + 1), 1)) return -2;
    T->cap_nm = c0;
    int64_t *D = T->D, *S = T->S, *words = T->words, *cand = T->cand, *best_words = T->best_words;
    int64_t *align = T->align, *hyp_err = T->hyp_err, *ref_err = T->ref_err;
    int8_t *O = T->O;
    int64_t W = m + 1;
    for (int64_t j = 0; j <= m; j++) {
        D[j] = j;
        S[j] = j;
        O[j] = OP_INS;
    }
    memcpy(words, hyp, (size_t)n * sizeof(int64_t));
    int64_t shifts = 0, checked = 0;
    for (;;) {
        ter_fill_rows(words, n, ref, m, 0, D, O, ratio, bw, 1);
        int64_t pre = D[n * W + m];
        if (!ter_alignment(O, n, m, align, hyp_err, ref_err, T->trace)) return -1;
        int have = 0, stop = 0;
        int64_t b_gain = 0, b_len = 0, b_sh = 0, b_idx = 0;
        for (int64_t sh = 0; sh < n && !stop; sh++) {
            int64_t sr_lo = sh - MAX_SHIFT_DIST, sr_hi = sh + MAX_SHIFT_DIST + 1;
            if (sr_lo < 0) sr_lo = 0;
            if (sr_hi > m) sr_hi = m;
            for (int64_t sr = sr_lo; sr < sr_hi && !stop; sr++) {
                int64_t L = 0;
                while (words[sh + L] == ref[sr + L] && L < MAX_SHIFT_SIZE) {
                    L++;
                    int ok = 0;
                    for (int64_t t = sh; t < sh + L; t++)
                        if (hyp_err[t] != 0) { ok = 1; break; }
                    if (ok) {
                        ok = 0;
                        for (int64_t t = sr; t < sr + L; t++)
                            if (ref_err[t] != 0) { ok = 1; break; }
                    }
                    if (ok && !(sh <= align[sr] && align[sr] < sh + L)) {
                        int64_t prev_idx = -1;
                        for (int64_t off = -1; off < L; off++) {
                            int64_t p = sr + off, idx;
                            if (p == -1) idx = 0;
                            else if (p < m) idx = align[p] + 1;
                            else break;
                            if (idx == prev_idx) continue;
                            prev_idx = idx;
                            perform_shift(words, n, sh, L, idx, cand);
                            int64_t first = sh < idx ? sh : idx;
                            memcpy(S + first * W, D + first * W, (size_t)W * sizeof(int64_t));
                            ter_fill_rows(cand, n, ref, m, first, S, O, ratio, bw, 0);
                            int64_t gain = pre - S[n * W + m];
                            checked++;
                            int better;
                            if (!have) better = 1;
                            else if (gain != b_gain) better = gain > b_gain;
                            else if (L != b_len) better = L > b_len;
                            else if (sh != b_sh) better = sh < b_sh;
                            else better = idx < b_idx;
                            if (better) {
                                have = 1;
                                b_gain = gain;
                                b_len = L;
                                b_sh = sh;
                                b_idx = idx;
                                memcpy(best_words, cand, (size_t)n * sizeof(int64_t));
                            }
                        }
                        if (checked >= MAX_SHIFT_CANDIDATES) {
                            stop = 1;
                            break;
                        }
                    }
                    if (sh + L == n || sr + L == m) break;
                }
            }
        }
        if (checked >= MAX_SHIFT_CANDIDATES) break;
        if (!have || b_gain <= 0) break;
        shifts++;
        memcpy(words, best_words, (size_t)n * sizeof(int64_t));
    }
    return shifts + D[n * W + m];
}

typedef struct {
    const int64_t *hyp_ids, *hyp_off, *ref_ids, *ref_off, *pair_hyp, *pair_ref;
    int64_t lo;
    int64_t *out;
} TerJob;

static int ter_block(void *ctx, void *scratch, int64_t a, int64_t b) {
    TerJob *J = (TerJob *)ctx;
    for (int64_t k = a; k < b; k++) {
        int64_t p = J->lo + k;
        int64_t h = J->pair_hyp[p], r = J->pair_ref[p];
        int64_t e = ter_edits((TerScratch *)scratch, J->hyp_ids + J->hyp_off[h], J->hyp_off[h + 1] - J->hyp_off[h],
                              J->ref_ids + J->ref_off[r], J->ref_off[r + 1] - J->ref_off[r]);
        if (e == -2) return -1;
        J->out[p] = e;
    }
    return 0;
}

static PyObject *py_ter_pairs(PyObject *self, PyObject *args) {
    PyObject *o[7];
    Py_ssize_t lo, hi;
    int n_threads;
    if (!PyArg_ParseTuple(args, "OOOOOOnnOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &lo, &hi, &o[6], &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nh, nho, nr, nro, nph, npr, nout;
    const int64_t *hyp_ids = get_buf(&B, o[0], 8, 0, 0, "hyp_ids", &nh);
    const int64_t *hyp_off = hyp_ids ? get_buf(&B, o[1], 8, 1, 0, "hyp_off", &nho) : NULL;
    const int64_t *ref_ids = hyp_off ? get_buf(&B, o[2], 8, 0, 0, "ref_ids", &nr) : NULL;
    const int64_t *ref_off = ref_ids ? get_buf(&B, o[3], 8, 1, 0, "ref_off", &nro) : NULL;
    const int64_t *pair_hyp = ref_off ? get_buf(&B, o[4], 8, 0, 0, "pair_hyp", &nph) : NULL;
    const int64_t *pair_ref = pair_hyp ? get_buf(&B, o[5], 8, nph, 0, "pair_ref", &npr) : NULL;
    int64_t *out = pair_ref ? (int64_t *)get_buf(&B, o[6], 8, nph, 1, "out", &nout) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    int bad = lo < 0 || hi < lo || hi > nph || hyp_off[nho - 1] > nh || ref_off[nro - 1] > nr;
    for (Py_ssize_t k = lo; k < hi && !bad; k++)
        bad = pair_hyp[k] < 0 || pair_hyp[k] >= nho - 1 || pair_ref[k] < 0 || pair_ref[k] >= nro - 1;
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "ter_pairs: pair or offset out of range");
        return NULL;
    }
    TerJob J = {hyp_ids, hyp_off, ref_ids, ref_off, pair_hyp, pair_ref, lo, out};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(ter_block, &J, sizeof(TerScratch), ter_scratch_free, hi - lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* pair kernels over ragged id arrays: hypothesis row pair_seg[p] against reference row p */

typedef struct {
    const int64_t *h_ids, *h_off, *r_ids, *r_off, *pair_seg;
    int64_t lo;
    void *out;
    int K;
    double alpha, beta, e;
} PairJob;

typedef struct {
    void *a, *b, *c, *d, *e, *f;
    size_t ca, cb, cc, cd, ce, cf;
    int64_t clock;
} Scr;

static void scr_free(void *p) {
    Scr *S = (Scr *)p;
    free(S->a); free(S->b); free(S->c); free(S->d); free(S->e); free(S->f);
}

/* WER: unit-cost token edit distance (metrics/wer.py levenshtein_pairs_ref) */
static int lev_block(void *ctx, void *scratch, int64_t a, int64_t b) {
    PairJob *J = (PairJob *)ctx;
    Scr *S = (Scr *)scratch;
    int64_t *out = (int64_t *)J->out;
    for (int64_t k = a; k < b; k++) {
        int64_t p = J->lo + k, s = J->pair_seg[p];
        int64_t hs = J->h_off[s], he = J->h_off[s + 1], rs = J->r_off[p], re = J->r_off[p + 1];
        const int64_t *h = J->h_ids, *r = J->r_ids;
        while (hs < he && rs < re && h[hs] == r[rs]) { hs++; rs++; }
        while (hs < he && rs < re && h[he - 1] == r[re - 1]) { he--; re--; }
        int64_t n = he - hs, m = re - rs;
        if (n == 0 || m == 0) {
            out[p] = n + m;
            continue;
        }
        if (reserve(&S->a, &S->ca, (size_t)m + 1, sizeof(int64_t))) return -1;
        int64_t *row = (int64_t *)S->a;
        for (int64_t j = 0; j <= m; j++) row[j] = j;
        for (int64_t i = 1; i <= n; i++) {
            int64_t w = h[hs + i - 1], diag = row[0], left = i;
            row[0] = i;
            for (int64_t j = 1; j <= m; j++) {
                int64_t up = row[j];
                int64_t best = r[rs + j - 1] == w ? diag : diag + 1;
                if (up + 1 < best) best = up + 1;
                if (left + 1 < best) best = left + 1;
                row[j] = best;
                left = best;
                diag = up;
            }
        }
        out[p] = row[m];
    }
    return 0;
}

/* K-GRR: Viterbi numerators (metrics/grr.py grr_numerators_ref; same floating-point steps) */
static int grr_block(void *ctx, void *scratch, int64_t a, int64_t b) {
    PairJob *J = (PairJob *)ctx;
    Scr *S = (Scr *)scratch;
    double *out = (double *)J->out;
    const int K = J->K;
    const int KM = K > 1 ? K : 2;
    const double alpha = J->alpha, beta = J->beta, neg = -INFINITY;
    for (int64_t k = a; k < b; k++) {
        int64_t p = J->lo + k, s = J->pair_seg[p];
        int64_t hs = J->h_off[s], n = J->h_off[s + 1] - hs, rs = J->r_off[p], R = J->r_off[p + 1] - rs;
        size_t need = (size_t)R + 1;
        if (need > S->ca) { /* grow: S->ca = rows per array; stamps restart */
            size_t rows = S->ca ? 2 * S->ca : 64;
            while (rows < need) rows *= 2;
            void *q = realloc(S->a, rows * 4 * sizeof(double));
            if (!q) return -1;
            S->a = q;
            q = realloc(S->b, rows * 2 * (size_t)KM * sizeof(double));
            if (!q) return -1;
            S->b = q;
            q = realloc(S->c, rows * 2 * sizeof(int64_t));
            if (!q) return -1;
            S->c = q;
            S->ca = rows;
            int64_t *st = (int64_t *)S->c;
            for (size_t x = 0; x < rows * 2; x++) st[x] = -10;
            S->clock = 0;
        }
        /* the layout depends on the current capacity (S->ca rows per array) */
        size_t cap = S->ca;
        double *V0 = (double *)S->a, *B = V0 + cap, *nV0 = V0 + 2 * cap, *nB = V0 + 3 * cap;
        double *M = (double *)S->b;
        int64_t *stamp = (int64_t *)S->c;
#define MI(par, i, m) M[((size_t)(par) * cap + (size_t)(i)) * (size_t)KM + (size_t)(m)]
#define ST(par, i) stamp[(size_t)(par) * cap + (size_t)(i)]
        const int64_t *hw = J->h_ids + hs, *rw = J->r_ids + rs;
        V0[0] = 0.0;
        B[0] = 0.0;
        for (int64_t i = 1; i <= R; i++) {
            V0[i] = V0[i - 1] - beta;
            B[i] = V0[i];
        }
        S->clock += 2;
        int64_t clock = S->clock;
        int cur = 0;
        for (int64_t t = 0; t < n; t++) {
            clock += 1;
            S->clock = clock;
            int nxt = 1 - cur;
            int64_t w = hw[t];
            for (int64_t i = 0; i <= R; i++) {
                double v = B[i] - alpha, nb, x;
                if (i >= 1) {
                    x = B[i - 1];
                    if (x > v) v = x;
                    x = nB[i - 1] - beta;
                    if (x > v) v = x;
                    if (rw[i - 1] == w) {
                        if (K == 1) {
                            x = V0[i - 1] + 1.0;
                            if (x > v) v = x;
                            nb = v;
                        } else {
                            for (int mm = 1; mm < K; mm++) MI(nxt, i, mm) = neg;
                            MI(nxt, i, 1) = V0[i - 1] + 1.0;
                            if (ST(cur, i - 1) == clock - 1) {
                                for (int m = 1; m < K; m++) {
                                    double y = MI(cur, i - 1, m);
                                    if (y > neg) {
                                        int tgt = m + 1 < K ? m + 1 : K - 1;
                                        y += m + 1;
                                        if (y > MI(nxt, i, tgt)) MI(nxt, i, tgt) = y;
                                    }
                                }
                            }
                            ST(nxt, i) = clock;
                            nb = v;
                            for (int mm = 1; mm < K; mm++)
                                if (MI(nxt, i, mm) > nb) nb = MI(nxt, i, mm);
                        }
                    } else {
                        nb = v;
                    }
                } else {
                    nb = v;
                }
                nV0[i] = v;
                nB[i] = nb;
            }
            double *tmp = V0; V0 = nV0; nV0 = tmp;
            tmp = B; B = nB; nB = tmp;
            cur = nxt;
        }
#undef MI
#undef ST
        out[p] = B[R];
    }
    return 0;
}

/* GTM: greedy matching per segment, best reference by F (metrics/gtm.py _gtm_kernel_ref); pairs of
 * segment s are seg_pair[s] .. seg_pair[s+1]-1; out = [mms (n_seg), reflen (n_seg)] */
typedef struct {
    const int64_t *h_ids, *h_off, *r_ids, *r_off, *seg_pair;
    int64_t lo;
    double e;
    double *mms, *reflen;
} GtmJob;

static int gtm_block(void *ctx, void *scratch, int64_t a, int64_t b) {
    GtmJob *J = (GtmJob *)ctx;
    Scr *S = (Scr *)scratch;
    for (int64_t k = a; k < b; k++) {
        int64_t s = J->lo + k;
        double best_f = -1.0;
        const int64_t *h = J->h_ids + J->h_off[s];
        int64_t m = J->h_off[s + 1] - J->h_off[s];
        for (int64_t pr = J->seg_pair[s]; pr < J->seg_pair[s + 1]; pr++) {
            const int64_t *r = J->r_ids + J->r_off[pr];
            int64_t n = J->r_off[pr + 1] - J->r_off[pr];
            if (reserve(&S->a, &S->ca, (size_t)(m + 1) * (size_t)(n + 1), sizeof(int64_t)) ||
                reserve(&S->b, &S->cb, (size_t)m + 1, 1) || reserve(&S->c, &S->cc, (size_t)n + 1, 1))
                return -1;
            int64_t *fwd = (int64_t *)S->a;
            uint8_t *hused = (uint8_t *)S->b, *rused = (uint8_t *)S->c;
            memset(hused, 0, (size_t)m);
            memset(rused, 0, (size_t)n);
            double total = 0.0;
            for (;;) {
                int64_t best = 0, bi = -1, bj = -1;
                for (int64_t i = m - 1; i >= 0; i--) {
                    for (int64_t j = n - 1; j >= 0; j--) {
                        if (!hused[i] && !rused[j] && h[i] == r[j]) {
                            int64_t v = 1;
                            if (i + 1 < m && j + 1 < n) v += fwd[(i + 1) * (n + 1) + (j + 1)];
                            fwd[i * (n + 1) + j] = v;
                        } else {
                            fwd[i * (n + 1) + j] = 0;
                        }
                    }
                }
                for (int64_t i = 0; i < m; i++)
                    for (int64_t j = 0; j < n; j++) {
                        int64_t v = fwd[i * (n + 1) + j];
                        if (v > best) { best = v; bi = i; bj = j; }
                    }
                if (best == 0) break;
                for (int64_t q = 0; q < best; q++) {
                    hused[bi + q] = 1;
                    rused[bj + q] = 1;
                }
                total += pow((double)best, J->e);
            }
            int64_t lens = m + n;
            double f = lens > 0 ? 2.0 * pow(total, 1.0 / J->e) / (double)lens : 1.0;
            if (f > best_f) {
                best_f = f;
                J->mms[s] = total;
                J->reflen[s] = (double)n;
            }
        }
    }
    return 0;
}

static int check_ragged(const int64_t *off, Py_ssize_t n_off, Py_ssize_t n_ids) {
    if (n_off < 1 || off[0] < 0 || off[n_off - 1] > n_ids) return 0;
    for (Py_ssize_t k = 0; k + 1 < n_off; k++)
        if (off[k + 1] < off[k]) return 0;
    return 1;
}

/* kind: 0 = levenshtein (out int64), 1 = grr (out float64) */
static PyObject *pair_kernel(PyObject *args, int kind) {
    PyObject *o[6];
    Py_ssize_t lo, hi;
    int n_threads, K = 0;
    double alpha = 0, beta = 0;
    if (kind == 0) {
        if (!PyArg_ParseTuple(args, "OOOOOnnOi", &o[0], &o[1], &o[2], &o[3], &o[4], &lo, &hi, &o[5], &n_threads))
            return NULL;
    } else {
        if (!PyArg_ParseTuple(args, "OOOOOiddnnOi", &o[0], &o[1], &o[2], &o[3], &o[4], &K, &alpha, &beta, &lo, &hi,
                              &o[5], &n_threads))
            return NULL;
        if (K < 1) {
            PyErr_SetString(PyExc_ValueError, "grr_numerators: K must be >= 1");
            return NULL;
        }
    }
    Bufs B = {.n = 0};
    Py_ssize_t nh, nho, nr, nro, nps, nout;
    const int64_t *h_ids = get_buf(&B, o[0], 8, 0, 0, "h_ids", &nh);
    const int64_t *h_off = h_ids ? get_buf(&B, o[1], 8, 1, 0, "h_off", &nho) : NULL;
    const int64_t *r_ids = h_off ? get_buf(&B, o[2], 8, 0, 0, "r_ids", &nr) : NULL;
    const int64_t *r_off = r_ids ? get_buf(&B, o[3], 8, 1, 0, "r_off", &nro) : NULL;
    const int64_t *pair_seg = r_off ? get_buf(&B, o[4], 8, nro - 1, 0, "pair_seg", &nps) : NULL;
    void *out = pair_seg ? (void *)get_buf(&B, o[5], 8, nro - 1, 1, "out", &nout) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    int bad = lo < 0 || hi < lo || hi > nro - 1 || !check_ragged(h_off, nho, nh) || !check_ragged(r_off, nro, nr);
    for (Py_ssize_t k = lo; k < hi && !bad; k++) bad = pair_seg[k] < 0 || pair_seg[k] >= nho - 1;
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "pair kernel: pair or offset out of range");
        return NULL;
    }
    PairJob J = {h_ids, h_off, r_ids, r_off, pair_seg, lo, out, K, alpha, beta, 0.0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(kind == 0 ? lev_block : grr_block, &J, sizeof(Scr), scr_free, hi - lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *py_levenshtein_pairs(PyObject *self, PyObject *args) { return pair_kernel(args, 0); }

/* ------------------------------------------------------------------------------------------------ */
/* Word alignment (metrics/alignment.py align_ops_ref): jiwer's minimum edit alignment of hypothesis row p
 * against reference row p, written as op characters ('=', 'S', 'D', 'I') at out[out_off[p] ...], its length in
 * out_len[p] (out_off[p + 1] - out_off[p] >= both lengths summed). */

typedef struct {
    const int64_t *h_ids, *h_off, *r_ids, *r_off, *out_off;
    int64_t lo;
    uint8_t *out;
    int64_t *out_len;
} AlignJob;

static int align_block(void *ctx, void *scratch, int64_t a, int64_t b) {
    AlignJob *J = (AlignJob *)ctx;
    Scr *S = (Scr *)scratch;
    for (int64_t k = a; k < b; k++) {
        int64_t p = J->lo + k;
        const int64_t *hyp = J->h_ids + J->h_off[p], *ref = J->r_ids + J->r_off[p];
        int64_t m = J->h_off[p + 1] - J->h_off[p], n = J->r_off[p + 1] - J->r_off[p];
        uint8_t *o = J->out + J->out_off[p];
        int64_t pre = 0, lim = n < m ? n : m;
        while (pre < lim && ref[pre] == hyp[pre]) pre++;
        int64_t suf = 0;
        while (suf < lim - pre && ref[n - 1 - suf] == hyp[m - 1 - suf]) suf++;
        const int64_t *rm = ref + pre, *hm = hyp + pre;
        int64_t N = n - pre - suf, M = m - pre - suf;
        size_t W = (size_t)M + 1, cells = ((size_t)N + 1) * W;
        if (reserve(&S->a, &S->ca, cells, sizeof(int64_t))) return -1;
        if (reserve(&S->b, &S->cb, (size_t)(N + M) + 1, 1)) return -1;
        int64_t *d = (int64_t *)S->a;
        uint8_t *mid = (uint8_t *)S->b;
        for (int64_t j = 0; j <= M; j++) d[j] = j;
        for (int64_t i = 1; i <= N; i++) {
            int64_t *row = d + (size_t)i * W, *prev = row - W, ri = rm[i - 1];
            row[0] = i;
            for (int64_t j = 1; j <= M; j++) {
                int64_t best = prev[j - 1] + (ri == hm[j - 1] ? 0 : 1), del = prev[j] + 1, left = row[j - 1] + 1;
                if (del < best) best = del;
                row[j] = best <= left ? best : left;
            }
        }
#define D(i, j) d[(size_t)(i) * W + (size_t)(j)]
        int64_t i = N, j = M, nm = 0;
        while (i && j) {
            if (D(i, j) - D(i - 1, j) == 1) {
                mid[nm++] = 'D';
                i--;
                continue;
            }
            j--;
            if (j && D(i, j) - D(i - 1, j) == -1) {
                mid[nm++] = 'I';
                continue;
            }
            i--;
            mid[nm++] = rm[i] == hm[j] ? '=' : 'S';
        }
#undef D
        while (i) { i--; mid[nm++] = 'D'; }
        while (j) { j--; mid[nm++] = 'I'; }
        int64_t q = 0;
        for (int64_t t = 0; t < pre; t++) o[q++] = '=';
        while (nm) o[q++] = mid[--nm];
        for (int64_t t = 0; t < suf; t++) o[q++] = '=';
        J->out_len[p] = q;
    }
    return 0;
}

static PyObject *py_align_ops(PyObject *self, PyObject *args) {
    PyObject *o[7];
    Py_ssize_t lo, hi;
    int n_threads;
    if (!PyArg_ParseTuple(args, "OOOOOnnOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &lo, &hi, &o[5], &o[6], &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nh, nho, nr, nro, noo, nout, nlen;
    const int64_t *h_ids = get_buf(&B, o[0], 8, 0, 0, "h_ids", &nh);
    const int64_t *h_off = h_ids ? get_buf(&B, o[1], 8, 1, 0, "h_off", &nho) : NULL;
    const int64_t *r_ids = h_off ? get_buf(&B, o[2], 8, 0, 0, "r_ids", &nr) : NULL;
    const int64_t *r_off = r_ids ? get_buf(&B, o[3], 8, nho, 0, "r_off", &nro) : NULL;
    const int64_t *out_off = r_off ? get_buf(&B, o[4], 8, nho, 0, "out_off", &noo) : NULL;
    uint8_t *out = out_off ? (uint8_t *)get_buf(&B, o[5], 1, 0, 1, "out", &nout) : NULL;
    int64_t *out_len = out ? (int64_t *)get_buf(&B, o[6], 8, nho - 1, 1, "out_len", &nlen) : NULL;
    if (!out_len) {
        bufs_release(&B);
        return NULL;
    }
    int bad = lo < 0 || hi < lo || hi > nho - 1 || nro != nho || noo != nho || !check_ragged(h_off, nho, nh) ||
              !check_ragged(r_off, nro, nr) || !check_ragged(out_off, noo, nout);
    for (Py_ssize_t p = lo; p < hi && !bad; p++)
        bad = out_off[p + 1] - out_off[p] < (h_off[p + 1] - h_off[p]) + (r_off[p + 1] - r_off[p]);
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "align_ops: offsets or output size out of range");
        return NULL;
    }
    AlignJob J = {h_ids, h_off, r_ids, r_off, out_off, lo, out, out_len};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(align_block, &J, sizeof(Scr), scr_free, hi - lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *py_grr_numerators(PyObject *self, PyObject *args) { return pair_kernel(args, 1); }

static PyObject *py_gtm(PyObject *self, PyObject *args) {
    PyObject *o[7];
    Py_ssize_t lo, hi;
    double e;
    int n_threads;
    if (!PyArg_ParseTuple(args, "OOOOOdnnOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &e, &lo, &hi, &o[5], &o[6],
                          &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nh, nho, nr, nro, nsp, n1, n2;
    const int64_t *h_ids = get_buf(&B, o[0], 8, 0, 0, "h_ids", &nh);
    const int64_t *h_off = h_ids ? get_buf(&B, o[1], 8, 1, 0, "h_off", &nho) : NULL;
    const int64_t *r_ids = h_off ? get_buf(&B, o[2], 8, 0, 0, "r_ids", &nr) : NULL;
    const int64_t *r_off = r_ids ? get_buf(&B, o[3], 8, 1, 0, "r_off", &nro) : NULL;
    const int64_t *seg_pair = r_off ? get_buf(&B, o[4], 8, nho, 0, "seg_pair", &nsp) : NULL;
    double *mms = seg_pair ? (double *)get_buf(&B, o[5], 8, nho - 1, 1, "mms", &n1) : NULL;
    double *reflen = mms ? (double *)get_buf(&B, o[6], 8, nho - 1, 1, "reflen", &n2) : NULL;
    if (!reflen) {
        bufs_release(&B);
        return NULL;
    }
    int bad = lo < 0 || hi < lo || hi > nho - 1 || !check_ragged(h_off, nho, nh) || !check_ragged(r_off, nro, nr) ||
              !check_ragged(seg_pair, nho, nro - 1) || !(e >= 1.0);
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "gtm: offsets out of range");
        return NULL;
    }
    GtmJob J = {h_ids, h_off, r_ids, r_off, seg_pair, lo, e, mms, reflen};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(gtm_block, &J, sizeof(Scr), scr_free, hi - lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* Interrupts inside one long call (lattice / alignment DPs, NIST's corpus-wide passes): the kernel runs with the GIL released and,
 * every POLL_EVERY units of work, takes the GIL back for PyErr_CheckSignals(); a pending Ctrl-C then
 * raises KeyboardInterrupt at once and the kernel stops (returns -2). */

#define POLL_EVERY 4000000

typedef struct {
    PyThreadState *ts;
    int64_t work;
} Poll;

static int poll_tick(Poll *P, int64_t w) {
    P->work += w;
    if (P->work < POLL_EVERY) return 0;
    P->work = 0;
    PyEval_RestoreThread(P->ts);
    int r = PyErr_CheckSignals();
    P->ts = PyEval_SaveThread();
    return r ? -2 : 0;
}

/* NIST (metrics/nist.py; single-threaded: one corpus-wide table) */
static PyObject *py_nist_next_ids(PyObject *self, PyObject *args) {
    PyObject *o[3];
    Py_ssize_t n, vsize, first_ref_row;
    if (!PyArg_ParseTuple(args, "OOOnnn", &o[0], &o[1], &o[2], &n, &vsize, &first_ref_row)) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t np_, nt, no;
    const int64_t *prev = get_buf(&B, o[0], 8, 0, 0, "prev", &np_);
    const int64_t *toks = prev ? get_buf(&B, o[1], 8, np_, 0, "toks", &nt) : NULL;
    const int64_t *off = toks ? get_buf(&B, o[2], 8, 1, 0, "off", &no) : NULL;
    if (!off) {
        bufs_release(&B);
        return NULL;
    }
    if (np_ != nt || !check_ragged(off, no, nt) || off[no - 1] != nt || first_ref_row < 0 || first_ref_row > no - 1 ||
        n < 1 || vsize < 1) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "nist_next_ids: inconsistent arguments");
        return NULL;
    }
    int64_t n_tok = nt, n_ref_tok = nt - off[first_ref_row];
    int bits = 4;
    while (((int64_t)1 << bits) < 2 * n_ref_tok + 2) bits++;
    int64_t size = (int64_t)1 << bits, mask = size - 1;
    unsigned shift = (unsigned)(64 - bits);
    int64_t *cur = malloc((size_t)(n_tok + 1) * sizeof(int64_t));
    int64_t *keys = malloc((size_t)size * sizeof(int64_t)), *vals = malloc((size_t)size * sizeof(int64_t));
    int64_t n_ids = 0;
    int rc = 0;
    if (cur && keys && vals) {
        Poll P = {PyEval_SaveThread(), 0};
        for (int64_t q = 0; q < n_tok; q++) cur[q] = -1;
        for (int64_t q = 0; q < size; q++) keys[q] = -1;
        for (Py_ssize_t row = first_ref_row; row < no - 1 && rc == 0; row++) {
            rc = poll_tick(&P, off[row + 1] - off[row] + 1);
            for (int64_t s = off[row]; s < off[row + 1] - n + 1; s++) {
                int64_t key = prev[s] * vsize + toks[s + n - 1];
                int64_t h = (int64_t)(((uint64_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> shift);
                for (;;) {
                    int64_t kk = keys[h];
                    if (kk == key) { cur[s] = vals[h]; break; }
                    if (kk == -1) { keys[h] = key; vals[h] = n_ids; cur[s] = n_ids++; break; }
                    h = (h + 1) & mask;
                }
            }
        }
        for (Py_ssize_t row = 0; row < first_ref_row && rc == 0; row++) {
            rc = poll_tick(&P, off[row + 1] - off[row] + 1);
            for (int64_t s = off[row]; s < off[row + 1] - n + 1; s++) {
                if (prev[s] < 0) continue;
                int64_t key = prev[s] * vsize + toks[s + n - 1];
                int64_t h = (int64_t)(((uint64_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> shift);
                for (;;) {
                    int64_t kk = keys[h];
                    if (kk == key) { cur[s] = vals[h]; break; }
                    if (kk == -1) break;
                    h = (h + 1) & mask;
                }
            }
        }
        PyEval_RestoreThread(P.ts);
    }
    bufs_release(&B);
    PyObject *res = NULL;
    if (!cur || !keys || !vals) {
        PyErr_NoMemory();
    } else if (rc == 0) { /* else: KeyboardInterrupt (or another signal handler's exception) is set */
        PyObject *a = bytearray_of(cur, (size_t)n_tok * sizeof(int64_t));
        if (a) res = Py_BuildValue("(NL)", a, (long long)n_ids);
    }
    free(cur); free(keys); free(vals);
    return res;
}

static PyObject *py_nist_clipped_info(PyObject *self, PyObject *args) {
    PyObject *o[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6])) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nhg, nho, nrg, nro, nss, ninfo, nout;
    const int64_t *h_g = get_buf(&B, o[0], 8, 0, 0, "h_g", &nhg);
    const int64_t *h_off = h_g ? get_buf(&B, o[1], 8, 1, 0, "h_off", &nho) : NULL;
    const int64_t *r_g = h_off ? get_buf(&B, o[2], 8, 0, 0, "r_g", &nrg) : NULL;
    const int64_t *r_off = r_g ? get_buf(&B, o[3], 8, 1, 0, "r_off", &nro) : NULL;
    const int64_t *seg_start = r_off ? get_buf(&B, o[4], 8, nho, 0, "seg_start", &nss) : NULL;
    const double *info = seg_start ? get_buf(&B, o[5], 8, 0, 0, "info", &ninfo) : NULL;
    double *out = info ? (double *)get_buf(&B, o[6], 8, nho - 1, 1, "out", &nout) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    int bad = !check_ragged(h_off, nho, nhg) || !check_ragged(r_off, nro, nrg) || !check_ragged(seg_start, nho, nro - 1);
    for (Py_ssize_t q = 0; q < nrg && !bad; q++) bad = r_g[q] < 0 || r_g[q] >= ninfo;
    for (Py_ssize_t q = 0; q < nhg && !bad; q++) bad = h_g[q] >= ninfo;
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "nist_clipped_info: ids or offsets out of range");
        return NULL;
    }
    int64_t *tmp = calloc((size_t)ninfo + 1, sizeof(int64_t)), *mx = calloc((size_t)ninfo + 1, sizeof(int64_t));
    int64_t *hc = calloc((size_t)ninfo + 1, sizeof(int64_t));
    int rc = 0;
    if (tmp && mx && hc) {
        Poll P = {PyEval_SaveThread(), 0};
        for (Py_ssize_t s = 0; s < nho - 1 && rc == 0; s++) {
            rc = poll_tick(&P, h_off[s + 1] - h_off[s] + r_off[seg_start[s + 1]] - r_off[seg_start[s]] + 1);
            for (int64_t pr = seg_start[s]; pr < seg_start[s + 1]; pr++) {
                for (int64_t q = r_off[pr]; q < r_off[pr + 1]; q++) {
                    int64_t g = r_g[q];
                    tmp[g]++;
                    if (tmp[g] > mx[g]) mx[g] = tmp[g];
                }
                for (int64_t q = r_off[pr]; q < r_off[pr + 1]; q++) tmp[r_g[q]] = 0;
            }
            for (int64_t p = h_off[s]; p < h_off[s + 1]; p++)
                if (h_g[p] >= 0) hc[h_g[p]]++;
            double acc = 0.0;
            for (int64_t p = h_off[s]; p < h_off[s + 1]; p++) {
                int64_t g = h_g[p];
                if (g < 0) continue;
                int64_t c = hc[g];
                if (c > 0) {
                    int64_t m = mx[g];
                    if (m > 0) acc += info[g] * (double)(c < m ? c : m);
                    hc[g] = 0;
                }
            }
            out[s] = acc;
            for (int64_t pr = seg_start[s]; pr < seg_start[s + 1]; pr++)
                for (int64_t q = r_off[pr]; q < r_off[pr + 1]; q++) mx[r_g[q]] = 0;
        }
        PyEval_RestoreThread(P.ts);
    }
    bufs_release(&B);
    int oom = !tmp || !mx || !hc;
    free(tmp); free(mx); free(hc);
    if (oom) return PyErr_NoMemory();
    if (rc != 0) return NULL; /* KeyboardInterrupt (or another signal handler's exception) is set */
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* tBLEU: affix distances and candidate cost matrices (metrics/tbleu.py: _affix_parts, _ad_types,
 * _maybe_correctable, _candidate_costs_ref document the rules) */

typedef struct {
    int32_t *buf;
    size_t cap;
} AdScratch;

/* (d, L) as _affix_parts; returns -1 when out of memory. */
static int affix_parts(const int64_t *codes, int64_t oa, int64_t n, int64_t ob, int64_t m, AdScratch *A, int64_t *d_out,
                       int64_t *L_out) {
    *d_out = -1;
    *L_out = 0;
    if (n == 0 || m == 0) return 0;
    int64_t w = m + 1, size = (n + 1) * w;
    if (reserve((void **)&A->buf, &A->cap, (size_t)(3 * size), sizeof(int32_t))) return -1;
    int32_t *buf = A->buf;
    int32_t best = 0;
    for (int64_t j = 0; j < w; j++) buf[j] = 0;
    for (int64_t i = 1; i <= n; i++) {
        int64_t ca = codes[oa + i - 1], row = i * w;
        buf[row] = 0;
        for (int64_t j = 1; j < w; j++) {
            if (ca == codes[ob + j - 1]) {
                int32_t v = buf[row - w + j - 1] + 1;
                buf[row + j] = v;
                if (v > best) best = v;
            } else {
                buf[row + j] = 0;
            }
        }
    }
    if (best == 0) return 0;
    *L_out = best;
    if ((n > m ? n - m : m - n) >= best) return 0;
    int64_t P = size, Q = 2 * size;
    for (int64_t j = 0; j < w; j++) {
        buf[P + j] = (int32_t)j;
        buf[Q + n * w + j] = (int32_t)(m - j);
    }
    for (int64_t i = 1; i <= n; i++) {
        int64_t row = P + i * w, ca = codes[oa + i - 1];
        buf[row] = (int32_t)i;
        for (int64_t j = 1; j < w; j++) {
            int32_t sub = buf[row - w + j - 1] + (ca == codes[ob + j - 1] ? 0 : 1);
            int32_t x = buf[row - w + j] + 1, y = buf[row + j - 1] + 1;
            if (x < sub) sub = x;
            if (y < sub) sub = y;
            buf[row + j] = sub;
        }
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        int64_t row = Q + i * w, ca = codes[oa + i];
        buf[row + m] = (int32_t)(n - i);
        for (int64_t j = m - 1; j >= 0; j--) {
            int32_t sub = buf[row + w + j + 1] + (ca == codes[ob + j] ? 0 : 1);
            int32_t x = buf[row + w + j] + 1, y = buf[row + j + 1] + 1;
            if (x < sub) sub = x;
            if (y < sub) sub = y;
            buf[row + j] = sub;
        }
    }
    int64_t d = (int64_t)1 << 30;
    for (int64_t i = best; i <= n; i++)
        for (int64_t j = best; j < w; j++)
            if (buf[i * w + j] == best) {
                int64_t v = (int64_t)buf[P + (i - best) * w + j - best] + buf[Q + i * w + j];
                if (v < d) d = v;
            }
    *d_out = d;
    return 0;
}

typedef struct {
    const int64_t *codes, *offs, *canon;
    const uint64_t *masks;
    const uint8_t *twin;
} Types;

static int ad_types(const Types *T, int64_t a, int64_t b, AdScratch *A, double *out) {
    if (a == b) { *out = 0.0; return 0; }
    if ((T->masks[a] & T->masks[b]) == 0) { *out = 1.0; return 0; }
    int64_t oa = T->offs[a], ob = T->offs[b], n = T->offs[a + 1] - oa, m = T->offs[b + 1] - ob;
    if ((n > m ? n - m : m - n) >= (n < m ? n : m)) { *out = 1.0; return 0; }
    int64_t d, L;
    if (affix_parts(T->codes, oa, n, ob, m, A, &d, &L)) return -1;
    *out = (L == 0 || d < 0 || d >= L) ? 1.0 : (double)d / (double)L;
    return 0;
}

static int maybe_correctable(const Types *T, int64_t a, int64_t b, double eps) {
    if (T->canon[a] == T->canon[b]) return 1;
    int64_t n = T->offs[a + 1] - T->offs[a], m = T->offs[b + 1] - T->offs[b];
    int64_t lo = n < m ? n : m, need = n > m ? n - m : m - n;
    if (need < 1) need = 1;
    return (double)need <= eps * (double)lo * (1.0 + 1e-12) + 1e-12;
}

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int64_t sorted_unique(const int64_t *src, int64_t n, int64_t *dst) {
    memcpy(dst, src, (size_t)n * sizeof(int64_t));
    qsort(dst, (size_t)n, sizeof(int64_t), cmp_i64);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (k == 0 || dst[k - 1] != dst[i]) dst[k++] = dst[i];
    return k;
}

static int64_t find_sorted(const int64_t *a, int64_t n, int64_t v) { /* np.searchsorted(a, v), side left */
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (a[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static PyObject *py_tbleu_candidate_costs(PyObject *self, PyObject *args) {
    PyObject *o[10];
    double eps;
    int force;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOdp", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &o[9],
                          &eps, &force))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nhp, nho, nr, nro, nseg, ncodes, noffs, nmask, ncanon, ntwin;
    const int64_t *hp_ids = get_buf(&B, o[0], 8, 0, 0, "hp_ids", &nhp);
    const int64_t *hp_offs = hp_ids ? get_buf(&B, o[1], 8, 1, 0, "hp_offs", &nho) : NULL;
    const int64_t *r_ids = hp_offs ? get_buf(&B, o[2], 8, 0, 0, "r_ids", &nr) : NULL;
    const int64_t *r_offs = r_ids ? get_buf(&B, o[3], 8, nho, 0, "r_offs", &nro) : NULL;
    const int64_t *seg = r_offs ? get_buf(&B, o[4], 8, nho - 1, 0, "seg", &nseg) : NULL;
    const int64_t *codes = seg ? get_buf(&B, o[5], 8, 0, 0, "codes", &ncodes) : NULL;
    const int64_t *offs = codes ? get_buf(&B, o[6], 8, 1, 0, "offs", &noffs) : NULL;
    const uint64_t *masks = offs ? get_buf(&B, o[7], 8, noffs - 1, 0, "masks", &nmask) : NULL;
    const int64_t *canon = masks ? get_buf(&B, o[8], 8, noffs - 1, 0, "canon", &ncanon) : NULL;
    const uint8_t *twin = canon ? get_buf(&B, o[9], 1, noffs - 1, 0, "twin", &ntwin) : NULL;
    if (!twin) {
        bufs_release(&B);
        return NULL;
    }
    Py_ssize_t P = nho - 1, n_types = noffs - 1;
    int bad = !check_ragged(hp_offs, nho, nhp) || !check_ragged(r_offs, nho, nr) || !check_ragged(offs, noffs, ncodes);
    for (Py_ssize_t q = 0; q < nhp && !bad; q++) bad = hp_ids[q] < 0 || hp_ids[q] >= n_types;
    for (Py_ssize_t q = 0; q < r_offs[P] && !bad; q++) bad = r_ids[q] < 0 || r_ids[q] >= n_types;
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "tbleu_candidate_costs: ids or offsets out of range");
        return NULL;
    }
    Types T = {codes, offs, canon, masks, twin};
    uint8_t *flags = calloc((size_t)P + 1, 1);
    int64_t *cost_offs = calloc((size_t)P + 1, sizeof(int64_t)), *sizes = calloc((size_t)P + 1, sizeof(int64_t));
    double *costs = NULL, *M = NULL;
    size_t costs_cap = 0, M_cap = 0, used = 0;
    int64_t *uh = NULL, *ur = NULL, *ih = NULL, *ir = NULL;
    size_t uh_cap = 0, ur_cap = 0, ih_cap = 0, ir_cap = 0;
    AdScratch A = {NULL, 0};
    int oom = !flags || !cost_offs || !sizes;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t p = 0;
    while (p < P && !oom) {
        Py_ssize_t q = p + 1;
        while (q < P && seg[q] == seg[p]) q++;
        int64_t h0 = hp_offs[p], h1 = hp_offs[p + 1], nref = r_offs[q] - r_offs[p];
        int possible = 0;
        if (h1 > h0 && nref > 0) {
            if (force) {
                possible = 1;
            } else {
                for (int64_t t = h0; t < h1 && !possible; t++) {
                    int64_t a = hp_ids[t];
                    if ((double)(offs[a + 1] - offs[a]) * eps * (1.0 + 1e-12) + 1e-12 < 1.0 && !twin[a]) continue;
                    for (int64_t j = r_offs[p]; j < r_offs[q]; j++) {
                        int64_t b = r_ids[j];
                        if (a != b && maybe_correctable(&T, a, b, eps)) {
                            possible = 1;
                            break;
                        }
                    }
                }
            }
        }
        if (possible) {
            int64_t nh = h1 - h0;
            if (reserve((void **)&uh, &uh_cap, (size_t)nh, 8) || reserve((void **)&ih, &ih_cap, (size_t)nh, 8) ||
                reserve((void **)&ur, &ur_cap, (size_t)nref, 8)) { oom = 1; break; }
            int64_t nuh = sorted_unique(hp_ids + h0, nh, uh), nur = sorted_unique(r_ids + r_offs[p], nref, ur);
            if (reserve((void **)&M, &M_cap, (size_t)(nuh * nur), sizeof(double))) { oom = 1; break; }
            for (int64_t i = 0; i < nuh && !oom; i++)
                for (int64_t j = 0; j < nur; j++)
                    if (ad_types(&T, uh[i], ur[j], &A, &M[i * nur + j])) { oom = 1; break; }
            if (oom) break;
            for (int64_t t = 0; t < nh; t++) ih[t] = find_sorted(uh, nuh, hp_ids[h0 + t]);
            for (Py_ssize_t x = p; x < q; x++) {
                int64_t nrx = r_offs[x + 1] - r_offs[x];
                if (nrx == 0) continue;
                if (reserve((void **)&ir, &ir_cap, (size_t)nrx, 8)) { oom = 1; break; }
                for (int64_t j = 0; j < nrx; j++) ir[j] = find_sorted(ur, nur, r_ids[r_offs[x] + j]);
                int ok = force;
                for (int64_t t = 0; t < nh && !ok; t++)
                    for (int64_t j = 0; j < nrx; j++)
                        if (uh[ih[t]] != ur[ir[j]] && M[ih[t] * nur + ir[j]] <= eps) { ok = 1; break; }
                if (!ok) continue;
                flags[x] = 1;
                if (reserve((void **)&costs, &costs_cap, used + (size_t)(nh * nrx), sizeof(double))) { oom = 1; break; }
                for (int64_t t = 0; t < nh; t++)
                    for (int64_t j = 0; j < nrx; j++) costs[used++] = M[ih[t] * nur + ir[j]];
                sizes[x] = nh * nrx;
            }
        }
        p = q;
    }
    if (!oom)
        for (Py_ssize_t x = 0; x < P; x++) cost_offs[x + 1] = cost_offs[x] + sizes[x];
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    PyObject *res = NULL;
    if (oom) {
        PyErr_NoMemory();
    } else {
        PyObject *a = bytearray_of(flags, (size_t)P), *b = a ? bytearray_of(cost_offs, (size_t)(P + 1) * 8) : NULL;
        PyObject *c = b ? bytearray_of(costs ? (const void *)costs : "", used * sizeof(double)) : NULL;
        if (a && b && c) res = PyTuple_Pack(3, a, b, c);
        Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(c);
    }
    free(flags); free(cost_offs); free(sizes); free(costs); free(M); free(uh); free(ur); free(ih); free(ir); free(A.buf);
    return res;
}

static PyObject *py_affix_parts(PyObject *self, PyObject *args) {
    PyObject *o;
    Py_ssize_t oa, n, ob, m;
    if (!PyArg_ParseTuple(args, "Onnnn", &o, &oa, &n, &ob, &m)) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nc;
    const int64_t *codes = get_buf(&B, o, 8, 0, 0, "codes", &nc);
    if (!codes) { bufs_release(&B); return NULL; }
    if (oa < 0 || ob < 0 || n < 0 || m < 0 || oa + n > nc || ob + m > nc) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "affix_parts: out of range");
        return NULL;
    }
    AdScratch A = {NULL, 0};
    int64_t d, L;
    int rc = affix_parts(codes, oa, n, ob, m, &A, &d, &L);
    free(A.buf);
    bufs_release(&B);
    if (rc) return PyErr_NoMemory();
    return Py_BuildValue("(LL)", (long long)d, (long long)L);
}

/* ------------------------------------------------------------------------------------------------ */
/* bootstrap counts (significance/_resample.py _bootstrap_counts_kernel_ref: SplitMix64 + Lemire) */

typedef struct {
    const uint64_t *keys;
    int64_t n_segments;
    double *out;
} BootJob;

static int boot_block(void *ctx, void *scratch, int64_t a, int64_t b) {
    BootJob *J = (BootJob *)ctx;
    const uint64_t N = (uint64_t)J->n_segments, golden = UINT64_C(0x9E3779B97F4A7C15);
    const uint64_t m1 = UINT64_C(0xBF58476D1CE4E5B9), m2 = UINT64_C(0x94D049BB133111EB), low = UINT64_C(0xFFFFFFFF);
    const uint64_t thresh = (UINT64_C(4294967296) - N) % N;
    for (int64_t r = a; r < b; r++) {
        uint64_t s = J->keys[r];
        double *row = J->out + r * J->n_segments;
        memset(row, 0, (size_t)J->n_segments * sizeof(double));
        for (int64_t j = 0; j < J->n_segments; j++) {
            uint64_t m;
            for (;;) {
                s += golden;
                uint64_t z = s;
                z = (z ^ (z >> 30)) * m1;
                z = (z ^ (z >> 27)) * m2;
                z = z ^ (z >> 31);
                uint64_t x = z >> 32;
                m = x * N;
                if ((m & low) >= thresh) break;
            }
            row[m >> 32] += 1.0;
        }
    }
    return 0;
}

static PyObject *py_bootstrap_counts(PyObject *self, PyObject *args) {
    PyObject *o_keys, *o_out;
    Py_ssize_t n_segments, n_rows;
    int n_threads;
    if (!PyArg_ParseTuple(args, "OnnOi", &o_keys, &n_segments, &n_rows, &o_out, &n_threads)) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nk, nout;
    const uint64_t *keys = get_buf(&B, o_keys, 8, n_rows, 0, "keys", &nk);
    double *out = keys ? (double *)get_buf(&B, o_out, 8, 0, 1, "out", &nout) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    if (n_segments < 1 || n_segments > UINT32_MAX || n_rows < 0 || nout < n_rows * n_segments) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "bootstrap_counts: bad shape");
        return NULL;
    }
    BootJob J = {keys, n_segments, out};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(boot_block, &J, 1, NULL, n_rows, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* Counts of drawn indices per row: out[r, v] = number of j with idx[r, j] == v (out is k x n float64, idx k x m
 * int64 with every value in [0, n)); the "sacrebleu" bootstrap scheme's resample counts from numpy's drawn indices.
 * Reference: significance/_resample.py's _index_counts_ref (offsets + numpy.bincount). One thread (a few ms). */
static PyObject *py_index_counts(PyObject *self, PyObject *args) {
    PyObject *o_idx, *o_out;
    Py_ssize_t k, m, n;
    if (!PyArg_ParseTuple(args, "OnnnO", &o_idx, &k, &m, &n, &o_out)) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t n_idx, n_out;
    const int64_t *idx = get_buf(&B, o_idx, 8, 0, 0, "idx", &n_idx);
    double *out = idx ? (double *)get_buf(&B, o_out, 8, 0, 1, "out", &n_out) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    if (k < 0 || m < 0 || n < 0 || n_idx != k * m || n_out != k * n) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "index_counts: bad shape");
        return NULL;
    }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    memset(out, 0, (size_t)(k * n) * sizeof(double));
    for (Py_ssize_t r = 0; r < k && !bad; r++) {
        double *row = out + r * n;
        const int64_t *ix = idx + r * m;
        for (Py_ssize_t j = 0; j < m; j++) {
            int64_t v = ix[j];
            if (v < 0 || v >= n) {
                bad = 1;
                break;
            }
            row[v] += 1.0;
        }
    }
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "index_counts: an index outside [0, n)");
        return NULL;
    }
    Py_RETURN_NONE;
}

static inline uint64_t mix_pair(int64_t a, int64_t b) {
    uint64_t h = (uint64_t)a * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)b;
    h ^= h >> 33;
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    h ^= h >> 33;
    h *= UINT64_C(0xC4CEB9FE1A85EC53);
    h ^= h >> 33;
    return h;
}

/* Exact dense ids of (a, b) keys, numbered 0, 1, ... in order of first lookup. The table has cap slots
 * (a power of two, > 2 x the number of keys); tv[slot] < 0 marks an empty slot. */
typedef struct {
    int64_t *ta, *tb, *tv;
    size_t cap;
    int64_t n;
} PairTab;

static void ptab_clear(PairTab *T) {
    memset(T->tv, 0xff, T->cap * sizeof(int64_t));
    T->n = 0;
}

static inline int64_t ptab_id(PairTab *T, int64_t a, int64_t b) {
    size_t mask = T->cap - 1, s = (size_t)mix_pair(a, b) & mask;
    for (;;) {
        int64_t v = T->tv[s];
        if (v < 0) {
            T->ta[s] = a;
            T->tb[s] = b;
            T->tv[s] = T->n;
            return T->n++;
        }
        if (T->ta[s] == a && T->tb[s] == b) return v;
        s = (s + 1) & mask;
    }
}

static size_t pow2_above(size_t n) {
    size_t c = 16;
    while (c <= 2 * n) c *= 2;
    return c;
}

typedef struct {
    Scr s;       /* general scratch */
    PairTab T;   /* table storage */
    size_t tcap; /* allocated slots */
} TabScr;

static void tabscr_free(void *p) {
    TabScr *S = (TabScr *)p;
    scr_free(&S->s);
    free(S->T.ta); free(S->T.tb); free(S->T.tv);
}

/* A table with room for n keys, cleared. */
static int tabscr_table(TabScr *S, size_t n) {
    size_t cap = pow2_above(n);
    if (cap > S->tcap) {
        free(S->T.ta); free(S->T.tb); free(S->T.tv);
        S->T.ta = malloc(cap * sizeof(int64_t));
        S->T.tb = malloc(cap * sizeof(int64_t));
        S->T.tv = malloc(cap * sizeof(int64_t));
        if (!S->T.ta || !S->T.tb || !S->T.tv) {
            free(S->T.ta); free(S->T.tb); free(S->T.tv);
            S->T.ta = S->T.tb = S->T.tv = NULL;
            S->tcap = 0;
            return -1;
        }
        S->tcap = cap;
    }
    S->T.cap = cap;
    ptab_clear(&S->T);
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* LCM: n-gram partial matching of check-points (metrics/lcm.py _lcm_kernel / _cp_matched) */

typedef struct {
    const int64_t *tok, *cp_start, *cp_end, *cp_seg, *h_ids, *h_off;
    int64_t lo;
    double *out;
} LcmJob;

static int lcm_block(void *ctx, void *scratch, int64_t a0, int64_t b0) {
    LcmJob *J = (LcmJob *)ctx;
    Scr *S = (Scr *)scratch;
    for (int64_t k = a0; k < b0; k++) {
        int64_t kk = J->lo + k;
        int64_t s0 = J->cp_start[kk], m = J->cp_end[kk] - s0, seg = J->cp_seg[kk];
        const int64_t *tok = J->tok + s0, *cand = J->h_ids + J->h_off[seg];
        int64_t L = J->h_off[seg + 1] - J->h_off[seg], W = L + 1;
        if (m <= 0) {
            J->out[kk] = 0.0;
            continue;
        }
        if (reserve(&S->a, &S->ca, (size_t)m * (size_t)W, sizeof(int64_t)) ||
            reserve(&S->b, &S->cb, (size_t)m * (size_t)m, sizeof(int64_t)) ||
            reserve(&S->c, &S->cc, (size_t)m + 2, sizeof(int64_t)) || reserve(&S->d, &S->cd, (size_t)m + 2, sizeof(int64_t)))
            return -1;
        int64_t *E = (int64_t *)S->a, *RR = (int64_t *)S->b, *cntc = (int64_t *)S->c, *rank = (int64_t *)S->d;
        for (int64_t p = m - 1; p >= 0; p--)
            for (int64_t q = L - 1; q >= 0; q--) {
                if (tok[p] == cand[q]) {
                    int64_t v = 1;
                    if (p + 1 < m && q + 1 < L) v += E[(p + 1) * W + q + 1];
                    E[p * W + q] = v;
                } else {
                    E[p * W + q] = 0;
                }
            }
        for (int64_t a = m - 1; a >= 0; a--)
            for (int64_t b = m - 1; b > a; b--) {
                if (tok[a] == tok[b]) {
                    int64_t v = 1;
                    if (b + 1 < m) v += RR[(a + 1) * m + b + 1];
                    RR[a * m + b] = v;
                } else {
                    RR[a * m + b] = 0;
                }
            }
        int64_t matched = 0;
        for (int64_t p = 0; p < m; p++) {
            int64_t maxn = m - p;
            for (int64_t n = 0; n <= maxn; n++) cntc[n] = rank[n] = 0;
            for (int64_t q = 0; q < L; q++) {
                int64_t v = E[p * W + q];
                cntc[v > maxn ? maxn : v]++;
            }
            for (int64_t a = 0; a < p; a++) {
                int64_t v = RR[a * m + p];
                rank[v > maxn ? maxn : v]++;
            }
            int64_t cc = 0, rr = 0;
            for (int64_t n = maxn; n > 0; n--) {
                cc += cntc[n];
                rr += rank[n];
                if (rr < cc) matched++;
            }
        }
        J->out[kk] = (double)matched;
    }
    return 0;
}

static int check_spans(const int64_t *a, const int64_t *b, Py_ssize_t lo, Py_ssize_t hi, int64_t limit) {
    for (Py_ssize_t k = lo; k < hi; k++)
        if (a[k] < 0 || b[k] < a[k] || b[k] > limit) return 0;
    return 1;
}

static int check_range(const int64_t *x, Py_ssize_t lo, Py_ssize_t hi, int64_t n) {
    for (Py_ssize_t k = lo; k < hi; k++)
        if (x[k] < 0 || x[k] >= n) return 0;
    return 1;
}

static PyObject *py_lcm_match(PyObject *self, PyObject *args) {
    PyObject *o[7];
    Py_ssize_t lo, hi;
    int n_threads;
    if (!PyArg_ParseTuple(args, "OOOOOOnnOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &lo, &hi, &o[6], &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nt, ns, ne, nseg, nh, nho, nout;
    const int64_t *tok = get_buf(&B, o[0], 8, 0, 0, "tok", &nt);
    const int64_t *cs = tok ? get_buf(&B, o[1], 8, 0, 0, "cp_start", &ns) : NULL;
    const int64_t *ce = cs ? get_buf(&B, o[2], 8, ns, 0, "cp_end", &ne) : NULL;
    const int64_t *cg = ce ? get_buf(&B, o[3], 8, ns, 0, "cp_seg", &nseg) : NULL;
    const int64_t *h_ids = cg ? get_buf(&B, o[4], 8, 0, 0, "h_ids", &nh) : NULL;
    const int64_t *h_off = h_ids ? get_buf(&B, o[5], 8, 1, 0, "h_off", &nho) : NULL;
    double *out = h_off ? (double *)get_buf(&B, o[6], 8, ns, 1, "out", &nout) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    if (lo < 0 || hi < lo || hi > ns || !check_ragged(h_off, nho, nh) || !check_spans(cs, ce, lo, hi, nt) ||
        !check_range(cg, lo, hi, nho - 1)) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "lcm_match: check-point or offset out of range");
        return NULL;
    }
    LcmJob J = {tok, cs, ce, cg, h_ids, h_off, lo, out};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(lcm_block, &J, sizeof(Scr), scr_free, hi - lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* LCM phrase check-points (metrics/lcm.py _phrase_kernel): content runs (kind 0) and PP proxies (kind 1) */
static PyObject *py_lcm_phrases(PyObject *self, PyObject *args) {
    PyObject *o[4];
    if (!PyArg_ParseTuple(args, "OOOO", &o[0], &o[1], &o[2], &o[3])) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t n, n1, n2, noff;
    const uint8_t *content = get_buf(&B, o[0], 1, 0, 0, "content", &n);
    const uint8_t *prep = content ? get_buf(&B, o[1], 1, n, 0, "prep", &n1) : NULL;
    const uint8_t *detnum = prep ? get_buf(&B, o[2], 1, n, 0, "detnum", &n2) : NULL;
    const int64_t *off = detnum ? get_buf(&B, o[3], 8, 1, 0, "offsets", &noff) : NULL;
    if (!off) {
        bufs_release(&B);
        return NULL;
    }
    if (!check_ragged(off, noff, n)) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "lcm_phrases: offsets out of range");
        return NULL;
    }
    size_t cap = (size_t)n + 1;
    int64_t *st = malloc(cap * sizeof(int64_t)), *en = malloc(cap * sizeof(int64_t)), *kd = malloc(cap * sizeof(int64_t));
    if (!st || !en || !kd) {
        free(st); free(en); free(kd);
        bufs_release(&B);
        return PyErr_NoMemory();
    }
    int64_t k = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t row = 0; row + 1 < noff; row++) {
        int64_t a = off[row], b = off[row + 1], i = a;
        while (i < b) {
            if (content[i]) {
                int64_t j = i;
                while (j < b && content[j]) j++;
                if (j - i >= 2) {
                    st[k] = i; en[k] = j; kd[k] = 0; k++;
                }
                i = j;
            } else {
                i++;
            }
        }
        for (int64_t i2 = a; i2 < b; i2++) {
            if (!prep[i2]) continue;
            int64_t j = i2 + 1;
            while (j < b && detnum[j] && !content[j]) j++;
            if (j < b && content[j]) {
                while (j < b && content[j]) j++;
                st[k] = i2; en[k] = j; kd[k] = 1; k++;
            }
        }
    }
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    PyObject *r = Py_BuildValue("(NNN)", bytearray_of(st, (size_t)k * 8), bytearray_of(en, (size_t)k * 8),
                                bytearray_of(kd, (size_t)k * 8));
    free(st); free(en); free(kd);
    return r;
}

/* ------------------------------------------------------------------------------------------------ */
/* ROSE features (metrics/rose_features.py _ngram_pr, _count_diffs, _mixed_prec), threads over segments */

typedef struct {
    const int64_t *h_ids, *h_off, *r_ids, *r_off, *seg_ref, *h2, *r2;
    const int8_t *cls;
    int64_t lo, max_order;
    double *o1, *o2;
} RoseJob;

static int rose_pr_block(void *ctx, void *scratch, int64_t a0, int64_t b0) {
    RoseJob *J = (RoseJob *)ctx;
    TabScr *S = (TabScr *)scratch;
    const int64_t MO = J->max_order;
    for (int64_t k = a0; k < b0; k++) {
        int64_t i = J->lo + k;
        int64_t hs = J->h_off[i], he = J->h_off[i + 1], rs = J->seg_ref[i], re = J->seg_ref[i + 1];
        int64_t lc = he - hs, total = lc;
        for (int64_t j = rs; j < re; j++) total += J->r_off[j + 1] - J->r_off[j];
        size_t nt = (size_t)total + 1;
        if (reserve(&S->s.a, &S->s.ca, nt, sizeof(int64_t)) || reserve(&S->s.b, &S->s.cb, nt, sizeof(int64_t)) ||
            reserve(&S->s.c, &S->s.cc, nt, sizeof(int64_t)) || reserve(&S->s.d, &S->s.cd, nt, 1) ||
            reserve(&S->s.e, &S->s.ce, nt, 1) || tabscr_table(S, nt))
            return -1;
        int64_t *toks = (int64_t *)S->s.a, *rowend = (int64_t *)S->s.b, *ids = (int64_t *)S->s.c;
        uint8_t *in_c = (uint8_t *)S->s.d, *in_r = (uint8_t *)S->s.e;
        int64_t p = 0;
        for (int64_t t = hs; t < he; t++) {
            toks[p] = J->h_ids[t];
            rowend[p++] = lc;
        }
        for (int64_t j = rs; j < re; j++) {
            int64_t start = p;
            for (int64_t t = J->r_off[j]; t < J->r_off[j + 1]; t++) toks[p++] = J->r_ids[t];
            for (int64_t q = start; q < p; q++) rowend[q] = p;
        }
        for (int64_t n = 1; n <= MO; n++) {
            if (n > 1) ptab_clear(&S->T);
            for (int64_t q = 0; q < total; q++)
                if (q + n <= rowend[q]) ids[q] = ptab_id(&S->T, n == 1 ? -1 : ids[q], toks[q + n - 1]);
            int64_t kk = S->T.n;
            memset(in_c, 0, (size_t)kk + 1);
            memset(in_r, 0, (size_t)kk + 1);
            for (int64_t q = 0; q < total; q++)
                if (q + n <= rowend[q]) {
                    if (q < lc) in_c[ids[q]] = 1;
                    else in_r[ids[q]] = 1;
                }
            int64_t den = lc - n + 1;
            if (den > 0) {
                int64_t num = 0;
                for (int64_t q = 0; q < lc; q++)
                    if (q + n <= rowend[q] && in_r[ids[q]]) num++;
                J->o1[i * MO + n - 1] = (double)num / (double)den;
            } else {
                J->o1[i * MO + n - 1] = 0.0;
            }
            double best = 0.0;
            int64_t q = lc;
            for (int64_t j = rs; j < re; j++) {
                int64_t lr = J->r_off[j + 1] - J->r_off[j], d = lr - n + 1, num = 0;
                for (int64_t t = q; t < q + lr; t++)
                    if (t + n <= rowend[t] && in_c[ids[t]]) num++;
                if (d > 0) {
                    double v = (double)num / (double)d;
                    if (v > best) best = v;
                }
                q += lr;
            }
            J->o2[i * MO + n - 1] = best;
        }
    }
    return 0;
}

static int rose_diff_block(void *ctx, void *scratch, int64_t a0, int64_t b0) {
    RoseJob *J = (RoseJob *)ctx;
    for (int64_t k = a0; k < b0; k++) {
        int64_t i = J->lo + k;
        double c[4] = {0, 0, 0, 0}, best[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
        c[0] = (double)(J->h_off[i + 1] - J->h_off[i]);
        for (int64_t t = J->h_off[i]; t < J->h_off[i + 1]; t++) {
            int8_t x = J->cls[J->h_ids[t]];
            c[x == 1 ? 1 : (x == 2 ? 2 : 3)] += 1;
        }
        for (int64_t j = J->seg_ref[i]; j < J->seg_ref[i + 1]; j++) {
            double r[4] = {0, 0, 0, 0};
            r[0] = (double)(J->r_off[j + 1] - J->r_off[j]);
            for (int64_t t = J->r_off[j]; t < J->r_off[j + 1]; t++) {
                int8_t x = J->cls[J->r_ids[t]];
                r[x == 1 ? 1 : (x == 2 ? 2 : 3)] += 1;
            }
            double den = r[0] >= 1.0 ? r[0] : 1.0;
            for (int f = 0; f < 4; f++) {
                double v = (c[f] - r[f]) / den;
                if (fabs(v) < fabs(best[f]) || (fabs(v) == fabs(best[f]) && v < best[f])) best[f] = v;
            }
        }
        for (int f = 0; f < 4; f++) J->o1[i * 4 + f] = best[f];
    }
    return 0;
}

/* words h_ids / r_ids, tags h2 / r2 */
static int rose_mixed_block(void *ctx, void *scratch, int64_t a0, int64_t b0) {
    RoseJob *J = (RoseJob *)ctx;
    const int64_t MO = J->max_order;
    const int64_t *hw = J->h_ids, *ht = J->h2, *rw = J->r_ids, *rt = J->r2;
    for (int64_t k = a0; k < b0; k++) {
        int64_t i = J->lo + k;
        int64_t hs = J->h_off[i], he = J->h_off[i + 1], lc = he - hs;
        for (int64_t n = 1; n <= MO; n++) {
            int64_t den = lc - n + 1;
            if (den <= 0) {
                J->o1[i * MO + n - 1] = 0.0;
                continue;
            }
            int64_t num = 0;
            for (int64_t p = hs; p < he - n + 1; p++) {
                int found = 0;
                for (int64_t j = J->seg_ref[i]; j < J->seg_ref[i + 1] && !found; j++)
                    for (int64_t s = J->r_off[j]; s < J->r_off[j + 1] - n + 1; s++) {
                        int ok = 1;
                        for (int64_t q = 0; q < n; q++)
                            if (hw[p + q] != rw[s + q] && ht[p + q] != rt[s + q]) {
                                ok = 0;
                                break;
                            }
                        if (ok) {
                            found = 1;
                            break;
                        }
                    }
                if (found) num++;
            }
            J->o1[i * MO + n - 1] = (double)num / (double)den;
        }
    }
    return 0;
}

/* kind 0: ngram_pr (h_ids, h_off, r_ids, r_off, seg_ref, max_order, lo, hi, prec, rec, n_threads)
 * kind 1: count_diffs (h_ids, h_off, r_ids, r_off, seg_ref, cls, lo, hi, out, n_threads)
 * kind 2: mixed_prec (hw, ht, h_off, rw, rt, r_off, seg_ref, max_order, lo, hi, out, n_threads) */
static PyObject *rose_kernel(PyObject *args, int kind) {
    PyObject *o[9] = {0};
    Py_ssize_t lo, hi, max_order = 4;
    int n_threads;
    int ok;
    if (kind == 0)
        ok = PyArg_ParseTuple(args, "OOOOOnnnOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &max_order, &lo, &hi, &o[5],
                              &o[6], &n_threads);
    else if (kind == 1)
        ok = PyArg_ParseTuple(args, "OOOOOOnnOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[7], &lo, &hi, &o[5],
                              &n_threads);
    else
        ok = PyArg_ParseTuple(args, "OOOOOOOnnnOi", &o[0], &o[7], &o[1], &o[2], &o[8], &o[3], &o[4], &max_order, &lo,
                              &hi, &o[5], &n_threads);
    if (!ok) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nh = 0, nho = 0, nr = 0, nro = 0, nsr = 0, n1 = 0, n2 = 0, ncls = 0, nx = 0;
    const int64_t *h_ids = get_buf(&B, o[0], 8, 0, 0, "h_ids", &nh);
    const int64_t *h_off = h_ids ? get_buf(&B, o[1], 8, 1, 0, "h_off", &nho) : NULL;
    const int64_t *r_ids = h_off ? get_buf(&B, o[2], 8, 0, 0, "r_ids", &nr) : NULL;
    const int64_t *r_off = r_ids ? get_buf(&B, o[3], 8, 1, 0, "r_off", &nro) : NULL;
    const int64_t *seg_ref = r_off ? get_buf(&B, o[4], 8, nho, 0, "seg_ref", &nsr) : NULL;
    int ncol = kind == 1 ? 4 : (int)max_order;
    double *o1 = seg_ref ? (double *)get_buf(&B, o[5], 8, (nho - 1) * ncol, 1, "out", &n1) : NULL;
    double *o2 = NULL;
    const int8_t *cls = NULL;
    const int64_t *h2 = NULL, *r2 = NULL;
    int fine = o1 != NULL;
    if (fine && kind == 0) fine = (o2 = (double *)get_buf(&B, o[6], 8, (nho - 1) * ncol, 1, "rec", &n2)) != NULL;
    if (fine && kind == 1) fine = (cls = get_buf(&B, o[7], 1, 0, 0, "cls", &ncls)) != NULL;
    if (fine && kind == 2) {
        fine = (h2 = get_buf(&B, o[7], 8, nh, 0, "ht", &nx)) != NULL;
        if (fine) fine = (r2 = get_buf(&B, o[8], 8, nr, 0, "rt", &nx)) != NULL;
    }
    if (!fine) {
        bufs_release(&B);
        return NULL;
    }
    int bad = lo < 0 || hi < lo || hi > nho - 1 || max_order < 1 || !check_ragged(h_off, nho, nh) ||
              !check_ragged(r_off, nro, nr) || !check_ragged(seg_ref, nho, nro - 1);
    if (!bad && kind == 1) bad = !check_range(h_ids, 0, nh, ncls) || !check_range(r_ids, 0, nr, ncls);
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "rose kernel: offsets, ids or shapes out of range");
        return NULL;
    }
    RoseJob J = {h_ids, h_off, r_ids, r_off, seg_ref, h2, r2, cls, lo, max_order, o1, o2};
    block_fn fn = kind == 0 ? rose_pr_block : (kind == 1 ? rose_diff_block : rose_mixed_block);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(fn, &J, sizeof(TabScr), tabscr_free, hi - lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *py_rose_ngram_pr(PyObject *self, PyObject *args) { return rose_kernel(args, 0); }
static PyObject *py_rose_count_diffs(PyObject *self, PyObject *args) { return rose_kernel(args, 1); }
static PyObject *py_rose_mixed_prec(PyObject *self, PyObject *args) { return rose_kernel(args, 2); }

/* ------------------------------------------------------------------------------------------------ */
/* MBR: clipped n-gram matches of all ordered candidate pairs of each segment
 * (search/mbr.py pairwise_clipped_matches); threads over segments [lo, hi) */

typedef struct {
    const int64_t *g, *goff, *seg_off, *pair_off;
    int64_t lo, ncols, col;
    double *out;
} MbrJob;

static int mbr_block(void *ctx, void *scratch, int64_t a0, int64_t b0) {
    MbrJob *J = (MbrJob *)ctx;
    TabScr *S = (TabScr *)scratch;
    for (int64_t kk = a0; kk < b0; kk++) {
        int64_t s = J->lo + kk;
        int64_t c0 = J->seg_off[s], k = J->seg_off[s + 1] - c0;
        int64_t p0 = J->goff[c0], p1 = J->goff[c0 + k], base = J->pair_off[s];
        double *out = J->out;
        if (p1 == p0) {
            for (int64_t q = 0; q < k * k; q++) out[(base + q) * J->ncols + J->col] = 0.0;
            continue;
        }
        size_t np = (size_t)(p1 - p0);
        if (reserve(&S->s.a, &S->s.ca, np, sizeof(int64_t)) || tabscr_table(S, np)) return -1;
        int64_t *loc = (int64_t *)S->s.a;
        for (size_t p = 0; p < np; p++) loc[p] = ptab_id(&S->T, 0, J->g[p0 + (int64_t)p]);
        int64_t G = S->T.n;
        if (reserve(&S->s.b, &S->s.cb, (size_t)G * (size_t)k, sizeof(int32_t)) ||
            reserve(&S->s.c, &S->s.cc, (size_t)k, sizeof(int64_t)) || reserve(&S->s.d, &S->s.cd, (size_t)G, sizeof(int64_t)))
            return -1;
        int32_t *C = (int32_t *)S->s.b;
        int64_t *acc = (int64_t *)S->s.c, *seen = (int64_t *)S->s.d;
        memset(C, 0, (size_t)G * (size_t)k * sizeof(int32_t));
        for (int64_t g = 0; g < G; g++) seen[g] = -1;
        for (int64_t b = 0; b < k; b++)
            for (int64_t p = J->goff[c0 + b] - p0; p < J->goff[c0 + b + 1] - p0; p++) C[loc[p] * k + b]++;
        for (int64_t a = 0; a < k; a++) {
            for (int64_t b = 0; b < k; b++) acc[b] = 0;
            for (int64_t p = J->goff[c0 + a] - p0; p < J->goff[c0 + a + 1] - p0; p++) {
                int64_t l = loc[p];
                if (seen[l] == a) continue;
                seen[l] = a;
                const int32_t *row = C + l * k;
                int32_t ca = row[a];
                for (int64_t b = 0; b < k; b++) acc[b] += ca < row[b] ? ca : row[b];
            }
            for (int64_t b = 0; b < k; b++) out[(base + a * k + b) * J->ncols + J->col] = (double)acc[b];
        }
    }
    return 0;
}

static PyObject *py_mbr_clipped_matches(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_ssize_t ncols, col, lo, hi;
    int n_threads;
    if (!PyArg_ParseTuple(args, "OOOOOnnnni", &o[0], &o[1], &o[2], &o[3], &o[4], &ncols, &col, &lo, &hi, &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t ng, ngo, nso, npo, nout;
    const int64_t *g = get_buf(&B, o[0], 8, 0, 0, "g", &ng);
    const int64_t *goff = g ? get_buf(&B, o[1], 8, 1, 0, "goff", &ngo) : NULL;
    const int64_t *seg_off = goff ? get_buf(&B, o[2], 8, 1, 0, "seg_off", &nso) : NULL;
    const int64_t *pair_off = seg_off ? get_buf(&B, o[3], 8, nso - 1, 0, "pair_off", &npo) : NULL;
    double *out = pair_off ? (double *)get_buf(&B, o[4], 8, 0, 1, "out", &nout) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    int bad = lo < 0 || hi < lo || hi > nso - 1 || ncols < 1 || col < 0 || col >= ncols ||
              !check_ragged(goff, ngo, ng) || !check_ragged(seg_off, nso, ngo - 1);
    for (Py_ssize_t s = lo; s < hi && !bad; s++) {
        int64_t k = seg_off[s + 1] - seg_off[s];
        bad = pair_off[s] < 0 || k > 3037000499LL || (pair_off[s] + k * k) * ncols > nout;
    }
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "mbr_clipped_matches: offsets or output shape out of range");
        return NULL;
    }
    MbrJob J = {g, goff, seg_off, pair_off, lo, ncols, col, out};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(mbr_block, &J, sizeof(TabScr), tabscr_free, hi - lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* Paired bootstrap p-values on a grid of shifts (significance/core.py _p_grid_ref, the sacrebleu and moses
 * methods): for shift x_k, d_r = |(sb_r - x_k) - sa_r|, null_r = d_r - mean(d), and the counts of null_r > diff_k
 * and null_r >= diff_k. The mean is NumPy's: its pairwise summation of float64 (8 accumulators in blocks of up
 * to 128, halves above), from 0, divided by n -- so the counts are the NumPy path's (checked in the tests). */

static double np_pairwise_sum(const double *a, int64_t n) {
    if (n < 8) {
        double res = 0.0;
        for (int64_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        int64_t i;
        for (int j = 0; j < 8; j++) r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return np_pairwise_sum(a, n2) + np_pairwise_sum(a + n2, n - n2);
}

typedef struct {
    const double *sa, *sb, *shifts, *diffs;
    int64_t n;
    int64_t *gt, *ge;
} GridJob;

static int grid_block(void *ctx, void *scratch, int64_t a0, int64_t b0) {
    GridJob *J = (GridJob *)ctx;
    Scr *S = (Scr *)scratch;
    int64_t n = J->n;
    if (reserve(&S->a, &S->ca, (size_t)(n > 0 ? n : 1), sizeof(double))) return -1;
    double *d = (double *)S->a;
    for (int64_t k = a0; k < b0; k++) {
        double x = J->shifts[k], diff = J->diffs[k];
        for (int64_t r = 0; r < n; r++) d[r] = fabs((J->sb[r] - x) - J->sa[r]);
        double mean = np_pairwise_sum(d, n) / (double)n;
        int64_t gt = 0, ge = 0;
        for (int64_t r = 0; r < n; r++) {
            double v = d[r] - mean;
            gt += v > diff;
            ge += v >= diff;
        }
        J->gt[k] = gt;
        J->ge[k] = ge;
    }
    return 0;
}

static PyObject *py_bootstrap_grid_counts(PyObject *self, PyObject *args) {
    PyObject *o[6];
    int n_threads;
    if (!PyArg_ParseTuple(args, "OOOOOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &n_threads)) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t na = 0, nb = 0, nx = 0, nd = 0, ngt = 0, nge = 0;
    const double *sa = get_buf(&B, o[0], 8, 0, 0, "sa", &na);
    const double *sb = sa ? get_buf(&B, o[1], 8, 0, 0, "sb", &nb) : NULL;
    const double *xs = sb ? get_buf(&B, o[2], 8, 0, 0, "shifts", &nx) : NULL;
    const double *ds = xs ? get_buf(&B, o[3], 8, nx, 0, "diffs", &nd) : NULL;
    int64_t *gt = ds ? (int64_t *)get_buf(&B, o[4], 8, nx, 1, "gt", &ngt) : NULL;
    int64_t *ge = gt ? (int64_t *)get_buf(&B, o[5], 8, nx, 1, "ge", &nge) : NULL;
    if (!ge) {
        bufs_release(&B);
        return NULL;
    }
    if (na != nb || na < 1) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "bootstrap_grid_counts: sa and sb need the same number (>= 1) of values");
        return NULL;
    }
    GridJob J = {sa, sb, xs, ds, na, gt, ge};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks_max(grid_block, &J, sizeof(Scr), scr_free, nx, n_threads, 64);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* Pairwise chrF / chrF++ (search/pairwise.py chrf_pairwise_ref): every (hypothesis, reference) pair of a group of
 * texts. Segment s lists its texts in seg_texts[seg_off[s] .. seg_off[s + 1]); with same != 0 they are both the
 * hypotheses and the references (MBR: k x k pairs), else the first seg_nh[s] are hypotheses and the rest
 * references. Pair (a, b) is row out_off[s] + a * n_ref + b of out: its chrF score (mode 0, sacreBLEU's
 * sentence_score, the floating-point steps of metrics/chrf.py chrf_score) or its 3 * n_orders statistics
 * (mode 1). Per stream (characters, then words) and order n, the n-grams of the segment get dense local ids
 * (exact hash table over (id of the (n-1)-gram, id of the symbol)); each text becomes a sparse count vector
 * (id, count); the references' vectors are inverted (per id: the references holding it, with counts) and each
 * hypothesis adds min(its count, the reference's) over the postings of its ids. An n-gram held by one text
 * only (or, with distinct sides, by no text of the other side) matches nothing, and neither do its extensions:
 * the next order looks only at positions whose n-gram is shared. With same != 0 a text against itself matches
 * all its n-grams. */

typedef struct {
    NgScratch ng;
    int64_t *loc, *loff, *stamp, *cnt, *df, *dh, *poff, *pt, *pc, *vg, *vc, *voff, *acc;
    size_t cloc, cloff, cstamp, ccnt, cdf, cdh, cpoff, cpt, cpc, cvg, cvc, cvoff, cacc;
    int32_t *M;
    size_t cM;
} PwScr;

static void pw_scratch_free(void *p) {
    PwScr *S = (PwScr *)p;
    ng_scratch_free(&S->ng);
    free(S->loc); free(S->loff); free(S->stamp); free(S->cnt); free(S->df); free(S->dh); free(S->poff);
    free(S->pt); free(S->pc); free(S->vg); free(S->vc); free(S->voff); free(S->acc); free(S->M);
}

typedef struct {
    const int64_t *sym[2], *off[2];
    int order[2];
    const int64_t *seg_texts, *seg_off, *seg_nh, *out_off;
    int same, mode, eps_smoothing, n_orders, agg;
    double factor, onepf;
    int64_t lo;
    double *out;
} PwJob;

#define PW_RES(f, n) reserve((void **)&S->f, &S->c##f, (size_t)(n), sizeof(*S->f))

/* match counts of one stream, all its orders, into M[(a * nr + b) * n_orders + col0 + n - 1] */
static int pw_stream(PwJob *J, PwScr *S, int st, const int64_t *texts, int64_t nt, int64_t nh, int64_t nr,
                     int col0) {
    const int64_t *sym = J->sym[st], *off = J->off[st];
    int max_order = J->order[st];
    int64_t size = 0;
    if (PW_RES(loff, nt + 1)) return -1;
    S->loff[0] = 0;
    for (int64_t t = 0; t < nt; t++) {
        size += off[texts[t] + 1] - off[texts[t]];
        S->loff[t + 1] = size;
    }
    if (size == 0) return 0;
    int64_t cap = 16;
    while (cap < 2 * size + 2) cap *= 2;
    if (ng_reserve(&S->ng, (size_t)size, (size_t)cap, (size_t)nt) || PW_RES(loc, size) || PW_RES(stamp, size) ||
        PW_RES(cnt, size) || PW_RES(df, size) || PW_RES(dh, size) || PW_RES(poff, size + 1) || PW_RES(pt, size) ||
        PW_RES(pc, size) || PW_RES(vg, size) || PW_RES(vc, size) || PW_RES(voff, nt + 1) || PW_RES(acc, nr))
        return -1;
    int64_t *loff = S->loff, *L = S->loc, *ids1 = S->ng.ids1, *ids = S->ng.ids, *pos = S->ng.pos;
    int64_t *lcnt = S->ng.lcnt, *stamp = S->stamp, *cnt = S->cnt, *df = S->df, *dh = S->dh;
    int64_t *poff = S->poff, *pt = S->pt, *pc = S->pc, *vg = S->vg, *vc = S->vc, *voff = S->voff, *acc = S->acc;
    for (int64_t t = 0; t < nt; t++)
        memcpy(L + loff[t], sym + off[texts[t]], (size_t)(loff[t + 1] - loff[t]) * sizeof(int64_t));
    /* the reference side: texts [r0, nt); hypotheses [0, nh) */
    const int64_t r0 = J->same ? 0 : nh;
    IdTable T;
    idt_init(&T, &S->ng, cap);
    for (int64_t t = 0; t < nt; t++) { /* order 1: every position is live */
        lcnt[t] = loff[t + 1] - loff[t];
        for (int64_t q = loff[t]; q < loff[t + 1]; q++) pos[q] = q;
    }
    for (int n = 1; n <= max_order; n++) {
        /* ids of the live positions (those that still start an n-gram) */
        int64_t live = 0;
        for (int64_t t = 0; t < nt; t++) {
            int64_t *lp = pos + loff[t], k = lcnt[t], te = loff[t + 1] - n + 1;
            while (k > 0 && lp[k - 1] >= te) k--;
            lcnt[t] = k;
            live += k;
            for (int64_t j = 0; j < k; j++) {
                int64_t q = lp[j];
                ids[q] = idt_id(&T, n == 1 ? L[q] : ids[q] * size + ids1[q + n - 1]);
            }
        }
        if (n == 1) memcpy(ids1, ids, (size_t)size * sizeof(int64_t));
        int64_t G = T.g;
        if (live == 0) { /* nothing shared from this order on: only a text against itself matches */
            idt_clear(&T);
            if (J->same && !J->agg)
                for (int m = n; m <= max_order; m++)
                    for (int64_t a = 0; a < nh; a++) {
                        int64_t len = loff[a + 1] - loff[a] - m + 1;
                        S->M[((size_t)a * (size_t)nr + (size_t)a) * (size_t)J->n_orders + col0 + m - 1] =
                            (int32_t)(len > 0 ? len : 0);
                    }
            break;
        }
        /* sparse count vector of every text; in how many texts (of each side) every id occurs */
        for (int64_t g = 0; g < G; g++) { stamp[g] = -1; df[g] = 0; dh[g] = 0; }
        int64_t nv = 0;
        for (int64_t t = 0; t < nt; t++) {
            voff[t] = nv;
            int64_t *lp = pos + loff[t], k = lcnt[t];
            for (int64_t j = 0; j < k; j++) {
                int64_t g = ids[lp[j]];
                if (stamp[g] != t) {
                    stamp[g] = t;
                    cnt[g] = 0;
                    vg[nv++] = g;
                    if (t >= r0) df[g]++;
                    if (t < nh) dh[g]++;
                }
                cnt[g]++;
            }
            for (int64_t v = voff[t]; v < nv; v++) vc[v] = cnt[vg[v]];
        }
        voff[nt] = nv;
        const int col = col0 + n - 1, K = J->n_orders;
        if (J->agg) { /* aggregate: every hypothesis against the references' summed counts, min(R * own, sum) */
            for (int64_t g = 0; g < G; g++) cnt[g] = 0;
            for (int64_t t = r0; t < nt; t++)
                for (int64_t v = voff[t]; v < voff[t + 1]; v++) cnt[vg[v]] += vc[v];
            for (int64_t a = 0; a < nh; a++) {
                int64_t m = 0;
                for (int64_t v = voff[a]; v < voff[a + 1]; v++) {
                    int64_t x = nr * vc[v], y = cnt[vg[v]];
                    m += x < y ? x : y;
                }
                S->M[(size_t)a * (size_t)K + col] = (int32_t)m;
            }
            goto next_order;
        }
        /* postings of the references (CSR by id) */
        poff[0] = 0;
        for (int64_t g = 0; g < G; g++) poff[g + 1] = poff[g] + df[g];
        for (int64_t g = 0; g < G; g++) cnt[g] = poff[g];
        for (int64_t t = r0; t < nt; t++)
            for (int64_t v = voff[t]; v < voff[t + 1]; v++) {
                int64_t g = vg[v], p = cnt[g]++;
                pt[p] = t - r0;
                pc[p] = vc[v];
            }
        if (J->same) {
            /* min is symmetric: text a adds only to the texts after it (postings are in text order, and a
             * cursor per id skips the texts already done), then both (a, b) and (b, a) are written */
            for (int64_t g = 0; g < G; g++) cnt[g] = poff[g];
            for (int64_t a = 0; a < nh; a++) {
                memset(acc + a, 0, (size_t)(nr - a) * sizeof(int64_t));
                for (int64_t v = voff[a]; v < voff[a + 1]; v++) {
                    int64_t g = vg[v], ca = vc[v], p0 = cnt[g]++; /* pt[p0] == a */
                    for (int64_t p = p0 + 1, pe = poff[g + 1]; p < pe; p++) {
                        int64_t cb = pc[p];
                        acc[pt[p]] += ca < cb ? ca : cb;
                    }
                }
                int64_t len = loff[a + 1] - loff[a] - n + 1; /* against itself: all its n-grams match */
                acc[a] = len > 0 ? len : 0;
                int32_t *M = S->M + col;
                for (int64_t b = a; b < nr; b++) {
                    M[((size_t)a * (size_t)nr + (size_t)b) * (size_t)K] = (int32_t)acc[b];
                    M[((size_t)b * (size_t)nr + (size_t)a) * (size_t)K] = (int32_t)acc[b];
                }
            }
        } else
            for (int64_t a = 0; a < nh; a++) {
                memset(acc, 0, (size_t)nr * sizeof(int64_t));
                for (int64_t v = voff[a]; v < voff[a + 1]; v++) {
                    int64_t g = vg[v], ca = vc[v];
                    for (int64_t p = poff[g]; p < poff[g + 1]; p++) {
                        int64_t cb = pc[p];
                        acc[pt[p]] += ca < cb ? ca : cb;
                    }
                }
                int32_t *row = S->M + (size_t)a * (size_t)nr * (size_t)K + col;
                for (int64_t b = 0; b < nr; b++) row[(size_t)b * (size_t)K] = (int32_t)acc[b];
            }
    next_order:
        /* the next order looks only at positions whose n-gram is shared by both sides */
        if (n < max_order)
            for (int64_t t = 0; t < nt; t++) {
                int64_t *lp = pos + loff[t], k = 0, m = lcnt[t];
                for (int64_t j = 0; j < m; j++) {
                    int64_t q = lp[j], g = ids[q];
                    int shared = (J->same && !J->agg) ? df[g] >= 2 : (dh[g] >= 1 && df[g] >= 1);
                    lp[k] = q;
                    k += shared;
                }
                lcnt[t] = k;
            }
        idt_clear(&T);
    }
    return 0;
}

static int pw_block(void *ctx, void *scratch, int64_t sa, int64_t sb) {
    PwJob *J = (PwJob *)ctx;
    PwScr *S = (PwScr *)scratch;
    const int K = J->n_orders;
    const double EPSV = 1e-16;
    for (int64_t si = sa; si < sb; si++) {
        int64_t s = J->lo + si;
        const int64_t *texts = J->seg_texts + J->seg_off[s];
        int64_t nt = J->seg_off[s + 1] - J->seg_off[s];
        int64_t nh = J->same ? nt : J->seg_nh[s];
        int64_t nr = J->same ? nt : nt - nh;
        if (nh == 0 || nr == 0) continue;
        const int64_t ncol = J->agg ? 1 : nr; /* aggregate: one "pair" per hypothesis */
        size_t cells = (size_t)nh * (size_t)ncol * (size_t)K;
        if (reserve((void **)&S->M, &S->cM, cells, sizeof(int32_t))) return -1;
        memset(S->M, 0, cells * sizeof(int32_t));
        int col0 = 0;
        for (int st = 0; st < 2; st++) {
            if (J->order[st] > 0 && pw_stream(J, S, st, texts, nt, nh, nr, col0)) return -1;
            col0 += J->order[st];
        }
        const int64_t r0 = J->same ? 0 : nh;
        for (int64_t a = 0; a < nh; a++)
            for (int64_t b = 0; b < ncol; b++) {
                const int32_t *m = S->M + ((size_t)a * (size_t)ncol + (size_t)b) * (size_t)K;
                double *o = J->out + (J->mode == 0 ? (J->out_off[s] + a * ncol + b)
                                                    : (J->out_off[s] + a * ncol + b) * 3 * K);
                double score = 0.0, eff = 0.0, ap = 0.0, ar = 0.0;
                int i = 0;
                for (int st = 0; st < 2; st++) {
                    const int64_t *off = J->off[st];
                    int64_t la = off[texts[a] + 1] - off[texts[a]];
                    int64_t lb = J->agg ? 0 : off[texts[r0 + b] + 1] - off[texts[r0 + b]];
                    for (int n = 1; n <= J->order[st]; n++, i++) {
                        int64_t nb = lb - n + 1 > 0 ? lb - n + 1 : 0, na = la - n + 1 > 0 ? la - n + 1 : 0;
                        if (J->agg) { /* the references' n-grams summed; the hypothesis' counted R times */
                            nb = 0;
                            for (int64_t t = r0; t < nt; t++) {
                                int64_t l = off[texts[t] + 1] - off[texts[t]] - n + 1;
                                nb += l > 0 ? l : 0;
                            }
                            na *= nr;
                        }
                        double n_hyp = (double)(nb > 0 ? na : 0), n_ref = (double)nb, n_match = (double)m[i];
                        if (J->mode == 1) {
                            o[3 * i] = n_hyp;
                            o[3 * i + 1] = n_ref;
                            o[3 * i + 2] = n_match;
                            continue;
                        }
                        double prec = n_hyp > 0 ? n_match / n_hyp : EPSV;
                        double rec = n_ref > 0 ? n_match / n_ref : EPSV;
                        double denom = J->factor * prec + rec;
                        score = score + (denom > 0 ? J->onepf * prec * rec / denom : EPSV);
                        if (n_hyp > 0 && n_ref > 0) {
                            ap = ap + prec;
                            ar = ar + rec;
                            eff = eff + 1.0;
                        }
                    }
                }
                if (J->mode == 1) continue;
                if (J->eps_smoothing) {
                    *o = 100.0 * score / (double)K;
                } else {
                    ap = eff > 0 ? ap / eff : 0.0;
                    ar = eff > 0 ? ar / eff : 0.0;
                    double f = J->onepf * ap * ar;
                    f = f / (J->factor * ap + ar);
                    *o = (ap + ar) != 0 ? 100.0 * f : 0.0;
                }
            }
    }
    return 0;
}

static PyObject *py_chrf_pairwise(PyObject *self, PyObject *args) {
    PyObject *o[10];
    int c_order, w_order, same, mode, eps_smoothing, n_threads;
    double factor, onepf;
    Py_ssize_t lo, hi;
    if (!PyArg_ParseTuple(args, "OOOOiiOOOOiddpiOnni", &o[0], &o[1], &o[2], &o[3], &c_order, &w_order, &o[4], &o[5],
                          &o[6], &o[7], &same, &factor, &onepf, &eps_smoothing, &mode, &o[8], &lo, &hi, &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t ncs = 0, nco = 0, nws = 0, nwo = 0, nst = 0, nso = 0, nnh = 0, noo = 0, nout = 0;
    const int64_t *c_sym = get_buf(&B, o[0], 8, 0, 0, "c_sym", &ncs);
    const int64_t *c_off = c_sym ? get_buf(&B, o[1], 8, 1, 0, "c_off", &nco) : NULL;
    const int64_t *w_sym = c_off ? get_buf(&B, o[2], 8, 0, 0, "w_sym", &nws) : NULL;
    const int64_t *w_off = w_sym ? get_buf(&B, o[3], 8, 1, 0, "w_off", &nwo) : NULL;
    const int64_t *seg_texts = w_off ? get_buf(&B, o[4], 8, 0, 0, "seg_texts", &nst) : NULL;
    const int64_t *seg_off = seg_texts ? get_buf(&B, o[5], 8, 1, 0, "seg_off", &nso) : NULL;
    const int64_t *seg_nh = seg_off ? get_buf(&B, o[6], 8, nso - 1, 0, "seg_nh", &nnh) : NULL;
    const int64_t *out_off = seg_nh ? get_buf(&B, o[7], 8, nso - 1, 0, "out_off", &noo) : NULL;
    double *out = out_off ? (double *)get_buf(&B, o[8], 8, 0, 1, "out", &nout) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    int K = c_order + w_order, agg = mode >= 2;
    mode = mode % 2;
    int bad = c_order < 0 || w_order < 0 || K < 1 || c_order > 1000 || w_order > 1000 || mode < 0 || agg > 1 ||
              lo < 0 || hi < lo || hi > nso - 1 || !check_ragged(c_off, nco, ncs) || !check_ragged(seg_off, nso, nst) ||
              (w_order > 0 && (!check_ragged(w_off, nwo, nws) || nwo != nco));
    for (Py_ssize_t k = 0; k < nst && !bad; k++) bad = seg_texts[k] < 0 || seg_texts[k] >= nco - 1;
    for (Py_ssize_t s = lo; s < hi && !bad; s++) {
        int64_t nt = seg_off[s + 1] - seg_off[s];
        int64_t nh = same ? nt : seg_nh[s], nr = same ? nt : nt - nh;
        bad = nh < 0 || nr < 0 || out_off[s] < 0 || (out_off[s] + nh * (agg ? 1 : nr)) * (mode == 0 ? 1 : 3 * K) > nout;
    }
    for (Py_ssize_t k = 0; k < ncs && !bad; k++) bad = c_sym[k] < 0;
    for (Py_ssize_t k = 0; k < nws && !bad && w_order > 0; k++) bad = w_sym[k] < 0;
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "chrf_pairwise: orders, offsets, symbols or output size out of range");
        return NULL;
    }
    PwJob J = {{c_sym, w_sym}, {c_off, w_off}, {c_order, w_order}, seg_texts, seg_off, seg_nh, out_off,
               same, mode, eps_smoothing, K, agg, factor, onepf, lo, out};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks_max(pw_block, &J, sizeof(PwScr), pw_scratch_free, hi - lo, n_threads, 1);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* Lattice oracle: Viterbi over lattice x K-GRR automaton with back-pointers
 * (search/lattice_oracle.py lattice_viterbi). Returns (value, numerator, model score, ops) with ops
 * int64 rows (op, arc, ref_index), or NULL with an exception (no memory; KeyboardInterrupt). */

static PyObject *py_lattice_viterbi(PyObject *self, PyObject *args) {
    PyObject *o[6];
    Py_ssize_t start;
    int K;
    double alpha, beta, lam;
    if (!PyArg_ParseTuple(args, "OOOOOnOiddd", &o[0], &o[1], &o[2], &o[3], &o[4], &start, &o[5], &K, &alpha, &beta,
                          &lam))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t noff, nd, nl, nw, nf, R;
    const int64_t *arc_off = get_buf(&B, o[0], 8, 1, 0, "arc_off", &noff);
    const int64_t *arc_dst = arc_off ? get_buf(&B, o[1], 8, 0, 0, "arc_dst", &nd) : NULL;
    const int64_t *arc_lab = arc_dst ? get_buf(&B, o[2], 8, nd, 0, "arc_lab", &nl) : NULL;
    const double *arc_w = arc_lab ? get_buf(&B, o[3], 8, nd, 0, "arc_w", &nw) : NULL;
    const double *final_w = arc_w ? get_buf(&B, o[4], 8, noff - 1, 0, "final_w", &nf) : NULL;
    const int64_t *r = final_w ? get_buf(&B, o[5], 8, 0, 0, "r", &R) : NULL;
    if (!r) {
        bufs_release(&B);
        return NULL;
    }
    int64_t Q = noff - 1;
    int bad = K < 1 || start < 0 || start >= Q || !check_ragged(arc_off, noff, nd) || !check_range(arc_dst, 0, nd, Q);
    if (bad) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "lattice_viterbi: bad lattice arrays or parameters");
        return NULL;
    }
    const int64_t W = (R + 1) * (int64_t)K;
    if (Q > INT64_MAX / 32 / W) {
        bufs_release(&B);
        return PyErr_NoMemory();
    }
    size_t size = (size_t)(Q * W);
    double *V = malloc(size * sizeof(double));
    int64_t *bcell = malloc(size * sizeof(int64_t)), *barc = malloc(size * sizeof(int64_t));
    int8_t *bop = malloc(size);
    if (!V || !bcell || !barc || !bop) {
        free(V); free(bcell); free(barc); free(bop);
        bufs_release(&B);
        return PyErr_NoMemory();
    }
    const double neg = -INFINITY;
    double best = neg, numer = 0.0, model = 0.0;
    int64_t *ops = NULL, n_ops = 0;
    int rc = 0;
    Poll P = {PyEval_SaveThread(), 0};
    for (size_t c = 0; c < size; c++) {
        V[c] = neg;
        bcell[c] = barc[c] = -1;
        bop[c] = -1;
    }
    V[start * W] = 0.0;
    for (int64_t q = start; q < Q && rc == 0; q++) {
        for (int64_t i = 0; i <= R; i++)
            for (int64_t m = 0; m < K; m++) {
                int64_t cell = (q * (R + 1) + i) * K + m;
                double v = V[cell];
                if (v == neg) continue;
                if (i < R) { /* deletion */
                    int64_t t = (q * (R + 1) + i + 1) * K;
                    double x = v - beta;
                    if (x > V[t]) { V[t] = x; bcell[t] = cell; barc[t] = -1; bop[t] = 3; }
                }
                for (int64_t j = arc_off[q]; j < arc_off[q + 1]; j++) {
                    int64_t q2 = arc_dst[j], w = arc_lab[j];
                    double gain = lam * arc_w[j];
                    if (w < 0) { /* epsilon arc */
                        int64_t t = (q2 * (R + 1) + i) * K + m;
                        double x = v + gain;
                        if (x > V[t]) { V[t] = x; bcell[t] = cell; barc[t] = j; bop[t] = 4; }
                        continue;
                    }
                    int64_t t = (q2 * (R + 1) + i) * K; /* insertion */
                    double x = (v + gain) - alpha;
                    if (x > V[t]) { V[t] = x; bcell[t] = cell; barc[t] = j; bop[t] = 2; }
                    if (i < R) {
                        t = (q2 * (R + 1) + i + 1) * K; /* substitution */
                        x = v + gain;
                        if (x > V[t]) { V[t] = x; bcell[t] = cell; barc[t] = j; bop[t] = 1; }
                        if (w == r[i]) { /* match */
                            int64_t mm = m + 1 < K ? m + 1 : K - 1;
                            t = (q2 * (R + 1) + i + 1) * K + mm;
                            x = ((v + gain) + (double)m) + 1.0;
                            if (x > V[t]) { V[t] = x; bcell[t] = cell; barc[t] = j; bop[t] = 0; }
                        }
                    }
                }
            }
        rc = poll_tick(&P, W * (1 + arc_off[q + 1] - arc_off[q]));
    }
    int64_t best_cell = -1, best_q = -1;
    if (rc == 0) {
        for (int64_t q = 0; q < Q; q++) {
            double fw = final_w[q];
            if (fw == neg) continue;
            for (int64_t m = 0; m < K; m++) {
                int64_t cell = (q * (R + 1) + R) * K + m;
                if (V[cell] == neg) continue;
                double x = V[cell] + lam * fw;
                if (x > best) { best = x; best_cell = cell; best_q = q; }
            }
        }
    }
    if (rc == 0 && best_cell >= 0) {
        int64_t c = best_cell;
        while (bcell[c] >= 0 && n_ops <= (int64_t)size) { n_ops++; c = bcell[c]; }
        ops = malloc(((size_t)n_ops * 3 + 1) * sizeof(int64_t));
        if (!ops) rc = -1;
    }
    if (rc == 0 && best_cell >= 0) {
        model = final_w[best_q];
        int64_t c = best_cell, k = n_ops - 1;
        while (bcell[c] >= 0 && k >= 0) {
            int64_t p = bcell[c], pm = p % K, pi = (p / K) % (R + 1);
            int op = bop[c];
            ops[3 * k] = op;
            ops[3 * k + 1] = barc[c];
            ops[3 * k + 2] = pi;
            if (op == 0) numer += (double)(pm + 1);
            else if (op == 2) { numer -= alpha; ops[3 * k + 2] = -1; }
            else if (op == 3) numer -= beta;
            else if (op == 4) ops[3 * k + 2] = -1;
            if (barc[c] >= 0) model += arc_w[barc[c]];
            k--;
            c = p;
        }
    }
    PyEval_RestoreThread(P.ts);
    free(V); free(bcell); free(barc); free(bop);
    bufs_release(&B);
    if (rc == -1) {
        free(ops);
        return PyErr_NoMemory();
    }
    if (rc != 0) {
        free(ops);
        return NULL; /* KeyboardInterrupt (or another signal handler's exception) is set */
    }
    PyObject *res;
    if (best_cell < 0)
        res = Py_BuildValue("(dddN)", neg, neg, neg, PyByteArray_FromStringAndSize("", 0));
    else
        res = Py_BuildValue("(dddN)", best, numer, model, bytearray_of(ops, (size_t)n_ops * 3 * sizeof(int64_t)));
    free(ops);
    return res;
}

/* ------------------------------------------------------------------------------------------------ */
/* K-GRR alignment of one pair: dense Viterbi with back-pointers (metrics/grr.py _grr_align_kernel).
 * Returns (numerator, ops) with ops int64 rows (op, t, i) in order. */

static PyObject *py_grr_align(PyObject *self, PyObject *args) {
    PyObject *o_c, *o_r;
    int K;
    double alpha, beta;
    if (!PyArg_ParseTuple(args, "OOidd", &o_c, &o_r, &K, &alpha, &beta)) return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t n, R;
    const int64_t *c = get_buf(&B, o_c, 8, 0, 0, "c", &n);
    const int64_t *r = c ? get_buf(&B, o_r, 8, 0, 0, "r", &R) : NULL;
    if (!r) {
        bufs_release(&B);
        return NULL;
    }
    if (K < 1 || R > INT32_MAX - 1) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "grr_align: K must be >= 1");
        return NULL;
    }
    const int64_t LW = (R + 1) * (int64_t)K; /* cells per layer */
    if (n + 1 > INT64_MAX / 32 / LW) {
        bufs_release(&B);
        return PyErr_NoMemory();
    }
    size_t size = (size_t)((n + 1) * LW);
    double *dp = malloc(size * sizeof(double));
    int8_t *bop = malloc(size);
    int32_t *bi = malloc(size * sizeof(int32_t)), *bm = malloc(size * sizeof(int32_t));
    int64_t *ops = malloc(((size_t)(n + R) * 3 + 1) * sizeof(int64_t));
    if (!dp || !bop || !bi || !bm || !ops) {
        free(dp); free(bop); free(bi); free(bm); free(ops);
        bufs_release(&B);
        return PyErr_NoMemory();
    }
    const double neg = -INFINITY;
#define IX(t, i, m) ((((int64_t)(t)) * (R + 1) + (i)) * K + (m))
    int rc = 0;
    int64_t k = 0;
    double score = 0.0;
    Poll P = {PyEval_SaveThread(), 0};
    for (size_t x = 0; x < size; x++) {
        dp[x] = neg;
        bop[x] = -1;
        bi[x] = bm[x] = 0;
    }
    dp[0] = 0.0;
    for (int64_t t = 0; t <= n && rc == 0; t++) {
        if (t > 0) {
            int64_t w = c[t - 1];
            for (int64_t i = 0; i <= R; i++)
                for (int64_t m = 0; m < K; m++) {
                    double v = dp[IX(t - 1, i, m)];
                    if (v == neg) continue;
                    if (i < R && w == r[i]) { /* match */
                        int64_t tgt = m + 1 < K ? m + 1 : K - 1, y = IX(t, i + 1, tgt);
                        double x = (v + (double)m) + 1.0;
                        if (x > dp[y]) { dp[y] = x; bop[y] = 0; bi[y] = (int32_t)i; bm[y] = (int32_t)m; }
                    }
                    if (i < R) { /* substitution */
                        int64_t y = IX(t, i + 1, 0);
                        if (v > dp[y]) { dp[y] = v; bop[y] = 1; bi[y] = (int32_t)i; bm[y] = (int32_t)m; }
                    }
                    double x = v - alpha; /* insertion */
                    int64_t y = IX(t, i, 0);
                    if (x > dp[y]) { dp[y] = x; bop[y] = 2; bi[y] = (int32_t)i; bm[y] = (int32_t)m; }
                }
        }
        for (int64_t i = 0; i < R; i++) /* deletions within layer t, increasing i */
            for (int64_t m = 0; m < K; m++) {
                double v = dp[IX(t, i, m)];
                if (v == neg) continue;
                double x = v - beta;
                int64_t y = IX(t, i + 1, 0);
                if (x > dp[y]) { dp[y] = x; bop[y] = 3; bi[y] = (int32_t)i; bm[y] = (int32_t)m; }
            }
        rc = poll_tick(&P, 2 * LW);
    }
    if (rc == 0) {
        int64_t best_m = 0;
        for (int64_t m = 1; m < K; m++)
            if (dp[IX(n, R, m)] > dp[IX(n, R, best_m)]) best_m = m;
        score = dp[IX(n, R, best_m)];
        int64_t t = n, i = R, m = best_m, lim = n + R;
        while ((t > 0 || i > 0) && k < lim) { /* written backwards, reversed below */
            int64_t y = IX(t, i, m);
            int op = bop[y];
            int64_t pi = bi[y], pm = bm[y];
            if (op == 0 || op == 1) {
                ops[3 * k] = op; ops[3 * k + 1] = t - 1; ops[3 * k + 2] = pi;
                t--;
            } else if (op == 2) {
                ops[3 * k] = op; ops[3 * k + 1] = t - 1; ops[3 * k + 2] = -1;
                t--;
            } else {
                ops[3 * k] = 3; ops[3 * k + 1] = -1; ops[3 * k + 2] = pi;
            }
            i = pi;
            m = pm;
            k++;
        }
        for (int64_t a = 0, b = k - 1; a < b; a++, b--)
            for (int q = 0; q < 3; q++) {
                int64_t tmp = ops[3 * a + q];
                ops[3 * a + q] = ops[3 * b + q];
                ops[3 * b + q] = tmp;
            }
    }
#undef IX
    PyEval_RestoreThread(P.ts);
    free(dp); free(bop); free(bi); free(bm);
    bufs_release(&B);
    if (rc != 0) {
        free(ops);
        return NULL;
    }
    PyObject *res = Py_BuildValue("(dN)", score, bytearray_of(ops, (size_t)k * 3 * sizeof(int64_t)));
    free(ops);
    return res;
}

/* ------------------------------------------------------------------------------------------------ */

/* libm_apply(kind, x, out): out[i] = log(x[i]) (kind 0), log2(x[i]) (1) or exp(x[i]) (2), float64, through the C
 * library, which gives the same bits on every CPU (NumPy's vectorized log/exp use kernels of their own on AVX-512
 * machines); the reference is metrics._common.libm_map (Python's math module: the same C library functions). */
static PyObject *py_libm_apply(PyObject *self, PyObject *args) {
    int kind;
    PyObject *o_x, *o_out;
    if (!PyArg_ParseTuple(args, "iOO", &kind, &o_x, &o_out)) return NULL;
    if (kind < 0 || kind > 2) {
        PyErr_Format(PyExc_ValueError, "libm_apply: kind must be 0 (log), 1 (log2) or 2 (exp), got %d", kind);
        return NULL;
    }
    Bufs B = {.n = 0};
    Py_ssize_t n, n_out;
    const double *x = get_buf(&B, o_x, 8, 0, 0, "x", &n);
    double *out = x ? (double *)get_buf(&B, o_out, 8, 0, 1, "out", &n_out) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    if (n_out != n) {
        bufs_release(&B);
        PyErr_SetString(PyExc_ValueError, "libm_apply: x and out differ in length");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    if (kind == 0) {
        for (Py_ssize_t i = 0; i < n; i++) out[i] = log(x[i]);
    } else if (kind == 1) {
        for (Py_ssize_t i = 0; i < n; i++) out[i] = log2(x[i]);
    } else {
        for (Py_ssize_t i = 0; i < n; i++) out[i] = exp(x[i]);
    }
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"libm_apply", py_libm_apply, METH_VARARGS, "log / log2 / exp of a float64 array through the C library."},
    {"ngram_pair_stats", py_ngram_pair_stats, METH_VARARGS, "chrF n-gram statistics of segments [seg_lo, seg_hi)."},
    {"chrf_word_ids", py_chrf_word_ids, METH_VARARGS, "chrF++ word tokens interned to exact ids."},
    {"segment_code_points", py_segment_code_points, METH_VARARGS, "chrF: code points of hyps and refs, offsets."},
    {"drop_whitespace", py_drop_whitespace, METH_VARARGS, "Remove whitespace code points."},
    {"ter_pairs", py_ter_pairs, METH_VARARGS, "TER edits of pairs [lo, hi)."},
    {"levenshtein_pairs", py_levenshtein_pairs, METH_VARARGS, "WER edit distances of pairs [lo, hi)."},
    {"grr_numerators", py_grr_numerators, METH_VARARGS, "K-GRR Viterbi numerators of pairs [lo, hi)."},
    {"gtm", py_gtm, METH_VARARGS, "GTM greedy matching of segments [lo, hi)."},
    {"nist_next_ids", py_nist_next_ids, METH_VARARGS, "NIST: exact ids of the next n-gram order."},
    {"tbleu_candidate_costs", py_tbleu_candidate_costs, METH_VARARGS, "tBLEU candidate check + AD cost matrices."},
    {"affix_parts", py_affix_parts, METH_VARARGS, "tBLEU affix-distance parts (d, L) of two code-point spans."},
    {"bootstrap_counts", py_bootstrap_counts, METH_VARARGS, "Bootstrap resample counts (SplitMix64 streams)."},
    {"index_counts", py_index_counts, METH_VARARGS, "Counts of drawn indices per row (bootstrap resamples)."},
    {"nist_clipped_info", py_nist_clipped_info, METH_VARARGS, "NIST: clipped information sums."},
    {"lcm_match", py_lcm_match, METH_VARARGS, "LCM: matched n-grams of check-points [lo, hi)."},
    {"lcm_phrases", py_lcm_phrases, METH_VARARGS, "LCM: phrase check-points (content runs, PP proxies)."},
    {"rose_ngram_pr", py_rose_ngram_pr, METH_VARARGS, "ROSE: unclipped n-gram precision and best recall."},
    {"rose_count_diffs", py_rose_count_diffs, METH_VARARGS, "ROSE: token-class count differences."},
    {"rose_mixed_prec", py_rose_mixed_prec, METH_VARARGS, "ROSE: mixed word-or-POS n-gram precision."},
    {"mbr_clipped_matches", py_mbr_clipped_matches, METH_VARARGS, "MBR: clipped matches of all candidate pairs."},
    {"bootstrap_grid_counts", py_bootstrap_grid_counts, METH_VARARGS, "Paired bootstrap null counts on a grid of shifts."},
    {"chrf_pairwise", py_chrf_pairwise, METH_VARARGS, "Pairwise chrF / chrF++ of all pairs of segments [lo, hi)."},
    {"lattice_viterbi", py_lattice_viterbi, METH_VARARGS, "Lattice oracle: Viterbi with back-pointers."},
    {"align_ops", py_align_ops, METH_VARARGS, "Word alignment ops (jiwer's) of pairs [lo, hi)."},
    {"grr_align", py_grr_align, METH_VARARGS, "K-GRR alignment of one pair (back-pointers)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cmetrics",
                                    "Compiled kernels of the metrics (chrF, TER).", -1, methods};

PyMODINIT_FUNC PyInit__cmetrics(void) { return PyModule_Create(&module); }
