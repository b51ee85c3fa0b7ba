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
* ``segment_id`` is 0-based in the test set **without** its first line (the canary line of the WMT24 text
  files): test-set line = ``segment_id + offset`` with ``offset`` 1 (0 for text files without the canary line).
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


def read_wmt24_esa(paths, n_segments: int, lp: str | None = None, offset: int = 1, name: str = "esa") -> HumanScores:
    """Segment-level ESA scores of one language pair ``lp`` (e.g. ``en-de``) from one or more wave files."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if offset < 0:
        raise InvalidParameterError(f"offset: must be >= 0, got {offset}")
    latest: dict[tuple, tuple[str, float]] = {}  # (user, system, doc, seg, lp, file) -> (end_time, overall)
    lps_seen = set()
    for path in paths:
        for ln, parts in enumerate(csv_rows(read_lines(path), path), 1):
            if not parts:
                continue
            if len(parts) != len(ESA_COLUMNS):
                raise InputError(f"expected {plural(len(ESA_COLUMNS), 'comma-separated field')} (WMT24 ESA), got {len(parts)}",
                                 str(path), ln)
            row = dict(zip(ESA_COLUMNS, parts))
            if row["segment_type"] != "TGT" or "tutorial" in row["system_id"]:
                continue
            doc = row["doc_id"]
            if "#incomplete" in doc or "#dup" in doc or doc == "canary":
                continue
            pair = f"{_lang(row['source_lang'])}-{_lang(row['target_lang'])}"
            lps_seen.add(pair)
            if lp is not None and pair != lp:
                continue
            try:
                seg = int(row["segment_id"])
            except ValueError:
                raise InputError(f"segment_id must be an integer, got {row['segment_id']!r}", str(path), ln) from None
            try:
                score = float(row["overall"])
            except ValueError:
                raise InputError(f"overall must be a number, got {row['overall']!r}", str(path), ln) from None
            if not np.isfinite(score):
                raise InputError(f"overall must be finite, got {row['overall']!r}", str(path), ln)
            line = seg + offset
            if not 0 <= line < n_segments:
                raise InputError(f"segment_id {seg} (+ offset {offset}) is outside the test set's "
                                 f"{plural(n_segments, 'line')}", str(path), ln)
            key = (row["user_id"], row["system_id"], doc, line, pair, str(path))
            prev = latest.get(key)
            if prev is None or row["end_time"] >= prev[0]:
                latest[key] = (row["end_time"], score)
    if lp is None and len(lps_seen) > 1:
        raise InvalidParameterError(f"ESA file(s) cover several language pairs ({', '.join(sorted(lps_seen))}): "
                                    "choose one with --lp")
    if not latest:
        raise InputError(f"no ESA ratings{' for ' + lp if lp else ''} (available: {', '.join(sorted(lps_seen)) or 'none'})",
                         str(paths[0]))
    sums: dict[str, dict[int, list[float]]] = {}
    for (_, system, _, line, _, _), (_, score) in latest.items():
        sums.setdefault(system, {}).setdefault(line, []).append(score)
    systems = sorted(sums)
    seg = np.full((len(systems), n_segments), np.nan)
    for i, s in enumerate(systems):
        for line, vals in sums[s].items():
            seg[i, line] = float(np.mean(vals))
    return HumanScores(name, systems, n_segments, seg, source=str(paths[0]))
