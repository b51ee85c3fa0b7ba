"""Meta-evaluation results -> tables (``mtscore meta``). Rendering only: the statistics come from
:func:`mtscore.meta.run.evaluate_metrics`, the comparison p-values from :func:`mtscore.meta.run.compare_pvalues`,
relative-ranking correlations from :func:`mtscore.meta.run.rr_correlations`, task sets from
:func:`mtscore.meta.tasks.run_task_set`."""
from __future__ import annotations

import math

from ..meta.evaluate import STAT_LABELS
from ..meta.stats import PVALUE_STATS, TIE_STATS
from .tables import Table


def system_scores(m, v) -> dict:
    """A metric's system scores as ``mtscore score`` shows them: on the view's scale, with its own sign (the
    :class:`~mtscore.meta.evaluate.MetricScores` hold them negated for lower-is-better metrics, as correlated)."""
    sign = 1.0 if v.higher_is_better else -1.0
    return {s: (None if not math.isfinite(float(x)) else v.shown(sign * float(x))) for s, x in zip(m.systems, m.sys)}


def metrics_model(metrics, views: dict) -> list:
    """The JSON ``metrics`` of a meta table: each metric's view (name, scale, direction, digits, signature) and
    its system scores on the shown scale (the values ``mtscore score`` prints for the same data)."""
    out = []
    for m in metrics:
        v = views.get(m.name)
        if v is None:
            continue
        d = v.as_dict()
        d["signature"] = m.signature
        d["system_scores"] = system_scores(m, v)
        out.append(d)
    return out


def direction_legend(metrics, views: dict) -> list:
    """The legend line for the metrics correlated negated (lower is better), with their direction arrows."""
    low = [views[m.name].label for m in metrics if m.name in views and not views[m.name].higher_is_better]
    if not low:
        return []
    return [f"lower is better (correlated negated, so that a higher correlation is better): {', '.join(low)}"]


def meta_table(metrics, joined, cfg, results: dict, pvals: dict, title: str = "", digits: int = 4,
               views: dict | None = None) -> Table:
    """The correlation table: ``results`` of :func:`mtscore.meta.run.evaluate_metrics`, ``pvals`` of
    :func:`mtscore.meta.run.compare_pvalues` (rendering only). ``views``: metric name ->
    :class:`~mtscore.report.model.MetricView`, for the JSON ``metrics`` (each metric's name, scale, direction and
    system scores, as ``mtscore score`` shows them) and the direction legend. The correlations themselves are not
    metric values: they are shown as computed."""
    stats = cfg.resolved_stats()
    rows = []
    cols = ["metric"] + (["domain"] if cfg.level == "domain" else [])
    for st in stats:
        cols.append(STAT_LABELS.get(st, st))
        if cfg.n_boot:
            cols.append(f"{STAT_LABELS.get(st, st)} {int(round(cfg.ci_level * 100))}% CI")
        if cfg.pvalues and st in PVALUE_STATS:
            cols.append(f"{STAT_LABELS.get(st, st)} p")
        if st in TIE_STATS:
            cols.append(f"{st} epsilon")
    if pvals:
        cols.append(f"p (best > metric) [{cfg.compare}]")
    # each metric signed by the scores this level correlates (segment and document levels: its segment scores)
    notes = [cfg.signature()] + [(getattr(m, "seg_signature", "") or m.signature) if cfg.level in ("seg", "doc")
                                 else m.signature for m in metrics]
    missing_ci = [m.name for m in metrics if cfg.n_boot and m.rescore is None
                  and cfg.level not in ("seg", "doc") and cfg.resample != "systems"]
    if missing_ci:
        notes.append("no segment-resampling CI (system score is not a mean of segment scores): "
                     + ", ".join(missing_ci))
    for m in metrics:
        for dom, res in results[m.name].items():
            row = [m.name] + ([dom] if cfg.level == "domain" else [])
            for st in stats:
                r = res[st]
                row.append(r.value)
                if cfg.n_boot:
                    row.append(r.ci)
                if cfg.pvalues and st in PVALUE_STATS:
                    row.append(r.pvalue)
                if st in TIE_STATS:
                    row.append(r.epsilon)
            if pvals:
                row.append(pvals.get(m.name))
            rows.append(row)
    key_col = 1 + (1 if cfg.level == "domain" else 0)

    def key(r):
        v = r[key_col]
        v = -math.inf if v is None or (isinstance(v, float) and math.isnan(v)) else v
        return (r[1] if cfg.level == "domain" else "", -v)
    rows.sort(key=key)
    meta = {"config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
            "systems": list(joined.systems)}
    legend = []
    if views:
        meta["metrics"] = metrics_model(metrics, views)
        legend = direction_legend(metrics, views)
    return Table(cols, rows, title=title, notes=notes, digits=digits, meta=meta, legend=legend,
                 tidy=_tidy(cols, rows, metrics, views or {}))


def _tidy(cols, rows, metrics, views) -> Table:
    """The TSV/CSV table: the correlation table with full-precision numbers, intervals as two columns, and each
    metric's registry key, display name, scale, direction and signature (a row per metric and domain)."""
    sigs = {m.name: m.signature for m in metrics}
    head = ["metric", "name"]
    for c in cols[1:]:
        head += [f"{c} low", f"{c} high"] if c.endswith("% CI") else [c]
    head += ["scale", "higher_is_better", "signature"]
    out = []
    for r in rows:
        v = views.get(r[0])
        row = [v.key if v is not None else None, r[0]]
        for c, x in zip(cols[1:], r[1:]):
            if c.endswith("% CI"):
                row += list(x) if isinstance(x, tuple) and len(x) == 2 else [None, None]
            else:
                row.append(x)
        row += [v.scale if v is not None else None, v.higher_is_better if v is not None else None, sigs.get(r[0])]
        out.append(row)
    return Table(head, out)


def rr_table(rows, digits: int = 4) -> Table:
    """Relative-ranking Kendall per metric: ``rows`` of :func:`mtscore.meta.run.rr_correlations`."""
    return Table(["metric", "WMT10 tau (RR)", "pairs"], [list(r) for r in rows], digits=digits)


def task_set_table(res, task_set: str, lps, perm_samples: int, block_size: int, early_min: float,
                   early_max: float, pval: float, seed: int, digits: int = 4) -> Table:
    """A task set's averaged ranks and values (``res`` of :func:`mtscore.meta.tasks.run_task_set`); each task
    cell shows the value and the significance cluster."""
    avg_r = res.average_ranks()
    avg_v = res.average_values()
    clusters = res.average_clusters(pval) if perm_samples else None
    cols = ["metric", "avg rank", "avg value"] + (["avg cluster"] if clusters else [])
    cols += [t.name for t in res.tasks]
    rows = []
    # metrics in every task by average value, then those only in some (e.g. WMT25's human baseline esa-human2,
    # rated for the ESA pairs only): no average, "-" where a task lacks them
    partial = sorted({m for t in res.tasks for m in t.values} - set(avg_v))
    for m in list(avg_v) + partial:
        row = [m, avg_r.get(m), avg_v.get(m)] + ([clusters.ranks.get(m)] if clusters else [])
        row += [f"{t.values[m]:.{digits}f} ({t.ranks[m]})" if m in t.values else "-" for t in res.tasks]
        rows.append(row)
    notes = [f"meta|task-set:{task_set}|k:{perm_samples}|block:{block_size}|early:{early_min:g}-"
             f"{early_max:g}|pval:{pval:g}|seed:{seed}",
             "task cells: value (significance cluster); weights " + " ".join(f"{w:.4g}" for w in res.weights)]
    if not perm_samples:
        notes.append("--perm-samples 0: no significance tests, every metric its own rank")
    from ..meta.tasks import metric_status
    status = {m: metric_status(task_set, m) for m in list(avg_v) + partial}
    for kind, label in (("human", "human baseline (a second human rating scored as a metric)"),
                        ("baseline", "baseline metrics"), ("primary", "primary submissions")):
        names = [m for m, st in status.items() if st == kind]
        if names:
            notes.append(f"{label}: {', '.join(names)}")
    if partial:
        notes.append(f"not in every task (no average): {', '.join(partial)}")
    meta = {"tasks": [{"name": t.name, "values": t.values, "ranks": t.ranks,
                       "sig_matrix": t.sig_matrix.tolist()} for t in res.tasks], "weights": res.weights,
            "task_set": task_set, "pval": pval, "perm_samples": perm_samples,
            "status": {m: st for m, st in status.items() if st}}
    if clusters:
        meta["average"] = {"values": clusters.values, "ranks": clusters.ranks,
                           "sig_matrix": clusters.sig_matrix.tolist()}
    return Table(cols, rows, title=f"{task_set} task set on {', '.join(lps)}", notes=notes, digits=digits, meta=meta)


def spans_table(scores, human, pvals: dict, n_boot: int, ci_level: float, severity, seed, gold_name: str,
                notes=(), digits: int = 4) -> Table:
    """Error-span scores: ``scores`` (predictors) and ``human`` (rater agreement rows) of
    :mod:`mtscore.meta.spans`, ``pvals`` {predictor: paired-bootstrap p that the best is not better} (rendering
    only). Predictors by decreasing micro F1; human agreement last (the ceiling)."""
    ci = f"{int(round(ci_level * 100))}% CI"
    cols = ["predictor", "micro P", "micro R", "micro F1"] + ([f"micro F1 {ci}"] if n_boot else []) + \
        ["macro F1"] + ([f"macro F1 {ci}"] if n_boot else []) + (["p (best > predictor)"] if pvals else [])
    rows = []
    order = sorted(scores, key=lambda s: (-(s.micro[2] if s.micro[2] == s.micro[2] else -math.inf), s.name))
    for s in list(order) + list(human):
        row = [s.name, s.micro[0], s.micro[1], s.micro[2]] + ([s.ci["micro_f1"] if s.ci else None] if n_boot else [])
        row += [s.macro_f1] + ([s.ci["macro_f1"] if s.ci else None] if n_boot else [])
        if pvals:
            row.append(pvals.get(s.name))
        rows.append(row)
    sig = (f"meta|spans|gold:{gold_name}|chars|severity:{'wmt25-task2' if severity == 'wmt25' else 'partial-0.5' if severity else 'ignored'}"
           + (f"|ci:{n_boot}|ci-level:{ci_level:g}|seed:{seed}" if n_boot else ""))
    cells = len(scores[0].cells) if scores else (len(human[0].cells) if human else 0)
    out_notes = [sig, f"{cells} rated segments; micro: characters summed over segments; macro: mean F1 of the "
                      "segments where gold or prediction marks an error"]
    out_notes += [h.note for h in human if h.note] + list(notes)
    meta = {"cells": cells, "counts": {s.name: s.counts.sum(axis=0).tolist() for s in list(scores) + list(human)}}
    return Table(cols, rows, title=f"error spans vs {gold_name}", notes=out_notes, digits=digits, meta=meta)
