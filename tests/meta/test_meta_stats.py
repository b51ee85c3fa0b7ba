"""Meta-evaluation statistics against docs/definitions.md §9, SciPy, and plain-Python O(n^2) oracles."""
import itertools
import math

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import example, given, settings, strategies as st

from mtscore.errors import InvalidParameterError
from mtscore.meta import stats as S
from mtscore.meta.compare import bootstrap_test, permutation_test, williams_test

HUMAN = [1, 2, 2, 3, 4]
METRIC = [1, 2.5, 2, 2, 8]


# ---------------------------------------------------------------- oracles (plain Python)
def oracle_counts(x, y):
    c = dict(C=0, D=0, Th=0, Tm=0, Thm=0)
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0 and dy == 0:
            c["Thm"] += 1
        elif dy == 0:
            c["Th"] += 1
        elif dx == 0:
            c["Tm"] += 1
        elif (dx > 0) == (dy > 0):
            c["C"] += 1
        else:
            c["D"] += 1
    return c


def oracle_darr(x, y, thr):
    con = dis = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        d = y[i] - y[j]
        if abs(d) >= thr:
            if (d > 0 and x[i] > x[j]) or (d < 0 and x[i] < x[j]):
                con += 1
            else:
                dis += 1
    return (con - dis) / (con + dis) if con + dis else math.nan


def oracle_tie_calibration(x, y, groups, variant="acc_eq"):
    """mt-metrics-eval tau_optimization re-done naively: try every epsilon, recount every pair."""
    by = {}
    for xi, yi, g in zip(x, y, groups):
        by.setdefault(g, []).append((xi, yi))
    cands = sorted({0.0} | {abs(a[0] - b[0]) for v in by.values() for a, b in itertools.combinations(v, 2)})
    best, best_e = -math.inf, None
    for e in cands:
        vals = []
        for v in by.values():
            if len(v) < 2:
                continue
            num = tot = 0
            for a, b in itertools.combinations(v, 2):
                dx = 0.0 if abs(a[0] - b[0]) <= e else a[0] - b[0]
                dy = a[1] - b[1]
                good = (dx == 0 and dy == 0) or (dx != 0 and dy != 0 and (dx > 0) == (dy > 0))
                num += 1 if good else (0 if variant == "acc_eq" else -1)
                tot += 1
            vals.append(num / tot)
        val = sum(vals) / len(vals)
        if val > best + 1e-12:
            best, best_e = val, e
    return best, best_e


# ---------------------------------------------------------------- docs/definitions.md §9 worked example
def test_spec_worked_example():
    c = S.pair_counts(METRIC, HUMAN)
    assert (c.con, c.dis, c.ties_human, c.ties_metric, c.ties_both) == (7, 1, 1, 1, 0)
    assert S.kendall(METRIC, HUMAN, "b") == pytest.approx(6 / 9, abs=1e-12)
    assert round(S.kendall(METRIC, HUMAN, "b"), 4) == 0.6667
    assert S.kendall(METRIC, HUMAN, "c") == pytest.approx(0.64, abs=1e-12)
    assert S.kendall(METRIC, HUMAN, "eq") == pytest.approx(0.4, abs=1e-12)
    assert S.kendall(METRIC, HUMAN, "acc_eq") == pytest.approx(0.7, abs=1e-12)
    assert S.kendall(METRIC, HUMAN, "wmt10") == pytest.approx(5 / 9, abs=1e-12)
    assert round(S.kendall(METRIC, HUMAN, "wmt10"), 4) == 0.5556
    assert round(S.pearson(METRIC, HUMAN), 4) == 0.8479
    assert round(S.spearman(METRIC, HUMAN), 4) == 0.7632
    tc = S.tie_calibration(METRIC, HUMAN)
    assert tc.value == pytest.approx(0.8) and tc.epsilon == 0.5
    curve = dict(zip(tc.thresholds.tolist(), tc.values.tolist()))
    assert curve[0.0] == pytest.approx(0.7) and curve[1.0] == pytest.approx(0.6)


def test_pairwise_accuracy_is_sign_agreement():
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 4, 9).astype(float), rng.integers(0, 4, 9).astype(float)
    agree = np.mean([np.sign(x[i] - x[j]) == np.sign(y[i] - y[j]) for i, j in itertools.combinations(range(9), 2)])
    assert S.pairwise_accuracy(x, y) == pytest.approx(agree)


def test_errors():
    with pytest.raises(InvalidParameterError):
        S.kendall([1, 2], [1, 2, 3])
    with pytest.raises(InvalidParameterError):
        S.kendall([1, 2], [1, 2], variant="zz")
    with pytest.raises(InvalidParameterError):
        S.pearson([1, np.nan], [1, 2])
    assert math.isnan(S.kendall([1, 1, 1], [1, 2, 3], "b"))


# ---------------------------------------------------------------- property tests
vals = st.lists(st.integers(0, 5), min_size=2, max_size=80)


@settings(max_examples=60, deadline=None)
@given(vals, st.integers(0, 2 ** 31 - 1))
def test_counts_and_scipy(ys, seed):
    rng = np.random.default_rng(seed)
    n = len(ys)
    y = np.array(ys, dtype=float)
    x = rng.integers(0, 6, n).astype(float)
    c = S.pair_counts(x, y)
    o = oracle_counts(x, y)
    assert (c.con, c.dis, c.ties_human, c.ties_metric, c.ties_both) == (o["C"], o["D"], o["Th"], o["Tm"], o["Thm"])
    for v in ("b", "c"):
        ref = ss.kendalltau(x, y, variant=v).statistic
        got = S.kendall(x, y, v)
        assert (math.isnan(ref) and math.isnan(got)) or got == pytest.approx(ref, abs=1e-12)
    sp = ss.spearmanr(x, y).statistic
    got = S.spearman(x, y)
    assert (math.isnan(sp) and math.isnan(got)) or got == pytest.approx(sp, abs=1e-9)
    pr = ss.pearsonr(x, y).statistic if np.ptp(x) > 0 and np.ptp(y) > 0 else math.nan
    got = S.pearson(x, y)
    assert (math.isnan(pr) and math.isnan(got)) or got == pytest.approx(pr, abs=1e-9)
    d = oracle_darr(x, y, 2)
    got = S.kendall(x, y, "darr", thresh=2)
    assert (math.isnan(d) and math.isnan(got)) or got == pytest.approx(d, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(50, 400), st.integers(0, 2 ** 31 - 1))
def test_large_groups_use_fenwick_and_agree(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 30, n).astype(float)
    y = rng.integers(0, 30, n).astype(float)
    c = S.pair_counts(x, y)
    o = oracle_counts(x, y)
    assert (c.con, c.dis, c.ties_human, c.ties_metric, c.ties_both) == (o["C"], o["D"], o["Th"], o["Tm"], o["Thm"])
    assert S.kendall(x, y, "darr", thresh=5) == pytest.approx(oracle_darr(x, y, 5), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 60), st.integers(0, 2 ** 31 - 1))
def test_weights_equal_expanded_data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, n).astype(float)
    y = rng.integers(0, 5, n).astype(float)
    w = rng.integers(0, 4, n).astype(float)
    if w.sum() < 2:
        w[:2] = 1
    ex, ey = np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int))
    assert S.pair_counts(x, y, w).as_array().tolist() == S.pair_counts(ex, ey).as_array().tolist()
    for f in (S.pearson, S.spearman):
        a, b = f(x, y, w), f(ex, ey)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-9)
    for v in ("b", "c", "eq", "acc_eq", "wmt10", "darr"):
        a, b = S.kendall(x, y, v, thresh=2, weights=w), S.kendall(ex, ey, v, thresh=2)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)
    # tie calibration with cell weights == on the expanded data
    gr = S.Grouped(x, y, np.array([0, n]))
    v, e = gr.pairs().best("acc_eq", cell_weights=w[None])
    ref, ref_e = oracle_tie_calibration(ex.tolist(), ey.tolist(), [0] * len(ex))
    assert v[0] == pytest.approx(ref, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(1, 6), st.sampled_from(["acc_eq", "eq"]), st.integers(0, 2 ** 31 - 1))
@example(n=5, n_groups=1, variant="eq", seed=72)  # equal values 1 ulp apart on the curve: the smaller epsilon wins
def test_tie_calibration_matches_naive_search(n, n_groups, variant, seed):
    rng = np.random.default_rng(seed)
    x = (rng.integers(0, 12, n) / 4).astype(float)  # exactly representable differences
    y = rng.integers(0, 4, n).astype(float)
    g = rng.integers(0, n_groups, n)
    if all(np.sum(g == k) < 2 for k in set(g)):
        g[:] = 0
    tc = S.tie_calibration(x, y, variant, groups=g)
    ref, ref_e = oracle_tie_calibration(x.tolist(), y.tolist(), g.tolist(), variant)
    assert tc.value == pytest.approx(ref, abs=1e-9)
    assert tc.epsilon == ref_e
    # batch kernel (group weights all one) gives the same best value and epsilon
    order = np.argsort(g, kind="stable")
    _, cnt = np.unique(g[order], return_counts=True)
    gr = S.Grouped(x[order], y[order], np.r_[0, np.cumsum(cnt)])
    v, e = gr.pairs().best(variant, group_weights=np.ones((3, len(cnt))))
    assert np.allclose(v, ref) and (e == ref_e).all()


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 12), st.integers(2, 8), st.integers(0, 2 ** 31 - 1))
def test_grouped_item_average(n_sys, n_items, seed):
    """avg_by item = mean over items of the per-item statistic (items with an undefined value dropped)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (n_items, n_sys)).astype(float)
    y = rng.integers(0, 4, (n_items, n_sys)).astype(float)
    gr = S.Grouped(x.ravel(), y.ravel(), np.arange(0, n_items * n_sys + 1, n_sys))
    for stat, fn in (("kendall", lambda a, b: ss.kendalltau(a, b).statistic),
                     ("acc_eq", lambda a, b: S.kendall(a, b, "acc_eq"))):
        per = [fn(x[i], y[i]) for i in range(n_items)]
        per = [p for p in per if not math.isnan(p)]
        got = S.aggregate(stat, gr.values(stat))
        if per:
            assert got == pytest.approx(np.mean(per), abs=1e-12)
        else:
            assert math.isnan(got)
    # WMT10 / DARR pooled over items (micro): counts summed
    o = [oracle_counts(x[i], y[i]) for i in range(n_items)]
    C, D, Tm = (sum(c[k] for c in o) for k in ("C", "D", "Tm"))
    got = S.aggregate("wmt10", gr.values("wmt10"))
    assert (C + D + Tm == 0 and math.isnan(got)) or got == pytest.approx((C - D - Tm) / (C + D + Tm))


# ---------------------------------------------------------------- comparison tests
def test_williams_against_steiger_formula():
    # Steiger (1980) eq. 11 written with the determinant of the 3x3 correlation matrix
    r12, r13, r23, n = 0.9, 0.8, 0.85, 20
    R = np.array([[1, r12, r13], [r12, 1, r23], [r13, r23, 1]])
    det = np.linalg.det(R)
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(
        2 * (n - 1) / (n - 3) * det + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3)
    assert williams_test(r12, r13, r23, n) == pytest.approx(ss.t.sf(t, n - 3), rel=1e-12)
    assert williams_test(r12, r13, r23, n, one_sided=False) == pytest.approx(2 * ss.t.sf(t, n - 3), rel=1e-12)
    assert williams_test(0.8, 0.8, 0.5, 30) == pytest.approx(0.5)


def test_permutation_and_bootstrap_tests():
    rng = np.random.default_rng(1)
    h = rng.normal(size=200)
    good = h + rng.normal(scale=0.3, size=200)
    bad = h + rng.normal(scale=3.0, size=200)
    stat = lambda v: S.pearson(v, h)
    p, delta = permutation_test(stat, good, bad, n=200, seed=0)
    assert delta > 0 and p < 0.01
    p_same, d_same = permutation_test(stat, good, good.copy(), n=50, seed=0)
    assert d_same == 0 and p_same == 1.0
    assert p == permutation_test(stat, good, bad, n=200, seed=0)[0]  # seeded
    assert bootstrap_test(np.array([0.9, 0.8, 0.7]), np.array([0.5, 0.85, 0.1])) == pytest.approx(1 / 3)
