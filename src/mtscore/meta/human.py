"""Human judgments in the formats the WMT campaigns published, as one :class:`HumanScores` object.

Readers (each checks shapes and says which file/line is wrong):

* mt-metrics-eval layout (``human-scores/<lp>.<kind>.{seg,sys,domain}.score``; WMT20-24 MQM, DA+SQM,
  ESA): :func:`from_mtme`; a single ``SYSTEM<TAB>score`` seg file: :func:`read_mtme_seg`.
* WMT DA segment CSVs (WMT19-20 ``ad-seg-scores-*.csv``, whitespace-separated with the header
  ``SYS SID RAW.SCR Z.SCR N``; SID 1-based): :func:`read_wmt_da`.
* MQM annotation TSVs (google/wmt-mqm-human-evaluation, one row per error:
  ``system doc doc_id seg_id rater source target category severity``): :func:`read_mqm_tsv`.
* Any header TSV with system / segment / score columns (ESA exports and the like):
  :func:`read_scored_tsv`; the plain headerless ``system<TAB>segment<TAB>score``: :func:`read_plain_tsv`.
* Relative rankings (WMT13-16 ``*-judgments.csv``: ``segmentId``, ``system{1..5}Id``,
  ``system{1..5}rank``): :func:`read_relative_rankings`, giving pairwise preferences only.

Scores are "higher is better" (MQM is negated: 0 = perfect). Segment ids are 1-based in files and
0-based in arrays. Unrated cells are NaN.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..io.text import read_lines
from ..io.values import parse_score

# Human translations scored as if they were systems, by the naming of the WMT20-24 files: refA/refB/ref-A
# (mt-metrics-eval), synthetic_ref (WMT23), Human-A.0/Human-B.0/Human-P.0 (WMT20), HUMAN-B (WMT21-22 DA/MQM files)
HUMAN_SYSTEM_PREFIXES = ("ref", "synthetic_ref", "Human-", "HUMAN-", "human-", "Human_", "HUMAN_", "human_")


def is_human_system(name: str, references=()) -> bool:
    """A human translation among the systems: a name of :data:`HUMAN_SYSTEM_PREFIXES`'s forms, or the name of one of
    the test set's ``references`` (mt-metrics-eval's own rule: a system output named like a reference)."""
    return name.startswith(HUMAN_SYSTEM_PREFIXES) or name in references


HUMAN_FORMATS = ("mtme", "wmt-da", "mqm-tsv", "scored-tsv", "tsv", "rr", "esa-csv")  # esa-csv: meta/esa.py


@dataclass
class HumanScores:
    """Human scores of ``systems`` on ``n_segments`` segments."""

    name: str
    systems: list[str]
    n_segments: int
    seg: np.ndarray | None = None  # [S, N] float, NaN = unrated
    sys: dict[str, float] | None = None  # published system scores (else: mean of rated segments)
    domain: dict[tuple[str, str], float] | None = None  # (domain, system) -> score
    rr_pairs: np.ndarray | None = None  # [P, 3] int: segment, better system index, worse system index
    source: str = ""
    notes: list[str] = field(default_factory=list)  # how the reader decided/dropped things (shown under the table)

    def system_scores(self) -> dict[str, float]:
        if self.sys is not None:
            return dict(self.sys)
        if self.seg is None:
            raise InputError(f"{self.name}: no system-level scores and no segment scores to average", self.source)
        out = {}
        for i, s in enumerate(self.systems):
            row = self.seg[i]
            ok = ~np.isnan(row)
            out[s] = float(row[ok].mean()) if ok.any() else float("nan")
        return out

    def row(self, system: str) -> np.ndarray:
        return self.seg[self.systems.index(system)]


def _matrix(name, cells: dict[str, dict[int, float]], n_segments: int | None, path) -> HumanScores:
    systems = list(cells)
    if n_segments is None:
        n_segments = 1 + max((max(c) for c in cells.values() if c), default=-1)
    seg = np.full((len(systems), n_segments), np.nan)
    for i, s in enumerate(systems):
        for j, v in cells[s].items():
            if not 0 <= j < n_segments:
                raise InputError(f"system {s!r}: segment id {j + 1} outside 1..{n_segments}", str(path))
            seg[i, j] = v
    return HumanScores(name, systems, n_segments, seg, source=str(path))


def _float(tok, path, line):
    """One missing-value policy (mtscore.io.values): None/NA/empty = not rated (NaN here); nan, inf and
    1e999 are errors naming the line, unless the caller reads them as missing."""
    v = parse_score(tok, path, line)
    return float("nan") if v is None else v


def csv_rows(lines, path, delimiter: str = ",") -> list[list[str]]:
    """CSV rows of already split lines; a malformed row (e.g. a lone \\r inside) is an InputError naming its line."""
    reader = csv.reader(lines, delimiter=delimiter)
    rows = []
    while True:
        try:
            rows.append(next(reader))
        except StopIteration:
            return rows
        except csv.Error as exc:
            raise InputError(f"malformed CSV ({exc})", str(path), len(rows) + 1) from None


def _seg_id(tok, path, line):
    try:
        v = int(tok)
    except ValueError:
        raise InputError(f"segment id must be an integer, got {tok!r}", str(path), line) from None
    if v < 1:
        raise InputError(f"segment ids are 1-based, got {v}", str(path), line)
    return v - 1


def read_mtme_seg(path, n_segments: int, name: str = "human") -> HumanScores:
    """``SYSTEM<TAB>score`` lines, one per (system, segment), systems in contiguous blocks."""
    from ..io.wmt import read_seg_scores
    d = read_seg_scores(path, n_segments)
    seg = np.array([[np.nan if v is None else v for v in vals] for vals in d.values()], dtype=np.float64)
    return HumanScores(name, list(d), n_segments, seg.reshape(len(d), n_segments), source=str(path))


def from_mtme(data, kind: str = "mqm") -> HumanScores:
    """Human scores of an :class:`~mtscore.io.wmt.MTMEData` language pair (seg, sys and domain files)."""
    root = Path(data.root) / "human-scores"
    paths = {lvl: root / f"{data.lp}.{kind}.{lvl}.score" for lvl in ("seg", "sys", "domain")}
    if not any(p.exists() for p in paths.values()):
        avail = sorted({p.name.split(".")[1] for p in root.glob(f"{data.lp}.*.score")})
        raise InvalidParameterError(
            f"--human: no {kind!r} human scores for {data.lp} in {root}; available: {', '.join(avail) or 'none'}")
    if paths["seg"].exists():
        hs = read_mtme_seg(paths["seg"], data.n_segments, kind)
        if not hs.systems:
            raise InputError("no segment scores: the file is empty (SYSTEM<TAB>score per segment; without segment "
                             "scores, remove it and keep the .sys.score file)", str(paths["seg"]))
    else:
        hs = HumanScores(kind, [], data.n_segments, source=str(paths["sys"]))
    if paths["sys"].exists():
        sys_scores = {k: (float("nan") if v is None else v) for k, v in data.human_scores(kind, "sys").items()}
        if not hs.systems:
            hs.systems = list(sys_scores)
        hs.sys = sys_scores
    if paths["domain"].exists():
        hs.domain = {k: (float("nan") if v is None else v) for k, v in data.human_scores(kind, "domain").items()}
    return hs


def read_wmt_da(path, n_segments: int | None = None, score: str = "z", name: str = "da") -> HumanScores:
    """WMT DA segment scores: whitespace-separated, header with ``SYS SID RAW.SCR Z.SCR N``."""
    col = {"z": "Z.SCR", "raw": "RAW.SCR"}.get(score.lower())
    if col is None:
        raise InvalidParameterError.choice("score", score, ("z", "raw"))
    lines = read_lines(path)
    if not lines:
        raise InputError("empty DA file", str(path))
    header = lines[0].split()
    for need in ("SYS", "SID", col):
        if need not in header:
            raise InputError(f"DA header lacks column {need!r} (expected SYS SID RAW.SCR Z.SCR N), got {header}",
                             str(path), 1)
    isys, isid, isc = header.index("SYS"), header.index("SID"), header.index(col)
    cells: dict[str, dict[int, float]] = {}
    for ln, text in enumerate(lines[1:], 2):
        if not text.strip():
            continue
        parts = text.split()
        if len(parts) != len(header):
            raise InputError(f"expected {plural(len(header), 'field')}, got {len(parts)}", str(path), ln)
        s, j = parts[isys], _seg_id(parts[isid], path, ln)
        if j in cells.setdefault(s, {}):
            raise InputError(f"duplicate score for system {s!r} segment {j + 1}", str(path), ln)
        cells[s][j] = _float(parts[isc], path, ln)
    return _matrix(name, cells, n_segments, path)


# Freitag et al. (2021) MQM weights, as used by the WMT MQM releases
MQM_WEIGHTS = {"major": 5.0, "minor": 1.0, "neutral": 0.0, "no-error": 0.0}
MQM_NON_TRANSLATION = 25.0
MQM_MINOR_PUNCT = 0.1


def mqm_penalty(category: str, severity: str) -> float:
    sev = severity.strip().lower()
    cat = category.strip().lower()
    if cat.startswith("non-translation"):
        return MQM_NON_TRANSLATION
    if sev == "minor" and cat in ("fluency/punctuation", "fluency / punctuation"):
        return MQM_MINOR_PUNCT
    if cat in ("no-error", "no error"):
        return 0.0
    if sev not in MQM_WEIGHTS:
        raise ValueError(severity)
    return MQM_WEIGHTS[sev]


def read_mqm_tsv(path, n_segments: int | None = None, name: str = "mqm") -> HumanScores:
    """MQM error annotations -> segment score = -(mean over raters of the summed error weights)."""
    lines = read_lines(path)
    header = lines[0].split("\t") if lines else []
    for need in ("system", "seg_id", "rater", "category", "severity"):
        if need not in header:
            raise InputError(f"MQM header lacks column {need!r}; got {header}", str(path), 1)
    ix = {k: header.index(k) for k in ("system", "seg_id", "rater", "category", "severity")}
    per_rater: dict[tuple[str, int, str], float] = {}
    for ln, text in enumerate(lines[1:], 2):
        if not text:
            continue
        parts = text.split("\t")
        if len(parts) != len(header):
            raise InputError(f"expected {plural(len(header), 'tab-separated field')}, got {len(parts)}", str(path), ln)
        key = (parts[ix["system"]], _seg_id(parts[ix["seg_id"]], path, ln), parts[ix["rater"]])
        try:
            pen = mqm_penalty(parts[ix["category"]], parts[ix["severity"]])
        except ValueError:
            raise InputError(f"unknown MQM severity {parts[ix['severity']]!r} (major, minor, neutral, no-error)",
                             str(path), ln) from None
        per_rater[key] = per_rater.get(key, 0.0) + pen
    sums: dict[str, dict[int, list[float]]] = {}
    for (s, j, _), pen in per_rater.items():
        sums.setdefault(s, {}).setdefault(j, []).append(-pen)
    cells = {s: {j: float(np.mean(v)) for j, v in d.items()} for s, d in sums.items()}
    return _matrix(name, cells, n_segments, path)


def read_scored_tsv(path, n_segments: int | None = None, system: str = "system", segment: str = "seg_id",
                    score: str = "score", name: str = "human", delimiter: str = "\t") -> HumanScores:
    """A header TSV/CSV with named system, 1-based segment and score columns (e.g. ESA exports)."""
    lines = read_lines(path)
    rows = csv_rows(lines, path, delimiter)
    if not rows:
        raise InputError("empty file", str(path))
    header = rows[0]
    for need in (system, segment, score):
        if need not in header:
            raise InputError(f"header lacks column {need!r}; got {header}", str(path), 1)
    isys, iseg, isc = header.index(system), header.index(segment), header.index(score)
    cells: dict[str, dict[int, float]] = {}
    for ln, parts in enumerate(rows[1:], 2):
        if not parts:
            continue
        if len(parts) != len(header):
            raise InputError(f"expected {plural(len(header), 'field')}, got {len(parts)}", str(path), ln)
        s, j = parts[isys], _seg_id(parts[iseg], path, ln)
        if j in cells.setdefault(s, {}):
            raise InputError(f"duplicate score for system {s!r} segment {j + 1}", str(path), ln)
        cells[s][j] = _float(parts[isc], path, ln)
    return _matrix(name, cells, n_segments, path)


def read_plain_tsv(path, n_segments: int | None = None, name: str = "human") -> HumanScores:
    """Headerless ``system<TAB>segment<TAB>score`` (segment 1-based)."""
    cells: dict[str, dict[int, float]] = {}
    for ln, text in enumerate(read_lines(path), 1):
        parts = text.split("\t")
        if len(parts) != 3:
            raise InputError(f"expected system<TAB>segment<TAB>score, got {len(parts)} field(s)", str(path), ln)
        s, j = parts[0], _seg_id(parts[1], path, ln)
        if j in cells.setdefault(s, {}):
            raise InputError(f"duplicate score for system {s!r} segment {j + 1}", str(path), ln)
        cells[s][j] = _float(parts[2], path, ln)
    return _matrix(name, cells, n_segments, path)


def read_relative_rankings(path, n_segments: int | None = None, name: str = "rr") -> HumanScores:
    """WMT13-16 relative-ranking CSV -> pairwise preferences (ties dropped, WMT10-style).

    Columns used: ``segmentId`` (1-based) and ``system{k}Id`` / ``system{k}rank`` for k = 1..5
    (rank 1 = best). Each judgment yields one preference per pair of systems with different ranks.
    """
    lines = read_lines(path)
    rows = csv_rows(lines, path)
    if not rows:
        raise InputError("empty file", str(path))
    header = rows[0]
    if "segmentId" not in header:
        raise InputError(f"relative-ranking header lacks 'segmentId'; got {header}", str(path), 1)
    ks = [k for k in range(1, 11) if f"system{k}Id" in header and f"system{k}rank" in header]
    if len(ks) < 2:
        raise InputError("relative-ranking header needs system{k}Id and system{k}rank columns", str(path), 1)
    iseg = header.index("segmentId")
    systems: dict[str, int] = {}
    pairs = []
    for ln, parts in enumerate(rows[1:], 2):
        if not parts:
            continue
        if len(parts) != len(header):
            raise InputError(f"expected {plural(len(header), 'field')}, got {len(parts)}", str(path), ln)
        j = _seg_id(parts[iseg], path, ln)
        ranked = []
        for k in ks:
            s = parts[header.index(f"system{k}Id")]
            r = _float(parts[header.index(f"system{k}rank")], path, ln)
            if s and not np.isnan(r) and r >= 1:
                ranked.append((systems.setdefault(s, len(systems)), r))
        for a in range(len(ranked)):
            for b in range(a + 1, len(ranked)):
                (sa, ra), (sb, rb) = ranked[a], ranked[b]
                if sa == sb or ra == rb:
                    continue
                pairs.append((j, sa, sb) if ra < rb else (j, sb, sa))
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 3)
    n = n_segments if n_segments is not None else (int(arr[:, 0].max()) + 1 if len(arr) else 0)
    if len(arr) and arr[:, 0].max() >= n:
        raise InputError(f"segment id {int(arr[:, 0].max()) + 1} outside 1..{n}", str(path))
    return HumanScores(name, list(systems), n, rr_pairs=arr, source=str(path))


def rr_kendall(pairs: np.ndarray, metric: np.ndarray) -> float:
    """WMT10-14 relative-ranking Kendall: (Conc - Disc) / (Conc + Disc), metric ties discordant.

    ``pairs`` [P, 3] (segment, better system, worse system) index rows of ``metric`` [S, N]; pairs whose
    metric score is missing (NaN) are skipped.
    """
    if len(pairs) == 0:
        return float("nan")
    mb = metric[pairs[:, 1], pairs[:, 0]]
    mw = metric[pairs[:, 2], pairs[:, 0]]
    ok = ~(np.isnan(mb) | np.isnan(mw))
    con = float(np.sum(mb[ok] > mw[ok]))
    tot = float(ok.sum())
    return (2 * con - tot) / tot if tot else float("nan")
