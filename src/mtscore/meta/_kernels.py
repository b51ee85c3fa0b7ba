"""Kernels of the meta-evaluation statistics: compiled ahead of time (``mtscore._cmeta``), with their
reference implementations.

Every kernel works on *grouped, weighted* cells: ``x`` (metric), ``y`` (human), ``w`` (non-negative
weights: multiplicities of a resample; 1 for the plain statistic) laid out group by group, with
``starts[g]:starts[g + 1]`` the cells of group ``g``. A cell of weight ``w`` stands for ``w`` copies of
itself, so a weighted statistic equals the plain statistic of the expanded data; the ``w(w - 1) / 2``
pairs among copies of one cell are ties in both scores.

==================  =====================================================================================
kernel              what it computes
==================  =====================================================================================
group_counts        per group: [concordant, discordant, tie human, tie metric, tie both] (direct pair loop
                    up to 48 cells, else O(n log n) with a Fenwick tree)
group_darr          per group: DARR [concordant, discordant] over pairs with abs(delta human) >= thr
group_pearson       per group: weighted Pearson r
group_spearman      per group: weighted Spearman rho (Pearson on average ranks of the expanded data)
group_minclasses    per group: [total weight, min(#distinct x, #distinct y)] (Kendall tau_c)
enumerate_pairs     all within-group index pairs of the listed groups
tie_best            tie calibration: best value and epsilon of each resample (batched)
==================  =====================================================================================

Each public function runs the compiled kernel of ``mtscore._cmeta`` (built by ``pip install`` from
``src/mtscore/_cmeta.c``; GIL released, work split between threads: the ``threads`` argument, else the
process default of :func:`mtscore.text.fast._threads`) when it is built, and otherwise ``<name>_ref``, the
reference implementation, which stays in the code as the oracle the compiled kernels are tested against
(``tests/kernels/test_cmeta.py``, hypothesis; bit-identical results). The compiled kernels are called in chunks of
bounded work, so that Ctrl-C is handled between two chunks. ``MTSCORE_KERNELS=reference`` (documented
override, see :func:`mtscore.text.fast.kernel_backend`) selects the reference path; without the extension (no
C compiler at install time) the reference path runs with one warning line. The references are plain Python
functions (:func:`plain_reference`).
"""
from __future__ import annotations

import numpy as np
from ..text.fast import _threads, kernel_backend, reference_warning

try:
    from .. import _cmeta
except ImportError:  # not built (no C compiler at install time)
    _cmeta = None

_SMALL = 48  # groups up to this size use the direct O(k^2) pair loop


def _fenwick_add(tree, i, v):
    i += 1
    n = tree.shape[0]
    while i < n:
        tree[i] += v
        i += i & (-i)


def _fenwick_prefix(tree, i):
    """Sum of entries 0..i (inclusive); i = -1 gives 0."""
    s = 0.0
    i += 1
    while i > 0:
        s += tree[i]
        i -= i & (-i)
    return s


def _dense_ranks(v, order):
    n = v.shape[0]
    r = np.empty(n, dtype=np.int64)
    k = 0
    for t in range(n):
        if t > 0 and v[order[t]] != v[order[t - 1]]:
            k += 1
        r[order[t]] = k
    return r, k + 1


def _counts_direct(x, y, w, out):
    n = x.shape[0]
    for a in range(n):
        wa = w[a]
        if wa == 0.0:
            continue
        out[4] += wa * (wa - 1.0) / 2.0
        for b in range(a + 1, n):
            wb = w[b]
            if wb == 0.0:
                continue
            ww = wa * wb
            dx = x[a] - x[b]
            dy = y[a] - y[b]
            if dx == 0.0:
                if dy == 0.0:
                    out[4] += ww
                else:
                    out[3] += ww
            elif dy == 0.0:
                out[2] += ww
            elif (dx > 0.0) == (dy > 0.0):
                out[0] += ww
            else:
                out[1] += ww


def _counts_fenwick(x, y, w, out):
    """O(n log n) weighted pair classification (x = metric, y = human)."""
    n = x.shape[0]
    ox = np.argsort(x, kind="mergesort")
    xr, nx = _dense_ranks(x, ox)
    # sorted by y, then by x (stable sort of the x order)
    oy = ox[np.argsort(y[ox], kind="mergesort")]
    W = 0.0
    for i in range(n):
        W += w[i]
    tot = (W * W - W) / 2.0
    # ties in x
    tx = 0.0
    g = 0.0
    for t in range(n):
        if t > 0 and x[ox[t]] != x[ox[t - 1]]:
            tx += g * (g - 1.0) / 2.0
            g = 0.0
        g += w[ox[t]]
    tx += g * (g - 1.0) / 2.0
    # ties in y and in both; discordant pairs via a Fenwick tree over x ranks
    tree = np.zeros(nx + 1)
    inserted = 0.0
    ty = 0.0
    txy = 0.0
    dis = 0.0
    t = 0
    while t < n:
        u = t
        while u < n and y[oy[u]] == y[oy[t]]:
            u += 1
        gy = 0.0
        gxy = 0.0
        for k in range(t, u):
            e = oy[k]
            if k > t and x[e] != x[oy[k - 1]]:
                txy += gxy * (gxy - 1.0) / 2.0
                gxy = 0.0
            gxy += w[e]
            gy += w[e]
            # earlier cells have smaller y; discordant if their x is larger
            dis += w[e] * (inserted - _fenwick_prefix(tree, xr[e]))
        txy += gxy * (gxy - 1.0) / 2.0
        ty += gy * (gy - 1.0) / 2.0
        for k in range(t, u):
            e = oy[k]
            _fenwick_add(tree, xr[e], w[e])
            inserted += w[e]
        t = u
    t_m = tx - txy
    t_h = ty - txy
    con = tot - dis - t_m - t_h - txy
    out[0] += con
    out[1] += dis
    out[2] += t_h
    out[3] += t_m
    out[4] += txy


def group_counts_ref(x, y, w, starts):
    """Per group: [concordant, discordant, tie human only, tie metric only, tie both] (weighted)."""
    G = starts.shape[0] - 1
    out = np.zeros((G, 5))
    for g in range(G):
        a, b = starts[g], starts[g + 1]
        if b - a <= _SMALL:
            _counts_direct(x[a:b], y[a:b], w[a:b], out[g])
        else:
            _counts_fenwick(x[a:b], y[a:b], w[a:b], out[g])
    return out


def _darr_direct(x, y, w, thr, out):
    n = x.shape[0]
    for a in range(n):
        if w[a] == 0.0:
            continue
        for b in range(a + 1, n):
            if w[b] == 0.0:
                continue
            dy = y[a] - y[b]
            if abs(dy) >= thr:
                ww = w[a] * w[b]
                if (dy > 0.0 and x[a] > x[b]) or (dy < 0.0 and x[a] < x[b]):
                    out[0] += ww
                else:
                    out[1] += ww


def _darr_fenwick(x, y, w, thr, out):
    n = x.shape[0]
    ox = np.argsort(x, kind="mergesort")
    xr, nx = _dense_ranks(x, ox)
    oy = np.argsort(y, kind="mergesort")
    tree = np.zeros(nx + 1)
    inserted = 0.0
    p = 0
    con = 0.0
    tot = 0.0
    for k in range(n):
        e = oy[k]
        while p < n and y[oy[p]] <= y[e] - thr:
            _fenwick_add(tree, xr[oy[p]], w[oy[p]])
            inserted += w[oy[p]]
            p += 1
        con += w[e] * _fenwick_prefix(tree, xr[e] - 1)
        tot += w[e] * inserted
    out[0] += con
    out[1] += tot - con


def group_darr_ref(x, y, w, starts, thr):
    """Per group: [concordant, discordant] over pairs with |y_a - y_b| >= thr (> 0); metric ties discordant."""
    G = starts.shape[0] - 1
    out = np.zeros((G, 2))
    for g in range(G):
        a, b = starts[g], starts[g + 1]
        if b - a <= _SMALL:
            _darr_direct(x[a:b], y[a:b], w[a:b], thr, out[g])
        else:
            _darr_fenwick(x[a:b], y[a:b], w[a:b], thr, out[g])
    return out


def _wconstant(v, w):
    """All values of positive weight are equal."""
    first = None
    for i in range(v.shape[0]):
        if w[i] > 0.0:
            if first is None:
                first = v[i]
            elif v[i] != first:
                return False
    return True


def _wpearson(x, y, w):
    W = 0.0
    mx = 0.0
    my = 0.0
    for i in range(x.shape[0]):
        W += w[i]
        mx += w[i] * x[i]
        my += w[i] * y[i]
    if W <= 1.0:
        return np.nan
    if _wconstant(x, w) or _wconstant(y, w):
        return np.nan  # a constant vector: undefined, as in scipy and mt-metrics-eval
    mx /= W
    my /= W
    sxy = 0.0
    sxx = 0.0
    syy = 0.0
    for i in range(x.shape[0]):
        dx = x[i] - mx
        dy = y[i] - my
        sxy += w[i] * dx * dy
        sxx += w[i] * dx * dx
        syy += w[i] * dy * dy
    if sxx <= 0.0 or syy <= 0.0:
        return np.nan
    r = sxy / np.sqrt(sxx * syy)
    return min(1.0, max(-1.0, r))


def _wranks(v, w):
    """Average ranks (1-based) of the expanded data, for each cell."""
    n = v.shape[0]
    o = np.argsort(v, kind="mergesort")
    r = np.empty(n)
    before = 0.0
    t = 0
    while t < n:
        u = t
        g = 0.0
        while u < n and v[o[u]] == v[o[t]]:
            g += w[o[u]]
            u += 1
        avg = before + (g + 1.0) / 2.0
        for k in range(t, u):
            r[o[k]] = avg
        before += g
        t = u
    return r


def group_pearson_ref(x, y, w, starts):
    G = starts.shape[0] - 1
    out = np.empty(G)
    for g in range(G):
        a, b = starts[g], starts[g + 1]
        out[g] = _wpearson(x[a:b], y[a:b], w[a:b])
    return out


def group_spearman_ref(x, y, w, starts):
    G = starts.shape[0] - 1
    out = np.empty(G)
    for g in range(G):
        a, b = starts[g], starts[g + 1]
        ww = w[a:b]
        out[g] = _wpearson(_wranks(x[a:b], ww), _wranks(y[a:b], ww), ww)
    return out


def _n_distinct(v, w):
    o = np.argsort(v)
    k = 0
    last = np.nan
    first = True
    for t in range(v.shape[0]):
        e = o[t]
        if w[e] == 0.0:
            continue
        if first or v[e] != last:
            k += 1
            first = False
            last = v[e]
    return k


def group_minclasses_ref(x, y, w, starts):
    """Per group: [total weight n, min(#distinct x, #distinct y)] (for tau_c)."""
    G = starts.shape[0] - 1
    out = np.zeros((G, 2))
    for g in range(G):
        a, b = starts[g], starts[g + 1]
        s = 0.0
        for i in range(a, b):
            s += w[i]
        out[g, 0] = s
        out[g, 1] = min(_n_distinct(x[a:b], w[a:b]), _n_distinct(y[a:b], w[a:b]))
    return out


def enumerate_pairs_ref(starts, groups):
    """All index pairs (a, b), a < b, within each listed group. Returns (a, b, group)."""
    total = 0
    for g in groups:
        k = starts[g + 1] - starts[g]
        total += k * (k - 1) // 2
    A = np.empty(total, dtype=np.int64)
    B = np.empty(total, dtype=np.int64)
    Gr = np.empty(total, dtype=np.int64)
    p = 0
    for g in groups:
        s = starts[g]
        k = starts[g + 1] - s
        for i in range(k):
            for j in range(i + 1, k):
                A[p] = s + i
                B[p] = s + j
                Gr[p] = g
                p += 1
    return A, B, Gr


def tie_best_ref(a, b, group, delta, base, diff, is_run_end, cell_group, n_groups, cw, gw):
    """Best tie-calibrated value and epsilon for each resample (rows of ``cw`` [B, cells] or ``gw`` [B, G]).

    Pairs are sorted by ``diff``; ``base`` is each pair's value at epsilon 0 and ``delta`` the change when the
    pair becomes a metric tie. A row of ``cw`` gives pair weights w_a * w_b and self pairs w (w - 1) / 2
    (ties in both, value 1); a row of ``gw`` weights the groups' values in the mean. An empty ``cw`` / ``gw``
    (shape [0, .]) means all ones. Ties between epsilons go to the smallest.
    """
    P = a.shape[0]
    B = max(cw.shape[0], gw.shape[0])
    out_v = np.empty(B)
    out_e = np.empty(B)
    tot = np.empty(n_groups)
    bsum = np.empty(n_groups)
    coef = np.empty(n_groups)
    for r in range(B):
        for g in range(n_groups):
            tot[g] = 0.0
            bsum[g] = 0.0
        if cw.shape[0] > 0:
            for c in range(cell_group.shape[0]):
                wc = cw[r, c]
                s = wc * (wc - 1.0) / 2.0
                tot[cell_group[c]] += s
                bsum[cell_group[c]] += s
        for p in range(P):
            pw = cw[r, a[p]] * cw[r, b[p]] if cw.shape[0] > 0 else 1.0
            tot[group[p]] += pw
            bsum[group[p]] += pw * base[p]
        norm = 0.0
        for g in range(n_groups):
            if tot[g] > 0.0:
                coef[g] = gw[r, g] if gw.shape[0] > 0 else 1.0
                norm += coef[g]
            else:
                coef[g] = 0.0
        if norm <= 0.0:
            out_v[r] = np.nan
            out_e[r] = np.nan
            continue
        const = 0.0
        for g in range(n_groups):
            if coef[g] != 0.0:
                coef[g] = coef[g] / tot[g] / norm
                const += coef[g] * bsum[g]
        best = const
        best_e = 0.0
        run = const
        for p in range(P):
            pw = cw[r, a[p]] * cw[r, b[p]] if cw.shape[0] > 0 else 1.0
            run += coef[group[p]] * pw * delta[p]
            if is_run_end[p] and run > best + 1e-12 * max(1.0, abs(best)):  # ties (up to round-off) keep the smaller epsilon
                best = run
                best_e = diff[p]
        out_v[r] = best
        out_e[r] = best_e
    return out_v, out_e


# ------------------------------------------------------------------------------------------------
# dispatch: compiled kernels (mtscore._cmeta) or the references above

CHUNK_COST = 2_000_000  # ~pair operations per call and thread (a few ms): Ctrl-C is handled between calls
_PER_THREAD = 200_000  # work (same unit) below which another thread does not pay


def compiled() -> bool:
    """True when the compiled meta kernels run (``mtscore._cmeta`` is built and not overridden)."""
    if _cmeta is None:
        reference_warning()
        return False
    return kernel_backend() == "c"


def plain_reference(name: str):
    """The reference kernel ``name`` (e.g. ``"group_counts"``): the plain Python function ``<name>_ref``, the
    oracle of the tests."""
    return globals()[f"{name}_ref"]


def _f64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def _bounds(cost: np.ndarray, budget: float) -> list[int]:
    """Chunk boundaries over items with the given costs: each chunk holds about ``budget`` (at least one item);
    the chunking of the other compiled kernels (:func:`mtscore.ckernels._bounds`) with no item cap."""
    from ..ckernels import _bounds as bounds
    return bounds(cost, budget, max(1, len(cost)))


def _group_call(kind: str, x, y, w, starts, cols: int, threads, *extra):
    """Run group kernel ``kind`` on weights ``w`` [cells] or [rows, cells]: out [G(, cols)] or [rows, G(, cols)]."""
    x, y, starts, w = _f64(x), _f64(y), _i64(starts), _f64(w)
    W = w[None] if w.ndim == 1 else w
    if W.ndim != 2 or W.shape[1] != len(x):
        raise ValueError(f"{kind}: weights must be one per cell, or rows of them; got shape {w.shape} for {len(x)} cells")
    if not compiled():
        ref = globals()[f"{kind}_ref"]
        if w.ndim == 1:
            return ref(x, y, w, starts, *extra)
        if W.shape[0] == 0:
            empty = np.zeros((0, len(starts) - 1, cols))
            return empty[..., 0] if cols == 1 else empty
        return np.stack([ref(x, y, W[r], starts, *extra) for r in range(W.shape[0])])
    rows, G, n = W.shape[0], len(starts) - 1, len(x)
    out = np.zeros((rows, G, cols))
    fn = getattr(_cmeta, kind)
    if rows * (n * 64 + G) <= CHUNK_COST:  # small: one call, one thread
        if threads is not None:
            _threads(threads, 1)  # validates an explicit thread count
        fn(x, y, W, starts, *extra, rows, 0, rows, 0, G, out, 1)
    else:
        sizes = np.diff(starts)
        cost = sizes * np.minimum(sizes, 64) + 1  # direct loop: k^2, Fenwick: ~k log k (both bounded by 64 k)
        row_cost = float(cost.sum())
        n_threads = _threads(threads, int(row_cost * rows), per_thread=_PER_THREAD)
        if rows == 1:  # chunks of groups, split between the threads
            b = _bounds(cost, CHUNK_COST * n_threads)
            for lo, hi in zip(b[:-1], b[1:]):
                fn(x, y, W, starts, *extra, 1, 0, 1, lo, hi, out, n_threads)
        else:  # chunks of resamples (every group of each): (row, group) units split between the threads
            step = max(n_threads, int(CHUNK_COST * n_threads // max(row_cost, 1.0)))
            for lo in range(0, rows, step):
                fn(x, y, W, starts, *extra, rows, lo, min(rows, lo + step), 0, G, out, n_threads)
    if cols == 1:
        out = out[..., 0]
    return out[0] if w.ndim == 1 else out


def group_counts(x, y, w, starts, threads: int | None = None) -> np.ndarray:
    """Per group: [concordant, discordant, tie human only, tie metric only, tie both] (weighted), [G, 5];
    with weights [rows, cells] (one row per resample): [rows, G, 5]."""
    return _group_call("group_counts", x, y, w, starts, 5, threads)


def group_darr(x, y, w, starts, thr, threads: int | None = None) -> np.ndarray:
    """Per group: [concordant, discordant] over pairs with abs(y_a - y_b) >= thr (> 0); metric ties discordant;
    [G, 2] (weights [rows, cells]: [rows, G, 2])."""
    return _group_call("group_darr", x, y, w, starts, 2, threads, float(thr))


def group_pearson(x, y, w, starts, threads: int | None = None) -> np.ndarray:
    """Per group: weighted Pearson r (NaN when undefined), [G] (weights [rows, cells]: [rows, G])."""
    return _group_call("group_pearson", x, y, w, starts, 1, threads)


def group_spearman(x, y, w, starts, threads: int | None = None) -> np.ndarray:
    """Per group: weighted Spearman rho (NaN when undefined), [G] (weights [rows, cells]: [rows, G])."""
    return _group_call("group_spearman", x, y, w, starts, 1, threads)


def group_minclasses(x, y, w, starts, threads: int | None = None) -> np.ndarray:
    """Per group: [total weight n, min(#distinct x, #distinct y)] (for tau_c), [G, 2] (weights [rows, cells]:
    [rows, G, 2])."""
    return _group_call("group_minclasses", x, y, w, starts, 2, threads)


def enumerate_pairs(starts, groups, threads: int | None = None):
    """All index pairs (a, b), a < b, within each listed group. Returns (a, b, group), int64."""
    if not compiled():
        return enumerate_pairs_ref(starts, groups)
    starts, groups = _i64(starts), _i64(groups)
    if len(groups) and (groups.min() < 0 or groups.max() >= len(starts) - 1):
        raise ValueError("enumerate_pairs: a group index is out of range")
    k = starts[groups + 1] - starts[groups]
    cnt = k * (k - 1) // 2
    off = np.zeros(len(groups) + 1, dtype=np.int64)
    np.cumsum(cnt, out=off[1:])
    total = int(off[-1])
    A, B, Gr = (np.empty(total, dtype=np.int64) for _ in range(3))
    n_threads = _threads(threads, total, per_thread=4 * _PER_THREAD)
    b = _bounds(cnt + 1, 4 * CHUNK_COST * n_threads)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmeta.enumerate_pairs(starts, groups, off, lo, hi, A, B, Gr, n_threads)
    return A, B, Gr


def _in_range(name, v, hi):
    if len(v) and (v.min() < 0 or v.max() >= hi):
        raise ValueError(f"tie_best: {name} holds an index outside [0, {hi})")


def tie_best(a, b, group, delta, base, diff, is_run_end, cell_group, n_groups, cw, gw, threads: int | None = None):
    """Best tie-calibrated value and epsilon for each resample (rows of ``cw`` [B, cells] or ``gw`` [B, G]);
    see :func:`tie_best_ref`. Returns (values [B], epsilons [B])."""
    if not compiled():
        return tie_best_ref(a, b, group, delta, base, diff, is_run_end, cell_group, n_groups, cw, gw)
    a, b, group, cell_group = _i64(a), _i64(b), _i64(group), _i64(cell_group)
    delta, base, diff = _f64(delta), _f64(base), _f64(diff)
    is_run_end = np.ascontiguousarray(is_run_end, dtype=np.bool_)
    cw, gw = _f64(cw), _f64(gw)
    G = int(n_groups)
    if cw.ndim != 2 or gw.ndim != 2:
        raise ValueError("tie_best: cw and gw must be matrices")
    _in_range("group", group, G)
    if cw.shape[0]:
        _in_range("a", a, cw.shape[1])
        _in_range("b", b, cw.shape[1])
        _in_range("cell_group", cell_group, G)
    rows = max(cw.shape[0], gw.shape[0])
    out_v, out_e = np.empty(rows), np.empty(rows)
    per_row = 2 * len(a) + len(cell_group) + G + 1
    n_threads = _threads(threads, rows * per_row, per_thread=_PER_THREAD)
    step = max(n_threads, (CHUNK_COST * n_threads) // per_row)  # a row is one unit: every thread gets one
    for lo in range(0, rows, step):
        _cmeta.tie_best(a, b, group, delta, base, diff, is_run_end, cell_group, G, cw, cw.shape[0], gw, gw.shape[0],
                        lo, min(rows, lo + step), out_v, out_e, n_threads)
    return out_v, out_e
