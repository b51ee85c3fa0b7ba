"""Join metric and human scores by (system, segment) and compute the papers' correlation tables.

Levels (docs/definitions.md §9):

* ``sys``: one score per system; Pearson, Spearman, Kendall tau_b, pairwise accuracy (Kocmi et al. 2021).
* ``seg``: one score per (system, segment) cell with a human score; ``avg_by`` ``none`` (pool all
  cells), ``item`` (correlate the systems' scores of each source segment, then average: WMT23 acc-t),
  ``sys`` (correlate each system's segments, then average).
* ``domain``: the system-level statistics computed within each domain (segments of that domain only;
  our metrics re-score the subset from their statistics).

Confidence intervals: percentile bootstrap over segments (items) and/or systems with an explicit seed.
A resample is a vector of multiplicities; our metrics re-score ``multiplicities @ stats`` for system
scores (never re-tokenizing), external metrics and human system scores average their segment scores.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..metrics.base import stats_for
from ..progress import progress, track
from ..significance._resample import Draws
from . import stats as S
from .human import HumanScores

LEVELS = ("sys", "seg", "doc", "domain")
RESAMPLE = ("segments", "systems", "both")
SYS_STATS = ("pearson", "spearman", "kendall", "accuracy")
SEG_STATS_DEFAULT = ("pearson", "kendall", "wmt10", "acc_eq", "acc_eq*")
STAT_LABELS = {"pearson": "Pearson r", "spearman": "Spearman rho", "kendall": "Kendall tau_b",
               "tau_c": "tau_c", "tau_eq": "tau_eq", "acc_eq": "acc_eq", "wmt10": "WMT10 tau",
               "darr": "DARR tau", "acc_eq*": "acc_eq*", "tau_eq*": "tau_eq*", "accuracy": "pairwise acc",
               "spa": "soft pairwise acc", "pdp": "PDP"}
ALL_STATS = S.STATISTICS + ("accuracy", "spa")
SYS_ONLY_STATS = ("spa",)


@dataclass
class MetricScores:
    """One metric's scores of the evaluated systems, higher = better."""

    name: str
    systems: list[str]
    seg: np.ndarray  # [S, N]
    sys: np.ndarray  # [S]
    rescore: Callable[[np.ndarray], np.ndarray] | None = None  # seg multiplicities [B, N] -> sys scores [B, S]
    signature: str = ""  # of the system scores
    seg_signature: str = ""  # of the segment scores where it differs (BLEU's effective order: eff:yes)

    def system_scores(self, weights: np.ndarray | None = None) -> np.ndarray:
        """[B, S] system scores for segment multiplicities [B, N] (None: the full test set, [S])."""
        if weights is None:
            return self.sys
        if self.rescore is None:
            raise InvalidParameterError(f"{self.name}: system scores cannot be recomputed on a subset/resample")
        return self.rescore(weights)


def from_metric(metric, systems: dict[str, list[str]], refs, label: str | None = None) -> MetricScores:
    """Score every system with a registered metric (``metric.stats``, ``score``, ``sentence_scores``)."""
    names = list(systems)
    st = [stats_for(metric, s, systems[s], refs)  # stored scores (scores:NAME=FILE) are looked up by system name
          for s in track(names, f"{metric.display_name} statistics", unit="systems")]
    sign = 1.0 if metric.higher_is_better else -1.0
    seg = sign * np.stack([np.asarray(metric.sentence_scores(x), dtype=np.float64) for x in st])
    sys_ = sign * np.array([float(metric.score(x.sum())) for x in st])
    vals = [x.values for x in st]

    def rescore(weights):
        w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
        return sign * np.stack([np.asarray(metric.score(w @ v), dtype=np.float64) for v in vals], axis=1)

    lab = label or metric.display_name
    # signed from what was computed: the segment scores' own signature (sentence BLEU: effective order)
    seg_sig = f"{lab}|{metric.sentence_signature(st[0])}" if st else lab
    return MetricScores(lab, names, seg, sys_, rescore, f"{lab}|{st[0].signature}" if st else lab, seg_sig)


def from_external(name: str, seg: dict[str, list], sys_scores: dict[str, float] | None, systems: Sequence[str],
                  n_segments: int, source: str = "") -> MetricScores:
    """External metric scores (mt-metrics-eval files). Every evaluated system must be present.

    The system scores are resampled as the mean of segment scores only when the published system scores
    equal that mean (COMET, BLEURT, MetricX do; corpus BLEU/chrF do not: no segment-resampling CI then).
    """
    missing = [s for s in systems if s not in seg]
    if missing:
        raise InputError(f"external metric {name}: no segment scores for system(s) {', '.join(missing)}", source)
    rows = []
    for s in systems:
        v = np.array([np.nan if x is None else x for x in seg[s]], dtype=np.float64)
        if v.shape[0] != n_segments:
            raise InputError(f"external metric {name}: system {s!r} has {v.shape[0]} segment scores, "
                             f"the test set has {n_segments}", source)
        rows.append(v)
    mat = np.stack(rows) if rows else np.zeros((0, n_segments))
    means = np.nanmean(mat, axis=1) if rows else np.zeros(0)
    if sys_scores is not None:
        miss = [s for s in systems if sys_scores.get(s) is None]
        if miss:
            raise InputError(f"external metric {name}: no system score for {', '.join(miss)}", source)
        sysv = np.array([sys_scores[s] for s in systems], dtype=np.float64)
    else:
        sysv = means
    is_mean = bool(np.allclose(sysv, means, rtol=1e-9, atol=1e-9)) and not np.isnan(mat).any()
    rescore = None
    if is_mean:
        def rescore(weights):
            w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
            return (w @ mat.T) / w.sum(axis=1, keepdims=True)
    return MetricScores(name, list(systems), mat, sysv, rescore, f"{name}|external:{source}")


# ------------------------------------------------------------------------------------------------
# joining

def select_systems(output_systems: Sequence[str], human: HumanScores, include_human: bool = False,
                   exclude: Sequence[str] = (), human_prefixes=None, level: str = "seg",
                   references: Sequence[str] = ()) -> list[str]:
    """Systems to evaluate: the outputs minus human "systems" (refA, refB, synthetic_ref, Human-B.0, HUMAN-B,
    and any system named like one of ``references``: :func:`mtscore.meta.human.is_human_system`; or names starting
    with one of ``human_prefixes`` when given, ``()`` = no human rule) and ``exclude``. Every evaluated system must
    have human scores and every human-scored system an output (unless excluded); anything else is an error that
    names the systems."""
    from .human import is_human_system
    excl = set(exclude)
    unknown = [e for e in excl if e not in output_systems and e not in human.systems]
    if unknown:
        raise InvalidParameterError(f"--exclude: unknown system(s) {', '.join(sorted(unknown))}")

    def dropped(s):
        if s in excl:
            return True
        if include_human:
            return False
        if human_prefixes is not None:
            return s.startswith(tuple(human_prefixes)) if human_prefixes else False
        return is_human_system(s, references)

    chosen = [s for s in output_systems if not dropped(s)]
    have = set(human.systems)
    if level == "sys" and human.sys is not None:
        have |= set(human.sys)
    no_human = [s for s in chosen if s not in have]
    if no_human:
        raise InputError(f"human scores ({human.name}) have no entry for system(s) with outputs: "
                         f"{', '.join(no_human)} (use --exclude to leave them out)", human.source or None)
    no_output = sorted(s for s in have if s not in output_systems and not dropped(s))
    if no_output:
        raise InputError(f"human scores ({human.name}) name system(s) without an output: {', '.join(no_output)}",
                         human.source or None)
    if len(chosen) < 2:
        raise InvalidParameterError(f"at least 2 systems are needed for a correlation, got {len(chosen)}")
    return chosen


@dataclass
class Joined:
    """Human and metric scores on the same systems and segments."""

    systems: list[str]
    human_seg: np.ndarray | None  # [S, N], NaN = unrated
    human_sys: np.ndarray  # [S]
    n_segments: int
    domains: list[str] | None = None
    human_domain: dict[tuple[str, str], float] | None = None
    docs: list[str] | None = None  # document id per segment (documents/<lp>.docs)
    human_doc: np.ndarray | None = None  # [S, D] published document-level human scores, if any


def join(human: HumanScores, systems: Sequence[str], n_segments: int, domains=None, docs=None) -> Joined:
    if human.seg is not None and human.n_segments != n_segments:
        raise InputError(f"human scores ({human.name}) cover {plural(human.n_segments, 'segment')}, "
                         f"the system outputs have {n_segments}", human.source or None)
    if domains is not None and len(domains) != n_segments:
        raise InputError(f"{plural(len(domains), 'domain label')} for {plural(n_segments, 'segment')}")
    seg = None
    if human.seg is not None and all(s in human.systems for s in systems):
        seg = np.stack([human.row(s) for s in systems])
    hs = human.system_scores()
    if docs is not None and len(docs) != n_segments:
        raise InputError(f"{plural(len(docs), 'document label')} for {plural(n_segments, 'segment')}")
    return Joined(list(systems), seg, np.array([hs[s] for s in systems], dtype=np.float64), n_segments,
                  list(domains) if domains is not None else None, human.domain,
                  list(docs) if docs is not None else None)


# ------------------------------------------------------------------------------------------------
# document level

def document_index(docs: Sequence[str], source: str = "") -> tuple[list[str], np.ndarray]:
    """(document ids in order, document number per segment). Documents must be contiguous runs of segments,
    as mt-metrics-eval requires."""
    names: list[str] = []
    idx = np.empty(len(docs), dtype=np.int64)
    seen = set()
    for i, d in enumerate(docs):
        if not names or names[-1] != d:
            if d in seen:
                raise InputError(f"document {d!r} is not one contiguous run of segments (line {i + 1})", source or None)
            seen.add(d)
            names.append(d)
        idx[i] = len(names) - 1
    return names, idx


def doc_views(metrics: Sequence[MetricScores], joined: Joined, doc_scores: dict | None = None,
              ) -> tuple[list[MetricScores], Joined]:
    """Document-level views: the [S, N] segment matrices become [S, D] document matrices, so that the
    segment-level machinery (``segment_level``: pooled, per item = per document, per system) applies.

    Document scores: our metrics re-score each document from its segments' statistics (corpus score of the
    document); external metrics use their ``.doc.score`` file (``doc_scores[name]`` [S, D]) when given, else the
    mean of their segment scores (only when their system score is that mean); human: ``joined.human_doc`` when
    given, else the mean of the document's rated segments (unrated documents: NaN).
    """
    if joined.docs is None:
        raise InvalidParameterError("--level doc: no document ids (documents/<lp>.docs) for this test set")
    names, idx = document_index(joined.docs)
    D, N = len(names), joined.n_segments
    ind = np.zeros((D, N))
    ind[idx, np.arange(N)] = 1.0
    if joined.human_doc is not None:
        hdoc = np.asarray(joined.human_doc, dtype=np.float64)
    else:
        if joined.human_seg is None:
            raise InvalidParameterError("--level doc: the human scores have no segment or document level")
        h = joined.human_seg
        rated = (~np.isnan(h)).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            hdoc = (np.where(np.isnan(h), 0.0, h) @ ind.T) / (rated @ ind.T)
    out = []
    for m in metrics:
        if doc_scores and m.name in doc_scores:
            mdoc = np.asarray(doc_scores[m.name], dtype=np.float64)
        elif m.rescore is not None:
            mdoc = m.rescore(ind).T  # [D, S] -> [S, D]
        else:
            raise InvalidParameterError(f"{m.name}: no document-level scores (no .doc.score file, and its system "
                                        "score is not a mean of segment scores)")
        if mdoc.shape != (len(m.systems), D):
            raise InputError(f"{m.name}: document scores have shape {mdoc.shape}, expected {(len(m.systems), D)}")
        out.append(MetricScores(m.name, m.systems, mdoc, m.sys, None, m.signature))
    j = Joined(joined.systems, hdoc, joined.human_sys, D, None, None, names, None)
    return out, j


# ------------------------------------------------------------------------------------------------
# resampling

_BOOT_ROWS = 64  # resamples per batched kernel call of the segment-level CI (memory: rows x groups x 5)


def _multiplicities(draws: Draws, B, n):
    """[B, n] bootstrap multiplicities (each row sums to n): the resampling engine's "sacrebleu" scheme
    (numpy's bounded integers, counted)."""
    return draws.bootstrap_counts(B, n, "sacrebleu")


def _percentile_ci(samples, level):
    s = np.asarray(samples)
    s = s[~np.isnan(s)]
    if not len(s):
        return (float("nan"), float("nan"))
    a = (1 - level) / 2
    return (float(np.quantile(s, a)), float(np.quantile(s, 1 - a)))


def _vec_stat(stat, x, y, w=None):
    if stat == "pearson":
        return S.pearson(x, y, w)
    if stat == "spearman":
        return S.spearman(x, y, w)
    if stat == "kendall":
        return S.kendall(x, y, "b", weights=w)
    if stat in ("accuracy", "acc_eq"):
        return S.kendall(x, y, "acc_eq", weights=w)
    if stat == "tau_c":
        return S.kendall(x, y, "c", weights=w)
    if stat == "tau_eq":
        return S.kendall(x, y, "eq", weights=w)
    if stat == "wmt10":
        return S.kendall(x, y, "wmt10", weights=w)
    if stat == "pdp":  # one group: PDP equals Pearson r (mt-metrics-eval pdp=True at system level)
        return S.pdp(x, y, weights=w)
    if stat in ("acc_eq*", "tau_eq*"):
        gr = S.Grouped(np.asarray(x, float), np.asarray(y, float), np.array([0, len(x)], dtype=np.int64))
        v, _ = gr.pairs().best("acc_eq" if stat == "acc_eq*" else "eq",
                                cell_weights=None if w is None else np.asarray(w, float)[None])
        return float(v[0])
    raise InvalidParameterError.choice("statistic", stat, SYS_STATS + ("tau_c", "tau_eq", "wmt10", "pdp", "acc_eq*"))


@dataclass
class StatResult:
    value: float
    ci: tuple[float, float] | None = None
    epsilon: float | None = None  # tie calibration
    samples: np.ndarray | None = None
    pvalue: float | None = None  # two-sided p-value of a correlation (averaged over groups as mt-metrics-eval)


def system_level(metric: MetricScores, joined: Joined, stats: Sequence[str] = SYS_STATS, n_boot: int = 0,
                 resample: str = "segments", seed=12345, level: float = 0.95, seg_mask=None,
                 human_sys=None) -> dict[str, StatResult]:
    """System-level statistics (optionally restricted to the segments in ``seg_mask``: domain level)."""
    if metric.systems != joined.systems:
        raise InvalidParameterError("metric and human scores cover different systems")
    N = joined.n_segments
    mask = np.ones(N) if seg_mask is None else np.asarray(seg_mask, dtype=np.float64)
    if seg_mask is None:
        x = metric.sys
        y = joined.human_sys if human_sys is None else human_sys
    else:
        x = metric.system_scores(mask[None])[0]
        y = human_sys if human_sys is not None else _human_sys(joined, mask[None])[0]
    ok = ~(np.isnan(x) | np.isnan(y))
    out = {st: StatResult(spa_value(metric, joined, seg_mask) if st == "spa" else _vec_stat(st, x[ok], y[ok]))
           for st in stats}
    for st in stats:
        if st in S.PVALUE_STATS:
            out[st].pvalue = S.pvalue(st, x[ok], y[ok])
    if n_boot <= 0:
        return out
    rng = Draws(seed)
    Snum = len(joined.systems)
    xs = ys = None
    if resample in ("segments", "both"):
        if joined.human_seg is None:
            raise InvalidParameterError("--resample segments: the human scores have no segment level")
        if metric.rescore is None:
            for st in stats:
                out[st].ci = None
            return out
        idx = np.nonzero(mask)[0]
        m = np.zeros((n_boot, N))
        m[:, idx] = _multiplicities(rng, n_boot, len(idx))
        xs = metric.system_scores(m)
        ys = _human_sys(joined, m)
    else:
        xs = np.broadcast_to(x, (n_boot, Snum))
        ys = np.broadcast_to(y, (n_boot, Snum))
    ws = _multiplicities(rng, n_boot, Snum) if resample in ("systems", "both") else np.ones((n_boot, Snum))
    with progress(f"{metric.name} bootstrap", total=n_boot * len(stats), unit="resamples") as bar:
        for st in stats:
            if st == "spa":  # a permutation-based statistic: no bootstrap CI
                continue
            samp = np.empty(n_boot)
            for b in range(n_boot):
                okb = ~(np.isnan(xs[b]) | np.isnan(ys[b]))
                samp[b] = _vec_stat(st, xs[b][okb], ys[b][okb], ws[b][okb])
                if b % 50 == 49:
                    bar.update(50)
            bar.update(n_boot % 50)
            out[st].ci = _percentile_ci(samp, level)
            out[st].samples = samp
    return out


def spa_matrices(metric: MetricScores, joined: Joined, seg_mask=None):
    """(metric [S, N'], human [S, N']) segment scores on the segments every system has both scores for."""
    from .spa import rated_columns
    if joined.human_seg is None:
        raise InvalidParameterError("statistic spa: needs segment-level human scores")
    if metric.systems != joined.systems:
        raise InvalidParameterError("metric and human scores cover different systems")
    ok = rated_columns(joined.human_seg, metric.seg)
    if seg_mask is not None:
        ok &= np.asarray(seg_mask, dtype=bool)
    if not ok.any():
        raise InvalidParameterError(f"statistic spa: no segment has human and {metric.name} scores for every system")
    return np.ascontiguousarray(metric.seg[:, ok]), np.ascontiguousarray(joined.human_seg[:, ok])


def spa_value(metric: MetricScores, joined: Joined, seg_mask=None) -> float:
    """Soft pairwise accuracy (system level, from segment scores; mt-metrics-eval defaults)."""
    from .spa import soft_pairwise_accuracy
    m, h = spa_matrices(metric, joined, seg_mask)
    return soft_pairwise_accuracy(m, h)


def _human_sys(joined: Joined, m):
    """Human system scores = mean of rated segments, for segment multiplicities m [B, N]."""
    h = joined.human_seg
    rated = (~np.isnan(h)).astype(np.float64)
    hv = np.where(np.isnan(h), 0.0, h)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (m @ hv.T) / (m @ rated.T)


@dataclass
class _Cells:
    x: np.ndarray
    y: np.ndarray
    sys_idx: np.ndarray
    seg_idx: np.ndarray
    grouped: S.Grouped
    group_unit: np.ndarray  # per group: the item / system index (or 0)


def _cells(metric: MetricScores, joined: Joined, avg_by: str) -> _Cells:
    if joined.human_seg is None:
        raise InvalidParameterError("--level seg: the human scores have no segment level")
    h, m = joined.human_seg, metric.seg
    if h.shape != m.shape:
        raise InvalidParameterError(f"human {h.shape} and metric {m.shape} score matrices differ")
    ok = ~(np.isnan(h) | np.isnan(m))
    si, gi = np.nonzero(ok)  # system-major
    if avg_by == "item":
        order = np.lexsort((si, gi))
        key = gi[order]
    elif avg_by == "sys":
        order = np.arange(len(si))
        key = si
    elif avg_by == "none":
        order = np.arange(len(si))
        key = np.zeros(len(si), dtype=np.int64)
    else:
        raise InvalidParameterError.choice("avg_by", avg_by, S.AVG_BY)
    si, gi = si[order], gi[order]
    key = key if avg_by != "item" else gi
    units, counts = np.unique(key, return_counts=True)
    starts = np.r_[0, np.cumsum(counts)].astype(np.int64)
    x = np.ascontiguousarray(m[si, gi])
    y = np.ascontiguousarray(h[si, gi])
    return _Cells(x, y, si, gi, S.Grouped(x, y, starts), units)


def segment_level(metric: MetricScores, joined: Joined, stats: Sequence[str] = SEG_STATS_DEFAULT,
                  avg_by: str = "item", n_boot: int = 0, resample: str = "segments", seed=12345,
                  level: float = 0.95, thresh: float = 25.0, max_pairs: int = 5_000_000, nan_as_zero: bool = False,
                  sample_rate: float | None = None, want_p: bool = True) -> dict[str, StatResult]:
    """Segment-level statistics. ``nan_as_zero``: groups whose value is undefined count as 0 in the average
    (mt-metrics-eval ``replace_nans_with_zeros``); ``sample_rate``: tie calibration on a Bernoulli sample of the
    pairs (mt-metrics-eval ``sample_rate``); ``want_p``: also the p-values of pearson/spearman/kendall/tau_c."""
    c = _cells(metric, joined, avg_by)
    gr = c.grouped
    sizes = np.diff(gr.starts)
    out: dict[str, StatResult] = {}
    pairs = None
    for st in stats:
        if st in S.TIE_STATS:
            pairs = pairs or gr.pairs(max_pairs, seed, sample_rate)
            v, e = pairs.best("acc_eq" if st == "acc_eq*" else "eq")
            out[st] = StatResult(float(v[0]), epsilon=float(e[0]))
        elif st in S.MACRO_STATS or st in S.MICRO_STATS or st in S.POOLED_STATS:
            vals = gr.values(st, thresh=thresh)
            out[st] = StatResult(float(S.aggregate(st, vals, nan_as_zero=nan_as_zero, sizes=sizes)))
            if st in S.PVALUE_STATS and want_p:
                # the groups' p-values averaged as their values (mt-metrics-eval's AverageCorrelation)
                _, p, den = S.average_groups(vals, gr.pvalues(st), sizes, nan_as_zero)
                out[st].pvalue = p if den else None
        elif st == "accuracy":
            out[st] = StatResult(float(S.aggregate("acc_eq", gr.values("acc_eq"))))
        else:
            raise InvalidParameterError.choice("statistic", st, ALL_STATS)
    if n_boot <= 0:
        return out
    rng = Draws(seed)
    Snum, N = len(joined.systems), joined.n_segments
    mseg = _multiplicities(rng, n_boot, N) if resample in ("segments", "both") else np.ones((n_boot, N))
    msys = _multiplicities(rng, n_boot, Snum) if resample in ("systems", "both") else np.ones((n_boot, Snum))
    # fast path: the resampling unit is the averaging unit -> per-group values are reused
    if (avg_by == "item" and resample == "segments") or (avg_by == "sys" and resample == "systems"):
        gw = (mseg if avg_by == "item" else msys)[:, c.group_unit]
        cw = None
    else:
        gw = None
        cw = mseg[:, c.seg_idx] * msys[:, c.sys_idx]
    for st in stats:
        name = "acc_eq" if st == "accuracy" else st
        if name in S.TIE_STATS:
            v, _ = pairs.best("acc_eq" if name == "acc_eq*" else "eq", cell_weights=cw, group_weights=gw)
            samp = v
        elif gw is not None:
            samp = S.aggregate(name, gr.values(name, thresh=thresh), gw, nan_as_zero, sizes)
        else:
            samp = np.empty(n_boot)
            for lo in range(0, n_boot, _BOOT_ROWS):  # resamples in batches: one threaded kernel call per batch
                vals = gr.values(name, w=cw[lo:lo + _BOOT_ROWS], thresh=thresh)
                for b in range(vals.shape[0]):
                    samp[lo + b] = S.aggregate(name, vals[b], None, nan_as_zero, sizes)
        out[st].ci = _percentile_ci(samp, level)
        out[st].samples = np.asarray(samp)
    return out


def domain_level(metric: MetricScores, joined: Joined, stats: Sequence[str] = SYS_STATS, n_boot: int = 0,
                 seed=12345, level: float = 0.95) -> dict[str, dict[str, StatResult]]:
    if joined.domains is None:
        raise InvalidParameterError("--level domain: no domain labels (documents/<lp>.docs) for this test set")
    out = {}
    doms = sorted(set(joined.domains))
    for k, d in enumerate(doms):
        mask = np.array([x == d for x in joined.domains], dtype=np.float64)
        hsys = None
        if joined.human_domain is not None:
            vals = [joined.human_domain.get((d, s)) for s in joined.systems]
            if all(v is not None for v in vals):
                hsys = np.array(vals, dtype=np.float64)
        if hsys is None and joined.human_seg is None:
            raise InputError(f"no human scores for domain {d!r}")
        if metric.rescore is None:
            raise InvalidParameterError(f"{metric.name}: no domain-level scores (system scores are not a mean "
                                        "of segment scores and cannot be recomputed on a domain)")
        out[d] = system_level(metric, joined, stats, n_boot, "segments" if joined.human_seg is not None else "systems",
                              None if seed is None else [seed, k], level, seg_mask=mask, human_sys=hsys)
    return out
