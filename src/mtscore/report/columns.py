"""Column-wise text rendering of large numeric tables (``--sentence-level`` output of 100k+ segments).

A sentence-level table is a column of segment numbers and one float64 column per (system, metric). Formatting
it cell by cell in Python (``f"{x:.2f}"``, ``"\\t".join``) costs more than computing the scores; here every
column becomes one byte matrix built with NumPy integer arithmetic and the rows are assembled with one scatter.

Exactness: the text of every cell is the text of Python's ``format(x, f".{d}f")`` (floats; ``str(x)`` for
integers), byte for byte. For a finite float ``x`` and ``d`` decimals, Python prints the exact binary value of
``x`` correctly rounded to ``d`` decimals (ties to even). Here ``y = |x| * 10**d`` is one IEEE product, so
``|y - |x|·10^d| <= ulp(y)/2``; ``round(y)`` is the correctly rounded result unless the fractional part of
``y`` lies within that error of ``.5`` (or ``y`` is too large for exact int64 arithmetic). Those cells --
a handful in 100k scores, and every non-finite value -- are formatted by Python's own ``format`` instead
(``cells_fallback`` counts them for the tests). Signs follow ``math.copysign``: ``-0.0`` and ``-0.001``
print as ``-0.00``, as in Python.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

try:  # the compiled rows (report/ imports no computing stage: the extension module itself, not text.fast)
    from .. import _ckernel
except ImportError:  # not built: the NumPy / Python paths below (tests set this to None to run them)
    _ckernel = None

_POW10 = np.array([10 ** k for k in range(19)], dtype=np.int64)
_BIG = float(2 ** 52)  # |x|·10^d below this: exact int64 arithmetic, and rint's result is exact
_TOL = 2.0 ** -50  # relative; > the error of one product (2^-53) with margin


class _Cells:
    """One column as text: ``chars`` (uint8, rows x width, right-aligned, padded with 0 bytes on the left)
    and ``lens`` (int64, the text's length in bytes)."""

    __slots__ = ("chars", "lens")

    def __init__(self, chars: np.ndarray, lens: np.ndarray):
        self.chars, self.lens = chars, lens


def _digits_of(k: np.ndarray) -> np.ndarray:
    """Number of decimal digits of non-negative int64 values (0 has one)."""
    return np.maximum(np.searchsorted(_POW10, k, side="right"), 1).astype(np.int64)


def _digit_matrix(k: np.ndarray, width: int) -> np.ndarray:
    """The last ``width`` decimal digits of ``0 <= k < 2**52`` as ASCII, one row per value (leading '0's).
    Divisions by a constant on uint32 (NumPy divides those fast; int64 division is ~5x slower)."""
    n = len(k)
    out = np.empty((n, width), dtype=np.uint8)
    parts = [k.astype(np.uint32)] if (not n or int(k.max()) < 2 ** 32) else None
    if parts is None:  # two uint32 halves of 9 digits: k = hi * 10^9 + lo
        hi = k // 1_000_000_000
        parts = [(k - hi * 1_000_000_000).astype(np.uint32), hi.astype(np.uint32)]
    col = width - 1
    for i, r in enumerate(parts):
        stop = max(col - 8, 0) if i + 1 < len(parts) else 0
        while col >= stop:
            q = r // np.uint32(10)
            out[:, col] = r - q * np.uint32(10)
            r = q
            col -= 1
    if col >= 0:
        out[:, :col + 1] = 0
    out += 48
    return out


def _fixed(sign: np.ndarray, k: np.ndarray, d: int) -> _Cells:
    """``[-]I[.F]`` cells of the scaled integers ``0 <= k < 2**52`` (``k / 10**d``, ``d`` decimals)."""
    n = len(k)
    shown = np.maximum(_digits_of(k), d + 1)  # at least one integer digit: 5 with d = 2 is 0.05
    wk = int(shown.max()) if n else d + 1
    digs = _digit_matrix(k, wk)
    digs[np.arange(wk)[None, :] < (wk - shown)[:, None]] = 0  # leading zeros: padding
    wi = wk - d
    chars = np.zeros((n, 1 + wk + (1 if d else 0)), dtype=np.uint8)
    chars[:, 1:1 + wi] = digs[:, :wi]
    if d:
        chars[:, 1 + wi] = ord(".")
        chars[:, 2 + wi:] = digs[:, wi:]
    neg = np.flatnonzero(sign)
    if len(neg):
        chars[neg, wk - shown[neg]] = ord("-")
    lens = sign.astype(np.int64) + shown + (1 if d else 0)
    return _Cells(chars, lens)


def _from_strings(texts: Sequence[str]) -> _Cells:
    raw = [t.encode("utf-8") for t in texts]
    lens = np.fromiter(map(len, raw), dtype=np.int64, count=len(raw))
    width = int(lens.max()) if len(raw) else 0
    chars = np.zeros((len(raw), max(width, 1)), dtype=np.uint8)
    for i, b in enumerate(raw):
        if b:
            chars[i, chars.shape[1] - len(b):] = np.frombuffer(b, dtype=np.uint8)
    return _Cells(chars, lens)


def _overwrite(cells: _Cells, idx: np.ndarray, texts: Sequence[str]) -> _Cells:
    """``cells`` with rows ``idx`` replaced by ``texts`` (widening the matrix if needed)."""
    if not len(idx):
        return cells
    other = _from_strings(texts)
    width = max(cells.chars.shape[1], other.chars.shape[1])
    chars = cells.chars
    if width > chars.shape[1]:
        chars = np.zeros((len(chars), width), dtype=np.uint8)
        chars[:, width - cells.chars.shape[1]:] = cells.chars
    chars[idx] = 0
    chars[idx, width - other.chars.shape[1]:] = other.chars
    lens = cells.lens.copy()
    lens[idx] = other.lens
    return _Cells(chars, lens)


cells_fallback = 0  # cells formatted by Python's format() (ambiguous rounding, non-finite, huge): for the tests


def float_cells(x: np.ndarray, digits: int) -> _Cells:
    """``format(v, f".{digits}f")`` of every value of the float64 array ``x``, as a byte matrix."""
    global cells_fallback
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if digits > 15:  # beyond exact int64 arithmetic of the fractions: Python formats
        cells_fallback += n
        return _from_strings([format(v, f".{digits}f") for v in x.tolist()])
    a = np.abs(x)
    with np.errstate(invalid="ignore", over="ignore"):
        y = a * float(_POW10[digits])
        r = np.rint(y)
        frac = y - np.floor(y)
        bad = ~(y < _BIG) | (np.abs(frac - 0.5) <= y * _TOL)  # NaN / inf / huge, or too close to a tie
    k = np.where(bad, 0.0, r).astype(np.int64)
    cells = _fixed(np.signbit(x), k, digits)
    idx = np.flatnonzero(bad)
    cells_fallback += len(idx)
    return _overwrite(cells, idx, [format(v, f".{digits}f") for v in x[idx].tolist()])


def int_cells(x: np.ndarray) -> _Cells:
    """``str(v)`` of every value of the int64 array ``x``."""
    x = np.asarray(x, dtype=np.int64)
    if len(x) and (int(x.min()) <= -2 ** 52 or int(x.max()) >= 2 ** 52):
        return _from_strings([str(v) for v in x.tolist()])
    return _fixed(x < 0, np.abs(x), 0)


def str_cells(texts: Sequence[str]) -> _Cells:
    return _from_strings(texts)


def join_rows(columns: Sequence[_Cells], sep: str, widths: Sequence[int] | None = None,
              right: Sequence[bool] | None = None, row_end: str = "\n") -> str:
    """Rows of ``columns`` joined by ``sep``, each row ended by ``row_end``. With ``widths`` (text tables) each
    cell is padded with spaces to its column's width: on the left where ``right[i]``, else on the right."""
    n = len(columns[0].lens) if columns else 0
    if n == 0:
        return ""
    sep_b = np.frombuffer(sep.encode("utf-8"), dtype=np.uint8)
    end_b = np.frombuffer(row_end.encode("utf-8"), dtype=np.uint8)
    parts = []
    for i, c in enumerate(columns):
        if i:
            parts.append(np.broadcast_to(sep_b, (n, len(sep_b))))
        m = c.chars
        if widths is not None:
            w = widths[i]  # >= every length in the column
            if w > m.shape[1]:
                m = np.concatenate([np.zeros((n, w - m.shape[1]), dtype=np.uint8), m], axis=1)
            elif w < m.shape[1]:
                m = m[:, m.shape[1] - w:]  # the leading columns are padding only
            if not (right and right[i]):  # left-aligned: move each row's text to its start
                pos = np.arange(m.shape[1])
                src = np.minimum(pos[None, :] + (m.shape[1] - c.lens)[:, None], m.shape[1] - 1)
                m = np.where(pos[None, :] < c.lens[:, None], np.take_along_axis(m, src, axis=1), 0).astype(np.uint8)
            m = np.where(m == 0, np.uint8(32), m)
        parts.append(m)
    parts.append(np.broadcast_to(end_b, (n, len(end_b))))
    mat = np.concatenate(parts, axis=1)
    out = mat.ravel() if widths is not None else mat[mat != 0]  # the padding bytes go; text never holds NUL
    return out.tobytes().decode("utf-8")


def compiled_rows(ints: np.ndarray, floats: Sequence[np.ndarray], digits: Sequence[int], sep: str) -> str | None:
    """The rows ``int<sep>float...\n`` by the compiled ``_ckernel.format_rows`` (the same text as
    :func:`join_rows` of :func:`int_cells` / :func:`float_cells`); ``None`` where the extension is not built: then
    the NumPy path above renders."""
    if _ckernel is None or not hasattr(_ckernel, "format_rows"):
        return None
    raw = _ckernel.format_rows(np.ascontiguousarray(ints, dtype=np.int64),
                               [np.ascontiguousarray(c, dtype=np.float64) for c in floats],
                               [int(d) for d in digits], sep.encode("utf-8"), b"\n")
    return raw.decode("utf-8")


def json_rows(ints: np.ndarray, floats: Sequence[np.ndarray], keys: Sequence[str]) -> str:
    """The ``"rows"`` items of ``json.dumps({..., "rows": [{key: value, ...}, ...]}, indent=2, ensure_ascii=False)``
    for an int column and float columns: ints as ``str``, floats as ``float.__repr__``, NaN / infinities as ``null``
    (as :func:`mtscore.report.tables._json_value` maps them). Compiled (``_ckernel.json_rows``) where built,
    else one Python string template per row."""
    import json

    enc = [json.dumps(k, ensure_ascii=False) for k in keys]
    ints = np.ascontiguousarray(ints, dtype=np.int64)
    floats = [np.ascontiguousarray(c, dtype=np.float64) for c in floats]
    if _ckernel is not None and hasattr(_ckernel, "json_rows"):
        return _ckernel.json_rows(ints, floats, [k.encode("utf-8") for k in enc]).decode("utf-8")
    template = "    {{\n" + ",\n".join(f"      {k.replace('{', '{{').replace('}', '}}')}: {{}}" for k in enc) + "\n    }}"
    cols = [list(map(str, ints.tolist()))] + [[repr(v) if math.isfinite(v) else "null" for v in c.tolist()]
                                               for c in floats]
    return ",\n".join(map(template.format, *cols))
