"""sacreBLEU's ``sacrebleu.metrics.chrf``."""
from . import CHRF, CHRFScore, CHRFSignature

__all__ = ["CHRF", "CHRFScore", "CHRFSignature"]
