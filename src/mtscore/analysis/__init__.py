"""The founding papers' diagnostics as tools: deletion stress test, subset (genre) paradox, length
analysis, sign-test consistency (see docs/audit.md)."""
from .deletion import DeletionReport, delete_segments, delete_words, deletion_test
from .length import LengthReport, length_analysis
from .subsets import SubsetReport, subset_paradox

__all__ = ["DeletionReport", "delete_segments", "delete_words", "deletion_test", "LengthReport",
           "length_analysis", "SubsetReport", "subset_paradox"]
