"""sacreBLEU 2.6's bootstrap confidence intervals and paired tests (``PairedTest``), on mtscore's
resampling streams.

The resample indices and randomization masks come from :mod:`mtscore.significance._resample`
(``bootstrap_weights(..., "sacrebleu")`` continues numpy's stream exactly like sacreBLEU's
``rng.choice(N, size=(n, N))``; ``ar_masks`` is bit for bit its ``rng.integers(2, size=(n, N),
dtype=bool)``), so for the same seed the resamples are sacreBLEU's. Resampled statistics are summed
exactly (integer counts) and scored with the metric's own sacreBLEU arithmetic -- in float32 for the
bootstrap, as sacreBLEU casts its statistics to float32 there -- so p-values, means and intervals are
sacreBLEU's to the last bit.
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..errors import InvalidParameterError
from ..significance import _resample as rs
from .metrics import Metric, Score, Signature, sacrelogger, seed_from_env


class Result:
    """Score of one system in a paired test; ``p_value`` against the baseline, ``mean``/``ci`` from
    the bootstrap (sacreBLEU's ``significance.Result``)."""

    def __init__(self, score: float, p_value: Optional[float] = None, mean: Optional[float] = None,
                 ci: Optional[float] = None):
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.__dict__.items())


def estimate_ci(scores: np.ndarray) -> Tuple[float, float]:
    """(mean, half-width of the 95% interval) of resampled scores, order statistics ``n // 40``."""
    scores = np.sort(scores)
    n = len(scores)
    lo = n // 40
    return scores.mean(), 0.5 * (scores[n - lo - 1] - scores[lo])


def _resampled_sums(values: np.ndarray, n: int, seed: Optional[int]) -> np.ndarray:
    """Summed statistics of ``n`` bootstrap resamples (sacreBLEU's indices for ``seed``), float32."""
    return rs.sacrebleu_bootstrap_sums(values, n, seed)


def bootstrap_resample(values: np.ndarray, metric: Metric, n_samples: int = 1000) -> Tuple[str, List[Score]]:
    """(seed string, scores of ``n_samples`` bootstrap resamples) -- sacreBLEU's ``_bootstrap_resample``."""
    seed, seed_str = seed_from_env()
    sums = _resampled_sums(np.asarray(values, dtype=np.float64), n_samples, seed)
    return seed_str, [metric._compute_score_from_stats(row) for row in sums]


def _compute_p_value(stats: np.ndarray, real_difference: float) -> float:
    """sacreBLEU's p-value of a randomization test: ``(c + 1) / (n + 1)`` where ``c`` of the ``n`` sampled
    statistics exceed ``real_difference`` strictly (the +1 keeps the false-rejection rate at the level)."""
    stats = np.asarray(stats)
    return (np.sum(stats > real_difference).item() + 1) / (len(stats) + 1)


def _exact(values: np.ndarray) -> np.ndarray:
    """The statistics as sacreBLEU's ``np.array(stats)`` holds them: int64 when all are integers."""
    return values.astype(np.int64) if np.all(np.mod(values, 1.0) == 0.0) else values


def _resampled_scores(values, metric: Metric, n: int, seed) -> np.ndarray:
    return metric._scores_of_rows(_resampled_sums(values, n, seed))


def _resampled_sums_all(values: List[np.ndarray], n: int, seed) -> Optional[List[np.ndarray]]:
    """``[_resampled_sums(v, n, seed) for v in values]`` as one product of the resample counts with the systems'
    statistics side by side, where that product is exact (whole numbers, every partial sum below 2**24: then the
    float32 sums are the same numbers whatever the grouping); ``None`` otherwise (the caller resamples system by
    system, in sacreBLEU's order of additions)."""
    if len(values) < 2:
        return None
    stacked = np.hstack([np.asarray(v, dtype=np.float64) for v in values])
    if rs.exact_dtype(stacked, float(stacked.shape[0])) is not np.float32:
        return None
    sums = _resampled_sums(stacked, n, seed)
    c = values[0].shape[1]
    return [sums[:, k * c:(k + 1) * c] for k in range(len(values))]


def _paired_bs(bl_values, bl_result: Result, sys_values, metric: Metric, n: int, seed,
               scores_bl: Optional[np.ndarray] = None, sums_sys: Optional[np.ndarray] = None) -> Result:
    """``scores_bl``: the baseline's resampled scores when already computed for this seed (a seeded test
    resamples every system with the same indices, so the baseline's scores are the same for every system);
    ``sums_sys``: the system's resampled sums when already computed (:func:`_resampled_sums_all`)."""
    if scores_bl is None:
        scores_bl = _resampled_scores(bl_values, metric, n, seed)
    if sums_sys is None:
        sums_sys = _resampled_sums(sys_values, n, seed)
    sys_score = metric._corpus_from_values(sys_values)
    diff = abs(bl_result.score - sys_score.score)
    scores_sys = metric._scores_of_rows(sums_sys)
    mean, ci = estimate_ci(scores_sys)
    d = np.abs(scores_sys - scores_bl)
    stats = d - d.mean()
    p = (np.sum(stats > diff).item() + 1) / (len(stats) + 1)
    return Result(sys_score.score, p, mean, ci)


def _paired_ar(bl_values, bl_result: Result, sys_values, metric: Metric, n: int, seed,
               n_confidence: int = -1) -> Result:
    N = bl_values.shape[0]
    bl, sy = _exact(bl_values), _exact(sys_values)
    sys_score = metric._corpus_from_values(sys_values)
    diff = abs(bl_result.score - sys_score.score)
    scores_a, scores_b, boot = [], [], []
    sys32 = np.asarray(sys_values, dtype=np.float32)
    # whole-number statistics: the swapped sums are integers, w @ bl + ~w @ sy = sum(sy) + w @ (bl - sy) and
    # ~w @ bl + w @ sy = sum(bl) - w @ (bl - sy), one product in floating point that is exact (every partial
    # sum a whole number below 2**24 in float32, below 2**53 in float64): the same integers as sacreBLEU's four
    # boolean-integer products
    diff_cast = None
    if bl.dtype == np.int64 and sy.dtype == np.int64:
        d = bl - sy
        if float(np.abs(d).sum(axis=0).max(initial=0)) < 2.0 ** 53:
            diff_cast = d.astype(rs.exact_dtype(d, None))
            sum_bl, sum_sy = bl.sum(axis=0), sy.sum(axis=0)
    for kind, w in rs.paired_ar_draws(N, n, seed, max(n_confidence, 0), "sacrebleu"):
        if kind == "swap":
            if diff_cast is not None:
                p = np.rint(w.astype(diff_cast.dtype) @ diff_cast).astype(np.int64)
                shuf_a, shuf_b = sum_sy + p, sum_bl - p
            else:
                neg = ~w
                shuf_a = w @ bl + neg @ sy
                shuf_b = neg @ bl + w @ sy
            scores_a.extend(metric._row_scores(shuf_a))
            scores_b.extend(metric._row_scores(shuf_b))
        else:  # sacreBLEU's bootstrap interval of the system in AR mode: float32 sums of its resamples
            boot.extend(metric._compute_score_from_stats(row).score for row in rs.ordered_sums(sys32, w))
    stats = np.abs(np.array(scores_a) - np.array(scores_b))
    res = Result(sys_score.score, _compute_p_value(stats, diff))
    if n_confidence > 0:
        res.mean, res.ci = estimate_ci(np.array(boot))
    return res


class PairedTest:
    """sacreBLEU's ``PairedTest(named_systems, metrics, references, test_type, n_samples, n_ar_confidence,
    n_jobs)``: every system against the first (the baseline); ``test_type`` ``'bs'`` or ``'ar'``.

    Returns ``(signatures, scores)`` when called: ``scores['System']`` the names, ``scores[metric name]``
    a :class:`Result` per system. ``n_ar_confidence`` > 0 adds bootstrap means and 95% intervals to the AR
    test (0: 1000 resamples; -1: none), drawn as sacreBLEU draws them (the baseline's from ``SACREBLEU_SEED``,
    each system's continuing the stream of its randomization masks) and noted as ``bs:N`` in the signature.
    ``n_jobs`` is accepted and has no effect on the results (sacreBLEU's neither: its workers compute the
    same numbers); one process is used.
    """

    _DEFAULT_SAMPLES = {"ar": 10000, "bs": 1000}

    def __init__(self, named_systems: List[Tuple[str, Sequence[str]]], metrics: Mapping[str, Metric],
                 references: Optional[Sequence[Sequence[str]]], test_type: str = "ar", n_samples: int = 0,
                 n_ar_confidence: int = -1, n_jobs: int = 1):
        if test_type not in ("ar", "bs"):
            raise InvalidParameterError.choice("test_type", test_type, ("ar", "bs"))
        from ..params import SACREBLEU_API
        n_samples, n_ar_confidence, n_jobs = (SACREBLEU_API[k].check(v, k) for k, v in (
            ("n_samples", n_samples), ("n_ar_confidence", n_ar_confidence), ("n_jobs", n_jobs)))
        if len(named_systems) < 2:
            raise InvalidParameterError(f"named_systems: a paired test needs at least two systems, got {len(named_systems)}")
        self.test_type = test_type
        self._seed, _ = seed_from_env()
        seed_str = str(self._seed).lower()  # sacreBLEU's PairedTest: the parsed seed ("0012" -> "12"), or "none"
        self.n_samples = n_samples if n_samples > 0 else self._DEFAULT_SAMPLES[test_type]
        self.n_ar_confidence = n_ar_confidence if n_ar_confidence != 0 else self._DEFAULT_SAMPLES["bs"]
        self.n_jobs = n_jobs
        self.references = references
        self.named_systems = list(named_systems)
        self.n_systems = len(self.named_systems) - 1
        self._signatures: Dict[str, Signature] = {}
        self._baseline_info: Dict[str, tuple] = {}
        self._bl_scores: Dict[str, np.ndarray] = {}
        self.metrics: Dict[str, Metric] = {}
        bl_name, bl_hyps = self.named_systems[0]
        self._together: Dict[str, Optional[list]] = {}  # metric name -> the other systems' statistics, or None
        for name, metric in metrics.items():
            sacrelogger.info(f"Pre-computing {name} statistics for {bl_name!r}")
            # every system's statistics at once where the metric can (chrF: the references counted once)
            together = metric._stats_arrays([hyps for _, hyps in self.named_systems], references)
            if together is not None:
                metric._segments(bl_hyps, references)  # (num_refs, as _stats_array sets it)
                metric._warn_tokenized(bl_hyps)
                values = together[0]
            else:
                values = metric._stats_array(bl_hyps, references)
            bl_score = metric._corpus_from_values(values)
            mean = ci = None
            confidence_n = self.n_samples if test_type == "bs" else self.n_ar_confidence
            if confidence_n > 0:
                seed_bs, _ = seed_from_env()
                scores = _resampled_scores(values, metric, confidence_n, seed_bs)
                mean, ci = estimate_ci(scores)
                if test_type == "bs" and seed_bs and seed_bs == self._seed:  # the same resamples as the test's
                    self._bl_scores[bl_score.name] = scores
            self._baseline_info[bl_score.name] = (values, Result(bl_score.score, mean=mean, ci=ci))
            self._together[bl_score.name] = None if together is None else together[1:]
            self.metrics[bl_score.name] = metric
            sig = metric.get_signature()
            sig.update("seed", seed_str)
            sig.update(test_type, self.n_samples)
            if self.n_ar_confidence > 0:  # sacreBLEU notes it whatever the test (in 'bs' mode it replaces n)
                sig.update("bs", self.n_ar_confidence)
            self._signatures[bl_score.name] = sig

    def __call__(self) -> Tuple[Dict[str, Signature], Dict[str, List]]:
        scores: Dict[str, List] = {"System": [name for name, _ in self.named_systems]}
        for mname, (_, result) in self._baseline_info.items():
            scores[mname] = [result]
        seed = self._seed if self._seed else None  # sacreBLEU: seed 0 means unseeded here
        bl_scores = dict(self._bl_scores)  # seeded bootstrap: the baseline's resampled scores, once
        together = self._together  # (computed with the baseline's; same numbers as system by system)
        values_of: Dict[Tuple[int, str], np.ndarray] = {}
        for k, (name, hyps) in enumerate(self.named_systems[1:]):
            for mname, metric in self.metrics.items():
                sacrelogger.info(f"Computing {mname} for {name!r} and extracting sufficient statistics")
                if together[mname] is not None:
                    metric._segments(hyps, self.references)  # (sets num_refs as the path below does)
                    metric._warn_tokenized(hyps)
                    values_of[k, mname] = together[mname][k]
                else:
                    values_of[k, mname] = metric._stats_array(hyps, self.references)
        # then the tests (nothing is shown before the end: the order of the work is not seen)
        for mname, metric in self.metrics.items():
            bl_values, bl_result = self._baseline_info[mname]
            values = [values_of[k, mname] for k in range(self.n_systems)]
            if self.test_type == "bs":
                sums = None
                if seed is not None:  # every system resampled with the same indices: one product for all
                    if mname not in bl_scores:
                        bl_scores[mname] = _resampled_scores(bl_values, metric, self.n_samples, seed)
                    sums = _resampled_sums_all(values, self.n_samples, seed)
                for k, v in enumerate(values):
                    scores[mname].append(_paired_bs(bl_values, bl_result, v, metric, self.n_samples, seed,
                                                    bl_scores.get(mname), None if sums is None else sums[k]))
            else:
                for v in values:
                    scores[mname].append(_paired_ar(bl_values, bl_result, v, metric, self.n_samples, seed,
                                                    self.n_ar_confidence))
        return self._signatures, scores
