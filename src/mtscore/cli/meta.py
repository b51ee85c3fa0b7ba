"""``mtscore meta``: correlation of metrics with human judgments (docs/meta.md)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InvalidParameterError
from ..meta import evaluate as E
from ..meta import human as H
from ..meta.run import COMPARE, MetaConfig, evaluate_metrics, meta_table
from ..meta.stats import AVG_BY
from ..report import render_table
from .main import write_file, write_stdout
from .options import add_format_option, add_metric_options, build_metrics, load_inputs
from .scale import print_notes


def add_parser(sub) -> None:
    p = sub.add_parser("meta", help="correlate metrics with human judgments",
                       description="Meta-evaluation: how well each metric agrees with human judgments "
                                   "(system, segment or domain level; Pearson, Spearman, Kendall variants, "
                                   "pairwise accuracy, tie calibration; bootstrap CIs).")
    src = p.add_argument_group("inputs")
    src.add_argument("--data", metavar="DIR", help="mt-metrics-eval directory (e.g. wmt23)")
    src.add_argument("--lp", help="language pair in --data, e.g. zh-en")
    src.add_argument("--ref", help="reference name in --data (default: the standard one, refA; he-en refB)")
    src.add_argument("--human", default="mqm", help="human score kind in --data/human-scores (default mqm)")
    src.add_argument("--human-file", metavar="FILE", help="read human scores from FILE instead")
    src.add_argument("--human-format", choices=H.HUMAN_FORMATS, default="mtme",
                     help="format of --human-file: mtme (SYSTEM<TAB>score), wmt-da (SYS SID RAW.SCR Z.SCR N), "
                          "mqm-tsv (error annotations), scored-tsv (header TSV), tsv (system<TAB>segment<TAB>score), "
                          "rr (relative rankings)")
    src.add_argument("--da-score", choices=("z", "raw"), default="z", help="wmt-da score column (default z)")
    src.add_argument("--columns", nargs=3, metavar=("SYSTEM", "SEGMENT", "SCORE"),
                     default=("system", "seg_id", "score"), help="scored-tsv column names")
    src.add_argument("-r", "--refs", nargs="+", metavar="REF", help="reference files (instead of --data)")
    src.add_argument("-i", "--input", nargs="+", metavar="HYP", help="system outputs (instead of --data); "
                     "the system name is the file name without its last extension")
    src.add_argument("--tsv", help=argparse.SUPPRESS)
    add_metric_options(p)
    p.add_argument("--external", nargs="+", default=[], metavar="NAME",
                   help="stored metric scores from --data/metric-scores/<lp>/NAME.{seg,sys}.score, e.g. COMET-refA")
    sysonly = p.add_argument_group("system level from score files alone (no outputs; docs/external-scores.md)")
    sysonly.add_argument("--sys-scores", nargs="+", action="append", default=None, metavar="ARG",
                         help="NAME FILE [direction=higher|lower ...]: system-level metric scores (SYSTEM<TAB>score, "
                              "e.g. a *.sys.score file); repeat for several metrics; needs --human-sys")
    sysonly.add_argument("--human-sys", metavar="FILE", help="system-level human scores (SYSTEM<TAB>score; None = unrated)")
    ev = p.add_argument_group("meta-evaluation")
    ev.add_argument("--level", choices=E.LEVELS, default="sys", help="sys (default), seg or domain")
    ev.add_argument("--stats", nargs="+", metavar="STAT",
                    help=f"statistics ({', '.join(E.ALL_STATS)}); default: sys/domain "
                         f"{' '.join(E.SYS_STATS)}; seg {' '.join(E.SEG_STATS_DEFAULT)}")
    ev.add_argument("--avg-by", choices=AVG_BY, default="item",
                    help="segment level: none (pool all cells), item (per source segment, then average; "
                         "default), sys (per system, then average)")
    ev.add_argument("--thresh", type=float, default=25.0, help="DARR threshold on abs(delta human) (default 25)")
    ev.add_argument("--ci", type=int, default=0, metavar="N", help="bootstrap resamples for CIs (0 = none)")
    ev.add_argument("--ci-level", type=float, default=0.95, help="confidence level (default 0.95)")
    ev.add_argument("--resample", choices=E.RESAMPLE, default="segments", help="bootstrap unit (default segments)")
    ev.add_argument("--seed", type=int, default=12345, help="random seed (default 12345)")
    ev.add_argument("--compare", choices=COMPARE, default="none",
                    help="test whether the best metric (first statistic) beats each other one")
    ev.add_argument("--perm-samples", type=int, default=1000, help="permutations for --compare perm")
    ev.add_argument("--max-pairs", type=int, default=5_000_000,
                    help="tie calibration: sample this many pairs when there are more (default 5e6)")
    ev.add_argument("--include-human", action="store_true",
                    help="keep human 'systems' (refA, refB, synthetic_ref ...) among the systems")
    ev.add_argument("--exclude", nargs="+", default=[], metavar="SYSTEM", help="systems to leave out")
    p.add_argument("-o", "--html", dest="html", metavar="FILE",
                   help="also write a self-contained HTML page (table, CIs, metric-vs-human scatter plots) to FILE")
    add_format_option(p)
    p.set_defaults(func=run, width=4)
    p.set_defaults(metrics=[])


def _read_human(args, n_segments, mtme):
    if args.human_file:
        f, fmt = args.human_file, args.human_format
        if fmt == "mtme":
            return H.read_mtme_seg(f, n_segments, Path(f).name)
        if fmt == "wmt-da":
            return H.read_wmt_da(f, n_segments, args.da_score)
        if fmt == "mqm-tsv":
            return H.read_mqm_tsv(f, n_segments)
        if fmt == "scored-tsv":
            s, g, c = args.columns
            return H.read_scored_tsv(f, n_segments, s, g, c)
        if fmt == "tsv":
            return H.read_plain_tsv(f, n_segments)
        return H.read_relative_rankings(f, n_segments)
    if mtme is None:
        raise InvalidParameterError("--human-file: required without --data")
    return H.from_mtme(mtme, args.human)


def run(args: argparse.Namespace) -> int:
    if args.sys_scores or args.human_sys:
        return _run_system_only(args)
    mtme = None
    if args.data:
        if not args.lp:
            raise InvalidParameterError("--lp: required with --data")
        if args.refs or args.input:
            raise InvalidParameterError("--data: give either --data/--lp or -r/-i, not both")
        from ..io.wmt import load_mtme
        mtme = load_mtme(args.data, args.lp)
        ref = args.ref or mtme.std_ref()
        if ref not in mtme.refs:
            raise InvalidParameterError.choice("--ref", ref, sorted(mtme.refs))
        refs = [[r] for r in mtme.refs[ref]]
        outputs = mtme.systems
        domains = mtme.domains or None
    else:
        if args.external:
            raise InvalidParameterError("--external: needs --data")
        syss, refs = load_inputs(args)
        outputs = {}
        for path, hyps in syss.items():
            name = Path(path).name.rsplit(".", 1)[0]
            if name in outputs:
                raise InvalidParameterError(f"-i: two system files give the same system name {name!r}")
            outputs[name] = hyps
        ref, domains = None, None
    if not args.metrics and not args.external:
        args.metrics = ["bleu"]
    n = len(refs)
    human = _read_human(args, n, mtme)
    cfg = MetaConfig(args.level, tuple(args.stats) if args.stats else None, args.avg_by, args.ci, args.resample,
                     args.seed, args.ci_level, args.thresh, args.compare, args.perm_samples, args.max_pairs)
    cfg.validate()
    if human.rr_pairs is not None:
        return _run_rr(args, human, outputs, refs)
    systems = E.select_systems(list(outputs), human, args.include_human, args.exclude,
                               level="sys" if args.level == "sys" else "seg")
    joined = E.join(human, systems, n, domains)
    scores = []
    built = build_metrics(args) if args.metrics else []
    for m in built:
        scores.append(E.from_metric(m, {s: outputs[s] for s in systems}, refs))
    print_notes(built)  # stored scores (scores:NAME=FILE): what --missing skip left out, out-of-range notes
    for name in args.external:
        seg = mtme.metric_scores(name, "seg")
        # the system-level file is optional (then system scores are segment means); a malformed one is an error
        has_sys = (mtme.root / "metric-scores" / mtme.lp / f"{name}.sys.score").exists()
        sys_ = mtme.metric_scores(name, "sys") if has_sys else None
        scores.append(E.from_external(name, seg, sys_, systems, n, name))
    title = f"{args.lp or 'meta'}: {human.name}, {args.level}-level, {len(systems)} systems"
    results = evaluate_metrics(scores, joined, cfg)
    table = meta_table(scores, joined, cfg, title, args.width, results=results)
    if args.html:
        from ..report.meta_html import render_meta_html
        write_file(args.html, render_meta_html(table, scores, joined, results, cfg, title, args.width))
    write_stdout(render_table(table, args.format))
    return 0


def _run_system_only(args) -> int:
    """System-level correlations from system-level score files alone (meta/system_only.py)."""
    from ..meta.system_only import system_only_inputs
    if not args.sys_scores or not args.human_sys:
        raise InvalidParameterError("--sys-scores and --human-sys: give both (system-level metric and human scores)")
    if args.data or args.refs or args.input or args.metrics or args.external:
        raise InvalidParameterError("--sys-scores: system-level files are used on their own; "
                                    "drop --data/-r/-i/-m/--external")
    if args.level != "sys":
        raise InvalidParameterError(f"--level {args.level}: system-level score files support --level sys only")
    if args.ci and args.resample != "systems":
        raise InvalidParameterError("--ci with --sys-scores: only --resample systems is possible (no segments)")
    scores, joined = system_only_inputs(args.sys_scores, args.human_sys, args.include_human, args.exclude)
    cfg = MetaConfig(args.level, tuple(args.stats) if args.stats else None, args.avg_by, args.ci, args.resample,
                     args.seed, args.ci_level, args.thresh, args.compare, args.perm_samples, args.max_pairs)
    cfg.validate()
    title = f"{Path(args.human_sys).name}: sys-level, {len(joined.systems)} systems"
    results = evaluate_metrics(scores, joined, cfg)
    write_stdout(render_table(meta_table(scores, joined, cfg, title, args.width, results=results), args.format))
    return 0


def _run_rr(args, human, outputs, refs):
    """Relative rankings: WMT10-style Kendall over the human pairwise preferences (segment level)."""
    from ..report import Table
    missing = [s for s in human.systems if s not in outputs]
    if missing:
        raise InvalidParameterError(f"relative rankings name system(s) without an output: {', '.join(missing)}")
    rows = []
    for m in build_metrics(args):
        ms = E.from_metric(m, {s: outputs[s] for s in human.systems}, refs)
        rows.append([ms.name, H.rr_kendall(human.rr_pairs, ms.seg), int(len(human.rr_pairs))])
    rows.sort(key=lambda r: -r[1])
    write_stdout(render_table(Table(["metric", "WMT10 tau (RR)", "pairs"], rows, digits=args.width), args.format))
    return 0
