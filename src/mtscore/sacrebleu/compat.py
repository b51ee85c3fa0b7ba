"""sacreBLEU's function API (``corpus_bleu``, ``sentence_bleu``, ``corpus_chrf`` ...), same names,
arguments and defaults, on :mod:`mtscore.sacrebleu.metrics`."""
from __future__ import annotations

from typing import Optional, Sequence

from .metrics import BLEU, CHRF, TER, BLEUScore, CHRFScore, TERScore


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]], smooth_method="exp",
                smooth_value=None, force=False, lowercase=False, tokenize=BLEU.TOKENIZER_DEFAULT,
                use_effective_order=False) -> BLEUScore:
    """Corpus BLEU; ``references`` stream-major (one list per reference stream), as sacreBLEU."""
    metric = BLEU(lowercase=lowercase, force=force, tokenize=tokenize, smooth_method=smooth_method,
                  smooth_value=smooth_value, effective_order=use_effective_order)
    return metric.corpus_score(hypotheses, references)


def raw_corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                    smooth_value: Optional[float] = BLEU.SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """BLEU without tokenization, floor smoothing, effective order (sacreBLEU's ``raw_corpus_bleu``)."""
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value, force=True,
                       tokenize="none", use_effective_order=True)


def sentence_bleu(hypothesis: str, references: Sequence[str], smooth_method: str = "exp",
                  smooth_value: Optional[float] = None, lowercase: bool = False, tokenize=BLEU.TOKENIZER_DEFAULT,
                  use_effective_order: bool = True) -> BLEUScore:
    """BLEU of one sentence against its references (a list of strings)."""
    metric = BLEU(lowercase=lowercase, tokenize=tokenize, force=False, smooth_method=smooth_method,
                  smooth_value=smooth_value, effective_order=use_effective_order)
    return metric.sentence_score(hypothesis, references)


def corpus_chrf(hypotheses: Sequence[str], references: Sequence[Sequence[str]], char_order: int = CHRF.CHAR_ORDER,
                word_order: int = CHRF.WORD_ORDER, beta: int = CHRF.BETA, remove_whitespace: bool = True,
                eps_smoothing: bool = False) -> CHRFScore:
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta, whitespace=not remove_whitespace,
                  eps_smoothing=eps_smoothing)
    return metric.corpus_score(hypotheses, references)


def sentence_chrf(hypothesis: str, references: Sequence[str], char_order: int = CHRF.CHAR_ORDER,
                  word_order: int = CHRF.WORD_ORDER, beta: int = CHRF.BETA, remove_whitespace: bool = True,
                  eps_smoothing: bool = False) -> CHRFScore:
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta, whitespace=not remove_whitespace,
                  eps_smoothing=eps_smoothing)
    return metric.sentence_score(hypothesis, references)


def corpus_ter(hypotheses: Sequence[str], references: Sequence[Sequence[str]], normalized: bool = False,
               no_punct: bool = False, asian_support: bool = False, case_sensitive: bool = False) -> TERScore:
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive)
    return metric.corpus_score(hypotheses, references)


def sentence_ter(hypothesis: str, references: Sequence[str], normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False) -> TERScore:
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive)
    return metric.sentence_score(hypothesis, references)
