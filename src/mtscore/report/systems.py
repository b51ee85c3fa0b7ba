"""The system-comparison report (``mtscore report``): data first, then tables, then HTML.

:func:`build_report` computes everything from plain data — per-segment statistics of registered
metrics (``metric.stats``, ``metric.score``, ``metric.sentence_scores``) — and returns a
:class:`SystemsReport`; :func:`report_tables` turns it into :class:`~mtscore.report.Table` objects
(text / JSON / TSV / CSV / LaTeX / Markdown) and :func:`render_html` into one self-contained page.

Sections: scores with CIs and significance marks; bootstrap distributions of the differences;
per-subset scores (``labels``: one label per segment, else reference-length buckets); length ratio
and BP vs strict BP; n-gram precision by order; sentence-level differences (best and worst
segments by a decomposable metric — 4-GRR alignments or tBLEU corrections highlighted when those
metrics are installed, plain token differences otherwise); the signature of every number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import import_module
from typing import Callable, Mapping, Sequence

import numpy as np

from ..errors import InvalidParameterError
from ..metrics.base import Metric, Stats, normalize_corpus, stats_for
from ..metrics.bleu import BLEU, BLEUSBP
from ..progress import progress
from ..tokenize import tokenize_corpus
from . import svg
from .html import Document, esc
from .resample import PairedBootstrap, paired_bootstrap, significance_mark
from .tables import Marked, Table

LENGTH_BUCKETS = (0, 10, 20, 30, 40)


# ------------------------------------------------------------------------------------------------
# optional pieces from other metric modules, looked up lazily

def optional_attr(module: str, attr: str):
    """``module.attr`` or None when the module or attribute is absent (metric not installed)."""
    try:
        return getattr(import_module(module), attr)
    except (ImportError, AttributeError):
        return None


def grr_aligner() -> Callable | None:
    return optional_attr("mtscore.metrics.grr", "grr_align")


def tbleu_explainer() -> Callable | None:
    return optional_attr("mtscore.metrics.tbleu", "explain")


# ------------------------------------------------------------------------------------------------
@dataclass
class MetricSection:
    metric: Metric
    stats: list[Stats]  # per system
    boot: PairedBootstrap
    signature: str


@dataclass
class SubsetResult:
    label: str
    n: int
    scores: dict[str, np.ndarray]  # metric name -> [S]
    ci: dict[str, tuple]  # metric name -> per-system CI
    p: dict[str, tuple]  # metric name -> per-system p vs baseline


@dataclass
class Example:
    index: int  # 0-based segment
    delta: float
    scores: tuple[float, float]  # baseline, system
    ref: str
    base: str
    hyp: str
    base_html: str
    hyp_html: str
    ref_html: str


@dataclass
class SentenceDiff:
    system: str
    metric_name: str
    signature: str
    deltas: np.ndarray
    best: list[Example]
    worst: list[Example]
    highlight: str  # "4-grr alignment", "tbleu corrections", "token diff"
    note: str = ""


@dataclass
class SystemsReport:
    systems: list[str]
    n_segments: int
    nrefs: int | str
    baseline: int
    n_resamples: int
    seed: object
    level: float
    metrics: list[MetricSection]
    bleu: MetricSection
    sbp: MetricSection
    subsets: list[SubsetResult]
    subset_kind: str  # "labels" or "reference length"
    precisions: dict  # system -> (values [N], cis [N])
    sentence: list[SentenceDiff]
    lengths: dict = field(default_factory=dict)  # system -> per-segment hyp/ref ratio arrays

    def signature(self) -> str:
        return (f"report|test:bs|n:{self.n_resamples}|seed:{self.seed}|ci:{self.level:g}"
                f"|baseline:{self.systems[self.baseline]}|p:paired-bs-ge")


# ------------------------------------------------------------------------------------------------
class _Precision:
    """Adapter scoring one n-gram order's precision (percent) from BLEU statistics."""

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


def _subset_groups(labels, ref_len: np.ndarray) -> tuple[list[tuple[str, np.ndarray]], str]:
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


def build_report(systems: Mapping[str, Sequence[str]], refs, metrics: Sequence[Metric] = (),
                 labels: Sequence[str] | None = None, n_resamples: int = 1000, seed=12345, level: float = 0.95,
                 baseline: int = 0, examples: int = 10, subset_ci: bool = True) -> SystemsReport:
    """Compute every number of the report. ``systems`` = {name: hypotheses}; ``refs`` sentence-major."""
    names = list(systems)
    if len(names) < 1:
        raise InvalidParameterError("systems: at least one system is needed")
    if not 0 <= baseline < len(names):
        raise InvalidParameterError(f"baseline: must index one of the {len(names)} systems, got {baseline}")
    if not isinstance(examples, int) or examples < 0:
        raise InvalidParameterError(f"examples: must be an integer >= 0, got {examples!r}")
    hyps = {}
    for n in names:
        h, r = normalize_corpus(systems[n], refs)
        hyps[n] = h
    refs = r
    N = len(refs)
    if labels is not None:
        labels = [str(x) for x in labels]
        if len(labels) != N:
            raise InvalidParameterError(f"labels: {len(labels)} labels for {N} segments (one label per segment)")
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

    def section(m):
        st = stats[id(m)]
        pb = paired_bootstrap(m, names, st, n_resamples, seed, level, baseline)
        return MetricSection(m, st, pb, f"{m.display_name}|{st[0].signature}")

    secs = [section(m) for m in metrics]
    bleu_sec = next((s for s in secs if s.metric is bleu), None) or section(bleu)
    sbp_sec = next((s for s in secs if s.metric is sbp), None) or section(sbp)

    # subsets
    ref_len = bleu_sec.stats[0].column("ref_len")
    groups, kind = _subset_groups(labels, ref_len)
    subsets = []
    for k, (lab, idx) in enumerate(groups):
        sc, ci, pv = {}, {}, {}
        for s in secs:
            if subset_ci:
                pb = paired_bootstrap(s.metric, names, s.stats, n_resamples, [seed, k] if isinstance(seed, int) else seed,
                                      level, baseline, subset=idx)
                sc[s.metric.name], ci[s.metric.name], pv[s.metric.name] = pb.scores, pb.ci, pb.p_values
            else:
                sc[s.metric.name] = np.array([float(s.metric.score(x.values[idx].sum(0))) for x in s.stats])
                ci[s.metric.name] = tuple((None, None) for _ in names)
                pv[s.metric.name] = tuple(None for _ in names)
        subsets.append(SubsetResult(lab, len(idx), sc, ci, pv))

    # n-gram precisions (with bootstrap CIs, same resamples as the scores)
    order = bleu.config.max_order
    precisions = {}
    from .resample import bootstrap_scores, percentile_ci
    per_order = []
    for o in range(1, order + 1):
        ad = _Precision(o, order)
        full = [float(ad.score(x.sum())) for x in bleu_sec.stats]
        samp = bootstrap_scores(ad, bleu_sec.stats, n_resamples, seed)
        per_order.append((full, [percentile_ci(samp[:, i], level) for i in range(len(names))]))
    for i, n in enumerate(names):
        precisions[n] = ([po[0][i] for po in per_order], [po[1][i] for po in per_order])

    lengths = {}
    for i, n in enumerate(names):
        hl, rl = bleu_sec.stats[i].column("hyp_len"), bleu_sec.stats[i].column("ref_len")
        with np.errstate(divide="ignore", invalid="ignore"):
            lengths[n] = np.where(rl > 0, hl / np.where(rl > 0, rl, 1), np.nan)

    sentence = _sentence_diffs(names, hyps, refs, secs, bleu_sec, baseline, examples) if len(names) > 1 else []
    return SystemsReport(names, N, nrefs, baseline, n_resamples, seed, level, secs, bleu_sec, sbp_sec, subsets, kind,
                         precisions, sentence, lengths)


# ------------------------------------------------------------------------------------------------
# sentence-level differences

def _token_diff(hyp_toks: list[str], ref_toks: list[str]) -> tuple[str, str]:
    """Hypothesis tokens found in the reference (clipped, left to right) vs hypothesis-only tokens;
    reference tokens not covered by the hypothesis."""
    avail: dict[str, int] = {}
    for t in ref_toks:
        avail[t] = avail.get(t, 0) + 1
    hout = []
    used: dict[str, int] = {}
    for t in hyp_toks:
        if avail.get(t, 0) > 0:
            avail[t] -= 1
            used[t] = used.get(t, 0) + 1
            hout.append(f'<span class="tok-m">{esc(t)}</span>')
        else:
            hout.append(f'<span class="tok-x" title="not in the reference">{esc(t)}</span>')
    rout = []
    for t in ref_toks:
        if used.get(t, 0) > 0:
            used[t] -= 1
            rout.append(f'<span class="tok-m">{esc(t)}</span>')
        else:
            rout.append(f'<span class="tok-r" title="missing from the hypothesis">{esc(t)}</span>')
    return " ".join(hout), " ".join(rout)


def _render_grr(al, hyp_toks, ref_toks) -> str:
    ops = getattr(al, "ops", al)
    out = []
    for op in ops:
        kind = str(op[0])
        hi, ri = op[1], op[2]
        ht = hyp_toks[hi] if hi is not None else ""
        rt = ref_toks[ri] if ri is not None else ""
        if kind == "match":
            out.append(f'<span class="op op-match">{esc(ht)}</span>')
        elif kind == "sub":
            out.append(f'<span class="op op-sub" title="substitutes {esc(rt)}">{esc(ht)}→{esc(rt)}</span>')
        elif kind == "ins":
            out.append(f'<span class="op op-ins" title="inserted">{esc(ht)}</span>')
        elif kind == "del":
            out.append(f'<span class="op op-del" title="deleted reference word">{esc(rt)}</span>')
        else:
            raise ValueError(f"unknown alignment op {kind!r}")
    return " ".join(out)


def _render_tbleu(ex) -> str:
    view = ex.references[0]
    out = []
    for link in view.links:
        w = esc(link.test_word)
        tip = f"weight {link.weight:.2f}" + (f", affix distance {link.distance:.2f}" if link.distance is not None else "")
        if link.corrected:
            out.append(f'<span class="op op-sub" title="corrected to {esc(link.ref_word)}; {tip}">{w}→'
                       f"{esc(link.ref_word)}</span>")
        elif link.ref_word is not None and link.ref_word == link.test_word:
            out.append(f'<span class="op op-match" title="{tip}">{w}</span>')
        else:
            out.append(f'<span class="op op-ins" title="unmatched; {tip}">{w}</span>')
    return " ".join(out)


def _sentence_diffs(names, hyps, refs, secs, bleu_sec, baseline, k) -> list[SentenceDiff]:
    # the first decomposable metric asked for (4-GRR, WER ...), else sentence BLEU
    use = next((s for s in secs if s.metric.decomposable), None) or bleu_sec
    m = use.metric
    sign = 1.0 if m.higher_is_better else -1.0
    sent = [np.asarray(m.sentence_scores(st), dtype=np.float64) for st in use.stats]
    sig = f"{m.display_name}|{m.sentence_signature(use.stats[0])}"
    cfg = getattr(m, "config", None)
    tok = getattr(cfg, "tokenize", "13a") or "13a"
    lc = bool(getattr(cfg, "lowercase", False))
    align = grr_aligner() if m.name in ("4-grr", "k-grr") else None
    explain = tbleu_explainer() if m.name == "tbleu" else None
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
        mode, note = "token diff", ""
        ref0 = [refs[i][0] for i in chosen]
        toks = {key: tokenize_corpus(lines, tok, lowercase=lc) for key, lines in
                (("ref", ref0), ("base", [hyps[b][i] for i in chosen]), ("hyp", [hyps[n][i] for i in chosen]))}
        rendered = {}
        for j, i in enumerate(chosen):
            rt = toks["ref"][j].split()
            bt, ht = toks["base"][j].split(), toks["hyp"][j].split()
            try:
                if align is not None:
                    kw = {}
                    for f_ in ("alpha", "beta", "k"):
                        if hasattr(cfg, f_):
                            kw[f_] = getattr(cfg, f_)
                    bh = _render_grr(align(bt, rt, **kw), bt, rt)
                    hh = _render_grr(align(ht, rt, **kw), ht, rt)
                    rh = " ".join(esc(t) for t in rt)
                    mode = "4-GRR alignment (best Viterbi path vs the first reference)"
                elif explain is not None:
                    params = {f_: getattr(cfg, f_) for f_ in ("tokenize", "lowercase", "max_order", "multi_ref")
                              if hasattr(cfg, f_)}
                    eps = getattr(cfg, "epsilon", None)
                    if eps is not None:
                        params["epsilon"] = eps
                    bh = _render_tbleu(explain(hyps[b][i], refs[i], **params))
                    hh = _render_tbleu(explain(hyps[n][i], refs[i], **params))
                    rh = " ".join(esc(t) for t in rt)
                    mode = "tBLEU corrections (vs the first reference)"
                else:
                    raise LookupError
            except LookupError:
                bh, rh = _token_diff(bt, rt)
                hh, _ = _token_diff(ht, rt)
            except Exception as exc:  # an optional module with another API: fall back, say so
                note = f"highlighting fell back to token differences ({type(exc).__name__}: {exc})"
                bh, rh = _token_diff(bt, rt)
                hh, _ = _token_diff(ht, rt)
            rendered[i] = (bh, hh, rh)

        def ex(i):
            bh, hh, rh = rendered[i]
            return Example(int(i), float(deltas[i]), (float(sent[baseline][i]), float(sent[si][i])), refs[i][0],
                           hyps[b][i], hyps[n][i], bh, hh, rh)
        out.append(SentenceDiff(n, m.display_name, sig, deltas, [ex(i) for i in best], [ex(i) for i in worst],
                                mode, note))
    return out


# ------------------------------------------------------------------------------------------------
# tables

def _pfmt_cols(t: Table) -> Table:
    for c in t.columns:
        if c.startswith("p ") or c == "p":
            t.col_digits[c] = 4
    return t


def score_table(r: SystemsReport, digits: int = 2) -> Table:
    pct = int(round(r.level * 100))
    cols = ["system"]
    for s in r.metrics:
        lab = s.metric.display_name + ("" if s.metric.higher_is_better else " (lower is better)")
        cols += [lab, f"{s.metric.display_name} {pct}% CI", f"p {s.metric.display_name}"]
    rows = []
    for i, n in enumerate(r.systems):
        row = [n + (" (baseline)" if i == r.baseline else "")]
        for s in r.metrics:
            p = s.boot.p_values[i]
            row += [Marked(float(s.boot.scores[i]), significance_mark(p)), s.boot.ci[i], p]
        rows.append(row)
    notes = [s.signature for s in r.metrics] + [r.signature(),
             f"* p < 0.05, ** p < 0.01 vs the baseline (paired bootstrap, {r.n_resamples} resamples); "
             f"CI = {pct}% percentile bootstrap interval"]
    return _pfmt_cols(Table(cols, rows, title="Scores", notes=notes, digits=digits,
                            meta={"signature": r.signature()}))


def difference_table(r: SystemsReport, digits: int = 2) -> Table:
    pct = int(round(r.level * 100))
    rows = []
    b = r.systems[r.baseline]
    for s in r.metrics:
        for i, n in enumerate(r.systems):
            if i == r.baseline:
                continue
            d = float(s.boot.scores[i] - s.boot.scores[r.baseline])
            p = s.boot.p_values[i]
            rows.append([s.metric.display_name, f"{n} - {b}", Marked(d, significance_mark(p)), s.boot.diff_ci[i],
                         float(np.mean(s.boot.diff_samples[:, i] > 0)), p])
    return _pfmt_cols(Table(["metric", "difference", "delta", f"delta {pct}% CI", "P(delta > 0)", "p"], rows,
                            title="Differences vs the baseline", notes=[r.signature()] + [s.signature for s in r.metrics],
                            digits=digits, col_digits={"P(delta > 0)": 3}))


def subset_table(r: SystemsReport, digits: int = 2) -> Table:
    cols = ["subset", "segments"]
    for s in r.metrics:
        for n in r.systems:
            cols += [f"{n}: {s.metric.display_name}", f"{n}: {s.metric.display_name} CI"]
    rows = []
    for sub in r.subsets:
        row = [sub.label, sub.n]
        for s in r.metrics:
            sc, ci, pv = sub.scores[s.metric.name], sub.ci[s.metric.name], sub.p[s.metric.name]
            for i, _ in enumerate(r.systems):
                row += [Marked(float(sc[i]), significance_mark(pv[i])), ci[i]]
        rows.append(row)
    return Table(cols, rows, title=f"Scores per subset ({r.subset_kind})", digits=digits,
                 notes=[s.signature for s in r.metrics] + [r.signature() + "|subset-seed:[seed,k]"])


def length_table(r: SystemsReport, digits: int = 3) -> Table:
    rows = []
    for i, n in enumerate(r.systems):
        b = r.bleu.metric.corpus_from_stats(r.bleu.stats[i]).components
        s = r.sbp.stats[i].sum()
        sres = r.sbp.metric.corpus_from_stats(r.sbp.stats[i])
        clip = _num(float(s[r.sbp.metric.columns.index("clip_len")]))
        rows.append([n, b["hyp_len"], b["ref_len"], b["ratio"], b["bp"], _num(float(s[1])), clip,
                     sres.components["bp"], float(r.bleu.boot.scores[i]), float(r.sbp.boot.scores[i])])
    cols = ["system", "hyp len", f"ref len ({r.bleu.metric.config.ref_length})", "ratio", "BP",
            f"ref len ({r.sbp.metric.config.ref_length})", "sum min(c,r)", "SBP", "BLEU", "BLEU-SBP"]
    return Table(cols, rows, title="Length ratio, brevity penalty (BP) and strict brevity penalty (SBP)",
                 notes=[r.bleu.signature, r.sbp.signature], digits=digits,
                 col_digits={"BLEU": 2, "BLEU-SBP": 2})


def _num(x: float):
    return int(x) if float(x).is_integer() else x


def precision_table(r: SystemsReport, digits: int = 2) -> Table:
    order = r.bleu.metric.config.max_order
    cols = ["system"]
    for o in range(1, order + 1):
        cols += [f"{o}-gram", f"{o}-gram CI"]
    rows = []
    for n in r.systems:
        vals, cis = r.precisions[n]
        row = [n]
        for v, c in zip(vals, cis):
            row += [v, c]
        rows.append(row)
    return Table(cols, rows, title="Clipped n-gram precision (%) by order", digits=digits,
                 notes=[r.bleu.signature, r.signature()])


def example_table(sd: SentenceDiff, r: SystemsReport, digits: int = 2) -> Table:
    b = r.systems[r.baseline]
    rows = []
    for kind, exs in (("better", sd.best), ("worse", sd.worst)):
        for e in exs:
            rows.append([kind, e.index + 1, e.scores[0], e.scores[1], e.delta, e.ref, e.base, e.hyp])
    return Table(["", "segment", b, sd.system, "delta", "reference", f"{b} output", f"{sd.system} output"], rows,
                 title=f"Segments that change most ({sd.metric_name}, {sd.system} vs {b})", notes=[sd.signature],
                 digits=digits)


def report_tables(r: SystemsReport, digits: int = 2) -> list[Table]:
    out = [score_table(r, digits)]
    if len(r.systems) > 1:
        out.append(difference_table(r, digits))
    out += [subset_table(r, digits), length_table(r), precision_table(r, digits)]
    out += [example_table(sd, r, digits) for sd in r.sentence]
    return out


# ------------------------------------------------------------------------------------------------
# HTML

def render_html(r: SystemsReport, title: str = "mtscore report", digits: int = 2) -> str:
    doc = Document(title, f"{len(r.systems)} systems · {r.n_segments} segments · nrefs {r.nrefs} · "
                          f"baseline {r.systems[r.baseline]} · {r.signature()}")
    pct = int(round(r.level * 100))
    names = r.systems

    sec = doc.section("Scores")
    sec.table(score_table(r, digits))
    for m in r.metrics:
        sec.figure(svg.bar_chart(names, {m.metric.display_name: list(m.boot.scores)},
                                 {m.metric.display_name: list(m.boot.ci)}, title=m.metric.display_name,
                                 ylabel=m.metric.display_name, width=max(320, 110 * len(names) + 80), height=260,
                                 digits=digits),
                   f"{m.metric.display_name} with {pct}% bootstrap CIs. {m.signature}")

    if len(names) > 1:
        sec = doc.section("Bootstrap differences")
        sec.text(f"Distribution of the score difference (system - baseline) over {r.n_resamples} paired bootstrap "
                 f"resamples (seed {r.seed}); the shaded band is the {pct}% interval, the solid line 0, "
                 "the dashed line the observed difference.", "muted")
        sec.table(difference_table(r, digits))
        for m in r.metrics:
            for i, n in enumerate(names):
                if i == r.baseline:
                    continue
                d = float(m.boot.scores[i] - m.boot.scores[r.baseline])
                sec.figure(svg.histogram({f"{n} - {names[r.baseline]}": m.boot.diff_samples[:, i]},
                                         vlines=[(0.0, "0"), (d, f"observed {d:+.{digits}f}")],
                                         shade=m.boot.diff_ci[i], title=f"{m.metric.display_name}: {n} - "
                                         f"{names[r.baseline]}", xlabel=f"difference in {m.metric.display_name}",
                                         digits=digits),
                           f"p = {m.boot.p_values[i]:.4f} ({m.boot.signature()})")

    sec = doc.section("Subsets")
    if r.subset_kind == "labels":
        sec.text("Scores on the segments of each label (from --labels), with per-subset paired bootstrap CIs; "
                 "marks compare each system with the baseline within the subset.", "muted")
    else:
        sec.text("No --labels given: segments are grouped by effective reference length (tokens). "
                 "Per-subset paired bootstrap CIs; marks compare with the baseline within the subset.", "muted")
    sec.table(subset_table(r, digits))
    shown = sorted(r.subsets, key=lambda s: -s.n)[:30] if r.subset_kind == "labels" else r.subsets
    if r.subset_kind == "labels":
        shown = [s for s in r.subsets if s in shown]
    for m in r.metrics:
        key = m.metric.name
        series = {n: [float(s.scores[key][i]) for s in shown] for i, n in enumerate(names)}
        errs = {n: [s.ci[key][i] for s in shown] for i, n in enumerate(names)}
        sec.figure(svg.bar_chart([s.label for s in shown], series, errs, title=f"{m.metric.display_name} per subset",
                                 ylabel=m.metric.display_name, width=min(1100, max(480, 60 * len(shown) * len(names))),
                                 height=300, digits=digits),
                   f"{m.metric.display_name} per subset with {pct}% CIs"
                   + (f" (the {len(shown)} largest of {len(r.subsets)} subsets)" if len(shown) < len(r.subsets) else ""))

    sec = doc.section("Length and brevity penalty")
    sec.text("BLEU's brevity penalty (BP) compares total lengths, so long segments can hide short ones; the strict "
             "BP of BLEU-SBP (Chiang et al. 2008) caps each segment's length at its reference length.", "muted")
    sec.table(length_table(r))
    sec.figure(svg.bar_chart(names, {
        "BP": [r.bleu.metric.corpus_from_stats(st).components["bp"] for st in r.bleu.stats],
        "SBP": [r.sbp.metric.corpus_from_stats(st).components["bp"] for st in r.sbp.stats]},
        title="BP vs strict BP", ylabel="penalty", width=max(320, 130 * len(names) + 80), height=240, digits=3),
        "brevity penalty (closest reference length) and strict brevity penalty per system")
    sec.figure(svg.histogram({n: np.clip(r.lengths[n][np.isfinite(r.lengths[n])], 0, 2.5) for n in names},
                             bins=50, vlines=[(1.0, "ratio 1")], title="Segment length ratio (hyp / ref)",
                             xlabel="hypothesis length / effective reference length (clipped at 2.5)", digits=2),
               "per-segment length ratio distribution")

    sec = doc.section("N-gram precision")
    sec.table(precision_table(r, digits))
    order = r.bleu.metric.config.max_order
    sec.figure(svg.line_chart(list(range(1, order + 1)), {n: r.precisions[n][0] for n in names},
                              errors={n: r.precisions[n][1] for n in names},
                              xlabels=[f"{o}-gram" for o in range(1, order + 1)], title="Clipped n-gram precision",
                              ylabel="precision (%)", xlabel="order", digits=digits),
               f"precision by order with {pct}% bootstrap CIs. {r.bleu.signature}")

    if r.sentence:
        sec = doc.section("Sentence-level differences")
        sec.add('<p class="legend muted">Highlighting: <span class="tok-m">in the reference</span>'
                '<span class="tok-x">hypothesis only</span><span class="tok-r">reference only</span>'
                '<span class="op-sub">substituted / corrected</span><span class="op-del">deleted</span></p>')
        for sd in r.sentence:
            sec.sub(f"{sd.system} vs {names[r.baseline]} by {sd.metric_name} ({sd.highlight})")
            if sd.note:
                sec.text(sd.note, "muted")
            sec.figure(svg.histogram({"delta": sd.deltas}, bins=60, vlines=[(0.0, "0")],
                                     title=f"Segment-level {sd.metric_name} difference",
                                     xlabel=f"{sd.metric_name}({sd.system}) - {sd.metric_name}({names[r.baseline]})",
                                     digits=digits),
                       f"{int((sd.deltas > 0).sum())} segments better, {int((sd.deltas < 0).sum())} worse, "
                       f"{int((sd.deltas == 0).sum())} equal. {sd.signature}")
            for kind, exs in (("Most improved", sd.best), ("Most degraded", sd.worst)):
                sec.add(f"<h3>{esc(kind)} segments</h3>")
                if not exs:
                    sec.text("none", "muted")
                for e in exs:
                    sec.add(f'<div class="seg"><div><b>#{e.index + 1}</b> <span class="muted">'
                            f'{esc(sd.metric_name)} {e.scores[0]:.{digits}f} → {e.scores[1]:.{digits}f} '
                            f'(delta {e.delta:+.{digits}f})</span></div>'
                            f'<div><span class="lab">reference</span>{e.ref_html}</div>'
                            f'<div><span class="lab">{esc(names[r.baseline])}</span>{e.base_html}</div>'
                            f'<div><span class="lab">{esc(sd.system)}</span>{e.hyp_html}</div></div>')

    sec = doc.section("Signatures")
    sec.text("Every number above is reproducible from these signatures (metric parameters, references, "
             "resampling test, resamples, seed, confidence level).", "muted")
    sigs = [s.signature for s in r.metrics] + [r.bleu.signature, r.sbp.signature]
    sigs += [sd.signature + " (sentence scores)" for sd in r.sentence]
    sigs.append(r.signature())
    seen = []
    for s in sigs:
        if s not in seen:
            seen.append(s)
    sec.add("<pre>" + "\n".join(esc(s) for s in seen) + "</pre>")
    return doc.render()
