"""``mtscore audit``: the papers' diagnostics on your own systems (see docs/audit.md).

    mtscore audit deletion -r REF1 REF2 REF3 --use-ref 2 -m bleu bleu:compat=mteval-v11b bleu-sbp
    mtscore audit subsets  -r REF -i SYS_A SYS_B --labels domains.txt -m bleu bleu-sbp
    mtscore audit length   -r REF -i SYS [--labels domains.txt]
    mtscore audit sign     -r REF -i SYS_A SYS_B -m bleu bleu-sbp 4-grr
"""
from __future__ import annotations

from ..analysis import deletion_test, length_analysis, subset_paradox
from ..report.audit import deletion_table, length_table, sign_table, subsets_table
from ..errors import InvalidParameterError
from ..io import read_ref_streams
from ..io.labels import read_labels
from ..errors import InputError
from ..metrics.base import stats_for
from ..metrics.bleu import BLEU
from ..report import render_table
from ..report.html import tables_text
from ..tokenize import TOKENIZERS
from ..io.output import check_writable
from .main import write_file, write_stdout
from ..params import add_deprecated, add_option
from .options import add_bom_option, add_format_option, add_metric_options, build_metrics, load_inputs


def add_parser(sub) -> None:
    p = sub.add_parser("audit", help="diagnostics from the papers: deletion, subset paradox, length, sign-test consistency")
    asub = p.add_subparsers(dest="audit_command", metavar="CHECK", parser_class=type(p))
    asub.required = True

    d = asub.add_parser("deletion", help="deletion stress test (CWMT2008 Table 5)")
    d.add_argument("-r", "--refs", nargs="+", required=True, metavar="REF", help="reference files (one per stream)")
    add_bom_option(d)
    add_option(d, "use_ref")
    d.add_argument("--exclude-used", action="store_true", help="score against the other references only")
    d.add_argument("--kinds", nargs="+", default=["words-end", "segments-end"],
                   choices=("words-end", "words-random", "segments-end", "segments-random"))
    add_option(d, "rates")
    add_option(d, "seed", help="seed for random deletion")
    add_metric_options(d, default_metrics=("bleu", "bleu:compat=mteval-v11b,lowercase=false", "bleu-sbp"))
    add_format_option(d)
    _html_option(d)
    add_option(d, "threads")
    d.set_defaults(func=run_deletion)

    s = asub.add_parser("subsets", help="subset (genre) paradox for two systems")
    _inputs(s)
    add_metric_options(s, default_metrics=("bleu", "bleu-sbp"))
    add_format_option(s)
    _html_option(s)
    add_option(s, "threads")
    s.set_defaults(func=run_subsets)

    sg = asub.add_parser("sign", help="composite-set sign test in both directions (Chiang et al. 2008 §3.1)")
    _inputs(sg, labels_required=None)  # the sign test uses no labels: --labels is refused, never ignored
    add_option(sg, "alpha", help="significance level for the verdict")
    add_metric_options(sg, default_metrics=("bleu", "bleu-sbp", "4-grr"))
    add_format_option(sg)
    add_option(sg, "threads")
    sg.set_defaults(func=run_sign)

    ln = asub.add_parser("length", help="length ratios, BP and SBP per reference-length bucket or subset")
    _inputs(ln, labels_required=False)
    add_option(ln, "buckets")
    ln.add_argument("--ref-length", choices=("closest", "shortest", "average"), default="closest",
                    help="effective reference length (default closest)")
    ln.add_argument("--tokenize", "--tok", choices=TOKENIZERS, default="13a", help="tokenizer (default 13a)")
    add_format_option(ln)
    _html_option(ln)
    add_option(ln, "threads")
    ln.set_defaults(func=run_length)


def _html_option(p) -> None:
    add_deprecated(p, "--html", p.add_argument("-o", "--output", dest="html", metavar="FILE",
                                               help="also write a self-contained HTML page with plots"))


def _inputs(p, labels_required: bool | None = True):
    """Input options; ``labels_required=None``: the check takes no labels (no --labels option)."""
    p.add_argument("-r", "--refs", nargs="+", metavar="REF", help="reference files, one per reference stream")
    p.add_argument("-i", "--input", nargs="+", metavar="HYP", help="hypothesis files")
    p.add_argument("--tsv", help=argparse_suppress())
    add_bom_option(p)
    if p.prog.split()[-1] in ("subsets", "sign", "length"):  # systems shown by the names score shows
        from .names import add_names_option
        add_names_option(p)
    if labels_required is None:
        return
    p.add_argument("--labels", required=labels_required, metavar="FILE",
                   help="one label per segment (domain, document ...): field --label-field of each TAB-separated line, "
                        "so an mt-metrics-eval .docs file (DOMAIN<TAB>DOCID) gives domains, or documents with "
                        "--label-field 2 (docs/report.md)")
    add_option(p, "label_field")


def argparse_suppress():
    import argparse
    return argparse.SUPPRESS


def run_deletion(args) -> int:
    if args.html:
        check_writable(args.html)
    metrics = build_metrics(args)
    refs = read_ref_streams(args.refs, args.strip_bom)
    if not refs:
        raise InputError("the file is empty: the deletion test needs at least one segment", args.refs[0])
    if not 1 <= args.use_ref <= len(args.refs):
        raise InvalidParameterError(f"--use-ref: must be in 1..{len(args.refs)}, got {args.use_ref}")
    rep = deletion_test(refs, metrics, use_reference=args.use_ref - 1, kinds=args.kinds, rates=args.rates,
                        include_used=not args.exclude_used, seed=args.seed)
    table = deletion_table(rep, args.width, metrics)
    if args.html:
        from ..report.audit_html import deletion_html
        write_file(args.html, deletion_html(rep, table))
    write_stdout(render_table(table, args.format))
    return 0


def _pair_inputs(args, check: str):
    """Metrics, the two systems ((name, hyps) twice) and the references of a two-system check."""
    metrics = build_metrics(args)
    systems, refs = load_inputs(args)
    if len(systems) != 2:
        raise InvalidParameterError(f"-i/--input: the {check} compares exactly two systems, got {len(systems)}")
    (na, ha), (nb, hb) = systems.items()
    return metrics, (na, ha), (nb, hb), refs, _shown(args, [na, nb])


def _shown(args, paths) -> list[str]:
    """The names every command shows for these -i files (--names, or the short file names)."""
    from .names import display_names
    return display_names(args, paths)


def run_subsets(args) -> int:
    if args.html:
        check_writable(args.html)
    metrics, (na, ha), (nb, hb), refs, (sa, sb) = _pair_inputs(args, "subset check")
    labels = read_labels(args.labels, len(refs), args.label_field)
    reports = [subset_paradox(m, stats_for(m, na, ha, refs), stats_for(m, nb, hb, refs), labels) for m in metrics]
    table = subsets_table(reports, sa, sb, args.width, metrics)
    if args.html:
        from ..report.audit_html import subsets_html
        write_file(args.html, subsets_html(reports, table, sa, sb))
    write_stdout(render_table(table, args.format))
    return 0


def run_sign(args) -> int:
    from ..significance import sign_test
    metrics, (na, ha), (nb, hb), refs, shown = _pair_inputs(args, "sign test")
    results = [sign_test(m, stats_for(m, na, ha, refs), stats_for(m, nb, hb, refs), alpha=args.alpha,
                         names=tuple(shown))
               for m in metrics]
    from ..significance.minimum import untested  # the one rule for tiny samples (docs/significance.md)
    write_stdout(render_table(sign_table(results, metrics=metrics, untested=untested(len(refs))), args.format))
    return 0


def run_length(args) -> int:
    if args.html:
        check_writable(args.html)
    systems, refs = load_inputs(args)
    labels = read_labels(args.labels, len(refs), args.label_field) if args.labels else None
    bleu = BLEU(ref_length=args.ref_length, tokenize=args.tokenize)
    reports, tables = [], []
    for name, hyps in zip(_shown(args, list(systems)), systems.values()):
        rep = length_analysis(bleu.stats(hyps, refs), labels, args.buckets)
        table = length_table(rep)
        table.title = f"Length analysis: {name}"
        reports.append((name, rep))
        tables.append(table)
    if args.html:
        from ..report.audit_html import length_html
        write_file(args.html, length_html(reports, tables))
    if args.format in ("tsv", "csv"):  # one table (a system column), full precision
        from ..report.audit import lengths_tidy
        from ..report.tables import render_tidy
        write_stdout(render_tidy(lengths_tidy([(name, t) for (name, _), t in zip(reports, tables)]), args.format))
        return 0
    write_stdout(tables_text(tables, args.format))
    return 0
