"""Per-segment word alignments of hypothesis against reference: the Levenshtein alignment with hit,
substitution, deletion and insertion counts per segment and in total (jiwer's ``process_words`` counts, which
the tests use as the oracle), and the aligned pairs for display."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

# operation codes of an alignment
HIT, SUB, DEL, INS = "=", "S", "D", "I"


@dataclass(frozen=True)
class SegmentAlignment:
    """Aligned pairs ``(op, hyp_word | None, ref_word | None)`` and the counts of one segment."""

    pairs: tuple[tuple[str, str | None, str | None], ...]
    hits: int
    substitutions: int
    deletions: int
    insertions: int

    @property
    def ref_len(self) -> int:
        return self.hits + self.substitutions + self.deletions


@dataclass(frozen=True)
class AlignmentSummary:
    system: str
    segments: tuple[SegmentAlignment, ...]
    hits: int
    substitutions: int
    deletions: int
    insertions: int

    @property
    def wer(self) -> float:
        n = self.hits + self.substitutions + self.deletions
        e = self.substitutions + self.deletions + self.insertions
        return e / n if n else (0.0 if e == 0 else float("inf"))


def _distances(ref: Sequence[str], hyp: Sequence[str]) -> np.ndarray:
    """``D[i, j]``: edit distance of ``ref[:i]`` and ``hyp[:j]`` (unit costs)."""
    n, m = len(ref), len(hyp)
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    d[:, 0] = np.arange(n + 1)
    d[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        ri = ref[i - 1]
        row, prev = d[i], d[i - 1]
        sub = prev[:-1] + np.fromiter((0 if ri == h else 1 for h in hyp), dtype=np.int64, count=m)
        best = np.minimum(sub, prev[1:] + 1)  # diagonal or deletion
        for j in range(1, m + 1):  # an insertion depends on the row's own left neighbour
            left = row[j - 1] + 1
            row[j] = best[j - 1] if best[j - 1] <= left else left
    return d


def align(hyp: Sequence[str], ref: Sequence[str]) -> SegmentAlignment:
    """Minimum edit alignment (unit costs) of ``hyp`` against ``ref``.

    Equal-cost alignments can split their edits differently (two substitutions, or a deletion, a hit and an
    insertion). This one is jiwer 3's (rapidfuzz's ``editops``): a common prefix and suffix are hits; then,
    from the end, a deletion where the distance grows by one along the reference, else an insertion where it
    shrinks by one along the reference one hypothesis word earlier, else the diagonal."""
    n, m = len(ref), len(hyp)
    pre = 0
    while pre < min(n, m) and ref[pre] == hyp[pre]:
        pre += 1
    suf = 0
    while suf < min(n, m) - pre and ref[n - 1 - suf] == hyp[m - 1 - suf]:
        suf += 1
    r_mid, h_mid = ref[pre:n - suf], hyp[pre:m - suf]
    d = _distances(r_mid, h_mid)
    tail = [(HIT, hyp[m - suf + k], ref[n - suf + k]) for k in range(suf)]
    mid: list = []
    i, j = len(r_mid), len(h_mid)
    while i and j:
        if d[i, j] - d[i - 1, j] == 1:
            mid.append((DEL, None, r_mid[i - 1]))
            i -= 1
            continue
        j -= 1
        if j and d[i, j] - d[i - 1, j] == -1:
            mid.append((INS, h_mid[j], None))
            continue
        i -= 1
        mid.append((HIT if r_mid[i] == h_mid[j] else SUB, h_mid[j], r_mid[i]))
    while i:
        i -= 1
        mid.append((DEL, None, r_mid[i]))
    while j:
        j -= 1
        mid.append((INS, h_mid[j], None))
    pairs = [(HIT, hyp[k], ref[k]) for k in range(pre)] + mid[::-1] + tail
    ops = [p[0] for p in pairs]
    return SegmentAlignment(tuple(pairs), ops.count(HIT), ops.count(SUB), ops.count(DEL), ops.count(INS))


def align_corpus(system: str, hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> AlignmentSummary:
    segs = tuple(align(h, r) for h, r in zip(hyps, refs))
    return AlignmentSummary(system, segs, sum(a.hits for a in segs), sum(a.substitutions for a in segs),
                            sum(a.deletions for a in segs), sum(a.insertions for a in segs))
