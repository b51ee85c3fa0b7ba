"""``mtscore demo``: the main job on the built-in sample (400 WMT17 en-de segments, 4 systems)."""
from __future__ import annotations

import argparse
from importlib import resources

from ..errors import InvalidParameterError
from ..io import read_lines
from ..metrics.registry import get_metric_class, metric_names
from ..report import render_table
from .main import write_stdout
from .options import add_format_option
from ..runner import compute_texts
from .score import table as score_table

SAMPLE_SYSTEMS = ("LIUM-NMT", "uedin-nmt", "online-B", "PROMT-Rule-based")
DEMO_METRICS = ("bleu", "bleu-sbp", "nist", "chrf", "chrf++", "ter", "wer", "per", "4-grr", "tbleu", "gtm")


def sample_dir():
    return resources.files("mtscore") / "data" / "sample"


def load_sample():
    d = sample_dir()
    refs = [[r] for r in read_lines(str(d / "newstest2017.en-de.ref.de"))]
    systems = {s: read_lines(str(d / f"{s}.de")) for s in SAMPLE_SYSTEMS}
    return systems, refs


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="score the built-in sample (WMT17 en-de, 400 segments, 4 systems)")
    p.add_argument("-m", "--metrics", nargs="+", default=None,
                   help="metrics (default: every registered metric of: " + " ".join(DEMO_METRICS) + ")")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    names = args.metrics or [m for m in DEMO_METRICS if m in metric_names()]
    if not names:
        raise InvalidParameterError("metrics: none selected")
    metrics = [get_metric_class(n)() for n in names]
    systems, refs = load_sample()
    names, results = compute_texts(systems, refs, metrics)
    table = score_table(names, metrics, results, False, args.width)
    table.title = "Built-in sample: WMT17 English-German, first 400 segments (sacreBLEU test data, Apache-2.0)"
    write_stdout(render_table(table, args.format))
    return 0
