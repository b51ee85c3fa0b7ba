"""Vectorized n-gram bookkeeping of the analyses: tokens encoded to ids once, exact n-gram ids per
order from ``np.unique`` on packed (previous n-gram id, next token) pairs, and the per-segment counting of the
explorer's matched n-gram orders, of the n-gram differences and of word accuracy on those ids. No
per-n-gram Python objects; the plain Python functions they replace stay as the references the tests compare
them with (``analysis.explore.matched_orders``, ``analysis.ngrams.ngram_counts``)."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def ragged_ids(rows: Sequence[Sequence[str]], index: dict) -> tuple[np.ndarray, np.ndarray]:
    """Token lists -> (ids, offsets) with the shared ``index`` (token -> id, extended in place)."""
    from itertools import chain
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    for t in dict.fromkeys(chain.from_iterable(rows)):  # new types get ids in order of first occurrence
        index.setdefault(t, len(index))
    ids = np.fromiter(map(index.__getitem__, chain.from_iterable(rows)), dtype=np.int64, count=int(off[-1]))
    return ids, off


def ngram_layers(parts: Sequence[tuple[np.ndarray, np.ndarray]], max_order: int):
    """For n = 1..max_order: ``([(gid, row, start) per part], n_ids)``: every n-gram position of every part (rows
    ``ids[off[i]:off[i+1]]``) in text order, its exact id (equal ids <=> equal token sequences, across parts),
    its row and the flat index of its first token."""
    info = []
    for ids, off in parts:
        lens = np.diff(off)
        row = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
        pos = np.arange(len(ids), dtype=np.int64) - off[:-1][row]
        info.append((np.asarray(ids, dtype=np.int64), row, pos, lens[row]))
    vsize = max([int(ids.max()) + 1 for ids, *_ in info if len(ids)] or [1])
    out = [([(ids, row, np.arange(len(ids), dtype=np.int64)) for ids, row, _, _ in info], vsize)]
    prev = [ids for ids, *_ in info]
    for n in range(2, max_order + 1):
        starts = [np.flatnonzero(pos + n <= ln) for _, _, pos, ln in info]
        keys = [prev[k][s] * np.int64(vsize) + info[k][0][s + n - 1] for k, s in enumerate(starts)]
        uniq, inv = np.unique(np.concatenate(keys), return_inverse=True)
        inv = inv.astype(np.int64).reshape(-1)
        cut = np.cumsum([0] + [len(x) for x in keys])
        layer = []
        for k, s in enumerate(starts):
            g = inv[cut[k]:cut[k + 1]]
            layer.append((g, info[k][1][s], s))
            full = np.zeros(len(info[k][0]), dtype=np.int64)
            full[s] = g
            prev[k] = full
        if len(uniq) and len(uniq) * vsize >= 2**62:  # pragma: no cover - needs > 2^31 distinct n-grams
            raise OverflowError("corpus too large for exact n-gram packing")
        out.append((layer, len(uniq)))
    return out


def occurrence_rank(keys: np.ndarray) -> np.ndarray:
    """Per item, how many earlier items (in array order) have the same key."""
    n = len(keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    o = np.argsort(keys, kind="stable")
    sk = keys[o]
    idx = np.arange(n, dtype=np.int64)
    start = np.maximum.accumulate(np.where(np.r_[True, sk[1:] != sk[:-1]], idx, 0))
    rank = np.empty(n, dtype=np.int64)
    rank[o] = idx - start
    return rank


def max_count_by_group(keys: np.ndarray, group_of_key) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ``keys``, then per group key ``group_of_key(unique key)`` the largest count:
    (sorted group keys, their maxima)."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    u, c = np.unique(keys, return_counts=True)
    g = group_of_key(u)
    o = np.argsort(g, kind="stable")
    g, c = g[o], c[o]
    first = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    return g[first], np.maximum.reduceat(c, first)


def lookup(sorted_keys: np.ndarray, values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``values`` of ``keys`` in ``sorted_keys`` (0 where absent)."""
    if len(sorted_keys) == 0:
        return np.zeros(len(keys), dtype=np.int64)
    j = np.searchsorted(sorted_keys, keys)
    jc = np.minimum(j, len(sorted_keys) - 1)
    return np.where(sorted_keys[jc] == keys, values[jc], 0)


def matched_orders_vec(h_ids, h_off, r_ids, r_off, ref_seg, max_order: int = 4) -> np.ndarray:
    """Vectorized :func:`mtscore.analysis.explore.matched_orders` of every segment: per hypothesis token (flat,
    rows ``h_off``) the highest order n <= max_order of a matched n-gram covering it. Reference rows ``r_off``
    belong to segment ``ref_seg[row]``. The k-th occurrence (left to right) of an n-gram in a hypothesis is
    matched iff k <= its largest count in one reference of the segment: the greedy left-to-right clipping."""
    L = len(h_ids)
    best = np.zeros(L, dtype=np.int64)
    ref_seg = np.asarray(ref_seg, dtype=np.int64)
    for n, (layer, n_ids) in enumerate(ngram_layers([(h_ids, h_off), (r_ids, r_off)], max_order), 1):
        (hg, hrow, hst), (rg, rrow, _) = layer
        if len(hg) == 0:
            continue
        nid = np.int64(n_ids)
        keys, avail = max_count_by_group(rrow * nid + rg, lambda u: ref_seg[u // nid] * nid + u % nid)
        hk = hrow * nid + hg
        st = hst[occurrence_rank(hk) < lookup(keys, avail, hk)]
        if len(st):
            diff = np.bincount(st, minlength=L + 1) - np.bincount(st + n, minlength=L + 1)
            best[np.cumsum(diff)[:L] > 0] = n
    return best


def _counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    u, c = np.unique(keys, return_counts=True)
    return u, c.astype(np.int64)


def ngram_match_counts(hyp_parts, ref, min_n: int, max_n: int):
    """compare-mt's n-gram counts (:func:`mtscore.analysis.ngrams.ngram_counts`) of several systems against one
    reference row per segment, on exact n-gram ids. Returns ``(grams, per_system)``: ``grams[n]`` =
    ``(first flat position of each n-gram id in the concatenation of all parts, part of it)`` and per system and
    order n a dict of arrays over the ids of order n: ``total, match, over, under`` and the matched counts per
    segment as sparse ``(seg, gid, count)``."""
    parts = list(hyp_parts) + [ref]
    layers = ngram_layers(parts, max_n)
    grams, per_system = {}, [dict() for _ in hyp_parts]
    for n in range(min_n, max_n + 1):
        layer, n_ids = layers[n - 1]
        nid = np.int64(n_ids)
        g_all = np.concatenate([g for g, _, _ in layer])
        part_all = np.repeat(np.arange(len(parts)), [len(g) for g, _, _ in layer])
        st_all = np.concatenate([s for _, _, s in layer])
        _, first = np.unique(g_all, return_index=True)
        grams[n] = (st_all[first], part_all[first])
        rg, rrow, _ = layer[-1]
        ukr, cr = _counts(rrow * nid + rg)
        for k in range(len(hyp_parts)):
            hg, hrow, _ = layer[k]
            ukh, ch = _counts(hrow * nid + hg)
            m = np.minimum(ch, lookup(ukr, cr, ukh))
            gh, gr = ukh % nid, ukr % nid
            total = np.bincount(gh, ch, minlength=n_ids).astype(np.int64)
            match = np.bincount(gh, m, minlength=n_ids).astype(np.int64)
            under = np.bincount(gr, cr - lookup(ukh, m, ukr), minlength=n_ids).astype(np.int64)
            keep = m > 0
            per_system[k][n] = {"total": total, "match": match, "over": total - match, "under": under,
                                "seg": (ukh[keep] // nid, gh[keep], m[keep])}
    return grams, per_system
