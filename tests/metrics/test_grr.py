"""K-GRR / 4-GRR (docs/definitions.md §5): worked examples, Viterbi == brute force over edit scripts, multi-ref rules."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtscore.errors import InvalidParameterError
from mtscore.metrics.grr import FourGRR, KGRR, grr_align
from mtscore.metrics.registry import get_metric
from mtscore.metrics.wer import WRR


# ---------------------------------------------------------------- oracles (plain Python)
def script_value(ops, k, alpha, beta):
    """Σ_{j=1}^{k} M_j − α·I − β·D of an edit script, from the definition (runs of consecutive matches)."""
    total, run = 0.0, 0
    for op in ops + ["end"]:
        if op == "match":
            run += 1
            continue
        total += sum(max(0, run - j + 1) for j in range(1, k + 1))
        run = 0
        if op == "ins":
            total -= alpha
        elif op == "del":
            total -= beta
    return total


def brute_force(c, r, k, alpha, beta):
    """Max over *all* monotone edit scripts turning c into r (exhaustive enumeration, no DP)."""
    best = -math.inf

    def rec(t, i, ops):
        nonlocal best
        if t == len(c) and i == len(r):
            best = max(best, script_value(ops, k, alpha, beta))
            return
        if t < len(c) and i < len(r):
            if c[t] == r[i]:
                rec(t + 1, i + 1, ops + ["match"])
            rec(t + 1, i + 1, ops + ["sub"])
        if t < len(c):
            rec(t + 1, i, ops + ["ins"])
        if i < len(r):
            rec(t, i + 1, ops + ["del"])

    rec(0, 0, [])
    return best


def viterbi_py(c, r, K, alpha, beta):
    """The Viterbi of docs/definitions.md §5.2, written out literally."""
    R = len(r)
    neg = -math.inf

    def close(dp):
        for i in range(R):
            for m in range(K):
                dp[i + 1][0] = max(dp[i + 1][0], dp[i][m] - beta)
        return dp

    dp = [[neg] * K for _ in range(R + 1)]
    dp[0][0] = 0.0
    dp = close(dp)
    for w in c:
        nd = [[neg] * K for _ in range(R + 1)]
        for i in range(R + 1):
            for m in range(K):
                v = dp[i][m]
                if v == neg:
                    continue
                nd[i][0] = max(nd[i][0], v - alpha)
                if i < R:
                    nd[i + 1][0] = max(nd[i + 1][0], v)
                    if w == r[i]:
                        t = min(m + 1, K - 1)
                        nd[i + 1][t] = max(nd[i + 1][t], v + m + 1)
        dp = close(nd)
    return max(dp[R])


def denom(n, k):
    return sum(max(0, n - j + 1) for j in range(1, k + 1))


# ---------------------------------------------------------------- docs/definitions.md §5.3
@pytest.mark.parametrize("c,r,expected", [
    ("a b c d", "a b x d", 0.4),
    ("a b z c d", "a b c d", 0.5),
    ("a b c d e", "a b c d", 0.9),
    ("a b c", "a b c d e", 6 / 14),
    ("a b c d e f", "a b c d e f", 1.0),
    ("x y z w", "a", -3.0),  # negative, not clipped
])
def test_spec_examples(c, r, expected):
    m = FourGRR(tokenize="none")
    assert m.corpus([c], [[r]]).score == pytest.approx(expected, abs=1e-12)
    assert m.sentence_scores_of([c], [[r]])[0] == pytest.approx(expected, abs=1e-12)
    al = grr_align(c.split(), r.split())
    assert al.score == pytest.approx(expected, abs=1e-12)


def test_spec_example_rounding():
    assert round(FourGRR().corpus(["a b c"], [["a b c d e"]]).score, 4) == 0.4286


def test_align_path_spec_example():
    al = grr_align("a b c d".split(), "a b x d".split())
    assert al.numerator == 4 and al.denominator == 10
    assert al.ops == [("match", 0, 0), ("match", 1, 1), ("sub", 2, 2), ("match", 3, 3)]
    al = grr_align("a b z c d".split(), "a b c d".split())
    assert [o[0] for o in al.ops] == ["match", "match", "ins", "match", "match"]


# ---------------------------------------------------------------- property tests
tokens = st.lists(st.sampled_from("abc"), max_size=5)
params = st.sampled_from([(1.0, 0.0), (0.5, 0.0), (-0.9, 0.0), (1.0, 1.0), (0.5, 1.0), (-0.9, 1.0), (0.0, 0.5)])


def _ops_valid(ops, c, r):
    t = i = 0
    for op, ht, ri in ops:
        if op in ("match", "sub"):
            assert (ht, ri) == (t, i)
            if op == "match":
                assert c[t] == r[i]
            t, i = t + 1, i + 1
        elif op == "ins":
            assert ht == t and ri is None
            t += 1
        else:
            assert ri == i and ht is None
            i += 1
    assert (t, i) == (len(c), len(r))


@settings(max_examples=150, deadline=None)
@given(tokens, tokens, params, st.integers(1, 4))
def test_viterbi_equals_brute_force(c, r, ab, k):
    alpha, beta = ab
    expected = brute_force(c, r, k, alpha, beta)
    m = KGRR(k=k, alpha=alpha, beta=beta, tokenize="none")
    st_ = m.stats([" ".join(c)], [[" ".join(r)]])
    assert st_.values[0, 0] == pytest.approx(expected, abs=1e-9)
    assert st_.values[0, 1] == denom(len(r), k)
    al = grr_align(c, r, k=k, alpha=alpha, beta=beta)
    assert al.numerator == pytest.approx(expected, abs=1e-9)
    _ops_valid(al.ops, c, r)
    assert script_value([o[0] for o in al.ops], k, alpha, beta) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from("abcd"), max_size=14),
                          st.lists(st.lists(st.sampled_from("abcd"), max_size=14), min_size=1, max_size=3)),
                min_size=1, max_size=12),
       params, st.integers(1, 5))
def test_batch_kernel_equals_python_viterbi(corpus, ab, k):
    """Many segments and references in one kernel call (state reuse between pairs) == the Viterbi of docs/definitions.md §5.2."""
    alpha, beta = ab
    hyps = [" ".join(c) for c, _ in corpus]
    refs = [[" ".join(r) for r in rs] for _, rs in corpus]
    m = KGRR(k=k, alpha=alpha, beta=beta, multi_ref_agg="best_ref_micro", tokenize="none")
    vals = m.stats(hyps, refs).values
    for (c, rs), (num, den) in zip(corpus, vals):
        pairs = [(viterbi_py(c, r, k, alpha, beta), denom(len(r), k)) for r in rs]
        pos = [(n / d, d, n) for n, d in pairs if d > 0]
        if pos:
            best = max(x[0] for x in pos)
            exp_d = max(x[1] for x in pos if x[0] == best)
            assert den == exp_d
            assert num == pytest.approx(best * exp_d, abs=1e-9)
        else:
            assert den == 0 and num == pytest.approx(max(n for n, _ in pairs), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from("abcd"), max_size=10),
                          st.lists(st.sampled_from("abcd"), min_size=1, max_size=10)), min_size=1, max_size=10))
def test_k1_equals_wrr(corpus):
    hyps = [" ".join(c) for c, _ in corpus]
    refs = [[" ".join(r)] for _, r in corpus]
    g = KGRR(k=1, tokenize="none")
    w = WRR(tokenize="none")
    assert g.corpus(hyps, refs).score == pytest.approx(w.corpus(hyps, refs).score, abs=1e-12)
    np.testing.assert_allclose(g.sentence_scores_of(hyps, refs), w.sentence_scores_of(hyps, refs), atol=1e-12)


# ---------------------------------------------------------------- multiple references, empty references
def test_multi_ref_weighted_mean_and_best_ref_micro():
    hyps = ["a b", "a b c d"]
    refs = [["a b c d", "a b"], ["a b x d"]]
    # seg 1: ref1 N=3 D=10 (0.3), ref2 N=3 D=3 (1.0) -> s=1, W=6.5; seg 2: N=4, D=10
    m = FourGRR()
    st_ = m.stats(hyps, refs)
    np.testing.assert_allclose(st_.values, [[6.5, 6.5], [4.0, 10.0]])
    assert m.corpus(hyps, refs).score == pytest.approx(10.5 / 16.5)
    np.testing.assert_allclose(m.sentence_scores(st_), [1.0, 0.4])
    micro = FourGRR(multi_ref_agg="best_ref_micro")
    assert micro.corpus(hyps, refs).score == pytest.approx(7 / 13)
    assert m.decomposable and not micro.decomposable


def test_single_ref_is_micro_average():
    hyps = ["a b c d", "a b z c d", "q r s"]  # q r s: 2 subs + 1 insertion = -1
    refs = [["a b x d"], ["a b c d"], ["a b"]]
    m = FourGRR()
    assert m.corpus(hyps, refs).score == pytest.approx((4 + 5 + (-1)) / (10 + 10 + 3))


def test_empty_references():
    m = FourGRR()
    st_ = m.stats(["x y", "", "a b", "a b c d"], [[""], [""], ["", "a b"], ["a b x d"]])
    np.testing.assert_allclose(st_.values, [[-2, 0], [0, 0], [1.5, 1.5], [4, 10]])
    np.testing.assert_allclose(m.sentence_scores(st_), [0.0, 1.0, 1.0, 0.4])
    assert m.corpus_from_stats(st_).score == pytest.approx((-2 + 1.5 + 4) / 11.5)
    assert m.corpus(["x"], [[""]]).score == 0.0
    assert m.corpus([""], [[""]]).score == 1.0


def test_score_vectorized_and_pure():
    m = FourGRR()
    st_ = m.stats(["a b c", "a x c", "c b a"], [["a b c"], ["a b c d"], ["a b c"]])
    vals = st_.values.copy()
    w = np.random.default_rng(0).integers(0, 3, size=(7, 3)).astype(float)
    out = m.score(w @ st_.values)
    assert out.shape == (7,)
    for row, s in zip(w @ st_.values, out):
        assert s == m.score(row)
    np.testing.assert_array_equal(st_.values, vals)


# ---------------------------------------------------------------- surface, parameters
def test_registry_and_flags():
    m = get_metric("4-grr")
    assert isinstance(m, FourGRR) and m.k == 4 and m.higher_is_better and m.decomposable
    k2 = get_metric("k-grr", k=2)
    assert k2.display_name == "2-GRR" and "k:2" in k2.signature()
    assert "alpha:1|beta:0" in m.signature()


@pytest.mark.parametrize("params,name", [
    (dict(k=0), "k"), (dict(k=2.5), "k"), (dict(k=True), "k"), (dict(alpha=float("nan")), "alpha"),
    (dict(alpha="1"), "alpha"), (dict(beta=float("inf")), "beta"), (dict(multi_ref_agg="sum"), "multi_ref_agg"),
    (dict(tokenize="bogus"), "tokenize"), (dict(lowercase="yes"), "lowercase"),
])
def test_invalid_parameters(params, name):
    with pytest.raises(InvalidParameterError, match=rf"^{name}:"):
        KGRR(**params)


def test_4grr_has_no_k_and_align_checks():
    with pytest.raises(InvalidParameterError, match="unknown parameter"):
        FourGRR(k=3)
    with pytest.raises(InvalidParameterError, match="^alpha:"):
        grr_align(["a"], ["a"], alpha=float("nan"))


def test_cli(tmp_path, capsys):
    from mtscore.cli.main import main
    h = tmp_path / "h.txt"
    r = tmp_path / "r.txt"
    h.write_text("a b c d\na b z c d\n", encoding="utf-8")
    r.write_text("a b x d\na b c d\n", encoding="utf-8")
    assert main(["score", "-i", str(h), "-r", str(r), "-m", "4-grr", "k-grr", "--grr-k", "1", "-f", "json"]) == 0
    out = capsys.readouterr().out
    assert "45." in out and "k:1" in out  # shown x100 (0.45 in the API), JSON included
    assert main(["score", "-i", str(h), "-r", str(r), "-m", "k-grr", "--grr-k", "0"]) != 0
    assert "k:" in capsys.readouterr().err
