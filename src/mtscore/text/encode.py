"""Encode tokens to integer ids once per corpus; n-gram ids without hashing (exact identity).

A :class:`Ragged` holds ``ids`` (int64, all tokens of all rows concatenated) and ``offsets``
(int64, ``len = rows + 1``); row ``i`` is ``ids[offsets[i]:offsets[i+1]]``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np


@dataclass(frozen=True)
class Ragged:
    ids: np.ndarray
    offsets: np.ndarray

    @property
    def n_rows(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row(self, i: int) -> np.ndarray:
        return self.ids[self.offsets[i]:self.offsets[i + 1]]

    def row_index(self) -> np.ndarray:
        """Row number of every token."""
        return np.repeat(np.arange(self.n_rows, dtype=np.int64), self.lengths)


class Vocab:
    """Token string -> dense integer id, shared by hypotheses and references of one corpus."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.index)

    def encode(self, tokenized_lines: Iterable[str]) -> Ragged:
        index = self.index
        get = index.setdefault
        lengths: list[int] = []
        flat: list[int] = []
        extend = flat.extend
        append = lengths.append
        for line in tokenized_lines:
            toks = line.split()
            append(len(toks))
            extend([get(t, len(index)) for t in toks])
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return Ragged(np.asarray(flat, dtype=np.int64), offsets)


def encode_lines(tokenized_lines: Sequence[str], vocab: Vocab | None = None) -> Ragged:
    return (vocab or Vocab()).encode(tokenized_lines)


def ngram_ids(parts: Sequence[Ragged], max_order: int) -> list[tuple[list[np.ndarray], list[np.ndarray], int]]:
    """Exact n-gram ids for every order ``1..max_order``, consistent across all ``parts``.

    Returns one entry per order n: ``(gids, rows, n_ids)`` where ``gids[k]`` / ``rows[k]`` give, for
    every n-gram position of part ``k`` (in text order), the n-gram's id (equal ids <=> equal token
    sequences) and the row it belongs to; ids are in ``range(n_ids)``. Ids of order n come from the
    ids of order n-1 and the next token via ``np.unique`` on packed pairs: exact, no hashing, no
    per-n-gram Python objects.
    """
    rows = [p.row_index() for p in parts]
    pos = [np.arange(len(p.ids), dtype=np.int64) - p.offsets[:-1].repeat(p.lengths) for p in parts]
    lens = [p.lengths.repeat(p.lengths) for p in parts]
    vsize = max([int(p.ids.max()) + 1 for p in parts if len(p.ids)] or [1])
    prev = [p.ids for p in parts]  # (n-1)-gram id at each token position where one starts
    out = [([p.ids for p in parts], rows, vsize)]
    for n in range(2, max_order + 1):
        starts = [np.flatnonzero(pos[k] + n <= lens[k]) for k in range(len(parts))]
        keys = [prev[k][s] * np.int64(vsize) + parts[k].ids[s + n - 1] for k, s in enumerate(starts)]
        uniq, inv = np.unique(np.concatenate(keys), return_inverse=True)
        inv = inv.astype(np.int64).reshape(-1)
        cut = np.cumsum([0] + [len(x) for x in keys])
        gids = []
        for k, s in enumerate(starts):
            g = inv[cut[k]:cut[k + 1]]
            gids.append(g)
            full = np.zeros(len(parts[k].ids), dtype=np.int64)
            full[s] = g
            prev[k] = full
        out.append((gids, [rows[k][s] for k, s in enumerate(starts)], len(uniq)))
        if len(uniq) * vsize >= 2**62:  # pragma: no cover - needs > 2^31 distinct n-grams
            raise OverflowError("corpus too large for exact n-gram packing")
    return out


def encode_texts(lines: Sequence[str], tokenize: str = "13a", lowercase: bool = False,
                 with_types: bool = False) -> tuple[Ragged, int, list[str] | None]:
    """Tokenize and encode ``lines`` with one shared vocabulary: ``(Ragged, n_types, types)``.

    Uses the compiled path (``text/fast.py``: 13a inside the kernel; other tokenizers by their regular
    expressions, then compiled splitting and encoding) and falls back to the plain path
    (:func:`mtscore.tokenize.tokenize_corpus` + :class:`Vocab`) where the compiled one does not apply.
    Both give the same tokens and equal ids for equal tokens (ids may be numbered differently).
    ``types[i]`` is the token string of id ``i`` when ``with_types``."""
    from ..tokenize import tokenize_corpus
    from .fast import encode_corpus_types

    lines = list(lines)
    if tokenize == "13a":
        enc = encode_corpus_types(lines, "13a", lowercase=bool(lowercase), with_types=with_types)
    else:
        enc = encode_corpus_types(tokenize_corpus(lines, tokenize, lowercase=bool(lowercase)), "none",
                                  with_types=with_types)
    if enc is not None:
        ids, offsets, n_types, types = enc
        return Ragged(ids.astype(np.int64), offsets.astype(np.int64)), n_types, types
    vocab = Vocab()
    r = vocab.encode(tokenize_corpus(lines, tokenize, lowercase=bool(lowercase)))
    return r, len(vocab), (list(vocab.index) if with_types else None)


def split_rows(r: Ragged, k: int) -> tuple[Ragged, Ragged]:
    """The first ``k`` rows and the rest, as two Ragged arrays."""
    cut = int(r.offsets[k])
    return (Ragged(r.ids[:cut], r.offsets[:k + 1].copy()),
            Ragged(r.ids[cut:], r.offsets[k:] - cut))
