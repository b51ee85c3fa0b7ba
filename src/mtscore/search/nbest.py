"""N-best lists: the Moses/Joshua text format and a JSONL format, read into one flat layout.

Moses / Joshua (``mtscore.search.read_moses_nbest``)::

    i ||| hypothesis ||| features ||| total_score [||| anything else, e.g. alignments]

* ``i`` is the 0-based segment id. Lines of one segment need not be adjacent (they are grouped
  stably, so the order of a segment's candidates is the file order); ids may be missing: such a
  segment has an *empty* list. The number of segments is ``n_segments`` when given (ids must then be
  ``< n_segments``), else ``max id + 1``.
* features: Joshua's ``name=value`` tokens, Moses' labelled dense features ``Name= v1 v2 ...`` (one
  feature ``Name`` for one value, ``Name_0``, ``Name_1``, ... for several) or bare numbers
  (``f0``, ``f1``, ...). The feature set is the union over the file; a feature a line does not
  mention is 0 there (sparse-feature semantics).
* total_score: the decoder's model score (optional: a line with 2 or 3 fields has no score; then
  model posteriors are unavailable).

JSONL (``read_jsonl_nbest``): one line per segment (line k = segment k-1), each a JSON value:
``["cand 1", "cand 2"]``, or a list of objects ``{"text": ..., "score": ..., "features": {...}}``,
or an object ``{"candidates": [...], "scores": [...]}`` (candidates as strings or objects).
``[]`` is an empty list. Blank lines are errors (a segment must be written as ``[]``).

Every malformed line raises :class:`~mtscore.errors.InputError` naming the file and line.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..io.text import _read_bytes, decode_lines


@dataclass(frozen=True)
class NBestList:
    """All candidates of all segments, flat: segment ``i`` owns ``texts[seg_off[i]:seg_off[i+1]]``.

    ``scores``: model score per candidate (NaN where absent); ``features``: ``[n_candidates, F]`` with
    names ``feature_names``; ``source``: where it was read from (for messages).
    """

    texts: list[str]
    seg_off: np.ndarray
    scores: np.ndarray
    features: np.ndarray
    feature_names: tuple[str, ...] = ()
    source: str = "<memory>"
    lines: np.ndarray | None = field(default=None, repr=False)  # 1-based file line of each candidate

    def __post_init__(self):
        off = np.asarray(self.seg_off, dtype=np.int64)
        if off.ndim != 1 or len(off) < 1 or off[0] != 0 or off[-1] != len(self.texts) or np.any(np.diff(off) < 0):
            raise InvalidParameterError("seg_off: must start at 0, be non-decreasing and end at the number of candidates")
        object.__setattr__(self, "seg_off", off)
        sc = np.asarray(self.scores, dtype=np.float64).reshape(-1)
        if len(sc) != len(self.texts):
            raise InvalidParameterError(f"scores: {plural(len(sc), 'value')} for {plural(len(self.texts), 'candidate')}")
        object.__setattr__(self, "scores", sc)
        f = np.asarray(self.features, dtype=np.float64)
        if f.ndim != 2 or f.shape[0] != len(self.texts) or f.shape[1] != len(self.feature_names):
            raise InvalidParameterError(
                f"features: need shape ({len(self.texts)}, {len(self.feature_names)}), got {f.shape}")
        object.__setattr__(self, "features", f)

    # -- construction -----------------------------------------------------------------------------
    @classmethod
    def from_lists(cls, candidates: Sequence[Sequence[str]], scores: Sequence[Sequence[float]] | None = None,
                   features: Sequence[np.ndarray] | None = None, feature_names: Sequence[str] = (),
                   source: str = "<memory>") -> "NBestList":
        """From one list of candidate strings per segment (optionally scores / feature rows)."""
        if isinstance(candidates, str):
            raise InvalidParameterError("candidates: expected one list of strings per segment")
        texts: list[str] = []
        counts = []
        for i, seg in enumerate(candidates):
            if isinstance(seg, str):
                raise InvalidParameterError(f"candidates[{i}]: expected a list of strings, got a string")
            seg = list(seg)
            for c in seg:
                if not isinstance(c, str):
                    raise InvalidParameterError(f"candidates[{i}]: expected strings, got {type(c).__name__}")
            texts.extend(seg)
            counts.append(len(seg))
        off = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=off[1:])
        if scores is None:
            sc = np.full(len(texts), np.nan)
        else:
            scores = [np.asarray(s, dtype=np.float64).reshape(-1) for s in scores]
            if len(scores) != len(counts) or any(len(s) != c for s, c in zip(scores, counts)):
                raise InvalidParameterError("scores: need one score per candidate of every segment")
            sc = np.concatenate(scores) if scores else np.zeros(0)
        names = tuple(feature_names)
        if features is None:
            feats = np.zeros((len(texts), len(names)))
        else:
            feats = np.vstack([np.asarray(f, dtype=np.float64).reshape(-1, len(names)) for f in features]) \
                if len(features) else np.zeros((0, len(names)))
        return cls(texts, off, sc, feats, names, source)

    # -- access -----------------------------------------------------------------------------------
    @property
    def n_segments(self) -> int:
        return len(self.seg_off) - 1

    @property
    def n_candidates(self) -> int:
        return len(self.texts)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.seg_off)

    @property
    def has_scores(self) -> bool:
        return bool(len(self.scores) == 0 or np.all(np.isfinite(self.scores)))

    def segment(self, i: int) -> list[str]:
        return self.texts[self.seg_off[i]:self.seg_off[i + 1]]

    def segments(self) -> list[list[str]]:
        return [self.segment(i) for i in range(self.n_segments)]

    def empty_segments(self) -> np.ndarray:
        """0-based ids of the segments without any candidate."""
        return np.flatnonzero(self.sizes == 0)

    def seg_of(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_segments, dtype=np.int64), self.sizes)

    def feature_index(self, name: str) -> int:
        try:
            return self.feature_names.index(name)
        except ValueError:
            raise InvalidParameterError.choice("feature", name, self.feature_names) from None

    def take_segments(self, index) -> "NBestList":
        """The n-best list restricted to the given segments (in that order)."""
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        rows = [np.arange(self.seg_off[i], self.seg_off[i + 1]) for i in index]
        rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        off = np.zeros(len(index) + 1, dtype=np.int64)
        np.cumsum(self.sizes[index], out=off[1:])
        return NBestList([self.texts[j] for j in rows], off, self.scores[rows], self.features[rows],
                         self.feature_names, self.source)


# --------------------------------------------------------------------------------------------------
def _read_text_lines(path) -> list[str]:
    return decode_lines(_read_bytes(str(path)), str(path))


def _parse_float(tok: str, path, line: int, what: str) -> float:
    shown = tok if len(tok) <= 40 else tok[:40] + "..."
    try:
        v = float(tok)
    except ValueError:
        raise InputError(f"{what}: expected a number, got {shown!r}", path, line) from None
    if not math.isfinite(v):  # nan, inf, or a number too large for a float (1e999)
        raise InputError(f"{what}: must be a finite number, got {shown!r}", path, line)
    return v


def _finite_number(v) -> bool:
    """A JSON number that is finite as a float (an int with 400 digits is not)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


# without n_segments, a segment id creates that many (empty) segments: bound it (the CLI always knows n)
MAX_FREE_SEGMENT_ID = 10_000_000


def _parse_features(text: str, path, line: int) -> list[tuple[str, float]]:
    """Joshua ``name=value`` / Moses ``Name= v1 v2`` / bare numbers -> [(name, value)]."""
    out: list[tuple[str, float]] = []
    label = None
    values: list[float] = []
    bare = 0

    def flush():
        if label is None:
            return
        if not values:
            raise InputError(f"feature label {label + '='!r} has no value", path, line)
        if len(values) == 1:
            out.append((label, values[0]))
        else:
            out.extend((f"{label}_{j}", v) for j, v in enumerate(values))

    for tok in text.split():
        if tok.endswith("="):
            flush()
            label, values = tok[:-1], []
            if not label:
                raise InputError("features: a '=' without a feature name", path, line)
        elif "=" in tok:
            flush()
            label, values = None, []
            name, _, val = tok.rpartition("=")
            if not name:
                raise InputError(f"features: {tok!r} has no feature name", path, line)
            out.append((name, _parse_float(val, path, line, f"feature {name}")))
        elif label is not None:
            values.append(_parse_float(tok, path, line, f"feature {label}"))
        else:
            out.append((f"f{bare}", _parse_float(tok, path, line, "feature")))
            bare += 1
    flush()
    return out


def _assemble(seg_ids, texts, scores, feats, lines, n_segments, path) -> NBestList:
    names: dict[str, int] = {}
    for row in feats:
        for name, _ in row:
            names.setdefault(name, len(names))
    F = np.zeros((len(texts), len(names)))
    for r, row in enumerate(feats):
        seen = set()
        for name, v in row:
            if name in seen:
                raise InputError(f"feature {name!r} appears twice on one line", path, int(lines[r]))
            seen.add(name)
            F[r, names[name]] = v
    ids = np.asarray(seg_ids, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    n = int(n_segments) if n_segments is not None else (int(ids.max()) + 1 if len(ids) else 0)
    counts = np.bincount(ids, minlength=n) if len(ids) else np.zeros(n, dtype=np.int64)
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=off[1:])
    return NBestList([texts[j] for j in order], off, np.asarray(scores, dtype=np.float64)[order] if len(order) else np.zeros(0),
                     F[order], tuple(names), str(path), np.asarray(lines, dtype=np.int64)[order] if len(order) else np.zeros(0, dtype=np.int64))


def read_moses_nbest(path, n_segments: int | None = None) -> NBestList:
    """Read a Moses/Joshua n-best list (see the module docstring)."""
    if n_segments is not None and (isinstance(n_segments, bool) or not isinstance(n_segments, (int, np.integer)) or n_segments < 0):
        raise InvalidParameterError(f"n_segments: must be a non-negative integer, got {n_segments!r}")
    seg_ids, texts, scores, feats, lines = [], [], [], [], []
    for ln, raw in enumerate(_read_text_lines(path), 1):
        if not raw.strip():
            raise InputError("empty line in an n-best list (expected 'i ||| hypothesis ||| features ||| score')", path, ln)
        fields = raw.split(" ||| ")
        if raw.rstrip().endswith(" |||"):  # an empty last field: 'i ||| hyp ||| feats |||'
            fields = (raw.rstrip()[:-4] + " ||| ").split(" ||| ")
        glued = next((k for k, f in enumerate(fields) if "|||" in f), None)
        if glued is not None:
            # exact separators: 'hyp|||lm_0=...' would glue the features into the hypothesis
            raise InputError(f"field {glued + 1} holds '|||' without a space on each side (fields are separated by "
                             f"exactly ' ||| ': 'i ||| hypothesis ||| features ||| score')", path, ln)
        if len(fields) < 2:
            raise InputError("expected 'i ||| hypothesis ||| features ||| score' (fields separated by ' ||| ')", path, ln)
        tok = fields[0].strip()
        try:
            sid = int(tok)
        except ValueError:
            raise InputError(f"segment id: expected a non-negative integer, got {tok!r}", path, ln) from None
        if sid < 0:
            raise InputError(f"segment id: must be >= 0, got {sid}", path, ln)
        if n_segments is not None and sid >= n_segments:
            raise InputError(f"segment id {sid} is out of range: the references have {plural(n_segments, 'segment')} "
                             f"(ids are 0-based)", path, ln)
        if n_segments is None and sid > MAX_FREE_SEGMENT_ID:
            raise InputError(f"segment id {sid} is larger than {MAX_FREE_SEGMENT_ID} (give n_segments)", path, ln)
        text = fields[1].strip()
        f = _parse_features(fields[2], path, ln) if len(fields) > 2 else []
        score = _parse_float(fields[3].strip(), path, ln, "total score") if len(fields) > 3 and fields[3].strip() else np.nan
        seg_ids.append(sid)
        texts.append(text)
        scores.append(score)
        feats.append(f)
        lines.append(ln)
    return _assemble(seg_ids, texts, scores, feats, lines, n_segments, path)


def _jsonl_candidate(obj, path, ln, k):
    if isinstance(obj, str):
        return obj, np.nan, []
    if isinstance(obj, dict):
        if "text" not in obj or not isinstance(obj["text"], str):
            raise InputError(f"candidate {k}: an object needs a string field 'text'", path, ln)
        score = obj.get("score", None)
        if score is None:
            score = np.nan
        elif not _finite_number(score):
            raise InputError(f"candidate {k}: 'score' must be a finite number, got {score!r}", path, ln)
        fe = obj.get("features", {}) or {}
        if not isinstance(fe, dict):
            raise InputError(f"candidate {k}: 'features' must be an object name -> number", path, ln)
        items = []
        for name, v in fe.items():
            if not _finite_number(v):
                raise InputError(f"candidate {k}: feature {name!r} must be a finite number, got {v!r}", path, ln)
            items.append((str(name), float(v)))
        return obj["text"], float(score), items
    raise InputError(f"candidate {k}: expected a string or an object with 'text', got {type(obj).__name__}", path, ln)


def read_jsonl_nbest(path, n_segments: int | None = None) -> NBestList:
    """Read one JSON candidate list per line (see the module docstring)."""
    seg_ids, texts, scores, feats, lines = [], [], [], [], []
    all_lines = _read_text_lines(path)
    for ln, raw in enumerate(all_lines, 1):
        if not raw.strip():
            raise InputError("blank line: every line must be a JSON candidate list (write [] for a segment "
                             "without candidates)", path, ln)
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg} at column {exc.colno})", path, ln) from None
        except RecursionError:
            raise InputError("invalid JSON (nested too deeply)", path, ln) from None
        except ValueError as exc:  # e.g. an integer with more digits than Python converts
            raise InputError(f"invalid JSON ({' '.join(str(exc).split())[:120]})", path, ln) from None
        seg_scores = None
        if isinstance(obj, dict):
            if "candidates" not in obj:
                raise InputError("an object line needs a 'candidates' list", path, ln)
            seg_scores = obj.get("scores")
            obj = obj["candidates"]
        if not isinstance(obj, list):
            raise InputError(f"expected a JSON list of candidates, got {type(obj).__name__}", path, ln)
        if seg_scores is not None:
            if not isinstance(seg_scores, list) or len(seg_scores) != len(obj):
                raise InputError(f"'scores' must be a list with one number per candidate ({len(obj)})", path, ln)
        for k, c in enumerate(obj):
            text, score, items = _jsonl_candidate(c, path, ln, k)
            if seg_scores is not None:
                s = seg_scores[k]
                if not _finite_number(s):
                    raise InputError(f"scores[{k}] must be a finite number, got {s!r}", path, ln)
                score = float(s)
            seg_ids.append(ln - 1)
            texts.append(text)
            scores.append(score)
            feats.append(items)
            lines.append(ln)
    n = len(all_lines)
    if n_segments is not None and n_segments != n:
        raise InputError(f"{plural(n, 'candidate list')} for {plural(n_segments, 'reference segment')} (one JSON line per segment)", path)
    return _assemble(seg_ids, texts, scores, feats, lines, n, path)


NBEST_FORMATS = ("moses", "jsonl")


def read_nbest(path, fmt: str = "auto", n_segments: int | None = None) -> NBestList:
    """Read an n-best list; ``fmt`` = moses, jsonl or auto (``.jsonl``/``.json`` suffix -> jsonl)."""
    if fmt == "auto":
        p = str(path)
        fmt = "jsonl" if p.endswith((".jsonl", ".json", ".jsonl.gz")) else "moses"
    if fmt == "moses":
        return read_moses_nbest(path, n_segments)
    if fmt == "jsonl":
        return read_jsonl_nbest(path, n_segments)
    raise InvalidParameterError.choice("nbest format", fmt, NBEST_FORMATS + ("auto",))
