"""Pairwise sentence scores: the score of every (hypothesis, reference) pair of two lists, as a matrix
(``pairwise(metric, hyps, refs)``), and the pairwise utilities of MBR (:mod:`mtscore.search.mbr`).

chrF / chrF++ run one compiled kernel (``_cmetrics.chrf_pairwise``, threads over groups): every text's character
(and word) n-grams are counted once, as sparse count vectors; the references' vectors are inverted, and each
hypothesis adds ``min(its count, the reference's)`` over the postings of its n-grams, so a pair costs only the
n-grams the two texts share. The scores are sacreBLEU's ``sentence_score`` (the steps of
:func:`mtscore.metrics.chrf.chrf_score`, bit for bit). BLEU / BLEU-SBP use the clipped-match kernel of MBR
(``_cmetrics.mbr_clipped_matches``) and the metric's own vectorized sentence BLEU; any other metric scores
every pair with its own statistics (slow, exact).

:func:`aggregate_chrf` is *not* chrF: fastChrF's aggregate utility (Vamvas & Sennrich 2024), each hypothesis
against the references' averaged n-gram counts, O(k) per hypothesis instead of O(k^2) for a group; it is named
as such wherever it appears.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from .._threadparam import with_threads
from ..ckernels import chrf_pairwise, register_reference
from ..errors import InvalidParameterError
from ..metrics.base import Metric
from ..metrics.chrf import chrf_symbols, is_chrf  # noqa: F401 (chrf_symbols: part of this module's API)


def _metric(metric) -> Metric:
    if isinstance(metric, Metric):
        return metric
    if isinstance(metric, str):
        from ..metrics.registry import get_metric
        return get_metric(metric)
    raise InvalidParameterError(f"metric: a metric name or a Metric object, got {type(metric).__name__}")


def chrf_pairwise_ref(c_sym, c_off, w_sym, w_off, char_order, word_order, seg_texts, seg_off, seg_nh, same, beta,
                      eps_smoothing, stats, aggregate=False):
    """Reference of :func:`mtscore.ckernels.chrf_pairwise`: per pair, Counter n-gram counts of both texts (the
    definition), the statistics as :class:`~mtscore.metrics.chrf.CHRF` lays them out, and
    :func:`~mtscore.metrics.chrf.chrf_score`. Returns ``(out, out_off)``."""
    from ..metrics.chrf import chrf_score
    K = char_order + word_order
    streams = [(np.asarray(c_sym).tolist(), np.asarray(c_off).tolist(), char_order),
               (np.asarray(w_sym).tolist(), np.asarray(w_off).tolist(), word_order)]
    rows, out_off = [], [0]
    for s in range(len(seg_off) - 1):
        texts = [int(t) for t in seg_texts[seg_off[s]:seg_off[s + 1]]]
        hy, rf = (texts, texts) if same else (texts[:seg_nh[s]], texts[seg_nh[s]:])
        if aggregate:  # (not chrF) each hypothesis, its counts x R, against the references' summed counts
            for a in (hy if rf else []):
                row = []
                for sym, off, order in streams:
                    x = sym[off[a]:off[a + 1]]
                    for n in range(1, order + 1):
                        ca = Counter(tuple(x[i:i + n]) for i in range(len(x) - n + 1))
                        cb: Counter = Counter()
                        for b in rf:
                            y = sym[off[b]:off[b + 1]]
                            cb.update(tuple(y[i:i + n]) for i in range(len(y) - n + 1))
                        nb = sum(cb.values())
                        R = len(rf)
                        row += [R * sum(ca.values()) if nb > 0 else 0, nb,
                                sum(min(R * v, cb[g]) for g, v in ca.items())]
                rows.append(row)
            out_off.append(len(rows))
            continue
        for a in hy:
            for b in rf:
                row = []
                for sym, off, order in streams:
                    x, y = sym[off[a]:off[a + 1]], sym[off[b]:off[b + 1]]
                    for n in range(1, order + 1):
                        ca = Counter(tuple(x[i:i + n]) for i in range(len(x) - n + 1))
                        cb = Counter(tuple(y[i:i + n]) for i in range(len(y) - n + 1))
                        nb = sum(cb.values())
                        row += [sum(ca.values()) if nb > 0 else 0, nb, sum(min(v, cb[g]) for g, v in ca.items())]
                rows.append(row)
        out_off.append(len(rows))
    st = np.array(rows, dtype=np.float64).reshape(len(rows), 3 * K)
    out = st if stats else np.asarray(chrf_score(st, K, beta, eps_smoothing), dtype=np.float64).reshape(-1)
    return out, np.asarray(out_off[:-1], dtype=np.int64)


register_reference("chrf_pairwise", chrf_pairwise_ref)


def _chrf_matrix(m: Metric, hyps, refs, threads=None) -> np.ndarray:
    same = refs is None
    texts = list(hyps) if same else list(hyps) + list(refs)
    syms = chrf_symbols(m, texts)
    nh = len(hyps)
    nr = nh if same else len(refs)
    if nh == 0 or nr == 0:
        return np.zeros((nh, nr))
    # the hypotheses in blocks (groups of the kernel's threads), each against every reference
    from ..text.fast import _threads
    n_threads = _threads(threads, nh * nr, per_thread=4096)
    block = max(1, -(-nh // (4 * n_threads)))
    starts = list(range(0, nh, block))
    seg_texts, seg_off, seg_nh = [], [0], []
    for lo in starts:
        hi = min(nh, lo + block)
        seg_texts += list(range(lo, hi)) + (list(range(nh)) if same else list(range(nh, nh + nr)))
        seg_off.append(len(seg_texts))
        seg_nh.append(hi - lo)
    c = m.config
    out, _ = chrf_pairwise(*syms, c.char_order, c.word_order, np.array(seg_texts), np.array(seg_off),
                           np.array(seg_nh), False, c.beta, c.eps_smoothing, False, threads=threads)
    return out.reshape(nh, nr)  # (a text against itself is a pair like any other here)


@with_threads
def aggregate_chrf(hyps: Sequence[str], refs: Sequence[str] | None = None, metric="chrf") -> np.ndarray:
    """The *aggregate chrF* utility of every hypothesis -- not chrF: fastChrF's approximation for MBR (Vamvas &
    Sennrich 2024; ``fastchrf.aggregate_chrf``), the chrF formula on statistics against all references at once
    (the hypothesis' n-gram counts times the number of references, clipped by the references' summed counts).
    O(k) per hypothesis instead of k sentence scores. ``refs=None``: the hypotheses themselves (MBR's pseudo-
    references). ``metric``: ``"chrf"``/``"chrf++"`` or a chrF metric object (its orders, beta, case,
    whitespace)."""
    m = _metric(metric)
    if not is_chrf(m):
        raise InvalidParameterError(f"aggregate chrF: needs a chrF metric (chrf, chrf++), got {m.name!r}")
    hyps = [str(h) for h in hyps]
    same = refs is None
    texts = hyps if same else hyps + [str(r) for r in refs]
    nh, nr = len(hyps), (len(hyps) if same else len(texts) - len(hyps))
    if nh == 0 or nr == 0:
        return np.zeros(nh)
    c = m.config
    out, _ = chrf_pairwise(*chrf_symbols(m, texts), c.char_order, c.word_order, np.arange(len(texts)),
                           np.array([0, len(texts)]), np.array([nh]), same, c.beta, c.eps_smoothing, False,
                           aggregate=True)
    return out


@with_threads
def pairwise(metric, hyps: Sequence[str], refs: Sequence[str] | None = None) -> np.ndarray:
    """The ``len(hyps) x len(refs)`` matrix of sentence scores ``metric(hyps[i], [refs[j]])`` (sacreBLEU's
    ``sentence_score`` numbers for BLEU and chrF); ``refs=None``: the hypotheses against themselves (MBR's
    utility matrix). ``metric``: a name (``"chrf"``, ``"chrf++"``, ``"bleu"``, any registered metric) or a
    metric object with its parameters (``get_metric("chrf", char_order=4)``)."""
    m = _metric(metric)
    hyps = [str(h) for h in hyps]
    refs_l = None if refs is None else [str(r) for r in refs]
    if is_chrf(m):
        return _chrf_matrix(m, hyps, refs_l)
    from .mbr import PairwiseUtility
    texts = hyps if refs_l is None else hyps + refs_l
    pool = _one_segment_pool(texts)
    M = next(PairwiseUtility(m, pool).matrices())[1]
    return M if refs_l is None else M[:len(hyps), len(hyps):].copy()


def _one_segment_pool(texts):
    from .oracle import Pool
    k = len(texts)
    return Pool(list(texts), np.array([0, k], dtype=np.int64), np.arange(k, dtype=np.int64), np.zeros(k),
                np.zeros((k, 0)))
