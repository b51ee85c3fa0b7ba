"""``mtscore lcm``: linguistic check-point scores per category, per level and general, for several systems.

``mtscore score -m lcm`` prints only the general score; this command prints the diagnostic table.
"""
from __future__ import annotations

import argparse

from ..metrics.lcm import LCM, languages
from ..params import add_option
from ..report import render_table
from ..report.lcm import lcm_table
from ..tokenize import TOKENIZERS
from .main import write_stdout
from .names import add_names_option, display_names
from .options import add_format_option, add_input_options, load_inputs


def add_parser(sub) -> None:
    p = sub.add_parser("lcm", help="linguistic check-point (LCM-lite) scores per category",
                       description="Score systems on linguistic check-points (CWMT2008's LCM, docs/definitions.md §10): "
                                   "one row per category, level and the general score, one column per system.")
    add_input_options(p)
    p.add_argument("--lcm-lang", dest="lang", default="en", choices=languages(),
                   help="function-word lists for the built-in extraction (default en; none = no function words)")
    p.add_argument("--checkpoints", metavar="FILE",
                   help="user check-points (SEGMENT<TAB>CATEGORY<TAB>LEVEL<TAB>WORDS) instead of the built-in extraction")
    p.add_argument("--tokenize", "--tok", choices=TOKENIZERS, default="13a", help="tokenizer (default 13a)")
    p.add_argument("--lowercase", "--lc", action="store_true", help="lowercase before matching")
    add_names_option(p)
    add_format_option(p)
    add_option(p, "threads")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    metric = LCM(lang=args.lang, checkpoints=args.checkpoints, tokenize=args.tokenize, lowercase=args.lowercase)
    systems, refs = load_inputs(args)
    shown = display_names(args, list(systems))  # the names every command shows (mtscore.io.names)
    stats = {name: metric.stats(hyps, refs) for name, hyps in zip(shown, systems.values())}
    write_stdout(render_table(lcm_table(metric, stats, digits=args.width), args.format))
    return 0
