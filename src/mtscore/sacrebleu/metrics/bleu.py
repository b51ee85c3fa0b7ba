"""sacreBLEU's ``sacrebleu.metrics.bleu`` (``from sacrebleu.metrics.bleu import BLEU``, as fairseq and Hugging Face
``evaluate`` write it)."""
from . import MAX_NGRAM_ORDER, BLEU, BLEUScore, BLEUSignature

__all__ = ["BLEU", "BLEUScore", "BLEUSignature", "MAX_NGRAM_ORDER"]
