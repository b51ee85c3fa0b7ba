"""Build the papers' kind of table (metrics x statistics, with CIs) from metric and human scores."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InvalidParameterError
from ..params import DEFAULT_SEED
from ..progress import progress
from . import evaluate as E
from . import stats as S
from .compare import bootstrap_test, permutation_test, williams_test

COMPARE = ("none", "perm", "bootstrap", "williams")


@dataclass
class MetaConfig:
    level: str = "sys"
    stats: tuple[str, ...] | None = None
    avg_by: str = "item"
    n_boot: int = 0
    resample: str = "segments"
    seed: int = DEFAULT_SEED
    ci_level: float = 0.95
    thresh: float = 25.0
    compare: str = "none"
    perm_samples: int = 1000
    max_pairs: int = 5_000_000
    nan_as_zero: bool = False
    sample_rate: float | None = None
    pvalues: bool = False
    threads: int | None = None  # threads of the compiled kernels (None: $MTSCORE_THREADS, else the default)

    def validate(self):
        if self.level not in E.LEVELS:
            raise InvalidParameterError.choice("level", self.level, E.LEVELS)
        if self.resample not in E.RESAMPLE:
            raise InvalidParameterError.choice("resample", self.resample, E.RESAMPLE)
        if self.avg_by not in S.AVG_BY:
            raise InvalidParameterError.choice("avg_by", self.avg_by, S.AVG_BY)
        if self.compare not in COMPARE:
            raise InvalidParameterError.choice("compare", self.compare, COMPARE)
        from ..params import OPTIONS  # numbers: the parameter table (bounds, finiteness)
        self.n_boot = OPTIONS["ci"].check(self.n_boot, "ci")
        for f in ("seed", "ci_level", "thresh", "perm_samples", "max_pairs", "threads"):
            setattr(self, f, OPTIONS[f].check(getattr(self, f), f))
        if self.compare == "perm" and self.perm_samples < 2:
            from ..params import message
            raise InvalidParameterError(message("perm_samples", "at least 2 with compare perm", self.perm_samples))
        for st in self.resolved_stats():
            if st not in E.ALL_STATS:
                raise InvalidParameterError.choice("statistic", st, E.ALL_STATS)
        if self.level in ("sys", "domain"):
            bad = [s for s in self.resolved_stats() if s in ("darr",)]
            if bad:
                raise InvalidParameterError(f"statistic {bad[0]!r} is a segment-level statistic")
        else:
            bad = [s for s in self.resolved_stats() if s in E.SYS_ONLY_STATS]
            if bad:
                raise InvalidParameterError(f"statistic {bad[0]!r} is a system-level statistic (use --level sys)")
        self.sample_rate = OPTIONS["sample_rate"].check(self.sample_rate, "sample_rate")
        if self.compare in ("perm", "williams") and self.resolved_stats()[0] == "spa":
            raise InvalidParameterError("compare: spa is itself permutation-based; rank metrics by spa with "
                                        "--task-set (mt-metrics-eval's PERM-BOTH test on segment scores)")
        if self.compare == "williams" and self.resolved_stats()[0] != "pearson":
            raise InvalidParameterError("compare: the Williams test is for Pearson r (put pearson first in --stats)")

    def resolved_stats(self) -> tuple[str, ...]:
        if self.stats:
            return tuple(self.stats)
        return E.SYS_STATS if self.level in ("sys", "domain") else E.SEG_STATS_DEFAULT

    def signature(self) -> str:
        parts = [f"level:{self.level}"]
        if self.level in ("seg", "doc"):
            parts.append(f"avg:{self.avg_by}")
            if self.nan_as_zero:
                parts.append("nan:zero")
            if self.sample_rate is not None:
                parts.append(f"sample-rate:{self.sample_rate:g}")
        if self.n_boot:
            parts += [f"ci:{self.n_boot}", f"ci-level:{self.ci_level:g}", f"resample:{self.resample}"]
        if self.n_boot or self.compare != "none":
            parts.append(f"seed:{self.seed}")
        if self.compare != "none":
            parts.append(f"compare:{self.compare}")
        return "meta|" + "|".join(parts)


def _evaluate(m: E.MetricScores, joined: E.Joined, cfg: MetaConfig):
    st = cfg.resolved_stats()
    if cfg.level == "sys":
        return {"": E.system_level(m, joined, st, cfg.n_boot, cfg.resample, cfg.seed, cfg.ci_level)}
    if cfg.level in ("seg", "doc"):  # doc: the caller passes document-level views (evaluate.doc_views)
        return {"": E.segment_level(m, joined, st, cfg.avg_by, cfg.n_boot, cfg.resample, cfg.seed, cfg.ci_level,
                                    cfg.thresh, cfg.max_pairs, cfg.nan_as_zero, cfg.sample_rate, cfg.pvalues)}
    return E.domain_level(m, joined, st, cfg.n_boot, cfg.seed, cfg.ci_level)


def _stat_fn(cfg: MetaConfig, joined: E.Joined, template: E.MetricScores, first: str):
    """value of the first statistic for a metric score array (sys vector or seg matrix)."""
    if cfg.level == "sys":
        y = joined.human_sys
        return lambda v: E._vec_stat(first, v, y)
    cells = E._cells(template, joined, cfg.avg_by)

    def f(v):
        x = np.ascontiguousarray(v[cells.sys_idx, cells.seg_idx])
        gr = S.Grouped(x, cells.y, cells.grouped.starts)
        if first in S.TIE_STATS:
            return float(gr.pairs(cfg.max_pairs, cfg.seed, cfg.sample_rate).best("acc_eq" if first == "acc_eq*" else "eq")[0][0])
        name = "acc_eq" if first == "accuracy" else first
        return float(S.aggregate(name, gr.values(name, thresh=cfg.thresh), None, cfg.nan_as_zero,
                                 np.diff(cells.grouped.starts)))
    return f


def evaluate_metrics(metrics: Sequence[E.MetricScores], joined: E.Joined, cfg: MetaConfig) -> dict:
    """``{metric name: {domain or "": {statistic: StatResult}}}`` (with bootstrap samples when ``cfg.n_boot``)."""
    cfg.validate()
    out = {}
    with progress("meta-evaluation", total=len(metrics), unit="metrics") as bar, S.kernel_threads(cfg.threads):
        for m in metrics:
            out[m.name] = _evaluate(m, joined, cfg)
            bar.update(1)
    return out


def compare_pvalues(metrics: Sequence[E.MetricScores], joined: E.Joined, cfg: MetaConfig, results: dict) -> dict:
    """p-values of "the best metric is better than this one" (``cfg.compare``: williams, perm, bootstrap)
    by the first statistic; ``{}`` when no comparison applies (one metric, domain level, compare none)."""
    cfg.validate()
    if cfg.compare != "none" and cfg.level != "domain" and len(metrics) > 1:
        with S.kernel_threads(cfg.threads):
            return _compare(metrics, results, joined, cfg, cfg.resolved_stats()[0])
    return {}


def _compare(metrics, results, joined, cfg, first):
    vals = {m.name: results[m.name][""][first].value for m in metrics}
    best = max(vals, key=lambda k: -math.inf if math.isnan(vals[k]) else vals[k])
    bm = next(m for m in metrics if m.name == best)
    out = {best: None}
    fn = _stat_fn(cfg, joined, bm, first) if cfg.compare == "perm" else None
    for m in metrics:
        if m.name == best:
            continue
        if cfg.compare == "williams":
            if cfg.level == "sys":
                y, a, b = joined.human_sys, bm.sys, m.sys
            elif cfg.avg_by != "none":
                # averaged correlations, as mt-metrics-eval's WilliamsSigDiff with an AverageCorrelation: r1, r2
                # the metrics' averaged Pearson with the humans, r12 the same average between the two metrics (on
                # every cell both score, rated or not), n every cell of the grid
                from dataclasses import replace
                j12 = replace(joined, human_seg=bm.seg)
                r12 = E.segment_level(m, j12, ("pearson",), cfg.avg_by, nan_as_zero=cfg.nan_as_zero,
                                      want_p=False)["pearson"].value
                out[m.name] = williams_test(vals[best], vals[m.name], r12, int(bm.seg.size))
                continue
            else:
                h = joined.human_seg
                ok = ~(np.isnan(h) | np.isnan(bm.seg) | np.isnan(m.seg))
                y, a, b = h[ok], bm.seg[ok], m.seg[ok]
            out[m.name] = williams_test(S.pearson(a, y), S.pearson(b, y), S.pearson(a, b), len(y))
        elif cfg.compare == "perm":
            if cfg.level == "sys":
                out[m.name] = permutation_test(fn, bm.sys, m.sys, cfg.perm_samples, cfg.seed)[0]
            else:
                out[m.name] = permutation_test(fn, bm.seg, m.seg, cfg.perm_samples, cfg.seed)[0]
        else:  # bootstrap: same seed -> the same resamples for every metric
            sa = results[best][""][first].samples
            sb = results[m.name][""][first].samples
            if sa is None or sb is None:
                raise InvalidParameterError("compare bootstrap: needs --resamples N and resamplable metrics")
            out[m.name] = bootstrap_test(sa, sb)
    return out


def rr_correlations(metrics, human, outputs: dict, refs) -> list[tuple[str, float, int]]:
    """Relative rankings (``meta`` with an RR file): WMT10-style Kendall of each metric over the human
    pairwise preferences (segment level), as (metric label, tau, pairs), best first."""
    from . import human as H
    missing = [s for s in human.systems if s not in outputs]
    if missing:
        raise InvalidParameterError(f"relative rankings name system(s) without an output: {', '.join(missing)}")
    rows = []
    for m in metrics:
        ms = E.from_metric(m, {s: outputs[s] for s in human.systems}, refs)
        rows.append((ms.name, H.rr_kendall(human.rr_pairs, ms.seg), int(len(human.rr_pairs))))
    rows.sort(key=lambda r: -r[1])
    return rows
