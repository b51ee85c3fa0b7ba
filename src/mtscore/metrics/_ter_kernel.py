"""Compiled TER kernel: Tercom-style greedy shifts over a beam-limited edit distance.

Reproduces sacreBLEU 2.6 ``lib_ter.translation_edit_rate`` exactly (same numbers, not just close):

* edit distance over word ids, unit costs; row ``i`` (hypothesis prefix of length ``i``) is computed
  only for ``j`` in ``[max(0, d - w), min(m + 1, d + w))`` with the pseudo-diagonal
  ``d = floor(i * m / n)`` and beam ``w = 25`` (``ceil(m / n / 2 + 25)`` when ``m / n / 2 > 25``);
  the last row is complete; cells outside the beam hold "infinity" (10**16); per cell the first
  strictly smaller of (diagonal no-op/substitution, up = delete a hypothesis word, left = insert a
  reference word) wins;
* the trace is read back from the bottom-right corner, flipped (insertions <-> deletions) and turned
  into an alignment ``align[ref position] -> hypothesis position`` plus error flags on both sides;
* shift candidates: for every hypothesis start ``sh``, every reference start ``sr`` with
  ``|sr - sh| <= 50``, and every common run length ``L = 1..10`` (in that order); a candidate is
  skipped when the hypothesis span has no error, the reference span has no error, or
  ``sh <= align[sr] < sh + L``; target positions ``idx`` are 0 for ``sr - 1 == -1`` and
  ``align[sr + k] + 1`` for ``k = -1..L-1`` (consecutive duplicates skipped); each evaluated
  target counts as one checked candidate and is ranked by ``(gain, L, -sh, -idx)`` (first maximum
  kept); after a run's targets, enumeration stops once 1000 candidates were checked in total;
* the best shift is applied while its gain is positive, except that the loop stops *without*
  applying it as soon as the running candidate count reached 1000;
* result = number of shifts + edit distance of the final hypothesis; an empty reference gives
  ``len(hyp)`` edits.

sacreBLEU caches matrix rows in a prefix trie; the rows are a pure function of the hypothesis
prefix (the length ratio is fixed because shifts keep the length), so the cache never changes a
value. Here a candidate reuses the rows of the current hypothesis up to the first changed position.
"""
from __future__ import annotations

import math

import numpy as np

INF = 10 ** 16
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000

OP_NOP = 0
OP_SUB = 1
OP_INS = 2  # consumes a reference word (before flipping)
OP_DEL = 3  # consumes a hypothesis word (before flipping)
OP_UNDEF = 4


def _beam(n: int, m: int):
    ratio = m / n if n > 0 else 1.0
    if BEAM_WIDTH < ratio / 2:
        bw = int(math.ceil(ratio / 2 + BEAM_WIDTH))
    else:
        bw = BEAM_WIDTH
    return ratio, bw


def _fill_rows(h, r, start, D, O, ratio, bw, with_ops):
    """Rows ``start+1 .. n`` of the beam edit-distance matrix from row ``start`` (``D``, ``O``: lists of rows)."""
    n = len(h)
    m = len(r)
    for i in range(start + 1, n + 1):
        up = D[i - 1]
        row = D[i] = [INF] * (m + 1)  # every cell "infinity", then the beam's cells below
        if with_ops:
            ops = O[i] = [OP_UNDEF] * (m + 1)
        pd = int(math.floor(i * ratio))
        lo = pd - bw
        if lo < 0:
            lo = 0
        hi = pd + bw
        if hi > m + 1:
            hi = m + 1
        if i == n:
            hi = m + 1
        w = h[i - 1]
        if not with_ops:  # a candidate's rows: the values alone, min(INF, diagonal, up + 1, left + 1) per cell
            if lo == 0:
                row[0] = up[0] + 1
                lo = 1
            for j in range(lo, hi):
                best = up[j - 1] if w == r[j - 1] else up[j - 1] + 1
                c = up[j] + 1
                if c < best:
                    best = c
                c = row[j - 1] + 1
                if c < best:
                    best = c
                row[j] = best if best < INF else INF
            continue
        for j in range(lo, hi):
            if j == 0:
                row[0] = up[0] + 1
                ops[0] = OP_DEL
                continue
            best = INF
            op = OP_UNDEF
            if w == r[j - 1]:
                c = up[j - 1]
                cop = OP_NOP
            else:
                c = up[j - 1] + 1
                cop = OP_SUB
            if best > c:
                best = c
                op = cop
            c = up[j] + 1
            if best > c:
                best = c
                op = OP_DEL
            c = row[j - 1] + 1
            if best > c:
                best = c
                op = OP_INS
            row[j] = best
            ops[j] = op


def _init_row0(D, O, m):
    for j in range(m + 1):
        D[0][j] = j
        O[0][j] = OP_INS


def _alignment(O, n, m, align, hyp_err, ref_err, trace):
    """Back-trace, flip and align; returns False on an undefined cell (sacreBLEU raises)."""
    i = n
    j = m
    k = 0
    while i > 0 or j > 0:
        op = O[i][j]
        trace[k] = op
        k += 1
        if op == OP_NOP or op == OP_SUB:
            i -= 1
            j -= 1
        elif op == OP_INS:
            j -= 1
        elif op == OP_DEL:
            i -= 1
        else:
            return False
    ph = -1
    pr = -1
    for t in range(k - 1, -1, -1):
        op = trace[t]
        if op == OP_NOP or op == OP_SUB:
            ph += 1
            pr += 1
            align[pr] = ph
            e = 1 if op == OP_SUB else 0
            hyp_err[ph] = e
            ref_err[pr] = e
        elif op == OP_DEL:  # flipped: an insertion into the reference = hypothesis word in error
            ph += 1
            hyp_err[ph] = 1
        else:  # OP_INS flipped: a deletion = reference word in error, aligned to the last hyp word
            pr += 1
            align[pr] = ph
            ref_err[pr] = 1
    return True


def _copy_clipped(src, a, b, dst, k):
    n = len(src)
    if a > n:
        a = n
    if b > n:
        b = n
    for t in range(a, b):
        dst[k] = src[t]
        k += 1
    return k


def _perform_shift(w, start, length, target, out):
    """sacreBLEU's three-case shift, with Python slice clipping."""
    if target < start:
        k = _copy_clipped(w, 0, target, out, 0)
        k = _copy_clipped(w, start, start + length, out, k)
        k = _copy_clipped(w, target, start, out, k)
        k = _copy_clipped(w, start + length, len(w), out, k)
    elif target > start + length:
        k = _copy_clipped(w, 0, start, out, 0)
        k = _copy_clipped(w, start + length, target, out, k)
        k = _copy_clipped(w, start, start + length, out, k)
        k = _copy_clipped(w, target, len(w), out, k)
    else:
        k = _copy_clipped(w, 0, start, out, 0)
        k = _copy_clipped(w, start + length, length + target, out, k)
        k = _copy_clipped(w, start, start + length, out, k)
        k = _copy_clipped(w, length + target, len(w), out, k)
    return k


def ter_edits(hyp, ref):
    """Number of TER edits (shifts + edit distance) of ``hyp`` against ``ref`` (int64 word ids).

    Returns -1 if the beam leaves the trace undefined (sacreBLEU raises an exception there).
    The work is done on Python lists of ints (element access on them is several times faster than on NumPy
    arrays; the values are the same).
    """
    ref = np.asarray(ref, dtype=np.int64).tolist()
    words = np.asarray(hyp, dtype=np.int64).tolist()
    n = len(words)
    m = len(ref)
    if m == 0:
        return n
    ratio, bw = _beam(n, m)
    D = [[0] * (m + 1) for _ in range(n + 1)]
    O = [[OP_UNDEF] * (m + 1) for _ in range(n + 1)]
    S = [[0] * (m + 1) for _ in range(n + 1)]  # scratch rows for candidates
    _init_row0(D, O, m)
    _init_row0(S, O, m)
    cand = [0] * n
    best_words = [0] * n
    align = [0] * m
    hyp_err = [0] * n
    ref_err = [0] * m
    trace = [OP_UNDEF] * (n + m)
    shifts = 0
    checked = 0
    while True:
        # pre-score and alignment of the current words
        _fill_rows(words, ref, 0, D, O, ratio, bw, True)
        pre = D[n][m]
        if not _alignment(O, n, m, align, hyp_err, ref_err, trace):
            return -1
        have = False
        b_gain = 0
        b_len = 0
        b_sh = 0
        b_idx = 0
        stop = False
        for sh in range(n):
            sr_lo = sh - MAX_SHIFT_DIST
            if sr_lo < 0:
                sr_lo = 0
            sr_hi = sh + MAX_SHIFT_DIST + 1
            if sr_hi > m:
                sr_hi = m
            for sr in range(sr_lo, sr_hi):
                L = 0
                while words[sh + L] == ref[sr + L] and L < MAX_SHIFT_SIZE:
                    L += 1
                    # -- candidate (sh, sr, L) --
                    ok = False
                    for t in range(sh, sh + L):
                        if hyp_err[t] != 0:
                            ok = True
                            break
                    if ok:
                        ok = False
                        for t in range(sr, sr + L):
                            if ref_err[t] != 0:
                                ok = True
                                break
                    if ok and not (sh <= align[sr] and align[sr] < sh + L):
                        prev_idx = -1
                        for off in range(-1, L):
                            p = sr + off
                            if p == -1:
                                idx = 0
                            elif p < m:
                                idx = align[p] + 1
                            else:
                                break
                            if idx == prev_idx:
                                continue
                            prev_idx = idx
                            _perform_shift(words, sh, L, idx, cand)
                            first = sh if sh < idx else idx
                            # rows 0..first are those of the current words
                            S[first][:] = D[first]
                            _fill_rows(cand, ref, first, S, O, ratio, bw, False)
                            gain = pre - S[n][m]
                            checked += 1
                            better = False
                            if not have:
                                better = True
                            elif gain != b_gain:
                                better = gain > b_gain
                            elif L != b_len:
                                better = L > b_len
                            elif sh != b_sh:
                                better = sh < b_sh
                            else:
                                better = idx < b_idx
                            if better:
                                have = True
                                b_gain = gain
                                b_len = L
                                b_sh = sh
                                b_idx = idx
                                for t in range(n):
                                    best_words[t] = cand[t]
                        if checked >= MAX_SHIFT_CANDIDATES:
                            stop = True
                            break
                    if sh + L == n or sr + L == m:
                        break
                if stop:
                    break
            if stop:
                break
        if checked >= MAX_SHIFT_CANDIDATES:
            break
        if not have or b_gain <= 0:
            break
        shifts += 1
        for t in range(n):
            words[t] = best_words[t]
    # the loop left D holding the matrix of the final words
    return shifts + D[n][m]


def ter_pairs(hyp_ids, hyp_off, ref_ids, ref_off, pair_hyp, pair_ref):
    """TER edits of many (hypothesis row, reference row) pairs of two ragged id arrays."""
    n_pairs = pair_hyp.shape[0]
    out = np.empty(n_pairs, dtype=np.int64)
    for k in range(n_pairs):
        a = pair_hyp[k]
        b = pair_ref[k]
        out[k] = ter_edits(hyp_ids[hyp_off[a]:hyp_off[a + 1]], ref_ids[ref_off[b]:ref_off[b + 1]])
    return out

# the reference of the compiled kernel (mtscore.ckernels dispatches to it without importing this module)
from ..ckernels import register_reference  # noqa: E402

register_reference("ter_pairs", ter_pairs)
