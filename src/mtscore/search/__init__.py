"""Search with decomposable metrics (Chiang et al. 2008, §4.3): n-best oracles, MBR, reranking, lattice oracles.

See docs/search.md.
"""
from .nbest import NBestList, read_jsonl_nbest, read_moses_nbest, read_nbest
from .oracle import CandidateStats, Pool, Selection, corpus_oracle, one_best, segment_oracle
from .mbr import PairwiseUtility, expected_utilities, mbr_select, posteriors
from .pairwise import pairwise

__all__ = ["NBestList", "read_nbest", "read_moses_nbest", "read_jsonl_nbest", "Pool", "Selection",
           "CandidateStats", "one_best", "segment_oracle", "corpus_oracle", "PairwiseUtility",
           "expected_utilities", "mbr_select", "posteriors", "pairwise"]
