"""Difference intervals that invert the paired bootstrap test: 0 is inside exactly when the
(adjusted) p-value is not below alpha, for every correction, method and tie rule; the interval at the
observed difference matches a plain-Python inversion of the test on a grid."""
import numpy as np
import pytest

from mtscore.metrics.grr import FourGRR
from mtscore.metrics.base import Stats
from mtscore.significance import compare_stats, correction_factors, adjust_pvalues, difference_interval


def _stats(rng, n, shift):
    num = rng.integers(0, 20, n).astype(float) + shift * rng.random(n)
    den = num + rng.integers(1, 10, n)
    return Stats("4-grr", ("numerator", "denominator"), np.column_stack([num, den]), 1, "4-GRR|nrefs:1|version:x")


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "none"])
@pytest.mark.parametrize("method", ["sacrebleu", "moses", "koehn"])
def test_mark_and_interval_never_disagree(correction, method):
    m = FourGRR()
    rng = np.random.default_rng(7)
    seen = set()
    for trial in range(6):
        K = 2 + trial % 4
        systems = {f"s{k}": _stats(np.random.default_rng(100 * trial + k), 120, 0.6 * k * (trial % 3))
                   for k in range(K)}
        cm = compare_stats(m, systems, n=200, seed=int(rng.integers(1 << 30)), correction=correction, method=method,
                           all_pairs=bool(trial % 2))
        for r, ci in zip(cm.results, cm.delta_cis):
            sig = cm.adjusted(r.system_a, r.system_b) < cm.alpha
            assert sig == (not ci.contains(0.0))
            assert ci.contains(r.delta) or r.p_value == 0.0
            assert ci.low <= ci.high
            seen.add(sig)
    assert seen == {True, False}  # both kinds occurred


def test_correction_factors_reproduce_holm_decisions():
    rng = np.random.default_rng(3)
    for _ in range(200):
        p = rng.choice([0.001, 0.004, 0.01, 0.012, 0.02, 0.03, 0.2, 0.5], size=rng.integers(1, 7))
        for corr in ("holm", "bonferroni", "none"):
            f = correction_factors(p, corr, 0.05)
            adj = adjust_pvalues(p, corr)
            assert list(f * p < 0.05) == list(adj < 0.05)


def test_interval_equals_a_plain_inversion_on_a_grid():
    """Oracle: evaluate the sacreBLEU-convention p-value of the shifted test directly."""
    rng = np.random.default_rng(11)
    sa = 30 + rng.normal(0, 1.0, 500)
    sb = sa + 0.8 + rng.normal(0, 0.5, 500)
    obs_a, obs_b = 30.0, 30.9
    ci = difference_interval(sa, sb, obs_a, obs_b, alpha=0.05)

    def p_of(d):
        dd = np.abs((sb - d) - sa)
        null = dd - dd.mean()
        diff = abs((obs_b - d) - obs_a)
        if diff <= 1e-9:
            return 1.0
        return (np.count_nonzero(null > diff) + 1) / (len(sa) + 1)

    xs = np.linspace(-1, 3, 4001)
    kept = xs[[p_of(x) >= 0.05 for x in xs]]
    assert len(ci.pieces) == 1
    assert ci.low == pytest.approx(kept.min(), abs=1e-3)
    assert ci.high == pytest.approx(kept.max(), abs=1e-3)
    assert ci.level == 0.95 and ci.adjusted is None
