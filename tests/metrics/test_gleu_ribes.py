"""gleu-google and ribes against nltk.translate.gleu_score / ribes_score (NLTK pinned in the test extra).

Vectors from NLTK's doctests of gleu_score.py and ribes_score.py (the Isozaki et al. 2010 examples); the installed
NLTK as oracle on random and real data (bit-identical sentence scores; corpus RIBES to 1e-15, as mtscore sums the
sentence scores with NumPy).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from mtscore.errors import InvalidParameterError
from mtscore.metrics.gleu_ribes import RIBES, GoogleGLEU, _kendall_nkt, gleu_counts, sentence_ribes, word_rank_alignment

nltk_gleu = pytest.importorskip("nltk.translate.gleu_score")
nltk_ribes = pytest.importorskip("nltk.translate.ribes_score")

HYP1 = "It is a guide to action which ensures that the military always obeys the commands of the party".split()
REF1A = "It is a guide to action that ensures that the military will forever heed Party commands".split()
REF1B = ("It is the guiding principle which guarantees the military forces always being under the command of "
         "the Party").split()
REF1C = "It is the practical guide for the army always to heed the directions of the party".split()
HYP2 = "he read the book because he was interested in world history".split()
REF2A = "he was interested in world history because he read the book".split()


def _gleu(refs, hyp):
    tp, n = gleu_counts(refs, hyp)
    return tp / n if n else 0.0


def test_gleu_doctest_vectors():
    assert _gleu(["the cat is on the mat".split()], "the the the the the the the".split()) == pytest.approx(0.0909, abs=1e-4)
    assert _gleu([REF1A], HYP1) == pytest.approx(0.4393, abs=1e-4)
    hyp2 = "It is to insure the troops forever hearing the activity guidebook that party direct".split()
    assert _gleu([REF1A], hyp2) == pytest.approx(0.1206, abs=1e-4)
    m = GoogleGLEU(tokenize="none")
    hyps = [" ".join(HYP1), " ".join(HYP2)]
    refs = [[" ".join(REF1A), " ".join(REF1B), " ".join(REF1C)], [" ".join(REF2A)]]
    assert m.corpus(hyps, refs).score == pytest.approx(0.5673, abs=1e-4)
    assert (_gleu([REF1A], HYP1) + _gleu([REF2A], HYP2)) / 2 == pytest.approx(0.6144, abs=1e-4)


def test_ribes_doctest_vectors():
    ref = "he was interested in world history because he read the book".split()
    hyp = "he read the book because he was interested in world history".split()
    assert word_rank_alignment(ref, hyp) == [7, 8, 9, 10, 6, 0, 1, 2, 3, 4, 5]
    assert word_rank_alignment("John hit Bob yesterday".split(), "Bob hit John yesterday".split()) == [2, 1, 0, 3]
    assert word_rank_alignment("the boy read the book".split(), "the book was read by the boy".split()) == [3, 4, 2, 0, 1]
    assert round(_kendall_nkt([7, 8, 9, 10, 6, 0, 1, 2, 3, 4, 5]), 3) == 0.382
    assert _kendall_nkt([2, 1, 0, 3]) == 0.5
    hyps = [" ".join(HYP1), " ".join(HYP2)]
    refs = [[" ".join(REF1A), " ".join(REF1B), " ".join(REF1C)], [" ".join(REF2A)]]
    assert round(RIBES().corpus(hyps, refs).score, 4) == 0.633


def test_random_against_nltk_bit_identical():
    rng = random.Random(13)
    voc = "a b c d e".split()
    for _ in range(1500):
        hyp = [rng.choice(voc) for _ in range(rng.randint(0, 12))]
        refs = [[rng.choice(voc) for _ in range(rng.randint(0, 12))] for _ in range(rng.randint(1, 3))]
        assert sentence_ribes(refs, hyp) == nltk_ribes.sentence_ribes(refs, hyp)
        assert _gleu(refs, hyp) == nltk_gleu.sentence_gleu(refs, hyp)


def test_real_data_corpus_and_sentences():
    from conftest import data_path
    from mtscore.io.wmt import load_wmt21
    try:
        d = load_wmt21(data_path("wmt21"), "en-de")
    except Exception:
        pytest.skip("../shared/data/wmt21 is absent")
    refs = d.refs_sentence_major(["A", "C"])[:150]
    hyps = d.systems["UEdin"][:150]
    tr = [[r.split() for r in seg] for seg in refs]
    th = [h.split() for h in hyps]
    g = GoogleGLEU()
    assert g.corpus(hyps, refs).score == nltk_gleu.corpus_gleu(tr, th)
    r = RIBES()
    st = r.stats(hyps, refs)
    assert r.corpus_from_stats(st).score == pytest.approx(nltk_ribes.corpus_ribes(tr, th), rel=1e-15)
    sent = r.sentence_scores(st)
    assert [float(x) for x in sent[:40]] == [nltk_ribes.sentence_ribes(a, b) for a, b in zip(tr[:40], th[:40])]
    gs = g.sentence_scores(g.stats(hyps, refs))
    assert [float(x) for x in gs[:40]] == [nltk_gleu.sentence_gleu(a, b) for a, b in zip(tr[:40], th[:40])]


def test_surface_and_errors():
    g = GoogleGLEU()
    assert "variant:google-sentence" in g.signature(1) and g.display_name == "GLEU(Google)"
    assert g.corpus([""], [[""]]).score == 0.0
    assert RIBES().corpus(["", "a b"], [["a b"], ["a b"]]).score == pytest.approx(0.5)
    with pytest.raises(InvalidParameterError, match="min_len"):
        GoogleGLEU(min_len=3, max_len=2)
    with pytest.raises(InvalidParameterError, match="alpha"):
        RIBES(alpha=-1)
    st = RIBES().stats(["a b c", "c b a"], [["a b c"], ["a b c"]])
    assert st.columns == ("ribes", "segments") and np.allclose(st.values[:, 1], 1)
