"""``mtscore sacrebleu ...``: sacreBLEU 2.6's command line as it is (see mtscore.compat.sacrebleu_cli).

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
    import sys
    if sys.stdout is None:  # started with stdout closed (>&-): one line and exit 5, as every mtscore command
        from ..errors import OutputError
        raise OutputError("cannot write: standard output is closed", "<stdout>")
    from ..compat.sacrebleu_cli import run
    return run(list(argv))
