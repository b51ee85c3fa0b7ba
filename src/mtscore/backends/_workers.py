"""Worker processes of the local backend (``--jobs N``): their start-up and teardown as one unit.

A worker is started in steps (the forkserver forks it, the parent writes its pickled state, the child rebuilds the
pool's queues and semaphores from names). If SIGTERM or Ctrl-C reached the parent between the fork and the moment
the pool records the new process, the parent would stop the pool without that process, exit, and unlink the
semaphores the child was about to open: the child printed a FileNotFoundError traceback or lingered. Here signals
that arrive while a task is submitted (which is when the pool starts its processes) are held and acted upon right
after, when every started process is known to the pool and is stopped with it. Only the parent's Python-level
handlers are swapped: no signal mask is changed, so no child inherits a blocked signal.

Imported only when a pool is started (start-up time of runs without workers).
"""
from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.context as _mpc
import signal
import threading

from .._testhooks import fault_point


class _SpawnWorker(_mpc.SpawnProcess):
    def start(self):
        super().start()
        fault_point("worker-start")  # started, not yet recorded by the pool: the window that was unsafe


class _SpawnContext(_mpc.SpawnContext):
    Process = _SpawnWorker


if hasattr(_mpc, "ForkServerProcess"):  # POSIX
    class _ForkServerWorker(_mpc.ForkServerProcess):
        def start(self):
            super().start()
            fault_point("worker-start")

    class _ForkServerContext(_mpc.ForkServerContext):
        Process = _ForkServerWorker


def context():
    """The start method for worker processes: forkserver (spawn where it is missing); forking a process that
    runs threads (a Dask client, BLAS, the compiled kernels' threads) can leave the child deadlocked."""
    if "forkserver" in mp.get_all_start_methods() and hasattr(_mpc, "ForkServerProcess"):
        return _ForkServerContext()
    return _SpawnContext()


@contextlib.contextmanager
def signals_held():
    """SIGTERM and SIGINT that arrive inside the block are acted upon (by the handlers that were in place) when
    it ends, not in the middle of it. Outside the main thread, where handlers cannot be set, a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = {}
    try:
        for sig in (signal.SIGTERM, signal.SIGINT):
            old[sig] = signal.signal(sig, lambda s, f: got.append(s))
    except (ValueError, OSError):  # pragma: no cover - not the main interpreter
        for sig, h in old.items():
            signal.signal(sig, h)
        yield
        return
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
        for s in dict.fromkeys(got):
            signal.raise_signal(s)
