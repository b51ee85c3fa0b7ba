"""ROSE features: docs/definitions.md §7 worked example, paper Table 2, and a plain-Python oracle (hypothesis)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtscore.metrics.rose_features import ALL_FEATURES, CORE_FEATURES, extract_features, is_punct

FW = frozenset({"the", "on", "is", "a"})


def test_spec_worked_example():
    f = extract_features(["the cat sat on the mat"], [["the cat is on the mat"]], function_words=frozenset({"the", "on", "is"}))
    d = dict(zip(CORE_FEATURES, f[0]))
    for n, v in zip(range(1, 5), (5 / 6, 3 / 5, 1 / 4, 0.0)):
        assert d[f"prec_{n}"] == pytest.approx(v, abs=1e-12)
        assert d[f"rec_{n}"] == pytest.approx(v, abs=1e-12)
        assert d[f"f_{n}"] == pytest.approx(v, abs=1e-12)
    assert round(d["avg_prec"], 4) == 0.4208
    assert d["len_diff"] == 0.0
    assert d["func_diff"] == pytest.approx(-1 / 6)
    assert round(d["func_diff"], 4) == -0.1667
    assert d["punct_diff"] == 0.0
    assert d["content_diff"] == pytest.approx(1 / 6)


def test_table2_mixed_counts():
    ref = "A/DT red/ADJ vehicle/NN"
    cands = ["A/DT red/ADJ car/NN", "A/DT red/ADJ rose/NN", "A/DT red/ADJ red/ADJ"]
    f = extract_features(cands, [[ref]] * 3, pos="pretagged")
    d = [dict(zip(ALL_FEATURES, row)) for row in f]
    # candidate 1: mixed 2-gram matches 2 (of 2), 3-gram 1 (of 1); candidate 3: 1 and 0
    assert d[0]["mixed_prec_2"] * 2 == 2 and d[0]["mixed_prec_3"] * 1 == 1
    assert d[2]["mixed_prec_2"] * 2 == 1 and d[2]["mixed_prec_3"] == 0
    # plain word n-gram precision is the same for all three (2-gram = 1 match, 3-gram = 0)
    for row in d:
        assert row["prec_2"] * 2 == 1 and row["prec_3"] == 0


def test_unclipped_precision_and_multi_reference():
    # no clipping: "the" x7 against a reference with two "the" -> all 7 positions match
    f = extract_features(["the the the the the the the"], [["The cat is on the mat .", "There is a cat on the mat ."]],
                         lowercase=True)
    d = dict(zip(CORE_FEATURES, f[0]))
    assert d["prec_1"] == 1.0 and d["prec_2"] == 0.0
    assert d["rec_1"] == pytest.approx(2 / 7)  # first reference: 2 of 7 tokens; second: 2 of 8
    # word count: ref lengths 7 and 8, hyp 7 -> 0 chosen (closest to 0)
    assert d["len_diff"] == 0.0
    # punctuation: hyp 0, refs 1 each -> -1/7 vs -1/8 -> -1/8 (smallest |value|)
    assert d["punct_diff"] == pytest.approx(-1 / 8)


def test_empty_segments():
    f = extract_features(["", "a b", ""], [[""], [""], ["x y z"]], function_words=FW)
    assert np.all(np.isfinite(f))
    d0, d1, d2 = (dict(zip(CORE_FEATURES, r)) for r in f)
    assert all(d0[k] == 0 for k in CORE_FEATURES)
    assert d1["len_diff"] == 2.0 and d1["prec_1"] == 0.0  # empty reference: denominator max(len, 1)
    assert d2["len_diff"] == pytest.approx(-1.0) and d2["rec_1"] == 0.0


def test_is_punct():
    assert is_punct(".") and is_punct("«") and is_punct("...") and is_punct("—")
    assert not is_punct("$") and not is_punct("a.") and not is_punct("")


# ---------------------------------------------------------------------------------------------------
# plain-Python oracle
def _ngrams(toks, n):
    return [tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)]


def _cls(t):
    if is_punct(t):
        return "p"
    return "f" if t.lower() in FW else "c"


def oracle_core(c, refs):
    P, R = [], []
    for n in range(1, 5):
        cg = _ngrams(c, n)
        ref_sets = set(g for r in refs for g in _ngrams(r, n))
        P.append(sum(g in ref_sets for g in cg) / len(cg) if cg else 0.0)
        best = 0.0
        cset = set(cg)
        for r in refs:
            rg = _ngrams(r, n)
            if rg:
                best = max(best, sum(g in cset for g in rg) / len(rg))
        R.append(best)
    F = [2 * p * r / (p + r) if p + r > 0 else 0.0 for p, r in zip(P, R)]
    counts = lambda toks: (len(toks), sum(_cls(t) == "f" for t in toks), sum(_cls(t) == "p" for t in toks),
                           sum(_cls(t) == "c" for t in toks))
    cc = counts(c)
    diffs = []
    for k in range(4):
        vals = [(cc[k] - counts(r)[k]) / max(len(r), 1) for r in refs]
        diffs.append(min(vals, key=lambda v: (abs(v), v)))
    return P + R + F + [sum(P) / 4] + diffs


def oracle_pos(cw, ct, refs_w, refs_t):
    core = oracle_core(ct, refs_t)[:12]
    mixed = []
    for n in range(1, 5):
        cand = list(range(len(cw) - n + 1))
        num = 0
        for p in cand:
            ok = any(all(cw[p + k] == rw[s + k] or ct[p + k] == rt[s + k] for k in range(n))
                     for rw, rt in zip(refs_w, refs_t) for s in range(len(rw) - n + 1))
            num += ok
        mixed.append(num / len(cand) if cand else 0.0)
    return core + mixed


WORDS = st.sampled_from(["the", "a", "cat", "dog", "on", "mat", ".", ",", "The", "is", "!?"])
TAGS = st.sampled_from(["DT", "NN", "IN", "VB", "."])
SENT = st.lists(WORDS, max_size=9)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(SENT, st.lists(SENT, min_size=1, max_size=3)), min_size=1, max_size=6))
def test_core_matches_oracle(corpus):
    hyps = [" ".join(c) for c, _ in corpus]
    refs = [[" ".join(r) for r in rs] for _, rs in corpus]
    got = extract_features(hyps, refs, tokenize="none", function_words=FW)
    for row, (c, rs) in zip(got, corpus):
        exp = oracle_core(c, rs)
        assert np.allclose(row, exp, atol=1e-12, rtol=0), (c, rs, row, exp)


TAGGED = st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), TAGS), max_size=8)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(TAGGED, st.lists(TAGGED, min_size=1, max_size=3)), min_size=1, max_size=5))
def test_pos_matches_oracle(corpus):
    fmt = lambda s: " ".join(f"{w}/{t}" for w, t in s)
    hyps = [fmt(c) for c, _ in corpus]
    refs = [[fmt(r) for r in rs] for _, rs in corpus]
    got = extract_features(hyps, refs, pos="pretagged", function_words=FW)
    assert got.shape == (len(corpus), 33)
    for row, (c, rs) in zip(got, corpus):
        cw, ct = [w for w, _ in c], [t for _, t in c]
        rws = [[w for w, _ in r] for r in rs]
        rts = [[t for _, t in r] for r in rs]
        assert np.allclose(row[:17], oracle_core(cw, rws), atol=1e-12, rtol=0)
        assert np.allclose(row[17:], oracle_pos(cw, ct, rws, rts), atol=1e-12, rtol=0)
        assert np.all(row[29:33] >= row[17:21] - 1e-12)  # mixed >= POS precision


def test_textblob_tagger_features():
    pytest.importorskip("textblob")
    from mtscore.metrics.rose_pos import tag_tokens

    tags = tag_tokens([["The", "cat", "sat", "on", "the", "mat", "."]])
    assert tags == [["DT", "NN", "VBD", "IN", "DT", "NN", "."]]
    f = extract_features(["The cat sat on the mat."], [["The dog sat on a mat."]], pos="textblob")
    d = dict(zip(ALL_FEATURES, f[0]))
    assert d["pos_prec_1"] == 1.0 and d["prec_1"] == pytest.approx(5 / 7)
    assert d["mixed_prec_4"] == 1.0 and not math.isnan(d["pos_f_4"])
