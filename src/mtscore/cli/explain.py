"""``mtscore explain``: how a metric scores one segment (tBLEU: matching, corrections, weights).

Give the segment as text (``--hyp TEXT --ref TEXT [--ref TEXT ...]``) or pick it from files
(``-i HYP -r REF [REF ...] --segment N`` or ``--tsv FILE --segment N``; N is 1-based).
"""
from __future__ import annotations

import argparse

from ..errors import InvalidParameterError
from ..report.tbleu import EXPLAIN_FORMATS, render_explanation
from .main import write_stdout
from ..params import add_option
from .options import add_format_option, add_input_options, add_metric_options, build_metrics, load_inputs

EXPLAINABLE = ("tbleu",)


def add_parser(sub) -> None:
    p = sub.add_parser("explain", help="explain how a metric scores one segment (tBLEU)",
                       description="Show the word matching, corrected words, weights and credited n-grams "
                                   "tBLEU uses for one segment (as Figure 1 of Libovický & Pecina 2014).")
    p.add_argument("--hyp", metavar="TEXT", help="the hypothesis segment as text")
    p.add_argument("--ref", metavar="TEXT", action="append", help="a reference segment as text (repeatable)")
    add_input_options(p)
    add_option(p, "segment")
    add_metric_options(p, default_metrics=EXPLAINABLE, accepted=EXPLAINABLE)
    add_format_option(p, width=3, formats=EXPLAIN_FORMATS)
    p.set_defaults(func=run)


def _segment(args: argparse.Namespace) -> tuple[str, list[str]]:
    files = bool(args.refs or args.input or args.tsv)
    if args.hyp is not None or args.ref:
        if files or args.segment is not None:
            raise InvalidParameterError("--hyp/--ref: give the segment as text or as files (-i/-r/--tsv with "
                                        "--segment), not both")
        if args.hyp is None or not args.ref:
            raise InvalidParameterError("--hyp/--ref: both a hypothesis (--hyp) and at least one --ref are needed")
        return args.hyp, list(args.ref)
    if not files:
        raise InvalidParameterError("explain: give --hyp TEXT --ref TEXT, or files (-i HYP -r REF / --tsv) "
                                    "with --segment N")
    if args.input and len(args.input) != 1:
        raise InvalidParameterError(f"-i/--input: explain takes one hypothesis file, got {len(args.input)}")
    systems, refs = load_inputs(args)
    hyps = next(iter(systems.values()))
    if args.segment is None:
        raise InvalidParameterError("--segment: required with file input (1-based segment number)")
    if not 1 <= args.segment <= len(hyps):
        raise InvalidParameterError(f"--segment: must be in 1..{len(hyps)}, got {args.segment}")
    return hyps[args.segment - 1], refs[args.segment - 1]


def run(args: argparse.Namespace) -> int:
    for m in args.metrics:
        if m.lower() not in EXPLAINABLE:
            raise InvalidParameterError.choice("metric (explain)", m, EXPLAINABLE)
    hyp, refs = _segment(args)
    out = []
    for metric in build_metrics(args):
        out.append(render_explanation(metric.explain(hyp, refs), args.format, args.width))
    write_stdout("\n\n".join(out))
    return 0
