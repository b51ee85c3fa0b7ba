"""Several optimizer runs per system (Clark, Dyer, Lavie & Smith 2011, "Better hypothesis testing for
statistical machine translation: controlling for optimizer instability"; their tool MultEval).

For each system with R runs (R hypothesis files of the same test set):

* ``mean``: the mean over runs of the run scores (each run scored as a corpus);
* ``s_opt``: the sample standard deviation (n - 1) of the run scores -- optimizer instability
  (MultEval's ``s_opt``/``s_dev``, its STDDEV line);
* ``s_sel``: for each run, the standard deviation (n - 1) of the scores of bootstrap resamples of the test
  set, averaged over runs -- test-set selection (MultEval's ``s_sel``, RESAMPLED_STDDEV_AVG); the resamples
  come from the one bootstrap engine (:func:`mtscore.significance.core.bootstrap_scores`; a system's runs
  share the resampled segment indices);
* ``p`` vs the baseline: MultEval's stratified approximate randomization. The statistic is
  ``|score(sum of all runs of A) - score(sum of all runs of B)|`` (every run's segments pooled into one
  corpus). One shuffle (a) swaps each (run, segment) row between the systems with probability 1/2 and
  (b) permutes, within each segment, the rows of the R runs uniformly; pseudo-system X takes at row
  ``(r, i)`` the row ``(pi_i(r), i)`` of the system chosen by the swap bit, pseudo-system Y takes the row
  ``(pi_i^-1(r), i)`` of the other system -- exactly MultEval's sampling (with R >= 3 runs X and Y are
  then not complements of each other; with R = 1 this is the ordinary paired AR). ``p = (c + 1) / (n + 1)``,
  ``c`` = shuffles whose statistic is strictly larger than the observed one (differences within 1e-12
  relative count as equal, so float summation order cannot create spurious counts).

Checked against MultEval's own output on its example data: tests/known_answers/multeval/.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..errors import InvalidParameterError, plural
from ..params import DEFAULT_SEED, SIGNIFICANCE, check
from ..metrics.base import Metric, Stats
from ..progress import progress
from ._resample import Draws

DEFAULT_SHUFFLES = 10000
DEFAULT_BOOT = 10000


@dataclass(frozen=True)
class RunsResult:
    """One system's runs: scores, mean, s_sel, s_opt, and the p-value against the baseline (None for it)."""

    system: str
    run_scores: tuple[float, ...]
    mean: float
    s_sel: float
    s_opt: float  # nan with one run
    p_value: float | None
    n_shuffles: int
    n_boot: int
    seed: int | None

    def as_dict(self) -> dict:
        return {"system": self.system, "runs": list(self.run_scores), "mean": self.mean, "s_sel": self.s_sel,
                "s_opt": self.s_opt, "p": self.p_value}


@dataclass(frozen=True)
class RunsScore:
    """One system's runs as ``score --runs`` shows them: the run scores (each run scored as a corpus), their
    mean and sample standard deviation (n - 1; None with one run), and the metric's signature."""

    system: str
    run_scores: tuple[float, ...]
    mean: float
    sd: float | None
    signature: str

    def as_dict(self) -> dict:
        return {"system": self.system, "runs": list(self.run_scores), "mean": self.mean, "sd": self.sd}


def summarize_runs(results: Mapping[str, Sequence]) -> list[RunsScore]:
    """``{system: [MetricResult of each run]}`` -> one :class:`RunsScore` per system (same order)."""
    out = []
    for name, runs in results.items():
        if not runs:
            raise InvalidParameterError(f"runs: system {name!r} has no runs")
        sc = np.array([r.score for r in runs], dtype=np.float64)
        out.append(RunsScore(name, tuple(float(x) for x in sc), float(sc.mean()),
                             float(sc.std(ddof=1)) if len(sc) > 1 else None, runs[0].signature))
    return out


def _check_runs(metric: Metric, systems: Mapping[str, Sequence[Stats]]):
    if not isinstance(metric, Metric):
        raise InvalidParameterError(f"metric: expected a Metric object, got {type(metric).__name__}")
    names = list(systems)
    if not names:
        raise InvalidParameterError("systems: no systems")
    counts = {len(systems[n]) for n in names}
    if len(counts) != 1 or 0 in counts:
        detail = ", ".join(f"{n}: {len(systems[n])}" for n in names)
        raise InvalidParameterError(f"runs: every system needs the same number (>= 1) of runs, got {detail}")
    lens = {len(st) for n in names for st in systems[n]}
    if len(lens) != 1:
        raise InvalidParameterError(f"runs: every run must have the same number of segments, got {sorted(lens)}")
    for n in names:
        for st in systems[n]:
            metric._check_stats(st)
    return names, counts.pop()


def run_scores(metric: Metric, runs: Sequence[Stats]) -> np.ndarray:
    return np.asarray(metric.score(np.stack([st.sum() for st in runs])), dtype=np.float64)


def s_opt(scores: np.ndarray) -> float:
    return float(np.std(scores, ddof=1)) if len(scores) > 1 else float("nan")


def s_sel(metric: Metric, runs: Sequence[Stats], n: int = DEFAULT_BOOT, seed=None) -> float:
    from .core import bootstrap_scores
    samples = bootstrap_scores(metric, [st.values for st in runs], n, seed)  # [R, n]
    return float(np.mean(np.std(samples, axis=1, ddof=1)))


def stratified_ar(metric: Metric, runs_a: Sequence[Stats], runs_b: Sequence[Stats], n: int = DEFAULT_SHUFFLES,
                  seed=None, batch: int | None = None) -> tuple[float, float]:
    """MultEval's stratified approximate randomization: (p, observed |difference|)."""
    if len(runs_a) != len(runs_b):
        raise InvalidParameterError(f"runs: {plural(len(runs_a), 'run')} against {len(runs_b)} (need the same number)")
    A = np.stack([st.values for st in runs_a])  # [R, N, C]
    B = np.stack([st.values for st in runs_b])
    if A.shape != B.shape:
        raise InvalidParameterError(f"runs: statistics of different shapes {A.shape} and {B.shape}")
    R, N, C = A.shape
    sum_a = A.sum(axis=(0, 1))
    obs = float(abs(metric.score(sum_a) - metric.score(B.sum(axis=(0, 1)))))
    tol = 1e-12 * max(1.0, abs(obs))
    # X = sum over rows (r, i) of (B if swap[r, i] else A)[pi_i(r), i] = sum(A) + sum_r' swap[pi_i^-1(r'), i] * (B - A)[r', i]
    # Y = sum over rows of (A if swap[r, i] else B)[pi_i^-1(r), i] = sum(A) + sum_r' (1 - swap[pi_i(r'), i]) * (B - A)[r', i]
    delta = (B - A).reshape(R * N, C)
    draws = Draws(seed)
    if batch is None:
        batch = max(1, min(n, (2 ** 22) // max(1, R * N)))
    table = inverse = None
    if R <= 6:
        from itertools import permutations
        table = np.array(list(permutations(range(R))), dtype=np.intp)  # [R!, R]
        inverse = np.argsort(table, axis=1)
    count = 0
    done = 0
    with progress("stratified randomization", total=n, unit="shuffles") as bar:
        while done < n:
            t = min(batch, n - done)
            swap, k = draws.stratified_shuffles(t, R, N, None if table is None else len(table))
            if table is not None:  # a uniform permutation of the R runs per segment, from the table of all R!
                perm = table[k].transpose(0, 2, 1)  # [t, R, N]: pi_i(r)
                inv = inverse[k].transpose(0, 2, 1)  # pi_i^-1(r)
            else:
                perm = k.transpose(0, 2, 1)
                inv = np.argsort(perm, axis=1)
            wx = np.take_along_axis(swap, inv, axis=1).reshape(t, R * N)
            wy = 1.0 - np.take_along_axis(swap, perm, axis=1).reshape(t, R * N)
            X = sum_a + wx @ delta
            Y = sum_a + wy @ delta
            d = np.abs(np.asarray(metric.score(X), dtype=np.float64) - np.asarray(metric.score(Y), dtype=np.float64))
            count += int(np.count_nonzero(d - obs > tol))
            done += t
            bar.update(t)
    return (count + 1) / (n + 1), obs


def compare_runs(metric: Metric, systems: Mapping[str, Sequence[Stats]], baseline: str | None = None,
                 n_shuffles: int = DEFAULT_SHUFFLES, n_boot: int = DEFAULT_BOOT, seed=DEFAULT_SEED) -> list[RunsResult]:
    """Every system's runs summarized, and each compared with ``baseline`` (default: the first system)."""
    names, _ = _check_runs(metric, systems)
    n_shuffles = int(check(SIGNIFICANCE, "n", n_shuffles, "n_shuffles"))  # the parameter table's rule for n
    n_boot = int(check(SIGNIFICANCE, "n", n_boot, "n_boot"))
    seed = check(SIGNIFICANCE, "seed", seed)
    base = names[0] if baseline is None else baseline
    if base not in systems:
        raise InvalidParameterError.choice("baseline", base, names)
    out = []
    for k, name in enumerate(names):
        sc = run_scores(metric, systems[name])
        ssel = s_sel(metric, systems[name], n_boot, None if seed is None else [seed, 1, k])
        p = None
        if name != base:
            p, _ = stratified_ar(metric, systems[base], systems[name], n_shuffles,
                                 None if seed is None else [seed, 2, k])
        out.append(RunsResult(name, tuple(float(x) for x in sc), float(sc.mean()), ssel, s_opt(sc), p,
                              int(n_shuffles), int(n_boot), seed))
    return out
