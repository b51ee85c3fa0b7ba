"""Compiled fast path for BLEU statistics (DESIGN §5): tokenize + encode + count in numba kernels.

The plain path (``tokenize_corpus`` -> :class:`~mtscore.text.encode.Vocab` -> sort-based NumPy
counting) is the reference; this module must give *identical* statistics and is tested against it
and against a plain-Python ``Counter`` oracle (``tests/test_bleu_fastpath.py``).

Pipeline
--------
1. All lines of a corpus (hypotheses, then every reference, sentence-major) are joined by ``\\n``
   (optionally ``str.lower()``-ed as one string, as sacreBLEU lowercases) and encoded to UTF-8 once.
2. :func:`_encode_kernel` walks the byte array line by line. With ``rules_13a`` it applies the 13a
   rules (SPEC §1.6) as literal byte-level emulations of sacreBLEU's ``str.replace``/``re.sub`` passes;
   then it splits on whitespace exactly like :meth:`str.split` (ASCII *and* the multi-byte Unicode
   whitespace characters) and assigns every token a dense integer id through an open-addressing hash
   table keyed on the token's bytes. A hash hit is only accepted after a byte-by-byte comparison, so
   token identity is exact (no unchecked collisions).
3. :func:`_bleu_kernel` counts clipped n-gram matches per segment with a small per-segment hash table:
   an n-gram is keyed *exactly* by (local id of its (n-1)-gram prefix, id of its last token) packed into
   one int64, so equal keys <=> equal token sequences. Only hypothesis n-grams are inserted; reference
   n-grams are looked up (an n-gram whose prefix is not in the hypothesis cannot match).

Why byte-level emulation of the 13a regexes is exact: every 13a pattern consists of ASCII characters
and the classes ``[^0-9]`` ("any character but an ASCII digit"). A non-ASCII character is a run of
bytes >= 0x80, each of which is a non-digit, non-symbol, non-period byte, so a match can only start at a
byte where the character-level match starts (or at the last byte of a multi-byte character for the
``([^0-9])([\\.,])`` rule), and left-to-right, non-overlapping scanning visits the same matches.
Whitespace characters are "non-digits" to the rules and separators to the final split.

Lines that contain ``\\n`` themselves (possible through the API only) or that cannot be encoded
(lone surrogates) are not handled here: :func:`encode_corpus` returns ``None`` and BLEU falls back to
the plain path.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

# ---------------------------------------------------------------------------------------------------
# byte classes

# 13a rule 4: ``([\{-\~\[-\` -\&\(-\+\:-\@\/])`` -> " \1 ": the ASCII ranges 0x7B-0x7E ({ | } ~),
# 0x5B-0x60 ([ \ ] ^ _ `), 0x20-0x26 (space ! " # $ % &), 0x28-0x2B (( ) * +), 0x3A-0x40 (: ; < = > ? @)
# and 0x2F (/). Apostrophe, comma, hyphen, period, digits and letters are not in the class.
_SYMBOL = np.zeros(256, dtype=np.bool_)
for _lo, _hi in ((0x7B, 0x7E), (0x5B, 0x60), (0x20, 0x26), (0x28, 0x2B), (0x3A, 0x40), (0x2F, 0x2F)):
    _SYMBOL[_lo:_hi + 1] = True

# ASCII characters for which str.isspace() is true: \t \n \v \f \r, \x1c-\x1f (file/group/record/unit
# separators) and space. The multi-byte ones are handled in _ws_len.
_ASCII_WS = np.zeros(256, dtype=np.bool_)
for _c in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20):
    _ASCII_WS[_c] = True

_SPACE = np.uint8(0x20)
_PERIOD = np.uint8(0x2E)
_COMMA = np.uint8(0x2C)
_DASH = np.uint8(0x2D)

_SKIPPED = np.frombuffer(b"<skipped>", dtype=np.uint8).copy()
# 13a step 2, in this order (so "&amp;lt;" ends up as "<"): &quot; -> ", &amp; -> &, &lt; -> <, &gt; -> >
_ENT_QUOT = np.frombuffer(b"&quot;", dtype=np.uint8).copy()
_ENT_AMP = np.frombuffer(b"&amp;", dtype=np.uint8).copy()
_ENT_LT = np.frombuffer(b"&lt;", dtype=np.uint8).copy()
_ENT_GT = np.frombuffer(b"&gt;", dtype=np.uint8).copy()


@njit(cache=True, inline="always")
def _is_digit(b):
    return 0x30 <= b <= 0x39


@njit(cache=True)
def _ws_len(buf, i, n):
    """Length in bytes of the whitespace character (per str.isspace) starting at ``buf[i]``, else 0.

    Multi-byte whitespace in UTF-8: U+0085 C2 85, U+00A0 C2 A0, U+1680 E1 9A 80, U+2000..U+200A
    E2 80 80..8A, U+2028/U+2029 E2 80 A8/A9, U+202F E2 80 AF, U+205F E2 81 9F, U+3000 E3 80 80.
    ``i`` is always a character start here (continuation bytes 0x80-0xBF never equal a lead byte)."""
    b = buf[i]
    if b < 0x80:
        return 1 if _ASCII_WS[b] else 0
    if b == 0xC2:
        if i + 1 < n and (buf[i + 1] == 0x85 or buf[i + 1] == 0xA0):
            return 2
        return 0
    if b == 0xE1:
        if i + 2 < n and buf[i + 1] == 0x9A and buf[i + 2] == 0x80:
            return 3
        return 0
    if b == 0xE2:
        if i + 2 < n:
            b1 = buf[i + 1]
            b2 = buf[i + 2]
            if b1 == 0x80 and (b2 <= 0x8A or b2 == 0xA8 or b2 == 0xA9 or b2 == 0xAF) and b2 >= 0x80:
                return 3
            if b1 == 0x81 and b2 == 0x9F:
                return 3
        return 0
    if b == 0xE3:
        if i + 2 < n and buf[i + 1] == 0x80 and buf[i + 2] == 0x80:
            return 3
    return 0


# ---------------------------------------------------------------------------------------------------
# 13a passes. Each takes src[:n] and writes dst, returning the new length. Each is a literal
# emulation of one str.replace / re.sub call: scan left to right; where the pattern matches at i,
# write the replacement and continue *after* the match (non-overlapping), else copy one byte.

@njit(cache=True)
def _replace(src, n, dst, pat, rep, rep_len):
    """``str.replace(pat, rep)``; ``rep`` is at most one byte (``rep_len`` 0 or 1)."""
    m = len(pat)
    o = 0
    i = 0
    while i < n:
        if src[i] == pat[0] and i + m <= n:
            k = 1
            while k < m and src[i + k] == pat[k]:
                k += 1
            if k == m:
                if rep_len == 1:
                    dst[o] = rep
                    o += 1
                i += m
                continue
        dst[o] = src[i]
        o += 1
        i += 1
    return o


@njit(cache=True)
def _rule_symbols(src, n, dst):
    """Rule 4: ``([\\{-\\~\\[-\\` -\\&\\(-\\+\\:-\\@\\/])`` -> " \\1 " (pad every symbol byte)."""
    o = 0
    for i in range(n):
        b = src[i]
        if _SYMBOL[b]:
            dst[o] = _SPACE
            dst[o + 1] = b
            dst[o + 2] = _SPACE
            o += 3
        else:
            dst[o] = b
            o += 1
    return o


@njit(cache=True)
def _rule_period_after(src, n, dst):
    """Rule 5: ``([^0-9])([\\.,])`` -> "\\1 \\2 " (period/comma unless preceded by a digit)."""
    o = 0
    i = 0
    while i < n:
        if i + 1 < n and not _is_digit(src[i]) and (src[i + 1] == _PERIOD or src[i + 1] == _COMMA):
            dst[o] = src[i]
            dst[o + 1] = _SPACE
            dst[o + 2] = src[i + 1]
            dst[o + 3] = _SPACE
            o += 4
            i += 2
        else:
            dst[o] = src[i]
            o += 1
            i += 1
    return o


@njit(cache=True)
def _rule_period_before(src, n, dst):
    """Rule 6: ``([\\.,])([^0-9])`` -> " \\1 \\2" (period/comma unless followed by a digit)."""
    o = 0
    i = 0
    while i < n:
        if i + 1 < n and (src[i] == _PERIOD or src[i] == _COMMA) and not _is_digit(src[i + 1]):
            dst[o] = _SPACE
            dst[o + 1] = src[i]
            dst[o + 2] = _SPACE
            dst[o + 3] = src[i + 1]
            o += 4
            i += 2
        else:
            dst[o] = src[i]
            o += 1
            i += 1
    return o


@njit(cache=True)
def _rule_dash(src, n, dst):
    """Rule 7: ``([0-9])(-)`` -> "\\1 \\2 " (dash after a digit)."""
    o = 0
    i = 0
    while i < n:
        if i + 1 < n and _is_digit(src[i]) and src[i + 1] == _DASH:
            dst[o] = src[i]
            dst[o + 1] = _SPACE
            dst[o + 2] = _DASH
            dst[o + 3] = _SPACE
            o += 4
            i += 2
        else:
            dst[o] = src[i]
            o += 1
            i += 1
    return o


@njit(cache=True)
def _tokenize_13a_line(text, start, end, ascii_lower, a, b):
    """13a on one line ``text[start:end]``; result in ``a[:n]`` (``b`` is scratch). Returns n."""
    n = end - start
    # (mteval's tr/[A-Z]/[a-z]/ when asked, before tokenization) + step 1: remove "<skipped>".
    # ("-\n" and "\n" cannot occur inside a line here.) Copy into b first.
    has_amp = False
    for k in range(n):
        c = text[start + k]
        if ascii_lower and 0x41 <= c <= 0x5A:
            c += 0x20
        if c == 0x26:
            has_amp = True
        b[k] = c
    n = _replace(b, n, a, _SKIPPED, _SPACE, 0)
    # step 2: entities, only when the line has '&' (no-op otherwise anyway).
    if has_amp:
        n = _replace(a, n, b, _ENT_QUOT, np.uint8(0x22), 1)
        n = _replace(b, n, a, _ENT_AMP, np.uint8(0x26), 1)
        n = _replace(a, n, b, _ENT_LT, np.uint8(0x3C), 1)
        n = _replace(b, n, a, _ENT_GT, np.uint8(0x3E), 1)
    # step 3: pad " " + line + " ".
    b[0] = _SPACE
    b[1:n + 1] = a[:n]
    b[n + 1] = _SPACE
    n += 2
    # steps 4-7 (step 8, the whitespace collapse, is the caller's split).
    n = _rule_symbols(b, n, a)
    n = _rule_period_after(a, n, b)
    n = _rule_period_before(b, n, a)
    n = _rule_dash(a, n, b)
    a[:n] = b[:n]
    return n


# ---------------------------------------------------------------------------------------------------
# token vocabulary: open addressing on the token bytes, exact

@njit(cache=True, inline="always")
def _mix64(h):
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


@njit(cache=True)
def _grow_u8(arr, need):
    cap = len(arr)
    while cap < need:
        cap *= 2
    out = np.empty(cap, dtype=np.uint8)
    out[:len(arr)] = arr
    return out


@njit(cache=True)
def _grow_i32(arr, need):
    cap = len(arr)
    while cap < need:
        cap *= 2
    out = np.empty(cap, dtype=np.int32)
    out[:len(arr)] = arr
    return out


@njit(cache=True)
def _grow_i64(arr, need):
    cap = len(arr)
    while cap < need:
        cap *= 2
    out = np.empty(cap, dtype=np.int64)
    out[:len(arr)] = arr
    return out


@njit(cache=True)
def _grow_u64(arr, need):
    cap = len(arr)
    while cap < need:
        cap *= 2
    out = np.empty(cap, dtype=np.uint64)
    out[:len(arr)] = arr
    return out


@njit(cache=True)
def _encode_kernel(text, line_starts, line_ends, rules_13a, ascii_lower):
    """Tokenize (13a or whitespace only) and encode every line of ``text`` (UTF-8 bytes).

    Returns ``(ids int32[n_tokens], offsets int64[n_lines + 1], n_types)``; equal ids <=> equal
    token byte strings."""
    n_lines = len(line_starts)
    max_len = 0
    for i in range(n_lines):
        if line_ends[i] - line_starts[i] > max_len:
            max_len = line_ends[i] - line_starts[i]
    # 13a growth bound: +2 padding, x3 symbols, x2 for each of rules 5, 6, 7.
    work = 24 * (max_len + 2) + 16 if rules_13a else max_len + 16
    a = np.empty(work, dtype=np.uint8)
    b = np.empty(work, dtype=np.uint8)

    offsets = np.zeros(n_lines + 1, dtype=np.int64)
    ids = np.empty(max(16, len(text) // 4), dtype=np.int32)
    n_tok = 0

    # vocabulary: slot -> type id (-1 empty); per type: hash, start in arena, length
    bits = 16
    table = np.full(1 << bits, -1, dtype=np.int32)
    t_hash = np.empty(1 << 14, dtype=np.uint64)
    t_start = np.empty(1 << 14, dtype=np.int64)
    t_len = np.empty(1 << 14, dtype=np.int32)
    arena = np.empty(1 << 16, dtype=np.uint8)
    arena_used = 0
    n_types = 0
    FNV_OFF = np.uint64(14695981039346656037)
    FNV_PRIME = np.uint64(1099511628211)

    for line in range(n_lines):
        if rules_13a:
            n = _tokenize_13a_line(text, line_starts[line], line_ends[line], ascii_lower, a, b)
        else:  # whitespace split only: copy the line (lowercasing A-Z if asked)
            n = line_ends[line] - line_starts[line]
            for k in range(n):
                c = text[line_starts[line] + k]
                if ascii_lower and 0x41 <= c <= 0x5A:
                    c += 0x20
                a[k] = c
        buf = a
        end = n
        i = 0
        while i < end:
            w = _ws_len(buf, i, end)
            if w > 0:
                i += w
                continue
            # a token starts at i: extend to the next whitespace character, hashing its bytes
            j = i
            h = FNV_OFF
            while j < end:
                if _ws_len(buf, j, end) > 0:
                    break
                h = (h ^ np.uint64(buf[j])) * FNV_PRIME
                j += 1
            h = _mix64(h)
            length = j - i
            mask = (1 << bits) - 1
            slot = np.int64(h >> np.uint64(64 - bits))
            tid = -1
            while True:
                t = table[slot]
                if t < 0:
                    break
                if t_hash[t] == h and t_len[t] == length:
                    s = t_start[t]
                    same = True
                    for k in range(length):
                        if arena[s + k] != buf[i + k]:
                            same = False
                            break
                    if same:
                        tid = t
                        break
                slot = (slot + 1) & mask
            if tid < 0:  # new type: store its bytes, insert, grow the table at load 1/2
                tid = n_types
                if tid >= len(t_hash):
                    t_hash = _grow_u64(t_hash, tid + 1)
                    t_start = _grow_i64(t_start, tid + 1)
                    t_len = _grow_i32(t_len, tid + 1)
                if arena_used + length > len(arena):
                    arena = _grow_u8(arena, arena_used + length)
                arena[arena_used:arena_used + length] = buf[i:j]
                t_hash[tid] = h
                t_start[tid] = arena_used
                t_len[tid] = length
                arena_used += length
                table[slot] = tid
                n_types += 1
                if 2 * n_types > (1 << bits):
                    bits += 1
                    table = np.full(1 << bits, -1, dtype=np.int32)
                    mask = (1 << bits) - 1
                    for t in range(n_types):
                        s2 = np.int64(t_hash[t] >> np.uint64(64 - bits))
                        while table[s2] >= 0:
                            s2 = (s2 + 1) & mask
                        table[s2] = t
            if n_tok >= len(ids):
                ids = _grow_i32(ids, n_tok + 1)
            ids[n_tok] = tid
            n_tok += 1
            i = j
        offsets[line + 1] = n_tok
    return ids[:n_tok].copy(), offsets, n_types


def encode_corpus(lines: Sequence[str], tokenize: str = "13a", lowercase: bool = False,
                  ascii_lowercase: bool = False):
    """Tokenize and encode ``lines`` at once: ``(ids, offsets, n_types)`` or ``None`` if unsupported.

    ``tokenize`` is "13a" (compiled rules) or "none" (whitespace split only); ``lowercase`` applies
    :meth:`str.lower` to the whole text (sacreBLEU); ``ascii_lowercase`` maps A-Z to a-z only
    (mteval's ``tr/[A-Z]/[a-z]/``). ``None`` is returned when a line contains ``\\n`` or cannot be
    encoded to UTF-8 (lone surrogates); callers then use the plain path.
    """
    n = len(lines)
    if n == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int64), 0
    text = "\n".join(lines)
    if text.count("\n") != n - 1:
        return None
    if lowercase:
        text = text.lower()
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    del text
    buf = np.frombuffer(data, dtype=np.uint8)
    nl = np.flatnonzero(buf == 0x0A)
    starts = np.empty(n, dtype=np.int64)
    ends = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = nl + 1
    ends[:-1] = nl
    ends[-1] = len(buf)
    del nl
    return _encode_kernel(buf, starts, ends, tokenize == "13a", bool(ascii_lowercase))


# ---------------------------------------------------------------------------------------------------
# n-gram counting

@njit(cache=True, inline="always")
def _slot(key, bits):
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))


@njit(cache=True)
def _bleu_kernel(ids, offsets, n_hyp, ref_starts, max_order, method, strict):
    """Per-segment BLEU statistics from encoded rows.

    Rows ``0..n_hyp-1`` are hypotheses; the references of segment ``i`` are rows
    ``n_hyp + ref_starts[i] .. n_hyp + ref_starts[i+1] - 1``. ``method``: 0 closest (ties -> shorter),
    1 shortest, 2 average. Columns: hyp_len, ref_len, match_1..N, total_1..N (+ clip_len if strict).
    """
    n_cols = 2 + 2 * max_order + (1 if strict else 0)
    out = np.zeros((n_hyp, n_cols), dtype=np.float64)
    max_h = 1
    max_r = 1
    for i in range(n_hyp):
        lh = offsets[i + 1] - offsets[i]
        if lh > max_h:
            max_h = lh
        a = offsets[n_hyp + ref_starts[i]]
        z = offsets[n_hyp + ref_starts[i + 1]]
        if z - a > max_r:
            max_r = z - a
    tbits = 1
    while (1 << tbits) < 2 * max_h:
        tbits += 1
    keys = np.empty(1 << tbits, dtype=np.int64)
    vals = np.full(1 << tbits, -1, dtype=np.int32)
    hprev = np.empty(max_h, dtype=np.int64)
    rprev = np.empty(max_r, dtype=np.int64)
    hcount = np.zeros(max_h, dtype=np.int64)
    rcount = np.zeros(max_h, dtype=np.int64)
    rmax = np.zeros(max_h, dtype=np.int64)

    for seg in range(n_hyp):
        h0 = offsets[seg]
        lh = offsets[seg + 1] - h0
        r_first = n_hyp + ref_starts[seg]
        r_last = n_hyp + ref_starts[seg + 1]
        r0 = offsets[r_first]
        # effective reference length
        best = -1
        best_diff = -1
        total = 0
        shortest = -1
        for r in range(r_first, r_last):
            lr = offsets[r + 1] - offsets[r]
            total += lr
            if shortest < 0 or lr < shortest:
                shortest = lr
            diff = abs(lh - lr)
            if best_diff < 0 or diff < best_diff or (diff == best_diff and lr < best):
                best_diff = diff
                best = lr
        out[seg, 0] = lh
        if method == 0:
            ref_len = np.float64(best)
        elif method == 1:
            ref_len = np.float64(shortest)
        else:
            ref_len = total / np.float64(r_last - r_first)
        out[seg, 1] = ref_len
        if strict:
            out[seg, 2 + 2 * max_order] = min(np.float64(lh), ref_len)

        # table size for this segment: power of two >= 2 * lh
        bits = 1
        while (1 << bits) < 2 * lh:
            bits += 1
        size = 1 << bits
        mask = size - 1
        for n in range(1, max_order + 1):
            n_h = lh - n + 1
            if n_h <= 0:
                break
            out[seg, 2 + max_order + n - 1] = n_h
            vals[:size] = -1
            n_ids = 0
            # hypothesis n-grams: key = (local id of the (n-1)-gram at k) << 32 | last token id
            for k in range(n_h):
                tok = np.int64(ids[h0 + k + n - 1])
                key = tok if n == 1 else (hprev[k] << 32) | tok
                s = _slot(key, bits)
                while vals[s] >= 0 and keys[s] != key:
                    s = (s + 1) & mask
                if vals[s] < 0:
                    keys[s] = key
                    vals[s] = n_ids
                    hcount[n_ids] = 0
                    rmax[n_ids] = 0
                    rcount[n_ids] = 0
                    n_ids += 1
                lid = vals[s]
                hcount[lid] += 1
                hprev[k] = lid
            # each reference: count n-grams that occur in the hypothesis, keep the max per n-gram
            for r in range(r_first, r_last):
                a = offsets[r]
                lr = offsets[r + 1] - a
                for k in range(lr - n + 1):
                    p = a - r0 + k  # position in rprev (all references of the segment)
                    if n > 1 and rprev[p] < 0:
                        continue  # rprev[p] stays -1: prefix absent from the hypothesis
                    tok = np.int64(ids[a + k + n - 1])
                    key = tok if n == 1 else (rprev[p] << 32) | tok
                    s = _slot(key, bits)
                    lid = -1
                    while vals[s] >= 0:
                        if keys[s] == key:
                            lid = vals[s]
                            break
                        s = (s + 1) & mask
                    rprev[p] = lid
                    if lid >= 0:
                        rcount[lid] += 1
                # positions that cannot start an n-gram of this order keep stale values but are
                # never read: order n+1 only reads positions k <= lr - n - 1.
                for lid in range(n_ids):
                    if rcount[lid] > rmax[lid]:
                        rmax[lid] = rcount[lid]
                    rcount[lid] = 0
            m = 0
            for lid in range(n_ids):
                m += min(hcount[lid], rmax[lid])
            out[seg, 2 + n - 1] = m
    return out


_METHODS = {"closest": 0, "shortest": 1, "average": 2}


def bleu_statistics_fast(ids, offsets, n_hyp: int, ref_starts, max_order: int, ref_length: str,
                         strict: bool = False) -> np.ndarray:
    """BLEU statistics from the output of :func:`encode_corpus` (hyps first, then references)."""
    return _bleu_kernel(ids, offsets, np.int64(n_hyp), np.asarray(ref_starts, dtype=np.int64),
                        int(max_order), _METHODS[ref_length], bool(strict))
