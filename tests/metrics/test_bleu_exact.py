"""BLEU scores equal sacreBLEU's bit for bit (not only to 1e-9): corpus and segment scores use the C library's
log/exp as sacreBLEU does. Takes ~3 s."""
import pytest

from mtscore import BLEU
from mtscore.io import read_lines
from conftest import data_path

sacrebleu = pytest.importorskip("sacrebleu")


def test_sentence_scores_bit_identical():
    h = read_lines(data_path("wmt23", "system-outputs", "zh-en", "GPT4-5shot.txt"))[:800]
    r = read_lines(data_path("wmt23", "references", "zh-en.refA.txt"))[:800]
    bleu = BLEU()
    ours = bleu.sentence_scores(bleu.stats(h, [[x] for x in r]))
    peer = sacrebleu.BLEU(effective_order=True)
    expected = [peer.sentence_score(a, [b]).score for a, b in zip(h, r)]
    assert [float(x) for x in ours] == expected


def test_corpus_score_bit_identical_where_numpy_exp_differs():
    # numpy's exp(3.6196...) is one ulp away from math.exp: WMT23 en-ja NAIST-NICT, tok:char
    root = data_path("wmt23-en-ja")
    h = read_lines(root / "system-outputs" / "generaltest2023.en-ja.hyp.NAIST-NICT.ja")
    r = read_lines(root / "generaltest2023.en-ja.ref.refA.ja")
    assert BLEU(tokenize="char").corpus(h, [[x] for x in r]).score == 37.179139350706805
    assert sacrebleu.corpus_bleu(h, [r], tokenize="char").score == 37.179139350706805
