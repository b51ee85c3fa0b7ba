"""BLEU(compat="nltk") and mtscore.metrics.nltk_bleu against nltk.translate.bleu_score (pinned in the test extra).

1. NLTK's own BLEU unit-test vectors (nltk/test/unit/translate/test_bleu.py @ f2a92bd, vectors only).
   TestBLEUvsMteval13a (on nltk_data's models/wmt15_eval) is in tests/metrics/test_nltk_wmt15_eval.py with stored files.
2. The installed NLTK as oracle: random corpora x smoothing methods 0-7 x several weight vectors, equal to the bit;
   real WMT21 data through the metric surface (corpus and sentence scores).
"""
from __future__ import annotations

import random
import warnings

import pytest

from mtscore.errors import InvalidParameterError
from mtscore.metrics.bleu import BLEU
from mtscore.metrics.nltk_bleu import (brevity_penalty, closest_ref_length, corpus_bleu, modified_precision,
                                       sentence_bleu)

nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")


def _mp(refs, hyp, n):
    num, den = modified_precision(refs, hyp, n)
    return num / den


# ---------------------------------------------------------------------------------------------
# 1. NLTK's test vectors

REF1 = "It is a guide to action that ensures that the military will forever heed Party commands".split()
REF2 = "It is the guiding principle which guarantees the military forces always being under the command of the Party".split()
REF3 = "It is the practical guide for the army always to heed the directions of the party".split()


def test_modified_precision_vectors():
    refs = ["the cat is on the mat".split(), "there is a cat on the mat".split()]
    hyp = "the the the the the the the".split()
    assert round(_mp(refs, hyp, 1), 4) == 0.2857
    assert _mp(refs, hyp, 2) == 0.0
    refs = [REF1, REF2, REF3]
    assert _mp(refs, "of the".split(), 1) == 1.0
    assert _mp(refs, "of the".split(), 2) == 1.0
    h1 = "It is a guide to action which ensures that the military always obeys the commands of the party".split()
    h2 = "It is to insure the troops forever hearing the activity guidebook that party direct".split()
    assert round(_mp(refs, h1, 1), 4) == 0.9444
    assert round(_mp(refs, h2, 1), 4) == 0.5714
    assert round(_mp(refs, h1, 2), 4) == 0.5882
    assert round(_mp(refs, h2, 2), 4) == 0.0769


def test_brevity_penalty_vectors():
    refs, hyp = [["a"] * 11, ["a"] * 8], ["a"] * 7
    assert brevity_penalty(closest_ref_length(refs, 7), 7) == pytest.approx(0.8669, abs=5e-5)
    refs = [["a"] * 11, ["a"] * 8, ["a"] * 6, ["a"] * 7]
    assert brevity_penalty(closest_ref_length(refs, len(hyp)), len(hyp)) == 1.0


def test_zero_and_full_matches():
    refs = ["The candidate has no alignment to any of the references".split()]
    hyp = "John loves Mary".split()
    for n in range(1, len(hyp)):
        assert sentence_bleu(refs, hyp, (1.0 / n,) * n) == 0
    refs = ["John loves Mary".split()]
    for n in range(1, len(hyp)):
        assert sentence_bleu(refs, hyp, (1.0 / n,) * n) == 1.0


def test_fringe_cases():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert sentence_bleu(["John loves Mary".split()], "John loves Mary who loves Mike".split()) == \
            pytest.approx(0.0, abs=5e-5)
        w = (0.25,) * 4
        assert sentence_bleu(["John loves Mary ?".split()], "John loves Mary".split(), w) == pytest.approx(0, abs=5e-5)
        assert sentence_bleu(["John loves Mary".split()], "John loves Mary".split(), w) == pytest.approx(0, abs=5e-5)
        assert sentence_bleu(["let it go".split()], "let go it".split()) == pytest.approx(0.0, abs=5e-5)
    refs = ["The candidate has no alignment to any of the references".split()]
    assert sentence_bleu(refs, []) == 0
    assert sentence_bleu([[]], "John loves Mary".split()) == 0
    assert sentence_bleu([[]], []) == 0
    assert sentence_bleu(refs, ["Foo"], smoothing=4) == 0  # length-one hypothesis with method 4


def test_numpy_weights():
    import numpy as np
    refs = ["The candidate has no alignment to any of the references".split()]
    assert sentence_bleu(refs, "John loves Mary".split(), np.array([0.25] * 4)) == 0
    assert sentence_bleu([REF1], REF1, np.array([0.25] * 4)) == 1.0


def test_bad_sentence_is_zero():
    hyp = "Teo S yb , oe uNb , R , T t , , t Tue Ar saln S , , 5istsi l , 5oe R ulO sae oR R".split()
    ref = ("Their tasks include changing a pump on the faulty stokehold ."
           "Likewise , two species that are very similar in morphology were distinguished using genetics .").split()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert corpus_bleu([[ref]], [hyp]) == pytest.approx(0.0, abs=5e-5)


def test_multiple_weights_in_one_call():
    h1 = "It is a guide to action which ensures that the military always obeys the commands of the party".split()
    h2 = "he read the book because he was interested in world history".split()
    r2 = "he was interested in world history because he read the book".split()
    refs, hyps = [[REF1, REF2, REF3], [r2]], [h1, h2]
    ws = [(1, 0, 0, 0), (0.25, 0.25, 0.25, 0.25), (0, 0, 0, 0, 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        many = corpus_bleu(refs, hyps, ws)
        assert many == [corpus_bleu(refs, hyps, w) for w in ws]
        assert many == nltk_bleu.corpus_bleu(refs, hyps, ws)


# ---------------------------------------------------------------------------------------------
# 2. the installed NLTK as oracle

def _random_corpus(rng, n):
    voc = "a b c d e f g h".split()
    hyps = [[rng.choice(voc) for _ in range(rng.randint(0, 10))] for _ in range(n)]
    refs = [[[rng.choice(voc) for _ in range(rng.randint(0, 10))] for _ in range(rng.randint(1, 3))]
            for _ in range(n)]
    return refs, hyps


def test_random_corpora_all_methods_bit_identical():
    rng = random.Random(7)
    ws = [(0.25,) * 4, (0.5, 0.5), (1 / 3,) * 3, (0.2,) * 5]
    sf = nltk_bleu.SmoothingFunction()
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(150):
            refs, hyps = _random_corpus(rng, rng.randint(1, 4))
            for m in range(8):
                try:
                    want = nltk_bleu.corpus_bleu(refs, hyps, ws, smoothing_function=getattr(sf, f"method{m}"))
                except AssertionError:  # method 6 without trigram matches: NLTK asserts, we raise
                    with pytest.raises(InvalidParameterError):
                        corpus_bleu(refs, hyps, ws, smoothing=m)
                    continue
                assert corpus_bleu(refs, hyps, ws, smoothing=m) == want, (m, refs, hyps)
                checked += 1
    assert checked > 1000


@pytest.mark.parametrize("method", [f"method{i}" for i in range(8)])
def test_metric_surface_real_data(method):
    from conftest import data_path
    from mtscore.io.wmt import load_wmt21
    try:
        d = load_wmt21(data_path("wmt21"), "en-de")
    except Exception:
        pytest.skip("../shared/data/wmt21 is absent")
    refs = d.refs_sentence_major(["A", "C"])[:120]
    hyps = d.systems["UEdin"][:120]
    m = BLEU(compat="nltk", smooth=method)
    st = m.stats(hyps, refs)
    tr = [[r.split() for r in seg] for seg in refs]
    th = [h.split() for h in hyps]
    sf = getattr(nltk_bleu.SmoothingFunction(), method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert m.corpus_from_stats(st).score == pytest.approx(100 * nltk_bleu.corpus_bleu(tr, th, smoothing_function=sf),
                                                              rel=1e-15, abs=1e-300)
        sent = m.sentence_scores(st)
        for i in range(0, 120, 7):
            try:
                want = nltk_bleu.sentence_bleu(tr[i], th[i], smoothing_function=sf)
            except AssertionError:  # NLTK refuses this sentence (method6): no score
                assert sent[i] != sent[i]
                continue
            assert sent[i] == pytest.approx(100 * want, rel=1e-15, abs=1e-300), i


def test_compat_nltk_options():
    assert BLEU(compat="nltk").config.tokenize == "none"
    assert "compat:nltk" in BLEU(compat="nltk", smooth="method3").signature(1)
    with pytest.raises(InvalidParameterError, match="method0..method7"):
        BLEU(compat="nltk", smooth="exp")
    with pytest.raises(InvalidParameterError, match="compat=nltk"):
        BLEU(smooth="method2")
