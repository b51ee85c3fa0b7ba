"""Deterministic synthetic MT corpus: Zipfian vocabulary, news-like lengths, detokenized text.

``make_corpus(n_segments, n_refs, seed)`` -> ``(hyps, refs)`` with ``refs`` sentence-major.
References are sampled text; hypotheses are noisy copies of the first reference (word drops,
substitutions, local swaps), so metrics see realistic partial overlap.
"""
from __future__ import annotations

import numpy as np

_SYL = ["ka", "lo", "mi", "ne", "ta", "ri", "so", "vu", "de", "ga", "pe", "zu", "ran", "tor", "mel", "sin"]
_PUNCT_END = [".", ".", ".", "?", "!"]


def _vocab(rng, size: int) -> list[str]:
    words = set()
    out = []
    while len(out) < size:
        n = int(rng.integers(1, 6))
        w = "".join(_SYL[int(i)] for i in rng.integers(0, len(_SYL), n))
        if w not in words:
            words.add(w)
            out.append(w)
    return out


def make_corpus(n_segments: int, n_refs: int = 1, seed: int = 0, vocab_size: int = 20000):
    rng = np.random.default_rng(seed)
    vocab = np.array(_vocab(rng, vocab_size), dtype=object)
    # a few English function words at the top of the Zipf ranks, capitalised names and numbers
    vocab[:12] = ["the", "of", "and", "to", "in", "a", "is", "that", "for", "on", "with", "was"]
    p = 1.0 / np.arange(1, vocab_size + 1) ** 1.1
    cdf = np.cumsum(p / p.sum())

    def draw(k):
        return np.minimum(np.searchsorted(cdf, rng.random(k)), vocab_size - 1)

    def sentence(length):
        toks = [str(w) for w in vocab[draw(length)]]
        r = rng.random(length)
        nums = rng.integers(1, 5000, length)
        for k in np.flatnonzero(r < 0.14):
            if r[k] < 0.04:
                toks[k] = str(nums[k])
            elif r[k] < 0.10:
                toks[k] = toks[k].capitalize()
            elif k < length - 1:
                toks[k] = toks[k] + ","
        toks[0] = toks[0].capitalize()
        return " ".join(toks) + _PUNCT_END[int(rng.integers(0, len(_PUNCT_END)))]

    def noisy(text):
        toks = text.split()
        n = len(toks)
        r = rng.random(n)
        ins = rng.random(n) < 0.05
        subs = vocab[draw(n)]
        extra = vocab[draw(n)]
        out = []
        for k, t in enumerate(toks):
            if r[k] >= 0.08:
                out.append(str(subs[k]) if r[k] < 0.25 else t)
            if ins[k]:
                out.append(str(extra[k]))
        sw = np.flatnonzero(rng.random(max(len(out) - 1, 0)) < 0.05)
        for k in sw:
            out[k], out[k + 1] = out[k + 1], out[k]
        return " ".join(out)

    lengths = np.clip(rng.gamma(4.0, 25 / 4.0, size=(n_segments, n_refs)).astype(int), 1, 120)
    refs = [[sentence(int(lengths[i, j])) for j in range(n_refs)] for i in range(n_segments)]
    hyps = [noisy(r[0]) for r in refs]
    return hyps, refs
