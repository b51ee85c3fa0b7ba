"""sacreBLEU's ``sacrebleu.metrics.base``: the ``Metric``, ``Score`` and ``Signature`` base classes."""
from . import Metric, Score, Signature

__all__ = ["Metric", "Score", "Signature"]
