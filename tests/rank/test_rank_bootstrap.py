"""The paired document bootstrap of AutoRank (docs/rank.md): a plain-Python reference that replays the same draws
of the one resampling engine gives the same resampled AutoRanks, intervals, P(first) and clusters as the
vectorized path (to 1e-12); missing segments are counted, never silently dropped; no module of rank/ draws on its
own."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from mtscore.errors import InvalidParameterError
from mtscore.rank import core as C
from mtscore.significance import Draws

RANK = Path(__file__).resolve().parents[2] / "src" / "mtscore" / "rank"


def _input(S=6, M=3, docs=(3, 1, 4, 2, 5, 1, 2), seed=0, missing=True):
    rng = np.random.default_rng(seed)  # test data only
    doc = np.repeat(np.arange(len(docs)), docs)
    N = len(doc)
    quality = rng.normal(size=S)
    mets = []
    for m in range(M):
        seg = quality[:, None] * (1 + m) + rng.normal(scale=1.5, size=(S, N))
        if missing:
            seg[rng.random(size=(S, N)) < 0.1] = np.nan
        higher = m != 1
        mets.append(C.MetricScores(f"m{m}", higher, f"sig{m}", seg if higher else -seg))
    return C.RankInput([f"sys{i}" for i in range(S)], mets, doc, [f"d{j}" for j in range(len(docs))])


def _pct(xs, q):
    """numpy's default (linear) percentile, in plain Python."""
    xs = sorted(xs)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos // 1)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _rule_py(rule, X, higher, top=None):
    S = len(X[0])
    if rule == "wmt25":
        avg = [0.0] * S
        for row, h in zip(X, higher):
            x = [v if h else -v for v in row]
            med, p25, p100 = _pct(x, 50), _pct(x, 25), _pct(x, 100)
            scale = (p100 - p25) or 1.0
            for i in range(S):
                avg[i] += (x[i] - med) / scale / len(X)
        mx, mn = max(avg), min(avg)
        if abs(mx - mn) <= 1e-8 + 1e-5 * abs(mn):
            return [1.0] * S
        return [1 + (S - 1) * (mx - a) / (mx - mn) for a in avg]
    T = S if top is None else top
    out = [0.0] * S
    for row, h in zip(X, higher):
        x = [v if h else -v for v in row]
        mx, mn = max(x), min(x)
        for i in range(S):
            out[i] += (1 + (T - 1) * (mx - x[i]) / (mx - mn)) / len(X)
    return out


def _boot_py(rule, inp, n, seed, top=None):
    docs = [int(d) for d in inp.docs]
    D = max(docs) + 1
    W = Draws(seed).bootstrap_counts(n, D, scheme="counts")  # the same draws as the engine's chunks
    out = []
    for b in range(n):
        X = []
        for m in inp.metrics:
            row = []
            for s in range(len(inp.systems)):
                num = den = 0.0
                for k, d in enumerate(docs):
                    v = float(m.seg[s, k])
                    if v == v:  # not missing
                        num += W[b, d] * v
                        den += W[b, d]
                row.append(num / den if den else float("nan"))
            X.append(row)
        if any(v != v for row in X for v in row):
            out.append(None)
        else:
            out.append(_rule_py(rule, X, [m.higher_is_better for m in inp.metrics], top))
    return out


@pytest.mark.parametrize("rule,top", [("wmt25", None), ("wmt24", None), ("wmt24", 9)])
def test_vectorized_bootstrap_equals_plain_python(rule, top):
    inp = _input()
    n, seed = 60, 7
    fast = C.resampled_autorank(rule, inp, n, seed, top, batch=16)  # several chunks
    ref = _boot_py(rule, inp, n, seed, top)
    for b in range(n):
        if ref[b] is None:
            assert np.isnan(fast[b]).all()
        else:
            assert np.max(np.abs(fast[b] - np.array(ref[b]))) <= 1e-12
    # and the summaries
    res = C.rank(inp, rule, n=n, seed=seed, top=top)
    rows = [r for r in ref if r is not None]
    idx = [inp.systems.index(s) for s in res.systems]
    a = 0.05
    for k, i in enumerate(idx):
        col = [r[i] for r in rows]
        assert abs(res.uncertainty.low[k] - _pct(col, 100 * a / 2)) <= 1e-12
        assert abs(res.uncertainty.high[k] - _pct(col, 100 * (1 - a / 2))) <= 1e-12
        share = 0.0
        for r in rows:
            best = min(r)
            ties = sum(1 for v in r if v == best)
            share += (r[i] == best) / ties
        assert abs(res.uncertainty.p_first[k] - share / len(rows)) <= 1e-12
    # pairwise "better" and the clusters
    better = [[False] * len(idx) for _ in idx]
    for p, i in enumerate(idx):
        for q, j in enumerate(idx):
            if i != j:
                better[p][q] = _pct([r[i] - r[j] for r in rows], 100 * (1 - a / 2)) < 0
    assert res.uncertainty.better.tolist() == better
    cl, c = [], 1
    for k in range(len(idx)):
        cl.append(c)
        if k + 1 < len(idx) and all(better[p][q] for p in range(k + 1) for q in range(k + 1, len(idx))):
            c += 1
    assert res.uncertainty.clusters.tolist() == cl
    assert abs(res.uncertainty.p_first.sum() - 1) < 1e-12


def test_same_seed_same_answer_and_batch_does_not_matter():
    inp = _input(seed=3)
    a = C.resampled_autorank("wmt25", inp, 50, 11)
    b = C.resampled_autorank("wmt25", inp, 50, 11, batch=7)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, C.resampled_autorank("wmt25", inp, 50, 12))


def test_missing_segments_are_counted_and_the_mean_skips_them():
    inp = _input(missing=True, seed=5)
    res = C.rank(inp, "wmt25", n=0)
    for k, s in enumerate(res.systems):
        i = inp.systems.index(s)
        for m, met in enumerate(inp.metrics):
            seg = met.seg[i]
            assert res.missing[m, k] == int(np.isnan(seg).sum())
            assert res.segments[m, k] == int((~np.isnan(seg)).sum())
            assert res.raw[m, k] == pytest.approx(np.nanmean(seg), rel=1e-13)
    assert res.missing.sum() > 0
    assert res.uncertainty is None


def test_a_system_with_every_segment_missing_is_an_error():
    inp = _input(missing=False)
    inp.metrics[0].seg[2, :] = np.nan
    with pytest.raises(InvalidParameterError, match=r"metric m0: system sys2 has no scored segment"):
        C.rank(inp, n=0)


def test_separated_systems_form_clusters_and_the_best_is_surely_first():
    S, N = 4, 40
    doc = np.arange(N) // 4
    base = np.array([10.0, 5.0, 4.99, 0.0])
    rng = np.random.default_rng(1)  # test data only
    mets = [C.MetricScores(f"m{m}", True, "", base[:, None] + rng.normal(scale=0.3, size=(S, N))) for m in range(2)]
    res = C.rank(C.RankInput(["a", "b", "c", "d"], mets, doc, []), n=200, seed=1)
    assert res.systems[0] == "a" and res.systems[-1] == "d"
    assert res.uncertainty.p_first[0] == 1.0
    cl = res.uncertainty.clusters.tolist()
    assert cl[0] == 1 and cl[-1] == max(cl) and cl[1] == cl[2]  # b and c are not told apart


@pytest.mark.parametrize("kw,msg", [({"n": -1}, "--resamples"), ({"alpha": 1.5}, "--alpha"),
                                    ({"top": 3, "rule": "wmt24"}, "--scale-top"), ({"rule": "x"}, "--autorank"),
                                    ({"top": 9}, "--scale-top")])
def test_bad_options_name_the_option(kw, msg):
    inp = _input()
    rule = kw.pop("rule", "wmt25")
    with pytest.raises(InvalidParameterError, match=msg):
        C.rank(inp, rule, **kw)


def test_no_rank_module_draws_on_its_own():
    bad = []
    for p in sorted(RANK.glob("*.py")):
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
    assert not bad, bad
