"""ROSE models (versioned JSON) and training (scikit-learn, extra ``train``). Features: ``metrics.rose_features``."""
from .model import BUILTIN_MODELS, RoseModel, load_model

__all__ = ["RoseModel", "load_model", "BUILTIN_MODELS"]
