"""N-gram difference analysis: which n-grams one system gets right (or over-/under-produces) more often
than another, ranked by compare-mt's Laplace-smoothed ratio ``(c_a + alpha) / (c_a + c_b + 2 alpha)``,
with example segments. Counts per n-gram follow compare-mt 0.2.10's definitions (checked against it)."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

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
    """Corpus counts and, per segment, the matched n-grams (for examples): the plain Python definition, the
    reference of the vectorized counting :func:`ngram_differences` runs (``analysis._vector.ngram_match_counts``)."""
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
    from ._vector import ngram_match_counts, ragged_ids
    index: dict = {}
    parts = [ragged_ids(x, index) for x in (hyps_a, hyps_b, refs)]
    types = list(index)
    grams, (sys_a, sys_b) = ngram_match_counts(parts[:2], parts[2], min_n, max_n)
    flat = [p[0].tolist() for p in parts]
    da, db, key = {}, {}, {}  # n-gram tuple -> count of A, of B; (order, id)
    for n in range(min_n, max_n + 1):
        ca, cb = sys_a[n][compare], sys_b[n][compare]
        nz = np.flatnonzero((ca > 0) | (cb > 0))
        first, part = grams[n]
        for gid, xa, xb, f, k in zip(nz.tolist(), ca[nz].tolist(), cb[nz].tolist(), first[nz].tolist(),
                                     part[nz].tolist()):
            g = tuple([types[t] for t in flat[k][f:f + n]])
            da[g], db[g], key[g] = xa, xb, (n, gid)
    scores = {g: (da[g] + alpha) / (da[g] + db[g] + 2 * alpha) for g in da}
    grams = list(scores)
    text_rank = np.empty(len(grams), dtype=np.int64)  # the n-gram tuples' own order: the last tie-break
    text_rank[sorted(range(len(grams)), key=grams.__getitem__)] = np.arange(len(grams))
    sc = np.array([scores[g] for g in grams], dtype=np.float64)
    cnt = np.array([da[g] + db[g] for g in grams], dtype=np.int64)
    # sorted by (-score, -(count A + count B), n-gram) and by (score, -count, n-gram): lexsort's last key first
    order = [grams[i] for i in np.lexsort((text_rank, -cnt, -sc)).tolist()]
    rev = [grams[i] for i in np.lexsort((text_rank, -cnt, sc)).tolist()]
    shown = set(order[:top]) | set(rev[:top])
    per_seg = {}  # shown n-gram -> (matched counts of A per segment, of B)
    if compare == "match":
        for n in range(min_n, max_n + 1):
            want = np.array(sorted(key[g][1] for g in shown if key[g][0] == n), dtype=np.int64)
            for side, sysd in enumerate((sys_a, sys_b)):
                seg, gid, cnt = sysd[n]["seg"]
                sel = np.isin(gid, want)
                for i, g_, c in zip(seg[sel].tolist(), gid[sel].tolist(), cnt[sel].tolist()):
                    per_seg.setdefault((n, g_), ({}, {}))[side][i] = c

    def item(g, favour_a):
        ex = []
        if compare == "match":
            sa, sb = per_seg.get(key[g], ({}, {}))
            sign = 1 if favour_a else -1
            diffs = {i: (sa.get(i, 0) - sb.get(i, 0)) * sign for i in set(sa) | set(sb)}
            ex = sorted((i for i, d in diffs.items() if d > 0), key=lambda i: (-diffs[i], i))[:n_examples]
        return NgramDifference(" ".join(g), scores[g], da[g], db[g], tuple(ex))

    a_better = tuple(item(g, True) for g in order[:top])
    b_better = tuple(item(g, False) for g in rev[:top])
    return NgramDifferences(names[0], names[1], compare, alpha, min_n, max_n, a_better, b_better,
                            {" ".join(g): scores[g] for g in order})
