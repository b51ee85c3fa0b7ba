"""`mtscore score -m bleu --sentence-level -f tsv|csv|json` end to end against a loop over sacreBLEU's
``sentence_score`` formatted in plain Python (the peer of benchmarks/bench_everyday.py), on real text (WMT17 en-de,
first 500 lines, plus edge lines), with the compiled kernels and with the reference path. Takes ~3 s."""
import json

import pytest

from conftest import data_path
from mtscore.cli.main import main
from mtscore.io import read_lines

sacrebleu = pytest.importorskip("sacrebleu")


@pytest.mark.parametrize("kernels", ["auto", "reference"])
def test_sentence_tsv_and_csv_are_the_sacrebleu_loop(tmp_path, capsys, kernels):
    d = data_path("wmt17-en-de")
    hyps = read_lines(d / "systems" / "newstest2017.online-B.0.en-de")[:500] + ["", "a", "x y z", "100 %"]
    refs = read_lines(d / "newstest2017.en-de.ref0.de")[:500] + ["a", "", "x y z", "100 %"]
    h, r = tmp_path / "h.txt", tmp_path / "r.txt"
    h.write_text("".join(x + "\n" for x in hyps), encoding="utf-8")
    r.write_text("".join(x + "\n" for x in refs), encoding="utf-8")
    bleu = sacrebleu.BLEU(effective_order=True)
    scores = [bleu.sentence_score(a, [b]).score for a, b in zip(hyps, refs)]
    for fmt, sep in (("tsv", "\t"), ("csv", ",")):
        for width in (2, 4):
            assert main(["score", "-q", "-m", "bleu", "--sentence-level", "-f", fmt, "-w", str(width),
                         "--kernels", kernels, "-r", str(r), "-i", str(h)]) == 0
            out = capsys.readouterr().out
            want = [f"segment{sep}BLEU"] + [f"{i}{sep}{s:.{width}f}" for i, s in enumerate(scores, 1)]
            assert out == "\n".join(want) + "\n"
    assert main(["score", "-q", "-m", "bleu", "--sentence-level", "-f", "json", "--kernels", kernels,
                 "-r", str(r), "-i", str(h)]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["rows"] == [{"segment": i, "BLEU": s} for i, s in enumerate(scores, 1)]  # floats bit for bit
