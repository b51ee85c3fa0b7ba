"""MBR: pairwise utilities against sacreBLEU / the generic metric path, posteriors, consensus, order invariance."""
from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings, strategies as st

from conftest import data_path
from mtscore.errors import InputError, InvalidParameterError
from mtscore.io import read_ref_streams
from mtscore.metrics.registry import get_metric
from mtscore.search import NBestList, PairwiseUtility, Pool, mbr_select, posteriors, read_moses_nbest
from mtscore.search.mbr import _chunks


def naive_mbr(cands, probs, util):
    """Plain-Python expected utilities: Σ_b p_b u(a, b)."""
    return [sum(p * util(a, b) for b, p in zip(cands, probs)) for a in cands]


def test_consensus_candidate_is_chosen():
    # every other candidate is a one-word variant of the consensus; each shares most n-grams with it only
    consensus = "the quick brown fox jumps over the lazy dog"
    others = ["the quick brown fox leaps over the lazy dog", "a quick brown fox jumps over the lazy dog",
              "the quick brown fox jumps over the lazy cat", "the quick red fox jumps over the lazy dog",
              "the quick brown fox jumps over a lazy dog"]
    for pos in range(len(others) + 1):
        cands = others[:pos] + [consensus] + others[pos:]
        sel = mbr_select(Pool.of(NBestList.from_lists([cands])), get_metric("bleu", tokenize="none"))
        assert sel.texts[0] == consensus and sel.index[0] == pos


def test_mbr_equals_naive_sacrebleu_expected_utility():
    cands = ["a b c d e", "a b c d", "a b x d e", "b c d e f", "a b c d e f g"]
    scores = np.array([-1.0, -1.5, -2.0, -0.5, -3.0])
    nb = NBestList.from_lists([cands], scores=[scores])
    pool = Pool.of(nb)
    for kind, T in [("uniform", 1.0), ("model", 1.0), ("model", 0.5)]:
        p = posteriors(pool, kind, T)
        expect_p = np.full(5, 0.2) if kind == "uniform" else np.exp(scores / T) / np.exp(scores / T).sum()
        assert np.allclose(p, expect_p, atol=1e-15)
        sel = mbr_select(pool, get_metric("bleu", tokenize="none"), kind, T)
        eu = naive_mbr(cands, expect_p, lambda a, b: sacrebleu.sentence_bleu(a, [b], tokenize="none").score)
        assert sel.texts[0] == cands[int(np.argmax(eu))]
        assert sel.info["expected_utility"][0] == pytest.approx(max(eu), abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from("a b c d e f".split()), min_size=0, max_size=8), min_size=1, max_size=6),
       st.randoms(use_true_random=False))
def test_mbr_invariant_to_candidate_order(cands, rnd):
    texts = [" ".join(c) for c in cands]
    perm = list(range(len(texts)))
    rnd.shuffle(perm)
    m = get_metric("bleu", tokenize="none")
    a = mbr_select(Pool.of(NBestList.from_lists([texts])), m)
    b = mbr_select(Pool.of(NBestList.from_lists([[texts[j] for j in perm]])), m)
    # same expected utility, and the same text unless two different texts tie exactly
    assert a.info["expected_utility"][0] == pytest.approx(b.info["expected_utility"][0], abs=1e-9)
    pu_a = PairwiseUtility(m, Pool.of(NBestList.from_lists([texts])))
    pu_b = PairwiseUtility(m, Pool.of(NBestList.from_lists([[texts[j] for j in perm]])))
    Ma = next(pu_a.matrices())[1]
    Mb = next(pu_b.matrices())[1]
    assert np.allclose(Ma[np.ix_(perm, perm)], Mb, atol=1e-12)
    eu = Ma.mean(1)
    winners = {texts[j] for j in np.flatnonzero(np.abs(eu - eu.max()) <= 1e-9)}
    assert a.texts[0] in winners and b.texts[0] in winners


@pytest.mark.parametrize("name, params", [("bleu", {}), ("bleu", {"tokenize": "13a"}), ("bleu-sbp", {}),
                                          ("bleu", {"smooth": "floor", "smooth_value": 0.1}),
                                          ("4-grr", {}), ("k-grr", {"k": 2, "alpha": -0.9, "beta": 1.0}),
                                          ("wrr", {}), ("wer", {})])
def test_fast_pairwise_equals_generic_metric(name, params):
    rng = np.random.default_rng(1)
    words = "the a cat dog sat on mat . , ran".split()
    cands = [[" ".join(rng.choice(words, rng.integers(0, 9))) for _ in range(rng.integers(1, 7))] for _ in range(6)]
    cands[2] = []
    kw = {"tokenize": "none", **params}
    m = get_metric(name, **kw)
    pool = Pool.of(NBestList.from_lists(cands))
    fast = PairwiseUtility(m, pool)
    assert fast.method != "generic"
    gen = PairwiseUtility(m, pool, "generic")
    n = 0
    for (s1, M1), (s2, M2) in zip(fast.matrices(), gen.matrices()):
        assert s1 == s2 and M1.shape == M2.shape
        assert np.allclose(M1, M2, atol=1e-12, rtol=0)
        n += 1
    assert n == 6


def test_pairwise_bleu_equals_sacrebleu_sentence_bleu_on_real_pairs():
    d = data_path("nbest-bn-en")
    nb = read_moses_nbest(d / "nbest.txt")
    pool = Pool.of(nb)
    m = get_metric("bleu")  # sacreBLEU's sentence_bleu defaults: 13a, exp smoothing, effective order
    pu = PairwiseUtility(m, pool)
    rng = np.random.default_rng(0)
    want = set(rng.choice(nb.n_segments, 12, replace=False).tolist())
    checked = 0
    for s, M in pu.matrices():
        if s not in want:
            continue
        cands = nb.segment(s)
        for _ in range(8):
            a, b = rng.integers(0, len(cands), 2)
            ref = sacrebleu.sentence_bleu(cands[a], [cands[b]]).score
            assert abs(M[a, b] - ref) < 1e-9
            checked += 1
    assert checked == 96


def test_real_mbr_runs_and_selects_from_lists():
    d = data_path("nbest-bn-en")
    refs = read_ref_streams([str(d / f"reference.en.{i}") for i in range(4)])
    nb = read_moses_nbest(d / "nbest.txt", n_segments=len(refs))
    pool = Pool.of(nb)
    for kind in ("uniform", "model"):
        sel = mbr_select(pool, get_metric("bleu", tokenize="none"), kind, 5.0)
        assert all(sel.texts[i] == nb.segment(i)[sel.index[i]] for i in range(nb.n_segments))


def test_posterior_errors_and_chunking():
    nb = NBestList.from_lists([["a", "b"]])
    with pytest.raises(InputError, match="model score"):
        posteriors(Pool.of(nb), "model")
    with pytest.raises(InvalidParameterError, match="temperature"):
        posteriors(Pool.of(NBestList.from_lists([["a"]], scores=[[0.0]])), "model", 0.0)
    with pytest.raises(InvalidParameterError):
        PairwiseUtility(get_metric("nist"), Pool.of(nb))
    assert list(_chunks(np.array([3, 3, 10, 1]), limit=20)) == [(0, 2), (2, 3), (3, 4)]
