"""``mtscore rescore DIR``: scores from saved per-segment statistics, without the text."""
from __future__ import annotations

from ..backends.store import load_stats
from ..report import render_table
from .main import write_stdout
from .options import add_format_option
from .score import table


def add_parser(sub) -> None:
    p = sub.add_parser("rescore", help="score from statistics saved with 'score --save-stats'")
    p.add_argument("stats", help="directory (or one .parquet file) written by --save-stats")
    p.add_argument("--sentence-level", action="store_true", help="print one score per segment")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    results = load_stats(args.stats)
    names = list(dict.fromkeys(s for s, _ in results))
    metrics = list({label: results[(s, label)].metric for s, label in results}.values())
    write_stdout(render_table(table(names, metrics, results, args.sentence_level, args.width), args.format))
    return 0
