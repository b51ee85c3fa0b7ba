"""The explicit ``threads=`` parameter of the library functions that run threaded compiled kernels.

Precedence of the thread count a kernel call gets (resolved by :func:`mtscore.text.fast._threads`): an explicit
``threads=`` / ``--threads`` (the innermost one given), else ``$MTSCORE_THREADS``, else the CPUs the process
may use (at most 8, fewer for small inputs). ``threads=None`` changes nothing: a function called inside
another's ``threads=`` block (or a command's ``--threads``) keeps that count. The numbers never depend on it.
"""
from __future__ import annotations

import functools
import inspect
from contextlib import nullcontext


def threads_block(threads):
    """A context in which the compiled kernels use ``threads`` threads (checked by the parameter table's
    ``threads`` entry: an integer in 1..1024, or None for no change)."""
    from .params import OPTIONS
    threads = OPTIONS["threads"].check(threads, "threads")
    if threads is None:
        return nullcontext()
    from .text.fast import kernel_threads
    return kernel_threads(threads)


def with_threads(fn):
    """Adds a keyword-only ``threads: int | None = None`` parameter to ``fn`` (see :func:`threads_block`)."""
    @functools.wraps(fn)
    def wrapper(*args, threads=None, **kwargs):
        with threads_block(threads):
            return fn(*args, **kwargs)
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    extra = inspect.Parameter("threads", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="int | None")
    at = next((i for i, q in enumerate(params) if q.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    wrapper.__signature__ = sig.replace(parameters=params[:at] + [extra] + params[at:])
    return wrapper
