"""NIST score (Doddington 2002) exactly as mteval-v13a computes it; docs/definitions.md §3.

Information weights come from **all references of the whole test set** (every reference of every
segment, never the candidates):

    info(w_1..w_n) = log2( C(w_1..w_{n-1}) / C(w_1..w_n) ),   C(()) = total number of reference words

    NIST = BP · Σ_{n=1}^{N} Σ_i Σ_{g ∈ g_n(c_i)} info(g) · min(#_{c_i}(g), max_j #_{r_i^j}(g)) / max(1, Σ_i l_{i,n})
    BP   = exp(−β · ln²(min(1, L_sys / L̄_ref))),  β = −ln 0.5 / ln² 1.5,  L_sys / L̄_ref <= 0 -> BP = 0

with N = 5 (``max_order``), l_{i,n} the number of candidate n-grams, L_sys = Σ_i |c_i| and
L̄_ref the average reference length: Σ_i mean_j |r_i^j| (= Σ_j Σ_i |r_i^j| / R when every segment has
R references, as in mteval; segments with fewer references contribute their own mean).
Several references are handled correctly (clipping at the maximum count over the segment's
references, weights over all references), unlike NLTK's ``corpus_nist`` which picks one
"best" reference per segment and order.

Statistics per segment: ``info_1..N`` (info-weighted clipped matches), ``total_1..N`` (candidate
n-grams), ``hyp_len``, ``ref_len`` (mean reference length). The statistics depend on the whole
reference set through the information weights, so NIST is **not** decomposable. Segment scores use
the global weights and the segment's own reference length (as mteval does).

Case: mteval lowercases unless ``-c``; we are case-sensitive by default (as sacreBLEU's BLEU) and
``lowercase=True`` applies mteval's ASCII-only lowercasing (``tr/A-Z/a-z/``). Tokenization: 13a (the
mteval rules) by default.

Empty references: an n-gram of an empty reference set has no weight; if the average reference
length is 0 the brevity penalty is 1 (nothing to be short of), so a segment or corpus without
reference words scores 0 (no matches). An empty candidate scores 0 (BP = 0).
"""
from __future__ import annotations

from typing import ClassVar
import math
from dataclasses import dataclass, replace as _replace

import numpy as np

from ..params import LOWERCASE, TOKENIZE, validate_config, Param as P
from ._common import EncodedCorpus, encode_corpus, fmt_num, num
from .base import Metric, MetricResult
from ..ckernels import libm_apply, nist_clipped_info, nist_next_order_ids  # compiled; *_ref are the references

NIST_BETA = -math.log(0.5) / math.log(1.5) ** 2
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class NISTConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = (
        P("max_order", "int", 5, lo=1, hi=9, flags=("--max-order",), help="maximum n-gram order", sig="order"),
        TOKENIZE,
        _replace(LOWERCASE, help="mteval's ASCII-only lowercasing (its default without -c)"),
    )
    max_order: int = 5
    tokenize: str = "13a"
    lowercase: bool = False  # True: mteval's ASCII-only lowercasing (its default without -c)

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


def nist_length_penalty(hyp_len, ref_len):
    """mteval's ``nist_length_penalty`` of L_sys / L̄_ref (vectorized); ref_len == 0 -> 1."""
    hyp_len = np.asarray(hyp_len, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ref_len > 0, hyp_len / np.where(ref_len > 0, ref_len, 1.0), 1.0)
        lr = libm_apply("log", np.where(ratio > 0, ratio, 1.0))
        bp = np.where(ratio >= 1, 1.0, np.where(ratio <= 0, 0.0, libm_apply("exp", -NIST_BETA * lr * lr)))
    return bp if bp.ndim else float(bp)


def _room(part) -> np.ndarray:
    """For every token: how many tokens of its row start there (an n-gram starts where room >= n)."""
    return part.lengths.repeat(part.lengths) - (np.arange(len(part.ids), dtype=np.int64)
                                                - part.offsets[:-1].repeat(part.lengths))


def _clipped_info_ref(h_g, h_off, r_g, r_off, seg_start, info, out):
    """out[i] = Σ_{g in hyp i} info[g] · min(#_hyp(g), max_j #_ref_j(g)) for one n-gram order.

    ``h_g``/``r_g``: n-gram ids in text order, rows delimited by ``h_off`` (segments) / ``r_off``
    (pairs; pairs of segment i are seg_start[i]:seg_start[i+1]). Counting uses scratch arrays indexed
    by n-gram id, reset after each segment: O(tokens) in all.
    """
    n_ids = len(info)
    tmp = np.zeros(n_ids, dtype=np.int64)  # count in the current reference
    mx = np.zeros(n_ids, dtype=np.int64)  # max count over the segment's references
    hc = np.zeros(n_ids, dtype=np.int64)  # count in the hypothesis
    for s in range(len(h_off) - 1):
        for pr in range(seg_start[s], seg_start[s + 1]):
            for q in range(r_off[pr], r_off[pr + 1]):
                g = r_g[q]
                tmp[g] += 1
                if tmp[g] > mx[g]:
                    mx[g] = tmp[g]
            for q in range(r_off[pr], r_off[pr + 1]):
                tmp[r_g[q]] = 0
        for p in range(h_off[s], h_off[s + 1]):
            if h_g[p] >= 0:
                hc[h_g[p]] += 1
        acc = 0.0
        for p in range(h_off[s], h_off[s + 1]):
            g = h_g[p]
            if g < 0:  # occurs in no reference
                continue
            c = hc[g]
            if c > 0:  # first occurrence of g in this hypothesis
                m = mx[g]
                if m > 0:
                    acc += info[g] * (c if c < m else m)
                hc[g] = 0
        out[s] = acc
        for pr in range(seg_start[s], seg_start[s + 1]):
            for q in range(r_off[pr], r_off[pr + 1]):
                mx[r_g[q]] = 0


def _next_order_ids_ref(prev, toks, off, n, vsize, first_ref_row):
    """Exact ids of the n-grams starting at each token position, from the (n-1)-gram ids ``prev``.

    Rows ``first_ref_row..`` are references: their n-grams get ids 0..n_ids-1 (first-occurrence order)
    through an open-addressing hash table keyed by ``prev * vsize + next token`` (an exact packing, so
    no collisions are possible). Hypothesis rows only look up: an n-gram that occurs in no reference
    (or whose prefix occurs in none) gets -1, as does a position where no n-gram starts.
    Returns (ids, n_ids).
    """
    n_tok = len(toks)
    cur = np.full(n_tok, -1, dtype=np.int64)
    n_ref_tok = n_tok - off[first_ref_row]
    bits = 4
    while (1 << bits) < 2 * n_ref_tok + 2:
        bits += 1
    size = 1 << bits
    mask = size - 1
    keys = np.full(size, -1, dtype=np.int64)
    vals = np.empty(size, dtype=np.int64)
    shift = np.uint64(64 - bits)
    mult = np.uint64(0x9E3779B97F4A7C15)
    n_ids = 0
    for row in range(first_ref_row, len(off) - 1):
        for s in range(off[row], off[row + 1] - n + 1):
            key = prev[s] * vsize + toks[s + n - 1]
            h = np.int64((np.uint64(key) * mult) >> shift)
            while True:
                k = keys[h]
                if k == key:
                    cur[s] = vals[h]
                    break
                if k == -1:
                    keys[h] = key
                    vals[h] = n_ids
                    cur[s] = n_ids
                    n_ids += 1
                    break
                h = (h + 1) & mask
    for row in range(first_ref_row):
        for s in range(off[row], off[row + 1] - n + 1):
            if prev[s] < 0:
                continue
            key = prev[s] * vsize + toks[s + n - 1]
            h = np.int64((np.uint64(key) * mult) >> shift)
            while True:
                k = keys[h]
                if k == key:
                    cur[s] = vals[h]
                    break
                if k == -1:
                    break
                h = (h + 1) & mask
    return cur, n_ids


def _row_offsets(lengths: np.ndarray, n: int) -> np.ndarray:
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.maximum(lengths - n + 1, 0), out=off[1:])
    return off


def nist_statistics(enc: EncodedCorpus, max_order: int) -> np.ndarray:
    h, r = enc.hyp, enc.ref
    n_seg = h.n_rows
    hyp_len = h.lengths.astype(np.float64)
    counts = enc.refs_per_segment
    ref_len = (np.add.reduceat(r.lengths.astype(np.float64), enc.seg_start[:-1]) / counts) if n_seg else np.zeros(0)
    info_cols = np.zeros((n_seg, max_order))
    totals = np.maximum(hyp_len[:, None] - np.arange(max_order)[None, :], 0.0)
    if len(r.ids) == 0 or len(h.ids) == 0:
        return np.hstack([info_cols, totals, hyp_len[:, None], ref_len[:, None]])
    toks = np.concatenate([h.ids, r.ids])
    off = np.concatenate([h.offsets, r.offsets[1:] + h.offsets[-1]])
    n_h = len(h.ids)
    vsize = np.int64(int(toks.max()) + 1)
    if (len(r.ids) + 1) * int(vsize) >= 2**62:  # pragma: no cover - keys must stay exact int64 packings
        raise OverflowError("corpus too large for exact n-gram packing")
    total_words = float(len(r.ids))
    cur, n_ids = toks, int(vsize)
    prev_count = None
    room_h, room_r = _room(h), _room(r)
    for n in range(1, max_order + 1):
        if n > 1:
            prev = cur
            cur, n_ids = nist_next_order_ids(prev, toks, off, n, vsize, h.n_rows)
        hs, rs = np.flatnonzero(room_h >= n), np.flatnonzero(room_r >= n)
        hg, rg = cur[hs], cur[n_h + rs]
        rcount = np.bincount(rg, minlength=n_ids).astype(np.float64)
        if n == 1:
            prefix_count = np.full(n_ids, total_words)
        else:
            prefix_count = np.ones(n_ids)
            prefix_count[rg] = prev_count[prev[n_h + rs]]
        with np.errstate(divide="ignore", invalid="ignore"):
            # log2 through the C library (ckernels.libm_apply): the same bits on every CPU
            info = np.where(rcount > 0, libm_apply("log2", prefix_count / np.where(rcount > 0, rcount, 1.0)), 0.0)
        prev_count = rcount
        # clipped counts: candidate count vs max count over the segment's references
        col = np.zeros(n_seg)
        nist_clipped_info(hg, _row_offsets(h.lengths, n), rg, _row_offsets(r.lengths, n), enc.seg_start, info, col)
        info_cols[:, n - 1] = col
    return np.hstack([info_cols, totals, hyp_len[:, None], ref_len[:, None]])


def nist_from_stats(summed, max_order: int):
    s = np.asarray(summed, dtype=np.float64)
    n = max_order
    info, total = s[..., :n], s[..., n:2 * n]
    prec = (info / np.maximum(total, 1.0)).sum(-1)
    out = prec * nist_length_penalty(s[..., 2 * n], s[..., 2 * n + 1])
    return out if np.ndim(out) else float(out)


class NIST(Metric):
    """NIST score as mteval-v13a (cumulative at ``max_order`` = 5)."""

    name = "nist"
    display_name = "NIST"
    Config = NISTConfig
    higher_is_better = True
    decomposable = False
    range = (0.0, float("inf"))
    partitionable = False  # information weights come from all references of the test set

    def __init__(self, config=None, **params):
        super().__init__(config, **params)
        n = self.config.max_order
        self.columns = tuple([f"info_{i}" for i in range(1, n + 1)] + [f"total_{i}" for i in range(1, n + 1)]
                             + ["hyp_len", "ref_len"])

    def _validate(self) -> None:
        """Every field is checked by its declaration (the Config's PARAMS)."""

    def _stats(self, hyps, refs) -> np.ndarray:
        c = self.config
        if c.lowercase:
            hyps = [h.translate(_ASCII_LOWER) for h in hyps]
            refs = [[x.translate(_ASCII_LOWER) for x in seg] for seg in refs]
        enc = encode_corpus(hyps, refs, c.tokenize, False)
        return nist_statistics(enc, c.max_order)

    def score(self, summed) -> np.ndarray:
        return nist_from_stats(summed, self.config.max_order)

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        n = self.config.max_order
        s = np.asarray(summed, dtype=np.float64)
        per_order = s[:n] / np.maximum(s[n:2 * n], 1.0)
        bp = float(nist_length_penalty(s[2 * n], s[2 * n + 1]))
        ratio = float(s[2 * n] / s[2 * n + 1]) if s[2 * n + 1] > 0 else 0.0
        detail = "/".join(f"{x:.3f}" for x in per_order) + (
            f" (BP = {bp:.3f} ratio = {ratio:.3f} hyp_len = {fmt_num(s[2 * n])} ref_len = {fmt_num(s[2 * n + 1])})")
        comps = {"info_per_order": [float(x) for x in per_order], "bp": bp, "ratio": ratio,
                 "hyp_len": num(s[2 * n]), "ref_len": num(s[2 * n + 1]),
                 "totals": [num(x) for x in s[n:2 * n]]}
        return MetricResult(self.name, self.display_name, float(self.score(s)), signature, comps, detail)

    def signature_items(self, nrefs):
        return self.declared_signature(("nrefs", nrefs), "case", "tok", "order")

# the reference(s) of the compiled kernel(s): mtscore.ckernels dispatches here without importing this module
from ..ckernels import register_reference  # noqa: E402

register_reference("nist_next_order_ids", _next_order_ids_ref)
register_reference("nist_clipped_info", _clipped_info_ref)
