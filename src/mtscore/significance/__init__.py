"""Significance tests on per-segment statistics (docs/definitions.md §8): paired bootstrap, approximate
randomization, sign test (segment-level or Collins et al.'s composite sets, both directions),
Papineni's block t-test, several systems with Holm/Bonferroni correction.

Start from texts with :func:`compare`, or from statistics with :func:`compare_stats` and the
pairwise functions. See docs/significance.md.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ..errors import InvalidParameterError
from ..metrics.base import Metric, Stats, normalize_corpus
from .core import (BOOTSTRAP_METHODS, CORRECTIONS, DEFAULT_N, DEFAULT_SEED, TESTS, adjust_pvalues,
                   approximate_randomization, block_t_test, bootstrap_scores, canonical_test, compare_stats,
                   confidence_interval, correction_factors, difference_interval, paired_bootstrap, score_intervals,
                   sign_test)
from ._resample import Draws
from .minimum import MIN_SEGMENTS, untested
from .._threadparam import with_threads
from .results import (BlockTTestResult, ComparisonMatrix, ConfidenceInterval, DifferenceInterval, PairedTestResult,
                      SignDirection, SignTestResult)


@with_threads
def compare(systems: Mapping[str, Sequence[str]], refs, metric: str | Metric = "bleu", *, test: str = "bootstrap",
            params: Mapping | None = None, **options) -> ComparisonMatrix:
    """Compare systems given as texts: ``{name: hyps}`` against sentence-major ``refs``.

    ``metric`` is a registered name (with ``params`` for its Config) or a Metric object; the
    statistics are computed once per system and every option of :func:`compare_stats`
    (``n``, ``seed``, ``baseline``, ``all_pairs``, ``correction``, ...) is passed through.
    """
    from ..metrics.registry import get_metric

    if isinstance(metric, str):
        metric = get_metric(metric, **dict(params or {}))
    elif not isinstance(metric, Metric):
        raise InvalidParameterError(f"metric: expected a metric name or a Metric, got {type(metric).__name__}")
    if not isinstance(systems, Mapping):
        raise InvalidParameterError("systems: expected a mapping {name: list of hypotheses}")
    if len(systems) < 2:
        raise InvalidParameterError(f"systems: a comparison needs at least two systems, got {len(systems)}")
    lens = {name: len(h) for name, h in systems.items()}
    if len(set(lens.values())) > 1:
        detail = ", ".join(f"{n}: {k}" for n, k in lens.items())
        raise InvalidParameterError(f"systems: all systems need the same number of segments, got {detail}")
    first = next(iter(systems.values()))
    _, refs = normalize_corpus(first, refs)
    stats = {name: metric.stats(h, refs) for name, h in systems.items()}
    return compare_stats(metric, stats, test=test, **options)


__all__ = ["compare", "compare_stats", "paired_bootstrap", "approximate_randomization", "sign_test", "block_t_test",
           "adjust_pvalues", "confidence_interval", "bootstrap_scores", "canonical_test", "correction_factors",
           "difference_interval", "score_intervals", "DifferenceInterval", "PairedTestResult", "SignTestResult", "SignDirection", "BlockTTestResult", "ComparisonMatrix",
           "ConfidenceInterval", "TESTS", "CORRECTIONS", "BOOTSTRAP_METHODS", "DEFAULT_N", "DEFAULT_SEED", "Stats", "Draws",
           "MIN_SEGMENTS", "untested"]
