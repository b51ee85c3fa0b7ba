"""``metricx``: MetricX-23 / MetricX-24 run by mtscore itself -- optional extra ``mtscore[neural]``.

    mtscore score -r ref.de -i sys.de -m metricx:model=google/metricx-24-hybrid-large-v2p6,sources=src.en
    mtscore score -r ref.de -i sys.de -m metricx:model=/models/metricx-23-large-v2p0,version=23
    mtscore score -r ref.de -i sys.de -m metricx:model=google/metricx-24-hybrid-large-v2p6,sources=src.en,qe=true

Lower is better (0 = best, 25 = worst). ``model=`` is a transformers folder or a Hugging Face cache name (never
downloaded); the mT5 tokenizer comes from ``tokenizer=`` or the model folder or the cache. MetricX-24 takes the
source in its reference-based (hybrid) input too, so ``sources=`` is needed for version 24 and for QE.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..params import Param as P
from .comet import COMET, PRECISIONS, REF_MODES

_PARAMS = (
    P("model", "str", "", empty_ok=True, help="MetricX checkpoint folder (transformers), or a model name in the "
      "Hugging Face cache (never downloaded)"),
    P("sources", "path", "", empty_ok=True, help="source segments, one per line (MetricX-24 and QE)"),
    P("version", "choice", "24", choices=("23", "24"), help="MetricX-23 or MetricX-24 input format", sig="version"),
    P("qe", "bool", False, help="quality estimation: source and hypothesis only", sig="qe"),
    P("tokenizer", "str", "", empty_ok=True, help="mT5 tokenizer folder or cache name (default: the model folder, "
      "then google/mt5-xl, -large, -base in the cache)"),
    P("max_input_length", "int", 0, lo=0, hi=8192, help="input tokens (0: 1536 for MetricX-24, 1024 for 23)",
      sig="max-len"),  # the resolved length (param_value)
    P("batch_size", "int", 16, lo=1, hi=4096, help="inputs per model call (halved on out-of-memory)"),
    P("gpus", "int", 0, lo=0, hi=64, help="GPUs used (0: CPU; N: the first N visible GPUs, data-parallel)"),
    P("precision", "choice", "fp32", choices=PRECISIONS, help="fp32 (exact), bf16 or fp16 (GPU)", sig="precision"),
    # ``ref:`` is written from the number of references too (COMET.signature_items)
    P("ref", "choice", "first", choices=REF_MODES, help="several references: the first, or the mean/max of the scores"),
    P("cache", "bool", True, help="use the neural score cache (MTSCORE_NO_CACHE=1 turns it off for every metric)"),
)


@dataclass(frozen=True)
class MetricXConfig:
    PARAMS: ClassVar = _PARAMS
    model: str = ""
    sources: str = ""
    version: str = "24"
    qe: bool = False
    tokenizer: str = ""
    max_input_length: int = 0
    batch_size: int = 16
    gpus: int = 0
    precision: str = "fp32"
    ref: str = "first"
    cache: bool = True


_HINT = ("pass model=DIR with a MetricX checkpoint folder already on disk (config.json and model.safetensors) or a "
         "model name in the Hugging Face cache; mtscore never downloads models (or read stored scores with "
         "-m scores:MetricX-24=FILE)")


class MetricX(COMET):
    name = "metricx"
    display_name = "MetricX"
    Config = MetricXConfig
    higher_is_better = False
    range = (0.0, 25.0)
    _encoder = "mt5"
    _marker = "config.json"

    def _validate(self) -> None:
        from ..errors import InvalidParameterError
        from ..neural import _deps
        from ..neural.locate import model_folder
        c = self.config
        self._folder = model_folder(c.model, self.name, _HINT, "config.json")
        if (c.version == "24" or c.qe) and not c.sources:
            raise InvalidParameterError(f"{self.name}: MetricX-{c.version}{' QE' if c.qe else ''} reads the source; "
                                        "pass sources=FILE (one source segment per line)")
        if not c.gpus and c.precision == "fp16":
            raise InvalidParameterError(f"{self.name}: precision=fp16 needs a GPU (gpus=1); on CPU use fp32 or bf16")
        _deps.torch()
        _deps.transformers()
        self._uses_refs = not c.qe
        self._model = None
        self._src_lines = None
        self.last_spans = None

    @property
    def max_len(self) -> int:
        return self.config.max_input_length or (1536 if self.config.version == "24" else 1024)

    def _load_on(self, device: str, sc):
        from ..neural import metricx_model as mx
        c = self.config
        return mx.load(self._folder, self.name, c.tokenizer, c.precision, device, sc)

    def _kept_key(self) -> tuple:
        return ("metricx", self.config.tokenizer, self.config.precision)

    @property
    def reference_free(self) -> bool:
        return bool(self.config.qe)

    def without_references(self) -> None:
        pass  # qe=true: the references are not read

    def _weights_file(self):
        return next((self._folder / n for n in ("model.safetensors", "pytorch_model.bin")
                     if (self._folder / n).is_file()), self._folder / "model.safetensors")

    def _key_parts(self) -> tuple[dict, dict]:
        """(files, options) that decide a score besides the input text: the weights, config.json, the mT5
        tokenizer's files (wherever ``tokenizer=`` finds them), the input format, the token limit, the
        precision/device."""
        from ..neural import metricx_model as mx
        c = self.config
        tdir = mx._tokenizer_folder(c.tokenizer, self._folder, self.name)
        files = {"weights": self._weights_file(), "config.json": self._folder / "config.json"}
        for n in self._KEY_FILES:
            files[f"tokenizer/{n}"] = tdir / n if (tdir / n).is_file() else None
        return files, {"version": c.version, "qe": bool(c.qe), "max_len": self.max_len, "tokenizer": c.tokenizer,
                       "precision": c.precision, "device": "cuda" if c.gpus else "cpu"}

    def _score_items(self, items):
        from ..neural import cache as _cache
        from ..neural import metricx_model as mx
        from ..neural import runner
        c = self.config
        texts = [(mx.make_input(c.version, c.qe, s, h, r),) for s, h, r in items]
        kind = f"metricx-{c.version}-{'qe' if c.qe else 'ref'}-{self.max_len}"
        if not self._use_cache():
            return runner.score(self._lazy, texts, c.batch_size, self.name, use_cache=False, max_len=self.max_len)
        sc = _cache.ScoreCache()
        return runner.score(self._lazy, texts, c.batch_size, self.name, use_cache=True, score_cache=sc, kind=kind,
                            max_len=self.max_len, fingerprint=self._fingerprint(sc))

    def param_value(self, name: str):
        return self.max_len if name == "max_input_length" else super().param_value(name)

    def signature_items(self, nrefs):
        # the declared entries (PARAMS: version, qe, max-len, precision) with what is not a parameter
        return self.declared_signature(*self._model_items()[:2], "version", "qe", "max-len", "precision",
                                       self._ref_item(nrefs), ("agg", "mean"), ("dir", "lower"),
                                       *self._model_items()[2:])

    def score(self, summed) -> np.ndarray:
        return super().score(summed)
