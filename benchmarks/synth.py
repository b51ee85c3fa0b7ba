"""Deterministic synthetic MT corpora for benchmarks (news-like, detokenized).

``make_corpus(n_segments, n_refs, seed)`` returns ``(hyps, refs)`` with ``refs`` sentence-major
(``refs[i]`` = the ``n_refs`` references of segment i). Construction:

* a vocabulary of ``vocab_size`` word forms built from syllables (seeded), with a share of capitalised
  names, numbers in several shapes (``2019``, ``3.14``, ``1,000``, ``5-6``, ``12%``), hyphenated
  compounds, non-ASCII words (``Müller``, ``café``, ``€``, ``—``) and an ``&amp;`` entity;
* token ranks drawn from a finite Zipf law (exponent 1.1), sentence lengths from a log-normal with
  mean ~25 tokens (sd ~12, 1..200);
* each segment has a latent "meaning" token sequence; every reference is a light perturbation of it
  (10% substitutions, 3% deletions) and the hypothesis a heavier one (25% / 6%), giving BLEU near
  typical system scores;
* detokenized surface: first word capitalised, commas/semicolons/colons attached to words, quotes and
  parentheses around spans, sentence-final ``.``, ``?``, ``!`` or ``."``.

``write_corpus(dir, n_segments, n_refs, seed)`` writes ``hyp.txt`` and ``ref0.txt`` .. (one segment per
line, UTF-8) and returns the paths; files are reused when they already exist.

Run ``python benchmarks/synth.py N REFS SEED OUTDIR`` to write a corpus.
"""
from __future__ import annotations

import os
import sys

import numpy as np

_SYLLABLES = ("ta", "re", "mi", "on", "ka", "lu", "se", "an", "ber", "sch", "ein", "ver", "st", "ing", "tion",
              "ma", "pro", "com", "de", "al", "ter", "en", "li", "ge", "ra", "ment", "ist", "ol", "ur", "ex")
_NON_ASCII = ("Müller", "café", "über", "naïve", "Zürich", "€", "—", "São", "façade", "Ångström", "größer",
              "déjà", "œuvre", "Straße", "½", "°C", "…", "İstanbul", "Kraków", "東京")
_ZIPF_S = 1.1


def _vocabulary(rng: np.random.Generator, size: int) -> np.ndarray:
    words = []
    seen = set()
    kinds = rng.random(size)
    while len(words) < size:
        i = len(words)
        k = kinds[i]
        if k < 0.04:  # number shapes
            shape = rng.integers(6)
            if shape == 0:
                w = str(int(rng.integers(1900, 2030)))
            elif shape == 1:
                w = f"{rng.integers(0, 100)}.{rng.integers(0, 100)}"
            elif shape == 2:
                w = f"{rng.integers(1, 999)},{rng.integers(0, 1000):03d}"
            elif shape == 3:
                w = f"{rng.integers(1, 12)}-{rng.integers(1, 12)}"
            elif shape == 4:
                w = f"{rng.integers(1, 100)}%"
            else:
                w = str(int(rng.integers(0, 100)))
        elif k < 0.06:
            w = _NON_ASCII[int(rng.integers(len(_NON_ASCII)))] + ("" if rng.random() < 0.5 else
                                                                  _SYLLABLES[int(rng.integers(30))])
        else:
            n_syl = 1 + int(rng.integers(4)) if i > 200 else 1 + int(rng.integers(2))
            w = "".join(_SYLLABLES[j] for j in rng.integers(0, len(_SYLLABLES), n_syl))
            if k < 0.16:
                w = w.capitalize()  # names
            elif k < 0.18:
                w = w + "-" + "".join(_SYLLABLES[j] for j in rng.integers(0, len(_SYLLABLES), 2))
            elif k < 0.185:
                w = w + "'s"
        if w in seen:
            w = w + _SYLLABLES[i % 30]
            if w in seen:
                w = f"{w}{i}"
        seen.add(w)
        words.append(w)
    words[7] = "&amp;"
    return np.array(words, dtype=object)


def _zipf_ids(rng, n, size):
    cdf = np.cumsum(1.0 / np.arange(1, size + 1) ** _ZIPF_S)
    cdf /= cdf[-1]
    return np.minimum(np.searchsorted(cdf, rng.random(n)), size - 1).astype(np.int64)


def _lengths(rng, n):
    # log-normal with mean ~25 and sd ~12
    sigma = 0.45
    mu = np.log(25.0) - sigma**2 / 2
    return np.clip(np.rint(rng.lognormal(mu, sigma, n)), 1, 200).astype(np.int64)


def _perturb(rng, ids, offsets, p_sub, p_del, vocab_size):
    n = len(ids)
    sub = rng.random(n) < p_sub
    out = np.where(sub, _zipf_ids(rng, n, vocab_size), ids)
    keep = rng.random(n) >= p_del
    # never delete a whole segment: keep the first token of every segment
    keep[offsets[:-1][np.diff(offsets) > 0]] = True
    seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    lens = np.bincount(seg[keep], minlength=len(offsets) - 1)
    new_off = np.zeros(len(offsets), dtype=np.int64)
    np.cumsum(lens, out=new_off[1:])
    return out[keep], new_off


def _surface(rng, words, ids, offsets):
    """Detokenized lines: attach punctuation to words, capitalise the first word."""
    n = len(ids)
    toks = words[ids].copy()
    lens = np.diff(offsets)
    starts = offsets[:-1][lens > 0]
    ends = offsets[1:][lens > 0] - 1
    r = rng.random(n)
    inner = np.ones(n, dtype=bool)
    inner[ends] = False
    for mark, lo, hi in ((",", 0.0, 0.06), (";", 0.06, 0.065), (":", 0.065, 0.07), (")", 0.07, 0.075)):
        m = inner & (r >= lo) & (r < hi)
        toks[m] = toks[m] + mark
    m = (r >= 0.075) & (r < 0.08)
    toks[m] = "(" + toks[m]
    m = (r >= 0.08) & (r < 0.085)
    toks[m] = "\"" + toks[m]
    m = (r >= 0.085) & (r < 0.088)
    toks[m] = "“" + toks[m] + "”"
    toks[starts] = np.array([t[:1].upper() + t[1:] for t in toks[starts]], dtype=object)
    fin = rng.random(len(ends))
    end_marks = np.where(fin < 0.85, ".", np.where(fin < 0.92, "?", np.where(fin < 0.96, "!", ".\"")))
    toks[ends] = toks[ends] + end_marks.astype(object)
    tl = toks.tolist()
    off = offsets.tolist()
    return [" ".join(tl[off[i]:off[i + 1]]) for i in range(len(off) - 1)]


def make_corpus(n_segments: int, n_refs: int = 1, seed: int = 0, vocab_size: int = 60000):
    """``(hyps, refs)``: ``n_segments`` hypotheses and sentence-major references (``n_refs`` each)."""
    rng = np.random.default_rng(seed)
    words = _vocabulary(rng, vocab_size)
    lens = _lengths(rng, n_segments)
    offsets = np.zeros(n_segments + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    base = _zipf_ids(rng, int(offsets[-1]), vocab_size)
    hyp_ids, hyp_off = _perturb(rng, base, offsets, 0.25, 0.06, vocab_size)
    hyps = _surface(rng, words, hyp_ids, hyp_off)
    streams = []
    for _ in range(n_refs):
        r_ids, r_off = _perturb(rng, base, offsets, 0.10, 0.03, vocab_size)
        streams.append(_surface(rng, words, r_ids, r_off))
    refs = [list(seg) for seg in zip(*streams)]
    return hyps, refs


def write_corpus(outdir: str, n_segments: int, n_refs: int = 1, seed: int = 0):
    """Write ``hyp.txt``, ``ref0.txt``..; reuse existing files. Returns (hyp_path, [ref_paths])."""
    os.makedirs(outdir, exist_ok=True)
    hyp_path = os.path.join(outdir, "hyp.txt")
    ref_paths = [os.path.join(outdir, f"ref{j}.txt") for j in range(n_refs)]
    if not all(os.path.exists(p) for p in [hyp_path] + ref_paths):
        hyps, refs = make_corpus(n_segments, n_refs, seed)
        with open(hyp_path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(hyps) + "\n")
        for j, p in enumerate(ref_paths):
            with open(p, "w", encoding="utf-8") as fh:
                fh.write("\n".join(seg[j] for seg in refs) + "\n")
    return hyp_path, ref_paths


if __name__ == "__main__":
    n, k, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    print(write_corpus(out, n, k, seed))


# --- helpers some benchmarks use to derive more "systems" from a corpus ---------------------------------
def perturb(hyps: list[str], rate: float, seed: int) -> list[str]:
    """A second 'system': drop (and sometimes duplicate) a fraction ``rate`` of the tokens of each hypothesis."""
    rng = np.random.default_rng(seed)
    out = []
    for h in hyps:
        toks = h.split()
        keep = [t for t in toks if rng.random() > rate]
        if rng.random() < rate and keep:
            keep.insert(int(rng.integers(0, len(keep))), keep[int(rng.integers(0, len(keep)))])
        out.append(" ".join(keep))
    return out


def noisy_words(words: list[str], pool, rng, rate: float) -> list[str]:
    """Substitute / delete / insert words (replacements drawn from ``pool``) and maybe swap two neighbours."""
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


def sentence_text(words: list[str], rng) -> str:
    """Words -> a detokenized sentence: capitalised, a few commas, final '.', '?' or '!'."""
    out = list(words)
    out[0] = out[0].capitalize()
    commas = rng.random(len(out)) < 0.06
    for j in np.flatnonzero(commas[:-1]):
        out[j] += ","
    u = rng.random()
    end = "." if u < 0.9 else ("?" if u < 0.95 else "!")
    return " ".join(out) + end
