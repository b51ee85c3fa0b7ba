"""HTML page for ``mtscore meta -o FILE``: the correlation table, the first statistic per metric
with its CI, its bootstrap distributions, and a scatter of metric vs human system scores per metric."""
from __future__ import annotations

from ..errors import plural
from typing import Sequence

import numpy as np

from . import svg
from .html import Document, esc_sig
from .tables import Table


def render_meta_html(table: Table, metrics: Sequence, joined, results: dict, cfg, title: str = "mtscore meta",
                     digits: int = 4, views: dict | None = None) -> str:
    """``metrics``: :class:`~mtscore.meta.evaluate.MetricScores` (higher = better); ``joined``: the human
    scores; ``results``: :func:`~mtscore.meta.run.evaluate_metrics` output; ``cfg``: the MetaConfig; ``views``:
    metric name -> :class:`~mtscore.report.model.MetricView` (the scatter plots show the system scores as
    ``mtscore score`` does: the metric's scale and direction; without a view, as correlated)."""
    views = views or {}
    stats = cfg.resolved_stats()
    first = stats[0]
    from ..meta.evaluate import STAT_LABELS
    lab = STAT_LABELS.get(first, first)
    doc = Document(title, f"{plural(len(joined.systems), 'system')} · {plural(joined.n_segments, 'segment')} · {cfg.signature()}")
    sec = doc.section("Correlation with human judgments")
    sec.table(table)

    names = [m.name for m in metrics]
    if cfg.level != "domain":
        vals = [results[n][""][first].value for n in names]
        cis = [results[n][""][first].ci for n in names]
        order = np.argsort([-(v if v == v else -np.inf) for v in vals], kind="stable")
        sec.figure(svg.bar_chart([names[i] for i in order], {lab: [vals[i] for i in order]},
                                 {lab: [cis[i] for i in order]} if cfg.n_boot else None, title=f"{lab} per metric",
                                 ylabel=lab, digits=3),
                   f"{lab} ({cfg.level} level)" + (f" with {int(round(cfg.ci_level * 100))}% bootstrap CIs"
                                                     if cfg.n_boot else "") + f". {cfg.signature()}")
        samples = {n: results[n][""][first].samples for n in names
                   if results[n][""][first].samples is not None}
        if samples:
            sec = doc.section("Bootstrap distributions")
            sec.figure(svg.histogram(samples, bins=40, title=f"{lab}: bootstrap distribution per metric",
                                     xlabel=lab, digits=3),
                       f"{plural(cfg.n_boot, 'resample')} ({cfg.resample}), seed {cfg.seed}")
    else:
        doms = sorted({d for n in names for d in results[n]})
        series = {n: [results[n][d][first].value if d in results[n] else float("nan") for d in doms] for n in names}
        errs = {n: [results[n][d][first].ci if d in results[n] else None for d in doms] for n in names} \
            if cfg.n_boot else None
        sec.figure(svg.bar_chart(doms, series, errs, title=f"{lab} per domain", ylabel=lab,
                                 digits=3),
                   f"{lab} per domain and metric")

    sec = doc.section("Metric vs human scores")
    sec.text("One point per system: human system score (x) against the metric's system score (y, on the scale "
             "mtscore score shows it, with its direction: ↓ lower is better). Correlations are computed with "
             "lower-is-better metrics negated, so that a positive r is agreement. Dashed: least-squares line.",
             "muted")
    from .meta import system_scores
    for m in metrics:
        mv = views.get(m.name)
        ys = system_scores(m, mv) if mv is not None else dict(zip(m.systems, (float(x) for x in m.sys)))
        pts = [(float(h), float("nan") if ys[s] is None else ys[s], s) for h, s in zip(joined.human_sys, m.systems)]
        r = results[m.name].get("", {}).get("pearson") if cfg.level != "domain" else None
        cap = (f"Pearson r = {r.value:.3f}" if r is not None else "") + \
            (" (of the negated scores)" if r is not None and mv is not None and not mv.higher_is_better else "")
        label = mv.label if mv is not None else m.name
        sec.figure(svg.scatter({m.name: pts}, title=label, xlabel="human", ylabel=label,
                               digits=mv.digits if mv is not None else 3), cap)

    sec = doc.section("Signatures")
    sec.add('<pre class="sigs">' + "\n".join(esc_sig(n) for n in table.notes) + "</pre>")
    return doc.render()
