"""Selections from n-best lists and oracle selection.

Everything here works on per-candidate sufficient statistics, computed **once** per (metric, n-best
list): ``metric.stats(all candidates, their segment's references)``. A selection (one candidate per
segment) is scored as ``metric.score(Σ_i stats[sel_i])``.

Segments without candidates get a *virtual* empty candidate ``""`` (their statistics are those of an
empty hypothesis), so every algorithm sees at least one option per segment; selections report
``-1`` for them and :attr:`Selection.n_empty` counts them.

* :func:`segment_oracle`: per segment the candidate with the best sentence score. For a decomposable
  metric (corpus score = weighted mean of segment scores with system-independent weights: 4-GRR,
  WRR, WER with the average normaliser, TER) this is the exact corpus oracle (Chiang et al. 2008,
  §4.3). For smoothed sentence BLEU it is the exact maximiser of the *average sentence BLEU*.
* :func:`corpus_oracle`: for any metric with statistics (corpus BLEU, BLEU-SBP, ...), coordinate
  ascent from the per-segment oracle and from the 1-best: for each segment in turn, the corpus
  score of swapping in every candidate is ``score(total − stats_old + stats_new)``, evaluated for
  all candidates of the segment in one vectorized call; the best strict improvement is taken;
  passes repeat until none improves. The result is a local optimum and never worse than either
  start (exact corpus-BLEU oracle selection is NP-hard in general).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..metrics.base import Metric, normalize_corpus
from .nbest import NBestList


@dataclass(frozen=True)
class Pool:
    """N-best candidates with a virtual ``""`` for each empty segment; ``orig[j]`` = index in the list or -1."""

    texts: list[str]
    seg_off: np.ndarray
    orig: np.ndarray
    scores: np.ndarray
    features: np.ndarray

    @classmethod
    def of(cls, nbest: NBestList) -> "Pool":
        sizes = nbest.sizes
        n_empty = int((sizes == 0).sum())
        if n_empty == 0:
            return cls(list(nbest.texts), nbest.seg_off.copy(), np.arange(nbest.n_candidates, dtype=np.int64),
                       nbest.scores.copy(), nbest.features.copy())
        eff = np.maximum(sizes, 1)
        off = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(eff, out=off[1:])
        orig = np.full(int(off[-1]), -1, dtype=np.int64)
        texts = [""] * int(off[-1])
        for i in range(len(sizes)):
            a, b = nbest.seg_off[i], nbest.seg_off[i + 1]
            if b > a:
                orig[off[i]:off[i] + (b - a)] = np.arange(a, b)
                texts[off[i]:off[i] + (b - a)] = nbest.texts[a:b]
        real = orig >= 0
        scores = np.zeros(len(orig))
        scores[real] = nbest.scores[orig[real]]
        feats = np.zeros((len(orig), nbest.features.shape[1]))
        feats[real] = nbest.features[orig[real]]
        return cls(texts, off, orig, scores, feats)

    @property
    def n_segments(self) -> int:
        return len(self.seg_off) - 1

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.seg_off)

    def seg_of(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_segments, dtype=np.int64), self.sizes)

    def first(self) -> np.ndarray:
        return self.seg_off[:-1].copy()


@dataclass(frozen=True)
class Selection:
    """One pool row per segment (``rows``), the chosen texts, and their candidate index in the list (-1: none)."""

    method: str
    rows: np.ndarray
    texts: list[str]
    index: np.ndarray  # index within the segment's list (0-based rank), -1 for empty segments
    info: dict = field(default_factory=dict)

    @property
    def n_empty(self) -> int:
        return int((self.index < 0).sum())


def make_selection(method: str, pool: Pool, rows: np.ndarray, **info) -> Selection:
    rows = np.asarray(rows, dtype=np.int64)
    idx = np.where(pool.orig[rows] >= 0, rows - pool.seg_off[:-1], -1)
    return Selection(method, rows, [pool.texts[r] for r in rows], idx, dict(info))


def check_refs(refs, n_segments: int) -> list[list[str]]:
    """Sentence-major references for ``n_segments`` segments (string or list per segment)."""
    dummy = [""] * len(list(refs)) if not isinstance(refs, str) else None
    if dummy is None:
        raise InvalidParameterError("refs: expected one entry per segment (sentence-major), got a single string")
    _, refs = normalize_corpus(dummy, refs)
    if len(refs) != n_segments:
        raise InputError(f"the n-best list has {plural(n_segments, 'segment')} but there are {plural(len(refs), 'reference segment')}")
    return refs


class CandidateStats:
    """Per-candidate statistics of one metric over a pool (computed once)."""

    def __init__(self, metric: Metric, pool: Pool, refs: Sequence[Sequence[str]], *, threads: int | None = None):
        """``threads``: threads of the compiled kernels (see :func:`mtscore.score`); None: no change."""
        self.metric = metric
        self.pool = pool
        seg = pool.seg_of()
        self.refs = refs
        scoring = metric
        if getattr(metric, "carries_sources", False):  # a neural metric: sources= has one line per segment
            scoring = metric.with_sources(metric.sources_of_rows(seg, pool.n_segments))
        st = scoring.stats(pool.texts, [refs[s] for s in seg], threads=threads)
        self.values = st.values
        self.signature = st.signature
        self.stats = st
        self.seg = seg

    def corpus_score(self, rows) -> float:
        return float(self.metric.score(self.values[np.asarray(rows)].sum(0)))

    def sentence_scores(self) -> np.ndarray:
        return np.asarray(self.metric.sentence_scores(self.values), dtype=np.float64)


def segment_argbest(values: np.ndarray, seg_off: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Row of the best value in each segment (first on ties); every segment must be non-empty."""
    key = np.asarray(values, dtype=np.float64)
    key = key if higher_is_better else -key
    key = np.where(np.isnan(key), -np.inf, key)
    starts = seg_off[:-1]
    best = np.maximum.reduceat(key, starts)
    seg = np.repeat(np.arange(len(starts)), np.diff(seg_off))
    hit = np.flatnonzero(key == best[seg])
    _, first = np.unique(seg[hit], return_index=True)
    return hit[first]


def one_best(pool: Pool) -> Selection:
    """The first candidate of every list (the decoder's 1-best in Moses/Joshua files)."""
    return make_selection("1-best", pool, pool.first())


def segment_oracle(cs: CandidateStats) -> Selection:
    """Per-segment oracle: best sentence score of each segment (exact corpus oracle when decomposable)."""
    m = cs.metric
    sent = cs.sentence_scores()
    rows = segment_argbest(sent, cs.pool.seg_off, m.higher_is_better)
    return make_selection(f"oracle({m.display_name}, per segment)", cs.pool, rows,
                          exact=bool(m.decomposable), objective="sentence", metric=m.name)


def coordinate_ascent(values: np.ndarray, seg_off: np.ndarray, score_fn, start: np.ndarray,
                      higher_is_better: bool = True, max_passes: int = 50, tol: float = 1e-12):
    """Greedy per-segment swaps on summed statistics; returns (rows, score, passes, swaps)."""
    sign = 1.0 if higher_is_better else -1.0
    rows = np.asarray(start, dtype=np.int64).copy()
    total = values[rows].sum(0)
    cur = sign * float(score_fn(total))
    swaps = 0
    passes = 0
    n_seg = len(seg_off) - 1
    multi = np.flatnonzero(np.diff(seg_off) > 1)
    for passes in range(1, max_passes + 1):
        changed = False
        for i in multi:
            a, b = seg_off[i], seg_off[i + 1]
            cand = total - values[rows[i]] + values[a:b]  # [k, C]: corpus stats after each swap
            sc = sign * np.asarray(score_fn(cand), dtype=np.float64)
            j = int(np.argmax(sc))
            if sc[j] > cur + tol and a + j != rows[i]:
                total = cand[j].copy()
                rows[i] = a + j
                cur = float(sc[j])
                changed = True
                swaps += 1
        if not changed or n_seg == 0:
            break
    return rows, sign * cur, passes, swaps


def corpus_oracle(cs: CandidateStats, starts: Sequence[str] = ("segment-oracle", "1-best"),
                  max_passes: int = 50) -> Selection:
    """Corpus-level oracle by coordinate ascent on summed statistics (see the module docstring)."""
    m = cs.metric
    pool = cs.pool
    init = {}
    for s in starts:
        if s == "segment-oracle":
            init[s] = segment_argbest(cs.sentence_scores(), pool.seg_off, m.higher_is_better)
        elif s == "1-best":
            init[s] = pool.first()
        else:
            raise InvalidParameterError.choice("start", s, ("segment-oracle", "1-best"))
    if not init:
        raise InvalidParameterError("starts: at least one start is needed")
    best = None
    for name, rows0 in init.items():
        start_score = cs.corpus_score(rows0)
        rows, score, passes, swaps = coordinate_ascent(cs.values, pool.seg_off, m.score, rows0,
                                                       m.higher_is_better, max_passes)
        better = best is None or (score > best[1] if m.higher_is_better else score < best[1])
        if better:
            best = (rows, score, name, passes, swaps, start_score)
    rows, score, name, passes, swaps, start_score = best
    return make_selection(f"oracle({m.display_name}, corpus)", pool, rows, exact=False, objective="corpus",
                          start=name, start_score=start_score, passes=passes, swaps=swaps, score=score,
                          metric=m.name)
