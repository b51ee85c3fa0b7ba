"""NLTK's NIST and BLEU tests against mteval-v13a.pl on nltk_data's models/wmt15_eval, ported.

Upstream tests (nltk @ f2a92bd, vectors only): nltk/test/unit/translate/test_nist.py (TestNIST.test_sentence_nist)
and test_bleu.py (TestBLEUvsMteval13a.test_corpus_bleu). They read ref.ru, google.ru and mteval-13a.output from a
downloaded nltk_data; here those files are stored in tests/known_answers/nltk-wmt15-eval/ (made by
scripts/nltk_wmt15_eval.py from nltk_data@5db857e, SOURCE.json). A missing file FAILS these tests.

What mteval-v13a.pl scored (the package's README.txt): hypothesis = google.ru's lines (Moses-tokenized),
reference = newstest-2015-100sents.en-ru.ref.ru (untokenized), both through mteval's own 13a tokenization. NLTK's
tests feed the Moses-tokenized ref.ru/google.ru split at spaces instead and so only come within 0.05 (NIST) and
0.005 (BLEU) of mteval. mtscore is checked more tightly:
- NIST (follows mteval-v13a) on mteval's inputs: mteval's printed cumulative NIST for n = 1..9, every digit;
  on NLTK's inputs (tokenize none): nltk's corpus_nist to 1e-12 and NLTK's own 0.05 bound to mteval.
- BLEU (sacreBLEU's, case-sensitive 13a) on mteval's inputs: mteval's printed cumulative BLEU for n = 1..9, every
  digit; BLEU --compat nltk on NLTK's inputs, unsmoothed and method3: nltk's corpus_bleu bit for bit and NLTK's
  own 0.005 bound to mteval. The same through the CLI for n = 9 and 5.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mtscore.metrics.bleu import BLEU
from mtscore.metrics.nist import NIST

KA = Path(__file__).resolve().parents[1] / "known_answers" / "nltk-wmt15-eval"
NLTK_COMMIT = "5db857e6f7df11eabb5e5665836db9ec8df07e28"


def _file(name) -> Path:
    path = KA / name
    assert path.is_file(), f"{path} is missing: run scripts/nltk_wmt15_eval.py (see its docstring)"
    return path


def _lines(name):
    text = _file(name).read_text(encoding="utf-8")  # one segment a line; the last line may lack its newline
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def _mteval(row):
    """mteval-13a.output's cumulative scores for n = 1..9: NLTK reads line -4 (NIST) and -2 (BLEU)."""
    lines = _file("mteval-13a.output").read_text().splitlines()
    fields = lines[{"NIST": -4, "BLEU": -2}[row]].split()
    assert fields[0] == f"{row}:" and fields[-1] == '"Google"' and len(fields) == 11
    return fields[1:-1]  # the printed strings (4 decimals)


def test_files_are_the_recorded_ones():
    src = json.loads(_file("SOURCE.json").read_text())
    assert src["commit"] == NLTK_COMMIT
    for name, sha in src["sha256"].items():
        assert hashlib.sha256(_file(name).read_bytes()).hexdigest() == sha, name
    assert len(_lines("ref.ru")) == len(_lines("google.ru")) == len(_lines("newstest-2015-100sents.en-ru.ref.ru")) == 100


def test_nist_equals_mteval_v13a_printed_digits():
    hyps, refs = _lines("google.ru"), [[r] for r in _lines("newstest-2015-100sents.en-ru.ref.ru")]
    want = _mteval("NIST")
    got = [f"{NIST(max_order=n).corpus(hyps, refs).score:.4f}" for n in range(1, 10)]
    assert got == want


def test_nist_nltk_inputs_equal_nltk_and_within_nltks_bound():
    nist_score = pytest.importorskip("nltk.translate.nist_score")
    hyps, refs = _lines("google.ru"), _lines("ref.ru")
    want = [float(x) for x in _mteval("NIST")]
    for n in range(1, 10):
        ours = NIST(max_order=n, tokenize="none").corpus(hyps, [[r] for r in refs]).score
        theirs = nist_score.corpus_nist([[r.split()] for r in refs], [h.split() for h in hyps], n)
        assert ours == pytest.approx(theirs, abs=1e-12), n
        assert abs(ours - want[n - 1]) < 0.05, n  # NLTK's own assertion


def test_bleu_equals_mteval_v13a_printed_digits():
    hyps, refs = _lines("google.ru"), [[r] for r in _lines("newstest-2015-100sents.en-ru.ref.ru")]
    want = _mteval("BLEU")
    got = [f"{BLEU(max_order=n).corpus(hyps, refs).score / 100:.4f}" for n in range(1, 10)]
    assert got == want


@pytest.mark.parametrize("smooth", ["method0", "method3"])
def test_bleu_compat_nltk_equals_nltk_and_within_nltks_bound(smooth):
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    hyps, refs = _lines("google.ru"), _lines("ref.ru")
    want = [float(x) for x in _mteval("BLEU")]
    sf = getattr(bleu_score.SmoothingFunction(), smooth)
    for n in range(1, 10):
        ours = BLEU(compat="nltk", smooth=smooth, max_order=n, weights=[1 / n] * n).corpus(
            hyps, [[r] for r in refs]).score / 100
        theirs = bleu_score.corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps],
                                        weights=(1 / n,) * n, smoothing_function=sf)
        assert ours == theirs, n
        assert abs(ours - want[n - 1]) < 0.005, n  # NLTK's own assertion


def test_cli(tmp_path, capsys):
    from mtscore.cli.main import main
    hyp, ref, tref = _file("google.ru"), _file("newstest-2015-100sents.en-ru.ref.ru"), _file("ref.ru")
    assert main(["score", "-r", str(ref), "-i", str(hyp), "-m", "nist", "bleu", "--max-order", "9", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = {r["metric"]: r["score"] for r in out["results"][0]["results"]}
    assert f"{res['nist']:.4f}" == _mteval("NIST")[8]
    assert f"{res['bleu'] / 100:.4f}" == _mteval("BLEU")[8]
    assert main(["score", "-r", str(tref), "-i", str(hyp), "-m", "bleu:weights=0.2/0.2/0.2/0.2/0.2",
                 "--compat", "nltk", "--smooth", "method3", "--max-order", "5", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    want = bleu_score.corpus_bleu([[r.split()] for r in _lines("ref.ru")], [h.split() for h in _lines("google.ru")],
                                  weights=(0.2,) * 5, smoothing_function=bleu_score.SmoothingFunction().method3)
    assert out["results"][0]["results"][0]["score"] == 100 * want
