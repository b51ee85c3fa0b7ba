"""Is metric A's correlation with humans significantly higher than metric B's?

* :func:`williams_test` - Williams (1959) test for two dependent correlations sharing the human variable
  (Graham & Baldwin 2014; WMT system-level Pearson).
* :func:`permutation_test` - paired permutation test (PERM-BOTH, Deutsch et al. 2021, as in
  mt-metrics-eval ``PermutationSigDiff``): both metrics' scores are z-normalised, then each cell's pair of
  scores is swapped with probability 1/2; p = (#{delta_perm >= delta} + 1) / (k + 1).
* :func:`bootstrap_test` - paired bootstrap: the share of joint resamples in which A does not beat B.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import InvalidParameterError
from ..significance._resample import Draws


def williams_test(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> float:
    """p-value that corr(human, A) = r12 exceeds corr(human, B) = r13, given corr(A, B) = r23 on n items."""
    if n <= 3:
        raise InvalidParameterError(f"n: the Williams test needs more than 3 items, got {n}")
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    num = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    den = np.sqrt(2 * k * (n - 1) / (n - 3) + rbar ** 2 * (1 - r23) ** 3)
    t = num / den
    from scipy import stats as sps  # here: only the Williams test needs SciPy (meta's start-up never loads it)
    p = float(sps.t.sf(t, n - 3)) if one_sided else float(2 * sps.t.sf(abs(t), n - 3))
    return p


def _z(v):
    v = np.asarray(v, dtype=np.float64)
    ok = ~np.isnan(v)
    sd = v[ok].std()
    return (v - v[ok].mean()) / (sd if sd > 0 else 1.0)


def permutation_test(stat: Callable[[np.ndarray], float], a: np.ndarray, b: np.ndarray, n: int = 1000,
                     seed=12345) -> tuple[float, float]:
    """One-sided p-value for stat(a) > stat(b); ``stat`` maps a score array (same shape as a, b) to a value.

    Returns (p, delta = stat(a) - stat(b)) computed on z-normalised scores. ``seed``: a seed or a
    :class:`~mtscore.significance._resample.Draws` (the swaps are its ``"mtme"`` scheme).
    """
    a, b = _z(a), _z(b)
    if a.shape != b.shape:
        raise InvalidParameterError("permutation_test: the two metrics' score arrays differ in shape")
    delta = stat(a) - stat(b)
    draws = Draws.of(seed)
    c = 0
    for _ in range(n):
        swap = draws.swaps(a.shape, "mtme")
        pa = np.where(swap, b, a)
        pb = np.where(swap, a, b)
        if stat(pa) - stat(pb) >= delta:
            c += 1
    return (c + 1) / (n + 1), float(delta)


def bootstrap_test(samples_a: np.ndarray, samples_b: np.ndarray) -> float:
    """Share of paired resamples (same indices for both) where A's statistic is not above B's."""
    sa, sb = np.asarray(samples_a), np.asarray(samples_b)
    ok = ~(np.isnan(sa) | np.isnan(sb))
    if not ok.any():
        return float("nan")
    return float(np.mean(sa[ok] - sb[ok] <= 0))
