"""Tokenizers, byte-for-byte identical to sacreBLEU 2.6 (13a, intl, zh, char, none, ja-mecab, ko-mecab,
spm, flores101, flores200, spBLEU-1K) plus ``zh-fixed``.

Two entry points:

* :func:`get_tokenizer` returns a per-line function ``str -> str`` (tokens joined by single spaces);
* :func:`tokenize_corpus` tokenizes a whole list of lines at once (whole-text regular expressions),
  which is what the metrics use. Both give identical output; tests check them against sacreBLEU.

A tokenizer is named by a *spec*: one of :data:`TOKENIZERS`, or ``NAME:MODEL_PATH`` for the SentencePiece
tokenizers (see :mod:`mtscore.tokenize.external`, which also holds the optional-package ones).
:func:`tokenizer_signature` gives the name that goes into signatures (sacreBLEU's: ``ja-mecab-0.996-IPA``).
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..errors import InvalidParameterError
from ..params import provide
from . import _rules
from .external import EXTERNAL, is_external, split_spec
from .languages import looks_tokenized, script_hint, tokenizer_for_language

BUILTIN: tuple[str, ...] = ("13a", "intl", "zh", "zh-fixed", "char", "none")
TOKENIZERS: tuple[str, ...] = BUILTIN + EXTERNAL
DEFAULT_TOKENIZER = "13a"


def check_tokenizer(name: str) -> str:
    """Validate a tokenizer spec (the name, and the ``NAME:MODEL`` form); loads nothing."""
    if not isinstance(name, str):
        raise InvalidParameterError.choice("tokenize", name, TOKENIZERS)
    base, _ = split_spec(name)  # rejects NAME:PATH for tokenizers that take no model
    if base not in TOKENIZERS:
        raise InvalidParameterError.choice("tokenize", name, TOKENIZERS)
    return name


def _is_tokenizer_spec(value: str) -> bool:
    try:
        check_tokenizer(value)
    except InvalidParameterError:
        return False
    return True


provide("tokenizers", TOKENIZERS)  # the tokenizer names and spec rule of the parameter layer's `tokenize`
provide("tokenizer_spec", _is_tokenizer_spec)


def get_tokenizer(name: str) -> Callable[[str], str]:
    """Per-line tokenizer (the plain reference path)."""
    check_tokenizer(name)
    if is_external(name):
        from .external import line_tokenizer

        return line_tokenizer(name)
    return _rules.LINE_TOKENIZERS[name]


def tokenize_corpus(lines: Sequence[str], name: str = DEFAULT_TOKENIZER, lowercase: bool = False,
                    rstrip: bool = True) -> list[str]:
    """Tokenize many lines at once; identical to ``[get_tokenizer(name)(l) for l in lines]``.

    ``lowercase`` applies :meth:`str.lower` before tokenizing, and ``rstrip`` removes trailing
    whitespace first, exactly as sacreBLEU's BLEU preprocessing does.
    """
    check_tokenizer(name)
    if is_external(name):
        from .external import tokenize_lines

        prep = [(ln.lower() if lowercase else ln) for ln in lines]
        return tokenize_lines([ln.rstrip() if rstrip else ln for ln in prep], name)
    return _rules.tokenize_corpus(list(lines), name, lowercase, rstrip)


def tokenizer_signature(name: str) -> str:
    """The ``tok:`` value of signatures: the name, or sacreBLEU's versioned name for the external ones
    (``ja-mecab-0.996-IPA``; loads the package, so a missing one is reported here)."""
    check_tokenizer(name)
    if is_external(name):
        from .external import signature

        return signature(name)
    return name


provide("tokenizer_signature", tokenizer_signature)  # how signatures write `tokenize` (params.TOKENIZE's `tok`)

__all__ = ["TOKENIZERS", "BUILTIN", "DEFAULT_TOKENIZER", "get_tokenizer", "tokenize_corpus", "check_tokenizer",
           "tokenizer_signature", "tokenizer_for_language", "script_hint", "looks_tokenized"]
