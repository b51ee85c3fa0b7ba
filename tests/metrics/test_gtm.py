"""GTM: hand-computed vectors, a plain-Python greedy oracle and an exhaustive maximum-matching oracle."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtscore.errors import InputError, InvalidParameterError
from mtscore.metrics.gtm import GTM
from mtscore.metrics.registry import get_metric


# --- oracles (plain Python) -------------------------------------------------------------------
def runs_score(pairs, e):
    """sum over maximal diagonal runs of a matching of len**e."""
    s = set(pairs)
    tot = 0.0
    for (i, j) in pairs:
        if (i - 1, j - 1) in s:
            continue
        n = 1
        while (i + n, j + n) in s:
            n += 1
        tot += n ** e
    return tot


def exact_mms_e(c, r, e):
    """Exhaustive search over all matchings (exponential; tiny inputs only)."""
    best = 0.0

    def rec(i, used, pairs):
        nonlocal best
        if i == len(c):
            best = max(best, runs_score(pairs, e))
            return
        rec(i + 1, used, pairs)
        for j in range(len(r)):
            if j not in used and r[j] == c[i]:
                used.add(j)
                pairs.append((i, j))
                rec(i + 1, used, pairs)
                pairs.pop()
                used.discard(j)

    rec(0, set(), [])
    return best


def greedy_matching(c, r):
    """The GTM tool's greedy: longest available run, ties smallest candidate then reference position."""
    hu, ru = set(), set()
    pairs = []
    while True:
        best = (0, -1, -1)
        for i in range(len(c)):
            for j in range(len(r)):
                n = 0
                while (i + n < len(c) and j + n < len(r) and c[i + n] == r[j + n]
                       and i + n not in hu and j + n not in ru):
                    n += 1
                if n > best[0]:
                    best = (n, i, j)
        n, i, j = best
        if n == 0:
            return pairs
        for k in range(n):
            hu.add(i + k)
            ru.add(j + k)
            pairs.append((i + k, j + k))


def clipped_unigrams(c, r):
    return sum(min(c.count(w), r.count(w)) for w in set(c))


def stats(hyp, refs, e=1.0):
    return GTM(exponent=e, tokenize="none").stats([hyp], [refs]).values[0]


# --- hand-computed vectors ----------------------------------------------------------------------
def test_single_reference_e1():
    # hits: the, cat, on, the, mat -> MMS = 5 (clipped unigram count)
    m = GTM()
    res = m.corpus(["the cat sat on the mat"], [["the cat is on the mat"]])
    assert res.components["mms"] == pytest.approx(5.0)
    assert res.components["precision"] == pytest.approx(5 / 6)
    assert res.components["recall"] == pytest.approx(5 / 6)
    assert res.score == pytest.approx(5 / 6)


def test_single_reference_e12():
    # runs taken: "on the mat" (3), then "the cat" (2): MMS = (3^1.2 + 2^1.2)^(1/1.2)
    m = GTM(exponent=1.2)
    res = m.corpus(["the cat sat on the mat"], [["the cat is on the mat"]])
    mms = (3 ** 1.2 + 2 ** 1.2) ** (1 / 1.2)
    assert res.components["mms"] == pytest.approx(mms, abs=1e-12)
    assert res.components["precision"] == pytest.approx(mms / 6, abs=1e-12)
    assert res.score == pytest.approx(mms / 6, abs=1e-12)
    assert abs(mms - 4.47239) < 1e-5  # 3^1.2 = 3.73719, 2^1.2 = 2.29740


def test_different_lengths_e12():
    # C = "a b c d e" (5), R = "a b x c d e f" (7): runs "c d e" (3) and "a b" (2)
    res = GTM(exponent=1.2).corpus(["a b c d e"], [["a b x c d e f"]])
    mms = (3 ** 1.2 + 2 ** 1.2) ** (1 / 1.2)
    p, r = mms / 5, mms / 7
    assert res.components["precision"] == pytest.approx(p, abs=1e-12)
    assert res.components["recall"] == pytest.approx(r, abs=1e-12)
    assert res.score == pytest.approx(2 * p * r / (p + r), abs=1e-12)


def test_multiple_references_best_f():
    hyp = "the cat sat on the mat"
    refs = ["a cat is on a mat", "the cat is on the mat"]
    # e = 1: ref 1 MMS 3 (F = 6/12), ref 2 MMS 5 (F = 10/12) -> ref 2
    st1 = stats(hyp, refs, 1.0)
    assert list(st1) == [6, 6, 5, 5]
    # e = 1.2: ref 2 gives runs 3 + 2; ref 1 gives "cat" / "on" / "mat" singletons
    st2 = stats(hyp, refs, 1.2)
    assert st2[2] == pytest.approx(3 ** 1.2 + 2 ** 1.2)
    # the better reference is chosen by F, not by MMS: a long reference with more hits can lose
    st3 = stats("a b", ["a b", "a b a b a b a b"], 1.0)
    assert list(st3) == [2, 2, 2, 2]
    # order of references does not matter except for exact ties (first wins)
    assert list(stats(hyp, refs[::-1], 1.2)) == list(st2)


def test_corpus_aggregation_additive():
    hyps = ["the cat sat on the mat", "a b c d e"]
    refs = [["the cat is on the mat"], ["a b x c d e f"]]
    m = GTM(exponent=1.2, aggregate="grid")
    s = m.stats(hyps, refs)
    total = (3 ** 1.2 + 2 ** 1.2) * 2
    assert s.sum()[2] == pytest.approx(total)
    res = m.corpus_from_stats(s)
    mms = total ** (1 / 1.2)
    p, r = mms / 11, mms / 13
    assert res.score == pytest.approx(2 * p * r / (p + r), abs=1e-12)
    # the default sums the per-segment MMS instead
    seg = GTM(exponent=1.2)
    mms_s = 2 * (3 ** 1.2 + 2 ** 1.2) ** (1 / 1.2)
    ps, rs = mms_s / 11, mms_s / 13
    assert seg.corpus(hyps, refs).score == pytest.approx(2 * ps * rs / (ps + rs), abs=1e-12)
    # sentence scores are the same formula row-wise
    sent = m.sentence_scores(s)
    assert sent[1] == pytest.approx(GTM(exponent=1.2).corpus([hyps[1]], [refs[1]]).score)
    # vectorized over leading axes: resample weights @ stats
    w = np.array([[1, 0], [0, 1], [2, 1]], dtype=float)
    batch = m.score(w @ s.values)
    assert batch.shape == (3,)
    assert batch[0] == pytest.approx(sent[0]) and batch[1] == pytest.approx(sent[1])
    # aggregate="segments": corpus MMS = sum of segment MMS (equal to grid for e = 1)
    seg = GTM(exponent=1.2, aggregate="segments")
    mms2 = 2 * (3 ** 1.2 + 2 ** 1.2) ** (1 / 1.2)
    p2, r2 = mms2 / 11, mms2 / 13
    assert seg.corpus(hyps, refs).score == pytest.approx(2 * p2 * r2 / (p2 + r2), abs=1e-12)
    assert seg.corpus(hyps, refs).score > res.score
    e1 = GTM().corpus(hyps, refs).score
    assert GTM(aggregate="segments").corpus(hyps, refs).score == pytest.approx(e1)


def test_greedy_is_an_approximation():
    # C = "a a b a", R = "b a a a", e = 2: greedy takes "a a" (C0-1 ~ R1-2) first (tie, smallest
    # positions), then only singletons b, a remain: 4 + 1 + 1 = 6; the maximum is "b a" + "a a" = 8.
    assert stats("a a b a", ["b a a a"], 2.0)[2] == pytest.approx(6.0)
    assert exact_mms_e("a a b a".split(), "b a a a".split(), 2.0) == pytest.approx(8.0)


def test_measure_option_and_signature():
    hyp, ref = ["a b c d e"], [["a b x c d e f"]]
    p = GTM(exponent=1.2, measure="precision").corpus(hyp, ref).score
    r = GTM(exponent=1.2, measure="recall").corpus(hyp, ref).score
    assert p == pytest.approx(((3 ** 1.2 + 2 ** 1.2) ** (1 / 1.2)) / 5)
    assert r == pytest.approx(((3 ** 1.2 + 2 ** 1.2) ** (1 / 1.2)) / 7)
    sig = GTM(exponent=1.2).signature(1)
    assert "e:1.2" in sig and "match:greedy" in sig
    assert get_metric("gtm", exponent=1.2).config.exponent == 1.2


def test_empty_inputs():
    m = GTM()
    # empty hypothesis, non-empty reference: P = 0, R = 0, F = 0
    assert m.corpus([""], [["a b"]]).score == 0.0
    # non-empty hypothesis, empty reference
    r = m.corpus(["a b"], [[""]])
    assert (r.components["precision"], r.components["recall"], r.score) == (0.0, 0.0, 0.0)
    # both empty: identical, P = R = F = 1
    assert m.corpus([""], [[""]]).score == 1.0
    # no segments at all: both totals zero -> 1 by the same rule; no ZeroDivisionError anywhere
    assert m.score(np.zeros(len(m.columns))) == 1.0
    assert m.corpus(["a", ""], [["a"], [""]]).score == 1.0


def test_bad_parameters_and_input():
    for bad in (0.5, float("nan"), float("inf"), "1.2", True):
        with pytest.raises(InvalidParameterError, match="exponent"):
            GTM(exponent=bad)
    with pytest.raises(InvalidParameterError, match="aggregate"):
        GTM(aggregate="doc")
    with pytest.raises(InvalidParameterError, match="measure"):
        GTM(measure="g")
    with pytest.raises(InvalidParameterError, match="tokenize"):
        GTM(tokenize="nope")
    with pytest.raises(InvalidParameterError, match="refs"):
        GTM().corpus(["a", "b"], [["a"]])
    with pytest.raises(InputError, match="no reference"):
        GTM().corpus(["a"], [[]])


# --- property tests -------------------------------------------------------------------------------
words = st.lists(st.sampled_from("abc"), min_size=0, max_size=6)


@settings(max_examples=150, deadline=None)
@given(c=words, refs=st.lists(words, min_size=1, max_size=3), e=st.sampled_from([1.0, 1.2, 2.0, 3.0]))
def test_kernel_equals_python_greedy_and_bounds(c, refs, e):
    got = stats(" ".join(c), [" ".join(r) for r in refs], e)
    # oracle: greedy per reference, best F, first on ties
    best = None
    for r in refs:
        pairs = greedy_matching(c, r)
        assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})  # a matching
        tot = runs_score(pairs, e)
        f = 2 * tot ** (1 / e) / (len(c) + len(r)) if c or r else 1.0
        if best is None or f > best[0]:
            best = (f, tot, len(r), r)
    f, tot, rlen, r = best
    assert got[0] == len(c) and got[1] == rlen
    assert got[2] == pytest.approx(tot, rel=1e-12, abs=1e-12)
    # greedy never beats the exhaustive maximum, and equals it (= clipped unigrams) for e = 1
    ex = exact_mms_e(c, r, e)
    assert got[2] <= ex + 1e-9
    if e == 1.0:
        assert got[2] == ex == clipped_unigrams(c, r)


@settings(max_examples=60, deadline=None)
@given(c=st.lists(st.sampled_from("abcd"), max_size=5), r=st.lists(st.sampled_from("abcd"), max_size=5))
def test_scores_in_range(c, r):
    for e in (1.0, 1.2):
        res = GTM(exponent=e, tokenize="none").corpus([" ".join(c)], [[" ".join(r)]])
        for k in ("precision", "recall", "f"):
            assert 0.0 <= res.components[k] <= 1.0 + 1e-12
        if c == r:
            assert res.score == pytest.approx(1.0)
        assert not math.isnan(res.score)
