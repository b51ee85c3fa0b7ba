"""Pairwise Difference Pearson (PDP) and the "pairs" permutation test for Kendall variants at a fixed epsilon,
against mt-metrics-eval's own test vectors (stats_test.py at 68a481aea1a787392d55af8f76ac8ef40c5f4664:
testPearsonPdp, testPdpWithAveragingAndNones, testPDPLessThanTwoSystems, testKendallVariantsWithPositiveEpsilon,
PairwisePermutationSigDiffTest: vectors and expectations only, no code), a plain-Python PDP over the enumerated
pairwise differences with scipy's pearsonr, and an exact enumeration of the pairs test's permutation distribution.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import scipy.stats

from mtscore.meta import ranking as R
from mtscore.meta import stats as S


def _groups(gold, metric, num_sys, by):
    """mt-metrics-eval layout (num_sys consecutive rows); None gold = unrated. -> (metric, human, group labels)."""
    g = np.array([np.nan if v is None else v for v in gold], dtype=float).reshape(num_sys, -1)
    m = np.asarray(metric, dtype=float).reshape(num_sys, -1)
    lab = {"item": np.tile(np.arange(g.shape[1]), (num_sys, 1)), "sys": np.repeat(np.arange(num_sys)[:, None],
                                                                                   g.shape[1], axis=1),
           "none": np.zeros(g.shape, dtype=int)}[by]
    ok = ~np.isnan(g)
    return m[ok], g[ok], lab[ok]


def _pdp_plain(metric, human, groups):
    """Plain Python: every ordered pair (i, j) within a group (diagonal included), differences pooled, scipy r."""
    dx, dy = [], []
    for gl in sorted(set(groups)):
        idx = [i for i, v in enumerate(groups) if v == gl]
        for i in idx:
            for j in idx:
                dx.append(metric[j] - metric[i])
                dy.append(human[j] - human[i])
    if len(set(dx)) < 2 or len(set(dy)) < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(scipy.stats.pearsonr(dy, dx)[0])


G6, M6 = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7]


def test_pdp_vectors():
    """testPearsonPdp: item 0.926, none 0.776, sys 0.766; testPdpWithAveragingAndNones: item 0.968, none 0.975."""
    for by, want in (("item", 0.926), ("none", 0.776), ("sys", 0.766)):
        m, h, lab = _groups(G6, M6, 2, by)
        assert S.pdp(m, h, lab) == pytest.approx(want, abs=5e-4), by
        assert S.pdp(m, h, lab) == pytest.approx(_pdp_plain(m, h, lab), abs=1e-12), by
    g, mm = [1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24]
    for by, want in (("item", 0.968), ("none", 0.975)):
        m, h, lab = _groups(g, mm, 2, by)
        assert S.pdp(m, h, lab) == pytest.approx(want, abs=5e-4), by
        assert S.pdp(m, h, lab) == pytest.approx(_pdp_plain(m, h, lab), abs=1e-12), by


def test_pdp_one_system_undefined():
    """testPDPLessThanTwoSystems (mt-metrics-eval raises): with one system per item there is no difference."""
    m, h, lab = _groups([1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24], 1, "item")
    assert np.isnan(S.pdp(m, h, lab))


def test_pdp_single_group_is_pearson_and_random_groups_match_plain():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=30), rng.normal(size=30)
    assert S.pdp(x, y) == pytest.approx(S.pearson(x, y), abs=1e-12)
    for trial in range(20):
        n = int(rng.integers(4, 40))
        lab = rng.integers(0, 6, size=n)
        x = rng.integers(0, 5, size=n).astype(float) * 0.1  # ties and constant groups
        y = np.round(rng.normal(size=n), 1)
        y[lab == 0] = -0.1  # a constant human group (round-off in its mean must not count)
        assert S.pdp(x, y, lab) == pytest.approx(_pdp_plain(list(x), list(y), list(lab)), abs=1e-12, nan_ok=True)


def test_pdp_weights_equal_expanded_data():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=25), np.round(rng.normal(size=25), 1)
    lab = rng.integers(0, 5, size=25)
    w = rng.integers(0, 4, size=25).astype(float)
    rep = np.repeat(np.arange(25), w.astype(int))
    assert S.pdp(x, y, lab, weights=w) == pytest.approx(S.pdp(x[rep], y[rep], lab[rep]), abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Kendall variants at a fixed epsilon; the pairs permutation test

def test_kendall_at_epsilon_vectors():
    """testKendallVariantsWithPositiveEpsilon (gold x, metric y)."""
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    assert S.kendall_at(y, x, "eq", 0.0) == (14 - 7) / 21
    assert S.kendall_at(y, x, "eq", 0.1) == (14 - 7) / 21
    # epsilon 1: 13 metric ties (3 also human ties), 1 discordant, 7 concordant
    assert S.kendall_at(y, x, "eq", 1.0) == pytest.approx((7 + 3 - 1 - 10 - 0) / 21, abs=1e-15)
    # b at epsilon 0 is scipy's tau_b; acc_eq at epsilon 2 (testKendallVariants) 0.4
    gold, metric = [7, 1, 2, 7, 4, 3, 2], [4, 1, 3, 6, 1, 5, 6]
    assert S.kendall_at(metric, gold, "b") == pytest.approx(scipy.stats.kendalltau(gold, metric)[0], abs=1e-15)
    assert S.kendall_at([2, 1, 1.5, 5, 3], [1, 2, 2, 3, 4], "acc_eq", 2.0) == pytest.approx(0.4, abs=1e-15)
    from mtscore.errors import InvalidParameterError
    with pytest.raises(InvalidParameterError):
        S.kendall_at(y, x, "c", 1.0)


GOLD, MET1, MET2 = [1, 3, 3, 3, 1, 2, 1, 2], [2, 4, 6, 6, 2, 6, 3, 7], [1, 5, 4, 4, 4, 3, 2, 1]


def _items(v):  # Correlation(4, v): 4 systems x 2 items -> cells grouped by item
    return np.asarray(v, dtype=float).reshape(4, 2).T.ravel()


STARTS = np.array([0, 4, 8], dtype=np.int64)
LAB = [0] * 4 + [1] * 4


def test_pairs_test_tau_b_fixed_epsilon_vector():
    """testKendallVariantsB: tau_b at epsilon 1 by item; delta = tau2 - tau1, k = 10."""
    g, a, b = _items(GOLD), _items(MET1), _items(MET2)
    t1, t2 = S.kendall_at(a, g, "b", 1, LAB), S.kendall_at(b, g, "b", 1, LAB)
    p, d, k, draws = R.kendall_pairs_sig_diff(b, a, g, STARTS, "b", 1, 1, k=10)
    assert d == pytest.approx(t2 - t1, abs=1e-12)
    assert k == 10 and draws.shape == (10, 2)
    assert p == pytest.approx(np.mean(draws[:, 0] - draws[:, 1] >= d), abs=1e-15)


def test_pairs_test_acc23_vector():
    """PairwisePermutationSigDiffTest.testKendallVariantsAcc23: each metric at its own optimal epsilon."""
    g, a, b = _items(GOLD), _items(MET1), _items(MET2)
    ta, tb = S.tie_calibration(a, g, "acc_eq", LAB), S.tie_calibration(b, g, "acc_eq", LAB)
    p, d, k, draws = R.kendall_pairs_sig_diff(b, a, g, STARTS, "acc_eq", tb.epsilon, ta.epsilon, k=10)
    assert d == pytest.approx(tb.value - ta.value, abs=1e-12)
    assert k == 10 and p > 0
    assert abs(np.sum(draws[:, 0] - draws[:, 1] >= d) - p * k) <= 3
    # the existing verdict-based test (acc_eq*, used by the WMT24 task set) gives the same delta
    pa, da, _, _ = R.pairs_sig_diff(*(R.pair_verdicts(*_pairs(v, g), e) for v, e in ((b, tb.epsilon), (a, ta.epsilon))),
                                    np.array([0] * 6 + [1] * 6), 2, k=10)
    assert da == pytest.approx(d, abs=1e-12)


def _pairs(x, g):
    i, j = zip(*[(s + u, s + v) for s in (0, 4) for u, v in itertools.combinations(range(4), 2)])
    i, j = np.array(i), np.array(j)
    return x[i] - x[j], g[i] - g[j]


@pytest.mark.parametrize("variant,eps", [("b", 1.0), ("b", 0.0), ("eq", 0.5)])
def test_pairs_test_matches_exact_permutation_distribution(variant, eps):
    """All 2^12 hybrids of the 12 within-item pairs enumerated (plain Python): exact p; ours within 4 s.e."""
    g, a, b = _items(GOLD), _items(MET1), _items(MET2)
    dxa, dy = _pairs(a, g)
    dxb, _ = _pairs(b, g)
    grp = [0] * 6 + [1] * 6
    cls_a = [int(S.pair_classes([dxa[i]], [dy[i]], eps)[0]) for i in range(12)]
    cls_b = [int(S.pair_classes([dxb[i]], [dy[i]], eps)[0]) for i in range(12)]

    def val(cls):
        per = []
        for gi in (0, 1):
            c = [cls[i] for i in range(12) if grp[i] == gi]
            C, D, Th, Tm, Thm = (c.count(k) for k in range(5))
            tot = C + D + Th + Tm + Thm
            if variant == "b":
                den = ((tot - Tm - Thm) * (tot - Th - Thm)) ** 0.5
                if den > 0:
                    per.append((C - D) / den)
            else:
                per.append((C + Thm - D - Th - Tm) / tot)
        return sum(per) / len(per) if per else 0.0
    delta = val(cls_a) - val(cls_b)
    hits = 0
    for mask in itertools.product((0, 1), repeat=12):
        ha = [cls_a[i] if mask[i] else cls_b[i] for i in range(12)]
        hb = [cls_b[i] if mask[i] else cls_a[i] for i in range(12)]
        hits += val(ha) - val(hb) >= delta - 1e-12
    exact = hits / 4096
    k = 4000
    p, d, k_used, _ = R.kendall_pairs_sig_diff(a, b, g, STARTS, variant, eps, eps, k=k,
                                               params=R.PermParams(block_size=k), seed=11)
    assert d == pytest.approx(delta, abs=1e-12)
    assert k_used == k
    assert abs(p - exact) <= 4 * np.sqrt(max(exact * (1 - exact), 1 / k) / k)


# ---------------------------------------------------------------------------------------------
# other vectors of mt-metrics-eval's stats_test.py (CorrelationFunctionsTest, CorrelationTest.testKendallLike)

def test_kendall_like_vectors():
    """KendallLike (WMT DARR: human pairs with abs difference >= thresh, metric ties discordant) = mtscore darr."""
    gold, metric = [10, 11, 100, 150], [2, 1, 4, 3]
    assert S.kendall(metric, gold, "darr", thresh=25) == pytest.approx(3 / 5, abs=1e-15)
    assert S.kendall(metric, gold, "darr", thresh=1) == pytest.approx(2 / 6, abs=1e-15)
    # Correlation(1, [10, None, 100, 150], [2, 1, 4, 3]).KendallLike(thresh=1): the None cell dropped -> 1/3
    assert S.kendall([2, 4, 3], [10, 100, 150], "darr", thresh=1) == pytest.approx(1 / 3, abs=1e-15)
    # Correlation(2, [10, 11, 100, 150], ...).KendallLike(average_by='item', thresh=1) = 1 (pooled pair counts)
    gr = S.Grouped(np.array([2.0, 4.0, 1.0, 3.0]), np.array([10.0, 100.0, 11.0, 150.0]), np.array([0, 2, 4]))
    assert float(S.aggregate("darr", gr.values("darr", thresh=1))) == pytest.approx(1.0, abs=1e-15)


def test_agreement_vector():
    """Agreement([1, 2, 3, 3, 4], [1, 1, 2, 1, 2]) = 5 agreeing of 10 pairs (sign agreement, ties in both agree)."""
    pc = S.pair_counts([1, 1, 2, 1, 2], [1, 2, 3, 3, 4])
    assert (pc.con + pc.ties_both, pc.total) == (5, 10)
    assert S.pairwise_accuracy([1, 1, 2, 1, 2], [1, 2, 3, 3, 4]) == 0.5
