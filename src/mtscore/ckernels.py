"""Compiled kernels of the metrics and search, with their reference implementations.

Each function here runs the ahead-of-time compiled kernel of the extension ``mtscore._cmetrics`` (built by
``pip install`` from ``src/mtscore/_cmetrics.c``) when it is built, and otherwise the reference
implementation (plain Python/NumPy), which stays in the code as the oracle the compiled kernel is tested
against (``tests/kernels/test_ckernels.py``, ``tests/kernels/test_ckernels_more.py``, hypothesis):

====================  ==========================================  ===================================================
function              compiled                                    reference
====================  ==========================================  ===================================================
ngram_pair_stats      ``_cmetrics.ngram_pair_stats`` (threads)    ``metrics._ngram_kernel.ngram_pair_stats``
chrf_word_ids         ``_cmetrics.chrf_word_ids``                 ``metrics._ngram_kernel.chrf_word_ids``
drop_whitespace       ``_cmetrics.drop_whitespace``               ``metrics._ngram_kernel.drop_whitespace``
segment_code_points   ``_cmetrics.segment_code_points``           ``metrics._ngram_kernel.segment_code_points``
ter_pairs             ``_cmetrics.ter_pairs`` (threads)           ``metrics._ter_kernel.ter_pairs``
levenshtein_pairs     ``_cmetrics.levenshtein_pairs`` (threads)   ``metrics.wer.levenshtein_pairs_ref``
align_ops             ``_cmetrics.align_ops`` (threads)           ``metrics.alignment.align_ops_ref``
grr_numerators        ``_cmetrics.grr_numerators`` (threads)      ``metrics.grr.grr_numerators_ref``
grr_align             ``_cmetrics.grr_align`` (polls Ctrl-C)      ``metrics.grr._grr_align_kernel``
gtm_kernel            ``_cmetrics.gtm`` (threads)                 ``metrics.gtm._gtm_kernel_ref``
libm_apply            ``_cmetrics.libm_apply``                    ``metrics._common.libm_map``
nist_next_order_ids   ``_cmetrics.nist_next_ids``                 ``metrics.nist._next_order_ids_ref``
nist_clipped_info     ``_cmetrics.nist_clipped_info``             ``metrics.nist._clipped_info_ref``
bootstrap_counts      ``_cmetrics.bootstrap_counts`` (threads)    ``significance._resample._bootstrap_counts_kernel_ref``
index_counts          ``_cmetrics.index_counts``                  ``significance._resample._index_counts_ref``
lcm_match             ``_cmetrics.lcm_match`` (threads)           ``metrics.lcm._lcm_kernel``
lcm_phrases           ``_cmetrics.lcm_phrases``                   ``metrics.lcm._phrase_kernel``
rose_ngram_pr         ``_cmetrics.rose_ngram_pr`` (threads)       ``metrics.rose_features._ngram_pr``
rose_count_diffs      ``_cmetrics.rose_count_diffs`` (threads)    ``metrics.rose_features._count_diffs``
rose_mixed_prec       ``_cmetrics.rose_mixed_prec`` (threads)     ``metrics.rose_features._mixed_prec``
mbr_clipped_matches   ``_cmetrics.mbr_clipped_matches`` (threads) ``search.mbr.pairwise_clipped_matches``
chrf_pairwise         ``_cmetrics.chrf_pairwise`` (threads)       ``search.pairwise.chrf_pairwise_ref``
bootstrap_grid_counts ``_cmetrics.bootstrap_grid_counts`` (thr.)  ``significance.core._grid_counts_ref``
lattice_viterbi       ``_cmetrics.lattice_viterbi`` (polls)       ``search.lattice_oracle.lattice_viterbi``
====================  ==========================================  ===================================================

(tBLEU's ``_cmetrics.tbleu_candidate_costs`` / ``affix_parts`` are called from ``metrics/tbleu.py``
directly, with ``_candidate_costs_ref`` / ``_affix_parts`` as references.)

Which one runs: :func:`mtscore.text.fast.kernel_backend` (``c`` when the extensions are built; the
environment variable ``MTSCORE_KERNELS=reference`` is a documented override that selects the reference path).
The compiled kernels split the segments between threads (:func:`mtscore.text.fast._threads`: the
``threads`` argument, else the process default) and are called in chunks, so that Ctrl-C is handled
between two chunks (well within a second); the kernels that are a single long call (lattice, grr_align,
NIST) check for a pending signal themselves.
"""
from __future__ import annotations

import numpy as np

from .text.fast import _threads, kernel_backend, reference_warning

try:
    from . import _cmetrics
except ImportError:  # not built (no C compiler at install time)
    _cmetrics = None

# name -> reference implementation. The modules that define the references register them when they are
# imported (``register_reference``), so this module never imports metrics/ or significance/ (no import
# circle: the metric modules import this one, docs/architecture.md); their callers are those same modules.
_REFERENCES: dict = {}


def register_reference(name: str, fn):
    """Record ``fn`` as the reference implementation of the compiled kernel ``name``; returns ``fn``."""
    _REFERENCES[name] = fn
    return fn


def reference(name: str):
    """The reference implementation of kernel ``name`` (registered by the module that defines it)."""
    try:
        return _REFERENCES[name]
    except KeyError:
        raise RuntimeError(f"no reference implementation registered for kernel {name!r}: import the metric "
                           "module that defines it first") from None


CHUNK_SEGMENTS = 16384  # segments per call of a compiled per-segment kernel (signals are handled between calls)
CHUNK_PAIRS = 2048  # TER pairs per call (a pair can cost ~1 ms)


def compiled(name: str | None = None) -> bool:
    """True when the compiled metric kernels run (the extension is built and not overridden); with ``name``,
    also that the built extension has that kernel (a stale development build may lack a newer one)."""
    if _cmetrics is not None and name is not None and not hasattr(_cmetrics, name):
        return False
    if _cmetrics is None:
        from .text import fast

        if fast._ckernel is None:  # neither extension built: no C compiler at install time
            reference_warning()
        return False
    return kernel_backend() == "c"


CHUNK_COST = 2_000_000  # DP cells per call and thread (~10-50 ms): the chunk size of the quadratic kernels


def _bounds(cost: np.ndarray, budget: float, max_items: int) -> list[int]:
    """Chunk boundaries over items with the given costs: each chunk holds about ``budget`` cost (at least
    one item, at most ``max_items``), so that no call runs long whatever the segment lengths."""
    n = len(cost)
    if n == 0:
        return [0]
    cum = np.cumsum(np.asarray(cost, dtype=np.float64))
    out = [0]
    while out[-1] < n:
        lo = out[-1]
        base = cum[lo - 1] if lo else 0.0
        hi = int(np.searchsorted(cum, base + budget, side="right"))
        out.append(min(n, max(hi, lo + 1), lo + max_items))
    return out


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def ngram_pair_stats(sym, text_off, seg_text_off, max_order, out, col0, threads: int | None = None) -> None:
    """chrF n-gram statistics (see :mod:`mtscore.metrics._ngram_kernel`): fills ``out`` (float64, C order,
    zero-initialised) in place."""
    if not compiled("ngram_pair_stats"):
        _fallback("ngram_pair_stats", sym, text_off, seg_text_off, max_order, out, col0)
        return
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.flags.c_contiguous and out.ndim == 2):
        raise ValueError("ngram_pair_stats: out must be a C-contiguous float64 matrix")
    sym, text_off, seg_text_off = _i64(sym), _i64(text_off), _i64(seg_text_off)
    n_seg = len(seg_text_off) - 1
    # a segment costs ~10 us (6 character orders over hypothesis + references): another thread from ~1,000
    # segments on (a 3,000-line test set uses 2 cores; the default 4,096 per thread left it on one)
    n_threads = _threads(threads, n_seg, per_thread=1024)
    for lo in range(0, n_seg, CHUNK_SEGMENTS):
        _cmetrics.ngram_pair_stats(sym, text_off, seg_text_off, lo, min(n_seg, lo + CHUNK_SEGMENTS), int(max_order),
                                   out, out.shape[1], int(col0), n_threads)


def chrf_word_ids(cps, text_off, ws_table):
    """chrF++ word tokens interned to exact ids: ``(ids, offsets)`` (int64)."""
    if not compiled("chrf_word_ids"):
        return _fallback("chrf_word_ids", cps, text_off, ws_table)
    ids, off = _cmetrics.chrf_word_ids(_i64(cps), _i64(text_off), np.ascontiguousarray(ws_table, dtype=np.bool_))
    return np.frombuffer(ids, dtype=np.int64), np.frombuffer(off, dtype=np.int64)


def segment_code_points(hyps, refs, ws_table=None, by_columns: bool = False):
    """chrF's input layout from the strings: ``(cps, text_off, seg_text_off)`` (int64; see the reference); with
    ``ws_table`` whitespace is left out. ``hyps``: str per segment; ``refs``: a sequence of str per segment, or
    with ``by_columns`` the reference columns (``refs[k][i]``: reference ``k`` of segment ``i``)."""
    if not compiled("segment_code_points"):
        rows = [list(r) for r in zip(*refs)] if by_columns else refs
        if by_columns and not refs:
            rows = [[] for _ in hyps]
        return _fallback("segment_code_points", hyps, rows, ws_table)
    ws = None if ws_table is None else np.ascontiguousarray(ws_table, dtype=np.bool_)
    cps, off, soff = _cmetrics.segment_code_points(hyps, refs, ws, bool(by_columns))
    return (np.frombuffer(cps, dtype=np.int64), np.frombuffer(off, dtype=np.int64),
            np.frombuffer(soff, dtype=np.int64))


_LIBM_KINDS = {"log": 0, "log2": 1, "exp": 2}


def libm_apply(fn_name: str, x) -> np.ndarray:
    """``log``/``log2``/``exp`` of a float64 array through the C library: the same bits on every CPU (NumPy's own
    vectorized functions take other kernels on AVX-512 machines). Shape kept."""
    arr = np.asarray(x, dtype=np.float64, order="C")  # keeps a 0-d input 0-d
    if not compiled("libm_apply"):
        return _fallback("libm_apply", fn_name, arr)
    out = np.empty_like(arr)
    _cmetrics.libm_apply(_LIBM_KINDS[fn_name], arr.reshape(-1), out.reshape(-1))
    return out


def drop_whitespace(cps, text_off, ws_table):
    """Code points without whitespace and the new text offsets (int64)."""
    if not compiled("drop_whitespace"):
        return _fallback("drop_whitespace", cps, text_off, ws_table)
    out, off = _cmetrics.drop_whitespace(_i64(cps), _i64(text_off), np.ascontiguousarray(ws_table, dtype=np.bool_))
    return np.frombuffer(out, dtype=np.int64), np.frombuffer(off, dtype=np.int64)


def ter_pairs(hyp_ids, hyp_off, ref_ids, ref_off, pair_hyp, pair_ref, threads: int | None = None) -> np.ndarray:
    """TER edits of (hypothesis row, reference row) pairs (see :mod:`mtscore.metrics._ter_kernel`);
    -1 where the beam leaves the trace undefined."""
    if not compiled("ter_pairs"):
        return _fallback("ter_pairs", hyp_ids, hyp_off, ref_ids, ref_off, pair_hyp, pair_ref)
    args = [_i64(x) for x in (hyp_ids, hyp_off, ref_ids, ref_off, pair_hyp, pair_ref)]
    n = len(args[4])
    out = np.zeros(n, dtype=np.int64)
    n_threads = _threads(threads, n, per_thread=256)
    h_len, r_len = np.diff(args[1])[args[4]], np.diff(args[3])[args[5]]
    b = _bounds((h_len + 1) * (r_len + 1) * 20.0, CHUNK_COST * n_threads, CHUNK_PAIRS)  # ~20 row passes per pair
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.ter_pairs(*args, lo, hi, out, n_threads)
    return out


def _pair_args(h_ids, h_off, r_ids, r_off, pair_seg):
    return [_i64(x) for x in (h_ids, h_off, r_ids, r_off, pair_seg)]


def levenshtein_pairs(h_ids, h_off, r_ids, r_off, pair_seg, threads: int | None = None) -> np.ndarray:
    """WER: token edit distance of hypothesis row ``pair_seg[p]`` against reference row ``p`` (int64)."""
    if not compiled("levenshtein_pairs"):
        return _fallback("levenshtein_pairs", h_ids, h_off, r_ids, r_off, pair_seg)
    args = _pair_args(h_ids, h_off, r_ids, r_off, pair_seg)
    n = len(args[3]) - 1
    out = np.zeros(max(n, 0), dtype=np.int64)
    n_threads = _threads(threads, n, per_thread=2048)
    cost = (np.diff(args[1])[args[4]] + 1) * (np.diff(args[3]) + 1)
    b = _bounds(cost, CHUNK_COST * n_threads, 8 * CHUNK_PAIRS)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.levenshtein_pairs(*args, lo, hi, out, n_threads)
    return out


def align_ops(h_ids, h_off, r_ids, r_off, threads: int | None = None) -> list[str]:
    """Word alignment (jiwer's; :func:`mtscore.metrics.alignment.align`) of hypothesis row ``p`` against
    reference row ``p``: per pair the operations as a str of ``= S D I``."""
    if not compiled("align_ops"):
        return _fallback("align_ops", h_ids, h_off, r_ids, r_off)
    h_ids, h_off, r_ids, r_off = (_i64(x) for x in (h_ids, h_off, r_ids, r_off))
    n = len(h_off) - 1
    if len(r_off) != n + 1:
        raise ValueError("align_ops: hypothesis and reference rows differ in number")
    size = np.diff(h_off) + np.diff(r_off)
    out_off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(size, out=out_off[1:])
    out = np.zeros(int(out_off[-1]), dtype=np.uint8)
    out_len = np.zeros(n, dtype=np.int64)
    n_threads = _threads(threads, n, per_thread=1024)
    cost = (np.diff(h_off) + 1) * (np.diff(r_off) + 1)
    b = _bounds(cost, CHUNK_COST * n_threads, 8 * CHUNK_PAIRS)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.align_ops(h_ids, h_off, r_ids, r_off, out_off, lo, hi, out, out_len, n_threads)
    text = out.tobytes().decode("ascii")
    return [text[a:a + k] for a, k in zip(out_off[:-1].tolist(), out_len.tolist())]


def grr_numerators(h_ids, h_off, r_ids, r_off, pair_seg, K, alpha, beta, threads: int | None = None) -> np.ndarray:
    """K-GRR: Viterbi numerators of every (segment, reference) pair (float64)."""
    if not compiled("grr_numerators"):
        return _fallback("grr_numerators", h_ids, h_off, r_ids, r_off, pair_seg, K, alpha, beta)
    args = _pair_args(h_ids, h_off, r_ids, r_off, pair_seg)
    n = len(args[3]) - 1
    out = np.zeros(max(n, 0), dtype=np.float64)
    n_threads = _threads(threads, n, per_thread=1024)
    cost = (np.diff(args[1])[args[4]] + 1) * (np.diff(args[3]) + 1) * float(max(int(K), 1))
    b = _bounds(cost, CHUNK_COST * n_threads, 4 * CHUNK_PAIRS)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.grr_numerators(*args, int(K), float(alpha), float(beta), lo, hi, out, n_threads)
    return out


def gtm_kernel(h_ids, h_off, r_ids, r_off, pair_seg, e, out_mms, out_reflen, threads: int | None = None) -> None:
    """GTM: greedy matching of every segment against its references (pairs grouped by segment, in
    order), the best reference by F; fills ``out_mms`` / ``out_reflen`` (float64, zeroed) in place."""
    pair_seg = _i64(pair_seg)
    n_seg = len(h_off) - 1
    if not compiled("gtm") or (len(pair_seg) > 1 and np.any(np.diff(pair_seg) < 0)):
        _fallback("gtm_kernel", h_ids, h_off, r_ids, r_off, pair_seg, e, out_mms, out_reflen)
        return
    seg_pair = np.searchsorted(pair_seg, np.arange(n_seg + 1, dtype=np.int64), side="left").astype(np.int64)
    args = [_i64(x) for x in (h_ids, h_off, r_ids, r_off)] + [seg_pair]
    n_threads = _threads(threads, n_seg, per_thread=512)
    h_len = np.diff(args[1]).astype(np.float64)
    r_len = np.diff(args[3]).astype(np.float64)
    r_tot = np.add.reduceat(r_len, np.minimum(seg_pair[:-1], len(r_len) - 1)) if len(r_len) and n_seg else \
        np.zeros(n_seg)
    r_tot = np.where(np.diff(seg_pair) > 0, r_tot, 0.0) if n_seg else r_tot
    cost = (h_len + 1) * (r_tot + 1) * np.minimum(h_len + 1, 16)  # greedy passes: one per run found (bounded)
    b = _bounds(cost, CHUNK_COST * n_threads, CHUNK_PAIRS)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.gtm(*args, float(e), lo, hi, out_mms, out_reflen, n_threads)


def nist_next_order_ids(prev, toks, off, n, vsize, first_ref_row):
    """NIST: exact ids of the n-grams starting at each token (see ``metrics.nist._next_order_ids_ref``)."""
    if not compiled("nist_next_ids"):
        return _fallback("nist_next_order_ids", prev, toks, off, n, vsize, first_ref_row)
    cur, n_ids = _cmetrics.nist_next_ids(_i64(prev), _i64(toks), _i64(off), int(n), int(vsize), int(first_ref_row))
    return np.frombuffer(cur, dtype=np.int64), int(n_ids)


def nist_clipped_info(h_g, h_off, r_g, r_off, seg_start, info, out) -> None:
    """NIST: information-weighted clipped counts per segment, into ``out`` (float64, contiguous)."""
    if not compiled("nist_clipped_info"):
        _fallback("nist_clipped_info", h_g, h_off, r_g, r_off, seg_start, info, out)
        return
    _cmetrics.nist_clipped_info(_i64(h_g), _i64(h_off), _i64(r_g), _i64(r_off), _i64(seg_start),
                                np.ascontiguousarray(info, dtype=np.float64), out)


def bootstrap_counts(keys, n_segments, out, threads: int | None = None):
    """Bootstrap resample counts: ``out[b, :]`` = counts of ``n_segments`` uniform draws from stream
    ``keys[b]`` (see ``significance._resample._bootstrap_counts_kernel_ref``); returns ``out``."""
    usable = (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.flags.c_contiguous and out.ndim == 2
              and out.flags.writeable and 0 < n_segments < 2 ** 32)
    if not compiled("bootstrap_counts") or not usable:
        return _fallback("bootstrap_counts", keys, n_segments, out)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    rows = out.shape[0]
    n_threads = _threads(threads, rows * int(n_segments), per_thread=1 << 18)
    _cmetrics.bootstrap_counts(keys, int(n_segments), rows, out, n_threads)
    return out


def index_counts(idx, n: int, out):
    """``out[r, v]`` = how often ``v`` occurs in row ``r`` of the drawn indices ``idx`` (int64, every value in
    ``[0, n)``; ``out`` float64 C-contiguous ``[len(idx), n]``, overwritten; see
    ``significance._resample._index_counts_ref``); returns ``out``."""
    usable = (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.flags.c_contiguous and out.ndim == 2
              and out.flags.writeable)
    if not compiled("index_counts") or not usable:
        return _fallback("index_counts", idx, n, out)
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    k, m = idx.shape
    if out.shape != (k, n):
        raise ValueError("index_counts: out must have shape (len(idx), n)")
    _cmetrics.index_counts(idx, int(k), int(m), int(n), out)
    return out


def _fallback(name: str, *args):
    """The reference implementation of ``name`` (plain Python/NumPy; its 64-bit hash arithmetic wraps on
    purpose, so overflow warnings are silenced)."""
    with np.errstate(over="ignore"):
        return reference(name)(*args)


def lcm_match(tok, cp_start, cp_end, cp_seg, h_ids, h_off, out, threads: int | None = None) -> None:
    """LCM: matched n-gram count of every check-point ``tok[cp_start[k]:cp_end[k]]`` against candidate row
    ``cp_seg[k]`` of ``(h_ids, h_off)`` (see ``metrics.lcm._lcm_kernel``), into ``out`` (float64)."""
    if not compiled("lcm_match"):
        _fallback("lcm_match", _i64(tok), _i64(cp_start), _i64(cp_end), _i64(cp_seg), _i64(h_ids), _i64(h_off), out)
        return
    args = [_i64(x) for x in (tok, cp_start, cp_end, cp_seg, h_ids, h_off)]
    n = len(args[1])
    n_threads = _threads(threads, n, per_thread=2048)
    m = args[2] - args[1]
    L = np.diff(args[5])[args[3]] if n else np.zeros(0, dtype=np.int64)
    b = _bounds(m * (L + m + 1) + 1.0, CHUNK_COST * n_threads, 4 * CHUNK_SEGMENTS)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.lcm_match(*args, lo, hi, out, n_threads)


def lcm_phrases(content, prep, detnum, offsets):
    """LCM phrase check-points of encoded references: ``(start, end, kind)`` int64 (see
    ``metrics.lcm._phrase_kernel``)."""
    if not compiled("lcm_phrases"):
        return _fallback("lcm_phrases", content, prep, detnum, offsets)
    b = [np.ascontiguousarray(x, dtype=np.bool_) for x in (content, prep, detnum)]
    res = _cmetrics.lcm_phrases(*b, _i64(offsets))
    return tuple(np.frombuffer(x, dtype=np.int64) for x in res)


def _out2d(out, cols: int | None = None):
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.flags.c_contiguous and out.ndim == 2
            and (cols is None or out.shape[1] == cols) and out.flags.writeable):
        raise ValueError("out must be a writeable C-contiguous float64 matrix" + (f" of {cols} columns" if cols else ""))


def _ref_totals(seg_ref, r_off) -> np.ndarray:
    """Total reference length of every segment (its references are rows seg_ref[s] .. seg_ref[s+1]-1)."""
    cum = np.zeros(len(r_off), dtype=np.float64)
    np.cumsum(np.diff(r_off), out=cum[1:])
    return cum[seg_ref[1:]] - cum[seg_ref[:-1]]


def _seg_chunks(n_seg: int, seg_cost, n_threads: int):
    return _bounds(np.asarray(seg_cost, dtype=np.float64) + 1.0, CHUNK_COST * n_threads, CHUNK_SEGMENTS)


def rose_ngram_pr(h_ids, h_off, r_ids, r_off, seg_ref, vsize, max_order, prec, rec, threads: int | None = None):
    """ROSE: unclipped n-gram precision (any reference) and best-reference recall per segment and order,
    into ``prec`` / ``rec`` ([N, max_order] float64; see ``metrics.rose_features._ngram_pr``)."""
    if not compiled("rose_ngram_pr"):
        _fallback("rose_ngram_pr", h_ids, h_off, r_ids, r_off, seg_ref, np.int64(vsize), int(max_order), prec, rec)
        return
    _out2d(prec, int(max_order))
    _out2d(rec, int(max_order))
    args = [_i64(x) for x in (h_ids, h_off, r_ids, r_off, seg_ref)]
    n = len(args[1]) - 1
    n_threads = _threads(threads, n, per_thread=1024)
    b = _seg_chunks(n, (np.diff(args[1]) + _ref_totals(args[4], args[3])) * 8.0 * max_order, n_threads)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.rose_ngram_pr(*args, int(max_order), lo, hi, prec, rec, n_threads)


def rose_count_diffs(h_ids, h_off, r_ids, r_off, seg_ref, cls, out, threads: int | None = None):
    """ROSE: token / function-word / punctuation / content count differences (see
    ``metrics.rose_features._count_diffs``), into ``out`` ([N, 4] float64)."""
    if not compiled("rose_count_diffs"):
        _fallback("rose_count_diffs", h_ids, h_off, r_ids, r_off, seg_ref, cls, out)
        return
    _out2d(out, 4)
    args = [_i64(x) for x in (h_ids, h_off, r_ids, r_off, seg_ref)]
    n = len(args[1]) - 1
    n_threads = _threads(threads, n)
    cls = np.ascontiguousarray(cls, dtype=np.int8)
    for lo in range(0, n, 4 * CHUNK_SEGMENTS):
        _cmetrics.rose_count_diffs(*args, cls, lo, min(n, lo + 4 * CHUNK_SEGMENTS), out, n_threads)


def rose_mixed_prec(hw, ht, h_off, rw, rt, r_off, seg_ref, max_order, out, threads: int | None = None):
    """ROSE: mixed word-or-POS n-gram precision (see ``metrics.rose_features._mixed_prec``), into ``out``
    ([N, max_order] float64)."""
    if not compiled("rose_mixed_prec"):
        _fallback("rose_mixed_prec", hw, ht, h_off, rw, rt, r_off, seg_ref, max_order, out)
        return
    _out2d(out, int(max_order))
    args = [_i64(x) for x in (hw, ht, h_off, rw, rt, r_off, seg_ref)]
    n = len(args[2]) - 1
    n_threads = _threads(threads, n, per_thread=512)
    h_len = np.diff(args[2]).astype(np.float64)
    r_tot = _ref_totals(args[6], args[5])
    b = _seg_chunks(n, h_len * r_tot * max_order, n_threads)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.rose_mixed_prec(*args, int(max_order), lo, hi, out, n_threads)


def mbr_clipped_matches(g, goff, seg_off, pair_off, out, col, threads: int | None = None) -> None:
    """MBR: ``out[pair_off[s] + a*k + b, col] = Σ_g min(#_a(g), #_b(g))`` for all candidates a, b of every
    segment s (see ``search.mbr.pairwise_clipped_matches``)."""
    if not compiled("mbr_clipped_matches"):
        _fallback("mbr_clipped_matches", g, goff, seg_off, pair_off, out, col)
        return
    _out2d(out)
    args = [_i64(x) for x in (g, goff, seg_off, pair_off)]
    n = len(args[2]) - 1
    n_threads = _threads(threads, n, per_thread=64)
    sizes = np.diff(args[2]).astype(np.float64)
    grams = args[1][args[2][1:]] - args[1][args[2][:-1]] if n else np.zeros(0)
    b = _seg_chunks(n, grams * (sizes + 1.0), n_threads)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.mbr_clipped_matches(*args, out, out.shape[1], int(col), lo, hi, n_threads)


def bootstrap_grid_counts(sa, sb, shifts, diffs, threads: int | None = None):
    """Paired bootstrap null counts on a grid of shifts (see ``significance.core._grid_counts_ref``):
    ``(gt, ge)`` int64 per shift."""
    if not compiled("bootstrap_grid_counts"):
        return _fallback("bootstrap_grid_counts", sa, sb, shifts, diffs)
    sa, sb, shifts, diffs = (np.ascontiguousarray(x, dtype=np.float64) for x in (sa, sb, shifts, diffs))
    gt = np.zeros(len(shifts), dtype=np.int64)
    ge = np.zeros(len(shifts), dtype=np.int64)
    if len(shifts) == 0:
        return gt, ge
    n_threads = _threads(threads, len(shifts) * len(sa), per_thread=1 << 18)
    for lo in range(0, len(shifts), 4096):  # ~4M values per call at 1000 resamples (Ctrl-C between calls)
        hi = min(len(shifts), lo + 4096)
        _cmetrics.bootstrap_grid_counts(sa, sb, shifts[lo:hi], diffs[lo:hi], gt[lo:hi], ge[lo:hi], n_threads)
    return gt, ge


def grid_counter(sa, sb, threads: int | None = None):
    """``count(shift, diff) -> (gt, ge)``: :func:`bootstrap_grid_counts` at one shift, with ``sa``/``sb`` converted
    and the buffers allocated once (a difference interval's bisection asks about 40 single shifts per
    boundary); the same counts."""
    sa, sb = (np.ascontiguousarray(x, dtype=np.float64) for x in (sa, sb))
    if not compiled("bootstrap_grid_counts"):
        def count_ref(shift: float, diff: float) -> tuple[int, int]:
            gt, ge = _fallback("bootstrap_grid_counts", sa, sb, np.array([shift], dtype=np.float64),
                               np.array([diff], dtype=np.float64))
            return int(gt[0]), int(ge[0])
        return count_ref
    xs, ds = np.zeros(1), np.zeros(1)
    gt, ge = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    n_threads = _threads(threads, len(sa), per_thread=1 << 18)
    kernel = _cmetrics.bootstrap_grid_counts

    def count(shift: float, diff: float) -> tuple[int, int]:
        xs[0], ds[0], gt[0], ge[0] = shift, diff, 0, 0
        kernel(sa, sb, xs, ds, gt, ge, n_threads)
        return int(gt[0]), int(ge[0])
    return count


def chrf_pairwise(c_sym, c_off, w_sym, w_off, char_order, word_order, seg_texts, seg_off, seg_nh, same, beta,
                  eps_smoothing, stats=False, threads: int | None = None, aggregate: bool = False):
    """chrF / chrF++ of every (hypothesis, reference) pair of each group of texts (see
    ``search.pairwise.chrf_pairwise_ref``): ``(out, out_off)``, group ``s``'s pair ``(a, b)`` at row
    ``out_off[s] + a * n_ref + b``; ``out`` holds the scores, or with ``stats`` the 3 * n_orders statistics.
    ``aggregate``: the *aggregate* chrF utility instead (not chrF): one row per hypothesis, against the group's
    references' summed n-gram counts (fastChrF's ``aggregate_chrf``)."""
    if not compiled("chrf_pairwise"):
        return _fallback("chrf_pairwise", c_sym, c_off, w_sym, w_off, char_order, word_order, seg_texts, seg_off,
                         seg_nh, same, beta, eps_smoothing, stats, aggregate)
    c_sym, c_off, w_sym, w_off, seg_texts, seg_off, seg_nh = (
        _i64(x) for x in (c_sym, c_off, w_sym, w_off, seg_texts, seg_off, seg_nh))
    n_seg = len(seg_off) - 1
    cnt = np.diff(seg_off)
    nh = cnt if same else seg_nh[:n_seg]
    nr = cnt if same else cnt - nh
    pairs = nh * (np.minimum(nr, 1) if aggregate else nr)
    out_off = np.zeros(n_seg + 1, dtype=np.int64)
    np.cumsum(pairs, out=out_off[1:])
    K = int(char_order) + int(word_order)
    out = np.zeros((int(out_off[-1]), 3 * K) if stats else int(out_off[-1]), dtype=np.float64)
    factor = beta ** 2
    n_threads = _threads(threads, n_seg, per_thread=1)
    # a group costs ~ its pairs x shared n-grams; chunks of ~CHUNK_COST x threads (Ctrl-C between chunks)
    txt_len = np.diff(c_off)
    cs = np.concatenate([[0], np.cumsum(txt_len[seg_texts])])
    mean_len = (cs[seg_off[1:]] - cs[seg_off[:-1]]) / np.maximum(cnt, 1)
    b = _bounds(pairs * (mean_len + 1.0) * K, CHUNK_COST * 4 * n_threads, 1 << 16)
    for lo, hi in zip(b[:-1], b[1:]):
        _cmetrics.chrf_pairwise(c_sym, c_off, w_sym, w_off, int(char_order), int(word_order), seg_texts, seg_off,
                                seg_nh if len(seg_nh) >= n_seg else np.zeros(n_seg, dtype=np.int64), out_off,
                                int(bool(same)), float(factor), float(1 + factor), bool(eps_smoothing),
                                (1 if stats else 0) + (2 if aggregate else 0), out, lo, hi, n_threads)
    return out, out_off[:-1]


def lattice_viterbi(arc_off, arc_dst, arc_lab, arc_w, final_w, start, r, K, alpha, beta, lam):
    """Lattice oracle: best value of N + lam·S over lattice paths; ``(value, numerator, model score, ops)``
    (see ``search.lattice_oracle.lattice_viterbi``). The compiled kernel checks for Ctrl-C while it runs."""
    if not compiled("lattice_viterbi"):
        return _fallback("lattice_viterbi", arc_off, arc_dst, arc_lab, arc_w, final_w, start, r, K, alpha, beta, lam)
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    val, numer, model, ops = _cmetrics.lattice_viterbi(_i64(arc_off), _i64(arc_dst), _i64(arc_lab), f64(arc_w),
                                                       f64(final_w), int(start), _i64(r), int(K), float(alpha),
                                                       float(beta), float(lam))
    return val, numer, model, np.frombuffer(ops, dtype=np.int64).reshape(-1, 3)


def grr_align(c, r, K, alpha, beta):
    """K-GRR alignment of one pair: ``(numerator, ops)`` with ops rows (op, t, i) in order (see
    ``metrics.grr._grr_align_kernel``). The compiled kernel checks for Ctrl-C while it runs."""
    if not compiled("grr_align"):
        return _fallback("grr_align", c, r, K, alpha, beta)
    numer, ops = _cmetrics.grr_align(_i64(c), _i64(r), int(K), float(alpha), float(beta))
    return numer, np.frombuffer(ops, dtype=np.int64).reshape(-1, 3)
