"""Deletion stress test (CWMT2008 Table 5; Chiang et al. 2008 §3.3).

Take one reference as the hypothesis, delete a share of its words (from segment ends, or at random) or of
its whole segments (they become empty lines, so segments stay aligned), and score it against the
references (including or excluding the one used). A metric that does not decrease when content is deleted
does not punish missing output: NIST-BLEU (shortest reference length, no smoothing) stays at exactly 100
as long as the total length stays at or above the total of the shortest references.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .._threadparam import with_threads
from ..errors import InputError, InvalidParameterError
from ..metrics.base import Metric, normalize_corpus
from ..params import DEFAULT_SEED

KINDS = ("words-end", "words-random", "segments-end", "segments-random")


def _check_rate(rate: float) -> float:
    if not isinstance(rate, (int, float)) or not 0.0 <= float(rate) < 1.0:
        raise InvalidParameterError(f"rate: a deletion rate must be in [0, 1), got {rate!r}")
    return float(rate)


def _apportion(weights: np.ndarray, total: int) -> np.ndarray:
    """Integers proportional to ``weights`` that sum to ``total`` (largest remainder), each <= weight."""
    if total <= 0 or weights.sum() == 0:
        return np.zeros(len(weights), dtype=np.int64)
    exact = weights * (total / weights.sum())
    base = np.floor(exact).astype(np.int64)
    rest = total - int(base.sum())
    if rest > 0:
        order = np.argsort(-(exact - base), kind="stable")
        base[order[:rest]] += 1
    return np.minimum(base, weights.astype(np.int64))


def delete_words(segments: Sequence[str], rate: float, mode: str = "end", seed: int | None = DEFAULT_SEED) -> list[str]:
    """Delete ``round(rate * total words)`` whitespace-separated words.

    ``mode="end"``: each segment loses a share proportional to its length, taken from its end;
    ``mode="random"``: the words are chosen uniformly at random over the corpus (``seed``)."""
    rate = _check_rate(rate)
    words = [s.split() for s in segments]
    lens = np.array([len(w) for w in words], dtype=np.int64)
    total = int(round(rate * lens.sum()))
    if mode == "end":
        cut = _apportion(lens.astype(float), total)
        return [" ".join(w[:len(w) - int(c)]) for w, c in zip(words, cut)]
    if mode == "random":
        rng = np.random.default_rng(seed)
        drop = set(rng.choice(int(lens.sum()), size=total, replace=False).tolist()) if total else set()
        out, pos = [], 0
        for w in words:
            out.append(" ".join(t for k, t in enumerate(w) if pos + k not in drop))
            pos += len(w)
        return out
    raise InvalidParameterError.choice("mode", mode, ("end", "random"))


def delete_segments(segments: Sequence[str], rate: float, mode: str = "end", seed: int | None = DEFAULT_SEED) -> list[str]:
    """Empty ``round(rate * N)`` segments (the last ones, or random ones with ``seed``); lines stay aligned."""
    rate = _check_rate(rate)
    n = len(segments)
    k = int(round(rate * n))
    if mode == "end":
        drop = set(range(n - k, n))
    elif mode == "random":
        drop = set(np.random.default_rng(seed).choice(n, size=k, replace=False).tolist()) if k else set()
    else:
        raise InvalidParameterError.choice("mode", mode, ("end", "random"))
    return ["" if i in drop else s for i, s in enumerate(segments)]


def apply_deletion(segments: Sequence[str], kind: str, rate: float, seed: int | None = DEFAULT_SEED) -> list[str]:
    if kind not in KINDS:
        raise InvalidParameterError.choice("kind", kind, KINDS)
    unit, mode = kind.split("-")
    return (delete_words if unit == "words" else delete_segments)(segments, rate, mode, seed)


@dataclass(frozen=True)
class DeletionReport:
    metrics: tuple[str, ...]  # display names
    signatures: tuple[str, ...]
    kinds: tuple[str, ...]
    rates: tuple[float, ...]
    scores: dict  # (kind, rate) -> tuple of scores per metric
    lengths: dict  # (kind, rate) -> (hypothesis words after tokenization by the first metric, sum of shortest refs)
    critical_rate: float  # largest word-deletion rate keeping total length >= total shortest-reference length
    used_reference: int
    include_used: bool
    seed: int | None
    higher_is_better: tuple[bool, ...] = field(default=())

    def rows(self):
        for kind in self.kinds:
            for rate in self.rates:
                yield kind, rate, self.scores[(kind, rate)]

    def responds(self) -> dict[tuple[str, str], bool]:
        """(metric, kind) -> True when the score got worse at every positive rate (vs rate 0)."""
        out = {}
        for k in self.kinds:
            base = self.scores[(k, 0.0)] if (k, 0.0) in self.scores else None
            for j, m in enumerate(self.metrics):
                pos = [self.scores[(k, r)][j] for r in self.rates if r > 0]
                if base is None or not pos:
                    continue
                hib = self.higher_is_better[j] if self.higher_is_better else True
                out[(m, k)] = all((s < base[j]) if hib else (s > base[j]) for s in pos)
        return out


@with_threads
def deletion_test(refs, metrics: Sequence[Metric], use_reference: int = 0, kinds: Sequence[str] = ("words-end", "segments-end"),
                  rates: Sequence[float] = (0.0, 0.02, 0.05, 0.1, 0.2), include_used: bool = True,
                  seed: int | None = DEFAULT_SEED) -> DeletionReport:
    """Run the deletion stress test; ``refs`` is sentence-major with the same number of references per segment."""
    if not metrics:
        raise InvalidParameterError("metrics: at least one metric is needed")
    labels = [m.display_name for m in metrics]
    for lab in labels:
        if labels.count(lab) > 1:
            raise InvalidParameterError(f"metrics: two metrics share the label {lab!r}; give them distinct display names")
    refs = [list(r) for r in refs]
    if not refs:
        raise InputError("the deletion test needs at least one segment: the references are empty")
    counts = {len(r) for r in refs}
    if 0 in counts:
        raise InvalidParameterError("refs: every segment needs at least one reference (a segment has none)")
    if len(counts) != 1:
        raise InvalidParameterError("refs: the deletion test needs the same number of references for every segment")
    nref = counts.pop() if counts else 0
    if not 0 <= use_reference < nref:
        raise InvalidParameterError(f"use_reference: must be in 0..{nref - 1}, got {use_reference}")
    if not include_used and nref < 2:
        raise InvalidParameterError("include_used: excluding the used reference needs at least two references")
    rates = tuple(_check_rate(r) for r in rates)
    if 0.0 not in rates:
        rates = (0.0,) + rates
    for k in kinds:
        if k not in KINDS:
            raise InvalidParameterError.choice("kind", k, KINDS)
    base = [r[use_reference] for r in refs]
    scoring = refs if include_used else [[x for j, x in enumerate(r) if j != use_reference] for r in refs]
    normalize_corpus(base, scoring)
    scores, lengths = {}, {}
    words = np.array([len(s.split()) for s in base])
    shortest = sum(min(len(x.split()) for x in r) for r in scoring)
    for kind in kinds:
        for rate in rates:
            hyp = apply_deletion(base, kind, rate, seed)
            scores[(kind, rate)] = tuple(float(m.corpus(hyp, scoring).score) for m in metrics)
            lengths[(kind, rate)] = (sum(len(h.split()) for h in hyp), shortest)
    critical = max(0.0, 1.0 - shortest / words.sum()) if words.sum() else 0.0
    return DeletionReport(tuple(m.display_name for m in metrics), tuple(m.signature(nref if include_used else nref - 1)
                                                                        for m in metrics),
                          tuple(kinds), rates, scores, lengths, critical, use_reference, include_used, seed,
                          tuple(m.higher_is_better for m in metrics))
