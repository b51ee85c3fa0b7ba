"""TER, translation edit rate (Snover et al. 2006), exactly as sacreBLEU 2.6 computes it (docs/definitions.md §4).

Statistics per segment: ``edits`` (fewest TER edits over the references: shifts + insertions +
deletions + substitutions, Tercom's greedy shift search, see :mod:`._ter_kernel`) and ``ref_len``
(the *average* reference length in words). Corpus TER = 100 * Σ edits / Σ ref_len; when Σ ref_len
is 0 it is 100 if there are edits and 0 otherwise (sacreBLEU). Segment TER uses the same formula on
one row. The denominators do not depend on the system, so TER is sentence-decomposable: the corpus
score is the ``ref_len``-weighted mean of segment scores.

Preprocessing: ``line.rstrip()``, then the 'tercom' tokenizer (:mod:`mtscore.tokenize.tercom`):
lowercased unless ``case_sensitive``; optional ``normalized``, ``no_punct``, ``asian_support``. With
``normalized`` the references are tokenized twice, as sacreBLEU does (see :meth:`TER._encode`).
An empty reference has length 0 and costs one edit per hypothesis word (sacreBLEU).
"""
from __future__ import annotations

from typing import ClassVar
import math
from dataclasses import dataclass

import numpy as np

from ..errors import MtscoreError
from ..params import case_sig, validate_config, Param as P
from ..text import Vocab
from ..tokenize.tercom import tercom_words
from .base import Metric, MetricResult


@dataclass(frozen=True)
class TERConfig:
    """sacreBLEU's TER options (all off by default: case-insensitive, no normalization)."""
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option,
    # signature entry (sacreBLEU's)
    PARAMS: ClassVar = (
        P("normalized", "bool", False, flags=("--ter-normalized",),
          help="normalize punctuation and XML entities (tercom -N)", sig="norm"),
        P("no_punct", "bool", False, flags=("--ter-no-punct",), help="remove punctuation",
          sig="punct", sig_fmt=lambda no_punct: not no_punct),
        P("asian_support", "bool", False, flags=("--ter-asian-support",), help="CJK handling with normalized / no_punct",
          sig="asian"),
        P("case_sensitive", "bool", False, flags=("--ter-case-sensitive",), help="do not lowercase",
          sig="case", sig_fmt=lambda cs: case_sig(not cs)),
    )

    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    case_sensitive: bool = False

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


class TER(Metric):
    """``TER().corpus(hyps, refs)``; lower is better."""

    name = "ter"
    display_name = "TER"
    Config = TERConfig
    columns = ("edits", "ref_len")
    higher_is_better = False
    decomposable = True
    range = (0.0, math.inf)

    def _words(self, lines):
        c = self.config
        return tercom_words(lines, c.normalized, c.no_punct, c.asian_support, c.case_sensitive)

    def _encode(self, hyps, flat_refs):
        """Word ids of the hypotheses and the references (one vocabulary). Without normalization or
        punctuation removal the words are ``line.lower().split()`` (or ``line.split()``): the compiled
        whitespace tokenizer + encoder of :mod:`mtscore.text.fast` does that in one pass (identical ids
        up to numbering; TER compares ids only for equality)."""
        c = self.config
        if not c.normalized and not c.no_punct:
            from ..text.encode import Ragged
            from ..text.fast import encode_corpus, kernel_backend

            if kernel_backend() == "c":
                enc = encode_corpus(list(hyps) + flat_refs, tokenize="none", lowercase=not c.case_sensitive)
                if enc is not None:
                    ids, off, _ = enc
                    n = len(hyps)
                    ids = ids.astype(np.int64)
                    return Ragged(ids, off[:n + 1]), Ragged(ids, off[n:])
        vocab = Vocab()
        ref_words = self._words(flat_refs)
        if c.normalized:
            # sacreBLEU 2.6 tokenizes a reference twice (TER._cache_references, then _extract_reference_info;
            # the hypothesis once), and the normalized tokenizer is not idempotent: "Nima's" stays one word
            # in the first pass and becomes "Nima 's" in the second. Done here too, so the numbers are
            # sacreBLEU's (7 of 20,916 WMT reference lines change; the other modes are idempotent).
            ref_words = self._words(ref_words)
        return vocab.encode(self._words(hyps)), vocab.encode(ref_words)

    def _stats(self, hyps, refs) -> np.ndarray:
        from . import _ter_kernel  # noqa: F401 (registers the reference kernel)
        from ..ckernels import ter_pairs

        flat_refs = [r for seg in refs for r in seg]
        counts = np.fromiter((len(seg) for seg in refs), dtype=np.int64, count=len(refs))
        h, r = self._encode(hyps, flat_refs)
        pair_hyp = np.repeat(np.arange(len(hyps), dtype=np.int64), counts)
        pair_ref = np.arange(len(flat_refs), dtype=np.int64)
        edits = ter_pairs(h.ids, h.offsets, r.ids, r.offsets, pair_hyp, pair_ref)
        if len(edits) and edits.min() < 0:
            k = int(np.flatnonzero(edits < 0)[0])
            raise MtscoreError(f"TER: undefined edit trace for segment {int(pair_hyp[k]) + 1} "
                               "(beam too narrow; sacreBLEU raises here as well)")
        starts = np.zeros(len(refs), dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        best = np.minimum.reduceat(edits, starts) if len(edits) else np.zeros(0, dtype=np.int64)
        ref_len_sum = np.add.reduceat(r.lengths, starts) if len(edits) else np.zeros(0, dtype=np.int64)
        avg = ref_len_sum / counts  # int sum / int count, as sacreBLEU
        return np.column_stack([best.astype(np.float64), avg.astype(np.float64)])

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        edits, ref_len = s[..., 0], s[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(ref_len > 0, edits / np.where(ref_len > 0, ref_len, 1.0),
                           np.where(edits > 0, 1.0, 0.0))
        out = 100 * out
        return out if out.ndim else float(out)

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        s = np.asarray(summed, dtype=np.float64)
        edits, ref_len = float(s[0]), float(s[1])
        comps = {"num_edits": int(edits), "ref_length": ref_len}
        return MetricResult(self.name, self.display_name, float(self.score(s)), signature, comps, "")

    def signature_items(self, nrefs):
        return self.declared_signature(("nrefs", nrefs), "case", ("tok", "tercom"), "norm", "punct", "asian")
