"""AutoRank rules as pure, vectorized functions of system scores (docs/rank.md).

Every function takes ``scores[..., M, S]`` (M metrics, S systems; any leading axes, e.g. bootstrap resamples) and
``higher[M]`` (True where a higher score is better) and returns ``autorank[..., S]`` (1 = best). Nothing here reads
files, draws random numbers or rounds.

* ``wmt25`` (WMT25 preliminary ranking): each metric oriented so that higher is better (lower-is-better metrics
  negated), robust-scaled ``(x - median) / (P100 - P25)`` over the systems (percentiles with linear interpolation; a
  zero spread counts as 1), averaged over the metrics, and the average mapped to ``1 + (S-1)(max - a)/(max - min)``
  (all systems 1 when max and min are equal within ``numpy.isclose``).
* ``wmt24`` (WMT24 preliminary ranking): each metric mapped linearly to [1, S] (the best system 1, the worst S),
  then averaged over the metrics.
"""
from __future__ import annotations

import numpy as np

from ..errors import InvalidParameterError

RULES = ("wmt25", "wmt24")


def _check(scores, higher):
    x = np.asarray(scores, dtype=np.float64)
    h = np.asarray(higher, dtype=bool)
    if x.ndim < 2:
        raise InvalidParameterError(f"scores: expected an array [..., metrics, systems], got {x.ndim} dimension(s)")
    if h.shape != (x.shape[-2],):
        raise InvalidParameterError(f"higher: expected one direction per metric ({x.shape[-2]}), got {h.shape}")
    return x, h


def oriented(scores, higher) -> np.ndarray:
    """The scores with every lower-is-better metric negated (so higher is better everywhere)."""
    x, h = _check(scores, higher)
    return np.where(h[:, None], x, -x)


def robust_scale(scores, higher, lower_pct: float = 25.0, upper_pct: float = 100.0) -> np.ndarray:
    """WMT25's robust scaling of each metric over the systems (last axis), after orienting it."""
    x = oriented(scores, higher)
    med = np.median(x, axis=-1, keepdims=True)
    lo = np.percentile(x, lower_pct, axis=-1, keepdims=True)
    hi = np.percentile(x, upper_pct, axis=-1, keepdims=True)
    scale = hi - lo
    scale = np.where(scale == 0, 1.0, scale)
    return (x - med) / scale


def to_rank_scale(avg, top: int | None = None) -> np.ndarray:
    """``1 + (top-1)(max - a)/(max - min)`` over the last axis, ``top`` = the number of systems S unless given
    (1 for every system when max == min)."""
    a = np.asarray(avg, dtype=np.float64)
    n = a.shape[-1] if top is None else int(top)
    mx = a.max(axis=-1, keepdims=True)
    mn = a.min(axis=-1, keepdims=True)
    span = mx - mn
    flat = np.isclose(mx, mn)
    out = 1.0 + (n - 1) * (mx - a) / np.where(flat, 1.0, span)
    return np.where(flat, 1.0, out)


def wmt25(scores, higher) -> np.ndarray:
    return to_rank_scale(robust_scale(scores, higher).mean(axis=-2))


def linear_ranks(scores, higher, top: int | None = None) -> np.ndarray:
    """WMT24's per-metric scaled ranks: each metric mapped linearly onto [1, top] (top = S unless given), the best
    system 1. (WMT24's published tables use top = S + 1 in every language pair: docs/rank.md.)"""
    return to_rank_scale(oriented(scores, higher), top)


def wmt24(scores, higher, top: int | None = None) -> np.ndarray:
    return linear_ranks(scores, higher, top).mean(axis=-2)


def scaled(rule: str, scores, higher, top: int | None = None) -> np.ndarray:
    """The per-metric values the rule averages ([..., M, S]): robust-scaled scores (wmt25), scaled ranks (wmt24)."""
    return robust_scale(scores, higher) if rule == "wmt25" else linear_ranks(scores, higher, top)


def autorank(rule: str, scores, higher, top: int | None = None) -> np.ndarray:
    """The AutoRank of every system under ``rule``; ``top`` (wmt24 only) overrides the top of the scale."""
    if rule == "wmt25":
        if top is not None:
            raise InvalidParameterError("top: only the wmt24 rule takes a scale top; wmt25 maps onto [1, S]")
        return wmt25(scores, higher)
    if rule == "wmt24":
        return wmt24(scores, higher, top)
    raise InvalidParameterError(f"--autorank: unknown rule {rule!r}; valid: {', '.join(RULES)}")
