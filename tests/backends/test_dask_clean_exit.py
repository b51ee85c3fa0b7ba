"""``score --backend dask`` with its own LocalCluster leaves nothing behind: no worker output on stderr, even after
mtscore has exited (the pipe is read to its end, so a worker that outlives mtscore and prints is seen), and no
dask-scratch-space (or any other file) in $TMPDIR: the scratch space is a folder of its own, removed at exit."""
from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from conftest import ROOT

distributed = pytest.importorskip("distributed")


def test_the_worker_preload_silences_the_worker_loggers():
    """A worker that outlives the scheduler logs a failed heartbeat at ERROR with a traceback: silenced."""
    from mtscore.backends import _dask_worker
    saved = {n: logging.getLogger(n).level for n in _dask_worker.QUIET_LOGGERS}
    try:
        _dask_worker.dask_setup(None)
        for name in ("distributed", "distributed.worker", "tornado.application", "asyncio"):
            assert not logging.getLogger(name).isEnabledFor(logging.CRITICAL), name
    finally:
        for n, level in saved.items():
            logging.getLogger(n).setLevel(level)


@pytest.mark.parametrize("run_no", [1, 2])
def test_score_with_dask_exits_cleanly(tmp_path, run_no):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\nthere is a dog\nhello world\n" * 40, encoding="utf-8")
    hyp.write_text("the cat sat on a mat\nthere is one dog\nhello there world\n" * 40, encoding="utf-8")
    env = dict(os.environ, TMPDIR=str(tmpdir), PYTHONPATH=str(ROOT / "src") + os.pathsep +
               os.environ.get("PYTHONPATH", ""))
    env.pop("MTSCORE_TEST_FAULT", None)
    env.pop("DASK_TEMPORARY_DIRECTORY", None)
    # stdout and stderr are read until every process holding them (the workers too) has closed them
    p = subprocess.run([sys.executable, "-m", "mtscore", "score", "-r", str(ref), "-i", str(hyp), "--backend", "dask",
                        "--dask-workers", "2", "--chunk-size", "40", "-q"], capture_output=True, env=env, timeout=300)
    err = p.stderr.decode()
    assert p.returncode == 0, err
    assert "hyp" in p.stdout.decode()
    assert err == "", err
    assert sorted(x.name for x in tmpdir.iterdir()) == [], "left in $TMPDIR"
