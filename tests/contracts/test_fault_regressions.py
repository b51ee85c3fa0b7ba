"""Defects of the fault contract (docs/input.md), each reproduced: strict readers, options that did nothing, tracebacks turned into one line,
documented exit codes, BOM handling of stored scores, Ctrl-C/SIGTERM during Dask start-up. Each test failed
before its fix. In process (``main``) where file descriptors do not matter; a subprocess where they do."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]


cli = run_cli  # mtscore in this process: (exit code, stdout, stderr)


def one_line(err: str) -> str:
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip() and "warning:" not in ln]
    assert len(lines) == 1, err
    return lines[0]


def proc(*args, stdin=None, stdout=subprocess.PIPE, new_session=False, **kw):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("MTSCORE_TEST_FAULT", None)
    return subprocess.Popen([sys.executable, "-m", "mtscore", *map(str, args)], stdin=stdin, stdout=stdout,
                            stderr=subprocess.PIPE, env=env, start_new_session=new_session, **kw)


@pytest.fixture
def d(tmp_path):
    (tmp_path / "ref.txt").write_text("the cat sat on the mat\nhello world\na dog ran far away\n")
    (tmp_path / "a.txt").write_text("the cat sat on a mat\nhello world\na dog ran away\n")
    (tmp_path / "b.txt").write_text("a cat\nhello\nthe dog ran far away\n")
    return tmp_path


# --- strict readers --------------------------------------------------------------------------------
def test_nbest_separator_without_spaces_is_an_error(d):
    (d / "nb.txt").write_text("0 ||| the cat sat on the mat ||| lm_0=-1.0 ||| -1\n"
                              "1 ||| hello world|||lm_0=-2.0 ||| -2\n"
                              "2 ||| a dog ran away ||| lm_0=-3.0 ||| -3\n")
    rc, out, err = cli("nbest", d / "nb.txt", "-r", d / "ref.txt", "--tokenize", "none")
    assert rc == 3 and out == ""
    line = one_line(err)
    assert f"{d / 'nb.txt'}:2:" in line and "exactly ' ||| '" in line


def test_nbest_repeated_weight_is_an_error(d):
    (d / "nb.txt").write_text("0 ||| the cat ||| lm_0=-1.0 ||| -1\n1 ||| hello ||| lm_0=-2.0 ||| -2\n"
                              "2 ||| dog ||| lm_0=-3.0 ||| -3\n")
    rc, out, err = cli("nbest", d / "nb.txt", "-r", d / "ref.txt", "--weights", "lm_0=1,lm_0=2")
    assert rc == 2 and "lm_0 is given twice" in one_line(err)


def test_echo_docid_checks_the_documents_line_count(d):
    base = d / "ts" / "wmtx"
    for sub in ("sources", "references", "documents"):
        (base / sub).mkdir(parents=True)
    (base / "sources" / "aa-en.txt").write_text("s1\ns2\ns3\n")
    (base / "references" / "aa-en.refA.txt").write_text("r1\nr2\nr3\n")
    (base / "documents" / "aa-en.docs").write_text("news\td1\nnews\td1\n")  # one line short
    rc, out, err = cli("score", "-t", "wmtx", "-l", "aa-en", "--testset-dir", d / "ts", "--echo", "docid")
    assert rc == 3 and out == ""
    line = one_line(err)
    assert "aa-en.docs" in line and "docid has 2" in line and "ref has 3" in line
    (base / "documents" / "aa-en.docs").write_text("news\td1\nnews\td1\nnews\td2\n")
    rc, out, err = cli("score", "-t", "wmtx", "-l", "aa-en", "--testset-dir", d / "ts", "--echo", "docid")
    assert rc == 0 and out.split() == ["d1", "d1", "d2"]


def test_tsv_segment_id_is_checked_against_the_file_before_any_allocation(d):
    rows = "".join(f"a\t{i}\t0.5\n" for i in range(1, 50)) + "a\t3000000000\t0.5\n"
    (d / "s.tsv").write_text(rows)
    import tracemalloc
    tracemalloc.start()
    rc, out, err = cli("score", "-r", d / "ref.txt", "-i", d / "a.txt", "-m",
                       f"scores:X={d / 's.tsv'},format=tsv,direction=higher")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert rc == 3 and "segment 3000000000 cannot be complete in a file of 50 rows" in one_line(err)
    assert f"s.tsv:50:" in err
    assert peak < 200 * 2 ** 20, peak  # before: ~6 GB asked for


@pytest.mark.parametrize("body,want", [
    ('{"a.txt": [{"mt": 5, "COMET": 0.5}, {"mt": "x", "COMET": 0.5}, {"mt": "y", "COMET": 0.5}]}',
     "'mt' must be a string"),
    ('{"a.txt": [{"mt": "x", "COMET": ' + "9" * 400 + '}]}', "not a finite number"),
    ('{"a.txt": [{"mt": "x", "COMET": ' + "9" * 5000 + '}]}', "not a COMET JSON file"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
    ('{"a.txt": [{"mt": "x", "COMET": "0.5"}]}', "is not a number"),
    ('{"a.txt": [{"mt": "x", "src": ["s"], "COMET": 0.5}]}', "'src' must be a string"),
])
def test_comet_json_fields_are_validated(d, body, want):
    (d / "c.json").write_text(body)
    rc, out, err = cli("score", "-r", d / "ref.txt", "-i", d / "a.txt", "-m", f"scores:COMET={d / 'c.json'}")
    assert rc == 3 and out == "" and want in one_line(err), err


def test_bom_alone_or_beside_another_metric(d):
    """A BOM file: stored scores alone and beside BLEU read the same hypotheses (BOM kept, as sacreBLEU);
    a COMET JSON that kept the BOM in its first 'mt' (as comet-score does) is accepted either way."""
    (d / "h.txt").write_bytes(b"\xef\xbb\xbfthe cat sat on a mat\nhello world\na dog ran away\n")
    segs = [{"mt": "\ufeffthe cat sat on a mat", "COMET": 0.5}, {"mt": "hello world", "COMET": 0.6},
            {"mt": "a dog ran away", "COMET": 0.7}]
    (d / "c.json").write_text(json.dumps({"h.txt": segs}))
    spec = f"scores:COMET={d / 'c.json'}"
    for extra in ([], ["bleu"]):
        for strip in ([], ["--strip-bom"]):
            rc, out, err = cli("score", "-r", d / "ref.txt", "-i", d / "h.txt", "-m", spec, *extra, *strip,
                               "-f", "json")
            assert rc == 0, err
            row = json.loads(out)["rows"][0]
            assert row[[k for k in row if k.startswith("COMET")][0]] == pytest.approx(0.6)


# --- options that did nothing ------------------------------------------------------------------------
def test_audit_sign_refuses_labels(d):
    rc, out, err = cli("audit", "sign", "-r", d / "ref.txt", "-i", d / "a.txt", d / "b.txt", "--labels", "missing.txt")
    assert rc == 2 and "--labels" in one_line(err)


def _sys_files(d):
    (d / "human.sys.score").write_text("s1\t0.1\ns2\t0.5\ns3\t0.9\ns4\t0.3\n")
    (d / "m.sys.score").write_text("s1\t1\ns2\t4\ns3\t9\ns4\t2\n")


def test_meta_sys_scores_writes_its_page(d):
    _sys_files(d)
    rc, out, err = cli("meta", "--sys-scores", "BLEU", d / "m.sys.score", "--human-sys", d / "human.sys.score",
                       "-o", d / "page.html")
    assert rc == 0, err
    assert (d / "page.html").read_text().startswith("<!DOCTYPE html>")


def test_meta_html_refused_where_there_is_no_page(d):
    # --task-set has its page (the metrics ranking, tests/meta/test_meta_ranking_html.py): a failed run writes none
    rc, out, err = cli("meta", "--task-set", "wmt23", "--data", d, "--external", "X", "-o", d / "p.html")
    assert rc == 2 and "no HTML page" not in err and not (d / "p.html").exists()
    rc, out, err = cli("meta", "-r", d / "ref.txt", "-i", d / "a.txt", "--human-file", d / "h.txt",
                       "--human-format", "rr", "-o", d / "p.html")
    assert rc == 2 and "--human-format rr has no HTML page" in one_line(err)
    assert not (d / "p.html").exists()


# --- tracebacks -> one line --------------------------------------------------------------------------
def _mtme(root: Path):
    for sub in ("sources", "references", "human-scores", "system-outputs/aa-en"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "sources" / "aa-en.txt").write_text("s1\ns2\ns3\n")
    (root / "references" / "aa-en.refA.txt").write_text("the cat\nhello world\na dog\n")
    for k, h in enumerate(("the cat\nhello\na dog\n", "cat\nhello world\ndog\n", "a cat\nworld\na dog ran\n")):
        (root / "system-outputs" / "aa-en" / f"sys{k}.txt").write_text(h)
    (root / "human-scores" / "aa-en.mqm.seg.score").write_text(
        "".join(f"sys{k}\t{v}\n" for k in range(3) for v in (k, k + 1, k + 2)))


def test_meta_data_without_reference(d):
    _mtme(d / "mt")
    (d / "mt" / "references" / "aa-en.refA.txt").unlink()
    rc, out, err = cli("meta", "--data", d / "mt", "--lp", "aa-en", "-m", "bleu")
    assert rc == 3 and "no reference for aa-en" in one_line(err)


def test_meta_data_with_empty_human_file(d):
    _mtme(d / "mt")
    (d / "mt" / "human-scores" / "aa-en.mqm.seg.score").write_text("")
    rc, out, err = cli("meta", "--data", d / "mt", "--lp", "aa-en", "-m", "bleu")
    assert rc == 3 and one_line(err)


def test_function_words_not_utf8(d):
    (d / "fw.txt").write_bytes(b"the\n\xff\xfe\n")
    rc, out, err = cli("score", "-r", d / "ref.txt", "-i", d / "a.txt", "-m", "rose", "--function-words", d / "fw.txt")
    assert rc == 3 and f"{d / 'fw.txt'}:2: invalid UTF-8" in one_line(err)


@pytest.mark.parametrize("argv", [["--help"], ["score", "--help"], ["--version"], ["sacrebleu", "REF", "-i", "HYP"]])
def test_stdout_closed_is_exit_5(d, argv):
    argv = [str(d / "ref.txt") if a == "REF" else str(d / "a.txt") if a == "HYP" else a for a in argv]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run(["bash", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "mtscore", *argv],
                       capture_output=True, env=env, timeout=120)
    err = p.stderr.decode()
    assert p.returncode == 5 and one_line(err) == "mtscore: error: <stdout>: cannot write: standard output is closed"


def test_reader_gone_is_exit_141_even_unbuffered(d):
    """``tokenize big.txt | head -c 10``: exit 141, quietly, also with PYTHONUNBUFFERED (the raw stream took
    part of the text and the rest was dropped silently, exit 0)."""
    (d / "big.txt").write_text("word " * 400_000 + "\n" + "more words\n" * 200_000)
    for unbuffered in ("1", ""):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
        env["PYTHONUNBUFFERED"] = unbuffered
        p = subprocess.run(["bash", "-c", f'"{sys.executable}" -m mtscore tokenize "$1" | head -c 10 >/dev/null; '
                            'exit ${PIPESTATUS[0]}', "sh", str(d / "big.txt")], capture_output=True, env=env,
                           timeout=120)
        assert p.returncode == 141 and p.stderr == b"", (unbuffered, p.stderr)


# --- Dask start-up ------------------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    out = []
    for x in os.listdir("/proc"):
        if x.isdigit():
            try:
                with open(f"/proc/{x}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(x))
    return out


@pytest.mark.parametrize("sig,code,line,delay", [
    (signal.SIGINT, 130, "mtscore: interrupted", 0.2),
    (signal.SIGINT, 130, "mtscore: interrupted", 0.8),
    (signal.SIGTERM, 143, "mtscore: terminated", 0.5),
])
def test_signal_during_dask_start_up_is_one_line(d, sig, code, line, delay):
    """The signal goes to the whole process group (as a terminal's Ctrl-C) while the LocalCluster's worker
    processes are being spawned: one line and the exit code, no worker traceback (before: exit 130 and ~100
    lines of tracebacks in about half the tries)."""
    pytest.importorskip("distributed")
    # 900k lines: the run goes on for seconds after the workers appear (3.5 s on a 2-core Xeon), so the signal
    # lands while the process is alive also on a fast machine (with 3 lines a CI runner finished in < 0.8 s)
    for name in ("ref.txt", "a.txt"):
        (d / f"big-{name}").write_text((d / name).read_text() * 300_000)
    p = proc("score", "-r", d / "big-ref.txt", "-i", d / "big-a.txt", "--backend", "dask", "--dask-workers", "2",
             new_session=True)
    t0 = time.monotonic()
    while not _children(p.pid) and time.monotonic() - t0 < 60 and p.poll() is None:
        time.sleep(0.01)
    time.sleep(delay)
    assert p.poll() is None, "the run ended before the signal: the test needs a longer job"
    os.killpg(p.pid, sig)
    # communicate() reads stderr to its end: every process holding the pipe (a worker printing late too) has
    # closed it, so err is everything any of them wrote
    out, err = p.communicate(timeout=120)
    assert p.returncode == code and one_line(err.decode()) == line, err.decode()
