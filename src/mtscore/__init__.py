"""mtscore: machine-translation evaluation, and evaluation of the evaluators."""
from ._version import __version__  # noqa: F401

from .errors import InputError, InvalidParameterError, MtscoreError  # noqa: E402
from .metrics.base import MetricResult, Stats, refs_from_streams  # noqa: E402
from .metrics.registry import get_metric, metric_names  # noqa: E402
from .api import score, explain_tbleu, BLEU, BLEUSBP  # noqa: E402

__all__ = ["__version__", "score", "explain_tbleu", "get_metric", "metric_names", "BLEU", "BLEUSBP", "Stats", "MetricResult",
           "refs_from_streams", "MtscoreError", "InputError", "InvalidParameterError"]
