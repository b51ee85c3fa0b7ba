"""Short, unique system names from file names (``uedin-nmt.4722`` rather than a whole path).

:func:`short_names` removes from every name the longest prefix and the longest suffix that all of them share,
cutting only at separators (``.``, ``-``, ``_``, ``/``): a removed prefix ends with a separator and a removed
suffix starts with one. It never leaves a name empty (each keeps at least one non-separator character) and
never makes two names equal (distinct inputs keep distinct middles). One input keeps its file name (the part
after the last ``/``). :func:`system_names` applies user names (``--names``) instead, after checking them.
"""
from __future__ import annotations

import re
from typing import Sequence

from ..errors import InvalidParameterError

SEPARATORS = "./_-"
_SPLIT = re.compile(r"([./_\-])")


def _tokens(s: str) -> list[str]:
    """``"a.b-c"`` -> ``["a", ".", "b", "-", "c"]``: words at even, separators at odd positions."""
    return _SPLIT.split(s)


def _has_word(toks: Sequence[str]) -> bool:
    return any(t and t not in SEPARATORS for t in toks)


def short_names(paths: Sequence[str]) -> list[str]:
    """Names of ``paths`` with their common prefix and suffix removed at separators (see the module doc)."""
    paths = [str(p) for p in paths]
    if not paths:
        return []
    if len(paths) == 1:
        base = paths[0].rsplit("/", 1)[-1]
        return [base if _has_word(_tokens(base)) else paths[0]]
    toks = [_tokens(p) for p in paths]
    shortest = min(len(t) for t in toks)
    # candidate cut points: a prefix of k tokens ending with a separator (odd index k-1)
    k = 0
    while k < shortest and all(t[k] == toks[0][k] for t in toks):
        k += 1
    pre = [c for c in range(0, k + 1) if c == 0 or (c - 1) % 2 == 1]
    j = 0
    while j < shortest and all(t[-1 - j] == toks[0][-1 - j] for t in toks):
        j += 1
    # a suffix of j tokens starts with a separator: token at index len-j is odd (len is odd for every split)
    suf = [c for c in range(0, j + 1) if c == 0 or (c - 1) % 2 == 1]
    for p in sorted(pre, reverse=True):
        for s in sorted(suf, reverse=True):
            mids = [t[p:len(t) - s] for t in toks]
            if all(len(t) - s >= p and _has_word(m) for t, m in zip(toks, mids)):
                names = ["".join(m) for m in mids]
                if len(set(names)) == len(names):
                    return names
    return list(paths)


def check_names(names: Sequence[str], n: int, option: str = "--names") -> list[str]:
    names = [str(x) for x in names]
    if len(names) != n:
        raise InvalidParameterError(f"{option}: one name per system is needed ({n}), got {len(names)}: {' '.join(names)}")
    for x in names:
        if not x.strip() or any(c in x for c in "\t\n\r"):
            raise InvalidParameterError(f"{option}: names must be non-empty and hold no tab or line break, got {x!r}")
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise InvalidParameterError(f"{option}: names must be unique, got {dup[0]!r} twice")
    return names


def shown_text(name: str) -> str:
    """A name as text: the bytes of a file name that are not UTF-8 (held as surrogate escapes) are shown as
    ``\\xNN``, so that every output that carries the name (HTML, JSON, Parquet) is valid UTF-8."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def system_names(paths: Sequence[str], names: Sequence[str] | None = None) -> list[str]:
    """``names`` (checked: one per path, unique, non-empty) if given, else :func:`short_names`; shown as text
    (:func:`shown_text`)."""
    if names is not None:
        out = [shown_text(x) for x in check_names(names, len(paths))]
    else:
        out = [shown_text(x) for x in short_names(paths)]
    if len(set(out)) != len(out):  # "a\xff" as a file name and as bytes: keep them apart
        return [shown_text(x) for x in (names if names is not None else paths)]
    return out
