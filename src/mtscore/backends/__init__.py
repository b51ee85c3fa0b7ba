"""Where statistics are computed: serial (the reference), local processes, or a Dask cluster.

All backends split the corpus into the same partitions (chunks of ``chunk_size`` lines, or the given
shards), compute per-segment statistics of each partition with the same metric code, sum each
partition, and add the partition sums in partition order, so they give identical results.
"""
from .local import CorpusJob, StatsResult, run_job

__all__ = ["CorpusJob", "StatsResult", "run_job"]
