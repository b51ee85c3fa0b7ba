"""Serial and multi-process computation of statistics over chunked inputs."""
from __future__ import annotations

import itertools
import os
import queue
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from .._testhooks import fault_point
from ..errors import InvalidParameterError, MtscoreError
from ..metrics.base import Metric, RefRows, Stats, normalize_corpus
from ..progress import progress

DEFAULT_CHUNK = 20_000
_GROUP_VALUES = 1 << 22  # statistics values per call of a metric's several-systems path (partition_stats)


@dataclass
class StatsResult:
    """Statistics of one (system, metric): their sum, the segment count, and (optionally) all rows.

    Results are keyed by ``(system, metric.display_name)``: the label distinguishes two configurations
    of one metric (``BLEU`` and ``BLEU[ref_length=shortest]``)."""

    system: str
    metric: Metric
    summed: np.ndarray
    n_segments: int
    nrefs: int | str
    rows: np.ndarray | None = None  # per-segment statistics when they were kept

    def stats(self) -> Stats:
        if self.rows is None:
            raise InvalidParameterError("per-segment statistics were not kept (keep_segments=False)")
        return Stats(self.metric.name, tuple(self.metric.columns), self.rows, self.nrefs,
                     self.metric.signature(self.nrefs))

    def result(self):
        return self.metric.result(self.summed, self.nrefs)


@dataclass
class CorpusJob:
    """Metrics x systems over partitions of aligned text."""

    metrics: Sequence[Metric]
    systems: Sequence[str]
    keep_segments: bool = False


class TextPartition(tuple):
    """``(hypothesis columns, sentence-major references)`` as :func:`text_partitions` and :func:`tsv_partitions`
    build them from text files: every entry a ``str``, every column a list as long as the references, every
    segment ``nrefs`` references (a list, or a row of a :class:`RefRows`). Consumers unpack it as a plain pair;
    :func:`run_job` skips the checks and conversions of :func:`normalize_corpus` (a pass over every segment
    per partition) for it, and knows its reference count without counting."""

    nrefs: int
    read_ahead: bool  # every input is a regular file: a reader thread may read ahead (never blocks for good)

    def __new__(cls, hyp_columns: list[list[str]], refs: list[list[str]], nrefs: int, read_ahead: bool = True):
        self = super().__new__(cls, (hyp_columns, refs))
        self.nrefs = nrefs
        self.read_ahead = read_ahead
        return self

    def __getnewargs__(self):
        return self[0], self[1], self.nrefs, self.read_ahead


class SidePartition(tuple):
    """A partition ``(hypothesis columns, references)`` with ``side``: per-segment text a metric reads beside
    them, ``{file: this partition's lines of it}`` (the ``sources=`` file of a neural metric), so the lines travel
    with the partition (to a worker process or a Dask worker) and no worker reads the file."""

    side: dict

    def __new__(cls, part, side: dict):
        self = super().__new__(cls, (part[0], part[1]))
        self.side = side
        return self

    def __getnewargs__(self):
        return (self[0], self[1]), self.side


def bind_side(metrics: Sequence[Metric], side: dict | None) -> list[Metric]:
    """The metrics as one partition runs them: a metric that takes its sources from the partition
    (``carries_sources``) gets that partition's lines of its ``sources=`` file."""
    if not side:
        return list(metrics)
    return [m.with_sources(side[m.sources_path]) if getattr(m, "carries_sources", False) and m.sources_path in side
            else m for m in metrics]


def _regular_files(paths: Sequence[str]) -> bool:
    """All ``paths`` are regular files (not ``-``, a FIFO, a terminal ...). A reader thread blocked on standard
    input or a pipe when the run ends (Ctrl-C) would abort CPython's shutdown ("could not acquire lock for
    <stdin> at interpreter shutdown"), so such inputs are read in the main thread, as before."""
    import stat
    for p in paths:
        if p == "-":
            return False
        try:
            if not stat.S_ISREG(os.stat(p).st_mode):
                return False
        except OSError:
            return False  # the reader reports it
    return True


def partition_stats(metrics: Sequence[Metric], hyp_columns: Sequence[Sequence[str]], refs: Sequence[Sequence[str]],
                    keep_segments: bool, checked: bool = False,
                    side: dict | None = None) -> list[list[tuple[np.ndarray, np.ndarray | None]]]:
    """Statistics of one partition: ``out[system][metric] = (sum, rows or None)``.

    This is the unit of work every backend runs (in-process, in a worker process, on a Dask worker).
    ``checked``: the text is already in the normal form of :func:`normalize_corpus` (a :class:`TextPartition`:
    lists of ``str``, sentence-major lists of references), so it is not checked again. ``side``: the
    partition's lines of the files metrics read beside the text (:class:`SidePartition`)."""
    import numpy as np  # here, not at import: a small BLEU run never loads NumPy (runner.py)
    metrics = bind_side(metrics, side)
    texts = [(hyps, refs) if checked else normalize_corpus(hyps, refs) for hyps in hyp_columns]
    several = {}  # metric index -> (sum, rows or None) of every system, computed together (chrF: references once)
    if len(texts) > 1:
        for j, m in enumerate(metrics):
            together = getattr(m, "_stats_systems", None)
            if together is None:
                continue
            group = max(2, _GROUP_VALUES // max(1, len(texts[0][0]) * len(m.columns)))  # systems per call
            got = []
            for a in range(0, len(texts), group):
                part = together([h for h, _ in texts[a:a + group]], texts[0][1])
                if part is None:
                    break
                got += [(v.sum(axis=0), v if keep_segments else None) for v in part]
            else:
                several[j] = got
    out = []
    for i, (h, r) in enumerate(texts):
        per_metric = []
        for j, m in enumerate(metrics):
            vals = None
            if j in several:
                per_metric.append(several[j][i])
                continue
            if type(r) is RefRows:
                by_columns = getattr(m, "_stats_columns", None)  # statistics straight from the columns (BLEU)
                if by_columns is not None:
                    vals = by_columns(h, r.columns)
                if vals is None:
                    vals = m._stats(h, r.rows())
            else:
                vals = m._stats(h, r)
            vals = np.asarray(vals, dtype=np.float64)
            per_metric.append((vals.sum(axis=0), vals if keep_segments else None))
        out.append(per_metric)
    return out


def _refcounts(refs) -> set[int]:
    if type(refs) is RefRows:
        return {len(refs.columns)} if len(refs) else set()
    if type(refs) is list and set(map(type, refs)) == {list} and \
            set(map(type, itertools.chain.from_iterable(refs))) == {str}:
        return set(map(len, refs))  # the common case (no missing reference), at C speed
    return {len([x for x in seg if x is not None]) if not isinstance(seg, str) else 1 for seg in refs}


def _task(args):
    metrics, hyp_cols, refs, keep, nrefs, side = args
    if nrefs is not None:  # a TextPartition: checked text, nrefs references per segment
        return (partition_stats(metrics, hyp_cols, refs, keep, checked=True, side=side), ({nrefs} if refs else set()),
                len(refs))
    return partition_stats(metrics, hyp_cols, refs, keep, side=side), _refcounts(refs), len(refs)


def _worker_init(kernels: str | None = None) -> None:
    """Worker processes run the compiled kernels single-threaded: the pool already uses the cores; they use
    the parent's explicit kernel choice (``--kernels``), if any.

    They ignore SIGINT: Ctrl-C reaches the whole process group, and the parent alone decides (it stops
    the pool and prints one line), so workers print no tracebacks."""
    import signal
    os.environ["MTSCORE_THREADS"] = "1"
    if kernels is not None:
        os.environ["MTSCORE_KERNELS"] = kernels  # the worker's process-wide default: the parent's --kernels
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ordered_map(fn: Callable, items: Iterable, jobs: int) -> Iterator:
    """``map(fn, items)`` in order; with ``jobs > 1`` in worker processes with bounded look-ahead
    (at most ``2 * jobs`` partitions in flight, so memory stays bounded)."""
    if jobs <= 1:
        for it in items:
            yield fn(it)
        return
    # forkserver (spawn where it is missing): backends/_workers.py. Workers start inside pool.submit; a signal
    # that arrives there is held until the pool knows the new process (signals_held), so that stopping the
    # pool stops every worker, and none is left starting after the parent is gone.
    from concurrent.futures import ProcessPoolExecutor  # here, not at import: ~7 ms of every run without workers
    from ..text.fast import current_kernel_choice
    from ._workers import context, signals_held
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context(), initializer=_worker_init,
                               initargs=(current_kernel_choice(),))
    ok = False
    try:
        pending = []
        k = 0
        for it in items:
            with signals_held():
                fut = pool.submit(fn, it)
            pending.append((k, fut))
            k += 1
            if len(pending) >= 2 * jobs:
                yield _result(*pending.pop(0))
        for i, fut in pending:
            yield _result(i, fut)
        ok = True
    finally:
        if ok:
            pool.shutdown(wait=True)
        else:  # an error, Ctrl-C, SIGTERM, or the consumer stopped: stop the workers now, do not wait for them
            _stop_pool(pool)


def _result(i: int, fut):
    from concurrent.futures.process import BrokenProcessPool
    try:
        return fut.result()
    except (MtscoreError, MemoryError):
        raise
    except BrokenProcessPool:
        raise MtscoreError(f"a worker process died while computing partition {i + 1} (killed, or out of "
                           "memory?); no score was computed") from None
    except Exception as exc:
        msg = " ".join(str(exc).split())[:300]
        raise MtscoreError(f"the worker computing partition {i + 1} failed ({type(exc).__name__}: {msg}); "
                           "no score was computed") from None


def _stop_pool(pool) -> None:
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.terminate()
        except Exception:  # pragma: no cover - already gone
            pass
    for p in procs:
        try:
            p.join(5)
        except Exception:  # pragma: no cover
            pass


def reduce_partitions(job: CorpusJob, parts: Iterable) -> dict[tuple[str, str], StatsResult]:
    """Add partition results (in the order given) into one :class:`StatsResult` per (system, metric).

    A partition's sums may be any sequence of numbers when it is the only one (mtscore.runner's small-input
    path passes Python floats): then NumPy is not needed here."""
    metrics = list(job.metrics)
    labels = [m.display_name for m in metrics]
    if len(set(labels)) != len(labels):
        raise InvalidParameterError(f"metrics: two metrics share the label {[x for x in labels if labels.count(x) > 1][0]!r}")
    sums: list[list] = [[None] * len(metrics) for _ in job.systems]  # None until a partition is added
    rows: dict[tuple[int, int], list[np.ndarray]] = {}
    counts: set[int] = set()
    n_total = 0
    with progress("statistics", unit="seg") as bar:
        for part, part_counts, n in parts:
            counts |= part_counts
            n_total += n
            bar.update(n)
            _add_partition(part, sums, rows)
            fault_point("partition")
    nrefs: int | str = counts.pop() if len(counts) == 1 else ("var" if counts else 1)
    results: dict[tuple[str, str], StatsResult] = {}
    for si, name in enumerate(job.systems):
        for mi, m in enumerate(metrics):
            kept, summed = None, sums[si][mi]
            if job.keep_segments or summed is None:
                import numpy as np
                if summed is None:  # no partition (an empty input)
                    summed = np.zeros(len(m.columns))
                if job.keep_segments:
                    got = rows.get((si, mi), [])
                    kept = np.concatenate(got) if got else np.zeros((0, len(m.columns)))
            results[(name, m.display_name)] = StatsResult(name, m, summed, n_total, nrefs, kept)
    return results


def _add_partition(part, sums, rows) -> None:
    for si, per in enumerate(part):
        for mi, (s, r) in enumerate(per):
            prev = sums[si][mi]  # NumPy's sums start at 0.0 (never -0.0): the first one needs no 0.0 + s
            sums[si][mi] = s if prev is None else prev + s
            if r is not None:
                rows.setdefault((si, mi), []).append(r)


def run_job(job: CorpusJob, partitions: Iterable[tuple[Sequence[Sequence[str]], Sequence[Sequence[str]]]],
            jobs: int = 1) -> dict[tuple[str, str], StatsResult]:
    """Run ``job`` over ``partitions`` = iterable of (hyp columns per system, sentence-major refs),
    serially (``jobs=1``) or in ``jobs`` worker processes; identical results either way."""
    from ..params import OPTIONS, check
    jobs = check(OPTIONS, "jobs", jobs, "jobs")  # the --jobs rule of the parameter table (1..1024)
    if jobs is None:
        jobs = 1
    metrics = list(job.metrics)
    ahead = None
    if not isinstance(partitions, (list, tuple)):
        rest = iter(partitions)
        first = next(rest, None)
        if type(first) is TextPartition and first.read_ahead:
            # chunks streamed from text files: a thread reads, decodes and splits partition k + 1 (Python, holding
            # the GIL) while the compiled kernels compute partition k (they release it). Other partitions (shards
            # loaded whole, Parquet) are loaded one at a time, as they always were (memory: one shard).
            ahead = Prefetch(rest, PREFETCH)
            rest = ahead
        partitions = itertools.chain([] if first is None else [first], rest)
        del first  # not held here for the whole run
    tasks = ((metrics, list(p[0]), list(p[1]), job.keep_segments, None, getattr(p, "side", None))
             if type(p) is not TextPartition
             else (metrics, p[0], p[1], job.keep_segments, p.nrefs, getattr(p, "side", None)) for p in partitions)
    try:
        return _run_tasks(job, tasks, jobs)
    finally:
        if ahead is not None:
            ahead.close()


def _run_tasks(job: CorpusJob, tasks: Iterator, jobs: int) -> dict[tuple[str, str], StatsResult]:
    if jobs > 1:
        # A single partition gains nothing from worker processes: look ahead before starting a pool.
        first = list(itertools.islice(tasks, 2))
        if len(first) < 2:
            jobs = 1
        tasks = itertools.chain(first, tasks)
    return reduce_partitions(job, ordered_map(_task, tasks, jobs))


def text_partitions(hyp_paths: Sequence[str], ref_paths: Sequence[str], chunk_size: int = DEFAULT_CHUNK,
                    strip_bom: bool = False):
    """Partitions of ``chunk_size`` aligned lines from hypothesis files and reference-stream files."""
    from ..io.stream import iter_parallel_chunks
    k = len(hyp_paths)
    ahead = _regular_files(list(hyp_paths) + list(ref_paths))
    for chunk in iter_parallel_chunks(list(hyp_paths) + list(ref_paths), chunk_size, strip_bom):
        if not ref_paths:  # no reference: normalize_corpus reports it, as for any input
            yield chunk.columns[:k], []
            continue
        yield TextPartition(chunk.columns[:k], RefRows(chunk.columns[k:]), len(ref_paths), ahead)


def tsv_partitions(path: str, chunk_size: int = DEFAULT_CHUNK, strip_bom: bool = False):
    """Partitions from a TSV file ``HYP<TAB>REF1[<TAB>REF2...]`` (every line the same field count)."""
    from ..io.stream import iter_parallel_chunks
    from ..io.text import check_tsv_rows
    width = None
    ahead = _regular_files([path])
    for chunk in iter_parallel_chunks([path], chunk_size, strip_bom):
        rows = [ln.split("\t") for ln in chunk.columns[0]]
        width = check_tsv_rows(rows, path, chunk.start, width)
        yield TextPartition([[r[0] for r in rows]], [r[1:] for r in rows], width - 1, ahead)


PREFETCH = 1  # partitions read ahead of the one being computed (memory: each is chunk_size lines of every file)


class Prefetch:
    """Iterate ``items`` (a generator that reads input) in a background thread, at most ``depth`` items ahead:
    the reader starts item k + 1 only once the consumer has taken item k + 1 - depth.

    Errors of the reader (an :class:`InputError`, an ``OSError`` ...) are raised by ``__next__`` in the consuming
    thread, in order: after the items read before them. :meth:`close` stops the reader (within ``POLL`` seconds
    of its current read) and the generator is closed in the reader thread, so its ``finally`` blocks (open
    files) run there; signals reach the main thread as always (Ctrl-C interrupts a consumer waiting here)."""

    POLL = 0.05

    def __init__(self, items: Iterable, depth: int = PREFETCH):
        self._items = items
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._credit = threading.Semaphore(max(1, depth))
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._read, name="mtscore-reader", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        it = iter(self._items)
        try:
            while True:
                while not self._credit.acquire(timeout=self.POLL):
                    if self._stop.is_set():
                        return
                if self._stop.is_set():
                    return
                try:
                    item = next(it)
                except StopIteration:
                    self._queue.put((1, None))
                    return
                self._queue.put((0, item))
                item = None
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            self._queue.put((2, exc))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                try:
                    close()
                except BaseException:  # noqa: BLE001 - the consumer stopped; nothing to report to
                    pass
            it = self._items = None

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        kind, value = self._queue.get()
        if kind == 0:
            self._credit.release()
            return value
        self._done = True
        self._thread.join()
        if kind == 1:
            raise StopIteration
        try:
            raise value
        finally:
            value = None

    def close(self) -> None:
        """Stop reading (idempotent); what was read ahead is dropped."""
        self._done = True
        self._stop.set()
        self._thread.join(0.5)  # a reader blocked on a slow input (a FIFO) is left behind (a daemon thread)
        while not self._queue.empty():
            self._queue.get_nowait()


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
