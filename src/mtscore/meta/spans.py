"""Error-span meta-evaluation: how well do predicted error spans match human ones? (``mtscore meta --spans``)

Character-level precision, recall and F1 with partial credit for a severity mismatch, as the WMT23/24 quality
estimation shared tasks score fine-grained error span detection (Blain et al. 2023, "Findings of the WMT 2023
Shared Task on Quality Estimation", task 2; Zerva et al. 2024 for WMT24): every character of a translation is
either outside any error or inside an error of some severity (overlapping spans: the most severe one). A
character marked by both the prediction and the gold annotation earns credit 1 when the severities agree and
``mismatch`` (0.5) when they differ; P = credit / characters predicted as errors, R = credit / characters marked
by the gold annotation, F1 = 2PR / (P + R). With ``severity=False`` every marked character is just "error"
(plain overlap F1, as Tower-Eval's span F1). With ``severity="wmt25"`` the counting of the official scorer of the
WMT25 MTEval shared task 2 (wmt-conference/wmt25-mteval ``scripts/scoring/task2/scoring_esa.py``): each span counts
on its own (overlapping spans count a character twice), critical counts as major, and per character the matched
counts of one severity earn 1, the rest of the other severity 0.5 (its results equal that scorer's on the
288-segment fixture, tests/known_answers/wmt25-task2-spans.json).

* micro: credit and character counts summed over all segments, then P, R, F1;
* macro: F1 per segment averaged over the segments where the gold or the prediction marks an error (a segment
  where only one side marks errors scores 0; where neither does, it is left out: nothing to find).

Confidence intervals: percentile bootstrap over segments (the resampling engine's ``sacrebleu`` counts); pairwise
significance between two predictors: paired bootstrap on the same resamples, p = share of resamples in which the
better predictor's F1 is not higher. Human agreement: a second rater scored as a predictor against the first on
the segments both rated (the ceiling a predictor can be expected to reach).

Readers (one-line errors naming file and line): mt-metrics-eval rating files (``SYSTEM<TAB>{"errors": [...]}``
per segment in system blocks, ``None`` = unrated; WMT23 MQM raters of wmt-conference/ErrorSpanAnnotation),
google/wmt-mqm-human-evaluation MQM TSVs (``<v>...</v>`` marks, one row per error and rater),
WMT24 ESA wave CSVs (``error_spans`` column; omissions marked ``"missing"`` have no target characters and are
counted apart), XCOMET-style JSON (per system a list of per-segment span lists with ``start``/``end``/
``severity``, or records with ``system``, ``seg`` (1-based) and ``error_spans``), GEMBA-style JSON (records with
``system``, ``seg`` and ``errors`` giving ``severity`` and the error ``span`` text, located in the translation),
and a TSV with the header ``system<TAB>seg<TAB>start<TAB>end<TAB>severity`` (seg 1-based, end exclusive; also
as gold, e.g. MQM annotations exported with character offsets: :func:`gold_from_tsv`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..io.text import parse_json, read_lines
from ..significance._resample import Draws

SEVERITIES = {"minor": 1, "major": 2, "critical": 3}
# severities read as "no error" (MQM "neutral" annotations, GEMBA "no-error")
NO_ERROR = ("neutral", "no-error", "none", "")
MISMATCH_CREDIT = 0.5


def severity_rank(sev, where="", line=None) -> int:
    """1 minor, 2 major, 3 critical (case-insensitive; XCOMET's and GEMBA's words too); 0 = not an error."""
    s = "" if sev is None else str(sev).strip().lower()
    if s in NO_ERROR:
        return 0
    if s in SEVERITIES:
        return SEVERITIES[s]
    raise InputError(f"unknown error severity {sev!r} (minor, major, critical; neutral = no error)", where or None, line)


@dataclass
class Spans:
    """Error spans of one annotation source: ``cells[(system, segment)] = [(start, end, severity rank), ...]``;
    a cell absent from ``cells`` is unrated. ``omissions`` counts errors without target characters."""

    name: str
    cells: dict = field(default_factory=dict)
    omissions: int = 0
    source: str = ""
    systems: set | None = None  # predictors: the systems whose every segment is predicted
    extent: dict | None = None  # {system: segments} where the file lists every segment (rating files)

    def rated(self) -> set:
        return set(self.cells)


_NO_SEVERITY = object()  # a span object without a severity field (an error, not "no error")


def _offset(value, what, where, line) -> int:
    """A span offset: a JSON integer or the text of one (TSV); a fraction, a boolean, ``Infinity`` or anything
    else is an error naming the value (a JSON 1.7 is not read as 1, ``true`` not as 1)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        try:
            shown = json.dumps(value)[:40]
        except (TypeError, ValueError):
            shown = repr(value)[:40]
        raise InputError(f"span {what} must be an integer, got {shown}", where, line)
    if isinstance(value, str):
        t = value.strip()
        if not t or not (t.isascii() and (t.isdigit() or (t[0] in "+-" and t[1:].isdigit()))) or len(t) > 30:
            raise InputError(f"span {what} must be an integer, got {value[:30]!r}", where, line)
        value = int(t)
    if abs(value) > _MAX_OFFSET:  # counted exactly in float64 up to 2^53
        shown = str(value) if len(str(value)) <= 24 else str(value)[:20] + "..."
        raise InputError(f"span {what} {shown} is beyond 2^53 characters", where, line)
    return value


_MAX_OFFSET = 2 ** 53


def _span(start, end, sev, where, line, length=None):
    a, b = _offset(start, "start", where, line), _offset(end, "end", where, line)
    if a < 0 or b < a:
        raise InputError(f"span [{a}, {b}) is not a character range (0 <= start <= end)", where, line)
    if length is not None and b > length:
        raise InputError(f"span [{a}, {b}) ends after the translation's {plural(length, 'character')}", where, line)
    if sev is _NO_SEVERITY:
        raise InputError(f"span [{a}, {b}) has no severity (minor, major, critical; neutral = no error)", where, line)
    return a, b, severity_rank(sev, where, line)


def _seg_number(value, what, where, line=None) -> int:
    """A 1-based segment number (JSON integer or its text) -> 0-based; anything else is an error."""
    try:
        k = _offset(value, "seg", where, line)
    except InputError:
        k = 0
    if k < 1:
        raise InputError(f"{what}seg must be a 1-based integer, got {value!r}", where, line)
    return k - 1


def read_rating_file(path, name: str | None = None, lengths=None) -> Spans:
    """mt-metrics-eval ``.seg.rating``: ``SYSTEM<TAB>RATING[<TAB>RATER]`` per segment, systems in blocks; RATING is
    ``None`` or ``{"errors": [{"start", "end", "severity", "is_source_error", ...}]}``. Source-side errors are
    not target spans (counted with the omissions). ``lengths``: {(system, segment): characters} to check bounds."""
    out = Spans(name or Path(path).name, source=str(path))
    seen: dict[str, int] = {}
    last = None
    for ln, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) not in (2, 3):
            raise InputError(f"expected SYSTEM<TAB>RATING[<TAB>RATER], got {plural(len(cols), 'field')}", str(path), ln)
        sysname, rating = cols[0], cols[1]
        if sysname != last and sysname in seen:
            raise InputError(f"system {sysname!r} appears in two separate blocks", str(path), ln)
        last = sysname
        seg = seen.get(sysname, 0)
        seen[sysname] = seg + 1
        if rating == "None":
            continue
        obj = parse_json(rating, path, ln, 'None or a JSON object {"errors": [...]}')
        errors = obj.get("errors") if isinstance(obj, dict) else None
        if not isinstance(errors, list):
            raise InputError('expected None or a JSON object {"errors": [...]}', str(path), ln)
        spans = []
        for e in errors:
            if not isinstance(e, dict):
                raise InputError("each error must be a JSON object", str(path), ln)
            if e.get("is_source_error"):
                out.omissions += 1
                continue
            length = None if lengths is None else lengths.get((sysname, seg))
            s = _span(e.get("start"), e.get("end"), e.get("severity", _NO_SEVERITY), str(path), ln, length)
            if s[2] and s[1] > s[0]:
                spans.append(s)
            elif s[2]:
                out.omissions += 1  # an empty target span marks an omission
        out.cells[(sysname, seg)] = spans
    out.extent = dict(seen)
    return out


def check_cells(sp: Spans, segments: dict, where: str, texts: dict | None = None) -> None:
    """Every system and segment that ``sp`` annotates or predicts must exist: ``segments`` = {system: number of
    segments} (of the translations ``where`` names, or of the gold file); with ``texts`` {(system, segment):
    translation} every span must also end inside its translation. Spans on a system or segment that does not
    exist are an error naming it, never ignored."""
    systems = set(sp.systems or ()) | {k[0] for k in sp.cells}
    who = "" if sp.source and Path(sp.source).name == sp.name else f"{sp.name}: "
    unknown = sorted(systems - set(segments))
    if unknown:
        raise InputError(f"{who}system(s) {', '.join(map(repr, unknown[:5]))}{', ...' if len(unknown) > 5 else ''} "
                         f"not in {where} (which has {', '.join(sorted(segments)[:8])}"
                         f"{', ...' if len(segments) > 8 else ''})", sp.source or None)
    for (sysname, seg), spans in sorted(sp.cells.items()):
        if seg >= segments[sysname]:
            raise InputError(f"{who}system {sysname!r} segment {seg + 1} does not exist ({where} has "
                             f"{plural(segments[sysname], 'segment')} of {sysname!r})", sp.source or None)
        if texts is not None:
            n = len(texts[(sysname, seg)])
            for a, b, _ in spans:
                if b > n:
                    raise InputError(f"{who}system {sysname!r} segment {seg + 1}: span [{a}, {b}) ends after "
                                     f"the translation's {plural(n, 'character')}", sp.source or None)


def read_esa_spans(paths, lp: str | None = None, offset: int = 0, name: str = "esa", include_human=False) -> Spans:
    """Error spans of WMT24 ESA wave files (``error_spans`` column, JSON list of ``start_i``/``end_i``/
    ``severity``); a rater's later rating of an item replaces the earlier; with several raters of one item the
    first rater (by user id) is the gold, as a campaign gives one annotation per item. ``offset`` as
    :func:`mtscore.meta.esa.read_wmt24_esa` (segment = segment_id + offset)."""
    from .esa import esa_rows
    from .human import is_human_system
    if isinstance(paths, (str, Path)):
        paths = [paths]
    latest: dict = {}
    omissions = 0
    for path, ln, row, pair in esa_rows(paths):
        if lp is not None and pair != lp:
            continue
        if not include_human and is_human_system(row["system_id"]):
            continue
        try:
            seg = int(row["segment_id"]) + offset
        except ValueError:
            raise InputError("segment_id must be an integer and error_spans a JSON list", str(path), ln) from None
        spans_raw = parse_json(row["error_spans"] or "[]", path, ln, "a JSON list (error_spans)")
        spans, om = [], 0
        for e in spans_raw if isinstance(spans_raw, list) else []:
            if not isinstance(e, dict):
                raise InputError("each error span must be a JSON object", str(path), ln)
            if e.get("start_i") == "missing" or e.get("end_i") == "missing":
                om += 1
                continue
            s = _span(e.get("start_i"), e.get("end_i"), e.get("severity", _NO_SEVERITY), str(path), ln)
            if s[2] and s[1] > s[0]:
                spans.append(s)
        key = (row["system_id"], seg)
        cand = (row["user_id"], row["end_time"], spans, om)
        prev = latest.get(key)
        if prev is None or cand[0] < prev[0] or (cand[0] == prev[0] and cand[1] >= prev[1]):
            latest[key] = cand
    out = Spans(name, source=", ".join(map(str, paths)))
    for key, (_, _, spans, om) in latest.items():
        out.cells[key] = spans
        omissions += om
    out.omissions = omissions
    if not out.cells:
        raise InputError(f"no ESA ratings{' for ' + lp if lp else ''}", str(paths[0]))
    return out


def _locate(text: str, piece: str, used_from: int) -> tuple[int, int] | None:
    """First occurrence of ``piece`` in ``text`` at or after ``used_from``, else anywhere."""
    if not piece:
        return None
    i = text.find(piece, used_from)
    if i < 0:
        i = text.find(piece)
    return None if i < 0 else (i, i + len(piece))


def read_pred_file(path, name: str, texts=None) -> Spans:
    """Predicted spans: ``.tsv`` (header system, seg, start, end, severity; seg 1-based) or JSON (XCOMET style:
    {system: [[span, ...] per segment]} or records with system/seg/error_spans; GEMBA style: records with
    system/seg/errors [{severity, span}] located in ``texts[(system, segment)]``). Spans not found in the text
    are counted in ``omissions``. Every segment of a system named in the file is a prediction (no spans = no
    error)."""
    path = str(path)
    out = Spans(name, source=path)
    if path.endswith(".tsv"):
        lines = read_lines(path)
        if not lines or lines[0].split("\t") != ["system", "seg", "start", "end", "severity"]:
            raise InputError("expected the header system<TAB>seg<TAB>start<TAB>end<TAB>severity", path, 1)
        systems = set()
        for ln, line in enumerate(lines[1:], 2):
            if not line.strip():
                continue
            cols = line.split("\t")
            if len(cols) != 5:
                raise InputError(f"expected 5 tab-separated fields, got {len(cols)}", path, ln)
            seg = _seg_number(cols[1], "", path, ln)
            systems.add(cols[0])
            length = None if texts is None else len(texts[(cols[0], seg)]) if (cols[0], seg) in texts else None
            s = _span(cols[2], cols[3], cols[4], path, ln, length)
            if s[2] and s[1] > s[0]:
                out.cells.setdefault((cols[0], seg), []).append(s)
        out.systems = systems
        return out
    data = parse_json("\n".join(read_lines(path)), path)
    if isinstance(data, dict):  # {system: [[spans] per segment]}
        for sysname, segs in data.items():
            if not isinstance(segs, list):
                raise InputError(f"system {sysname!r}: expected a list of per-segment span lists", path)
            for seg, spans in enumerate(segs):
                out.cells[(sysname, seg)] = _json_spans(spans, path, f"{sysname} segment {seg + 1}",
                                                        texts and texts.get((sysname, seg)))
        out.systems = set(data)
        return out
    if not isinstance(data, list):
        raise InputError("expected a JSON object or a list of records", path)
    systems = set()
    for k, rec in enumerate(data, 1):
        if not isinstance(rec, dict) or "system" not in rec or "seg" not in rec:
            raise InputError(f"record {k}: expected an object with system, seg and error_spans or errors", path)
        seg = _seg_number(rec["seg"], f"record {k}: ", path)
        sysname = str(rec["system"])
        systems.add(sysname)
        text = texts.get((sysname, seg)) if texts else None
        if texts is not None and text is None:
            raise InputError(f"record {k}: system {sysname!r} segment {seg + 1} is not among the translations", path)
        if "error_spans" in rec:
            spans = _json_spans(rec["error_spans"], path, f"record {k}", text)
        elif "errors" in rec:  # GEMBA: error text to locate
            if text is None:
                raise InvalidParameterError(f"{path}: GEMBA-style errors name the error text; give the translations "
                                            "(--data DIR --lp LP) to locate them")
            spans, pos = [], 0
            for e in rec["errors"] if isinstance(rec["errors"], list) else []:
                if not isinstance(e, dict):
                    raise InputError(f"record {k}: each error must be an object", path)
                if "severity" not in e:
                    raise InputError(f"record {k}: an error without a severity (minor, major, critical; neutral = "
                                     "no error)", path)
                sev = severity_rank(e.get("severity"), path)
                where = _locate(text, str(e.get("span") or e.get("text") or ""), pos)
                if where is None:
                    out.omissions += 1
                    continue
                pos = where[1]
                if sev:
                    spans.append((where[0], where[1], sev))
        else:
            raise InputError(f"record {k}: expected error_spans (XCOMET) or errors (GEMBA)", path)
        out.cells[(sysname, seg)] = out.cells.get((sysname, seg), []) + spans
    out.systems = systems
    return out


def _marked(text: str, where, line):
    """(clean text, [(start, end)]) of a text whose error spans are marked ``<v>...</v>`` (google MQM TSVs)."""
    out, spans, pos, k = [], [], 0, 0
    start = None
    while k < len(text):
        if text.startswith("<v>", k):
            if start is not None:
                raise InputError("nested <v> marks", where, line)
            start, k = pos, k + 3
        elif text.startswith("</v>", k):
            if start is None:
                raise InputError("</v> without <v>", where, line)
            spans.append((start, pos))
            start, k = None, k + 4
        else:
            out.append(text[k])
            pos += 1
            k += 1
    if start is not None:
        raise InputError("<v> without </v>", where, line)
    return "".join(out), spans


def read_mqm_tsv_spans(path) -> dict:
    """Error spans of google/wmt-mqm-human-evaluation MQM TSVs (one row per error: ``system, doc, doc_id|docSegId,
    seg_id|globalSegId, rater, source, target, category, severity[, metadata]``; the span is marked ``<v>...</v>``
    in the target, or in the source for source-side errors such as omissions). Returns {rater: Spans} keyed by
    (system, segment id - 1). ``No-error`` rows rate a segment without errors; ``Non-translation`` without a mark
    covers the whole target; quality-control rows (severity ``HOTW-test``) are left out; source-side errors are
    counted as omissions. Offsets are those of the marks in the row's own target text."""
    rows = [ln.split("\t") for ln in read_lines(path)]  # unquoted TSV (texts contain quotes)
    if not rows:
        raise InputError("empty MQM TSV", str(path))
    head = rows[0]
    col = {h: i for i, h in enumerate(head)}
    seg_col = "globalSegId" if "globalSegId" in col else "seg_id"
    need = ("system", seg_col, "rater", "source", "target", "category", "severity")
    missing = [c for c in need if c not in col]
    if missing:
        raise InputError(f"MQM TSV header lacks {', '.join(missing)} (google/wmt-mqm-human-evaluation layout)",
                         str(path), 1)
    out: dict[str, Spans] = {}
    for ln, r in enumerate(rows[1:], 2):
        if not r or r == [""]:
            continue
        if len(r) < len(head) - (1 if head[-1].startswith("metadata") or head[-1].startswith("#") else 0):
            raise InputError(f"expected {plural(len(head), 'tab-separated field')}, got {len(r)}", str(path), ln)
        sev = r[col["severity"]].strip()
        if sev.lower().startswith("hotw"):
            continue
        try:
            seg = int(r[col[seg_col]]) - 1
        except ValueError:
            raise InputError(f"{seg_col} must be an integer, got {r[col[seg_col]]!r}", str(path), ln) from None
        rater = r[col["rater"]]
        sp = out.setdefault(rater, Spans(rater, source=str(path)))
        key = (r[col["system"]], seg)
        cell = sp.cells.setdefault(key, [])
        category = r[col["category"]].strip()
        if category.lower().startswith("no-error") or sev.lower() in NO_ERROR or sev.lower() == "no-error":
            continue
        target, tspans = _marked(r[col["target"]], str(path), ln)
        _, sspans = _marked(r[col["source"]], str(path), ln)
        rank = severity_rank(sev, str(path), ln)
        if not rank:
            continue
        if tspans:
            cell.extend((a, b, rank) for a, b in tspans if b > a)
        elif category.lower().startswith("non-translation"):
            cell.append((0, len(target), rank))
        else:
            sp.omissions += 1  # source-side error (omission ...) or no mark: no target characters
    return out


def gold_from_tsv(path, name: str, texts) -> Spans:
    """Gold spans from the TSV format of :func:`read_pred_file`: every segment of ``texts`` of the systems the file
    names is rated (a segment without rows has no error)."""
    sp = read_pred_file(path, name, texts)
    unknown = sorted(s for s in sp.systems if not any(k[0] == s for k in texts))
    if unknown:
        raise InputError(f"system(s) without translations: {', '.join(unknown)}", str(path))
    cells = {k: sp.cells.get(k, []) for k in texts if k[0] in sp.systems}
    return Spans(name, cells, sp.omissions, str(path))


def _json_spans(spans, path, where, text):
    if spans is None:
        return []
    if not isinstance(spans, list):
        raise InputError(f"{where}: expected a list of spans", path)
    out = []
    for e in spans:
        if not isinstance(e, dict):
            raise InputError(f"{where}: each span must be an object with start, end, severity", path)
        s = _span(e.get("start"), e.get("end"), e.get("severity", _NO_SEVERITY), path, None,
                  None if text is None else len(text))
        if s[2] and s[1] > s[0]:
            out.append(s)
    return out


# ------------------------------------------------------------------------------------------------
# scoring

def _pieces(gold, pred):
    """The characters of a segment in pieces where no span starts or ends: ``(length, gold counts, predicted
    counts)`` per piece covered by any span, where a count vector says how many spans of each severity (index 1
    minor, 2 major, 3 critical) cover the piece. The work is proportional to the number of spans, not to their
    offsets: a span ending at character 10^12 is one piece, not 10^12 characters."""
    events = []  # (position, side, severity, +1 / -1)
    for side, spans in ((0, gold), (1, pred)):
        for a, b, sev in spans:
            if b > a and sev:
                events.append((a, side, sev, 1))
                events.append((b, side, sev, -1))
    if not events:
        return
    events.sort()
    counts = [[0, 0, 0, 0], [0, 0, 0, 0]]
    k = 0
    while k < len(events):
        pos = events[k][0]
        while k < len(events) and events[k][0] == pos:
            _, side, sev, d = events[k]
            counts[side][sev] += d
            k += 1
        if k < len(events) and (any(counts[0]) or any(counts[1])):
            yield events[k][0] - pos, counts[0], counts[1]


def _top(c) -> int:
    """The highest severity with a span covering the piece (0: none)."""
    return 3 if c[3] else 2 if c[2] else 1 if c[1] else 0


def _counts_wmt25(gold, pred, mismatch: float) -> tuple[float, int, int]:
    """The counting of the WMT25 MTEval task-2 scorer (its ``get_char_f1``): every span counts, so a character
    inside two gold spans is two gold error characters; critical counts as major; per character, matched counts
    of the same severity earn 1 each and the unmatched ones of the other severity ``mismatch`` each."""
    full = half = npred = ngold = 0
    for n, g, p in _pieces(gold, pred):
        a, b, x, y = g[2] + g[3], p[2] + p[3], g[1], p[1]
        full += n * (min(a, b) + min(x, y))
        half += n * min(max(0, a - b) + max(0, x - y), max(0, b - a) + max(0, y - x))
        npred += n * (b + y)
        ngold += n * (a + x)
    return float(full) + half * mismatch, npred, ngold


def segment_counts(gold, pred, severity=True, mismatch: float = MISMATCH_CREDIT) -> tuple[float, int, int]:
    """(credit, predicted error characters, gold error characters) of one segment. ``severity``: True (partial
    credit for a severity mismatch), False (severities ignored) or ``"wmt25"`` (the WMT25 task-2 scorer's
    counting, :func:`_counts_wmt25`). Exact integer counts of characters (credit = matches + mismatch x
    mismatched characters), computed piecewise between span boundaries (:func:`_pieces`)."""
    if severity == "wmt25":
        return _counts_wmt25(gold, pred, mismatch)
    full = half = npred = ngold = 0
    for n, g, p in _pieces(gold, pred):
        t, s = _top(g), _top(p)
        if s:
            npred += n
        if t:
            ngold += n
        if s and t:
            if not severity or t == s:
                full += n
            else:
                half += n
    return float(full) + half * mismatch, npred, ngold


def prf(credit, npred, ngold):
    """(P, R, F1) from sums; P (R) undefined without predicted (gold) characters; F1 0 when both P and R are 0."""
    credit, npred, ngold = (np.asarray(v, dtype=np.float64) for v in (credit, npred, ngold))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(npred > 0, credit / np.where(npred > 0, npred, 1), np.nan)
        r = np.where(ngold > 0, credit / np.where(ngold > 0, ngold, 1), np.nan)
        pz, rz = np.nan_to_num(p), np.nan_to_num(r)
        f = np.where(pz + rz > 0, 2 * pz * rz / np.where(pz + rz > 0, pz + rz, 1), 0.0)
        f = np.where((npred > 0) | (ngold > 0), f, np.nan)
    return p, r, f


@dataclass
class SpanScores:
    name: str
    cells: list  # the (system, segment) cells scored
    counts: np.ndarray  # [cells, 3]: credit, predicted, gold characters
    micro: tuple  # (P, R, F1)
    macro_f1: float
    ci: dict | None = None  # {"micro_f1": (lo, hi), "macro_f1": (lo, hi)}
    samples: dict | None = None
    note: str = ""


def score_spans(gold: Spans, pred: Spans, cells=None, severity: bool = True, mismatch: float = MISMATCH_CREDIT,
                name: str | None = None) -> SpanScores:
    """Score ``pred`` against ``gold`` on ``cells`` (default: every cell the gold rated; a predictor must cover them:
    a system it names has every segment predicted, the others are an error)."""
    if not 0 <= mismatch <= 1:
        raise InvalidParameterError(f"mismatch credit: must be in [0, 1], got {mismatch}")
    cells = sorted(gold.rated()) if cells is None else list(cells)
    pred_systems = pred.systems if pred.systems is not None else {s for s, _ in pred.cells}
    missing = sorted({s for s, _ in cells if s not in pred_systems})
    if missing:
        raise InputError(f"{pred.name}: no predictions for system(s) {', '.join(missing)} rated in {gold.name}",
                         pred.source or None)
    rows = [segment_counts(gold.cells[c], pred.cells.get(c, []), severity, mismatch) for c in cells]
    counts = np.array(rows, dtype=np.float64).reshape(-1, 3)
    tot = counts.sum(axis=0)
    micro = tuple(float(v) for v in prf(*tot))
    f = prf(counts[:, 0], counts[:, 1], counts[:, 2])[2]
    macro = float(np.nanmean(f)) if (~np.isnan(f)).any() else float("nan")
    return SpanScores(name or pred.name, cells, counts, micro, macro)


def _boot_values(counts, mult):
    """micro F1 and macro F1 for multiplicities [B, cells]."""
    tot = mult @ counts  # [B, 3]
    micro = prf(tot[:, 0], tot[:, 1], tot[:, 2])[2]
    f = prf(counts[:, 0], counts[:, 1], counts[:, 2])[2]
    ok = ~np.isnan(f)
    w = mult[:, ok]
    with np.errstate(invalid="ignore", divide="ignore"):
        macro = (w @ f[ok]) / w.sum(axis=1)
    return micro, macro


def bootstrap(scores: Sequence[SpanScores], n_boot: int, seed=12345, level: float = 0.95) -> np.ndarray:
    """Percentile CIs of micro and macro F1 for every predictor from the same segment resamples (they must be
    scored on the same cells); returns the multiplicities [n_boot, cells]."""
    if not scores:
        return np.zeros((0, 0))
    cells = scores[0].cells
    for s in scores[1:]:
        if s.cells != cells:
            raise InvalidParameterError("span predictors scored on different segments cannot share resamples")
    mult = Draws(seed).bootstrap_counts(n_boot, len(cells), "sacrebleu").astype(np.float64)
    a = (1 - level) / 2
    for s in scores:
        micro, macro = _boot_values(s.counts, mult)
        s.samples = {"micro_f1": micro, "macro_f1": macro}
        s.ci = {k: (float(np.nanquantile(v, a)), float(np.nanquantile(v, 1 - a))) for k, v in s.samples.items()}
    return mult


def paired_pvalue(better: SpanScores, other: SpanScores, key: str = "micro_f1") -> float:
    """Paired bootstrap: share of the shared resamples in which ``better`` is not better than ``other``."""
    if better.samples is None or other.samples is None:
        raise InvalidParameterError("paired_pvalue: run bootstrap() first")
    a, b = better.samples[key], other.samples[key]
    ok = ~(np.isnan(a) | np.isnan(b))
    return float(np.mean(a[ok] <= b[ok])) if ok.any() else float("nan")


def agreement(first: Spans, second: Spans, severity: bool = True, mismatch: float = MISMATCH_CREDIT) -> SpanScores:
    """Rater-vs-rater agreement: ``second`` scored as a predictor against ``first`` on the cells both rated."""
    both = sorted(first.rated() & second.rated())
    if not both:
        raise InvalidParameterError(f"{first.name} and {second.name} rated no segment in common")
    sub = Spans(second.name, {c: second.cells[c] for c in both}, source=second.source, systems={s for s, _ in both})
    res = score_spans(first, sub, both, severity, mismatch, f"{second.name} vs {first.name}")
    res.note = f"human agreement on {plural(len(both), 'segment')} rated by both"
    return res
