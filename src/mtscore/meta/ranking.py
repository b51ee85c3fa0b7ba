"""Rank metrics into significance clusters, per task and over a set of tasks (WMT22-24 metrics task).

Follows mt-metrics-eval (``data.CompareMetrics``, ``stats.PermutationSigDiff``, ``stats.PairwisePermutationSigDiff``,
``data.AssignRanks``, ``tasks.TaskSetResults``):

* :func:`perm_sig_diff` - PERM-BOTH paired permutation test on z-normalised scores (each cell's pair of scores is
  swapped with probability 1/2), p = #{delta_perm >= delta} / k_used, **with early stopping**: after every
  ``block_size`` draws, stop when p < ``early_min`` or p > ``early_max``.
* :func:`pairs_sig_diff` - the "pairs" test for tie-calibrated Kendall (acc_eq*, tau_eq*): each metric keeps its own
  epsilon, and the permutation swaps the two metrics' pairwise verdicts (not their scores). Its early-stopping
  check runs, as in mt-metrics-eval, only on draws whose delta reaches the observed one.
* :func:`kendall_pairs_sig_diff` - the same "pairs" test for a Kendall variant (tau_b, tau_23, acc_23) at fixed
  epsilons, recomputing each group's statistic from the hybrid pair counts.
* :func:`compare_metrics` - values sorted by (-value, name), the upper-triangular matrix of p-values
  (row i, column j > i: p that metric j is not worse than metric i) and :func:`assign_ranks`: a metric starts a new
  cluster when some metric of the current cluster beats it significantly (p <= ``pval``).
* :func:`average_ranks`, :func:`average_values`, :func:`average_value_matrix` - the global ranking over tasks
  (language pairs x levels x statistics) with weights; values are mapped to [0, 1] by the statistic's range first
  ((v + 1) / 2 for correlations) and the significance of average differences reuses the per-task draws.

The draws come from the resampling engine, :class:`mtscore.significance._resample.Draws` (``swaps``, scheme
``"mtme"``: mt-metrics-eval's ``U[0, 1) < 0.5``); ``rng`` may be a ``Draws``, a numpy Generator or None (then
``seed``, default 12345 as every command: ``params.DEFAULT_SEED``). mt-metrics-eval draws from NumPy's unseeded global generator, so p-values agree within Monte-Carlo
error, not digit for digit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from ..errors import InvalidParameterError
from ..params import DEFAULT_SEED
from ..significance._resample import Draws


@dataclass(frozen=True)
class PermParams:
    """Early stopping of the permutation tests (mt-metrics-eval ``PermutationSigDiffParams``; its ``Task``
    objects use block_size 100)."""

    block_size: int = 1000
    early_min: float = 0.02
    early_max: float = 0.5

    def validate(self):
        if self.block_size < 1:
            raise InvalidParameterError(f"block_size: must be >= 1, got {self.block_size}")
        if not 0 <= self.early_min <= self.early_max <= 1:
            raise InvalidParameterError(f"early_min/early_max: need 0 <= early_min <= early_max <= 1, "
                                        f"got {self.early_min}, {self.early_max}")


def zscore(v) -> np.ndarray:
    """(v - mean) / std over all cells (population std, as scipy.stats.zscore); a constant vector gives NaN."""
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (v - v.mean()) / v.std()


def perm_sig_diff(stat: Callable[[np.ndarray], float], a, b, k: int = 1000, params: PermParams = PermParams(),
                  rng=None, seed=DEFAULT_SEED):
    """p-value that ``stat(a) > stat(b)`` is not chance (a, b: the two metrics' scores on the same cells).

    Returns (p, delta = stat(za) - stat(zb), k_used, draws [k_used, 2] of (stat(perm a), stat(perm b))).

    A ``stat`` with a ``swap_draws(za, zb)`` method (:class:`mtscore.meta.spa.SPA`) may evaluate several draws in
    one go: that method returns None or a function of the swap masks ``[B, *shape]`` giving the B values of
    ``stat(perm a)`` and of ``stat(perm b)``, the same numbers as the calls one by one. The masks are drawn one draw
    at a time as below and batches never cross an early-stopping check, so the draws and results are the same.
    """
    params.validate()
    za, zb = zscore(a), zscore(b)
    if za.shape != zb.shape:
        raise InvalidParameterError("perm_sig_diff: the two metrics' score arrays differ in shape")
    engine = Draws.of(seed if rng is None else rng)
    delta = stat(za) - stat(zb)
    batched = getattr(stat, "swap_draws", None)
    batched = batched(za, zb) if batched is not None else None
    if batched is None:  # one draw at a time
        def batched(masks):
            return [stat(np.where(w, za, zb)) for w in masks], [stat(np.where(w, zb, za)) for w in masks]

    def next_draws(nb):  # the masks are drawn one draw at a time, whatever the batch
        return batched(np.stack([engine.swaps(za.shape, "mtme") for _ in range(nb)]))
    count, i, draws = _permutation_draws(next_draws, delta, k, params, _PERM_BATCH, block_batches=True)
    k_used = max(i, 1) if k else 0
    p = count / k_used if k_used else float("nan")
    return p, float(delta), k_used, np.asarray(draws, dtype=np.float64).reshape(-1, 2)


_PERM_BATCH = 25  # draws per batch of a batched statistic (memory: the SPA's [batch, systems, k] sums)


def _permutation_draws(next_draws, delta, k: int, params: PermParams, batch: int, block_batches: bool,
                       stop_when_counted: bool = False):
    """The loop of the permutation tests: up to ``k`` draws in batches (``next_draws(nb)``: the nb draws' values of
    the two statistics), counting those with ``a - b >= delta``, and stopping early as mt-metrics-eval does, at the
    end of a block of ``params.block_size`` draws whose p is outside ``[early_min, early_max]`` (``stop_when_counted``:
    only at a draw that was counted, as its "pairs" test checks). ``block_batches``: no batch crosses a block's end.
    Returns (count, draws used, the draws' values)."""
    draws = []
    count, i = 0, 0
    done = False
    while i < k and not done:
        nb = min(batch, k - i)
        if block_batches:
            nb = min(nb, params.block_size - i % params.block_size)
        ca, cb = next_draws(nb)
        for x, y in zip(ca, cb):
            i += 1
            draws.append((x, y))
            counted = x - y >= delta
            if counted:
                count += 1
            if (counted or not stop_when_counted) and i % params.block_size == 0:
                p = count / i
                if p < params.early_min or p > params.early_max:
                    done = True
                    break
    return count, i, draws


def pair_verdicts(dx: np.ndarray, dy: np.ndarray, epsilon: float, variant: str = "acc_eq") -> np.ndarray:
    """Per-pair value of acc_eq (1 if concordant or tied in both, else 0) or tau_eq (+1 / -1), with metric
    differences abs(dx) <= epsilon counted as ties."""
    mtie = np.abs(dx) <= epsilon
    htie = dy == 0
    good = np.where(mtie, htie, ~htie & ((dx > 0) == (dy > 0)))
    if variant == "acc_eq":
        return good.astype(np.float64)
    if variant == "eq":
        return np.where(good, 1.0, -1.0)
    raise InvalidParameterError.choice("variant", variant, ("acc_eq", "eq"))


def _group_mean(vals, group, n_groups, npairs, replace_nans_with_zeros):
    """Mean over groups of the per-group pair mean; vals [B, P] -> [B]."""
    sums = np.zeros((vals.shape[0], n_groups))
    for r in range(vals.shape[0]):
        sums[r] = np.bincount(group, weights=vals[r], minlength=n_groups)
    return _mean_of_group_sums(sums, n_groups, npairs, replace_nans_with_zeros)


def _mean_of_group_sums(sums, n_groups, npairs, replace_nans_with_zeros):
    """:func:`_group_mean` from the per-group sums [B, n_groups]."""
    ok = npairs > 0
    per = sums[:, ok] / npairs[ok]
    if replace_nans_with_zeros:
        return per.sum(axis=1) / n_groups if n_groups else np.zeros(sums.shape[0])
    return per.mean(axis=1) if ok.any() else np.zeros(sums.shape[0])


def _swapped_group_sums(v_a, v_b, group, n_groups):
    """Where every verdict is an integer and every sum of them stays below 2**53 (as 0/1 and +-1 verdicts do), the
    per-group sums of the swapped verdicts ``where(w, v_a, v_b)`` and ``where(w, v_b, v_a)`` are exact however they
    are added up: then returns ``f(w [B, P]) -> (sums_a, sums_b)``, each [B, n_groups], found from the pairs whose
    two verdicts differ only (sums_a = sum(v_b) + the swapped differences, sums_b = sum(v_a + v_b) - sums_a) - the
    same numbers as :func:`_group_mean`'s sums, with less work. Else None."""
    if not (np.all(v_a == np.rint(v_a)) and np.all(v_b == np.rint(v_b))):
        return None
    if len(v_a) and max(np.abs(v_a).max(), np.abs(v_b).max()) * len(v_a) >= 2.0 ** 52:
        return None
    nz = np.flatnonzero(v_a != v_b)
    g_nz, d_nz = group[nz], (v_a - v_b)[nz]
    sum_b = np.bincount(group, weights=v_b, minlength=n_groups)
    total = sum_b + np.bincount(group, weights=v_a, minlength=n_groups)

    def f(w):
        r, c = np.nonzero(w[:, nz])
        sums_a = sum_b + np.bincount(r * n_groups + g_nz[c], weights=d_nz[c],
                                     minlength=w.shape[0] * n_groups).reshape(w.shape[0], n_groups)
        return sums_a, total - sums_a
    return f


def pairs_sig_diff(v_a: np.ndarray, v_b: np.ndarray, group: np.ndarray, n_groups: int, k: int = 1000,
                   params: PermParams = PermParams(), rng=None, seed=DEFAULT_SEED, replace_nans_with_zeros: bool = False,
                   batch: int = 50):
    """The "pairs" permutation test: ``v_a``, ``v_b`` are the two metrics' per-pair verdicts
    (:func:`pair_verdicts`, each with its own epsilon) on the same within-group pairs.

    Returns (p that A's value > B's is not chance, delta, k_used, draws [k_used, 2]).
    """
    params.validate()
    v_a, v_b = np.asarray(v_a, float), np.asarray(v_b, float)
    group = np.asarray(group, dtype=np.int64)
    npairs = np.bincount(group, minlength=n_groups).astype(np.float64)
    engine = Draws.of(seed if rng is None else rng)
    delta = float(_group_mean(v_a[None], group, n_groups, npairs, replace_nans_with_zeros)[0]
                  - _group_mean(v_b[None], group, n_groups, npairs, replace_nans_with_zeros)[0])
    swapped = _swapped_group_sums(v_a, v_b, group, n_groups)

    def next_draws(nb):  # nb draws' swap masks at once (batches of `batch`, as before)
        w = engine.swaps((nb, len(v_a)), "mtme")
        if swapped is not None:
            sums_a, sums_b = swapped(w)
            return (_mean_of_group_sums(sums_a, n_groups, npairs, replace_nans_with_zeros),
                    _mean_of_group_sums(sums_b, n_groups, npairs, replace_nans_with_zeros))
        return (_group_mean(np.where(w, v_a, v_b), group, n_groups, npairs, replace_nans_with_zeros),
                _group_mean(np.where(w, v_b, v_a), group, n_groups, npairs, replace_nans_with_zeros))
    # mt-metrics-eval checks for early stopping only at a counted draw
    count, k_used, draws = _permutation_draws(next_draws, delta, k, params, batch, block_batches=False,
                                              stop_when_counted=True)
    p = count / k_used if k_used else float("nan")
    return p, delta, k_used, np.asarray(draws, dtype=np.float64).reshape(-1, 2)


def kendall_pairs_sig_diff(metric_a, metric_b, human, starts, variant: str = "b", epsilon_a: float = 0.0,
                           epsilon_b: float = 0.0, k: int = 1000, params: PermParams = PermParams(), rng=None,
                           seed=DEFAULT_SEED, replace_nans_with_zeros: bool = False, batch: int = 50):
    """The "pairs" permutation test for a Kendall variant at fixed epsilons (mt-metrics-eval
    ``PairwisePermutationSigDiff`` with ``epsilon1``/``epsilon2``): tau_b (``b``), tau_23 (``eq``) or acc_23
    (``acc_eq``), each metric with its own epsilon (metric pairs with abs(delta) <= epsilon are ties), grouped by
    ``starts`` (cells laid out group by group; e.g. items). Each draw gives every within-group pair the verdict
    (class C / D / T_h / T_m / T_hm) of metric A or of metric B with probability 1/2 each; the statistic is
    recomputed per group from the hybrid pair counts and averaged over the groups (undefined groups dropped, or 0
    with ``replace_nans_with_zeros``; no defined group: 0, as there). Early stopping as :func:`pairs_sig_diff`.

    Returns (p that A's value > B's is not chance, delta = value(A) - value(B), k_used, draws [k_used, 2]).
    tau_c is not defined on permuted pairs (as there)."""
    from . import _kernels as K
    from .stats import class_counts, kendall_from_counts, pair_classes
    if variant not in ("b", "eq", "acc_eq"):
        raise InvalidParameterError.choice("variant", variant, ("b", "eq", "acc_eq"))
    for name, e in (("epsilon_a", epsilon_a), ("epsilon_b", epsilon_b)):
        if not float(e) >= 0:
            raise InvalidParameterError(f"{name}: must be >= 0, got {e}")
    params.validate()
    xa, xb, y = (np.asarray(v, dtype=np.float64) for v in (metric_a, metric_b, human))
    if not xa.shape == xb.shape == y.shape or xa.ndim != 1:
        raise InvalidParameterError("kendall_pairs_sig_diff: metric_a, metric_b and human must be parallel vectors")
    st = np.asarray(starts, dtype=np.int64)
    G = len(st) - 1
    a, b, g = K.enumerate_pairs(st, np.arange(G, dtype=np.int64))
    dy = y[a] - y[b]
    ca = pair_classes(xa[a] - xa[b], dy, float(epsilon_a))
    cb = pair_classes(xb[a] - xb[b], dy, float(epsilon_b))

    def value(cls):  # [B, P] -> [B]
        vals = kendall_from_counts(class_counts(cls, g, G), variant)  # [B, G]
        if replace_nans_with_zeros:
            return np.nan_to_num(vals).mean(axis=1) if G else np.zeros(len(vals))
        ok = ~np.isnan(vals)
        n = ok.sum(axis=1)
        return np.where(n > 0, np.where(ok, vals, 0.0).sum(axis=1) / np.maximum(n, 1), 0.0)
    delta = float(value(ca[None])[0] - value(cb[None])[0])
    engine = Draws.of(seed if rng is None else rng)
    draws = []
    count, i = 0, 0
    done = False
    while i < k and not done:
        nb = min(batch, k - i)
        w = engine.swaps((nb, len(ca)), "mtme")
        va = value(np.where(w, ca, cb))
        vb = value(np.where(w, cb, ca))
        for x, z in zip(va, vb):
            i += 1
            draws.append((x, z))
            if x - z >= delta:
                count += 1
                if i % params.block_size == 0:  # checked only here, as mt-metrics-eval
                    p = count / i
                    if p < params.early_min or p > params.early_max:
                        done = True
                        break
    p = count / i if i else float("nan")
    return p, delta, i, np.asarray(draws, dtype=np.float64).reshape(-1, 2)


def assign_ranks(sig_matrix: np.ndarray, pval: float = 0.05) -> list[int]:
    """Cluster ranks from the upper-triangular p-value matrix of metrics sorted by decreasing value: metric i
    starts a new cluster when some metric of the current cluster beats it with p <= ``pval``."""
    sig = np.asarray(sig_matrix, dtype=np.float64)
    if sig.ndim != 2 or sig.shape[0] != sig.shape[1]:
        raise InvalidParameterError(f"sig_matrix: must be square, got shape {sig.shape}")
    ranks, rank, start = [], 1, 0
    for i in range(sig.shape[0]):
        if np.any(sig[start:i, i] <= pval):
            rank += 1
            start = i
        ranks.append(rank)
    return ranks


@dataclass
class Comparison:
    """Result of :func:`compare_metrics` (one task)."""

    values: dict  # metric -> value, by decreasing value (ties: by name)
    ranks: dict  # metric -> cluster rank
    sig_matrix: np.ndarray
    draws: dict = field(default_factory=dict)  # (m_i, m_j), i < j -> [k_used, 2] (value of m_i, value of m_j)
    value_range: tuple = (-1.0, 1.0)
    name: str = ""
    attrs: dict = field(default_factory=dict)

    @property
    def metrics(self) -> list[str]:
        return list(self.values)

    def pair_draws(self, m1: str, m2: str) -> np.ndarray:
        """Draws with columns (m1, m2), whichever order the pair was tested in."""
        if (m1, m2) in self.draws:
            return self.draws[(m1, m2)]
        return self.draws[(m2, m1)][:, ::-1]


def order_values(values: Mapping[str, float]) -> dict:
    def key(kv):
        v = kv[1]
        return (np.inf if v is None or np.isnan(v) else -v, kv[0])
    return dict(sorted(values.items(), key=key))


def compare_metrics(values: Mapping[str, float], test: Callable[[str, str], tuple] | None, k: int = 1000,
                    pval: float = 0.05, value_range=(-1.0, 1.0), name: str = "", attrs=None) -> Comparison:
    """Sort metrics by value and fill the significance matrix with ``test(better, worse)`` ->
    (p, delta, k_used, draws); ``k`` = 0 (or ``test`` None) skips the tests (every metric its own rank)."""
    ordered = order_values(values)
    names = list(ordered)
    n = len(names)
    sig = np.zeros((n, n))
    draws = {}
    if k and test is not None:
        for i in range(n):
            for j in range(i + 1, n):
                p, _, _, d = test(names[i], names[j])
                sig[i, j] = p
                draws[(names[i], names[j])] = d
    ranks = assign_ranks(sig, pval)
    return Comparison(ordered, dict(zip(names, ranks)), sig, draws, tuple(value_range), name, dict(attrs or {}))


# ------------------------------------------------------------------------------------------------
# over several tasks

def assign_weights(results: Sequence[Comparison], attrs: Sequence[str], total: float = 1.0) -> list[float]:
    """Split ``total`` evenly over the values of ``attrs[0]``, then recursively (mt-metrics-eval
    ``AssignWeights``); no attributes: equal weights."""
    if not results:
        return []
    if not attrs:
        return [total / len(results)] * len(results)
    groups: dict = {}
    for idx, r in enumerate(results):
        groups.setdefault(r.attrs.get(attrs[0]), []).append(idx)
    out = [0.0] * len(results)
    for idxs in groups.values():
        sub = assign_weights([results[i] for i in idxs], attrs[1:], total / len(groups))
        for i, w in zip(idxs, sub):
            out[i] = w
    return out


def _weights(results, weights):
    if weights is None:
        return [1.0 / len(results)] * len(results)
    if len(weights) != len(results):
        raise InvalidParameterError(f"weights: {len(weights)} weights for {len(results)} tasks")
    return list(weights)


def _common(results):
    common = set(results[0].metrics)
    for r in results[1:]:
        common &= set(r.metrics)
    return common


def average_ranks(results: Sequence[Comparison], weights=None) -> dict:
    """Weighted sum of cluster ranks of the metrics present in every task, by increasing rank."""
    w = _weights(results, weights)
    common = _common(results)
    avg = {m: sum(r.ranks[m] * wi for r, wi in zip(results, w)) for m in common}
    return dict(sorted(avg.items(), key=lambda kv: (kv[1], kv[0])))


def _norm(r: Comparison, v):
    b, e = r.value_range
    return (v - b) / (e - b)


def average_values(results: Sequence[Comparison], weights=None) -> dict:
    """Weighted sum of the values mapped to [0, 1] (correlations: (v + 1) / 2), by decreasing value."""
    w = _weights(results, weights)
    common = _common(results)
    avg = {m: sum(_norm(r, r.values[m]) * wi for r, wi in zip(results, w)) for m in common}
    return dict(sorted(avg.items(), key=lambda kv: (-kv[1], kv[0])))


def average_value_matrix(results: Sequence[Comparison], weights=None, pval: float = 0.05) -> Comparison:
    """Significance clusters of the average values, reusing each task's permutation draws (a pair tested with
    fewer draws because of early stopping is tiled to the longest, as mt-metrics-eval does)."""
    w = _weights(results, weights)
    avg = average_values(results, w)
    names = list(avg)
    n = len(names)
    sig = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            m1, m2 = names[i], names[j]
            per = [r.pair_draws(m1, m2) for r in results]
            longest = max(len(d) for d in per)
            if longest == 0:
                raise InvalidParameterError("average_value_matrix: the tasks were run without permutation draws (k=0)")
            null = np.zeros(longest)
            for r, wi, d in zip(results, w, per):
                b, e = r.value_range
                diff = wi * ((d[:, 0] - b) / (e - b) - (d[:, 1] - b) / (e - b))
                null += np.tile(diff, int(np.ceil(longest / len(diff))))[:longest]
            sig[i, j] = np.mean(null >= avg[m1] - avg[m2])
    ranks = assign_ranks(sig, pval)
    return Comparison(avg, dict(zip(names, ranks)), sig, {}, (0.0, 1.0), "average")
