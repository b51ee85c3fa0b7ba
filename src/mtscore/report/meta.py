"""Meta-evaluation results -> the correlation table (``mtscore meta``). Rendering only: the
statistics come from :func:`mtscore.meta.run.evaluate_metrics`, the comparison p-values from
:func:`mtscore.meta.run.compare_pvalues`."""
from __future__ import annotations

import math

from ..meta.evaluate import STAT_LABELS
from ..meta.stats import PVALUE_STATS, TIE_STATS
from .tables import Table


def meta_table(metrics, joined, cfg, results: dict, pvals: dict, title: str = "", digits: int = 4) -> Table:
    """The correlation table: ``results`` of :func:`mtscore.meta.run.evaluate_metrics`, ``pvals`` of
    :func:`mtscore.meta.run.compare_pvalues` (rendering only)."""
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
    notes = [cfg.signature()] + [m.signature for m in metrics]
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
    return Table(cols, rows, title=title, notes=notes, digits=digits, meta=meta)
