"""Word error rates, docs/definitions.md §4: WER / WRR / mWER and PER / mPER.

* **WER** (Levenshtein distance over tokens, unit costs) divided by the reference length.
  With several references it is **mWER** (Nießen et al. 2000): the errors of a segment are the
  minimum edit distance over its references. Normaliser (``ref_length``; old name ``ref_len``): ``"average"`` (default,
  the mean reference length of the segment, as TER does; system-independent, so the corpus score
  is a weighted mean of segment scores: decomposable) or ``"best"`` (the length of the reference
  with the fewest edits; ties -> the longer reference, i.e. the smaller rate).
  Corpus WER = Σ_i errors_i / Σ_i normaliser_i.
* **WRR** = 1 - WER (Chiang et al. 2008, eq. 5); higher is better and it can be negative.
* **PER** (position-independent): errors = max(|c|, |r|) - Σ_w min(#_c(w), #_r(w)); mPER takes the
  minimum over references, with the same normaliser choice.

Scores are fractions (jiwer's scale), not percentages. Empty references: a segment whose
normaliser is 0 scores 0.0 when it has no errors (empty hypothesis) and 1.0 otherwise (sacreBLEU's
TER rule); in a corpus its errors (insertions) still count in the numerator. The same rule applies
to a whole corpus with Σ normaliser = 0.

Tokenization: ``tokenize="13a"`` (default, as BLEU, case-sensitive); ``tokenize="none"`` splits on
whitespace only, which is what jiwer does.

``mwer`` and ``mper`` are registered as aliases of ``wer`` and ``per`` (same computation; the name
just states that several references are used).
"""
from __future__ import annotations

from typing import ClassVar
from dataclasses import dataclass

import numpy as np

from ..params import LOWERCASE, TOKENIZE, validate_config, Param as P
from ._common import EncodedCorpus, encode_corpus, fmt_num, num
from .base import Metric, MetricResult
from ..ckernels import levenshtein_pairs  # compiled kernel; levenshtein_pairs_ref is its reference

REF_LENS = ("average", "best")


@dataclass(frozen=True)
class WERConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = (
        TOKENIZE, LOWERCASE,
        P("ref_length", "choice", "average", choices=("average", "best"), aliases=("ref_len",),
          flags=("--wer-ref-length",), deprecated_flags=("--wer-ref-len",),
          help="normaliser with several references: average reference length or the best reference's",
          sig="norm", sig_fmt=lambda r: "avg" if r == "average" else "best"),
    )
    tokenize: str = "13a"
    lowercase: bool = False
    ref_length: str = "average"  # normaliser with several references: "average" or "best" (was: ref_len)

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


# --------------------------------------------------------------------------------------------------
# kernels
def levenshtein_pairs_ref(h_ids, h_off, r_ids, r_off, pair_seg):
    """Token edit distance (unit costs) of every (segment, reference) pair: hyp row pair_seg[p] vs ref row p."""
    n_pairs = len(r_off) - 1
    out = np.empty(n_pairs, dtype=np.int64)
    max_len = 0
    for p in range(n_pairs):
        if r_off[p + 1] - r_off[p] > max_len:
            max_len = r_off[p + 1] - r_off[p]
    row = np.empty(max_len + 1, dtype=np.int64)
    for p in range(n_pairs):
        s = pair_seg[p]
        hs = h_off[s]
        he = h_off[s + 1]
        rs = r_off[p]
        re = r_off[p + 1]
        # strip the common prefix and suffix: they never change the distance
        while hs < he and rs < re and h_ids[hs] == r_ids[rs]:
            hs += 1
            rs += 1
        while hs < he and rs < re and h_ids[he - 1] == r_ids[re - 1]:
            he -= 1
            re -= 1
        n = he - hs
        m = re - rs
        if n == 0 or m == 0:
            out[p] = n + m
            continue
        for j in range(m + 1):
            row[j] = j
        for i in range(1, n + 1):
            w = h_ids[hs + i - 1]
            diag = row[0]
            row[0] = i
            left = i
            for j in range(1, m + 1):
                up = row[j]
                best = diag if r_ids[rs + j - 1] == w else diag + 1
                if up + 1 < best:
                    best = up + 1
                if left + 1 < best:
                    best = left + 1
                row[j] = best
                left = best
                diag = up
        out[p] = row[m]
    return out


def bag_matches(enc: EncodedCorpus) -> np.ndarray:
    """Σ_w min(#_c(w), #_r(w)) for every (segment, reference) pair (vectorized)."""
    V = np.int64(max(enc.vocab_size, 1))
    out = np.zeros(enc.ref.n_rows, dtype=np.float64)
    if len(enc.hyp.ids) == 0 or len(enc.ref.ids) == 0:
        return out
    hk, hc = np.unique(enc.hyp.row_index() * V + enc.hyp.ids, return_counts=True)
    rk, rc = np.unique(enc.ref.row_index() * V + enc.ref.ids, return_counts=True)
    pair = rk // V
    sk = enc.pair_seg[pair] * V + rk % V
    idx = np.minimum(np.searchsorted(hk, sk), len(hk) - 1)
    m = np.where(hk[idx] == sk, np.minimum(rc, hc[idx]), 0)
    out[:] = np.bincount(pair, weights=m, minlength=enc.ref.n_rows)
    return out


def best_of_refs(errors: np.ndarray, ref_lens: np.ndarray, seg_start: np.ndarray, ref_len: str):
    """Per segment: min errors over its references and the normaliser (average or best-ref length).

    ``ref_len="best"``: length of the reference with the fewest errors; ties -> the longer reference.
    """
    errors = np.asarray(errors, dtype=np.float64)
    ref_lens = np.asarray(ref_lens, dtype=np.float64)
    starts = seg_start[:-1]
    if len(starts) == 0:
        return np.zeros(0), np.zeros(0)
    best = np.minimum.reduceat(errors, starts)
    if ref_len == "average":
        norm = np.add.reduceat(ref_lens, starts) / np.diff(seg_start)
    else:
        seg = np.repeat(np.arange(len(starts)), np.diff(seg_start))
        cand = np.where(errors == best[seg], ref_lens, -1.0)
        norm = np.maximum.reduceat(cand, starts)
    return best, norm


def error_rate(edits, norm):
    """edits / norm, with norm == 0 -> 0.0 if edits == 0 else 1.0 (vectorized)."""
    edits = np.asarray(edits, dtype=np.float64)
    norm = np.asarray(norm, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(norm > 0, edits / np.where(norm > 0, norm, 1.0), np.where(edits > 0, 1.0, 0.0))
    return out if out.ndim else float(out)


# --------------------------------------------------------------------------------------------------
class WER(Metric):
    """Word error rate (mWER with several references). ``WER().corpus(hyps, refs).score``."""

    name = "wer"
    display_name = "WER"
    Config = WERConfig
    columns = ("edits", "ref_len", "hyp_len")
    higher_is_better = False
    decomposable = True
    range = (0.0, float("inf"))
    table_scale = 100.0  # tables print it on 0..100 (the API keeps 0..1)
    _kind = "wer"

    def __init__(self, config=None, **params):
        super().__init__(config, **params)
        # the "best"-reference normaliser depends on the hypothesis: not system-independent weights
        self.decomposable = self.config.ref_length == "average"

    def _validate(self) -> None:
        """Every field is checked by its declaration (the Config's PARAMS)."""

    def _pair_errors(self, enc: EncodedCorpus) -> np.ndarray:
        if self._kind == "wer":
            return levenshtein_pairs(enc.hyp.ids, enc.hyp.offsets, enc.ref.ids, enc.ref.offsets,
                                     enc.pair_seg).astype(np.float64)
        hyp_len = enc.hyp.lengths[enc.pair_seg].astype(np.float64)
        return np.maximum(hyp_len, enc.ref.lengths) - bag_matches(enc)

    def _stats(self, hyps, refs) -> np.ndarray:
        c = self.config
        enc = encode_corpus(hyps, refs, c.tokenize, c.lowercase)
        errors, norm = best_of_refs(self._pair_errors(enc), enc.ref.lengths, enc.seg_start, c.ref_length)
        return np.column_stack([errors, norm, enc.hyp.lengths.astype(np.float64)])

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        return error_rate(s[..., 0], s[..., 1])

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        s = np.asarray(summed, dtype=np.float64)
        edits, ref_len, hyp_len = float(s[0]), float(s[1]), float(s[2])
        score = float(self.score(s))
        detail = f"(errors = {fmt_num(edits)} ref_len = {fmt_num(ref_len)} hyp_len = {fmt_num(hyp_len)})"
        comps = {"errors": num(edits), "ref_len": num(ref_len), "hyp_len": num(hyp_len)}
        return MetricResult(self.name, self.display_name, score, signature, comps, detail)

    def signature_items(self, nrefs):
        return self.declared_signature(("nrefs", nrefs), "case", "tok", "norm")


class MWER(WER):
    """Alias of ``wer`` under the multi-reference name."""

    name = "mwer"
    display_name = "mWER"


class WRR(WER):
    """Word recognition rate = 1 - WER (Chiang et al. 2008); can be negative."""

    name = "wrr"
    display_name = "WRR"
    higher_is_better = True
    range = (float("-inf"), 1.0)

    def score(self, summed) -> np.ndarray:
        return 1.0 - super().score(summed)


class PER(WER):
    """Position-independent error rate (mPER with several references)."""

    name = "per"
    display_name = "PER"
    _kind = "per"


class MPER(PER):
    name = "mper"
    display_name = "mPER"

# the reference(s) of the compiled kernel(s): mtscore.ckernels dispatches here without importing this module
from ..ckernels import register_reference  # noqa: E402

register_reference("levenshtein_pairs", levenshtein_pairs_ref)
