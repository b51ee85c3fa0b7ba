"""Reranking n-best lists with a linear model, and a small tuner for its weights.

:func:`rerank` picks, per segment, ``argmax_c w · f(c)`` (ties: the earlier candidate).

:func:`tune` maximises a corpus metric (e.g. BLEU) of the reranked selection over a set of tuning
segments by coordinate ascent with **exact line search** (Och 2003, MERT): along a direction ``d``
the model score of candidate c is ``a_c + γ b_c`` (a = w·f, b = d·f), so each segment's choice is
piecewise constant in γ, given by the upper envelope of its lines. The envelopes of all segments
are merged into one sorted list of breakpoints; the corpus statistics of every interval are a
cumulative sum of per-breakpoint differences (per-candidate statistics computed once), and the
metric scores all intervals in one vectorized call. γ is set to the middle of the best interval.
Directions: every feature axis in turn plus ``random_directions`` random unit vectors per sweep
(drawn from ``numpy.random.default_rng(seed)``); sweeps repeat until no direction improves by more
than ``tol``; ``restarts`` random starting points (same rng) are tried besides the initial weights.
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..errors import InvalidParameterError
from .oracle import CandidateStats, Pool, Selection, make_selection, segment_argbest
from .. import params as P
from ..params import DEFAULT_SEED

_WEIGHT = P.Param("weight", "float", 0.0, lo=-1.0e308, hi=1.0e308, help="a feature weight")


def weights_vector(weights: Mapping[str, float] | Sequence[float] | np.ndarray, names: Sequence[str]) -> np.ndarray:
    """A weight vector over ``names`` from a mapping (missing names -> 0; unknown names are an error)."""
    if isinstance(weights, Mapping):
        w = np.zeros(len(names))
        for k, v in weights.items():
            if k not in names:
                raise InvalidParameterError.choice("weights: feature", k, list(names))
            w[list(names).index(k)] = float(_WEIGHT.check(v, f"weights: {k}"))
        return w
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if len(w) != len(names) or not np.all(np.isfinite(w)):
        raise InvalidParameterError(f"weights: need {len(names)} finite numbers, got {len(w)}")
    return w


def parse_weights(text: str) -> dict[str, float]:
    """``name=value,name=value`` (or whitespace separated) -> dict."""
    out = {}
    for item in text.replace(",", " ").split():
        k, eq, v = item.partition("=")
        if not eq or not k:
            raise InvalidParameterError(f"weights: expected name=value items, got {item!r}")
        if k in out:  # as -m rejects a repeated parameter: never silently the last value
            raise InvalidParameterError(f"weights: {k} is given twice ({k}={out[k]:g} and {item}); give each feature once")
        try:
            out[k] = float(v)
        except ValueError:
            raise InvalidParameterError(f"weights: {k}: expected a number, got {v!r}") from None
        if not math.isfinite(out[k]):
            raise InvalidParameterError(f"weights: {k}: must be a finite number, got {v!r}")
    return out


def rerank(pool: Pool, weights: np.ndarray, label: str = "rerank") -> Selection:
    """Per segment, the candidate with the highest ``features @ weights`` (virtual empties score 0)."""
    s = pool.features @ np.asarray(weights, dtype=np.float64)
    return make_selection(label, pool, segment_argbest(s, pool.seg_off, True), weights=np.asarray(weights))


# --------------------------------------------------------------------------------------------------
def _envelope(a: np.ndarray, b: np.ndarray):
    """Upper envelope of lines a + γ b: (candidate order along γ, breakpoints between them).

    Ties (identical lines) keep the smallest index, as argmax does.
    """
    k = len(a)
    idx = np.lexsort((np.arange(k), -a, b))  # slope ascending, then intercept descending, then index
    hull: list[int] = []
    xs: list[float] = []
    for j in idx:
        if hull and b[hull[-1]] == b[j]:
            continue  # same slope, lower (or equal, later) intercept: never strictly on top
        while hull:
            h = hull[-1]
            x = (a[h] - a[j]) / (b[j] - b[h])  # where j overtakes h
            if xs and x <= xs[-1]:
                hull.pop()
                xs.pop()
            else:
                break
        if hull:
            xs.append((a[hull[-1]] - a[j]) / (b[j] - b[hull[-1]]))
        hull.append(int(j))
    return hull, xs


def line_search(values: np.ndarray, seg_off: np.ndarray, segs: np.ndarray, a: np.ndarray, b: np.ndarray,
                score_fn, higher_is_better: bool = True):
    """Best γ for the selection argmax(a + γ b) over the segments ``segs``; returns (γ, score)."""
    first_rows = []
    bx, bdelta = [], []
    for s in segs:
        lo, hi = seg_off[s], seg_off[s + 1]
        hull, xs = _envelope(a[lo:hi], b[lo:hi])
        first_rows.append(lo + hull[0])
        for t, x in enumerate(xs):
            bx.append(x)
            bdelta.append(values[lo + hull[t + 1]] - values[lo + hull[t]])
    total0 = values[np.asarray(first_rows, dtype=np.int64)].sum(0)
    if not bx:
        return 0.0, float(score_fn(total0))
    bx = np.asarray(bx)
    order = np.argsort(bx, kind="stable")
    bx = bx[order]
    deltas = np.asarray(bdelta)[order]
    totals = np.vstack([total0[None], total0[None] + np.cumsum(deltas, axis=0)])  # interval t: after t breakpoints
    # breakpoints at the same γ: only the state after the last of them is a real interval
    valid = np.ones(len(totals), dtype=bool)
    valid[1:-1] = bx[1:] > bx[:-1]
    sc = np.asarray(score_fn(totals), dtype=np.float64)
    key = np.where(valid, sc if higher_is_better else -sc, -np.inf)
    t = int(np.argmax(key))
    if t == 0:
        g = bx[0] - max(1.0, abs(bx[0]) * 0.1)
    elif t == len(bx):
        g = bx[-1] + max(1.0, abs(bx[-1]) * 0.1)
    else:
        g = 0.5 * (bx[t - 1] + bx[t])
    return float(g), float(sc[t])


@dataclass
class TuneResult:
    weights: np.ndarray
    score: float  # tuning-set score of the final weights
    initial_score: float
    history: list = field(default_factory=list)  # (restart, sweep, score)
    seed: int = DEFAULT_SEED


def tune(cs: CandidateStats, segments: Sequence[int], init: np.ndarray | None = None, seed: int = DEFAULT_SEED,
         restarts: int = 2, random_directions: int = 2, max_sweeps: int = 10, tol: float = 1e-9) -> TuneResult:
    """Coordinate ascent with exact line search of the corpus metric of ``cs`` over ``segments``."""
    pool = cs.pool
    F = pool.features
    nf = F.shape[1]
    if nf == 0:
        raise InvalidParameterError("tune: the n-best list has no features")
    seed = P.check(P.SIGNIFICANCE, "seed", seed)  # the one seed rule (0..2^32-1, or None)
    rng = np.random.default_rng(seed)
    segs = np.asarray(segments, dtype=np.int64)
    m = cs.metric
    sign = 1.0 if m.higher_is_better else -1.0

    def corpus(w):
        rows = segment_argbest(F @ w, pool.seg_off, True)[segs]
        return float(m.score(cs.values[rows].sum(0)))

    w0 = np.zeros(nf) if init is None else np.asarray(init, dtype=np.float64).copy()
    starts = [w0] + [rng.normal(size=nf) for _ in range(restarts)]
    best_w, best = None, None
    history = []
    initial = corpus(w0)
    for r, w in enumerate(starts):
        w = w.copy()
        cur = corpus(w)
        for sweep in range(max_sweeps):
            improved = False
            dirs = [np.eye(nf)[j] for j in range(nf)] + [d / np.linalg.norm(d) for d in rng.normal(size=(random_directions, nf))]
            for d in dirs:
                g, _ = line_search(cs.values, pool.seg_off, segs, F @ w, F @ d, m.score, m.higher_is_better)
                w_new = w + g * d
                new = corpus(w_new)  # re-evaluate exactly (envelope round-off)
                if sign * (new - cur) > tol:
                    w, cur, improved = w_new, new, True
            history.append((r, sweep, cur))
            if not improved:
                break
        if best is None or sign * (cur - best) > 0:
            best, best_w = cur, w
    return TuneResult(best_w, best, initial, history, int(seed))


def split_segments(n: int, tune_fraction: float = 0.5, seed: int = DEFAULT_SEED):
    """Random split of segment ids into (tune, test) with ``numpy.random.default_rng(seed)``."""
    tune_fraction = P.check(P.OPTIONS, "tune_fraction", tune_fraction)
    seed = P.check(P.SIGNIFICANCE, "seed", seed)
    perm = np.random.default_rng(seed).permutation(n)
    cut = int(round(n * tune_fraction))
    return np.sort(perm[:cut]), np.sort(perm[cut:])
