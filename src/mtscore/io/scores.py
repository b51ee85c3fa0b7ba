"""Readers for stored metric scores (COMET, BLEURT, MetricX, human scores ...) -- docs/external-scores.md.

Formats (``format=auto`` picks one from the file: ``.json`` -> comet-json; otherwise by the number of
TAB-separated fields of the first non-empty line: 1 -> lines, 2 -> mtme, 3 -> tsv):

* ``lines``: one number per line, line *i* = segment *i* of ONE system (aligned with its output file).
* ``mtme``: mt-metrics-eval ``SYSTEM<TAB>score`` -- a ``*.seg.score`` file has one line per (system,
  segment), each system in one contiguous block in segment order; a ``*.sys.score`` file has one line per
  system (system-level only).
* ``comet-json``: what ``comet-score ... --to_json FILE`` writes: ``{"<translation file>": [{"src": ...,
  "mt": ..., "ref": ..., "COMET": score}, ...], ...}`` -- one key per ``-t`` file, one entry per segment.
* ``tsv``: ``system<TAB>segment<TAB>score``; the segment column is **1-based** (the first segment is 1, as in
  mt-metrics-eval and WMT DA files); ``seg_base=0`` declares a 0-based file. Rows may come in any order;
  every (system, segment) must appear exactly once.

Missing values: ``None``/``NA``/empty = not scored; ``nan``/``inf`` are kept as such. What to do with
them is the caller's decision (:mod:`mtscore.metrics.scores`). Nothing is dropped or reordered here.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from dataclasses import dataclass, field

from ..errors import InputError, InvalidParameterError, plural
from .text import _read_bytes, decode_lines

SCORE_FORMATS = ("auto", "lines", "mtme", "comet-json", "tsv")
_MISSING_TOKENS = ("None", "none", "NA", "")


@dataclass
class ScoreFile:
    """Scores read from one file.

    ``systems`` maps a system key (as written in the file; ``None`` for a single-system ``lines`` file)
    to its segment scores (``None`` = not scored; floats may be nan/inf). ``system_level`` is True for a
    file with one score per system (mt-metrics-eval ``*.sys.score``); then every list has length 1.
    ``texts`` keeps COMET JSON's ``mt`` strings (to check alignment with the system file)."""

    path: str
    format: str
    systems: dict
    digest: str
    system_level: bool = False
    texts: dict = field(default_factory=dict)
    lines: dict = field(default_factory=dict)  # system -> 1-based file line of each value (for messages)


def _number(tok: str, path: str, line: int):
    t = tok.strip()
    if t in _MISSING_TOKENS:
        return None
    try:
        return float(t)
    except ValueError:
        raise InputError(f"score {tok!r} is not a number (None/NA mark a missing score)", path, line) from None


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def detect_format(path: str, lines: list[str]) -> str:
    if path.endswith(".json") or path.endswith(".json.gz"):
        return "comet-json"
    first = next((ln for ln in lines if ln.strip()), None)
    if first is None:
        return "lines"
    n = len(first.split("\t"))
    if n == 1:
        return "lines"
    if n == 2:
        return "mtme"
    if n == 3:
        return "tsv"
    raise InputError(f"cannot tell the score format: the first line has {n} TAB-separated fields "
                     "(1 = one score per line, 2 = SYSTEM<TAB>score, 3 = system<TAB>segment<TAB>score); "
                     "pass format=", path, 1)


def read_score_file(path: str, fmt: str = "auto", seg_base: int = 1, comet_key: str | None = None) -> ScoreFile:
    """Read one score file (see the module docstring)."""
    if fmt not in SCORE_FORMATS:
        raise InvalidParameterError.choice("format", fmt, SCORE_FORMATS)
    if seg_base not in (0, 1):
        raise InvalidParameterError(f"seg_base: must be 0 or 1, got {seg_base!r}")
    path = os.fspath(path)
    data = _read_bytes(path)
    digest = file_digest(data)
    if fmt == "comet-json" or (fmt == "auto" and (path.endswith(".json") or path.endswith(".json.gz"))):
        return _read_comet_json(path, data, digest, comet_key)
    lines = decode_lines(data, path)
    if fmt == "auto":
        fmt = detect_format(path, lines)
    if fmt == "lines":
        vals = []
        for i, ln in enumerate(lines, 1):
            if "\t" in ln:
                raise InputError("one score per line expected, found a TAB (format=lines)", path, i)
            vals.append(_number(ln, path, i))
        return ScoreFile(path, "lines", {None: vals}, digest, lines={None: list(range(1, len(vals) + 1))})
    if fmt == "mtme":
        return _read_mtme(path, lines, digest)
    if fmt == "tsv":
        return _read_tsv(path, lines, digest, seg_base)
    return _read_comet_json(path, data, digest, comet_key)


def _read_mtme(path, lines, digest) -> ScoreFile:
    systems: dict[str, list] = {}
    where: dict[str, list] = {}
    last = None
    for i, ln in enumerate(lines, 1):
        parts = ln.split("\t")
        if len(parts) != 2:
            raise InputError(f"expected SYSTEM<TAB>score (2 fields), got {len(parts)} field(s)", path, i)
        name, tok = parts
        if not name:
            raise InputError("empty system name", path, i)
        if name != last and name in systems:
            raise InputError(f"system {name!r} appears in two separate blocks (duplicate system; mt-metrics-eval "
                             "seg files keep each system's segments together, in segment order)", path, i)
        last = name
        systems.setdefault(name, []).append(_number(tok, path, i))
        where.setdefault(name, []).append(i)
    counts = {len(v) for v in systems.values()}
    if len(counts) > 1:
        detail = ", ".join(f"{s} has {len(v)}" for s, v in list(systems.items())[:6])
        raise InputError(f"systems have different numbers of segment scores ({detail}, ...)", path)
    # one line per system = system-level (unless the name says seg: a one-segment test set)
    system_level = counts == {1} and (len(systems) > 1 or path.endswith(".sys.score")) and \
        not path.endswith(".seg.score")
    if path.endswith(".sys.score") and counts != {1}:
        raise InputError(f"a *.sys.score file has one line per system; {plural(len(lines), 'line')} for "
                         f"{plural(len(systems), 'system')}", path)
    return ScoreFile(path, "mtme", systems, digest, system_level, lines=where)


def _read_tsv(path, lines, digest, seg_base) -> ScoreFile:
    cells: dict[str, dict[int, float | None]] = {}
    where: dict[str, dict[int, int]] = {}
    for i, ln in enumerate(lines, 1):
        parts = ln.split("\t")
        if len(parts) != 3:
            raise InputError(f"expected system<TAB>segment<TAB>score (3 fields), got {len(parts)} field(s)", path, i)
        name, seg, tok = parts
        if not name:
            raise InputError("empty system name", path, i)
        try:
            k = int(seg)
        except ValueError:
            raise InputError(f"segment {seg!r} is not an integer (the segment column is {seg_base}-based)",
                             path, i) from None
        if k < seg_base:
            hint = " (a 0-based file? declare seg_base=0)" if k == 0 else ""
            raise InputError(f"segment {k} is below {seg_base}: the segment column is {seg_base}-based{hint}", path, i)
        k -= seg_base
        if k > len(lines):  # checked before anything is sized by it: segments 0..k need k + 1 rows of this file
            raise InputError(f"segment {k + seg_base} cannot be complete in a file of {plural(len(lines), 'row')} "
                             f"(a system's segments {seg_base}..{k + seg_base} need one row each)", path, i)
        row = cells.setdefault(name, {})
        if k in row:
            raise InputError(f"system {name!r} segment {k + seg_base} appears twice (first on line "
                             f"{where[name][k]})", path, i)
        row[k] = _number(tok, path, i)
        where.setdefault(name, {})[k] = i
    systems, lines_of = {}, {}
    for name, row in cells.items():
        n = max(row) + 1
        gap = next((j + seg_base for j in range(n) if j not in row), None)  # no list of n: n may be huge
        if gap is not None:
            raise InputError(f"system {name!r} has no row for segment {gap} (segments {seg_base}.."
                             f"{n - 1 + seg_base} must all be present; write None for a missing score)", path)
        systems[name] = [row[j] for j in range(n)]
        lines_of[name] = [where[name][j] for j in range(n)]
    return ScoreFile(path, "tsv", systems, digest, lines=lines_of)


def _read_comet_json(path, data, digest, key) -> ScoreFile:
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not a COMET JSON file: {exc}", path) from None
    except RecursionError:
        raise InputError("not a COMET JSON file: nested too deeply", path) from None
    except ValueError as exc:  # an integer with more digits than Python converts
        raise InputError(f"not a COMET JSON file: {' '.join(str(exc).split())[:120]}", path) from None
    if not isinstance(obj, dict) or not obj or not all(isinstance(v, list) for v in obj.values()):
        raise InputError("COMET JSON must map each translation file to a list of segments "
                         "({\"file\": [{\"mt\": ..., \"COMET\": score}, ...]}, as comet-score --to_json writes)", path)
    systems, texts = {}, {}
    for name, segs in obj.items():
        vals, mts = [], []
        for j, seg in enumerate(segs):
            if not isinstance(seg, dict):
                raise InputError(f"{name!r} entry {j + 1}: expected an object, got {type(seg).__name__}", path)
            k = key
            if k is None:
                k = "COMET" if "COMET" in seg else None
                if k is None:
                    nums = [x for x, v in seg.items() if x not in ("src", "mt", "ref", "variance")
                            and (isinstance(v, (int, float)) or v is None)]
                    if len(nums) != 1:
                        raise InputError(f"{name!r} entry {j + 1}: no 'COMET' score key; pass key= to name it "
                                         f"(keys: {', '.join(seg)})", path)
                    k = nums[0]
            if k not in seg:
                raise InputError(f"{name!r} entry {j + 1}: no {k!r} key (keys: {', '.join(seg)})", path)
            v = seg[k]
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise InputError(f"{name!r} entry {j + 1}: score {_short(v)} is not a number", path)
            if isinstance(v, int):
                try:
                    v = float(v)
                except OverflowError:  # a 400-digit integer: no float holds it
                    raise InputError(f"{name!r} entry {j + 1}: score {_short(v)} is not a finite number "
                                     f"(too large for a float)", path) from None
            for field in ("mt", "src", "ref"):
                if field in seg and not isinstance(seg[field], str):
                    raise InputError(f"{name!r} entry {j + 1}: {field!r} must be a string, got "
                                     f"{type(seg[field]).__name__} {_short(seg[field])}", path)
            vals.append(None if v is None else float(v))
            mts.append(seg.get("mt"))
        systems[name] = vals
        texts[name] = mts
    return ScoreFile(path, "comet-json", systems, digest, texts=texts)


def _short(v) -> str:
    """A value for a message: its repr, cut at 60 characters (a 5,000-digit integer is not printed whole)."""
    try:
        r = repr(v)
    except ValueError:  # int too large to convert to str
        return f"<an integer of more than {sys.get_int_max_str_digits()} digits>"
    return r if len(r) <= 60 else r[:57] + "..."


def is_missing(v) -> str | None:
    """'None', 'nan' or 'inf' for a value that is not a finite number, else None."""
    if v is None:
        return "None"
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf"
    return None
