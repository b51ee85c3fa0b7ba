"""The one metric surface: statistics first, score second (docs/architecture.md).

Every metric:

* has a frozen ``Config`` dataclass (``metric.config``), validated on construction;
* computes per-segment sufficient statistics ``stats(hyps, refs) -> Stats`` (``values[N, C]``,
  named ``columns``) once per (system, references, config);
* scores *summed* statistics with a pure function ``score(summed)`` vectorized over leading axes
  (``summed[..., C] -> [...]``): ``score(stats.values.sum(0))`` is the corpus score and
  ``score(weights @ stats.values)`` scores thousands of resamples at once;
* scores segments with ``sentence_scores(stats)`` (row-wise; may differ from the corpus formula,
  e.g. BLEU's effective order);
* declares ``higher_is_better``, ``decomposable`` (corpus score = weighted mean of segment scores
  with system-independent weights) and ``range``;
* has ``signature(nrefs)`` written from its parameters' declarations (each ``Param``'s ``sig`` entry,
  :meth:`Metric.declared_signature`; docs/contributing-a-metric.md).
"""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, ClassVar, Mapping, Sequence

from .._version import __version__
from .._threadparam import with_threads
from ..errors import InputError, InvalidParameterError, plural

Refs = Sequence[Sequence[str]]


@dataclass(frozen=True, eq=False)
class Stats:
    """Per-segment sufficient statistics of one metric for one system."""

    metric: str
    columns: tuple[str, ...]
    values: np.ndarray  # float64 [n_segments, n_columns]
    nrefs: int | str  # number of references per segment, or "var"
    signature: str

    def __post_init__(self) -> None:
        import numpy as np  # here, not at import: a small BLEU run never loads NumPy (runner.py)
        v = np.asarray(self.values, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != len(self.columns):
            raise InvalidParameterError(
                f"stats: values must have shape (n_segments, {len(self.columns)}), got {v.shape}")
        v.setflags(write=False)
        object.__setattr__(self, "values", v)

    def __len__(self) -> int:
        return self.values.shape[0]

    def sum(self) -> np.ndarray:
        return self.values.sum(axis=0)

    def take(self, index) -> "Stats":
        import numpy as np
        return dataclasses.replace(self, values=self.values[np.asarray(index)])

    def column(self, name: str) -> np.ndarray:
        return self.values[:, self.columns.index(name)]

    @staticmethod
    def concat(parts: Sequence["Stats"]) -> "Stats":
        if not parts:
            raise InvalidParameterError("stats: nothing to concatenate")
        first = parts[0]
        for p in parts[1:]:
            if p.metric != first.metric or p.columns != first.columns:
                raise InvalidParameterError("stats: cannot concatenate statistics of different metrics/schemas")
        import numpy as np
        nrefs = first.nrefs if all(p.nrefs == first.nrefs for p in parts) else "var"
        sig = first.signature if nrefs == first.nrefs else first.signature.replace(
            f"nrefs:{first.nrefs}", "nrefs:var", 1)
        return Stats(first.metric, first.columns, np.concatenate([p.values for p in parts]), nrefs, sig)


@dataclass(frozen=True)
class MetricResult:
    """A score with its components and signature. Formatting lives in ``mtscore.report``."""

    metric: str  # registry name, e.g. "bleu"
    name: str  # display name, e.g. "BLEU"
    score: float
    signature: str
    components: Mapping[str, Any] = field(default_factory=dict)
    detail: str = ""  # sacreBLEU-style detail, e.g. "83.3/60.0/25.0/16.7 (BP = 1.000 ...)"

    def __float__(self) -> float:
        return float(self.score)

    def format(self, width: int = 2) -> str:
        return f"{self.name}|{self.signature} = {self.score:.{width}f} {self.detail}".rstrip()

    def __str__(self) -> str:
        return self.format()

    def as_dict(self) -> dict:
        return {"metric": self.metric, "name": self.name, "score": float(self.score),
                "signature": self.signature, **{k: _plain(v) for k, v in self.components.items()}}


def _plain(v):
    np = sys.modules.get("numpy")  # never imported: no value is a NumPy one
    if np is not None and isinstance(v, np.ndarray):
        return v.tolist()
    if np is not None and isinstance(v, (np.floating, np.integer)):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


class RefRows(Sequence):
    """Sentence-major references (``rows[i]``: the list of references of segment ``i``) over reference columns
    (``columns[k][i]``: reference ``k`` of segment ``i``), as read from ``K`` files, built only when asked:
    a metric with ``_stats_columns`` (BLEU) reads the columns and no list per segment is ever made
    (20,000 small lists per partition, and the garbage collector's passes over them)."""

    __slots__ = ("columns", "_rows")

    def __init__(self, columns: list[list[str]]):
        self.columns = columns
        self._rows: list[list[str]] | None = None

    def rows(self) -> list[list[str]]:
        """The sentence-major lists (built once)."""
        if self._rows is None:
            cols = self.columns
            self._rows = [[x] for x in cols[0]] if len(cols) == 1 else list(map(list, zip(*cols)))
        return self._rows

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.rows()[i]
        return [col[i] for col in self.columns]

    def __iter__(self):
        return iter(self._rows) if self._rows is not None else map(list, zip(*self.columns))

    def __reduce__(self):
        return RefRows, (self.columns,)


def normalize_corpus(hyps: Sequence[str], refs) -> tuple[list[str], list[list[str]]]:
    """Check and normalise a corpus: ``hyps`` (N strings), ``refs`` sentence-major (N lists).

    ``refs[i]`` may be a string (one reference) or a sequence of strings; ``None`` entries are
    missing references and are dropped (a segment may have fewer references than others). Every
    segment needs at least one reference.
    """
    if isinstance(hyps, str):
        raise InvalidParameterError("hyps: expected a list of segments (strings), got a single string")
    hyps = list(hyps)
    if type(refs) is RefRows:
        refs = refs.rows()
    if not isinstance(refs, str):
        fast = _normalize_common(hyps, refs)
        if fast is not None:
            return fast
    for i, h in enumerate(hyps):
        if not isinstance(h, str):
            raise InvalidParameterError(f"hyps[{i}]: expected str, got {type(h).__name__}")
    if isinstance(refs, str):
        raise InvalidParameterError("refs: expected one entry per segment (sentence-major), got a single string")
    refs = list(refs)
    if len(refs) != len(hyps):
        hint = ""
        if refs and all(not isinstance(r, str) and len(r) == len(hyps) for r in refs):
            hint = ("; it looks like one list per reference stream (sacreBLEU's layout): "
                    "use mtscore.refs_from_streams(streams) to transpose it")
        raise InvalidParameterError(
            f"refs: {plural(len(refs), 'reference entry', 'reference entries')} for {plural(len(hyps), 'hypothesis', 'hypotheses')}; refs must be sentence-major "
            f"(refs[i] = the references of segment i){hint}")
    out: list[list[str]] = []
    for i, r in enumerate(refs):
        seg = [r] if isinstance(r, str) else [x for x in r if x is not None]
        for x in seg:
            if not isinstance(x, str):
                raise InvalidParameterError(f"refs[{i}]: expected str references, got {type(x).__name__}")
        if not seg:
            raise InputError(f"segment {i + 1} has no reference (every segment needs at least one)")
        out.append(seg)
    return hyps, out


def _normalize_common(hyps: list, refs):
    """The common case at C speed: all hypotheses ``str``, ``refs`` a sequence of ``len(hyps)``
    non-empty lists/tuples of ``str`` (no ``None``). Returns ``None`` for anything else, which the
    general loop in :func:`normalize_corpus` then checks (and reports) entry by entry."""
    from itertools import chain

    if not isinstance(refs, (list, tuple)) or len(refs) != len(hyps):
        return None
    if hyps and set(map(type, hyps)) != {str}:
        return None
    seg_types = set(map(type, refs))
    if not seg_types <= {list, tuple} or 0 in map(len, refs):
        return None
    if refs and set(map(type, chain.from_iterable(refs))) != {str}:
        return None
    # segments that are already lists are shared, not copied (nothing downstream mutates them)
    return hyps, (list(refs) if seg_types == {list} else [list(seg) for seg in refs])


def refs_from_streams(streams: Sequence[Sequence[str | None]]) -> list[list[str]]:
    """Transpose one-list-per-reference-stream (sacreBLEU layout) into sentence-major references.

    Streams must all have the same length; ``None`` marks a missing reference of a segment.
    """
    streams = [list(s) for s in streams]
    if not streams:
        raise InvalidParameterError("refs: at least one reference stream is needed")
    lens = [len(s) for s in streams]
    if len(set(lens)) > 1:
        raise InvalidParameterError(f"refs: reference streams differ in length: {lens}")
    return [[x for x in seg if x is not None] for seg in zip(*streams)]


def stats_for(metric, system: str, hyps: Sequence[str], refs) -> Stats:
    """Statistics of the named ``system``: metrics bound to stored per-system scores (``metric.external``,
    metrics/scores.py) look the system up by name; every other metric scores the text."""
    if getattr(metric, "external", False):
        return metric.system_stats(system, hyps, refs)
    return metric.stats(hyps, refs)


def nrefs_of(refs: Sequence[Sequence[str]]) -> int | str:
    counts = {len(r) for r in refs}
    return counts.pop() if len(counts) == 1 else ("var" if counts else 1)


def format_signature(items: Sequence[tuple[str, Any]]) -> str:
    """``key:value`` pairs joined by ``|``; None values omitted, booleans as yes/no; version last."""
    parts = []
    for k, v in items:
        if v is None:
            continue
        if isinstance(v, bool):
            v = "yes" if v else "no"
        parts.append(f"{k}:{v}")
    parts.append(f"version:mtscore-{__version__}")
    return "|".join(parts)


class Metric:
    """Base class; subclasses set the class attributes and implement ``_stats``/``score``."""

    name: ClassVar[str]
    display_name: ClassVar[str]
    Config: ClassVar[type]
    columns: ClassVar[tuple[str, ...]] = ()
    higher_is_better: ClassVar[bool] = True
    decomposable: ClassVar[bool] = False
    range: ClassVar[tuple[float, float]] = (0.0, 100.0)
    # Factor from the API's score to the score every command shows (text, JSON, TSV ... alike; see
    # mtscore.report.model and docs/output.md): rates and F-scores computed on 0..1 (WER, PER, CER, 4-GRR, GTM,
    # LCM, RIBES, GLEU ...) are shown x100, on the 0..100 scale of BLEU, chrF and sacreBLEU's TER.
    table_scale: ClassVar[float] = 1.0
    # False when a segment's statistics depend on the whole corpus (e.g. NIST's information weights):
    # such a metric is computed over the whole corpus at once, never over partitions.
    partitionable: ClassVar[bool] = True

    def __init__(self, config=None, **params):
        if config is not None and params:
            raise InvalidParameterError(f"{self.name}: pass either a Config or keyword parameters, not both")
        if config is None:
            from ..params import make_config
            config = make_config(self.Config, params, self.name)  # checks names (old names still work) and values
        elif not isinstance(config, self.Config):
            raise InvalidParameterError(f"{self.name}: config must be a {self.Config.__name__}")
        from ..params import validate_config
        validate_config(config)  # the Config's declarations (PARAMS); _validate adds cross-field rules
        self.config = config
        self._validate()

    @property
    def signature_name(self) -> str:
        """The metric's own name, printed before its signature (``display_name`` may be a column label
        that adds inline parameters, e.g. ``chrF3[beta=3]``; the signature never depends on it)."""
        return self.__dict__.get("_signature_name", self.display_name)

    def relabel(self, label: str) -> None:
        """Label this metric's column (two configurations of one metric can sit in one table)."""
        self._signature_name = self.signature_name
        self.display_name = label

    # -- subclass hooks ------------------------------------------------------------------------
    def _validate(self) -> None:
        """Raise InvalidParameterError for a bad config."""

    def _stats(self, hyps: list[str], refs: list[list[str]]) -> np.ndarray:
        raise NotImplementedError

    def score(self, summed) -> np.ndarray:
        """Corpus score of summed statistics, vectorized over leading axes."""
        raise NotImplementedError

    def sentence_scores(self, stats: Stats | np.ndarray) -> np.ndarray:
        """Row-wise segment scores (default: the corpus formula applied to each row)."""
        import numpy as np
        values = stats.values if isinstance(stats, Stats) else np.asarray(stats, dtype=np.float64)
        return self.score(values)

    def result(self, summed, nrefs: int | str = 1) -> MetricResult:
        """Corpus result (score, components, signature) of summed statistics."""
        import numpy as np
        return self._result(np.asarray(summed, dtype=np.float64), self.signature(nrefs))

    def _result(self, summed: np.ndarray, signature: str, sentence: bool = False) -> MetricResult:
        return MetricResult(self.name, self.display_name, float(self.score(summed)), signature)

    def signature_items(self, nrefs) -> list[tuple[str, Any]]:
        """``(key, value)`` pairs of the signature (version excluded): nrefs, then the entries the parameters
        declare (:meth:`declared_signature`)."""
        return self.declared_signature(("nrefs", nrefs))

    def param_value(self, name: str):
        """The value of parameter ``name`` that the metric uses and its signature writes: the config's (a
        metric that resolves a default when it is built, as ROSE from its model, gives the resolved one)."""
        return getattr(self.config, name)

    def declared_signature(self, *template) -> list[tuple[str, Any]]:
        """The signature items, in the order of ``template``: a ``(key, value)`` pair is an item that is not a
        parameter (nrefs, a fixed tokenizer, a file's digest ...); a key is the entry of the parameter that
        declares it (``Param.sig``: its value written by the declaration's ``sig_fmt``, left out when its
        ``sig_when`` says so). Declared entries the template does not name follow, in declaration order."""
        from ..params import config_params
        params = list(config_params(self.config).values())
        declared: dict[str, Any] = {}
        for p in params:
            if p.sig is not None and (p.option_for is None or self.name in p.option_for):
                if p.sig in declared:
                    raise ValueError(f"{self.name}: signature key {p.sig!r} declared by {declared[p.sig].name} "
                                     f"and {p.name}")
                declared[p.sig] = p
        values: dict[str, Any] = {}

        def entry(p):
            for n in (p.name, *p.sig_uses):
                if n not in values:
                    values[n] = self.param_value(n)
            return p.sig, p.sig_value(values)

        items, named = [], set()
        for t in template:
            if isinstance(t, tuple):
                items.append(t)
                continue
            named.add(t)
            if t in declared:
                items.append(entry(declared[t]))
            elif not any(p.sig == t for p in params):  # declared, but narrowed to other metrics (option_for)
                raise ValueError(f"{self.name}: no parameter declares the signature key {t!r}")
        items += [entry(p) for k, p in declared.items() if k not in named]
        return items

    # -- shared surface ------------------------------------------------------------------------
    def signature(self, nrefs: int | str = 1) -> str:
        return format_signature(self.signature_items(nrefs))

    @with_threads
    def stats(self, hyps: Sequence[str], refs) -> Stats:
        hyps, refs = normalize_corpus(hyps, refs)
        values = self._stats(hyps, refs)
        nrefs = nrefs_of(refs)
        return Stats(self.name, tuple(self.columns), values, nrefs, self.signature(nrefs))

    @with_threads
    def corpus(self, hyps: Sequence[str], refs) -> MetricResult:
        return self.corpus_from_stats(self.stats(hyps, refs))

    def corpus_from_stats(self, stats: Stats) -> MetricResult:
        self._check_stats(stats)
        return self._result(stats.sum(), stats.signature)

    @with_threads
    def sentences(self, hyps: Sequence[str], refs) -> list[MetricResult]:
        st = self.stats(hyps, refs)
        return [self._result(row, st.signature, sentence=True) for row in st.values]

    def sentence_signature(self, stats: Stats) -> str:
        """Signature of the segment scores of ``stats`` (may differ from the corpus one)."""
        return stats.signature

    @with_threads
    def sentence_scores_of(self, hyps: Sequence[str], refs) -> np.ndarray:
        return self.sentence_scores(self.stats(hyps, refs))

    def _check_stats(self, stats: Stats) -> None:
        if stats.metric != self.name or tuple(stats.columns) != tuple(self.columns):
            raise InvalidParameterError(f"{self.name}: statistics of {stats.metric!r} cannot be scored by {self.name!r}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"

    def __reduce_ex__(self, protocol):
        """Pickle the class by reference *with the file of its module*: a worker process or a Dask worker
        that cannot import the module by name (a metric added outside the package, e.g. a module given as
        ``path/to/file.py:Class``) loads it from that file (:func:`_rebuild_metric`); the instance's
        state (config, loaded models ...) travels as usual."""
        cls = type(self)
        return (_rebuild_metric, (cls.__module__, cls.__qualname__, module_file(cls)), self.__dict__.copy())


def module_file(cls) -> str | None:
    """The source file of ``cls``'s module, for classes outside the mtscore package (else None)."""
    if cls.__module__.split(".")[0] == "mtscore":
        return None
    return getattr(sys.modules.get(cls.__module__), "__file__", None)


def load_module_file(module: str, path: str):
    """Import the Python file ``path`` as module ``module`` (once per process)."""
    if module in sys.modules:
        return sys.modules[module]
    import importlib.util

    spec = importlib.util.spec_from_file_location(module, path)
    if spec is None or spec.loader is None:
        raise InvalidParameterError(f"metric: cannot import {path!r} as a Python module")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(module, None)
        raise
    return mod


def _rebuild_metric(module: str, qualname: str, path: str | None):
    """Unpickling side of :meth:`Metric.__reduce_ex__`: the class by module name, else from its file."""
    try:
        mod = sys.modules.get(module) or import_module(module)
    except ImportError:
        if not path:
            raise
        mod = load_module_file(module, path)
    cls = mod
    for part in qualname.split("."):
        cls = getattr(cls, part)
    return cls.__new__(cls)
