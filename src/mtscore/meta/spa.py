"""Soft pairwise accuracy (SPA; Thompson et al. 2024, WMT24 system level) = 1 - pairwise confidence error.

For every pair of systems (i, j), i < j, a one-sided paired permutation test on the segment scores gives
p_ij = P(sum_perm(i) - sum_perm(j) >= sum(i) - sum(j)), where a permutation flips the sign of each segment's
difference with probability 1/2 (the same sign matrix serves every pair). SPA compares the human and the metric
p-values: ``SPA = 1 - mean_{i<j} |p_ij(human) - p_ij(metric)|``.

Defaults as mt-metrics-eval (``pce.compute_pairwise_p_values``): 1000 permutations, seed 4, signs drawn as
``round(U[0,1))`` from NumPy's PCG64 ``default_rng(seed)`` in float32 (drawn by the resampling engine,
``significance.Draws.signs``), scores rounded to float32 - so the same seed gives the same draws. p = count / k (no
add-one smoothing), as there. One difference, on purpose: mt-metrics-eval sums in float32 through BLAS, whose
rounding depends on the CPU and the BLAS build, so exact ties (common on MQM data) break differently on different
machines; here the sums are exact (``_pvals``), the same on every machine. SPA then equals mt-metrics-eval's except
on draws whose exact difference is within float32 rounding of the tie: each such draw moves SPA by
1 / (k * pairs) (tests/meta/test_meta_mtme.py derives the bound from the data; docs/meta.md).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InvalidParameterError
from ..params import Param
from ..significance._resample import Draws

SPA_PERMUTATIONS = 1000
SPA_SEED = 4
_N_PERM = Param("n_perm", "int", SPA_PERMUTATIONS, lo=1, hi=10 ** 7, help="SPA: paired permutations")


def permutation_signs(n_segments: int, n_perm: int = SPA_PERMUTATIONS, seed=SPA_SEED) -> np.ndarray:
    """[n_perm, n_segments] float32 matrix of +-1 (the paired-permutation draws: the resampling engine's
    ``Draws(seed).signs``, scheme ``"mtme-spa"``; ``seed`` may also be a ``Draws``)."""
    n_perm = _N_PERM.check(n_perm, "spa permutations")
    return Draws.of(seed).signs(n_perm, n_segments, "mtme-spa")


def _check(seg) -> np.ndarray:
    a = np.asarray(seg, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] < 2:
        raise InvalidParameterError(f"spa: expected a [systems, segments] matrix with >= 2 systems, got {a.shape}")
    if np.isnan(a).any():
        raise InvalidParameterError("spa: scores contain NaN (drop unrated segments first)")
    return a


def pairwise_pvalues(seg, n_perm: int = SPA_PERMUTATIONS, seed=SPA_SEED, signs=None) -> np.ndarray:
    """[S, S] matrix, upper triangle: p-value that system i is better than system j (rest NaN).

    ``seg`` [S, N] segment scores (higher = better). ``signs`` (from :func:`permutation_signs`) may be passed to
    reuse the draws.
    """
    a = _check(seg).astype(np.float32)
    if signs is None:
        signs = permutation_signs(a.shape[1], n_perm, seed)
    return _pvals(a, signs)


def _pvals(a32: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """p-values of the upper triangle. The scores are rounded to float32 as mt-metrics-eval rounds them, then
    summed EXACTLY: float32 values (24-bit significands) times +-1 are summed in float64, whose 53 bits hold every
    partial sum exactly while the scores' magnitudes span less than 2**29 / N (as MQM, ESA and metric scores do;
    :func:`exact_sum_holds` checks it). mt-metrics-eval sums in float32 through BLAS, whose rounding follows the CPU's
    vector width and the BLAS build: on MQM data, where sums tie exactly, one draw of one pair can flip between
    machines (SPA moves by 1 / (k * pairs)). Exact sums make every tie a tie and the p-values the same on every
    machine and for every order of the systems."""
    a = np.ascontiguousarray(np.asarray(a32, dtype=np.float32), dtype=np.float64)
    S = a.shape[0]
    sys_ = a.sum(axis=1)
    partial = np.asarray(signs, dtype=np.float64) @ a.T  # [k, S]; exact (see above), so BLAS' order is moot
    i, j = np.triu_indices(S, 1)
    null = partial[:, i] - partial[:, j]
    test = sys_[i] - sys_[j]
    p = np.full((S, S), np.nan)
    p[i, j] = (null >= test).sum(axis=0) / signs.shape[0]
    return p


def exact_sum_holds(seg, terms: int = 1) -> bool:
    """True when :func:`_pvals`' float64 sums of the float32-rounded scores are exact: every score is a multiple of
    the smallest nonzero score's unit in the last place (float32), and N times the largest magnitude, in those units,
    stays below 2**53. ``terms`` > 1: also ``terms`` such sums added together stay exact."""
    a = np.asarray(seg, dtype=np.float32).astype(np.float64)
    nz = np.abs(a[a != 0])
    if nz.size == 0:
        return True
    unit = np.spacing(np.float32(nz.min())).astype(np.float64)
    return bool(terms * a.shape[-1] * nz.max() / unit < 2.0 ** 53)


def one_minus_pce(p_human: np.ndarray, p_metric: np.ndarray) -> float:
    """1 - mean over the upper triangle of |p_human - p_metric|."""
    i, j = np.triu_indices(p_human.shape[0], 1)
    # fsum: correctly rounded, so the order of the pairs (of the systems) cannot move the last bit
    return 1.0 - math.fsum(np.abs(p_human[i, j] - p_metric[i, j]).tolist()) / len(i)


def soft_pairwise_accuracy(metric_seg, human_seg, n_perm: int = SPA_PERMUTATIONS, seed=SPA_SEED) -> float:
    """SPA of a metric's [S, N] segment scores against human [S, N] scores (same systems, same segments)."""
    return SPA(human_seg, n_perm, seed)(metric_seg)


class SPA:
    """SPA against fixed human scores: the permutation signs and the human p-values are computed once."""

    def __init__(self, human_seg, n_perm: int = SPA_PERMUTATIONS, seed=SPA_SEED):
        h = _check(human_seg)
        self.shape = h.shape
        # the +-1 draws in float64 once (exact), for the exact sums of every call
        self.signs = permutation_signs(h.shape[1], n_perm, seed).astype(np.float64)
        self.p_human = _pvals(h.astype(np.float32), self.signs)

    def pvalues(self, metric_seg) -> np.ndarray:
        m = _check(metric_seg)
        if m.shape != self.shape:
            raise InvalidParameterError(f"spa: metric scores {m.shape} and human scores {self.shape} differ in shape")
        return _pvals(m.astype(np.float32), self.signs)

    def __call__(self, metric_seg) -> float:
        return one_minus_pce(self.p_human, self.pvalues(metric_seg))

    def swap_draws(self, seg_a, seg_b):
        """The PERM-BOTH permutation test's statistic on many draws at once (used by
        :func:`mtscore.meta.ranking.perm_sig_diff`): returns ``f(masks)`` that maps boolean swap masks
        ``[B, S, N]`` to the two lists of B values ``self(where(mask, a, b))`` and ``self(where(mask, b, a))``,
        the same numbers as those calls, or None where that cannot be promised (then call the SPA per draw).

        One matrix product serves all B draws, the second hybrid's sums follow from the first's (the two hybrids'
        scores add up to a + b cell by cell), and a pair's comparison ``sum_perm(i) - sum_perm(j) >= sum(i) -
        sum(j)`` is made as ``q_i >= q_j`` with ``q = sum_perm - sum`` per system. These are rearrangements of
        exact sums, so this is offered only where they are exact too: with U the float32 unit of the smallest
        nonzero score of ``a`` and ``b`` and M their largest magnitude, every score is a multiple of U and
        2 N M < 2**53 U (:func:`exact_sum_holds` with ``terms=2``). Then every sum, every difference of two sums
        and every ``q`` (a multiple of 2U below 2 N M, or 4 N M for the two hybrids' q added) is exact in float64,
        so each comparison is that of the exact numbers, as in :func:`_pvals`."""
        a32, b32 = _check(seg_a).astype(np.float32), _check(seg_b).astype(np.float32)
        if a32.shape != self.shape or b32.shape != self.shape:
            return None
        if not exact_sum_holds(np.concatenate([a32, b32], axis=0), terms=2):
            return None
        a, b = a32.astype(np.float64), b32.astype(np.float64)
        S, N = self.shape
        k = self.signs.shape[0]
        i, j = np.triu_indices(S, 1)
        p_h = self.p_human[i, j]
        signs_t = self.signs.T
        # q = (permuted sum) - (sum) per system and draw: sum_perm(i) - sum_perm(j) >= sum(i) - sum(j) iff q_i >= q_j
        total_q = (a @ signs_t - a.sum(axis=1)[:, None]) + (b @ signs_t - b.sum(axis=1)[:, None])  # [S, k]

        def spa_rows(q):  # q [B, S, k] -> B values, as __call__
            count = np.empty((q.shape[0], len(i)), dtype=np.int64)
            c = 0
            for s in range(S - 1):  # the pairs (s, s+1..S-1), in triu_indices' order
                count[:, c:c + S - 1 - s] = (q[:, s:s + 1, :] >= q[:, s + 1:, :]).sum(axis=2)
                c += S - 1 - s
            p = count / k
            return [1.0 - math.fsum(r) / len(i) for r in np.abs(p_h - p).tolist()]

        def f(masks):
            masks = np.asarray(masks, dtype=bool)
            B = masks.shape[0]
            pa = np.where(masks, a, b)  # [B, S, N]
            q_a = (pa.reshape(B * S, N) @ signs_t).reshape(B, S, k)
            q_a -= pa.sum(axis=2)[:, :, None]
            return spa_rows(q_a), spa_rows(total_q[None] - q_a)
        return f


def rated_columns(human_seg: np.ndarray, *metric_segs: np.ndarray) -> np.ndarray:
    """Boolean mask of the segments that every system has a human score (and a metric score) for.

    mt-metrics-eval drops unrated cells and reshapes the rest to [systems, -1], which presumes that all systems
    were rated on the same segments (true of the WMT MQM/ESA sets); partially rated segments are dropped here.
    """
    ok = ~np.isnan(human_seg).any(axis=0)
    for m in metric_segs:
        ok &= ~np.isnan(m).any(axis=0)
    return ok
