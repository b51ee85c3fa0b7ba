/* Ahead-of-time compiled kernels of the meta-evaluation statistics.
 *
 * The same algorithms, operation for operation, as the reference implementations in
 * mtscore/meta/_kernels.py (weighted grouped pair classification with a Fenwick tree, DARR counts,
 * weighted Pearson / Spearman, distinct-value counts, within-group pair enumeration and the batched
 * tie-calibration search). The references stay in the code as the oracle these kernels are tested
 * against (tests/kernels/test_cmeta.py, hypothesis): every floating-point sum is done in the same order, so the
 * results are bit-identical (the build turns floating-point contraction off: no fused multiply-add).
 *
 * No NumPy dependency: inputs are read through the buffer protocol (the wrappers in meta/_kernels.py pass
 * C-contiguous int64 / float64 / bool arrays and zeroed outputs). Every kernel releases the GIL and splits
 * its independent units (groups, resamples) between n_threads threads, handing out blocks from an atomic
 * counter; each unit writes only its own output, so results do not depend on the number of threads. The
 * wrappers call the kernels in chunks of bounded work, so that Ctrl-C is seen between chunks.
 *
 * The group kernels take weights w [rows, cells] (one row per resample) and fill out [rows, G, cols] for the
 * rows [r_lo, r_hi) and groups [g_lo, g_hi); a (row, group) is one unit of work for the threads:
 *
 *   group_counts(x, y, w, starts, rows, r_lo, r_hi, g_lo, g_hi, out[rows, G, 5], n_threads)
 *   group_darr(x, y, w, starts, thr, rows, r_lo, r_hi, g_lo, g_hi, out[rows, G, 2], n_threads)
 *   group_pearson(x, y, w, starts, rows, r_lo, r_hi, g_lo, g_hi, out[rows, G], n_threads)
 *   group_spearman(x, y, w, starts, rows, r_lo, r_hi, g_lo, g_hi, out[rows, G], n_threads)
 *   group_minclasses(x, y, w, starts, rows, r_lo, r_hi, g_lo, g_hi, out[rows, G, 2], n_threads)
 *   enumerate_pairs(starts, groups, offsets, lo, hi, A, B, Gr, n_threads)
 *   tie_best(a, b, group, delta, base, diff, is_run_end, cell_group, n_groups, cw, cw_rows, gw, gw_rows,
 *            r_lo, r_hi, out_v, out_e, n_threads)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 48 /* groups up to this size use the direct O(k^2) pair loop (as the reference) */

/* ------------------------------------------------------------------------------------------------ */
/* threads: the shared pool (_cpool.h), blocks of at most 64 units */

#include "_cpool.h"

static int run_blocks(block_fn fn, void *ctx, size_t scratch_size, void (*scratch_free)(void *), int64_t n,
                      int n_threads) {
    return run_blocks_max(fn, ctx, scratch_size, scratch_free, n, n_threads, 64);
}

/* ------------------------------------------------------------------------------------------------ */
/* per-thread scratch: index and value arrays of the largest group seen */

typedef struct {
    int64_t *ox, *oy, *xr, *tmp;
    double *tree, *rx, *ry, *gsum, *gtot, *gcoef;
    size_t cap, gcap;
} Scratch;

static void scratch_free(void *p) {
    Scratch *S = (Scratch *)p;
    free(S->ox); free(S->oy); free(S->xr); free(S->tmp);
    free(S->tree); free(S->rx); free(S->ry);
    free(S->gsum); free(S->gtot); free(S->gcoef);
}

static int scratch_reserve(Scratch *S, size_t n) {
    if (n + 1 <= S->cap) return 0;
    size_t c = S->cap ? S->cap : 64;
    while (c < n + 1) c *= 2;
    int64_t **ia[] = {&S->ox, &S->oy, &S->xr, &S->tmp};
    for (int k = 0; k < 4; k++) {
        void *q = realloc(*ia[k], c * sizeof(int64_t));
        if (!q) return -1;
        *ia[k] = q;
    }
    double **da[] = {&S->tree, &S->rx, &S->ry};
    for (int k = 0; k < 3; k++) {
        void *q = realloc(*da[k], c * sizeof(double));
        if (!q) return -1;
        *da[k] = q;
    }
    S->cap = c;
    return 0;
}

static int scratch_reserve_groups(Scratch *S, size_t g) {
    if (g + 1 <= S->gcap) return 0;
    size_t c = g + 1;
    double **da[] = {&S->gsum, &S->gtot, &S->gcoef};
    for (int k = 0; k < 3; k++) {
        void *q = realloc(*da[k], c * sizeof(double));
        if (!q) return -1;
        *da[k] = q;
    }
    S->gcap = c;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* stable argsort (NumPy's order: NaN after every number), as np.argsort(kind="mergesort") */

static inline int lt(double a, double b) { return a < b || (b != b && a == a); }

/* Sorts the n indices idx[] by key[idx], stably; tmp has room for n indices. */
static void stable_sort(int64_t *idx, int64_t *tmp, int64_t n, const double *key) {
    const int64_t RUN = 24;
    for (int64_t s = 0; s < n; s += RUN) { /* insertion sort of runs (stable: strict comparison) */
        int64_t e = s + RUN < n ? s + RUN : n;
        for (int64_t i = s + 1; i < e; i++) {
            int64_t v = idx[i];
            double kv = key[v];
            int64_t j = i;
            while (j > s && lt(kv, key[idx[j - 1]])) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
    }
    int64_t *src = idx, *dst = tmp;
    for (int64_t width = RUN; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = lt(key[src[j]], key[src[i]]) ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx) memcpy(idx, src, (size_t)n * sizeof(int64_t));
}

static void iota(int64_t *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = i;
}

/* dense ranks of v in the order o; returns the number of distinct values */
static int64_t dense_ranks(const double *v, const int64_t *o, int64_t n, int64_t *r) {
    int64_t k = 0;
    for (int64_t t = 0; t < n; t++) {
        if (t > 0 && v[o[t]] != v[o[t - 1]]) k++;
        r[o[t]] = k;
    }
    return k + 1;
}

static inline void fenwick_add(double *tree, int64_t size, int64_t i, double v) {
    i += 1;
    while (i < size) {
        tree[i] += v;
        i += i & (-i);
    }
}

/* sum of entries 0..i (inclusive); i = -1 gives 0 */
static inline double fenwick_prefix(const double *tree, int64_t i) {
    double s = 0.0;
    i += 1;
    while (i > 0) {
        s += tree[i];
        i -= i & (-i);
    }
    return s;
}

/* ------------------------------------------------------------------------------------------------ */
/* pair classification: [concordant, discordant, tie human only, tie metric only, tie both] */

static void counts_direct(const double *x, const double *y, const double *w, int64_t n, double *out) {
    for (int64_t a = 0; a < n; a++) {
        double wa = w[a];
        if (wa == 0.0) continue;
        out[4] += wa * (wa - 1.0) / 2.0;
        for (int64_t b = a + 1; b < n; b++) {
            double wb = w[b];
            if (wb == 0.0) continue;
            double ww = wa * wb;
            double dx = x[a] - x[b];
            double dy = y[a] - y[b];
            if (dx == 0.0) {
                if (dy == 0.0)
                    out[4] += ww;
                else
                    out[3] += ww;
            } else if (dy == 0.0) {
                out[2] += ww;
            } else if ((dx > 0.0) == (dy > 0.0)) {
                out[0] += ww;
            } else {
                out[1] += ww;
            }
        }
    }
}

static int counts_fenwick(const double *x, const double *y, const double *w, int64_t n, double *out, Scratch *S) {
    if (scratch_reserve(S, (size_t)n) != 0) return -1;
    int64_t *ox = S->ox, *oy = S->oy, *xr = S->xr;
    iota(ox, n);
    stable_sort(ox, S->tmp, n, x);
    int64_t nx = dense_ranks(x, ox, n, xr);
    /* sorted by y, then by x (stable sort of the x order) */
    memcpy(oy, ox, (size_t)n * sizeof(int64_t));
    stable_sort(oy, S->tmp, n, y);
    double W = 0.0;
    for (int64_t i = 0; i < n; i++) W += w[i];
    double tot = (W * W - W) / 2.0;
    double tx = 0.0, g = 0.0;
    for (int64_t t = 0; t < n; t++) {
        if (t > 0 && x[ox[t]] != x[ox[t - 1]]) {
            tx += g * (g - 1.0) / 2.0;
            g = 0.0;
        }
        g += w[ox[t]];
    }
    tx += g * (g - 1.0) / 2.0;
    double *tree = S->tree;
    int64_t size = nx + 1;
    memset(tree, 0, (size_t)size * sizeof(double));
    double inserted = 0.0, ty = 0.0, txy = 0.0, dis = 0.0;
    int64_t t = 0;
    while (t < n) {
        int64_t u = t;
        while (u < n && y[oy[u]] == y[oy[t]]) u++;
        if (u == t) u = t + 1; /* NaN: a run of its own (never reached with clean input) */
        double gy = 0.0, gxy = 0.0;
        for (int64_t k = t; k < u; k++) {
            int64_t e = oy[k];
            if (k > t && x[e] != x[oy[k - 1]]) {
                txy += gxy * (gxy - 1.0) / 2.0;
                gxy = 0.0;
            }
            gxy += w[e];
            gy += w[e];
            dis += w[e] * (inserted - fenwick_prefix(tree, xr[e]));
        }
        txy += gxy * (gxy - 1.0) / 2.0;
        ty += gy * (gy - 1.0) / 2.0;
        for (int64_t k = t; k < u; k++) {
            int64_t e = oy[k];
            fenwick_add(tree, size, xr[e], w[e]);
            inserted += w[e];
        }
        t = u;
    }
    double t_m = tx - txy;
    double t_h = ty - txy;
    double con = tot - dis - t_m - t_h - txy;
    out[0] += con;
    out[1] += dis;
    out[2] += t_h;
    out[3] += t_m;
    out[4] += txy;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* DARR: [concordant, discordant] over pairs with |y_a - y_b| >= thr; metric ties discordant */

static void darr_direct(const double *x, const double *y, const double *w, int64_t n, double thr, double *out) {
    for (int64_t a = 0; a < n; a++) {
        if (w[a] == 0.0) continue;
        for (int64_t b = a + 1; b < n; b++) {
            if (w[b] == 0.0) continue;
            double dy = y[a] - y[b];
            if (fabs(dy) >= thr) {
                double ww = w[a] * w[b];
                if ((dy > 0.0 && x[a] > x[b]) || (dy < 0.0 && x[a] < x[b]))
                    out[0] += ww;
                else
                    out[1] += ww;
            }
        }
    }
}

static int darr_fenwick(const double *x, const double *y, const double *w, int64_t n, double thr, double *out,
                        Scratch *S) {
    if (scratch_reserve(S, (size_t)n) != 0) return -1;
    int64_t *ox = S->ox, *oy = S->oy, *xr = S->xr;
    iota(ox, n);
    stable_sort(ox, S->tmp, n, x);
    int64_t nx = dense_ranks(x, ox, n, xr);
    iota(oy, n);
    stable_sort(oy, S->tmp, n, y);
    double *tree = S->tree;
    int64_t size = nx + 1;
    memset(tree, 0, (size_t)size * sizeof(double));
    double inserted = 0.0, con = 0.0, tot = 0.0;
    int64_t p = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t e = oy[k];
        while (p < n && y[oy[p]] <= y[e] - thr) {
            fenwick_add(tree, size, xr[oy[p]], w[oy[p]]);
            inserted += w[oy[p]];
            p++;
        }
        con += w[e] * fenwick_prefix(tree, xr[e] - 1);
        tot += w[e] * inserted;
    }
    out[0] += con;
    out[1] += tot - con;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* weighted Pearson, average ranks, distinct values */

/* all values of positive weight equal: a constant vector (Pearson undefined; the centred sums would hold
 * round-off only, e.g. mean(0.1, 0.1, 0.1) != 0.1) */
static int wconstant(const double *v, const double *w, int64_t n) {
    int64_t i = 0;
    while (i < n && !(w[i] > 0.0)) i++;
    if (i == n) return 1;
    double v0 = v[i];
    for (; i < n; i++)
        if (w[i] > 0.0 && v[i] != v0) return 0;
    return 1;
}

static double wpearson(const double *x, const double *y, const double *w, int64_t n) {
    double W = 0.0, mx = 0.0, my = 0.0;
    for (int64_t i = 0; i < n; i++) {
        W += w[i];
        mx += w[i] * x[i];
        my += w[i] * y[i];
    }
    if (W <= 1.0) return NAN;
    if (wconstant(x, w, n) || wconstant(y, w, n)) return NAN; /* undefined, as scipy and mt-metrics-eval */
    mx /= W;
    my /= W;
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double dx = x[i] - mx;
        double dy = y[i] - my;
        sxy += w[i] * dx * dy;
        sxx += w[i] * dx * dx;
        syy += w[i] * dy * dy;
    }
    if (sxx <= 0.0 || syy <= 0.0) return NAN;
    double r = sxy / sqrt(sxx * syy);
    double m = r > -1.0 ? r : -1.0; /* Python's max(-1.0, r), then min(1.0, m) */
    return m < 1.0 ? m : 1.0;
}

/* average ranks (1-based) of the expanded data, for each cell */
static void wranks(const double *v, const double *w, int64_t n, double *r, int64_t *o, int64_t *tmp) {
    iota(o, n);
    stable_sort(o, tmp, n, v);
    double before = 0.0;
    int64_t t = 0;
    while (t < n) {
        int64_t u = t;
        double g = 0.0;
        while (u < n && v[o[u]] == v[o[t]]) {
            g += w[o[u]];
            u++;
        }
        if (u == t) { /* NaN (never reached with clean input): a run of its own */
            g += w[o[u]];
            u++;
        }
        double avg = before + (g + 1.0) / 2.0;
        for (int64_t k = t; k < u; k++) r[o[k]] = avg;
        before += g;
        t = u;
    }
}

static int64_t n_distinct(const double *v, const double *w, int64_t n, int64_t *o, int64_t *tmp) {
    iota(o, n);
    stable_sort(o, tmp, n, v);
    int64_t k = 0;
    double last = NAN;
    int first = 1;
    for (int64_t t = 0; t < n; t++) {
        int64_t e = o[t];
        if (w[e] == 0.0) continue;
        if (first || v[e] != last) {
            k++;
            first = 0;
            last = v[e];
        }
    }
    return k;
}

/* ------------------------------------------------------------------------------------------------ */
/* grouped kernels */

enum { K_COUNTS, K_DARR, K_PEARSON, K_SPEARMAN, K_MINCLASSES };

typedef struct {
    int kind;
    const double *x, *y, *w;
    const int64_t *starts;
    double thr;
    int64_t n_cells, G, cols; /* w is [rows, n_cells]; out is [rows, G, cols] */
    int64_t r_lo, g_lo, ng;   /* units: (row, group) in [r_lo, r_hi) x [g_lo, g_lo + ng) */
    double *out;
} GroupJob;

static int group_block(void *ctx, void *scratch, int64_t lo, int64_t hi) {
    GroupJob *J = (GroupJob *)ctx;
    Scratch *S = (Scratch *)scratch;
    for (int64_t u = lo; u < hi; u++) {
        int64_t r = J->r_lo + u / J->ng, g = J->g_lo + u % J->ng;
        int64_t a = J->starts[g], n = J->starts[g + 1] - a;
        const double *x = J->x + a, *y = J->y + a, *w = J->w + r * J->n_cells + a;
        double *out = J->out + (r * J->G + g) * J->cols;
        switch (J->kind) {
        case K_COUNTS:
            if (n <= SMALL)
                counts_direct(x, y, w, n, out);
            else if (counts_fenwick(x, y, w, n, out, S) != 0)
                return -1;
            break;
        case K_DARR:
            if (n <= SMALL)
                darr_direct(x, y, w, n, J->thr, out);
            else if (darr_fenwick(x, y, w, n, J->thr, out, S) != 0)
                return -1;
            break;
        case K_PEARSON:
            out[0] = wpearson(x, y, w, n);
            break;
        case K_SPEARMAN:
            if (scratch_reserve(S, (size_t)n) != 0) return -1;
            wranks(x, w, n, S->rx, S->ox, S->tmp);
            wranks(y, w, n, S->ry, S->ox, S->tmp);
            out[0] = wpearson(S->rx, S->ry, w, n);
            break;
        case K_MINCLASSES: {
            if (scratch_reserve(S, (size_t)n) != 0) return -1;
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) s += w[i];
            out[0] = s;
            int64_t dx = n_distinct(x, w, n, S->ox, S->tmp), dy = n_distinct(y, w, n, S->ox, S->tmp);
            out[1] = (double)(dx < dy ? dx : dy);
            break;
        }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* buffers */

typedef struct {
    Py_buffer b[16];
    int n;
} Bufs;

static void bufs_release(Bufs *B) {
    for (int k = 0; k < B->n; k++) PyBuffer_Release(&B->b[k]);
    B->n = 0;
}

/* A C-contiguous buffer of items of itemsize bytes (n_items: how many). */
static void *get_buf(Bufs *B, PyObject *obj, Py_ssize_t itemsize, int writable, const char *name,
                     Py_ssize_t *n_items) {
    if (B->n >= (int)(sizeof(B->b) / sizeof(B->b[0]))) {
        PyErr_SetString(PyExc_SystemError, "_cmeta: too many buffers");
        return NULL;
    }
    Py_buffer *b = &B->b[B->n];
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0) return NULL;
    B->n++;
    if (b->len % itemsize != 0) {
        PyErr_Format(PyExc_ValueError, "%s: expected items of %zd bytes", name, itemsize);
        return NULL;
    }
    *n_items = b->len / itemsize;
    return b->buf ? b->buf : (void *)b; /* an empty buffer: any non-NULL pointer (never read) */
}

static PyObject *bad(Bufs *B, const char *msg) {
    bufs_release(B);
    PyErr_SetString(PyExc_ValueError, msg);
    return NULL;
}

/* starts: non-decreasing, starts[0] >= 0, last <= n_cells; [g_lo, g_hi) within the groups */
static int check_starts(const int64_t *st, Py_ssize_t n_st, Py_ssize_t n_cells, Py_ssize_t g_lo, Py_ssize_t g_hi) {
    if (n_st < 1 || g_lo < 0 || g_hi < g_lo || g_hi > n_st - 1) return 0;
    if (st[0] < 0 || st[n_st - 1] > n_cells) return 0;
    for (Py_ssize_t g = 0; g + 1 < n_st; g++)
        if (st[g + 1] < st[g]) return 0;
    return 1;
}

static PyObject *group_kernel(PyObject *args, int kind) {
    PyObject *ox, *oy, *ow, *ost, *oout;
    Py_ssize_t rows, r_lo, r_hi, g_lo, g_hi;
    double thr = 0.0;
    int n_threads;
    if (kind == K_DARR) {
        if (!PyArg_ParseTuple(args, "OOOOdnnnnnOi", &ox, &oy, &ow, &ost, &thr, &rows, &r_lo, &r_hi, &g_lo, &g_hi,
                              &oout, &n_threads))
            return NULL;
    } else if (!PyArg_ParseTuple(args, "OOOOnnnnnOi", &ox, &oy, &ow, &ost, &rows, &r_lo, &r_hi, &g_lo, &g_hi, &oout,
                                 &n_threads)) {
        return NULL;
    }
    Bufs B = {.n = 0};
    Py_ssize_t nx, ny, nw, nst, nout;
    const double *x = get_buf(&B, ox, 8, 0, "x", &nx);
    const double *y = x ? get_buf(&B, oy, 8, 0, "y", &ny) : NULL;
    const double *w = y ? get_buf(&B, ow, 8, 0, "w", &nw) : NULL;
    const int64_t *st = w ? get_buf(&B, ost, 8, 0, "starts", &nst) : NULL;
    double *out = st ? get_buf(&B, oout, 8, 1, "out", &nout) : NULL;
    if (!out) {
        bufs_release(&B);
        return NULL;
    }
    Py_ssize_t cols = kind == K_COUNTS ? 5 : (kind == K_DARR || kind == K_MINCLASSES) ? 2 : 1;
    if (ny != nx || rows < 0 || nw != rows * nx || r_lo < 0 || r_hi < r_lo || r_hi > rows ||
        !check_starts(st, nst, nx, g_lo, g_hi) || nout < rows * (nst - 1) * cols)
        return bad(&B, "meta group kernel: inconsistent lengths, group starts or output shape");
    GroupJob J = {kind, x, y, w, st, thr, nx, nst - 1, cols, r_lo, g_lo, g_hi - g_lo, out};
    int rc = 0;
    if (g_hi > g_lo) {
        Py_BEGIN_ALLOW_THREADS
        rc = run_blocks(group_block, &J, sizeof(Scratch), scratch_free, (r_hi - r_lo) * (g_hi - g_lo), n_threads);
        Py_END_ALLOW_THREADS
    }
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *py_group_counts(PyObject *self, PyObject *args) { return group_kernel(args, K_COUNTS); }
static PyObject *py_group_darr(PyObject *self, PyObject *args) { return group_kernel(args, K_DARR); }
static PyObject *py_group_pearson(PyObject *self, PyObject *args) { return group_kernel(args, K_PEARSON); }
static PyObject *py_group_spearman(PyObject *self, PyObject *args) { return group_kernel(args, K_SPEARMAN); }
static PyObject *py_group_minclasses(PyObject *self, PyObject *args) { return group_kernel(args, K_MINCLASSES); }

/* ------------------------------------------------------------------------------------------------ */
/* all index pairs (a, b), a < b, within the listed groups; group i's pairs start at offsets[i] */

typedef struct {
    const int64_t *starts, *groups, *offsets;
    int64_t lo;
    int64_t *A, *B, *G;
} PairJob;

static int pair_block(void *ctx, void *scratch, int64_t lo, int64_t hi) {
    PairJob *J = (PairJob *)ctx;
    for (int64_t i = J->lo + lo; i < J->lo + hi; i++) {
        int64_t g = J->groups[i], s = J->starts[g], k = J->starts[g + 1] - s, p = J->offsets[i];
        for (int64_t u = 0; u < k; u++)
            for (int64_t v = u + 1; v < k; v++) {
                J->A[p] = s + u;
                J->B[p] = s + v;
                J->G[p] = g;
                p++;
            }
    }
    return 0;
}

static PyObject *py_enumerate_pairs(PyObject *self, PyObject *args) {
    PyObject *o[6];
    Py_ssize_t lo, hi;
    int n_threads;
    if (!PyArg_ParseTuple(args, "OOOnnOOOi", &o[0], &o[1], &o[2], &lo, &hi, &o[3], &o[4], &o[5], &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t nst, ng, noff, na, nb, ngr;
    const int64_t *st = get_buf(&B, o[0], 8, 0, "starts", &nst);
    const int64_t *groups = st ? get_buf(&B, o[1], 8, 0, "groups", &ng) : NULL;
    const int64_t *off = groups ? get_buf(&B, o[2], 8, 0, "offsets", &noff) : NULL;
    int64_t *A = off ? get_buf(&B, o[3], 8, 1, "A", &na) : NULL;
    int64_t *Bo = A ? get_buf(&B, o[4], 8, 1, "B", &nb) : NULL;
    int64_t *G = Bo ? get_buf(&B, o[5], 8, 1, "Gr", &ngr) : NULL;
    if (!G) {
        bufs_release(&B);
        return NULL;
    }
    int ok = nst >= 1 && noff == ng + 1 && lo >= 0 && hi >= lo && hi <= ng && na == nb && na == ngr;
    for (Py_ssize_t g = 0; ok && g + 1 < nst; g++) ok = st[g + 1] >= st[g];
    for (Py_ssize_t i = 0; ok && i < ng; i++) {
        int64_t g = groups[i];
        ok = g >= 0 && g < nst - 1;
        if (ok) {
            int64_t k = st[g + 1] - st[g];
            ok = off[i] >= 0 && off[i + 1] - off[i] == k * (k - 1) / 2 && off[i + 1] <= na;
        }
    }
    if (!ok) return bad(&B, "enumerate_pairs: inconsistent group starts, groups, offsets or outputs");
    PairJob J = {st, groups, off, lo, A, Bo, G};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(pair_block, &J, 1, NULL, hi - lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* tie calibration: best value and epsilon of each resample (see meta/_kernels.py tie_best) */

typedef struct {
    const int64_t *a, *b, *group, *cell_group;
    const double *delta, *base, *diff;
    const uint8_t *is_run_end;
    int64_t P, n_cells, G, ncols_cw;
    const double *cw, *gw;
    int64_t cw_rows, gw_rows, r_lo;
    double *out_v, *out_e;
} TieJob;

static int tie_block(void *ctx, void *scratch, int64_t lo, int64_t hi) {
    TieJob *J = (TieJob *)ctx;
    Scratch *S = (Scratch *)scratch;
    int64_t G = J->G;
    if (scratch_reserve_groups(S, (size_t)G) != 0) return -1;
    double *tot = S->gtot, *bsum = S->gsum, *coef = S->gcoef;
    for (int64_t r = J->r_lo + lo; r < J->r_lo + hi; r++) {
        const double *cwr = J->cw_rows > 0 ? J->cw + r * J->ncols_cw : NULL;
        const double *gwr = J->gw_rows > 0 ? J->gw + r * G : NULL;
        for (int64_t g = 0; g < G; g++) {
            tot[g] = 0.0;
            bsum[g] = 0.0;
        }
        if (cwr) {
            for (int64_t c = 0; c < J->n_cells; c++) {
                double wc = cwr[c];
                double s = wc * (wc - 1.0) / 2.0;
                tot[J->cell_group[c]] += s;
                bsum[J->cell_group[c]] += s;
            }
        }
        for (int64_t p = 0; p < J->P; p++) {
            double pw = cwr ? cwr[J->a[p]] * cwr[J->b[p]] : 1.0;
            tot[J->group[p]] += pw;
            bsum[J->group[p]] += pw * J->base[p];
        }
        double norm = 0.0;
        for (int64_t g = 0; g < G; g++) {
            if (tot[g] > 0.0) {
                coef[g] = gwr ? gwr[g] : 1.0;
                norm += coef[g];
            } else {
                coef[g] = 0.0;
            }
        }
        if (norm <= 0.0) {
            J->out_v[r] = NAN;
            J->out_e[r] = NAN;
            continue;
        }
        double cst = 0.0;
        for (int64_t g = 0; g < G; g++) {
            if (coef[g] != 0.0) {
                coef[g] = coef[g] / tot[g] / norm;
                cst += coef[g] * bsum[g];
            }
        }
        double best = cst, best_e = 0.0, run = cst;
        for (int64_t p = 0; p < J->P; p++) {
            double pw = cwr ? cwr[J->a[p]] * cwr[J->b[p]] : 1.0;
            run += coef[J->group[p]] * pw * J->delta[p];
            if (J->is_run_end[p]) {
                double ab = fabs(best);
                double m = ab > 1.0 ? ab : 1.0; /* Python's max(1.0, abs(best)) */
                if (run > best + 1e-12 * m) {   /* ties (up to round-off) keep the smaller epsilon */
                    best = run;
                    best_e = J->diff[p];
                }
            }
        }
        J->out_v[r] = best;
        J->out_e[r] = best_e;
    }
    return 0;
}

static PyObject *py_tie_best(PyObject *self, PyObject *args) {
    PyObject *o[12];
    Py_ssize_t G, cw_rows, gw_rows, r_lo, r_hi;
    int n_threads;
    if (!PyArg_ParseTuple(args, "OOOOOOOOnOnOnnnOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &G,
                          &o[8], &cw_rows, &o[9], &gw_rows, &r_lo, &r_hi, &o[10], &o[11], &n_threads))
        return NULL;
    Bufs B = {.n = 0};
    Py_ssize_t n[12];
    const void *p[12];
    static const char *names[] = {"a", "b", "group", "delta", "base", "diff", "is_run_end", "cell_group",
                                  "cw", "gw", "out_v", "out_e"};
    static const Py_ssize_t size[] = {8, 8, 8, 8, 8, 8, 1, 8, 8, 8, 8, 8};
    for (int k = 0; k < 12; k++) {
        p[k] = get_buf(&B, o[k], size[k], k >= 10, names[k], &n[k]);
        if (!p[k]) {
            bufs_release(&B);
            return NULL;
        }
    }
    Py_ssize_t P = n[0], n_cells = n[7];
    Py_ssize_t rows = cw_rows > gw_rows ? cw_rows : gw_rows;
    Py_ssize_t ncols_cw = cw_rows > 0 ? n[8] / cw_rows : 0;
    int ok = G >= 0 && n[1] == P && n[2] == P && n[3] == P && n[4] == P && n[5] == P && n[6] == P &&
             cw_rows >= 0 && gw_rows >= 0 && (cw_rows == 0 || gw_rows == 0 || cw_rows == gw_rows) &&
             (cw_rows == 0 || (n[8] == cw_rows * ncols_cw && ncols_cw >= n_cells)) &&
             (gw_rows == 0 || n[9] == gw_rows * G) && r_lo >= 0 && r_hi >= r_lo && r_hi <= rows &&
             n[10] >= rows && n[11] >= rows;
    if (!ok) return bad(&B, "tie_best: inconsistent shapes");
    /* the index arrays are range-checked by the wrapper (once per call of meta._kernels.tie_best) */
    TieJob J = {p[0], p[1], p[2], p[7], p[3], p[4], p[5], p[6], P, n_cells, G, ncols_cw, p[8], p[9],
                cw_rows, gw_rows, r_lo, (double *)p[10], (double *)p[11]};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_blocks(tie_block, &J, sizeof(Scratch), scratch_free, r_hi - r_lo, n_threads);
    Py_END_ALLOW_THREADS
    bufs_release(&B);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"group_counts", py_group_counts, METH_VARARGS, "Weighted pair classification of groups [g_lo, g_hi)."},
    {"group_darr", py_group_darr, METH_VARARGS, "Weighted DARR concordant/discordant counts of groups [g_lo, g_hi)."},
    {"group_pearson", py_group_pearson, METH_VARARGS, "Weighted Pearson r of groups [g_lo, g_hi)."},
    {"group_spearman", py_group_spearman, METH_VARARGS, "Weighted Spearman rho of groups [g_lo, g_hi)."},
    {"group_minclasses", py_group_minclasses, METH_VARARGS, "Total weight and min #distinct of groups [g_lo, g_hi)."},
    {"enumerate_pairs", py_enumerate_pairs, METH_VARARGS, "Within-group index pairs of listed groups [lo, hi)."},
    {"tie_best", py_tie_best, METH_VARARGS, "Tie-calibration best value and epsilon of resamples [r_lo, r_hi)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cmeta",
                                    "Compiled kernels of the meta-evaluation statistics.", -1, methods};

PyMODINIT_FUNC PyInit__cmeta(void) { return PyModule_Create(&module); }
