"""Shared plumbing of the token-level metrics (NIST, WER/PER, K-GRR): tokenize, encode, pair layout.

References are laid out as *pairs*: one row per (segment, reference), grouped by segment in order;
``pair_seg[p]`` is the segment of pair ``p`` and ``seg_start[i]`` its first pair.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..ckernels import register_reference
from ..errors import InvalidParameterError
from ..text import Ragged
from ..text.encode import encode_texts, split_rows
from ..tokenize import check_tokenizer


@dataclass(frozen=True)
class EncodedCorpus:
    hyp: Ragged  # one row per segment
    ref: Ragged  # one row per (segment, reference) pair
    pair_seg: np.ndarray  # int64 [n_pairs]
    seg_start: np.ndarray  # int64 [n_segments + 1]: pairs of segment i are seg_start[i]:seg_start[i+1]
    vocab_size: int

    @property
    def n_segments(self) -> int:
        return self.hyp.n_rows

    @property
    def refs_per_segment(self) -> np.ndarray:
        return np.diff(self.seg_start)


def encode_corpus(hyps: list[str], refs: list[list[str]], tokenize: str, lowercase: bool) -> EncodedCorpus:
    """Tokenize hypotheses and all references with one tokenizer and encode them with one vocabulary."""
    flat = [r for seg in refs for r in seg]
    counts = np.fromiter((len(seg) for seg in refs), dtype=np.int64, count=len(refs))
    seg_start = np.zeros(len(refs) + 1, dtype=np.int64)
    np.cumsum(counts, out=seg_start[1:])
    pair_seg = np.repeat(np.arange(len(refs), dtype=np.int64), counts)
    both, n_types, _ = encode_texts(list(hyps) + flat, tokenize, lowercase)
    h, r = split_rows(both, len(hyps))
    return EncodedCorpus(h, r, pair_seg, seg_start, n_types)


def _libm_one(fn, v: float) -> float:
    try:
        return fn(v)
    except OverflowError:  # exp of a large number: inf, as the C library returns it
        return math.inf
    except ValueError:  # log of 0 or of a negative number: -inf / nan, as the C library returns them
        return -math.inf if v == 0 else math.nan


def libm_map(fn_name: str, x) -> np.ndarray:
    """Reference of the compiled ``ckernels.libm_apply``: ``math.log``/``math.log2``/``math.exp`` elementwise.

    NumPy's float64 ``log``/``exp``/``log2`` run SIMD kernels of their own on CPUs with AVX-512 and the C library's
    elsewhere; the two differ in the last bit on some inputs, so a score computed with them depends on the CPU.
    The C library's function (the one Python's ``math`` module, mteval and NLTK call) gives the same bits on every
    x86-64 CPU with FMA, whatever its vector width. Applied once per distinct value (``np.unique``)."""
    fn = getattr(math, fn_name)
    arr = np.asarray(x, dtype=np.float64)
    if arr.size == 0:
        return arr.copy()
    uniq, inverse = np.unique(arr, return_inverse=True)
    vals = np.fromiter((_libm_one(fn, v) for v in uniq.tolist()), dtype=np.float64, count=len(uniq))
    return vals[inverse].reshape(arr.shape)


register_reference("libm_apply", libm_map)


def check_param(config_cls, field: str, value, label: str | None = None):
    """Check a function argument by a metric parameter declared on ``config_cls`` (its ``PARAMS``)
    (``check_param(KGRRConfig, "k", 4)``): the same rule and message as the metric's Config."""
    from ..params import config_params
    return config_params(config_cls)[field].check(value, label or field)


def num(x: float):
    """Integral floats as int (for detail strings and JSON)."""
    x = float(x)
    return int(x) if x.is_integer() else x


def fmt_num(x: float) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() else f"{x:.3f}"
