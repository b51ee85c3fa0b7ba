"""sacreBLEU's ``sacrebleu.metrics.ter``."""
from . import TER, TERScore, TERSignature

__all__ = ["TER", "TERScore", "TERSignature"]
