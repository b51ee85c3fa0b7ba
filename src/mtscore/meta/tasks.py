"""WMT metrics-task rankings on an mt-metrics-eval directory (``tasks.WMT23`` / ``tasks.WMT24OnWMT23``).

A task = (language pair, level, statistic, grouping, significance test). Each task ranks the metrics into
significance clusters (:mod:`mtscore.meta.ranking`); the task set's global ranking is the weighted average rank and
the weighted average of the values mapped to [0, 1], as mt-metrics-eval reports them.

* ``wmt24`` (WMT24 protocol): per language pair, system-level soft pairwise accuracy (``spa``, PERM-BOTH test on
  segment scores) and segment-level acc_eq* grouped by item (the "pairs" test); equal weights.
* ``wmt23``: pairwise accuracy over all language pairs together (system level), and per language pair
  system-level Pearson, segment-level Pearson (pooled, ``avg_by none``) and segment-level acc_eq* by item;
  the global accuracy task weighs as many as there are language pairs.

Systems as mt-metrics-eval selects them: the standard reference is never a system; other human translations are
systems for the language pairs with several references (he-en in WMT23) and excluded elsewhere; ``synthetic_ref``
is an outlier (excluded). Metrics are stored scores ``metric-scores/<lp>/<NAME>-<std ref>.{seg,sys}.score``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import InvalidParameterError
from ..significance._resample import Draws
from . import ranking as R
from . import stats as S

TASK_SETS = ("wmt23", "wmt24", "wmt25")
MULTI_REF_LPS = {"wmt23": {"en-he", "he-en"}, "wmt24": {"en-he", "he-en"}, "wmt25": set()}

# WMT25 as mt-metrics-eval defines it (meta_info.py / tasks.WMT25 @68a481a): 16 language pairs with target locales,
# standard reference refA, gold MQM for ja-zh_CN and en-ko_KR and the first ESA rating (esa-human1) elsewhere; the
# second rating (esa-human2) is the human baseline, ranked as if it were a metric. Per pair: system-level soft
# pairwise accuracy and segment-level acc_eq* by item with the "pairs" test; equal weights.
WMT25_LPS = ("cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS", "en-it_IT",
             "en-ja_JP", "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN", "ja-zh_CN")
WMT25_MQM_LPS = ("ja-zh_CN", "en-ko_KR")
WMT25_PRIMARIES = ("EnsembleSlick", "GEMBA-v2", "MetricX-25", "Polycand-2", "Q_Relative-MQM", "SEGALE-QE",
                   "TASER-No-Ref", "UvA-MT", "comet-multi", "hw-tsc", "mr7_2_1", "rankedCOMET")
WMT25_BASELINES = ("BERTScore", "BLEU", "COMET22", "COMETKiwi22", "YiSi-1", "chrF", "sentinel-cand", "spBLEU")
WMT25_HUMAN_BASELINES = ("esa-human2",)


def default_gold(task_set: str, lp: str) -> str:
    """The human scores a task set ranks against: WMT25 per language pair, else MQM."""
    if task_set == "wmt25":
        return "mqm" if lp in WMT25_MQM_LPS else "esa-human1"
    return "mqm"


def metric_status(task_set: str, name: str) -> str:
    """'primary', 'baseline', 'human' (a human baseline) or '' (unknown to the task set), as WMT25 names them."""
    if task_set != "wmt25":
        return ""
    if name in WMT25_HUMAN_BASELINES:
        return "human"
    return "primary" if name in WMT25_PRIMARIES else "baseline" if name in WMT25_BASELINES else ""


@dataclass
class LPData:
    lp: str
    systems: list[str]
    human_seg: np.ndarray  # [S, N], NaN unrated
    human_sys: np.ndarray  # [S]
    metric_seg: dict  # name -> [S, N]
    metric_sys: dict  # name -> [S]
    note: str = ""  # what --filter kept


def _metric_file_name(d, m: str, ref: str) -> str:
    """``NAME-<std ref>`` (reference-based) or ``NAME-src`` (quality estimation), whichever is stored; a name that
    already ends in a reference or ``-src`` is used as it is."""
    base = d.root / "metric-scores" / d.lp
    for cand in (f"{m}-{ref}", f"{m}-src", m):
        if (base / f"{cand}.seg.score").exists():
            return cand
    raise InvalidParameterError(f"{d.lp}: no stored scores for metric {m!r} (looked for {m}-{ref}.seg.score and "
                                f"{m}-src.seg.score in {base})")


def load_lp(root, lp: str, metrics: Sequence[str], human: str | None = "mqm", include_human: bool | None = None,
            task_set: str = "wmt24", human_baselines: Sequence[str] = (), filters=None) -> LPData:
    """One language pair's human and metric scores on the task set's systems. ``human``: the gold (None = the task
    set's, :func:`default_gold`); ``human_baselines``: other human score kinds (e.g. esa-human2) ranked as if they
    were metrics, where the language pair has them; cells they leave unrated are left out for every metric."""
    from ..io.wmt import load_mtme
    from .human import from_mtme
    d = load_mtme(root, lp)
    ref = d.std_ref()
    hs = from_mtme(d, human or default_gold(task_set, lp))
    if include_human is None:
        include_human = lp in MULTI_REF_LPS.get(task_set, set())
    rated = set(s for i, s in enumerate(hs.systems) if hs.seg is not None and not np.isnan(hs.seg[i]).all())
    systems = []
    for s in d.systems:
        if s == ref or s.startswith("synthetic_ref") or s not in rated:
            continue
        if s.startswith("ref") and not include_human:
            continue
        systems.append(s)
    if len(systems) < 2:
        raise InvalidParameterError(f"{lp}: fewer than 2 systems with human scores")
    hseg = np.stack([hs.row(s) for s in systems])
    hsys_d = hs.system_scores()
    hsys = np.array([hsys_d.get(s, np.nan) for s in systems], dtype=np.float64)
    note = ""
    if filters:  # --filter: the other cells count as not rated (meta.filters)
        from . import filters as F
        flt = F.build(d, systems, F.parse(filters))
        hseg = np.where(flt.mask, hseg, np.nan)
        note = f"{lp}: {flt.note}"
    mseg, msys = {}, {}
    for m in metrics:
        name = _metric_file_name(d, m, ref)
        seg = d.metric_scores(name, "seg")
        missing = [s for s in systems if s not in seg]
        if missing:
            raise InvalidParameterError(f"{lp}: metric {name} has no scores for {', '.join(missing)}")
        mseg[m] = np.array([[np.nan if v is None else v for v in seg[s]] for s in systems], dtype=np.float64)
        sys_ = d.metric_scores(name, "sys")
        msys[m] = np.array([np.nan if sys_.get(s) is None else sys_[s] for s in systems], dtype=np.float64)
    for kind in human_baselines:
        if not (d.root / "human-scores" / f"{lp}.{kind}.seg.score").exists():
            continue
        hb = from_mtme(d, kind)
        missing = [s for s in systems if s not in hb.systems]
        if missing:
            raise InvalidParameterError(f"{lp}: human baseline {kind} has no scores for {', '.join(missing)}")
        mseg[kind] = np.stack([hb.row(s) for s in systems])
        hb_sys = hb.system_scores()
        msys[kind] = np.array([hb_sys.get(s, np.nan) for s in systems], dtype=np.float64)
    return LPData(lp, systems, hseg, hsys, mseg, msys, note)


# ------------------------------------------------------------------------------------------------
# single tasks

def spa_task(lp: LPData, k: int, params: R.PermParams, rng, pval=0.05, order=None) -> R.Comparison:
    """System-level soft pairwise accuracy (WMT24)."""
    from .spa import SPA, rated_columns
    idx = _order(lp, order)
    h = lp.human_seg[idx]
    ok = rated_columns(h, *[lp.metric_seg[m][idx] for m in lp.metric_seg])
    spa = SPA(h[:, ok])
    cells = {m: np.ascontiguousarray(v[idx][:, ok]) for m, v in lp.metric_seg.items()}
    values = {m: spa(c) for m, c in cells.items()}

    def test(a, b):
        return R.perm_sig_diff(spa, cells[a], cells[b], k, params, rng)
    return R.compare_metrics(values, test, k, pval, (0.0, 1.0), f"{lp.lp} sys spa",
                             {"lang": lp.lp, "level": "sys", "stat": "spa"})


def _order(lp, order):
    if order is None:
        return np.arange(len(lp.systems))
    if sorted(order) != sorted(lp.systems):
        raise InvalidParameterError(f"{lp.lp}: system order names other systems than the evaluated ones")
    return np.array([lp.systems.index(s) for s in order])


def pearson_task(lp: LPData, level: str, k: int, params: R.PermParams, rng, pval=0.05) -> R.Comparison:
    """Pearson r at system level, or pooled over all rated segment cells (``avg_by none``)."""
    if level == "sys":
        y = lp.human_sys
        cells = {m: v for m, v in lp.metric_sys.items()}
        ok = ~np.isnan(y)
        for v in cells.values():
            ok &= ~np.isnan(v)
    else:
        y = lp.human_seg.ravel()
        cells = {m: v.ravel() for m, v in lp.metric_seg.items()}
        ok = ~np.isnan(y)
        for v in cells.values():
            ok &= ~np.isnan(v)
    y = y[ok]
    cells = {m: np.ascontiguousarray(v[ok]) for m, v in cells.items()}

    def stat(v):
        return S.pearson(v, y) if np.std(v) > 0 else float("nan")
    values = {m: stat(c) for m, c in cells.items()}

    def test(a, b):
        return R.perm_sig_diff(stat, cells[a], cells[b], k, params, rng)
    return R.compare_metrics(values, test, k, pval, (-1.0, 1.0), f"{lp.lp} {level} pearson",
                             {"lang": lp.lp, "level": level, "stat": "pearson"})


def acc_t_task(lp: LPData, k: int, params: R.PermParams, rng, pval=0.05, variant="acc_eq",
               sample_rate: float = 1.0, replace_nans_with_zeros=False) -> R.Comparison:
    """Segment-level tie-calibrated acc_eq* (or tau_eq*) grouped by item, with the "pairs" test."""
    from . import _kernels as K
    h = lp.human_seg
    ok = ~np.isnan(h)
    for v in lp.metric_seg.values():
        ok &= ~np.isnan(v)
    si, gi = np.nonzero(ok)
    order = np.lexsort((si, gi))
    si, gi = si[order], gi[order]
    units, counts = np.unique(gi, return_counts=True)
    starts = np.r_[0, np.cumsum(counts)].astype(np.int64)
    y = h[si, gi]
    a, b, g = K.enumerate_pairs(starts, np.arange(len(units), dtype=np.int64))
    if sample_rate < 1.0:
        keep = Draws.of(rng).keep(len(a), sample_rate)
        a, b, g = a[keep], b[keep], g[keep]
    dy = y[a] - y[b]
    verdicts, values = {}, {}
    for m, v in lp.metric_seg.items():
        x = v[si, gi]
        gr = S.Grouped(np.ascontiguousarray(x), np.ascontiguousarray(y), starts)
        pairs = S.Pairs.build(gr, None, None) if sample_rate >= 1.0 else None
        dx = x[a] - x[b]
        if pairs is not None:
            val, eps = pairs.best(variant)
            eps = float(eps[0])
        else:
            eps = _best_eps(dx, dy, g, len(units), variant)
        verdicts[m] = R.pair_verdicts(dx, dy, eps, variant)
        npairs = np.bincount(g, minlength=len(units)).astype(np.float64)
        values[m] = float(R._group_mean(verdicts[m][None], g, len(units), npairs, replace_nans_with_zeros)[0])

    def test(m1, m2):
        return R.pairs_sig_diff(verdicts[m1], verdicts[m2], g, len(units), k, params, rng,
                                replace_nans_with_zeros=replace_nans_with_zeros)
    stat = "acc_eq*" if variant == "acc_eq" else "tau_eq*"
    return R.compare_metrics(values, test, k, pval, (0.0, 1.0) if variant == "acc_eq" else (-1.0, 1.0),
                             f"{lp.lp} seg {stat} item", {"lang": lp.lp, "level": "seg", "stat": stat})


def _best_eps(dx, dy, g, G, variant):
    """Tie calibration on a given set of pairs (sampled): epsilon in {0} U {abs dx} maximising the group mean."""
    cand = np.r_[0.0, np.unique(np.abs(dx))]
    npairs = np.bincount(g, minlength=G).astype(np.float64)
    best, best_e = -np.inf, 0.0
    for e in cand:
        v = R._group_mean(R.pair_verdicts(dx, dy, e, variant)[None], g, G, npairs, False)[0]
        if v > best + 1e-12:
            best, best_e = v, e
    return best_e


def accuracy_task(lps: Sequence[LPData], k: int, params: R.PermParams, rng, pval=0.05) -> R.Comparison:
    """System-level pairwise accuracy pooled over language pairs (agreeing pairs / all pairs, WMT22-23)."""
    metrics = list(lps[0].metric_sys)
    bounds = np.cumsum([0] + [len(lp.systems) for lp in lps])
    y = np.concatenate([lp.human_sys for lp in lps])
    cells = {m: np.concatenate([lp.metric_sys[m] for lp in lps]) for m in metrics}
    pairs = []
    for b, e in zip(bounds[:-1], bounds[1:]):
        i, j = np.triu_indices(e - b, 1)
        pairs.append((i + b, j + b))
    pi = np.concatenate([p[0] for p in pairs])
    pj = np.concatenate([p[1] for p in pairs])
    sy = np.sign(y[pi] - y[pj])

    def stat(v):
        return float(np.mean(np.sign(v[pi] - v[pj]) == sy))
    values = {m: stat(c) for m, c in cells.items()}

    def test(a, b):
        return R.perm_sig_diff(stat, cells[a], cells[b], k, params, rng)
    name = ",".join(lp.lp for lp in lps)
    return R.compare_metrics(values, test, k, pval, (0.0, 1.0), f"{name} sys accuracy",
                             {"lang": name, "level": "sys", "stat": "accuracy"})


# ------------------------------------------------------------------------------------------------
# task sets

@dataclass
class TaskSetResult:
    tasks: list[R.Comparison]
    weights: list[float]
    notes: list = field(default_factory=list)

    def average_ranks(self):
        return R.average_ranks(self.tasks, self.weights)

    def average_values(self):
        return R.average_values(self.tasks, self.weights)

    def average_clusters(self, pval=0.05):
        return R.average_value_matrix(self.tasks, self.weights, pval)


def run_task_set(root, lps: Sequence[str], metrics: Sequence[str], task_set: str = "wmt24", k: int = 0,
                 seed=12345, params: R.PermParams = R.PermParams(block_size=100), pval: float = 0.05,
                 human: str | None = None, orders: dict | None = None, threads: int | None = None,
                 human_baselines: Sequence[str] | None = None, filters: Sequence[str] | None = None) -> TaskSetResult:
    """Run the WMT task set on stored metric scores. ``human``: the gold (None: the task set's, MQM for wmt23/24,
    per language pair for wmt25). ``human_baselines``: human score kinds ranked as metrics (None: the task set's,
    esa-human2 for wmt25). ``filters``: ``KEY=VALUE`` metadata filters (:mod:`mtscore.meta.filters`; wmt24/wmt25,
    whose tasks are computed from segment scores: cells left out count as not rated). ``orders``: optional {lp: system order} (the order of
    the systems in the tables; SPA's sums are exact, so it does not change a value). ``threads``: threads of the compiled kernels
    (default: ``$MTSCORE_THREADS`` if set, else the CPUs the process may use)."""
    from .stats import kernel_threads
    if human_baselines is None:
        human_baselines = WMT25_HUMAN_BASELINES if task_set == "wmt25" else ()
    with kernel_threads(threads):
        return _run_task_set(root, lps, metrics, task_set, k, seed, params, pval, human, orders, human_baselines,
                             filters)


def _run_task_set(root, lps, metrics, task_set, k, seed, params, pval, human, orders,
                  human_baselines=(), filters=None) -> TaskSetResult:
    if task_set not in TASK_SETS:
        raise InvalidParameterError.choice("task_set", task_set, TASK_SETS)
    if filters and task_set == "wmt23":
        raise InvalidParameterError("--filter: not with --task-set wmt23 (its system-level Pearson and accuracy use "
                                    "stored system scores, which a filter cannot recompute); wmt24 and wmt25 work")
    if not metrics:
        raise InvalidParameterError("task set: no metrics given")
    if not lps:
        raise InvalidParameterError("task set: no language pairs given")
    rng = Draws(seed)  # one stream for every task, in task order
    lps = sorted(lps)
    data = {lp: load_lp(root, lp, metrics, human, task_set=task_set, human_baselines=human_baselines,
                        filters=filters) for lp in lps}
    tasks: list[R.Comparison] = []
    if task_set in ("wmt24", "wmt25"):
        for lp in lps:
            tasks.append(spa_task(data[lp], k, params, rng, pval, (orders or {}).get(lp)))
            tasks.append(acc_t_task(data[lp], k, params, rng, pval))
        weights = [1.0 / len(tasks)] * len(tasks)
    else:
        tasks.append(accuracy_task([data[lp] for lp in lps], k, params, rng, pval))
        for lp in lps:
            tasks.append(pearson_task(data[lp], "sys", k, params, rng, pval))
            tasks.append(pearson_task(data[lp], "seg", k, params, rng, pval))
            tasks.append(acc_t_task(data[lp], k, params, rng, pval))
        w = [float(len(lps))] + [1.0] * (len(tasks) - 1)
        weights = [x / sum(w) for x in w]
    return TaskSetResult(tasks, weights, [data[lp].note for lp in lps if data[lp].note])
