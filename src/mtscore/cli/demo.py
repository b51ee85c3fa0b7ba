"""``mtscore demo``: the main job on the built-in sample (400 WMT17 en-de segments, 4 systems)."""
from __future__ import annotations

import argparse
from importlib import resources

from ..errors import InvalidParameterError
from ..io import read_lines
from ..params import add_option
from ..metrics.registry import get_metric_class, metric_names
from ..report import render_table
from .main import write_stdout
from .options import add_format_option, make_metric
from ..runner import compute_texts
from .score import table as score_table

SAMPLE_SYSTEMS = ("LIUM-NMT", "uedin-nmt", "online-B", "PROMT-Rule-based")
# tBLEU with a tolerance at which it differs from BLEU on this sample (its default 0.05 changes no match here)
DEMO_METRICS = ("bleu", "bleu-sbp", "nist", "chrf", "chrf++", "ter", "wer", "per", "4-grr", "tbleu:epsilon=0.2",
                "gtm")
# what each metric shows (printed under the demo table)
PURPOSE = {
    "bleu": "BLEU: n-gram precision with a brevity penalty, exactly as sacreBLEU",
    "bleu-sbp": "BLEU-SBP: BLEU whose strict brevity penalty stops long segments paying for short ones",
    "nist": "NIST: information-weighted n-gram matches (rare n-grams count more), as mteval-v13a",
    "chrf": "chrF: character n-gram F-score, robust to morphology",
    "chrf++": "chrF++: chrF with word unigrams and bigrams",
    "ter": "TER: edits, including block shifts, per reference word",
    "wer": "WER: word edits per reference word (no shifts)",
    "per": "PER: WER ignoring word order",
    "4-grr": "4-GRR: n-gram recognition rate, decomposable per sentence (for oracles and MBR)",
    "tbleu": "tBLEU: BLEU with partial credit for inflected forms (affix distance at most epsilon); the demo uses "
             "eps:0.2, since at the default 0.05 no word of this sample is credited and tBLEU equals BLEU",
    "gtm": "GTM: F-measure of maximal matching word runs",
}


def sample_dir():
    return resources.files("mtscore") / "data" / "sample"


def load_sample():
    d = sample_dir()
    refs = [[r] for r in read_lines(str(d / "newstest2017.en-de.ref.de"))]
    systems = {s: read_lines(str(d / f"{s}.de")) for s in SAMPLE_SYSTEMS}
    return systems, refs


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="score the built-in sample (WMT17 en-de, 400 segments, 4 systems)")
    from .options import ExtendOnce
    p.add_argument("-m", "--metrics", nargs="+", action=ExtendOnce, default=None,
                   help="metrics (default: every registered metric of: " + " ".join(DEMO_METRICS) + ")")
    add_format_option(p)
    add_option(p, "threads")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    specs = args.metrics or [m for m in DEMO_METRICS if m.partition(":")[0] in metric_names()]
    if not specs:
        raise InvalidParameterError("metrics: none selected")
    metrics, purposes = [], []
    for spec in specs:
        m = make_metric(spec)
        name = spec.partition(":")[0].strip().lower()
        if name == "tbleu" and ":" in spec:  # the column spells the parameter as the signature does (eps:0.2)
            m.relabel(f"{m.signature_name}[eps:{m.config.epsilon:g}]")
        metrics.append(m)
        if name in PURPOSE:
            purposes.append(PURPOSE[name])
    systems, refs = load_sample()
    names, results = compute_texts(systems, refs, metrics)
    table = score_table(names, metrics, results, False, args.width)
    table.title = "Built-in sample: WMT17 English-German, first 400 segments (sacreBLEU test data, Apache-2.0)"
    if args.format in ("text", "markdown"):  # what each metric shows: for readers, beside the legend
        table.legend = list(table.legend) + ([""] if args.format == "text" else []) + purposes
    write_stdout(render_table(table, args.format))
    return 0
