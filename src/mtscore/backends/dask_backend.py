"""Dask backend (``pip install 'mtscore[dask]'``): the same partition code on a Dask cluster.

Each partition is one task: it reads its own shard (text files or a Parquet/Arrow file) on the worker,
computes per-segment statistics with the same metric code as the serial backend, and returns their
sum (and the rows when they are needed). The client adds the partition sums in partition order, so
results are identical to the serial backend over the same partitions. Tasks are retried
(``retries``) when a worker dies; a task that still fails raises :class:`MtscoreError` naming the shard.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .._testhooks import fault_point
from ..errors import InputError, InvalidParameterError, MtscoreError, OptionalDependencyError
from .local import CorpusJob, partition_stats, reduce_partitions, _refcounts


def _require_dask():
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise OptionalDependencyError("the Dask backend", "distributed", "dask") from None
    return distributed


@dataclass(frozen=True)
class TextShard:
    """One partition as text files: one file per system and one per reference stream, same line count."""

    hyp_paths: tuple[str, ...]
    ref_paths: tuple[str, ...]
    strip_bom: bool = False  # a leading byte-order mark stays in segment 1 unless True (io/text.py)

    @property
    def name(self) -> str:
        return self.hyp_paths[0] if self.hyp_paths else self.ref_paths[0]

    def load(self):
        from ..io.text import count_detail, read_segments
        cols = [(p, read_segments(p, self.strip_bom)) for p in self.hyp_paths + self.ref_paths]
        if len({len(c) for _, c in cols}) > 1:
            raise InputError(f"shard files differ in line count: {count_detail((p, len(c)) for p, c in cols)}")
        k = len(self.hyp_paths)
        return [c for _, c in cols[:k]], [list(seg) for seg in zip(*(c for _, c in cols[k:]))]


@dataclass(frozen=True)
class ParquetShard:
    """One partition as a Parquet (or Arrow IPC ``.arrow``/``.feather``) file with text columns."""

    path: str
    hyp_columns: tuple[str, ...]
    ref_columns: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.path

    def load(self):
        try:
            import pyarrow.feather as feather
            import pyarrow.parquet as pq
        except ImportError:
            raise OptionalDependencyError("reading Parquet/Arrow shards", "pyarrow", "dask") from None
        try:
            if self.path.endswith((".arrow", ".feather", ".ipc")):
                table = feather.read_table(self.path)
            else:
                table = pq.read_table(self.path)
        except FileNotFoundError:
            raise InputError("no such file", self.path) from None
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(f"cannot read as Parquet/Arrow: {exc}", self.path) from None
        missing = [c for c in self.hyp_columns + self.ref_columns if c not in table.column_names]
        if missing:
            raise InputError(f"missing column(s) {', '.join(missing)}; the file has {', '.join(table.column_names)}",
                             self.path)
        cols = {}
        for c in self.hyp_columns + self.ref_columns:
            vals = table.column(c).to_pylist()
            for i, v in enumerate(vals):
                if v is not None and not isinstance(v, str):
                    raise InputError(f"column {c!r} row {i + 1}: expected text, got {type(v).__name__}", self.path)
            cols[c] = vals
        for c in self.hyp_columns:
            if any(v is None for v in cols[c]):
                i = cols[c].index(None)
                raise InputError(f"column {c!r} row {i + 1}: a hypothesis cannot be null (use an empty string)", self.path)
        hyps = [cols[c] for c in self.hyp_columns]
        refs = [[x for x in seg if x is not None] for seg in zip(*(cols[c] for c in self.ref_columns))]
        return hyps, refs


@dataclass(frozen=True)
class MemoryShard:
    """A partition shipped from the client (plain files read by the client)."""

    hyp_columns: tuple
    refs: tuple
    index: int
    side: dict | None = None  # the partition's lines of the files metrics read beside the text (neural sources=)

    @property
    def name(self) -> str:
        return f"chunk {self.index}"

    def load(self):
        return [list(c) for c in self.hyp_columns], [list(r) for r in self.refs]


def _compute_shard(shard, metrics, keep):
    from ..text.fast import kernel_threads

    hyps, refs = shard.load()
    with kernel_threads(1):  # a Dask worker runs one task per thread already
        return (partition_stats(metrics, hyps, refs, keep, side=getattr(shard, "side", None)), _refcounts(refs),
                len(refs))


PROBE_TIMEOUT = 10.0  # seconds for a scheduler to accept a connection and say hello
NO_WORKER_TIMEOUT = 60.0  # seconds a job may wait with no worker at all (none started, or all lost)
MAX_HELLO = 1 << 26  # a Dask handshake frame is small; a larger length is not the Dask protocol


def check_scheduler_address(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``tcp://host:port`` (or ``host:port``) address; None for other transports
    (tls://, ucx://, ws://), which are passed to Dask as they are. InvalidParameterError otherwise (inproc://
    too: only the process that made such an address can reach it)."""
    if not isinstance(address, str) or not address.strip():
        raise InvalidParameterError(f"--scheduler: expected an address tcp://HOST:PORT, got {address!r}")
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme != "tcp":
        if scheme == "inproc":  # an in-process address is meaningless to a new process: no cluster answers it
            raise InvalidParameterError(f"--scheduler: an inproc:// address exists only inside the Python process "
                                        f"that made it, got {address!r}; give tcp://HOST:PORT")
        if scheme in ("tls", "ucx", "ws", "wss"):
            return None
        raise InvalidParameterError(f"--scheduler: unknown transport {scheme!r} in {address!r}; "
                                    "expected tcp://HOST:PORT (or tls://, ucx://, ws://, wss://)")
    host, colon, port = rest.rstrip("/").rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidParameterError(f"--scheduler: expected an address tcp://HOST:PORT with a port in "
                                    f"1..65535, got {address!r}")
    return host, int(port)


def probe_scheduler(address: str, timeout: float = PROBE_TIMEOUT) -> None:
    """Connect to a tcp:// scheduler and read the first 8 bytes of its handshake (a Dask scheduler speaks
    first), within ``timeout`` seconds. Fails with one line for: no answer, a peer that accepts but never
    speaks, a peer that speaks another protocol (HTTP, SSH, ...) - before Dask would read a wrong frame
    length from it and try to allocate exabytes."""
    import socket
    import struct
    hp = check_scheduler_address(address)
    if hp is None:
        return
    host, port = hp
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except socket.timeout:
        raise MtscoreError(f"cannot connect to the Dask scheduler {address}: no answer in {timeout:g} s") from None
    except OSError as exc:
        raise MtscoreError(f"cannot connect to the Dask scheduler {address}: {exc.strerror or exc}") from None
    try:
        sock.settimeout(timeout)
        data = b""
        try:
            while len(data) < 8:
                got = sock.recv(8 - len(data))
                if not got:
                    break
                data += got
        except socket.timeout:
            raise MtscoreError(f"the Dask scheduler {address} accepted the connection but said nothing in "
                               f"{timeout:g} s (not a Dask scheduler?)") from None
        except OSError as exc:
            raise MtscoreError(f"cannot talk to the Dask scheduler {address}: {exc.strerror or exc}") from None
        if len(data) < 8:
            raise MtscoreError(f"the Dask scheduler {address} closed the connection without a handshake "
                               "(not a Dask scheduler?)")
        (length,) = struct.unpack("<Q", data)
        if length == 0 or length > MAX_HELLO:
            shown = data.decode("ascii", "replace") if data[:4].isascii() else data.hex()
            raise MtscoreError(f"{address} does not speak the Dask protocol (it sent {shown!r}...); "
                               "is this the scheduler's port (not its dashboard)?")
    finally:
        sock.close()


def connect(scheduler: str | None = None, n_workers: int = 2, timeout: float | None = None):
    """A ``distributed.Client``: to ``scheduler`` (``tcp://host:port``) or a new LocalCluster; ``timeout``
    (default :data:`PROBE_TIMEOUT`, read at each call) bounds the wait for a scheduler's answer."""
    if timeout is None:
        timeout = PROBE_TIMEOUT
    if scheduler is None:
        from ..params import OPTIONS, check
        n_workers = check(OPTIONS, "dask_workers", n_workers, "--dask-workers")  # the table's rule (1..256)
    if scheduler is not None:
        check_scheduler_address(scheduler)
    distributed = _require_dask()
    if scheduler:
        probe_scheduler(scheduler, timeout)
        try:
            return distributed.Client(scheduler, timeout=f"{max(timeout, 1):g}s")
        except (OSError, ValueError, TypeError) as exc:
            raise MtscoreError(f"cannot connect to the Dask scheduler {scheduler}: "
                               f"{' '.join(str(exc).split())[:300]}") from None
    return _start_local_cluster(distributed, n_workers)


def _start_local_cluster(distributed, n_workers: int):
    """A LocalCluster and its Client, safe against Ctrl-C and SIGTERM during start-up.

    A terminal sends Ctrl-C to the whole process group. Worker processes are spawned with SIGINT blocked (the
    spawning thread blocks it around the fork; the child inherits the mask, and its preload then ignores
    SIGINT and unblocks it), so no worker gets a KeyboardInterrupt half-way through its imports (about 100
    lines of tracebacks before). In this process SIGINT and SIGTERM are only recorded while the cluster
    starts; once it has started (or failed) the cluster is closed and the interrupt goes on: one line,
    ``mtscore: interrupted`` (exit 130) or ``terminated`` (143)."""
    import signal
    import threading
    got: list[int] = []
    saved = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                saved[sig] = signal.signal(sig, lambda signum, frame: got.append(signum))
            except (ValueError, OSError):  # pragma: no cover
                pass
    cluster = client = None
    # the workers' scratch space (dask-scratch-space) in a folder of its own, removed when the cluster closes (and
    # at exit, whatever happens): nothing is left in $TMPDIR
    scratch = _scratch_folder()
    import dask
    config = dask.config.set({"temporary-directory": scratch})  # the scheduler's and nanny's files too
    try:
        with _spawn_with_sigint_blocked():
            try:
                cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                                   dashboard_address="127.0.0.1:0", host="127.0.0.1",
                                                   preload=["mtscore.backends._dask_worker"],
                                                   local_directory=scratch)
                cluster._mtscore_scratch = scratch, config
                fault_point("dask-started")
                client = distributed.Client(cluster)
            finally:
                for sig, old in saved.items():
                    signal.signal(sig, old if old is not None else signal.SIG_DFL)
        if got:
            raise KeyboardInterrupt
        return client
    except BaseException:
        if client is not None:
            _close(client)
        elif cluster is not None:
            try:
                cluster.close()
            except BaseException:  # noqa: BLE001 - best effort while stopping
                pass
        config.__exit__(None, None, None)
        _remove(scratch)
        if got:  # the start-up failed because of the signal (workers of the group terminated too): say so
            raise (KeyboardInterrupt() if got[0] == signal.SIGINT else _terminated()) from None
        raise


def _terminated():
    from ..errors import Terminated
    return Terminated()


import contextlib  # noqa: E402


@contextlib.contextmanager
def _spawn_with_sigint_blocked():
    """Processes spawned by multiprocessing (Dask's nannies start workers so) start with SIGINT blocked."""
    import multiprocessing.context as mpc
    import signal
    orig = mpc.SpawnProcess.__dict__.get("_Popen")
    if orig is None or not hasattr(signal, "pthread_sigmask"):  # pragma: no cover
        yield
        return
    func = orig.__func__ if isinstance(orig, staticmethod) else orig

    def _popen(process_obj):
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return func(process_obj)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    mpc.SpawnProcess._Popen = staticmethod(_popen)
    try:
        yield
    finally:
        mpc.SpawnProcess._Popen = orig


def _wait_results(client, shards, futures, no_worker_timeout: float):
    """Results in shard order; a shard whose task fails raises one line naming it; with no worker for
    ``no_worker_timeout`` seconds (none joined, or all were lost) the job stops with one line."""
    import time

    import distributed
    out = []
    idle_since = None
    for sh, fut in zip(shards, futures):
        while True:
            try:
                distributed.wait(fut, timeout=1.0)
            except distributed.TimeoutError:
                pass
            if fut.done():
                break
            n = len(client.scheduler_info(n_workers=-1).get("workers", {})) if _has_nworkers_arg() \
                else len(client.scheduler_info().get("workers", {}))
            if n:
                idle_since = None
            elif idle_since is None:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since > no_worker_timeout:
                raise MtscoreError(f"the Dask cluster has had no worker for {no_worker_timeout:g} s (none "
                                   f"started, or all were lost) while shard {sh.name} was waiting; no score "
                                   "was computed")
        try:
            out.append(fut.result())
        except (MtscoreError, KeyboardInterrupt):
            raise
        except Exception as exc:
            name = type(exc).__name__
            msg = " ".join(str(exc).split())[:300]
            raise MtscoreError(f"Dask task for shard {sh.name} failed ({name}: {msg}); no score was computed") from None
    return out


def _has_nworkers_arg() -> bool:
    import inspect

    import distributed
    try:
        return "n_workers" in inspect.signature(distributed.Client.scheduler_info).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False


def run_job_dask(job: CorpusJob, shards: Sequence, client=None, scheduler: str | None = None,
                 n_workers: int = 2, retries: int = 2, no_worker_timeout: float = NO_WORKER_TIMEOUT):
    """Run ``job`` with one Dask task per shard; identical results to ``run_job`` over the same partitions.

    Every failure ends in a bounded time with :class:`MtscoreError` (one line): a bad or silent scheduler
    address, a task that fails (naming its shard), no worker for ``no_worker_timeout`` seconds. On
    KeyboardInterrupt / SIGTERM the tasks are cancelled and an own cluster is closed."""
    own = client is None
    if own:
        _require_dask()  # its import configures the loggers: first import, then quieten
    quiet = _QuietDask() if own else None  # our own cluster's chatter (an interrupt races with its threads)
    if own:
        client = connect(scheduler, n_workers)
    ok = False
    futures = []
    try:
        futures = [client.submit(_compute_shard, sh, list(job.metrics), job.keep_segments,
                                 pure=False, retries=retries, key=f"mtscore-shard-{i}")
                   for i, sh in enumerate(shards)]
        fault_point("dask-submitted")
        out = _wait_results(client, shards, futures, no_worker_timeout)
        ok = True
        return reduce_partitions(job, out)
    finally:
        if not ok:
            try:
                client.cancel(futures)
            except BaseException:  # noqa: BLE001 - best effort while stopping
                pass
        if own:
            _close(client)
        if quiet is not None and ok:
            quiet.restore()


class _QuietDask:
    """Silence Dask's and tornado's loggers (even CRITICAL); restored after a job that succeeded
    (after an error or an interrupt, late messages of closing threads stay silent)."""

    NAMES = ("distributed", "tornado", "tornado.application", "asyncio")

    def __init__(self):
        import logging
        self.saved = {n: logging.getLogger(n).level for n in self.NAMES}
        for n in self.NAMES:
            logging.getLogger(n).setLevel(logging.CRITICAL + 1)

    def restore(self) -> None:
        import logging
        for n, level in self.saved.items():
            logging.getLogger(n).setLevel(level)


def _close(client) -> None:
    """Close the client, then an own cluster (its workers before its scheduler: LocalCluster.close waits for them),
    then remove the cluster's scratch folder."""
    cluster = getattr(client, "cluster", None)
    for obj in (client, cluster):
        if obj is None:
            continue
        try:
            obj.close()
        except BaseException:  # noqa: BLE001 - best effort while stopping
            pass
    scratch = getattr(cluster, "_mtscore_scratch", None)
    if scratch is not None:
        path, config = scratch
        config.__exit__(None, None, None)  # the Dask configuration as it was
        _remove(path)


def _scratch_folder() -> str:
    import atexit
    import tempfile
    path = tempfile.mkdtemp(prefix="mtscore-dask-")
    atexit.register(_remove, path)
    return path


def _remove(path: str) -> None:
    import shutil
    shutil.rmtree(path, ignore_errors=True)
