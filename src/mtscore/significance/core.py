"""Paired significance tests on per-segment statistics (docs/definitions.md §8).

Every test works on :class:`~mtscore.metrics.base.Stats` of any registered metric and uses only
``metric.score(summed)`` (vectorized over resamples) and ``metric.sentence_scores(stats)``;
nothing is re-tokenized. Several systems share one set of resample weights (paired design), so
baseline-vs-all and all-pairs cost one ``weights @ stats`` product per chunk for all systems.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from ..errors import InvalidParameterError, plural
from ..params import (BOOTSTRAP_METHODS, CORRECTIONS, DEFAULT_SEED, SIGN_METHODS, SIGNIFICANCE, TESTS, TIES,  # noqa: F401
                      check as _check)
from ..metrics.base import Metric, Stats
from . import _resample as rs
from ..progress import progress
from .._threadparam import with_threads
from .results import (BlockTTestResult, ComparisonMatrix, ConfidenceInterval, DifferenceInterval, PairedTestResult,
                      SignDirection, SignTestResult)

TEST_ALIASES = {"bootstrap": "bootstrap", "bs": "bootstrap", "paired-bs": "bootstrap",
                "ar": "ar", "paired-ar": "ar", "approximate-randomization": "ar", "randomization": "ar",
                "sign": "sign", "sign-test": "sign", "block-t": "block-t", "t-test": "block-t", "block": "block-t"}
DEFAULT_N = {"bootstrap": 1000, "ar": 10000}
SCHEMES = ("counts", "sacrebleu")
# observed differences at most this far from 0 count as "no difference" (score units)
ZERO_TOL = 1e-9


# ------------------------------------------------------------------------------------------------
# validation: every argument by its entry in the parameter table (mtscore.params.SIGNIFICANCE), one message
def canonical_test(test: str) -> str:
    if isinstance(test, str) and test.lower() in TEST_ALIASES:
        return TEST_ALIASES[test.lower()]
    raise SIGNIFICANCE["test"].fail("test", test)


def _check_n(n, name: str = "n") -> int:
    return int(_check(SIGNIFICANCE, name if name in SIGNIFICANCE else "n", n, name))


def _check_seed(seed):
    seed = _check(SIGNIFICANCE, "seed", seed)
    return None if seed is None else int(seed)


def _check_choice(name, value, valid, entry: str | None = None):
    return _check(SIGNIFICANCE, entry or name, value, name)


def _check_alpha(alpha) -> float:
    return float(_check(SIGNIFICANCE, "alpha", alpha))


def _check_level(level) -> float:
    return float(_check(SIGNIFICANCE, "level", level))


def check_systems(metric: Metric, systems: Mapping[str, Stats]) -> tuple[list[str], list[np.ndarray]]:
    if not isinstance(metric, Metric):
        raise InvalidParameterError(f"metric: expected a Metric object, got {type(metric).__name__}")
    if not isinstance(systems, Mapping):
        raise InvalidParameterError("systems: expected a mapping {name: Stats}")
    names = list(systems)
    if len(names) < 2:
        raise InvalidParameterError(f"systems: a comparison needs at least two systems, got {len(names)}")
    values = []
    for name in names:
        st = systems[name]
        if not isinstance(st, Stats):
            raise InvalidParameterError(f"systems[{name!r}]: expected Stats, got {type(st).__name__}")
        metric._check_stats(st)
        values.append(st.values)
    lens = [len(v) for v in values]
    if len(set(lens)) > 1:
        detail = ", ".join(f"{n}: {k}" for n, k in zip(names, lens))
        raise InvalidParameterError(f"systems: all systems need the same number of segments, got {detail}")
    if lens[0] < 1:
        raise InvalidParameterError("systems: no segments to compare (0 segments)")
    if lens[0] >= 2 ** 32:
        raise InvalidParameterError(f"systems: at most 2**32 - 1 segments, got {lens[0]}")
    return names, values


def test_signature(base: str, items: Sequence[tuple[str, object]]) -> str:
    """Insert test keys before the metric signature's trailing ``version:`` key."""
    extra = "|".join(f"{k}:{'none' if v is None else v}" for k, v in items)
    head, sep, tail = base.rpartition("|version:")
    if not sep:
        return f"{base}|{extra}"
    return f"{head}|{extra}|version:{tail}"


def _scores(metric: Metric, summed: np.ndarray) -> np.ndarray:
    return np.asarray(metric.score(summed), dtype=np.float64)


def _observed(metric: Metric, values: list[np.ndarray]) -> np.ndarray:
    return _scores(metric, np.stack([v.sum(axis=0) for v in values]))


def confidence_interval(scores: np.ndarray, observed: float, level: float = 0.95) -> ConfidenceInterval:
    """Percentile interval of resampled scores (sacreBLEU/Moses order statistics at 95%)."""
    s = np.sort(np.asarray(scores, dtype=np.float64))
    n = len(s)
    k = int(math.floor(n * (1.0 - level) / 2.0 + 1e-9))
    k = min(k, (n - 1) // 2)
    lo, hi = float(s[k]), float(s[n - k - 1])
    return ConfidenceInterval(float(observed), lo, hi, float(level), float(s.mean()), 0.5 * (hi - lo), n)


# ------------------------------------------------------------------------------------------------
# engines (shared by the pairwise functions and the matrix)
def bootstrap_scores(metric: Metric, values: list[np.ndarray], n: int, seed, scheme: str = "counts",
                     batch: int | None = None, rng: "rs.Draws | np.random.Generator | None" = None) -> np.ndarray:
    """Scores of every system on ``n`` shared bootstrap resamples: array [K, n]. The resamples are drawn by
    ``rng`` (a :class:`Draws` or a generator, whose stream continues) when given, else by ``Draws(seed)``."""
    N, C = values[0].shape
    S = np.hstack(values)
    S = S.astype(rs.exact_dtype(S, float(N)))
    out = np.empty((len(values), n))
    draws = rs.Draws.of(seed if rng is None else rng)
    start = 0
    with progress("bootstrap", total=n, unit="resamples") as bar:
        for w in draws.bootstrap_weights(N, n, scheme, batch):
            k = w.shape[0]
            summed = rs.project(w, S).reshape(k, len(values), C)
            out[:, start:start + k] = _scores(metric, summed).T
            start += k
            bar.update(k)
    return out


def ar_statistics(metric: Metric, values: list[np.ndarray], pairs: list[tuple[int, int]], n: int, seed,
                  batch: int | None = None, rng: "rs.Draws | np.random.Generator | None" = None) -> np.ndarray:
    """|score(shuffled a) - score(shuffled b)| for each pair and trial: array [n_pairs, n] (swap masks drawn by
    ``rng`` when given, else by ``Draws(seed)``)."""
    N, C = values[0].shape
    K = len(values)
    sums = np.stack([v.sum(axis=0) for v in values])  # [K, C]
    ia = np.array([a for a, _ in pairs])
    ib = np.array([b for _, b in pairs])
    # project the masks on the pair differences (fewer columns when pairs < systems, e.g. one pair)
    # or on every system's statistics (then difference the projections): the same numbers either way
    by_pair = len(pairs) < K
    S = np.hstack([values[a] - values[b] for a, b in pairs]) if by_pair else np.hstack(values)
    S = S.astype(rs.exact_dtype(S, None))
    out = np.empty((len(pairs), n))
    draws = rs.Draws.of(seed if rng is None else rng)
    start = 0
    with progress("randomization", total=n, unit="trials") as bar:
        for mask in draws.ar_masks(N, n, batch):
            k = mask.shape[0]
            if by_pair:
                d = rs.project(mask, S).reshape(k, len(pairs), C)
            else:
                P = rs.project(mask, S).reshape(k, K, C)  # masked sums: the "pos" selection of each system
                d = P[:, ia, :] - P[:, ib, :]
            # sacreBLEU: shuf_a = pos@a + neg@b = sum_b + P_a - P_b ; shuf_b = sum_a - P_a + P_b
            shuf_a = sums[ib][None] + d
            shuf_b = sums[ia][None] - d
            out[:, start:start + k] = np.abs(_scores(metric, shuf_a) - _scores(metric, shuf_b)).T
            start += k
            bar.update(k)
    return out


def _p_from_counts(c_gt: int, c_ge: int, n: int, diff: float, ties: str) -> tuple[float, float, float]:
    p_strict = (c_gt + 1) / (n + 1)
    p_incl = (c_ge + 1) / (n + 1)
    if ties == "strict":
        p = p_strict
    elif ties == "inclusive":
        p = p_incl
    else:  # sacrebleu convention + the zero-difference rule
        p = 1.0 if diff <= ZERO_TOL else p_strict
    return p, p_strict, p_incl


def _bootstrap_pair(sa: np.ndarray, sb: np.ndarray, obs_a: float, obs_b: float, method: str, ties: str,
                    higher_is_better: bool):
    """(p, p_strict, p_inclusive, null) of one pair from its resample scores."""
    n = len(sa)
    diff = abs(obs_b - obs_a)
    if method == "koehn":
        sign = 1.0 if higher_is_better else -1.0
        if diff <= ZERO_TOL:
            null = sign * (sb - sa)
            return 1.0, 1.0, 1.0, null
        better_b = (obs_b > obs_a) == higher_is_better
        null = sign * ((sb - sa) if better_b else (sa - sb))  # > 0: the observed winner wins the resample
        p_incl = float(np.count_nonzero(null <= 0)) / n
        p_strict = float(np.count_nonzero(null < 0)) / n
        return p_incl, p_strict, p_incl, null
    d = np.abs(sb - sa)
    null = d - d.mean()
    c_gt = int(np.count_nonzero(null > diff))
    c_ge = int(np.count_nonzero(null >= diff))
    if method == "moses":
        return c_ge / n, c_gt / n, c_ge / n, null
    p, p_strict, p_incl = _p_from_counts(c_gt, c_ge, n, diff, ties)
    return p, p_strict, p_incl, null


def correction_factors(p: Sequence[float], correction: str, alpha: float) -> np.ndarray:
    """Per-comparison factor ``f`` such that ``f * p_i < alpha`` exactly when the adjusted p-value
    of comparison ``i`` is below ``alpha`` (the test is rejected after the correction).

    none: 1; Bonferroni: m; Holm (step-down): ``m - r`` for the r-th smallest p (0-based) while
    the rejections continue, then ``m - k`` for every comparison from the first retained rank k on
    (``(m - k) * p_(i) >= (m - k) * p_(k) >= alpha`` there). Inverting the test at ``alpha / f``
    gives an interval that excludes 0 exactly for the rejected comparisons.
    """
    _check_choice("correction", correction, CORRECTIONS)
    p = np.asarray(p, dtype=np.float64)
    m = len(p)
    if correction == "none" or m == 0:
        return np.ones(m, dtype=np.int64)
    if correction == "bonferroni":
        return np.full(m, m, dtype=np.int64)
    adj = adjust_pvalues(p, "holm")
    order = np.argsort(p, kind="stable")
    out = np.empty(m, dtype=np.int64)
    k = None
    for r, i in enumerate(order):
        if k is None and not adj[i] < alpha:
            k = r
        out[i] = m - (r if k is None else k)
    return out


def _bootstrap_p_at(sa, sb, obs_a, obs_b, shift, method, ties, hib) -> float:
    """p-value of H0: score_b - score_a = shift (b's observed and resampled scores moved by -shift)."""
    return _bootstrap_pair(sa, sb - shift, obs_a, obs_b - shift, method, ties, hib)[0]


def _grid_counts_ref(sa, sb, shifts, diffs):
    """Per shift ``x``: with ``d = |(sb - x) - sa|`` and ``null = d - d.mean()``, the counts of ``null > diff`` and
    ``null >= diff`` (NumPy, blocks of shifts in reused buffers; the reference of
    ``_cmetrics.bootstrap_grid_counts``). Row means are NumPy's pairwise sums of each row, as of a 1-D array."""
    n = len(sa)
    rows = max(1, (1 << 15) // max(n, 1))
    buf = np.empty((rows, n), dtype=np.float64)
    tmp = np.empty((rows, n), dtype=bool)
    gt = np.zeros(len(shifts), dtype=np.int64)
    ge = np.zeros(len(shifts), dtype=np.int64)
    for lo in range(0, len(shifts), rows):
        xs = shifts[lo:lo + rows]
        k = len(xs)
        d = buf[:k]
        np.subtract(sb[None, :], xs[:, None], out=d)
        np.subtract(d, sa[None, :], out=d)
        np.abs(d, out=d)
        np.subtract(d, d.mean(axis=1)[:, None], out=d)
        dv = diffs[lo:lo + k, None]
        gt[lo:lo + k] = np.count_nonzero(np.greater(d, dv, out=tmp[:k]), axis=1)
        ge[lo:lo + k] = np.count_nonzero(np.greater_equal(d, dv, out=tmp[:k]), axis=1)
    return gt, ge


def _p_grid(sa, sb, obs_a, obs_b, shifts, method, ties, hib) -> list[float]:
    """``_bootstrap_p_at`` of every shift at once: the same floats (the null counts of the sacrebleu and moses
    methods from the compiled kernel ``bootstrap_grid_counts``, or its NumPy reference)."""
    from ..ckernels import bootstrap_grid_counts
    n = len(sa)
    xs = np.asarray(shifts, dtype=np.float64)
    diffs = [abs((obs_b - x) - obs_a) for x in xs.tolist()]  # Python floats, as the scalar path
    if method == "koehn":
        sign = 1.0 if hib else -1.0
        out = []
        for x, diff in zip(xs.tolist(), diffs):
            if diff <= ZERO_TOL:
                out.append(1.0)
                continue
            sb2 = sb - x
            better_b = ((obs_b - x) > obs_a) == hib
            null = sign * ((sb2 - sa) if better_b else (sa - sb2))
            out.append(float(np.count_nonzero(null <= 0)) / n)
        return out
    gt, ge = bootstrap_grid_counts(np.ascontiguousarray(sa, dtype=np.float64), np.ascontiguousarray(sb, dtype=np.float64),
                                   xs, np.array(diffs, dtype=np.float64))
    gt, ge = gt.tolist(), ge.tolist()
    if method == "moses":
        return [c / n for c in ge]
    return [_p_from_counts(a, b, n, d, ties)[0] for a, b, d in zip(gt, ge, diffs)]


def _p_one(sa, sb, obs_a, obs_b, method, ties, hib):
    """``p(shift)`` = ``_p_grid(..., [shift], ...)[0]`` (the same float), for one shift at a time: the grid kernel
    prepared once (:func:`mtscore.ckernels.grid_counter`)."""
    if method == "koehn":
        return lambda x: _p_grid(sa, sb, obs_a, obs_b, np.array([x], dtype=np.float64), method, ties, hib)[0]
    from ..ckernels import grid_counter
    count = grid_counter(sa, sb)
    n = len(sa)

    def p(x: float) -> float:
        x = float(x)
        diff = abs((obs_b - x) - obs_a)  # (as _p_grid)
        gt, ge = count(x, diff)
        return ge / n if method == "moses" else _p_from_counts(gt, ge, n, diff, ties)[0]
    return p


def _keep_grid(sa, sb, obs_a, obs_b, xs, method, ties, hib, factor, alpha) -> np.ndarray:
    """``keep`` of :func:`difference_interval` at every grid point (vectorized)."""
    return np.array([not factor * p < alpha for p in _p_grid(sa, sb, obs_a, obs_b, np.asarray(xs, dtype=np.float64),
                                                             method, ties, hib)], dtype=bool)


def difference_interval(sa: np.ndarray, sb: np.ndarray, obs_a: float, obs_b: float, *, alpha: float = 0.05,
                        factor: int = 1, correction: str | None = None, method: str = "sacrebleu",
                        ties: str = "sacrebleu", higher_is_better: bool = True,
                        grid: int = 801) -> DifferenceInterval:
    """The confidence set of ``score_b - score_a`` that inverts the paired bootstrap test.

    ``sa``/``sb``: the two systems' scores on the same resamples (``bootstrap_scores``). A shift
    ``d`` is in the set when ``factor * p(d) >= alpha``, ``p(d)`` being the test's p-value (same
    method and tie rule) with system b's scores moved by ``-d``; ``p(0)`` is the test's own
    p-value bit for bit. The set is evaluated on a grid that contains 0 and the observed
    difference and spans the resampled differences with a margin on both sides; boundaries between
    grid points are refined by bisection. Memory O(n); about ``grid`` evaluations of O(n).
    """
    sa = np.asarray(sa, dtype=np.float64)
    sb = np.asarray(sb, dtype=np.float64)
    alpha = _check_alpha(alpha)
    factor = int(_check(SIGNIFICANCE, "factor", factor))
    obs = float(obs_b) - float(obs_a)
    d = sb - sa

    p_at = _p_one(sa, sb, obs_a, obs_b, method, ties, higher_is_better)

    def keep(shift: float) -> bool:  # (_bootstrap_p_at through the grid kernel: the same p-value)
        return not factor * p_at(shift) < alpha

    lo0 = float(min(d.min(), 0.0, obs))
    hi0 = float(max(d.max(), 0.0, obs))
    pad = max(hi0 - lo0, 1e-9 * max(1.0, abs(obs)))
    for _ in range(8):
        xs = _union_sorted(np.linspace(lo0 - pad, hi0 + pad, grid), [0.0, obs])
        ok = _keep_grid(sa, sb, obs_a, obs_b, xs, method, ties, higher_is_better, factor, alpha)
        if not (ok[0] or ok[-1]):
            break
        pad *= 4.0
    pieces = []
    i = 0
    n = len(xs)
    while i < n:
        if not ok[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and ok[j + 1]:
            j += 1
        low = -math.inf if i == 0 else _boundary(keep, float(xs[i]), float(xs[i - 1]))
        high = math.inf if j == n - 1 else _boundary(keep, float(xs[j]), float(xs[j + 1]))
        pieces.append((low, high))
        i = j + 1
    if not pieces:  # cannot happen for the tests here (the observed difference is kept), but be total
        pieces = [(obs, obs)]
    return DifferenceInterval(obs, pieces[0][0], pieces[-1][1], 1.0 - alpha / factor, alpha, factor,
                              None if correction in (None, "none") else correction, tuple(pieces))


def _union_sorted(a, b) -> np.ndarray:
    """``numpy.union1d(a, b)`` of finite values without ``numpy.unique`` (which imports numpy.ma, ~40 ms, to ask
    whether its input is masked); anything else goes to ``union1d``."""
    x = np.concatenate((np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()))
    if not np.isfinite(x).all():
        return np.union1d(a, b)
    x.sort()
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if x.size else x


def _boundary(keep, inside: float, outside: float, steps: int = 40) -> float:
    """Bisect between a kept shift and a rejected one; return the last kept point found."""
    for _ in range(steps):
        mid = 0.5 * (inside + outside)
        if mid in (inside, outside):
            break
        if keep(mid):
            inside = mid
        else:
            outside = mid
    return inside


@with_threads
def score_intervals(metric, values: Sequence[np.ndarray], *, n: int = 1000, seed=DEFAULT_SEED, level: float = 0.95,
                    sacrebleu_compat: bool = False, batch: int | None = None) -> list[ConfidenceInterval]:
    """Percentile intervals of each system's score on the shared bootstrap resamples.

    The same resamples and the same numbers as the intervals of :func:`compare_stats` with the
    same ``n``, ``seed`` and scheme (the resample weights depend on the number of segments, ``n``
    and ``seed`` only). ``metric`` needs only ``score(summed)``; ``values`` are [N, C] arrays.
    """
    values = [np.asarray(getattr(v, "values", v), dtype=np.float64) for v in values]
    if not values or len({v.shape for v in values}) != 1 or values[0].shape[0] < 1:
        raise InvalidParameterError("values: one or more [N, C] statistics arrays of the same shape, N >= 1")
    n = _check_n(n)
    seed = _check_seed(seed)
    level = _check_level(level)
    sc = bootstrap_scores(metric, values, n, seed, "sacrebleu" if sacrebleu_compat else "counts", batch)
    obs = _observed(metric, values)
    return [confidence_interval(sc[k], obs[k], level) for k in range(len(values))]


# ------------------------------------------------------------------------------------------------
# pairwise API
def _pair_systems(metric, stats_a, stats_b, names):
    if names is None:
        names = ("A", "B")
    if len(names) != 2 or names[0] == names[1]:
        raise InvalidParameterError(f"names: need two different system names, got {names!r}")
    return {names[0]: stats_a, names[1]: stats_b}


@with_threads
def paired_bootstrap(metric: Metric, stats_a: Stats, stats_b: Stats, *, n: int = 1000, seed=DEFAULT_SEED,
                     method: str = "sacrebleu", ties: str = "sacrebleu", level: float = 0.95,
                     sacrebleu_compat: bool = False, batch: int | None = None,
                     names: Sequence[str] | None = None) -> PairedTestResult:
    """Paired bootstrap resampling of ``b`` against the baseline ``a`` (Koehn 2004; docs/definitions.md §8.1).

    ``method="sacrebleu"`` (default): centred |Δ| statistic, strict '>' and p = (c+1)/(n+1);
    ``"moses"``: the Moses script ('>=', p = c/n); ``"koehn"``: p = share of resamples the
    observed winner does not win. ``sacrebleu_compat=True`` draws sacreBLEU's exact indices.
    """
    m = compare_stats(metric, _pair_systems(metric, stats_a, stats_b, names), test="bootstrap", n=n, seed=seed,
                      method=method, ties=ties, level=level, sacrebleu_compat=sacrebleu_compat, batch=batch,
                      correction="none")
    return m.results[0]


@with_threads
def approximate_randomization(metric: Metric, stats_a: Stats, stats_b: Stats, *, n: int = 10000,
                              seed=DEFAULT_SEED, ties: str = "sacrebleu", n_ci: int = 0, level: float = 0.95,
                              sacrebleu_compat: bool = False, batch: int | None = None,
                              names: Sequence[str] | None = None) -> PairedTestResult:
    """Paired approximate randomization (Riezler & Maxwell 2005; sacreBLEU/MultEval, docs/definitions.md §8.3).

    ``n_ci > 0`` adds bootstrap confidence intervals from ``n_ci`` resamples drawn after the masks.
    """
    m = compare_stats(metric, _pair_systems(metric, stats_a, stats_b, names), test="ar", n=n, seed=seed,
                      ties=ties, n_ci=n_ci, level=level, sacrebleu_compat=sacrebleu_compat, batch=batch,
                      correction="none")
    return m.results[0]


def _binom_two_sided(n_plus: int, n_minus: int) -> float:
    n = n_plus + n_minus
    if n == 0:
        return 1.0
    k = max(n_plus, n_minus)
    from scipy import stats as _sps  # here: only the sign test needs SciPy (bootstrap and AR never load it)
    return float(min(1.0, 2.0 * _sps.binom.sf(k - 1, n, 0.5)))


def _sign_direction(metric: Metric, base: np.ndarray, cand: np.ndarray, bname: str, cname: str,
                    method: str, sent_base=None, sent_cand=None) -> SignDirection:
    sign = 1.0 if metric.higher_is_better else -1.0
    same = np.all(base == cand, axis=1)
    if method == "segment":
        delta = sign * (sent_cand - sent_base)
    else:
        total = base.sum(axis=0)
        comp = total[None, :] - base + cand  # all N composite sets at once
        delta = sign * (_scores(metric, comp) - float(_scores(metric, total)))
    delta = np.where(same, 0.0, delta)
    n_plus = int(np.count_nonzero(delta > 0))
    n_minus = int(np.count_nonzero(delta < 0))
    ties = len(delta) - n_plus - n_minus
    return SignDirection(bname, cname, n_plus, n_minus, ties, _binom_two_sided(n_plus, n_minus))


def sign_test(metric: Metric, stats_a: Stats, stats_b: Stats, *, method: str = "auto", alpha: float = 0.05,
              names: Sequence[str] | None = None) -> SignTestResult:
    """Sign test in both directions (Collins et al. 2005; Chiang et al. 2008 §3.1; docs/definitions.md §8.2)."""
    systems = _pair_systems(metric, stats_a, stats_b, names)
    return _sign_pair(metric, systems, *list(systems), method=method, alpha=alpha)


def _sign_pair(metric, systems, a, b, method="auto", alpha=0.05, base_sig=None) -> SignTestResult:
    names, values = check_systems(metric, {a: systems[a], b: systems[b]})
    _check_choice("method", method, SIGN_METHODS, "sign_method")
    alpha = _check_alpha(alpha)
    if method == "auto":
        method = "segment" if metric.decomposable else "composite"
    va, vb = values
    sa = sb = None
    if method == "segment":
        sa = np.asarray(metric.sentence_scores(systems[a]), dtype=np.float64)
        sb = np.asarray(metric.sentence_scores(systems[b]), dtype=np.float64)
    fwd = _sign_direction(metric, va, vb, a, b, method, sa, sb)
    bwd = _sign_direction(metric, vb, va, b, a, method, sb, sa)
    obs = _observed(metric, values)
    sig = test_signature(base_sig or systems[a].signature, [("test", "sign"), ("sign", method)])
    return SignTestResult(metric.name, method, a, b, float(obs[0]), float(obs[1]), fwd, bwd, alpha, sig,
                          bool(metric.higher_is_better))


def block_t_test(metric: Metric, stats_a: Stats, stats_b: Stats, *, blocks: int = 20,
                 block_size: int | None = None, names: Sequence[str] | None = None) -> BlockTTestResult:
    """Papineni et al. (2002) §3: ``blocks`` consecutive blocks of ``block_size`` segments
    (default ``N // blocks``, remainder dropped), corpus score per block, paired t on b - a."""
    systems = _pair_systems(metric, stats_a, stats_b, names)
    return _block_pair(metric, systems, *list(systems), blocks=blocks, block_size=block_size)


def _block_pair(metric, systems, a, b, blocks=20, block_size=None, base_sig=None) -> BlockTTestResult:
    names, values = check_systems(metric, {a: systems[a], b: systems[b]})
    blocks = int(_check(SIGNIFICANCE, "blocks", blocks))
    N = len(values[0])
    if block_size is None:
        size = N // blocks
        if size < 1:
            raise InvalidParameterError(f"blocks: {plural(blocks, 'block')} {'needs' if blocks == 1 else 'need'} at least {plural(blocks, 'segment')}, got {N}")
    else:
        size = _check_n(block_size, "block_size")
        if blocks * size > N:
            raise InvalidParameterError(
                f"block_size: {plural(blocks, 'block')} of {plural(size, 'segment')} {'needs' if blocks == 1 else 'need'} {plural(blocks * size, 'segment')}, got {N}")
    C = values[0].shape[1]
    ba = _scores(metric, values[0][:blocks * size].reshape(blocks, size, C).sum(axis=1))
    bb = _scores(metric, values[1][:blocks * size].reshape(blocks, size, C).sum(axis=1))
    d = bb - ba
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    df = blocks - 1
    if sd == 0.0:
        t = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
        p = 1.0 if mean == 0.0 else 0.0
    else:
        t = mean / (sd / math.sqrt(blocks))
        from scipy import stats as _sps  # here: only the block t-test needs SciPy
        p = float(2.0 * _sps.t.sf(abs(t), df))
    obs = _observed(metric, values)
    items = [("test", "block-t"), ("blocks", blocks)]
    if block_size is not None:
        items.append(("bsize", size))
    sig = test_signature(base_sig or systems[a].signature, items)
    return BlockTTestResult(metric.name, a, b, float(obs[0]), float(obs[1]), int(blocks), int(size), ba, bb,
                            float(t), int(df), float(p), sig)


# ------------------------------------------------------------------------------------------------
# multiple comparisons
def adjust_pvalues(p: Sequence[float], correction: str = "holm") -> np.ndarray:
    """Holm (step-down, monotone) or Bonferroni adjusted p-values, capped at 1."""
    _check_choice("correction", correction, CORRECTIONS)
    p = np.asarray(p, dtype=np.float64)
    m = len(p)
    if correction == "none" or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


@with_threads
def compare_stats(metric: Metric, systems: Mapping[str, Stats], *, test: str = "bootstrap", n: int | None = None,
                  seed=DEFAULT_SEED, baseline: str | None = None, all_pairs: bool = False,
                  correction: str = "holm", alpha: float = 0.05, method: str | None = None,
                  ties: str = "sacrebleu", level: float = 0.95, n_ci: int | None = None,
                  sacrebleu_compat: bool = False, batch: int | None = None, blocks: int = 20,
                  block_size: int | None = None) -> ComparisonMatrix:
    """Compare several systems (``{name: Stats}``): baseline vs all (default baseline = first) or all pairs.

    ``test``: bootstrap | ar | sign | block-t. Resampling tests share the resample weights among
    all systems (paired design), so K systems cost one ``weights @ stats`` product per chunk.
    """
    test = canonical_test(test)
    names, values = check_systems(metric, systems)
    _check_choice("correction", correction, CORRECTIONS)
    _check_choice("ties", ties, TIES)
    alpha = _check_alpha(alpha)
    level = _check_level(level)
    seed = _check_seed(seed)
    if n is None:
        n = DEFAULT_N.get(test, 1)  # sign / block-t draw nothing
    else:
        n = _check_n(n)
    if batch is not None:
        batch = _check_n(batch, "batch")
    if test == "bootstrap":
        method = _check_choice("method", method or "sacrebleu", BOOTSTRAP_METHODS, "bootstrap_method")
    elif test == "sign":
        method = _check_choice("method", method or "auto", SIGN_METHODS, "sign_method")
    elif method not in (None, "sacrebleu"):
        raise InvalidParameterError(f"method: the {test} test has no method option, got {method!r}")
    if n_ci is not None and n_ci != 0:
        n_ci = _check_n(n_ci, "n_ci")
    scheme = "sacrebleu" if sacrebleu_compat else "counts"
    if all_pairs:
        if baseline is not None:
            raise InvalidParameterError("baseline: give a baseline or all_pairs=True, not both")
        pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
        mode, base_name = "all-pairs", None
    else:
        base_name = names[0] if baseline is None else baseline
        if base_name not in names:
            raise InvalidParameterError.choice("baseline", baseline, names)
        bi = names.index(base_name)
        pairs = [(bi, j) for j in range(len(names)) if j != bi]
        mode = "baseline"
    obs = _observed(metric, values)
    base_sig = systems[names[0]].signature
    results: list = []
    cis: list = [None] * len(names)
    sc = None

    if test == "bootstrap":
        items = [("test", "bs"), ("bs", n), ("seed", seed), ("resample", scheme)]
        if method != "sacrebleu":
            items.append(("bsm", method))
        if ties != "sacrebleu":
            items.append(("ties", ties))
        sig = test_signature(base_sig, items)
        sc = bootstrap_scores(metric, values, n, seed, scheme, batch)
        cis = [confidence_interval(sc[k], obs[k], level) for k in range(len(names))]
        for a, b in pairs:
            p, ps, pi, null = _bootstrap_pair(sc[a], sc[b], obs[a], obs[b], method, ties, metric.higher_is_better)
            results.append(PairedTestResult("bootstrap", method, metric.name, names[a], names[b], float(obs[a]),
                                            float(obs[b]), p, ps, pi, n, seed, sig, null, cis[a], cis[b],
                                            bool(metric.higher_is_better), sc[b] - sc[a]))
    elif test == "ar":
        items = [("test", "ar"), ("ar", n), ("seed", seed)]
        if n_ci:
            items += [("bs", n_ci), ("resample", scheme)]
        if ties != "sacrebleu":
            items.append(("ties", ties))
        sig = test_signature(base_sig, items)
        rng = rs.Draws(seed)  # one stream: the AR masks, then the bootstrap resamples of the CIs
        null = ar_statistics(metric, values, pairs, n, seed, batch, rng=rng)
        if n_ci:
            sc = bootstrap_scores(metric, values, n_ci, seed, scheme, batch, rng=rng)
            cis = [confidence_interval(sc[k], obs[k], level) for k in range(len(names))]
        for q, (a, b) in enumerate(pairs):
            diff = abs(obs[b] - obs[a])
            c_gt = int(np.count_nonzero(null[q] > diff))
            c_ge = int(np.count_nonzero(null[q] >= diff))
            p, ps, pi = _p_from_counts(c_gt, c_ge, n, diff, ties)
            results.append(PairedTestResult("ar", "sacrebleu", metric.name, names[a], names[b], float(obs[a]),
                                            float(obs[b]), p, ps, pi, n, seed, sig, null[q], cis[a], cis[b],
                                            bool(metric.higher_is_better)))
    elif test == "sign":
        for a, b in pairs:
            results.append(_sign_pair(metric, systems, names[a], names[b], method, alpha, base_sig))
        sig = results[0].signature
    else:
        for a, b in pairs:
            results.append(_block_pair(metric, systems, names[a], names[b], blocks, block_size, base_sig))
        sig = results[0].signature

    raw = np.array([r.p_value for r in results])
    adj = adjust_pvalues(raw, correction)
    K = len(names)
    P = np.full((K, K), np.nan)
    PA = np.full((K, K), np.nan)
    for (a, b), p, pa in zip(pairs, raw, adj):
        P[a, b] = P[b, a] = p
        PA[a, b] = PA[b, a] = pa
    if len(pairs) > 1 and correction != "none":
        sig = test_signature(sig, [("corr", correction)])
    delta_cis: list = [None] * len(pairs)
    if test == "bootstrap":
        factors = correction_factors(raw, correction, alpha)
        for q, (a, b) in enumerate(pairs):
            delta_cis[q] = difference_interval(sc[a], sc[b], obs[a], obs[b], alpha=alpha, factor=int(factors[q]),
                                               correction=correction if len(pairs) > 1 else None,
                                               method=method, ties=ties,
                                               higher_is_better=bool(metric.higher_is_better))
    return ComparisonMatrix(metric.name, test, tuple(names), tuple(float(x) for x in obs), mode, base_name,
                            correction, P, PA, tuple(results), sig, alpha, tuple(cis), tuple(delta_cis))


from ..ckernels import register_reference  # noqa: E402

register_reference("bootstrap_grid_counts", _grid_counts_ref)
