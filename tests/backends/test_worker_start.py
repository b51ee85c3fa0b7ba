"""SIGTERM and Ctrl-C while ``--jobs 2`` starts its worker processes (backends/_workers.py): the run ends with
its one line and exit code, no worker prints a traceback (the FileNotFoundError of a worker that opened the pool's
semaphores after the parent had gone), and no worker outlives the run.

Deterministic: the test hook ``worker-start`` (mtscore/_testhooks.py) sends the signal at the unsafe moment itself,
after a worker process was started and before the pool recorded it, for the first and the second worker."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANG = 120  # a guard against a run that never ends (a lingering worker holds the pipe open), not a timing claim


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    d = tmp_path_factory.mktemp("jobs")
    words = "the cat sat on a mat dog ran far away hello world".split()
    for k, name in enumerate(("ref", "a", "b")):
        lines = [" ".join(words[(i * 7 + j * 3 + k) % len(words)] for j in range(8)) for i in range(45_000)]
        (d / f"{name}.txt").write_text("\n".join(lines) + "\n")
    return d


def _session_alive(sid: int) -> list[int]:
    """Processes still in the session ``sid`` (the run and everything it started)."""
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if os.getsid(int(p.name)) == sid:
                    out.append(int(p.name))
            except OSError:
                pass
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see the run's processes")
@pytest.mark.parametrize("fault", ["worker-start:sigterm:1", "worker-start:sigterm:2", "worker-start:sigint:1"])
def test_signal_while_workers_start(texts, fault):
    env = dict(os.environ, MTSCORE_TEST_FAULT=fault)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.Popen([sys.executable, "-m", "mtscore", "score", "-r", "ref.txt", "-i", "a.txt", "b.txt",
                          "--jobs", "2"], cwd=texts, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"{fault}: the run or one of its workers did not end")
    # the pipes closed: every process that held them (the run, the forkserver, each worker) has ended
    left = _session_alive(p.pid)
    for _ in range(HANG * 10):
        if not left:
            break
        time.sleep(0.1)
        left = _session_alive(p.pid)
    if left:
        os.killpg(p.pid, signal.SIGKILL)
    text = err.decode(errors="replace")
    assert "Traceback" not in text and "Error" not in text, text
    assert p.returncode == (143 if "sigterm" in fault else 130), (p.returncode, text)
    assert text.strip() in ("mtscore: terminated", "mtscore: interrupted"), text
    assert not left, f"{fault}: processes left: {left}"
    assert out == b""
