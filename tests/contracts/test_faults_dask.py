"""Dask faults: bad addresses, silent or foreign peers, zero and lost workers, Ctrl-C. Every case
ends in a bounded time with one line. Servers are started by the test on 127.0.0.1 only. About 40 s."""
from __future__ import annotations

import os
import socket
import threading

import pytest

from mtscore.backends.dask_backend import MemoryShard, connect, probe_scheduler, run_job_dask
from mtscore.backends.local import CorpusJob, run_job
from mtscore.errors import InvalidParameterError, MtscoreError
from mtscore.metrics.registry import get_metric_class

from test_faults import corpus, one_line, run  # noqa: F401  (fixture)

distributed = pytest.importorskip("distributed")


class FakeServer:
    """A TCP server on 127.0.0.1 that accepts and then stays silent, or sends ``greeting`` and waits."""

    def __init__(self, greeting: bytes | None = None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.greeting = greeting
        self.conns = []
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            if self.greeting is not None:
                try:
                    c.sendall(self.greeting)
                except OSError:
                    pass

    def close(self):
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.mark.parametrize("address", ["notanaddress", "tcp://127.0.0.1", "tcp://127.0.0.1:0", "tcp://127.0.0.1:99999",
                                     "http://127.0.0.1:8787", "", "tcp://:80", "inproc://x", "inproc://1.2.3.4/5/6"])
def test_bad_scheduler_addresses_are_parameter_errors(address):
    with pytest.raises(InvalidParameterError, match="--scheduler"):
        connect(address)


@pytest.mark.parametrize("workers", [0, -1])
def test_zero_or_negative_workers(workers, corpus):
    with pytest.raises(InvalidParameterError, match=r"--dask-workers: must be an integer in 1\.\.256, got -?\d"):
        connect(None, workers)
    tmp, ref, a, b = corpus
    rc, out, err = run("score", "-r", ref, "-i", a, "--backend", "dask", "--dask-workers", str(workers))
    assert rc == 2 and out == "" and "--dask-workers" in one_line(err)


def test_silent_and_foreign_peers_end_in_bounded_time(corpus):
    silent = FakeServer()
    http = FakeServer(b"HTTP/1.0 400 Bad Request\r\n\r\n")
    try:
        with pytest.raises(MtscoreError, match="accepted the connection but said nothing in 1 s"):
            probe_scheduler(f"tcp://127.0.0.1:{silent.port}", timeout=1)
        with pytest.raises(MtscoreError, match="does not speak the Dask protocol"):
            probe_scheduler(f"tcp://127.0.0.1:{http.port}", timeout=1)
        tmp, ref, a, b = corpus
        rc, out, err = run("score", "-r", ref, "-i", a, "--backend", "dask", "--scheduler", f"127.0.0.1:{http.port}")
        assert rc == 1 and out == "" and "does not speak the Dask protocol" in one_line(err)
    finally:
        silent.close()
        http.close()
    # a port nobody listens on
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(MtscoreError, match="cannot connect to the Dask scheduler"):
        probe_scheduler(f"tcp://127.0.0.1:{port}", timeout=1)


def _job():
    m = get_metric_class("bleu")()
    hyps = ["the cat sat on the mat", "a dog", ""]
    refs = [["the cat sat on a mat"], ["the dog"], ["x"]]
    shards = [MemoryShard(((h,),), ((r[0],),), i) for i, (h, r) in enumerate(zip(hyps, refs))]
    return CorpusJob([m], ["sys"]), shards, [([[h]], [r]) for h, r in zip(hyps, refs)]


def test_real_scheduler_passes_the_probe_and_zero_workers_end_in_bounded_time():
    job, shards, parts = _job()
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://", dashboard_address="127.0.0.1:0",
                                  host="127.0.0.1") as cluster:
        probe_scheduler(cluster.scheduler_address, timeout=5)  # a real Dask scheduler speaks first
        with distributed.Client(cluster) as client:
            with pytest.raises(MtscoreError, match="no worker for 2 s"):
                run_job_dask(job, shards, client=client, no_worker_timeout=2)
            cluster.scale(1)
            client.wait_for_workers(1, timeout=60)
            got = run_job_dask(job, shards, client=client)
    want = run_job(job, parts)
    assert got[("sys", "BLEU")].summed.tolist() == want[("sys", "BLEU")].summed.tolist()


class _Crash:
    """A shard whose loading kills the worker process (as the OOM killer would)."""

    name = "crash-shard.txt"

    def load(self):
        os._exit(3)


def test_lost_worker_names_the_shard():
    import dask
    job, shards, _ = _job()
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address="127.0.0.1:0",
                                     host="127.0.0.1") as cluster, distributed.Client(cluster) as client:
        with pytest.raises(MtscoreError) as ei:
            run_job_dask(job, [_Crash()], client=client, retries=0, no_worker_timeout=30)
    msg = str(ei.value)
    assert "shard crash-shard.txt failed" in msg and "\n" not in msg


def test_ctrl_c_with_dask_is_one_line(corpus):
    tmp, ref, a, b = corpus
    rc, out, err = run("score", "-r", ref, "-i", a, b, "--backend", "dask", "--chunk-size", "40",
                       env={"MTSCORE_TEST_FAULT": "dask-submitted:sigint-group"}, new_session=True)
    assert rc == 130 and out == "" and one_line(err) == "mtscore: interrupted"


def test_scheduler_without_the_dask_backend_is_a_usage_error(corpus):
    tmp, ref, a, b = corpus
    for cmd in ("score", "compare"):
        rc, out, err = run(cmd, "-r", ref, "-i", a, b, "--scheduler", "tcp://127.0.0.1:1")
        assert rc == 2 and out == ""
        assert one_line(err) == "mtscore: error: --scheduler: only with --backend dask (got --backend local)"
