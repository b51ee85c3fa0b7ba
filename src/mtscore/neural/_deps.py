"""Lazy imports of the ``neural`` extra: a missing package is a one-line install hint."""
from __future__ import annotations

import importlib
import os

from ..errors import OptionalDependencyError


def need(module: str, package: str | None = None, feature: str = "the neural metrics"):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise OptionalDependencyError(feature, package or module, "neural") from None


def torch():
    return need("torch")


def transformers():
    # never look anything up online, whatever the caller's environment says
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    need("sentencepiece")
    return need("transformers")
