"""n-best / lattice results -> tables (``mtscore nbest``, ``mtscore lattice``, scripts/nbest_report.py).
Rendering only: the scores come from :meth:`mtscore.search.run.NBestRun.summary` and
:func:`mtscore.search.lattice_oracle.lattice_oracles`."""
from __future__ import annotations

from types import SimpleNamespace

from .model import result_dict, view
from .scores import direction_marks, scale_note
from .tables import Table


def nbest_table(summary, digits: int = 2) -> Table:
    """Rows: selections (x parts); columns: the report metrics, named, scaled and marked as everywhere
    (:mod:`mtscore.report.model`)."""
    multi = len(summary.parts) > 1
    views = [view(m, digits) for m in summary.report_metrics]
    cols = ["selection"] + (["segments"] if multi else []) + [v.name for v in views]
    sig = {v.name: next((n for n in summary.notes if n.startswith(v.name + "|")), "") for v in views}
    rows, meta, tidy = [], [], []
    for r in summary.rows:
        shown = [v.shown(x) for v, x in zip(views, r.scores)]
        rows.append([r.method] + ([r.part] if multi else []) + shown)
        meta.append({"selection": r.method, "segments": r.part, "scores": dict(zip([v.name for v in views], shown)),
                     "info": r.info, "chosen_rank": r.chosen_rank})
        tidy += [[r.method, r.part, v.key, v.name, x, v.scale, v.higher_is_better, sig[v.name]]
                 for v, x in zip(views, shown)]
    return Table(cols, rows, notes=list(summary.notes), legend=[scale_note(summary.report_metrics)], digits=digits,
                 meta={"metrics": [v.as_dict() for v in views], "selections": meta},
                 col_digits={v.name: v.digits for v in views}, marks=direction_marks(summary.report_metrics),
                 tidy=Table(["selection", "segments", "metric", "name", "score", "scale", "higher_is_better",
                              "signature"], tidy))


def lattice_table(run, digits: int = 2, metric=None) -> Table:
    """One row per lattice: its size, the oracle path's score, model score, reference and text."""
    label, res = run.label, run.corpus
    import dataclasses
    # 4-GRR / K-GRR / WRR (``metric``: its class or object): the model's scale (x100) and direction; the name as the
    # run shows it (4-GRR, 3-GRR, WRR)
    v = dataclasses.replace(view(metric, digits), name=label, signature_name=label)
    rows, meta = [], []
    for i, (o, (states, arcs)) in enumerate(zip(run.oracles, run.sizes)):
        rows.append([i + 1, states, arcs, v.shown(o.score), o.model_score, o.ref_index + 1, o.text])
        meta.append({"segment": i + 1, "score": v.shown(o.score), "objective": o.objective, "numerator": o.numerator,
                     "denominator": o.denominator, "model_score": o.model_score, "ref": o.ref_index + 1,
                     "path": o.text, "alignment": [list(a) for a in o.alignment]})
    return Table(["segment", "states", "arcs", label, "model score", "ref", "oracle path"], rows,
                 title=f"Lattice oracle ({label}, lambda = {run.lam:g})",
                 notes=[f"corpus {label} of the oracle paths = {v.shown(res.score):.{v.digits}f} {res.detail}".rstrip(),
                        f"{label}|{res.signature}"], legend=[scale_note([SimpleNamespace(display_name=label, table_scale=v.scale,
                                                     higher_is_better=v.higher_is_better)])],
                 digits=digits, col_digits={label: v.digits}, marks={label: " " + v.arrow},
                 meta={"metrics": [v.as_dict()], "segments": meta, "corpus": result_dict(v, res)})
