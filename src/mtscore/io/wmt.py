"""Readers for the WMT layouts in ``../shared/data``: mt-metrics-eval (wmt23) and wmt21 news.

mt-metrics-eval layout (``ROOT = .../wmt23``):
``sources/<lp>.txt``, ``references/<lp>.<ref>.txt``, ``system-outputs/<lp>/<SYSTEM>.txt`` (or ``.jsonl`` with
the fields ``source``, ``target``, ``hypothesis``, as WMT25; ``metadata/<lp>/<SYSTEM>.jsonl`` per translation),
``documents/<lp>.docs`` (``DOMAIN<TAB>DOCID``), ``human-scores/<lp>.<kind>.{seg,sys,domain}.score``,
``metric-scores/<lp>/<METRIC>-<ref>.{seg,sys,domain}.score``. Seg files are ``SYSTEM<TAB>score``, one
line per (system, segment), systems in contiguous blocks in segment order; ``None`` = not rated.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, plural
from .text import read_lines
from .values import parse_score

HUMAN_REF_PREFIXES = ("ref", "synthetic_ref")
# mt-metrics-eval's standard reference per WMT23 language pair (refA unless listed here).
STD_REFS = {"he-en": "refB"}


def _parse_float(tok: str, path, line) -> float | None:
    """None = not rated; nan/inf are errors naming the line (unless read as missing): mtscore.io.values."""
    return parse_score(tok, path, line)


def read_seg_scores(path, n_segments: int | None = None) -> dict[str, list[float | None]]:
    """``SYSTEM<TAB>score`` lines, systems in contiguous blocks -> {system: [score per segment]}."""
    out: dict[str, list[float | None]] = {}
    last = None
    for i, ln in enumerate(read_lines(path), 1):
        parts = ln.split("\t")
        if len(parts) != 2:
            raise InputError(f"expected SYSTEM<TAB>score, got {len(parts)} field(s)", str(path), i)
        sys_name, val = parts
        if sys_name != last and sys_name in out:
            raise InputError(f"system {sys_name!r} appears in two separate blocks", str(path), i)
        last = sys_name
        out.setdefault(sys_name, []).append(_parse_float(val, path, i))
    if n_segments is not None:
        for s, v in out.items():
            if len(v) != n_segments:
                raise InputError(f"system {s!r} has {len(v)} segment scores, the test set has {n_segments}", str(path))
    return out


def read_sys_scores(path) -> dict[str, float | None]:
    out = {}
    for i, ln in enumerate(read_lines(path), 1):
        parts = ln.split("\t")
        if len(parts) != 2:
            raise InputError(f"expected SYSTEM<TAB>score, got {len(parts)} field(s)", str(path), i)
        out[parts[0]] = _parse_float(parts[1], path, i)
    return out


def read_domain_scores(path) -> dict[tuple[str, str], float | None]:
    """``DOMAIN<TAB>SYSTEM<TAB>score`` -> {(domain, system): score}."""
    out = {}
    for i, ln in enumerate(read_lines(path), 1):
        parts = ln.split("\t")
        if len(parts) != 3:
            raise InputError(f"expected DOMAIN<TAB>SYSTEM<TAB>score, got {len(parts)} field(s)", str(path), i)
        out[(parts[0], parts[1])] = _parse_float(parts[2], path, i)
    return out


def _read_aligned(path: Path, n: int) -> list[str]:
    """Lines of a file that must be aligned with an n-line source."""
    lines = read_lines(path)
    if len(lines) != n:
        raise InputError(f"has {plural(len(lines), 'line')} but the source has {n}", str(path))
    return lines


@dataclass
class MTMEData:
    """One language pair of an mt-metrics-eval style directory."""

    root: Path
    lp: str
    sources: list[str]
    refs: dict[str, list[str]]  # reference name -> lines
    systems: dict[str, list[str]]  # every file of system-outputs/<lp>/ (human refs included)
    docs: list[tuple[str, str]] = field(default_factory=list)  # (domain, doc id) per segment
    metadata: dict[str, list[dict]] = field(default_factory=dict)  # system -> per-translation metadata (jsonl)
    # the other fields of sources/<lp>.jsonl per segment (e.g. domain, document_id); empty for a .txt source
    source_meta: list[dict] = field(default_factory=list)

    @property
    def n_segments(self) -> int:
        return len(self.sources)

    def std_ref(self) -> str:
        std = STD_REFS.get(self.lp, "refA")
        if self.root.name == "wmt24pp":  # mt-metrics-eval's WMT24++: the post-edits (meta_info.WMT24PP_DATA)
            std = {"en-de_DE": "posteditB", "en-is_IS": "refA"}.get(self.lp, "posteditA")
        if not self.refs:  # one line, not an IndexError (a metric that reads text needs a reference)
            raise InputError(f"no reference for {self.lp}: expected references/{self.lp}.<NAME>.txt (e.g. "
                             f"{self.lp}.{std}.txt)", str(self.root / "references"))
        return std if std in self.refs else sorted(self.refs)[0]

    def mt_systems(self, exclude_human: bool = True) -> dict[str, list[str]]:
        if not exclude_human:
            return dict(self.systems)
        return {k: v for k, v in self.systems.items() if not k.startswith(HUMAN_REF_PREFIXES)}

    @property
    def domains(self) -> list[str]:
        return [d for d, _ in self.docs]

    def human_scores(self, kind: str = "mqm", level: str = "seg"):
        path = self.root / "human-scores" / f"{self.lp}.{kind}.{level}.score"
        if not path.exists():
            raise InputError(f"no {kind} {level}-level human scores for {self.lp}", str(path))
        return _read_level(path, level, self.n_segments)

    def metric_scores(self, metric: str, level: str = "seg"):
        """Stored scores, e.g. ``metric="BLEU-refA"``."""
        path = self.root / "metric-scores" / self.lp / f"{metric}.{level}.score"
        if not path.exists():
            raise InputError(f"no stored {level}-level scores for {metric} in {self.lp}"
                             + self._metric_hint(metric, level), str(path))
        return _read_level(path, level, self.n_segments)

    def _metric_hint(self, metric: str, level: str) -> str:
        """The stored names a missing one probably meant: ``COMET`` -> ``COMET-refA`` (names carry their
        reference), else the closest name (difflib)."""
        from ..errors import did_you_mean
        try:
            names = self.stored_metrics()
        except OSError:
            return ""
        same = [s for s in names if s.lower().startswith(metric.lower() + "-")]
        if same:
            return f"; stored under {', '.join(same)} (the name with its reference)"
        return did_you_mean(metric, names)

    def stored_metrics(self) -> list[str]:
        d = self.root / "metric-scores" / self.lp
        return sorted({p.name.rsplit(".", 2)[0] for p in d.glob("*.score")}) if d.exists() else []


def _read_level(path, level, n):
    if level == "seg":
        return read_seg_scores(path, n)
    if level == "sys":
        return read_sys_scores(path)
    if level == "domain":
        return read_domain_scores(path)
    raise InputError(f"unknown level {level!r} (seg, sys, domain)", str(path))


def load_mtme(root, lp: str) -> MTMEData:
    """Load one language pair of an mt-metrics-eval directory; every file is checked for length."""
    root = Path(root)
    src_path = root / "sources" / f"{lp}.txt"
    if not src_path.exists() and (root / "sources" / f"{lp}.jsonl").exists():
        src_path = root / "sources" / f"{lp}.jsonl"
    if not src_path.exists():
        raise InputError(f"no sources for language pair {lp!r}", str(src_path))
    sources = _read_texts(src_path, "source")
    n = len(sources)
    source_meta = ([{k: v for k, v in obj.items() if k != "source"} for obj in _read_jsonl(src_path)]
                   if src_path.suffix == ".jsonl" else [])

    refs = _by_name((root / "references").glob(f"{lp}.*.*"), lambda p: p.name[len(lp) + 1:-len(p.suffix)], n,
                    "target")
    systems = _by_name((root / "system-outputs" / lp).glob("*.*"), lambda p: p.stem, n, "hypothesis")
    metadata = {p.stem: _read_jsonl(p) for p in sorted((root / "metadata" / lp).glob("*.jsonl"))}
    doc_path = root / "documents" / f"{lp}.docs"
    docs = read_docs(doc_path, n, "the source") if doc_path.exists() else []
    return MTMEData(root, lp, sources, refs, systems, docs, metadata, source_meta)


def read_docs(path, n: int, against: str, doc_only: bool = False) -> list[tuple[str, str]]:
    """A documents file, one line per test-set line: ``DOMAIN<TAB>DOCID`` (mt-metrics-eval's
    ``documents/<lp>.docs``) or, with ``doc_only``, also a bare ``DOCID`` per line (domain ""); [(domain, doc id)].
    Its line count must be ``n`` (``against`` names what has n lines)."""
    docs = []
    for i, ln in enumerate(read_lines(path), 1):
        parts = ln.split("\t")
        if len(parts) == 1 and doc_only and parts[0].strip():
            parts = ["", parts[0]]
        if len(parts) != 2 or not parts[1].strip():
            raise InputError("expected DOMAIN<TAB>DOCID" + (" or DOCID" if doc_only else ""), str(path), i)
        docs.append((parts[0], parts[1]))
    if len(docs) != n:
        raise InputError(f"has {plural(len(docs), 'line')} but {against} has {n}", str(path))
    return docs


def _read_jsonl(path: Path, layout: str = "") -> list[dict]:
    """One JSON object per line (``layout``, e.g. ``"WMT24++ layout"``, is named in the error)."""
    from .text import parse_json
    out = []
    what = f"one JSON object per line{f' ({layout})' if layout else ''}"
    for i, ln in enumerate(read_lines(path), 1):
        obj = parse_json(ln, path, i, what)
        if not isinstance(obj, dict):
            raise InputError(f"expected one JSON object per line{f' ({layout})' if layout else ''}", str(path), i)
        out.append(obj)
    return out


def _read_texts(path: Path, key: str) -> list[str]:
    """Lines of a .txt file, or the ``key`` field of each line of a .jsonl file (mt-metrics-eval's jsonl layout:
    ``source``, ``target`` for references, ``hypothesis`` for system outputs)."""
    if path.suffix != ".jsonl":
        return read_lines(path)
    out = []
    for i, obj in enumerate(_read_jsonl(path), 1):
        if not isinstance(obj.get(key), str):
            raise InputError(f"expected a JSON object with a string field {key!r}", str(path), i)
        out.append(obj[key])
    return out


def _by_name(paths, name_of, n: int, key: str) -> dict[str, list[str]]:
    """{name: lines} of the .txt / .jsonl files among ``paths``, each aligned with the n-line source."""
    out: dict[str, list[str]] = {}
    for p in sorted(paths):
        if p.suffix not in (".txt", ".jsonl"):
            continue
        name = name_of(p)
        if name in out:
            raise InputError(f"{name!r} is given twice (a .txt and a .jsonl file)", str(p))
        lines = _read_texts(p, key)
        if len(lines) != n:
            raise InputError(f"has {plural(len(lines), 'line')} but the source has {n}", str(p))
        out[name] = lines
    return out


@dataclass
class WMT21Data:
    """One language pair of the wmt21 news layout (``newstest2021.<lp>.{src,ref,hyp}.*``)."""

    lp: str
    source: list[str]
    refs: dict[str, list[str]]  # "A", "B", ...
    systems: dict[str, list[str]]

    def refs_sentence_major(self, names=None) -> list[list[str]]:
        names = names or sorted(self.refs)
        return [list(seg) for seg in zip(*(self.refs[k] for k in names))]


def load_wmt21(root, lp: str) -> WMT21Data:
    root = Path(root)
    src_files = sorted((root / "sources").glob(f"newstest2021.{lp}.src.*"))
    if not src_files:
        raise InputError(f"no source for language pair {lp!r}", str(root / "sources"))
    source = read_lines(src_files[0])
    n = len(source)

    pat_ref = re.compile(rf"newstest2021\.{re.escape(lp)}\.ref\.([^.]+)\.[^.]+$")
    pat_hyp = re.compile(rf"newstest2021\.{re.escape(lp)}\.hyp\.(.+)\.[^.]+$")
    refs = {}
    for p in sorted((root / "references").iterdir()):
        m = pat_ref.match(p.name)
        if m:
            refs[m.group(1)] = _read_aligned(p, n)
    systems = {}
    for p in sorted((root / "system-outputs").iterdir()):
        m = pat_hyp.match(p.name)
        if m:
            systems[m.group(1)] = _read_aligned(p, n)
    return WMT21Data(lp, source, refs, systems)


def read_wmt21_scores(path) -> list[dict]:
    """``pair system id is_constrained metric score`` rows of automatic-scores.tsv."""
    rows = []
    lines = read_lines(path)
    header = lines[0].split("\t")
    for i, ln in enumerate(lines[1:], 2):
        parts = ln.split("\t")
        if len(parts) != len(header):
            raise InputError(f"expected {plural(len(header), 'field')}", os.fspath(path), i)
        row = dict(zip(header, parts))
        row["score"] = float(row["score"])
        rows.append(row)
    return rows
