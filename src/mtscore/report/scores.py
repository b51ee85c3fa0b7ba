"""Scores of several systems x several metrics -> one table (``mtscore score``, ``rescore``, ``demo``).

Rendering only: corpus :class:`~mtscore.metrics.base.MetricResult` objects and per-segment score
arrays come from :mod:`mtscore.runner` (``corpus_results``, ``segment_scores``). Names, scales, directions and
digits come from the one output model (:mod:`mtscore.report.model`).
"""
from __future__ import annotations

from .model import result_dict, view
from .tables import ColumnTable, Table


def direction_marks(metrics) -> dict:
    """Column label -> header mark: ↑ higher is better, ↓ lower is better."""
    return {m.display_name: " " + view(m).arrow for m in metrics}


def scale_note(metrics) -> str:
    """The legend under a score table: directions, and which metrics are shown ×100."""
    scaled = [m.display_name for m in metrics if view(m).scale != 1.0]
    note = "↑ higher is better, ↓ lower is better"
    if scaled:
        note += f"; {', '.join(scaled)} computed on 0-1 and shown ×100 (as BLEU, chrF and TER), in every format"
    return note


def results_table(names, metrics, corpus, digits: int = 2, paths=None) -> Table:
    """One row per system, one column per metric; ``corpus[system]`` = the metrics' MetricResults, shown on
    the model's scale (:func:`mtscore.report.model.view`) in every format, JSON ``results`` included.
    ``paths`` ({name: input file}) is kept beside each name in the JSON ``results``. TSV/CSV: one tidy table
    (system, metric, name, score, scale, higher_is_better, signature), full precision."""
    views = [view(m, digits) for m in metrics]
    labels = [v.name for v in views]
    rows, full, sigs, tidy = [], [], {}, []
    for name in names:
        res = corpus[name]
        rows.append([name] + [v.shown(r.score) for r, v in zip(res, views)])
        full.append({"system": name, **({"path": paths[name]} if paths and name in paths else {}),
                     "results": [result_dict(v, r) for v, r in zip(views, res)]})
        for v, r in zip(views, res):  # the signature names the metric (signature_name), never a column label
            sigs.setdefault(v.signature(r.signature), None)
            tidy.append([name, v.key, v.name, v.shown(r.score), v.scale, v.higher_is_better,
                         v.signature(r.signature)])
    return Table(["system"] + labels, rows, notes=list(sigs), legend=[scale_note(metrics)], digits=digits,
                 meta={"metrics": [v.as_dict() for v in views], "results": full},
                 marks=direction_marks(metrics), col_digits={v.name: v.digits for v in views},
                 tidy=Table(["system", "metric", "name", "score", "scale", "higher_is_better", "signature"], tidy))


def sentence_table(names, metrics, per, signatures, digits: int = 2) -> ColumnTable:
    """One row per segment: ``per[system]`` = one array of segment scores per metric. Held column by column
    (:class:`~mtscore.report.tables.ColumnTable`): 100k segments cost no Python step per cell."""
    import numpy as np

    views = [view(m, digits) for m in metrics]
    labels = [v.name for v in views]
    multi = len(names) > 1
    cols = ["segment"] + ([f"{s}:{lab}" for s in names for lab in labels] if multi else labels)
    n = len(per[names[0]][0]) if names and metrics else 0
    data: list = [np.arange(1, n + 1, dtype=np.int64)]
    col_digits = {}
    for name in names:
        for a, v in zip(per[name], views):
            col = np.asarray(a, dtype=np.float64).reshape(-1)
            if len(col) != n:
                raise ValueError(f"sentence_table: {len(col)} segment scores where the first metric has {n}")
            if v.scale != 1.0:
                with np.errstate(over="ignore", invalid="ignore"):  # inf / NaN as Python's float product
                    col = col * v.scale
            data.append(col)
            col_digits[f"{name}:{v.name}" if multi else v.name] = v.digits
    marks = direction_marks(metrics)
    return ColumnTable(cols, data, notes=list(signatures), legend=[scale_note(metrics)], digits=digits,
                       marks={c: marks[c.rsplit(":", 1)[-1]] for c in cols[1:]}, col_digits=col_digits,
                       meta={"metrics": [v.as_dict() for v in views]})
