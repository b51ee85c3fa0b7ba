"""``mtscore tokenize``: print tokenized lines (exactly what the metrics see)."""
from __future__ import annotations

from ..io import read_lines
from ..tokenize import TOKENIZERS, tokenize_corpus
from .main import write_stdout


def add_parser(sub) -> None:
    p = sub.add_parser("tokenize", help="tokenize a file as the metrics do")
    p.add_argument("file", nargs="?", default="-", help="input file (default: stdin)")
    p.add_argument("--tokenize", "--tok", choices=TOKENIZERS, default="13a")
    p.add_argument("--lowercase", "--lc", action="store_true")
    p.set_defaults(func=run)


def run(args) -> int:
    lines = read_lines(args.file)
    out = tokenize_corpus(lines, args.tokenize, args.lowercase)
    if out:
        write_stdout("\n".join(out))
    return 0
