"""Scores of several systems x several metrics -> one table (``mtscore score``, ``rescore``, ``demo``).

Rendering only: corpus :class:`~mtscore.metrics.base.MetricResult` objects and per-segment score
arrays come from :mod:`mtscore.runner` (``corpus_results``, ``segment_scores``).
"""
from __future__ import annotations

from .tables import ColumnTable, Table


def direction_marks(metrics) -> dict:
    """Column label -> header mark: ↑ higher is better, ↓ lower is better."""
    return {m.display_name: " ↑" if m.higher_is_better else " ↓" for m in metrics}


def scale_note(metrics) -> str:
    """The legend under a score table: directions, and which metrics print ×100 (``Metric.table_scale``)."""
    scaled = [m.display_name for m in metrics if getattr(m, "table_scale", 1.0) != 1.0]
    note = "↑ higher is better, ↓ lower is better"
    if scaled:
        note += f"; {', '.join(scaled)} ×100 (0-100, as BLEU, chrF and TER; JSON results keep 0-1)"
    return note


def results_table(names, metrics, corpus, digits: int = 2, paths=None) -> Table:
    """One row per system, one column per metric; ``corpus[system]`` = the metrics' MetricResults. Rates and
    F-scores computed on 0..1 print on 0..100 (one scale per kind); JSON ``results`` keep the metric's own.
    ``paths`` ({name: input file}) is kept beside each name in the JSON ``results``."""
    labels = [m.display_name for m in metrics]
    scale = [getattr(m, "table_scale", 1.0) for m in metrics]
    rows, full, sigs = [], [], {}
    for name in names:
        res = corpus[name]
        rows.append([name] + [r.score * k for r, k in zip(res, scale)])
        full.append({"system": name, **({"path": paths[name]} if paths and name in paths else {}),
                     "results": [r.as_dict() for r in res]})
        for m, r in zip(metrics, res):  # the signature names the metric (signature_name), never a column label
            sigs.setdefault(f"{getattr(m, 'signature_name', r.name)}|{r.signature}", None)
    notes = list(sigs) + [scale_note(metrics)]
    return Table(["system"] + labels, rows, notes=notes, digits=digits, meta={"results": full},
                 marks=direction_marks(metrics))


def sentence_table(names, metrics, per, signatures, digits: int = 2) -> ColumnTable:
    """One row per segment: ``per[system]`` = one array of segment scores per metric. Held column by column
    (:class:`~mtscore.report.tables.ColumnTable`): 100k segments cost no Python step per cell."""
    import numpy as np

    labels = [m.display_name for m in metrics]
    multi = len(names) > 1
    cols = ["segment"] + ([f"{s}:{lab}" for s in names for lab in labels] if multi else labels)
    n = len(per[names[0]][0]) if names and metrics else 0
    scale = [getattr(m, "table_scale", 1.0) for m in metrics]
    data: list = [np.arange(1, n + 1, dtype=np.int64)]
    for name in names:
        for a, k in zip(per[name], scale):
            col = np.asarray(a, dtype=np.float64).reshape(-1)
            if len(col) != n:
                raise ValueError(f"sentence_table: {len(col)} segment scores where the first metric has {n}")
            if k != 1.0:
                with np.errstate(over="ignore", invalid="ignore"):  # inf / NaN as Python's float product
                    col = col * k
            data.append(col)
    marks = direction_marks(metrics)
    return ColumnTable(cols, data, notes=list(signatures) + [scale_note(metrics)], digits=digits,
                       marks={c: marks[c.rsplit(":", 1)[-1]] for c in cols[1:]})
