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


_PROG = ["mtscore sacrebleu"]  # "sacrebleu" under the shim's console script


def run_argv(argv) -> int:
    import sys
    if sys.stdout is None:  # started with stdout closed (>&-): one line and exit 5, as every mtscore command
        from ..errors import OutputError
        raise OutputError("cannot write: standard output is closed", "<stdout>")
    from ..sacrebleu.sacrebleu import run
    return run(list(argv), prog=_PROG[0])


def console_main(argv=None) -> int:
    """The ``sacrebleu`` console script of the shim distribution (shims/sacrebleu) and ``python -m sacrebleu``:
    ``mtscore sacrebleu ARGS`` under sacreBLEU's program name. Returns the exit status."""
    import sys
    from .entry import main
    _PROG[0] = "sacrebleu"
    try:
        return main(["sacrebleu", *(sys.argv[1:] if argv is None else argv)])
    finally:
        _PROG[0] = "mtscore sacrebleu"
