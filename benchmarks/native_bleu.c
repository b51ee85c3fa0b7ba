/* A native corpus-BLEU loop, the yardstick of benchmarks/bench_everyday.py.
 *
 * Reads a hypothesis file and one reference file (one segment per line, UTF-8), tokenizes each line with
 * sacreBLEU's 13a rules, counts clipped 1-4-grams per segment with an exact hash table (n-grams compared
 * token by token), and prints corpus BLEU (sacreBLEU defaults: closest reference length, exponential
 * smoothing only matters when an order has no match) with 17 significant digits, then the totals.
 * Single-threaded. Build: gcc -O2 -o native_bleu native_bleu.c -lm
 *
 * 13a as sacreBLEU: remove "<skipped>", "-\n" and join lines, unescape &quot; &amp; &lt; &gt; (when the line
 * holds '&'), pad with spaces, then four re.sub passes, each emulated literally with a left-to-right
 * non-overlapping scan over the UTF-8 bytes (exact: every pattern is ASCII or [^0-9]):
 *   ([{-~[-` -&(-+:-@/]) -> " \1 ";  ([^0-9])([.,]) -> "\1 \2 ";  ([.,])([^0-9]) -> " \1 \2";  ([0-9])(-) -> "\1 \2 "
 * Tokens are split at ASCII whitespace (the synthetic corpora hold no other whitespace characters).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const unsigned char *p; int len; } Tok;

static unsigned char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)sz + 1);
    if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) { perror(path); exit(2); }
    fclose(f);
    buf[sz] = 0;
    *n = (size_t)sz;
    return buf;
}

static int is_sym(unsigned c) {
    return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
           (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == 0x2F;
}
static int is_digit(unsigned c) { return c >= '0' && c <= '9'; }
static int is_ws(unsigned c) { return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x1F); }

/* buffers for the passes */
static unsigned char *A, *B;
static size_t CAP;

static void ensure(size_t n) {
    if (n > CAP) {
        CAP = n * 2 + 64;
        A = realloc(A, CAP);
        B = realloc(B, CAP);
    }
}

static size_t replace_lit(const unsigned char *s, size_t n, unsigned char *d, const char *pat, int rep) {
    size_t m = strlen(pat), o = 0, i = 0;
    while (i < n) {
        if (i + m <= n && memcmp(s + i, pat, m) == 0) {
            if (rep >= 0) d[o++] = (unsigned char)rep;
            i += m;
        } else {
            d[o++] = s[i++];
        }
    }
    return o;
}

/* 13a of line s[0:n]: the result is A[0:return value] */
static size_t tok13a(const unsigned char *s, size_t n) {
    ensure(4 * n + 8);
    size_t k = n;
    memcpy(A, s, n);
    if (k >= 9 && memmem(A, k, "<skipped>", 9)) { k = replace_lit(A, k, B, "<skipped>", -1); memcpy(A, B, k); }
    if (memchr(A, '&', k)) {
        k = replace_lit(A, k, B, "&quot;", '"'); memcpy(A, B, k);
        k = replace_lit(A, k, B, "&amp;", '&'); memcpy(A, B, k);
        k = replace_lit(A, k, B, "&lt;", '<'); memcpy(A, B, k);
        k = replace_lit(A, k, B, "&gt;", '>'); memcpy(A, B, k);
    }
    size_t o = 0;
    B[o++] = ' ';
    for (size_t i = 0; i < k; i++) {
        if (is_sym(A[i])) { B[o++] = ' '; B[o++] = A[i]; B[o++] = ' '; } else B[o++] = A[i];
    }
    B[o++] = ' ';
    k = o;
    ensure(2 * k + 8);
    o = 0; /* ([^0-9])([.,]) -> "\1 \2 " */
    for (size_t i = 0; i < k;) {
        if (i + 1 < k && !is_digit(B[i]) && (B[i + 1] == '.' || B[i + 1] == ',')) {
            A[o++] = B[i]; A[o++] = ' '; A[o++] = B[i + 1]; A[o++] = ' '; i += 2;
        } else A[o++] = B[i++];
    }
    k = o;
    ensure(2 * k + 8);
    o = 0; /* ([.,])([^0-9]) -> " \1 \2" */
    for (size_t i = 0; i < k;) {
        if (i + 1 < k && (A[i] == '.' || A[i] == ',') && !is_digit(A[i + 1])) {
            B[o++] = ' '; B[o++] = A[i]; B[o++] = ' '; B[o++] = A[i + 1]; i += 2;
        } else B[o++] = A[i++];
    }
    k = o;
    ensure(2 * k + 8);
    o = 0; /* ([0-9])(-) -> "\1 \2 " */
    for (size_t i = 0; i < k;) {
        if (i + 1 < k && is_digit(B[i]) && B[i + 1] == '-') {
            A[o++] = B[i]; A[o++] = ' '; A[o++] = '-'; A[o++] = ' '; i += 2;
        } else A[o++] = B[i++];
    }
    return o;
}

typedef struct { unsigned char *arena; size_t acap; Tok *t; uint64_t *h; int tcap; int n; } Side;

/* tokenize one line into side S (tokens copied into its arena, with their hashes) */
static void line_tokens(Side *S, const unsigned char *s, size_t n) {
    size_t k = tok13a(s, n);
    if (k > S->acap) { S->acap = 2 * k + 64; S->arena = realloc(S->arena, S->acap); }
    int nt = 0;
    size_t i = 0, o = 0;
    while (i < k) {
        while (i < k && is_ws(A[i])) i++;
        if (i >= k) break;
        size_t st = i;
        while (i < k && !is_ws(A[i])) i++;
        if (nt >= S->tcap) {
            S->tcap *= 2;
            S->t = realloc(S->t, sizeof(Tok) * S->tcap);
            S->h = realloc(S->h, sizeof(uint64_t) * S->tcap);
        }
        memcpy(S->arena + o, A + st, i - st);
        S->t[nt].p = S->arena + o;
        S->t[nt].len = (int)(i - st);
        uint64_t h = 1469598103934665603ULL;
        for (size_t q = st; q < i; q++) h = (h ^ A[q]) * 1099511628211ULL;
        S->h[nt] = h;
        o += i - st;
        nt++;
    }
    S->n = nt;
}

static int same(const Tok *a, const Tok *b, int n) {
    for (int i = 0; i < n; i++)
        if (a[i].len != b[i].len || memcmp(a[i].p, b[i].p, (size_t)a[i].len) != 0) return 0;
    return 1;
}

/* exact n-gram table, entries valid for the current stamp */
typedef struct { const Tok *t; uint64_t h; int cnt_r, cnt_h; unsigned stamp; } Ent;
static Ent *TAB;
static size_t TCAP;
static unsigned STAMP;

static Ent *lookup(const Tok *t, const uint64_t *th, int n, int insert) {
    uint64_t h = 0x9E3779B97F4A7C15ULL * (uint64_t)n;
    for (int i = 0; i < n; i++) h = (h ^ th[i]) * 0xBF58476D1CE4E5B9ULL + (h >> 29);
    size_t slot = (size_t)(h ^ (h >> 32)) & (TCAP - 1);
    for (;;) {
        Ent *e = &TAB[slot];
        if (e->stamp != STAMP) {
            if (!insert) return NULL;
            e->stamp = STAMP; e->t = t; e->h = h; e->cnt_r = 0; e->cnt_h = 0;
            return e;
        }
        if (e->h == h && same(e->t, t, n)) return e;
        slot = (slot + 1) & (TCAP - 1);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: native_bleu HYP REF\n"); return 2; }
    size_t nh, nr;
    unsigned char *H = read_file(argv[1], &nh), *R = read_file(argv[2], &nr);
    double match[4] = {0}, total[4] = {0}, hyp_len = 0, ref_len = 0;
    Side hs = {NULL, 0, malloc(sizeof(Tok) * 256), malloc(8 * 256), 256, 0};
    Side rs = {NULL, 0, malloc(sizeof(Tok) * 256), malloc(8 * 256), 256, 0};
    size_t ih = 0, ir = 0;
    long segs = 0;
    while (ih < nh) {
        size_t he = ih, re = ir;
        while (he < nh && H[he] != '\n') he++;
        while (re < nr && R[re] != '\n') re++;
        line_tokens(&hs, H + ih, he - ih);
        line_tokens(&rs, R + ir, re - ir);
        ih = he + 1;
        ir = re + 1;
        segs++;
        hyp_len += hs.n;
        ref_len += rs.n;
        size_t need = 2 * (size_t)(hs.n + rs.n) + 16;
        if (need > TCAP) {
            size_t c = 64;
            while (c < need) c *= 2;
            free(TAB);
            TAB = calloc(c, sizeof(Ent));
            TCAP = c;
            STAMP = 0;
        }
        for (int n = 1; n <= 4; n++) {
            STAMP++;
            for (int i = 0; i + n <= rs.n; i++) lookup(rs.t + i, rs.h + i, n, 1)->cnt_r++;
            for (int i = 0; i + n <= hs.n; i++) {
                Ent *e = lookup(hs.t + i, hs.h + i, n, 0);
                if (e && e->cnt_h < e->cnt_r) { e->cnt_h++; match[n - 1] += 1; }
            }
            if (hs.n - n + 1 > 0) total[n - 1] += hs.n - n + 1;
        }
    }
    /* sacreBLEU corpus BLEU: exp smoothing (only where an order has no match), closest = the one reference */
    double score = 0.0, smooth = 1.0;
    int ok = 1;
    for (int n = 0; n < 4; n++) {
        if (total[n] == 0) { ok = 0; break; }
    }
    if (ok && match[0] > 0) {
        double s = 0.0;
        for (int n = 0; n < 4; n++) {
            double p;
            if (match[n] == 0) { smooth *= 2; p = 100.0 / (smooth * total[n]); }
            else p = 100.0 * match[n] / total[n];
            s += log(p);
        }
        double bp = hyp_len < ref_len ? (hyp_len > 0 ? exp(1.0 - ref_len / hyp_len) : 0.0) : 1.0;
        score = bp * exp(s / 4);
    }
    printf("%.17g\n", score);
    printf("segments %ld hyp_len %.0f ref_len %.0f matches %.0f %.0f %.0f %.0f totals %.0f %.0f %.0f %.0f\n", segs,
           hyp_len, ref_len, match[0], match[1], match[2], match[3], total[0], total[1], total[2], total[3]);
    return 0;
}
