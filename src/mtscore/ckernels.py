"""Compiled kernels of the metrics, with their reference implementations (issue 18).

Each function here runs the ahead-of-time compiled kernel of the extension ``mtscore._cmetrics`` (built by
``pip install`` from ``src/mtscore/_cmetrics.c``) when it is built, and otherwise the reference
implementation, which stays in the code as the oracle the compiled kernel is tested against
(``tests/test_ckernels.py``, hypothesis):

==================  ============================================  ==========================================
function            compiled                                      reference
==================  ============================================  ==========================================
ngram_pair_stats    ``_cmetrics.ngram_pair_stats`` (threads)      ``metrics._ngram_kernel.ngram_pair_stats``
chrf_word_ids       ``_cmetrics.chrf_word_ids``                   ``metrics._ngram_kernel.chrf_word_ids``
drop_whitespace     ``_cmetrics.drop_whitespace``                 ``metrics._ngram_kernel.drop_whitespace``
ter_pairs           ``_cmetrics.ter_pairs`` (threads)             ``metrics._ter_kernel.ter_pairs``
==================  ============================================  ==========================================

Which one runs: :func:`mtscore.text.fast.kernel_backend` (``c`` when the extensions are built; the
environment variable ``MTSCORE_KERNELS=numba`` is a documented override that selects the reference path).
The compiled kernels split the segments between threads (:func:`mtscore.text.fast._threads`: the
``threads`` argument, else the process default) and are called in chunks, so that Ctrl-C is handled
between two chunks (well within a second).
"""
from __future__ import annotations

import numpy as np

from .text.fast import _threads, kernel_backend, reference_warning

try:
    from . import _cmetrics
except ImportError:  # not built (no C compiler at install time)
    _cmetrics = None

CHUNK_SEGMENTS = 16384  # segments per call of a compiled per-segment kernel (signals are handled between calls)
CHUNK_PAIRS = 2048  # TER pairs per call (a pair can cost ~1 ms)


def compiled() -> bool:
    """True when the compiled metric kernels run (the extension is built and not overridden)."""
    if _cmetrics is None:
        from .text import fast

        if fast._ckernel is None:  # neither extension built: no C compiler at install time
            reference_warning()
        return False
    return kernel_backend() == "c"


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def ngram_pair_stats(sym, text_off, seg_text_off, max_order, out, col0, threads: int | None = None) -> None:
    """chrF n-gram statistics (see :mod:`mtscore.metrics._ngram_kernel`): fills ``out`` (float64, C order,
    zero-initialised) in place."""
    if not compiled():
        from .metrics._ngram_kernel import ngram_pair_stats as ref

        ref(sym, text_off, seg_text_off, max_order, out, col0)
        return
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.flags.c_contiguous and out.ndim == 2):
        raise ValueError("ngram_pair_stats: out must be a C-contiguous float64 matrix")
    sym, text_off, seg_text_off = _i64(sym), _i64(text_off), _i64(seg_text_off)
    n_seg = len(seg_text_off) - 1
    n_threads = _threads(threads, n_seg)
    for lo in range(0, n_seg, CHUNK_SEGMENTS):
        _cmetrics.ngram_pair_stats(sym, text_off, seg_text_off, lo, min(n_seg, lo + CHUNK_SEGMENTS), int(max_order),
                                   out, out.shape[1], int(col0), n_threads)


def chrf_word_ids(cps, text_off, ws_table):
    """chrF++ word tokens interned to exact ids: ``(ids, offsets)`` (int64)."""
    if not compiled():
        from .metrics._ngram_kernel import chrf_word_ids as ref

        return ref(cps, text_off, ws_table)
    ids, off = _cmetrics.chrf_word_ids(_i64(cps), _i64(text_off), np.ascontiguousarray(ws_table, dtype=np.bool_))
    return np.frombuffer(ids, dtype=np.int64), np.frombuffer(off, dtype=np.int64)


def drop_whitespace(cps, text_off, ws_table):
    """Code points without whitespace and the new text offsets (int64)."""
    if not compiled():
        from .metrics._ngram_kernel import drop_whitespace as ref

        return ref(cps, text_off, ws_table)
    out, off = _cmetrics.drop_whitespace(_i64(cps), _i64(text_off), np.ascontiguousarray(ws_table, dtype=np.bool_))
    return np.frombuffer(out, dtype=np.int64), np.frombuffer(off, dtype=np.int64)


def ter_pairs(hyp_ids, hyp_off, ref_ids, ref_off, pair_hyp, pair_ref, threads: int | None = None) -> np.ndarray:
    """TER edits of (hypothesis row, reference row) pairs (see :mod:`mtscore.metrics._ter_kernel`);
    -1 where the beam leaves the trace undefined."""
    if not compiled():
        from .metrics._ter_kernel import ter_pairs as ref

        return ref(hyp_ids, hyp_off, ref_ids, ref_off, pair_hyp, pair_ref)
    args = [_i64(x) for x in (hyp_ids, hyp_off, ref_ids, ref_off, pair_hyp, pair_ref)]
    n = len(args[4])
    out = np.zeros(n, dtype=np.int64)
    n_threads = _threads(threads, n, per_thread=256)
    for lo in range(0, n, CHUNK_PAIRS):
        _cmetrics.ter_pairs(*args, lo, min(n, lo + CHUNK_PAIRS), out, n_threads)
    return out
