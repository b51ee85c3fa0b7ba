"""BLEU / BLEU-SBP: the vectors of docs/definitions.md, Papineni's examples, sacreBLEU on random subsets, properties."""
import math
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mtscore
from mtscore import BLEU, BLEUSBP
from mtscore.errors import InputError, InvalidParameterError
from mtscore.io.wmt import load_wmt21
from conftest import data_path

sacrebleu = pytest.importorskip("sacrebleu")


def comp(res, key):
    return res.components[key]


# --- docs/definitions.md §1, §2, §11 vectors -------------------------------------------------------------------------
def test_papineni_example_2_modified_unigram_precision():
    c = "the the the the the the the"
    refs = [["The cat is on the mat .", "There is a cat on the mat ."]]
    r = BLEU(lowercase=True).corpus([c], refs)
    assert comp(r, "counts")[0] == 2 and comp(r, "totals")[0] == 7


def test_papineni_example_1():
    refs = [["It is a guide to action that ensures that the military will forever heed Party commands",
             "It is the guiding principle which guarantees the military forces always being under the command of the Party",
             "It is the practical guide for the army always to heed the directions of the party"]]
    c1 = "It is a guide to action which ensures that the military always obeys the commands of the party"
    c2 = "It is to insure the troops forever hearing the activity guidebook that party direct"
    b = BLEU(lowercase=True, tokenize="none")
    r1, r2 = b.corpus([c1], refs), b.corpus([c2], refs)
    assert (comp(r1, "counts")[0], comp(r1, "totals")[0]) == (17, 18)
    assert (comp(r2, "counts")[0], comp(r2, "totals")[0]) == (8, 14)


def test_sentence_bleu_smoothings_spec_table():
    h, r = ["the cat sat on the mat"], [["the cat is on the mat"]]
    assert BLEU().sentences(h, r)[0].score == pytest.approx(37.9918, abs=5e-5)
    assert BLEU(smooth="floor").sentences(h, r)[0].score == pytest.approx(25.4066, abs=5e-5)
    assert BLEU(smooth="add-k").sentences(h, r)[0].score == pytest.approx(48.5492, abs=5e-5)
    assert BLEU(smooth="none").sentences(h, r)[0].score == 0.0
    assert BLEU(compat="mteval-v13a").sentences(h, r)[0].score / 100 == pytest.approx(0.3799, abs=5e-5)


def test_effective_order_and_no_match_mteval_vs_sacrebleu():
    h, r = ["the dog"], [["the cat is here"]]
    assert BLEU().sentences(h, r)[0].score == pytest.approx(18.3940, abs=5e-5)
    assert BLEU(compat="mteval-v13a", lowercase=False).sentences(h, r)[0].score / 100 == pytest.approx(0.2601, abs=5e-5)
    h, r = ["a b c d"], [["w x y z"]]
    assert BLEU().sentences(h, r)[0].score == 0.0
    assert BLEU(compat="mteval-v13a").sentences(h, r)[0].score / 100 == pytest.approx(0.0799, abs=5e-5)
    assert BLEU(compat="mteval-v11b").sentences(h, r)[0].score == 0.0


def test_mteval_case_handling():
    # mteval lowercases ASCII unless -c; sacreBLEU is case-sensitive by default (docs/definitions.md §1.4).
    h, r = ["The Cat"], [["the cat"]]
    assert BLEU(compat="mteval-v13a").sentences(h, r)[0].score / 100 == pytest.approx(1.0)
    assert BLEU(compat="mteval-v13a", lowercase=False).sentences(h, r)[0].score / 100 == pytest.approx(0.5, abs=5e-5)
    assert BLEU().sentences(h, r)[0].score == 0.0


@pytest.mark.parametrize("refs,expected", [([11, 13], 11), ([11, 8, 6], 6), ([11, 8, 6, 7], 7)])
def test_closest_reference_ties_to_shorter(refs, expected):
    hyp_len = 12 if refs == [11, 13] else 7
    hyp = " ".join(["h"] * hyp_len)
    rr = [[" ".join(["r"] * n) for n in refs]]
    assert comp(BLEU().corpus([hyp], rr), "ref_len") == expected


def test_sbp_worked_example():
    def toks(n, p):
        return " ".join(f"{p}{i}" for i in range(n))
    hyps = [toks(12, "a"), toks(6, "b")]
    refs = [[toks(10, "a"), toks(14, "a")], [toks(8, "b"), toks(9, "b")]]
    for method in ("shortest", "closest"):
        b = BLEU(ref_length=method).corpus(hyps, refs)
        s = BLEUSBP(ref_length=method).corpus(hyps, refs)
        assert comp(b, "bp") == 1.0
        assert comp(s, "bp") == pytest.approx(math.exp(-0.125)) and round(comp(s, "bp"), 4) == 0.8825
    b = BLEU(ref_length="average").corpus(hyps, refs)
    s = BLEUSBP(ref_length="average").corpus(hyps, refs)
    assert round(comp(b, "bp"), 4) == 0.8703 and round(comp(s, "bp"), 4) == 0.8703
    assert BLEUSBP().config.ref_length == "shortest" and BLEU().config.ref_length == "closest"


def test_sign_test_toy_scores():
    # docs/definitions.md §8.2: the toy corpus where BLEU(A) = 0.78608 and BLEU(B) = 0.77880.
    refs = [[" ".join(f"w{s}x{k}" for k in range(10))] for s in range(10)]
    a = [" ".join([f"w{s}x{k}" for k in range(9)] + ["junk1", "junk2"]) for s in range(10)]
    b = [" ".join(f"w{s}x{k}" for k in range(8)) for s in range(10)]
    assert BLEU().corpus(a, refs).score / 100 == pytest.approx(0.78608, abs=5e-6)
    assert BLEU().corpus(b, refs).score / 100 == pytest.approx(0.77880, abs=5e-6)
    assert BLEUSBP().corpus(b, refs).score / 100 == pytest.approx(0.77880, abs=5e-6)


# --- sacreBLEU on random subsets of real data, every smoothing, case on/off -------------------------------
@pytest.fixture(scope="module")
def wmt21_ende():
    return load_wmt21(data_path("wmt21"), "en-de")


@pytest.mark.parametrize("smooth", ["none", "floor", "add-k", "exp"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_against_sacrebleu_random_subsets(wmt21_ende, smooth, lowercase):
    d = wmt21_ende
    rng = random.Random(f"{smooth}{lowercase}")
    systems = sorted(d.systems)
    for trial in range(4):
        sysname = rng.choice(systems)
        idx = sorted(rng.sample(range(len(d.source)), rng.choice([1, 5, 50, 300])))
        nref = rng.choice([1, 2, 3])
        names = sorted(d.refs)[:nref]
        hyps = [d.systems[sysname][i] for i in idx]
        streams = [[d.refs[n][i] for i in idx] for n in names]
        refs = mtscore.refs_from_streams(streams)
        sv = {"floor": rng.choice([None, 0.1, 0.3]), "add-k": rng.choice([None, 1, 2])}.get(smooth)
        peer = sacrebleu.BLEU(smooth_method=smooth, smooth_value=sv, lowercase=lowercase)
        ours = BLEU(smooth=smooth, smooth_value=sv, lowercase=lowercase)
        exp = peer.corpus_score(hyps, streams)
        got = ours.corpus(hyps, refs)
        assert got.score == pytest.approx(exp.score, abs=1e-9)
        assert got.format().split(" = ", 1)[1] == str(exp).split(" = ", 1)[1]
        peer_s = sacrebleu.BLEU(smooth_method=smooth, smooth_value=sv, lowercase=lowercase, effective_order=True)
        sent = ours.sentence_scores_of(hyps, refs)
        for i in range(len(hyps)):
            assert sent[i] == pytest.approx(peer_s.sentence_score(hyps[i], [s[i] for s in streams]).score, abs=1e-9)


@pytest.mark.parametrize("tok", ["13a", "intl", "zh", "char", "none"])
def test_against_sacrebleu_tokenizers(wmt21_ende, tok):
    d = wmt21_ende
    hyps = d.systems[sorted(d.systems)[0]][:200]
    streams = [d.refs["A"][:200]]
    exp = sacrebleu.BLEU(tokenize=tok).corpus_score(hyps, streams)
    assert BLEU(tokenize=tok).corpus(hyps, mtscore.refs_from_streams(streams)).score == pytest.approx(exp.score, abs=1e-9)


def test_signature_matches_sacrebleu_format():
    ours = BLEU().signature(1)
    for kw, ourkw in [({}, {}), ({"smooth_method": "floor"}, {"smooth": "floor"}), ({"lowercase": True}, {"lowercase": True}),
                      ({"tokenize": "intl", "smooth_method": "add-k", "smooth_value": 2}, {"tokenize": "intl", "smooth": "add-k", "smooth_value": 2})]:
        peer_bleu = sacrebleu.BLEU(**kw)
        peer_bleu.corpus_score(["a b"], [["a b"]])
        peer = str(peer_bleu.get_signature())
        assert BLEU(**ourkw).signature(1).rsplit("|version:", 1)[0] == peer.rsplit("|version:", 1)[0]
    assert ours.rsplit("|version:", 1)[0] == "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp"
    assert ours.endswith("version:mtscore-" + mtscore.__version__)
    assert BLEU(smooth="floor").signature(1).split("|")[4] == "smooth:floor[0.10]"
    assert BLEU(smooth="add-k", smooth_value=2).signature(1).split("|")[4] == "smooth:add-k[2.00]"
    assert "bp:shortest" in BLEU(ref_length="shortest").signature(1)
    assert "bp:" not in BLEU().signature(1)


def test_variable_number_of_references_matches_sacrebleu():
    hyps = ["the cat sat on the mat", "a dog barks", "hello world"]
    streams = [["the cat is on the mat", "the dog barks", "hello there world"],
               ["a cat sat on a mat", None, "hello world"]]
    exp = sacrebleu.BLEU().corpus_score(hyps, streams)
    got = BLEU().corpus(hyps, mtscore.refs_from_streams(streams))
    assert got.score == pytest.approx(exp.score, abs=1e-9)
    assert "nrefs:var" in got.signature


# --- properties ------------------------------------------------------------------------------------------
def counter_oracle(hyps, refs, max_order=4):
    """Plain-Python reference statistics (tokenize 'none')."""
    rows = []
    for h, rs in zip(hyps, refs):
        ht = h.split()
        rts = [r.split() for r in rs]
        dists = sorted((abs(len(r) - len(ht)), len(r)) for r in rts)
        row = [len(ht), dists[0][1]]
        m, t = [], []
        for n in range(1, max_order + 1):
            hc = Counter(tuple(ht[i:i + n]) for i in range(len(ht) - n + 1))
            mx = Counter()
            for r in rts:
                for g, c in Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1)).items():
                    mx[g] = max(mx[g], c)
            m.append(sum(min(c, mx[g]) for g, c in hc.items()))
            t.append(max(0, len(ht) - n + 1))
        rows.append(row + m + t)
    return np.array(rows, dtype=float)


WORDS = st.sampled_from("a b c d e the cat".split())
SENT = st.lists(WORDS, max_size=12).map(" ".join)
CORPUS = st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.lists(SENT, min_size=n, max_size=n),
    st.lists(st.lists(SENT, min_size=1, max_size=3), min_size=n, max_size=n)))


@settings(max_examples=150, deadline=None)
@given(CORPUS)
def test_stats_equal_counter_oracle(corpus):
    hyps, refs = corpus
    got = BLEU(tokenize="none").stats(hyps, refs).values
    assert np.array_equal(got, counter_oracle(hyps, refs))


@settings(max_examples=60, deadline=None)
@given(CORPUS, st.randoms(use_true_random=False))
def test_order_invariance_and_chunk_additivity(corpus, rnd):
    hyps, refs = corpus
    b = BLEU(tokenize="none")
    whole = b.corpus(hyps, refs).score
    perm = list(range(len(hyps)))
    rnd.shuffle(perm)
    assert b.corpus([hyps[i] for i in perm], [refs[i] for i in perm]).score == pytest.approx(whole, abs=1e-12)
    cut = rnd.randint(0, len(hyps))
    parts = [b.stats(hyps[:cut], refs[:cut]), b.stats(hyps[cut:], refs[cut:])] if 0 < cut < len(hyps) else [b.stats(hyps, refs)]
    summed = sum(p.sum() for p in parts)
    assert b.score(summed) == pytest.approx(whole, abs=1e-12)


def test_score_is_vectorized_and_pure():
    b = BLEU(tokenize="none")
    st_ = b.stats(["a b c d", "a b", "x y z"], [["a b c d"], ["a b c"], ["x y"]])
    before = st_.values.copy()
    w = np.random.default_rng(0).multinomial(3, [1 / 3] * 3, size=(5, 7))
    batched = b.score(w @ st_.values)
    assert batched.shape == (5, 7)
    assert batched[2, 3] == pytest.approx(b.score(w[2, 3] @ st_.values))
    assert np.array_equal(st_.values, before)


# --- empty and odd input -----------------------------------------------------------------------------------
def test_empty_hypotheses_and_references_are_segments():
    b = BLEU()
    assert b.corpus([""], [["a b c"]]).score == 0.0
    assert b.corpus(["a b c"], [[""]]).score == 0.0
    r = b.corpus(["", "a b c d"], [["x"], ["a b c d"]])
    assert comp(r, "hyp_len") == 4 and comp(r, "ref_len") == 5
    exp = sacrebleu.BLEU().corpus_score(["", "a b c d"], [["x", "a b c d"]])
    assert r.score == pytest.approx(exp.score, abs=1e-9)
    assert BLEUSBP().corpus([""], [[""]]).score == 0.0


def test_bad_parameters_name_the_rule():
    with pytest.raises(InvalidParameterError, match="smooth: must be one of: .*add-k.*got 'laplace'"):
        BLEU(smooth="laplace")
    with pytest.raises(InvalidParameterError, match="ref_length"):
        BLEU(ref_length="longest")
    with pytest.raises(InvalidParameterError, match="max_order"):
        BLEU(max_order=0)
    with pytest.raises(InvalidParameterError, match="weights"):
        BLEU(weights=(1, 1))
    with pytest.raises(InvalidParameterError, match="unknown parameter"):
        BLEU(smoothing="exp")
    with pytest.raises(InvalidParameterError, match="metric.*bleu"):
        mtscore.get_metric("blue")


def test_shape_errors():
    with pytest.raises(InvalidParameterError, match="2 reference entries for 3 hypotheses"):
        BLEU().corpus(["a", "b", "c"], [["a"], ["b"]])
    with pytest.raises(InvalidParameterError, match="refs_from_streams"):
        BLEU().corpus(["a", "b", "c"], [["a", "b", "c"]])
    with pytest.raises(InputError, match="segment 2 has no reference"):
        BLEU().corpus(["a", "b"], [["a"], [None]])


def test_weights_and_max_order():
    h, r = ["a b c d e"], [["a b c d f"]]
    two = BLEU(max_order=2).corpus(h, r)
    assert two.score == pytest.approx(100 * math.sqrt(4 / 5 * 3 / 4))
    w = BLEU(weights=(1, 0, 0, 0)).corpus(h, r)
    assert w.score == pytest.approx(80.0)


def test_api_score_several_systems():
    refs = [["the cat is on the mat"], ["hello world"]]
    out = mtscore.score({"A": ["the cat is on the mat", "hello world"], "B": ["a cat", "hi"]}, refs,
                        metrics=["bleu", "bleu-sbp"])
    assert out["A"]["bleu"].score == pytest.approx(100.0)
    assert out["B"]["bleu-sbp"].score < out["A"]["bleu-sbp"].score
    sent = mtscore.score(["the cat is on the mat", "hello"], refs, sentence_level=True)
    assert len(sent["bleu"]) == 2 and "eff:yes" in sent["bleu"][0].signature
