"""Faults: outputs, signals and interrupts, worker errors. Every failure is one line with a
documented exit code (docs/input.md), never a traceback; nothing partial is left behind.

Interrupts are injected deterministically with the test hook ``MTSCORE_TEST_FAULT`` (mtscore._testhooks),
not with sleeps. About 20 s on 2 cores.
"""
from __future__ import annotations

import json
import re
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from mtscore.errors import OutputError
from mtscore.io.output import OutputSet, check_writable, write_text

ROOT = Path(__file__).resolve().parents[2]


def run(*args, env=None, stdin=None, stdout=subprocess.PIPE, new_session=False, **kw):
    e = dict(os.environ)
    e.pop("MTSCORE_TEST_FAULT", None)
    e["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env or {})
    p = subprocess.run([sys.executable, "-m", "mtscore", *args], stdout=stdout, stderr=subprocess.PIPE,
                       stdin=stdin, env=e, timeout=120, start_new_session=new_session, **kw)
    out = p.stdout.decode() if isinstance(p.stdout, bytes) else ""
    return p.returncode, out, p.stderr.decode()


def run_here(*args):
    """``mtscore ARGS`` in this process, for the variants of a command whose first run in the same test is end to end
    in a subprocess (:func:`run`): the exit code and the two streams as there (a new interpreter's warning filters),
    without a new interpreter importing numpy, scipy and pyarrow."""
    return run_cli(*args, interpreter_warnings=True)


def one_line(err: str) -> str:
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if "tmp" in p.name)


@pytest.fixture
def corpus(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\nthere is a dog\nhello world\n" * 40)
    a = tmp_path / "a.txt"
    a.write_text("the cat sat on a mat\nthere is the dog\nhello there world\n" * 40)
    b = tmp_path / "b.txt"
    b.write_text("a cat sat on the mat\nhere is a dog\nhello world\n" * 40)
    return tmp_path, str(ref), str(a), str(b)


# --- the writer (library level) -------------------------------------------------------------------
def test_regular_file_atomic_and_mode_kept(tmp_path):
    t = tmp_path / "out.txt"
    write_text(t, "one\n")
    assert t.read_text() == "one\n"
    os.chmod(t, 0o640)
    write_text(t, "two\n")
    assert t.read_text() == "two\n" and stat.S_IMODE(t.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_fifo_symlink_device_written_through(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_text(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    write_text("/dev/null", "x\n")  # a device node: written through, not replaced (we could not replace it)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    write_text(fifo, "through the fifo\n")
    assert reader.communicate(timeout=30)[0] == b"through the fifo\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("case", ["missing-folder", "directory", "read-only", "full"])
def test_output_errors_name_path_and_reason(tmp_path, case):
    if case == "missing-folder":
        path, reason = tmp_path / "no" / "such" / "x.txt", "the folder does not exist"
    elif case == "directory":
        path, reason = tmp_path, "is a directory"
    elif case == "read-only":
        if os.geteuid() == 0:
            pytest.skip("root can write into read-only folders")
        ro = tmp_path / "ro"
        ro.mkdir()
        os.chmod(ro, 0o500)
        path, reason = ro / "x.txt", "permission denied"
    else:
        if not os.path.exists("/dev/full"):
            pytest.skip("no /dev/full")
        path, reason = Path("/dev/full"), "no space left on the device"
    with pytest.raises(OutputError) as ei:
        write_text(path, "x" * 100000)
    assert str(ei.value) == f"{path}: cannot write: {reason}"
    assert leftovers(tmp_path) == []


def test_failure_and_interrupt_leave_no_temp_and_keep_the_old_file(tmp_path, monkeypatch):
    t = tmp_path / "keep.txt"
    t.write_text("precious\n")
    from mtscore.io import output
    for exc in (KeyboardInterrupt, OSError(28, "No space left on device")):
        def boom(*a, _exc=exc):
            raise _exc
        monkeypatch.setattr(output.os, "replace", boom)
        with pytest.raises((KeyboardInterrupt, OutputError)):
            write_text(t, "half")
        assert t.read_text() == "precious\n" and leftovers(tmp_path) == []


def test_api_interrupt_raises_keyboardinterrupt_without_temp_files(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSCORE_TEST_FAULT", "write")
    from mtscore import _testhooks
    monkeypatch.setattr(_testhooks, "_seen", {})
    with pytest.raises(KeyboardInterrupt):
        write_text(tmp_path / "x.txt", "data\n")
    assert list(tmp_path.iterdir()) == []


def test_output_set_all_or_nothing(tmp_path):
    d = tmp_path / "set"
    with pytest.raises(KeyboardInterrupt):
        with OutputSet(d) as out:
            out.add("a.txt", "a\n")
            raise KeyboardInterrupt
    assert not d.exists()  # the set created the folder, so it removes it again
    with OutputSet(d) as out:
        out.add("a.txt", "a\n")
        out.add("b.txt", b"b\n")
        out.commit()
    assert sorted(p.name for p in d.iterdir()) == ["a.txt", "b.txt"]
    with pytest.raises(OutputError, match="exists and is not a folder"):
        OutputSet(d / "a.txt")
    with pytest.raises(OutputError, match="parent folder does not exist"):
        OutputSet(tmp_path / "x" / "y")


def test_check_writable_before_the_work(tmp_path):
    check_writable(tmp_path / "new.txt")
    check_writable("-")
    with pytest.raises(OutputError, match="is a directory"):
        check_writable(tmp_path)
    with pytest.raises(OutputError, match="folder does not exist"):
        check_writable(tmp_path / "nope" / "x")


# --- the CLI ----------------------------------------------------------------------------------------
def test_cli_output_errors_are_one_line_exit_5(corpus):
    tmp, ref, a, b = corpus
    rc, out, err = run("report", "-r", ref, "-i", a, "--resamples", "10", "-o", str(tmp / "missing" / "r.html"))
    assert rc == 5 and out == "" and one_line(err).endswith("r.html: cannot write: the folder does not exist")
    rc, out, err = run("report", "-r", ref, "-i", a, "--resamples", "10", "-o", "/dev/full")
    assert rc == 5 and one_line(err) == "mtscore: error: /dev/full: cannot write: no space left on the device"
    assert leftovers(tmp) == []


def test_stdout_full_or_closed(corpus):
    tmp, ref, a, b = corpus
    with open("/dev/full", "wb") as full:
        rc, _, err = run("score", "-r", ref, "-i", a, stdout=full)
    assert rc == 5 and one_line(err) == "mtscore: error: <stdout>: cannot write: no space left on the device"
    with open("/dev/full", "wb") as full:
        rc, _, err = run("--help", stdout=full)
    assert rc == 5 and "no space left" in one_line(err)
    rc, _, err = run("score", "-r", ref, "-i", a, stdout=None, pass_fds=(), close_fds=True,
                     preexec_fn=lambda: os.close(1))
    assert rc == 5 and one_line(err) == "mtscore: error: <stdout>: cannot write: standard output is closed"
    for cmd in (["sacrebleu", ref, "-i", a], ["sacrebleu", ref, "-q", "-i", a, b, "-f", "text"]):  # the drop-in's writer
        with open("/dev/full", "wb") as full:
            rc, _, err = run(*cmd, stdout=full)
        assert rc == 5 and one_line(err) == "mtscore: error: <stdout>: cannot write: no space left on the device"


def test_sigpipe_exits_quietly(corpus):
    tmp, ref, a, b = corpus
    p = subprocess.Popen(f"{sys.executable} -m mtscore score -r {ref} -i {a} --sentence-level | head -n 1",
                         shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    out, err = p.communicate(timeout=120)
    assert out.decode().count("\n") == 1 and err == b""


def test_write_selections_rules(tmp_path):
    refs = tmp_path / "ref"
    refs.write_text("a b c\nd e f\n")
    nb = tmp_path / "nb.jsonl"
    nb.write_text(json.dumps(["a b c", "x"]) + "\n" + json.dumps(["d e", "d\ne f"]) + "\n")
    out = tmp_path / "sel"
    out.mkdir()
    (out / "mine.txt").write_text("not ours\n")
    # the oracle picks "d\ne f" for segment 2 (higher 4-GRR than "d e"? either way 1-best is fine): we check
    # that a selection with a line break is refused, naming the segment, and nothing is written
    rc, o, err = run("nbest", str(nb), "-r", str(refs), "--tok", "none", "-m", "wer", "--oracle", "wer",
                     "--write-selections", str(out))
    if rc == 0:  # the line-broken candidate was not selected by any method
        assert sorted(p.name for p in out.iterdir()) >= ["1-best.txt", "mine.txt"]
    else:
        assert rc == 3 and "contains a line break" in one_line(err) and "segment 2" in err
        assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
    nb.write_text(json.dumps(["a b c", "x"]) + "\n" + json.dumps(["d e", "d\ne f"]) + "\n")
    nb2 = tmp_path / "nb2.jsonl"
    nb2.write_text(json.dumps(["x", "a b c"]) + "\n" + json.dumps(["d\ne f", "d e f"]) + "\n")
    rc, o, err = run_here("nbest", str(nb2), "-r", str(refs), "--tok", "none", "-m", "wer", "--write-selections", str(out))
    assert rc == 3 and "1-best" in err and "segment 2" in one_line(err)
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"] and leftovers(tmp_path) == []
    nb2.write_text(json.dumps(["x", "a b c"]) + "\n" + json.dumps(["d e", "d e f"]) + "\n")
    rc, o, err = run_here("nbest", str(nb2), "-r", str(refs), "--tok", "none", "-m", "wer", "--oracle", "wer",
                     "--write-selections", str(out))
    assert rc == 0, err
    names = sorted(p.name for p in out.iterdir())
    assert "mine.txt" in names and (out / "mine.txt").read_text() == "not ours\n"
    for n in names:
        if n != "mine.txt":
            assert (out / n).read_text().count("\n") == 2
    rc, o, err = run_here("nbest", str(nb2), "-r", str(refs), "--tok", "none", "--write-selections", str(out / "mine.txt"))
    assert rc == 5 and "exists and is not a folder" in one_line(err)


def test_save_stats_rules_and_mixed_rescore(corpus):
    pytest.importorskip("pyarrow")
    tmp, ref, a, b = corpus
    st = tmp / "st"
    rc, _, err = run("score", "-r", ref, "-i", a, b, "-m", "bleu", "chrf", "--save-stats", str(st))
    assert rc == 0, err
    first = sorted(p.name for p in st.iterdir())
    assert len(first) == 2
    rc, _, err = run_here("score", "-r", ref, "-i", a, "-m", "bleu", "--save-stats", str(st))  # replaces the old set
    assert rc == 0, err
    assert sorted(p.name for p in st.iterdir()) == [first[0]]
    (st / "notes.txt").write_text("mine\n")
    rc, _, err = run_here("score", "-r", ref, "-i", a, "-m", "bleu", "--save-stats", str(st))
    assert rc == 5 and "holds other files (notes.txt)" in one_line(err)
    rc, _, err = run_here("score", "-r", ref, "-i", a, "--save-stats", str(tmp / "no" / "st"))  # checked before the work
    assert rc == 5 and "parent folder does not exist" in one_line(err)
    os.unlink(st / "notes.txt")
    # a folder mixed from two runs: copy one file of another run in
    other = tmp / "other"
    rc, _, err = run_here("score", "-r", ref, "-i", a, b, "-m", "bleu", "chrf", "--save-stats", str(other))
    assert rc == 0, err
    os.replace(sorted(other.iterdir())[1], st / "01-chrF.parquet")
    rc, out, err = run_here("rescore", str(st))
    assert rc == 3 and out == "" and "statistics files from different runs" in one_line(err)
    assert leftovers(tmp) == []


# --- signals and interrupts ---------------------------------------------------------------------
@pytest.mark.parametrize("cmd", [["score", "-j", "2"], ["compare", "-j", "2"], ["score", "-j", "1"]])
def test_ctrl_c_during_work_is_one_line_exit_130(corpus, cmd):
    tmp, ref, a, b = corpus
    rc, out, err = run(*cmd, "-r", ref, "-i", a, b, "--chunk-size", "20", env={"MTSCORE_TEST_FAULT": "partition"})
    assert rc == 130 and out == "" and one_line(err) == "mtscore: interrupted"


def test_ctrl_c_to_the_process_group_reaches_workers_quietly(corpus):
    """As in a terminal: SIGINT to the whole group, worker processes included; still one line."""
    tmp, ref, a, b = corpus
    rc, out, err = run("score", "-j", "2", "-r", ref, "-i", a, b, "--chunk-size", "10",
                       env={"MTSCORE_TEST_FAULT": "partition:sigint-group"}, new_session=True)
    assert rc == 130 and one_line(err) == "mtscore: interrupted"


def test_sigterm_cleans_up_and_exits_143(corpus):
    tmp, ref, a, b = corpus
    target = tmp / "r.html"
    target.write_text("old\n")
    rc, out, err = run("report", "-r", ref, "-i", a, "--resamples", "10", "-o", str(target),
                       env={"MTSCORE_TEST_FAULT": "write:sigterm"})
    assert rc == 143 and one_line(err) == "mtscore: terminated"
    assert target.read_text() == "old\n" and leftovers(tmp) == []
    rc, out, err = run("report", "-r", ref, "-i", a, "--resamples", "10", "-o", str(target),
                       env={"MTSCORE_TEST_FAULT": "write:sigint"})
    assert rc == 130 and target.read_text() == "old\n" and leftovers(tmp) == []


def test_ctrl_c_while_the_cli_is_imported_is_one_line_exit_130(tmp_path):
    """The entry point (mtscore.cli.entry) catches Ctrl-C before mtscore.cli.main and its imports load;
    the hook interrupts the import of mtscore.cli.main itself. Both entry points: -m and the console script."""
    fault = {"MTSCORE_TEST_FAULT": "import"}
    rc, out, err = run("score", "--help", env=fault)
    assert rc == 130 and out == "" and one_line(err) == "mtscore: interrupted"
    e = dict(os.environ, PYTHONPATH=str(ROOT / "src"), **fault)
    script = "import sys; from mtscore.cli.entry import main; sys.exit(main())"  # what pip's console script runs
    p = subprocess.run([sys.executable, "-c", script, "score", "--help"], capture_output=True, env=e, timeout=120)
    assert p.returncode == 130 and one_line(p.stderr.decode()) == "mtscore: interrupted"
    text = (ROOT / "pyproject.toml").read_text()
    assert 'mtscore = "mtscore.cli.entry:main"' in text
    # `import mtscore` (which runs before the entry point) loads nothing heavy: the public names are lazy
    code = "import sys, mtscore; assert not {'numpy', 'numba', 'mtscore.cli.main'} & set(sys.modules); print(mtscore.BLEU.__name__)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, env=e, timeout=120)
    assert p.returncode == 0 and p.stdout.decode().strip() == "BLEU", p.stderr.decode()


def test_worker_error_names_the_partition():
    from mtscore.backends.local import ordered_map
    from mtscore.errors import MtscoreError
    with pytest.raises(MtscoreError, match=r"partition 2 failed \(ZeroDivisionError"):
        list(ordered_map(_inverse, [1, 0, 2], jobs=2))


def _inverse(x):
    return 1 / x


# --- meta: one missing-value policy, explicit exclusion rules ----------------------------------------
@pytest.fixture
def meta_files(tmp_path):
    import random
    rng = random.Random(1)
    ref = [f"the cat sat on the mat number {i} today" for i in range(20)]
    (tmp_path / "ref.txt").write_text("\n".join(ref) + "\n")
    lines = []
    for k, n in enumerate(["sysA", "sysB", "refC", "sysD"]):
        hyp = [" ".join(w for w in r.split() if rng.random() > 0.1 * k) for r in ref]
        (tmp_path / f"{n}.txt").write_text("\n".join(hyp) + "\n")
        lines += [f"{n}\t{100 - 10 * k + rng.random() * 5:.3f}" for _ in ref]
    return tmp_path, lines


def _meta(tmp, human_lines, *extra, run=run):
    (tmp / "human.seg").write_text("\n".join(human_lines) + "\n")
    return run("meta", "-r", str(tmp / "ref.txt"), "-i", *(str(tmp / f"{n}.txt") for n in ("sysA", "sysB", "refC", "sysD")),
               "--human-file", str(tmp / "human.seg"), *extra)


@pytest.mark.parametrize("bad", ["inf", "-inf", "1e999", "nan", "NaN", "-1e400", "Infinity"])
def test_human_readers_refuse_nonfinite_scores(tmp_path, bad):
    from mtscore.errors import InputError
    from mtscore.meta import human as H
    cases = {"mtme": ("a\t1\na\t{}\n", lambda p: H.read_mtme_seg(p, 2), 2),
             "tsv": ("a\t1\t2\na\t2\t{}\n", lambda p: H.read_plain_tsv(p, 2), 2),
             "scored": ("system\tseg_id\tscore\na\t1\t{}\n", lambda p: H.read_scored_tsv(p, 1), 2),
             "da": ("SYS SID RAW.SCR Z.SCR N\na 1 50 {} 1\n", lambda p: H.read_wmt_da(p, 1), 2)}
    for kind, (text, reader, line) in cases.items():
        f = tmp_path / kind
        f.write_text(text.format(bad))
        with pytest.raises(InputError, match=rf"{kind}:{line}: score '{bad}' is not a finite number"):
            reader(f)


def test_meta_nonfinite_human_score_is_an_error_naming_file_and_line(meta_files):
    tmp, lines = meta_files
    lines = list(lines)
    lines[6] = "sysA\t1e999"
    rc, out, err = _meta(tmp, lines)
    assert rc == 3 and out == "" and "human.seg:7: score '1e999' is not a finite number" in one_line(err)
    rc, out, err = _meta(tmp, lines, "--non-finite", "missing", "--level", "seg", run=run_here)
    assert rc == 0, err
    assert "--non-finite missing: 1 nan/inf value read as missing" in out and "1 of 80 segment scores missing" in out


def test_meta_unrated_system_is_left_out_by_a_stated_rule(meta_files):
    tmp, lines = meta_files
    clean_rc, clean_out, _ = _meta(tmp, lines, run=run_here)
    # refC.txt given with -i is a system: the ref* rule belongs to mt-metrics-eval's --data layout
    assert clean_rc == 0 and "4 systems" in clean_out and "human translations" not in clean_out
    lines = [(ln.split("\t")[0] + "\tNone") if ln.startswith("sysD") else ln for ln in lines]
    rc, out, err = _meta(tmp, lines, run=run_here)
    assert rc == 0, err
    assert "sys-level, 3 systems" in out and "left out, no human score (every value None): sysD" in out


def test_mtme_reader_policy(tmp_path):
    from mtscore.io.values import nonfinite_as_missing
    from mtscore.io.wmt import read_seg_scores
    f = tmp_path / "x.seg.score"
    f.write_text("a\t1.5\na\tNone\nb\tinf\nb\t2\n")
    with pytest.raises(Exception, match=r"x.seg.score:3: score 'inf' is not a finite number"):
        read_seg_scores(f, 2)
    with nonfinite_as_missing() as pol:
        assert read_seg_scores(f, 2) == {"a": [1.5, None], "b": [None, 2.0]}
    assert pol.counts == {str(f): 1}


# --- readers: one line naming the file (and the line where there is one) ------------------------------
def test_nbest_jsonl_hostile_numbers_and_nesting(tmp_path):
    from mtscore.errors import InputError
    from mtscore.search.nbest import read_jsonl_nbest, read_moses_nbest
    cases = {
        "digits": ('[{"text": "a", "score": ' + "9" * 5000 + "}]", "invalid JSON"),
        "bigint": ('[{"text": "a", "score": ' + "9" * 400 + "}]", "'score' must be a finite number"),
        "nested": ("[" * 100000 + "]" * 100000, "invalid JSON (nested too deeply)"),
        "inf": ('[{"text": "a", "score": Infinity}]', "'score' must be a finite number, got inf"),
        "huge": ('[{"text": "a", "score": 1e999}]', "'score' must be a finite number, got inf"),
    }
    for name, (line, msg) in cases.items():
        f = tmp_path / f"{name}.jsonl"
        f.write_text(line + "\n")
        with pytest.raises(InputError) as ei:
            read_jsonl_nbest(f)
        assert msg in str(ei.value) and f"{name}.jsonl:1:" in str(ei.value)
    f = tmp_path / "m.txt"
    for score, msg in (("inf", "must be a finite number, got 'inf'"), ("1e999", "must be a finite number"),
                       ("nan", "must be a finite number")):
        f.write_text(f"0 ||| a b ||| lm= -1 ||| {score}\n")
        with pytest.raises(InputError, match=f"m.txt:1: total score: {msg}"):
            read_moses_nbest(f)
    f.write_text("99999999999 ||| a ||| lm= 1 ||| 1\n")
    with pytest.raises(InputError, match="larger than"):
        read_moses_nbest(f)


def test_rose_model_file_faults(tmp_path):
    from mtscore.errors import InputError
    from mtscore.rose.model import load_model
    good = json.loads((Path(__file__).resolve().parents[2] / "src/mtscore/data/rose/rose-reg.json").read_text())
    with pytest.raises(InputError, match="is a directory"):
        load_model(tmp_path)
    for field, value, msg in (("training", [1], "'training' must be an object"), ("name", 5, "'name' must be a string"),
                              ("intercept", 10 ** 400, "'intercept' must be a finite number"),
                              ("weights", ["x"] * len(good["weights"]), "'weights' must be a list of numbers")):
        d = dict(good, **{field: value})
        f = tmp_path / f"{field}.json"
        f.write_text(json.dumps(d))
        with pytest.raises(InputError, match=msg):
            load_model(f)
    f = tmp_path / "deep.json"
    f.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(InputError, match="nested too deeply"):
        load_model(f)
    f = tmp_path / "bad.json"
    f.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InputError, match="invalid UTF-8"):
        load_model(f)


@pytest.mark.parametrize("streamed", [False, True])
def test_gzip_and_utf8_messages(tmp_path, streamed):
    import gzip as gz

    from mtscore.errors import InputError
    from mtscore.io.stream import LineReader
    from mtscore.io.text import read_lines

    def read(p):
        return list(LineReader(str(p))) if streamed else read_lines(p)
    data = gz.compress(b"a b\nc d\n" * 100)
    (tmp_path / "trunc.gz").write_bytes(data[:len(data) // 2])
    (tmp_path / "plain.gz").write_bytes(b"not gzip\n")
    bad = bytearray(data)
    bad[-6] ^= 0xFF  # the CRC / size trailer
    (tmp_path / "crc.gz").write_bytes(bytes(bad))
    (tmp_path / "u.txt").write_bytes(b"ok\nok\nab \xff cd\n")
    for name, msg in (("trunc.gz", r"trunc.gz: the gzip data ends early"), ("plain.gz", r"plain.gz: not a gzip file"),
                      ("crc.gz", r"crc.gz: corrupt gzip data"),
                      ("u.txt", r"u.txt:3: invalid UTF-8 \(byte 0xff at byte offset 9\)")):
        with pytest.raises(InputError, match=msg) as ei:
            read(tmp_path / name)
        assert not re.search(r"\.gz:\d", str(ei.value))  # no meaningless line number for gzip errors


def test_long_line_under_a_memory_limit_is_one_line(tmp_path):
    """A 50 MB line with the address space limited to what the process uses plus 60 MB."""
    f = tmp_path / "long.txt"
    with open(f, "w") as fh:
        fh.write("short\n")
        fh.write(("alpha beta gamma " * 3_000_000)[:50_000_000] + "\n")
    (tmp_path / "ref.txt").write_text("short\nalpha\n")
    code = ("import resource, sys\n"
            "import mtscore.cli.main as M, mtscore.cli.score, numpy, mtscore.metrics.bleu\n"
            # the parser imports the metric modules (scipy among them): done before the limit, so that the
            # limit meets the long line and not an import under memory pressure (which thrashes)
            "M.build_parser(sys.argv[1:])\n"
            "vm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmSize')][0] * 1024\n"
            "lim = vm + (60 << 20)\n"
            "resource.setrlimit(resource.RLIMIT_AS, (lim, lim))\n"
            "sys.exit(M.main(sys.argv[1:]))\n")
    p = subprocess.run([sys.executable, "-c", code, "score", "-r", str(tmp_path / "ref.txt"), "-i", str(f), "-j", "1"],
                       capture_output=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    err = p.stderr.decode()
    assert p.returncode in (1, 3) and p.stdout == b"", err
    assert "long.txt:2: line too long for the memory available" in one_line(err) or "out of memory" in err


# --- wording --------------------------------------------------------------------------------------------
def test_counts_in_messages_agree_in_number(tmp_path):
    """'1 segment', never '1 segments': the one helper, the n-best notes and errors, and no message template
    in the package that prints a count before a plural noun without it."""
    from mtscore.errors import plural
    assert [plural(1, "segment"), plural(0, "segment"), plural(2, "entry", "entries")] == \
        ["1 segment", "0 segments", "2 entries"]
    (tmp_path / "r2.txt").write_text("a b c\nd e\n")
    (tmp_path / "nb.jsonl").write_text('["a b c"]\n')
    rc, _, err = run("nbest", str(tmp_path / "nb.jsonl"), "-r", str(tmp_path / "r2.txt"))
    assert rc == 3 and one_line(err).endswith("nb.jsonl: 1 candidate list for 2 reference segments")
    (tmp_path / "nb2.jsonl").write_text('[]\n["d e"]\n')
    rc, out, err = run("nbest", str(tmp_path / "nb2.jsonl"), "-r", str(tmp_path / "r2.txt"))
    assert rc == 0 and "1 of 2 segments has no candidates (ids 0)" in out, err
    # a static check of the sources: "{<count>} segments" written without plural() (words that follow a
    # count; a name such as "{s} segments" -- s a system -- is not a count)
    nouns = "segments|lines|systems|files|candidates|labels|values|words|tokens|fields|columns|resamples|runs|bytes"
    pat = re.compile(r"\{(len\([^{}]*\)|n|n_\w+|\w+\.n_\w+|k|N|blocks|size)\} (?:[a-z-]+ )?(?:" + nouns + r")\b")
    bad = []
    for p in (ROOT / "src" / "mtscore").rglob("*.py"):
        if p.parent.name in ("compat", "sacrebleu"):  # sacreBLEU's own words, kept for parity
            continue
        for i, ln in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if pat.search(ln):
                bad.append(f"{p.relative_to(ROOT)}:{i}: {ln.strip()}")
    assert not bad, "\n".join(bad)


def test_audit_deletion_on_an_empty_reference_names_the_file(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    rc, out, err = run("audit", "deletion", "-r", str(empty))
    assert rc == 3 and out == ""
    assert one_line(err) == f"mtscore: error: {empty}: the file is empty: the deletion test needs at least one segment"
    from mtscore.analysis.deletion import deletion_test
    from mtscore.errors import InputError, InvalidParameterError
    from mtscore.metrics.registry import get_metric
    with pytest.raises(InputError, match="at least one segment"):
        deletion_test([], [get_metric("bleu")])
    with pytest.raises(InvalidParameterError, match="at least one reference"):
        deletion_test([[], []], [get_metric("bleu")])


def test_analyse_empty_buckets_are_dash_with_count_0_and_json_null(tmp_path):
    ref = ["the cat sat on the mat", "hello world", "a b c d e f g h i j k l"]
    (tmp_path / "r.txt").write_text("\n".join(ref) + "\n")
    (tmp_path / "a.txt").write_text("the cat sat\nhello world\na b c d e f g h\n")
    files = ["-r", str(tmp_path / "r.txt"), "-i", str(tmp_path / "a.txt"), "--resamples", "10"]
    rc, out, err = run("analyse", "lengths", *files, "-f", "json")
    assert rc == 0, err
    table = json.loads(out)["tables"][0]
    segs, score, ci = table["columns"][1:4]
    rows = table["rows"]
    want = [sum(1 for r in ref if lo <= len(r.split()) < hi) for lo, hi in
            ((0, 10), (10, 20), (20, 30), (30, 40), (40, 50), (50, 60), (60, 10 ** 9))]  # plain-Python buckets
    assert [row[segs] for row in rows] == want == [2, 1, 0, 0, 0, 0, 0]
    for row, n in zip(rows, want):
        assert (row[score] is None) == (n == 0) and (row[ci] is None) == (n == 0)
    rc, out, err = run_here("analyse", "lengths", *files)
    assert rc == 0 and not re.search(r"\bnan\b", out) and "- = an empty bucket (0 segments): no score" in out
    assert re.search(r"^\[20,30\)\s+0\s+-\s+-$", out, re.M), out
    rc, out, err = run_here("analyse", "words", *files, "-f", "json")
    table = json.loads(out)["tables"][0]
    hyp_words = table["hyp_words"][0]
    assert any(row["ref words"] == 0 and hyp_words[b] == 0 for b, row in enumerate(table["rows"]))
    for b, row in enumerate(table["rows"]):
        assert (row[table["columns"][2]] is None) == (row["ref words"] == 0 and hyp_words[b] == 0)


def test_compare_unbounded_difference_interval_is_dash_not_inf(corpus):
    """With 2 resamples no difference can be excluded: the interval is unbounded; the table prints - with a
    note (JSON null), never inf."""
    tmp, ref, a, b = corpus
    rc, out, err = run("compare", "-r", ref, "-i", a, b, "--resamples", "2")
    assert rc == 0, err
    assert not re.search(r"(?<![A-Za-z])(nan|inf)(?![A-Za-z])", out) and "delta_low/high -: unbounded" in out
    rc, out, err = run_here("compare", "-r", ref, "-i", a, b, "--resamples", "2", "-f", "json")
    rows = json.loads(out)["tables"][0]["rows"] if "tables" in json.loads(out) else json.loads(out)["rows"]
    assert rows[1]["delta_low"] is None and rows[1]["delta_high"] is None
    rc, out, err = run_here("compare", "-r", ref, "-i", a, b, "--resamples", "200", "-f", "json")
    rows = json.loads(out)["tables"][0]["rows"] if "tables" in json.loads(out) else json.loads(out)["rows"]
    assert rows[1]["delta_low"] < rows[1]["delta"] < rows[1]["delta_high"]  # bounded with enough resamples


@pytest.mark.parametrize("fmt", ["auto", "plf"])
def test_lattice_input_from_a_fifo_is_read_once(tmp_path, fmt):
    """`lattice` read its file twice with the format 'auto' (once to see the format): a FIFO hung."""
    import threading
    (tmp_path / "ref.txt").write_text("the cat sat\nhello world\n")
    data = "((('the',0,1),),(('cat',0,1),),(('sat',0,1),),)\n((('hello',0,1),),(('world',0,1),),)\n"
    (tmp_path / "lat.plf").write_text(data)
    want = run("lattice", str(tmp_path / "lat.plf"), "-r", str(tmp_path / "ref.txt"), "--lattice-format", fmt)
    assert want[0] == 0, want[2]
    fifo = tmp_path / "lat.fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as fh:
            fh.write(data)
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    try:
        got = run("lattice", str(fifo), "-r", str(tmp_path / "ref.txt"), "--lattice-format", fmt)
    finally:
        if t.is_alive():  # the reader never came back for the data: unblock the writer
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    assert got[0] == 0 and got[1].replace(str(fifo), "X") == want[1].replace(str(tmp_path / "lat.plf"), "X"), got[2]
