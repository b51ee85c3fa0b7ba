"""Readers that turn score files into a :class:`~mtscore.rank.core.RankInput` (docs/rank.md).

* ``--seg-scores NAME FILE [direction=higher|lower] [format=...]``: one metric's per-segment scores, in any layout
  mtscore's stored-score reader knows (mt-metrics-eval ``*.seg.score``, ``system<TAB>segment<TAB>score``, COMET
  JSON; :mod:`mtscore.io.scores`), or JSON lines (``.jsonl``): one object per line with ``system`` and either
  ``score`` (one segment) or ``scores`` (a list: the segments of one document), optionally ``doc``, ``domain``
  and ``lp``; ``null`` = not scored. Documents and domains come from the JSON lines or from ``--docs``.
* ``--scores-json FILE``: what ``mtscore score -f json`` writes (every metric it scored, with direction and
  signature): with ``--sentence-level`` per-segment scores, without it system scores.
* ``--sys-scores NAME FILE [direction=...]``: ``SYSTEM<TAB>score`` (mt-metrics-eval ``*.sys.score``), read as
  ``meta --sys-scores`` reads it.
* ``--docs FILE``: mt-metrics-eval documents (``DOMAIN<TAB>DOCID`` per segment).
* ``--system-meta FILE``: one row per system: TSV with a header (first column the system) or JSON
  ``{system: {column: value}}``; shown as columns and usable in ``--filter``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..io.scores import file_digest, read_score_file
from ..io.text import _read_bytes, decode_lines, read_lines
from .core import MetricScores, RankInput


def file_signature(name: str, path: str, higher: bool) -> str:
    """A stored-score metric's signature: its name, direction, file name and the digest of the file's bytes."""
    return (f"{name}|scores:{Path(path).name}|direction:{'higher' if higher else 'lower'}"
            f"|digest:{file_digest(_read_bytes(path))}")


def _text(path: str) -> str:
    """A file's text (UTF-8), or an InputError naming the file (missing, a folder, unreadable, not UTF-8)."""
    return "\n".join(decode_lines(_read_bytes(path), path))


class SegmentTable:
    """Per-segment scores of several metrics for the same segments (and optionally their documents/domains)."""

    def __init__(self):
        self.metrics = []  # (name, higher, signature, {system: [score|None]}, source)
        self.docs = None  # list of doc ids per segment, or None
        self.domains = None
        self.doc_source = ""
        self.by_lp = None  # JSON lines with "lp": {lp: ...} handled by the caller

    def add(self, name, higher, signature, systems, source, docs=None, domains=None):
        if any(name == m[0] for m in self.metrics):
            raise InvalidParameterError(f"rank: metric name {name!r} given twice")
        n = {len(v) for v in systems.values()}
        if len(n) != 1:
            detail = ", ".join(f"{s}: {len(v)}" for s, v in list(systems.items())[:4])
            raise InputError(f"metric {name}: systems have different numbers of segments ({detail})", source)
        if self.metrics:
            n0 = len(next(iter(self.metrics[0][3].values())))
            if n != {n0}:
                raise InputError(f"metric {name}: {plural(n.pop(), 'segment')} per system, but metric "
                                 f"{self.metrics[0][0]} has {n0}", source)
        if docs is not None:
            self.set_docs(docs, domains, source)
        self.metrics.append((name, higher, signature, systems, source))

    def set_docs(self, docs, domains, source):
        if self.docs is not None and (list(docs) != list(self.docs) or
                                      (domains is not None and self.domains is not None and
                                       list(domains) != list(self.domains))):
            raise InputError(f"documents differ from those of {self.doc_source}", source)
        if self.docs is None:
            self.docs, self.domains, self.doc_source = list(docs), (None if domains is None else list(domains)), source

    @property
    def n_segments(self):
        return len(next(iter(self.metrics[0][3].values()))) if self.metrics else 0


def read_docs(path: str) -> tuple[list, list]:
    """mt-metrics-eval documents: (doc ids, domains), one ``DOMAIN<TAB>DOCID`` line per segment."""
    docs, domains = [], []
    for i, ln in enumerate(read_lines(Path(path)), 1):
        parts = ln.split("\t")
        if len(parts) != 2:
            raise InputError(f"--docs: expected DOMAIN<TAB>DOCID, got {plural(len(parts), 'field')}", path, i)
        domains.append(parts[0])
        docs.append(parts[1])
    return docs, domains


def _spec(spec, option):
    from ..metrics.registry import parse_metric_spec  # the one parser of key=value metric parameters

    if len(spec) < 2:
        raise InvalidParameterError(f"{option}: needs NAME and FILE, got {' '.join(spec)!r}")
    name, path = spec[0], spec[1]
    extra = parse_metric_spec("scores:" + ",".join(spec[2:]))[1] if spec[2:] else {}
    return name, path, extra


def _direction(name, path, extra, option="--seg-scores"):
    """Direction of a stored-score metric: declared (direction=...) or from mtscore's table of known metrics."""
    from ..metrics.scores import ExternalScores

    fmt = extra.pop("format", None)
    unknown = sorted(set(extra) - {"direction", "range"})
    if unknown:
        raise InvalidParameterError(f"{option} {name}: unknown key(s) {', '.join(unknown)}; valid: direction, "
                                    "range, format")
    try:
        m = ExternalScores(name=name, file=path, **extra)
    except InvalidParameterError as exc:
        if "direction is unknown" in str(exc):
            raise InvalidParameterError(f"{option} {name}: unknown metric name, so its direction is unknown; "
                                        f"declare it: {option} {name} FILE direction=higher|lower") from None
        raise
    return m.higher_is_better, fmt


def read_jsonl(path: str, lp: str | None = None):
    """JSON lines of segment scores: ({lp: (systems {name: [score|None]}, docs, domains)}, has_docs)."""
    per_lp: dict = {}
    for i, line in enumerate(_text(path).split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not a JSON object ({exc.msg})", path, i) from None
        if not isinstance(row, dict) or "system" not in row or ("score" in row) == ("scores" in row):
            raise InputError('expected an object with "system" and one of "score" or "scores"', path, i)
        if lp is not None and row.get("lp") is not None and row["lp"] != lp:
            continue
        vals = row["scores"] if "scores" in row else [row["score"]]
        if not isinstance(vals, list):
            raise InputError('"scores" must be a list (the segments of one document)', path, i)
        out = []
        for v in vals:
            if v is None:
                out.append(None)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                out.append(float(v))
            else:
                raise InputError(f"score {v!r} is not a number (null marks a missing score)", path, i)
        key = row.get("lp")
        systems, docs, domains = per_lp.setdefault(key, ({}, {}, {}))
        name = str(row["system"])
        systems.setdefault(name, []).extend(out)
        d = row.get("doc")
        docs.setdefault(name, []).extend([None if d is None else str(d)] * len(out))
        domains.setdefault(name, []).extend([row.get("domain")] * len(out))
    if not per_lp:
        raise InputError("no scores" + (f" for --lp {lp}" if lp else ""), path)
    out = {}
    for key, (systems, docs, domains) in per_lp.items():
        first = next(iter(systems))
        for s in systems:
            if docs[s] != docs[first] or domains[s] != domains[first]:
                raise InputError(f"system {s}: its segments' documents or domains differ from those of {first} "
                                 "(every system needs the same segments in the same order)", path)
        d0, m0 = docs[first], domains[first]
        has_docs = any(d is not None for d in d0)
        out[key] = (systems, d0 if has_docs else None, m0 if any(x is not None for x in m0) else None)
    return out


def parse_directions(specs) -> dict:
    """``--direction NAME=higher|lower`` (``*`` = every metric not named) -> {name: higher_is_better}."""
    out = {}
    for spec in specs or ():
        name, eq, val = spec.rpartition("=")
        if not eq or not name or val not in ("higher", "lower"):
            raise InvalidParameterError(f"--direction: expected NAME=higher or NAME=lower, got {spec!r}")
        out[name] = val == "higher"
    return out


def read_multi_jsonl(paths, directions: dict, lp: str | None = None) -> dict:
    """Several metrics per line: ``{"system"?, "lp"|"language_pair", "doc"|"document_id", "domain",
    "metric_scores": {NAME: [the document's segment scores]}}`` (the layout of WMT25's published automatic scores,
    one file per system: the system is the file name without ``.jsonl`` unless a line says ``system``).

    Returns {lp: (docs, domains, {metric: {system: [scores]}}, higher {metric: bool})}; every system of a language
    pair must have the same documents in the same order."""
    per_lp: dict = {}
    for path in paths:
        stem = Path(path).name
        stem = stem[:-len(".jsonl")] if stem.endswith(".jsonl") else stem
        for i, line in enumerate(_text(path).split("\n"), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"not a JSON object ({exc.msg})", path, i) from None
            if not isinstance(row, dict) or not isinstance(row.get("metric_scores"), dict):
                raise InputError('expected an object with "metric_scores": {metric: [scores]}', path, i)
            key = row.get("lp", row.get("language_pair"))
            if lp is not None and key is not None and key != lp:
                continue
            system = str(row.get("system", stem))
            doc = row.get("doc", row.get("document_id"))
            lengths = set()
            entry = per_lp.setdefault(key, {})
            sysrec = entry.setdefault(system, {"docs": [], "domains": [], "metrics": {}, "path": path})
            for name, vals in row["metric_scores"].items():
                if not isinstance(vals, list):
                    raise InputError(f"metric {name}: expected a list of segment scores", path, i)
                out = []
                for v in vals:
                    if v is None:
                        out.append(None)
                    elif isinstance(v, (int, float)) and not isinstance(v, bool):
                        out.append(float(v))
                    else:
                        raise InputError(f"metric {name}: score {v!r} is not a number (null = missing)", path, i)
                lengths.add(len(out))
                sysrec["metrics"].setdefault(name, []).extend(out)
            if len(lengths) != 1:
                raise InputError(f"the metrics score different numbers of segments ({sorted(lengths)})", path, i)
            n = lengths.pop()
            sysrec["docs"].extend([None if doc is None else str(doc)] * n)
            sysrec["domains"].extend([row.get("domain")] * n)
    if not per_lp:
        raise InputError("no scores" + (f" for --lp {lp}" if lp else ""), str(paths[0]))
    result = {}
    for key, systems in per_lp.items():
        first = next(iter(systems))
        ref = systems[first]
        metrics: dict = {}
        for s, rec in systems.items():
            if rec["docs"] != ref["docs"] or rec["domains"] != ref["domains"]:
                raise InputError(f"system {s}{' (' + key + ')' if key else ''}: its documents differ from those of "
                                 f"{first} (every system needs the same segments in the same order)", rec["path"])
            for name, vals in rec["metrics"].items():
                metrics.setdefault(name, {})[s] = vals
        higher = {}
        for name in metrics:
            if name in directions:
                higher[name] = directions[name]
            elif "*" in directions:
                higher[name] = directions["*"]
            else:
                raise InvalidParameterError(f"--multi-scores: metric {name}: its direction is not declared; give "
                                            f"--direction {name}=higher|lower (or --direction '*=higher')")
        docs = ref["docs"] if any(d is not None for d in ref["docs"]) else None
        domains = ref["domains"] if any(d is not None for d in ref["domains"]) else None
        result[key] = (docs, domains, metrics, higher)
    return result


def read_segment_file(name: str, path: str, fmt: str | None):
    """{system: [score|None]} of a segment-level file in a layout of :mod:`mtscore.io.scores`."""
    sf = read_score_file(path, fmt or "auto")
    if sf.system_level:
        raise InputError(f"--seg-scores {name}: a system-level file (one score per system); give it with "
                         "--sys-scores", path)
    if None in sf.systems:
        raise InputError(f"--seg-scores {name}: one column of numbers without system names; use a layout that "
                         "names the systems (SYSTEM<TAB>score, JSON lines)", path)
    return {s: list(v) for s, v in sf.systems.items()}


def read_score_json(path: str):
    """``mtscore score -f json`` output: [(name, higher, signature, {system: [scores]} or {system: score}, seg)]."""
    try:
        obj = json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg})", path, exc.lineno) from None
    if not isinstance(obj, dict) or "columns" not in obj or "metrics" not in obj or "rows" not in obj:
        raise InputError('expected the JSON that "mtscore score -f json" writes (columns, rows, metrics)', path)
    try:
        return _score_json_metrics(obj)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"not the layout 'mtscore score -f json' writes ({type(exc).__name__}: {exc})", path) \
            from None


def _number_or_none(v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"score {v!r} is not a number")
    return float(v)


def _score_json_metrics(obj):
    metrics = obj["metrics"]
    sigs = {n.split("|", 1)[0]: n for n in obj.get("notes", []) if "|" in n}
    out = []
    cols = obj["columns"]
    if cols and cols[0] == "segment":  # --sentence-level: "SYSTEM:NAME" columns
        for mv in metrics:
            systems = {}
            for c in cols[1:]:
                sysname, _, mname = c.rpartition(":")
                if mname == mv["name"]:
                    systems[sysname] = [_number_or_none(r.get(c)) for r in obj["rows"]]
            out.append((mv["name"], bool(mv["higher_is_better"]), sigs.get(mv["name"], ""), systems, True))
    elif cols and cols[0] == "system":
        for mv in metrics:
            systems = {r["system"]: _number_or_none(r.get(mv["name"])) for r in obj["rows"]}
            out.append((mv["name"], bool(mv["higher_is_better"]), sigs.get(mv["name"], ""), systems, False))
    else:
        raise ValueError(f"first column {cols[0] if cols else None!r}: expected 'segment' or 'system'")
    return out


def read_system_meta(path: str) -> dict:
    """{column: {system: value}} from a TSV with a header or a JSON object of objects."""
    p = Path(path)
    cols: dict = {}
    if p.suffix.lower() == ".json":
        try:
            obj = json.loads(_text(path))
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON ({exc.msg})", path, exc.lineno) from None
        if not isinstance(obj, dict) or not all(isinstance(v, dict) for v in obj.values()):
            raise InputError("expected {system: {column: value}}", path)
        for s, row in obj.items():
            for k, v in row.items():
                if isinstance(v, (str, int, float, bool)) or v is None:
                    cols.setdefault(k, {})[s] = v
        return cols
    lines = read_lines(p)
    if not lines:
        raise InputError("empty file: expected a header (system<TAB>column ...)", path)
    head = lines[0].split("\t")
    if len(head) < 2:
        raise InputError("the header needs the system column and at least one more", path, 1)
    for i, ln in enumerate(lines[1:], 2):
        if not ln.strip():
            continue
        parts = ln.split("\t")
        if len(parts) != len(head):
            raise InputError(f"{plural(len(parts), 'field')}, the header has {len(head)}", path, i)
        for k, v in zip(head[1:], parts[1:]):
            cols.setdefault(k, {})[parts[0]] = v
    return cols


def _value_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def parse_filters(specs) -> list:
    out = []
    for spec in specs or ():
        key, eq, val = spec.partition("=")
        if not eq or not key or not val:
            raise InvalidParameterError(f"--filter: expected KEY=VALUE[,VALUE...], got {spec!r}")
        out.append((key, set(val.split(","))))
    return out


def assemble(table: SegmentTable, sys_metrics: list, label: str, meta: dict, filters, exclude=(),
             systems_order=None, computed=()) -> RankInput:
    """One RankInput from segment-level, system-level and computed metrics (``(name, higher, signature,
    {system: stats [N, C]}, scorer, source)``), after the filters and exclusions."""
    if computed:
        n = {v.shape[0] for c in computed for v in c[3].values()}
        if table.metrics and n != {table.n_segments}:
            raise InvalidParameterError(f"rank: the computed metrics have {sorted(n)} segments, the score files "
                                        f"{table.n_segments}")
        if not table.metrics and table.docs is not None and n != {len(table.docs)}:
            raise InputError(f"--docs: {plural(len(table.docs), 'line')} for {plural(n.pop(), 'segment')}",
                             table.doc_source)
    names = [m[0] for m in computed] + [m[0] for m in table.metrics] + [m[0] for m in sys_metrics]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InvalidParameterError(f"rank: metric name(s) given twice: {', '.join(dup)}")
    sets = ([(m[0], m[5], set(m[3])) for m in computed] + [(m[0], m[4], set(m[3])) for m in table.metrics]
            + [(m[0], m[4], set(m[3])) for m in sys_metrics])
    if not sets:
        raise InvalidParameterError("rank: no metric: give -i/-m, --seg-scores, --scores-json or --sys-scores")
    first = computed[0][3] if computed else (table.metrics[0][3] if table.metrics else sys_metrics[0][3])
    order = systems_order or list(first)
    excl = set(exclude)
    unknown = sorted(e for e in excl if all(e not in s for _, _, s in sets))
    if unknown:
        raise InvalidParameterError(f"--exclude: unknown system(s) {', '.join(unknown)}")
    systems = [s for s in order if s not in excl]
    for name, src, have in sets:
        lacking = [s for s in systems if s not in have]
        if lacking:
            raise InputError(f"metric {name}: no scores for system(s) {', '.join(lacking[:5])}"
                             f"{' ...' if len(lacking) > 5 else ''}; use --exclude to leave them out", src)
    seg_keep = None
    sys_filters = []
    for key, vals in filters:
        if key == "domain":
            if table.domains is None:
                raise InvalidParameterError("--filter domain=...: the segments have no domains (give --docs, or "
                                            "JSON lines with \"domain\")")
            known = set(table.domains)
            bad = sorted(vals - known)
            if bad:
                raise InvalidParameterError(f"--filter domain: unknown domain(s) {', '.join(bad)}; "
                                            f"known: {', '.join(sorted(known))}")
            keep = np.array([d in vals for d in table.domains])
            seg_keep = keep if seg_keep is None else (seg_keep & keep)
        elif key in meta:
            sys_filters.append((key, vals))
        else:
            raise InvalidParameterError(f"--filter {key}: not 'domain' nor a column of --system-meta "
                                        f"({', '.join(sorted(meta)) or 'none given'})")
    for key, vals in sys_filters:
        systems = [s for s in systems if _value_text(meta[key].get(s)) in vals]
    if sys_filters and len(systems) < 2:
        raise InvalidParameterError(f"--filter: {plural(len(systems), 'system')} left; a ranking needs two")
    if seg_keep is not None and not seg_keep.any():
        raise InvalidParameterError("--filter: no segment left")
    docs_arr, doc_names, domains = None, [], None
    if table.metrics or computed:
        N = table.n_segments if table.metrics else next(iter(computed[0][3].values())).shape[0]
        if table.docs is None:  # no documents known: each segment is its own document
            doc_ids = [str(i) for i in range(N)]
        else:
            if len(table.docs) != N:
                raise InputError(f"--docs: {plural(len(table.docs), 'line')} for {plural(N, 'segment')}",
                                 table.doc_source)
            doc_ids = table.docs
        index: dict = {}
        codes = np.array([index.setdefault(d, len(index)) for d in doc_ids], dtype=np.int64)
        doc_names = list(index)
        docs_arr = codes
        domains = table.domains
    mets = []
    for name, higher, sig, syss, scorer, src in computed:
        st = np.stack([np.asarray(syss[s], dtype=np.float64) for s in systems])
        mets.append(MetricScores(name, higher, sig, source=src, stats=st, scorer=scorer))
    for name, higher, sig, syss, src in table.metrics:
        seg = np.array([[math.nan if v is None else v for v in syss[s]] for s in systems], dtype=np.float64)
        mets.append(MetricScores(name, higher, sig, seg=seg, source=src))
    for name, higher, sig, syss, src in sys_metrics:
        vals = [syss[s] for s in systems]
        bad = [s for s, v in zip(systems, vals) if v is None or not math.isfinite(v)]
        if bad:
            raise InputError(f"metric {name}: system {bad[0]!r} has no finite score", src)
        mets.append(MetricScores(name, higher, sig, sys=np.array(vals, dtype=np.float64), source=src))
    inp = RankInput(systems, mets, docs_arr, doc_names, domains, label,
                    {c: {s: v.get(s) for s in systems} for c, v in meta.items()})
    if seg_keep is not None:
        inp = inp.subset(keep_segments=seg_keep)
        used = sorted(set(inp.docs.tolist()))
        remap = {d: i for i, d in enumerate(used)}
        inp.docs = np.array([remap[d] for d in inp.docs.tolist()], dtype=np.int64)
        inp.doc_names = [inp.doc_names[d] for d in used]
    return inp
