"""mtscore: machine-translation evaluation, and evaluation of the evaluators."""
from ._version import __version__  # noqa: F401

from .errors import InputError, InvalidParameterError, MtscoreError  # noqa: E402

__all__ = ["__version__", "score", "explain_tbleu", "get_metric", "metric_names", "BLEU", "BLEUSBP", "Stats", "MetricResult",
           "refs_from_streams", "MtscoreError", "InputError", "InvalidParameterError"]

# The rest of the public API is imported on first use (PEP 562): ``import mtscore`` and the CLI's start
# (``python -m mtscore`` imports this package first) load no NumPy and no metric module.
_LAZY = {
    "MetricResult": "mtscore.metrics.base", "Stats": "mtscore.metrics.base", "refs_from_streams": "mtscore.metrics.base",
    "get_metric": "mtscore.metrics.registry", "metric_names": "mtscore.metrics.registry",
    "score": "mtscore.api", "explain_tbleu": "mtscore.api", "BLEU": "mtscore.api", "BLEUSBP": "mtscore.api",
}


def __getattr__(name: str):
    from importlib import import_module

    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:  # a sub-package or module, as after the eager imports of earlier versions (mtscore.metrics ...)
        return import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
