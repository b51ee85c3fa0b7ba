"""Ctrl-C during a long compiled kernel: the kernels are called in chunks, so SIGINT is handled
between two chunks and the CLI prints ``mtscore: interrupted`` and exits 130. No timing assertion: the test
waits until the process has spent CPU time in the scoring (imports done), sends SIGINT, and only checks the
outcome (a generous timeout guards against a hang)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from mtscore import ckernels


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(ckernels._cmetrics is None or not os.path.exists("/proc/self/stat"),
                    reason="needs the compiled extension and /proc")
def test_ctrl_c_during_ter_kernel(tmp_path):
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(40)])
    n = 20000  # long segments: TER takes minutes here, far longer than the wait below
    hyp = "\n".join(" ".join(rng.choice(words, 120)) for _ in range(n)) + "\n"
    ref = "\n".join(" ".join(rng.choice(words, 120)) for _ in range(n)) + "\n"
    (tmp_path / "h.txt").write_text(hyp, encoding="utf-8")
    (tmp_path / "r.txt").write_text(ref, encoding="utf-8")
    p = subprocess.Popen([sys.executable, "-m", "mtscore", "score", "-q", "-m", "ter", "--threads", "1",
                          "-r", str(tmp_path / "r.txt"), "-i", str(tmp_path / "h.txt")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while p.poll() is None and _cpu_seconds(p.pid) < 3.0:  # imports + reading take well under 3 CPU s
            time.sleep(0.05)
        assert p.poll() is None, "finished before the interrupt: make the input larger"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err[-2000:]
    assert err.strip().splitlines()[-1] == "mtscore: interrupted"
    assert "Traceback" not in err and out == ""
