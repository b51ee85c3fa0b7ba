"""Test vectors of mt-metrics-eval's stats tests (stats_test.py @68a481aea1a787392d55af8f76ac8ef40c5f4664) that the
other meta test files do not port yet: vectors only, no code of mt-metrics-eval.

* ``SampleTest`` (uniform and document-stratified item sampling: ``meta --sample-size N --sample-method ...``).

* ``WilliamsSigDiffTest.testSigDiffWithAvgAndNones``: the Williams test on item-averaged Pearson correlations with a
  missing gold score (``--compare williams --level seg --avg-by item``).
* ``PermutationSigDiffTest.testTauOptimization``: the permutation test of tie-calibrated acc_23 by item, epsilon
  re-optimised on every draw.
* ``PermutationSigDiffTest`` (Pearson pooled / by system / by system with NaN as 0 / by item, Kendall by item;
  with and without early stopping) on its 4-system x 2-item vectors, against :func:`mtscore.meta.ranking.
  perm_sig_diff` (the PERM-BOTH test of ``--task-set``): the observed difference equals the plain-Python difference
  of the averaged statistics, p > 0, the number of draws is k (or fewer with early stopping) and p equals the share
  of draws whose difference reaches the observed one.
"""
from __future__ import annotations

import numpy as np
import pytest

from mtscore.meta import evaluate as E
from mtscore.meta.human import HumanScores
from mtscore.meta.run import MetaConfig, compare_pvalues, evaluate_metrics


def _setup(gold, m1, m2, n_sys):
    """mt-metrics-eval's Correlation(num_sys, gold, metric): vectors system-major, num_sys systems."""
    n_items = len(gold) // n_sys
    g = np.array([np.nan if v is None else v for v in gold], dtype=np.float64).reshape(n_sys, n_items)
    systems = [f"s{i}" for i in range(n_sys)]
    human = HumanScores("gold", systems, n_items, g)
    joined = E.join(human, systems, n_items)
    ms = [E.MetricScores(name, systems, np.array(v, dtype=np.float64).reshape(n_sys, n_items),
                         np.array(v, dtype=np.float64).reshape(n_sys, n_items).mean(axis=1))
          for name, v in (("metric1", m1), ("metric2", m2))]
    return joined, ms


def test_williams_with_item_average_and_missing_gold():
    # stats_test.py WilliamsSigDiffTest.testSigDiffWithAvgAndNones: p 0.121, r1 0.982, r2 0.933 (3 places)
    joined, ms = _setup([1, None, 3, 4, 5, 6], [1, 2, 3, 3, 7, 3], [2, 1, 2, 6, 8, 8], 3)
    cfg = MetaConfig(level="seg", stats=("pearson",), avg_by="item", compare="williams")
    res = evaluate_metrics(ms, joined, cfg)
    assert round(res["metric1"][""]["pearson"].value, 3) == 0.982
    assert round(res["metric2"][""]["pearson"].value, 3) == 0.933
    p = compare_pvalues(ms, joined, cfg, res)
    assert p["metric1"] is None and round(p["metric2"], 3) == 0.121


# PermutationSigDiffTest: 4 systems x 2 items, system-major
PG = [1, 2, 3, 4, 5, 5, 7, 8]
PM1 = [1, 2, 3, 3, 7, 3, 5, 5]
PM2 = [2, 1, 2, 6, 8, 8, 7, 6]


def _avg(fn, by, nan0=False):
    """Plain AverageCorrelation: the statistic per system (rows) or item (columns) of the 4 x 2 grid, averaged over
    the groups where it is defined (nan0: undefined groups count as 0)."""
    import scipy.stats as ss

    def f(metric):
        g = np.asarray(PG, dtype=float).reshape(4, 2)
        m = np.asarray(metric, dtype=float).reshape(4, 2)
        if by == "none":
            groups = [(g.ravel(), m.ravel())]
        elif by == "sys":
            groups = list(zip(g, m))
        else:
            groups = list(zip(g.T, m.T))
        vals = []
        for gy, mx in groups:
            with np.errstate(all="ignore"):
                v = (ss.pearsonr(mx, gy)[0] if fn == "pearson" else ss.kendalltau(mx, gy)[0]) \
                    if np.std(mx) > 0 and np.std(gy) > 0 else np.nan
            vals.append(v)
        vals = np.array(vals, dtype=float)
        if nan0:
            return float(np.nan_to_num(vals).mean())
        return float(np.nanmean(vals)) if (~np.isnan(vals)).any() else float("nan")
    return f


@pytest.mark.parametrize("fn, by, nan0, k, params, stops", [
    ("pearson", "none", False, 1000, (1000, 0.02, 0.5), False),  # testPearsonNoAvgNoEarlyStop
    ("pearson", "none", False, 1000, (50, 0.02, 0.2), True),  # testPearsonNoAvgWithEarlyStop
    ("pearson", "sys", False, 1000, (1000, 0.02, 0.5), False),  # testPearsonSysNoEarlyStop
    ("pearson", "sys", True, 1000, (1000, 0.02, 0.5), False),  # testPearsonSysNoEarlyStopNan0
    ("pearson", "item", False, 1000, (1000, 0.02, 0.5), False),  # testPearsonItemNoEarlyStop
    ("kendall", "item", False, 10, (10, 0.02, 0.5), False),  # testKendallItemWithEarlyStop
])
def test_permutation_sig_diff_variants(fn, by, nan0, k, params, stops):
    from mtscore.meta import ranking as R
    stat = _avg(fn, by, nan0)
    delta = stat(PM2) - stat(PM1)
    p, d, k_used, draws = R.perm_sig_diff(stat, np.array(PM2, float), np.array(PM1, float), k,
                                          R.PermParams(*params), seed=7)
    assert p > 0 and d == pytest.approx(delta, abs=1e-12)
    if stops:
        assert k_used < k  # early stopping (as upstream: fails with a very low probability; fixed seed here)
    else:
        assert k_used == k
    assert len(draws) == k_used
    assert p == pytest.approx(sum(a - b >= d for a, b in draws) / k_used, abs=1e-12)


# SampleTest (uniform and document-stratified item sampling; ``meta --sample-size N --sample-method ...``)

def test_uniform_sample():
    from mtscore.meta.filters import sample_segments
    s1 = sample_segments(10, 5, "uniform", seed=11)
    assert len(s1) == 5 == len(set(s1.tolist())) and all(0 <= i < 10 for i in s1)
    assert list(s1) == list(sample_segments(10, 5, "uniform", seed=11))  # seeded: the same sample
    assert list(np.arange(10)[s1]) == list(s1)  # Select(range(10))
    assert len(sample_segments(10, 0, "uniform", seed=1)) == len(sample_segments(10, 11, "uniform", seed=1)) == 10


def test_stratified_sample():
    from mtscore.meta.filters import sample_segments
    for seed in range(20):
        s = sample_segments(8, 4, "stratify", [2, 2, 2, 2], seed)
        assert len(s) == 4 and s[0] in (0, 1) and s[1] in (2, 3) and s[2] in (4, 5) and s[3] in (6, 7)
        s = sample_segments(8, 4, "stratify", [2, 6], seed)
        assert len(s) == 4 and s[0] in (0, 1) and all(x in range(2, 8) for x in s[1:])
        s = sample_segments(8, 3, "stratify", [1, 7], seed)
        assert len(s) == 3 and 0 not in s


def test_stratified_shares_are_largest_remainder():
    """Each document gets floor(share) and the largest remainders one more; a full document passes its excess on."""
    from mtscore.meta.filters import sample_segments
    bins = [5, 9, 13, 3, 20]
    n = sum(bins)
    edges = np.cumsum([0] + bins)
    for size in (1, 7, 17, 33, 49, 50):
        s = sample_segments(n, size, "stratify", bins, seed=size)
        got = np.histogram(s, edges)[0]
        ideal = np.array(bins) * size / n
        assert got.sum() == size and (got <= bins).all() and (np.abs(got - ideal) < 1).all(), (size, got, ideal)
    assert np.histogram(sample_segments(10, 6, "stratify", [1, 9], seed=0), [0, 1, 10])[0].tolist() == [1, 5]


def test_meta_sample_size_equals_masked_copy(tmp_path):
    """``meta --sample-size 12 --sample-method stratify`` on the WMT25 fixture = the same command without it on a
    copy whose other segments are unrated."""
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    from mtscore.meta.filters import sample_filter
    fix = Path(__file__).resolve().parents[1] / "fixtures" / "wmt25"
    lp = "en-cs_CZ"
    docs = [ln.split("\t")[1] for ln in (fix / "documents" / f"{lp}.docs").read_text().splitlines()]
    keep = sample_filter(1, 24, 12, "stratify", docs, seed=3).mask[0]
    assert keep.sum() == 12
    copy = tmp_path / "copy"
    shutil.copytree(fix, copy)
    f = copy / "human-scores" / f"{lp}.esa-human1.seg.score"
    lines = f.read_text().splitlines()
    f.write_text("".join(f"{ln.split(chr(9))[0]}\t{ln.split(chr(9))[1] if keep[k % 24] else 'None'}\n"
                         for k, ln in enumerate(lines)))
    base = [sys.executable, "-m", "mtscore", "meta", "--lp", lp, "--human", "esa-human1", "--external",
            "MetricX-25-refA", "COMETKiwi22-src", "--level", "seg", "--stats", "pearson", "kendall", "-f", "json"]
    a = subprocess.run(base + ["--data", str(fix), "--sample-size", "12", "--sample-method", "stratify", "--seed",
                               "3"], capture_output=True, text=True, timeout=300)
    b = subprocess.run(base + ["--data", str(copy)], capture_output=True, text=True, timeout=300)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert ja["rows"] == jb["rows"]
    assert any(n.startswith("sample: 12 segments of 24 (stratify, seed 3)") for n in ja["notes"])
    bad = subprocess.run(base + ["--data", str(fix), "--sample-size", "12", "--level", "sys"], capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 2 and "--sample-size: segment level only" in bad.stderr


def test_tau_optimization_permutation():
    """PermutationSigDiffTest.testTauOptimization: the permutation test whose statistic is tie-calibrated acc_23 by
    item, epsilon re-optimised on every permuted draw (``--compare perm --stats acc_eq*``: the statistic is
    recomputed, calibration included, for each draw), k = 10 with blocks of 10."""
    from mtscore.meta import ranking as R
    from mtscore.meta import stats as S
    items = np.tile(np.arange(2), 4)  # 4 systems x 2 items, system-major

    def acc(metric):
        return S.tie_calibration(metric, np.asarray(PG, float), "acc_eq", groups=items).value
    tau1, tau2 = acc(np.asarray(PM1, float)), acc(np.asarray(PM2, float))
    p, d, k, draws = R.perm_sig_diff(acc, np.array(PM2, float), np.array(PM1, float), 10, R.PermParams(10), seed=3)
    assert p > 0 and d == pytest.approx(tau2 - tau1, abs=1e-12) and k == 10
    assert p == pytest.approx(sum(a - b >= d for a, b in draws) / k, abs=1e-12)
    assert all(0 <= a <= 1 and 0 <= b <= 1 for a, b in draws)
