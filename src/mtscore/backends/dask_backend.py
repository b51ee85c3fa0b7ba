"""Dask backend (``pip install 'mtscore[dask]'``): the same partition code on a Dask cluster.

Each partition is one task: it reads its own shard (text files or a Parquet/Arrow file) on the worker,
computes per-segment statistics with the same metric code as the serial backend, and returns their
sum (and the rows when they are needed). The client adds the partition sums in partition order, so
results are identical to the serial backend over the same partitions. Tasks are retried
(``retries``) when a worker dies; a task that still fails raises :class:`MtscoreError` naming the shard.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..errors import InputError, MtscoreError, OptionalDependencyError
from .local import CorpusJob, partition_stats, reduce_partitions, _refcounts


def _require_dask():
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise OptionalDependencyError("the Dask backend", "distributed", "dask") from None
    return distributed


@dataclass(frozen=True)
class TextShard:
    """One partition as text files: one file per system and one per reference stream, same line count."""

    hyp_paths: tuple[str, ...]
    ref_paths: tuple[str, ...]
    strip_bom: bool = False  # a leading byte-order mark stays in segment 1 unless True (io/text.py)

    @property
    def name(self) -> str:
        return self.hyp_paths[0] if self.hyp_paths else self.ref_paths[0]

    def load(self):
        from ..io.text import count_detail, read_segments
        cols = [(p, read_segments(p, self.strip_bom)) for p in self.hyp_paths + self.ref_paths]
        if len({len(c) for _, c in cols}) > 1:
            raise InputError(f"shard files differ in line count: {count_detail((p, len(c)) for p, c in cols)}")
        k = len(self.hyp_paths)
        return [c for _, c in cols[:k]], [list(seg) for seg in zip(*(c for _, c in cols[k:]))]


@dataclass(frozen=True)
class ParquetShard:
    """One partition as a Parquet (or Arrow IPC ``.arrow``/``.feather``) file with text columns."""

    path: str
    hyp_columns: tuple[str, ...]
    ref_columns: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.path

    def load(self):
        try:
            import pyarrow.feather as feather
            import pyarrow.parquet as pq
        except ImportError:
            raise OptionalDependencyError("reading Parquet/Arrow shards", "pyarrow", "dask") from None
        try:
            if self.path.endswith((".arrow", ".feather", ".ipc")):
                table = feather.read_table(self.path)
            else:
                table = pq.read_table(self.path)
        except FileNotFoundError:
            raise InputError("no such file", self.path) from None
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(f"cannot read as Parquet/Arrow: {exc}", self.path) from None
        missing = [c for c in self.hyp_columns + self.ref_columns if c not in table.column_names]
        if missing:
            raise InputError(f"missing column(s) {', '.join(missing)}; the file has {', '.join(table.column_names)}",
                             self.path)
        cols = {}
        for c in self.hyp_columns + self.ref_columns:
            vals = table.column(c).to_pylist()
            for i, v in enumerate(vals):
                if v is not None and not isinstance(v, str):
                    raise InputError(f"column {c!r} row {i + 1}: expected text, got {type(v).__name__}", self.path)
            cols[c] = vals
        for c in self.hyp_columns:
            if any(v is None for v in cols[c]):
                i = cols[c].index(None)
                raise InputError(f"column {c!r} row {i + 1}: a hypothesis cannot be null (use an empty string)", self.path)
        hyps = [cols[c] for c in self.hyp_columns]
        refs = [[x for x in seg if x is not None] for seg in zip(*(cols[c] for c in self.ref_columns))]
        return hyps, refs


@dataclass(frozen=True)
class MemoryShard:
    """A partition shipped from the client (plain files read by the client)."""

    hyp_columns: tuple
    refs: tuple
    index: int

    @property
    def name(self) -> str:
        return f"chunk {self.index}"

    def load(self):
        return [list(c) for c in self.hyp_columns], [list(r) for r in self.refs]


def _compute_shard(shard, metrics, keep):
    from ..text.fast import kernel_threads

    hyps, refs = shard.load()
    with kernel_threads(1):  # a Dask worker runs one task per thread already
        return partition_stats(metrics, hyps, refs, keep), _refcounts(refs), len(refs)


def connect(scheduler: str | None = None, n_workers: int = 2):
    """A ``distributed.Client``: to ``scheduler`` (``tcp://host:port``) or a new LocalCluster."""
    distributed = _require_dask()
    if scheduler:
        try:
            return distributed.Client(scheduler, timeout="20s")
        except OSError as exc:
            raise MtscoreError(f"cannot connect to the Dask scheduler {scheduler}: {exc}") from None
    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    return distributed.Client(cluster)


def run_job_dask(job: CorpusJob, shards: Sequence, client=None, scheduler: str | None = None,
                 n_workers: int = 2, retries: int = 2):
    """Run ``job`` with one Dask task per shard; identical results to ``run_job`` over the same partitions."""
    own = client is None
    if own:
        client = connect(scheduler, n_workers)
    try:
        futures = [client.submit(_compute_shard, sh, list(job.metrics), job.keep_segments,
                                 pure=False, retries=retries, key=f"mtscore-shard-{i}")
                   for i, sh in enumerate(shards)]
        out = []
        for sh, fut in zip(shards, futures):
            try:
                out.append(fut.result())
            except MtscoreError:
                raise
            except Exception as exc:
                name = type(exc).__name__
                raise MtscoreError(f"Dask task for shard {sh.name} failed ({name}: {exc}); no score was computed") from None
        return reduce_partitions(job, out)
    finally:
        if own:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()
