"""Warnings about the tokenizer (one line each on stderr; the scores are computed as asked):

* ``-l SRC-TGT`` with TGT zh, ja or ko and another ``--tokenize``: sacreBLEU's "Consider using the ... tokenizer";
* ``-t`` with ``--tokenize none``: sacreBLEU's "You are turning off BLEU's internal tokenizer ...";
* the references are mostly Han, Kana or Hangul but are scored with 13a, which the user did not choose
  (no ``--tokenize``, no ``-l``): the warning names the tokenizer that suits them;
* a hypothesis file has 100 or more lines ending in a tokenized period (``" ."``): sacreBLEU's warning that the
  output looks tokenized. ``--force`` silences it, as in sacreBLEU.
"""
from __future__ import annotations

import dataclasses
import gzip
import zlib
import re
import sys

from ..tokenize import looks_tokenized, script_hint
from ..tokenize.languages import TOKENIZED_PERIOD_LINES, TOKENIZED_WARNING
from .options import option_dest, parse_metric_spec

SAMPLE_BYTES = 1 << 18
_TOK_PERIOD = re.compile(rb" \.[ \t\r\x0b\x0c]*(?:\n|\Z)")
_EXAMPLE_TGT = {"zh": "zh", "ja-mecab": "ja", "ko-mecab": "ko"}
_LANG_NAMES = {"zh": ("zh", "Chinese"), "ja": ("ja-mecab", "Japanese"), "ko": ("ko-mecab", "Korean")}


def _head(path: str, n: int = SAMPLE_BYTES) -> str:
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as fh:
                data = fh.read(n)
        else:
            with open(path, "rb") as fh:
                data = fh.read(n)
    except (OSError, EOFError, zlib.error, MemoryError):
        return ""  # the reader reports unreadable files with their own error
    return data.decode("utf-8", errors="ignore")


def _default_13a(args, metrics) -> bool:
    """Some metric tokenizes with 13a without the user having chosen a tokenizer."""
    if getattr(args, option_dest("tokenize"), None) is not None or getattr(args, "langpair", None):
        return False
    inline = {parse_metric_spec(s)[0] for s in getattr(args, "metrics", []) if "tokenize=" in s}
    for m in metrics:
        fields = {f.name for f in dataclasses.fields(m.config)} if dataclasses.is_dataclass(m.config) else set()
        if "tokenize" in fields and getattr(m.config, "tokenize", None) == "13a" and m.name not in inline:
            return True
    return False


def tokenizer_warnings(args, metrics, ref_paths, hyp_paths) -> list[str]:
    """The warning lines for these inputs (empty when there is nothing to say)."""
    out = []
    lp = getattr(args, "langpair", None)
    chosen = getattr(args, option_dest("tokenize"), None)
    if lp and chosen is not None and "-" in lp:
        tgt = lp.split("-", 1)[1].lower()
        if tgt in _LANG_NAMES and chosen != _LANG_NAMES[tgt][0]:  # sacreBLEU's warning, same words
            out.append(f"mtscore: warning: Consider using the '{_LANG_NAMES[tgt][0]}' or 'spm' tokenizer for "
                       f"{_LANG_NAMES[tgt][1]}.")
    if getattr(args, "testset", None) and chosen == "none":  # sacreBLEU's words
        out.append("mtscore: warning: You are turning off BLEU's internal tokenizer presumably to supply your own "
                   "tokenized files. Published numbers will not be comparable to other papers.")
    refs = [p for p in (ref_paths or []) if p != "-"]
    if refs and _default_13a(args, metrics):
        better = script_hint([_head(refs[0])])
        if better is not None:
            out.append(f"mtscore: warning: most characters of the references ({refs[0]}) are Han, Kana or Hangul, which "
                       f"13a leaves unsplit; score them with --tokenize {better} (or -l SRC-{_EXAMPLE_TGT[better]})")
    if not getattr(args, "force", False) and any(hasattr(m.config, "tokenize") for m in metrics):
        for p in hyp_paths or []:
            if p == "-":
                continue
            try:
                opener = gzip.open if p.endswith(".gz") else open
                with opener(p, "rb") as fh:
                    n = tokenized_period_lines(fh, TOKENIZED_PERIOD_LINES)
            except (OSError, EOFError, zlib.error, MemoryError):  # the reader reports these with its own error
                continue
            if n >= TOKENIZED_PERIOD_LINES:
                out.append(f"mtscore: warning: {p}: {TOKENIZED_WARNING} (--force silences this)")
    return out


def tokenized_period_lines(fh, stop: int | None = None, block: int = 1 << 20) -> int:
    """Lines of the binary file ``fh`` that end in a tokenized period (``" ."``, then optional spaces, tabs or
    CR), counted block by block (memory: one block, not the file) until ``stop`` is reached."""
    n, tail = 0, b""
    while stop is None or n < stop:
        data = fh.read(block)
        if not data:
            return n + len(_TOK_PERIOD.findall(tail))  # the last line, without a line break
        data = tail + data
        cut = data.rfind(b"\n") + 1  # whole lines only: a match ends at a line break (or the end of the file)
        n += len(_TOK_PERIOD.findall(data, 0, cut))
        tail = data[cut:]
    return n


def warn_tokenizer(args, metrics, ref_paths, hyp_paths) -> None:
    for line in tokenizer_warnings(args, metrics, ref_paths, hyp_paths):
        sys.stderr.write(line + "\n")


__all__ = ["tokenizer_warnings", "warn_tokenizer", "looks_tokenized"]
