"""AutoRank of systems from per-segment (or system-level) metric scores, and how sure it is (docs/rank.md).

Inputs are statistics, never text: for each metric, each system's segment scores (NaN = not scored) aligned to one
list of segments with their documents (and domains), or, for a metric given only at system level, one score per
system. A metric's system score is the mean over its non-missing segments; the missing ones are counted per
(metric, system) and reported.

How sure: a paired bootstrap over documents. One draw of documents (with replacement, as many as there are) is
shared by every metric and every system; each resample's system scores are the means over the drawn documents'
non-missing segments (weights @ per-document sums, / weights @ per-document counts), and the rule is applied to
them. Draws come from the one resampling engine (:class:`mtscore.significance.Draws`, the ``counts`` scheme).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidParameterError, plural
from ..significance._resample import Draws
from . import rules as R

DEFAULT_N = 1000
MAX_N = 10 ** 6
DEFAULT_SEED = 12345
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class MetricScores:
    """One metric's input, one of three kinds:

    * ``seg[S, N]``: per-segment scores (NaN = missing); a system's score is the mean of its scored segments;
    * ``stats[S, N, C]`` and ``scorer``: a metric computed in this run, its per-segment sufficient statistics and
      its corpus scoring function (vectorized over leading axes), so the system score is the metric's own
      corpus score (corpus BLEU, not a mean of sentence BLEU) and a resample scores the drawn statistics;
    * ``sys[S]``: system-level scores only (no segments: no bootstrap).
    """

    name: str
    higher_is_better: bool
    signature: str = ""
    seg: np.ndarray | None = None
    sys: np.ndarray | None = None
    source: str = ""  # where the scores came from (a file, or "computed")
    stats: np.ndarray | None = None
    scorer: object = None

    @property
    def segment_level(self) -> bool:
        return self.seg is not None or self.stats is not None

    def seg_stats(self) -> tuple[np.ndarray, object]:
        """(statistics [S, N, C], scoring function) of a segment-level metric; segment scores become the two
        columns (score or 0, 1 if scored) scored by their ratio."""
        if self.stats is not None:
            return self.stats, self.scorer
        ok = ~np.isnan(self.seg)
        return np.stack([np.where(ok, self.seg, 0.0), ok.astype(np.float64)], axis=-1), _ratio


def _ratio(summed):
    summed = np.asarray(summed, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(summed[..., 1] > 0, summed[..., 0] / np.where(summed[..., 1] > 0, summed[..., 1], 1.0),
                        np.nan)


@dataclass
class RankInput:
    """Everything one ranking needs, for one language pair (or one slice of data)."""

    systems: list
    metrics: list  # of MetricScores
    docs: np.ndarray | None = None  # [N] document index of each segment (None: no per-segment metric)
    doc_names: list = field(default_factory=list)
    domains: list | None = None  # [N] domain of each segment (None: unknown)
    label: str = ""  # e.g. the language pair
    metadata: dict = field(default_factory=dict)  # column -> {system: value}

    def __post_init__(self):
        S = len(self.systems)
        if S < 2:
            raise InvalidParameterError(f"rank: a ranking needs at least two systems, got {S}")
        if len(set(self.systems)) != S:
            dup = sorted({s for s in self.systems if self.systems.count(s) > 1})
            raise InvalidParameterError(f"rank: system names must be unique; repeated: {', '.join(dup)}")
        if not self.metrics:
            raise InvalidParameterError("rank: no metric to rank with")
        if self.docs is not None and len(self.docs) == 0:
            raise InvalidParameterError("rank: the inputs have no segment (empty files?)")
        names = [m.name for m in self.metrics]
        if len(set(names)) != len(names):
            raise InvalidParameterError(f"rank: metric names must be unique, got {', '.join(names)}")
        for m in self.metrics:
            if m.segment_level:
                shape = (m.seg if m.seg is not None else m.stats).shape[:2]
                if self.docs is None or shape != (S, len(self.docs)):
                    n = None if self.docs is None else len(self.docs)
                    raise InvalidParameterError(f"rank: metric {m.name}: segment scores of shape {shape}, "
                                                f"expected ({S}, {n}) (systems x segments)")
            elif m.sys is None or np.shape(m.sys) != (S,):
                raise InvalidParameterError(f"rank: metric {m.name}: expected {S} system scores")

    @property
    def per_segment(self) -> bool:
        return all(m.segment_level for m in self.metrics)

    def subset(self, keep_segments: np.ndarray | None = None, keep_systems=None) -> "RankInput":
        """The same input restricted to some segments (a boolean mask) and/or systems (names, in order)."""
        sys_idx = list(range(len(self.systems))) if keep_systems is None else \
            [self.systems.index(s) for s in keep_systems]
        mets = []
        def cut(a):
            if a is None:
                return None
            a = a[sys_idx]
            return a if keep_segments is None else a[:, keep_segments]
        for m in self.metrics:
            sy = None if m.sys is None else np.asarray(m.sys)[sys_idx]
            mets.append(MetricScores(m.name, m.higher_is_better, m.signature, cut(m.seg), sy, m.source,
                                     cut(m.stats), m.scorer))
        docs, doc_names, domains = self.docs, self.doc_names, self.domains
        if keep_segments is not None and docs is not None:
            docs = docs[keep_segments]
            domains = None if domains is None else [d for d, k in zip(domains, keep_segments) if k]
        systems = [self.systems[i] for i in sys_idx]
        meta = {c: {s: v.get(s) for s in systems} for c, v in self.metadata.items()}
        return RankInput(systems, mets, docs, doc_names, domains, self.label, meta)


@dataclass(frozen=True)
class Uncertainty:
    """The bootstrap's answer. Arrays follow the result's system order."""

    n: int
    seed: object
    alpha: float
    n_docs: int
    low: np.ndarray  # [S] percentile interval of each system's AutoRank
    high: np.ndarray
    p_first: np.ndarray  # [S] share of resamples where the system has the best AutoRank (ties split)
    better: np.ndarray  # [S, S] True where system i ranks significantly better than j
    clusters: np.ndarray  # [S] cluster number (1 = top)
    invalid: int = 0  # resamples left out: a system had no scored segment in the drawn documents


@dataclass(frozen=True)
class RankResult:
    """An AutoRank table: systems sorted by AutoRank (ties by name), with everything shown."""

    rule: str
    label: str
    systems: list
    metrics: list  # names
    higher_is_better: list
    signatures: list
    raw: np.ndarray  # [M, S] system scores
    scaled: np.ndarray  # [M, S] what the rule averages (robust-scaled scores / scaled ranks)
    autorank: np.ndarray  # [S]
    missing: np.ndarray  # [M, S] missing segment scores (0 for system-level input)
    segments: np.ndarray  # [M, S] scored segments (0 for system-level input)
    top: int | None = None
    uncertainty: Uncertainty | None = None
    metadata: dict = field(default_factory=dict)
    sources: list = field(default_factory=list)
    no_interval: str = ""  # why there is no uncertainty (when there is none)

    @property
    def signature(self) -> str:
        """The ranking's signature: rule, metrics with their direction and signatures, bootstrap settings."""
        parts = [f"autorank:{self.rule}"]
        if self.top is not None:
            parts.append(f"top:{self.top}")
        for m, h, sig in zip(self.metrics, self.higher_is_better, self.signatures):
            parts.append(f"metric:{m}({'higher' if h else 'lower'})" + (f"[{sig}]" if sig else ""))
        u = self.uncertainty
        if u is not None:
            parts += ["bootstrap:documents", f"n:{u.n}", f"seed:{u.seed}", f"alpha:{u.alpha:g}"]
        return "|".join(parts)


def system_scores(inp: RankInput):
    """(scores [M, S], missing [M, S], scored [M, S]): each metric's system scores (the mean over its non-missing
    segments; a computed metric's corpus score), its missing and its scored segments."""
    M, S = len(inp.metrics), len(inp.systems)
    X = np.empty((M, S))
    miss = np.zeros((M, S), dtype=np.int64)
    cnt = np.zeros((M, S), dtype=np.int64)
    for i, m in enumerate(inp.metrics):
        where = m.source or "input"
        if not m.segment_level:
            X[i] = np.asarray(m.sys, dtype=np.float64)
        elif m.seg is None:
            X[i] = np.asarray(m.scorer(m.stats.sum(axis=1)), dtype=np.float64)
            cnt[i] = m.stats.shape[1]
        else:
            ok = ~np.isnan(m.seg)
            cnt[i] = ok.sum(axis=1)
            miss[i] = m.seg.shape[1] - cnt[i]
            for j in np.flatnonzero(cnt[i] == 0):
                raise InvalidParameterError(f"rank: metric {m.name}: system {inp.systems[j]} has no scored segment "
                                            f"({plural(m.seg.shape[1], 'segment')}, all missing; {where})")
            X[i] = np.where(ok, m.seg, 0.0).sum(axis=1) / cnt[i]
        if not np.all(np.isfinite(X[i])):
            j = int(np.flatnonzero(~np.isfinite(X[i]))[0])
            raise InvalidParameterError(f"rank: metric {m.name}: system {inp.systems[j]}'s score is not finite "
                                        f"({X[i, j]}; {where})")
    return X, miss, cnt


def doc_stats(inp: RankInput) -> list:
    """Per metric: the statistics summed per (system, document), [S, D, C], and the scoring function."""
    docs = np.asarray(inp.docs, dtype=np.int64)
    D = int(docs.max()) + 1 if len(docs) else 0
    out = []
    for m in inp.metrics:
        st, fn = m.seg_stats()
        S, N, Cc = st.shape
        ds = np.zeros((S, D, Cc))
        for j in range(S):
            for c in range(Cc):
                ds[j, :, c] = np.bincount(docs, weights=st[j, :, c], minlength=D)
        out.append((ds, fn))
    return out


def resampled_autorank(rule: str, inp: RankInput, n: int, seed, top: int | None = None,
                       batch: int | None = None) -> np.ndarray:
    """[n, S] AutoRank of each bootstrap resample (rows with a system left without scored segments: NaN)."""
    higher = [m.higher_is_better for m in inp.metrics]
    per_metric = doc_stats(inp)
    S = len(inp.systems)
    D = per_metric[0][0].shape[1]
    mats = [(ds.transpose(1, 0, 2).reshape(D, -1), ds.shape[2], fn) for ds, fn in per_metric]  # [D, S*C]
    out = np.empty((n, S))
    start = 0
    for W in Draws.of(seed).bootstrap_weights(D, n, scheme="counts", batch=batch):
        b = W.shape[0]
        X = np.empty((b, len(mats), S))
        for i, (A, Cc, fn) in enumerate(mats):
            with np.errstate(invalid="ignore", divide="ignore"):
                X[:, i, :] = fn((W @ A).reshape(b, S, Cc))
        bad = ~np.isfinite(X).all(axis=(1, 2))
        X[bad] = 0.0
        ar = R.autorank(rule, X, higher, top)
        ar[bad] = np.nan
        out[start:start + b] = ar
        start += b
    return out


def significance(boot: np.ndarray, alpha: float):
    """From the valid resamples [n, S]: percentile intervals, P(first), pairwise 'better' and the clusters.

    * interval: the alpha/2 and 1 - alpha/2 percentiles (linear interpolation) of the system's AutoRank;
    * P(first): the share of resamples where the system's AutoRank is the smallest (a tie shares the resample);
    * i is significantly better than j when the 1 - alpha percentile interval of AutoRank_i - AutoRank_j lies
      wholly below 0;
    * clusters (in the order of the observed AutoRank, ``order``): a boundary falls after position k when every
      system above it is significantly better than every system below it (WMT's human-ranking convention).
    """
    S = boot.shape[1]
    lo = np.percentile(boot, 100 * alpha / 2, axis=0)
    hi = np.percentile(boot, 100 * (1 - alpha / 2), axis=0)
    best = boot.min(axis=1, keepdims=True)
    is_best = boot == best
    p_first = (is_best / is_best.sum(axis=1, keepdims=True)).mean(axis=0)
    better = np.zeros((S, S), dtype=bool)
    for i in range(S):  # one row of differences at a time: memory O(n x S), never O(n x S x S)
        better[i] = np.percentile(boot[:, i:i + 1] - boot, 100 * (1 - alpha / 2), axis=0) < 0
    np.fill_diagonal(better, False)
    return lo, hi, p_first, better


def clusters_of(better: np.ndarray, order) -> np.ndarray:
    """Cluster numbers (1 = top) of the systems in ``order`` (indices, best first); see :func:`significance`."""
    S = len(order)
    cl = np.zeros(S, dtype=np.int64)
    c = 1
    for k, i in enumerate(order):
        cl[i] = c
        if k + 1 < S:
            above, below = order[:k + 1], order[k + 1:]
            if better[np.ix_(above, below)].all():
                c += 1
    return cl


def rank(inp: RankInput, rule: str = "wmt25", *, n: int = DEFAULT_N, seed=DEFAULT_SEED,
         alpha: float = DEFAULT_ALPHA, top: int | None = None, batch: int | None = None) -> RankResult:
    """AutoRank of ``inp`` under ``rule`` (``wmt25`` or ``wmt24``) and, with ``n`` > 0 and per-segment input, the
    paired document bootstrap's intervals, P(first) and clusters."""
    if rule not in R.RULES:
        raise InvalidParameterError.choice("--autorank", rule, R.RULES)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or not 0 <= n <= MAX_N:
        raise InvalidParameterError(f"--resamples: expected a number of resamples from 0 to {MAX_N:,}, got {n!r}")
    if not (0 < alpha < 1):
        raise InvalidParameterError(f"--alpha: expected a level in (0, 1), got {alpha!r}")
    if top is not None and rule != "wmt24":
        raise InvalidParameterError(f"--scale-top: only the wmt24 rule takes a scale top, not {rule}")
    if top is not None and top < len(inp.systems):
        raise InvalidParameterError(f"--scale-top: {top} is below the number of systems ({len(inp.systems)})")
    higher = [m.higher_is_better for m in inp.metrics]
    X, miss, cnt = system_scores(inp)
    ar = R.autorank(rule, X, higher, top)
    sc = R.scaled(rule, X, higher, top)
    order = sorted(range(len(inp.systems)), key=lambda i: (ar[i], inp.systems[i]))
    unc = None
    why = "--resamples 0" if not n else "" if inp.per_segment else \
        "metric(s) with system-level scores only: " + ", ".join(m.name for m in inp.metrics if not m.segment_level)
    if n and inp.per_segment:
        boot = resampled_autorank(rule, inp, int(n), seed, top, batch)
        valid = ~np.isnan(boot).any(axis=1)
        if valid.sum() < 2:
            raise InvalidParameterError(f"--resamples: only {plural(int(valid.sum()), 'resample')} of {n} left "
                                        "every system a scored segment; the interval is undefined")
        lo, hi, pf, better = significance(boot[valid], alpha)
        cl = clusters_of(better, order)
        D = len(inp.doc_names) if inp.doc_names else int(np.max(inp.docs)) + 1
        unc = Uncertainty(int(n), seed, float(alpha), D, lo[order], hi[order], pf[order],
                          better[np.ix_(order, order)], cl[order], int((~valid).sum()))
    o = np.asarray(order)
    return RankResult(rule, inp.label, [inp.systems[i] for i in order], [m.name for m in inp.metrics], higher,
                      [m.signature for m in inp.metrics], X[:, o], sc[:, o], ar[o], miss[:, o], cnt[:, o], top, unc,
                      {c: {s: v.get(s) for s in inp.systems} for c, v in inp.metadata.items()},
                      [m.source for m in inp.metrics], why)


def input_digest(inp: RankInput) -> str:
    """A short digest of the scores a ranking used (for reproducibility notes)."""
    h = hashlib.sha256()
    for m in inp.metrics:
        arr = m.seg if m.seg is not None else np.asarray(m.sys, dtype=np.float64)
        h.update(m.name.encode())
        h.update(np.ascontiguousarray(arr, dtype=np.float64).tobytes())
    return h.hexdigest()[:12]
