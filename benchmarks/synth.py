"""Deterministic synthetic MT corpora for benchmarks: Zipfian vocabulary, news-like lengths.

``make_corpus(n_segments, n_refs, seed)`` returns ``(hyps, refs)`` with ``refs`` sentence-major
(``refs[i]`` = list of ``n_refs`` strings). References are sampled sentences (mean ~25 tokens incl.
punctuation, detokenized: "Word, word word." style); each further reference and the hypothesis are
noisy edits of the first reference (substitutions, deletions, insertions, local swaps), so metrics see
realistic partial matches.
"""
from __future__ import annotations

import numpy as np

_LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def _vocabulary(rng, size: int) -> np.ndarray:
    lens = np.clip(rng.poisson(5, size) + 1, 1, 14)
    words = ["".join(rng.choice(_LETTERS, n)) for n in lens]
    return np.array(words, dtype=object)


def _sentence(words: list[str], rng) -> str:
    out = list(words)
    out[0] = out[0].capitalize()
    commas = rng.random(len(out)) < 0.06
    for j in np.flatnonzero(commas[:-1]):
        out[j] += ","
    u = rng.random()
    end = "." if u < 0.9 else ("?" if u < 0.95 else "!")
    return " ".join(out) + end


def _noisy(words: list[str], pool, rng, rate: float) -> list[str]:
    """Substitute / delete / insert words (Zipfian replacements from ``pool``) and maybe swap two."""
    u = rng.random(len(words))
    repl = pool[rng.integers(0, len(pool), len(words))]
    out = []
    for w, x, r in zip(words, u, repl):
        if x < rate * 0.4:  # substitution
            out.append(r)
        elif x < rate * 0.6:  # deletion
            continue
        elif x < rate * 0.8:  # insertion after
            out.append(w)
            out.append(r)
        else:
            out.append(w)
    if len(out) > 3 and rng.random() < rate:  # local swap
        k = rng.integers(0, len(out) - 1)
        out[k], out[k + 1] = out[k + 1], out[k]
    return out


def make_corpus(n_segments: int, n_refs: int = 1, seed: int = 0, vocab_size: int = 20000):
    rng = np.random.default_rng(seed)
    vocab = _vocabulary(rng, vocab_size)
    ranks = np.arange(1, vocab_size + 1)
    probs = 1.0 / ranks ** 1.05
    probs /= probs.sum()
    lengths = np.clip(rng.gamma(4.0, 5.5, n_segments).astype(int), 1, 120)  # mean ~22 words (+ punctuation)
    all_words = rng.choice(vocab_size, size=int(lengths.sum()), p=probs)
    pool = vocab[rng.choice(vocab_size, size=1 << 16, p=probs)]
    hyps, refs = [], []
    pos = 0
    for n in lengths:
        base = [vocab[k] for k in all_words[pos:pos + n]]
        pos += n
        seg_refs = [_sentence(base, rng)]
        for _ in range(n_refs - 1):
            seg_refs.append(_sentence(_noisy(base, pool, rng, 0.25) or base, rng))
        hyps.append(_sentence(_noisy(base, pool, rng, 0.35) or base[:1], rng))
        refs.append(seg_refs)
    return hyps, refs
