"""Which implementation of the compiled kernels runs: the choice only (the kernels themselves and their
reference implementations are documented in :mod:`mtscore.text.fast`, which re-exports these names).

It sits in the package's base layer so that every stage that has a compiled kernel (the tokenizers as well as
the BLEU statistics) follows the same choice: ``--kernels`` / ``kernels=`` (:func:`kernel_choice`, per
thread), else ``$MTSCORE_KERNELS``, else ``c`` when the extension is built and ``reference`` otherwise.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager

from .errors import InvalidParameterError

try:
    from . import _ckernel
except ImportError:  # not built (no C compiler at install time)
    _ckernel = None

BACKENDS = ("c", "reference")
_local = threading.local()
_warned = False


def kernel_backend(backend: str | None = None) -> str:
    """The kernel implementation in use: ``backend`` if given, else the innermost :func:`kernel_choice` block
    (``--kernels`` / ``kernels=``), else ``$MTSCORE_KERNELS`` (a documented override), else ``c`` when the
    extension is built and ``reference`` otherwise."""
    explicit = backend or getattr(_local, "backend", None)
    choice = explicit or os.environ.get("MTSCORE_KERNELS") or "auto"
    label = "kernels" if explicit else "MTSCORE_KERNELS"
    if choice == "auto":
        if _ckernel is None:
            reference_warning()
            return "reference"
        return "c"
    if choice == "numba":
        raise InvalidParameterError(f"{label}=numba: mtscore no longer uses numba; the plain reference path "
                                    f"is {label}=reference (valid: auto, c, reference)")
    if choice not in BACKENDS:
        raise InvalidParameterError(f"{label}: unknown kernel backend {choice!r}; valid: auto, c, reference")
    if choice == "c" and _ckernel is None:
        raise InvalidParameterError(f"{label}=c: the compiled extension mtscore._ckernel is not built "
                                    "(reinstall with a C compiler available, or use reference)")
    return choice


@contextmanager
def kernel_choice(choice: str | None):
    """Within this block (in this thread) the kernels are ``choice`` (``auto``, ``c`` or ``reference``; ``None``:
    no change), ahead of ``$MTSCORE_KERNELS``. Worker processes of ``--jobs`` get the same choice."""
    with thread_setting("backend", choice):
        yield


def current_kernel_choice() -> str | None:
    """The explicit kernel choice in force in this thread (:func:`kernel_choice`), or None."""
    return getattr(_local, "backend", None)


@contextmanager
def thread_setting(name: str, value):
    """Within this block (in this thread) the setting ``name`` is ``value`` (``None``: no change)."""
    old = getattr(_local, name, None)
    if value is not None:
        setattr(_local, name, value)
    try:
        yield
    finally:
        setattr(_local, name, old)


def reference_warning() -> None:
    """One line on stderr, once per process, when the compiled kernels are not built."""
    global _warned
    if not _warned:
        _warned = True
        import sys

        sys.stderr.write("mtscore: warning: compiled kernels not built (no C compiler at install time); "
                         "using the slower reference implementations (same results)\n")
