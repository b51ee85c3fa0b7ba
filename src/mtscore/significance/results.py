"""Frozen result objects of the significance tests. Formatting lives in ``mtscore.report``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


def _ro(a) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class ConfidenceInterval:
    """Bootstrap percentile interval of one system's score.

    ``low``/``high`` are the order statistics ``s[k]`` and ``s[n-k-1]`` of the sorted resample
    scores, ``k = floor(n * (1 - level) / 2)`` (``n // 40`` at 95%, as sacreBLEU and Moses).
    ``mean`` and ``half_width = (high - low) / 2`` give sacreBLEU's ``mean ± half_width`` form;
    ``score`` is the observed corpus score the interval belongs beside.
    """

    score: float
    low: float
    high: float
    level: float
    mean: float
    half_width: float
    n_resamples: int

    @property
    def interval(self) -> tuple[float, float]:
        return (self.low, self.high)

    def as_dict(self) -> dict:
        return {"score": self.score, "low": self.low, "high": self.high, "level": self.level,
                "mean": self.mean, "half_width": self.half_width, "n_resamples": self.n_resamples}


@dataclass(frozen=True)
class DifferenceInterval:
    """Confidence set of the difference ``score_b - score_a`` that inverts the paired test.

    It holds every shift ``d`` for which the same test of ``H0: score_b - score_a = d`` (system b's
    observed and resampled scores shifted by ``d``, same resamples, same statistic and tie rule) is
    not rejected at the per-comparison level the correction implies: ``alpha / factor`` with
    ``factor`` 1 (no correction), m (Bonferroni) or Holm's step-down factor (see
    docs/significance.md). ``0`` lies in the set exactly when the (adjusted) p-value is not below
    ``alpha``, so a significance mark and this interval never disagree.

    ``pieces`` is the set as disjoint ``(low, high)`` intervals (almost always one); ``low``/``high``
    bound their union. ``level = 1 - alpha / factor``; ``adjusted`` names the correction when
    ``factor > 1``, else ``None`` (an unadjusted interval).
    """

    delta: float
    low: float
    high: float
    level: float
    alpha: float
    factor: int
    adjusted: str | None
    pieces: tuple[tuple[float, float], ...]

    @property
    def interval(self) -> tuple[float, float]:
        return (self.low, self.high)

    def contains(self, x: float) -> bool:
        return any(lo <= x <= hi for lo, hi in self.pieces)

    def as_dict(self) -> dict:
        return {"delta": self.delta, "low": self.low, "high": self.high, "level": self.level, "alpha": self.alpha,
                "factor": self.factor, "adjusted": self.adjusted, "pieces": [list(p) for p in self.pieces]}


@dataclass(frozen=True, eq=False)
class PairedTestResult:
    """Paired bootstrap or approximate randomization of system ``b`` against baseline ``a``.

    ``p_value`` follows the chosen tie convention (see docs/significance.md); ``p_strict`` counts
    only pseudo-statistics strictly above the observed one (sacreBLEU/MultEval), ``p_inclusive``
    also counts equal ones. ``null_distribution`` holds the pseudo-statistics (bootstrap: the
    centred |Δ| of each resample, or for ``method="koehn"`` the better-minus-worse difference;
    AR: |Δ| of each shuffled trial).
    """

    test: str
    method: str
    metric: str
    system_a: str
    system_b: str
    score_a: float
    score_b: float
    p_value: float
    p_strict: float
    p_inclusive: float
    n_resamples: int
    seed: int | None
    signature: str
    null_distribution: np.ndarray = field(repr=False)
    ci_a: ConfidenceInterval | None = None
    ci_b: ConfidenceInterval | None = None
    higher_is_better: bool = True
    # bootstrap: score_b - score_a on every resample (the distribution the difference interval and
    # a histogram come from); None for approximate randomization
    resampled_deltas: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "null_distribution", _ro(self.null_distribution))
        if self.resampled_deltas is not None:
            object.__setattr__(self, "resampled_deltas", _ro(self.resampled_deltas))

    @property
    def delta(self) -> float:
        """score_b - score_a."""
        return self.score_b - self.score_a

    @property
    def share_positive(self) -> float | None:
        """Share of bootstrap resamples with score_b > score_a (None without resampled deltas)."""
        if self.resampled_deltas is None:
            return None
        return float(np.count_nonzero(self.resampled_deltas > 0)) / len(self.resampled_deltas)

    @property
    def better(self) -> str | None:
        if self.score_a == self.score_b:
            return None
        b_wins = (self.score_b > self.score_a) == self.higher_is_better
        return self.system_b if b_wins else self.system_a

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha

    def as_dict(self) -> dict:
        return {"test": self.test, "method": self.method, "metric": self.metric, "system_a": self.system_a,
                "system_b": self.system_b, "score_a": self.score_a, "score_b": self.score_b, "delta": self.delta,
                "p_value": self.p_value, "p_strict": self.p_strict, "p_inclusive": self.p_inclusive,
                "n_resamples": self.n_resamples, "seed": self.seed, "signature": self.signature,
                "ci_a": self.ci_a.as_dict() if self.ci_a else None,
                "ci_b": self.ci_b.as_dict() if self.ci_b else None}


@dataclass(frozen=True)
class SignDirection:
    """One direction of the sign test: ``candidate``'s segments swapped into ``baseline``."""

    baseline: str
    candidate: str
    n_plus: int  # swaps that improve the baseline (candidate's segment better)
    n_minus: int  # swaps that make it worse
    n_ties: int
    p_value: float

    @property
    def winner(self) -> str | None:
        if self.n_plus > self.n_minus:
            return self.candidate
        if self.n_minus > self.n_plus:
            return self.baseline
        return None

    def as_dict(self) -> dict:
        return {"baseline": self.baseline, "candidate": self.candidate, "n_plus": self.n_plus,
                "n_minus": self.n_minus, "n_ties": self.n_ties, "p_value": self.p_value, "winner": self.winner}


@dataclass(frozen=True)
class SignTestResult:
    """Sign test in both directions. ``forward``: baseline a, candidate b; ``backward``: the reverse.

    ``method`` is ``"segment"`` (decomposable metric: per-segment scores) or ``"composite"``
    (Collins et al.: swap one segment's statistics into the baseline's summed statistics).
    ``contradictory``: the two directions name different winners and both are significant at
    ``alpha`` (Chiang et al. 2008 §3.1); ``directions_disagree``: different winners at all.
    """

    metric: str
    method: str
    system_a: str
    system_b: str
    score_a: float
    score_b: float
    forward: SignDirection
    backward: SignDirection
    alpha: float
    signature: str
    higher_is_better: bool = True

    @property
    def p_value(self) -> float:
        """p of the forward direction (a as the baseline, the usual procedure)."""
        return self.forward.p_value

    @property
    def directions_disagree(self) -> bool:
        return self.forward.winner != self.backward.winner

    @property
    def contradictory(self) -> bool:
        return (self.directions_disagree and self.forward.winner is not None and self.backward.winner is not None
                and self.forward.p_value < self.alpha and self.backward.p_value < self.alpha)

    def significant(self, alpha: float | None = None) -> bool:
        return self.p_value < (self.alpha if alpha is None else alpha)

    def as_dict(self) -> dict:
        return {"test": "sign", "method": self.method, "metric": self.metric, "system_a": self.system_a,
                "system_b": self.system_b, "score_a": self.score_a, "score_b": self.score_b,
                "p_value": self.p_value, "forward": self.forward.as_dict(), "backward": self.backward.as_dict(),
                "directions_disagree": self.directions_disagree, "contradictory": self.contradictory,
                "alpha": self.alpha, "signature": self.signature}


@dataclass(frozen=True, eq=False)
class BlockTTestResult:
    """Papineni et al. (2002) §3: corpus scores on consecutive blocks, paired t-test on b - a."""

    metric: str
    system_a: str
    system_b: str
    score_a: float
    score_b: float
    blocks: int
    block_size: int
    block_scores_a: np.ndarray = field(repr=False)
    block_scores_b: np.ndarray = field(repr=False)
    t: float
    df: int
    p_value: float
    signature: str

    def __post_init__(self):
        object.__setattr__(self, "block_scores_a", _ro(self.block_scores_a))
        object.__setattr__(self, "block_scores_b", _ro(self.block_scores_b))

    @property
    def mean_difference(self) -> float:
        return float(np.mean(self.block_scores_b - self.block_scores_a))

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha

    def as_dict(self) -> dict:
        return {"test": "block-t", "metric": self.metric, "system_a": self.system_a, "system_b": self.system_b,
                "score_a": self.score_a, "score_b": self.score_b, "blocks": self.blocks,
                "block_size": self.block_size, "t": self.t, "df": self.df, "p_value": self.p_value,
                "mean_difference": self.mean_difference, "signature": self.signature}


@dataclass(frozen=True, eq=False)
class ComparisonMatrix:
    """Several systems: baseline-vs-all or all pairs, with multiple-comparison correction.

    ``p[i, j]`` / ``p_adjusted[i, j]`` hold the p-value of the comparison of systems i and j (both
    triangles filled; NaN where no comparison was made and on the diagonal). ``results`` lists the
    pairwise results in comparison order (pair = (system_a = baseline/first, system_b)).
    """

    metric: str
    test: str
    systems: tuple[str, ...]
    scores: tuple[float, ...]
    mode: str  # "baseline" | "all-pairs"
    baseline: str | None
    correction: str
    p: np.ndarray = field(repr=False)
    p_adjusted: np.ndarray = field(repr=False)
    results: tuple[Any, ...] = field(repr=False)
    signature: str = ""
    alpha: float = 0.05
    cis: tuple[ConfidenceInterval | None, ...] = ()
    # per comparison (order of ``results``): the interval of score_b - score_a that inverts the test
    # (bootstrap), adjusted by the correction; None for tests without one (ar, sign, block-t)
    delta_cis: tuple[DifferenceInterval | None, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "p", _ro(self.p))
        object.__setattr__(self, "p_adjusted", _ro(self.p_adjusted))

    def pair(self, a: str, b: str):
        for r in self.results:
            if (r.system_a, r.system_b) in ((a, b), (b, a)):
                return r
        raise KeyError((a, b))

    def adjusted(self, a: str, b: str) -> float:
        return float(self.p_adjusted[self.systems.index(a), self.systems.index(b)])

    def as_dict(self) -> dict:
        def m(x):
            return [[None if np.isnan(v) else float(v) for v in row] for row in x]
        return {"metric": self.metric, "test": self.test, "systems": list(self.systems),
                "scores": list(self.scores), "mode": self.mode, "baseline": self.baseline,
                "correction": self.correction, "alpha": self.alpha, "p": m(self.p), "p_adjusted": m(self.p_adjusted),
                "signature": self.signature, "comparisons": [r.as_dict() for r in self.results],
                "ci": [c.as_dict() if c else None for c in self.cis],
                "delta_ci": [c.as_dict() if c else None for c in self.delta_cis]}

    def significant(self, a: str, b: str) -> bool:
        """The adjusted p-value of the comparison of a and b is below ``alpha`` (compare's mark)."""
        return bool(self.adjusted(a, b) < self.alpha)

    def delta_ci(self, a: str, b: str) -> DifferenceInterval | None:
        for r, c in zip(self.results, self.delta_cis or (None,) * len(self.results)):
            if (r.system_a, r.system_b) == (a, b):
                return c
        raise KeyError((a, b))
