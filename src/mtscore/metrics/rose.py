"""ROSE (Song & Cohn 2011, docs/definitions.md §7): a linear model over simple features, trained on human judgments.

``sentence score = w . standardize(f) + b``; corpus score = mean of the sentence scores.

Statistics design (decomposable): one row per segment = the model's raw feature values followed by
``count`` (= 1). Summed statistics are ``[sum of f, N]``; because the model is linear,
``score(summed) = w . standardize(sum f / N) + b`` equals the mean of the sentence scores exactly,
so ``score(stats.sum(0))`` is the corpus score and ``score(weights @ stats)`` scores bootstrap
resamples, like every other metric. Models with a non-linear kernel are not linear in f: their
rows are ``[sentence score, count]`` instead (same corpus rule, features not kept).
The sum of an empty selection (``count = 0``) scores NaN.

Registered names: ``rose`` (= the shipped ROSE-rank model), ``rose-reg``, ``rose-rank``,
``rose-regpos``, ``rose-rankpos`` (POS variants need a tagger: extra ``pos``, or pre-tagged input).
"""
from __future__ import annotations

from typing import ClassVar
from dataclasses import dataclass, replace as _replace
from pathlib import Path

import numpy as np

from .._threadparam import with_threads
from ..errors import InvalidParameterError, plural
from ..params import LOWERCASE, ROSE_MODEL_CONFIG, TOKENIZE, convert_mapping, validate_config, Param as P
from ..tokenize import check_tokenizer
from .base import Metric, MetricResult
from .rose_features import extract_features
from .rose_pos import TAGGERS

FUNCTION_WORD_DIR = Path(__file__).resolve().parents[1] / "data" / "function_words"


def function_word_languages() -> list[str]:
    return sorted(p.stem for p in FUNCTION_WORD_DIR.glob("*.txt"))


def load_function_words(spec: str) -> frozenset[str]:
    """A shipped list by language code (``en``, ``de``, ``zh``, ``cs``, ``he``, ``sk``) or a file (one word a line, ``#`` comments)."""
    path = FUNCTION_WORD_DIR / f"{spec}.txt"
    if not path.exists():
        path = Path(spec)
        if not path.is_file():
            raise InvalidParameterError(
                f"function_words: {spec!r} is neither a shipped language ({', '.join(function_word_languages())}) nor a file")
    from ..io.text import read_lines  # UTF-8 checked (file and line in the error), registered as an input
    words = set()
    for ln in read_lines(str(path)):
        ln = ln.strip()
        if ln and not ln.startswith("#"):
            words.add(ln.lower())
    return frozenset(words)


def _model_sig(m: str) -> str:
    """``model:``: a built-in model's name, a model file's name without folder and extension."""
    return m if "/" not in m and not m.endswith(".json") else Path(m).stem


@dataclass(frozen=True)
class ROSEConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = (
        P("rose_model", "path", "rank", flags=("--rose-model",),
          help="built-in model (reg, rank, regpos, rankpos) or a model JSON file", sig="model", sig_fmt=_model_sig),
        P("function_words", "str", None, nullable=True, flags=("--function-words",),
          help="function-word list: en, de, zh, cs, he, sk or a file (default: the model's)",
          sig="fw", sig_fmt=lambda fw: Path(fw).stem),
        _replace(TOKENIZE, default=None, nullable=True, help="tokenizer (default: the model's)"),
        _replace(LOWERCASE, default=None, nullable=True, help="lowercase (default: the model's)"),
        P("pos_tagger", "choice", None, choices=("textblob", "pretagged"), nullable=True, flags=("--pos-tagger",),
          help="POS models: TextBlob tagger or word/TAG input", sig="pos"),
    )
    rose_model: str = "rank"  # built-in (reg, rank, regpos, rankpos) or a model JSON file
    function_words: str | None = None  # language code or file; None: the model's (en)
    tokenize: str | None = None  # None: the model's (13a)
    lowercase: bool | None = None  # None: the model's
    pos_tagger: str | None = None  # textblob | pretagged; None: the model's (textblob); POS models only

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


class ROSE(Metric):
    name = "rose"
    display_name = "ROSE"
    Config = ROSEConfig
    higher_is_better = True
    decomposable = True
    range = (-np.inf, np.inf)
    _default_model = "rank"

    def __init__(self, config=None, **params):
        if config is None and "rose_model" not in params:
            params["rose_model"] = self._default_model
        super().__init__(config, **params)
        from .rose_model import load_model

        self.model = load_model(self.config.rose_model)
        mc = convert_mapping(ROSE_MODEL_CONFIG, self.model.config, "rose model config.")
        self.tokenize = self.config.tokenize or mc.get("tokenize", "13a")
        self.lowercase = bool(self.config.lowercase if self.config.lowercase is not None else mc.get("lowercase", False))
        self.fw_name = self.config.function_words or mc.get("function_words", "en")
        self.function_words = load_function_words(self.fw_name)
        self.pos_tagger = (self.config.pos_tagger or mc.get("pos_tagger") or "textblob") if self.model.uses_pos else None
        check_tokenizer(self.tokenize)  # the model's tokenizer (a file may name one this installation lacks)
        self.columns = (tuple(self.model.features) if self.model.linear else ("score",)) + ("count",)
        self.k = len(self.columns) - 1

    @with_threads
    def features(self, hyps, refs) -> np.ndarray:
        """Raw feature matrix [N, K] in the model's feature order."""
        from .base import normalize_corpus

        hyps, refs = normalize_corpus(hyps, refs)
        return extract_features(hyps, refs, tokenize=self.tokenize, lowercase=self.lowercase,
                                function_words=self.function_words, pos=self.pos_tagger)

    def _stats(self, hyps, refs) -> np.ndarray:
        f = extract_features(hyps, refs, tokenize=self.tokenize, lowercase=self.lowercase,
                             function_words=self.function_words, pos=self.pos_tagger)
        if not self.model.linear:
            f = self.model.decision(f)[:, None]
        return np.hstack([f, np.ones((len(f), 1))])

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        if s.shape[-1] != self.k + 1:
            raise InvalidParameterError(f"{self.name}: summed statistics need {self.k + 1} columns, got {s.shape[-1]}")
        count = s[..., self.k]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = s[..., :self.k] / count[..., None]
        out = self.model.decision(mean) if self.model.linear else mean[..., 0]
        out = np.where(count > 0, out, np.nan)
        return out if out.ndim else float(out)

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        summed = np.asarray(summed, dtype=np.float64)
        score = float(self.score(summed))
        n = int(round(summed[self.k]))
        comps = {"model": self.model.name, "objective": self.model.objective, "kernel": self.model.kernel["type"],
                 "n_features": len(self.model.features), "segments": n}
        detail = f"({self.model.name}, {self.model.kernel['type']}, {plural(len(self.model.features), 'feature')}, segments = {n})"
        return MetricResult(self.name, self.display_name, score, signature, comps, detail)

    def param_value(self, name):
        """The values this model resolves (the signature writes them): tokenizer (none for pretagged input),
        lowercasing, function words and POS tagger (None without POS features)."""
        resolved = {"tokenize": "none" if self.pos_tagger == "pretagged" else self.tokenize,
                    "lowercase": self.lowercase, "function_words": self.fw_name, "pos_tagger": self.pos_tagger}
        return resolved[name] if name in resolved else super().param_value(name)

    def signature_items(self, nrefs):
        return self.declared_signature(("nrefs", nrefs), "model", "case", "tok", "fw", "pos")


class ROSEReg(ROSE):
    name = "rose-reg"
    display_name = "ROSE-reg"
    _default_model = "reg"


class ROSERank(ROSE):
    name = "rose-rank"
    display_name = "ROSE-rank"
    _default_model = "rank"


class ROSERegPos(ROSE):
    name = "rose-regpos"
    display_name = "ROSE-regpos"
    _default_model = "regpos"


class ROSERankPos(ROSE):
    name = "rose-rankpos"
    display_name = "ROSE-rankpos"
    _default_model = "rankpos"
