"""One output model: how every command shows a metric (docs/output.md).

Every result a command prints carries, per metric, a :class:`MetricView`: its display name (sacreBLEU's where
one exists: ``BLEU``, ``chrF2``, ``chrF2++``, ``TER``), its scale, its direction, its signature and its digits.
Text, JSON, TSV/CSV, LaTeX, Markdown and HTML are renderings of that one model; no renderer decides a scale or
a name on its own.

The rules (one place):

* **scale**: the metric's declared ``table_scale`` (:class:`mtscore.metrics.base.Metric`): a score computed as
  a fraction (an error or recognition rate, an F-measure, a 0..1 metric: WER, PER, CER, MER, WIL, WIP, 4-GRR,
  WRR, GTM, LCM, RIBES, GLEU) is shown x100, on the 0..100 scale of BLEU, chrF and sacreBLEU's TER; every
  other metric is shown as computed (BLEU, chrF, TER, NIST, COMET, ROSE, stored scores). The same number in
  every command and every format, JSON included (JSON results say ``"scale": 100``: shown = API value x 100).
* **direction**: ``higher_is_better`` of the metric (``↑``/``↓`` in headers, ``"higher_is_better"`` in JSON).
* **digits**: at least ``-w/--width`` (default 2); model scores without a fixed range (COMET, ROSE, stored
  scores) at least 4, so that differences of 0.001 stay visible. p-values: 4 digits, and ``< 0.0001`` below.
  JSON, TSV and CSV keep full precision.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

P_DIGITS = 4
P_FLOOR = 10.0 ** -P_DIGITS


def scale_of(metric) -> float:
    """Shown score = API score x this (the metric's declared ``table_scale``)."""
    return float(getattr(metric, "table_scale", 1.0) or 1.0)


def digits_of(metric, width: int = 2) -> int:
    """Digits shown for this metric's scores: ``width`` (-w), at least 4 for unbounded model scores."""
    lo, hi = getattr(metric, "range", (0.0, 100.0))
    key = getattr(metric, "registry_name", None) or getattr(metric, "name", "")
    model = (math.isinf(lo) and math.isinf(hi)) or key == "scores"
    return max(int(width), 4) if model else int(width)


@dataclass(frozen=True)
class MetricView:
    """How one metric is shown: the same in every command and format."""

    key: str  # registry name, e.g. "chrf"
    name: str  # display name / column label, e.g. "chrF2"
    signature_name: str  # the name before the signature (a column label may add parameters)
    scale: float
    higher_is_better: bool
    digits: int

    @property
    def arrow(self) -> str:
        return "↑" if self.higher_is_better else "↓"

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def label(self) -> str:
        """The header of a score column: ``TER ↓``."""
        return f"{self.name} {self.arrow}"

    def shown(self, x):
        """A value on the shown scale (None / NaN stay as they are)."""
        if x is None or self.scale == 1.0:
            return x
        return float(x) * self.scale

    def signature(self, signature: str) -> str:
        """``NAME|signature``, as sacreBLEU prints it."""
        return f"{self.signature_name}|{signature}"

    def as_dict(self, signature: str | None = None) -> dict:
        d = {"metric": self.key, "name": self.name, "scale": self.scale, "higher_is_better": self.higher_is_better,
             "digits": self.digits}
        if signature is not None:
            d["signature"] = self.signature(signature)
        return d


def view(metric, width: int = 2) -> MetricView:
    """The :class:`MetricView` of a metric object (or class)."""
    key = getattr(metric, "registry_name", None) or getattr(metric, "name", "")
    name = getattr(metric, "display_name", key)
    sig_name = getattr(metric, "signature_name", name)
    if not isinstance(sig_name, str):  # a class: the property itself
        sig_name = name
    return MetricView(key, name, sig_name, scale_of(metric), bool(getattr(metric, "higher_is_better", True)),
                      digits_of(metric, width))


def result_dict(v: MetricView, r) -> dict:
    """A corpus :class:`~mtscore.metrics.base.MetricResult` in JSON: score on the shown scale, with the model's
    name, scale and direction; ``signature`` as sacreBLEU's JSON has it (without the name); the components
    (counts, lengths) as computed."""
    d = r.as_dict()
    d.update(metric=v.key, name=v.name, score=v.shown(d["score"]), scale=v.scale, higher_is_better=v.higher_is_better)
    return d


def format_p(p, digits: int = P_DIGITS) -> str | None:
    """A p-value as text: ``0.0123``, ``< 0.0001`` below the last digit shown, None where undefined."""
    if p is None or p != p:
        return None
    if p < 10.0 ** -digits:
        return f"< {10.0 ** -digits:.{digits}f}"
    return f"{p:.{digits}f}"


def sig_mark(delta, p, alpha: float, higher_is_better: bool) -> str:
    """The significance mark of a difference (system - baseline): ``▲`` significantly better, ``▼`` significantly
    worse (direction-aware: a lower TER is better), empty when not significant or undefined."""
    if p is None or p != p or not (p < alpha) or delta is None or delta != delta or delta == 0:
        return ""
    better = (delta > 0) == higher_is_better
    return "▲" if better else "▼"


MARK_LEGEND = "▲ significantly better, ▼ significantly worse (adjusted p < {alpha})"


def strict(obj):
    """``obj`` with every NaN / infinity replaced by None (JSON ``null``): strict JSON that jq and browsers read."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):  # NumPy scalars
        try:
            return strict(obj.item())
        except (TypeError, ValueError):
            return obj
    return obj


def dumps(obj, indent: int | None = 2) -> str:
    """Strict JSON text (NaN / inf -> null; ``allow_nan=False`` guards the rule)."""
    import json
    return json.dumps(strict(obj), ensure_ascii=False, indent=indent, allow_nan=False)
