"""LCM per-category report: one row per category, per level and the general score, one column per system."""
from __future__ import annotations

import math

from .model import view
from .tables import Table


def _f(x) -> float:
    x = float(x)
    return x


def lcm_table(metric, stats_by_system: dict, digits: int = 2) -> Table:
    """Table of category / level / general scores (rows) x systems (columns), on LCM's shown scale (x100, as
    ``mtscore score -m lcm`` shows the general score); the brevity penalty stays a factor in [0, 1].

    ``stats_by_system`` maps system name -> :class:`~mtscore.metrics.base.Stats` of ``metric``
    (an :class:`~mtscore.metrics.lcm.LCM`). Categories without check-points score ``None``
    (rendered ``-``, JSON null).
    """
    names = list(stats_by_system)
    summed = {s: st.sum() for s, st in stats_by_system.items()}
    results = {s: metric.corpus_from_stats(st) for s, st in stats_by_system.items()}
    first = next(iter(results.values())) if results else None
    rows = []

    v_lcm = view(metric, digits)

    def cell(v, scaled=True):
        v = _f(v)
        return None if math.isnan(v) else (v_lcm.shown(v) if scaled else v)

    for c in metric.categories:
        count = int(first.components["counts"][c]) if first else 0
        rows.append([c, metric.levels[c], count] + [cell(results[s].components["categories"][c]) for s in names])
    for lev in metric.level_names():
        count = sum(int(first.components["counts"][c]) for c in metric.categories if metric.levels[c] == lev) if first else 0
        rows.append([f"[{lev}]", lev, count] + [cell(results[s].components["levels"][lev]) for s in names])
    total = sum(int(v) for v in first.components["counts"].values()) if first else 0
    rows.append(["[general]", "all", total] + [cell(results[s].score) for s in names])
    rows.append(["(penalty factor)", "", None] + [cell(results[s].components["penalty"], False) for s in names])
    sig = first.signature if first else metric.signature(1)
    meta = {"results": {s: results[s].as_dict() for s in names},
            "summed_stats": {s: {k: float(v) for k, v in zip(metric.columns, summed[s])} for s in names}}
    return Table(["category", "level", "check-points"] + names, rows, title=f"LCM scores per category ({v_lcm.label})",
                 notes=[v_lcm.signature(sig), f"scores x{v_lcm.scale:g} (0..100), as every command shows LCM; the "
                        "penalty factor (0..1) multiplies the general score"],
                 digits=digits, meta={**meta, "metrics": [v_lcm.as_dict(sig)]})
