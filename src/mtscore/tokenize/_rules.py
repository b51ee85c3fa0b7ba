"""The tokenization rules. See docs/definitions.md §1.6 for their provenance.

Whole-corpus versions join the lines with ``\\n`` and run each regular expression once over the
whole text. The patterns exclude ``\\n`` from every character class that could otherwise match
it, so no match ever crosses a line boundary and the result equals the per-line rules exactly.
"""
from __future__ import annotations

import re
from functools import lru_cache

# --- 13a (mteval-v13a "tokenization") and the shared post-tokenizer used by 13a and zh ----------
_RE_SYMBOLS = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")  # note: '\n' is not in the class
_RE_PERIOD_COMMA_AFTER = re.compile(r"([^0-9\n])([\.,])")
_RE_PERIOD_COMMA_BEFORE = re.compile(r"([\.,])([^0-9\n])")
_RE_DASH = re.compile(r"([0-9])(-)")


_PC_SPACED = {".": " . ", ",": " , "}


def _post_13a(text: str) -> str:
    """The four substitutions. ``re.sub`` with a group reference in the template calls back into Python for every
    match on Python 3.11 (millions on a corpus); ``split`` does the same scan in C, and the pieces are joined with
    the template's spaces: ``P.sub(r" \\1 ", t) == " ".join(P.split(t))`` for a pattern of one group, and with
    two groups the split gives ``[text, g1, g2, text, ...]``, of which the templates pad one group's members."""
    text = " ".join(_RE_SYMBOLS.split(text))  # " \1 "
    parts = _RE_PERIOD_COMMA_AFTER.split(text)  # "\1 \2 "
    parts[2::3] = map(_PC_SPACED.__getitem__, parts[2::3])
    parts = _RE_PERIOD_COMMA_BEFORE.split("".join(parts))  # " \1 \2"
    parts[1::3] = map(_PC_SPACED.__getitem__, parts[1::3])
    parts = _RE_DASH.split("".join(parts))  # "\1 \2 "
    parts[2::3] = [" - "] * len(parts[2::3])
    return "".join(parts)


def _pre_13a(line: str) -> str:
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return line


@lru_cache(maxsize=2**16)
def tok_13a(line: str) -> str:
    return " ".join(_post_13a(" " + _pre_13a(line) + " ").split())


# --- intl (mteval-v14 international tokenization) --------------------------------------------------
@lru_cache(maxsize=1)
def _intl_patterns():
    """Compiled on first use: importing ``regex`` costs ~13 ms, which every process would pay."""
    import regex

    return (
        (regex.compile(r"([^\p{N}\n])(\p{P})"), r"\1 \2 "),
        (regex.compile(r"(\p{P})([^\p{N}\n])"), r" \1 \2"),
        (regex.compile(r"(\p{S})"), r" \1 "),
    )


def _intl(text: str) -> str:
    for pat, rep in _intl_patterns():
        text = pat.sub(rep, text)
    return text


@lru_cache(maxsize=2**16)
def tok_intl(line: str) -> str:
    return " ".join(_intl(line).split())


# --- zh ---------------------------------------------------------------------------------------------
# Intended ranges of "Chinese" characters in sacreBLEU's tokenizer_zh (code points, inclusive).
_ZH_RANGES_FIXED = (
    (0x3400, 0x4DB5), (0x4E00, 0x9FA5), (0x9FA6, 0x9FBB), (0xF900, 0xFA2D), (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9), (0x20000, 0x2A6D6), (0x2F800, 0x2FA1D), (0xFF00, 0xFFEF), (0x2E80, 0x2EFF),
    (0x3000, 0x303F), (0x31C0, 0x31EF), (0x2F00, 0x2FDF), (0x2FF0, 0x2FFF), (0x3100, 0x312F),
    (0x31A0, 0x31BF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0x2600, 0x26FF), (0x2700, 0x27BF),
    (0x3200, 0x32FF), (0x3300, 0x33FF),
)


def _quirk_range(lo: int, hi: int) -> tuple[int, int]:
    """sacreBLEU writes the two supplementary-plane ranges as 5-hex-digit ``\\u`` escapes, which
    Python reads as a 4-digit escape plus a literal character. Comparing one character ``c`` with
    such a 2-character string gives: ``c >= "\\u2000" + "0"``  iff  ``ord(c) > 0x2000``, and
    ``c <= "\\u2a6d" + "6"``  iff  ``ord(c) <= 0x2A6D``. This function applies that reading."""
    if lo <= 0xFFFF:
        return lo, hi
    return (lo >> 4) + 1, hi >> 4


_ZH_RANGES_QUIRK = tuple(_quirk_range(lo, hi) for lo, hi in _ZH_RANGES_FIXED)


def _char_class(ranges) -> str:
    return "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in ranges)


@lru_cache(maxsize=None)
def _re_zh(which: str):
    """The character class of ``zh`` / ``zh-fixed``, compiled on first use (about 7 ms: not at import)."""
    return re.compile("([" + _char_class(_ZH_RANGES_QUIRK if which == "zh" else _ZH_RANGES_FIXED) + "])")


def is_chinese_char(ch: str, fixed: bool = False) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in (_ZH_RANGES_FIXED if fixed else _ZH_RANGES_QUIRK))


def _spaced_zh(text: str, which: str) -> str:
    return " ".join(_re_zh(which).split(text))  # re_zh.sub(r" \1 ", text), the scan in C (see _post_13a)


def _tok_zh_line(line: str, which: str) -> str:
    line = _spaced_zh(line.strip(), which)
    return " ".join(_post_13a(line).split())


@lru_cache(maxsize=2**16)
def tok_zh(line: str) -> str:
    return _tok_zh_line(line, "zh")


@lru_cache(maxsize=2**16)
def tok_zh_fixed(line: str) -> str:
    return _tok_zh_line(line, "zh-fixed")


def tok_char(line: str) -> str:
    return " ".join(line)


def tok_none(line: str) -> str:
    return line


LINE_TOKENIZERS = {
    "13a": tok_13a, "intl": tok_intl, "zh": tok_zh, "zh-fixed": tok_zh_fixed,
    "char": tok_char, "none": tok_none,
}


# --- whole-corpus versions --------------------------------------------------------------------------
def _finish(text: str) -> list[str]:
    return [" ".join(ln.split()) for ln in text.split("\n")]


def tokenize_corpus(lines: list[str], name: str, lowercase: bool, rstrip: bool) -> list[str]:
    if not lines:
        return []
    if any("\n" in ln for ln in lines):
        # A line with an embedded newline (API input only; files are split on it) takes the per-line path.
        fn = LINE_TOKENIZERS[name]
        prep = [(ln.lower() if lowercase else ln) for ln in lines]
        return [fn(ln.rstrip() if rstrip else ln) for ln in prep]
    text = "\n".join(lines)
    if lowercase:
        text = text.lower()
    if rstrip:
        text = "\n".join(ln.rstrip() for ln in text.split("\n"))
    if name == "13a":
        compiled = _compiled(text, len(lines), pre_13a=True)
        if compiled is not None:
            return compiled
        text = _pre_13a_corpus(text)
        return _finish(_post_13a(" " + text.replace("\n", " \n ") + " "))
    if name == "intl":
        return _finish(_intl(text))
    if name in ("zh", "zh-fixed"):
        text = _spaced_zh("\n".join(ln.strip() for ln in text.split("\n")), name)
        compiled = _compiled(text, len(lines), pre_13a=False)
        return compiled if compiled is not None else _finish(_post_13a(text))
    if name == "char":
        return [" ".join(ln) for ln in text.split("\n")]
    return text.split("\n")


def _pre_13a_corpus(text: str) -> str:
    # '-\n' and '\n' rules only apply inside a line; lines contain no '\n' here.
    text = text.replace("<skipped>", "")
    if "&" in text:
        text = text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return text


def _compiled(text: str, n_lines: int, pre_13a: bool) -> list[str] | None:
    """The compiled kernel's 13a (``pre_13a``: steps 1-2, then steps 3-8 on the padded line) or zh post-tokenizer
    (steps 3-8 on the line as it is) of the ``n_lines`` lines of ``text``: the same lines as the regular
    expressions give (``tests/tokenize`` compares them); ``None`` where it does not run (``--kernels reference``,
    the extension not built, lone surrogates)."""
    from .._kernels import _ckernel, kernel_backend
    if kernel_backend() != "c":
        return None
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    out = _ckernel.tokenize(data, n_lines, pre_13a, pre_13a)
    return None if out is None else out.decode("utf-8").split("\n")
