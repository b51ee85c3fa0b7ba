"""`mtscore score -m chrf chrf++ ter` with the metric options, against sacreBLEU's Python API."""
from __future__ import annotations

import json

import pytest

from mtscore.cli.main import main

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF, TER  # noqa: E402

HYPS = ["The cat sat on the mat.", "Hello World , again!", "", "a b c d e f"]
REFS1 = ["The cat is on the mat.", "hello world again!", "something", "f a b c d e"]
REFS2 = ["There is a cat on the mat.", "Hello, world, again!", "", "a b c d e f"]


def _run(tmp_path, capsys, *opts):
    h = tmp_path / "hyp.txt"
    r1, r2 = tmp_path / "r1.txt", tmp_path / "r2.txt"
    h.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    r1.write_text("\n".join(REFS1) + "\n", encoding="utf-8")
    r2.write_text("\n".join(REFS2) + "\n", encoding="utf-8")
    rc = main(["score", "-r", str(r1), str(r2), "-i", str(h), "-f", "json", *opts])
    out = capsys.readouterr().out
    assert rc == 0
    return json.loads(out)


def test_cli_defaults(tmp_path, capsys):
    res = _run(tmp_path, capsys, "-m", "chrf", "chrf++", "ter")
    row = res["rows"][0]
    refs = [REFS1, REFS2]
    assert row["chrF2"] == pytest.approx(CHRF().corpus_score(HYPS, refs).score, abs=1e-9)
    assert row["chrF2++"] == pytest.approx(CHRF(word_order=2).corpus_score(HYPS, refs).score, abs=1e-9)
    assert row["TER"] == pytest.approx(TER().corpus_score(HYPS, refs).score, abs=1e-9)


def test_cli_options(tmp_path, capsys):
    res = _run(tmp_path, capsys, "-m", "chrf", "ter", "--chrf-char-order", "4", "--chrf-word-order", "1",
               "--chrf-beta", "1", "--lowercase", "--chrf-whitespace", "--chrf-eps-smoothing",
               "--ter-normalized", "--ter-no-punct", "--ter-asian-support", "--ter-case-sensitive")
    row = res["rows"][0]
    refs = [REFS1, REFS2]
    chrf = CHRF(char_order=4, word_order=1, beta=1, lowercase=True, whitespace=True, eps_smoothing=True)
    ter = TER(normalized=True, no_punct=True, asian_support=True, case_sensitive=True)
    assert row["chrF1+"] == pytest.approx(chrf.corpus_score(HYPS, refs).score, abs=1e-9)
    assert row["TER"] == pytest.approx(ter.corpus_score(HYPS, refs).score, abs=1e-9)


def test_cli_sentence_level(tmp_path, capsys):
    res = _run(tmp_path, capsys, "-m", "chrf", "ter", "--sentence-level")
    for i, row in enumerate(res["rows"]):
        refs = [REFS1[i], REFS2[i]]
        assert row["chrF2"] == pytest.approx(CHRF().sentence_score(HYPS[i], refs).score, abs=1e-9)
        assert row["TER"] == pytest.approx(TER().sentence_score(HYPS[i], refs).score, abs=1e-9)


def test_cli_bad_option_is_one_line(tmp_path, capsys):
    h = tmp_path / "h.txt"
    h.write_text("a\n", encoding="utf-8")
    rc = main(["score", "-r", str(h), "-i", str(h), "-m", "chrf", "--chrf-beta", "-1"])
    err = capsys.readouterr().err
    assert rc != 0 and "beta" in err and len(err.strip().splitlines()) == 1
