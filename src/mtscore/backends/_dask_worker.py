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
    # an interrupted job cancels its tasks, and a worker that outlives the scheduler by a moment (mtscore closing its
    # cluster) logs a failed heartbeat with a 30-line traceback: all noise on the user's terminal, possibly after
    # mtscore has exited. A task's failure still reaches the client (one line naming the shard).
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


QUIET_LOGGERS = ("distributed", "tornado", "tornado.application", "asyncio")
