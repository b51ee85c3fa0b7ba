"""``mtscore meta``: correlation of metrics with human judgments (docs/meta.md)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InvalidParameterError, plural
from ..meta import evaluate as E
from ..meta import human as H
from ..meta.run import COMPARE, MetaConfig, compare_pvalues, evaluate_metrics
from ..report.meta import meta_table
from ..meta.stats import AVG_BY
from ..meta.tasks import TASK_SETS
from ..report import render_table
from ..io.output import check_writable
from .main import write_file, write_stdout
from ..params import add_deprecated, add_option
from .options import add_bom_option, add_format_option, add_metric_options, build_metrics, load_inputs
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
    src.add_argument("--human", default=None, help="human score kind in --data/human-scores (default mqm; --task-set "
                     "wmt25: per language pair as WMT25, esa-human1 or mqm for ja-zh_CN/en-ko_KR)")
    src.add_argument("--human-file", nargs="+", metavar="FILE",
                     help="read human scores from FILE instead (esa-csv: one or more wave files, e.g. WMT24's two)")
    src.add_argument("--human-format", choices=H.HUMAN_FORMATS, default="mtme",
                     help="format of --human-file: mtme (SYSTEM<TAB>score), wmt-da (SYS SID RAW.SCR Z.SCR N), "
                          "mqm-tsv (error annotations), scored-tsv (header TSV), tsv (system<TAB>segment<TAB>score), "
                          "rr (relative rankings), esa-csv (WMT24 ESA wave CSV; --lp selects the pair)")
    add_option(src, "esa_offset", help="esa-csv: test-set line (0-based) = segment_id + N (default: decided from the data, by "
                          "the rows' doc_ids against documents/<lp>.docs or by the canary line; refused when it cannot be)")
    src.add_argument("--docs", metavar="FILE",
                     help="with -r/-i and --human-format esa-csv: the documents of the test set, one line per "
                          "segment (DOMAIN<TAB>DOCID as documents/<lp>.docs, or DOCID), to decide the segment offset "
                          "from the rows' doc_ids as --data does")
    src.add_argument("--da-score", choices=("z", "raw"), default="z", help="wmt-da score column (default z)")
    src.add_argument("--columns", nargs=3, metavar=("SYSTEM", "SEGMENT", "SCORE"),
                     default=("system", "seg_id", "score"), help="scored-tsv column names")
    src.add_argument("-r", "--refs", nargs="+", metavar="REF", help="reference files (instead of --data)")
    src.add_argument("-i", "--input", nargs="+", metavar="HYP", help="system outputs (instead of --data); "
                     "the system name is the file name without its last extension")
    src.add_argument("--tsv", help=argparse.SUPPRESS)
    add_bom_option(src)
    add_metric_options(p)
    p.add_argument("--external", nargs="+", default=[], metavar="NAME",
                   help="stored metric scores from --data/metric-scores/<lp>/NAME.{seg,sys}.score, e.g. COMET-refA")
    sysonly = p.add_argument_group("system level from score files alone (no outputs; docs/external-scores.md)")
    sysonly.add_argument("--sys-scores", nargs="+", action="append", default=None, metavar="ARG",
                         help="NAME FILE [direction=higher|lower ...]: system-level metric scores (SYSTEM<TAB>score, "
                              "e.g. a *.sys.score file); repeat for several metrics; needs --human-sys")
    sysonly.add_argument("--human-sys", metavar="FILE", help="system-level human scores (SYSTEM<TAB>score; None = unrated)")
    ev = p.add_argument_group("meta-evaluation")
    ev.add_argument("--level", choices=E.LEVELS, default="sys", help="sys (default), seg, doc (documents of documents/<lp>.docs) or domain")
    ev.add_argument("--stats", nargs="+", metavar="STAT",
                    help=f"statistics ({', '.join(E.ALL_STATS)}); default: sys/domain "
                         f"{' '.join(E.SYS_STATS)}; seg {' '.join(E.SEG_STATS_DEFAULT)}")
    ev.add_argument("--avg-by", choices=AVG_BY, default="item",
                    help="segment level: none (pool all cells), item (per source segment, then average; "
                         "default), sys (per system, then average)")
    add_option(ev, "thresh")
    add_option(ev, "ci", old=("--ci",))
    add_option(ev, "ci_level")
    ev.add_argument("--resample", choices=E.RESAMPLE, default="segments", help="bootstrap unit (default segments)")
    add_option(ev, "seed")
    ev.add_argument("--compare", choices=COMPARE, default="none",
                    help="test whether the best metric (first statistic) beats each other one")
    add_option(ev, "perm_samples")
    add_option(ev, "max_pairs",
                    help="tie calibration: sample this many pairs when there are more (default 5e6)")
    ts = p.add_argument_group("WMT rankings (mt-metrics-eval task sets; see docs/meta.md)")
    ts.add_argument("--task-set", choices=TASK_SETS,
                    help="rank --external metrics (base names, e.g. COMET BLEU) over the WMT task set on --data: "
                         "wmt24 (per language pair: system-level soft pairwise accuracy, segment-level acc_eq* by "
                         "item) or wmt23 (global pairwise accuracy, system/segment Pearson, acc_eq*)")
    ts.add_argument("--lps", nargs="+", metavar="LP", help="language pairs of --task-set (default: all in --data)")
    add_option(ts, "perm_block_size", dest="block_size", old=("--block-size",), help="permutation early stopping: check p after every N draws (default 100, as WMT)")
    add_option(ts, "early_min")
    add_option(ts, "early_max")
    add_option(ts, "pval")
    ev.add_argument("--nan-as-zero", action="store_true",
                    help="segment level: groups whose statistic is undefined (e.g. a constant metric) count as 0 in "
                         "the average instead of being dropped (mt-metrics-eval replace_nans_with_zeros)")
    add_option(ev, "sample_rate", help="tie calibration on a random sample of the pairs, each kept with probability R in (0, 1] "
                         "(mt-metrics-eval sample_rate; seeded by --seed)")
    ev.add_argument("--pvalues", action="store_true",
                    help="add two-sided p-values of pearson/spearman/kendall/tau_c (averaged over groups at "
                         "segment level, as mt-metrics-eval)")
    ev.add_argument("--non-finite", choices=("error", "missing"), default="error",
                    help="human or metric scores that are nan/inf (or overflow, e.g. 1e999): error (default; the "
                         "message names file and line) or missing (read as not rated; the output says how many)")
    sub = p.add_argument_group("subsets of systems and segments (docs/meta.md)")
    sub.add_argument("--include-human", action="store_true",
                    help="keep human 'systems' (refA, refB, synthetic_ref ...) among the systems")
    sub.add_argument("--exclude", nargs="+", default=[], metavar="SYSTEM", help="systems to leave out")
    add_option(sub, "sample_size", help="segment level: meta-evaluate on N segments drawn without replacement "
                                       "(seeded by --seed; 0 or more than there are: all), as mt-metrics-eval's "
                                       "sample_size")
    sub.add_argument("--sample-method", choices=("uniform", "stratify"), default="uniform",
                    help="--sample-size: uniform (default) or stratify (each document of documents/<lp>.docs its "
                         "proportional share)")
    sub.add_argument("--filter", action="append", default=[], metavar="KEY=VALUE",
                    help="--data: keep the translations whose metadata match (domain, document, a field of "
                         "sources/<lp>.jsonl or of metadata/<lp>/<SYSTEM>.jsonl, e.g. domain=news, "
                         "is_bad_source=false); repeatable: values of one key are alternatives, different keys "
                         "must all match; system scores are recomputed on the kept translations (docs/meta.md)")
    sp = p.add_argument_group("error spans (--spans; docs/meta.md)")
    sp.add_argument("--spans", action="store_true",
                    help="error-span meta-evaluation: character-level P/R/F1 of predicted spans against --gold")
    sp.add_argument("--gold", nargs="+", metavar="FILE", help="--spans: gold spans (mt-metrics-eval .seg.rating file, "
                    "or WMT24 ESA wave CSVs with --gold-format esa-csv and --lp)")
    sp.add_argument("--gold-format", choices=("rating", "esa-csv", "tsv", "mqm-tsv"), default="rating",
                    help="--gold format: rating (default), esa-csv, tsv (system seg start end severity; every segment "
                         "of --outputs of the systems it names counts as rated), mqm-tsv (google MQM TSV, <v> marks; "
                         "--gold-rater picks the rater, --rater2 names another rater of the file)")
    sp.add_argument("--gold-rater", metavar="RATER", help="--gold-format mqm-tsv: the rater whose spans are the gold")
    sp.add_argument("--rater2", metavar="FILE", help="--spans: a second rater's spans (same format as --gold): "
                    "rater-vs-rater agreement, the ceiling")
    sp.add_argument("--pred", nargs="+", default=[], metavar="NAME=FILE",
                    help="--spans: predicted spans: .tsv (system seg start end severity), XCOMET-style JSON (as "
                         "'mtscore score -m xcomet:... --spans-out FILE' writes) or GEMBA-style JSON")
    sp.add_argument("--outputs", metavar="DIR", help="--spans: the translations, DIR/<SYSTEM>.txt (bounds check; "
                    "locates GEMBA's error texts); default --data/system-outputs/<lp>")
    sp.add_argument("--span-severity", choices=("partial", "ignore", "wmt25"), default="partial",
                    help="severity mismatch earns 0.5 (partial, WMT QE), severities are ignored (plain overlap), or "
                         "wmt25: the counting of the WMT25 MTEval task-2 official scorer (every span counts, overlaps "
                         "twice; critical = major; 0.5 for a mismatch)")
    add_deprecated(p, "--html", p.add_argument(
        "-o", "--output", dest="html", metavar="FILE",
        help="also write a self-contained HTML page (table, CIs, metric-vs-human scatter plots; with --task-set: "
             "the metrics ranking with significance clusters) to FILE"))
    add_format_option(p)
    add_option(p, "threads")
    p.set_defaults(func=run, width=4)
    p.set_defaults(metrics=[])


def _read_human(args, n_segments, mtme, first_line=None):
    if args.human_file:
        files, fmt = args.human_file, args.human_format
        if fmt == "esa-csv":
            from ..meta.esa import read_wmt24_esa
            docs = [d for _, d in mtme.docs] if mtme is not None and mtme.docs else None
            if args.docs:
                from ..io.wmt import read_docs
                docs = [d for _, d in read_docs(args.docs, n_segments, "the reference", doc_only=True)]
            return read_wmt24_esa(files, n_segments, args.lp, args.esa_offset, docs=docs, first_line=first_line,
                                  include_human=args.include_human)
        if len(files) > 1:
            raise InvalidParameterError(f"--human-file: {plural(len(files), 'file')} given; several files are read for "
                                        "--human-format esa-csv (the WMT24 waves) only")
        f = files[0]
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
    return H.from_mtme(mtme, args.human or "mqm")


def _run_task_set(args) -> int:
    from ..meta import ranking as R
    from ..meta.tasks import run_task_set
    from ..report.meta import task_set_table
    if not args.data:
        raise InvalidParameterError("--task-set: needs --data (an mt-metrics-eval directory such as wmt23)")
    if not args.external:
        raise InvalidParameterError("--task-set: name the stored metrics with --external (base names, e.g. COMET)")
    lps = args.lps
    if not lps:
        from ..meta.tasks import default_gold
        root = Path(args.data)
        cand = sorted({f.name.split(".")[0] for f in (root / "human-scores").glob("*.seg.score")})
        lps = [lp for lp in cand if (root / "human-scores" /
                                    f"{lp}.{args.human or default_gold(args.task_set, lp)}.seg.score").exists()]
        if not lps:
            raise InvalidParameterError(f"--task-set {args.task_set}: no language pair of --data {args.data} has "
                                        f"segment-level human scores (human-scores/<lp>.<gold>.seg.score) for the "
                                        f"task set's gold; name them with --lps and --human")
    params = R.PermParams(args.block_size, args.early_min, args.early_max)
    res = run_task_set(args.data, lps, args.external, args.task_set, args.perm_samples, args.seed, params,
                       args.pval, args.human, threads=args.threads, filters=args.filter)
    table = task_set_table(res, args.task_set, lps, args.perm_samples, args.block_size, args.early_min,
                           args.early_max, args.pval, args.seed, args.width)
    table.notes = list(table.notes) + list(res.notes)
    if args.html:
        from ..report.meta_ranking import render_ranking_html
        write_file(args.html, render_ranking_html(table))
    write_stdout(render_table(table, args.format))
    return 0


def run(args: argparse.Namespace) -> int:
    from ..io.values import nonfinite_as_missing
    with nonfinite_as_missing(getattr(args, "non_finite", "error") == "missing") as policy:
        args._nonfinite = policy
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    if args.docs is not None:  # an option that would do nothing is an error
        if args.data:
            raise InvalidParameterError(f"--docs: not with --data (its documents/<lp>.docs are used), got --docs "
                                        f"{args.docs}")
        if not (args.human_file and args.human_format == "esa-csv") or args.spans:
            raise InvalidParameterError(f"--docs: decides the segment offset of --human-format esa-csv with -r/-i; "
                                        f"got --docs {args.docs} without it")
    if args.spans or args.gold or args.pred or args.rater2:
        if args.html:
            raise InvalidParameterError(f"-o/--output: meta --spans has no HTML page (its table goes to standard output; "
                                        f"-f json/tsv/csv for a file), got -o {args.html}")
        return _run_spans(args)
    if args.html and not args.task_set and getattr(args, "human_format", None) == "rr":
        # an option that would do nothing is an error, never silently ignored
        raise InvalidParameterError(f"-o/--output: meta --human-format rr has no HTML page (its table goes to standard "
                                    f"output; -f json/tsv/csv for a file), got -o {args.html}")
    if args.task_set:
        if args.html:
            check_writable(args.html)  # before the work, not after it
        return _run_task_set(args)
    if args.html:
        check_writable(args.html)  # before the work, not after it
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
        if not args.metrics and args.external:
            # stored scores only: no reference and no system outputs are needed; without outputs, the systems are
            # those every stored metric scores
            ref, refs = None, None
            outputs = mtme.systems or _stored_systems(mtme, args.external)
        else:
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
    n = mtme.n_segments if mtme is not None else len(refs)
    first = mtme.sources[0] if mtme is not None and mtme.sources else (refs[0][0] if refs and refs[0] else None)
    human = _read_human(args, n, mtme, first)
    cfg = MetaConfig(args.level, tuple(args.stats) if args.stats else None, args.avg_by, args.ci, args.resample,
                     args.seed, args.ci_level, args.thresh, args.compare, args.perm_samples, args.max_pairs,
                     args.nan_as_zero, args.sample_rate, args.pvalues, threads=args.threads)
    cfg.validate()
    if human.rr_pairs is not None:
        return _run_rr(args, human, outputs, refs)
    # the human-translation rule (refA, synthetic_ref, Human-B.0, HUMAN-B, a system named like a reference) is the
    # naming of the WMT data: only for --data; files given with -i are systems, whatever their names
    from ..meta.human import is_human_system
    ref_names = sorted(mtme.refs) if mtme is not None else []
    systems = E.select_systems(list(outputs), human, args.include_human, args.exclude,
                               human_prefixes=None if mtme is not None else (),
                               level="sys" if args.level == "sys" else "seg", references=ref_names)
    rule_notes = list(human.notes)
    if mtme is not None and not args.include_human:
        left = [s for s in outputs if is_human_system(s, ref_names) and s not in args.exclude]
        if left:
            rule_notes.append(f"left out as human translations (ref*, synthetic_ref*, Human-*/HUMAN-*, reference "
                              f"names; --include-human keeps them): {', '.join(left)}")
    systems, unrated = _drop_unrated(human, systems, args.level)
    if unrated:
        rule_notes.append(f"left out, no human score (every value None): {', '.join(unrated)}")
    flt = None
    if args.filter:  # checked before any metric is computed
        if mtme is None:
            raise InvalidParameterError("--filter: needs --data (the metadata of an mt-metrics-eval directory)")
        if args.level not in ("sys", "seg"):
            raise InvalidParameterError(f"--filter: levels sys and seg (the filter selects segments and "
                                        f"translations), got --level {args.level}")
        from ..meta import filters as F
        flt = F.build(mtme, systems, F.parse(args.filter))
    if args.sample_size is not None:
        if args.level != "seg":
            raise InvalidParameterError(f"--sample-size: segment level only (it samples segments), got --level "
                                        f"{args.level}")
        from ..meta import filters as F
        docs = [d for _, d in mtme.docs] if mtme is not None and mtme.docs else None
        smp = F.sample_filter(len(systems), n, args.sample_size, args.sample_method, docs, args.seed)
        flt = smp if flt is None else F.Filtered(flt.mask & smp.mask, f"{flt.note}; {smp.note}")
    docs = [d for _, d in mtme.docs] if mtme is not None and mtme.docs else None
    joined = E.join(human, systems, n, domains, docs)
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
    if flt is not None:
        joined, scores = F.apply(flt, joined, scores)
        rule_notes.append(flt.note)
    if args.level == "doc":
        scores, joined = _doc_views(args, mtme, human, scores, joined, systems)
    title = f"{args.lp or 'meta'}: {human.name}, {args.level}-level, {plural(len(systems), 'system')}"
    results = evaluate_metrics(scores, joined, cfg)
    views = _views(built, args.external)
    table = meta_table(scores, joined, cfg, results, compare_pvalues(scores, joined, cfg, results), title, args.width,
                       views)
    table.notes = list(table.notes) + rule_notes + _missing_notes(human, joined, args)
    if args.html:
        from ..report.meta_html import render_meta_html
        write_file(args.html, render_meta_html(table, scores, joined, results, cfg, title, args.width, views))
    write_stdout(render_table(table, args.format))
    return 0


def _views(built, external) -> dict:
    """Metric name -> :class:`~mtscore.report.model.MetricView` (the one output model): the metrics of -m as
    ``mtscore score`` shows them (with score's default digits: meta's -w is the correlations' precision);
    ``--external`` scores as stored (mt-metrics-eval stores every metric with higher = better), 4 digits as every
    stored model score."""
    from ..report.model import MetricView, view
    views = {m.display_name: view(m) for m in built}
    for name in external:
        views.setdefault(name, MetricView("external", name, name, 1.0, True, 4))
    return views


def _stored_systems(mtme, names) -> dict:
    """The systems every stored metric ``names`` has segment scores for (no system outputs in --data)."""
    common = None
    for name in names:
        seg = mtme.metric_scores(name, "seg")
        common = list(seg) if common is None else [s for s in common if s in seg]
    return {s: None for s in common or []}


def _drop_unrated(human, systems, level):
    """Systems without any human score are left out by an explicit rule (stated in the output): at system
    level, those whose system score is missing; at other levels, those whose segment scores are all None."""
    import math
    if level == "sys" or human.seg is None:
        hs = human.system_scores()
        unrated = [s for s in systems if s in hs and not math.isfinite(hs[s])]
    else:
        unrated = [s for s in systems if s in human.systems and not (human.row(s) == human.row(s)).any()]
    kept = [s for s in systems if s not in unrated]
    if unrated and len(kept) < 2:
        raise InvalidParameterError(f"at least 2 systems with human scores are needed for a correlation, got "
                                    f"{len(kept)} (no human score: {', '.join(unrated)})")
    return kept, unrated


def _missing_notes(human, joined, args) -> list[str]:
    """How many human scores are missing (None) among the evaluated systems, and what --non-finite did."""
    notes = []
    if joined.human_seg is not None and args.level != "sys":
        seg = joined.human_seg
        miss = int((seg != seg).sum())
        if miss:
            notes.append(f"human scores: {miss} of {seg.size} segment scores missing (not rated), left out")
    elif joined.human_sys is not None:
        miss = int((joined.human_sys != joined.human_sys).sum())
        if miss:
            notes.append(f"human scores: {miss} of {len(joined.human_sys)} system scores missing (not rated)")
    policy = getattr(args, "_nonfinite", None)
    if policy is not None and policy.note():
        notes.append(policy.note())
    return notes


def _doc_views(args, mtme, human, scores, joined, systems):
    """Document-level views; published ``*.doc.score`` files (human and external metrics) are used when present."""
    if mtme is None:
        raise InvalidParameterError("--level doc: needs --data (documents/<lp>.docs gives the documents)")
    from ..io.wmt import read_seg_scores
    names, _ = E.document_index(joined.docs, str(mtme.root / "documents" / f"{mtme.lp}.docs"))

    def read_doc(path):
        d = read_seg_scores(path, len(names))
        missing = [s for s in systems if s not in d]
        if missing:
            raise InvalidParameterError(f"{path}: no document scores for {', '.join(missing)}")
        return [[float("nan") if v is None else v for v in d[s]] for s in systems]
    hpath = mtme.root / "human-scores" / f"{mtme.lp}.{args.human or 'mqm'}.doc.score"
    if not args.human_file and hpath.exists():
        joined.human_doc = read_doc(hpath)
    doc_scores = {}
    for name in args.external:
        p = mtme.root / "metric-scores" / mtme.lp / f"{name}.doc.score"
        if p.exists():
            doc_scores[name] = read_doc(p)
    return E.doc_views(scores, joined, doc_scores)


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
        raise InvalidParameterError("--resamples with --sys-scores: only --resample systems is possible (no segments)")
    scores, joined = system_only_inputs(args.sys_scores, args.human_sys, args.include_human, args.exclude)
    cfg = MetaConfig(args.level, tuple(args.stats) if args.stats else None, args.avg_by, args.ci, args.resample,
                     args.seed, args.ci_level, args.thresh, args.compare, args.perm_samples, args.max_pairs,
                     threads=args.threads)
    cfg.validate()
    title = f"{Path(args.human_sys).name}: sys-level, {plural(len(joined.systems), 'system')}"
    results = evaluate_metrics(scores, joined, cfg)
    table = meta_table(scores, joined, cfg, results, compare_pvalues(scores, joined, cfg, results), title, args.width)
    if args.html:  # the page of the system-level tables (it was silently not written)
        from ..report.meta_html import render_meta_html
        write_file(args.html, render_meta_html(table, scores, joined, results, cfg, title, args.width))
    write_stdout(render_table(table, args.format))
    return 0


def _run_rr(args, human, outputs, refs):
    """Relative rankings: WMT10-style Kendall over the human pairwise preferences (segment level)."""
    from ..meta.run import rr_correlations
    from ..report.meta import rr_table
    rows = rr_correlations(build_metrics(args), human, outputs, refs)
    write_stdout(render_table(rr_table(rows, args.width), args.format))
    return 0


def _run_spans(args) -> int:
    """``--spans``: predicted error spans against gold spans (meta/spans.py), rendered by report/meta.py."""
    from ..meta import spans as SP
    from ..report.meta import spans_table
    if not args.spans:
        raise InvalidParameterError("--gold/--pred/--rater2: add --spans (error-span meta-evaluation)")
    if not args.gold:
        raise InvalidParameterError("--spans: give the gold spans with --gold FILE")
    if not args.pred and not args.rater2:
        raise InvalidParameterError("--spans: give predicted spans (--pred NAME=FILE) or a second rater (--rater2)")
    texts = None
    out_dir = Path(args.outputs) if args.outputs else (Path(args.data) / "system-outputs" / args.lp
                                                       if args.data and args.lp else None)
    if out_dir is not None:
        from ..io.text import read_lines
        if not out_dir.is_dir():
            raise InvalidParameterError(f"--outputs: not a folder: {out_dir}")
        texts = {}
        for f in sorted(out_dir.glob("*.txt")):
            for k, line in enumerate(read_lines(f)):
                texts[(f.stem, k)] = line
    lengths = {k: len(v) for k, v in texts.items()} if texts is not None else None

    mqm_raters = None
    if args.gold_format == "mqm-tsv":
        if len(args.gold) > 1:
            raise InvalidParameterError("--gold: one MQM TSV file")
        mqm_raters = SP.read_mqm_tsv_spans(args.gold[0])

    def pick_rater(rater, what):
        if rater is None:
            if len(mqm_raters) == 1:
                return next(iter(mqm_raters.values()))
            raise InvalidParameterError(f"{what}: the MQM file has several raters ({', '.join(sorted(mqm_raters))}); "
                                        "name one with --gold-rater")
        if rater not in mqm_raters:
            raise InvalidParameterError.choice(what, rater, sorted(mqm_raters))
        return mqm_raters[rater]

    def gold_of(files, name):
        if mqm_raters is not None:
            return pick_rater(args.gold_rater if files == args.gold else files[0],
                              "--gold-rater" if files == args.gold else "--rater2")
        if args.gold_format == "esa-csv":
            return SP.read_esa_spans(files, args.lp, args.esa_offset or 0, name, args.include_human)
        if len(files) > 1:
            raise InvalidParameterError("--gold: one file (several files: --gold-format esa-csv)")
        if args.gold_format == "tsv":
            if texts is None:
                raise InvalidParameterError("--gold-format tsv: give the translations (--outputs DIR) to know the "
                                            "rated segments")
            return SP.gold_from_tsv(files[0], name, texts)
        return SP.read_rating_file(files[0], name, lengths)
    def label(path):  # zh-en.mqm.rater1.seg.rating -> zh-en.mqm.rater1
        n = Path(path).name
        return n[:-len(".seg.rating")] if n.endswith(".seg.rating") else n
    specs = []
    for spec in args.pred:  # checked before any file is read
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise InvalidParameterError(f"--pred: expected NAME=FILE, got {spec!r}")
        if any(name == n for n, _ in specs):
            raise InvalidParameterError(f"--pred: two predictions are named {name!r} (each NAME=FILE needs its own "
                                        f"name), got {' '.join(args.pred)}")
        if not Path(path).is_file():
            raise InvalidParameterError(f"--pred {name}: no such file: {path}")
        specs.append((name, path))
    gold = gold_of(args.gold, label(args.gold[0]))

    def known(sp):
        """Spans on systems or segments that do not exist are an error (spans.check_cells)."""
        if texts is not None:
            segments: dict[str, int] = {}
            for sysname, _ in texts:
                segments[sysname] = segments.get(sysname, 0) + 1
            SP.check_cells(sp, segments, f"the translations in {out_dir}", texts)
        elif gold.extent is not None and sp is not gold:
            SP.check_cells(sp, gold.extent, f"the gold file {args.gold[0]}")
        return sp
    known(gold)
    severity = {"partial": True, "ignore": False, "wmt25": "wmt25"}[args.span_severity]
    preds = []
    for name, path in specs:
        preds.append(SP.score_spans(gold, known(SP.read_pred_file(path, name, texts)), severity=severity, name=name))
    human = []
    if args.rater2:
        second = known(gold_of([args.rater2], label(args.rater2)))
        h = SP.agreement(gold, second, severity)
        h.name = f"{h.name} (human)"
        human.append(h)
    pvals = {}
    if args.ci:
        if preds:
            SP.bootstrap(preds, args.ci, args.seed, args.ci_level)
        for h in human:
            SP.bootstrap([h], args.ci, args.seed, args.ci_level)
        ranked = sorted(preds, key=lambda s: -s.micro[2])
        if len(ranked) > 1:
            pvals = {s.name: SP.paired_pvalue(ranked[0], s) for s in ranked[1:]}
    notes = []
    if gold.omissions:
        notes.append(f"gold: {gold.omissions} errors without target characters (omissions, source errors) not scored")
    table = spans_table(preds, human, pvals, args.ci, args.ci_level, severity, args.seed, gold.name, notes, args.width)
    write_stdout(render_table(table, args.format))
    return 0
