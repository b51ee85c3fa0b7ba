"""``mtscore tokenize``: print tokenized lines (exactly what the metrics see)."""
from __future__ import annotations

import os

from ..errors import InputError, InvalidParameterError
from ..io import read_segments
from ..tokenize import TOKENIZERS, tokenize_corpus
from ..tokenize.external import SPM_MODELS
from .main import write_stdout


def add_parser(sub) -> None:
    p = sub.add_parser("tokenize", help="tokenize a file as the metrics do")
    p.add_argument("file", nargs="?", default="-", help="input file (default: stdin)")
    p.add_argument("--tokenize", "--tok", choices=TOKENIZERS, default="13a")
    p.add_argument("--spm-model", metavar="FILE", default=None,
                   help="SentencePiece model of --tokenize spm/flores101/flores200/spBLEU-1K (default: sacreBLEU's cache)")
    p.add_argument("--lowercase", "--lc", action="store_true")
    from .options import add_bom_option
    add_bom_option(p)  # the file is read as the metrics read segment files (a BOM kept, with a warning)
    p.set_defaults(func=run)


def run(args) -> int:
    tok = args.tokenize
    if args.spm_model is not None:
        if tok not in SPM_MODELS:
            raise InvalidParameterError(f"--spm-model: only with --tokenize {', '.join(SPM_MODELS)}; got --tokenize {tok}")
        if not os.path.isfile(args.spm_model):
            raise InputError("--spm-model: no such file", args.spm_model)
        tok = f"{tok}:{os.path.abspath(args.spm_model)}"
    lines = read_segments(args.file, args.strip_bom)  # exactly what the metrics see (it dropped a BOM silently)
    out = tokenize_corpus(lines, tok, args.lowercase)
    if out:
        write_stdout("\n".join(out))
    return 0
