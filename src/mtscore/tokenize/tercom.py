"""The 'tercom' tokenizer of TER (sacreBLEU 2.6 ``TercomTokenizer``, after Tercom's ``Normalizer.java``).

Steps, in this order (each optional except the last):

1. lowercase with :meth:`str.lower` unless ``case_sensitive``;
2. ``normalized``: join lines (``\\n-`` removed, ``\\n`` -> space), unescape ``&quot; &amp; &lt; &gt;``,
   pad the line with one space on each side, put spaces around ASCII punctuation/symbols, split
   English possessive ``'s``, split ``.``/``,`` unless between digits, split ``-`` after a digit;
   with ``asian_support`` also put spaces around CJK ideographs, strokes, radicals, compatibility
   characters and CJK / full-width punctuation;
3. ``no_punct``: delete ``. , ? : ; ! " ( )`` (with ``asian_support`` also CJK / full-width punctuation);
4. collapse whitespace (``' '.join(s.split())``).

The TER metric applies it to ``line.rstrip()``; an empty line gives ``""``.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

# -- the rules, compiled on first use (21 expressions: ~20 ms, which TER's default options never need) -----------
# ASCII ranges { | } ~, [ \ ] ^ _ `, space ! " # $ % &, ( ) * +, : ; < = > ? @, and /
_SYMBOL = "{|}~" + "[\\]^_`" + " !\"#$%&" + "()*+" + ":;<=>?@" + "/"
_ASIAN_PUNCT = "[\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb]"
_FULL_WIDTH_PUNCT = "[\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09]"


def _kana_rule(lo: str, hi: str):
    # Tercom's rule as sacreBLEU writes it; '^' inside the groups makes it match only a line that is
    # a single kana run, which never happens after the Western step (it pads with spaces). Kept for
    # fidelity, it is a no-op in practice.
    return re.compile(f"(^|^[{lo}-{hi}])([{lo}-{hi}]+)(?=$|^[{lo}-{hi}])"), r"\1 \2 "


@lru_cache(maxsize=1)
def _rules() -> dict:
    """The step-2 and step-3 rules: ``general``, ``western``, ``asian`` (pattern, replacement) pairs, ``punct`` and
    ``asian_punct_del`` patterns."""
    general = (
        (re.compile("\n-"), ""),  # end-of-line hyphenation
        (re.compile("\n"), " "),  # join lines
        (re.compile("&quot;"), '"'),
        (re.compile("&amp;"), "&"),
        (re.compile("&lt;"), "<"),
        (re.compile("&gt;"), ">"),
    )
    western = (
        # ``re.compile("([" + re.escape(_SYMBOL) + "])").sub(r" \1 ", s)``: every one of these characters
        # padded with a space on each side, as one translation table (the same string, without a match object
        # and a template expansion per character: the space itself is one of them)
        (None, {ord(c): f" {c} " for c in _SYMBOL}),
        (re.compile(r"'s "), r" 's "),  # possessives
        (re.compile(r"'s$"), r" 's"),
        (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),  # period/comma unless after a digit
        (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),  # period/comma unless before a digit
        (re.compile(r"([0-9])(-)"), r"\1 \2 "),  # dash after a digit
    )
    asian = (
        (re.compile("([\u4e00-\u9fff\u3400-\u4dbf])"), r" \1 "),  # CJK unified ideographs (+ ext. A)
        (re.compile("([\u31c0-\u31ef\u2e80-\u2eff])"), r" \1 "),  # strokes, radicals supplement
        (re.compile("([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])"), r" \1 "),  # compatibility blocks
        (re.compile("([\u3200-\u3f22])"), r" \1 "),  # enclosed letters and months (and beyond, as upstream)
        _kana_rule("\u3040", "\u309f"),  # hiragana
        _kana_rule("\u30a0", "\u30ff"),  # katakana
        _kana_rule("\u31f0", "\u31ff"),  # katakana phonetic extensions
        (re.compile("(" + _ASIAN_PUNCT + ")"), r" \1 "),
        (re.compile("(" + _FULL_WIDTH_PUNCT + ")"), r" \1 "),
    )
    return {"general": general, "western": western, "asian": asian,
            "punct": re.compile(r"[\.,\?:;!\"\(\)]"),
            "asian_punct_del": (re.compile(_ASIAN_PUNCT), re.compile(_FULL_WIDTH_PUNCT))}


def _apply(rules, s: str) -> str:
    for pat, rep in rules:
        s = s.translate(rep) if pat is None else pat.sub(rep, s)
    return s


def tercom_tokenize(line: str, normalized: bool = False, no_punct: bool = False,
                    asian_support: bool = False, case_sensitive: bool = False) -> str:
    """Tokenize one (already right-stripped) line; tokens joined by single spaces."""
    if not line:
        return ""
    s = line if case_sensitive else line.lower()
    r = _rules()
    if normalized:
        s = _apply(r["western"], " " + _apply(r["general"], s) + " ")
        if asian_support:
            s = _apply(r["asian"], s)
    if no_punct:
        s = r["punct"].sub("", s)
        if asian_support:
            for pat in r["asian_punct_del"]:
                s = pat.sub("", s)
    return " ".join(s.split())


def tercom_words(lines: Sequence[str], normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False) -> list[str]:
    """TER preprocessing of many lines: strings whose ``.split()`` equals
    ``tercom_tokenize(line.rstrip(), ...).split()`` (without normalization or punctuation removal the
    whitespace is left uncollapsed, since only the tokens matter)."""
    if not normalized and not no_punct:
        # only case folding and whitespace collapsing: the token list is all that matters downstream
        if case_sensitive:
            return [ln.rstrip() for ln in lines]
        return [ln.rstrip().lower() for ln in lines]
    return [tercom_tokenize(ln.rstrip(), normalized, no_punct, asian_support, case_sensitive) for ln in lines]
