"""WER / WRR / mWER / PER / mPER (docs/definitions.md §4): jiwer on real data, plain-Python oracles, hand-checked multi-ref vectors."""
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtscore.errors import InvalidParameterError
from mtscore.metrics.registry import get_metric
from mtscore.metrics.wer import MPER, MWER, PER, WER, WRR
from mtscore.tokenize import tokenize_corpus

from conftest import data_path


def lev_py(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def per_py(c, r):
    correct = sum((Counter(c) & Counter(r)).values())
    return max(len(c), len(r)) - correct


def oracle_stats(hyps, refs, dist, ref_len):
    rows = []
    for h, rs in zip(hyps, refs):
        c = h.split()
        errs = [dist(c, r.split()) for r in rs]
        lens = [len(r.split()) for r in rs]
        e = min(errs)
        norm = sum(lens) / len(lens) if ref_len == "average" else max(L for x, L in zip(errs, lens) if x == e)
        rows.append((e, norm, len(c)))
    return np.array(rows, dtype=float)


def test_spec_example():
    c, r = "the cat sat on the mat", "the cat is on the mat"
    assert WER().corpus([c], [[r]]).score == pytest.approx(1 / 6)
    assert PER().corpus([c], [[r]]).score == pytest.approx(1 / 6)
    assert WRR().corpus([c], [[r]]).score == pytest.approx(5 / 6)


corpora = st.lists(st.tuples(st.lists(st.sampled_from("abcde"), max_size=12),
                             st.lists(st.lists(st.sampled_from("abcde"), max_size=12), min_size=1, max_size=3)),
                   min_size=1, max_size=15)


@settings(max_examples=60, deadline=None)
@given(corpora, st.sampled_from(["average", "best"]))
def test_wer_per_equal_python_oracles(corpus, ref_len):
    hyps = [" ".join(c) for c, _ in corpus]
    refs = [[" ".join(r) for r in rs] for _, rs in corpus]
    for cls, dist in ((WER, lev_py), (PER, per_py)):
        m = cls(tokenize="none", ref_len=ref_len)
        np.testing.assert_allclose(m.stats(hyps, refs).values, oracle_stats(hyps, refs, dist, ref_len))


def test_mwer_mper_hand_checked():
    hyps = ["a b c"]
    refs = [["a b d", "a x y z"]]  # edit distances 1 and 3
    assert MWER().corpus(hyps, refs).score == pytest.approx(1 / 3.5)
    assert MWER(ref_len="best").corpus(hyps, refs).score == pytest.approx(1 / 3)
    # tie (1 edit each): "best" takes the longer reference -> smaller rate
    assert WER(ref_len="best").corpus(["a b"], [["a b c", "a"]]).score == pytest.approx(1 / 3)
    assert WER().corpus(["a b"], [["a b c", "a"]]).score == pytest.approx(1 / 2)
    # mPER: "b a c" vs "a b d" (2 correct -> 1 error), vs "a x y z" (1 correct -> 3 errors)
    assert MPER().corpus(["b a c"], [["a b d", "a x y z"]]).score == pytest.approx(1 / 3.5)
    # order matters for mWER: "b a c" needs 3 edits to become "a b d", 4 to become "a x y z"
    assert MWER().corpus(["b a c"], [["a b d", "a x y z"]]).score == pytest.approx(3 / 3.5)
    # corpus: Σ min errors / Σ normaliser
    assert MWER().corpus(["a b c", "x"], [["a b d", "a x y z"], ["x y", "z"]]).score == pytest.approx((1 + 1) / (3.5 + 1.5))


def test_empty_references():
    m = WER()
    st_ = m.stats(["a b", "", "a"], [[""], [""], ["a b"]])
    np.testing.assert_allclose(st_.values[:, :2], [[2, 0], [0, 0], [1, 2]])
    np.testing.assert_allclose(m.sentence_scores(st_), [1.0, 0.0, 0.5])
    assert m.corpus_from_stats(st_).score == pytest.approx(1.5)
    assert WRR().corpus(["a b", "a"], [[""], ["a b"]]).score == pytest.approx(-0.5)
    assert PER().corpus(["a b"], [[""]]).score == 1.0
    assert PER().corpus([""], [[""]]).score == 0.0
    # an empty reference beside a real one: the average normaliser counts it
    assert WER().corpus(["a"], [["", "a"]]).score == pytest.approx(0 / 0.5)
    assert WER().corpus(["a b"], [["", "a"]]).score == pytest.approx(1 / 0.5)


def test_flags_and_registry():
    for name, cls in (("wer", WER), ("mwer", MWER), ("per", PER), ("mper", MPER), ("wrr", WRR)):
        m = get_metric(name)
        assert isinstance(m, cls) and m.decomposable
    assert not get_metric("wer").higher_is_better and not get_metric("per").higher_is_better
    assert get_metric("wrr").higher_is_better
    assert not WER(ref_len="best").decomposable
    assert "norm:best" in WER(ref_len="best").signature(2)


@pytest.mark.parametrize("params,name", [
    (dict(ref_len="shortest"), "ref_len"), (dict(tokenize="x"), "tokenize"), (dict(lowercase=1), "lowercase")])
def test_invalid_parameters(params, name):
    with pytest.raises(InvalidParameterError, match=rf"^{name}:"):
        WER(**params)


def test_score_vectorized_and_pure():
    m = PER()
    st_ = m.stats(["a b c", "a x", "c b a d"], [["a b c"], ["a b c d"], ["a b c"]])
    w = np.random.default_rng(0).integers(0, 3, size=(5, 3)).astype(float)
    before = st_.values.copy()
    out = m.score(w @ st_.values)
    assert [m.score(row) for row in w @ st_.values] == list(out)
    np.testing.assert_array_equal(before, st_.values)


# ---------------------------------------------------------------- real data vs jiwer
@pytest.mark.parametrize("system", ["Facebook-AI", "Online-W", "happypoet"])
def test_wer_equals_jiwer_wmt21(system):
    jiwer = pytest.importorskip("jiwer")
    from mtscore.io.wmt import load_wmt21
    d = load_wmt21(data_path("wmt21"), "en-de")
    hyps, refs = d.systems[system], d.refs["A"]
    # whitespace tokens. jiwer splits on " " only, we (str.split) on every Unicode space; this data has
    # 52 no-break spaces, so give jiwer the same tokens joined by " "
    ours = WER(tokenize="none").corpus(hyps, [[r] for r in refs]).score
    assert abs(ours - jiwer.wer([" ".join(r.split()) for r in refs], [" ".join(h.split()) for h in hyps])) < 1e-12
    # 13a tokens fed to jiwer
    th, tr = tokenize_corpus(hyps, "13a"), tokenize_corpus(refs, "13a")
    m = WER()
    assert abs(m.corpus(hyps, [[r] for r in refs]).score - jiwer.wer(tr, th)) < 1e-12
    sent = m.sentence_scores_of(hyps[:200], [[r] for r in refs[:200]])
    expected = [jiwer.wer(r, h) for h, r in zip(th[:200], tr[:200])]
    np.testing.assert_allclose(sent, expected, atol=1e-12)


def test_mwer_wmt21_three_refs_oracle():
    from mtscore.io.wmt import load_wmt21
    d = load_wmt21(data_path("wmt21"), "en-de")
    refs = d.refs_sentence_major()[:150]
    hyps = d.systems["UEdin"][:150]
    th = tokenize_corpus(hyps, "13a")
    tr = [tokenize_corpus(rs, "13a") for rs in refs]
    for ref_len in ("average", "best"):
        got = MWER(ref_len=ref_len).stats(hyps, refs).values
        np.testing.assert_allclose(got, oracle_stats(th, tr, lev_py, ref_len))


def test_api_all_edit_distance_metrics():
    import mtscore.api as api
    hyps = ["the cat sat on the mat", "a b c d"]
    refs = [["the cat is on the mat", "a cat sat on the mat"], ["a b x d"]]
    names = ["nist", "wer", "mwer", "wrr", "per", "mper", "4-grr", "k-grr"]
    out = api.score(hyps, refs, names, params={"k-grr": {"k": 2, "alpha": 0.5}})
    assert set(out) == set(names)
    assert out["wer"].score == out["mwer"].score == pytest.approx((1 + 1) / (6 + 4))
    assert out["wrr"].score == pytest.approx(1 - out["wer"].score)
    assert "k:2|alpha:0.5" in out["k-grr"].signature and "nrefs:var" in out["nist"].signature
    sent = api.score(hyps, refs, ["4-grr"], sentence_level=True)["4-grr"]
    assert [round(r.score, 4) for r in sent][1] == 0.4


@pytest.mark.parametrize("name,empty_pair,hyp_only,ref_only", [
    ("nist", 0.0, 0.0, 0.0), ("wer", 0.0, 1.0, 1.0), ("wrr", 1.0, 0.0, 0.0), ("per", 0.0, 1.0, 1.0),
    ("4-grr", 1.0, 0.0, 0.0), ("k-grr", 1.0, 0.0, 0.0)])
def test_empty_segments_defined(name, empty_pair, hyp_only, ref_only):
    """Documented results for empty lines (docs/metrics.md); never a ZeroDivisionError."""
    m = get_metric(name)
    assert m.corpus([""], [[""]]).score == empty_pair
    assert m.corpus(["a"], [[""]]).score == hyp_only
    assert m.corpus([""], [["a"]]).score == ref_only
    assert len(m.stats([], []).values) == 0
