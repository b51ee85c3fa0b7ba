"""Name -> metric class. CLI, significance, meta-evaluation and backends are written once against it.

Three ways to add a metric without touching this file (docs/contributing-a-metric.md):

* an entry point in the group ``mtscore.metrics`` of an installed distribution
  (``[project.entry-points."mtscore.metrics"] my-metric = "my_pkg.my_module:MyMetric"``), found on first use;
* ``register("my-metric", "my_pkg.my_module:MyMetric")`` (or the class itself, or
  ``"path/to/file.py:MyMetric"``) in the process that runs the command;
* ``module:Class`` given directly as a metric name (``-m my_pkg.my_module:MyMetric``,
  ``-m path/to/file.py:MyMetric:param=value``).

Worker processes (``--jobs``) and Dask workers receive metric objects by pickling, and a metric's class
travels with the file of its module (:meth:`mtscore.metrics.base.Metric.__reduce_ex__`), so a metric
added in any of these ways works there without registering again.
"""
from __future__ import annotations

from importlib import import_module

from ..errors import InvalidParameterError
from ..params import parse_inline, provide
from .base import Metric, load_module_file

ENTRY_POINT_GROUP = "mtscore.metrics"

# name -> "module:Class"; modules are imported lazily so that optional pieces cost nothing.
_REGISTRY: dict[str, str] = {
    "bleu": "mtscore.metrics.bleu:BLEU",
    "bleu-sbp": "mtscore.metrics.bleu:BLEUSBP",
    "gtm": "mtscore.metrics.gtm:GTM",
    "lcm": "mtscore.metrics.lcm:LCM",
    "tbleu": "mtscore.metrics.tbleu:TBLEU",
    "nist": "mtscore.metrics.nist:NIST",
    "wer": "mtscore.metrics.wer:WER",
    "mwer": "mtscore.metrics.wer:MWER",
    "wrr": "mtscore.metrics.wer:WRR",
    "per": "mtscore.metrics.wer:PER",
    "mper": "mtscore.metrics.wer:MPER",
    "mer": "mtscore.metrics.jiwer_measures:MER",
    "wil": "mtscore.metrics.jiwer_measures:WIL",
    "wip": "mtscore.metrics.jiwer_measures:WIP",
    "cer": "mtscore.metrics.jiwer_measures:CER",
    "wer-jiwer": "mtscore.metrics.jiwer_measures:JiwerWER",
    "gleu-google": "mtscore.metrics.gleu_ribes:GoogleGLEU",
    "ribes": "mtscore.metrics.gleu_ribes:RIBES",
    "4-grr": "mtscore.metrics.grr:FourGRR",
    "k-grr": "mtscore.metrics.grr:KGRR",
    "rose": "mtscore.metrics.rose:ROSE",
    "rose-reg": "mtscore.metrics.rose:ROSEReg",
    "rose-rank": "mtscore.metrics.rose:ROSERank",
    "rose-regpos": "mtscore.metrics.rose:ROSERegPos",
    "rose-rankpos": "mtscore.metrics.rose:ROSERankPos",
    "chrf": "mtscore.metrics.chrf:CHRF",
    "chrf++": "mtscore.metrics.chrf:CHRFPlusPlus",
    "ter": "mtscore.metrics.ter:TER",
    "scores": "mtscore.metrics.scores:ExternalScores",
    # optional extra mtscore[neural]; models from disk or the Hugging Face cache, never downloaded
    "comet": "mtscore.metrics.comet:COMET",
    "cometkiwi": "mtscore.metrics.comet:CometKiwi",
    "xcomet": "mtscore.metrics.comet:XCOMET",
    "metricx": "mtscore.metrics.metricx:MetricX",
    # LLM judges through an OpenAI-compatible server (docs/llm-judges.md); the standard library only
    "gemba-esa": "mtscore.metrics.gemba:GembaESA",
    "gemba-mqm": "mtscore.metrics.gemba:GembaMQM",
    "gemba-da": "mtscore.metrics.gemba:GembaDA",
}


_CLASSES: dict[str, type] = {}  # registered class objects (register(name, cls))
_ENTRY_POINTS_LOADED = False


def register(name: str, target) -> None:
    """Register a metric under ``name``: ``target`` is ``"module:Class"``, ``"path/file.py:Class"`` or a
    :class:`~mtscore.metrics.base.Metric` subclass."""
    if not isinstance(name, str) or not name or ":" in name or "," in name or name != name.strip():
        raise InvalidParameterError(f"register: a metric name is a non-empty word without ':' or ',', got {name!r}")
    key = name.lower()
    if isinstance(target, type):
        if not issubclass(target, Metric):
            raise InvalidParameterError(f"register: {target.__name__} is not a subclass of mtscore Metric")
        _CLASSES[key] = target
        _REGISTRY[key] = f"{target.__module__}:{target.__qualname__}"
        return
    if not isinstance(target, str) or target.count(":") < 1:
        raise InvalidParameterError(f"register: target must be 'module:Class' or a Metric class, got {target!r}")
    _CLASSES.pop(key, None)
    _REGISTRY[key] = target


def _load_entry_points() -> None:
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return
    _ENTRY_POINTS_LOADED = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _REGISTRY.setdefault(ep.name.lower(), ep.value)


def metric_names() -> list[str]:
    _load_entry_points()
    return sorted(_REGISTRY)


def registered_names(among=None) -> list[str]:
    """Registered names in registration order (the built-in ones first); ``among``: only those, without
    looking at entry points (cheap); None: every one, entry points included."""
    if among is None:
        _load_entry_points()
        return list(_REGISTRY)
    return [n for n in _REGISTRY if n in among]


def is_target(name: str) -> bool:
    """``module:Class`` or ``path/file.py:Class`` rather than a registered name."""
    mod, _, cls = name.rpartition(":")
    return bool(mod) and all(p.isidentifier() for p in cls.split("."))


def load_target(target: str):
    """The class named by ``"module:Class"`` or ``"path/to/file.py:Class"`` (a Metric subclass)."""
    module, _, qual = target.rpartition(":")
    try:
        if module.endswith(".py"):
            from pathlib import Path
            p = Path(module)
            if not p.is_file():
                raise InvalidParameterError(f"metric {target!r}: no such file {module!r}")
            mod = load_module_file(f"mtscore_user_{p.stem}", str(p.resolve()))
        else:
            mod = import_module(module)
        cls = mod
        for part in qual.split("."):
            cls = getattr(cls, part)
    except (ImportError, AttributeError) as exc:
        raise InvalidParameterError(f"metric {target!r}: cannot load it ({type(exc).__name__}: {exc})") from None
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise InvalidParameterError(f"metric {target!r}: {qual} is not a subclass of mtscore Metric")
    return cls


def get_metric_class(name: str):
    key = name.lower()
    if key in _CLASSES:
        return _CLASSES[key]
    if key not in _REGISTRY:
        _load_entry_points()
    if key not in _REGISTRY:
        if is_target(name):
            return load_target(name)
        raise InvalidParameterError.choice("metric", name, metric_names())
    return load_target(_REGISTRY[key])


def get_metric(name: str, /, **params):
    """Instantiate a registered metric with keyword parameters (unknown ones are an error)."""
    return get_metric_class(name)(**params)


def _registered(name: str) -> bool:
    return name.strip().lower() in metric_names()


def split_metric_spec(spec: str) -> tuple[str, dict]:
    """``name`` or ``name:key=value,key=value`` -> (name, {key: text}). A metric class given as
    ``module:Class`` or ``path/file.py:Class`` takes its parameters after a second ``:``
    (``my_pkg.mod:Toy:n=2``); its name keeps its case."""
    name, _, rest = spec.partition(":")
    head = rest.split(":", 1)[0].strip()
    if rest and head.isidentifier() and not _registered(name):  # module:Class[:params]
        _, _, params = rest.partition(":")
        return f"{name.strip()}:{head}", (split_metric_spec("x:" + params)[1] if params else {})
    raw: dict = {}
    if rest:
        for item in rest.split(","):
            key, eq, val = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise InvalidParameterError(
                    f"-m {spec!r}: parameters must be written NAME:KEY=VALUE[,KEY=VALUE...], got {item!r}")
            if key in raw:
                raise InvalidParameterError(f"-m {spec!r}: parameter {key!r} given twice")
            raw[key] = val.strip()
    return name.strip().lower(), raw


def parse_metric_spec(spec: str) -> tuple[str, dict]:
    """``name`` or ``name:key=value,key=value`` -> (name, typed parameters): the parameter layer
    (:func:`mtscore.params.parse_inline`) parses each value by the metric's table (booleans exactly
    true/false/1/0/yes/no/on/off); a metric that names itself (``scores:COMET=FILE``) keeps its own keys
    as text."""
    name, raw = split_metric_spec(spec)
    cls = get_metric_class(name)  # unknown names -> error listing valid names
    return name, parse_inline(cls.Config, name, raw, free=getattr(cls, "names_itself", False))


def _lcm_languages():
    from .lcm import languages  # on use: listing the choices loads no metric module before
    return languages()


provide("lcm_languages", _lcm_languages)  # the metrics stage's choice list for the parameter layer
