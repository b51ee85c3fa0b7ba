"""Rank systems from several metrics as WMT does (AutoRank, WMT24 and WMT25 rules) and say how sure the ranking is
(a paired bootstrap over documents). See docs/rank.md."""
from __future__ import annotations

from .core import MetricScores, RankInput, RankResult, Uncertainty, rank
from .rules import RULES, autorank, linear_ranks, robust_scale, to_rank_scale, wmt24, wmt25

__all__ = ["RULES", "autorank", "linear_ranks", "robust_scale", "to_rank_scale", "wmt24", "wmt25", "MetricScores",
           "RankInput", "RankResult", "Uncertainty", "rank"]
