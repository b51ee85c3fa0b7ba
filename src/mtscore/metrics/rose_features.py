"""ROSE features (Song & Cohn 2011, docs/definitions.md §7), vectorized over a corpus.

Features 1-17 ("core"): n-gram precision without clipping (1-4), recall of the best reference per
order (5-8), F-measure (9-12), average precision (13), and word / function-word / punctuation /
content-word count differences normalised by the reference length (14-17). Features 18-33
("pos"): POS n-gram precision / recall / F (18-29) and mixed word-or-POS precision (30-33).

Everything runs over integer ids (``text.encode.Vocab``) in compiled kernels (``mtscore._cmetrics``; the
plain functions below are their reference implementations), one pass per segment;
there are no per-n-gram Python objects. Definitions (our reading of the paper, docs/definitions.md §7):

* ``P_n = #{candidate n-gram positions whose n-gram occurs in any reference} / #candidate n-grams``
  (no clipping); 0 when the candidate has no n-gram of order n.
* ``R_n^j = #{positions of reference j whose n-gram occurs in the candidate} / #n-grams of ref j``
  (0 when reference j has no n-gram of order n); ``R_n = max_j R_n^j`` (chosen per n).
* ``F_n = 2 P_n R_n / (P_n + R_n)``, 0 when ``P_n + R_n = 0``; ``avg_prec = mean(P_1..P_4)``.
* ``X_diff = (X(c) - X(r^j)) / max(len(r^j), 1)`` for X in {tokens, function words, punctuation
  tokens, content tokens}; with several references the reference with the smallest absolute
  value is used, per feature (ties: the smaller signed value, so the choice does not depend on
  the order of the references). An empty reference therefore gives ``X(c)``.
* punctuation token = a token made only of Unicode ``P*`` characters; function word = a token
  whose lowercase form is in the language's list; content = neither.
* mixed precision (30-33): a candidate n-gram matches if some reference n-gram has, at every
  position, the same word **or** the same POS tag; P = matched / candidate n-grams (no clipping).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import regex

from .._threadparam import with_threads
from ..ckernels import register_reference, rose_count_diffs, rose_mixed_prec, rose_ngram_pr

MAX_ORDER = 4
CORE_FEATURES: tuple[str, ...] = (
    tuple(f"prec_{n}" for n in range(1, 5)) + tuple(f"rec_{n}" for n in range(1, 5))
    + tuple(f"f_{n}" for n in range(1, 5))
    + ("avg_prec", "len_diff", "func_diff", "punct_diff", "content_diff"))
POS_FEATURES: tuple[str, ...] = (
    tuple(f"pos_prec_{n}" for n in range(1, 5)) + tuple(f"pos_rec_{n}" for n in range(1, 5))
    + tuple(f"pos_f_{n}" for n in range(1, 5)) + tuple(f"mixed_prec_{n}" for n in range(1, 5)))
ALL_FEATURES = CORE_FEATURES + POS_FEATURES
# version of the feature definitions; models record it and loading checks it
FEATURES_VERSION = "rose-features-1"

CONTENT, FUNCTION, PUNCT = 0, 1, 2
_PUNCT_RE = regex.compile(r"^\p{P}+$")


def is_punct(token: str) -> bool:
    return bool(_PUNCT_RE.match(token))


def token_classes(vocab_tokens: Sequence[str], function_words: frozenset[str]) -> np.ndarray:
    """Class of every vocabulary entry: 2 punctuation, 1 function word, 0 content (one pass over types)."""
    out = np.zeros(len(vocab_tokens), dtype=np.int8)
    for i, t in enumerate(vocab_tokens):
        if _PUNCT_RE.match(t):
            out[i] = PUNCT
        elif t.lower() in function_words:
            out[i] = FUNCTION
    return out


# ---------------------------------------------------------------------------------------------------
def _local_ids(keys, valid, out):
    """Dense ids (0..k-1) of ``keys[valid]`` written into ``out`` (-1 elsewhere); returns k."""
    n = keys.shape[0]
    idx = np.empty(n, dtype=np.int64)
    m = 0
    for p in range(n):
        out[p] = -1
        if valid[p]:
            idx[m] = p
            m += 1
    if m == 0:
        return 0
    sub = np.empty(m, dtype=np.int64)
    for q in range(m):
        sub[q] = keys[idx[q]]
    order = np.argsort(sub, kind="mergesort")
    k = 0
    prev = sub[order[0]]
    out[idx[order[0]]] = 0
    for q in range(1, m):
        v = sub[order[q]]
        if v != prev:
            k += 1
            prev = v
        out[idx[order[q]]] = k
    return k + 1


def _ngram_pr(h_ids, h_off, r_ids, r_off, seg_ref, vsize, max_order, prec, rec):
    """Unclipped n-gram precision (any reference) and best-reference recall, per segment and order."""
    n_seg = h_off.shape[0] - 1
    for i in range(n_seg):
        hs, he = h_off[i], h_off[i + 1]
        rs, re_ = seg_ref[i], seg_ref[i + 1]
        lc = he - hs
        total = lc
        for j in range(rs, re_):
            total += r_off[j + 1] - r_off[j]
        toks = np.empty(total, dtype=np.int64)
        row = np.empty(total, dtype=np.int64)  # 0 = candidate, 1.. = reference j - rs + 1
        rowend = np.empty(total, dtype=np.int64)
        p = 0
        for t in range(hs, he):
            toks[p] = h_ids[t]
            row[p] = 0
            rowend[p] = lc
            p += 1
        for j in range(rs, re_):
            a, b = r_off[j], r_off[j + 1]
            start = p
            for t in range(a, b):
                toks[p] = r_ids[t]
                row[p] = j - rs + 1
                p += 1
            for q in range(start, p):
                rowend[q] = p
        keys = toks.copy()
        ids = np.empty(total, dtype=np.int64)
        valid = np.empty(total, dtype=np.bool_)
        nref = re_ - rs
        for n in range(1, max_order + 1):
            for q in range(total):
                valid[q] = q + n <= rowend[q]
            if n > 1:
                for q in range(total):
                    if valid[q]:
                        keys[q] = ids[q] * vsize + toks[q + n - 1]
            k = _local_ids(keys, valid, ids)
            in_c = np.zeros(k, dtype=np.bool_)
            in_r = np.zeros(k, dtype=np.bool_)
            for q in range(total):
                if valid[q]:
                    if row[q] == 0:
                        in_c[ids[q]] = True
                    else:
                        in_r[ids[q]] = True
            den = lc - n + 1
            if den > 0:
                num = 0
                for q in range(lc):
                    if valid[q] and in_r[ids[q]]:
                        num += 1
                prec[i, n - 1] = num / den
            else:
                prec[i, n - 1] = 0.0
            best = 0.0
            q = lc
            for jj in range(nref):
                a = r_off[rs + jj]
                lr = r_off[rs + jj + 1] - a
                d = lr - n + 1
                num = 0
                for t in range(q, q + lr):
                    if valid[t] and in_c[ids[t]]:
                        num += 1
                if d > 0:
                    v = num / d
                    if v > best:
                        best = v
                q += lr
            rec[i, n - 1] = best


def _count_diffs(h_ids, h_off, r_ids, r_off, seg_ref, cls, out):
    """Signed count differences / max(len(ref), 1), reference with the smallest |value| per feature."""
    n_seg = h_off.shape[0] - 1
    for i in range(n_seg):
        c = np.zeros(4, dtype=np.float64)
        c[0] = h_off[i + 1] - h_off[i]
        for t in range(h_off[i], h_off[i + 1]):
            k = cls[h_ids[t]]
            if k == 1:
                c[1] += 1
            elif k == 2:
                c[2] += 1
            else:
                c[3] += 1
        best = np.empty(4, dtype=np.float64)
        for f in range(4):
            best[f] = np.inf
        for j in range(seg_ref[i], seg_ref[i + 1]):
            r = np.zeros(4, dtype=np.float64)
            r[0] = r_off[j + 1] - r_off[j]
            for t in range(r_off[j], r_off[j + 1]):
                k = cls[r_ids[t]]
                if k == 1:
                    r[1] += 1
                elif k == 2:
                    r[2] += 1
                else:
                    r[3] += 1
            den = max(r[0], 1.0)
            for f in range(4):
                v = (c[f] - r[f]) / den
                if abs(v) < abs(best[f]) or (abs(v) == abs(best[f]) and v < best[f]):
                    best[f] = v
        for f in range(4):
            out[i, f] = best[f]


def _mixed_prec(hw, ht, h_off, rw, rt, r_off, seg_ref, max_order, out):
    """Mixed word-or-POS n-gram precision (features 30-33), no clipping."""
    n_seg = h_off.shape[0] - 1
    for i in range(n_seg):
        hs, he = h_off[i], h_off[i + 1]
        lc = he - hs
        for n in range(1, max_order + 1):
            den = lc - n + 1
            if den <= 0:
                out[i, n - 1] = 0.0
                continue
            num = 0
            for p in range(hs, he - n + 1):
                found = False
                for j in range(seg_ref[i], seg_ref[i + 1]):
                    for s in range(r_off[j], r_off[j + 1] - n + 1):
                        ok = True
                        for k in range(n):
                            if hw[p + k] != rw[s + k] and ht[p + k] != rt[s + k]:
                                ok = False
                                break
                        if ok:
                            found = True
                            break
                    if found:
                        break
                if found:
                    num += 1
            out[i, n - 1] = num / den


def _f_measure(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    s = p + r
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, 2.0 * p * r / np.where(s > 0, s, 1.0), 0.0)


def _seg_ref_offsets(ref_counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(ref_counts) + 1, dtype=np.int64)
    np.cumsum(ref_counts, out=out[1:])
    return out


def ngram_block(h_ids, h_off, r_ids, r_off, seg_ref, vsize: int, max_order: int = MAX_ORDER) -> np.ndarray:
    """[N, 3*max_order] = precision 1..n, recall 1..n, F 1..n over encoded sequences."""
    n = len(h_off) - 1
    prec = np.zeros((n, max_order))
    rec = np.zeros((n, max_order))
    if n:
        rose_ngram_pr(h_ids, h_off, r_ids, r_off, seg_ref, max(vsize, 1), max_order, prec, rec)
    return np.hstack([prec, rec, _f_measure(prec, rec)])


def core_features(h_ids, h_off, r_ids, r_off, ref_counts, cls: np.ndarray, vsize: int) -> np.ndarray:
    """Features 1-17 over encoded ids; ``cls[id]`` is the token class (content/function/punct)."""
    seg_ref = _seg_ref_offsets(np.asarray(ref_counts, dtype=np.int64))
    ng = ngram_block(h_ids, h_off, r_ids, r_off, seg_ref, vsize)
    counts = np.zeros((len(h_off) - 1, 4))
    if len(counts):
        rose_count_diffs(h_ids, h_off, r_ids, r_off, seg_ref, cls.astype(np.int8), counts)
    avg = ng[:, :MAX_ORDER].mean(axis=1, keepdims=True)
    return np.hstack([ng, avg, counts])


def pos_features(hw, ht, h_off, rw, rt, r_off, ref_counts, tag_vsize: int) -> np.ndarray:
    """Features 18-33: POS n-gram P/R/F over tag ids ``ht``/``rt`` and mixed word-or-POS precision."""
    seg_ref = _seg_ref_offsets(np.asarray(ref_counts, dtype=np.int64))
    ng = ngram_block(ht, h_off, rt, r_off, seg_ref, tag_vsize)
    mixed = np.zeros((len(h_off) - 1, MAX_ORDER))
    if len(mixed):
        rose_mixed_prec(hw, ht, h_off, rw, rt, r_off, seg_ref, MAX_ORDER, mixed)
    return np.hstack([ng, mixed])


# ---------------------------------------------------------------------------------------------------
# Text -> features
def _encode_tokens(vocab: dict, lines_tokens: Sequence[Sequence[str]]):
    get = vocab.setdefault
    lengths = [len(t) for t in lines_tokens]
    flat = [get(t, len(vocab)) for toks in lines_tokens for t in toks]
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=off[1:])
    return np.asarray(flat, dtype=np.int64), off


@with_threads
def extract_features(hyps: Sequence[str], refs: Sequence[Sequence[str]], *, tokenize: str = "13a",
                     lowercase: bool = False, function_words: frozenset[str] = frozenset(),
                     pos: str | None = None) -> np.ndarray:
    """Feature matrix ``[N, 17]`` (``pos=None``) or ``[N, 33]`` for a corpus (refs sentence-major).

    ``pos``: ``None`` (core features only), ``"textblob"`` (tag tokens with TextBlob's bundled
    Brill/Pattern English tagger, extra ``pos``) or ``"pretagged"`` (every token is ``word/TAG``;
    no tokenizer is applied).
    """
    from ..text.encode import encode_texts, split_rows
    from ..tokenize import tokenize_corpus
    from .rose_pos import split_pretagged, tag_tokens

    flat_refs = [r for seg in refs for r in seg]
    ref_counts = np.fromiter((len(seg) for seg in refs), dtype=np.int64, count=len(refs))
    if pos is None:
        both, n_types, types = encode_texts(list(hyps) + flat_refs, tokenize, lowercase, with_types=True)
        h, r = split_rows(both, len(hyps))
        cls = token_classes(types, function_words)
        return core_features(h.ids, h.offsets, r.ids, r.offsets, ref_counts, cls, n_types)
    if pos == "pretagged":
        hw, ht = split_pretagged(hyps, "hypothesis")
        rw, rt = split_pretagged(flat_refs, "reference")
    else:
        hw = [ln.split() for ln in tokenize_corpus(hyps, tokenize, lowercase=False)]
        rw = [ln.split() for ln in tokenize_corpus(flat_refs, tokenize, lowercase=False)]
        ht = tag_tokens(hw, pos)
        rt = tag_tokens(rw, pos)
    if lowercase:
        hw = [[t.lower() for t in toks] for toks in hw]
        rw = [[t.lower() for t in toks] for toks in rw]
    wv: dict = {}
    hwi, h_off = _encode_tokens(wv, hw)
    rwi, r_off = _encode_tokens(wv, rw)
    tv: dict = {}
    hti, _ = _encode_tokens(tv, ht)
    rti, _ = _encode_tokens(tv, rt)
    cls = token_classes(list(wv), function_words)
    core = core_features(hwi, h_off, rwi, r_off, ref_counts, cls, len(wv))
    return np.hstack([core, pos_features(hwi, hti, h_off, rwi, rti, r_off, ref_counts, len(tv))])


register_reference("rose_ngram_pr", _ngram_pr)
register_reference("rose_count_diffs", _count_diffs)
register_reference("rose_mixed_prec", _mixed_prec)
