"""n-best / lattice results -> tables (``mtscore nbest``, scripts/nbest_report.py). Rendering only:
the scores come from :meth:`mtscore.search.run.NBestRun.summary`."""
from __future__ import annotations

from .tables import Table


def nbest_table(summary, digits: int = 2) -> Table:
    """Rows: selections (x parts); columns: the report metrics."""
    multi = len(summary.parts) > 1
    cols = ["selection"] + (["segments"] if multi else []) + list(summary.metrics)
    rows, meta = [], []
    for r in summary.rows:
        rows.append([r.method] + ([r.part] if multi else []) + list(r.scores))
        meta.append({"selection": r.method, "segments": r.part, "scores": dict(zip(summary.metrics, r.scores)),
                     "info": r.info, "chosen_rank": r.chosen_rank})
    small = {name: max(digits, 4) for name, unit in zip(summary.metrics, summary.unit_range) if unit}
    return Table(cols, rows, notes=list(summary.notes), digits=digits, meta={"selections": meta}, col_digits=small)
