"""Scores of several systems x several metrics -> one table (``mtscore score``, ``rescore``, ``demo``).

Rendering only: corpus :class:`~mtscore.metrics.base.MetricResult` objects and per-segment score
arrays come from :mod:`mtscore.runner` (``corpus_results``, ``segment_scores``).
"""
from __future__ import annotations

from .tables import Table


def results_table(names, metrics, corpus, digits: int = 2) -> Table:
    """One row per system, one column per metric; ``corpus[system]`` = the metrics' MetricResults."""
    labels = [m.display_name for m in metrics]
    rows, full, sigs = [], [], {}
    for name in names:
        res = corpus[name]
        rows.append([name] + [r.score for r in res])
        full.append({"system": name, "results": [r.as_dict() for r in res]})
        for r in res:
            sigs.setdefault(r.name, r.signature)
    notes = [f"{k}|{v}" for k, v in sigs.items()]
    return Table(["system"] + labels, rows, notes=notes, digits=digits, meta={"results": full})


def sentence_table(names, metrics, per, signatures, digits: int = 2) -> Table:
    """One row per segment: ``per[system]`` = one array of segment scores per metric."""
    labels = [m.display_name for m in metrics]
    multi = len(names) > 1
    cols = ["segment"] + ([f"{s}:{lab}" for s in names for lab in labels] if multi else labels)
    n = len(per[names[0]][0]) if names and metrics else 0
    rows = []
    for i in range(n):
        row = [i + 1]
        for name in names:
            row += [float(a[i]) for a in per[name]]
        rows.append(row)
    return Table(cols, rows, notes=list(signatures), digits=digits)
