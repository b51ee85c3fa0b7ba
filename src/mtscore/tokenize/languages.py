"""Which tokenizer suits a language, and two warnings sacreBLEU users know.

* :func:`tokenizer_for_language`: the tokenizer sacreBLEU 2.6 picks for a target language
  (``zh`` -> ``zh``, ``ja`` -> ``ja-mecab``, ``ko`` -> ``ko-mecab``, anything else -> ``13a``).
* :func:`script_hint`: when most non-space characters of some text are Han, Kana or Hangul, the
  tokenizer that suits it (13a leaves such text almost unsplit: WMT21 en-zh scored with 13a gives
  2.21 BLEU where ``zh`` gives 48.12).
* :func:`looks_tokenized`: sacreBLEU's "100 lines end in a tokenized period" test.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable

LANGUAGE_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
TOKENIZED_PERIOD_LINES = 100  # sacreBLEU's threshold
TOKENIZED_WARNING = ("That's 100 lines that end in a tokenized period ('.'). It looks like you forgot to "
                     "detokenize your test data, which may hurt your score.")


def tokenizer_for_language(lang: str | None) -> str:
    """sacreBLEU's choice for target language ``lang`` (an ISO 639-1 code such as ``ja``)."""
    return LANGUAGE_TOKENIZERS.get((lang or "").strip().lower(), "13a")


@lru_cache(maxsize=1)
def _script_patterns():
    import regex

    return (regex.compile(r"\p{Han}"), regex.compile(r"[\p{Hiragana}\p{Katakana}]"), regex.compile(r"\p{Hangul}"),
            regex.compile(r"\s"))


# The Unicode blocks that hold every Han, Hiragana, Katakana and Hangul character (a superset: the
# regex module's script tables are the reference; tests/contracts/test_startup.py checks that each of its characters
# is inside). Text with none of them (most text) needs no script count and no import of ``regex``.
CJK_BLOCKS = ("\u1100-\u11ff\u2e80-\u2fdf\u3000-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff00-\uffef"
              "\U00016fe0-\U00016fff\U0001aff0-\U0001b2ff\U0001f200-\U0001f2ff\U00020000-\U0003ffff")


@lru_cache(maxsize=1)
def _maybe_cjk():
    import re

    return re.compile(f"[{CJK_BLOCKS}]")


def _head_text(lines: Iterable[str], max_chars: int) -> str:
    parts, n = [], 0
    for ln in lines:
        parts.append(ln)
        n += len(ln)
        if n >= max_chars:
            break
    return "\n".join(parts)[:max_chars]


def script_counts(lines: Iterable[str], max_chars: int = 200_000) -> dict[str, int]:
    """Counts of Han, Kana, Hangul and all non-space characters in the first ``max_chars`` characters."""
    return _script_counts(_head_text(lines, max_chars))


def _script_counts(text: str) -> dict[str, int]:
    han, kana, hangul, space = _script_patterns()
    return {"han": len(han.findall(text)), "kana": len(kana.findall(text)), "hangul": len(hangul.findall(text)),
            "nonspace": len(text) - len(space.findall(text))}


def script_hint(lines: Iterable[str], max_chars: int = 200_000) -> str | None:
    """The tokenizer that suits text whose non-space characters are mostly Han, Kana or Hangul
    (``ko-mecab`` when Hangul leads, ``ja-mecab`` when there is Kana, else ``zh``); ``None`` otherwise."""
    text = _head_text(lines, max_chars)
    # Without the regex module where the answer is sure (most text, ~30 ms of import and compile saved): the CJK
    # blocks hold every Han, Kana and Hangul character (a superset), and every character regex's \s matches is
    # str.isspace(), so the characters str.split() keeps are at most the non-space count; if the superset is no
    # majority of them, there is no hint.
    superset = len(_maybe_cjk().findall(text))
    if 2 * superset <= sum(map(len, text.split())):  # str.split() drops exactly the str.isspace() characters
        return None
    c = _script_counts(text)
    cjk = c["han"] + c["kana"] + c["hangul"]
    if c["nonspace"] == 0 or 2 * cjk <= c["nonspace"]:
        return None
    if c["hangul"] >= c["han"] + c["kana"]:
        return "ko-mecab"
    if 10 * c["kana"] >= cjk:  # Japanese prose is about half Kana; Chinese has none
        return "ja-mecab"
    return "zh"


def looks_tokenized(lines: Iterable[str]) -> bool:
    """True when at least 100 lines end in ``" ."`` (sacreBLEU's check on hypotheses, before stripping)."""
    n = 0
    for ln in lines:
        if ln.endswith(" ."):
            n += 1
            if n >= TOKENIZED_PERIOD_LINES:
                return True
    return False
