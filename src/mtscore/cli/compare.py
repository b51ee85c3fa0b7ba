"""``mtscore compare``: significance of differences between systems (docs/significance.md)."""
from __future__ import annotations

import argparse

from ..errors import InvalidParameterError
from ..report.comparison import matrix_table, render_comparisons as render_tables, untested_table
from ..significance import compare_stats, untested
from ..significance.core import BOOTSTRAP_METHODS, canonical_test
from ..params import add_deprecated, add_option
from .main import write_stdout
from .options import add_format_option, add_input_options, add_metric_options, build_metrics
from .scale import add_runs_option, add_scale_options, compute
from .names import add_names_option, display_names, relabel, resolve_baseline
from .testsets import add_testset_options, apply_testset


def add_parser(sub) -> None:
    p = sub.add_parser("compare", help="significance tests between systems",
                       description="Paired bootstrap, approximate randomization, sign test or block t-test "
                                   "between systems; the first -i file is the baseline unless --baseline or "
                                   "--all-pairs is given.")
    add_input_options(p)
    add_metric_options(p)
    add_testset_options(p, short=False)
    add_names_option(p)
    add_deprecated(p, "-t", p.add_argument("--test", default="bootstrap", metavar="TEST",
                                           help="bootstrap (default) | ar | sign | block-t"))
    add_option(p, "n", old=("--n", "--n-samples"))
    add_option(p, "seed")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--baseline", metavar="FILE", help="baseline system (one of -i, or an extra file)")
    g.add_argument("--all-pairs", action="store_true", help="compare every pair of systems")
    add_option(p, "correction")
    add_option(p, "alpha", help="significance level for marks")
    p.add_argument("--method", default=None, help=f"bootstrap: {'|'.join(BOOTSTRAP_METHODS)}; sign: auto|segment|composite")
    add_option(p, "ties")
    add_option(p, "level", old=("--level",))
    add_option(p, "n_ci")
    add_option(p, "blocks")
    add_option(p, "block_size")
    p.add_argument("--sacrebleu-compat", action="store_true",
                   help="draw bootstrap indices exactly as sacreBLEU does (same p-values for the same seed)")
    add_runs_option(p)
    add_scale_options(p)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    text = apply_testset(args)
    if text is not None:
        write_stdout(text)
        return 0
    test = canonical_test(args.test)
    metrics = build_metrics(args)
    if args.runs is not None and args.baseline and args.baseline not in (args.input or []):
        raise InvalidParameterError(f"--baseline: with --runs, name one of the -i run files, got {args.baseline!r}")
    if args.runs is None and args.baseline and args.input:
        args.baseline = resolve_baseline(args.baseline, list(args.input), display_names(args, args.input))
    if args.baseline and args.input and args.baseline not in args.input:
        args.input = [args.baseline] + list(args.input)
    if args.input and args.runs is None:  # stored scores bind by path or by the shown name
        from ..metrics.scores import alias_systems
        alias_systems(metrics, list(args.input), display_names(args, args.input))
    names, results = compute(args, metrics, keep_segments=True)  # any backend: local, --jobs N, dask
    if len(names) < 2:
        raise InvalidParameterError(f"-i/--input: a comparison needs at least two systems, got {len(names)}")
    opts = dict(test=test, n=args.n, seed=args.seed, baseline=args.baseline, all_pairs=args.all_pairs,
                correction=args.correction, alpha=args.alpha, ties=args.ties, level=args.level,
                sacrebleu_compat=args.sacrebleu_compat)
    if args.method is not None:
        opts["method"] = args.method
    if test == "ar" and args.n_ci:
        opts["n_ci"] = args.n_ci
    if test == "block-t":
        opts.update(blocks=args.blocks, block_size=args.block_size)
    if args.runs is not None:
        return _run_runs(args, test, metrics, names, results)
    names, results, paths = relabel(args, names, results)
    if args.baseline is not None:
        opts["baseline"] = {p: s for s, p in paths.items()}.get(args.baseline, args.baseline)
    tables = []
    for metric in metrics:
        stats = {name: results[(name, metric.display_name)].stats() for name in names}
        reason = untested(len(next(iter(stats.values())).values))  # one rule for tiny samples
        if reason is not None:
            first = next(iter(stats.values()))
            tables.append(untested_table(metric, names, [metric.corpus_from_stats(st).score for st in stats.values()],
                                         reason, args.width, first.signature, test))
            continue
        tables.append(matrix_table(compare_stats(metric, stats, **opts), args.width, metric))
    for t in tables:
        t.meta["paths"] = paths
    write_stdout(render_tables(tables, args.format))
    return 0


def _run_runs(args, test, metrics, names, results) -> int:
    """``--runs K``: MultEval's table (mean, s_sel, s_opt, stratified AR p) per metric (significance/runs.py)."""
    from ..significance.runs import DEFAULT_BOOT, DEFAULT_SHUFFLES, compare_runs
    from ..report.runs import runs_compare_table
    from .runs import group_runs
    if test != "ar" and args.test != "bootstrap":
        raise InvalidParameterError(f"--runs: compare uses MultEval's stratified approximate randomization (--test ar), "
                                    f"got --test {args.test}")
    if args.all_pairs:
        raise InvalidParameterError("--runs: compares every system with the baseline (the first group); "
                                    "--all-pairs is not available")
    groups = group_runs(names, args.runs)
    if len(groups) < 2:
        raise InvalidParameterError(f"--runs {args.runs}: a comparison needs at least two systems, got {len(groups)}")
    base = None
    if args.baseline:
        base = next(g for g, files in groups.items() if args.baseline in files)
    tables = []
    for metric in metrics:
        runs = {g: [results[(f, metric.display_name)].stats() for f in files] for g, files in groups.items()}
        res = compare_runs(metric, runs, base, args.n or DEFAULT_SHUFFLES, args.n_ci or DEFAULT_BOOT, args.seed)
        first = next(iter(runs.values()))[0]
        tables.append(runs_compare_table(metric.display_name, res, args.runs, args.width, first.signature))
    write_stdout(render_tables(tables, args.format))
    return 0
