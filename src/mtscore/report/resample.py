"""The small paired-bootstrap resampler the report uses (stand-in for ``mtscore.significance``).

One resample is a vector of segment indices drawn with replacement; it is shared by every system
(paired), and each system's score on it is ``metric.score(counts @ stats)`` — statistics are never
recomputed. Indices are drawn as ``rng.integers(0, N, size=(batch, N))`` from
``numpy.random.default_rng(seed)``, batch after batch: the same stream as sacreBLEU's
``rng.choice(N, size=(B, N), replace=True)``, so with the same seed the resamples are sacreBLEU's
(SPEC §8.1). Memory stays O(batch × N).

The p-value and CI conventions are sacreBLEU's paired bootstrap (SPEC §8.1 DECISION):
``p = (c + 1) / (B + 1)`` with ``c = #{ |d_b| - mean|d| >= |d| }`` (sacreBLEU counts strictly ``>``;
ties, e.g. identical systems, count here against significance), and the percentile CI
``sorted[lo], sorted[B - lo - 1]`` with ``lo = floor(B * (1 - level) / 2)`` (``B // 40`` at 95%).
When ``mtscore.significance`` lands, :func:`paired_bootstrap` is the one function to swap.
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InvalidParameterError
from ..progress import progress


def _check(n_resamples: int, level: float) -> None:
    if not isinstance(n_resamples, (int, np.integer)) or isinstance(n_resamples, bool) or n_resamples < 1:
        raise InvalidParameterError(f"n_resamples: must be an integer >= 1, got {n_resamples!r}")
    if not 0 < level < 1:
        raise InvalidParameterError(f"ci_level: must be in (0, 1), got {level!r}")


def _blas_one_thread():
    """The products here are thin ([batch, N] @ [N, C], C ~ 10): a multi-threaded BLAS only adds
    overhead (40x slower measured on a loaded 2-core machine). Limit it with threadpoolctl when that
    is installed (it comes with scikit-learn); otherwise leave BLAS as it is."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        return nullcontext()
    return threadpool_limits(1, user_api="blas")


def resample_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """[b, n] multiplicities of the segment indices ``idx`` [b, n] (each row sums to n)."""
    b = idx.shape[0]
    flat = (idx + (np.arange(b, dtype=np.int64) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)


def bootstrap_scores(metric, stats: Sequence[np.ndarray], n_resamples: int = 1000, seed=12345,
                     batch_size: int = 100, subset: np.ndarray | None = None) -> np.ndarray:
    """Scores ``[B, S]`` of every system on ``n_resamples`` paired bootstrap resamples.

    ``stats``: per-system statistics ``[N, C]`` (arrays or :class:`Stats`) of the same segments.
    ``subset``: resample only these segment indices (a subset bootstrap, e.g. one domain).
    """
    _check(n_resamples, 0.95)
    vals = [np.asarray(getattr(s, "values", s), dtype=np.float64) for s in stats]
    if not vals:
        raise InvalidParameterError("stats: at least one system is needed")
    n_all = vals[0].shape[0]
    if any(v.shape[0] != n_all for v in vals):
        raise InvalidParameterError(f"stats: systems have different segment counts {[v.shape[0] for v in vals]}")
    if subset is not None:
        subset = np.asarray(subset, dtype=np.int64)
        vals = [v[subset] for v in vals]
    n = vals[0].shape[0]
    if n == 0:
        raise InvalidParameterError("stats: no segments to resample")
    rng = np.random.default_rng(seed)
    out = np.empty((n_resamples, len(vals)))
    with progress("bootstrap", total=n_resamples, unit="resamples") as bar, _blas_one_thread():
        for start in range(0, n_resamples, batch_size):
            b = min(batch_size, n_resamples - start)
            w = resample_counts(rng.integers(0, n, size=(b, n)), n)
            for s, v in enumerate(vals):
                out[start:start + b, s] = metric.score(w @ v)
            bar.update(b)
    return out


def percentile_ci(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """sacreBLEU-style percentile interval of bootstrap samples (``B // 40`` rule at 95%)."""
    s = np.sort(np.asarray(samples, dtype=np.float64))
    s = s[~np.isnan(s)]
    if not len(s):
        return (float("nan"), float("nan"))
    lo = int(len(s) * (1 - level) / 2 + 1e-9)
    return (float(s[lo]), float(s[len(s) - lo - 1]))


def bootstrap_p_value(diff_samples: np.ndarray, real_diff: float) -> float:
    """sacreBLEU's paired-bootstrap p-value of a difference (two-sided, add-one), with one change to
    its tie rule: a resample whose centred statistic *equals* the observed one counts against
    significance (``>=``, up to 1e-12 relative round-off), so two identical systems get p = 1 instead of
    sacreBLEU's 1/(B+1) (DESIGN: identical systems are never significantly different). Without ties
    the value is sacreBLEU's."""
    d = np.abs(np.asarray(diff_samples, dtype=np.float64))
    stat = d - d.mean()
    real = abs(real_diff)
    tol = 1e-12 * max(1.0, real, float(d.max()) if len(d) else 0.0)
    c = int(np.sum(stat > real - tol))
    return (c + 1) / (len(d) + 1)


@dataclass(frozen=True)
class PairedBootstrap:
    """Result of :func:`paired_bootstrap` for one metric: systems, scores, CIs, differences vs baseline."""

    systems: tuple[str, ...]
    scores: np.ndarray  # [S] scores on the full test set
    samples: np.ndarray  # [B, S] scores on each resample
    ci: tuple[tuple[float, float], ...]  # per system
    diff_samples: np.ndarray  # [B, S] samples[:, s] - samples[:, baseline]
    diff_ci: tuple[tuple[float, float], ...]
    p_values: tuple[float | None, ...]  # vs the baseline (None for the baseline itself)
    baseline: int
    n_resamples: int
    seed: object
    level: float

    @property
    def sample_means(self) -> np.ndarray:
        return self.samples.mean(axis=0)

    def signature(self) -> str:
        return f"test:bs|n:{self.n_resamples}|seed:{self.seed}|ci:{self.level:g}|baseline:{self.systems[self.baseline]}"


def paired_bootstrap(metric, systems: Sequence[str], stats: Sequence, n_resamples: int = 1000, seed=12345,
                     level: float = 0.95, baseline: int = 0, subset: np.ndarray | None = None,
                     batch_size: int = 100) -> PairedBootstrap:
    """Scores, percentile CIs and paired-bootstrap p-values vs ``systems[baseline]`` for one metric."""
    _check(n_resamples, level)
    if not 0 <= baseline < len(systems):
        raise InvalidParameterError(f"baseline: must index one of the {len(systems)} systems, got {baseline}")
    vals = [np.asarray(getattr(s, "values", s), dtype=np.float64) for s in stats]
    if subset is not None:
        sub = np.asarray(subset, dtype=np.int64)
        full = np.array([float(metric.score(v[sub].sum(0))) for v in vals])
    else:
        full = np.array([float(metric.score(v.sum(0))) for v in vals])
    samples = bootstrap_scores(metric, vals, n_resamples, seed, batch_size, subset)
    diffs = samples - samples[:, [baseline]]
    cis = tuple(percentile_ci(samples[:, s], level) for s in range(len(vals)))
    dcis = tuple(percentile_ci(diffs[:, s], level) for s in range(len(vals)))
    pv = tuple(None if s == baseline else bootstrap_p_value(diffs[:, s], full[s] - full[baseline])
               for s in range(len(vals)))
    return PairedBootstrap(tuple(systems), full, samples, cis, diffs, dcis, pv, baseline, n_resamples, seed, level)


def significance_mark(p: float | None) -> str:
    """``**`` for p < 0.01, ``*`` for p < 0.05, else empty (the papers' 99% / 95% marks)."""
    if p is None:
        return ""
    return "**" if p < 0.01 else "*" if p < 0.05 else ""
