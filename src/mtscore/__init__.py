"""mtscore: machine-translation evaluation, and evaluation of the evaluators.

The names below are imported on first use (PEP 562), so ``import mtscore`` itself is light: the console
entry point (mtscore.cli.entry) installs its interrupt handling before anything heavy (numpy, scipy) loads."""
from ._version import __version__  # noqa: F401

# public name -> module of the package that defines it
_LAZY = {
    "InputError": "errors", "InvalidParameterError": "errors", "MtscoreError": "errors",
    "MetricResult": "metrics.base", "Stats": "metrics.base", "refs_from_streams": "metrics.base",
    "get_metric": "metrics.registry", "metric_names": "metrics.registry",
    "score": "api", "explain_tbleu": "api", "BLEU": "api", "BLEUSBP": "api",
    "pairwise": "search.pairwise",
}

__all__ = ["__version__", "score", "pairwise", "explain_tbleu", "get_metric", "metric_names", "BLEU", "BLEUSBP", "Stats", "MetricResult",
           "refs_from_streams", "MtscoreError", "InputError", "InvalidParameterError"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mtscore' has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
