"""jiwer's measures on the common metric surface: MER, WIL, WIP (words), CER (characters), with hit / substitution
/ deletion / insertion counts per segment and in total (docs/compat-nltk-jiwer.md).

Definitions (jiwer 4, ``process_words`` / ``process_characters``), from the counts H, S, D, I of the minimum edit
alignment (jiwer's choice among equal-cost alignments: :func:`mtscore.metrics.alignment.align`, checked against
jiwer in the tests):

* WER = (S + D + I) / (H + S + D); MER = (S + D + I) / (H + S + D + I);
  WIP = (H / N_ref) (H / N_hyp) (0 for an empty hypothesis); WIL = 1 - WIP; CER = WER over characters.
* corpus values sum the counts over segments first (jiwer given lists of sentences); segment values are jiwer on
  that sentence alone. The statistics per segment are ``hits, substitutions, deletions, insertions, ref_len,
  hyp_len`` (sufficient for every measure).
* words: jiwer's ``wer_default`` (runs of 2+ whitespace characters become one space, strip, split on " ");
  characters: ``cer_default`` (strip, then every character, spaces included). ``cer_spaces=False``: whitespace is
  removed before counting (CER over the non-space characters).
* empty references (``empty_ref``): ``"mtscore"`` (default, as mtscore's WER/TER: a rate with a zero denominator
  is 0 without errors, else 1; WIP 1 / 0 likewise) or ``"jiwer"`` (jiwer: when the reference side has no
  words, WER/CER = the number of insertions (a count, not a rate), MER = 0 if the hypothesis is empty else 1,
  WIP = 1 if the hypothesis is empty else 0).
* one reference per segment (jiwer has no multi-reference form).
"""
from __future__ import annotations

from typing import ClassVar
import re
from dataclasses import dataclass

import numpy as np

from ..params import LOWERCASE, Param as P
from ..errors import InvalidParameterError
from .base import Metric, MetricResult

EMPTY_REF = ("mtscore", "jiwer")
_MULTI_SPACE = re.compile(r"\s\s+")


def jiwer_words(line: str) -> list[str]:
    """jiwer's ``wer_default`` transform of one line."""
    return [w for w in _MULTI_SPACE.sub(" ", line).strip().split(" ") if w]


def jiwer_chars(line: str, spaces: bool = True) -> list[str]:
    """jiwer's ``cer_default`` (strip, characters incl. spaces); ``spaces=False`` drops whitespace."""
    s = line.strip()
    return list(s) if spaces else [ch for ch in s if not ch.isspace()]


def counts(hyp_tokens, ref_tokens) -> tuple[int, int, int, int]:
    """(hits, substitutions, deletions, insertions) of jiwer's alignment."""
    from .alignment import align
    a = align(list(hyp_tokens), list(ref_tokens))
    return a.hits, a.substitutions, a.deletions, a.insertions


def measures(summed, empty_ref: str = "mtscore") -> dict[str, np.ndarray]:
    """wer, mer, wip, wil from summed counts ``[..., 6]`` (H, S, D, I, ref_len, hyp_len)."""
    s = np.asarray(summed, dtype=np.float64)
    H, S, D, I, nr, nh = (s[..., k] for k in range(6))
    err = S + D + I
    with np.errstate(divide="ignore", invalid="ignore"):
        wer = np.where(nr > 0, err / np.where(nr > 0, nr, 1), np.nan)
        mer = np.where(H + err > 0, err / np.where(H + err > 0, H + err, 1), np.nan)
        wip = np.where((nr > 0) & (nh > 0), (H / np.where(nr > 0, nr, 1)) * (H / np.where(nh > 0, nh, 1)), 0.0)
    if empty_ref == "jiwer":
        wer = np.where(nr > 0, wer, I)
        mer = np.where(nr > 0, mer, np.where(nh > 0, 1.0, 0.0))
        wip = np.where(nr > 0, wip, np.where(nh > 0, 0.0, 1.0))
    elif empty_ref == "mtscore":
        wer = np.where(nr > 0, wer, np.where(err > 0, 1.0, 0.0))
        mer = np.where(nr > 0, mer, np.where(err > 0, 1.0, 0.0))
        wip = np.where(nr > 0, wip, np.where(nh > 0, 0.0, 1.0))
    else:
        raise InvalidParameterError.choice("empty_ref", empty_ref, EMPTY_REF)
    return {"wer": wer, "mer": mer, "wip": wip, "wil": 1.0 - wip}


@dataclass(frozen=True)
class JiwerConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = (
        LOWERCASE,
        P("empty_ref", "choice", "mtscore", choices=("mtscore", "jiwer"), flags=("--empty-ref",),
          help="an empty reference: mtscore's rule or jiwer's (WER = insertions count ...)", sig="empty"),
        P("cer_spaces", "bool", True, flags=("--cer-no-spaces",), flag_value=False, option_for=("cer",),
          help="cer: count spaces as characters (jiwer) or drop whitespace", sig="spaces"),
    )
    lowercase: bool = False
    empty_ref: str = "mtscore"  # "mtscore" or "jiwer" (see the module doc)
    cer_spaces: bool = True  # CER only: count spaces as characters (jiwer) or drop whitespace


class _JiwerMeasure(Metric):
    Config = JiwerConfig
    columns = ("hits", "substitutions", "deletions", "insertions", "ref_len", "hyp_len")
    higher_is_better = False
    decomposable = False
    range = (0.0, 1.0)
    table_scale = 100.0  # shown on 0..100 (report.model's scale rule; the API keeps 0..1)
    _measure = "wer"
    _chars = False

    def __init__(self, config=None, **params):
        super().__init__(config, **params)
        # WER and CER are error counts over reference lengths: a weighted mean of segment rates with the
        # reference lengths as weights (system-independent), as mtscore's WER (tests/contracts/test_metric_contract.py);
        # jiwer's empty-reference rule (insertions as the rate) breaks that; MER, WIL, WIP are not.
        self.decomposable = self._measure == "wer" and self.config.empty_ref == "mtscore"

    def _validate(self) -> None:
        """Every field is checked by its declaration (the Config's PARAMS)."""

    def _tokens(self, line: str) -> list[str]:
        if self.config.lowercase:
            line = line.lower()
        return jiwer_chars(line, self.config.cer_spaces) if self._chars else jiwer_words(line)

    def _stats(self, hyps, refs) -> np.ndarray:
        rows = []
        for i, (h, rs) in enumerate(zip(hyps, refs)):
            if len(rs) != 1:
                raise InvalidParameterError(f"{self.name}: jiwer's measures take one reference per segment; "
                                            f"segment {i + 1} has {len(rs)}")
            ht, rt = self._tokens(h), self._tokens(rs[0])
            rows.append(counts(ht, rt) + (len(rt), len(ht)))
        return np.array(rows, dtype=np.float64).reshape(len(rows), 6)

    def score(self, summed) -> np.ndarray:
        return measures(summed, self.config.empty_ref)[self._measure]

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        s = np.asarray(summed, dtype=np.float64)
        H, S, D, I, nr, nh = (int(x) for x in s)
        score = float(self.score(s))
        comps = {"hits": H, "substitutions": S, "deletions": D, "insertions": I, "ref_len": nr, "hyp_len": nh}
        detail = f"(H = {H} S = {S} D = {D} I = {I} ref_len = {nr} hyp_len = {nh})"
        return MetricResult(self.name, self.display_name, score, signature, comps, detail)

    def signature_items(self, nrefs):
        # spaces: CER's only (the parameter is declared for cer alone, option_for)
        tok = "jiwer-chars" if self._chars else "jiwer-words"
        return self.declared_signature(("nrefs", nrefs), "case", ("tok", tok), "empty", "spaces")


class MER(_JiwerMeasure):
    """Match error rate (Morris et al. 2004), as jiwer."""
    name = "mer"
    display_name = "MER"
    _measure = "mer"


class WIL(_JiwerMeasure):
    """Word information lost, as jiwer."""
    name = "wil"
    display_name = "WIL"
    _measure = "wil"


class WIP(_JiwerMeasure):
    """Word information preserved, as jiwer (higher is better)."""
    name = "wip"
    display_name = "WIP"
    _measure = "wip"
    higher_is_better = True


class CER(_JiwerMeasure):
    """Character error rate, as jiwer (spaces count as characters unless ``cer_spaces=False``)."""
    name = "cer"
    display_name = "CER"
    _measure = "wer"
    _chars = True
    range = (0.0, float("inf"))


class JiwerWER(_JiwerMeasure):
    """WER exactly as jiwer (its tokenization and empty-reference option); mtscore's ``wer`` is the mWER family."""
    name = "wer-jiwer"
    display_name = "WER(jiwer)"
    _measure = "wer"
    range = (0.0, float("inf"))
