"""Deterministic fault injection for tests (not an API; nothing happens unless the variable is set).

``MTSCORE_TEST_FAULT=POINT[:ACTION[:N]]`` makes the N-th pass (default the first) through the named point
act: ``sigint`` (default) sends SIGINT to this process, ``sigterm`` SIGTERM, ``sigint-group`` SIGINT to the
whole process group (as Ctrl-C in a terminal does: worker processes get it too; only for a test process
started in its own session), ``oserror`` raises ``OSError(ENOSPC)``. Points: ``partition`` (a partition
of statistics was computed), ``dask-submitted`` (Dask tasks are submitted), ``resample`` (a batch of
resamples), ``write`` (an output file is about to be renamed into place), ``dask-started`` (a LocalCluster was
started, its Client not yet), ``dask-worker`` (a Dask worker ran its preload; the others may still be
starting), ``meta`` (after the
meta-evaluation inputs are read), ``import`` (while mtscore.cli.main is imported, before its handlers exist), ``read`` (an input file is read:
mtscore.io's readers, every block), ``worker-start`` (a ``--jobs`` worker process was started and the pool has not
recorded it yet: backends/_workers.py).
"""
from __future__ import annotations

import os

_VAR = "MTSCORE_TEST_FAULT"
_seen: dict[str, int] = {}


def fault_point(name: str) -> None:
    spec = os.environ.get(_VAR)
    if not spec:
        return
    point, _, rest = spec.partition(":")
    if point != name:
        return
    action, _, nth = rest.partition(":")
    _seen[name] = _seen.get(name, 0) + 1
    if _seen[name] != (int(nth) if nth else 1):
        return
    import signal
    action = action or "sigint"
    if action == "sigint":
        os.kill(os.getpid(), signal.SIGINT)
    elif action == "sigterm":
        os.kill(os.getpid(), signal.SIGTERM)
    elif action == "sigint-group":
        os.killpg(os.getpgrp(), signal.SIGINT)
    elif action == "oserror":
        import errno
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    else:
        raise ValueError(f"{_VAR}: unknown action {action!r}")
