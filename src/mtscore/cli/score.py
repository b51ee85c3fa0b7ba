"""``mtscore score``: one table of several systems x several metrics, with signatures."""
from __future__ import annotations

import argparse

from ..report import Table, render_table
from .main import write_stdout
from .options import add_format_option, add_input_options, add_metric_options, build_metrics, load_inputs


def add_parser(sub) -> None:
    p = sub.add_parser("score", help="score systems against references",
                       description="Score one or more systems with one or more metrics.")
    add_input_options(p)
    add_metric_options(p)
    p.add_argument("--sentence-level", action="store_true", help="print one score per segment")
    add_format_option(p)
    p.set_defaults(func=run)


def score_table(systems: dict, refs, metrics, sentence_level: bool = False, digits: int = 2) -> Table:
    results = {name: {m.name: m.stats(hyps, refs) for m in metrics} for name, hyps in systems.items()}
    labels = [m.display_name for m in metrics]
    if not sentence_level:
        rows, full = [], []
        sigs = {}
        for name, by_metric in results.items():
            res = [m.corpus_from_stats(by_metric[m.name]) for m in metrics]
            rows.append([name] + [r.score for r in res])
            full.append({"system": name, "results": [r.as_dict() for r in res]})
            for r in res:
                sigs.setdefault(r.name, r.signature)
        notes = [f"{k}|{v}" for k, v in sigs.items()]
        return Table(["system"] + labels, rows, notes=notes, digits=digits, meta={"results": full})
    rows = []
    per = {name: [m.sentence_scores(by_metric[m.name]) for m in metrics] for name, by_metric in results.items()}
    n = len(refs)
    multi = len(systems) > 1
    cols = ["segment"] + ([f"{s}:{lab}" for s in systems for lab in labels] if multi else labels)
    for i in range(n):
        row = [i + 1]
        for name in systems:
            row += [float(a[i]) for a in per[name]]
        rows.append(row)
    first = next(iter(results.values()))
    notes = [f"{m.display_name}|{m.sentence_signature(first[m.name])}" for m in metrics]
    return Table(cols, rows, notes=notes, digits=digits)


def run(args: argparse.Namespace) -> int:
    metrics = build_metrics(args)
    systems, refs = load_inputs(args)
    table = score_table(systems, refs, metrics, args.sentence_level, args.width)
    write_stdout(render_table(table, args.format))
    return 0
