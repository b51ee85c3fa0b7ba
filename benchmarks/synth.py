"""Deterministic synthetic MT corpora for benchmarks: ``make_corpus(n_segments, n_refs, seed)``.

A Zipfian vocabulary of pseudo-words; a "meaning" sentence per segment (news-like length, mean about
25 tokens); references are light paraphrases of it (substitutions, a swapped span), the hypothesis a
noisier one (substitutions, deletions, insertions, a moved span), so n-gram and edit metrics see
realistic overlap. Output is detokenized text: capitalised first word, commas, final punctuation,
occasional quotes, numbers and hyphenated words.
"""
from __future__ import annotations

import numpy as np

_SYLL = ["ka", "to", "ri", "men", "sa", "lo", "ver", "din", "ne", "ba", "chu", "el", "ix", "or", "un",
         "ti", "pra", "ges", "mo", "lu", "dar", "zi", "fe", "hos", "qua", "sch", "ein", "ur", "ö", "é"]


def _vocab(rng: np.random.Generator, size: int) -> list[str]:
    words = set()
    out = []
    while len(out) < size:
        k = int(rng.integers(1, 5))
        w = "".join(_SYLL[i] for i in rng.integers(0, len(_SYLL), k))
        if w not in words:
            words.add(w)
            out.append(w)
    return out


def _render(tokens: list[str], rng: np.random.Generator) -> str:
    out = []
    for i, t in enumerate(tokens):
        if i == 0:
            t = t[:1].upper() + t[1:]
        out.append(t)
        if 0 < i < len(tokens) - 1 and rng.random() < 0.07:
            out[-1] += ","
    s = " ".join(out)
    r = rng.random()
    s += "." if r < 0.85 else ("?" if r < 0.93 else "!")
    if rng.random() < 0.05:
        s = '"' + s + '"'
    return s


def _draw(rng: np.random.Generator, cdf: np.ndarray, k: int) -> np.ndarray:
    return np.minimum(np.searchsorted(cdf, rng.random(k), side="right"), len(cdf) - 1)


def _perturb(seq: np.ndarray, rng: np.random.Generator, p_sub: float, p_del: float,
             p_ins: float, p_move: float, cdf: np.ndarray) -> np.ndarray:
    n = len(seq)
    keep = rng.random(n) >= p_del
    out = seq[keep].copy()
    sub = rng.random(len(out)) < p_sub
    out[sub] = _draw(rng, cdf, int(sub.sum()))
    n_ins = int(rng.binomial(len(out) + 1, p_ins))
    if n_ins:
        pos = np.sort(rng.integers(0, len(out) + 1, n_ins))
        out = np.insert(out, pos, _draw(rng, cdf, n_ins))
    if len(out) > 4 and rng.random() < p_move:
        a = int(rng.integers(0, len(out) - 2))
        L = int(rng.integers(1, min(4, len(out) - a)))
        span = out[a:a + L]
        rest = np.concatenate([out[:a], out[a + L:]])
        b = int(rng.integers(0, len(rest) + 1))
        out = np.concatenate([rest[:b], span, rest[b:]])
    return out


def make_corpus(n_segments: int, n_refs: int = 1, seed: int = 0, vocab_size: int = 20000):
    """Return ``(hyps, refs)``: ``n_segments`` hypothesis strings and sentence-major references
    (``refs[i]`` has ``n_refs`` strings). Same arguments -> same corpus."""
    rng = np.random.default_rng(seed)
    vocab = _vocab(rng, vocab_size)
    for i in range(13, vocab_size, 97):  # some numbers and hyphenated compounds
        vocab[i] = str(int(rng.integers(1, 3000))) if i % 2 else vocab[i] + "-" + vocab[(i * 7) % vocab_size]
    ranks = np.arange(1, vocab_size + 1, dtype=np.float64)
    zipf = 1.0 / ranks ** 1.05
    cdf = np.cumsum(zipf / zipf.sum())
    lengths = np.clip(np.rint(rng.gamma(4.0, 25.0 / 4.0, n_segments)), 1, 120).astype(int)
    hyps: list[str] = []
    refs: list[list[str]] = []
    for n in lengths:
        base = _draw(rng, cdf, int(n))
        seg_refs = []
        for _ in range(n_refs):
            r = _perturb(base, rng, 0.08, 0.03, 0.03, 0.3, cdf)
            seg_refs.append(_render([vocab[k] for k in r], rng))
        h = _perturb(base, rng, 0.25, 0.08, 0.08, 0.5, cdf)
        hyps.append(_render([vocab[k] for k in h], rng))
        refs.append(seg_refs)
    return hyps, refs


if __name__ == "__main__":
    h, r = make_corpus(3, 2, 0)
    for a, b in zip(h, r):
        print(a)
        for x in b:
            print("   ", x)
