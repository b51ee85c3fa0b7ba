"""Byte-order mark: kept in segment 1 by default as sacreBLEU reads it, one warning line,
``--strip-bom`` removes it. Oracle: sacreBLEU 2.6 (test-only dependency) on the same file."""
import io
import json
import subprocess
import sys
import warnings

import pytest

from mtscore.errors import InputWarning
from mtscore.io import read_segments
from mtscore.io.stream import iter_parallel_chunks
from mtscore.io.text import decode_lines, read_lines

from conftest import data_path


def _cli(*args, stdin=None):
    p = subprocess.run([sys.executable, "-m", "mtscore", *args], input=stdin, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def test_wmt17_online_a_equals_sacrebleu_by_default_and_strip_bom_gives_old_number():
    d = data_path("wmt17-en-de")
    ref = d / "newstest2017.en-de.ref0.de"
    hyp = d / "systems" / "newstest2017.online-A.0.en-de"
    assert hyp.read_bytes().startswith(b"\xef\xbb\xbf")
    sacrebleu = pytest.importorskip("sacrebleu")
    with open(hyp, encoding="utf-8") as fh:  # as sacreBLEU's CLI reads it: the BOM stays in line 1
        hyps = [ln.rstrip() for ln in fh]
    with open(ref, encoding="utf-8") as fh:
        refs = [ln.rstrip() for ln in fh]
    peer = sacrebleu.corpus_bleu(hyps, [refs]).score
    assert f"{peer:.6f}" == "20.796506"
    rc, out, err = _cli("score", "-r", str(ref), "-i", str(hyp), "-f", "json")
    assert rc == 0, err
    assert json.loads(out)["rows"][0]["BLEU"] == pytest.approx(peer, abs=1e-12)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mtscore: warning: ") and str(hyp) in lines[0]
    rc, out, err = _cli("score", "-r", str(ref), "-i", str(hyp), "-f", "json", "--strip-bom")
    assert rc == 0 and err == ""
    stripped = json.loads(out)["rows"][0]["BLEU"]
    assert f"{stripped:.6f}" == "20.796658"
    assert stripped == pytest.approx(sacrebleu.corpus_bleu([hyps[0][1:]] + hyps[1:], [refs]).score, abs=1e-12)


def test_readers_keep_or_strip_and_warn():
    data = b"\xef\xbb\xbfa b\r\nc\n"
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        assert decode_lines(data, "x", bom="keep") == ["\ufeffa b", "c"]
    assert len(rec) == 1 and issubclass(rec[0].category, InputWarning) and "x:" in str(rec[0].message)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        assert decode_lines(data, "x") == ["a b", "c"]  # structured files: an encoding mark
    assert rec == []


def test_segment_readers_and_streaming_agree(tmp_path):
    p = tmp_path / "f.txt"
    p.write_bytes(b"\xef\xbb\xbffirst\nsecond\n")
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        kept = read_segments(p)
        streamed = [c.columns[0] for c in iter_parallel_chunks([str(p)], 1)]
        assert read_segments(p, strip_bom=True) == read_lines(p) == ["first", "second"]
        assert [c.columns[0] for c in iter_parallel_chunks([str(p)], 1, strip_bom=True)] == [["first"], ["second"]]
    assert kept == ["\ufefffirst", "second"] and streamed == [["\ufefffirst"], ["second"]]
    assert sum(issubclass(r.category, InputWarning) for r in rec) == 2


def test_cli_stdin_bom_kept_and_warning_names_stdin(tmp_path):
    ref = tmp_path / "r.txt"
    ref.write_text("hello there big world\n")
    rc, out, err = _cli("score", "-r", str(ref), "-i", "-", "-f", "json", stdin=b"\xef\xbb\xbfhello there big world\n")
    assert rc == 0
    assert json.loads(out)["rows"][0]["BLEU"] < 100 and "standard input" in err and err.count("\n") == 1
    rc, out, err = _cli("score", "-r", str(ref), "-i", "-", "-f", "json", "--strip-bom",
                        stdin=b"\xef\xbb\xbfhello there big world\n")
    assert json.loads(out)["rows"][0]["BLEU"] == pytest.approx(100.0) and err == ""
