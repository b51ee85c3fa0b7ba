"""``mtscore sacrebleu ...``: sacreBLEU 2.6's command line as it is (see mtscore.sacrebleu.sacrebleu).

The arguments after ``sacrebleu`` are parsed by the drop-in's own parser (sacreBLEU's options, its
``-q``, ``-h``, ``-V``), not by mtscore's: :func:`run_argv` receives them raw.
"""
from __future__ import annotations

import argparse


def add_parser(sub) -> None:
    p = sub.add_parser("sacrebleu", add_help=False,
                       help="sacreBLEU 2.6's command line, same options and output (docs/sacrebleu.md)")
    p.add_argument("argv", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda args: run_argv(args.argv))


def run_argv(argv) -> int:
    from ..sacrebleu.sacrebleu import run
    return run(list(argv))
