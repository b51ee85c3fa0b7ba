"""ROSE models (:class:`mtscore.rose.model.RoseModel`) -> tables (``mtscore rose train`` / ``rose info``).
Rendering only."""
from __future__ import annotations

from ..errors import plural
from .tables import Table


def model_table(model) -> Table:
    """A ROSE model: per feature the standardization (mean, scale) and, for linear models, the weight."""
    tr = model.training
    notes = [f"{model.name}: {model.objective}, kernel {model.kernel['type']}, "
             f"{tr.get('n_examples', '?')} examples" + (f", {plural(tr['n_pairs'], 'pair')}" if "n_pairs" in tr else "")
             + f", C = {tr.get('C', float('nan')):.4g}"]
    if "command" in tr:
        notes.append(f"trained with: {tr['command']}")
    if model.linear:
        rows = [[f, float(m), float(s), float(w)] for f, m, s, w in zip(model.features, model.mean, model.scale, model.weights)]
        rows.append(["(intercept)", None, None, float(model.intercept)])
        return Table(["feature", "mean", "scale", "weight"], rows, notes=notes, digits=4)
    rows = [[f, float(m), float(s)] for f, m, s in zip(model.features, model.mean, model.scale)]
    notes.append(f"{len(model.dual_coef)} support points, intercept {model.intercept:.4g}")
    return Table(["feature", "mean", "scale"], rows, notes=notes, digits=4)
