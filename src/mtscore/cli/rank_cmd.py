"""``mtscore rank``: AutoRank of systems from several metrics (WMT24/WMT25 rules) and how sure it is (docs/rank.md)."""
from __future__ import annotations

import argparse

from ..errors import InvalidParameterError
from ..params import add_deprecated, add_option
from .main import write_file, write_stdout
from .options import add_format_option, add_input_options, add_metric_options, build_metrics
from .scale import add_scale_options


def add_parser(sub) -> None:
    from ..rank import RULES
    from ..rank.core import DEFAULT_N, DEFAULT_SEED

    p = sub.add_parser("rank", help="rank systems from several metrics (AutoRank, WMT24/WMT25) with intervals",
                       usage="mtscore rank (-r REF -i HYP ... -m METRIC ... | --seg-scores NAME FILE | "
                             "--score-json FILE | --sys-scores NAME FILE) ... [options]",
                       description="AutoRank as the WMT preliminary rankings compute it, from metrics computed here "
                                   "(-r/-i/-m) or read from score files, with a paired bootstrap over documents: "
                                   "each system's AutoRank interval, the probability that it is first, and "
                                   "clusters of systems not told apart. See docs/rank.md.")
    add_input_options(p)
    add_metric_options(p, default_metrics=())
    for a in p._actions:  # no default metric: rank computes only the metrics named
        if a.dest == "metrics":
            a.help = "metrics computed from -r/-i, NAME or NAME:KEY=VALUE[,KEY=VALUE]; parameters: mtscore metrics"
    p.add_argument("--names", nargs="+", metavar="NAME", default=None,
                   help="system names, one per -i file in order (default: the file names without their shared "
                        "prefix and suffix)")
    g = p.add_argument_group("stored scores (docs/rank.md)")
    g.add_argument("--seg-scores", nargs="+", action="append", default=None, metavar="ARG",
                   help="NAME FILE [direction=higher|lower] [format=mtme|tsv|comet-json]: one metric's segment "
                        "scores (*.seg.score, SYSTEM<TAB>SEG<TAB>score, COMET JSON, or .jsonl lines with system, "
                        "score/scores, doc, domain, lp); repeat for several metrics")
    g.add_argument("--score-json", nargs="+", default=None, metavar="FILE",
                   help="what 'mtscore score -f json' wrote (with --sentence-level: segment scores); every metric "
                        "in it, with its direction and signature")
    g.add_argument("--multi-scores", nargs="+", default=None, metavar="FILE",
                   help="JSON lines with several metrics per line: lp/language_pair, doc/document_id, domain, "
                        "metric_scores {NAME: [scores]}, one file per system (WMT25's automatic scores); needs "
                        "--direction")
    g.add_argument("--direction", action="append", default=None, metavar="NAME=higher|lower",
                   help="direction of a --multi-scores metric ('*=higher' for every metric not named)")
    g.add_argument("--keep-metrics", nargs="+", default=None, metavar="NAME",
                   help="use only these metrics of the --multi-scores files")
    g.add_argument("--sys-scores", nargs="+", action="append", default=None, metavar="ARG",
                   help="NAME FILE [direction=higher|lower]: system-level scores (SYSTEM<TAB>score); no bootstrap")
    g.add_argument("--docs", metavar="FILE", help="documents of the segments: DOMAIN<TAB>DOCID per line "
                                                 "(mt-metrics-eval documents/<lp>.docs); default: each segment its "
                                                 "own document")
    g.add_argument("--lp", metavar="LP", help="language pair: its label, and the rows of JSON lines with this "
                                             "\"lp\" (default: one ranking per \"lp\" found)")
    s = p.add_argument_group("systems and segments")
    s.add_argument("--system-meta", metavar="FILE", help="system metadata (TSV with a header, or JSON "
                                                          "{system: {column: value}}): shown as columns")
    s.add_argument("--filter", action="append", default=None, metavar="KEY=VALUE",
                   help="keep segments of a domain (domain=news,social) or systems with a metadata value "
                        "(constrained=true); repeat to combine")
    s.add_argument("--exclude", nargs="+", default=(), metavar="SYSTEM", help="leave these systems out")
    r = p.add_argument_group("ranking")
    r.add_argument("--autorank", choices=RULES, default="wmt25", help="the rule (default wmt25)")
    r.add_argument("--scale-top", type=int, default=None, metavar="N",
                   help="wmt24: the top of each metric's linear scale (default: the number of systems; WMT24's "
                        "published tables used one more)")
    add_option(r, "ci", default=DEFAULT_N, dest="bootstrap", old=("--bootstrap",),
               help="bootstrap resamples of documents (0: none)")
    add_option(r, "seed", default=DEFAULT_SEED)
    add_option(r, "alpha", help="level of the intervals (1 - alpha) and of the clusters' tests (default 0.05)")
    add_scale_options(p)
    add_deprecated(p, "--html", p.add_argument(
        "-o", "--output", dest="html", metavar="FILE",
        help="also write a self-contained HTML page (sortable; a row expands to its per-metric scores and interval)"))
    add_format_option(p)
    p.set_defaults(func=run)


def _computed(args):
    """Metrics computed in this run: (name, higher, signature, {system: stats [N, C]}, scorer, source)."""
    from .names import relabel
    from .scale import compute

    if not args.metrics:
        raise InvalidParameterError("-m/--metrics: name the metrics to compute from -r/-i (or give score files)")
    metrics = build_metrics(args)
    names, results = compute(args, metrics, keep_segments=True)
    names, results, _ = relabel(args, names, results)
    out = []
    for m in metrics:
        st = {n: results[(n, m.display_name)].stats() for n in names}
        first = next(iter(st.values()))
        out.append((m.display_name, bool(m.higher_is_better), f"{m.display_name}|{first.signature}",
                    {n: v.values for n, v in st.items()}, m.score, "computed"))
    return out


def build_inputs(args) -> list:
    from ..meta.system_only import read_system_level
    from ..rank import inputs as I

    meta = I.read_system_meta(args.system_meta) if args.system_meta else {}
    filters = I.parse_filters(args.filter)
    computed = _computed(args) if (args.input or args.tsv) else []
    if (args.metrics or args.scores) and not computed:
        raise InvalidParameterError("-m/--scores: metrics are computed from -r/-i (give the system outputs)")
    docs = I.read_docs(args.docs) if args.docs else None
    tables: dict = {}  # lp -> SegmentTable
    sys_metrics = []

    def table(lp):
        if lp not in tables:
            t = tables[lp] = I.SegmentTable()
            if docs is not None:
                t.set_docs(docs[0], docs[1], args.docs)
        return tables[lp]

    for spec in args.seg_scores or []:
        name, path, extra = I._spec(spec, "--seg-scores")
        higher, fmt = I._direction(name, path, extra)
        if path.endswith(".jsonl") and fmt in (None, "jsonl"):
            for lp, (systems, d, dom) in I.read_jsonl(path, args.lp).items():
                if d is None and dom is not None:  # domains without documents: each segment its own document
                    d = [str(i) for i in range(len(dom))]
                table(args.lp if lp is None else lp).add(name, higher, I.file_signature(name, path, higher),
                                                         systems, path, d, dom)
        else:
            systems = I.read_segment_file(name, path, fmt)
            table(args.lp).add(name, higher, I.file_signature(name, path, higher), systems, path)
    if (args.direction or args.keep_metrics) and not args.multi_scores:
        raise InvalidParameterError("--direction/--keep-metrics: apply to the metrics of --multi-scores files; "
                                    "give them")
    if args.multi_scores:
        found = I.read_multi_jsonl(args.multi_scores, I.parse_directions(args.direction), args.lp)
        if args.keep_metrics:
            seen = {n for _, _, metrics, _ in found.values() for n in metrics}
            unknown = sorted(set(args.keep_metrics) - seen)
            if unknown:
                raise InvalidParameterError(f"--keep-metrics: not in the --multi-scores files: {', '.join(unknown)}; "
                                            f"found: {', '.join(sorted(seen))}")
        for lp, (d, dom, metrics, higher) in found.items():
            if args.keep_metrics:
                metrics = {n: v for n, v in metrics.items() if n in args.keep_metrics}
            if d is None and dom is not None:
                d = [str(i) for i in range(len(dom))]
            t = table(args.lp if lp is None else lp)
            for name, systems in metrics.items():
                t.add(name, higher[name], f"{name}|scores:multi|direction:{'higher' if higher[name] else 'lower'}",
                      systems, ", ".join(args.multi_scores) if len(args.multi_scores) < 3 else
                      f"{args.multi_scores[0]} (+{len(args.multi_scores) - 1} files)", d, dom)
    for path in args.score_json or []:
        for name, higher, sig, systems, seg in I.read_score_json(path):
            if seg:
                table(args.lp).add(name, higher, sig, systems, path)
            else:
                sys_metrics.append((name, higher, sig, systems, path))
    for spec in args.sys_scores or []:
        name, path, extra = I._spec(spec, "--sys-scores")
        higher, _ = I._direction(name, path, extra, "--sys-scores")
        vals = read_system_level(path, f"--sys-scores {name}")
        sys_metrics.append((name, higher, I.file_signature(name, path, higher), vals, path))
    if not tables:
        tables[args.lp] = table(args.lp)
    if len(tables) > 1 and (computed or sys_metrics):
        raise InvalidParameterError("rank: the JSON lines hold several language pairs; name one with --lp to "
                                    "combine them with other inputs")
    return [I.assemble(t, sys_metrics, lp or "", meta, filters, args.exclude, computed=computed)
            for lp, t in sorted(tables.items(), key=lambda kv: kv[0] or "")]


def run(args: argparse.Namespace) -> int:
    from ..rank.core import rank
    from ..report.rank import render_html, render_rankings

    if args.scale_top is not None and args.autorank != "wmt24":
        raise InvalidParameterError(f"--scale-top: only the wmt24 rule takes a scale top, not {args.autorank}")
    results = [rank(inp, args.autorank, n=args.bootstrap, seed=args.seed, alpha=args.alpha, top=args.scale_top)
               for inp in build_inputs(args)]
    text = render_rankings(results, args.format, args.width)
    if args.html:
        write_file(args.html, render_html(results, args.width))
    write_stdout(text)
    return 0
