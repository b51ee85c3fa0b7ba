"""Meta-evaluation: how well metrics agree with human judgments (docs/definitions.md §9). See docs/meta.md."""
from .stats import (PairCounts, TieCalibration, kendall, pair_counts, pairwise_accuracy, pearson, spearman,
                    tie_calibration)
from .compare import bootstrap_test, permutation_test, williams_test

__all__ = ["PairCounts", "TieCalibration", "kendall", "pair_counts", "pairwise_accuracy", "pearson", "spearman",
           "tie_calibration", "williams_test", "permutation_test", "bootstrap_test"]
