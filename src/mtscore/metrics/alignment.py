"""Per-segment word alignments of hypothesis against reference: the Levenshtein alignment with hit,
substitution, deletion and insertion counts per segment and in total (jiwer's ``process_words`` counts, which
the tests use as the oracle), and the aligned pairs for display."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..ckernels import align_ops, register_reference

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


def _distances(ref: Sequence, hyp: Sequence) -> np.ndarray:
    """``D[i, j]``: edit distance of ``ref[:i]`` and ``hyp[:j]`` (unit costs). Reference implementation (plain
    Python over NumPy rows) of the compiled kernel ``_cmetrics.align_ops``."""
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


def align_ops_ref(hyp: Sequence, ref: Sequence) -> str:
    """The alignment's operations as one character each (``= S D I``), in order: the reference
    implementation of ``_cmetrics.align_ops`` (see :func:`align` for the choice among equal-cost alignments)."""
    n, m = len(ref), len(hyp)
    pre = 0
    while pre < min(n, m) and ref[pre] == hyp[pre]:
        pre += 1
    suf = 0
    while suf < min(n, m) - pre and ref[n - 1 - suf] == hyp[m - 1 - suf]:
        suf += 1
    r_mid, h_mid = ref[pre:n - suf], hyp[pre:m - suf]
    d = _distances(r_mid, h_mid)
    mid: list = []
    i, j = len(r_mid), len(h_mid)
    while i and j:
        if d[i, j] - d[i - 1, j] == 1:
            mid.append(DEL)
            i -= 1
            continue
        j -= 1
        if j and d[i, j] - d[i - 1, j] == -1:
            mid.append(INS)
            continue
        i -= 1
        mid.append(HIT if r_mid[i] == h_mid[j] else SUB)
    mid.extend(DEL * i)
    mid.extend(INS * j)
    return HIT * pre + "".join(mid[::-1]) + HIT * suf


def _align_ops_kernel_ref(h_ids, h_off, r_ids, r_off) -> list[str]:
    """Reference of :func:`mtscore.ckernels.align_ops`: :func:`align_ops_ref` of every row pair."""
    h_ids, r_ids = np.asarray(h_ids).tolist(), np.asarray(r_ids).tolist()
    return [align_ops_ref(h_ids[h_off[p]:h_off[p + 1]], r_ids[r_off[p]:r_off[p + 1]]) for p in range(len(h_off) - 1)]


register_reference("align_ops", _align_ops_kernel_ref)


def _ragged_ids(rows: Sequence[Sequence[str]], index: dict) -> tuple[np.ndarray, np.ndarray]:
    get = index.setdefault
    flat = [get(t, len(index)) for r in rows for t in r]
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    return np.asarray(flat, dtype=np.int64), off


def alignment_ops(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]],
                  threads: int | None = None) -> list[str]:
    """The operations (``= S D I``, one character per aligned pair) of :func:`align` for every pair of token
    lists, on the compiled kernel (threads) where it is built."""
    if len(hyps) != len(refs):
        raise ValueError(f"alignment: {len(hyps)} hypotheses, {len(refs)} references")
    index: dict = {}
    h_ids, h_off = _ragged_ids(hyps, index)
    r_ids, r_off = _ragged_ids(refs, index)
    return align_ops(h_ids, h_off, r_ids, r_off, threads=threads)


def _from_ops(hyp: Sequence[str], ref: Sequence[str], ops: str) -> SegmentAlignment:
    pairs = []
    i = j = 0
    for op in ops:
        if op == DEL:
            pairs.append((DEL, None, ref[i]))
            i += 1
        elif op == INS:
            pairs.append((INS, hyp[j], None))
            j += 1
        else:
            pairs.append((op, hyp[j], ref[i]))
            i += 1
            j += 1
    return SegmentAlignment(tuple(pairs), ops.count(HIT), ops.count(SUB), ops.count(DEL), ops.count(INS))


def align(hyp: Sequence[str], ref: Sequence[str]) -> SegmentAlignment:
    """Minimum edit alignment (unit costs) of ``hyp`` against ``ref``.

    Equal-cost alignments can split their edits differently (two substitutions, or a deletion, a hit and an
    insertion). This one is jiwer 3's (rapidfuzz's ``editops``): a common prefix and suffix are hits; then,
    from the end, a deletion where the distance grows by one along the reference, else an insertion where it
    shrinks by one along the reference one hypothesis word earlier, else the diagonal."""
    return _from_ops(hyp, ref, alignment_ops([hyp], [ref])[0])


def align_corpus(system: str, hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]],
                 threads: int | None = None) -> AlignmentSummary:
    ops = alignment_ops(hyps, refs, threads=threads)
    segs = tuple(_from_ops(h, r, o) for h, r, o in zip(hyps, refs, ops))
    return AlignmentSummary(system, segs, sum(a.hits for a in segs), sum(a.substitutions for a in segs),
                            sum(a.deletions for a in segs), sum(a.insertions for a in segs))
