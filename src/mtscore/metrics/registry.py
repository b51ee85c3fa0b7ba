"""Name -> metric class. CLI, significance, meta-evaluation and backends are written once against it."""
from __future__ import annotations

from importlib import import_module

from ..errors import InvalidParameterError

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
    "comet": "mtscore.metrics.comet:COMET",  # optional extra mtscore[comet]; a local checkpoint only
}


def register(name: str, target: str) -> None:
    _REGISTRY[name] = target


def metric_names() -> list[str]:
    return sorted(_REGISTRY)


def get_metric_class(name: str):
    key = name.lower()
    if key not in _REGISTRY:
        raise InvalidParameterError.choice("metric", name, metric_names())
    module, cls = _REGISTRY[key].split(":")
    return getattr(import_module(module), cls)


def get_metric(name: str, **params):
    """Instantiate a registered metric with keyword parameters (unknown ones are an error)."""
    return get_metric_class(name)(**params)


def parse_value(text: str):
    """An inline parameter value: true/yes, false/no, an int, a float, else the text."""
    low = text.lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_metric_spec(spec: str) -> tuple[str, dict]:
    """``name`` or ``name:key=value,key=value`` (Config fields), e.g. ``bleu:ref_length=shortest,smooth=none``."""
    name, _, rest = spec.partition(":")
    params = {}
    if rest:
        for item in rest.split(","):
            key, eq, val = item.partition("=")
            if not eq or not key:
                raise InvalidParameterError(
                    f"metric {spec!r}: parameters must be written name:key=value[,key=value...], got {item!r}")
            params[key.strip()] = parse_value(val.strip())
    return name.strip().lower(), params
