"""How far mtscore's SPA may be from mt-metrics-eval's, derived from where the difference comes from.

mt-metrics-eval sums float32 segment scores in float32 through BLAS, whose rounding follows the CPU (vector width)
and the BLAS build; mtscore sums the same float32 values exactly (``mtscore.meta.spa._pvals``). A permutation draw's
comparison ``null >= test`` can only come out differently where the exact difference ``null - test`` lies within
the float32 sums' rounding error, bounded by ``N * 2**-24 * (sum|a_i| + sum|a_j|)`` for each of the two differences
of sums (the standard bound of recursive summation, which every BLAS order obeys). Each such (draw, pair) moves one
p-value by 1/k, hence SPA by 1 / (k * pairs); the human p-values and the metric's both count.
"""
from __future__ import annotations

import numpy as np


def near_ties(seg: np.ndarray, signs: np.ndarray) -> int:
    """(draw, pair) comparisons of ``seg`` [systems, segments] within float32 rounding of the tie."""
    a = np.asarray(seg, dtype=np.float32).astype(np.float64)
    i, j = np.triu_indices(a.shape[0], 1)
    part, tot, mag = np.asarray(signs, dtype=np.float64) @ a.T, a.sum(axis=1), np.abs(a).sum(axis=1)
    diff = (part[:, i] - part[:, j]) - (tot[i] - tot[j])
    return int((np.abs(diff) <= 2 * a.shape[1] * 2.0 ** -24 * (mag[i] + mag[j])).sum())


def spa_bounds(lp_data, order=None) -> dict:
    """{metric: bound on |SPA(mtscore) - SPA(mt-metrics-eval)|} for one language pair's ``LPData`` (the same rated
    columns and draws as ``mtscore.meta.tasks.spa_task``)."""
    from mtscore.meta.spa import SPA, rated_columns
    h = lp_data.human_seg
    ok = rated_columns(h, *lp_data.metric_seg.values())
    signs = SPA(h[:, ok]).signs
    pairs = h.shape[0] * (h.shape[0] - 1) // 2
    nh = near_ties(h[:, ok], signs)
    # + 1e-12: the mean of the |p| differences is itself rounded
    return {m: (nh + near_ties(v[:, ok], signs)) / (len(signs) * pairs) + 1e-12 for m, v in lp_data.metric_seg.items()}
