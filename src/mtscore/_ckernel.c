/* Ahead-of-time compiled kernels for the BLEU fast path (docs/bleu-fastpath.md): tokenize + encode + count.
 *
 * Compiled once at install time. The reference implementation is the plain Python/NumPy path
 * (mtscore.tokenize's regular-expression 13a tokenizer -> text.encode.Vocab -> sort-based counting in
 * metrics/bleu.py bleu_statistics, which also holds the effective-reference-length rule); these kernels
 * must give identical ids and statistics. bleu_strings needs no corpus vocabulary (tokens are compared
 * within a segment only) and reads the Python strings in place.
 * The module has no NumPy dependency: inputs are read through the buffer protocol, outputs are
 * bytearrays that NumPy wraps without copying (np.frombuffer). All kernels release the GIL; encode (one call
 * for a whole corpus) takes it back every 4 MB of text to check for a pending signal (Ctrl-C).
 *
 *   bleu_strings(hyps, refs, max_order, method, strict, rules_13a, ascii_lower, out, n_threads)
 *       BLEU statistics straight from the Python strings (hyps: list of str, refs: a list with one entry per
 *       segment: a list or tuple of str, or one str for a single reference, as refs = the one reference
 *       column read from a file, with no per-segment list built): tokenize and count segment by segment with segment-local token ids (no corpus
 *       vocabulary), optionally in several threads; fills out (float64, n_hyp x (2 + 2 * max_order +
 *       strict), zero-initialised) and returns True, or returns False for input it does not handle.
 *   encode(data, n_lines, rules_13a, ascii_lower, with_types)
 *       -> (ids int32, offsets int64[n_lines + 1], n_types, arena uint8 | None, t_start int64 | None)
 *          or None when data does not hold exactly n_lines lines separated by '\n'.
 *   tokenize(data, n_lines, pre_13a, pad) -> bytes or None
 *       the tokenized text (13a, or the post-tokenizer of zh) of the lines, as mtscore.tokenize.tokenize_corpus.
 *   bleu_counts(ids, offsets, n_hyp, ref_starts, max_order, method, strict, out)
 *       the same statistics from encoded rows (global ids).
 *   json_rows(ints, floats, keys) -> bytes
 *       the same table's "rows" items as json.dumps(indent=2) writes them (float.__repr__, NaN/inf as null).
 *   format_rows(ints, floats, digits, sep, end) -> bytes
 *       the rows of a numeric table (--sentence-level TSV / CSV) with the text of str() / format(x, '.Nf').
 *   bleu_scores(stats, n_rows, max_order, smooth, smooth_value, effective_order, strict, out)
 *       BLEU of every statistics row (sentence BLEU of all segments at once; metrics/bleu.py bleu_row,
 *       compat sacrebleu, no weights): the same operations in the same order with the C library's exp/log.
 *
 * Pipeline
 * 1. All lines of a corpus (hypotheses, then every reference, sentence-major) are joined by '\n'
 *    (optionally str.lower()-ed as one string, as sacreBLEU lowercases) and encoded to UTF-8 once
 *    (encode; bleu_strings reads each string's UTF-8 form instead).
 * 2. With rules_13a the 13a rules (docs/definitions.md §1.6) are applied as literal byte-level emulations of sacreBLEU's
 *    str.replace / re.sub passes; then the line is split on whitespace exactly like str.split (ASCII and
 *    the multi-byte Unicode whitespace characters) and every token gets a dense integer id through an
 *    open-addressing hash table keyed on the token's bytes. A slot is only accepted after comparing the
 *    token's length and bytes, so token identity is exact (the hash only chooses the slot).
 * 3. Clipped n-gram matches are counted per segment with a small per-segment hash table: an n-gram is
 *    keyed exactly by (local id of its (n-1)-gram prefix, id of its last token), so equal keys <=> equal
 *    token sequences. Only hypothesis n-grams are inserted; reference n-grams are looked up (an n-gram
 *    whose prefix is not in the hypothesis cannot match).
 *
 * Why byte-level emulation of the 13a regexes is exact: every 13a pattern consists of ASCII characters
 * and the class [^0-9] ("any character but an ASCII digit"). A non-ASCII character is a run of bytes
 * >= 0x80, each of which is a non-digit, non-symbol, non-period byte, so a match can only start at a byte
 * where the character-level match starts (or at the last byte of a multi-byte character for the
 * ([^0-9])([\.,]) rule), and left-to-right, non-overlapping scanning visits the same matches. Whitespace
 * characters are "non-digits" to the rules and separators to the final split.
 *
 * Lines that contain '\n' themselves (possible through the API only) or that cannot be encoded (lone
 * surrogates) are not handled: mtscore.text.fast.encode_corpus returns None and BLEU uses the plain path.
 *
 * Tests: tests/text/test_bleu_fastpath.py compares the kernels with the reference path
 * (MTSCORE_KERNELS=reference), sacreBLEU's own 13a tokenizer and a Counter oracle.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* byte classes (13a, str.isspace) */

static inline int is_symbol(unsigned b) {
    /* 13a rule 4 class: 0x7B-0x7E, 0x5B-0x60, 0x20-0x26, 0x28-0x2B, 0x3A-0x40 and '/' */
    return (b >= 0x7B && b <= 0x7E) || (b >= 0x5B && b <= 0x60) || (b >= 0x20 && b <= 0x26) ||
           (b >= 0x28 && b <= 0x2B) || (b >= 0x3A && b <= 0x40) || b == 0x2F;
}

static inline int is_ascii_space(unsigned b) {
    return b == 0x20 || (b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x1F);
}

static inline int is_digit(unsigned b) { return b >= 0x30 && b <= 0x39; }

/* Length of the (str.isspace) whitespace character starting at a[i], else 0; a[i] >= 0x80. */
static inline Py_ssize_t ws_len_multi(const uint8_t *a, Py_ssize_t i, Py_ssize_t n) {
    uint8_t b = a[i];
    if (b == 0xC2) {
        return (i + 1 < n && (a[i + 1] == 0x85 || a[i + 1] == 0xA0)) ? 2 : 0;
    }
    if (b == 0xE1) {
        return (i + 2 < n && a[i + 1] == 0x9A && a[i + 2] == 0x80) ? 3 : 0;
    }
    if (b == 0xE2) {
        if (i + 2 < n) {
            uint8_t b1 = a[i + 1], b2 = a[i + 2];
            if (b1 == 0x80 && b2 >= 0x80 && (b2 <= 0x8A || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF)) return 3;
            if (b1 == 0x81 && b2 == 0x9F) return 3;
        }
        return 0;
    }
    if (b == 0xE3) {
        return (i + 2 < n && a[i + 1] == 0x80 && a[i + 2] == 0x80) ? 3 : 0;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* 13a steps 1-2: literal, non-overlapping str.replace emulation; rep < 0 means "remove" */

static Py_ssize_t replace_bytes(const uint8_t *src, Py_ssize_t n, uint8_t *dst, const char *pat, int rep) {
    Py_ssize_t m = (Py_ssize_t)strlen(pat), o = 0, i = 0;
    while (i < n) {
        if (src[i] == (uint8_t)pat[0] && i + m <= n && memcmp(src + i, pat, (size_t)m) == 0) {
            if (rep >= 0) dst[o++] = (uint8_t)rep;
            i += m;
            continue;
        }
        dst[o++] = src[i++];
    }
    return o;
}

/* ------------------------------------------------------------------------------------------------ */
/* growable buffers */

static int grow(void **p, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t c = *cap < 16 ? 16 : *cap;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * item);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* the two work buffers of prepare_line (13a steps 1-2), room for `need` bytes each */
static int work_reserve(uint8_t **wa, uint8_t **wb, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t c = *cap;
    if (grow((void **)wa, &c, need, 1) < 0) return -1;
    uint8_t *b = (uint8_t *)realloc(*wb, c);
    if (!b) return -1;
    *wb = b;
    *cap = c;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* token vocabulary: open addressing keyed on the token bytes, exact */

/* A token of a line: its bytes, a hash of them, and its first <= 8 bytes packed in one word (with the
 * length, the exact key of a token of <= 8 bytes). */
typedef struct {
    const uint8_t *p;
    size_t len;
    uint64_t h, k8;
} Tok;

typedef struct {
    /* outputs */
    int32_t *ids; size_t n_tok, cap_tok;
    int64_t *offsets;
    /* types */
    uint64_t *t_hash, *t_k8; int64_t *t_start; size_t n_types, cap_types;
    uint8_t *arena; size_t arena_used, cap_arena;
    /* table: slot -> first 8 bytes (tab_k) and length << 32 | id (tab_v, -1 empty) */
    uint64_t *tab_k; int64_t *tab_v; int bits;
    /* line work buffers and the tokens of the current line */
    uint8_t *wa, *wb; size_t cap_work;
    Tok *toks; size_t cap_toks;
} Enc;

static inline uint64_t mix64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    return h;
}

static int table_alloc(Enc *e, int bits) {
    size_t size = (size_t)1 << bits;
    uint64_t *k = (uint64_t *)malloc(size * sizeof(uint64_t));
    int64_t *v = (int64_t *)malloc(size * sizeof(int64_t));
    if (!k || !v) { free(k); free(v); return -1; }
    memset(v, 0xFF, size * sizeof(int64_t));
    size_t mask = size - 1;
    for (size_t t = 0; t < e->n_types; t++) {
        size_t s = (size_t)(e->t_hash[t] >> (64 - bits));
        while (v[s] >= 0) s = (s + 1) & mask;
        int64_t end = (t + 1 < e->n_types) ? e->t_start[t + 1] : (int64_t)e->arena_used;
        k[s] = e->t_k8[t];
        v[s] = ((end - e->t_start[t]) << 32) | (int64_t)t;
    }
    free(e->tab_k);
    free(e->tab_v);
    e->tab_k = k;
    e->tab_v = v;
    e->bits = bits;
    return 0;
}

/* id of token a[0:len) with hash h and packed first bytes k8; a new type if unseen; -1 on no memory */
static inline int64_t intern(Enc *e, const uint8_t *a, size_t len, uint64_t h, uint64_t k8) {
    size_t mask = ((size_t)1 << e->bits) - 1;
    size_t slot = (size_t)(h >> (64 - e->bits));
    for (;;) {
        int64_t v = e->tab_v[slot];
        if (v < 0) break;
        if (e->tab_k[slot] == k8 && (size_t)(v >> 32) == len) {
            int64_t t = v & 0xFFFFFFFF;
            if (len <= 8 || memcmp(e->arena + e->t_start[t] + 8, a + 8, len - 8) == 0) return t;
        }
        slot = (slot + 1) & mask;
    }
    /* new type */
    if (2 * (e->n_types + 1) > ((size_t)1 << e->bits)) {
        if (table_alloc(e, e->bits + 1) < 0) return -1;
        mask = ((size_t)1 << e->bits) - 1;
        slot = (size_t)(h >> (64 - e->bits));
        while (e->tab_v[slot] >= 0) slot = (slot + 1) & mask;
    }
    if (e->n_types + 1 > e->cap_types) {  /* the three per-type arrays share one capacity */
        size_t cap = e->cap_types < 1024 ? 1024 : 2 * e->cap_types;
        uint64_t *th = (uint64_t *)realloc(e->t_hash, cap * sizeof(uint64_t));
        if (!th) return -1;
        e->t_hash = th;
        uint64_t *k8s = (uint64_t *)realloc(e->t_k8, cap * sizeof(uint64_t));
        if (!k8s) return -1;
        e->t_k8 = k8s;
        int64_t *st = (int64_t *)realloc(e->t_start, cap * sizeof(int64_t));
        if (!st) return -1;
        e->t_start = st;
        e->cap_types = cap;
    }
    if (grow((void **)&e->arena, &e->cap_arena, e->arena_used + len, 1) < 0) return -1;
    size_t t = e->n_types++;
    memcpy(e->arena + e->arena_used, a, len);
    e->t_hash[t] = h;
    e->t_k8[t] = k8;
    e->t_start[t] = (int64_t)e->arena_used;
    e->arena_used += len;
    e->tab_k[slot] = k8;
    e->tab_v[slot] = ((int64_t)len << 32) | (int64_t)t;
    return (int64_t)t;
}


/* Byte classes: 0 is a plain token byte (a letter, an apostrophe, a byte >= 0x80 that cannot start a
 * whitespace character). */
enum { C_SPACE = 1, C_DIGIT = 2, C_PC = 4, C_SYM = 8, C_DASH = 16, C_WSLEAD = 32 };
static uint8_t CLS[256];

static void init_classes(void) {
    for (int b = 0; b < 256; b++) {
        uint8_t c = 0;
        if (b < 0x80 && is_ascii_space((unsigned)b)) c |= C_SPACE;
        if (is_digit((unsigned)b)) c |= C_DIGIT;
        if (b == 0x2E || b == 0x2C) c |= C_PC;
        if (is_symbol((unsigned)b)) c |= C_SYM;
        if (b == 0x2D) c |= C_DASH;
        if (b == 0xC2 || b == 0xE1 || b == 0xE2 || b == 0xE3) c |= C_WSLEAD;
        CLS[b] = c;
    }
}

/* Fill a token from its bytes: k8 = its first <= 8 bytes (exact key of tokens of <= 8 bytes, with the
 * length), h = a hash of all bytes. */
static inline void make_tok(Tok *t, const uint8_t *p, size_t len, const uint8_t *end) {
    uint64_t k8 = 0;
    if (len >= 8) {
        memcpy(&k8, p, 8);
    } else {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (p + 8 <= end) {  /* one load, masked to the token: the same value as the loop below */
            memcpy(&k8, p, 8);
            k8 &= (((uint64_t)1) << (8 * len)) - 1;
        } else
#endif
        for (size_t j = 0; j < len; j++) k8 |= (uint64_t)p[j] << (8 * j);
    }
    uint64_t h = k8 ^ ((uint64_t)len * 0x9E3779B97F4A7C15ULL);
    if (len > 8) {
        size_t j = 8;
        for (; j + 8 <= len; j += 8) {
            uint64_t w;
            memcpy(&w, p + j, 8);
            h = mix64(h) ^ w;
        }
        uint64_t w = 0;
        for (size_t q = 0; j + q < len; q++) w |= (uint64_t)p[j + q] << (8 * q);
        h = mix64(h) ^ w;
    }
    t->p = p;
    t->len = len;
    t->h = mix64(h);
    t->k8 = k8;
}

/* 13a steps 3-8 in one pass.
 *
 * Steps 4-7 only ever insert spaces, so the result is the padded line P = " " + line + " " with some
 * gaps between adjacent characters broken; step 8 splits at whitespace and at broken gaps. Which gaps
 * break follows from the four re.sub calls applied in sequence (each scanning left to right without
 * overlaps, each seeing the spaces the earlier ones inserted). For a character P[i] (PC = '.' or ','):
 *
 *   sym[i] (step 4, ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "): P[i] is a 13a symbol; breaks the gaps on
 *          both sides of i.
 *   m5[i]  (step 5, ([^0-9])([\.,]) -> "\1 \2 "): P[i] is PC, P[i-1] is not a digit (after step 4 the left
 *          neighbour is P[i-1] or an inserted space; the space is a non-digit and appears only when
 *          P[i-1] is a symbol, which is not a digit either), and the left neighbour was not already
 *          consumed as \2 of the previous match, i.e. NOT (P[i-1] is PC and m5[i-1]). Breaks both gaps.
 *   m6[i]  (step 6, ([\.,])([^0-9]) -> " \1 \2"): P[i] is PC, its right neighbour after step 5 is not a
 *          digit (an inserted space if m5[i], else P[i+1]), and P[i] was not consumed as \2 of a match
 *          at i-1: that needs P[i-1] PC, m6[i-1], and no space between them after step 5 (no m5[i], no
 *          m5[i-1]). Breaks both gaps.
 *   m7[i]  (step 7, ([0-9])(-) -> "\1 \2 "): P[i] is '-' and P[i-1] a digit (steps 4-6 never put a space
 *          between a digit and a dash; a dash cannot be consumed by an earlier match because a match
 *          starts with a digit). Breaks both gaps.
 *
 * Byte-level evaluation is exact: the bytes of a multi-byte UTF-8 character are >= 0x80, i.e. non-digit,
 * non-PC, non-symbol, exactly what the whole character is to these patterns. The padding spaces are only
 * neighbours (whitespace never belongs to a token). Tested against the regular-expression tokenizer and
 * sacreBLEU's on hypothesis-generated strings of the tricky characters (tests/text/test_bleu_fastpath.py). */

/* Tokenize one line a[0:n) (13a steps 3-8, or a plain str.split without rules_13a) into out[]
 * (room for n tokens: every token holds at least one byte); returns the number of tokens.
 * State: the flags of the previous character (p_*), the padding space before the line counting as a
 * symbol. After a plain byte all flags are clear, so a run of plain bytes inside a token is skipped
 * in a tight loop. */
static Py_ssize_t tokenize_line_pad(const uint8_t *a, Py_ssize_t n, int rules_13a, int pad, Tok *out) {
    /* without the 13a rules every flag stays clear and only whitespace ends a token */
    int p_dig = 0, p_pc = 0, p_sym = rules_13a, p_m5 = 0, p_m6 = 0, p_m7 = 0;
    int in_tok = 0;
    Py_ssize_t start = 0, nt = 0;
    Py_ssize_t i = 0;
    const uint8_t plain_mask = rules_13a ? 0xFF : (C_SPACE | C_WSLEAD);
#define EMIT(END) do { make_tok(&out[nt], a + start, (size_t)((END) - start), a + n); nt++; in_tok = 0; } while (0)
    while (i < n) {
        if (in_tok && !(p_dig | p_pc | p_sym | p_m5 | p_m6 | p_m7)) {
            while (i < n && !(CLS[a[i]] & plain_mask)) i++;
            if (i >= n) break;
        }
        uint8_t cl = CLS[a[i]] & plain_mask;
        if (cl == 0) {  /* a plain byte: no 13a rule fires at it, and after it every flag is clear */
            if (in_tok && (p_sym | p_m5 | p_m6 | p_m7)) EMIT(i);
            p_dig = p_pc = p_sym = p_m5 = p_m6 = p_m7 = 0;
            if (!in_tok) {
                in_tok = 1;
                start = i;
            }
            i++;
            continue;
        }
        Py_ssize_t w = (cl & C_SPACE) ? 1 : (cl & C_WSLEAD) ? ws_len_multi(a, i, n) : 0;
        if (w > 0) {  /* whitespace (str.split) ends a token; to the rules it is a padding space */
            if (in_tok) EMIT(i);
            p_dig = p_pc = p_m5 = p_m6 = p_m7 = 0;
            p_sym = rules_13a;
            i += w;
            while (i < n && (CLS[a[i]] & C_SPACE)) i++;
            continue;
        }
        if (rules_13a) {
            int dig = (cl & C_DIGIT) != 0;
            int pc = (cl & C_PC) != 0;
            int sym = (cl & C_SYM) != 0;
            /* unpadded (pad 0): the first character has no left neighbour for step 5, the last no right
             * neighbour for step 6 */
            int m5 = pc && (pad || i > 0) && !p_dig && !(p_pc && p_m5);
            int right_ok = i + 1 < n ? !(CLS[a[i + 1]] & C_DIGIT) : pad;
            int m6 = pc && (m5 || right_ok) && !(p_pc && p_m6 && !m5 && !p_m5);
            int m7 = (cl & C_DASH) && p_dig;
            if (in_tok && (p_sym || sym || m5 || p_m5 || m6 || p_m6 || m7 || p_m7)) EMIT(i);
            p_dig = dig; p_pc = pc; p_sym = sym; p_m5 = m5; p_m6 = m6; p_m7 = m7;
        }
        if (!in_tok) {
            in_tok = 1;
            start = i;
        }
        i++;
    }
    if (in_tok) EMIT(n);
#undef EMIT
    return nt;
}

/* 13a's rules on " " + line + " " (the padding of Tokenizer13a), as the BLEU kernels use them */
static Py_ssize_t tokenize_line(const uint8_t *a, Py_ssize_t n, int rules_13a, Tok *out) {
    return tokenize_line_pad(a, n, rules_13a, rules_13a, out);
}

/* Tokenize one line and append the global ids of its tokens. */
static int encode_line(Enc *e, const uint8_t *a, Py_ssize_t n, int rules_13a) {
    if (grow((void **)&e->toks, &e->cap_toks, (size_t)n + 1, sizeof(Tok)) < 0) return -1;
    Py_ssize_t nt = tokenize_line(a, n, rules_13a, e->toks);
    for (Py_ssize_t k = 0; k < nt; k++) {
        const Tok *t = &e->toks[k];
        int64_t id = intern(e, t->p, t->len, t->h, t->k8);
        if (id < 0) return -1;
        e->ids[e->n_tok++] = (int32_t)id;
    }
    return 0;
}

/* does buf[0:n) contain the string pat? */
static int contains(const uint8_t *buf, Py_ssize_t n, const char *pat) {
    size_t m = strlen(pat);
    const uint8_t *p = buf, *end = buf + n;
    while ((size_t)(end - p) >= m && (p = (const uint8_t *)memchr(p, pat[0], (size_t)(end - p))) != NULL) {
        if ((size_t)(end - p) >= m && memcmp(p, pat, m) == 0) return 1;
        p++;
    }
    return 0;
}

/* 13a steps 1-2 (and mteval's ASCII lowercasing): returns the line to tokenize (src itself when
 * nothing changes, else one of the work buffers a, b) and its length. Each str.replace pass runs only
 * where its pattern occurs (a pass without a match is the identity). */
static const uint8_t *prepare_line(uint8_t *a, uint8_t *b, const uint8_t *src, Py_ssize_t n, int rules_13a,
                                   int ascii_lower, Py_ssize_t *out_n) {
    int has_lt = rules_13a && memchr(src, '<', (size_t)n) != NULL;
    int has_amp = rules_13a && memchr(src, '&', (size_t)n) != NULL;
    const uint8_t *cur = src;
    if (ascii_lower) {  /* (mapping A-Z to a-z creates no '<' or '&': the flags found on src hold) */
        for (Py_ssize_t k = 0; k < n; k++) {
            uint8_t c = src[k];
            a[k] = (c >= 0x41 && c <= 0x5A) ? (uint8_t)(c + 0x20) : c;
        }
        cur = a;
    }
    if (has_lt || has_amp) {
        static const char *const pats[5] = {"<skipped>", "&quot;", "&amp;", "&lt;", "&gt;"};
        static const int reps[5] = {-1, 0x22, 0x26, 0x3C, 0x3E};
        for (int q = has_lt ? 0 : 1; q < (has_amp ? 5 : 1); q++) {
            if (!contains(cur, n, pats[q])) continue;
            uint8_t *dst = cur == a ? b : a;
            n = replace_bytes(cur, n, dst, pats[q], reps[q]);
            cur = dst;
        }
    }
    *out_n = n;
    return cur;
}

static void enc_free(Enc *e) {
    free(e->ids); free(e->offsets); free(e->t_hash); free(e->t_k8); free(e->t_start);
    free(e->arena); free(e->tab_k); free(e->tab_v); free(e->wa); free(e->wb); free(e->toks);
}

/* returns 0 ok, 1 line count mismatch, -1 no memory */
/* Runs with the GIL released (*ts: the saved thread state). Every ~4 MB of text it takes the GIL back to
 * check for a pending signal (Ctrl-C on a large corpus stops it within a fraction of a second): returns -2
 * with the exception set. Otherwise 0, 1 (not exactly n_lines lines) or -1 (no memory). */
static int encode_all(Enc *e, const uint8_t *data, Py_ssize_t size, Py_ssize_t n_lines, int rules_13a,
                      int ascii_lower, PyThreadState **ts) {
    e->offsets = (int64_t *)calloc((size_t)n_lines + 1, sizeof(int64_t));
    if (!e->offsets) return -1;
    if (grow((void **)&e->ids, &e->cap_tok, (size_t)(size / 5 + 1024), sizeof(int32_t)) < 0) return -1;
    if (table_alloc(e, 16) < 0) return -1;
    if (n_lines == 0) return size == 0 ? 0 : 1;
    Py_ssize_t pos = 0, polled = 0;
    for (Py_ssize_t line = 0; line < n_lines; line++) {
        if (pos - polled >= ((Py_ssize_t)1 << 22)) {
            polled = pos;
            PyEval_RestoreThread(*ts);
            int sig = PyErr_CheckSignals();
            *ts = PyEval_SaveThread();
            if (sig) return -2;
        }
        const uint8_t *s = data + pos;
        const uint8_t *nl = (const uint8_t *)memchr(s, '\n', (size_t)(size - pos));
        Py_ssize_t raw;
        if (line + 1 < n_lines) {
            if (!nl) return 1;
            raw = nl - s;
        } else {
            if (nl) return 1;
            raw = size - pos;
        }
        /* a line of raw bytes yields at most raw tokens */
        if (grow((void **)&e->ids, &e->cap_tok, e->n_tok + (size_t)raw, sizeof(int32_t)) < 0) return -1;
        if (work_reserve(&e->wa, &e->wb, &e->cap_work, (size_t)raw + 16) < 0) return -1;
        Py_ssize_t n;
        const uint8_t *a = prepare_line(e->wa, e->wb, s, raw, rules_13a, ascii_lower, &n);
        if (encode_line(e, a, n, rules_13a) < 0) return -1;
        e->offsets[line + 1] = (int64_t)e->n_tok;
        pos += raw + 1;
    }
    return 0;
}

static PyObject *bytearray_of(const void *p, size_t nbytes) {
    return PyByteArray_FromStringAndSize((const char *)p, (Py_ssize_t)nbytes);
}

static PyObject *py_encode(PyObject *self, PyObject *args) {
    Py_buffer data;
    Py_ssize_t n_lines;
    int rules_13a, ascii_lower, with_types;
    if (!PyArg_ParseTuple(args, "y*nppp", &data, &n_lines, &rules_13a, &ascii_lower, &with_types)) return NULL;
    if (n_lines < 0) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "n_lines must be >= 0");
        return NULL;
    }
    Enc e;
    memset(&e, 0, sizeof(e));
    PyThreadState *ts = PyEval_SaveThread();
    int rc = encode_all(&e, (const uint8_t *)data.buf, data.len, n_lines, rules_13a, ascii_lower, &ts);
    PyEval_RestoreThread(ts);
    PyBuffer_Release(&data);
    if (rc != 0) {
        enc_free(&e);
        if (rc == -2) return NULL; /* KeyboardInterrupt (or another signal handler's exception) is set */
        if (rc < 0) return PyErr_NoMemory();
        Py_RETURN_NONE;
    }
    PyObject *ids = bytearray_of(e.ids, e.n_tok * sizeof(int32_t));
    PyObject *offsets = bytearray_of(e.offsets, ((size_t)n_lines + 1) * sizeof(int64_t));
    PyObject *arena = NULL, *t_start = NULL;
    if (with_types) {
        arena = bytearray_of(e.arena, e.arena_used);
        t_start = bytearray_of(e.t_start, e.n_types * sizeof(int64_t));
    } else {
        arena = Py_None; Py_INCREF(Py_None);
        t_start = Py_None; Py_INCREF(Py_None);
    }
    size_t n_types = e.n_types;
    enc_free(&e);
    if (!ids || !offsets || !arena || !t_start) {
        Py_XDECREF(ids); Py_XDECREF(offsets); Py_XDECREF(arena); Py_XDECREF(t_start);
        return NULL;
    }
    return Py_BuildValue("(NNnNN)", ids, offsets, (Py_ssize_t)n_types, arena, t_start);
}

/* tokenize(data, n_lines, pre_13a, pad) -> bytes or None: the tokenized text of n_lines lines separated by
 * '\n' (tokens joined by one space, lines by '\n'), as mtscore.tokenize's regular-expression path gives it:
 * 13a (pre_13a and pad: steps 1-2, then steps 3-8 on the padded line) or the post-tokenizer of zh (neither:
 * steps 3-8 on the line as it is, already stripped and with the Chinese characters spaced). None when data
 * does not hold exactly n_lines lines. The GIL is released; a pending signal is checked every ~4 MB. */
static int tokenize_all(const uint8_t *data, Py_ssize_t size, Py_ssize_t n_lines, int pre_13a, int pad,
                        uint8_t **out, size_t *out_len, PyThreadState **ts) {
    uint8_t *wa = NULL, *wb = NULL, *buf = NULL;
    size_t cap_work = 0, cap_buf = 0, cap_toks = 0, used = 0;
    Tok *toks = NULL;
    int rc = 0;
    Py_ssize_t pos = 0, polled = 0;
    if (grow((void **)&buf, &cap_buf, (size_t)size + (size_t)size / 2 + 16, 1) < 0) { rc = -1; goto done; }
    if (n_lines == 0) { rc = size == 0 ? 0 : 1; goto done; }
    for (Py_ssize_t line = 0; line < n_lines; line++) {
        if (pos - polled >= ((Py_ssize_t)1 << 22)) {
            polled = pos;
            PyEval_RestoreThread(*ts);
            int sig = PyErr_CheckSignals();
            *ts = PyEval_SaveThread();
            if (sig) { rc = -2; goto done; }
        }
        const uint8_t *s = data + pos;
        const uint8_t *nl = (const uint8_t *)memchr(s, '\n', (size_t)(size - pos));
        Py_ssize_t raw;
        if (line + 1 < n_lines) {
            if (!nl) { rc = 1; goto done; }
            raw = nl - s;
        } else {
            if (nl) { rc = 1; goto done; }
            raw = size - pos;
        }
        if (work_reserve(&wa, &wb, &cap_work, (size_t)raw + 16) < 0 ||
            grow((void **)&toks, &cap_toks, (size_t)raw + 1, sizeof(Tok)) < 0) { rc = -1; goto done; }
        Py_ssize_t n;
        const uint8_t *a = prepare_line(wa, wb, s, raw, pre_13a, 0, &n);
        Py_ssize_t nt = tokenize_line_pad(a, n, 1, pad, toks);
        /* the tokens, the spaces between them and the line's '\n': at most 2 n + 1 bytes */
        if (grow((void **)&buf, &cap_buf, used + 2 * (size_t)n + 1, 1) < 0) { rc = -1; goto done; }
        for (Py_ssize_t k = 0; k < nt; k++) {
            if (k) buf[used++] = ' ';
            memcpy(buf + used, toks[k].p, toks[k].len);
            used += toks[k].len;
        }
        if (line + 1 < n_lines) buf[used++] = '\n';
        pos += raw + 1;
    }
done:
    free(wa); free(wb); free(toks);
    if (rc != 0) { free(buf); buf = NULL; used = 0; }
    *out = buf;
    *out_len = used;
    return rc;
}

static PyObject *py_tokenize(PyObject *self, PyObject *args) {
    Py_buffer data;
    Py_ssize_t n_lines;
    int pre_13a, pad;
    if (!PyArg_ParseTuple(args, "y*npp", &data, &n_lines, &pre_13a, &pad)) return NULL;
    if (n_lines < 0) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "n_lines must be >= 0");
        return NULL;
    }
    uint8_t *out = NULL;
    size_t out_len = 0;
    PyThreadState *ts = PyEval_SaveThread();
    int rc = tokenize_all((const uint8_t *)data.buf, data.len, n_lines, pre_13a, pad, &out, &out_len, &ts);
    PyEval_RestoreThread(ts);
    PyBuffer_Release(&data);
    if (rc == -2) return NULL; /* KeyboardInterrupt (or another signal handler's exception) is set */
    if (rc < 0) return PyErr_NoMemory();
    if (rc > 0) Py_RETURN_NONE;
    PyObject *res = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)out_len);
    free(out);
    return res;
}

/* ------------------------------------------------------------------------------------------------ */
/* BLEU statistics per segment.
 *
 * Every segment is counted with segment-local token ids: the distinct tokens of the hypothesis are
 * numbered 1..n_uni in order of first occurrence and a reference token that is not in the hypothesis
 * gets 0 (it cannot match). An n-gram (n >= 2) is identified exactly by (id of its (n-1)-gram prefix,
 * id of its last token), through a direct index or a small per-segment hash table; only hypothesis
 * n-grams get ids, reference n-grams are looked up (count_segment). */

static inline size_t slot_of(int64_t key, int bits) {
    return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
}

typedef struct {
    /* fused kernel: tokens and prepared text of the segment */
    Tok *toks; size_t cap_toks;
    uint8_t *segbuf; size_t cap_segbuf;
    uint8_t *wa, *wb; size_t cap_work;
    /* local ids: hypothesis (hl), references concatenated (rl) with boundaries rb */
    int32_t *hl; size_t cap_hl;
    int32_t *rl; size_t cap_rl;
    int64_t *rb; size_t cap_rb;
    /* unigram table: slot -> local id (-1 empty); per local id its first token (fused) or global id */
    int32_t *utab; size_t cap_utab;
    int64_t *ufirst; size_t cap_ufirst;
    /* n-gram counting */
    int64_t *keys; size_t cap_keys;
    int32_t *vals; size_t cap_vals;
    int64_t *hprev; size_t cap_hprev;
    int64_t *hcount; size_t cap_hcount;
    int64_t *rcount; size_t cap_rcount;
    int64_t *rmax; size_t cap_rmax;
    int64_t *rprev; size_t cap_rprev;
    /* direct n-gram index: dtab[prefix id * (n_uni + 1) + last token id] -> n-gram id (0 none); all 0
     * between uses (the entries set for a segment are reset through hidx) */
    int32_t *dtab; size_t cap_dtab;
    int64_t *hidx; size_t cap_hidx;
} Scratch;

static void scratch_free(Scratch *S) {
    free(S->toks); free(S->segbuf); free(S->wa); free(S->wb); free(S->hl); free(S->rl); free(S->rb);
    free(S->utab); free(S->ufirst); free(S->keys); free(S->vals); free(S->hprev); free(S->hcount);
    free(S->rcount); free(S->rmax); free(S->rprev); free(S->dtab); free(S->hidx);
}

static inline int table_bits(int64_t n_keys) {
    int bits = 1;
    while (((int64_t)1 << bits) < 2 * n_keys) bits++;
    return bits;
}

/* room for a segment with lh hypothesis tokens, lr reference tokens and nr references */
static int scratch_reserve(Scratch *S, int64_t lh, int64_t lr, int64_t nr) {
    size_t h = (size_t)lh + 1, r = (size_t)lr + 1, t = (size_t)1 << table_bits(lh);
    if (grow((void **)&S->hl, &S->cap_hl, h, sizeof(int32_t)) < 0 ||
        grow((void **)&S->ufirst, &S->cap_ufirst, h, sizeof(int64_t)) < 0 ||
        grow((void **)&S->hprev, &S->cap_hprev, h, sizeof(int64_t)) < 0 ||
        grow((void **)&S->hcount, &S->cap_hcount, h, sizeof(int64_t)) < 0 ||
        grow((void **)&S->rcount, &S->cap_rcount, h, sizeof(int64_t)) < 0 ||
        grow((void **)&S->rmax, &S->cap_rmax, h, sizeof(int64_t)) < 0 ||
        grow((void **)&S->rl, &S->cap_rl, r, sizeof(int32_t)) < 0 ||
        grow((void **)&S->rprev, &S->cap_rprev, r, sizeof(int64_t)) < 0 ||
        grow((void **)&S->rb, &S->cap_rb, (size_t)nr + 1, sizeof(int64_t)) < 0 ||
        grow((void **)&S->utab, &S->cap_utab, t, sizeof(int32_t)) < 0 ||
        grow((void **)&S->keys, &S->cap_keys, t, sizeof(int64_t)) < 0 ||
        grow((void **)&S->vals, &S->cap_vals, t, sizeof(int32_t)) < 0 ||
        grow((void **)&S->hidx, &S->cap_hidx, h, sizeof(int64_t)) < 0)
        return -1;
    return 0;
}

#define DTAB_MAX ((size_t)1 << 16)

/* room for a direct index of `need` entries (<= DTAB_MAX), new entries -1 */
static int dtab_reserve(Scratch *S, size_t need) {
    size_t old = S->cap_dtab;
    if (need <= old) return 0;
    if (grow((void **)&S->dtab, &S->cap_dtab, need, sizeof(int32_t)) < 0) return -1;
    memset(S->dtab + old, 0, (S->cap_dtab - old) * sizeof(int32_t));
    return 0;
}

/* Statistics of one segment from its local ids: S->hl[0:lh] in 1..n_uni (the distinct hypothesis
 * tokens in order of first occurrence), S->rl (references concatenated, boundaries S->rb[0..nr]) in
 * 0..n_uni, 0 for a token that is not in the hypothesis. Ids of n-grams follow the same convention
 * (1.. for hypothesis n-grams, 0 for "absent"), so a reference n-gram whose prefix or last token is
 * absent maps to 0 without a branch, and counter 0 is a dummy.
 * row: hyp_len, ref_len, match_1..N, total_1..N (+ clip_len if strict); zero-initialised. */
static void count_segment(Scratch *S, int64_t lh, int32_t n_uni, int64_t nr, int max_order, int method, int strict,
                          double *row) {
    const int32_t *hl = S->hl, *rl = S->rl;
    const int64_t *rb = S->rb;
    int64_t *hprev = S->hprev, *rprev = S->rprev, *hcount = S->hcount, *rcount = S->rcount, *rmax = S->rmax;
    int64_t best = -1, best_diff = -1, total = 0, shortest = -1;
    for (int64_t r = 0; r < nr; r++) {
        int64_t lr = rb[r + 1] - rb[r];
        total += lr;
        if (shortest < 0 || lr < shortest) shortest = lr;
        int64_t diff = lh > lr ? lh - lr : lr - lh;
        if (best_diff < 0 || diff < best_diff || (diff == best_diff && lr < best)) {
            best_diff = diff;
            best = lr;
        }
    }
    double ref_len;
    if (method == 0) ref_len = (double)best;
    else if (method == 1) ref_len = (double)shortest;
    else ref_len = (double)total / (double)nr;
    row[0] = (double)lh;
    row[1] = ref_len;
    if (strict) row[2 + 2 * max_order] = (double)lh < ref_len ? (double)lh : ref_len;
    if (lh == 0) return;

    int bits = table_bits(lh);
    size_t size = (size_t)1 << bits, mask = size - 1;
    int64_t *keys = S->keys;
    int32_t *vals = S->vals;
    int64_t *hidx = S->hidx;
    int32_t n_ids = n_uni, n_prev = 0;
    for (int n = 1; n <= max_order; n++) {
        int64_t n_h = lh - n + 1;
        if (n_h <= 0) break;
        row[2 + max_order + n - 1] = (double)n_h;
        int direct = 0;
        int32_t *dtab = NULL;
        int64_t W = (int64_t)n_uni + 1;
        if (n == 1) {  /* unigrams: the local ids themselves */
            for (int32_t l = 0; l <= n_ids; l++) { hcount[l] = 0; rcount[l] = 0; rmax[l] = 0; }
            for (int64_t k = 0; k < lh; k++) { hcount[hl[k]]++; hprev[k] = hl[k]; }
        } else {
            n_ids = 0;
            size_t span = (size_t)(n_prev + 1) * (size_t)W;
            direct = span <= DTAB_MAX && dtab_reserve(S, span) == 0;
            dtab = S->dtab;
            if (direct) {  /* n-gram id = dtab[id of its (n-1)-gram prefix * W + id of its last token] */
                for (int64_t k = 0; k < n_h; k++) {
                    int64_t ix = hprev[k] * W + hl[k + n - 1];
                    int32_t lid = dtab[ix];
                    if (!lid) {
                        lid = dtab[ix] = ++n_ids;
                        hcount[lid] = 0;
                        rmax[lid] = 0;
                        rcount[lid] = 0;
                    }
                    hidx[k] = ix;
                    hcount[lid]++;
                    hprev[k] = lid;
                }
            } else {  /* hash table: key = (id of the (n-1)-gram at k) << 32 | id of the last token */
                memset(vals, 0, size * sizeof(int32_t));
                for (int64_t k = 0; k < n_h; k++) {
                    int64_t key = (hprev[k] << 32) | (int64_t)hl[k + n - 1];
                    size_t s = slot_of(key, bits);
                    while (vals[s] && keys[s] != key) s = (s + 1) & mask;
                    if (!vals[s]) {
                        keys[s] = key;
                        vals[s] = ++n_ids;
                        hcount[n_ids] = 0;
                        rmax[n_ids] = 0;
                        rcount[n_ids] = 0;
                    }
                    int32_t lid = vals[s];
                    hcount[lid]++;
                    hprev[k] = lid;
                }
            }
            rcount[0] = 0;
        }
        /* each reference: count its n-grams by id (id 0, absent from the hypothesis, in the dummy
         * counter) and keep the max per n-gram. rprev[p]: id of the (n-1)-gram at p; positions that
         * cannot start an n-gram keep stale values but are never read again. */
        for (int64_t r = 0; r < nr; r++) {
            if (n == 1) {
                for (int64_t p = rb[r]; p < rb[r + 1]; p++) {
                    rprev[p] = rl[p];
                    rcount[rl[p]]++;
                }
            } else if (direct) {
                for (int64_t p = rb[r]; p + n - 1 < rb[r + 1]; p++) {
                    int32_t lid = dtab[rprev[p] * W + rl[p + n - 1]];
                    rprev[p] = lid;
                    rcount[lid]++;
                }
            } else {
                for (int64_t p = rb[r]; p + n - 1 < rb[r + 1]; p++) {
                    int32_t last = rl[p + n - 1], lid = 0;
                    if (rprev[p] && last) {
                        int64_t key = (rprev[p] << 32) | (int64_t)last;
                        size_t s = slot_of(key, bits);
                        while (vals[s]) {
                            if (keys[s] == key) { lid = vals[s]; break; }
                            s = (s + 1) & mask;
                        }
                    }
                    rprev[p] = lid;
                    rcount[lid]++;
                }
            }
            if (nr > 1) {  /* (with one reference its counts are the maxima) */
                for (int32_t l = 1; l <= n_ids; l++) {
                    if (rcount[l] > rmax[l]) rmax[l] = rcount[l];
                    rcount[l] = 0;
                }
            }
        }
        if (direct)
            for (int64_t k = 0; k < n_h; k++) dtab[hidx[k]] = 0;
        const int64_t *best_count = nr > 1 ? rmax : rcount;
        int64_t m = 0;
        for (int32_t l = 1; l <= n_ids; l++) m += hcount[l] < best_count[l] ? hcount[l] : best_count[l];
        row[2 + n - 1] = (double)m;
        n_prev = n_ids;
    }
}

/* ---- statistics from encoded rows (global ids) ---- */

/* returns 0 ok, -1 no memory */
static int bleu_counts(const int32_t *ids, const int64_t *offsets, Py_ssize_t n_hyp, const int64_t *ref_starts,
                       int max_order, int method, int strict, double *out) {
    Py_ssize_t n_cols = 2 + 2 * max_order + (strict ? 1 : 0);
    Scratch S;
    memset(&S, 0, sizeof(S));
    int rc = 0;
    for (Py_ssize_t seg = 0; seg < n_hyp; seg++) {
        int64_t h0 = offsets[seg], lh = offsets[seg + 1] - h0;
        int64_t r_first = n_hyp + ref_starts[seg], r_last = n_hyp + ref_starts[seg + 1], nr = r_last - r_first;
        int64_t r0 = offsets[r_first], lr = offsets[r_last] - r0;
        if (scratch_reserve(&S, lh, lr, nr) < 0) { rc = -1; break; }
        /* hypothesis tokens -> dense local ids (table keyed on the global id) */
        int bits = table_bits(lh);
        size_t mask = ((size_t)1 << bits) - 1;
        memset(S.utab, 0xFF, ((size_t)1 << bits) * sizeof(int32_t));
        int32_t n_uni = 0;
        for (int64_t k = 0; k < lh; k++) {
            int64_t g = ids[h0 + k];
            size_t s = slot_of(g, bits);
            while (S.utab[s] >= 0 && S.ufirst[S.utab[s]] != g) s = (s + 1) & mask;
            if (S.utab[s] < 0) { S.utab[s] = n_uni; S.ufirst[n_uni++] = g; }
            S.hl[k] = S.utab[s] + 1;
        }
        for (int64_t r = 0; r <= nr; r++) S.rb[r] = offsets[r_first + r] - r0;
        for (int64_t p = 0; p < lr; p++) {
            int64_t g = ids[r0 + p];
            size_t s = slot_of(g, bits);
            int32_t l = -1;
            while (S.utab[s] >= 0) {
                if (S.ufirst[S.utab[s]] == g) { l = S.utab[s]; break; }
                s = (s + 1) & mask;
            }
            S.rl[p] = l + 1;
        }
        count_segment(&S, lh, n_uni, nr, max_order, method, strict, out + seg * n_cols);
    }
    scratch_free(&S);
    return rc;
}

/* ---- fused: tokenize + count straight from the text, segment by segment ---- */

static inline int same_token(const Tok *a, const Tok *b) {
    return a->h == b->h && a->len == b->len && a->k8 == b->k8 &&
           (a->len <= 8 || memcmp(a->p + 8, b->p + 8, a->len - 8) == 0);
}

/* UTF-8 encoding of n code units of a PEP 393 kind (2: Latin-1, 3: UCS-2, 4: UCS-4) into dst (room for
 * 4 bytes per unit; 3 suffice for UCS-2 and 2 for Latin-1); returns the byte count, or -1 for a
 * surrogate code point (not encodable, as str.encode("utf-8") says). */
static Py_ssize_t utf8_encode(const void *src, Py_ssize_t n, int kind, uint8_t *dst) {
    uint8_t *o = dst;
    Py_ssize_t i = 0;
    if (kind == 2) {  /* Latin-1: mostly ASCII; copy runs of 8 ASCII bytes at once */
        const uint8_t *s8 = (const uint8_t *)src;
        while (i < n) {
            if (i + 8 <= n) {
                uint64_t w;
                memcpy(&w, s8 + i, 8);
                if (!(w & 0x8080808080808080ULL)) {
                    memcpy(o, &w, 8);
                    o += 8;
                    i += 8;
                    continue;
                }
            }
            uint8_t c = s8[i++];
            if (c < 0x80) {
                *o++ = c;
            } else {
                *o++ = (uint8_t)(0xC0 | (c >> 6));
                *o++ = (uint8_t)(0x80 | (c & 0x3F));
            }
        }
        return o - dst;
    }
    for (; i < n; i++) {
        uint32_t c = kind == 2 ? ((const uint8_t *)src)[i] : kind == 3 ? ((const uint16_t *)src)[i]
                                                                         : ((const uint32_t *)src)[i];
        if (c < 0x80) {
            *o++ = (uint8_t)c;
        } else if (c < 0x800) {
            *o++ = (uint8_t)(0xC0 | (c >> 6));
            *o++ = (uint8_t)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF) return -1;
            *o++ = (uint8_t)(0xE0 | (c >> 12));
            *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            *o++ = (uint8_t)(0x80 | (c & 0x3F));
        } else {
            *o++ = (uint8_t)(0xF0 | (c >> 18));
            *o++ = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
            *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            *o++ = (uint8_t)(0x80 | (c & 0x3F));
        }
    }
    return o - dst;
}

typedef struct {
    /* row L (hypotheses 0..n_hyp-1, then the references): lp[L][0:ll[L]], code units of lk[L] bytes
     * (1: ASCII, i.e. UTF-8 already; 2: Latin-1; 3: UCS-2; 4: UCS-4, the str kinds of PEP 393) */
    const void *const *lp;
    const Py_ssize_t *ll;
    const uint8_t *lk;
    Py_ssize_t n_hyp;
    const int64_t *ref_starts;
    int max_order, method, strict, rules_13a, ascii_lower;
    double *out;
    Py_ssize_t first, last;  /* segments of this worker */
    int rc;
} BleuJob;

static int fused_range(BleuJob *J) {
    Py_ssize_t n_cols = 2 + 2 * J->max_order + (J->strict ? 1 : 0);
    Scratch S;
    memset(&S, 0, sizeof(S));
    int rc = 0;
    for (Py_ssize_t seg = J->first; seg < J->last; seg++) {
        int64_t r_first = J->n_hyp + J->ref_starts[seg], r_last = J->n_hyp + J->ref_starts[seg + 1];
        int64_t nr = r_last - r_first;
        /* Room for the segment's rows (hypothesis, then references): a row's UTF-8 bytes (at most
         * lk bytes per code unit: ASCII 1, Latin-1 2, UCS-2 3, UCS-4 4) and, after 13a steps 1-2, a
         * prepared copy no longer than them; ASCII rows are read in place, others encoded into segbuf. */
        size_t seg_bytes = 0, tok_bytes = 0, max_row = 0;
        for (int64_t j = -1; j < nr; j++) {
            int64_t L = j < 0 ? seg : r_first + j;
            size_t enc = (size_t)J->lk[L] * (size_t)J->ll[L];
            seg_bytes += (J->lk[L] == 1 ? 0 : enc) + enc;
            tok_bytes += enc;
            if (enc > max_row) max_row = enc;
        }
        if (grow((void **)&S.toks, &S.cap_toks, tok_bytes + 1, sizeof(Tok)) < 0 ||
            grow((void **)&S.segbuf, &S.cap_segbuf, seg_bytes + 1, 1) < 0) { rc = -1; break; }
        if (work_reserve(&S.wa, &S.wb, &S.cap_work, max_row + 16) < 0) { rc = -1; break; }
        if (scratch_reserve(&S, 0, 0, nr) < 0) { rc = -1; break; }
        size_t used = 0;
        int64_t nt = 0, lh = 0;
        for (int64_t j = -1; j < nr; j++) {
            int64_t L = j < 0 ? seg : r_first + j;
            const uint8_t *src = (const uint8_t *)J->lp[L];
            Py_ssize_t len = J->ll[L];
            if (J->lk[L] != 1) {  /* encode to UTF-8 in the segment buffer */
                Py_ssize_t m = utf8_encode(J->lp[L], len, J->lk[L], S.segbuf + used);
                if (m < 0) { rc = 1; break; }  /* a lone surrogate */
                src = S.segbuf + used;
                len = m;
                used += (size_t)m;
            }
            Py_ssize_t n;
            const uint8_t *a = prepare_line(S.wa, S.wb, src, len, J->rules_13a, J->ascii_lower, &n);
            if (a != src) {  /* keep the prepared bytes for the whole segment */
                memcpy(S.segbuf + used, a, (size_t)n);
                a = S.segbuf + used;
                used += (size_t)n;
            }
            nt += tokenize_line(a, n, J->rules_13a, S.toks + nt);
            if (j < 0) lh = nt;
            else S.rb[j + 1] = nt - lh;
        }
        if (rc != 0) break;
        S.rb[0] = 0;
        if (scratch_reserve(&S, lh, nt - lh, nr) < 0) { rc = -1; break; }
        /* local ids: hypothesis tokens inserted, reference tokens looked up */
        int bits = table_bits(lh);
        size_t mask = ((size_t)1 << bits) - 1;
        memset(S.utab, 0xFF, ((size_t)1 << bits) * sizeof(int32_t));
        int32_t n_uni = 0;
        for (int64_t k = 0; k < lh; k++) {
            const Tok *t = &S.toks[k];
            size_t s = (size_t)(t->h >> (64 - bits));
            while (S.utab[s] >= 0 && !same_token(&S.toks[S.ufirst[S.utab[s]]], t)) s = (s + 1) & mask;
            if (S.utab[s] < 0) { S.utab[s] = n_uni; S.ufirst[n_uni++] = k; }
            S.hl[k] = S.utab[s] + 1;
        }
        for (int64_t k = lh; k < nt; k++) {
            const Tok *t = &S.toks[k];
            size_t s = (size_t)(t->h >> (64 - bits));
            int32_t l = -1;
            while (S.utab[s] >= 0) {
                if (same_token(&S.toks[S.ufirst[S.utab[s]]], t)) { l = S.utab[s]; break; }
                s = (s + 1) & mask;
            }
            S.rl[k - lh] = l + 1;
        }
        count_segment(&S, lh, n_uni, nr, J->max_order, J->method, J->strict, J->out + seg * n_cols);
    }
    scratch_free(&S);
    return rc;
}

static void *fused_thread(void *arg) {
    BleuJob *J = (BleuJob *)arg;
    J->rc = fused_range(J);
    return NULL;
}

/* Statistics of all segments, split between n_threads threads; returns 0 ok, 1 a lone surrogate, -1 no memory. */
static int bleu_rows(const void *const *lp, const Py_ssize_t *ll, const uint8_t *lk, Py_ssize_t n_hyp,
                     const int64_t *ref_starts,
                     int max_order, int method, int strict, int rules_13a, int ascii_lower, double *out,
                     int n_threads) {
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 64) n_threads = 64;
    if ((Py_ssize_t)n_threads > n_hyp) n_threads = n_hyp > 0 ? (int)n_hyp : 1;
    BleuJob jobs[64];
    pthread_t tids[64];
    int started[64];
    for (int t = 0; t < n_threads; t++) {
        BleuJob *J = &jobs[t];
        J->lp = lp; J->ll = ll; J->lk = lk; J->n_hyp = n_hyp; J->ref_starts = ref_starts;
        J->max_order = max_order; J->method = method; J->strict = strict;
        J->rules_13a = rules_13a; J->ascii_lower = ascii_lower; J->out = out;
        J->first = n_hyp * t / n_threads;
        J->last = n_hyp * (t + 1) / n_threads;
        J->rc = 0;
        started[t] = 0;
    }
    for (int t = 1; t < n_threads; t++) {
        if (pthread_create(&tids[t], NULL, fused_thread, &jobs[t]) == 0) started[t] = 1;
        else jobs[t].rc = fused_range(&jobs[t]);  /* could not start a thread: do it here */
    }
    jobs[0].rc = fused_range(&jobs[0]);
    int rc = 0;
    for (int t = 1; t < n_threads; t++)
        if (started[t]) pthread_join(tids[t], NULL);
    for (int t = 0; t < n_threads; t++)
        if (jobs[t].rc < 0 || (jobs[t].rc > 0 && rc == 0)) rc = jobs[t].rc;
    return rc;
}

static int check_refs(const int64_t *rs, Py_ssize_t n_hyp, Py_ssize_t n_ref_rows) {
    if (rs[0] != 0 || rs[n_hyp] > n_ref_rows) {
        PyErr_SetString(PyExc_ValueError, "ref_starts do not match the rows");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n_hyp; i++) {
        if (rs[i + 1] <= rs[i]) {
            PyErr_SetString(PyExc_ValueError, "ref_starts must be increasing (every segment has a reference)");
            return -1;
        }
    }
    return 0;
}

static int check_buffer(Py_buffer *b, Py_ssize_t itemsize, Py_ssize_t min_items, const char *name) {
    if (b->len % itemsize != 0 || b->len / itemsize < min_items) {
        PyErr_Format(PyExc_ValueError, "%s has %zd bytes, need at least %zd items of %zd bytes",
                     name, b->len, min_items, itemsize);
        return -1;
    }
    return 0;
}

static PyObject *py_bleu_counts(PyObject *self, PyObject *args) {
    Py_buffer ids, offsets, ref_starts, out;
    Py_ssize_t n_hyp;
    int max_order, method, strict;
    if (!PyArg_ParseTuple(args, "y*y*ny*iipw*", &ids, &offsets, &n_hyp, &ref_starts, &max_order, &method, &strict,
                          &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n_cols = 2 + 2 * (Py_ssize_t)max_order + (strict ? 1 : 0);
    if (n_hyp < 0 || max_order < 1 || method < 0 || method > 2) {
        PyErr_SetString(PyExc_ValueError, "bleu_counts: bad n_hyp, max_order or method");
        goto release;
    }
    if (check_buffer(&ref_starts, 8, n_hyp + 1, "ref_starts") < 0 || check_buffer(&offsets, 8, n_hyp + 1, "offsets") < 0 ||
        check_buffer(&ids, 4, 0, "ids") < 0 || check_buffer(&out, 8, n_hyp * n_cols, "out") < 0)
        goto release;
    {
        const int64_t *rs = (const int64_t *)ref_starts.buf, *off = (const int64_t *)offsets.buf;
        Py_ssize_t n_rows = offsets.len / 8 - 1;
        if (n_rows < n_hyp || check_refs(rs, n_hyp, n_rows - n_hyp) < 0) goto release;
        if (off[0] != 0 || off[n_rows] > ids.len / 4) {
            PyErr_SetString(PyExc_ValueError, "bleu_counts: offsets do not match ids");
            goto release;
        }
        for (Py_ssize_t i = 0; i < n_rows; i++) {
            if (off[i + 1] < off[i]) {
                PyErr_SetString(PyExc_ValueError, "bleu_counts: offsets must be non-decreasing");
                goto release;
            }
        }
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = bleu_counts((const int32_t *)ids.buf, (const int64_t *)offsets.buf, n_hyp, (const int64_t *)ref_starts.buf,
                     max_order, method, strict, (double *)out.buf);
    Py_END_ALLOW_THREADS
    if (rc == -1) {
        PyErr_NoMemory();
    } else {
        result = Py_None;
        Py_INCREF(result);
    }
release:
    PyBuffer_Release(&ids);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&ref_starts);
    PyBuffer_Release(&out);
    return result;
}

/* The code units of a str (its own buffer, kept alive through keep): 0, or 1 (not a str), or -1 (error). */
static int str_units(PyObject *s, PyObject *keep, const void **p, Py_ssize_t *n, uint8_t *kind) {
    if (!PyUnicode_Check(s)) return 1;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return -1;
#endif
    if (PyList_Append(keep, s) < 0) return -1;
    *p = PyUnicode_DATA(s);
    *n = PyUnicode_GET_LENGTH(s);
    *kind = PyUnicode_IS_ASCII(s) ? 1 : PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND ? 2
            : PyUnicode_KIND(s) == PyUnicode_2BYTE_KIND ? 3 : 4;
    return 0;
}

/* A segment's references in refs: a list or a tuple of str, or one str (a single reference). */
static Py_ssize_t seg_count(PyObject *seg) {
    if (PyList_Check(seg)) return PyList_GET_SIZE(seg);
    if (PyTuple_Check(seg)) return PyTuple_GET_SIZE(seg);
    return PyUnicode_Check(seg) ? 1 : 0;
}

static PyObject *seg_item(PyObject *seg, Py_ssize_t k) {
    if (PyList_Check(seg)) return PyList_GET_ITEM(seg, k);
    if (PyTuple_Check(seg)) return PyTuple_GET_ITEM(seg, k);
    return seg;
}

static PyObject *py_bleu_strings(PyObject *self, PyObject *args) {
    PyObject *hyps, *refs;
    Py_buffer out;
    int max_order, method, strict, rules_13a, ascii_lower, n_threads;
    if (!PyArg_ParseTuple(args, "O!O!iipppw*i", &PyList_Type, &hyps, &PyList_Type, &refs, &max_order, &method, &strict,
                          &rules_13a, &ascii_lower, &out, &n_threads))
        return NULL;
    PyObject *result = NULL, *keep = NULL;
    const void **lp = NULL;
    Py_ssize_t *ll = NULL;
    uint8_t *lk = NULL;
    int64_t *rs = NULL;
    Py_ssize_t n_hyp = PyList_GET_SIZE(hyps);
    Py_ssize_t n_cols = 2 + 2 * (Py_ssize_t)max_order + (strict ? 1 : 0);
    if (max_order < 1 || method < 0 || method > 2 || PyList_GET_SIZE(refs) != n_hyp) {
        PyErr_SetString(PyExc_ValueError, "bleu_strings: bad max_order or method, or refs and hyps differ in length");
        goto release;
    }
    if (check_buffer(&out, 8, n_hyp * n_cols, "out") < 0) goto release;
    rs = (int64_t *)malloc(((size_t)n_hyp + 1) * sizeof(int64_t));
    if (!rs) { PyErr_NoMemory(); goto release; }
    rs[0] = 0;
    for (Py_ssize_t i = 0; i < n_hyp; i++) {
        Py_ssize_t k = seg_count(PyList_GET_ITEM(refs, i));
        if (k == 0) { result = Py_False; goto release; }
        rs[i + 1] = rs[i] + k;
    }
    Py_ssize_t n_rows = n_hyp + (Py_ssize_t)rs[n_hyp];
    lp = (const void **)malloc(((size_t)n_rows + 1) * sizeof(*lp));
    ll = (Py_ssize_t *)malloc(((size_t)n_rows + 1) * sizeof(*ll));
    lk = (uint8_t *)malloc((size_t)n_rows + 1);
    keep = PyList_New(0);
    if (!lp || !ll || !lk || !keep) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto release; }
    Py_ssize_t row = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (Py_ssize_t i = 0; i < n_hyp; i++) {
            PyObject *seg = pass == 0 ? NULL : PyList_GET_ITEM(refs, i);
            Py_ssize_t k_end = pass == 0 ? 1 : rs[i + 1] - rs[i];
            for (Py_ssize_t k = 0; k < k_end; k++) {
                PyObject *str = pass == 0 ? PyList_GET_ITEM(hyps, i) : seg_item(seg, k);
                int r = str_units(str, keep, &lp[row], &ll[row], &lk[row]);
                if (r < 0) goto release;
                /* not a str, or a "\n" inside a line (13a's "-\n" rule): not handled here */
                Py_ssize_t nl = (r == 0 && rules_13a) ? PyUnicode_FindChar(str, '\n', 0, ll[row], 1) : -1;
                if (nl == -2) goto release;
                if (r > 0 || nl >= 0) {
                    result = Py_False;
                    goto release;
                }
                row++;
            }
        }
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = bleu_rows(lp, ll, lk, n_hyp, rs, max_order, method, strict, rules_13a, ascii_lower, (double *)out.buf,
                   n_threads);
    Py_END_ALLOW_THREADS
    if (rc < 0) PyErr_NoMemory();
    else result = rc == 0 ? Py_True : Py_False;
release:
    Py_XINCREF(result);
    Py_XDECREF(keep);
    free(lp);
    free(ll);
    free(lk);
    free(rs);
    PyBuffer_Release(&out);
    return result;
}

/* ---- BLEU scores of statistics rows (sentence BLEU of every segment at once) -------------------------------
 * bleu_scores(stats, n_rows, max_order, smooth, smooth_value, effective_order, strict, out)
 *   stats: float64 rows of 2 + 2 * max_order (+ 1 if strict) columns (hyp_len, ref_len, match_1..N, total_1..N
 *   [, clip_len]); out: float64[n_rows]. smooth: 0 none, 1 exp, 2 floor, 3 add-k.
 * The operations of metrics/bleu.py bleu_row (compat sacrebleu, no weights) in the same order, with the C
 * library's exp and log (what Python's math.exp / math.log call, and so sacreBLEU): the scores are bit-identical
 * to the reference path's and to sacreBLEU's sentence_score. */
#include <math.h>
#define BLEU_MAX_ORDER 1024
#define MY_LOG_ZERO (-9999999999.0)

static void bleu_score_rows(const double *stats, Py_ssize_t n_rows, int n, int smooth, double sv, int eff_order,
                            int strict, double *out) {
    Py_ssize_t n_cols = 2 + 2 * (Py_ssize_t)n + (strict ? 1 : 0);
    for (Py_ssize_t i = 0; i < n_rows; i++) {
        const double *r = stats + i * n_cols;
        double sys_len = r[0], ref_len = r[1];
        const double *correct = r + 2, *total = r + 2 + n;
        double bp;
        if (strict) { /* _strict_bp */
            double clip = r[2 + 2 * n];
            double val = exp(1.0 - ref_len / (clip > 0 ? clip : 1.0));
            bp = ref_len <= 0 ? 1.0 : (clip <= 0 ? 0.0 : (val < 1.0 ? val : 1.0));
        } else { /* _bp */
            bp = 1.0;
            if (sys_len < ref_len) bp = sys_len <= 0 ? 0.0 : exp(1.0 - ref_len / sys_len);
        }
        /* _precisions (add-k acts on copies of the counts) */
        double csum = 0.0, mean_log = 0.0, match_sum = 0.0;
        int active = 1, eff = 0, k = 0;
        double cum0 = 0.0, cum_eff = 0.0; /* the running sum after order 1, after the last active order */
        for (int j = 0; j < n; j++) {
            double c = correct[j], t = total[j];
            match_sum += c;
            if (smooth == 3 && j > 0) { c += sv; t += sv; }
            int has = t > 0;
            active = active && has;
            int zero = c == 0;
            double safe_t = has ? t : 1.0;
            double prec = 100.0 * c / safe_t;
            if (smooth == 1) {
                if (zero && active) k++;
                if (zero) prec = 100.0 / (ldexp(1.0, k) * safe_t);
            } else if (smooth == 2) {
                if (zero) prec = 100.0 * sv / safe_t;
            }
            if (!active) prec = 0.0;
            double logp = prec > 0 ? log(prec) : MY_LOG_ZERO;
            csum += logp;
            if (j == 0) cum0 = csum;
            if (active) { eff++; cum_eff = csum; } /* orders up to sacreBLEU's "total == 0: stop" (after add-k) */
        }
        if (!eff_order) eff = n;
        int eff_safe = eff > 1 ? eff : 1;
        /* cumsum(logp)[eff_safe - 1] / eff_safe */
        mean_log = (!eff_order ? csum : (eff >= 1 ? cum_eff : cum0)) / (double)eff_safe;
        double score = bp * exp(mean_log);
        if (match_sum == 0 || eff == 0) score = 0.0;
        out[i] = score;
    }
}

static PyObject *py_bleu_scores(PyObject *self, PyObject *args) {
    Py_buffer stats, out;
    Py_ssize_t n_rows;
    int max_order, smooth, eff_order, strict;
    double sv;
    if (!PyArg_ParseTuple(args, "y*niidppw*", &stats, &n_rows, &max_order, &smooth, &sv, &eff_order, &strict, &out))
        return NULL;
    PyObject *result = NULL;
    if (max_order < 1 || max_order > BLEU_MAX_ORDER || smooth < 0 || smooth > 3 || n_rows < 0) {
        PyErr_SetString(PyExc_ValueError, "bleu_scores: bad max_order, smooth or n_rows");
        goto release;
    }
    Py_ssize_t n_cols = 2 + 2 * (Py_ssize_t)max_order + (strict ? 1 : 0);
    if (check_buffer(&stats, 8, n_rows * n_cols, "stats") < 0 || check_buffer(&out, 8, n_rows, "out") < 0)
        goto release;
    Py_BEGIN_ALLOW_THREADS
    bleu_score_rows((const double *)stats.buf, n_rows, max_order, smooth, sv, eff_order, strict, (double *)out.buf);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
release:
    PyBuffer_Release(&stats);
    PyBuffer_Release(&out);
    return result;
}

/* ---- Text of a numeric table (the rows of a --sentence-level TSV / CSV) --------------------------------------
 * format_rows(ints, floats, digits, sep, end) -> bytes
 *   ints: int64[n] (the first column, e.g. segment numbers); floats: list of float64[n] buffers; digits: list of
 *   int (decimals per float column); every row is "<int><sep><f_1><sep>...<f_k><end>".
 * Every cell is the text of Python's str(i) / format(x, f".{d}f"): a float is written from k = rint(|x|·10^d)
 * when that is the correctly rounded value for sure (y = |x|·10^d is one IEEE product, error <= ulp(y)/2; the
 * fraction of y is not within 2^-50·y of .5; y < 2^52); every other cell (near-ties, NaN, infinities, huge
 * values, d > 15) is written by PyOS_double_to_string(x, 'f', d, 0), the function format() itself calls. */
typedef struct { char *p; size_t len, cap; } fmt_buf;

static int fmt_reserve(fmt_buf *b, size_t more) {
    if (b->len + more <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more) cap *= 2;
    char *q = (char *)realloc(b->p, cap);
    if (!q) return -1;
    b->p = q;
    b->cap = cap;
    return 0;
}

static char *fmt_u64(char *end, uint64_t v) { /* digits of v ending just before end; returns the start */
    do { *--end = (char)('0' + v % 10); v /= 10; } while (v);
    return end;
}

static int fmt_float(fmt_buf *b, double x, int d, const double *p10) {
    double a = fabs(x);
    if (d <= 15 && isfinite(x)) {
        double y = a * p10[d];
        if (y < 4503599627370496.0) { /* 2^52 */
            double frac = y - floor(y);
            if (fabs(frac - 0.5) > y * 8.881784197001252e-16) { /* 2^-50 */
                uint64_t k = (uint64_t)rint(y), scale = (uint64_t)p10[d];
                char tmp[48], *e = tmp + sizeof tmp, *s = e;
                if (d > 0) {
                    uint64_t f = k % scale;
                    for (int i = 0; i < d; i++) { *--s = (char)('0' + f % 10); f /= 10; }
                    *--s = '.';
                }
                s = fmt_u64(s, k / scale);
                if (signbit(x)) *--s = '-';
                size_t n = (size_t)(e - s);
                if (fmt_reserve(b, n) < 0) return -1;
                memcpy(b->p + b->len, s, n);
                b->len += n;
                return 0;
            }
        }
    }
    char *t = PyOS_double_to_string(x, 'f', d, 0, NULL);
    if (!t) return -2;
    size_t n = strlen(t);
    int rc = fmt_reserve(b, n);
    if (rc == 0) { memcpy(b->p + b->len, t, n); b->len += n; }
    PyMem_Free(t);
    return rc;
}

static PyObject *py_format_rows(PyObject *self, PyObject *args) {
    Py_buffer ints, sep, end;
    PyObject *floats, *digits;
    if (!PyArg_ParseTuple(args, "y*O!O!y*y*", &ints, &PyList_Type, &floats, &PyList_Type, &digits, &sep, &end))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t k = PyList_GET_SIZE(floats), n = ints.len / 8;
    Py_buffer *cols = (Py_buffer *)calloc((size_t)k + 1, sizeof(Py_buffer));
    int *dig = (int *)calloc((size_t)k + 1, sizeof(int));
    Py_ssize_t got = 0;
    fmt_buf b = {NULL, 0, 0};
    double p10[16];
    p10[0] = 1.0;
    for (int i = 1; i < 16; i++) p10[i] = p10[i - 1] * 10.0;
    if (!cols || !dig) { PyErr_NoMemory(); goto release; }
    if (ints.len % 8 != 0 || PyList_GET_SIZE(digits) != k) {
        PyErr_SetString(PyExc_ValueError, "format_rows: ints is not int64, or digits and floats differ in length");
        goto release;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        if (PyObject_GetBuffer(PyList_GET_ITEM(floats, j), &cols[j], PyBUF_SIMPLE) < 0) goto release;
        got++;
        long dj = PyLong_AsLong(PyList_GET_ITEM(digits, j));
        if (dj == -1 && PyErr_Occurred()) goto release;
        if (cols[j].len != n * 8 || dj < 0 || dj > 1000) {
            PyErr_SetString(PyExc_ValueError, "format_rows: a float column of another length, or digits outside 0..1000");
            goto release;
        }
        dig[j] = (int)dj;
    }
    const int64_t *iv = (const int64_t *)ints.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        char tmp[24], *e = tmp + sizeof tmp, *s;
        int64_t v = iv[i];
        s = fmt_u64(e, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
        if (v < 0) *--s = '-';
        if (fmt_reserve(&b, (size_t)(e - s)) < 0) { PyErr_NoMemory(); goto release; }
        memcpy(b.p + b.len, s, (size_t)(e - s));
        b.len += (size_t)(e - s);
        for (Py_ssize_t j = 0; j < k; j++) {
            if (fmt_reserve(&b, (size_t)sep.len) < 0) { PyErr_NoMemory(); goto release; }
            memcpy(b.p + b.len, sep.buf, (size_t)sep.len);
            b.len += (size_t)sep.len;
            int rc = fmt_float(&b, ((const double *)cols[j].buf)[i], dig[j], p10);
            if (rc == -1) { PyErr_NoMemory(); goto release; }
            if (rc < 0) goto release;
        }
        if (fmt_reserve(&b, (size_t)end.len) < 0) { PyErr_NoMemory(); goto release; }
        memcpy(b.p + b.len, end.buf, (size_t)end.len);
        b.len += (size_t)end.len;
    }
    result = PyBytes_FromStringAndSize(b.p ? b.p : "", (Py_ssize_t)b.len);
release:
    for (Py_ssize_t j = 0; j < got; j++) PyBuffer_Release(&cols[j]);
    free(cols);
    free(dig);
    free(b.p);
    PyBuffer_Release(&ints);
    PyBuffer_Release(&sep);
    PyBuffer_Release(&end);
    return result;
}

/* json_rows(ints, floats, keys) -> bytes
 *   The "rows" items of a numeric table as json.dumps(..., indent=2) writes them at depth 2 (the objects indented
 *   by 4 spaces, their members by 6, items separated by ",\n", no newline after the last "}"): keys[0] names the
 *   int column, keys[1..] the float columns (each key already JSON-encoded, quotes included). Ints as str(i);
 *   floats as float.__repr__ (PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0), what json uses), NaN and
 *   infinities as null (report.tables._json_value). */
static int fmt_put(fmt_buf *b, const char *s, size_t n) {
    if (fmt_reserve(b, n) < 0) return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

static PyObject *py_json_rows(PyObject *self, PyObject *args) {
    Py_buffer ints;
    PyObject *floats, *keys;
    if (!PyArg_ParseTuple(args, "y*O!O!", &ints, &PyList_Type, &floats, &PyList_Type, &keys)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t k = PyList_GET_SIZE(floats), n = ints.len / 8, got = 0;
    Py_buffer *cols = (Py_buffer *)calloc((size_t)k + 1, sizeof(Py_buffer));
    fmt_buf b = {NULL, 0, 0};
    if (!cols) { PyErr_NoMemory(); goto release; }
    if (ints.len % 8 != 0 || PyList_GET_SIZE(keys) != k + 1) {
        PyErr_SetString(PyExc_ValueError, "json_rows: ints is not int64, or keys is not one per column");
        goto release;
    }
    for (Py_ssize_t j = 0; j <= k; j++) {
        if (!PyBytes_Check(PyList_GET_ITEM(keys, j))) {
            PyErr_SetString(PyExc_TypeError, "json_rows: keys must be bytes");
            goto release;
        }
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        if (PyObject_GetBuffer(PyList_GET_ITEM(floats, j), &cols[j], PyBUF_SIMPLE) < 0) goto release;
        got++;
        if (cols[j].len != n * 8) {
            PyErr_SetString(PyExc_ValueError, "json_rows: a float column of another length");
            goto release;
        }
    }
    const int64_t *iv = (const int64_t *)ints.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (fmt_put(&b, i ? ",\n    {\n" : "    {\n", i ? 8 : 6) < 0) goto nomem;
        for (Py_ssize_t j = 0; j <= k; j++) {
            PyObject *key = PyList_GET_ITEM(keys, j);
            if (fmt_put(&b, "      ", 6) < 0 || fmt_put(&b, PyBytes_AS_STRING(key), (size_t)PyBytes_GET_SIZE(key)) < 0 ||
                fmt_put(&b, ": ", 2) < 0)
                goto nomem;
            if (j == 0) {
                char tmp[24], *e = tmp + sizeof tmp, *s;
                int64_t v = iv[i];
                s = fmt_u64(e, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
                if (v < 0) *--s = '-';
                if (fmt_put(&b, s, (size_t)(e - s)) < 0) goto nomem;
            } else {
                double x = ((const double *)cols[j - 1].buf)[i];
                if (!isfinite(x)) {
                    if (fmt_put(&b, "null", 4) < 0) goto nomem;
                } else {
                    char *t = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
                    if (!t) goto release;
                    int rc = fmt_put(&b, t, strlen(t));
                    PyMem_Free(t);
                    if (rc < 0) goto nomem;
                }
            }
            if (fmt_put(&b, j < k ? ",\n" : "\n", j < k ? 2 : 1) < 0) goto nomem;
        }
        if (fmt_put(&b, "    }", 5) < 0) goto nomem;
    }
    result = PyBytes_FromStringAndSize(b.p ? b.p : "", (Py_ssize_t)b.len);
    goto release;
nomem:
    PyErr_NoMemory();
release:
    for (Py_ssize_t j = 0; j < got; j++) PyBuffer_Release(&cols[j]);
    free(cols);
    free(b.p);
    PyBuffer_Release(&ints);
    return result;
}

static PyMethodDef methods[] = {
    {"encode", py_encode, METH_VARARGS,
     "encode(data, n_lines, rules_13a, ascii_lower, with_types) -> (ids, offsets, n_types, arena, t_start) or None"},
    {"tokenize", py_tokenize, METH_VARARGS,
     "tokenize(data, n_lines, pre_13a, pad) -> bytes (tokens joined by ' ', lines by '\\n') or None: 13a (pre_13a,"
     " pad) or zh's post-tokenizer (neither) on UTF-8 lines"},
    {"bleu_counts", py_bleu_counts, METH_VARARGS,
     "bleu_counts(ids, offsets, n_hyp, ref_starts, max_order, method, strict, out) -> None (fills out)"},
    {"bleu_strings", py_bleu_strings, METH_VARARGS,
     "bleu_strings(hyps, refs, max_order, method, strict, rules_13a, ascii_lower, out, n_threads) -> True (out filled)"
     " or False (input not handled: not lists of str, lone surrogates, a newline inside a line)"},
    {"bleu_scores", py_bleu_scores, METH_VARARGS,
     "bleu_scores(stats, n_rows, max_order, smooth, smooth_value, effective_order, strict, out) -> None (fills out:"
     " BLEU of every statistics row, as metrics/bleu.py bleu_from_stats with compat sacrebleu and no weights)"},
    {"json_rows", py_json_rows, METH_VARARGS,
     "json_rows(ints, floats, keys) -> bytes: the 'rows' items of json.dumps(indent=2) for a numeric table"},
    {"format_rows", py_format_rows, METH_VARARGS,
     "format_rows(ints, floats, digits, sep, end) -> bytes: rows '<int><sep><float>...<end>' with the text of str(i)"
     " and format(x, f'.{d}f')"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ckernel",
                                    "Compiled BLEU kernels (tokenize 13a + encode, n-gram counting).", -1, methods};

PyMODINIT_FUNC PyInit__ckernel(void) {
    init_classes();
    return PyModule_Create(&module);
}
