"""Line-exact text reading.

Rules (documented in docs/input.md):

* Files are UTF-8. Invalid UTF-8 raises :class:`InputError` naming the file and the 1-based line.
* Lines are split on ``\\n`` only. A ``\\r`` right before ``\\n`` (CRLF) is removed; any other
  character, including a lone ``\\r``, ``\\x0b``, ``\\x0c``, ``\\u2028``, stays inside its line.
* A UTF-8 byte-order mark (U+FEFF) at the very start of a *segment* file (hypotheses, references,
  TSV corpora, standard input: :func:`read_segments` and the readers built on it) is kept as part of
  the first segment, exactly as sacreBLEU reads it, so default scores equal sacreBLEU's and the
  published WMT numbers; an :class:`~mtscore.errors.InputWarning` names the file, and
  ``strip_bom=True`` (CLI ``--strip-bom``) removes it. In other files (human scores, lists, n-best
  lists: :func:`read_lines`) a leading BOM is an encoding mark and is removed.
* ``"a\\nb\\n"`` and ``"a\\nb"`` are both two segments; an empty file is zero segments; an empty line is
  a segment (an empty hypothesis or an empty reference).
* ``-`` reads standard input; names ending in ``.gz`` are decompressed.
"""
from __future__ import annotations

import gzip
import os
import sys
import zlib
import warnings
from typing import Sequence

from .._testhooks import fault_point
from ..errors import InputError, InputWarning, plural
from .output import note_input

_BOM = "\ufeff"


def _read_bytes(path: str) -> bytes:
    try:
        fault_point("read")
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as raw:
            note_input(path, raw.fileno())  # no output of this run may replace it (io.output)
            if path.endswith(".gz"):
                with gzip.GzipFile(fileobj=raw) as fh:
                    return fh.read()
            return raw.read()
    except MemoryError:
        raise InputError("the file is too large for the memory available", path) from None
    except (OSError, EOFError, zlib.error) as exc:  # gzip errors are OSError / EOFError / zlib.error
        raise read_error(exc, path) from None


def read_error(exc: BaseException, path: str, lines_read: int | None = None) -> InputError:
    """One message per way a read can fail (no line number: none of these is about a line)."""
    after = f" after {lines_read} complete line{'s' if lines_read != 1 else ''}" if lines_read else ""
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", path)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, not a file", path)
    if isinstance(exc, PermissionError):
        return InputError("permission denied", path)
    if isinstance(exc, EOFError):
        return InputError(f"the gzip data ends early (a truncated .gz file){after}", path)
    if isinstance(exc, gzip.BadGzipFile) and str(exc).startswith("Not a gzipped file"):
        return InputError(f"not a gzip file ({exc}); only names ending in .gz are decompressed", path)
    if isinstance(exc, gzip.BadGzipFile):
        return InputError(f"corrupt gzip data{after} ({exc})", path)
    if isinstance(exc, zlib.error):
        return InputError(f"corrupt gzip data{after} ({exc})", path)
    if isinstance(exc, OSError):
        return InputError(f"cannot read: {exc.strerror or exc}", path)
    return InputError(f"cannot read: {exc}", path)


def too_long(path: str, line: int, nbytes: int) -> InputError:
    return InputError(f"line too long for the memory available ({plural(nbytes, 'byte')} without a line break read)",
                      path, line)


def warn_bom(path: str) -> None:
    """Warn (once per file and run) that the segment file ``path`` starts with a byte-order mark."""
    warnings.warn(InputWarning(
        f"{'standard input' if path == '-' else path}: starts with a UTF-8 byte-order mark (U+FEFF); it is kept "
        "as part of segment 1, as sacreBLEU and the published WMT scores read it (--strip-bom removes it)"),
        stacklevel=2)


def decode_lines(data: bytes, path: str = "<bytes>", bom: str = "strip") -> list[str]:
    """Decode UTF-8 bytes into lines following the module rules.

    ``bom``: what a leading byte-order mark becomes: ``"strip"`` (removed, an encoding mark),
    ``"keep"`` (kept as part of line 1, as sacreBLEU reads segment files; a warning names the file)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at byte offset {exc.start}); files must be UTF-8",
            path,
            line,
        ) from None
    if text.startswith(_BOM):
        if bom == "strip":
            text = text[1:]
        else:
            warn_bom(path)
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    return lines


def count_detail(pairs) -> str:
    """``"a has 5 lines, b has 1 line"`` for (name, count) pairs: the wording of every length error."""
    return ", ".join(f"{name} has {n} line{'' if n == 1 else 's'}" for name, n in pairs)


def read_lines(path: str | os.PathLike) -> list[str]:
    """Read a text file (``-`` = stdin, ``.gz`` ok) into a list of lines; a leading BOM is removed."""
    path = os.fspath(path)
    data = _read_bytes(path)
    try:
        return decode_lines(data, path)
    except MemoryError:
        raise InputError(f"the file is too large for the memory available ({plural(len(data), 'byte')})", path) from None


def read_segments(path: str | os.PathLike, strip_bom: bool = False) -> list[str]:
    """Read a segment file (hypotheses, references; ``-`` = stdin, ``.gz`` ok), one segment per line.

    A leading byte-order mark stays part of segment 1 (sacreBLEU's reading; a warning names the file)
    unless ``strip_bom``."""
    path = os.fspath(path)
    return decode_lines(_read_bytes(path), path, "strip" if strip_bom else "keep")


def read_systems(paths: Sequence[str], strip_bom: bool = False) -> dict[str, list[str]]:
    """Read several hypothesis files; keys are the paths as given (unique)."""
    out: dict[str, list[str]] = {}
    for p in paths:
        p = os.fspath(p)
        if p in out:
            raise InputError("the same hypothesis file is given twice", p)
        out[p] = read_segments(p, strip_bom)
    return out


def read_ref_streams(paths: Sequence[str], strip_bom: bool = False) -> list[list[str]]:
    """Read one file per reference stream and return them *sentence-major*.

    All streams must have the same number of lines; otherwise the error names every file and count.
    """
    streams = [(os.fspath(p), read_segments(p, strip_bom)) for p in paths]
    if not streams:
        raise InputError("at least one reference file is needed")
    counts = {len(lines) for _, lines in streams}
    if len(counts) > 1:
        raise InputError(f"reference files differ in line count: {count_detail((p, len(l)) for p, l in streams)}")
    return [list(seg) for seg in zip(*(lines for _, lines in streams))]


def read_tsv(path: str | os.PathLike, min_fields: int = 2, strip_bom: bool = False) -> list[list[str]]:
    """Read a TSV file: one segment per line, fields split on TAB, every line the same field count.

    Used by ``mtscore score --tsv``: field 1 = hypothesis, fields 2.. = references (a segment file:
    a leading BOM is kept unless ``strip_bom``).
    """
    path = os.fspath(path)
    rows = [ln.split("\t") for ln in read_segments(path, strip_bom)]
    check_tsv_rows(rows, path, 0, None, min_fields)
    return rows


def check_tsv_rows(rows: Sequence[Sequence[str]], path: str, start: int, width: int | None,
                   min_fields: int = 2) -> int | None:
    """Check that every row has the field count of the file's first line; return that count.

    ``start`` is the 0-based line number of ``rows[0]``; ``width`` the count seen so far (None at the start)."""
    for i, row in enumerate(rows):
        if width is None:
            width = len(row)
            if width < min_fields:
                raise InputError(f"TSV line has {width} field(s); at least {min_fields} needed "
                                 "(hypothesis<TAB>reference...)", path, start + i + 1)
        elif len(row) != width:
            raise InputError(f"TSV line has {plural(len(row), 'field')} but line 1 has {width}", path, start + i + 1)
    return width


def parse_json(text: str, path, line: int | None = None, what: str = "JSON"):
    """``json.loads`` for input files: malformed JSON, nesting deeper than the interpreter's stack (a
    RecursionError inside ``json``) and integers too long to convert are one :class:`InputError` naming the file
    and line, never a traceback."""
    import json
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f" at line {exc.lineno}" if line is None else ""
        raise InputError(f"not {what} ({exc.msg}{where})", str(path), line) from None
    except RecursionError:
        raise InputError(f"{what}: nested too deeply to read", str(path), line) from None
    except ValueError as exc:  # an integer with more digits than Python converts
        raise InputError(f"{what}: {' '.join(str(exc).split())[:120]}", str(path), line) from None
