"""WMT24 ESA (Error Span Annotation) human scores, as released in wmt-conference/wmt24-news-systems
(``humeval/esa_generalMT2024_wave*.csv``).

The files are headerless CSV with 12 columns:
``user_id, system_id, segment_id, segment_type, source_lang, target_lang, overall, doc_id, -, error_spans,
start_time, end_time`` (languages as ISO 639-3 codes: eng, ces, deu, ...). WMT24's conversion to mt-metrics-eval
files (its ``convert_to_metrics.py``), which this reader follows:

* only ``segment_type == TGT`` rows; tutorial systems (``tutorial`` in the system id), ``#incomplete`` and ``#dup``
  documents and the ``canary`` document are dropped (quality control);
* when a rater scored the same item twice, the later rating (``end_time``) counts;
* the segment score is the mean ``overall`` (0-100) over raters;
* test-set line (0-based) = ``segment_id + offset``. The files released first numbered the segments without the
  canary line that starts every WMT24 text file (offset 1); the current files (after the release's
  ``fix_canary_indexing.py``) count it (offset 0). The offset is therefore **decided from the data**
  (:func:`decide_offset`): with the test set's document ids (``documents/<lp>.docs``) the one offset under which
  every row's ``doc_id`` (without its ``#incomplete``/``#dup`` marks) names the document of its line; without
  them, from the canary line (a first line starting with ``canary``: a rated ``segment_id`` 0 can only be a line
  after it, so offset 1). When the data cannot decide it, the reader refuses and asks for ``offset``; a given
  offset that contradicts the documents is refused too.
* human translations rated as if they were systems (``refA`` ...; :func:`mtscore.meta.human.is_human_system`)
  are dropped like the other human rows, unless ``include_human``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..io.text import read_lines
from .human import HumanScores, csv_rows

ESA_COLUMNS = ("user_id", "system_id", "segment_id", "segment_type", "source_lang", "target_lang", "overall",
               "doc_id", "unk", "error_spans", "start_time", "end_time")
ISO3 = {"eng": "en", "ces": "cs", "hin": "hi", "zho": "zh", "jpn": "ja", "rus": "ru", "ukr": "uk", "deu": "de",
        "isl": "is", "spa": "es"}


def _lang(code: str) -> str:
    return ISO3.get(code, code)


def _doc_base(doc: str) -> str:
    return doc.split("#", 1)[0]


def decide_offset(rows, n_segments: int, docs=None, first_line: str | None = None, offset: int | None = None,
                  where: str = "") -> tuple[int, str]:
    """(offset, how it was decided) for ``rows`` = [(segment_id, doc_id)] of the selected language pair.

    ``docs``: document id of every test-set line (``documents/<lp>.docs``); ``first_line``: the test set's first
    line (for the canary rule); ``offset``: the caller's choice (checked against ``docs`` when given).
    """
    if offset is not None and offset < 0:
        raise InvalidParameterError(f"--esa-offset: must be >= 0, got {offset}")

    def mismatches(off):
        bad = 0
        for seg, doc in rows:
            line = seg + off
            if not 0 <= line < n_segments or docs[line] != _doc_base(doc):
                bad += 1
        return bad
    if docs is not None:
        if len(docs) != n_segments:
            raise InputError(f"{plural(len(docs), 'document id')} for {plural(n_segments, 'segment')}", where or None)
        if offset is not None:
            bad = mismatches(offset)
            if bad:
                raise InvalidParameterError(
                    f"--esa-offset {offset}: {bad} of {plural(len(rows), 'ESA row')} name another document than "
                    f"documents/<lp>.docs gives for their line (segment_id + {offset}); omit --esa-offset to decide "
                    "it from the data")
            return offset, f"--esa-offset {offset} (every row's doc_id matches its line's document)"
        counts = {off: mismatches(off) for off in (0, 1)}
        good = [off for off, bad in counts.items() if bad == 0]
        if len(good) == 1:
            return good[0], (f"offset {good[0]} decided from the documents: every row's doc_id matches its line's "
                             f"document (offset {1 - good[0]}: {counts[1 - good[0]]} of {len(rows)} do not)")
        raise InvalidParameterError(
            "ESA segment offset cannot be decided from the documents (rows whose doc_id differs from their line's "
            f"document: offset 0: {counts[0]}, offset 1: {counts[1]} of {len(rows)}); give --esa-offset N")
    if offset is not None:
        return offset, f"--esa-offset {offset} (not checked: no document ids)"
    if first_line is not None and first_line.strip().lower().startswith("canary") and any(seg == 0 for seg, _ in rows):
        return 1, "offset 1 decided from the canary line: segment_id 0 is rated, so the ids do not count the canary line"
    raise InvalidParameterError(
        "ESA segment offset cannot be decided from the data (no documents/<lp>.docs to check the doc_ids against"
        + (", and the canary rule does not apply" if first_line is not None else "") +
        "); give --esa-offset 0 (the current WMT24 files, whose ids count the canary line) or 1 (the first release)")


def esa_rows(paths):
    """The rated target rows of WMT24 ESA wave files, as ``(path, line, row, language pair)`` with ``row`` a dict
    by :data:`ESA_COLUMNS`: source rows, tutorials and incomplete, duplicate or canary documents are skipped."""
    for path in paths:
        for ln, parts in enumerate(csv_rows(read_lines(path), path), 1):
            if not parts:
                continue
            if len(parts) != len(ESA_COLUMNS):
                raise InputError(f"expected {plural(len(ESA_COLUMNS), 'comma-separated field')} (WMT24 ESA), "
                                 f"got {len(parts)}", str(path), ln)
            row = dict(zip(ESA_COLUMNS, parts))
            if row["segment_type"] != "TGT" or "tutorial" in row["system_id"]:
                continue
            doc = row["doc_id"]
            if "#incomplete" in doc or "#dup" in doc or doc == "canary":
                continue
            yield path, ln, row, f"{_lang(row['source_lang'])}-{_lang(row['target_lang'])}"


def read_wmt24_esa(paths, n_segments: int, lp: str | None = None, offset: int | None = None, name: str = "esa",
                   docs=None, first_line: str | None = None, include_human: bool = False) -> HumanScores:
    """Segment-level ESA scores of one language pair ``lp`` (e.g. ``en-de``) from one or more wave files.

    ``offset``: test-set line = segment_id + offset; None = decided from ``docs`` (document id per test-set line)
    or ``first_line`` (the canary rule), see :func:`decide_offset`. ``include_human``: keep rows of human
    translations (``refA`` ...). The result's ``notes`` say which offset was used and what was dropped."""
    from .human import is_human_system
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if offset is not None and offset < 0:
        raise InvalidParameterError(f"offset: must be >= 0, got {offset}")
    kept = []  # (user, system, doc, seg, pair, file, end_time, score, path, line)
    lps_seen = set()
    human_rows: dict[str, int] = {}
    for path, ln, row, pair in esa_rows(paths):
        lps_seen.add(pair)
        if lp is not None and pair != lp:
            continue
        if not include_human and is_human_system(row["system_id"]):
            human_rows[row["system_id"]] = human_rows.get(row["system_id"], 0) + 1
            continue
        try:
            seg = int(row["segment_id"])
        except ValueError:
            raise InputError(f"segment_id must be an integer, got {row['segment_id']!r}", str(path), ln) from None
        if seg < 0:
            raise InputError(f"segment_id must be >= 0, got {seg}", str(path), ln)
        try:
            score = float(row["overall"])
        except ValueError:
            raise InputError(f"overall must be a number, got {row['overall']!r}", str(path), ln) from None
        if not np.isfinite(score):
            raise InputError(f"overall must be finite, got {row['overall']!r}", str(path), ln)
        kept.append((row["user_id"], row["system_id"], row["doc_id"], seg, pair, str(path), row["end_time"], score, ln))
    if lp is None and len(lps_seen) > 1:
        raise InvalidParameterError(f"ESA file(s) cover several language pairs ({', '.join(sorted(lps_seen))}): "
                                    "choose one with --lp")
    if not kept:
        raise InputError(f"no ESA ratings{' for ' + lp if lp else ''} (available: {', '.join(sorted(lps_seen)) or 'none'})",
                         str(paths[0]))
    offset, how = decide_offset([(k[3], k[2]) for k in kept], n_segments, docs, first_line, offset, str(paths[0]))
    latest: dict[tuple, tuple[str, float]] = {}  # (user, system, doc, line, lp, file) -> (end_time, overall)
    for user, system, doc, seg, pair, path, end, score, ln in kept:
        line = seg + offset
        if not 0 <= line < n_segments:
            raise InputError(f"segment_id {seg} (+ offset {offset}) is outside the test set's "
                             f"{plural(n_segments, 'line')}", path, ln)
        key = (user, system, doc, line, pair, path)
        prev = latest.get(key)
        if prev is None or end >= prev[0]:
            latest[key] = (end, score)
    sums: dict[str, dict[int, list[float]]] = {}
    for (_, system, _, line, _, _), (_, score) in latest.items():
        sums.setdefault(system, {}).setdefault(line, []).append(score)
    systems = sorted(sums)
    seg = np.full((len(systems), n_segments), np.nan)
    for i, s in enumerate(systems):
        for line, vals in sums[s].items():
            seg[i, line] = float(np.mean(vals))
    notes = [f"ESA: test-set line = segment_id + {offset}; {how}"]
    if human_rows:
        notes.append("ESA: rows of human translations dropped (--include-human keeps them): "
                     + ", ".join(f"{s} ({n})" for s, n in sorted(human_rows.items())))
    hs = HumanScores(name, systems, n_segments, seg, source=", ".join(str(p) for p in paths))
    hs.notes = notes
    return hs
