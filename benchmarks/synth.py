"""Deterministic synthetic MT corpora for benchmarks.

``make_corpus(n_segments, n_refs, seed)`` returns ``(hyps, refs)`` with ``refs`` sentence-major
(``refs[i]`` = the ``n_refs`` references of segment i). Words are drawn from a Zipfian vocabulary,
sentence lengths are news-like (mean about 25 tokens), text is detokenized with punctuation
(commas, final period, some quotes/parentheses), and each reference / hypothesis is a noisy copy
of a hidden "source" sentence so that n-gram overlap is realistic.
"""
from __future__ import annotations

import numpy as np

_SYLL = ["ka", "lo", "mi", "ne", "ra", "tu", "se", "vo", "di", "pa", "gen", "ter", "bal", "cor", "fin", "wes"]


def _vocab(size: int, rng: np.random.Generator) -> list[str]:
    words = set()
    out = []
    while len(out) < size:
        k = int(rng.integers(1, 5))
        w = "".join(_SYLL[i] for i in rng.integers(0, len(_SYLL), k))
        if w not in words:
            words.add(w)
            out.append(w)
    return out


def _detok(tokens: list[str], rng: np.random.Generator) -> str:
    parts = []
    for i, t in enumerate(tokens):
        if i == 0:
            t = t.capitalize()
        parts.append(t)
        if i < len(tokens) - 1 and rng.random() < 0.08:
            parts[-1] += ","
    s = " ".join(parts)
    r = rng.random()
    if r < 0.05:
        s = f'"{s}"'
    elif r < 0.08:
        s = f"{s} (ok)"
    return s + ("?" if rng.random() < 0.05 else ".")


def make_corpus(n_segments: int, n_refs: int = 1, seed: int = 0, vocab_size: int = 20000):
    rng = np.random.default_rng(seed)
    vocab = _vocab(vocab_size, rng)
    ranks = np.arange(1, vocab_size + 1)
    p = 1.0 / ranks ** 1.1
    cdf = np.cumsum(p / p.sum())
    cdf[-1] = 1.0

    def draw(k: int) -> np.ndarray:
        return np.minimum(np.searchsorted(cdf, rng.random(k), side="right"), vocab_size - 1)
    lengths = np.clip(rng.gamma(4.0, 6.25, n_segments).astype(int), 1, 120)
    hyps: list[str] = []
    refs: list[list[str]] = []
    for i in range(n_segments):
        src = draw(int(lengths[i]))

        def noisy(rate: float) -> list[str]:
            toks = src.copy()
            mask = rng.random(len(toks)) < rate
            toks[mask] = draw(int(mask.sum()))
            out = [vocab[t] for t in toks]
            if len(out) > 3 and rng.random() < 0.3:  # drop or insert a word
                j = int(rng.integers(0, len(out)))
                if rng.random() < 0.5:
                    del out[j]
                else:
                    out.insert(j, vocab[int(draw(1)[0])])
            return out

        refs.append([_detok(noisy(0.15), rng) for _ in range(n_refs)])
        hyps.append(_detok(noisy(0.35), rng))
    return hyps, refs
