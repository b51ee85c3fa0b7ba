"""Compiled fast path for BLEU statistics (docs/bleu-fastpath.md): tokenize (13a) + encode + count n-grams.

Two implementations of the same results:

* ``c``: the extension ``mtscore._ckernel`` (``src/mtscore/_ckernel.c``, where the algorithms are
  documented), compiled once when the package is installed.
* ``reference``: the plain Python/NumPy path (the regular-expression tokenizers of
  :mod:`mtscore.tokenize`, a dict vocabulary, sort-based n-gram counting and the effective reference
  length of :func:`mtscore.metrics.bleu.bleu_statistics`), used where the extension was not built (no C
  compiler at install time: the build is optional) or when ``MTSCORE_KERNELS=reference`` is set.

:func:`kernel_backend` says which one runs. Both give identical ids and statistics, equal to a Counter
oracle (``tests/text/test_bleu_fastpath.py``).
"""
from __future__ import annotations

import dataclasses
import os
from contextlib import contextmanager
from typing import Sequence

from .._kernels import (BACKENDS, _ckernel, _local, current_kernel_choice, kernel_backend,  # noqa: F401
                        kernel_choice, reference_warning)
from .._kernels import thread_setting as _thread_setting
from ..errors import InvalidParameterError
from ..params import OPTIONS

_THREADS = dataclasses.replace(OPTIONS["threads"], nullable=False)  # the --threads rule: 1..1024

_METHODS = {"closest": 0, "shortest": 1, "average": 2}


def encode_corpus(lines: Sequence[str], tokenize: str = "13a", lowercase: bool = False,
                  ascii_lowercase: bool = False, backend: str | None = None):
    """Tokenize and encode ``lines``: ``(ids, offsets, n_types)``, or ``None`` (see :func:`encode_corpus_types`)."""
    enc = encode_corpus_types(lines, tokenize, lowercase, ascii_lowercase, with_types=False, backend=backend)
    return None if enc is None else enc[:3]


def encode_corpus_types(lines: Sequence[str], tokenize: str = "13a", lowercase: bool = False,
                        ascii_lowercase: bool = False, with_types: bool = True, backend: str | None = None):
    """Tokenize and encode ``lines`` at once: ``(ids, offsets, n_types, types)`` or ``None`` if unsupported
    (``types[i]`` is the token string of id ``i``; ``None`` unless ``with_types``).

    ``ids`` (int32) holds the token ids of all lines in order, line ``i`` being
    ``ids[offsets[i]:offsets[i + 1]]``; equal ids <=> equal token strings; ids are numbered in order of
    first occurrence. ``tokenize`` is "13a" (compiled rules) or "none" (whitespace split only);
    ``lowercase`` applies :meth:`str.lower` to the whole text (sacreBLEU); ``ascii_lowercase`` maps A-Z to
    a-z only (mteval's ``tr/[A-Z]/[a-z]/``). ``None`` is returned when a line contains ``\\n`` or cannot be
    encoded to UTF-8 (lone surrogates); callers then use the plain path.
    """
    import numpy as np  # here, not at import: a small BLEU run never loads NumPy (runner.py)
    n = len(lines)
    if n == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int64), 0, []
    text = "\n".join(lines)
    if lowercase:
        text = text.lower()
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    del text
    rules_13a = tokenize == "13a"
    if kernel_backend(backend) == "c":
        res = _ckernel.encode(data, n, rules_13a, bool(ascii_lowercase), bool(with_types))
        if res is None:  # a line holds "\n"
            return None
        ids_b, off_b, n_types, arena_b, start_b = res
        ids = np.frombuffer(ids_b, dtype=np.int32)
        offsets = np.frombuffer(off_b, dtype=np.int64)
        arena = bytes(arena_b) if with_types else None
        t_start = np.frombuffer(start_b, dtype=np.int64) if with_types else None
    else:
        res = _encode_reference(data, n, rules_13a, bool(ascii_lowercase))
        if res is None:
            return None
        ids, offsets, types_ref = res
        return ids, offsets, len(types_ref), (types_ref if with_types else None)
    types = None
    if with_types:  # the token strings, in id order (each type's bytes are stored once in the arena)
        ends_ = t_start[1:].tolist() + [len(arena)]
        types = [arena[a:b].decode("utf-8") for a, b in zip(t_start.tolist(), ends_)]
    return ids, offsets, int(n_types), types


def _stats_array(n_hyp: int, max_order: int, strict: bool) -> np.ndarray:
    """Zeroed output of the C kernels: hyp_len, ref_len, match_1..N, total_1..N (+ clip_len if strict)."""
    import numpy as np
    return np.zeros((n_hyp, 2 + 2 * int(max_order) + (1 if strict else 0)), dtype=np.float64)


def bleu_statistics_fast(ids, offsets, n_hyp: int, ref_starts, max_order: int, ref_length: str,
                         strict: bool = False, backend: str | None = None) -> np.ndarray:
    """BLEU statistics from the output of :func:`encode_corpus` (hyps first, then references).

    Rows ``0..n_hyp-1`` of the encoding are hypotheses; the references of segment ``i`` are rows
    ``n_hyp + ref_starts[i] .. n_hyp + ref_starts[i+1] - 1``. Columns: hyp_len, ref_len, match_1..N,
    total_1..N (+ clip_len if ``strict``). ``None`` on the reference backend: the caller then runs the
    reference implementation, :func:`mtscore.metrics.bleu.bleu_statistics` (BLEU's plain path)."""
    import numpy as np
    ref_starts = np.ascontiguousarray(ref_starts, dtype=np.int64)
    if kernel_backend(backend) == "c":
        out = _stats_array(n_hyp, max_order, strict)
        _ckernel.bleu_counts(np.ascontiguousarray(ids, dtype=np.int32), np.ascontiguousarray(offsets, dtype=np.int64),
                             int(n_hyp), ref_starts, int(max_order), _METHODS[ref_length], bool(strict), out)
        return out
    return None


def _encode_reference(data: bytes, n: int, rules_13a: bool, ascii_lowercase: bool):
    """The reference of ``_ckernel.encode``: ``(ids int32, offsets int64, types)``, ids numbered in order of
    first occurrence; ``None`` in the same cases (a line holds ``\\n``)."""
    from ..tokenize import tokenize_corpus

    import numpy as np
    if data.count(b"\n") != n - 1:
        return None
    rows = data.decode("utf-8").split("\n")  # already lowercased (str.lower) when asked
    if ascii_lowercase:
        rows = [ln.translate(_ASCII_LOWER) for ln in rows]
    if rules_13a:
        rows = tokenize_corpus(rows, "13a")
    index: dict[str, int] = {}  # token -> id, in order of first occurrence (as text.encode.Vocab)
    get = index.setdefault
    offsets = np.zeros(n + 1, dtype=np.int64)
    flat: list[int] = []
    for i, ln in enumerate(rows):
        flat.extend([get(t, len(index)) for t in ln.split()])
        offsets[i + 1] = len(flat)
    return np.asarray(flat, dtype=np.int32), offsets, list(index)


_ASCII_LOWER = {c: c + 32 for c in range(65, 91)}


def bleu_statistics_strings(hyps: list[str], refs: list[list[str]], max_order: int, ref_length: str,
                            strict: bool = False, tokenize: str = "13a", lowercase: bool = False,
                            ascii_lowercase: bool = False, threads: int | None = None, out=None):
    """BLEU statistics straight from the strings with the compiled extension: tokenize and count in one
    pass, segment by segment, with segment-local token ids (no corpus vocabulary is built).

    ``refs`` is sentence-major (a list of non-empty lists of str); ``tokenize`` is "13a" or "none"
    (already tokenized text: whitespace split only); ``lowercase`` is :meth:`str.lower` per line
    (sacreBLEU), ``ascii_lowercase`` maps A-Z to a-z (mteval). ``threads`` splits the segments between
    that many threads (default: see :func:`_threads`); the result does not depend on it. Returns ``None``
    where this path does not apply (the extension is not in use; a line holds ``\\n`` under 13a; lone
    surrogates); callers then use :func:`encode_corpus` + :func:`bleu_statistics_fast`.

    ``out``: where the rows go, row-major, instead of a new ``[n, columns]`` float64 array: a writable buffer of
    at least ``n * columns`` float64 values such as ``array.array("d")`` (no NumPy needed; returned filled).
    """
    if kernel_backend() != "c":
        return None
    n_threads = _threads(threads, len(hyps))
    if lowercase:
        hyps = [h.lower() for h in hyps]
        refs = [[r.lower() for r in seg] for seg in refs]
    n_cols = 2 + 2 * int(max_order) + (1 if strict else 0)
    rows = _stats_array(len(hyps), max_order, strict) if out is None else memoryview(out).cast("B").cast("d")
    per_row = 1 if out is None else n_cols  # a 2-D array is sliced by rows, a flat buffer by values
    hyps, refs = list(hyps), list(refs)
    n = len(hyps)
    step = CHUNK_SEGMENTS if n > CHUNK_SEGMENTS else max(n, 1)
    for lo in range(0, n, step):  # chunks: Ctrl-C is handled between two calls (well within a second)
        hi = min(n, lo + step)
        whole = lo == 0 and hi == n
        ok = _ckernel.bleu_strings(hyps if whole else hyps[lo:hi], refs if whole else refs[lo:hi], int(max_order),
                                   _METHODS[ref_length], bool(strict), tokenize == "13a", bool(ascii_lowercase),
                                   rows if whole else rows[lo * per_row:hi * per_row], n_threads)
        if not ok:
            return None
    return rows if out is None else out


def bleu_statistics_columns(hyps: list[str], ref_columns: list[list[str]], max_order: int, ref_length: str,
                            strict: bool = False, tokenize: str = "13a", lowercase: bool = False,
                            ascii_lowercase: bool = False, threads: int | None = None):
    """:func:`bleu_statistics_strings` with the references as ``K`` columns (reference ``k`` of segment ``i`` is
    ``ref_columns[k][i]``, as read from ``K`` files): the same statistics without a list built per segment
    (the compiled kernel takes one column as it is, and several as tuples). ``None`` where the compiled path
    does not apply: the caller then builds sentence-major lists for the other paths."""
    if kernel_backend() != "c" or not ref_columns:
        return None
    if any(len(col) != len(hyps) for col in ref_columns):
        raise InvalidParameterError("refs: every reference column needs one entry per hypothesis")
    if lowercase:
        hyps = [h.lower() for h in hyps]
        ref_columns = [[r.lower() for r in col] for col in ref_columns]
    refs = ref_columns[0] if len(ref_columns) == 1 else list(zip(*ref_columns))
    return bleu_statistics_strings(hyps, refs, max_order, ref_length, strict, tokenize, lowercase=False,
                                   ascii_lowercase=ascii_lowercase, threads=threads)


CHUNK_SEGMENTS = 65536  # segments per call of bleu_strings (~0.1 s per thread)
AUTO_MIN_SEGMENTS = 4096  # segments per thread below which another thread is not worth starting


@contextmanager
def kernel_threads(n: int | None):
    """Within this block (in this thread) the compiled kernels use ``n`` threads (``None``: no change, so an
    enclosing block's count stays). The Dask backend runs its tasks with 1: a worker already runs one task per core."""
    with _thread_setting("threads", n):
        yield


def available_cores() -> int:
    """CPUs this process may use: its affinity mask (``os.sched_getaffinity``), further limited by a
    cgroup CPU quota (``cpu.max`` of cgroup v2, ``cpu.cfs_quota_us / cpu.cfs_period_us`` of v1), rounded up."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        n = os.cpu_count() or 1
    quota = _cgroup_quota()
    return max(1, min(n, quota)) if quota else max(1, n)


def _cgroup_quota() -> int | None:
    import math

    try:
        with open("/sys/fs/cgroup/cpu.max") as fh:
            q, period = fh.read().split()[:2]
        if q != "max" and int(period) > 0:
            return max(1, math.ceil(int(q) / int(period)))
        return None
    except (OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") as fh:
            q = int(fh.read())
        with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as fh:
            period = int(fh.read())
        if q > 0 and period > 0:
            return max(1, math.ceil(q / period))
    except (OSError, ValueError):
        pass
    return None


def _threads(threads: int | None, n_segments: int, per_thread: int = AUTO_MIN_SEGMENTS) -> int:
    """Threads for a kernel call: ``threads``, else :func:`kernel_threads`, else ``$MTSCORE_THREADS``
    (a number or ``auto``), else auto: one per available core (at most 8), and at most one per
    ``per_thread`` segments (4,096 by default)."""
    if threads is None:
        threads = getattr(_local, "threads", None)
    if threads is None:
        env = os.environ.get("MTSCORE_THREADS", "auto").strip().lower()
        if env != "auto":  # the --threads rule of the parameter table (or 'auto')
            return _THREADS.parse(env, "MTSCORE_THREADS")
        cap = n_segments // per_thread
        if cap <= 1:  # one thread whatever the cores (and no look at the affinity mask and cgroup files)
            return 1
        return max(1, min(available_cores(), 8, cap))
    return _THREADS.check(threads, "threads")
