"""The CLI as users run it: real files, several systems, formats, and every kind of bad input."""
import gzip
import json
import subprocess
import sys

import pytest

from mtscore.cli.main import main

SAMPLE = "src/mtscore/data/sample"


def run(*args, stdin: bytes | None = None, cwd=None):
    p = subprocess.run([sys.executable, "-m", "mtscore", *args], input=stdin, capture_output=True, cwd=cwd)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


@pytest.fixture
def files(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat is on the mat\nhello world\n\n", encoding="utf-8")
    a = tmp_path / "a.txt"
    a.write_text("the cat sat on the mat\nhello world\n\n", encoding="utf-8")
    b = tmp_path / "b.txt"
    b.write_text("a cat\nhello\nextra\n", encoding="utf-8")
    return tmp_path, ref, a, b


def test_multi_system_multi_metric_table_and_json(files):
    tmp, ref, a, b = files
    rc, out, err = run("score", "-r", str(ref), "-i", str(a), str(b), "-m", "bleu", "bleu-sbp")
    assert rc == 0, err
    # systems are shown by their file names less the prefix/suffix they share (docs/input.md: "a", "b")
    assert "BLEU" in out and "BLEU-SBP" in out and "\na  " in out and "\nb  " in out and str(a) not in out
    rc, out, err = run("score", "-r", str(ref), "-i", str(a), str(b), "-f", "json")
    obj = json.loads(out)
    assert [r["system"] for r in obj["rows"]] == ["a", "b"]
    assert [(r["system"], r["path"]) for r in obj["results"]] == [("a", str(a)), ("b", str(b))]
    assert "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:mtscore-" in out
    rc, out, err = run("score", "-r", str(ref), "-i", str(a), "-m", "bleu", "-f", "json")
    obj = json.loads(out)
    score = obj["rows"][0]["BLEU"]
    assert isinstance(score, float)
    import sacrebleu
    exp = sacrebleu.BLEU().corpus_score(["the cat sat on the mat", "hello world", ""],
                                        [["the cat is on the mat", "hello world", ""]]).score
    assert score == exp  # full precision in JSON


@pytest.mark.parametrize("fmt", ["text", "tsv", "latex", "markdown", "json"])
def test_formats_on_builtin_sample(fmt):
    rc, out, err = run("score", "-r", f"{SAMPLE}/newstest2017.en-de.ref.de", "-i", f"{SAMPLE}/LIUM-NMT.de",
                       f"{SAMPLE}/online-B.de", "-m", "bleu", "bleu-sbp", "-f", fmt)
    assert rc == 0, err
    if fmt == "latex":
        assert "\\toprule" in out and "\\bottomrule" in out
    if fmt == "markdown":
        assert out.startswith("| system | BLEU ↑ | BLEU-SBP ↑ |")
    if fmt == "tsv":
        # one tidy table: a row per (system, metric), with its signature, in full precision
        assert out.splitlines()[0] == "system\tmetric\tname\tscore\tscale\thigher_is_better\tsignature"
        assert [r.split("\t")[2] for r in out.splitlines()[1:]] == ["BLEU", "BLEU-SBP"] * 2
        assert all(r.split("\t")[6].startswith(r.split("\t")[2] + "|nrefs:1") for r in out.splitlines()[1:])


def test_demo_runs():
    rc, out, err = run("demo", "-m", "bleu", "bleu-sbp")
    assert rc == 0, err
    assert "LIUM-NMT" in out and "PROMT-Rule-based" in out


def test_sentence_level_matches_sacrebleu(files):
    tmp, ref, a, b = files
    rc, out, err = run("score", "-r", str(ref), "-i", str(a), "--sentence-level", "-f", "json")
    rows = json.loads(out)["rows"]
    import sacrebleu
    exp = [sacrebleu.sentence_bleu(h, [r]).score for h, r in
           zip(["the cat sat on the mat", "hello world", ""], ["the cat is on the mat", "hello world", ""])]
    assert [r["BLEU"] for r in rows] == pytest.approx(exp, abs=1e-9)
    assert len(rows) == 3  # the empty line is a segment


def test_line_count_mismatch_names_both_files(files, tmp_path):
    tmp, ref, a, b = files
    short = tmp_path / "short.txt"
    short.write_text("one line\n")
    rc, out, err = run("score", "-r", str(ref), "-i", str(short))
    assert rc == 3 and out == ""
    assert f"{short} has 1 line," in err and f"{ref} has 3 lines" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_reference_streams_of_different_length(files, tmp_path):
    tmp, ref, a, b = files
    ref2 = tmp_path / "ref2.txt"
    ref2.write_text("x\n")
    rc, out, err = run("score", "-r", str(ref), str(ref2), "-i", str(a))
    assert rc == 3 and out == "" and "has 3 lines" in err and "has 1 line" in err


def test_invalid_utf8_names_file_and_line(files, tmp_path):
    tmp, ref, a, b = files
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nalso fine\nbroken \xff here\n")
    rc, out, err = run("score", "-r", str(ref), "-i", str(bad))
    assert rc == 3 and out == ""
    assert f"{bad}:3:" in err and "UTF-8" in err


@pytest.mark.parametrize("args,needle", [
    (["--tokenize", "moses"], "--tokenize: must be one of: 13a, intl"),
    (["--smooth", "laplace"], "--smooth: must be one of: none, floor, add-k, exp, method0"),
    (["-m", "blue"], "must be one of: 4-grr, bleu, bleu-sbp"),
])
def test_unknown_names_list_valid_ones(files, args, needle):
    tmp, ref, a, b = files
    rc, out, err = run("score", "-r", str(ref), "-i", str(a), *args)
    assert rc == 2 and out == "" and needle in err
    assert len(err.strip().splitlines()) == 1


def test_missing_file(files):
    tmp, ref, a, b = files
    rc, out, err = run("score", "-r", str(ref), "-i", str(tmp / "nope.txt"))
    assert rc == 3 and "nope.txt: no such file" in err


def test_empty_files_score_zero(tmp_path):
    e1, e2 = tmp_path / "r", tmp_path / "h"
    e1.write_bytes(b"")
    e2.write_bytes(b"")
    rc, out, err = run("score", "-r", str(e1), "-i", str(e2), "-f", "json")
    assert rc == 0, err
    assert json.loads(out)["rows"][0]["BLEU"] == 0.0


def test_bom_crlf_gz_stdin_and_tsv(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_bytes("\ufeffthe cat is on the mat\r\nhello world\r\n".encode("utf-8"))
    hyp = tmp_path / "hyp.txt.gz"
    with gzip.open(hyp, "wb") as fh:
        fh.write(b"the cat is on the mat\nhello world\n")
    # A leading BOM stays in segment 1 by default, as sacreBLEU reads it ("\ufeffthe" is not "the"): one
    # warning names the file. (It used to be removed silently.)
    rc, out, err = run("score", "-r", str(ref), "-i", str(hyp), "-f", "json")
    assert rc == 0, err
    assert json.loads(out)["rows"][0]["BLEU"] < 100.0
    assert err.count("byte-order mark") == 1 and str(ref) in err
    rc, out, err = run("score", "-r", str(ref), "-i", str(hyp), "-f", "json", "--strip-bom")
    assert rc == 0 and err == "", err
    assert json.loads(out)["rows"][0]["BLEU"] == pytest.approx(100.0, abs=1e-9)
    rc, out, err = run("score", "-r", str(ref), "-i", "-", "-f", "json", "--strip-bom",
                       stdin=b"\xef\xbb\xbfthe cat is on the mat\nhello world\n")
    assert json.loads(out)["rows"][0]["BLEU"] == pytest.approx(100.0, abs=1e-9)
    tsv = tmp_path / "x.tsv"
    tsv.write_text("the cat is on the mat\tthe cat is on the mat\tx\nhello world\thello world\ty\n")
    rc, out, err = run("score", "--tsv", str(tsv), "-f", "json")
    assert json.loads(out)["rows"][0]["BLEU"] == pytest.approx(100.0, abs=1e-9)
    tsv.write_text("a\tb\nc\n")
    rc, out, err = run("score", "--tsv", str(tsv))
    assert rc == 3 and f"{tsv}:2:" in err


def test_one_megabyte_line(tmp_path):
    words = ("word%d " % i for i in range(150000))
    line = "".join(words)[: 1 << 20]
    ref = tmp_path / "r"
    ref.write_text(line + "\n")
    rc, out, err = run("score", "-r", str(ref), "-i", str(ref), "-f", "json")
    assert rc == 0, err
    assert json.loads(out)["rows"][0]["BLEU"] == pytest.approx(100.0, abs=1e-9)


def test_in_process_main_returns_exit_codes(files, capsys):
    tmp, ref, a, b = files
    assert main(["score", "-r", str(ref), "-i", str(a)]) == 0
    assert main(["score", "-r", str(ref), "-i", str(tmp / "missing")]) == 3
    assert "missing: no such file" in capsys.readouterr().err
