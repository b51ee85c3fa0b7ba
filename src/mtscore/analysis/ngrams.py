"""N-gram difference analysis: which n-grams one system gets right (or over-/under-produces) more often
than another, ranked by compare-mt's Laplace-smoothed ratio ``(c_a + alpha) / (c_a + c_b + 2 alpha)``,
with example segments. Counts per n-gram follow compare-mt 0.2.10's definitions (checked against it)."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Sequence

from ..errors import InputError, InvalidParameterError

COMPARE_TYPES = ("match", "over", "under")


@dataclass(frozen=True)
class NgramCounts:
    """Per n-gram: occurrences in the hypothesis (``total``), matched against the reference (``match``),
    produced but not in the reference (``over``), in the reference but not produced (``under``)."""

    total: Counter
    match: Counter
    over: Counter
    under: Counter


def _ngrams(words: Sequence[str], lo: int, hi: int) -> list[tuple[str, ...]]:
    return [tuple(words[i:i + n]) for n in range(lo, hi + 1) for i in range(len(words) - n + 1)]


def ngram_counts(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]], min_n: int = 1,
                 max_n: int = 4) -> tuple[NgramCounts, list[Counter]]:
    """Corpus counts and, per segment, the matched n-grams (for examples)."""
    total, match, over, under = Counter(), Counter(), Counter(), Counter()
    per_segment = []
    for h, r in zip(hyps, refs):
        rc = Counter(_ngrams(r, min_n, max_n))
        seg = Counter()
        for g in _ngrams(h, min_n, max_n):
            total[g] += 1
            if rc[g] > 0:
                match[g] += 1
                seg[g] += 1
                rc[g] -= 1
            else:
                over[g] += 1
        for g, c in rc.items():
            if c > 0:
                under[g] += c
        per_segment.append(seg)
    return NgramCounts(total, match, over, under), per_segment


@dataclass(frozen=True)
class NgramDifference:
    ngram: str
    score: float  # smoothed share of system A: > 0.5 favours A
    count_a: int
    count_b: int
    examples: tuple[int, ...]  # 0-based segments where the n-gram's count differs most in the favoured system's way


@dataclass(frozen=True)
class NgramDifferences:
    system_a: str
    system_b: str
    compare: str
    alpha: float
    min_n: int
    max_n: int
    a_better: tuple[NgramDifference, ...]
    b_better: tuple[NgramDifference, ...]
    scores: dict  # every n-gram (space-joined) -> smoothed score (JSON: the full ranking)


def ngram_differences(hyps_a: Sequence[Sequence[str]], hyps_b: Sequence[Sequence[str]],
                      refs: Sequence[Sequence[str]], *, names: tuple[str, str] = ("A", "B"), compare: str = "match",
                      alpha: float = 1.0, min_n: int = 1, max_n: int = 4, top: int = 50,
                      n_examples: int = 3) -> NgramDifferences:
    """The ``top`` n-grams for which system A's count of ``compare`` (match/over/under) is highest relative to
    B's, and the reverse. Ties in the score are ordered by the larger count, then the n-gram text, so that
    the list is reproducible (compare-mt leaves their order to hash order)."""
    if compare not in COMPARE_TYPES:
        raise InvalidParameterError.choice("compare", compare, COMPARE_TYPES)
    if not (alpha > 0 and alpha < float("inf")):
        raise InvalidParameterError(f"alpha: must be a finite number > 0, got {alpha!r}")
    if not 1 <= min_n <= max_n:
        raise InvalidParameterError(f"n-gram orders: need 1 <= min <= max, got min {min_n}, max {max_n}")
    if not (len(hyps_a) == len(hyps_b) == len(refs)):
        raise InputError(f"segments differ in number: {names[0]} {len(hyps_a)}, {names[1]} {len(hyps_b)}, "
                         f"reference {len(refs)}")
    ca, seg_a = ngram_counts(hyps_a, refs, min_n, max_n)
    cb, seg_b = ngram_counts(hyps_b, refs, min_n, max_n)
    da, db = getattr(ca, compare), getattr(cb, compare)
    scores = {g: (da[g] + alpha) / (da[g] + db[g] + 2 * alpha) for g in set(da) | set(db)}
    order = sorted(scores, key=lambda g: (-scores[g], -(da[g] + db[g]), g))

    def item(g, favour_a):
        ex = []
        if compare == "match":
            diffs = [(sa[g] - sb[g]) * (1 if favour_a else -1) for sa, sb in zip(seg_a, seg_b)]
            ex = [i for i in sorted(range(len(diffs)), key=lambda i: (-diffs[i], i))[:n_examples] if diffs[i] > 0]
        return NgramDifference(" ".join(g), scores[g], da[g], db[g], tuple(ex))

    a_better = tuple(item(g, True) for g in order[:top])
    rev = sorted(scores, key=lambda g: (scores[g], -(da[g] + db[g]), g))
    b_better = tuple(item(g, False) for g in rev[:top])
    return NgramDifferences(names[0], names[1], compare, alpha, min_n, max_n, a_better, b_better,
                            {" ".join(g): scores[g] for g in order})
