"""Two classic sentence-level metrics as NLTK computes them (docs/compat-nltk-jiwer.md).

* ``gleu-google`` - Google's sentence GLEU (Wu et al. 2016, the GNMT paper; ``nltk.translate.gleu_score``). **Not**
  the GLEU of grammatical error correction (Napoles et al. 2015), which rewards edits relative to the source.
  Per segment and reference: tp = matching n-grams of orders ``min_len``..``max_len`` (default 1..4, counts clipped),
  n_all = max(hypothesis n-grams, reference n-grams); the reference with the highest tp/n_all is kept (first on
  ties; references with n_all = 0 are skipped). Statistics ``tp, n_all``; corpus GLEU = Σ tp / Σ n_all (0 when
  Σ n_all = 0) - exactly decomposable; sentence GLEU = the same on one segment.
* ``ribes`` - RIBES (Isozaki et al. 2010) as ``nltk.translate.ribes_score``: per segment and reference,
  RIBES = NKT · P^alpha · BP^beta with NKT = (Kendall tau + 1)/2 of the word-rank alignment (tau = 2 · increasing
  pairs / pairs − 1, −1 below two aligned words), P = aligned words / hypothesis words, BP = min(1, exp(1 −
  |ref|/|hyp|)), alpha 0.25, beta 0.10; the best reference counts; an empty hypothesis (or no reference) scores 0.
  Corpus RIBES is the **mean of the sentence scores**: it does not decompose into smaller sufficient statistics,
  so the statistic per segment is the sentence score itself (columns ``ribes, segments``).
"""
from __future__ import annotations

from typing import ClassVar
import math
from collections import Counter
from dataclasses import dataclass, replace as _replace

import numpy as np

from ..params import LOWERCASE, TOKENIZE, Param as P
from ..errors import InvalidParameterError
from ..tokenize import check_tokenizer, tokenize_corpus
from .base import Metric, MetricResult


def _everygrams(tokens, lo, hi):
    c = Counter()
    for n in range(lo, min(hi, len(tokens)) + 1):
        c.update(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return c


def gleu_counts(references, hypothesis, min_len: int = 1, max_len: int = 4) -> tuple[int, int]:
    """(tp, n_all) of the best reference (``nltk.translate.gleu_score`` per sentence); (0, 0) if none counts."""
    hyp = _everygrams(hypothesis, min_len, max_len)
    tpfp = sum(hyp.values())
    best = None
    for ref in references:
        rc = _everygrams(ref, min_len, max_len)
        tpfn = sum(rc.values())
        tp = sum((rc & hyp).values())
        n_all = max(tpfp, tpfn)
        if n_all > 0 and (best is None or tp / n_all > best[0] / best[1]):
            best = (tp, n_all)
    return best or (0, 0)


def _kendall_nkt(worder) -> float:
    n = len(worder)
    if n < 2:
        tau = -1
    else:
        w = np.asarray(worder)
        inc = int(np.triu(w[:, None] < w[None, :], 1).sum())
        tau = 2 * inc / (n * (n - 1) // 2) - 1
    return (tau + 1) / 2


class _NgramIndex:
    """Overlapping n-gram counts and first positions of one token sequence, built per length on demand."""

    def __init__(self, seq):
        self.seq = list(seq)
        self._counts: dict[int, Counter] = {}
        self._first: dict[int, dict] = {}

    def _build(self, m):
        c, first = Counter(), {}
        for k in range(len(self.seq) - m + 1):
            g = tuple(self.seq[k:k + m])
            c[g] += 1
            first.setdefault(g, k)
        self._counts[m], self._first[m] = c, first

    def count(self, g) -> int:
        if len(g) not in self._counts:
            self._build(len(g))
        return self._counts[len(g)][g]

    def first(self, g) -> int:
        if len(g) not in self._first:
            self._build(len(g))
        return self._first[len(g)][g]


def word_rank_alignment(reference, hypothesis) -> list[int]:
    """Reference positions of the hypothesis words that can be aligned unambiguously (Isozaki et al. 2010, as
    NLTK): a word occurring once on both sides aligns directly; otherwise the shortest right-, then left-context
    n-gram (growing one word at a time) that occurs exactly once on both sides fixes the position."""
    ref, hyp = list(reference), list(hypothesis)
    ri, hi = _NgramIndex(ref), _NgramIndex(hyp)
    ref_count = Counter(ref)
    hyp_count = Counter(hyp)
    out = []
    n = len(hyp)
    for i, w in enumerate(hyp):
        if ref_count[w] == 0:
            continue
        if hyp_count[w] == ref_count[w] == 1:
            out.append(ref.index(w))
            continue
        for window in range(1, min(max(i, n - i + 1), len(ref))):
            if i + window < n:
                g = tuple(hyp[i:i + window + 1])
                if ri.count(g) == hi.count(g) == 1:
                    out.append(ri.first(g))
                    break
            if window <= i:
                g = tuple(hyp[i - window:i + 1])
                if ri.count(g) == hi.count(g) == 1:
                    out.append(ri.first(g) + len(g) - 1)
                    break
    return out


def sentence_ribes(references, hypothesis, alpha: float = 0.25, beta: float = 0.10) -> float:
    """Best RIBES over the references (``nltk.translate.ribes_score.sentence_ribes``)."""
    if not references or not hypothesis:
        return 0.0
    best = -1.0
    for ref in references:
        worder = word_rank_alignment(ref, hypothesis)
        nkt = _kendall_nkt(worder)
        bp = min(1.0, math.exp(1.0 - len(ref) / len(hypothesis)))
        p1 = len(worder) / len(hypothesis)
        val = nkt * p1 ** alpha * bp ** beta
        if val > best:
            best = val
    return best


# ------------------------------------------------------------------------------------------------
# metric surface

@dataclass(frozen=True)
class GLEUConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = (
        P("min_len", "int", 1, lo=1, hi=9, help="shortest n-gram",
          sig="ngram", sig_uses=("max_len",), sig_fmt=lambda lo, hi: f"{lo}-{hi}"),
        P("max_len", "int", 4, lo=1, hi=9, help="longest n-gram (>= min_len)"),
        _replace(TOKENIZE, default="none"), LOWERCASE,
    )
    min_len: int = 1
    max_len: int = 4
    tokenize: str = "none"  # NLTK scores token lists: line.split()
    lowercase: bool = False


def _tokens(metric, lines):
    c = metric.config
    return [ln.split() for ln in tokenize_corpus(list(lines), c.tokenize, lowercase=bool(c.lowercase))]


class GoogleGLEU(Metric):
    """Google's sentence GLEU (GNMT; NLTK's gleu_score) - not the grammatical-error-correction GLEU."""

    name = "gleu-google"
    display_name = "GLEU(Google)"
    Config = GLEUConfig
    columns = ("tp", "n_all")
    higher_is_better = True
    decomposable = False
    range = (0.0, 1.0)
    table_scale = 100.0  # shown on 0..100 (report.model's scale rule; the API keeps 0..1)

    def _validate(self) -> None:
        c = self.config
        # fields: their declarations (PARAMS); here the rule across them
        if c.min_len > c.max_len:
            raise InvalidParameterError(f"min_len/max_len: need min_len <= max_len, got {c.min_len} > {c.max_len}")
        check_tokenizer(c.tokenize)

    def _stats(self, hyps, refs) -> np.ndarray:
        c = self.config
        n_refs = [len(seg) for seg in refs]
        toks = iter(_tokens(self, list(hyps) + [r for seg in refs for r in seg]))
        th = [next(toks) for _ in hyps]
        tr = [[next(toks) for _ in range(k)] for k in n_refs]
        rows = [gleu_counts(r, h, c.min_len, c.max_len) for h, r in zip(th, tr)]
        return np.array(rows, dtype=np.float64).reshape(len(rows), 2)

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(s[..., 1] > 0, s[..., 0] / np.where(s[..., 1] > 0, s[..., 1], 1), 0.0)
        return out if out.ndim else float(out)

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        s = np.asarray(summed, dtype=np.float64)
        tp, n_all = int(s[0]), int(s[1])
        return MetricResult(self.name, self.display_name, float(self.score(s)), signature,
                            {"tp": tp, "n_all": n_all}, f"(tp = {tp} n_all = {n_all})")

    def signature_items(self, nrefs):
        return self.declared_signature(("nrefs", nrefs), "case", "tok", "ngram", ("variant", "google-sentence"))


@dataclass(frozen=True)
class RIBESConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = (
        P("precision_exponent", "float", 0.25, lo=0.0, hi=100.0, aliases=("alpha",),
          help="exponent of the unigram precision (NLTK's alpha)", sig="alpha", sig_fmt=lambda a: f"{a:g}"),
        P("bp_exponent", "float", 0.10, lo=0.0, hi=100.0, aliases=("beta",),
          help="exponent of the brevity penalty (NLTK's beta)", sig="beta", sig_fmt=lambda b: f"{b:g}"),
        _replace(TOKENIZE, default="none"), LOWERCASE,
    )
    precision_exponent: float = 0.25  # NLTK's alpha (old name: alpha)
    bp_exponent: float = 0.10  # NLTK's beta (old name: beta)
    tokenize: str = "none"
    lowercase: bool = False


class RIBES(Metric):
    """RIBES as NLTK (corpus = mean of sentence scores; the per-segment statistic is the sentence score)."""

    name = "ribes"
    display_name = "RIBES"
    Config = RIBESConfig
    columns = ("ribes", "segments")
    higher_is_better = True
    decomposable = True  # the corpus score is the plain mean of segment scores
    range = (0.0, 1.0)
    table_scale = 100.0  # shown on 0..100 (report.model's scale rule; the API keeps 0..1)

    def _validate(self) -> None:
        c = self.config
        check_tokenizer(c.tokenize)  # fields: their declarations (PARAMS)

    def _stats(self, hyps, refs) -> np.ndarray:
        c = self.config
        n_refs = [len(seg) for seg in refs]
        toks = iter(_tokens(self, list(hyps) + [r for seg in refs for r in seg]))
        th = [next(toks) for _ in hyps]
        tr = [[next(toks) for _ in range(k)] for k in n_refs]
        rows = [(sentence_ribes(r, h, c.precision_exponent, c.bp_exponent), 1.0) for h, r in zip(th, tr)]
        return np.array(rows, dtype=np.float64).reshape(len(rows), 2)

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(s[..., 1] > 0, s[..., 0] / np.where(s[..., 1] > 0, s[..., 1], 1), 0.0)
        return out if out.ndim else float(out)

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        s = np.asarray(summed, dtype=np.float64)
        return MetricResult(self.name, self.display_name, float(self.score(s)), signature,
                            {"sum": float(s[0]), "segments": int(s[1])}, f"(segments = {int(s[1])})")

    def signature_items(self, nrefs):
        return self.declared_signature(("nrefs", nrefs), "case", "tok", "alpha", "beta", ("impl", "nltk"))
