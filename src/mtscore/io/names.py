"""System names from file names: what the files do not share, never a distinguishing word.

:func:`short_names` removes only what is common and meaningless: the directory every file shares (the leading
folders common to all of them; a single file loses its whole directory) and the extension every file shares
(``.txt``, ``.de``: the part of the file name after its last ``.``). Nothing else is cut: ``ONLINE-A.txt``,
``ONLINE-B.txt`` are ``ONLINE-A`` and ``ONLINE-B`` (never ``A``, ``B``); a name is the same alone or beside other
systems with the same extension (``LIUM-NMT.de`` is ``LIUM-NMT`` either way); ``newstest2017.uedin-nmt.4722.en-de``
is ``newstest2017.uedin-nmt.4722``. Distinct paths keep distinct names (only parts shared by all are removed),
and no name is empty. :func:`system_names` applies user names (``--names``) instead, after checking them.
"""
from __future__ import annotations

from typing import Sequence

from ..errors import InvalidParameterError

SEPARATORS = "./_-"


def _extension(base: str) -> str:
    """``.txt`` of ``ONLINE-A.txt``; empty for ``README`` or a dot file such as ``.hyp``."""
    dot = base.rfind(".")
    return base[dot:] if dot > 0 else ""


def short_names(paths: Sequence[str]) -> list[str]:
    """Names of ``paths``: without the shared leading directories and the shared extension (see the module doc)."""
    paths = [str(p) for p in paths]
    if not paths:
        return []
    parts = [p.split("/") for p in paths]
    common = 0  # leading directories shared by all (never the file name itself)
    while all(len(x) - 1 > common and x[common] == parts[0][common] for x in parts):
        common += 1
    rests = ["/".join(x[common:]) for x in parts]
    exts = {_extension(x[-1]) for x in parts}
    ext = exts.pop() if len(exts) == 1 else ""
    if ext and len(set(paths)) == len(paths):
        rests = [r[:-len(ext)] for r in rests]
    return [r or p for r, p in zip(rests, paths)]  # (a path that ends with "/" keeps its whole text)


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
