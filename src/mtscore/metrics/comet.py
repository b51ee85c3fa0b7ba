"""``comet``, ``cometkiwi``, ``xcomet``: COMET models run by mtscore itself -- optional extra ``mtscore[neural]``
(torch, transformers, sentencepiece, safetensors; unbabel-comet is not needed).

    mtscore score -r ref.de -i sys.de -m comet:model=/models/wmt22-comet-da,sources=src.en
    mtscore score -r ref.de -i sys.de -m comet:model=Unbabel/wmt22-comet-da,sources=src.en   # the HF cache, offline
    mtscore score -r ref.de -i sys.de -m cometkiwi:model=Unbabel/wmt22-cometkiwi-da,sources=src.en

``model=`` is a COMET checkpoint folder (``hparams.yaml`` + ``checkpoints/model.ckpt``, what
``comet.download_model`` or ``huggingface-cli download`` leave on disk) or a model name found in the Hugging
Face cache; the encoder the checkpoint names (``xlm-roberta-large`` ...) is resolved the same way (its config
and tokenizer only). mtscore never downloads: a missing model is a one-line error naming the folders looked
in. Each segment's score is a statistic row ``(score, 1)`` and the corpus score is their mean, as
``comet-score`` reports it; compare, report and meta work on it as on any decomposable metric. Identical
(src, mt, ref) inputs are scored once, and scores are kept in the score cache (:mod:`mtscore.neural.cache`).

Several references: ``ref=first`` (default: the first reference, as comet-score), ``mean`` or ``max`` of
the scores against each reference. ``precision=fp32`` is the exact mode (equal to unbabel-comet to 1e-6);
``bf16``/``fp16`` are faster on GPUs and named in the signature.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..params import Param as P
from .base import Metric, format_signature

PRECISIONS = ("fp32", "bf16", "fp16")
REF_MODES = ("first", "mean", "max")

_PARAMS = (
    P("model", "str", "", empty_ok=True, help="COMET checkpoint folder, or a model name in the Hugging Face cache "
      "(never downloaded)"),
    P("sources", "path", "", empty_ok=True, help="source segments, one per line"),
    P("batch_size", "int", 16, lo=1, hi=4096, help="segments per model call (halved on out-of-memory)"),
    P("gpus", "int", 0, lo=0, hi=1, help="GPUs used (0: CPU; 1: the first visible GPU)"),
    P("precision", "choice", "fp32", choices=PRECISIONS, help="fp32 (exact), bf16 or fp16 (GPU)"),
    P("ref", "choice", "first", choices=REF_MODES, help="several references: score against the first, or the mean/max"),
    P("cache", "bool", True, help="use the neural score cache (MTSCORE_NO_CACHE=1 turns it off for every metric)"),
)


@dataclass(frozen=True)
class CometKiwiConfig:
    PARAMS: ClassVar = tuple(p for p in _PARAMS if p.name != "ref")  # quality estimation: no references
    model: str = ""
    sources: str = ""
    batch_size: int = 16
    gpus: int = 0
    precision: str = "fp32"
    cache: bool = True


@dataclass(frozen=True)
class COMETConfig(CometKiwiConfig):
    PARAMS: ClassVar = _PARAMS
    ref: str = "first"


@dataclass(frozen=True)
class XCOMETConfig(COMETConfig):
    PARAMS: ClassVar = _PARAMS


_HINT = ("pass model=DIR with a COMET checkpoint folder already on disk (hparams.yaml and checkpoints/model.ckpt) "
         "or a model name in the Hugging Face cache; mtscore never downloads models (or run comet-score elsewhere "
         "and read its --to_json file with -m scores:COMET=FILE)")


class COMET(Metric):
    name = "comet"
    display_name = "COMET"
    Config = COMETConfig
    columns = ("score", "count")
    decomposable = True
    higher_is_better = True
    range = (-np.inf, np.inf)
    partitionable = False  # sources are aligned with the whole test set
    names_itself = True  # labelled COMET, not COMET[model=...,sources=...]
    _classes: ClassVar[tuple[str, ...]] = ("regression_metric",)
    _needs_sources = True
    _uses_refs = True

    def _validate(self) -> None:
        from ..neural.locate import model_folder
        c = self.config
        self._folder = model_folder(c.model, self.name, _HINT, "hparams.yaml")
        if self._needs_sources and not c.sources:
            raise InvalidParameterError(f"{self.name}: {self.display_name} scores (source, hypothesis, reference) "
                                        "triples; pass sources=FILE (one source segment per line)")
        if not c.gpus and c.precision == "fp16":
            raise InvalidParameterError(f"{self.name}: precision=fp16 needs a GPU (gpus=1); on CPU use fp32 or bf16")
        from ..neural import _deps
        _deps.torch()
        _deps.transformers()  # a missing package is reported before any reading
        self._model = None
        self.last_spans = None
        # XCOMET: the spans of every _stats call of this process, in call order (one call per system when the
        # whole test set is one partition, as for every neural metric): ``score --spans-out`` writes them
        self.span_log: list[list[list[dict]]] = []

    # the loaded model stays in the process; pickled copies (worker processes) load their own
    def __reduce_ex__(self, protocol):
        fn, args, state = super().__reduce_ex__(protocol)
        return fn, args, {**state, "_model": None, "span_log": []}

    def _load(self):
        if self._model is None:
            from ..neural import cache as _cache
            from ..neural import comet_model as cm
            device = "cpu"
            if self.config.gpus:
                import torch
                if not torch.cuda.is_available():
                    raise InvalidParameterError(f"{self.name}: gpus={self.config.gpus} but torch sees no GPU")
                device = "cuda"
            from ..neural import kept
            sc = _cache.ScoreCache() if self._use_cache() else None
            self._model = kept(str(self._folder), (self.config.precision, device, self._classes),
                               lambda: cm.load(self._folder, self.name, self.config.precision, device, cache=sc,
                                               expect=self._classes))
            self._check_model(self._model)
        return self._model

    def _check_model(self, m) -> None:
        pass

    def _use_cache(self) -> bool:
        from ..neural import cache as _cache
        return bool(self.config.cache) and not _cache.disabled()

    def _sources(self, n: int) -> list[str | None]:
        if not self.config.sources:
            return [None] * n
        from ..io import read_lines
        src = read_lines(self.config.sources)
        if len(src) != n:
            raise InputError(f"{self.name}: {plural(len(src), 'source segment')} for "
                             f"{plural(n, 'hypothesis', 'hypotheses')}", self.config.sources)
        return src

    def _stats(self, hyps, refs) -> np.ndarray:
        m = self._load()
        src = self._sources(len(hyps))
        mode = self.config.ref if self._uses_refs else "first"
        k_max = max((len(r) for r in refs), default=1) if (self._uses_refs and mode != "first") else 1
        items, owner = [], []
        for i, (s, h, r) in enumerate(zip(src, hyps, refs)):
            for k in range(min(k_max, len(r)) if self._uses_refs else 1):
                items.append((s, h, r[k] if self._uses_refs else None))
                owner.append(i)
        scores, spans = self._score_items(m, items)
        owner = np.asarray(owner)
        if mode == "first" or k_max == 1:
            seg = np.empty(len(hyps))
            seg[owner] = scores  # one item per segment
        else:
            fn = np.maximum if mode == "max" else np.add
            seg = np.full(len(hyps), -np.inf if mode == "max" else 0.0)
            fn.at(seg, owner, scores)
            if mode == "mean":
                seg /= np.bincount(owner, minlength=len(hyps))
        if seg.shape != (len(hyps),) or not np.isfinite(seg).all():
            raise InputError(f"{self.name}: the model returned non-finite scores for "
                             f"{plural(int((~np.isfinite(seg)).sum()), 'segment')}", str(m.ckpt))
        if spans is not None:
            first = {}
            for o, sp in zip(owner.tolist(), spans):
                first.setdefault(o, sp)
            self.last_spans = [first.get(i, []) for i in range(len(hyps))]
            self.span_log.append(self.last_spans)
        return np.column_stack([seg, np.ones(len(hyps))])

    def _score_items(self, m, items):
        from ..neural import runner
        return runner.score(m, items, self.config.batch_size, self.name, use_cache=self._use_cache())

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[..., 0] / s[..., 1]

    def signature_items(self, nrefs):
        m = self._load()
        import torch
        import transformers
        return [("model", os.path.basename(os.path.normpath(str(self._folder))) if os.path.isdir(self.config.model)
                 else self.config.model),
                ("digest", m.digest[:12]), ("precision", self.config.precision),
                ("ref", (self.config.ref if nrefs != 1 else None) if self._uses_refs else "none"),
                ("agg", "mean"), ("dir", "higher"),
                ("torch", torch.__version__.split("+")[0]), ("transformers", transformers.__version__)]

    def signature(self, nrefs=1) -> str:
        return format_signature(self.signature_items(nrefs))




def spans_json(metric, names) -> str:
    """The error spans ``metric`` (an XCOMET) computed for the systems ``names`` (in the order they were scored),
    as the JSON ``mtscore meta --spans --pred NAME=FILE`` reads: ``{system: [[span, ...] per segment]}``, each
    span ``{"start", "end", "severity", "text", "confidence"}`` (character offsets in the translation, end
    exclusive; severity minor/major/critical; the decoded token text and the mean label probability, as
    unbabel-comet's ``metadata.error_spans``)."""
    import json
    log = getattr(metric, "span_log", None)
    if log is None:
        raise InvalidParameterError(f"--spans-out: {metric.display_name} predicts no error spans (use xcomet)")
    if not log:  # no segment was scored (empty input)
        log = [[] for _ in names]
    if len(log) != len(names):
        raise InvalidParameterError(f"--spans-out: {metric.display_name} returned spans for {len(log)} of "
                                    f"{plural(len(names), 'system')} (the spans are collected in this process: "
                                    "use the local backend)")
    doc = {name: [[{"start": int(sp["start"]), "end": int(sp["end"]), "severity": sp["severity"],
                    "text": sp["text"], "confidence": float(sp["confidence"])} for sp in seg] for seg in segs]
           for name, segs in zip(names, log)}
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


class CometKiwi(COMET):
    name = "cometkiwi"
    display_name = "CometKiwi"
    Config = CometKiwiConfig
    _classes = ("unified_metric", "referenceless_regression_metric")
    _uses_refs = False

    def _check_model(self, m) -> None:
        if m.needs_reference:
            raise InvalidParameterError(f"{self.name}: {self._folder} is a reference-based model (input segments "
                                        f"{list(m.input_segments)}); use comet or xcomet")


class XCOMET(COMET):
    name = "xcomet"
    display_name = "XCOMET"
    Config = XCOMETConfig
    _classes = ("xcomet_metric", "unified_metric")
