"""Compiled per-segment n-gram match counting (chrF's character and word n-grams).

Input: one flat int64 symbol array (characters as code points, or word ids), ``text_off`` (text ``t``
is ``sym[text_off[t]:text_off[t+1]]``) and ``seg_text_off`` (segment ``s`` owns texts
``seg_text_off[s] .. seg_text_off[s+1]-1``: its hypothesis first, then its references). For every
(segment, reference) pair and order ``n = 1..max_order`` it writes three counts:
hypothesis n-grams (0 when the reference has no n-gram of that order, as sacreBLEU counts),
reference n-grams, and clipped matches ``Σ_g min(#hyp(g), #ref(g))``.

N-gram identity is exact: inside a segment, the n-grams of order ``n`` get dense local ids from
an exact hash table (full keys compared) over the pairs (id of the (n-1)-gram at ``i``, id of the
symbol at ``i+n-1``): equal ids <=> equal n-grams, no unchecked hashing.
"""
from __future__ import annotations

import numpy as np


def _dense_ids(keys, out, tkeys, tvals):
    """``out[k]`` = dense id of ``keys[k]`` (ids in order of first occurrence; equal keys <=> equal
    ids). Open addressing over the non-negative int64 keys, every probe compares the full key, so
    there are no collisions in the result. ``tkeys``/``tvals``: scratch of a power-of-two size
    larger than ``2 * len(keys)``. Returns the number of distinct keys."""
    cap = tkeys.shape[0]
    bits = 0
    while (1 << bits) < cap:
        bits += 1
    shift = np.uint64(64 - bits)
    for k in range(cap):
        tkeys[k] = -1
    g = 0
    for k in range(keys.shape[0]):
        key = keys[k]
        slot = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> shift)  # Fibonacci hashing
        while True:
            tk = tkeys[slot]
            if tk == key:
                out[k] = tvals[slot]
                break
            if tk == -1:
                tkeys[slot] = key
                tvals[slot] = g
                out[k] = g
                g += 1
                break
            slot = (slot + 1) & (cap - 1)
    return g


def _segment(sym, text_off, t0, t1, pair0, max_order, out, col0):
    a = text_off[t0]
    b = text_off[t1]
    size = b - a
    if size == 0:
        return
    end = np.empty(size, dtype=np.int64)  # end (local, exclusive) of the text holding each position
    for t in range(t0, t1):
        for q in range(text_off[t] - a, text_off[t + 1] - a):
            end[q] = text_off[t + 1] - a
    cap = 16
    while cap < 2 * size + 2:
        cap *= 2
    tkeys = np.empty(cap, dtype=np.int64)
    tvals = np.empty(cap, dtype=np.int64)
    ids1 = np.empty(size, dtype=np.int64)
    _dense_ids(sym[a:b], ids1, tkeys, tvals)
    ids = ids1.copy()
    pos = np.empty(size, dtype=np.int64)
    keys = np.empty(size, dtype=np.int64)
    gid = np.empty(size, dtype=np.int64)
    hc = np.zeros(size + 1, dtype=np.int64)
    rc = np.zeros(size + 1, dtype=np.int64)
    stride = np.int64(size)
    for n in range(1, max_order + 1):
        if n > 1:
            k = 0
            for q in range(size):
                if q + n <= end[q]:
                    pos[k] = q
                    keys[k] = ids[q] * stride + ids1[q + n - 1]
                    k += 1
            if k == 0:
                break  # no n-gram of this order (nor higher) anywhere in the segment
            _dense_ids(keys[:k], gid[:k], tkeys, tvals)
            for j in range(k):
                ids[pos[j]] = gid[j]
        col = col0 + 3 * (n - 1)
        # hypothesis counts
        hs = text_off[t0] - a
        he = text_off[t0 + 1] - a - n + 1
        n_hyp = 0
        for q in range(hs, he):
            hc[ids[q]] += 1
            n_hyp += 1
        for t in range(t0 + 1, t1):
            rs = text_off[t] - a
            re_ = text_off[t + 1] - a - n + 1
            n_ref = 0
            match = 0
            for q in range(rs, re_):
                g = ids[q]
                rc[g] += 1
                n_ref += 1
                if rc[g] <= hc[g]:
                    match += 1
            for q in range(rs, re_):
                rc[ids[q]] = 0
            p = pair0 + (t - t0 - 1)
            out[p, col] = n_hyp if n_ref > 0 else 0
            out[p, col + 1] = n_ref
            out[p, col + 2] = match
        for q in range(hs, he):
            hc[ids[q]] = 0


def ngram_pair_stats(sym, text_off, seg_text_off, max_order, out, col0):
    """Fill ``out[pair, col0 + 3*(n-1) + {0,1,2}]`` (see module doc); ``out`` must start zeroed."""
    n_seg = seg_text_off.shape[0] - 1
    with np.errstate(over="ignore"):  # the uint64 Fibonacci hash of _dense_ids wraps on purpose
        for s in range(n_seg):
            t0 = seg_text_off[s]
            t1 = seg_text_off[s + 1]
            _segment(sym, text_off, t0, t1, t0 - s, max_order, out, col0)


def _is_ascii_punct(c):
    return (33 <= c <= 47) or (58 <= c <= 64) or (91 <= c <= 96) or (123 <= c <= 126)


def chrf_word_ids(cps, text_off, ws_table):
    """chrF++ word tokens of every text, interned to exact ids.

    Tokens are the maximal runs of non-whitespace code points (``ws_table[c]`` says whether ``c`` is
    whitespace; code points beyond the table are not); a run longer than one character is split once:
    a trailing ASCII punctuation character becomes its own token, or else a leading one does.
    Returns ``(ids, offsets)``: text ``t``'s token ids are ``ids[offsets[t]:offsets[t+1]]``; equal ids
    <=> equal token strings (full comparison on every hash hit).
    """
    with np.errstate(over="ignore"):  # the uint64 FNV-style hash wraps on purpose
        return _chrf_word_ids(cps, text_off, ws_table)


def _chrf_word_ids(cps, text_off, ws_table):
    n_text = text_off.shape[0] - 1
    nc = cps.shape[0]
    tw = ws_table.shape[0]
    tok_s = np.empty(nc + 1, dtype=np.int64)
    tok_e = np.empty(nc + 1, dtype=np.int64)
    offsets = np.zeros(n_text + 1, dtype=np.int64)
    k = 0
    for t in range(n_text):
        q = text_off[t]
        end = text_off[t + 1]
        while q < end:
            c = cps[q]
            if c < tw and ws_table[c]:
                q += 1
                continue
            s = q
            while q < end:
                c = cps[q]
                if c < tw and ws_table[c]:
                    break
                q += 1
            e = q
            if e - s >= 2 and _is_ascii_punct(cps[e - 1]):
                tok_s[k] = s
                tok_e[k] = e - 1
                tok_s[k + 1] = e - 1
                tok_e[k + 1] = e
                k += 2
            elif e - s >= 2 and _is_ascii_punct(cps[s]):
                tok_s[k] = s
                tok_e[k] = s + 1
                tok_s[k + 1] = s + 1
                tok_e[k + 1] = e
                k += 2
            else:
                tok_s[k] = s
                tok_e[k] = e
                k += 1
        offsets[t + 1] = k
    ids = np.empty(k, dtype=np.int64)
    cap = 16
    while cap < 2 * k + 2:
        cap *= 2
    table = np.full(cap, -1, dtype=np.int64)  # slot -> representative token index
    mask = cap - 1
    bits = 0
    while (1 << bits) < cap:
        bits += 1
    shift = np.uint64(64 - bits)
    n_ids = 0
    for i in range(k):
        s = tok_s[i]
        e = tok_e[i]
        h = np.uint64(e - s)
        for q in range(s, e):
            h = (h ^ np.uint64(cps[q])) * np.uint64(0x100000001B3)
        h = (h ^ (h >> np.uint64(29))) * np.uint64(0x9E3779B97F4A7C15)
        slot = np.int64(h >> shift)
        while True:
            rep = table[slot]
            if rep == -1:
                table[slot] = i
                ids[i] = n_ids
                n_ids += 1
                break
            rs = tok_s[rep]
            re_ = tok_e[rep]
            same = (re_ - rs) == (e - s)
            if same:
                for d in range(e - s):
                    if cps[rs + d] != cps[s + d]:
                        same = False
                        break
            if same:
                ids[i] = ids[rep]
                break
            slot = (slot + 1) & mask
    return ids, offsets


def drop_whitespace(cps, text_off, ws_table):
    """Remove whitespace code points (``ws_table[c]``; none beyond the table); new text offsets."""
    tw = ws_table.shape[0]
    out = np.empty(cps.shape[0], dtype=cps.dtype)
    off = np.zeros(text_off.shape[0], dtype=np.int64)
    k = 0
    for t in range(text_off.shape[0] - 1):
        for q in range(text_off[t], text_off[t + 1]):
            c = cps[q]
            if c < tw and ws_table[c]:
                continue
            out[k] = c
            k += 1
        off[t + 1] = k
    return out[:k], off


def segment_code_points(hyps, refs, ws_table):
    """chrF's input layout: the code points (int64) of every segment's texts, its hypothesis then its
    references, concatenated; the text offsets (text ``t`` is ``cps[text_off[t]:text_off[t+1]]``) and the
    segment text offsets (segment ``s`` owns texts ``seg_text_off[s] .. seg_text_off[s+1]-1``). Lone
    surrogates are kept as their code points. With ``ws_table`` (not None) whitespace is left out, as
    :func:`drop_whitespace` leaves it out."""
    texts = []
    for h, seg in zip(hyps, refs):
        texts.append(h)
        texts.extend(seg)
    counts = np.fromiter((len(seg) for seg in refs), dtype=np.int64, count=len(refs))
    seg_text_off = np.zeros(len(refs) + 1, dtype=np.int64)
    np.cumsum(counts + 1, out=seg_text_off[1:])
    lens = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    off = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    cps = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    if ws_table is not None:
        cps, off = drop_whitespace(cps, off, ws_table)
    return cps, off, seg_text_off


# the references of the compiled kernels (mtscore.ckernels dispatches to them without importing this module)
from ..ckernels import register_reference  # noqa: E402

register_reference("ngram_pair_stats", ngram_pair_stats)
register_reference("chrf_word_ids", chrf_word_ids)
register_reference("drop_whitespace", drop_whitespace)
register_reference("segment_code_points", segment_code_points)
