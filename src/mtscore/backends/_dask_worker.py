"""Dask worker preload (``LocalCluster(preload=[this module])``): the worker ignores SIGINT.

Ctrl-C in a terminal reaches the whole process group; the client process alone handles it (closes the
cluster and prints one line), so the workers must not print their own tracebacks (task failures still reach the client as
one line naming the shard)."""
from __future__ import annotations

import signal
import threading


def dask_setup(worker=None) -> None:
    import logging
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # spawned with SIGINT blocked (so that no Ctrl-C reaches a worker during its imports): now ignored, the
        # block is lifted (a pending SIGINT is discarded)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    from .._testhooks import fault_point
    fault_point("dask-worker")  # tests: Ctrl-C to the whole group while the other workers may still be starting
    # an interrupted job cancels its tasks; the workers' warnings about it are noise on the user's terminal
    logging.getLogger("distributed").setLevel(logging.ERROR)
