"""``mtscore report``: a self-contained HTML report comparing systems (docs/report.md).

The HTML goes to ``-o FILE``, and stdout then gets a short summary (the score table and the file
written); without ``-o``, or with an explicit ``-f`` (text, json, tsv, csv, latex, markdown), every table of
the report goes to stdout, so ``mtscore report ... -o r.html -f latex > tables.tex`` gives both.
"""
from __future__ import annotations

import argparse

from ..errors import InvalidParameterError
from ..io.labels import read_labels
from ..params import add_deprecated, add_option
from ..io.output import check_writable
from .main import write_file, write_stdout
from ..params import DEFAULT_SEED
from .options import add_format_option, add_input_options, add_metric_options, build_metrics, load_inputs
from .hints import InputHints, option_warnings, say
from .names import add_names_option, display_names
from .testsets import add_testset_options, apply_testset


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="HTML report comparing systems (plots, CIs, significance, examples)",
                       description="Compare systems: scores with bootstrap CIs and significance marks, bootstrap "
                                   "distributions of the differences, per-subset scores, length/BP, n-gram "
                                   "precision and the segments that change most, as one self-contained HTML "
                                   "file (-o) and as tables on stdout (-f).")
    add_input_options(p)
    add_metric_options(p, default_metrics=("bleu", "bleu-sbp"))
    add_testset_options(p)
    add_names_option(p)
    add_deprecated(p, "--html", p.add_argument("-o", "--output", dest="output", metavar="FILE",
                                               help="write the HTML report to FILE"))
    p.add_argument("--labels", metavar="FILE",
                   help="one label per segment (domain, document ...): per-subset scores; field --label-field of each "
                        "TAB-separated line, so an mt-metrics-eval .docs file (DOMAIN<TAB>DOCID) gives domains, or "
                        "documents with --label-field 2 (docs/report.md)")
    add_option(p, "label_field")
    p.add_argument("--baseline", metavar="SYSTEM", help="baseline system: file name or 1-based index (default: the first)")
    add_option(p, "resamples")
    add_option(p, "seed")
    add_option(p, "ci_level")
    add_option(p, "examples")
    add_option(p, "alpha", help="significance level of the marks")
    add_option(p, "correction", help="multiple-comparison correction of the marks (as compare)")
    p.add_argument("--no-subset-ci", action="store_true", help="no bootstrap CIs per subset (faster with many labels)")
    p.add_argument("--title", default="mtscore report", help="page title")
    p.add_argument("--no-explore", action="store_true",
                   help="leave out the interactive segment explorer and the per-system analyses (smaller page)")
    add_format_option(p)
    add_option(p, "threads")
    p.set_defaults(func=run, format=None)  # None: not given (a summary when writing HTML)


def _baseline(value, names, paths) -> int:
    if value is None:
        return 0
    if value.isdigit():
        k = int(value)
        if not 1 <= k <= len(names):
            raise InvalidParameterError(f"--baseline: index must be in 1..{len(names)}, got {k}")
        return k - 1
    for i, (n, p) in enumerate(zip(names, paths)):
        if value in (n, p):
            return i
    raise InvalidParameterError.choice("--baseline", value, names)


def run(args: argparse.Namespace) -> int:
    if args.output:
        check_writable(args.output)  # before the work, not after it
    from ..analysis.systems import build_report
    from ..report.html import tables_text
    from ..report.systems import render_html, report_tables
    text = apply_testset(args)
    if text is not None:
        write_stdout(text)
        return 0
    metrics = build_metrics(args)
    say(option_warnings(args))
    syss, refs = load_inputs(args)
    paths = list(syss)
    hints = InputHints(args, metrics, args.refs)  # from the text just read: no input is opened twice
    hints.observe([syss[p] for p in paths], refs)
    say(hints.warnings(paths))
    names = display_names(args, paths)
    from ..metrics.scores import alias_systems
    alias_systems(metrics, paths, names)  # stored scores bind by the shown name or by the file path
    labels = None
    if args.labels:
        labels = read_labels(args.labels, len(refs), args.label_field)
    base = _baseline(args.baseline, names, paths)
    rep = build_report({n: syss[p] for n, p in zip(names, paths)}, refs, metrics, labels, args.resamples, args.seed,
                       args.ci_level, base, args.examples, subset_ci=not args.no_subset_ci, alpha=args.alpha,
                       correction=args.correction)
    tables = report_tables(rep, args.width)
    if args.output:
        explorer, analyses = (None, ()) if args.no_explore else _explore(rep, syss, paths, names, refs, labels,
                                                                         args)
        html = render_html(rep, args.title, args.width, explorer=explorer, analyses=analyses)
        write_file(args.output, html)
        if args.format is None:  # a summary, not every table of the page (docs/report.md, "Text output")
            size = len(html.encode("utf-8", "surrogateescape"))  # as written (io/output.py)
            import textwrap
            hint = "the other tables are on the page, and on stdout with -f text (or json, tsv, csv, latex, markdown)"
            write_stdout(tables_text(tables[:1], "text", terminal_width()) + "\n\n" +
                         "\n".join(textwrap.wrap(hint, terminal_width())) +
                         f"\nreport written to {args.output} ({size / 1024:.0f} KiB)")
            return 0
    if args.format in ("tsv", "csv"):  # one tidy long table of every number (readable by pandas.read_csv)
        from ..report.systems import report_tidy
        from ..report.tables import render_tidy
        write_stdout(render_tidy(report_tidy(rep, args.width), args.format))
        return 0
    if args.format == "json":  # the input file beside each shown name
        from ..report.tables import dumps, json_object
        text = dumps({"tables": [json_object(t) for t in tables], "paths": dict(zip(names, paths))})
    else:
        text = tables_text(tables, args.format or "text", terminal_width())
    write_stdout(text)
    return 0


def terminal_width() -> int:
    """The width text tables are fitted to: ``$COLUMNS``, else the terminal's width, else 100 columns (a pipe or a
    file)."""
    import shutil
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def _explore(rep, syss, paths, names, refs, labels, args):
    """The explorer's data and the per-system analysis tables (analysis/ computes, report/ renders)."""
    from ..analysis.explore import report_analyses
    from ..report.analyses import report_analysis_tables
    an = report_analyses(rep, {n: syss[p] for n, p in zip(names, paths)}, refs, labels, args.resamples, args.seed)
    from ..report.model import view
    explorer = an.explorer
    spans = []
    for sec in rep.metrics:  # XCOMET's error spans, highlighted in the explorer's segment view
        log = getattr(sec.metric, "span_log", None)
        if log and len(log) == len(names):  # one scoring call per system, in the report's order
            from ..analysis.explore import error_spans
            spans.append(error_spans(sec.metric.display_name, [syss[p] for p in paths], log))
    if spans:
        from dataclasses import replace
        explorer = replace(explorer, spans=tuple(spans))
    return explorer, report_analysis_tables(an, args.width, view(rep.metrics[0].metric, args.width))

