"""Everything ``mtscore report`` shows, computed as result objects (docs/architecture.md: analysis/).

:func:`build_report` scores every system with every metric once (``metric.stats``), and takes
every resampled number from :mod:`mtscore.significance` — the engine ``mtscore compare`` and the
API use — with ``compare``'s defaults: paired bootstrap (sacreBLEU's statistic and tie rule),
baseline vs every other system, Holm correction, ``alpha`` 0.05, seed 12345. So for the same
data, seed and settings, the report's p-values and intervals are ``compare``'s, number for number:

* per metric: a :class:`~mtscore.significance.ComparisonMatrix` (p, adjusted p, per-system
  percentile CIs, and the difference intervals that invert the test at the corrected level, so a
  mark and its interval cannot disagree);
* per subset (labels, or reference-length buckets): the same comparison on the subset's segments
  (equal to ``compare`` run on those lines);
* n-gram precisions: percentile CIs from the same resamples (:func:`significance.score_intervals`);
* sentence-level differences: segment scores of the first decomposable metric (else sentence
  BLEU), with the tokens of the most changed segments tagged for highlighting (the K-GRR alignment,
  or plain token matches) as :class:`Token` objects.

Rendering (tables, HTML) lives in :mod:`mtscore.report.systems`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..errors import InvalidParameterError, plural
from ..metrics.base import Metric, Stats, normalize_corpus, stats_for
from ..metrics.bleu import BLEU, BLEUSBP
from ..progress import progress
from ..significance import ComparisonMatrix, ConfidenceInterval, compare_stats, score_intervals, untested
from .. import params as P
from ..params import DEFAULT_SEED
from ..tokenize import tokenize_corpus

LENGTH_BUCKETS = (0, 10, 20, 30, 40)


# ------------------------------------------------------------------------------------------------
# result objects

@dataclass
class MetricSection:
    """One metric over all systems: statistics, scores, per-system CIs and the comparison."""

    metric: Metric
    stats: list[Stats]  # per system
    scores: np.ndarray  # [S] corpus scores
    cis: tuple[ConfidenceInterval, ...]  # per system, percentile bootstrap
    comparison: ComparisonMatrix | None  # baseline vs the others (None with one system)
    signature: str
    # why no significance test is reported (too few segments: mtscore.significance.minimum); None when it is
    untested: str | None = None

    def adjusted_p(self, i: int) -> float | None:
        """Adjusted p of system i vs the baseline (None for the baseline / one system / no test)."""
        c = self.comparison
        if c is None or self.untested or c.systems[i] == c.baseline:
            return None
        return c.adjusted(c.baseline, c.systems[i])

    def raw_p(self, i: int) -> float | None:
        c = self.comparison
        if c is None or self.untested or c.systems[i] == c.baseline:
            return None
        return float(c.p[c.systems.index(c.baseline), i])

    def significant(self, i: int) -> bool:
        p = self.adjusted_p(i)
        return p is not None and p < self.comparison.alpha

    def delta_ci(self, i: int):
        c = self.comparison
        if c is None or c.systems[i] == c.baseline:
            return None
        return c.delta_ci(c.baseline, c.systems[i])


@dataclass
class SubsetResult:
    label: str
    n: int
    sections: dict[str, MetricSection]  # metric name -> section on the subset's segments


@dataclass(frozen=True)
class Token:
    """A token to show, with its role: ``match`` (also in the reference), ``extra`` (hypothesis
    only), ``missing`` (reference only), or an alignment operation ``align-match``, ``sub``,
    ``ins``, ``del``; ``target`` the reference word of a substitution/correction, ``note`` a tooltip."""

    text: str
    kind: str
    target: str | None = None
    note: str = ""


@dataclass
class Example:
    index: int  # 0-based segment
    delta: float
    scores: tuple[float, float]  # baseline, system
    ref: str
    base: str
    hyp: str
    base_tokens: tuple[Token, ...]
    hyp_tokens: tuple[Token, ...]
    ref_tokens: tuple[Token, ...]


@dataclass
class SentenceDiff:
    system: str
    metric_name: str
    signature: str
    deltas: np.ndarray
    best: list[Example]
    worst: list[Example]
    highlight: str  # "4-GRR alignment ...", "token diff"
    note: str = ""

    @property
    def n_better(self) -> int:
        return int(np.count_nonzero(self.deltas > 0))

    @property
    def n_worse(self) -> int:
        return int(np.count_nonzero(self.deltas < 0))

    @property
    def n_equal(self) -> int:
        return len(self.deltas) - self.n_better - self.n_worse


@dataclass(frozen=True)
class LengthRow:
    """Lengths and brevity penalties of one system: BLEU's BP (its reference-length rule) and the
    strict BP of BLEU-SBP (segment lengths capped at the reference length)."""

    system: str
    hyp_len: float
    ref_len: float  # BLEU's effective reference length
    ratio: float
    bp: float
    sbp_ref_len: float  # BLEU-SBP's reference length
    clip_len: float  # sum of min(hyp, ref) segment lengths
    sbp: float
    bleu: float
    bleu_sbp: float


@dataclass
class SystemsReport:
    systems: list[str]
    n_segments: int
    nrefs: int | str
    baseline: int
    n_resamples: int
    seed: object
    level: float
    alpha: float
    correction: str
    metrics: list[MetricSection]
    bleu: MetricSection
    sbp: MetricSection
    subsets: list[SubsetResult]
    subset_kind: str  # "labels" or "reference length"
    precisions: dict  # system -> (values [order], cis [order] as ConfidenceInterval)
    sentence: list[SentenceDiff]
    lengths: dict = field(default_factory=dict)  # system -> per-segment hyp/ref ratio arrays
    length_rows: list[LengthRow] = field(default_factory=list)

    def signature(self) -> str:
        return (f"report|test:bs|n:{self.n_resamples}|seed:{self.seed}|ci:{self.level:g}|alpha:{self.alpha:g}"
                f"|corr:{self.correction}|baseline:{self.systems[self.baseline]}")


# ------------------------------------------------------------------------------------------------

class NgramPrecision:
    """Scores one n-gram order's clipped precision (percent) from BLEU statistics (vectorized)."""

    def __init__(self, order: int, max_order: int):
        self.m, self.t = 2 + order - 1, 2 + max_order + order - 1

    def score(self, summed):
        s = np.asarray(summed, dtype=np.float64)
        t = s[..., self.t]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(t > 0, 100.0 * s[..., self.m] / np.where(t > 0, t, 1.0), 0.0)


def _companions(metrics: Sequence[Metric]) -> tuple[Metric, Metric]:
    bleu = next((m for m in metrics if m.name == "bleu"), None)
    sbp = next((m for m in metrics if m.name == "bleu-sbp"), None)
    if bleu is None:
        bleu = BLEU()
    if sbp is None:
        c = bleu.config
        sbp = BLEUSBP(tokenize=c.tokenize, lowercase=c.lowercase, max_order=c.max_order) \
            if c.compat == "sacrebleu" else BLEUSBP()
    return bleu, sbp


def subset_groups(labels, ref_len: np.ndarray) -> tuple[list[tuple[str, np.ndarray]], str]:
    """Segment indices per label (first-seen order), else per reference-length bucket."""
    if labels is not None:
        order: dict[str, list[int]] = {}
        for i, lab in enumerate(labels):
            order.setdefault(lab, []).append(i)
        return [(k, np.array(v, dtype=np.int64)) for k, v in order.items()], "labels"
    edges = list(LENGTH_BUCKETS) + [math.inf]
    groups = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        idx = np.flatnonzero((ref_len >= lo) & (ref_len < hi))
        if len(idx):
            groups.append((f"{lo}-{hi - 1:g}" if hi != math.inf else f"{lo}+", idx))
    return groups, "reference length (tokens)"


def metric_section(metric: Metric, names: Sequence[str], stats: Sequence[Stats], *, n_resamples: int, seed,
                   level: float, baseline: int, alpha: float, correction: str,
                   resample: bool = True) -> MetricSection:
    """Scores, CIs and the baseline comparison of one metric (the engine and defaults of ``compare``)."""
    vals = [s.values for s in stats]
    scores = np.array([float(metric.score(v.sum(axis=0))) for v in vals])
    sig = f"{metric.display_name}|{stats[0].signature}"
    if not resample:
        return MetricSection(metric, list(stats), scores, tuple(None for _ in names), None, sig)
    if len(names) > 1:
        cmp = compare_stats(metric, dict(zip(names, stats)), test="bootstrap", n=n_resamples, seed=seed,
                            baseline=names[baseline], correction=correction, alpha=alpha, level=level)
        # the intervals stay; too few segments: no p-value and no mark (the one rule of compare and analyse docs)
        return MetricSection(metric, list(stats), scores, cmp.cis, cmp, sig, untested(len(vals[0])))
    cis = score_intervals(metric, vals, n=n_resamples, seed=seed, level=level)
    return MetricSection(metric, list(stats), scores, tuple(cis), None, sig)


def build_report(systems: Mapping[str, Sequence[str]], refs, metrics: Sequence[Metric] = (),
                 labels: Sequence[str] | None = None, n_resamples: int = 1000, seed=DEFAULT_SEED,
                 level: float = 0.95, baseline: int = 0, examples: int = 10, subset_ci: bool = True,
                 alpha: float = 0.05, correction: str = "holm") -> SystemsReport:
    """Compute every number of the report. ``systems`` = {name: hypotheses}; ``refs`` sentence-major."""
    names = list(systems)
    if len(names) < 1:
        raise InvalidParameterError("systems: at least one system is needed")
    # arguments by the parameter table (the rules and message of the report command's options)
    P.Param("baseline", "int", 0, lo=0, hi=len(names) - 1).check(baseline)  # an index of the systems
    P.check(P.OPTIONS, "examples", examples)
    P.check(P.SIGNIFICANCE, "correction", correction)
    P.check(P.SIGNIFICANCE, "n", n_resamples, "n_resamples")
    P.check(P.SIGNIFICANCE, "seed", seed)
    P.check(P.SIGNIFICANCE, "level", level)
    P.check(P.SIGNIFICANCE, "alpha", alpha)
    hyps = {}
    r = refs
    for n in names:
        h, r = normalize_corpus(systems[n], refs)
        hyps[n] = h
    refs = r
    N = len(refs)
    if labels is not None:
        labels = [str(x) for x in labels]
        if len(labels) != N:
            raise InvalidParameterError(f"labels: {plural(len(labels), 'label')} for {plural(N, 'segment')} (one label per segment)")
    metrics = list(metrics) or [BLEU()]
    bleu, sbp = _companions(metrics)
    all_metrics = metrics + [m for m in (bleu, sbp) if all(m is not x for x in metrics)]
    stats: dict[int, list[Stats]] = {}
    with progress("statistics", total=len(all_metrics) * len(names), unit="tasks") as bar:
        for m in all_metrics:
            stats[id(m)] = []
            for n in names:
                stats[id(m)].append(stats_for(m, n, hyps[n], refs))  # stored scores: by system name
                bar.update(1)
    nrefs = stats[id(bleu)][0].nrefs
    opts = dict(n_resamples=n_resamples, seed=seed, level=level, baseline=baseline, alpha=alpha,
                correction=correction)

    secs = [metric_section(m, names, stats[id(m)], **opts) for m in metrics]
    bleu_sec = next((s for s in secs if s.metric is bleu), None) or metric_section(bleu, names, stats[id(bleu)], **opts)
    sbp_sec = next((s for s in secs if s.metric is sbp), None) or metric_section(sbp, names, stats[id(sbp)], **opts)

    # subsets: the same comparison on each subset's segments (= compare run on those lines)
    groups, kind = subset_groups(labels, bleu_sec.stats[0].column("ref_len"))
    subsets = []
    for lab, idx in groups:
        sub = {s.metric.name: metric_section(s.metric, names, [x.take(idx) for x in s.stats], resample=subset_ci,
                                             **opts) for s in secs}
        subsets.append(SubsetResult(lab, len(idx), sub))

    # n-gram precisions, CIs from the same resamples as the scores
    order = bleu.config.max_order
    per_order = []
    for o in range(1, order + 1):
        ad = NgramPrecision(o, order)
        full = [float(ad.score(x.sum())) for x in bleu_sec.stats]
        per_order.append((full, score_intervals(ad, [x.values for x in bleu_sec.stats], n=n_resamples, seed=seed,
                                                level=level)))
    precisions = {n: ([po[0][i] for po in per_order], [po[1][i] for po in per_order]) for i, n in enumerate(names)}

    lengths = {}
    for i, n in enumerate(names):
        hl, rl = bleu_sec.stats[i].column("hyp_len"), bleu_sec.stats[i].column("ref_len")
        with np.errstate(divide="ignore", invalid="ignore"):
            lengths[n] = np.where(rl > 0, hl / np.where(rl > 0, rl, 1), np.nan)

    sentence = sentence_diffs(names, hyps, refs, secs, bleu_sec, baseline, examples) if len(names) > 1 else []
    return SystemsReport(names, N, nrefs, baseline, n_resamples, seed, level, alpha, correction, secs, bleu_sec,
                         sbp_sec, subsets, kind, precisions, sentence, lengths,
                         [length_row(n, bleu_sec, sbp_sec, i) for i, n in enumerate(names)])


def length_row(name: str, bleu_sec: MetricSection, sbp_sec: MetricSection, i: int) -> LengthRow:
    b = bleu_sec.metric.corpus_from_stats(bleu_sec.stats[i]).components
    s = sbp_sec.stats[i].sum()
    sres = sbp_sec.metric.corpus_from_stats(sbp_sec.stats[i])
    cols = sbp_sec.metric.columns
    return LengthRow(name, b["hyp_len"], b["ref_len"], b["ratio"], b["bp"], float(s[cols.index("ref_len")]),
                     float(s[cols.index("clip_len")]), sres.components["bp"], float(bleu_sec.scores[i]),
                     float(sbp_sec.scores[i]))


# ------------------------------------------------------------------------------------------------
# sentence-level differences

def token_diff(hyp_toks: Sequence[str], ref_toks: Sequence[str]) -> tuple[tuple[Token, ...], tuple[Token, ...]]:
    """Hypothesis tokens found in the reference (clipped, left to right) vs hypothesis-only tokens;
    reference tokens covered by the hypothesis vs missing ones."""
    avail: dict[str, int] = {}
    for t in ref_toks:
        avail[t] = avail.get(t, 0) + 1
    hout = []
    used: dict[str, int] = {}
    for t in hyp_toks:
        if avail.get(t, 0) > 0:
            avail[t] -= 1
            used[t] = used.get(t, 0) + 1
            hout.append(Token(t, "match"))
        else:
            hout.append(Token(t, "extra", note="not in the reference"))
    rout = []
    for t in ref_toks:
        if used.get(t, 0) > 0:
            used[t] -= 1
            rout.append(Token(t, "match"))
        else:
            rout.append(Token(t, "missing", note="missing from the hypothesis"))
    return tuple(hout), tuple(rout)


GRR_OPS = ("match", "sub", "ins", "del")


def grr_tokens(ops, hyp_toks: Sequence[str], ref_toks: Sequence[str]) -> tuple[Token, ...]:
    """A 4-GRR alignment (``(op, hyp_index, ref_index)`` rows) as tagged tokens."""
    out = []
    for op in ops:
        kind, hi, ri = str(op[0]), op[1], op[2]
        if kind not in GRR_OPS:
            raise InvalidParameterError.choice("alignment op", kind, GRR_OPS)
        ht = hyp_toks[hi] if hi is not None else ""
        rt = ref_toks[ri] if ri is not None else ""
        if kind == "match":
            out.append(Token(ht, "align-match"))
        elif kind == "sub":
            out.append(Token(ht, "sub", rt, f"substitutes {rt}"))
        elif kind == "ins":
            out.append(Token(ht, "ins", note="inserted"))
        else:
            out.append(Token(rt, "del", note="deleted reference word"))
    return tuple(out)


def sentence_diffs(names, hyps, refs, secs, bleu_sec, baseline, k) -> list[SentenceDiff]:
    """Segments that change most vs the baseline, by the first decomposable metric (else sentence BLEU)."""
    from ..metrics.grr import KGRR, grr_align

    use = next((s for s in secs if s.metric.decomposable), None) or bleu_sec
    m = use.metric
    sign = 1.0 if m.higher_is_better else -1.0
    sent = [np.asarray(m.sentence_scores(st), dtype=np.float64) for st in use.stats]
    sig = f"{m.display_name}|{m.sentence_signature(use.stats[0])}"
    cfg = getattr(m, "config", None)
    tok = getattr(cfg, "tokenize", "13a") or "13a"
    lc = bool(getattr(cfg, "lowercase", False))
    out = []
    b = names[baseline]
    for si, n in enumerate(names):
        if si == baseline:
            continue
        deltas = sign * (sent[si] - sent[baseline])
        order = np.argsort(-deltas, kind="stable")
        best = [i for i in order[:k] if deltas[i] > 0]
        worst = [i for i in order[::-1][:k] if deltas[i] < 0]
        chosen = sorted(set(best) | set(worst))
        ref0 = [refs[i][0] for i in chosen]
        toks = {key: tokenize_corpus(lines, tok, lowercase=lc) for key, lines in
                (("ref", ref0), ("base", [hyps[b][i] for i in chosen]), ("hyp", [hyps[n][i] for i in chosen]))}
        if isinstance(m, KGRR):
            mode = "4-GRR alignment (best Viterbi path vs the first reference)" if m.k == 4 else \
                f"{m.k}-GRR alignment (best Viterbi path vs the first reference)"
        else:
            mode = "token diff"
        rendered = {}
        for j, i in enumerate(chosen):
            rt = toks["ref"][j].split()
            bt, ht = toks["base"][j].split(), toks["hyp"][j].split()
            if isinstance(m, KGRR):
                kw = dict(k=m.k, alpha=m.config.insertion_penalty, beta=m.config.deletion_penalty)
                bh = grr_tokens(grr_align(bt, rt, **kw).ops, bt, rt)
                hh = grr_tokens(grr_align(ht, rt, **kw).ops, ht, rt)
                rh = tuple(Token(t, "plain") for t in rt)
            else:
                bh, rh = token_diff(bt, rt)
                hh, _ = token_diff(ht, rt)
            rendered[i] = (bh, hh, rh)

        def ex(i):
            bh, hh, rh = rendered[i]
            return Example(int(i), float(deltas[i]), (float(sent[baseline][i]), float(sent[si][i])), refs[i][0],
                           hyps[b][i], hyps[n][i], bh, hh, rh)
        out.append(SentenceDiff(n, m.display_name, sig, deltas, [ex(i) for i in best], [ex(i) for i in worst],
                                mode))
    return out
