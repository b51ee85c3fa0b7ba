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

Without references (``score -i SYS -m cometkiwi:...`` or ``xcomet:...``, no ``-r``): CometKiwi as always, XCOMET in
its quality-estimation mode (src, mt), as unbabel-comet scores it when no reference is given.

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
    P("gpus", "int", 0, lo=0, hi=64, help="GPUs used (0: CPU; N: the first N visible GPUs, data-parallel)"),
    P("precision", "choice", "fp32", choices=PRECISIONS, help="fp32 (exact), bf16 or fp16 (GPU)", sig="precision"),
    # ``ref:`` is written from the number of references too (signature_items)
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
    partitionable = False  # sources are aligned with the whole test set ...
    carries_sources = True  # ... unless each partition carries its own source lines (mtscore.runner does so)
    names_itself = True  # labelled COMET, not COMET[model=...,sources=...]
    _classes: ClassVar[tuple[str, ...]] = ("regression_metric",)
    _needs_sources = True
    _uses_refs = True
    predicts_spans = False  # XCOMET: error spans beside the scores (``--spans-out``, sentence-level JSON)
    reference_free = False  # scores without references (``score`` without -r): CometKiwi, XCOMET, MetricX QE

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
        self._src_lines = None
        self.last_spans = None
        # XCOMET: the spans of every _stats call of this process, in call order (one call per system when the
        # whole test set is one partition, as for every neural metric): ``score --spans-out`` writes them
        self.span_log: list[list[list[dict]]] = []

    # the loaded model stays in the process; pickled copies (worker processes) load their own
    def __reduce_ex__(self, protocol):
        fn, args, state = super().__reduce_ex__(protocol)
        return fn, args, {**state, "_model": None, "_replicas": None, "span_log": [], "_fp": None, "_wdigest": None}

    def _devices(self) -> list[str]:
        """Where the model runs: ``cpu`` (gpus=0), or the first N visible GPUs (gpus=N, one replica each).
        A larger N than torch sees is a one-line error (here, where the model runs: a Dask worker may see
        GPUs that the client does not)."""
        given = self.__dict__.get("_device_list")  # tests: e.g. two CPU replicas (the data-parallel mechanics)
        if given:
            return list(given)
        n = int(self.config.gpus)
        if not n:
            return ["cpu"]
        import torch
        seen = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if n > seen:
            vis = os.environ.get("CUDA_VISIBLE_DEVICES")
            raise InvalidParameterError(f"{self.name}: gpus={n} but torch sees {plural(seen, 'GPU')}"
                                        + (f" (CUDA_VISIBLE_DEVICES={vis})" if vis is not None else "")
                                        + f"; use gpus=0..{seen}")
        return [f"cuda:{i}" for i in range(n)]

    def _load_on(self, device: str, sc):
        from ..neural import comet_model as cm
        return cm.load(self._folder, self.name, self.config.precision, device, cache=sc, expect=self._classes)

    def without_references(self) -> None:
        """Score without references (``score`` without -r): XCOMET falls back to its quality-estimation input
        ``<s> mt </s></s> src </s>``, as unbabel-comet does when no reference is given."""
        self._uses_refs = False

    # -- the score cache's key: computed from the files, without loading the model ------------------------
    _KEY_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                  "sentencepiece.bpe.model", "spiece.model", "sentencepiece.model", "added_tokens.json",
                  "vocab.json", "merges.txt")

    def _weights_file(self):
        ck = self._folder / "checkpoints" / "model.ckpt"
        if not ck.is_file() and (self._folder / "checkpoints" / "model.safetensors").is_file():
            ck = self._folder / "checkpoints" / "model.safetensors"
        return ck

    def _key_parts(self) -> tuple[dict, dict]:
        """(files, options) that decide a score besides the input text: the weights, hparams.yaml, the
        encoder's config and tokenizer files, the checkpoint's class and the precision/device."""
        from ..neural import comet_model as cm
        from ..neural.locate import encoder_folder
        hp = cm.read_hparams(self._folder, self.name)
        enc = encoder_folder(str(hp.get("pretrained_model", "xlm-roberta-large")), self._folder, self.name)
        files = {"weights": self._weights_file(), "hparams.yaml": self._folder / "hparams.yaml"}
        for n in self._KEY_FILES:
            files[f"encoder/{n}"] = enc / n if (enc / n).is_file() else None
        return files, {"class": str(hp.get("class_identifier")), "precision": self.config.precision,
                       "device": "cuda" if self.config.gpus else "cpu"}

    def _fingerprint(self, sc) -> str:
        fp = self.__dict__.get("_fp")
        if fp is None:
            from ..neural import cache as _cache
            files, options = self._key_parts()
            fp = self._fp = _cache.fingerprint(files, {"metric": self.name, **options}, sc)
        return fp

    def _weights_digest(self) -> str:
        """The weights' sha256 (the signature's ``digest``), from the memo of the score cache when it is used;
        computed once per metric object."""
        got = self.__dict__.get("_wdigest")
        if got is None:
            from ..neural import cache as _cache
            model = self.__dict__.get("_model")
            if model is not None:
                got = model.digest
            else:
                sc = _cache.ScoreCache() if self._use_cache() else None
                try:
                    got = _cache.file_digest(self._weights_file(), sc)
                except OSError:
                    got = self._load().digest  # the load says what is wrong with the file
            self._wdigest = got
        return got

    def _stamp(self) -> tuple:
        """Size, modification time and inode of every file of the key (the encoder's config and tokenizer too):
        a process that keeps a loaded model loads it again when one of them changed."""
        out = []
        for name, p in sorted(self._key_parts()[0].items()):
            try:
                st = os.stat(p) if p is not None else None
            except OSError:
                st = None
            out.append((name, None if st is None else (st.st_size, st.st_mtime_ns, st.st_ino)))
        return tuple(out)

    def _lazy(self):
        """The model and its replicas, loaded on first use (the score cache may make it unneeded)."""
        return self._load(), self.__dict__.get("_replicas")

    def _load(self):
        if self._model is None:
            from ..neural import cache as _cache
            from ..neural import kept
            from ..neural.runner import check_finite, replicas
            devices = self._devices()
            sc = _cache.ScoreCache() if self._use_cache() else None
            key = (*self._kept_key(), self._stamp())

            def load_checked():
                got = self._load_on(devices[0], sc)
                check_finite(getattr(got, "net", None) or got.model, self.name, getattr(got, "ckpt", None)
                             or got.weights)
                return got
            model = kept(str(self._folder), (*key, devices[0]), load_checked)
            self._check_model(model)
            self._replicas = [model] if len(devices) == 1 else \
                kept(str(self._folder), (*key, tuple(devices)), lambda: replicas(model, devices))
            self._model = model
        return self._model

    def _kept_key(self) -> tuple:
        return (self.config.precision, self._classes)

    def _check_model(self, m) -> None:
        pass

    _encoder = "xlmr"  # the pre-training languages of the encoder (mtscore.neural.languages)

    def check_languages(self, langpair: str | None) -> list[str]:
        """Warn (one line) when a language of ``langpair`` (``-l SRC-TGT``) is not one the model's encoder
        was pre-trained on (XLM-R's CC-100 languages; mT5's mC4 languages for MetricX); returns those codes."""
        from ..neural.languages import warn_unsupported
        model = os.path.basename(os.path.normpath(self.config.model)) or self.config.model
        return warn_unsupported(self.name, model, langpair, self._encoder)

    def _use_cache(self) -> bool:
        from ..neural import cache as _cache
        return bool(self.config.cache) and not _cache.disabled()

    @property
    def sources_path(self) -> str | None:
        """The ``sources=`` file, or None (no source needed)."""
        return self.config.sources or None

    def with_sources(self, lines) -> "COMET":
        """This metric for one partition: a copy that takes its source segments from ``lines`` (the partition's
        lines of the ``sources=`` file, read once by the caller) instead of reading the file. The copy shares
        the loaded model and XCOMET's span log; pickled (a Dask task) it carries the lines, so a worker never
        reads the client's file."""
        c = object.__new__(type(self))
        c.__dict__.update(self.__dict__)
        c._src_lines = list(lines)
        return c

    def sources_of_rows(self, seg, n_segments: int, what: str = "n-best list") -> list[str | None]:
        """The source segment of every row of a candidate pool (``seg``: the segment of each row), from the
        ``sources=`` file, which has one line per segment of the ``what``."""
        if not self.config.sources:
            return [None] * len(seg)
        src = self.__dict__.get("_src_lines")
        if src is None:
            from ..io import read_lines
            src = read_lines(self.config.sources)
        if len(src) != n_segments:
            raise InputError(f"{self.name}: {plural(len(src), 'source segment')} for the "
                             f"{plural(n_segments, 'segment')} of the {what}", self.config.sources)
        return [src[int(s)] for s in seg]

    def pair_utility(self, texts: list[str], src_rows: list[str | None]):
        """MBR with COMET-DA as the utility: ``util(a, b)`` = the scores of candidates ``texts[a]`` against
        ``texts[b]`` as pseudo-references (source ``src_rows[a]``), for the pairs of a group of segments. Each
        call encodes every distinct candidate and source of its pairs once and runs only the estimator on the
        pairs; the embeddings are dropped after the call (memory: one group of segments). The scores equal the
        sentence scores of the same (source, hypothesis, reference) triples through :meth:`stats` (to float32
        rounding: the encoder batches differ)."""
        from ..neural import runner
        m = self._load()
        c = self.config

        def util(a, b) -> np.ndarray:
            rows = np.unique(np.concatenate([np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)]))
            need = list(dict.fromkeys(t for r in rows.tolist() for t in (texts[r], src_rows[r]) if t is not None))
            row = runner.embed(m, need, c.batch_size, self.name, self.__dict__.get("_replicas"))
            triples = [(src_rows[x], texts[x], texts[y]) for x, y in zip(a, b)]
            return np.asarray(runner.estimate(m, row, triples, c.batch_size, self.name), dtype=np.float64)
        return util

    def _sources(self, n: int) -> list[str | None]:
        if not self.config.sources:
            return [None] * n
        src = self.__dict__.get("_src_lines")
        if src is None:
            from ..io import read_lines
            src = read_lines(self.config.sources)
        if len(src) != n:
            raise InputError(f"{self.name}: {plural(len(src), 'source segment')} for "
                             f"{plural(n, 'hypothesis', 'hypotheses')}", self.config.sources)
        return src

    def _stats(self, hyps, refs) -> np.ndarray:
        src = self._sources(len(hyps))
        mode = self.config.ref if self._uses_refs else "first"
        k_max = max((len(r) for r in refs), default=1) if (self._uses_refs and mode != "first") else 1
        items, owner = [], []
        for i, (s, h, r) in enumerate(zip(src, hyps, refs)):
            for k in range(min(k_max, len(r)) if self._uses_refs else 1):
                items.append((s, h, r[k] if self._uses_refs else None))
                owner.append(i)
        scores, spans = self._score_items(items)
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
                             f"{plural(int((~np.isfinite(seg)).sum()), 'segment')}", str(self._weights_file()))
        if spans is not None:
            first = {}
            for o, sp in zip(owner.tolist(), spans):
                first.setdefault(o, sp)
            self.last_spans = [first.get(i, []) for i in range(len(hyps))]
            self.span_log.append(self.last_spans)
        return np.column_stack([seg, np.ones(len(hyps))])

    def _score_items(self, items):
        from ..neural import cache as _cache
        from ..neural import runner
        if not self._use_cache():
            return runner.score(self._lazy, items, self.config.batch_size, self.name, use_cache=False)
        sc = _cache.ScoreCache()
        return runner.score(self._lazy, items, self.config.batch_size, self.name, use_cache=True, score_cache=sc,
                            kind=self.name, fingerprint=self._fingerprint(sc))

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[..., 0] / s[..., 1]

    def signature_items(self, nrefs):
        # the declared entries (PARAMS: precision) with what is not a parameter: the model, its weights, the
        # versions that compute it, and ``ref:`` (the parameter ``ref`` as the number of references makes it)
        return self.declared_signature(*self._model_items()[:2], "precision", self._ref_item(nrefs), ("agg", "mean"),
                                       ("dir", "higher"), *self._model_items()[2:])

    def _model_items(self):
        import torch
        import transformers
        return [("model", os.path.basename(os.path.normpath(str(self._folder))) if os.path.isdir(self.config.model)
                 else self.config.model),
                ("digest", self._weights_digest()[:12]),
                ("torch", torch.__version__.split("+")[0]), ("transformers", transformers.__version__)]

    def _ref_item(self, nrefs):
        return ("ref", (self.config.ref if nrefs != 1 else None) if self._uses_refs else "none")

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
    if len(names) and len(log) > len(names) and len(log) % len(names) == 0:
        # several partitions (inputs longer than --chunk-size): partition-major, every system in each
        k = len(names)
        log = [[seg for p in range(0, len(log), k) for seg in log[p + j]] for j in range(k)]
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
    reference_free = True

    def _check_model(self, m) -> None:
        if m.needs_reference:
            raise InvalidParameterError(f"{self.name}: {self._folder} is a reference-based model (input segments "
                                        f"{list(m.input_segments)}); use comet or xcomet")


class XCOMET(COMET):
    name = "xcomet"
    display_name = "XCOMET"
    Config = XCOMETConfig
    _classes = ("xcomet_metric", "unified_metric")
    predicts_spans = True
    reference_free = True  # without references: XCOMET's quality-estimation mode (src, mt)
