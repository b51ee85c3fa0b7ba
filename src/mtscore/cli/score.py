"""``mtscore score``: one table of several systems x several metrics, with signatures.

Inputs are read in chunks (``--chunk-size`` lines) and only the statistics a result needs are kept
(their sums for corpus scores, per-segment rows for ``--sentence-level`` / ``--save-stats``), so memory
stays bounded for files larger than memory. ``--jobs N`` computes chunks in N processes;
``--backend dask`` runs the same code on a Dask cluster.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys

from ..backends.local import DEFAULT_CHUNK, CorpusJob, run_job, text_partitions, tsv_partitions
from ..errors import InputError, InvalidParameterError
from ..report import Table, render_table
from .main import write_stdout
from .options import add_format_option, add_input_options, add_metric_options, build_metrics, check_file_inputs
from .hints import warn_tokenizer
from .names import add_names_option, relabel
from .testsets import add_testset_options, apply_testset


def add_parser(sub) -> None:
    p = sub.add_parser("score", help="score systems against references",
                       description="Score one or more systems with one or more metrics.")
    add_input_options(p)
    add_metric_options(p)
    add_testset_options(p)
    add_names_option(p)
    p.add_argument("--sentence-level", action="store_true", help="print one score per segment")
    add_runs_option(p)
    add_scale_options(p)
    p.add_argument("--save-stats", metavar="DIR", help="also write per-segment statistics to DIR/NN-<metric label>.parquet "
                   "(re-score later with 'mtscore rescore DIR')")
    add_format_option(p)
    p.set_defaults(func=run)


def add_runs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", type=int, default=None, metavar="K",
                   help="K optimizer runs per system: the -i files are groups of K consecutive files, one group per "
                        "system (MultEval, Clark et al. 2011); scores are means over runs with their sd")


def add_scale_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("scale (see docs/scaling.md)")
    g.add_argument("--jobs", "-j", type=int, default=None,
                   help="worker processes for the local backend (default: 1 process; the compiled kernels use threads)")
    g.add_argument("--threads", type=int, default=None,
                   help="threads of the compiled kernels (default: the CPUs this process may use, at most 8; "
                        "overrides $MTSCORE_THREADS)")
    g.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK, help=f"lines per partition (default {DEFAULT_CHUNK})")
    g.add_argument("--backend", choices=("local", "dask"), default="local", help="where statistics are computed")
    g.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler (tcp://host:port); default: a LocalCluster")
    g.add_argument("--dask-workers", type=int, default=2, help="workers of the LocalCluster (default 2)")
    g.add_argument("--parquet", nargs="+", metavar="FILE", help="Parquet/Arrow shards (globs allowed) with text columns")
    g.add_argument("--hyp-columns", nargs="+", metavar="COL", help="with --parquet: hypothesis columns, one per system")
    g.add_argument("--ref-columns", nargs="+", metavar="COL", help="with --parquet: reference columns")


def _expand(pattern: str) -> list[str]:
    if pattern != "-" and not os.path.exists(pattern) and glob.has_magic(pattern):
        found = sorted(glob.glob(pattern))
        if not found:
            raise InputError("the pattern matches no file", pattern)
        return found
    return [pattern]


def plan_inputs(args):
    """Return (system names, local partitions iterable or None, dask shards)."""
    from ..backends.dask_backend import ParquetShard, TextShard
    if args.parquet:
        if args.refs or args.input or args.tsv:
            raise InvalidParameterError("--parquet: give either --parquet or -r/-i/--tsv, not several")
        if not args.hyp_columns or not args.ref_columns:
            raise InvalidParameterError("--parquet needs --hyp-columns and --ref-columns")
        files = [f for pat in args.parquet for f in _expand(pat)]
        shards = [ParquetShard(f, tuple(args.hyp_columns), tuple(args.ref_columns)) for f in files]
        return list(args.hyp_columns), (sh.load() for sh in shards), shards
    if args.tsv:
        if args.refs or args.input:
            raise InvalidParameterError("--tsv: give either --tsv or -r/-i, not both")
        parts = tsv_partitions(args.tsv, args.chunk_size, strip_bom=bool(getattr(args, "strip_bom", False)))
        return [args.tsv], parts, None
    check_file_inputs(args, True, "--tsv / --parquet")
    if len(set(args.input)) != len(args.input):
        raise InvalidParameterError("-i/--input: the same hypothesis file is given twice")
    hyp_sets = [_expand(p) for p in args.input]
    ref_sets = [_expand(p) for p in args.refs]
    counts = {len(s) for s in hyp_sets + ref_sets}
    if counts != {1}:
        if len(counts) > 1:
            detail = ", ".join(f"{p} matches {len(s)}" for p, s in zip(list(args.input) + list(args.refs), hyp_sets + ref_sets))
            raise InputError(f"sharded inputs need the same number of shards for every pattern: {detail}")
        shards = [TextShard(tuple(s[k] for s in hyp_sets), tuple(s[k] for s in ref_sets),
                            bool(getattr(args, "strip_bom", False))) for k in range(counts.pop())]
        return list(args.input), (sh.load() for sh in shards), shards
    parts = text_partitions([s[0] for s in hyp_sets], [s[0] for s in ref_sets], args.chunk_size,
                            strip_bom=bool(getattr(args, "strip_bom", False)))
    return list(args.input), parts, None


def compute(args, metrics, keep_segments: bool):
    """Statistics of every (system, metric), on the chosen backend; stored scores (``scores:``) are read
    for the named systems (metrics/scores.py)."""
    external = [m for m in metrics if getattr(m, "external", False)]
    if not external:
        return _compute_text(args, metrics, keep_segments)
    from ..backends.local import StatsResult
    from ..io import read_lines
    if args.parquet or args.tsv or not args.input:
        raise InvalidParameterError(f"{external[0].display_name}: stored scores are bound to named systems: give the "
                                    "system outputs with -i (one file per system)")
    text = [m for m in metrics if not getattr(m, "external", False)]
    labels = [m.display_name for m in metrics]
    dup = [x for x in labels if labels.count(x) > 1]
    if dup:
        raise InvalidParameterError(f"metrics: two metrics share the label {dup[0]!r}")
    if text:
        names, results = _compute_text(args, text, keep_segments)
    else:
        check_file_inputs(args, True, "--tsv / --parquet")
        names, results = list(args.input), {}
    for path, name in zip(args.input, names):  # names[i] is how mtscore shows the system of -i file i
        hyps = read_lines(path)
        for m in external:
            st = m.system_stats(name, hyps, aliases=(path,))
            results[(name, m.display_name)] = StatsResult(name, m, st.sum(), len(st), st.nrefs,
                                                          st.values if keep_segments else None)
    print_notes(external)
    return names, results


def print_notes(metrics) -> None:
    """What ``--missing skip`` did (and other notes of stored-score metrics), on stderr."""
    for m in metrics:
        for note in getattr(m, "notes", ()):
            sys.stderr.write(f"mtscore: note: {note}\n")


def _compute_text(args, metrics, keep_segments: bool):
    if args.chunk_size is not None and args.chunk_size < 1:
        raise InvalidParameterError(f"--chunk-size: must be >= 1, got {args.chunk_size}")
    whole = [m.name for m in metrics if not m.partitionable]
    if whole:
        args.chunk_size = sys.maxsize  # e.g. NIST: information weights come from all references at once
    names, parts, shards = plan_inputs(args)
    job = CorpusJob(metrics, names, keep_segments)
    if args.backend == "dask":
        from ..backends.dask_backend import MemoryShard, run_job_dask
        if whole and (shards is None or len(shards) > 1):
            if shards is not None:
                raise InvalidParameterError(
                    f"metric(s) {', '.join(whole)} need the whole corpus at once; use the local backend for them")
        if shards is None:
            shards = [MemoryShard(tuple(map(tuple, h)), tuple(map(tuple, r)), i) for i, (h, r) in enumerate(parts)]
        return names, run_job_dask(job, shards, scheduler=args.scheduler, n_workers=args.dask_workers)
    # one process by default: the compiled kernels split the segments between threads (issue 18); worker
    # processes only when asked (--jobs N), each then running its kernels single-threaded
    jobs = 1 if args.jobs is None else args.jobs
    if jobs < 1:
        raise InvalidParameterError(f"--jobs: must be >= 1, got {jobs}")
    threads = getattr(args, "threads", None)
    if threads is not None and (isinstance(threads, bool) or threads < 1):
        raise InvalidParameterError(f"--threads: must be >= 1, got {threads}")
    from ..text.fast import kernel_threads
    with kernel_threads(threads):
        return names, run_job(job, parts, jobs=1 if whole else jobs)


def results_table(names, metrics, results, sentence_level: bool = False, digits: int = 2, paths=None) -> Table:
    """``paths``: {name: input path}, kept beside each name in the JSON results."""
    labels = [m.display_name for m in metrics]
    if not sentence_level:
        rows, full, sigs = [], [], {}
        for name in names:
            res = [results[(name, m.display_name)].result() for m in metrics]
            rows.append([name] + [r.score for r in res])
            full.append({"system": name, **({"path": paths[name]} if paths and name in paths else {}),
                         "results": [r.as_dict() for r in res]})
            for r in res:
                sigs.setdefault(r.name, r.signature)
        notes = [f"{k}|{v}" for k, v in sigs.items()]
        return Table(["system"] + labels, rows, notes=notes, digits=digits, meta={"results": full})
    per = {name: [m.sentence_scores(results[(name, m.display_name)].stats()) for m in metrics] for name in names}
    multi = len(names) > 1
    cols = ["segment"] + ([f"{s}:{lab}" for s in names for lab in labels] if multi else labels)
    n = len(per[names[0]][0]) if names and metrics else 0
    rows = []
    for i in range(n):
        row = [i + 1]
        for name in names:
            row += [float(a[i]) for a in per[name]]
        rows.append(row)
    first = names[0]
    notes = [f"{m.display_name}|{m.sentence_signature(results[(first, m.display_name)].stats())}" for m in metrics]
    return Table(cols, rows, notes=notes, digits=digits)


def score_table(systems: dict, refs, metrics, sentence_level: bool = False, digits: int = 2) -> Table:
    """Score in-memory systems (used by ``demo`` and the API); same table as the CLI."""
    names = list(systems)
    job = CorpusJob(metrics, names, keep_segments=sentence_level)
    results = run_job(job, [([systems[n] for n in names], refs)], jobs=1)
    return results_table(names, metrics, results, sentence_level, digits)


def run(args: argparse.Namespace) -> int:
    text = apply_testset(args)
    if text is not None:
        write_stdout(text)
        return 0
    metrics = build_metrics(args)
    warn_tokenizer(args, metrics, args.refs, args.input)
    keep = bool(args.sentence_level or args.save_stats)
    names, results = compute(args, metrics, keep)
    paths = None
    if args.runs is None:
        names, results, paths = relabel(args, names, results)
    if args.save_stats:
        from ..backends.store import save_stats
        save_stats(results, args.save_stats)
    if args.runs is not None:
        from .runs import group_runs, runs_score_table
        if args.sentence_level:
            raise InvalidParameterError("--runs: not with --sentence-level (segment scores belong to single runs)")
        table = runs_score_table(group_runs(names, args.runs), metrics, results, args.width)
    else:
        table = results_table(names, metrics, results, args.sentence_level, args.width, paths=paths)
    write_stdout(render_table(table, args.format))
    return 0
