"""NIST (docs/definitions.md §3): mteval-v13a vectors, NLTK corpus_nist on real single-reference data, a plain-Python
mteval-algorithm oracle for several references, empty references."""
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtscore.errors import InvalidParameterError
from mtscore.metrics.nist import NIST
from mtscore.metrics.registry import get_metric
from mtscore.tokenize import tokenize_corpus

from conftest import data_path


def nist_py(hyps, refs, N=5, weight_refs=None):
    """mteval-v13a's algorithm (compute_ngram_info / score_segment / nist_score), plain Python, token lists.
    ``weight_refs``: the references the information weights come from (default ``refs``)."""
    count, total_words = Counter(), 0
    for rs in (refs if weight_refs is None else weight_refs):
        for r in rs:
            total_words += len(r)
            for n in range(1, N + 1):
                count.update(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
    info = {g: math.log2((count[g[:-1]] if len(g) > 1 else total_words) / c) for g, c in count.items()}
    tst_info, tst_n = [0.0] * N, [0] * N
    sys_words, ref_words = 0, 0.0
    for c, rs in zip(hyps, refs):
        sys_words += len(c)
        ref_words += sum(len(r) for r in rs) / len(rs)
        for n in range(1, N + 1):
            hc = Counter(tuple(c[i:i + n]) for i in range(len(c) - n + 1))
            tst_n[n - 1] += sum(hc.values())
            mx = Counter()
            for r in rs:
                for g, k in Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1)).items():
                    mx[g] = max(mx[g], k)
            tst_info[n - 1] += sum(info[g] * min(k, mx[g]) for g, k in hc.items() if g in mx)
    score = sum(i / max(t, 1) for i, t in zip(tst_info, tst_n))
    ratio = sys_words / ref_words if ref_words else 1.0
    beta = -math.log(0.5) / math.log(1.5) ** 2
    bp = 1.0 if ratio >= 1 else (0.0 if ratio <= 0 else math.exp(-beta * math.log(ratio) ** 2))
    return score * bp


@pytest.mark.parametrize("c,refs,expected", [
    ("the cat sat on a mat", ["the cat sat on the mat"], 2.1875),
    ("the cat sat on the mat", ["the cat is on the mat"], 2.2208),
    ("the cat sat on", ["the cat sat on the mat"], 1.3341),
    ("the cat sat on the mat", ["the cat sat on the mat", "a cat was sitting on the mat in the house"], 2.5631),
])
def test_mteval_v13a_vectors(c, refs, expected):
    m = NIST()
    assert round(m.corpus([c], [refs]).score, 4) == expected
    assert round(float(m.sentence_scores_of([c], [refs])[0]), 4) == expected


def test_bp_and_components():
    r = NIST().corpus(["the cat sat on"], [["the cat sat on the mat"]])
    assert r.components["bp"] == pytest.approx(0.5)
    assert r.components["totals"][:2] == [4, 3]


corpora = st.lists(st.tuples(st.lists(st.sampled_from("abcdef"), max_size=10),
                             st.lists(st.lists(st.sampled_from("abcdef"), max_size=10), min_size=1, max_size=3)),
                   min_size=1, max_size=10)


@settings(max_examples=60, deadline=None)
@given(corpora, st.integers(1, 6))
def test_equals_mteval_algorithm_oracle(corpus, N):
    hyps = [" ".join(c) for c, _ in corpus]
    refs = [[" ".join(r) for r in rs] for _, rs in corpus]
    m = NIST(max_order=N, tokenize="none")
    st_ = m.stats(hyps, refs)
    tok_h = [c for c, _ in corpus]
    tok_r = [rs for _, rs in corpus]
    assert m.corpus_from_stats(st_).score == pytest.approx(nist_py(tok_h, tok_r, N), abs=1e-9)
    # segment scores: global weights, the segment's own counts and reference length
    sent = m.sentence_scores(st_)
    for i in range(len(corpus)):
        assert sent[i] == pytest.approx(nist_py(tok_h[i:i + 1], tok_r[i:i + 1], N, weight_refs=tok_r), abs=1e-9)


def test_nltk_single_reference_real_data():
    nltk_nist = pytest.importorskip("nltk.translate.nist_score")
    from mtscore.io.wmt import load_wmt21
    d = load_wmt21(data_path("wmt21"), "en-de")
    ref = d.refs["A"]
    tr = [[r.split()] for r in tokenize_corpus(ref, "13a")]
    for system in ("Facebook-AI", "Online-W", "VolcTrans-GLAT"):
        hyps = d.systems[system]
        th = [h.split() for h in tokenize_corpus(hyps, "13a")]
        ours = NIST().corpus(hyps, [[r] for r in ref]).score
        assert abs(ours - nltk_nist.corpus_nist(tr, th, n=5)) < 1e-9, system


def test_several_references_real_data_oracle():
    """NLTK picks one reference per segment and order; we follow mteval (clip at max over refs)."""
    from mtscore.io.wmt import load_wmt21
    d = load_wmt21(data_path("wmt21"), "en-de")
    refs = d.refs_sentence_major()[:300]
    hyps = d.systems["UEdin"][:300]
    th = [h.split() for h in tokenize_corpus(hyps, "13a")]
    tr = [[r.split() for r in tokenize_corpus(rs, "13a")] for rs in refs]
    assert NIST().corpus(hyps, refs).score == pytest.approx(nist_py(th, tr), abs=1e-9)


def test_empty_references_and_hypotheses():
    m = NIST()
    assert m.corpus(["a b"], [[""]]).score == 0.0  # no reference words: no information, BP = 1
    assert m.corpus([""], [["a b"]]).score == 0.0  # empty candidate: BP = 0
    st_ = m.stats(["a b", "a b c"], [[""], ["a b c"]])
    s = m.sentence_scores(st_)
    assert s[0] == 0.0 and s[1] > 0
    # the empty-reference segment still counts its length in the corpus BP
    assert m.corpus_from_stats(st_).score == pytest.approx(nist_py([["a", "b"], ["a", "b", "c"]], [[[]], [["a", "b", "c"]]]))


def test_lowercase_is_ascii_only_like_mteval():
    assert NIST(lowercase=True).corpus(["The Cat"], [["the cat"]]).score == pytest.approx(
        NIST().corpus(["the cat"], [["the cat"]]).score)
    assert NIST(lowercase=True).corpus(["É"], [["é"]]).score == 0.0
    assert "case:lc" in NIST(lowercase=True).signature()


def test_surface():
    m = get_metric("nist")
    assert not m.decomposable and m.higher_is_better
    assert m.columns[-2:] == ("hyp_len", "ref_len") and len(m.columns) == 12
    st_ = m.stats(["a b c", "a c"], [["a b c d"], ["a b c"]])
    w = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, 0.0]])
    before = st_.values.copy()
    out = m.score(w @ st_.values)
    assert list(out) == [m.score(row) for row in w @ st_.values]
    np.testing.assert_array_equal(before, st_.values)


@pytest.mark.parametrize("params,name", [(dict(max_order=0), "max_order"), (dict(max_order=10), "max_order"),
                                         (dict(max_order=2.0), "max_order"), (dict(tokenize="x"), "tokenize")])
def test_invalid_parameters(params, name):
    with pytest.raises(InvalidParameterError, match=rf"^{name}:"):
        NIST(**params)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=40),
       st.sampled_from(["log", "log2", "exp"]))
def test_libm_kernel_equals_math_module(values, fn):
    """NIST's logarithms and exponentials go through the C library (``ckernels.libm_apply``); its reference,
    ``libm_map``, calls Python's ``math`` functions (the same C library): equal bit for bit, nan/inf included."""
    from mtscore import ckernels
    from mtscore.metrics._common import libm_map
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        got = ckernels.libm_apply(fn, x)
    assert np.array_equal(got, libm_map(fn, x), equal_nan=True)


def test_scores_do_not_depend_on_the_cpus_vector_width():
    """NumPy's float64 log/exp use AVX-512 kernels of their own where the CPU has them and the C library's
    elsewhere; NIST's scores must not follow. The same NIST sentence and corpus scores with NumPy's AVX-512
    paths disabled (``NPY_DISABLE_CPU_FEATURES``, as on an AVX2-only CPU) as with everything this CPU has."""
    import os
    import subprocess
    import sys
    hyp, ref = data_path("wmt17-en-de", "systems", "newstest2017.uedin-nmt.4722.en-de"), data_path("wmt17-en-de", "newstest2017.en-de.ref0.de")
    code = ("import sys, numpy as np; from mtscore.metrics.nist import NIST; "
            "h = open(sys.argv[1], encoding='utf-8').read().split('\\n')[:400]; "
            "r = open(sys.argv[2], encoding='utf-8').read().split('\\n')[:400]; "
            "m = NIST(); print(repr(m.corpus(h, [[x] for x in r]).score), "
            "np.asarray(m.sentence_scores_of(h, [[x] for x in r])).tobytes().hex())")
    outs = []
    for disabled in ("", "X86_V4 AVX512_ICL AVX512_SPR"):
        env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=disabled)
        outs.append(subprocess.run([sys.executable, "-c", code, str(hyp), str(ref)], env=env, check=True,
                                   capture_output=True, text=True).stdout)
    assert outs[0] == outs[1]
