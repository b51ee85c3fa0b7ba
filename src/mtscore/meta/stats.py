"""Correlation statistics between metric and human scores (docs/definitions.md §9).

Conventions: ``metric`` (x) and ``human`` (y) are parallel vectors; higher = better for both (negate a
lower-is-better metric first). Pairs are classified as C (concordant), D (discordant), T_h (tie in the
human scores only), T_m (tie in the metric only), T_hm (tie in both).

Vector statistics (all O(n log n) or vectorized):

* :func:`pearson`, :func:`spearman` (Pearson on average ranks);
* :func:`kendall` with ``variant`` ``b`` (= scipy), ``c`` (= scipy), ``eq`` (tau_eq, "23" of
  Deutsch et al. 2023), ``acc_eq`` (pairwise accuracy with ties, "acc23"), ``wmt10`` (human ties dropped,
  metric ties discordant), ``darr`` (WMT17-20 DARR: only pairs with abs(delta human) >= ``thresh``,
  metric ties discordant);
* :func:`pairwise_accuracy` (system level, Kocmi et al. 2021: sign agreement, 0 == 0 agrees);
* :func:`tie_calibration` (epsilon search maximising acc_eq or tau_eq, as mt-metrics-eval's
  ``tau_optimization``; vectorized over sorted pairs).

Grouped statistics (segment level ``avg_by`` none / item / sys) and weighted variants (resampling
multiplicities) are built on :class:`Grouped`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameterError
from ..params import DEFAULT_SEED, OPTIONS
from ..significance._resample import Draws
from . import _kernels as K

KENDALL_VARIANTS = ("b", "c", "eq", "acc_eq", "wmt10", "darr")
TIE_VARIANTS = ("acc_eq", "eq")
AVG_BY = ("none", "item", "sys")


@dataclass(frozen=True)
class PairCounts:
    """Pair classification of (metric, human): weighted counts (integers for unweighted input)."""

    con: float
    dis: float
    ties_human: float
    ties_metric: float
    ties_both: float

    @property
    def total(self) -> float:
        return self.con + self.dis + self.ties_human + self.ties_metric + self.ties_both

    def as_array(self) -> np.ndarray:
        return np.array([self.con, self.dis, self.ties_human, self.ties_metric, self.ties_both])


def _vec(name, v) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64)
    if a.ndim != 1:
        raise InvalidParameterError(f"{name}: expected a 1-D vector of scores, got shape {a.shape}")
    if np.isnan(a).any():
        raise InvalidParameterError(f"{name}: contains NaN (drop unrated segments before correlating)")
    return a


def _pair(metric, human, weights=None):
    x, y = _vec("metric", metric), _vec("human", human)
    if x.shape != y.shape:
        raise InvalidParameterError(f"metric and human scores differ in length: {x.shape[0]} vs {y.shape[0]}")
    w = np.ones_like(x) if weights is None else _vec("weights", weights)
    if w.shape != x.shape or (w < 0).any():
        raise InvalidParameterError("weights: must be non-negative, one per score")
    return x, y, w


def _one(n):
    return np.array([0, n], dtype=np.int64)


def kernel_threads(threads: int | None):
    """The block's compiled kernels use ``threads`` threads (checked by the parameter table's ``threads``
    entry). ``None`` changes nothing: the count of an enclosing block (``--threads``, an outer ``threads=``)
    if any, else ``$MTSCORE_THREADS`` if set, else the process default. The numbers do not depend on it."""
    from .._threadparam import threads_block
    return threads_block(threads)


def pearson(metric, human, weights=None, *, threads: int | None = None) -> float:
    x, y, w = _pair(metric, human, weights)
    with kernel_threads(threads):
        return float(K.group_pearson(x, y, w, _one(len(x)))[0])


def spearman(metric, human, weights=None, *, threads: int | None = None) -> float:
    x, y, w = _pair(metric, human, weights)
    with kernel_threads(threads):
        return float(K.group_spearman(x, y, w, _one(len(x)))[0])


def pair_counts(metric, human, weights=None, *, threads: int | None = None) -> PairCounts:
    x, y, w = _pair(metric, human, weights)
    with kernel_threads(threads):
        return PairCounts(*K.group_counts(x, y, w, _one(len(x)))[0])


def kendall_from_counts(counts, variant: str = "b", n=None, minclasses=None) -> np.ndarray:
    """Kendall variant from pair counts ``[..., 5]`` (C, D, T_h, T_m, T_hm); vectorized.

    ``c`` needs ``n`` (number of scores) and ``minclasses`` (min of the numbers of distinct values).
    Undefined values (no usable pair, a constant vector for b/c) are NaN.
    """
    c = np.asarray(counts.as_array() if isinstance(counts, PairCounts) else counts, dtype=np.float64)
    C, D, Th, Tm, Thm = (c[..., i] for i in range(5))
    tot = C + D + Th + Tm + Thm
    with np.errstate(divide="ignore", invalid="ignore"):
        if variant == "b":
            den = np.sqrt(tot - Tm - Thm) * np.sqrt(tot - Th - Thm)
            return np.where(den > 0, (C - D) / np.where(den > 0, den, 1), np.nan)
        if variant == "c":
            n = np.asarray(n, dtype=np.float64)
            m = np.asarray(minclasses, dtype=np.float64)
            ok = (m > 1) & (n > 0)
            den = np.where(ok, n * n * (m - 1) / np.where(ok, m, 1), 1)
            return np.where(ok, 2 * (C - D) / den, np.nan)
        if variant == "eq":
            return np.where(tot > 0, (C + Thm - D - Th - Tm) / tot, np.nan)
        if variant == "acc_eq":
            return np.where(tot > 0, (C + Thm) / tot, np.nan)
        if variant == "wmt10":
            den = C + D + Tm
            return np.where(den > 0, (C - D - Tm) / den, np.nan)
    raise InvalidParameterError.choice("variant", variant, [v for v in KENDALL_VARIANTS if v != "darr"])


def kendall(metric, human, variant: str = "b", thresh: float = 25.0, weights=None, *,
            threads: int | None = None) -> float:
    """Kendall's tau variant (see module doc). ``thresh`` is the DARR human-difference threshold.
    ``threads``: threads of the compiled kernels (see :func:`kernel_threads`)."""
    if variant not in KENDALL_VARIANTS:
        raise InvalidParameterError.choice("variant", variant, KENDALL_VARIANTS)
    with kernel_threads(threads):
        return _kendall(metric, human, variant, thresh, weights)


def _kendall(metric, human, variant, thresh, weights) -> float:
    x, y, w = _pair(metric, human, weights)
    st = _one(len(x))
    if variant == "darr":
        thresh = OPTIONS["thresh"].check(thresh)  # the parameter table's rule (0 < x <= 10^12)
        con, dis = K.group_darr(x, y, w, st, float(thresh))[0]
        return float((con - dis) / (con + dis)) if con + dis > 0 else float("nan")
    counts = K.group_counts(x, y, w, st)[0]
    if variant == "c":
        n, m = K.group_minclasses(x, y, w, st)[0]
        return float(kendall_from_counts(counts, "c", n, m))
    return float(kendall_from_counts(counts, variant))


def pairwise_accuracy(metric, human, weights=None, *, threads: int | None = None) -> float:
    """Fraction of pairs with sign(delta metric) == sign(delta human) (ties in both agree) = acc_eq."""
    return kendall(metric, human, "acc_eq", weights=weights, threads=threads)


@dataclass(frozen=True)
class TieCalibration:
    """Result of the epsilon search: best value, its epsilon, and the whole curve."""

    value: float
    epsilon: float
    thresholds: np.ndarray
    values: np.ndarray
    sampled: bool = False


def tie_calibration(metric, human, variant: str = "acc_eq", groups=None, max_pairs: int | None = None,
                    seed=DEFAULT_SEED, *, threads: int | None = None) -> TieCalibration:
    """Treat metric pairs with abs(delta) <= epsilon as ties; choose epsilon in {0} U {abs deltas} maximising
    the (group-averaged) ``variant`` (acc_eq or eq). ``groups``: optional group label per score (the value
    is the mean over groups with at least one pair, one epsilon for all, as mt-metrics-eval's
    ``avg_by="item"``). Ties in epsilon resolve to the smallest epsilon. ``seed`` (default 12345,
    ``params.DEFAULT_SEED``) seeds the pair sample drawn when there are more than ``max_pairs`` pairs.
    ``threads``: threads of the compiled kernels (see :func:`kernel_threads`).
    """
    with kernel_threads(threads):
        return _tie_calibration(metric, human, variant, groups, max_pairs, seed)


def _tie_calibration(metric, human, variant, groups, max_pairs, seed) -> TieCalibration:
    x, y, _ = _pair(metric, human)
    if groups is None:
        order = np.arange(len(x))
        starts = _one(len(x))
    else:
        g = np.asarray(groups)
        if g.shape != x.shape:
            raise InvalidParameterError("groups: one label per score is required")
        order = np.argsort(g, kind="stable")
        _, cnt = np.unique(g[order], return_counts=True)
        starts = np.r_[0, np.cumsum(cnt)].astype(np.int64)
    gr = Grouped(x[order], y[order], starts)
    pairs = gr.pairs(max_pairs, seed)
    curve_t, curve_v = pairs.curve(variant)
    # ties up to round-off keep the smaller epsilon (the curve is a running sum: equal values can differ
    # in the last bit), as in the batch kernel
    top = np.nanmax(curve_v) if not np.all(np.isnan(curve_v)) else np.nan
    i = 0 if np.isnan(top) else int(np.flatnonzero(curve_v >= top - 1e-12 * max(1.0, abs(top)))[0])
    return TieCalibration(float(curve_v[i]), float(curve_t[i]), curve_t, curve_v, pairs.sampled)


# ------------------------------------------------------------------------------------------------
# grouped, weighted machinery

MACRO_STATS = ("pearson", "spearman", "kendall", "tau_c", "tau_eq", "acc_eq")
MICRO_STATS = ("wmt10", "darr")
POOLED_STATS = ("pdp",)  # per-group sums pooled over groups (not a mean of group values)
TIE_STATS = ("acc_eq*", "tau_eq*")
STATISTICS = MACRO_STATS + MICRO_STATS + POOLED_STATS + TIE_STATS


@dataclass
class Grouped:
    """Cells laid out group by group (``starts``), metric ``x``, human ``y``."""

    x: np.ndarray
    y: np.ndarray
    starts: np.ndarray

    @property
    def n_groups(self) -> int:
        return len(self.starts) - 1

    def group_of_cell(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_groups), np.diff(self.starts))

    def values(self, stat: str, w=None, thresh: float = 25.0, threads: int | None = None) -> np.ndarray:
        """Per-group values (macro statistics, NaN = undefined) or counts (micro: [G, 2] num/den).

        ``w``: cell weights [cells], or [B, cells] for B resamples at once (then a leading axis B; the
        compiled kernels split the (resample, group) units between threads)."""
        w = np.ones_like(self.x) if w is None else np.ascontiguousarray(w, dtype=np.float64)
        x, y, st = self.x, self.y, self.starts
        if stat == "pearson":
            return K.group_pearson(x, y, w, st, threads=threads)
        if stat == "spearman":
            return K.group_spearman(x, y, w, st, threads=threads)
        if stat == "pdp":
            return pdp_sums(x, y, w, st)
        if stat == "darr":
            cd = K.group_darr(x, y, w, st, float(thresh), threads=threads)
            return np.stack([cd[..., 0] - cd[..., 1], cd[..., 0] + cd[..., 1]], axis=-1)
        counts = K.group_counts(x, y, w, st, threads=threads)
        if stat == "wmt10":
            C, D, Tm = counts[..., 0], counts[..., 1], counts[..., 3]
            return np.stack([C - D - Tm, C + D + Tm], axis=-1)
        if stat == "kendall":
            return kendall_from_counts(counts, "b")
        if stat == "tau_c":
            nm = K.group_minclasses(x, y, w, st, threads=threads)
            return kendall_from_counts(counts, "c", nm[..., 0], nm[..., 1])
        if stat == "tau_eq":
            return kendall_from_counts(counts, "eq")
        if stat == "acc_eq":
            return kendall_from_counts(counts, "acc_eq")
        raise InvalidParameterError.choice("statistic", stat, STATISTICS)

    def pairs(self, max_pairs: int | None = None, seed=DEFAULT_SEED, sample_rate: float | None = None) -> "Pairs":
        return Pairs.build(self, max_pairs, seed, sample_rate)

    def average(self, stat: str, nan_as_zero: bool = False, macro: bool = True, pvalues: bool = True,
                thresh: float = 25.0) -> tuple[float, float, float]:
        """(value, p-value, n) of a macro statistic averaged over the groups, as mt-metrics-eval's
        ``AverageCorrelation``: groups with fewer than 2 cells are left out; an undefined group value (NaN) is
        dropped, or counts as 0 with ``nan_as_zero`` (its p-value then counts as 0 too, as there); ``macro``
        False weighs each group by its number of cells (mt-metrics-eval ``macro=False``). The p-value is the
        same weighted mean of the groups' p-values (:func:`pvalue`; NaN when a defined group's p-value is NaN,
        e.g. Spearman on 2 cells). ``n`` = the weight of the average (groups, or cells when not ``macro``);
        no group: (NaN, NaN, 0)."""
        vals = self.values(stat, thresh=thresh)
        if vals.ndim != 1:
            raise InvalidParameterError(f"statistic {stat}: pair counts are pooled, not averaged over groups")
        sizes = np.diff(self.starts)
        pv = self.pvalues(stat) if pvalues and stat in PVALUE_STATS else np.full(len(vals), np.nan)
        return average_groups(vals, pv, sizes, nan_as_zero, macro)

    def pvalues(self, stat: str) -> np.ndarray:
        """Per-group two-sided p-values of ``stat`` (scipy's tests; NaN where the statistic is undefined)."""
        out = np.full(self.n_groups, np.nan)
        for g in range(self.n_groups):
            b, e = self.starts[g], self.starts[g + 1]
            out[g] = pvalue(stat, self.x[b:e], self.y[b:e])
        return out


def aggregate(stat: str, vals: np.ndarray, group_weights=None, nan_as_zero: bool = False, sizes=None) -> np.ndarray:
    """Combine per-group values: macro = weighted mean over defined groups; micro = sum(num)/sum(den).

    ``group_weights`` ``[..., G]`` (e.g. bootstrap multiplicities of items) broadcast over leading axes.
    ``nan_as_zero``: undefined group values (a constant vector ...) count as 0 in the mean instead of being
    dropped (mt-metrics-eval ``replace_nans_with_zeros``); groups with fewer than 2 cells (``sizes``) are still
    left out, as there.
    """
    G = vals.shape[0]
    gw = np.ones(G) if group_weights is None else np.asarray(group_weights, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if stat in MICRO_STATS:
            num = gw @ vals[:, 0]
            den = gw @ vals[:, 1]
            return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        if stat in POOLED_STATS:
            return pdp_from_sums(vals, gw)
        ok = ~np.isnan(vals)
        if nan_as_zero:
            ok = np.ones(vals.shape, dtype=bool) if sizes is None else (np.asarray(sizes) >= 2)
        v = np.where(np.isnan(vals), 0.0, vals)
        den = gw @ ok.astype(np.float64)
        return np.where(den > 0, (gw @ v) / np.where(den > 0, den, 1), np.nan)


def average_groups(vals, pvals, sizes, nan_as_zero: bool = False, macro: bool = True) -> tuple[float, float, float]:
    """Weighted mean of per-group values and p-values (see :meth:`Grouped.average`)."""
    vals = np.asarray(vals, dtype=np.float64)
    pvals = np.asarray(pvals, dtype=np.float64)
    sizes = np.asarray(sizes)
    k = np.ones(len(vals)) if macro else sizes.astype(np.float64)
    usable = sizes >= 2
    defined = usable & ~np.isnan(vals)
    n = float(k[defined].sum() + (k[usable & np.isnan(vals)].sum() if nan_as_zero else 0.0))
    if n <= 0:
        return float("nan"), float("nan"), 0.0
    return float((k[defined] * vals[defined]).sum() / n), float((k[defined] * pvals[defined]).sum() / n), n


_ENUMERATE_LIMIT = 20_000_000


def _draw_pairs(gr, sizes, take, draws: Draws):
    """``take[g]`` uniform within-group pairs (with replacement) of each group g."""
    g = np.repeat(np.arange(gr.n_groups), take)
    i, j = draws.distinct_pairs(sizes[g])
    return gr.starts[g] + np.minimum(i, j), gr.starts[g] + np.maximum(i, j), g


# ------------------------------------------------------------------------------------------------
# Pairwise Difference Pearson (PDP)

def pdp_sums(x, y, w, starts) -> np.ndarray:
    """Per group: [W Sxy, W Sxx, W Syy] with W the group's weight (number of cells) and S.. its centred
    (weighted) sums; constant groups (every value of positive weight equal) contribute 0 exactly. ``w``: [cells]
    or [B, cells] -> [G, 3] or [B, G, 3].

    Sum over the ordered pairs (i, j) of a group of (x_j - x_i)(y_j - y_i) = 2 W Sxy, so these are (half) the
    pooled sums of products of the within-group pairwise differences, whose mean is 0."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    st = np.asarray(starts, dtype=np.int64)
    G = len(st) - 1
    batched = w.ndim == 2
    W2 = np.atleast_2d(w)
    B = W2.shape[0]
    out = np.zeros((B, G, 3))
    sizes = np.diff(st)
    nonempty = np.flatnonzero(sizes > 0)
    if len(nonempty):
        idx = st[:-1][nonempty]
        cell_group = np.repeat(np.arange(G), sizes)
        Wg = np.add.reduceat(W2, idx, axis=1)  # [B, G']
        with np.errstate(invalid="ignore", divide="ignore"):
            mx = np.add.reduceat(W2 * x, idx, axis=1) / Wg
            my = np.add.reduceat(W2 * y, idx, axis=1) / Wg
        pos = {g: k for k, g in enumerate(nonempty)}
        col = np.array([pos[g] for g in cell_group]) if len(cell_group) else np.zeros(0, dtype=np.int64)
        dx = x - np.nan_to_num(mx)[:, col]
        dy = y - np.nan_to_num(my)[:, col]
        sxy = np.add.reduceat(W2 * dx * dy, idx, axis=1)
        sxx = np.add.reduceat(W2 * dx * dx, idx, axis=1)
        syy = np.add.reduceat(W2 * dy * dy, idx, axis=1)
        # exact constancy among cells of positive weight (the centred sums of equal values are round-off)
        live = W2 > 0
        xmax = np.maximum.reduceat(np.where(live, x, -np.inf), idx, axis=1)
        xmin = np.minimum.reduceat(np.where(live, x, np.inf), idx, axis=1)
        ymax = np.maximum.reduceat(np.where(live, y, -np.inf), idx, axis=1)
        ymin = np.minimum.reduceat(np.where(live, y, np.inf), idx, axis=1)
        xc = ~(xmax > xmin)
        yc = ~(ymax > ymin)
        sxx = np.where(xc, 0.0, sxx)
        syy = np.where(yc, 0.0, syy)
        sxy = np.where(xc | yc, 0.0, sxy)
        Wg = np.where(Wg > 0, Wg, 0.0)
        out[:, nonempty, 0] = Wg * sxy
        out[:, nonempty, 1] = Wg * sxx
        out[:, nonempty, 2] = Wg * syy
    return out if batched else out[0]


def pdp_from_sums(sums, group_weights=None) -> np.ndarray:
    """PDP from :func:`pdp_sums` ``[..., G, 3]`` (``group_weights`` [..., G]: resampled groups count that many
    times); NaN when the pooled metric or human differences are all 0."""
    v = np.asarray(sums, dtype=np.float64)
    if group_weights is None:
        t = v.sum(axis=-2)
    else:
        gw = np.asarray(group_weights, dtype=np.float64)
        t = np.einsum("...g,...gk->...k", gw, v) if v.ndim > 2 or gw.ndim == 1 else np.einsum("bg,gk->bk", gw, v)
    num, a, b = t[..., 0], t[..., 1], t[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where((a > 0) & (b > 0), num / np.sqrt(np.where(a > 0, a, 1) * np.where(b > 0, b, 1)), np.nan)
    return np.clip(r, -1.0, 1.0)


def pdp(metric, human, groups=None, weights=None) -> float:
    """Pairwise Difference Pearson (mt-metrics-eval ``Pearson(pdp=True)``, WMT25): Pearson's r between the metric's
    and the humans' score differences over every ordered pair of cells within a group (``groups``: a label per
    cell; None = one group, where PDP equals Pearson), pooled over the groups: sum_g W_g Sxy_g /
    sqrt(sum_g W_g Sxx_g * sum_g W_g Syy_g). At segment level the groups are items (pairs of systems on the same
    segment). ``weights``: multiplicities of the cells."""
    x, y, w = _pair(metric, human, weights)
    if groups is None:
        starts = _one(len(x))
        order = np.arange(len(x))
    else:
        g = np.asarray(groups)
        if g.shape != x.shape:
            raise InvalidParameterError("groups: one label per score is required")
        order = np.argsort(g, kind="stable")
        _, cnt = np.unique(g[order], return_counts=True)
        starts = np.r_[0, np.cumsum(cnt)].astype(np.int64)
    return float(pdp_from_sums(pdp_sums(x[order], y[order], w[order], starts)))


# ------------------------------------------------------------------------------------------------
# Kendall variants at a fixed epsilon (metric differences abs <= epsilon are ties)

def pair_classes(dx, dy, epsilon: float = 0.0) -> np.ndarray:
    """Class of each pair from its metric and human differences: 0 C, 1 D, 2 T_h (human tie only), 3 T_m (metric
    tie only: abs(dx) <= epsilon), 4 T_hm."""
    dx, dy = np.asarray(dx, dtype=np.float64), np.asarray(dy, dtype=np.float64)
    mt = np.abs(dx) <= epsilon
    ht = dy == 0
    return np.where(ht & mt, 4, np.where(ht, 2, np.where(mt, 3, np.where((dx > 0) == (dy > 0), 0, 1)))).astype(np.int8)


def class_counts(cls, group, n_groups: int) -> np.ndarray:
    """Pair counts per group from pair classes: ``cls`` [P] or [B, P] -> [G, 5] or [B, G, 5]."""
    c = np.atleast_2d(np.asarray(cls))
    B = c.shape[0]
    g = np.asarray(group, dtype=np.int64)
    key = (np.arange(B)[:, None] * n_groups + g[None, :]) * 5 + c
    out = np.bincount(key.ravel(), minlength=B * n_groups * 5).reshape(B, n_groups, 5).astype(np.float64)
    return out if np.asarray(cls).ndim == 2 else out[0]


def kendall_at(metric, human, variant: str = "b", epsilon: float = 0.0, groups=None,
               replace_nans_with_zeros: bool = False) -> float:
    """Kendall variant ``b``, ``eq`` (tau_23) or ``acc_eq`` (acc_23) with metric pairs ``abs(delta) <= epsilon``
    counted as ties (mt-metrics-eval ``KendallVariants(epsilon=...)``), averaged over ``groups`` (a label per cell;
    undefined groups dropped, or 0 with ``replace_nans_with_zeros``). tau_c is not defined with epsilon > 0."""
    if variant not in ("b", "eq", "acc_eq"):
        raise InvalidParameterError.choice("variant (with epsilon)", variant, ("b", "eq", "acc_eq"))
    epsilon = float(epsilon)
    if not epsilon >= 0:
        raise InvalidParameterError(f"epsilon: must be >= 0, got {epsilon}")
    x, y, _ = _pair(metric, human)
    if groups is None:
        order, starts = np.arange(len(x)), _one(len(x))
    else:
        gl = np.asarray(groups)
        if gl.shape != x.shape:
            raise InvalidParameterError("groups: one label per score is required")
        order = np.argsort(gl, kind="stable")
        _, cnt = np.unique(gl[order], return_counts=True)
        starts = np.r_[0, np.cumsum(cnt)].astype(np.int64)
    x, y = x[order], y[order]
    G = len(starts) - 1
    a, b, g = K.enumerate_pairs(starts, np.arange(G, dtype=np.int64))
    counts = class_counts(pair_classes(x[a] - x[b], y[a] - y[b], epsilon), g, G)
    vals = kendall_from_counts(counts, variant)
    if replace_nans_with_zeros:
        return float(np.nan_to_num(vals).mean()) if G else float("nan")
    ok = ~np.isnan(vals)
    return float(vals[ok].mean()) if ok.any() else float("nan")


PVALUE_STATS = ("pearson", "spearman", "kendall", "tau_c")


def pvalue(stat: str, metric, human) -> float:
    """Two-sided p-value of a correlation (scipy.stats: pearsonr, spearmanr, kendalltau b/c), as mt-metrics-eval
    reports beside each correlation. Defined as scipy defines it for every group of 2 or more scores (two scores:
    Pearson and Kendall give p = 1.0, Spearman NaN); NaN for a single score, and for a constant vector (the
    correlation is undefined; mt-metrics-eval sets Pearson's and Spearman's to NaN there, scipy Kendall's)."""
    if stat not in PVALUE_STATS:
        raise InvalidParameterError.choice("p-value statistic", stat, PVALUE_STATS)
    from scipy import stats as sps
    x, y = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if stat == "pearson":
            return float(sps.pearsonr(y, x)[1])
        if stat == "spearman":
            return float(sps.spearmanr(y, x)[1])
        if stat == "kendall":
            return float(sps.kendalltau(y, x, variant="b")[1])
        if stat == "tau_c":
            return float(sps.kendalltau(y, x, variant="c")[1])
    raise InvalidParameterError.choice("p-value statistic", stat, PVALUE_STATS)


@dataclass
class Pairs:
    """All (or a uniform sample of) within-group pairs, sorted by abs(delta metric), for tie calibration."""

    a: np.ndarray
    b: np.ndarray
    group: np.ndarray
    diff: np.ndarray  # abs(delta metric), ascending
    n_groups: int
    cell_group: np.ndarray
    human_tie: np.ndarray  # bool
    cls: np.ndarray  # 0 C, 1 D, 2 T_h, 3 T_m, 4 T_hm (at epsilon = 0)
    sampled: bool
    run_end: np.ndarray  # index of the last pair of each run of equal diffs

    @classmethod
    def build(cls, gr: Grouped, max_pairs: int | None, seed, sample_rate: float | None = None) -> "Pairs":
        sizes = np.diff(gr.starts)
        npairs = sizes * (sizes - 1) // 2
        total = int(npairs.sum())
        sample_rate = OPTIONS["sample_rate"].check(sample_rate)  # None or 0 < x <= 1 (the parameter table)
        rate = 1.0 if sample_rate is None else float(sample_rate)
        sampled = (max_pairs is not None and total * rate > max_pairs) or rate < 1.0
        if rate < 1.0 and total <= _ENUMERATE_LIMIT and not (max_pairs is not None and total * rate > max_pairs):
            # mt-metrics-eval's sample_rate: every pair kept independently with probability rate
            a, b, g = K.enumerate_pairs(gr.starts, np.arange(gr.n_groups, dtype=np.int64))
            keep = Draws.of(seed).keep(len(a), rate)
            a, b, g = a[keep], b[keep], g[keep]
        elif rate < 1.0:
            # too many pairs to enumerate: per group Binomial(pairs, rate) pairs drawn uniformly (with replacement),
            # capped at max_pairs overall
            rng = Draws.of(seed)
            take = rng.binomial(npairs, rate)
            if max_pairs is not None and take.sum() > max_pairs:
                take = np.floor(take * (max_pairs / take.sum())).astype(np.int64)
            a, b, g = _draw_pairs(gr, sizes, take, rng)
        elif not sampled:
            a, b, g = K.enumerate_pairs(gr.starts, np.arange(gr.n_groups, dtype=np.int64))
        else:
            # uniform sample (with replacement) of about max_pairs pairs, spread over groups by size
            rng = Draws.of(seed)
            take = np.floor(npairs * (max_pairs / total)).astype(np.int64)
            a, b, g = _draw_pairs(gr, sizes, take, rng)
        dx = gr.x[a] - gr.x[b]
        dy = gr.y[a] - gr.y[b]
        diff = np.abs(dx)
        order = np.argsort(diff, kind="stable")
        a, b, g, dx, dy, diff = a[order], b[order], g[order], dx[order], dy[order], diff[order]
        htie = dy == 0
        mtie = dx == 0
        clsv = np.where(htie & mtie, 4, np.where(htie, 2, np.where(mtie, 3,
                        np.where((dx > 0) == (dy > 0), 0, 1)))).astype(np.int8)
        if len(diff):
            run_end = np.r_[np.nonzero(diff[1:] != diff[:-1])[0], len(diff) - 1]
        else:
            run_end = np.zeros(0, dtype=np.int64)
        return cls(a, b, g, diff, gr.n_groups, gr.group_of_cell(), htie, clsv, sampled, run_end)

    def _vals(self, variant):
        if variant == "acc_eq":
            base = np.isin(self.cls, (0, 4)).astype(np.float64)
            tie = self.human_tie.astype(np.float64)
        elif variant == "eq":
            base = np.where(np.isin(self.cls, (0, 4)), 1.0, -1.0)
            tie = np.where(self.human_tie, 1.0, -1.0)
        else:
            raise InvalidParameterError.choice("variant", variant, TIE_VARIANTS)
        return base, tie

    def curve(self, variant: str = "acc_eq", cell_weights=None, group_weights=None):
        """(thresholds, values) of the group-averaged variant; see :meth:`best` for batches."""
        best_v, best_e, t, v = self.best(variant, cell_weights, group_weights, return_curve=True)
        return t, v[0]

    def best(self, variant: str = "acc_eq", cell_weights=None, group_weights=None, return_curve=False,
             batch: int = 16):
        """Best value and epsilon for each row of ``cell_weights`` [B, n_cells] / ``group_weights`` [B, G].

        Group value f_g(eps) = (sum_pairs w_a w_b v_p(eps) + self_g) / tot_g, self_g = sum w(w-1)/2 (copies of a
        cell are ties in both), tot_g = pair weight + self_g; overall = weighted mean over groups with tot > 0.
        """
        base, tie = self._vals(variant)
        if not return_curve:
            G = self.n_groups
            cw = np.zeros((0, len(self.cell_group))) if cell_weights is None else \
                np.ascontiguousarray(np.atleast_2d(np.asarray(cell_weights, dtype=np.float64)))
            gw = np.zeros((0, G)) if group_weights is None else \
                np.ascontiguousarray(np.atleast_2d(np.asarray(group_weights, dtype=np.float64)))
            if cw.shape[0] and gw.shape[0] and cw.shape[0] != gw.shape[0]:
                raise InvalidParameterError("cell_weights and group_weights need the same number of rows")
            if cw.shape[0] == 0 and gw.shape[0] == 0:
                gw = np.ones((1, G))
            is_end = np.zeros(len(self.diff), dtype=np.bool_)
            is_end[self.run_end] = True
            return K.tie_best(self.a, self.b, self.group, tie - base, base, self.diff, is_end,
                              self.cell_group, G, cw, gw)
        delta = tie - base
        G = self.n_groups
        ncell = len(self.cell_group)
        cw = np.ones((1, ncell)) if cell_weights is None else np.atleast_2d(np.asarray(cell_weights, float))
        gw = np.ones((1, G)) if group_weights is None else np.atleast_2d(np.asarray(group_weights, float))
        B = max(cw.shape[0], gw.shape[0])
        thresholds = np.r_[0.0, self.diff[self.run_end]] if len(self.diff) else np.zeros(1)
        # epsilon 0 is the first run itself when some metric pairs are already tied (same values)
        skip0 = 1 if len(self.diff) and self.diff[0] == 0 else 0
        thresholds = thresholds[skip0:]
        best_v = np.empty(B)
        best_e = np.empty(B)
        curves = []
        for s in range(0, B, batch):
            e = min(B, s + batch)
            cwb = cw[s:e] if cw.shape[0] > 1 else np.broadcast_to(cw, (e - s, ncell))
            gwb = gw[s:e] if gw.shape[0] > 1 else np.broadcast_to(gw, (e - s, G))
            pw = cwb[:, self.a] * cwb[:, self.b]  # [b, P]
            selfw = np.zeros((e - s, G))
            np.add.at(selfw.T, self.cell_group, (cwb * (cwb - 1) / 2).T)
            tot = selfw.copy()
            np.add.at(tot.T, self.group, pw.T)
            okg = tot > 0
            gwe = np.where(okg, gwb, 0.0)
            norm = gwe.sum(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                coef_g = np.where(okg, gwe / np.where(okg, tot, 1) / np.where(norm > 0, norm, 1), 0.0)  # [b, G]
            basesum = selfw.copy()  # self pairs are ties in both: value +1 in both variants
            np.add.at(basesum.T, self.group, (pw * base).T)
            const = (coef_g * basesum).sum(axis=1)
            steps = np.cumsum(coef_g[:, self.group] * pw * delta, axis=1)
            vals = np.concatenate([const[:, None], const[:, None] + steps[:, self.run_end]], axis=1)[:, skip0:]
            vals[norm[:, 0] <= 0] = np.nan
            with np.errstate(invalid="ignore"):
                allnan = np.isnan(vals).all(axis=1)
            idx = np.where(allnan, 0, np.nanargmax(np.where(allnan[:, None], 0, vals), axis=1))
            best_v[s:e] = vals[np.arange(e - s), idx]
            best_e[s:e] = thresholds[idx]
            if return_curve:
                curves.append(vals)
        if return_curve:
            return best_v, best_e, thresholds, np.concatenate(curves)
        return best_v, best_e
