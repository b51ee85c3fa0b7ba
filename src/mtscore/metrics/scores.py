"""``scores``: stored per-segment scores of an external metric (COMET, BLEURT, MetricX, human ...) as a
metric like any other (docs/external-scores.md).

    mtscore score   -r ref -i sysA.txt sysB.txt -m bleu scores:COMET=comet.{system}.seg.txt
    mtscore compare -r ref -i sys/*.txt -m "scores:COMET=metric-scores/en-de/COMET-refA.seg.score"

The statistics of one system are its per-segment values ``(score, 1)``; the corpus score is their mean
(``score(summed) = summed[..., 0] / summed[..., 1]``, decomposable), so bootstrap, approximate
randomization, sign tests, CIs, subsets and meta-evaluation work on it unchanged. Segments left out by
``missing=skip`` have the row ``(0, 0)``: they do not count in the mean (their segment score is NaN).

Scores belong to *named* systems: a file is bound to a system through a ``{system}`` pattern or by the
system's name inside a multi-system file (mt-metrics-eval ``SYSTEM<TAB>score``, TSV, COMET JSON). The name
of a system is the one mtscore gives it (:func:`name_candidates`: the name, its file name, the file name
without its last extension). Text cannot be re-scored: a command that scores altered text (``audit
deletion``) gets a one-line error.
"""
from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from ..params import Provided, Param as P
from .._threadparam import with_threads
from ..errors import InputError, InvalidParameterError, MtscoreError, plural
from ..io.scores import ScoreFile, is_missing, read_score_file
from .base import Metric, Stats, format_signature

# Known metric names (matched case-insensitively by the longest prefix of NAME):
# prefix -> (higher_is_better, range or None for unbounded)
KNOWN: dict[str, tuple[bool, tuple[float, float] | None]] = {
    "comet": (True, None),  # COMET-20/22, COMETKiwi, XCOMET (no fixed range)
    "xcomet": (True, None),
    "bleurt": (True, None),
    "metricx": (False, (0.0, 25.0)),  # MetricX-23/24: 0 = best, 25 = worst
    "chrf": (True, (0.0, 100.0)),
    "bleu": (True, (0.0, 100.0)),
    "ter": (False, (0.0, math.inf)),
    "mqm": (True, (-math.inf, 0.0)),  # mt-metrics-eval MQM: 0 = perfect, more negative = worse
    "da": (True, None),
    "esa": (True, (0.0, 100.0)),
}
DIRECTIONS = ("higher", "lower")
MISSING = ("error", "skip")
AGGREGATIONS = ("mean",)


def known_direction(name: str):
    """(higher_is_better, range) of the longest known prefix of ``name``, or None."""
    low = name.lower()
    best = None
    for prefix, val in KNOWN.items():
        # short names (da, ter, mqm, esa) must end there or be followed by a non-letter: DA+SQM, TER-refA
        bounded = len(prefix) > 3 or len(low) == len(prefix) or (low.startswith(prefix) and not low[len(prefix)].isalpha())
        if low.startswith(prefix) and bounded and (best is None or len(prefix) > len(best[0])):
            best = (prefix, val)
    return None if best is None else best[1]


def parse_range(text) -> tuple[float, float]:
    """``"LO..HI"`` (``inf``/``-inf`` allowed) -> (lo, hi)."""
    s = str(text)
    lo, sep, hi = s.partition("..")
    try:
        if not sep:
            raise ValueError
        out = (float(lo), float(hi))
    except ValueError:
        raise InvalidParameterError(f"scores: range must be written LO..HI (e.g. 0..25, -inf..0), got {s!r}") from None
    if math.isnan(out[0]) or math.isnan(out[1]) or out[0] > out[1]:
        raise InvalidParameterError(f"scores: range {s!r}: LO must be <= HI")
    return out


def _fmt_range(r) -> str:
    def f(x):
        return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:g}"
    return f"{f(r[0])}..{f(r[1])}"


def name_candidates(system: str) -> list[str]:
    """Names a system answers to in a score file or a ``{system}`` pattern, most specific first: its
    mtscore name, its file name, and the file name without its last extension (``out/ONLINE-A.txt`` ->
    ``out/ONLINE-A.txt``, ``ONLINE-A.txt``, ``ONLINE-A``)."""
    out = [system]
    base = os.path.basename(system)
    out.append(base)
    if "." in base.lstrip("."):
        out.append(base.rsplit(".", 1)[0])
    seen, uniq = set(), []
    for c in out:
        if c and c not in seen:
            seen.add(c)
            uniq.append(c)
    return uniq


@dataclass(frozen=True)
class ScoresConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option,
    # signature entry (file, direction and range: as the metric resolves them, ExternalScores.param_value)
    PARAMS: ClassVar = (
        P("name", "str", "", empty_ok=True,
          help="the stored metric's name (COMET, BLEURT, MetricX ...): -m scores:NAME=FILE", sig="name"),
        P("file", "path", "", empty_ok=True, help="score file, or a pattern with {system}", sig="file"),
        P("direction", "choice", None, choices=("higher", "lower"), nullable=True,
          help="higher or lower is better (default: known for common metric names)", sig="dir"),
        P("range", "str", None, nullable=True, help="nominal range LO..HI (default: known for common names)",
          sig="range", sig_fmt=lambda r: None if r == (-math.inf, math.inf) else _fmt_range(r)),
        P("format", "choice", "auto", choices=Provided("score_formats"), help="score file format"),
        P("missing", "choice", "error", choices=("error", "skip"), flags=("--missing",),
          help="None/nan/inf: an error, or skipped (left out of the mean; the effect is printed)",
          sig="missing", sig_when="not_default"),
        P("key", "str", None, nullable=True, help="COMET JSON: the score key (default COMET)"),
        P("seg_base", "int", 1, lo=0, hi=1, help="TSV segment column: 1-based or 0-based"),
        P("agg", "choice", "mean", choices=("mean",), help="corpus score of segment scores", sig="agg"),
    )
    name: str = ""
    file: str = ""
    direction: str | None = None  # higher | lower; default from KNOWN
    range: str | None = None  # "LO..HI"; default from KNOWN (unbounded when unknown)
    format: str = "auto"
    missing: str = "error"  # error | skip
    key: str | None = None  # COMET JSON: the score key (default "COMET")
    seg_base: int = 1  # TSV segment column: 1-based (default) or 0-based
    agg: str = "mean"


class ExternalScores(Metric):
    """Stored segment scores of one named external metric."""

    name = "scores"
    display_name = "scores"
    Config = ScoresConfig
    columns = ("score", "count")
    decomposable = True
    registry_name = "scores"  # instances are named scores:NAME; saved statistics rebuild them from "scores"
    external = True  # statistics come from files bound to system names, not from text
    names_itself = True  # its display name is the metric name given (COMET), not "scores[...]"

    def __init__(self, config=None, **params):
        if config is None:
            fields = set(ScoresConfig.__dataclass_fields__)
            free = {k: v for k, v in params.items() if k not in fields}
            if free:
                if len(free) > 1 or "name" in params or "file" in params:
                    raise InvalidParameterError(
                        f"scores: give one NAME=FILE (e.g. scores:COMET=comet.{{system}}.txt), got "
                        f"{', '.join(sorted(free))}; other keys: {', '.join(sorted(fields - {'name', 'file'}))}")
                (n, f), = free.items()
                params = {k: v for k, v in params.items() if k in fields}
                params.update(name=n, file=str(f))
        super().__init__(config, **params)

    def _validate(self) -> None:
        c = self.config
        if not c.name or not c.file:
            raise InvalidParameterError("scores: needs NAME=FILE, e.g. -m scores:COMET=comet.{system}.seg.txt "
                                        "or --scores COMET FILE")
        # format, missing, agg, seg_base, direction: checked by their declarations before _validate (Metric)
        known = known_direction(c.name)
        if c.direction is not None:
            if c.direction not in DIRECTIONS:
                raise InvalidParameterError.choice(f"scores:{c.name}: direction", c.direction, DIRECTIONS)
            hib = c.direction == "higher"
        elif known is not None:
            hib = known[0]
        else:
            raise InvalidParameterError(
                f"scores:{c.name}: unknown metric name, so its direction is unknown; declare it, e.g. "
                f"scores:{c.name}=FILE,direction=higher (known names: {', '.join(sorted(KNOWN))})")
        if c.range is not None:
            rng = parse_range(c.range)
        elif known is not None and known[1] is not None and hib == known[0]:
            rng = known[1]  # the table's range, unless the declared direction contradicts the table
        else:
            rng = (-math.inf, math.inf)
        self.higher_is_better = hib
        self.range = rng
        self.display_name = c.name
        # the instance is named after the metric it stands for, so that two stored metrics (COMET, BLEURT)
        # stay apart wherever results are keyed by metric name
        self.name = f"scores:{c.name}"
        self._files: dict[str, ScoreFile] = {}
        self._digests: dict[str, str | None] = {}
        self._bound: dict[tuple[str, object], str] = {}  # (path, key) -> system
        self._aliases: dict[str, list[str]] = {}  # system -> its other names (file path <-> shown name)
        self.notes: list[str] = []
        self._skipped: dict[str, dict[str, int]] = {}

    # -- binding -------------------------------------------------------------------------------
    def add_aliases(self, pairs) -> None:
        """Declare (name, other name) pairs of the same system, e.g. an -i path and the short name mtscore
        shows for it (``--names`` or the file names without their common prefix/suffix): either binds."""
        for a, b in pairs:
            if a != b:
                self._aliases.setdefault(a, []).append(b)
                self._aliases.setdefault(b, []).append(a)

    def _file(self, path: str) -> ScoreFile:
        if path not in self._files:
            c = self.config
            self._files[path] = read_score_file(path, c.format, c.seg_base, c.key)
        return self._files[path]

    def _resolve(self, system: str, aliases: Sequence[str] = ()) -> tuple[ScoreFile, object]:
        """The file and the key in it that hold ``system``'s scores (``aliases``: other names of the same system,
        e.g. its file path when mtscore shows a shorter name)."""
        c = self.config
        where = f"scores:{c.name}"
        others = (*aliases, *self._aliases.get(system, ()))
        cands = list(dict.fromkeys(x for s in (system, *others) for x in name_candidates(s)))
        if "{system}" in c.file:
            tried = []
            for cand in cands:
                p = c.file.replace("{system}", cand)
                tried.append(p)
                if os.path.exists(p):
                    sf = self._file(p)
                    break
            else:
                raise InputError(f"{where}: no score file for system {system!r} (tried {', '.join(tried)})")
        else:
            sf = self._file(c.file)
        if sf.system_level:
            raise InputError(f"{where}: {sf.path} holds system-level scores (one per system); this command needs "
                             "segment scores (e.g. a *.seg.score file); system-level files are read by "
                             "'mtscore meta --sys-scores'")
        keys = list(sf.systems)
        if keys == [None]:
            key = None
        else:
            key = _match(system, keys, cands)
            if key is None:
                shown = ", ".join(map(str, keys[:8])) + (", ..." if len(keys) > 8 else "")
                raise InputError(f"{where}: system {system!r} is not in {sf.path} (unknown system; it has: {shown})")
        other = self._bound.get((sf.path, key))
        if other is not None and other != system:
            if key is None:
                raise InputError(f"{where}: {sf.path} holds the scores of ONE system (one score per line) but is "
                                 f"bound to {other!r} and {system!r}; use a {{system}} pattern or a multi-system file")
            raise InputError(f"{where}: systems {other!r} and {system!r} both match {key!r} in {sf.path} "
                             "(duplicate system)")
        self._bound[(sf.path, key)] = system
        return sf, key

    # -- statistics ----------------------------------------------------------------------------
    def system_stats(self, system: str, hyps: Sequence[str] | None = None, refs=None,
                     n_segments: int | None = None, aliases: Sequence[str] = ()) -> Stats:
        """Statistics of the named ``system`` (``hyps`` or ``n_segments``: the length it must have)."""
        c = self.config
        sf, key = self._resolve(system, aliases)
        vals = sf.systems[key]
        n = len(hyps) if hyps is not None else n_segments
        if n is not None and len(vals) != n:
            raise InputError(f"scores:{c.name}: {len(vals)} segment scores for system {system!r}, which has "
                             f"{plural(n, 'segment')}", sf.path)
        if hyps is not None and sf.texts.get(key):
            for i, (mt, h) in enumerate(zip(sf.texts[key], hyps)):
                if i == 0:  # comet-score keeps a file's byte-order mark in the first 'mt'; --strip-bom drops it
                    mt, h = mt.lstrip("\ufeff") if mt is not None else mt, h.lstrip("\ufeff")
                if mt is not None and mt.strip() != h.strip():
                    raise InputError(f"scores:{c.name}: entry {i + 1} of {key!r} scored a different text than line "
                                     f"{i + 1} of system {system!r} (the 'mt' field differs)", sf.path)
        rows = np.empty((len(vals), 2))
        lo, hi = self.range
        # the range is nominal: regression outputs stray slightly (published MetricX-23 segment scores reach
        # -0.29 and 25.6 on the 0..25 scale); beyond 5% of a finite range's width a value is an error
        slack = 0.05 * (hi - lo) if math.isfinite(hi - lo) else 0.0
        outside = 0
        skipped: dict[str, int] = {}
        for i, v in enumerate(vals):
            bad = is_missing(v)
            if bad is not None:
                if c.missing != "skip":
                    line = sf.lines.get(key, [None] * len(vals))[i] if sf.lines else None
                    raise InputError(f"scores:{c.name}: system {system!r} segment {i + 1} has no finite score ({bad}); "
                                     "pass --missing skip (or missing=skip) to leave such segments out of the mean",
                                     sf.path, line)
                skipped[bad] = skipped.get(bad, 0) + 1
                rows[i] = (0.0, 0.0)
                continue
            if not lo <= v <= hi:
                if not lo - slack <= v <= hi + slack:
                    line = sf.lines.get(key, [None] * len(vals))[i] if sf.lines else None
                    hint = ""
                    if c.name.lower().startswith("metricx") and v < 0:
                        hint = ("; mt-metrics-eval stores MetricX negated (higher is better): declare "
                                "direction=higher,range=-25..0")
                    raise InputError(f"scores:{c.name}: system {system!r} segment {i + 1}: score {v!r} is outside "
                                     f"the declared range {_fmt_range(self.range)} (by more than 5% of its width; "
                                     f"wrong sign or scale?){hint}", sf.path, line)
                outside += 1
            rows[i] = (v, 1.0)
        if outside:
            self.notes.append(f"scores:{c.name}: {outside} segment score(s) of {system!r} lie slightly outside the "
                              f"nominal range {_fmt_range(self.range)} (within 5% of its width; kept)")
        if skipped:
            self._skipped[system] = skipped
            total = sum(skipped.values())
            kinds = ", ".join(f"{k}: {v}" for k, v in skipped.items())
            self.notes.append(f"scores:{c.name}: --missing skip left out {total} of {len(vals)} segment scores of "
                              f"{system!r} ({kinds}); its mean is over the other {len(vals) - total}")
            if total == len(vals):
                raise InputError(f"scores:{c.name}: system {system!r} has no finite score at all", sf.path)
        return Stats(self.name, self.columns, rows, 1, self.signature())

    @with_threads
    def stats(self, hyps, refs) -> Stats:
        raise InvalidParameterError(
            f"scores:{self.config.name}: stored scores belong to named systems and cannot score other text "
            "(this command re-scores altered or unnamed text); use a metric mtscore computes")

    def _stats(self, hyps, refs):
        return self.stats(hyps, refs)

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[..., 0] / s[..., 1]

    def sentence_scores(self, stats) -> np.ndarray:
        values = stats.values if isinstance(stats, Stats) else np.asarray(stats, dtype=np.float64)
        return self.score(values)

    # -- signature -----------------------------------------------------------------------------
    def digest(self) -> str:
        """sha256 (first 12 hex digits) of the score file; for a ``{system}`` pattern, of the sorted per-file
        digests of every file the pattern matches (``{system}`` = any name) and every file read -- so the
        signature does not depend on which system was read first. "unknown" when no file can be read (e.g.
        statistics re-scored from a --save-stats folder after the files moved)."""
        import glob
        from ..io.text import _read_bytes
        from ..io.scores import file_digest
        c = self.config
        if "{system}" in c.file:
            paths = sorted(set(glob.glob(glob.escape(c.file).replace("{system}", "*"))) | set(self._files))
        else:
            paths = [c.file]
        ds = []
        for p in paths:
            if p in self._files:
                ds.append((p, self._files[p].digest))
                continue
            if p not in self._digests:
                try:
                    self._digests[p] = file_digest(_read_bytes(p))
                except MtscoreError:
                    self._digests[p] = None
            if self._digests[p] is not None:
                ds.append((p, self._digests[p]))
        if not ds:
            return "unknown"
        if "{system}" not in c.file:
            return ds[0][1]
        return hashlib.sha256("".join(f"{os.path.basename(p)}\0{d}\n" for p, d in ds).encode()).hexdigest()[:12]

    def param_value(self, name):
        """What the signature writes for the file (the digest of what it holds), the direction and the range
        (given, or known for the metric's name)."""
        if name == "file":
            return self.digest()
        if name == "direction":
            return "higher" if self.higher_is_better else "lower"
        if name == "range":
            return self.range
        return super().param_value(name)

    def signature_items(self, nrefs=None):
        return self.declared_signature("name", "file", "agg", "dir", "range", "missing")

    def signature(self, nrefs=None) -> str:
        return format_signature(self.signature_items(nrefs))


def alias_systems(metrics, paths: Sequence[str], shown: Sequence[str]) -> None:
    """Tell every stored-score metric of ``metrics`` that ``paths[i]`` and ``shown[i]`` name the same system."""
    for m in metrics:
        if getattr(m, "external", False):
            m.add_aliases(zip(paths, shown))


def _match(system: str, keys: list, cands: Sequence[str] | None = None) -> object | None:
    """The key of a multi-system file that names ``system``: each of the system's names (most specific
    first) is looked up among the keys as written, then among their file names, then their stems (COMET
    JSON keys are file paths)."""
    forms = {k: _key_forms(str(k)) for k in keys if k is not None}
    for cand in (cands if cands is not None else name_candidates(system)):
        for level in range(3):
            hits = [k for k, f in forms.items() if f[level] == cand]
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                raise InputError(f"system {system!r} matches several entries of the score file: "
                                 f"{', '.join(map(str, hits))}")
    return None


def _key_forms(key: str) -> tuple[str, str, str]:
    base = os.path.basename(key)
    stem = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
    return key, base, stem
