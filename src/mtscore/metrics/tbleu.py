"""tBLEU, tolerant BLEU (Libovický & Pecina 2014), docs/definitions.md §6.

tBLEU is BLEU whose n-gram matches are *weighted*: every test word is aligned one-to-one to the
reference words by a minimum-cost maximum matching (Hungarian algorithm) under the *affix
distance* AD; a matched test word with ``AD <= epsilon`` is "corrected" to its reference word and
weighted ``1 - AD``; a matching n-gram contributes the mean weight of its words instead of 1.

Statistics per segment are BLEU's (``hyp_len, ref_len, match_1..N, total_1..N``) with weighted
(float) matches, so corpus aggregation, brevity penalty and smoothing are BLEU's own
(:func:`mtscore.metrics.bleu.bleu_from_stats`, i.e. :func:`~mtscore.metrics.bleu.bleu_row`). With ``epsilon = 0`` tBLEU equals BLEU.

Decisions (docs/definitions.md §6):

* AD uses ``min{1, ...}`` (the paper prints max, which contradicts its own example);
* several longest common substrings: the minimum distance over every occurrence pair;
* words are compared as Unicode code points after NFC normalisation, case-sensitively (on the
  tokens the configured tokenizer / lowercasing produces);
* clipping with weights: for a corrected n-gram type occurring k times, the ``min(k, count in the
  reference)`` occurrences with the highest scores are credited (ties: earliest position);
* several references (``multi_ref="position"``, default): each reference gets its own matching,
  corrections and weights; every candidate n-gram position is credited with the best score any
  reference credits it with (reduces to BLEU's max-count clipping at ``epsilon = 0``).
  ``multi_ref="sentence"``: per segment and order, the single reference with the highest total
  weighted match.

Speed: a pair of words can only be corrected when ``AD <= epsilon``, which needs a long common
substring (``|S| >= max(1, ||a| - |b||) / epsilon``). A segment-reference pair in which no pair of
different words passes that bound cannot change, whatever the matching is, so the Hungarian
algorithm runs only for the pairs that can (exact pruning: the result is the same as with
matching everywhere). AD runs in a compiled kernel (``_cmetrics.tbleu_candidate_costs``; a per-call cache of distinct word pairs was
measured slower than recomputing: ~100 ns per pair).
"""
from __future__ import annotations

import dataclasses
import math
import unicodedata
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..params import MULTI_REF_POS, Param as P
from ..errors import InvalidParameterError
from ..text import Ragged, Vocab, ngram_ids
from .base import normalize_corpus
from .bleu import BLEU, BLEUConfig, effective_ref_lengths

MULTI_REF = ("position", "sentence")
DEFAULT_EPSILON = 0.05


@dataclass(frozen=True)
class TBLEUConfig(BLEUConfig):
    """BLEU's parameters plus the correction threshold ``epsilon`` (0 <= epsilon <= 1) and the
    multi-reference rule ``multi_ref`` ("position" or "sentence")."""
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = BLEUConfig.PARAMS + (
        P("epsilon", "float", 0.05, lo=0.0, hi=1.0, flags=("--tbleu-epsilon",),
          help="affix-distance threshold for corrections", sig="eps", sig_fmt=lambda e: _fmt_eps(e)),
        P("multi_ref", "choice", "position", choices=MULTI_REF_POS, flags=("--tbleu-multi-ref",),
          help="several references: best reference per n-gram position or per sentence and order",
          sig="mref", sig_when="not_default"),
    )

    epsilon: float = DEFAULT_EPSILON
    multi_ref: str = "position"


# ---------------------------------------------------------------------------------------------------
# affix distance
# ---------------------------------------------------------------------------------------------------
def _affix_parts(codes, oa, n, ob, m, buf):
    """(d, L): L = length of a longest common substring of a = codes[oa:oa+n] and
    b = codes[ob:ob+m] (0: none); d = min over the occurrence pairs of such substrings of
    Levenshtein(prefix_a, prefix_b) + Levenshtein(suffix_a, suffix_b), or -1 where the distance is
    provably >= L (AD = 1) and was not computed. ``buf``: int32 scratch (reallocated if too small)."""
    if n == 0 or m == 0:
        return -1, 0
    w = m + 1
    size = (n + 1) * w
    if 3 * size > len(buf):
        buf = np.empty(3 * size, dtype=np.int32)
    # C[i, j] = length of the common suffix of a[:i] and b[:j]
    best = 0
    for j in range(w):
        buf[j] = 0
    for i in range(1, n + 1):
        ca = codes[oa + i - 1]
        row = i * w
        buf[row] = 0
        for j in range(1, w):
            if ca == codes[ob + j - 1]:
                v = buf[row - w + j - 1] + 1
                buf[row + j] = v
                if v > best:
                    best = v
            else:
                buf[row + j] = 0
    if best == 0:
        return -1, 0
    if abs(n - m) >= best:  # affix edits >= ||a| - |b|| >= |S|  ->  AD = 1
        return -1, best
    # P[i, j] = Levenshtein(a[:i], b[:j]);  Q[i, j] = Levenshtein(a[i:], b[j:])
    P = size
    Q = 2 * size
    for j in range(w):
        buf[P + j] = j
        buf[Q + n * w + j] = m - j
    for i in range(1, n + 1):
        row = P + i * w
        buf[row] = i
        ca = codes[oa + i - 1]
        for j in range(1, w):
            sub = buf[row - w + j - 1] + (0 if ca == codes[ob + j - 1] else 1)
            x = buf[row - w + j] + 1
            y = buf[row + j - 1] + 1
            if x < sub:
                sub = x
            if y < sub:
                sub = y
            buf[row + j] = sub
    for i in range(n - 1, -1, -1):
        row = Q + i * w
        buf[row + m] = n - i
        ca = codes[oa + i]
        for j in range(m - 1, -1, -1):
            sub = buf[row + w + j + 1] + (0 if ca == codes[ob + j] else 1)
            x = buf[row + w + j] + 1
            y = buf[row + j + 1] + 1
            if x < sub:
                sub = x
            if y < sub:
                sub = y
            buf[row + j] = sub
    d = 1 << 30
    for i in range(best, n + 1):
        for j in range(best, w):
            if buf[i * w + j] == best:
                v = buf[P + (i - best) * w + j - best] + buf[Q + i * w + j]
                if v < d:
                    d = v
    return d, best


def _ad_value(codes, oa, n, ob, m, buf):
    d, L = _affix_parts(codes, oa, n, ob, m, buf)
    if L == 0 or d < 0 or d >= L:
        return 1.0
    return d / L


def _ad_types(codes, offs, masks, a, b, buf):
    """AD between word types a and b (NFC code points ``codes[offs[a]:offs[a+1]]``)."""
    if a == b:
        return 0.0
    if masks[a] & masks[b] == 0:  # no character in common
        return 1.0
    oa, ob = offs[a], offs[b]
    n, m = offs[a + 1] - oa, offs[b + 1] - ob
    if abs(n - m) >= (n if n < m else m):  # affix edits >= ||a| - |b|| >= min(|a|, |b|) >= |S|
        return 1.0
    return _ad_value(codes, oa, n, ob, m, buf)


def _maybe_correctable(offs, canon, a, b, eps):
    """Necessary condition for AD(a, b) <= eps for different types a != b: equal NFC forms
    (AD = 0), or a common substring long enough, |S| >= max(1, ||a| - |b||) / eps."""
    if canon[a] == canon[b]:
        return True
    n, m = offs[a + 1] - offs[a], offs[b + 1] - offs[b]
    lo = n if n < m else m
    need = abs(n - m)
    if need < 1:
        need = 1
    return need <= eps * lo * (1.0 + 1e-12) + 1e-12


def _candidate_costs_ref(hp_ids, hp_offs, r_ids, r_offs, seg, codes, offs, masks, canon, twin, eps, force):
    """For every (segment, reference) pair (``seg`` = its segment, pairs grouped by segment):
    does some pair of different words have AD <= eps? For those pairs (all pairs with words on
    both sides when ``force``) return the full AD cost matrices (rows = test words, columns =
    reference words), flattened, at ``costs[cost_offs[p]:cost_offs[p + 1]]``.

    The references of one segment share most words, so AD is computed once per segment on a table
    (distinct test words x distinct reference words) and the pairs' matrices are read from it; the
    table is only built when the cheap length bound says some pair could be corrected."""
    buf = np.empty(3 * 64 * 64, dtype=np.int32)
    P = len(hp_offs) - 1
    flags = np.zeros(P, dtype=np.bool_)
    cost_offs = np.zeros(P + 1, dtype=np.int64)
    sizes = np.zeros(P, dtype=np.int64)
    costs = np.empty(1024, dtype=np.float64)
    used = 0
    p = 0
    while p < P:
        q = p + 1
        while q < P and seg[q] == seg[p]:
            q += 1
        h0, h1 = hp_offs[p], hp_offs[p + 1]  # every pair of the segment has the same test sentence
        nref = r_offs[q] - r_offs[p]
        possible = False
        if h1 > h0 and nref > 0:
            if force:
                possible = True
            else:
                for t in range(h0, h1):
                    a = hp_ids[t]
                    # a word shorter than 1/eps is only correctable to an equal NFC form
                    if (offs[a + 1] - offs[a]) * eps * (1.0 + 1e-12) + 1e-12 < 1.0 and not twin[a]:
                        continue
                    for j in range(r_offs[p], r_offs[q]):
                        b = r_ids[j]
                        if a != b and _maybe_correctable(offs, canon, a, b, eps):
                            possible = True
                            break
                    if possible:
                        break
        if possible:
            uh = np.unique(hp_ids[h0:h1])
            ur = np.unique(r_ids[r_offs[p]:r_offs[q]])
            M = np.empty((len(uh), len(ur)), dtype=np.float64)
            for i in range(len(uh)):
                for j in range(len(ur)):
                    M[i, j] = _ad_types(codes, offs, masks, uh[i], ur[j], buf)
            ih = np.searchsorted(uh, hp_ids[h0:h1])
            for x in range(p, q):
                nr = r_offs[x + 1] - r_offs[x]
                if nr == 0:
                    continue
                ir = np.searchsorted(ur, r_ids[r_offs[x]:r_offs[x + 1]])
                ok = force
                if not ok:
                    for t in range(len(ih)):
                        for j in range(nr):
                            if uh[ih[t]] != ur[ir[j]] and M[ih[t], ir[j]] <= eps:
                                ok = True
                                break
                        if ok:
                            break
                if not ok:
                    continue
                flags[x] = True
                need = used + len(ih) * nr
                if need > len(costs):
                    size = len(costs)
                    while size < need:
                        size *= 2
                    grown = np.empty(size, dtype=np.float64)
                    grown[:used] = costs[:used]
                    costs = grown
                for t in range(len(ih)):
                    for j in range(nr):
                        costs[used] = M[ih[t], ir[j]]
                        used += 1
                sizes[x] = len(ih) * nr
        p = q
    for x in range(P):  # matrices were appended in pair order
        cost_offs[x + 1] = cost_offs[x] + sizes[x]
    return flags, cost_offs, costs[:used]


CHUNK_COST = 16_000_000  # (words + 1) x (reference words + 1) per call of the compiled kernel (~50 ms)


def _candidate_costs(hp_ids, hp_offs, r_ids, r_offs, seg, codes, offs, masks, canon, twin, eps, force,
                     budget: float | None = None):
    """:func:`_candidate_costs_ref` on the compiled kernel (``mtscore._cmetrics``) when it is built, called on
    chunks of whole segments of about ``budget`` (default :data:`CHUNK_COST`) units of work each, so that
    Ctrl-C is handled between two calls; the result does not depend on the chunking."""
    from ..ckernels import _bounds, _cmetrics, compiled

    if not compiled("tbleu_candidate_costs"):
        return _candidate_costs_ref(hp_ids, hp_offs, r_ids, r_offs, seg, codes, offs, masks, canon, twin, eps, force)
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    hp_ids, hp_offs, r_ids, r_offs, seg = (i64(x) for x in (hp_ids, hp_offs, r_ids, r_offs, seg))
    types = (i64(codes), i64(offs), np.ascontiguousarray(masks, dtype=np.uint64), i64(canon),
             np.ascontiguousarray(twin, dtype=np.bool_), float(eps), bool(force))
    P = len(hp_offs) - 1
    if P <= 0:
        firsts = np.zeros(1, dtype=np.int64)
        cuts = [0]
    else:  # chunk boundaries at segment starts (a segment's pairs share one table in the kernel)
        firsts = np.flatnonzero(np.concatenate([[True], seg[1:] != seg[:-1]])).astype(np.int64)
        work = (np.diff(hp_offs) + 1) * (np.diff(r_offs) + 1)
        cuts = _bounds(np.add.reduceat(work, firsts), CHUNK_COST if budget is None else budget, len(firsts))
    edges = np.concatenate([firsts, [max(P, 0)]])[cuts] if P > 0 else np.array([0, 0])
    flags_l, offs_l, costs_l = [], [], []
    base = 0
    for a, b in zip(edges[:-1].tolist(), edges[1:].tolist()):
        h0, h1, r0, r1 = int(hp_offs[a]), int(hp_offs[b]), int(r_offs[a]), int(r_offs[b])
        fl, co, cs = _cmetrics.tbleu_candidate_costs(hp_ids[h0:h1], hp_offs[a:b + 1] - h0, r_ids[r0:r1],
                                                      r_offs[a:b + 1] - r0, seg[a:b], *types)
        co = np.frombuffer(co, dtype=np.int64)
        flags_l.append(np.frombuffer(fl, dtype=np.bool_))
        offs_l.append(co[:-1] + base)
        costs_l.append(np.frombuffer(cs, dtype=np.float64))
        base += int(co[-1])
    cost_offs = np.concatenate(offs_l + [np.array([base], dtype=np.int64)])
    flags = np.concatenate(flags_l) if flags_l else np.zeros(0, dtype=np.bool_)
    costs = np.concatenate(costs_l) if costs_l else np.zeros(0, dtype=np.float64)
    return flags, cost_offs, costs


def _affix_parts_fast(codes, n: int, m: int):
    """``_affix_parts(codes, 0, n, n, m)`` on the compiled kernel when it is built."""
    from ..ckernels import _cmetrics, compiled

    if not compiled("affix_parts"):
        return _affix_parts(codes, 0, n, n, m, np.empty(0, dtype=np.int32))
    return _cmetrics.affix_parts(np.ascontiguousarray(codes, dtype=np.int64), 0, n, n, m)


def _nfc_codes(words: Sequence[str]):
    """Ragged NFC code points of ``words``, a 64-bit character mask per word, the NFC strings."""
    lens = np.zeros(len(words) + 1, dtype=np.int64)
    parts = []
    for i, w in enumerate(words):
        w = unicodedata.normalize("NFC", w)
        parts.append(w)
        lens[i + 1] = len(w)
    offs = np.cumsum(lens)
    joined = "".join(parts)
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.int64) if joined else np.zeros(0, np.int64)
    bits = np.left_shift(np.uint64(1), (codes % 64).astype(np.uint64)) if len(codes) else np.zeros(0, np.uint64)
    word_of = np.repeat(np.arange(len(words)), np.diff(offs))
    masks = np.zeros(len(words), dtype=np.uint64)
    np.bitwise_or.at(masks, word_of, bits)
    return codes, offs, masks, parts


def _nfc_classes(nfc_words: Sequence[str]):
    """``canon[id]``: one id per distinct NFC form; ``twin[id]``: another type has the same NFC form."""
    first: dict[str, int] = {}
    canon = np.fromiter((first.setdefault(w, i) for i, w in enumerate(nfc_words)), dtype=np.int64,
                        count=len(nfc_words))
    twin = np.bincount(canon, minlength=len(nfc_words))[canon] > 1 if len(canon) else np.zeros(0, dtype=bool)
    return canon, twin


def affix_distance(ref_word: str, test_word: str) -> float:
    """AD(w_r, w_t) of docs/definitions.md §6.1: in [0, 1], symmetric, 0 exactly for (NFC-)identical words."""
    if not isinstance(ref_word, str) or not isinstance(test_word, str):
        raise InvalidParameterError("affix_distance: both words must be strings")
    codes, offs, _, _ = _nfc_codes([ref_word, test_word])
    n, m = int(offs[1]), int(offs[2] - offs[1])
    if n == m and np.array_equal(codes[:n], codes[n:]):
        return 0.0
    d, L = _affix_parts_fast(codes, n, m)
    return 1.0 if (L == 0 or d < 0 or d >= L) else d / L


def affix_parts(ref_word: str, test_word: str) -> tuple[int, int]:
    """``(edits, |S|)`` behind AD: AD = min(1, edits / |S|) (1 when |S| = 0). ``edits`` is -1
    where the kernel proved AD = 1 without computing it."""
    codes, offs, _, _ = _nfc_codes([ref_word, test_word])
    n, m = int(offs[1]), int(offs[2] - offs[1])
    d, L = _affix_parts_fast(codes, n, m)
    return int(d), int(L)


# ---------------------------------------------------------------------------------------------------
# matching, correction, weighted matches
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Corrected:
    hyp: Ragged  # one row per (segment, reference) pair: the corrected test sentence (type ids)
    weights: np.ndarray  # float64, aligned with hyp.ids
    links: list | None  # per pair: (test idx, ref idx, AD) of the matching, when requested


def correct_pairs(h: Ragged, r: Ragged, pair_seg: np.ndarray, words: Sequence[str], epsilon: float,
                  force_matching: bool = False, keep_links: bool = False) -> _Corrected:
    """Match, correct and weight the test sentence of every (segment, reference) pair.

    ``h``: encoded test sentences (one row per segment); ``r``: encoded references (one row per
    pair, grouped by segment); ``words[id]`` = the token of type ``id``.
    """
    lens = h.lengths[pair_seg]
    hp_offs = np.zeros(len(pair_seg) + 1, dtype=np.int64)
    np.cumsum(lens, out=hp_offs[1:])
    gather = np.repeat(h.offsets[:-1][pair_seg] - hp_offs[:-1], lens) + np.arange(hp_offs[-1], dtype=np.int64)
    hp_ids = h.ids[gather].copy()
    weights = np.ones(len(hp_ids), dtype=np.float64)
    codes, offs, masks, nfc = _nfc_codes(words)
    canon, twin = _nfc_classes(nfc)
    force = bool(force_matching or keep_links)
    flags, cost_offs, costs = _candidate_costs(hp_ids, hp_offs, r.ids, r.offsets, pair_seg, codes, offs, masks,
                                               canon, twin,
                                               float(epsilon), force)
    links = [[] for _ in range(len(pair_seg))] if keep_links else None
    orig = hp_ids.copy()
    for p in np.flatnonzero(flags):
        h0, r0 = hp_offs[p], r.offsets[p]
        nt, nr = hp_offs[p + 1] - h0, r.offsets[p + 1] - r0
        cost = costs[cost_offs[p]:cost_offs[p + 1]].reshape(nt, nr)
        rows, cols = linear_sum_assignment(cost)
        ad = cost[rows, cols]
        ok = ad <= epsilon
        t_idx, r_idx = h0 + rows[ok], r0 + cols[ok]
        changed = orig[t_idx] != r.ids[r_idx]
        hp_ids[t_idx[changed]] = r.ids[r_idx[changed]]
        weights[t_idx[changed]] = 1.0 - ad[ok][changed]
        if keep_links:
            links[p] = [(int(a), int(b), float(c)) for a, b, c in zip(rows, cols, ad)]
    return _Corrected(Ragged(hp_ids, hp_offs), weights, links)


def _window_starts(rg: Ragged, n: int) -> np.ndarray:
    """Flat token indices where an n-gram starts (same order as ``ngram_ids``)."""
    pos = np.arange(len(rg.ids), dtype=np.int64) - rg.offsets[:-1].repeat(rg.lengths)
    return np.flatnonzero(pos + n <= rg.lengths.repeat(rg.lengths))


def weighted_matches(corr: _Corrected, r: Ragged, pair_seg: np.ndarray, h: Ragged, max_order: int,
                     multi_ref: str = "position", detail: bool = False):
    """Weighted clipped n-gram matches per segment and order (``[n_segments, max_order]``).

    With ``detail`` also returns, per order, ``(pair, start, score, credited)`` arrays of every
    candidate n-gram position of every pair (start = position in the test sentence).
    """
    n_seg = h.n_rows
    hc = corr.hyp
    out = np.zeros((n_seg, max_order))
    details = []
    grams = ngram_ids([hc, r], max_order)
    for n, (gids, rows, n_ids) in enumerate(grams, 1):
        starts = _window_starts(hc, n)
        g_h, row_h = gids[0], rows[0]
        score = corr.weights[starts].copy()
        for k in range(1, n):
            score += corr.weights[starts + k]
        score /= n
        if len(starts) == 0:
            if detail:
                details.append((row_h, starts, score, np.zeros(0, dtype=bool)))
            continue
        G = np.int64(n_ids)
        hk = row_h * G + g_h
        rk, rc = np.unique(rows[1] * G + gids[1], return_counts=True)
        if len(rk):
            idx = np.minimum(np.searchsorted(rk, hk), len(rk) - 1)
            cnt = np.where(rk[idx] == hk, rc[idx], 0)
        else:
            cnt = np.zeros(len(hk), dtype=np.int64)
        # rank of each occurrence within its (pair, n-gram) group: highest score first, then earliest
        order = np.lexsort((starts, -score, hk))
        hks = hk[order]
        first = np.flatnonzero(np.r_[True, hks[1:] != hks[:-1]])
        grp_start = np.repeat(first, np.diff(np.r_[first, len(hks)]))
        rank = np.empty(len(hk), dtype=np.int64)
        rank[order] = np.arange(len(hk)) - grp_start
        credited = rank < cnt
        credit = np.where(credited, score, 0.0)
        if detail:
            details.append((row_h, starts - hc.offsets[row_h], score, credited))
        if multi_ref == "sentence":
            per_pair = np.bincount(row_h, weights=credit, minlength=len(pair_seg))
            seg_start = np.searchsorted(pair_seg, np.arange(n_seg))
            out[:, n - 1] = np.maximum.reduceat(per_pair, seg_start)
        else:
            seg = pair_seg[row_h]
            flat = h.offsets[seg] + (starts - hc.offsets[row_h])  # the position in the segment's test sentence
            best = np.zeros(len(h.ids))
            np.maximum.at(best, flat, credit)
            out[:, n - 1] = np.bincount(h.row_index(), weights=best, minlength=n_seg)
    return (out, details) if detail else out


# ---------------------------------------------------------------------------------------------------
class TBLEU(BLEU):
    """tBLEU. ``TBLEU(epsilon=0.05).corpus(hyps, refs)``; BLEU's options apply unchanged."""

    name = "tbleu"
    display_name = "tBLEU"
    Config = TBLEUConfig
    higher_is_better = True
    decomposable = False
    range = (0.0, 100.0)

    def _validate(self) -> None:
        super()._validate()  # fields: their declarations (PARAMS)

    def _encode(self, hyps: list[str], refs: list[list[str]]):
        flat_refs = [x for seg in refs for x in seg]
        pair_seg = np.repeat(np.arange(len(refs), dtype=np.int64), [len(seg) for seg in refs])
        vocab = Vocab()
        h = vocab.encode(self._preprocess(hyps))
        r = vocab.encode(self._tokenized_refs(flat_refs))
        return h, r, pair_seg, list(vocab.index)

    def _tokenized_refs(self, flat_refs: list[str]) -> list[str]:
        # Scoring many systems against the same references is the common case: tokenize them once.
        key = tuple(flat_refs)
        cached = getattr(self, "_ref_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        toks = self._preprocess(flat_refs)
        self._ref_cache = (key, toks)
        return toks

    def _stats(self, hyps: list[str], refs: list[list[str]], force_matching: bool = False) -> np.ndarray:
        c = self.config
        h, r, pair_seg, words = self._encode(hyps, refs)
        corr = correct_pairs(h, r, pair_seg, words, c.epsilon, force_matching=force_matching)
        matches = weighted_matches(corr, r, pair_seg, h, c.max_order, c.multi_ref)
        hyp_len = h.lengths.astype(np.float64)
        ref_len = effective_ref_lengths(hyp_len, r.lengths, pair_seg, c.ref_length)
        totals = np.maximum(hyp_len[:, None] - np.arange(c.max_order)[None, :], 0)
        return np.hstack([hyp_len[:, None], ref_len[:, None], matches, totals])

    def explain(self, hyp: str, refs) -> "TBLEUExplanation":
        """Explain this metric on one segment (``refs``: one reference string or a list)."""
        return _explain(self, hyp, refs)


def _fmt_eps(e: float) -> str:
    s = f"{e:g}"
    return s if float(s) == e else repr(e)


__all__ = ["TBLEU", "TBLEUConfig", "affix_distance", "affix_parts", "correct_pairs", "weighted_matches"]


# ---------------------------------------------------------------------------------------------------
# explanation of one segment (the paper's Figure 1)
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TBLEULink:
    """One test word: the reference word it is matched to (None: unmatched), the affix distance,
    whether it was corrected, and its weight."""

    test_index: int
    test_word: str
    ref_index: int | None
    ref_word: str | None
    distance: float | None
    corrected: bool
    weight: float


@dataclass(frozen=True)
class TBLEUNgram:
    """A candidate n-gram position: original and corrected words, score (mean weight), credited?"""

    position: int
    original: tuple[str, ...]
    corrected: tuple[str, ...]
    score: float
    credited: bool


@dataclass(frozen=True)
class TBLEUReferenceView:
    index: int  # 0-based reference number
    reference: str
    tokens: tuple[str, ...]
    links: tuple[TBLEULink, ...]  # one per test word, in test order
    corrected: tuple[str, ...]
    weights: tuple[float, ...]
    ngrams: tuple[tuple[TBLEUNgram, ...], ...]  # per order 1..N
    matches: tuple[float, ...]  # weighted clipped matches per order against this reference alone


@dataclass(frozen=True)
class TBLEUExplanation:
    """Everything tBLEU does on one segment. Render with :func:`mtscore.report.render_explanation`."""

    hypothesis: str
    tokens: tuple[str, ...]
    epsilon: float
    multi_ref: str
    references: tuple[TBLEUReferenceView, ...]
    matches: tuple[float, ...]  # combined over references (the segment's statistics)
    totals: tuple[int, ...]
    bleu_matches: tuple[int, ...]  # plain BLEU clipped counts, for comparison
    hyp_len: int
    ref_len: float
    score: float  # sentence tBLEU (the metric's sentence_scores)
    bleu_score: float  # sentence BLEU with the same options
    signature: str

    @property
    def precisions(self) -> tuple[float, ...]:
        return tuple(m / t if t else 0.0 for m, t in zip(self.matches, self.totals))

    @property
    def bleu_precisions(self) -> tuple[float, ...]:
        return tuple(m / t if t else 0.0 for m, t in zip(self.bleu_matches, self.totals))

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["precisions"] = list(self.precisions)
        d["bleu_precisions"] = list(self.bleu_precisions)
        return d


def _explain(metric: "TBLEU", hyp: str, refs) -> TBLEUExplanation:
    if not isinstance(hyp, str):
        raise InvalidParameterError(f"hyp: expected one segment (a string), got {type(hyp).__name__}")
    hyps, refs_n = normalize_corpus([hyp], [refs])
    c = metric.config
    h, r, pair_seg, words = metric._encode(hyps, refs_n)
    corr = correct_pairs(h, r, pair_seg, words, c.epsilon, keep_links=True)
    matches, details = weighted_matches(corr, r, pair_seg, h, c.max_order, c.multi_ref, detail=True)
    tokens = tuple(words[i] for i in h.row(0))
    views = []
    for p in range(len(pair_seg)):
        rt = tuple(words[i] for i in r.row(p))
        ct = tuple(words[i] for i in corr.hyp.row(p))
        w = tuple(float(x) for x in corr.weights[corr.hyp.offsets[p]:corr.hyp.offsets[p + 1]])
        linked = {t: (j, ad) for t, j, ad in corr.links[p]}
        links = []
        for t, tok in enumerate(tokens):
            j, ad = linked.get(t, (None, None))
            links.append(TBLEULink(t, tok, j, rt[j] if j is not None else None, ad, ct[t] != tok, w[t]))
        grams, per_order = [], []
        for n, (rows, starts, score, credited) in enumerate(details, 1):
            sel = np.flatnonzero(rows == p)
            gl = tuple(TBLEUNgram(int(starts[k]), tokens[starts[k]:starts[k] + n], ct[starts[k]:starts[k] + n],
                                  float(score[k]), bool(credited[k])) for k in sel)
            grams.append(gl)
            per_order.append(float(sum(g.score for g in gl if g.credited)))
        views.append(TBLEUReferenceView(p, refs_n[0][p], rt, tuple(links), ct, w, tuple(grams), tuple(per_order)))
    hyp_len = len(tokens)
    ref_len = float(effective_ref_lengths(np.array([float(hyp_len)]), r.lengths, pair_seg, c.ref_length)[0])
    totals = tuple(max(hyp_len - k, 0) for k in range(c.max_order))
    row = np.array([hyp_len, ref_len, *matches[0], *totals], dtype=np.float64)
    bleu = BLEU(config=BLEUConfig(**{f.name: getattr(c, f.name) for f in dataclasses.fields(BLEUConfig)}))
    bstats = bleu.stats(hyps, refs_n)
    return TBLEUExplanation(
        hypothesis=hyp, tokens=tokens, epsilon=c.epsilon, multi_ref=c.multi_ref, references=tuple(views),
        matches=tuple(float(x) for x in matches[0]), totals=totals,
        bleu_matches=tuple(int(x) for x in bstats.values[0, 2:2 + c.max_order]),
        hyp_len=hyp_len, ref_len=ref_len, score=float(metric.sentence_scores(row[None])[0]),
        bleu_score=float(bleu.sentence_scores(bstats)[0]),
        signature=metric.sentence_signature(metric.stats(hyps, refs_n)))


def explain(hyp: str, refs, epsilon: float = DEFAULT_EPSILON, **params) -> TBLEUExplanation:
    """Explain tBLEU on one segment: the matching, corrected words, weights and n-gram credits.

    ``refs`` is one reference (a string) or a list of references; ``params`` are the other
    :class:`TBLEUConfig` fields (``tokenize``, ``lowercase``, ``max_order``, ``multi_ref`` ...).
    """
    return TBLEU(epsilon=epsilon, **params).explain(hyp, refs)


__all__ += ["explain", "TBLEUExplanation", "TBLEUReferenceView", "TBLEULink", "TBLEUNgram"]
