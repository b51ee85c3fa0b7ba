"""Options of the commands that compute statistics on a backend (``score``, ``compare``): ``--jobs``,
``--chunk-size``, ``--backend``, ``--scheduler``, Parquet inputs; and the call into
:func:`mtscore.runner.compute` with the values given on the command line."""
from __future__ import annotations

import argparse
import sys

from .. import runner
from ..backends.local import DEFAULT_CHUNK
from ..params import add_option
from ..runner import Inputs
from .options import check_file_inputs


def add_runs_option(p: argparse.ArgumentParser) -> None:
    add_option(p, "runs", metavar="K", help="K optimizer runs per system: the -i files are groups of K consecutive files, one group per "
                        "system (MultEval, Clark et al. 2011); scores are means over runs with their sd")


def add_scale_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("scale (see docs/scaling.md)")
    add_option(g, "jobs")
    add_option(g, "threads")
    add_option(g, "chunk_size", default=DEFAULT_CHUNK)
    g.add_argument("--backend", choices=("local", "dask"), default="local", help="where statistics are computed")
    g.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler (tcp://host:port); default: a LocalCluster")
    add_option(g, "dask_workers")
    g.add_argument("--parquet", nargs="+", metavar="FILE", help="Parquet/Arrow shards (globs allowed) with text columns")
    g.add_argument("--hyp-columns", nargs="+", metavar="COL", help="with --parquet: hypothesis columns, one per system")
    g.add_argument("--ref-columns", nargs="+", metavar="COL", help="with --parquet: reference columns")


def check_backend_options(args) -> None:
    """``--scheduler`` names a Dask scheduler: without ``--backend dask`` it would be silently ignored."""
    if getattr(args, "scheduler", None) is not None and getattr(args, "backend", "local") != "dask":
        from ..errors import InvalidParameterError
        raise InvalidParameterError(f"--scheduler: only with --backend dask (got --backend {args.backend})")


def _reference_free(args, metrics) -> tuple[str, ...]:
    """Without -r, when every metric scores without references (cometkiwi, xcomet in its quality-estimation
    mode, metricx with qe=true; docs/neural-metrics.md): the ``sources=`` file of the first stands in for the
    reference stream (its line count is checked against every system; no metric reads it as a reference)."""
    if args.refs or getattr(args, "parquet", None) or getattr(args, "tsv", None) or not args.input or not metrics:
        return ()
    if not all(getattr(m, "reference_free", False) and getattr(m, "sources_path", None) for m in metrics):
        return ()
    for m in metrics:
        m.without_references()
    return (metrics[0].sources_path,)


def inputs_of(args, metrics=()) -> Inputs:
    """The input files/columns named on the command line (checked: -r and -i given, '-' once)."""
    refs = tuple(args.refs or ()) or _reference_free(args, metrics)
    if not getattr(args, "parquet", None) and not getattr(args, "tsv", None) and not refs:
        check_file_inputs(args, True, "--tsv / --parquet")
    return Inputs(refs, tuple(args.input or ()), args.tsv, args.parquet, args.hyp_columns,
                  args.ref_columns, bool(getattr(args, "strip_bom", False)))


def compute(args, metrics, keep_segments: bool):
    """Statistics of every (system, metric), on the backend chosen on the command line; notes of
    stored-score metrics (what ``--missing skip`` left out ...) and the tokenizer hints (cli/hints.py,
    gathered from the text as it is read, never by reading an input again) go to stderr."""
    from .hints import InputHints, option_warnings, say
    check_backend_options(args)
    say(option_warnings(args))
    hints = InputHints(args, metrics, args.refs)
    out = runner.compute(inputs_of(args, metrics), metrics, keep_segments, backend=args.backend, jobs=args.jobs,
                         chunk_size=args.chunk_size, scheduler=args.scheduler, dask_workers=args.dask_workers,
                         threads=getattr(args, "threads", None), observe=hints.observe)
    say(hints.warnings(out[0]))
    print_notes([m for m in metrics if getattr(m, "external", False)])
    return out


def print_notes(metrics) -> None:
    """What ``--missing skip`` did (and other notes of stored-score metrics), on stderr."""
    for m in metrics:
        for note in getattr(m, "notes", ()):
            sys.stderr.write(f"mtscore: note: {note}\n")
