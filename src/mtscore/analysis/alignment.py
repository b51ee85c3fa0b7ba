"""Per-segment word alignments (moved to :mod:`mtscore.metrics.alignment`, because the jiwer measures, a
metric, use them and metrics/ must not import analysis/ — docs/architecture.md): re-exported here for the analyses."""
from ..metrics.alignment import (DEL, HIT, INS, SUB, AlignmentSummary, SegmentAlignment, align,  # noqa: F401
                                 align_corpus)
