"""The one output writer, through a real shell: outputs never destroy inputs, never replace a
read-only file, and are written *through* /dev/stdout, /dev/stderr, pipes and process substitutions, keeping
what was printed before (docs/input.md, "Outputs"). Every writing command x every class runs in process in
tests/contracts/test_fault_sweep.py; these are the shell forms of the issue, which need real file descriptors."""
from __future__ import annotations

import gzip
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mtscore.errors import OutputError
from mtscore.io import output as O

ROOT = Path(__file__).resolve().parents[2]
BASH = shutil.which("bash")


def sh(cmd: str, cwd: Path, timeout=120):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["MTSCORE"] = f"{sys.executable} -m mtscore"
    p = subprocess.run([BASH, "-c", cmd], cwd=cwd, env=env, capture_output=True, timeout=timeout)
    assert b"Traceback" not in p.stderr, p.stderr.decode(errors="replace")
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


@pytest.fixture
def work(tmp_path):
    (tmp_path / "ref.txt").write_text("the cat sat on the mat\nthere is a dog\nhello world\n" * 5)
    (tmp_path / "a.txt").write_text("the cat sat on a mat\nthere is the dog\nhello there world\n" * 5)
    (tmp_path / "b.txt").write_text("a cat sat on the mat\nhere is a dog\nhello world\n" * 5)
    return tmp_path


REPORT = "$MTSCORE report -r ref.txt -i a.txt b.txt --resamples 20 --no-explore"
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash (process substitution)")


def test_dev_stdout_into_a_file_keeps_earlier_text(work):
    rc, _, err = sh(f"(echo before; {REPORT} -o /dev/stdout) > out.txt", work)
    assert rc == 0, err
    text = (work / "out.txt").read_text()
    assert text.startswith("before\n<!DOCTYPE html>") and "report written to /dev/stdout" in text


def test_dev_stderr_appends_to_the_log(work):
    (work / "log").write_text("old log line\n")
    rc, out, err = sh(f"{REPORT} -o /dev/stderr 2>>log", work)
    assert rc == 0
    log = (work / "log").read_text()
    assert log.startswith("old log line\n<!DOCTYPE html>"), log[:200]


def test_dev_stdout_into_a_pipe(work):
    rc, out, err = sh(f"{REPORT} -o /dev/stdout | gzip > out.gz; exit ${{PIPESTATUS[0]}}", work)
    assert rc == 0, err
    assert gzip.decompress((work / "out.gz").read_bytes()).startswith(b"<!DOCTYPE html>")


def test_process_substitution(work):
    rc, out, err = sh(f"{REPORT} -o >(gzip > f.gz) >/dev/null; rc=$?; wait; sleep 0.2; exit $rc", work)
    assert rc == 0, err
    for _ in range(50):
        data = (work / "f.gz").read_bytes() if (work / "f.gz").exists() else b""
        try:
            if gzip.decompress(data).rstrip().endswith(b"</html>"):
                break
        except (EOFError, OSError):
            pass
        import time
        time.sleep(0.1)
    assert gzip.decompress((work / "f.gz").read_bytes()).startswith(b"<!DOCTYPE html>")


def test_same_file_as_stdout(work):
    rc, _, err = sh(f"{REPORT} -o out.txt > out.txt", work)
    assert rc == 0, err
    text = (work / "out.txt").read_text()
    assert text.startswith("<!DOCTYPE html>") and "report written to out.txt" in text


@pytest.mark.parametrize("victim", ["a.txt", "ref.txt", "labels.txt"])
def test_an_input_is_never_replaced(work, victim):
    (work / "labels.txt").write_text("x\ny\nz\n" * 5)
    before = (work / victim).read_bytes()
    rc, _, err = sh(f"{REPORT} --labels labels.txt -o {victim}", work)
    assert rc == 5 and "one of this run's inputs" in err and len(err.strip().splitlines()) == 1, err
    assert (work / victim).read_bytes() == before


def test_a_hard_link_to_an_input_is_the_input(work):
    os.link(work / "a.txt", work / "same.html")
    rc, _, err = sh(f"{REPORT} -o same.html", work)
    assert rc == 5 and "one of this run's inputs (read as a.txt)" in err, err


def test_read_only_file_is_not_replaced(work):
    p = work / "old.html"
    p.write_text("keep me")
    p.chmod(0o444)
    rc, _, err = sh(f"{REPORT} -o old.html", work)
    assert rc == 5 and "read-only" in err, err
    assert p.read_text() == "keep me"


def test_non_utf8_output_name(work):
    name = os.fsdecode(b"r\xff.html")
    rc, out, err = sh(f"{REPORT} -o $'r\\xff.html'", work)
    assert rc == 0, err
    assert (work / name).read_bytes().startswith(b"<!DOCTYPE html>")
    rc, out, err = sh(f"{REPORT} -o $'nodir\\xff/r.html'", work)
    assert rc == 5 and len(err.strip().splitlines()) == 1, err


# --- the library rules -----------------------------------------------------------------------------
def test_fd_of_path():
    assert O.fd_of_path("/dev/stdout") == 1
    assert O.fd_of_path("/dev/stderr") == 2
    assert O.fd_of_path("/dev/fd/7") == 7
    assert O.fd_of_path(f"/proc/{os.getpid()}/fd/5") == 5
    assert O.fd_of_path("/proc/self/fd/3") == 3
    assert O.fd_of_path("/dev/null") is None
    assert O.fd_of_path("out.html") is None


def test_symlink_to_dev_stdout(tmp_path, capsys):
    link = tmp_path / "link"
    link.symlink_to("/dev/stdout")
    print("first", end="\n")
    O.write_text(str(link), "second\n")
    assert capsys.readouterr().out == "first\nsecond\n"
    assert link.is_symlink()


def test_registered_input_refused_before_and_after(tmp_path):
    p = tmp_path / "in.txt"
    p.write_text("data\n")
    O.reset_inputs()
    try:
        from mtscore.io.text import read_lines
        read_lines(str(p))
        with pytest.raises(OutputError, match="one of this run's inputs"):
            O.check_writable(str(p))
        with pytest.raises(OutputError, match="one of this run's inputs"):
            O.write_text(str(p), "x")
        with O.OutputSet(tmp_path) as out, pytest.raises(OutputError, match="one of this run's inputs"):
            out.add("in.txt", "x")
        assert p.read_text() == "data\n"
    finally:
        O.reset_inputs()


def test_read_only_refused_keeps_mode(tmp_path):
    p = tmp_path / "ro.txt"
    p.write_text("old")
    p.chmod(0o444)
    with pytest.raises(OutputError, match="read-only"):
        O.write_text(str(p), "new")
    assert p.read_text() == "old" and stat.S_IMODE(p.stat().st_mode) == 0o444
