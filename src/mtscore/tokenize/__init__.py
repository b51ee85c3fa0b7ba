"""Tokenizers, byte-for-byte identical to sacreBLEU 2.6 (13a, intl, zh, char, none) plus ``zh-fixed``.

Two entry points:

* :func:`get_tokenizer` returns a per-line function ``str -> str`` (tokens joined by single spaces);
* :func:`tokenize_corpus` tokenizes a whole list of lines at once (whole-text regular expressions),
  which is what the metrics use. Both give identical output; tests check them against sacreBLEU.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..errors import InvalidParameterError
from . import _rules

TOKENIZERS: tuple[str, ...] = ("13a", "intl", "zh", "zh-fixed", "char", "none")
DEFAULT_TOKENIZER = "13a"


def check_tokenizer(name: str) -> str:
    if name not in TOKENIZERS:
        raise InvalidParameterError.choice("tokenize", name, TOKENIZERS)
    return name


def get_tokenizer(name: str) -> Callable[[str], str]:
    """Per-line tokenizer (the plain reference path)."""
    check_tokenizer(name)
    return _rules.LINE_TOKENIZERS[name]


def tokenize_corpus(lines: Sequence[str], name: str = DEFAULT_TOKENIZER, lowercase: bool = False,
                    rstrip: bool = True) -> list[str]:
    """Tokenize many lines at once; identical to ``[get_tokenizer(name)(l) for l in lines]``.

    ``lowercase`` applies :meth:`str.lower` before tokenizing, and ``rstrip`` removes trailing
    whitespace first, exactly as sacreBLEU's BLEU preprocessing does.
    """
    check_tokenizer(name)
    return _rules.tokenize_corpus(list(lines), name, lowercase, rstrip)


__all__ = ["TOKENIZERS", "DEFAULT_TOKENIZER", "get_tokenizer", "tokenize_corpus", "check_tokenizer"]
