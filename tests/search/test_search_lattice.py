"""Lattice readers and the lattice oracle (docs/definitions.md §5.5) against enumeration of all paths."""
from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtscore.errors import InputError
from mtscore.metrics.grr import grr_align
from mtscore.metrics.registry import get_metric
from mtscore.search.lattice import (build_lattice, enumerate_paths, lattice_from_strings, parse_plf, read_lattices,
                                    read_openfst, read_plf)
from mtscore.search.lattice_oracle import lattice_oracle
from mtscore.search.nbest import NBestList
from mtscore.search.oracle import CandidateStats, Pool, segment_oracle

EXAMPLE_PLF = "((('a',0,1),),(('b',0,1),('x',0,1),),(('c',0,1),('*EPS*',0,1),),(('d',0,1),),)"


# ---------------------------------------------------------------------------------------------------
# plain-Python oracle: K-GRR of a token list by enumerating every monotone edit script
def naive_grr_numerator(c, r, K, alpha, beta):
    best = -np.inf

    def rec(t, i, m, acc):
        nonlocal best
        if t == len(c) and i == len(r):
            best = max(best, acc)
        if t < len(c):
            rec(t + 1, i, 0, acc - alpha)  # insertion
            if i < len(r):
                rec(t + 1, i + 1, 0, acc)  # substitution
                if c[t] == r[i]:
                    rec(t + 1, i + 1, min(m + 1, K - 1), acc + m + 1)
        if i < len(r):
            rec(t, i + 1, 0, acc - beta)  # deletion

    rec(0, 0, 0, 0.0)
    return best


def denom(n, K):
    return float(sum(max(0, n - k) for k in range(K)))


def ratio(N, D):
    return N / D if D > 0 else (1.0 if N == 0 else 0.0)


# ---------------------------------------------------------------------------------------------------
def test_spec_example_lattice():
    lat = parse_plf(EXAMPLE_PLF)
    o = lattice_oracle(lat, "a b c d")
    assert o.numerator == 10.0 and o.denominator == 10.0 and o.score == 1.0
    assert o.tokens == ["a", "b", "c", "d"]
    assert o.alignment == [("match", 0, 0), ("match", 1, 1), ("match", 2, 2), ("match", 3, 3)]
    # the four paths, scored by the metric module, and their best
    paths = sorted(" ".join(t) for t, _ in enumerate_paths(lat))
    assert paths == ["a b c d", "a b d", "a x c d", "a x d"]


def test_spec_example_other_reference_and_alignment_ops():
    lat = parse_plf(EXAMPLE_PLF)
    o = lattice_oracle(lat, "a x d")
    assert o.text == "a x d" and o.score == 1.0
    o = lattice_oracle(lat, "a b y d")  # best: a b c d with c -> y substituted: 1 + 2 + 0 + 1 = 4
    assert o.numerator == 4.0 and o.text == "a b c d"
    assert ("sub", 2, 2) in o.alignment


@st.composite
def lattices(draw):
    n = draw(st.integers(2, 6))
    arcs = []
    for q in range(n - 1):
        for _ in range(draw(st.integers(1, 2))):
            d = draw(st.integers(q + 1, n - 1))
            lab = draw(st.sampled_from([None, "a", "b", "c", "d"]))
            w = draw(st.sampled_from([0.0, -0.5, -1.0, 0.25]))
            arcs.append((q, d, lab, w))
    extra_final = draw(st.booleans())
    perm = draw(st.permutations(list(range(n))))  # states not numbered in topological order
    src = [perm[a[0]] for a in arcs]
    dst = [perm[a[1]] for a in arcs]
    final = {perm[n - 1]: 0.0}
    if extra_final and n > 2:
        final[perm[n - 2]] = -0.5
    return build_lattice(n, perm[0], src, dst, [a[2] for a in arcs], [a[3] for a in arcs], final)


@settings(max_examples=120, deadline=None)
@given(lat=lattices(), ref=st.lists(st.sampled_from(list("abcd")), min_size=0, max_size=5),
       K=st.sampled_from([1, 2, 3, 4]), ab=st.sampled_from([(1.0, 0.0), (0.5, 0.0), (-0.9, 1.0), (1.0, 1.0)]),
       lam=st.sampled_from([0.0, 0.5]))
def test_lattice_oracle_equals_best_enumerated_path(lat, ref, K, ab, lam):
    alpha, beta = ab
    paths = enumerate_paths(lat)
    D = denom(len(ref), K)
    objs = [ratio(naive_grr_numerator(t, ref, K, alpha, beta), D) + lam * s for t, s in paths]
    o = lattice_oracle(lat, " ".join(ref), "k-grr", K, alpha, beta, lam)
    assert o.objective == pytest.approx(max(objs), abs=1e-9)
    # the returned path is a real path with that objective; its score agrees with grr_align
    assert any(t == o.tokens and abs(s - o.model_score) < 1e-9 for t, s in paths)
    g = grr_align(o.tokens, ref, K, alpha, beta)
    assert o.score == pytest.approx(g.score, abs=1e-12)
    assert o.numerator == pytest.approx(g.numerator, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(lat=lattices(), refs=st.lists(st.lists(st.sampled_from(list("abcd")), min_size=1, max_size=4), min_size=1,
                                     max_size=3))
def test_multi_reference_max_ratio_and_wrr(lat, refs):
    paths = enumerate_paths(lat)
    best = max(max(ratio(naive_grr_numerator(t, r, 4, 1.0, 0.0), denom(len(r), 4)) for r in refs) for t, _ in paths)
    o = lattice_oracle(lat, [" ".join(r) for r in refs], "4-grr")
    assert o.score == pytest.approx(best, abs=1e-12)
    # WRR: the wrr metric's sentence score of the oracle path is the best over all paths
    wrr = get_metric("wrr", tokenize="none")
    strs = [" ".join(t) for t, _ in paths]
    sent = wrr.sentence_scores(wrr.stats(strs, [[" ".join(r) for r in refs]] * len(strs)))
    ow = lattice_oracle(lat, [" ".join(r) for r in refs], "wrr")
    assert ow.score == pytest.approx(float(sent.max()), abs=1e-12)
    assert float(wrr.sentence_scores(wrr.stats([ow.text], [[" ".join(r) for r in refs]]))[0]) == pytest.approx(ow.score)


@settings(max_examples=40, deadline=None)
@given(cands=st.lists(st.lists(st.sampled_from(list("abcde")), min_size=0, max_size=5), min_size=1, max_size=6),
       ref=st.lists(st.sampled_from(list("abcde")), min_size=1, max_size=6))
def test_nbest_as_lattice_gives_nbest_oracle(cands, ref):
    texts = [" ".join(c) for c in cands]
    metric = get_metric("4-grr", tokenize="none")
    cs = CandidateStats(metric, Pool.of(NBestList.from_lists([texts])), [[" ".join(ref)]])
    sel = segment_oracle(cs)
    best = float(cs.sentence_scores()[sel.rows[0]])
    o = lattice_oracle(lattice_from_strings(texts), " ".join(ref), "4-grr")
    assert o.score == pytest.approx(best, abs=1e-12)
    assert o.text in texts


def test_lambda_interpolation_trades_metric_for_model_score():
    lat = parse_plf("((('a',0.0,1),('z',2.0,1),),(('b',0.0,1),),)")
    assert lattice_oracle(lat, "a b").text == "a b"
    o = lattice_oracle(lat, "a b", lam=1.0)  # z b: 0.1 + 2 beats a b: 1.0 + 0
    assert o.text == "z b" and o.model_score == 2.0
    assert o.objective == pytest.approx(o.score + 2.0)


def test_empty_reference_and_empty_path():
    lat = parse_plf("((('a',0,1),('*EPS*',0,1),),)")
    o = lattice_oracle(lat, "")
    assert o.tokens == [] and o.score == 1.0
    o = lattice_oracle(parse_plf("()"), "a b")
    assert o.tokens == [] and o.score == 0.0 and o.alignment == [("del", None, 0), ("del", None, 1)]


def test_multiword_labels_become_chains_and_tokenizer_applies():
    lat = parse_plf("((('a b',0,1),('x',0,1),),(('c.',0,1),),)")
    assert lat.n_arcs == 4
    o = lattice_oracle(lat, "a b c .", tokenize="13a")
    assert o.text == "a b c ." and o.score == 1.0


# ---------------------------------------------------------------------------------------------------
def test_read_plf_and_openfst(tmp_path):
    p = tmp_path / "l.plf"
    p.write_text(EXAMPLE_PLF + "\n((('the',0.5,1),('a',0.25,2),),(('cat',1.0,1),),(('sat',1.0,1),),)\n")
    lats = read_plf(p)
    assert [x.n_arcs for x in lats] == [6, 4]
    p2 = tmp_path / "p.plf"
    p2.write_text("((('the',0.5,1),('a',0.25,2),),(('cat',1.0,1),),(('sat',1.0,1),),)\n")
    lp = read_plf(p2, plf_scores="prob")
    assert np.isclose(sorted(lp[0].weight)[0], np.log(0.25))
    f = tmp_path / "l.fst"
    f.write_text("0 1 a\n1 2 b b 0.5\n1 2 x\n2 3 c 1.5\n2 3 <eps>\n3 4 d\n4 0.25\n\n5 6 the\n6\n")
    lf = read_openfst(f)
    assert len(lf) == 2
    assert sorted(" ".join(t) for t, _ in enumerate_paths(lf[0])) == ["a b c d", "a b d", "a x c d", "a x d"]
    scores = {" ".join(t): s for t, s in enumerate_paths(lf[0])}
    assert scores["a b c d"] == pytest.approx(-(0.5 + 1.5 + 0.25))  # costs -> negative model scores
    assert lattice_oracle(lf[0], "a b c d").numerator == 10.0
    assert read_lattices(f)[1].n_arcs == 1 and read_lattices(p)[0].n_arcs == 6


def test_openfst_states_not_in_topological_order(tmp_path):
    f = tmp_path / "l.fst"
    f.write_text("7 3 a\n3 9 b\n7 9 x\n9\n")
    (lat,) = read_openfst(f)
    assert sorted(" ".join(t) for t, _ in enumerate_paths(lat)) == ["a b", "x"]


@pytest.mark.parametrize("text, where", [
    ("0 1 a\n1 2 b\n2 1 c\n2\n", (":2:", "cyclic", "state 1 -> state 2 -> state 1")),
    ("0 0 a\n0\n", (":1:", "cyclic")),
    ("0 1 a 1 2 3\n1\n", (":1:", "6 fields")),
    ("0 x a\n1\n", (":1:", "state id")),
    ("0 1 a b zz\n1\n", (":1:", "weight")),
    ("0 1 a\n", ("no final state",)),
    ("0 1 a\n2\n", ("no final state is reachable",)),
])
def test_openfst_errors(tmp_path, text, where):
    f = tmp_path / "bad.fst"
    f.write_text(text)
    with pytest.raises(InputError) as exc:
        read_openfst(f)
    for w in where:
        assert w in str(exc.value)


@pytest.mark.parametrize("text, where", [
    ("((('a',0,1),),(('b',0,0),),)", ("column 1, arc 0", "distance 0")),
    ("((('a',0,1),),(('b',0,5),),)", ("column 1, arc 0", "beyond the last state")),
    ("((('a',0,1),),(('b',0,1)", ("not a PLF lattice",)),
    ("((('a','x',1),),)", ("column 0, arc 0", "finite numbers")),
    ("(((1,0,1),),)", ("column 0, arc 0",)),
    ("((('a',0,1.5),),)", ("distance",)),
    ("__import__('os')", ("not a PLF lattice",)),
])
def test_plf_errors(tmp_path, text, where):
    f = tmp_path / "bad.plf"
    f.write_text(EXAMPLE_PLF + "\n" + text + "\n")
    with pytest.raises(InputError) as exc:
        read_plf(f)
    assert ":2:" in str(exc.value)
    for w in where:
        assert w in str(exc.value)


def test_plf_probabilities_must_be_positive(tmp_path):
    f = tmp_path / "p.plf"
    f.write_text("((('a',0.0,1),),)\n")
    with pytest.raises(InputError, match="probability"):
        read_plf(f, plf_scores="prob")
