"""sacreBLEU's ``TokenizerRegexp`` (the punctuation step shared by ``13a`` and ``zh``), on mtscore's 13a rules."""
from __future__ import annotations

from ...tokenize._rules import _post_13a
from . import BaseTokenizer

__all__ = ["TokenizerRegexp"]


class TokenizerRegexp(BaseTokenizer):
    """``TokenizerRegexp()(line)``: symbols split off, period and comma split unless next to a digit, a dash
    after a digit split; tokens joined by single spaces. Signature ``re``."""

    def __init__(self):  # no named mtscore tokenizer behind it
        pass

    def signature(self) -> str:
        return "re"

    def __call__(self, line: str) -> str:
        # mtscore's patterns never match a newline (they run over whole corpora); a newline is whitespace to
        # sacreBLEU's, which the final split drops: a space in its place gives the same tokens
        return " ".join(_post_13a(line.replace("\n", " ")).split())
