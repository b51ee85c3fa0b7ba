"""numba kernels of the BLEU fast path (DESIGN §5): tokenize + encode + count.

The front end is :mod:`mtscore.text.fast`; it runs these kernels where the ahead-of-time compiled
extension ``mtscore._ckernel`` (the same algorithms in C) is not built, or when asked to
(``MTSCORE_KERNELS=numba``). Both are tested to give identical ids and statistics.

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
   table keyed on the token's bytes. A slot is only accepted after comparing the token's length and
   bytes, so token identity is exact (the hash only chooses the slot; no unchecked collisions).
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
(lone surrogates) are not handled here: :func:`mtscore.text.fast.encode_corpus` returns ``None`` and BLEU falls back to
the plain path.
"""
from __future__ import annotations

import numpy as np
from .._jit import njit

# ---------------------------------------------------------------------------------------------------
# byte classes

# (Byte classes are written as comparisons: numba compiles global lookup tables used inside small
# helper functions into much slower code.)

@njit(cache=True, inline="always")
def _is_symbol(b):
    r"""13a rule 4 class ``[\{-\~\[-\` -\&\(-\+\:-\@\/]``: the ASCII ranges 0x7B-0x7E ({ | } ~),
    0x5B-0x60 ([ \\ ] ^ _ `), 0x20-0x26 (space ! " # $ % &), 0x28-0x2B (( ) * +), 0x3A-0x40
    (: ; < = > ? @) and 0x2F (/). Apostrophe, comma, hyphen, period, digits and letters are not in it."""
    return ((0x7B <= b <= 0x7E) or (0x5B <= b <= 0x60) or (0x20 <= b <= 0x26) or (0x28 <= b <= 0x2B)
            or (0x3A <= b <= 0x40) or b == 0x2F)


@njit(cache=True, inline="always")
def _is_ascii_space(b):
    """ASCII characters for which str.isspace() is true: \t \n \v \f \r (0x09-0x0D), the separators
    \x1c-\x1f and space."""
    return b == 0x20 or (0x09 <= b <= 0x0D) or (0x1C <= b <= 0x1F)


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
        return 1 if _is_ascii_space(b) else 0
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
# 13a steps 1-2 (string replacements). Literal emulation of str.replace: scan left to right; where
# the pattern matches at i, write the replacement and continue *after* the match (non-overlapping).

@njit(cache=True)
def _replace(src, n, dst, pat, rep, rep_len):
    """``dst[:m] = src[:n].replace(pat, rep)``, returns m; ``rep`` is one byte (``rep_len`` 1) or
    nothing (``rep_len`` 0)."""
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
def _prepare_line(text, start, end, ascii_lower, rules_13a, a, b):
    """Copy ``text[start:end]`` into ``a`` (A-Z -> a-z if ``ascii_lower``, mteval's tr/[A-Z]/[a-z]/,
    which comes before tokenization) and, for 13a, apply steps 1-2:
    1. remove "<skipped>" ("-\\n" and "\\n" cannot occur inside a line here);
    2. if the line has '&': &quot; -> ", &amp; -> &, &lt; -> <, &gt; -> > (in this order, so
       "&amp;lt;" ends up as "<"). Returns the length of the result in ``a``."""
    n = end - start
    has_lt = False
    has_amp = False
    for k in range(n):
        c = text[start + k]
        if ascii_lower and 0x41 <= c <= 0x5A:
            c += 0x20
        if c == 0x3C:
            has_lt = True
        elif c == 0x26:
            has_amp = True
        a[k] = c
    if not rules_13a:
        return n
    if has_lt:
        n = _replace(a, n, b, _SKIPPED, _SPACE, 0)
        a[:n] = b[:n]
    if has_amp:
        n = _replace(a, n, b, _ENT_QUOT, np.uint8(0x22), 1)
        n = _replace(b, n, a, _ENT_AMP, np.uint8(0x26), 1)
        n = _replace(a, n, b, _ENT_LT, np.uint8(0x3C), 1)
        n = _replace(b, n, a, _ENT_GT, np.uint8(0x3E), 1)
    return n


# ---------------------------------------------------------------------------------------------------
# 13a steps 3-8 in one pass.
#
# Steps 4-7 only ever insert spaces, so the result is the padded line P = " " + line + " " with some
# gaps between adjacent characters broken; step 8 splits at whitespace and at broken gaps. Which gaps
# break follows from the four re.sub calls applied in sequence (each scanning left to right without
# overlaps, each seeing the spaces the earlier ones inserted). For a character P[i] (PC = '.' or ','):
#
#   sym[i] (step 4, ``([\{-\~\[-\` -\&\(-\+\:-\@\/])`` -> " \1 "): P[i] is a 13a symbol;
#          breaks the gaps on both sides of i.
#   m5[i]  (step 5, ``([^0-9])([\.,])`` -> "\1 \2 "): P[i] is PC, P[i-1] is not a digit (after step 4
#          the left neighbour is P[i-1] or an inserted space; the space is a non-digit and appears only
#          when P[i-1] is a symbol, which is not a digit either), and the left neighbour was not already
#          consumed as \2 of the previous match, i.e. NOT (P[i-1] is PC and m5[i-1]).
#          Breaks both gaps of i.
#   m6[i]  (step 6, ``([\.,])([^0-9])`` -> " \1 \2"): P[i] is PC, its right neighbour after step 5 is
#          not a digit (it is an inserted space if m5[i], else P[i+1]), and P[i] was not consumed as \2
#          of a match at i-1: that needs P[i-1] PC, m6[i-1], and no space between them after step 5
#          (no m5[i], no m5[i-1]). Breaks both gaps of i.
#   m7[i]  (step 7, ``([0-9])(-)`` -> "\1 \2 "): P[i] is '-' and P[i-1] a digit (steps 4-6 never put a
#          space between a digit and a dash; a dash cannot be consumed by an earlier match because a
#          match starts with a digit). Breaks both gaps of i.
#
# Byte-level evaluation is exact: the bytes of a multi-byte UTF-8 character are >= 0x80, i.e. non-digit,
# non-PC, non-symbol, exactly what the whole character is to these patterns. The padding spaces are
# only neighbours (whitespace never belongs to a token). This equals the regex implementation on all
# inputs tested (tests/test_bleu_fastpath.py: hypothesis-generated strings of the tricky characters).

# ---------------------------------------------------------------------------------------------------
# token vocabulary: open addressing on the token bytes, exact

@njit(cache=True, inline="always")
def _mix64(h):
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


# Encoder state. Arrays are never reassigned inside the hot loop (numba would then emit reference
# counting on every iteration); _encode_lines stops before a line that might not fit and the driver
# _encode_kernel grows the arrays and calls it again (O(log n) times).
_N_TOK, _N_TYPES, _ARENA_USED, _BITS = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _intern(a, i, j, h, k8, tab_k, tab_v, t_hash, t_k8, t_start, arena, mask, shift, n_types, arena_used):
    """Id of the token ``a[i:j]`` (hash ``h``, first <= 8 bytes packed in ``k8``), else a new type.

    A slot holds the token's first 8 bytes (``tab_k``) and ``length << 32 | id`` (``tab_v``, -1 empty),
    so a token of <= 8 bytes is compared exactly without leaving the table; longer tokens also compare
    their remaining bytes with the copy kept in ``arena``. Returns (id, n_types, arena_used)."""
    length = j - i
    slot = np.int64(h >> shift)
    while True:
        v = tab_v[slot]
        if v < 0:
            break
        if tab_k[slot] == k8 and (v >> 32) == length:
            t = v & 0xFFFFFFFF
            if length <= 8:
                return t, n_types, arena_used
            s = t_start[t]
            k = 8
            while k < length and arena[s + k] == a[i + k]:
                k += 1
            if k == length:
                return t, n_types, arena_used
        slot = (slot + 1) & mask
    tid = n_types
    for k in range(length):
        arena[arena_used + k] = a[i + k]
    t_hash[tid] = h
    t_k8[tid] = k8
    t_start[tid] = arena_used
    tab_k[slot] = k8
    tab_v[slot] = (np.int64(length) << 32) | tid
    return tid, n_types + 1, arena_used + length


@njit(cache=True)
def _encode_lines(text, line_starts, line_ends, first, rules_13a, ascii_lower, a, b,
                  ids, offsets, tab_k, tab_v, t_hash, t_k8, t_start, arena, state):
    """Encode lines ``first..`` until done or until the next line might overflow a buffer.
    Returns the index of the first line not processed."""
    n_lines = len(line_starts)
    n_tok = state[_N_TOK]
    n_types = state[_N_TYPES]
    arena_used = state[_ARENA_USED]
    bits = state[_BITS]
    mask = (np.int64(1) << bits) - 1
    shift = np.uint64(64 - bits)
    fnv_off = np.uint64(14695981039346656037)
    fnv_prime = np.uint64(1099511628211)
    line = first
    while line < n_lines:
        raw = line_ends[line] - line_starts[line]
        # a line of `raw` bytes yields at most `raw` tokens of at most `raw` bytes in total
        # (every token holds at least one byte of the line; entities only shrink)
        if (n_tok + raw > len(ids) or n_types + raw > len(t_hash) or arena_used + raw > len(arena)
                or 2 * (n_types + raw) > len(tab_v)):
            break
        n = _prepare_line(text, line_starts[line], line_ends[line], ascii_lower, rules_13a, a, b)
        # flags of the previous character; before the line is the 13a padding space (a symbol)
        p_dig = False
        p_pc = False
        p_sym = True
        p_m5 = False
        p_m6 = False
        p_m7 = False
        in_tok = False
        start = 0
        h = fnv_off
        k8 = np.uint64(0)
        i = 0
        while i < n:
            c = a[i]
            # (ASCII tested inline: much faster than calling _ws_len for every byte)
            if c < 0x80:
                w = 1 if _is_ascii_space(c) else 0
            else:
                w = _ws_len(a, i, n)
            if w > 0:  # whitespace (str.split) ends a token
                if in_tok:
                    tid, n_types, arena_used = _intern(a, start, i, _mix64(h), k8, tab_k, tab_v, t_hash, t_k8, t_start,
                                                       arena, mask, shift, n_types, arena_used)
                    ids[n_tok] = tid
                    n_tok += 1
                    in_tok = False
                p_dig = False
                p_pc = False
                p_sym = True
                p_m5 = False
                p_m6 = False
                p_m7 = False
                i += w
                continue
            if rules_13a:
                dig = _is_digit(c)
                pc = c == _PERIOD or c == _COMMA
                sym = _is_symbol(c)
                m5 = pc and not p_dig and not (p_pc and p_m5)
                next_dig = i + 1 < n and _is_digit(a[i + 1])
                m6 = pc and (m5 or not next_dig) and not (p_pc and p_m6 and not m5 and not p_m5)
                m7 = c == _DASH and p_dig
                if in_tok and (p_sym or sym or m5 or p_m5 or m6 or p_m6 or m7 or p_m7):
                    tid, n_types, arena_used = _intern(a, start, i, _mix64(h), k8, tab_k, tab_v, t_hash, t_k8, t_start,
                                                       arena, mask, shift, n_types, arena_used)
                    ids[n_tok] = tid
                    n_tok += 1
                    in_tok = False
                p_dig = dig
                p_pc = pc
                p_sym = sym
                p_m5 = m5
                p_m6 = m6
                p_m7 = m7
            if not in_tok:
                in_tok = True
                start = i
                h = fnv_off
                k8 = np.uint64(0)
            if i - start < 8:
                k8 |= np.uint64(c) << np.uint64(8 * (i - start))
            h = (h ^ np.uint64(c)) * fnv_prime
            i += 1
        if in_tok:
            tid, n_types, arena_used = _intern(a, start, n, _mix64(h), k8, tab_k, tab_v, t_hash, t_k8, t_start,
                                               arena, mask, shift, n_types, arena_used)
            ids[n_tok] = tid
            n_tok += 1
        offsets[line + 1] = n_tok
        line += 1
    state[_N_TOK] = n_tok
    state[_N_TYPES] = n_types
    state[_ARENA_USED] = arena_used
    return line


@njit(cache=True)
def _grown(arr, need):
    cap = max(len(arr), 16)
    while cap < need:
        cap *= 2
    out = np.empty(cap, dtype=arr.dtype)
    out[:len(arr)] = arr
    return out


@njit(cache=True)
def _rehash(t_hash, t_k8, t_start, arena_used, n_types, bits):
    size = np.int64(1) << bits
    tab_k = np.zeros(size, dtype=np.uint64)
    tab_v = np.full(size, -1, dtype=np.int64)
    mask = size - 1
    for t in range(n_types):
        s = np.int64(t_hash[t] >> np.uint64(64 - bits))
        while tab_v[s] >= 0:
            s = (s + 1) & mask
        end = t_start[t + 1] if t + 1 < n_types else arena_used
        tab_k[s] = t_k8[t]
        tab_v[s] = (np.int64(end - t_start[t]) << 32) | t
    return tab_k, tab_v


@njit(cache=True)
def _encode_kernel(text, line_starts, line_ends, rules_13a, ascii_lower):
    """Tokenize (13a or whitespace only) and encode every line of ``text`` (UTF-8 bytes).

    Returns ``(ids int32[n_tokens], offsets int64[n_lines + 1], n_types)``; equal ids <=> equal
    token byte strings."""
    n_lines = len(line_starts)
    max_len = 0
    for i in range(n_lines):
        max_len = max(max_len, line_ends[i] - line_starts[i])
    work = max_len + 16
    a = np.empty(work, dtype=np.uint8)
    b = np.empty(work, dtype=np.uint8)
    offsets = np.zeros(n_lines + 1, dtype=np.int64)
    ids = np.empty(max(1024, len(text) // 5), dtype=np.int32)
    state = np.zeros(4, dtype=np.int64)
    state[_BITS] = 16
    tab_k = np.zeros(1 << 16, dtype=np.uint64)
    tab_v = np.full(1 << 16, -1, dtype=np.int64)
    t_hash = np.empty(1 << 14, dtype=np.uint64)
    t_k8 = np.empty(1 << 14, dtype=np.uint64)
    t_start = np.empty(1 << 14, dtype=np.int64)
    arena = np.empty(1 << 16, dtype=np.uint8)
    line = 0
    while True:
        line = _encode_lines(text, line_starts, line_ends, line, rules_13a, ascii_lower, a, b,
                             ids, offsets, tab_k, tab_v, t_hash, t_k8, t_start, arena, state)
        if line >= n_lines:
            break
        raw = line_ends[line] - line_starts[line]
        n_tok, n_types, used = state[_N_TOK], state[_N_TYPES], state[_ARENA_USED]
        if n_tok + raw > len(ids):
            ids = _grown(ids, n_tok + raw)
        if n_types + raw > len(t_hash):
            t_hash = _grown(t_hash, n_types + raw)
            t_k8 = _grown(t_k8, n_types + raw)
            t_start = _grown(t_start, n_types + raw)
        if used + raw > len(arena):
            arena = _grown(arena, used + raw)
        while 2 * (n_types + raw) > (np.int64(1) << state[_BITS]):
            state[_BITS] += 1
        if len(tab_v) != (np.int64(1) << state[_BITS]):
            tab_k, tab_v = _rehash(t_hash, t_k8, t_start, used, n_types, state[_BITS])
    n_types = state[_N_TYPES]
    return ids[:state[_N_TOK]].copy(), offsets, n_types, arena[:state[_ARENA_USED]].copy(), t_start[:n_types].copy()


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
