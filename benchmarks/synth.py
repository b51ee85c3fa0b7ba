"""Deterministic synthetic MT corpora for benchmarks (news-like lengths, Zipfian vocabulary).

``make_corpus(n_segments, n_refs, seed)`` returns ``(hyps, refs)`` with ``refs`` sentence-major
(``refs[i]`` = list of ``n_refs`` references of segment ``i``). Hypotheses are noisy copies of the
first reference (substitutions, deletions, insertions, length changes), so BLEU lands in a
realistic range (~20-40). Text is detokenized with punctuation so that 13a tokenization has work.
"""
from __future__ import annotations

import numpy as np

_PUNCT = [",", ".", ";", ":", "?", "!", "'s", "(", ")", "\""]


def _vocab(size: int, rng: np.random.Generator) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = set()
    out = []
    while len(out) < size:
        n = int(rng.integers(2, 11))
        w = "".join(rng.choice(letters, n))
        if w not in words:
            words.add(w)
            out.append(w)
    return out


def _detok(tokens: list[str]) -> str:
    s = []
    for t in tokens:
        if s and t in (",", ".", ";", ":", "?", "!", "'s", ")"):
            s[-1] = s[-1] + t
        else:
            s.append(t)
    if s:
        s[0] = s[0][:1].upper() + s[0][1:]
    return " ".join(s)


def make_corpus(n_segments: int, n_refs: int = 1, seed: int = 0, vocab_size: int = 20000,
                mean_len: float = 25.0):
    rng = np.random.default_rng(seed)
    vocab = _vocab(vocab_size, rng) + _PUNCT
    ranks = np.arange(1, len(vocab) + 1, dtype=np.float64)
    p = 1.0 / ranks ** 1.1
    p /= p.sum()
    lengths = np.clip(rng.gamma(4.0, mean_len / 4.0, size=n_segments).astype(int), 1, 150)
    total = int(lengths.sum())
    cdf = np.cumsum(p)
    cdf[-1] = 1.0

    def draw(k):  # Zipfian token ids by inverse CDF (rng.choice with p= is O(vocab) per call)
        return np.minimum(np.searchsorted(cdf, rng.random(k), side="right"), len(vocab) - 1)

    base = draw(total)
    offs = np.r_[0, np.cumsum(lengths)]
    hyps, refs = [], []
    for i in range(n_segments):
        src = base[offs[i]:offs[i + 1]]
        seg_refs = []
        for j in range(n_refs):
            r = src.copy()
            if j:
                m = rng.random(len(r)) < 0.2
                r[m] = draw(int(m.sum()))
            seg_refs.append(_detok([vocab[k] for k in r] + ["."]))
        h = src.copy()
        m = rng.random(len(h)) < 0.3
        h[m] = draw(int(m.sum()))
        keep = rng.random(len(h)) > 0.08
        h = h[keep]
        if rng.random() < 0.3:
            h = np.r_[h, draw(int(rng.integers(1, 4)))]
        hyps.append(_detok([vocab[k] for k in h] + ["."]))
        refs.append(seg_refs)
    return hyps, refs


def perturb(hyps: list[str], rate: float, seed: int) -> list[str]:
    """A second 'system': drop or duplicate a fraction of tokens of each hypothesis."""
    rng = np.random.default_rng(seed)
    out = []
    for h in hyps:
        toks = h.split()
        keep = [t for t in toks if rng.random() > rate]
        if rng.random() < rate and keep:
            keep.insert(int(rng.integers(0, len(keep))), keep[int(rng.integers(0, len(keep)))])
        out.append(" ".join(keep))
    return out
