"""The system-comparison report (``mtscore report``) as tables and one self-contained HTML page.

Rendering only: every number comes from a :class:`~mtscore.analysis.systems.SystemsReport`
(built by :func:`mtscore.analysis.systems.build_report`, whose resampled numbers come from
:mod:`mtscore.significance`, the engine of ``mtscore compare``). :func:`report_tables` turns it
into :class:`~mtscore.report.Table` objects (text / JSON / TSV / CSV / LaTeX / Markdown) and
:func:`render_html` into one page. Significance marks are ``compare``'s: ``*`` when the adjusted
p-value (Holm by default) is below alpha; beside each mark the difference interval that inverts
the same test at the corrected level (so the two cannot disagree).
"""
from __future__ import annotations

from ..errors import plural
import math

import numpy as np

from ..significance.minimum import MIN_SEGMENTS, untested
from . import svg
from .html import Document, esc, esc_sig
from .model import format_p, sig_mark, view
from .tables import Marked, Table

TOKEN_CLASS = {"match": "tok-m", "extra": "tok-x", "missing": "tok-r", "align-match": "op op-match",
               "sub": "op op-sub", "ins": "op op-ins", "del": "op op-del", "plain": ""}


def tokens_html(tokens) -> str:
    """Tagged tokens (:class:`mtscore.analysis.systems.Token`) as HTML spans."""
    out = []
    for t in tokens:
        if t.kind not in TOKEN_CLASS:
            raise ValueError(f"unknown token kind {t.kind!r}")
        cls = TOKEN_CLASS[t.kind]
        text = esc(t.text) if t.target is None else f"{esc(t.text)}→{esc(t.target)}"
        if not cls:
            out.append(text)
            continue
        title = f' title="{esc(t.note)}"' if t.note else ""
        out.append(f'<span class="{cls}"{title}>{text}</span>')
    return " ".join(out)


def interval_cell(ci):
    """A difference interval as a table cell: ``(low, high)``, or the pieces joined by ``∪``; ``unbounded`` when
    the test rejects no difference (too few resamples)."""
    if ci is None:
        return None
    if not _bounded(ci):
        return UNBOUNDED
    if len(ci.pieces) == 1:
        return (ci.low, ci.high)
    return " ∪ ".join(f"({lo:.2f}, {hi:.2f})" for lo, hi in ci.pieces)


def _mark(sec, i, hib: bool = True) -> str:
    """``▲``/``▼``: system i significantly better / worse than the baseline (direction-aware)."""
    c = sec.comparison
    if c is None or not sec.significant(i):
        return ""
    b = c.systems.index(c.baseline)
    return sig_mark(float(sec.scores[i] - sec.scores[b]), sec.adjusted_p(i), c.alpha, hib)


def _views(r, digits: int = 2) -> dict:
    """Registry name -> :class:`~mtscore.report.model.MetricView` of the report's metrics."""
    return {s.metric.name: view(s.metric, digits) for s in r.metrics}


def _scaled_ci(ci, v):
    return None if ci is None else (v.shown(ci[0]), v.shown(ci[1]))


def _ci_tuple(ci):
    return None if ci is None else (ci.low, ci.high)


def _untested(r) -> list[str]:
    """Why the report shows no p-value and no mark (too few segments), as a legend line."""
    return sorted({s.untested + "; p and marks -" for s in r.metrics if getattr(s, "untested", None)})


def _test_note(r) -> str:
    corr = "no correction" if r.correction == "none" else f"{r.correction.capitalize()} correction"
    return (f"▲/▼ = significantly better/worse than the baseline, adjusted p < {r.alpha:g} (paired bootstrap, "
            f"{plural(r.n_resamples, 'resample')}, seed {r.seed}, {corr}; the test and defaults of mtscore compare)")


# ------------------------------------------------------------------------------------------------
# tables

def _pfmt_cols(t: Table) -> Table:
    t.p_cols = tuple(c for c in t.columns if c.startswith(("p ", "p_adj")) or c == "p")
    for c in t.p_cols:
        t.col_digits[c] = 4
    return t


def score_table(r, digits: int = 2) -> Table:
    pct = int(round(r.level * 100))
    views = _views(r, digits)
    cols, marks, col_digits = ["system"], {}, {}
    for s in r.metrics:
        v = views[s.metric.name]
        cols += [v.name, f"{v.name} {pct}% CI", f"p {v.name}", f"p_adj {v.name}"]
        marks[v.name] = " " + v.arrow
        col_digits[v.name] = col_digits[f"{v.name} {pct}% CI"] = v.digits
    rows, tidy = [], []
    for i, n in enumerate(r.systems):
        row = [n + (" (baseline)" if i == r.baseline else "")]
        for s in r.metrics:
            v = views[s.metric.name]
            mark = _mark(s, i, v.higher_is_better)
            ci = _scaled_ci(_ci_tuple(s.cis[i]), v)
            row += [Marked(v.shown(float(s.scores[i])), mark), ci, s.raw_p(i), s.adjusted_p(i)]
            tidy.append([n, i == r.baseline, v.key, v.name, v.shown(float(s.scores[i])), v.scale,
                         v.higher_is_better, ci[0] if ci else None, ci[1] if ci else None, s.raw_p(i),
                         s.adjusted_p(i), mark, s.signature])
        rows.append(row)
    notes = [s.signature for s in r.metrics] + [r.signature()]
    legend = [_test_note(r), f"CI = {pct}% percentile bootstrap interval of the score; p = unadjusted, "
              "p_adj = adjusted p-value", "↑ higher is better, ↓ lower is better"] + _untested(r)
    return _pfmt_cols(Table(cols, rows, title="Scores", notes=notes, legend=legend, digits=digits, marks=marks,
                            col_digits=col_digits, groups=(4,) * len(r.metrics),
                            meta={"signature": r.signature(), "metrics": [v.as_dict() for v in views.values()]},
                            tidy=Table(["system", "baseline", "metric", "name", "score", "scale", "higher_is_better",
                                        "ci_low", "ci_high", "p", "p_adj", "mark", "signature"], tidy)))


def difference_table(r, digits: int = 2) -> Table:
    rows = []
    b = r.systems[r.baseline]
    views = _views(r, digits)
    for s in r.metrics:
        v = views[s.metric.name]
        for i, n in enumerate(r.systems):
            if i == r.baseline:
                continue
            d = v.shown(float(s.scores[i] - s.scores[r.baseline]))
            ci = s.delta_ci(i)
            res = s.comparison.pair(b, n)
            level = f"{100 * ci.level:.4g}%" + (f" ({ci.adjusted}-adjusted)" if ci.adjusted else " (unadjusted)")
            rows.append([v.name, f"{n} - {b}", Marked(d, _mark(s, i, v.higher_is_better)),
                         _scaled_interval(ci, v), level, res.share_positive, s.raw_p(i), s.adjusted_p(i)])
    notes = [r.signature()] + [s.signature for s in r.metrics]
    legend = [_test_note(r), "delta CI: every difference d that the same paired bootstrap test of 'delta = d' does "
              "not reject at the corrected level (alpha / Holm factor), so it excludes 0 exactly when the delta is "
              "marked"] + _untested(r)
    if any(c == UNBOUNDED for c in (row[3] for row in rows)):
        legend.append(UNBOUNDED_NOTE)
    return _pfmt_cols(Table(["metric", "difference", "delta", "delta CI", "CI level", "P(delta > 0)", "p", "p_adj"],
                            rows, title="Differences vs the baseline", notes=notes, legend=legend, digits=digits,
                            col_digits={"P(delta > 0)": 3, "delta": max(v.digits for v in views.values()),
                                        "delta CI": max(v.digits for v in views.values())}))


UNBOUNDED = "unbounded"
UNBOUNDED_NOTE = ("delta CI 'unbounded': with so few resamples the test rejects no difference at this level, so the "
                  "interval has no end (use more --resamples)")


def _bounded(ci) -> bool:
    return math.isfinite(ci.low) and math.isfinite(ci.high)


def _scaled_interval(ci, v):
    if ci is None:
        return None
    if not _bounded(ci):
        return UNBOUNDED
    if len(ci.pieces) == 1:
        return (v.shown(ci.low), v.shown(ci.high))
    return " ∪ ".join(f"({v.shown(lo):.{v.digits}f}, {v.shown(hi):.{v.digits}f})" for lo, hi in ci.pieces)


def subset_table(r, digits: int = 2, metrics=None) -> Table:
    """Scores per subset: every metric (text output), or the given ``metrics`` only (the page shows one
    table per metric, narrow enough not to scroll sideways)."""
    chosen = list(r.metrics if metrics is None else metrics)
    views = _views(r, digits)
    cols, marks, col_digits = ["subset", "segments"], {}, {}
    for s in chosen:
        v = views[s.metric.name]
        for n in r.systems:
            cols += [f"{n}: {v.name}", f"{n}: {v.name} CI"]
            marks[f"{n}: {v.name}"] = " " + v.arrow
            col_digits[f"{n}: {v.name}"] = col_digits[f"{n}: {v.name} CI"] = v.digits
    rows = []
    for sub in r.subsets:
        row = [sub.label, sub.n]
        for s in chosen:
            v = views[s.metric.name]
            sec = sub.sections[s.metric.name]
            for i, _ in enumerate(r.systems):
                mark = _mark(sec, i, v.higher_is_better) if untested(sub.n) is None else ""
                row += [Marked(v.shown(float(sec.scores[i])), mark), _scaled_ci(_ci_tuple(sec.cis[i]), v)]
        rows.append(row)
    which = "" if metrics is None else ", " + ", ".join(views[s.metric.name].name for s in chosen)
    legend = [_test_note(r) + "; within each subset"]
    if any(untested(sub.n) for sub in r.subsets):
        legend.append(f"no marks for subsets of fewer than {MIN_SEGMENTS} segments (a paired test needs at least "
                      f"{MIN_SEGMENTS}; docs/significance.md)")
    return Table(cols, rows, title=f"Scores per subset ({r.subset_kind}{which})", digits=digits, marks=marks,
                 col_digits=col_digits, notes=[s.signature for s in chosen] + [r.signature()], legend=legend)


def length_table(r, digits: int = 3) -> Table:
    rows = []
    for x in r.length_rows:
        rows.append([x.system, _num(x.hyp_len), _num(x.ref_len), x.ratio, x.bp, _num(x.sbp_ref_len), _num(x.clip_len),
                     x.sbp, x.bleu, x.bleu_sbp])
    cols = ["system", "hyp len", f"ref len ({r.bleu.metric.config.ref_length})", "ratio", "BP",
            f"ref len ({r.sbp.metric.config.ref_length})", "sum min(c,r)", "SBP", "BLEU", "BLEU-SBP"]
    return Table(cols, rows, title="Length ratio, brevity penalty (BP) and strict brevity penalty (SBP)",
                 notes=[r.bleu.signature, r.sbp.signature], digits=digits,
                 col_digits={"BLEU": 2, "BLEU-SBP": 2})


def _num(x: float):
    return int(x) if float(x).is_integer() else x


def precision_table(r, digits: int = 2) -> Table:
    order = r.bleu.metric.config.max_order
    cols = ["system"]
    for o in range(1, order + 1):
        cols += [f"{o}-gram", f"{o}-gram CI"]
    rows = []
    for n in r.systems:
        vals, cis = r.precisions[n]
        row = [n]
        for v, c in zip(vals, cis):
            row += [v, _ci_tuple(c)]
        rows.append(row)
    return Table(cols, rows, title="Clipped n-gram precision (%) by order", digits=digits,
                 notes=[r.bleu.signature, r.signature()])


def example_table(sd, r, digits: int = 2) -> Table:
    b = r.systems[r.baseline]
    v = _sentence_view(r, sd, digits)
    rows = []
    for kind, exs in (("better", sd.best), ("worse", sd.worst)):
        for e in exs:
            rows.append([kind, e.index + 1, v.shown(e.scores[0]), v.shown(e.scores[1]), v.shown(e.delta), e.ref,
                         e.base, e.hyp])
    return Table(["", "segment", b, sd.system, "improvement", "reference", f"{b} output", f"{sd.system} output"],
                 rows, title=f"Segments that change most ({v.name} {v.arrow}, {sd.system} vs {b})",
                 notes=[sd.signature], legend=["improvement: the segment's score difference in the metric's "
                                               "direction (positive: better than the baseline)"], digits=v.digits)


def _sentence_view(r, sd, digits: int = 2):
    """The view of the metric a :class:`SentenceDiff` ranks by (one of the report's metrics, or sentence BLEU)."""
    for s in list(r.metrics) + [r.bleu]:
        if s.metric.display_name == sd.metric_name:
            return view(s.metric, digits)
    return view(r.bleu.metric, digits)


def report_tables(r, digits: int = 2) -> list[Table]:
    out = [score_table(r, digits)]
    if len(r.systems) > 1:
        out.append(difference_table(r, digits))
    out += [subset_table(r, digits), length_table(r), precision_table(r, digits)]
    out += [example_table(sd, r, digits) for sd in r.sentence]
    return out


TIDY_COLUMNS = ("section", "system", "baseline", "subset", "segment", "metric", "name", "statistic", "value", "scale",
                "higher_is_better", "mark", "signature", "test")


def report_tidy(r, digits: int = 2) -> Table:
    """Every number of the report's tables as ONE tidy long table (``report -f tsv/csv``): a row per (section,
    system, subset, segment, metric, statistic) with its value in full precision, the metric's registry key, display
    name, scale (``value = API value x scale`` for the metric's scores, intervals and differences; empty for
    statistics that are not on the metric's scale: p-values, counts, lengths, penalties, precisions), direction,
    the significance mark, the metric's signature and the resampling test's signature (``test``, for the numbers the
    test produced). Readable by ``pandas.read_csv`` without options (one header, one table). The segments' texts
    are in ``-f json``."""
    views = _views(r, digits)
    test = r.signature()
    base = r.systems[r.baseline]
    rows = []

    def add(section, system, metric_view, statistic, value, signature, *, subset=None, segment=None, scaled=False,
            mark="", tested=False):
        if value is None:
            return
        v = metric_view
        rows.append([section, system, None if system is None else system == base, subset, segment,
                     None if v is None else v.key, None if v is None else v.name, statistic, float(value),
                     v.scale if (scaled and v is not None) else None, None if v is None else v.higher_is_better,
                     mark, signature, test if tested else None])

    for s in r.metrics:  # scores
        v = views[s.metric.name]
        for i, n in enumerate(r.systems):
            add("scores", n, v, "score", v.shown(float(s.scores[i])), s.signature, scaled=True,
                mark=_mark(s, i, v.higher_is_better))
            ci = _ci_tuple(s.cis[i])
            if ci is not None:
                add("scores", n, v, "ci_low", v.shown(ci[0]), s.signature, scaled=True, tested=True)
                add("scores", n, v, "ci_high", v.shown(ci[1]), s.signature, scaled=True, tested=True)
            add("scores", n, v, "p", s.raw_p(i), s.signature, tested=True)
            add("scores", n, v, "p_adj", s.adjusted_p(i), s.signature, tested=True)
    if len(r.systems) > 1:  # differences vs the baseline
        for s in r.metrics:
            v = views[s.metric.name]
            for i, n in enumerate(r.systems):
                if i == r.baseline:
                    continue
                add("differences", n, v, "delta", v.shown(float(s.scores[i] - s.scores[r.baseline])), s.signature,
                    scaled=True, mark=_mark(s, i, v.higher_is_better), tested=True)
                ci = s.delta_ci(i)
                if ci is not None:
                    pieces = list(ci.pieces)
                    for k, (lo, hi) in enumerate(pieces):
                        tag = "" if len(pieces) == 1 else f"_{k + 1}"
                        add("differences", n, v, f"delta_ci_low{tag}", v.shown(lo), s.signature, scaled=True,
                            tested=True)
                        add("differences", n, v, f"delta_ci_high{tag}", v.shown(hi), s.signature, scaled=True,
                            tested=True)
                    add("differences", n, v, "delta_ci_level", ci.level, s.signature, tested=True)
                add("differences", n, v, "p_delta_positive", s.comparison.pair(base, n).share_positive, s.signature,
                    tested=True)
                add("differences", n, v, "p", s.raw_p(i), s.signature, tested=True)
                add("differences", n, v, "p_adj", s.adjusted_p(i), s.signature, tested=True)
    for sub in r.subsets:  # per subset
        add("subsets", None, None, "segments", sub.n, None, subset=sub.label)
        for s in r.metrics:
            v = views[s.metric.name]
            sec = sub.sections[s.metric.name]
            for i, n in enumerate(r.systems):
                add("subsets", n, v, "score", v.shown(float(sec.scores[i])), s.signature, subset=sub.label,
                    scaled=True, mark=_mark(sec, i, v.higher_is_better) if untested(sub.n) is None else "")
                ci = _ci_tuple(sec.cis[i])
                if ci is not None:
                    add("subsets", n, v, "ci_low", v.shown(ci[0]), s.signature, subset=sub.label, scaled=True,
                        tested=True)
                    add("subsets", n, v, "ci_high", v.shown(ci[1]), s.signature, subset=sub.label, scaled=True,
                        tested=True)
    vb, vs = view(r.bleu.metric, digits), view(r.sbp.metric, digits)
    for x in r.length_rows:  # length and brevity penalty
        for stat, val, v, sig in (("hyp_len", x.hyp_len, vb, r.bleu.signature), ("ref_len", x.ref_len, vb,
                                  r.bleu.signature), ("ratio", x.ratio, vb, r.bleu.signature),
                                  ("bp", x.bp, vb, r.bleu.signature), ("ref_len", x.sbp_ref_len, vs, r.sbp.signature),
                                  ("clip_len", x.clip_len, vs, r.sbp.signature), ("sbp", x.sbp, vs, r.sbp.signature)):
            add("lengths", x.system, v, stat, val, sig)
        add("lengths", x.system, vb, "score", x.bleu, r.bleu.signature, scaled=True)
        add("lengths", x.system, vs, "score", x.bleu_sbp, r.sbp.signature, scaled=True)
    for n in r.systems:  # clipped n-gram precision (%)
        vals, cis = r.precisions[n]
        for o, (val, c) in enumerate(zip(vals, cis), 1):
            add("precision", n, vb, f"precision_{o}", val, r.bleu.signature)
            if c is not None:
                add("precision", n, vb, f"precision_{o}_ci_low", c.low, r.bleu.signature, tested=True)
                add("precision", n, vb, f"precision_{o}_ci_high", c.high, r.bleu.signature, tested=True)
    for sd in r.sentence:  # the segments that change most
        v = _sentence_view(r, sd, digits)
        for e in list(sd.best) + list(sd.worst):
            add("examples", sd.system, v, "baseline_score", v.shown(e.scores[0]), sd.signature, segment=e.index + 1,
                scaled=True)
            add("examples", sd.system, v, "score", v.shown(e.scores[1]), sd.signature, segment=e.index + 1,
                scaled=True)
            add("examples", sd.system, v, "improvement", v.shown(e.delta), sd.signature, segment=e.index + 1,
                scaled=True)
    return Table(list(TIDY_COLUMNS), rows, title="report")


# ------------------------------------------------------------------------------------------------
# HTML

def render_html(r, title: str = "mtscore report", digits: int = 2, explorer=None, analyses=()) -> str:
    """The report page; ``explorer`` (:class:`~mtscore.analysis.explore.ExplorerData`) adds the interactive
    segment explorer, ``analyses`` (tables from :mod:`mtscore.report.analyses`) a section of per-system
    analyses."""
    doc = Document(title, f"{plural(len(r.systems), 'system')} · {plural(r.n_segments, 'segment')} · nrefs {r.nrefs} · "
                          f"baseline {r.systems[r.baseline]} · {r.signature()}")
    pct = int(round(r.level * 100))
    names = r.systems

    sec = doc.section("Scores")
    sec.table(score_table(r, digits), signatures=False)
    views = _views(r, digits)
    figs = []
    for m in r.metrics:
        v = views[m.metric.name]
        figs.append((svg.bar_chart(names, {v.name: [v.shown(float(x)) for x in m.scores]},
                                   {v.name: [_scaled_ci(_ci_tuple(c), v) for c in m.cis]}, title=v.label,
                                   ylabel=v.label, digits=v.digits),
                     f"{v.name} ({v.direction}) with {pct}% bootstrap CIs (signatures: end of the page)"))
    sec.figures(figs)

    if len(names) > 1:
        sec = doc.section("Bootstrap differences")
        sec.text(f"Distribution of the score difference (system - baseline) over {r.n_resamples} paired bootstrap "
                 f"resamples (seed {r.seed}); the shaded band is the difference interval that inverts the test "
                 "(at the corrected level), the solid line 0, the dashed line the observed difference.", "muted")
        sec.table(difference_table(r, digits), signatures=False)
        figs = []
        for m in r.metrics:
            for i, n in enumerate(names):
                if i == r.baseline:
                    continue
                v = views[m.metric.name]
                d = v.shown(float(m.scores[i] - m.scores[r.baseline]))
                res = m.comparison.pair(names[r.baseline], n)
                ci = m.delta_ci(i)
                shade = (v.shown(ci.low), v.shown(ci.high)) if math.isfinite(ci.low) and math.isfinite(ci.high) \
                    else None
                deltas = np.asarray(res.resampled_deltas, dtype=np.float64) * v.scale
                figs.append((svg.histogram({f"{n} - {names[r.baseline]}": deltas},
                                         vlines=[(0.0, "0"), (d, f"observed {d:+.{v.digits}f}")],
                                         shade=shade, title=f"{v.label}: {n} - "
                                         f"{names[r.baseline]}", xlabel=f"difference in {v.name} ({v.direction})",
                                         digits=v.digits),
                             f"p = {format_p(m.raw_p(i))}, adjusted p = {format_p(m.adjusted_p(i))}"))
        sec.figures(figs)

    sec = doc.section("Subsets")
    if r.subset_kind == "labels":
        sec.text("Scores on the segments of each label (from --labels), with per-subset paired bootstrap CIs; "
                 "marks compare each system with the baseline within the subset.", "muted")
    else:
        sec.text("No --labels given: segments are grouped by effective reference length (tokens). "
                 "Per-subset paired bootstrap CIs; marks compare with the baseline within the subset.", "muted")
    for m in r.metrics:
        sec.table(subset_table(r, digits, [m]), signatures=False)
    shown = sorted(r.subsets, key=lambda s: -s.n)[:30] if r.subset_kind == "labels" else r.subsets
    if r.subset_kind == "labels":
        shown = [s for s in r.subsets if s in shown]
    figs = []
    for m in r.metrics:
        key = m.metric.name
        v = views[key]
        series = {n: [v.shown(float(s.sections[key].scores[i])) for s in shown] for i, n in enumerate(names)}
        errs = {n: [_scaled_ci(_ci_tuple(s.sections[key].cis[i]), v) for s in shown] for i, n in enumerate(names)}
        figs.append((svg.bar_chart([s.label for s in shown], series, errs, title=f"{v.label} per subset",
                                 ylabel=v.label, digits=v.digits),
                   f"{v.name} per subset with {pct}% CIs"
                     + (f" (the {len(shown)} largest of {len(r.subsets)} subsets)" if len(shown) < len(r.subsets)
                        else "")))
    sec.figures(figs)

    sec = doc.section("Length and brevity penalty")
    sec.text("BLEU's brevity penalty (BP) compares total lengths, so long segments can hide short ones; the strict "
             "BP of BLEU-SBP (Chiang et al. 2008) caps each segment's length at its reference length.", "muted")
    sec.table(length_table(r), signatures=False)
    sec.figures([(svg.bar_chart(names, {
        "BP": [x.bp for x in r.length_rows], "SBP": [x.sbp for x in r.length_rows]},
        title="BP vs strict BP", ylabel="penalty", digits=3),
        "brevity penalty (closest reference length) and strict brevity penalty per system"),
        (svg.histogram({n: np.clip(r.lengths[n][np.isfinite(r.lengths[n])], 0, 2.5) for n in names},
                       bins=50, vlines=[(1.0, "ratio 1")], title="Segment length ratio (hyp / ref)",
                       xlabel="hyp / effective ref length (clipped at 2.5)", digits=2),
         "per-segment length ratio distribution: hypothesis length / effective reference length, clipped at 2.5")])

    sec = doc.section("N-gram precision")
    sec.table(precision_table(r, digits), signatures=False)
    order = r.bleu.metric.config.max_order
    sec.figure(svg.line_chart(list(range(1, order + 1)), {n: r.precisions[n][0] for n in names},
                              errors={n: [_ci_tuple(c) for c in r.precisions[n][1]] for n in names},
                              xlabels=[f"{o}-gram" for o in range(1, order + 1)], title="Clipped n-gram precision",
                              ylabel="precision (%)", xlabel="order", digits=digits),
               f"precision by order with {pct}% bootstrap CIs")

    if r.sentence:
        sec = doc.section("Sentence-level differences")
        sec.add('<p class="legend muted">Highlighting: <span class="tok-m">in the reference</span>'
                '<span class="tok-x">hypothesis only</span><span class="tok-r">reference only</span>'
                '<span class="op-sub">substituted / corrected</span><span class="op-del">deleted</span></p>')
        for sd in r.sentence:
            sv = _sentence_view(r, sd, digits)
            sec.sub(f"{sd.system} vs {names[r.baseline]} by {sv.name} ({sd.highlight})")
            if sd.note:
                sec.text(sd.note, "muted")
            sec.figure(svg.histogram({"improvement": np.asarray(sd.deltas, dtype=np.float64) * sv.scale}, bins=60,
                                     vlines=[(0.0, "0")],
                                     title=f"Segment-level {sv.name} improvement ({sv.direction})",
                                     xlabel=f"{sv.name}: {sd.system} vs {names[r.baseline]} (positive: better)",
                                     digits=sv.digits),
                       f"{plural(sd.n_better, 'segment')} better, {sd.n_worse} worse, {sd.n_equal} equal")
            for kind, exs in (("Most improved", sd.best), ("Most degraded", sd.worst)):
                sec.add(f"<h3>{esc(kind)} segments</h3>")
                if not exs:
                    sec.text("none", "muted")
                for e in exs:
                    sec.add(f'<div class="seg"><div><b>#{e.index + 1}</b> <span class="muted">'
                            f'{esc(sv.name)} {sv.shown(e.scores[0]):.{sv.digits}f} → '
                            f'{sv.shown(e.scores[1]):.{sv.digits}f} '
                            f'(improvement {sv.shown(e.delta):+.{sv.digits}f})</span></div>'
                            f'<div><span class="lab">reference</span>{tokens_html(e.ref_tokens)}</div>'
                            f'<div><span class="lab">{esc(names[r.baseline])}</span>{tokens_html(e.base_tokens)}</div>'
                            f'<div><span class="lab">{esc(sd.system)}</span>{tokens_html(e.hyp_tokens)}</div></div>')

    if analyses:
        sec = doc.section("Where the systems differ")
        sec.text("compare-mt's analyses (docs/analysis.md): word accuracy by frequency bucket, scores by "
                 "reference length, and the n-grams one system gets right more often than the other.", "muted")
        for t in analyses:
            sec.table(t, signatures=False)

    if explorer is not None:
        from .explorer import SCRIPT, STYLE as EXPLORER_STYLE, explorer_html
        sec = doc.section("Explore segments")
        sec.text("Sort by a column (click its header), filter by words, label or score difference, switch the "
                 "metric and the systems, and click a segment to see its alignment. Everything is computed "
                 "by mtscore; the page only sorts, filters and draws.", "muted")
        sec.add(explorer_html(explorer))
        doc.scripts.append(SCRIPT)
        doc.styles.append(EXPLORER_STYLE)

    sec = doc.section("Signatures")
    sec.text("Every number above is reproducible from these signatures (metric parameters, references, "
             "resampling test, resamples, seed, confidence level).", "muted")
    sigs = [s.signature for s in r.metrics] + [r.bleu.signature, r.sbp.signature]
    sigs += [sd.signature + " (sentence scores)" for sd in r.sentence]
    sigs += [n for t in analyses for n in t.notes if "|version:mtscore" in n]
    sigs.append(r.signature())
    seen = []
    for s in sigs:
        if s not in seen:
            seen.append(s)
    sec.add('<pre class="sigs">' + "\n".join(esc_sig(s) for s in seen) + "</pre>")
    return doc.render()
