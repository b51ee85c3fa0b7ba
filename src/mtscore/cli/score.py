"""``mtscore score``: one table of several systems x several metrics, with signatures.

Inputs are read in chunks (``--chunk-size`` lines) and only the statistics a result needs are kept
(their sums for corpus scores, per-segment rows for ``--sentence-level`` / ``--save-stats``), so memory
stays bounded for files larger than memory. ``--jobs N`` computes chunks in N processes;
``--backend dask`` runs the same code on a Dask cluster.
"""
from __future__ import annotations

import argparse

from .. import runner
from ..errors import InvalidParameterError
from ..report import render_table
from ..report.scores import results_table, sentence_table
from .main import write_stdout
from .options import add_format_option, add_input_options, add_metric_options, build_metrics
from .scale import add_runs_option, add_scale_options, compute
from .names import add_names_option, display_names, relabel
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
    p.add_argument("--spans-out", metavar="FILE", help="also write the error spans of the xcomet, gemba-esa or gemba-mqm metric to FILE (JSON "
                   "{system: [[{start, end, severity, text, confidence}, ...] per segment]}, the format of "
                   "'mtscore meta --spans --pred NAME=FILE'; docs/neural-metrics.md)")
    p.add_argument("--dry-run", action="store_true", help="LLM judges (gemba-esa, gemba-mqm, gemba-da): print how many "
                   "requests the run would send after the cache and an estimate of the prompt tokens; connect to "
                   "nothing (docs/llm-judges.md)")
    add_format_option(p)
    p.set_defaults(func=run)


def table(names, metrics, results, sentence_level: bool, digits: int, paths=None):
    if not sentence_level:
        return results_table(names, metrics, runner.corpus_results(names, metrics, results), digits, paths=paths)
    per, sigs = runner.segment_scores(names, metrics, results)
    return sentence_table(names, metrics, per, sigs, digits)


SPAN_METRICS = ("xcomet", "gemba-esa", "gemba-mqm")  # metrics whose error spans --spans-out writes (predicts_spans)


def _span_metric(args, metrics):
    """The metric whose spans ``--spans-out`` writes (checked before any work), or None."""
    if not getattr(args, "spans_out", None):
        return None
    with_spans = [m for m in metrics if getattr(m, "predicts_spans", False) and hasattr(m, "span_log")]
    if len(with_spans) != 1:
        raise InvalidParameterError(f"--spans-out: needs exactly one metric that predicts error spans in -m "
                                    f"({', '.join(SPAN_METRICS)}), got {len(with_spans)}")
    if args.runs is not None:
        raise InvalidParameterError("--spans-out: not with --runs (spans belong to single systems)")
    if getattr(args, "backend", "local") != "local":
        raise InvalidParameterError("--spans-out: the spans are collected in this process: use the local backend")
    if args.spans_out == "-":
        raise InvalidParameterError("--spans-out: give a file (standard output carries the score table)")
    from ..io.output import check_writable
    check_writable(args.spans_out)
    return with_spans[0]


def _add_spans(out, metrics, names) -> None:
    """``score --sentence-level -f json``: XCOMET's error spans per system and segment beside its segment scores
    (``"error_spans": {"XCOMET": {system: [[span, ...] per segment]}}``, the data ``--spans-out`` writes), for every
    metric that predicts spans; a legend line says so where they were not collected in this process."""
    for m in metrics:
        if getattr(m, "span_log", None) is None or not getattr(m, "predicts_spans", True):
            continue  # only metrics that predict spans carry an error_spans block
        import json

        from ..metrics.comet import spans_json
        try:
            spans = json.loads(spans_json(m, names))
        except InvalidParameterError:  # another backend scored the systems: the spans stayed in its workers
            out.legend = list(out.legend) + [f"{m.display_name}: error spans are collected by the local backend only"]
            continue
        out.meta.setdefault("error_spans", {})[m.display_name] = spans


def _dry_run(args, metrics) -> int:
    """``score --dry-run``: every LLM judge counts its requests (the cache answers what it holds); nothing is sent."""
    judges = [m for m in metrics if hasattr(m, "dry_run_line")]
    if not judges:
        raise InvalidParameterError("--dry-run: counts the requests of LLM judges (gemba-esa, gemba-mqm, gemba-da); "
                                    "none is in -m")
    for m in judges:
        m.dry = True
    compute(args, judges, False)
    write_stdout("".join(m.dry_run_line() + "\n" for m in judges))
    return 0


def run(args: argparse.Namespace) -> int:
    text = apply_testset(args)
    if text is not None:
        write_stdout(text)
        return 0
    metrics = build_metrics(args)
    if getattr(args, "dry_run", False):
        return _dry_run(args, metrics)
    span_metric = _span_metric(args, metrics)
    keep = bool(args.sentence_level or args.save_stats)
    if args.save_stats:
        from ..backends.store import check_stats_folder
        check_stats_folder(args.save_stats)  # before the work, not after it
    if args.input and args.runs is None and any(getattr(m, "external", False) for m in metrics):
        # stored scores bind by path or by the shown name
        from ..metrics.scores import alias_systems
        alias_systems(metrics, list(args.input), display_names(args, args.input))
    names, results = compute(args, metrics, keep)
    paths = None
    if args.runs is None:  # shown names (--names, or the files' short names); --runs groups name themselves
        names, results, paths = relabel(args, names, results)
    if args.save_stats:
        from ..backends.store import save_stats
        save_stats(results, args.save_stats)
    if span_metric is not None:
        from ..io.output import write_text
        from ..metrics.comet import spans_json
        write_text(args.spans_out, spans_json(span_metric, names))
    if args.runs is not None:
        from ..report.runs import runs_score_table
        from ..significance.runs import summarize_runs
        from .runs import group_runs
        if args.sentence_level:
            raise InvalidParameterError("--runs: not with --sentence-level (segment scores belong to single runs)")
        groups = group_runs(names, args.runs)
        out = runs_score_table({m.display_name: summarize_runs(
            {g: [results[(f, m.display_name)].result() for f in files] for g, files in groups.items()})
            for m in metrics}, args.width)
    else:
        out = table(names, metrics, results, args.sentence_level, args.width, paths)
        if args.sentence_level and args.format == "json":
            _add_spans(out, metrics, names)
    write_stdout(render_table(out, args.format))
    return 0
