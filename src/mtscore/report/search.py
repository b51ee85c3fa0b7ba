"""n-best / lattice results -> tables (``mtscore nbest``, ``mtscore lattice``, scripts/nbest_report.py).
Rendering only: the scores come from :meth:`mtscore.search.run.NBestRun.summary` and
:func:`mtscore.search.lattice_oracle.lattice_oracles`."""
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


def lattice_table(run, digits: int = 2) -> Table:
    """One row per lattice: its size, the oracle path's score, model score, reference and text."""
    label, res = run.label, run.corpus
    rows, meta = [], []
    for i, (o, (states, arcs)) in enumerate(zip(run.oracles, run.sizes)):
        rows.append([i + 1, states, arcs, o.score, o.model_score, o.ref_index + 1, o.text])
        meta.append({"segment": i + 1, "score": o.score, "objective": o.objective, "numerator": o.numerator,
                     "denominator": o.denominator, "model_score": o.model_score, "ref": o.ref_index + 1,
                     "path": o.text, "alignment": [list(a) for a in o.alignment]})
    return Table(["segment", "states", "arcs", label, "model score", "ref", "oracle path"], rows,
                 title=f"Lattice oracle ({label}, lambda = {run.lam:g})",
                 notes=[f"corpus {label} of the oracle paths = {res.score:.4f} {res.detail}",
                        f"{label}|{res.signature}"], digits=digits,
                 meta={"segments": meta, "corpus": res.as_dict()})
