"""Lazy, optional numba for the kernels that are not compiled ahead of time (issue 18).

The everyday kernels (13a tokenize + encode, BLEU, chrF, TER, WER/PER, K-GRR, NIST, GTM) are compiled at
install time (``mtscore._ckernel``, ``mtscore._cmetrics``). The others are plain Python functions decorated
with :func:`njit` from this module, which

* imports nothing when a module is imported (``import mtscore``, ``mtscore --version`` and every metric
  module load without numba);
* on the first call compiles the function with ``numba.njit`` (cached on disk as before) when numba is
  installed, and otherwise runs the plain Python function: same results, slower;
* before compiling, points every other lazily-decorated kernel in the function's module globals at its
  compiled dispatcher, so kernels that call kernels compile together.

``MTSCORE_NUMBA=0`` (documented override) runs the plain Python functions even where numba is installed.
``f.py_func`` is the plain function (the reference implementation the compiled kernels are tested against).
"""
from __future__ import annotations

import os

_numba = None
_tried = False

prange = range  # the reference kernels loop serially; numba compiles range loops as plain loops


def numba_module():
    """numba, or None when it is not installed or ``MTSCORE_NUMBA=0``."""
    global _numba, _tried
    if not _tried:
        _tried = True
        if os.environ.get("MTSCORE_NUMBA", "1").strip() != "0":
            try:
                import numba
            except ImportError:
                numba = None
            _numba = numba
    return _numba


class _Lazy:
    """A kernel compiled on first use (see the module doc)."""

    def __init__(self, fn, opts):
        self.py_func = fn
        self.opts = opts
        self._target = None
        self._disp = None
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn

    def _dispatcher(self):
        if self._disp is None:
            self._disp = numba_module().njit(**self.opts)(self.py_func)
        return self._disp

    def _resolve(self):
        if self._target is None:
            if numba_module() is None:
                self._target = self.py_func
            else:
                g = self.py_func.__globals__
                for name, obj in list(g.items()):
                    if isinstance(obj, _Lazy):
                        g[name] = obj._dispatcher()
                self._target = self._dispatcher()
        return self._target

    def __call__(self, *args, **kwargs):
        target = self._target or self._resolve()
        return target(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<lazy kernel {self.__module__}.{self.__qualname__}>"


def njit(*args, **opts):
    """``numba.njit`` replacement: ``@njit`` or ``@njit(cache=True, ...)``; see the module doc."""
    if args and callable(args[0]) and not opts:
        return _Lazy(args[0], {})

    def deco(fn):
        return _Lazy(fn, opts)

    return deco
