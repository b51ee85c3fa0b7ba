"""Statistics of several systems x metrics on a chosen backend: the one compute step that ``score``,
``compare`` and ``demo`` share (docs/architecture.md: a library stage below cli/, above backends/).

:func:`compute` takes plain values (file paths, backend name, job count), never an argparse
namespace; :class:`Inputs` names the inputs. The result maps ``(system, metric display name)`` to a
backend result with ``result()`` (corpus :class:`~mtscore.metrics.base.MetricResult`) and
``stats()`` (per-segment :class:`~mtscore.metrics.base.Stats`, when ``keep_segments``).

Small inputs (:data:`SMALL_MAX_SEGMENTS`) of metrics that sum their statistics without NumPy (BLEU:
:meth:`~mtscore.metrics.bleu.BLEU.corpus_sums`) are scored without importing NumPy, whose import alone costs
more than scoring a few thousand segments (see :func:`_small_job`); the results are the same.
"""
from __future__ import annotations

import glob
import itertools
import os
import sys
from dataclasses import dataclass
from typing import Mapping, Sequence

from .backends.local import (DEFAULT_CHUNK, CorpusJob, TextPartition, reduce_partitions, run_job, text_partitions,
                             tsv_partitions)
from . import params as P
from .errors import InputError, InvalidParameterError
from .metrics.base import Metric, RefRows

# Inputs of at most this many segments, read as one partition, take the NumPy-free path when every metric
# supports it (:func:`_small_job`). Measured (benchmarks/RESULTS.md, "10-line file", whole-process instruction
# counts): that path costs ~250 M instructions less than the NumPy one at 10 segments and ~215 M less at 20,000
# (its Python column sums add ~2 M per 1,000 segments), so it is the cheaper one up to a whole default partition.
SMALL_MAX_SEGMENTS = 20_000

BACKENDS = ("local", "dask")


@dataclass(frozen=True)
class Inputs:
    """Where the text is: reference and hypothesis files (globs of shards allowed), a TSV file,
    or Parquet/Arrow shards with text columns."""

    refs: Sequence[str] = ()
    input: Sequence[str] = ()
    tsv: str | None = None
    parquet: Sequence[str] | None = None
    hyp_columns: Sequence[str] | None = None
    ref_columns: Sequence[str] | None = None
    strip_bom: bool = False  # drop a UTF-8 byte-order mark at the start of each text file


def expand(pattern: str) -> list[str]:
    if pattern != "-" and not os.path.exists(pattern) and glob.has_magic(pattern):
        found = sorted(glob.glob(pattern))
        if not found:
            raise InputError("the pattern matches no file", pattern)
        return found
    return [pattern]


def plan_inputs(inp: Inputs, chunk_size: int = DEFAULT_CHUNK):
    """Return (system names, local partitions iterable, dask shards or None)."""
    if inp.parquet:
        from .backends.dask_backend import ParquetShard
        if inp.refs or inp.input or inp.tsv:
            raise InvalidParameterError("--parquet: give either --parquet or -r/-i/--tsv, not several")
        if not inp.hyp_columns or not inp.ref_columns:
            raise InvalidParameterError("--parquet needs --hyp-columns and --ref-columns")
        files = [f for pat in inp.parquet for f in expand(pat)]
        shards = [ParquetShard(f, tuple(inp.hyp_columns), tuple(inp.ref_columns)) for f in files]
        return list(inp.hyp_columns), (sh.load() for sh in shards), shards
    if inp.tsv:
        if inp.refs or inp.input:
            raise InvalidParameterError("--tsv: give either --tsv or -r/-i, not both")
        return [inp.tsv], tsv_partitions(inp.tsv, chunk_size, strip_bom=inp.strip_bom), None
    if len(set(inp.input)) != len(inp.input):
        raise InvalidParameterError("-i/--input: the same hypothesis file is given twice")
    hyp_sets = [expand(p) for p in inp.input]
    ref_sets = [expand(p) for p in inp.refs]
    counts = {len(s) for s in hyp_sets + ref_sets}
    if counts != {1}:
        if len(counts) > 1:
            detail = ", ".join(f"{p} matches {len(s)}"
                               for p, s in zip(list(inp.input) + list(inp.refs), hyp_sets + ref_sets))
            raise InputError(f"sharded inputs need the same number of shards for every pattern: {detail}")
        from .backends.dask_backend import TextShard
        shards = [TextShard(tuple(s[k] for s in hyp_sets), tuple(s[k] for s in ref_sets), inp.strip_bom)
                  for k in range(counts.pop())]
        return list(inp.input), (sh.load() for sh in shards), shards
    parts = text_partitions([s[0] for s in hyp_sets], [s[0] for s in ref_sets], chunk_size, strip_bom=inp.strip_bom)
    return list(inp.input), parts, None


def compute(inputs: Inputs, metrics: Sequence[Metric], keep_segments: bool = False, *, backend: str = "local",
            jobs: int | None = None, chunk_size: int | None = DEFAULT_CHUNK, scheduler: str | None = None,
            dask_workers: int = 2, threads: int | None = None, observe=None):
    """Statistics of every (system, metric) on ``backend``: returns (system names, results).

    ``observe(hyp_columns, refs)``, when given, sees each partition of text that this process reads, as it is
    read (the CLI's tokenizer hints; inputs are never opened twice).

    Local backend: one process by default (the compiled kernels split the segments between
    ``threads`` threads); ``jobs=N`` worker processes only when asked.

    Stored scores (``scores:`` metrics, metrics/scores.py) are read for the named systems (the -i
    files); the other metrics run on the backend."""
    external = [m for m in metrics if getattr(m, "external", False)]
    if not external:
        return _compute_text(inputs, metrics, keep_segments, backend, jobs, chunk_size, scheduler, dask_workers, threads,
                             observe)
    from .backends.local import StatsResult
    from .io import read_segments
    if inputs.parquet or inputs.tsv or not inputs.input:
        raise InvalidParameterError(f"{external[0].display_name}: stored scores are bound to named systems: give the "
                                    "system outputs with -i (one file per system)")
    text = [m for m in metrics if not getattr(m, "external", False)]
    labels = [m.display_name for m in metrics]
    dup = [x for x in labels if labels.count(x) > 1]
    if dup:
        raise InvalidParameterError(f"metrics: two metrics share the label {dup[0]!r}")
    seen: list[list[str]] = [[] for _ in inputs.input]  # the hypotheses as the text metrics read them
    read = [False]

    def keep(hyp_cols, refs):
        read[0] = True
        for col, got in zip(hyp_cols, seen):
            got.extend(col)
        if observe is not None:
            observe(hyp_cols, refs)

    if text:
        names, results = _compute_text(inputs, text, keep_segments, backend, jobs, chunk_size, scheduler, dask_workers, threads,
                                       keep)
    else:
        names, results = list(inputs.input), {}
    if not read[0]:  # only stored scores: the hypotheses are read here, once
        # read as the text metrics read them (a byte-order mark kept unless --strip-bom), so stored scores alone
        # and stored scores beside another metric see the same hypotheses
        seen = [read_segments(path, inputs.strip_bom) for path in inputs.input]
        if observe is not None:
            observe(seen, [])
    # never read an input twice (a FIFO or standard input has no second time): reuse what the text metrics read
    for hyps, path, name in zip(seen, inputs.input, names):  # names[i] is how mtscore shows the system of -i file i
        for m in external:
            st = m.system_stats(name, hyps, aliases=(path,))
            results[(name, m.display_name)] = StatsResult(name, m, st.sum(), len(st), st.nrefs,
                                                          st.values if keep_segments else None)
    return names, results


def _observed(parts, observe):
    observe([], [])  # reading has begun in this process (an empty input yields no partition)
    for part in parts:
        observe(*part)
        yield part


def _compute_text(inputs, metrics, keep_segments, backend, jobs, chunk_size, scheduler, dask_workers, threads,
                  observe=None):
    if backend not in BACKENDS:
        raise InvalidParameterError.choice("backend", backend, BACKENDS)
    if chunk_size is None:
        chunk_size = DEFAULT_CHUNK
    chunk_size = P.check(P.OPTIONS, "chunk_size", chunk_size, "--chunk-size")
    # neural metrics read a sources= file aligned with the whole input: each partition carries its lines of it
    carried = [m for m in metrics if getattr(m, "carries_sources", False) and m.sources_path]
    whole = [m.name for m in metrics if not m.partitionable and not getattr(m, "carries_sources", False)]
    if whole:
        chunk_size = sys.maxsize  # e.g. NIST: information weights come from all references at once
    names, parts, shards = plan_inputs(inputs, chunk_size)
    if observe is not None:
        parts = _observed(parts, observe)
    if carried:
        if backend == "dask" and shards is not None:
            raise InvalidParameterError(
                f"{carried[0].name}: sources= is one file aligned with the whole input; on the Dask backend give "
                "one text file per system and reference (not shard patterns or --parquet), or use the local backend")
        parts = _carry_sources(parts, carried)
    job = CorpusJob(metrics, names, keep_segments)
    if backend == "dask":
        from .backends.dask_backend import MemoryShard, run_job_dask
        if whole and shards is not None and len(shards) > 1:
            raise InvalidParameterError(
                f"metric(s) {', '.join(whole)} need the whole corpus at once; use the local backend for them")
        if shards is None:
            shards = [MemoryShard(tuple(map(tuple, p[0])), tuple(map(tuple, p[1])), i, getattr(p, "side", None))
                      for i, p in enumerate(parts)]
        return names, run_job_dask(job, shards, scheduler=scheduler, n_workers=dask_workers)
    jobs = 1 if jobs is None else P.check(P.OPTIONS, "jobs", jobs, "--jobs")
    threads = P.check(P.OPTIONS, "threads", threads, "--threads")
    from .text.fast import kernel_threads
    with kernel_threads(threads):
        results, parts = _small_job(job, parts, chunk_size)
        if results is not None:
            return names, results
        # a neural metric runs on torch's own threads, its model loaded once: in this process
        neural = any(getattr(m, "carries_sources", False) for m in metrics)
        return names, run_job(job, parts, jobs=1 if whole or neural else jobs)


def _carry_sources(parts, metrics):
    """The partitions with their lines of each metric's ``sources=`` file (read here, once) attached as
    ``side`` (:class:`~mtscore.backends.local.SidePartition`): the metric of a partition (in this process, a
    worker process or on a Dask worker) takes its sources from there. The line counts are checked here."""
    from .backends.local import SidePartition
    from .errors import plural
    from .io import read_lines
    files: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    for m in metrics:
        if m.sources_path not in files:
            files[m.sources_path] = read_lines(m.sources_path)
            owner[m.sources_path] = m.name
    off = 0
    for part in parts:
        n = len(part[0][0]) if part[0] else len(part[1])
        for path, lines in files.items():
            if off + n > len(lines):
                raise InputError(f"{owner[path]}: {plural(len(lines), 'source segment')} for more hypotheses "
                                 f"(at least {off + n})", path)
        side = {path: lines[off:off + n] for path, lines in files.items()}
        off += n
        if type(part) is TextPartition:
            part.side = side
            yield part
        else:
            yield SidePartition(part, side)
    for path, lines in files.items():
        if off != len(lines):
            raise InputError(f"{owner[path]}: {plural(len(lines), 'source segment')} for "
                             f"{plural(off, 'hypothesis', 'hypotheses')}", path)


def _small_job(job: CorpusJob, parts, chunk_size: int):
    """The corpus results of a small input without NumPy, or ``(None, parts)`` for the usual path.

    Applies when no per-segment statistics are kept, every metric has ``corpus_sums`` (BLEU), and the input
    is text read as one partition (a :class:`~mtscore.backends.local.TextPartition` shorter than
    ``chunk_size``: the reader's last) of at most :data:`SMALL_MAX_SEGMENTS` segments; the metrics' sums go
    through the same :func:`~mtscore.backends.local.reduce_partitions` (progress, reference counts) as the
    partitions of the usual path. Otherwise, or where a metric's ``corpus_sums`` returns ``None``, the
    partition read is handed back in front of the rest, so nothing is read twice (and nothing is read ahead
    of the usual path's own read-ahead)."""
    if job.keep_segments or not all(callable(getattr(m, "corpus_sums", None)) for m in job.metrics):
        return None, parts
    parts = iter(parts)
    first = next(parts, None)
    if first is None:
        return None, iter(())
    n = len(first[1])
    if type(first) is not TextPartition or n >= chunk_size or n > SMALL_MAX_SEGMENTS:
        return None, itertools.chain([first], parts)
    hyp_cols, refs = first  # checked text (TextPartition): lists of str, first.nrefs references per segment
    if type(refs) is RefRows:
        refs = refs.rows()  # sentence-major lists (corpus_sums takes the references as the metrics' _stats do)
    out = []
    for hyps in hyp_cols:
        per_metric = []
        for m in job.metrics:
            sums = m.corpus_sums(hyps, refs)
            if sums is None:
                return None, itertools.chain([first], parts)  # (parts is empty here: first was the last)
            per_metric.append((sums, None))
        out.append(per_metric)
    return reduce_partitions(job, [(out, {first.nrefs} if n else set(), n)]), None


def compute_texts(systems: Mapping[str, Sequence[str]], refs, metrics: Sequence[Metric], keep_segments: bool = False):
    """The same results for in-memory systems ``{name: hyps}`` and sentence-major ``refs`` (one process)."""
    names = list(systems)
    job = CorpusJob(metrics, names, keep_segments=keep_segments)
    return names, run_job(job, [([systems[n] for n in names], refs)], jobs=1)


def corpus_results(names: Sequence[str], metrics: Sequence[Metric], results) -> dict:
    """``{system: [corpus MetricResult per metric]}`` from the backend results."""
    return {name: [results[(name, m.display_name)].result() for m in metrics] for name in names}


def segment_scores(names: Sequence[str], metrics: Sequence[Metric], results) -> tuple[dict, list[str]]:
    """Per-segment scores ``{system: [array per metric]}`` and the metrics' sentence signatures."""
    import numpy as np
    per = {name: [np.asarray(m.sentence_scores(results[(name, m.display_name)].stats()), dtype=np.float64)
                  for m in metrics] for name in names}
    first = names[0]
    sigs = [f"{m.signature_name}|{m.sentence_signature(results[(first, m.display_name)].stats())}" for m in metrics]
    return per, sigs
