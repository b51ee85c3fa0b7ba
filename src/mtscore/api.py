"""High-level Python API: ``mtscore.score(hyps, refs, metrics=[...])``."""
from __future__ import annotations

from typing import Mapping, Sequence, Union

from . import params as P
from .errors import InvalidParameterError
from .metrics.base import Metric, MetricResult, normalize_corpus
from .metrics.bleu import BLEU, BLEUSBP
from .metrics.registry import get_metric

MetricSpec = Union[str, Metric]


def resolve_metrics(metrics: Sequence[MetricSpec] | MetricSpec, params: Mapping | None = None) -> list[Metric]:
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    out = []
    for m in metrics:
        if isinstance(m, Metric):
            out.append(m)
        elif isinstance(m, str):
            out.append(get_metric(m, **(params or {}).get(m, {})))
        else:
            raise InvalidParameterError(f"metrics: expected metric names or Metric objects, got {type(m).__name__}")
    if not out:
        raise InvalidParameterError("metrics: at least one metric is needed")
    return out


def score(hyps, refs, metrics: Sequence[MetricSpec] | MetricSpec = ("bleu",), *, sentence_level: bool = False,
          params: Mapping[str, Mapping] | None = None, threads: int | None = None, kernels: str | None = None):
    """Score one system (``hyps`` = list of strings) or several (``hyps`` = {name: list}).

    ``refs`` is sentence-major: ``refs[i]`` is the reference (a string) or the references (a list)
    of segment ``i``. ``params`` maps a metric name to keyword parameters, e.g.
    ``{"bleu": {"ref_length": "shortest"}}``. ``threads``: threads of the compiled kernels (default: the CPUs
    the process may use, at most 8, fewer for small inputs; ``$MTSCORE_THREADS`` overrides the default);
    the numbers do not depend on it. ``kernels``: ``"c"`` (compiled), ``"reference"`` (plain, slow) or ``"auto"``
    (default: ``$MTSCORE_KERNELS`` if set, else auto); the numbers do not depend on it either. Returns ``{metric: MetricResult}`` for one system,
    ``{system: {metric: MetricResult}}`` for several; with ``sentence_level=True`` each value is the
    list of per-segment results instead.
    """
    threads = P.check(P.OPTIONS, "threads", threads)  # the --threads rule: 1..1024 or None
    kernels = P.check(P.OPTIONS, "kernels", kernels)  # the --kernels rule: auto, c, reference or None
    ms = resolve_metrics(metrics, params)
    if isinstance(hyps, Mapping):
        if not hyps:
            raise InvalidParameterError("hyps: no systems given")
        return {name: score(h, refs, ms, sentence_level=sentence_level, threads=threads, kernels=kernels)
                for name, h in hyps.items()}
    from ._threadparam import threads_block  # None: no change (an enclosing --threads / threads= stays)

    hyps, refs = normalize_corpus(hyps, refs)
    out: dict[str, MetricResult | list[MetricResult]] = {}
    from .text.fast import kernel_choice

    with threads_block(threads), kernel_choice(kernels):
        for m in ms:
            out[m.name] = m.sentences(hyps, refs) if sentence_level else m.corpus(hyps, refs)
    return out


def explain_tbleu(hyp: str, refs, epsilon: float = 0.05, **params):
    """tBLEU on one segment, step by step (matching, corrections, weights, credited n-grams).

    Returns a frozen :class:`mtscore.metrics.tbleu.TBLEUExplanation`; render it with
    :func:`mtscore.report.tbleu.render_explanation` (text, markdown, JSON).
    """
    from .metrics.tbleu import explain  # lazy: keeps scipy out of the import of mtscore

    return explain(hyp, refs, epsilon, **params)


__all__ = ["score", "resolve_metrics", "explain_tbleu", "BLEU", "BLEUSBP"]
