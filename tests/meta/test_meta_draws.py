"""meta/ draws every resample and permutation through the one resampling engine,
``mtscore.significance.Draws`` (significance/_resample.py). No module of meta/ touches numpy.random itself
(an AST scan), and each meta procedure gives exactly the numbers obtained by replaying the engine's draws for
the same seed (bootstrap counts, PERM-BOTH swaps, the "pairs" test, SPA's sign flips, Bernoulli pair sampling,
uniform pair draws). The numbers that reproduce mt-metrics-eval are pinned by tests/meta/test_meta_mtme.py. ~3 s."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from mtscore.meta import compare as C
from mtscore.meta import evaluate as E
from mtscore.meta import ranking as R
from mtscore.meta import spa as SPA
from mtscore.meta import stats as S
from mtscore.significance._resample import Draws

META = Path(__file__).resolve().parents[2] / "src" / "mtscore" / "meta"


def test_no_meta_module_draws_on_its_own():
    bad = []
    for p in sorted(META.glob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "random" and isinstance(node.value, ast.Name) \
                    and node.value.id in ("np", "numpy"):
                bad.append(f"{p.name}:{node.lineno} numpy.random")
            elif isinstance(node, ast.Name) and node.id == "default_rng":
                bad.append(f"{p.name}:{node.lineno} default_rng")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if any(n == "random" or n.startswith("numpy.random") for n in names):
                    bad.append(f"{p.name}:{node.lineno} import random")
    assert not bad, "draw through mtscore.significance._resample.Draws instead:\n" + "\n".join(bad)


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)  # test data only
    h = rng.normal(size=n)
    return h, h + rng.normal(scale=0.5, size=n), h + rng.normal(scale=1.0, size=n)


def test_permutation_test_replays_engine_swaps():
    h, a, b = _data()

    def stat(v):
        return S.pearson(v, h)
    p, delta = C.permutation_test(stat, a, b, n=50, seed=7)
    za, zb = C._z(a), C._z(b)
    d = Draws(7)
    c = 0
    for _ in range(50):
        w = d.swaps(a.shape, "mtme")
        c += stat(np.where(w, zb, za)) - stat(np.where(w, za, zb)) >= delta
    assert p == (c + 1) / 51
    assert C.permutation_test(stat, a, b, n=50, seed=Draws(7)) == (p, delta)  # a Draws is accepted as the seed


def test_perm_sig_diff_replays_engine_swaps():
    h, a, b = _data()

    def stat(v):
        return S.pearson(v, h)
    params = R.PermParams(block_size=1000)  # no early stop within 60 draws
    p, delta, k_used, draws = R.perm_sig_diff(stat, a, b, 60, params, seed=3)
    d = Draws(3)
    za, zb = R.zscore(a), R.zscore(b)
    want = []
    for _ in range(60):
        w = d.swaps(za.shape, "mtme")
        want.append((stat(np.where(w, za, zb)), stat(np.where(w, zb, za))))
    assert k_used == 60 and np.array_equal(draws, np.array(want))
    # the same stream whether given as a seed, a Draws or a numpy Generator
    assert np.array_equal(R.perm_sig_diff(stat, a, b, 60, params, rng=Draws(3))[3], draws)
    assert np.array_equal(R.perm_sig_diff(stat, a, b, 60, params, rng=np.random.default_rng(3))[3], draws)


def test_pairs_sig_diff_replays_engine_swaps():
    rng = np.random.default_rng(1)  # test data only
    P, G = 90, 6
    va, vb = rng.integers(0, 2, P).astype(float), rng.integers(0, 2, P).astype(float)
    g = np.sort(rng.integers(0, G, P))
    params = R.PermParams(block_size=1000)
    p, delta, k_used, draws = R.pairs_sig_diff(va, vb, g, G, 120, params, seed=11, batch=50)
    w = Draws(11).swaps((120, P), "mtme")  # batches of 50, 50, 20 rows continue one stream
    npairs = np.bincount(g, minlength=G).astype(float)
    ca = R._group_mean(np.where(w, va, vb), g, G, npairs, False)
    cb = R._group_mean(np.where(w, vb, va), g, G, npairs, False)
    assert k_used == 120 and np.array_equal(draws, np.stack([ca, cb], axis=1))


def test_spa_signs_are_engine_draws():
    assert np.array_equal(SPA.permutation_signs(37, 25, seed=4), Draws(4).signs(25, 37, "mtme-spa"))
    seg = np.random.default_rng(2).normal(size=(4, 37))  # test data only
    want = SPA._pvals(seg.astype(np.float32), Draws(4).signs(25, 37))
    assert np.array_equal(SPA.pairwise_pvalues(seg, 25, seed=4), want, equal_nan=True)


def test_pair_sampling_replays_engine():
    rng = np.random.default_rng(5)  # test data only
    x, y = rng.integers(0, 9, 60).astype(float), rng.integers(0, 4, 60).astype(float)
    gr = S.Grouped(x, y, np.array([0, 25, 60]))
    # Bernoulli sample_rate (mt-metrics-eval): keep each enumerated pair with U <= rate
    p = gr.pairs(None, 9, sample_rate=0.3)
    a, b, g = S.K.enumerate_pairs(gr.starts, np.arange(2))
    keep = Draws(9).keep(len(a), 0.3)
    assert sorted(zip(p.a.tolist(), p.b.tolist())) == sorted(zip(a[keep].tolist(), b[keep].tolist()))
    # more pairs than max_pairs: uniform within-group pairs (with replacement) from the engine
    p = gr.pairs(100, 9)
    sizes = np.diff(gr.starts)
    npairs = sizes * (sizes - 1) // 2
    take = np.floor(npairs * (100 / npairs.sum())).astype(np.int64)
    gg = np.repeat(np.arange(2), take)
    i, j = Draws(9).distinct_pairs(sizes[gg])
    want = sorted(zip((gr.starts[gg] + np.minimum(i, j)).tolist(), (gr.starts[gg] + np.maximum(i, j)).tolist()))
    assert p.sampled and sorted(zip(p.a.tolist(), p.b.tolist())) == want


def _scores(S_=5, N=30, seed=0):
    rng = np.random.default_rng(seed)  # test data only
    hseg = rng.normal(size=(S_, N))
    mseg = hseg + rng.normal(scale=0.7, size=(S_, N))
    systems = [f"s{i}" for i in range(S_)]

    def rescore(w):
        return (w @ mseg.T) / w.sum(axis=1, keepdims=True)
    m = E.MetricScores("m", systems, mseg, mseg.mean(axis=1), rescore)
    j = E.Joined(systems, hseg, hseg.mean(axis=1), N)
    return m, j


def test_meta_bootstrap_uses_engine_counts():
    m, j = _scores()
    B = 40
    got = E.segment_level(m, j, ["pearson"], avg_by="none", n_boot=B, seed=21)["pearson"].samples
    counts = Draws(21).bootstrap_counts(B, j.n_segments)  # the engine's "sacrebleu" scheme
    c = E._cells(m, j, "none")
    want = [S.aggregate("pearson", c.grouped.values("pearson", w=counts[b][c.seg_idx])) for b in range(B)]
    assert np.array_equal(got, np.array(want).ravel())
    # system level, resampling segments: the same counts re-score the systems
    got = E.system_level(m, j, ["pearson"], n_boot=B, seed=21)["pearson"].samples
    xs, ys = m.system_scores(counts), E._human_sys(j, counts)
    assert np.array_equal(got, [S.pearson(xs[b], ys[b]) for b in range(B)])


@pytest.mark.parametrize("scheme", ["counts", "sacrebleu"])
def test_engine_bootstrap_counts_are_its_weight_chunks(scheme):
    whole = Draws(12345).bootstrap_counts(37, 11, scheme)
    chunks = np.concatenate([w.copy() for w in Draws(12345).bootstrap_weights(11, 37, scheme, batch=5)])
    assert np.array_equal(whole, chunks) and (whole.sum(axis=1) == 11).all()


def test_library_defaults_use_the_default_seed():
    """Without a seed, meta's library functions draw from the one default seed (12345), never unseeded."""
    from mtscore.params import DEFAULT_SEED
    h, a, b = _data()

    def stat(v):
        return S.pearson(v, h)
    params = R.PermParams(block_size=1000)
    assert np.array_equal(R.perm_sig_diff(stat, a, b, 30, params)[3],
                          R.perm_sig_diff(stat, a, b, 30, params, seed=DEFAULT_SEED)[3])
    x = np.arange(30.0) % 7
    assert S.tie_calibration(x, h[:30], max_pairs=50).epsilon == \
        S.tie_calibration(x, h[:30], max_pairs=50, seed=DEFAULT_SEED).epsilon
    assert np.array_equal(S.Grouped(x, h[:30], np.array([0, 30])).pairs(50).a,
                          S.Grouped(x, h[:30], np.array([0, 30])).pairs(50, DEFAULT_SEED).a)
