"""ROSE model files (moved to :mod:`mtscore.metrics.rose_model`, so that the metric does not import
the trainer package): this module re-exports them for existing imports."""
from ..metrics.rose_model import (BUILTIN_MODELS, DATA_DIR, FORMAT, FORMAT_VERSION, KERNELS, OBJECTIVES,  # noqa: F401
                                  RoseModel, kernel_matrix, load_model)
