"""Language-aware tokenizer defaults (-l), the CJK-with-13a warning and sacreBLEU's tokenized-output warning.
Takes ~5 s."""
from pathlib import Path

import pytest

from mtscore.cli.main import main
from mtscore.io import read_lines
from mtscore.tokenize import looks_tokenized, script_hint, tokenizer_for_language
from conftest import data_path

TESTS = Path(__file__).resolve().parents[1]


def test_tokenizer_for_language_is_sacrebleus_choice():
    assert [tokenizer_for_language(x) for x in ("zh", "ja", "ko", "de", "en", None, "")] == \
        ["zh", "ja-mecab", "ko-mecab", "13a", "13a", "13a", "13a"]
    try:
        from sacrebleu.metrics.bleu import BLEU as SB
    except ImportError:
        return
    for lang in ("zh", "ja", "ko", "de", "cs"):
        expected = SB._TOKENIZER_MAP.get(lang, SB.TOKENIZER_DEFAULT)
        assert tokenizer_for_language(lang) == expected


def test_script_hint_on_real_text():
    assert script_hint(read_lines(data_path("wmt21", "references", "newstest2021.en-zh.ref.A.zh"))) == "zh"
    assert script_hint(read_lines(data_path("wmt23-en-ja", "generaltest2023.en-ja.ref.refA.ja"))) == "ja-mecab"
    assert script_hint(read_lines(TESTS / "fixtures" / "korean" / "cpython-cjkencodings.ko.txt")) == "ko-mecab"
    assert script_hint(read_lines(data_path("wmt21", "references", "newstest2021.en-de.ref.A.de"))) is None
    assert script_hint([]) is None and script_hint(["   "]) is None
    assert script_hint(["ab 中文"]) is None  # 2 of 4 non-space characters: not most


def test_looks_tokenized_threshold():
    assert not looks_tokenized(["a ."] * 99 + ["a."] * 50)
    assert looks_tokenized(["a ."] * 100)


def test_wmt21_en_zh_warning_and_langpair(tmp_path, capsys):
    w = data_path("wmt21")
    ref = str(w / "references" / "newstest2021.en-zh.ref.A.zh")
    ref_b = str(w / "references" / "newstest2021.en-zh.ref.B.zh")
    hyp = str(w / "system-outputs" / "newstest2021.en-zh.hyp.NiuTrans.zh")
    assert main(["score", "-r", ref, "-i", hyp]) == 0
    cap = capsys.readouterr()
    assert "  2.21\n" in cap.out and "tok:13a" in cap.out
    warn = [ln for ln in cap.err.splitlines() if "warning" in ln]
    assert len(warn) == 1 and "--tokenize zh" in warn[0] and ref in warn[0]
    assert main(["score", "-r", ref, ref_b, "-i", hyp, "-l", "en-zh"]) == 0
    cap = capsys.readouterr()
    assert " 48.12\n" in cap.out and "tok:zh" in cap.out and cap.err == ""  # published bleu-all 48.118...
    for explicit in (["--tokenize", "13a"], ["-m", "bleu:tokenize=13a"]):
        assert main(["score", "-r", ref, "-i", hyp, *explicit]) == 0
        assert capsys.readouterr().err == "", explicit  # the user chose 13a: no warning


def test_japanese_and_korean_hints(tmp_path, capsys):
    ja = str(data_path("wmt23-en-ja", "generaltest2023.en-ja.ref.refA.ja"))
    assert main(["score", "-r", ja, "-i", ja, "-m", "bleu", "chrf"]) == 0
    assert "--tokenize ja-mecab" in capsys.readouterr().err
    ko = TESTS / "fixtures" / "korean" / "cpython-cjkencodings.ko.txt"
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(ko.read_bytes())
    b.write_text("\n".join(ln[::-1] for ln in read_lines(ko)) + "\n", encoding="utf-8")
    assert main(["compare", "-r", str(ko), "-i", str(a), str(b), "--resamples", "10"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--tokenize ko-mecab" in err[0]


def test_tokenized_output_warning(tmp_path, capsys):
    ref = data_path("wmt21", "references", "newstest2021.en-de.ref.A.de")
    lines = read_lines(ref)[:150]
    tok = tmp_path / "tok.txt"
    tok.write_text("\n".join(ln[:-1] + " ." if ln.endswith(".") else ln + " ." for ln in lines) + "\n",
                   encoding="utf-8")
    r = tmp_path / "ref.txt"
    r.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["score", "-r", str(r), "-i", str(tok)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "tokenized period" in err[0] and str(tok) in err[0]
    assert main(["score", "-r", str(r), "-i", str(tok), "--force"]) == 0
    assert capsys.readouterr().err == ""
    few = tmp_path / "few.txt"
    few.write_text("\n".join((ln + " .") if i < 99 else ln for i, ln in enumerate(lines)) + "\n", encoding="utf-8")
    assert main(["score", "-r", str(r), "-i", str(few)]) == 0
    assert capsys.readouterr().err == ""


def test_option_validation(tmp_path, capsys):
    f = tmp_path / "a.txt"
    f.write_text("a b\n", encoding="utf-8")
    for args, text in ((["-l", "en_de"], "-l/--langpair"), (["-l", "en-"], "-l/--langpair"),
                       (["--spm-model", str(f)], "--spm-model: only with --tokenize"),
                       (["--tokenize", "spm", "--spm-model", str(tmp_path / "no.model")], "--spm-model: no such file")):
        code = main(["score", "-r", str(f), "-i", str(f), *args])
        err = capsys.readouterr().err
        assert code in (2, 3) and err.count("\n") == 1 and text in err, (args, err)


def test_langpair_with_another_tokenizer_gets_sacrebleus_hint(capsys):
    ja = str(data_path("wmt23-en-ja", "generaltest2023.en-ja.ref.refA.ja"))
    assert main(["score", "-r", ja, "-i", ja, "-l", "en-ja", "--tokenize", "char"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == ["mtscore: warning: Consider using the 'ja-mecab' or 'spm' tokenizer for Japanese."]


def _score_in_subprocess(args, feed=None, stdin_data=None):
    """``mtscore score ARGS`` in a child process (a hang is a timeout, not a stuck test run); ``feed``: a FIFO
    path and its bytes, written by a thread once, as a pipe from another program would be."""
    import os
    import subprocess
    import sys
    import threading
    root = TESTS.parent
    env = dict(os.environ, PYTHONPATH=str(root / "src"))
    env.pop("MTSCORE_TEST_FAULT", None)
    writer = None
    if feed is not None:
        def write():
            with open(feed[0], "wb") as fh:  # blocks until the reader opens it; a second open would wait forever
                fh.write(feed[1])
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
    p = subprocess.run([sys.executable, "-m", "mtscore", "score", *args], input=stdin_data, capture_output=True,
                       env=env, timeout=120)
    if writer is not None:
        writer.join(5)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


@pytest.mark.parametrize("how", ["fifo", "stdin"])
def test_hints_come_from_the_text_as_read_so_a_fifo_is_read_once(tmp_path, how):
    """The tokenized-output warning and the CJK hint are computed from the partitions the scorer reads:
    a FIFO or standard input (hypotheses, or references) is read once and scores as the same regular file."""
    import os
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"这是 第 {i} 个 句子 。\n" for i in range(120)), encoding="utf-8")
    tok = "".join(f"the cat number {i} sat on the mat .\n" for i in range(120)).encode()
    plain = tmp_path / "hyp.txt"
    plain.write_bytes(tok)
    import json

    def scores(out):
        return [r["results"] for r in json.loads(out)["results"]]
    rc, want, err = _score_in_subprocess(["-r", str(ref), "-i", str(plain), "-m", "bleu", "chrf", "-f", "json"])
    assert rc == 0, err
    expect = [ln for ln in err.splitlines()]
    assert len(expect) == 2 and "--tokenize zh" in expect[0] and "tokenized period" in expect[1], err
    if how == "fifo":
        fifo = tmp_path / "hyp.fifo"
        os.mkfifo(fifo)
        rc, out, err = _score_in_subprocess(["-r", str(ref), "-i", str(fifo), "-m", "bleu", "chrf", "-f", "json"],
                                            feed=(fifo, tok))
        name = str(fifo)
    else:
        rc, out, err = _score_in_subprocess(["-r", str(ref), "-i", "-", "-m", "bleu", "chrf", "-f", "json"],
                                            stdin_data=tok)
        name = "-"
    assert rc == 0, err
    assert scores(out) == scores(want) and scores(want)[0][0]["score"] > 0  # the same scores
    assert err.splitlines() == [ln.replace(f"{plain}:", f"{name}:") for ln in expect]
    # the references through a FIFO: the CJK hint from the text read, scores unchanged
    rfifo = tmp_path / "ref.fifo"
    os.mkfifo(rfifo)
    rc, out, err = _score_in_subprocess(["-r", str(rfifo), "-i", str(plain), "-m", "bleu", "chrf", "-f", "json"],
                                        feed=(rfifo, ref.read_bytes()))
    assert rc == 0 and "--tokenize zh" in err and f"({rfifo})" in err, err
    assert scores(out) == scores(want)


def test_stored_scores_beside_text_metrics_read_a_fifo_once(tmp_path):
    """Stored scores (scores:NAME=FILE) check their segment count against the hypotheses the text metrics
    already read: a FIFO hypothesis file is not opened a second time (which would wait forever)."""
    import json
    import os
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\nhello world and all\nyes it is so\n", encoding="utf-8")
    hyp = b"the cat sat on the mat\nhello there world\nno it is so\n"
    fifo = tmp_path / "sys.fifo"
    os.mkfifo(fifo)
    (tmp_path / "s.txt").write_text("0.5\n0.25\n1.0\n", encoding="utf-8")
    rc, out, err = _score_in_subprocess(["-r", str(ref), "-i", str(fifo), "-m", "bleu",
                                         f"scores:S={tmp_path / 's.txt'},direction=higher", "-f", "json"], feed=(fifo, hyp))
    assert rc == 0, err
    row = json.loads(out)["rows"][0]
    assert row["S"] == (0.5 + 0.25 + 1.0) / 3 and row["BLEU"] > 0
