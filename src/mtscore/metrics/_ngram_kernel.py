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
from numba import njit, prange


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True, parallel=True)
def ngram_pair_stats(sym, text_off, seg_text_off, max_order, out, col0):
    """Fill ``out[pair, col0 + 3*(n-1) + {0,1,2}]`` (see module doc); ``out`` must start zeroed."""
    n_seg = seg_text_off.shape[0] - 1
    for s in prange(n_seg):
        t0 = seg_text_off[s]
        t1 = seg_text_off[s + 1]
        _segment(sym, text_off, t0, t1, t0 - s, max_order, out, col0)
