"""Tables of several optimizer runs per system (``--runs K``): the results of
:mod:`mtscore.significance.runs` rendered; nothing is computed here."""
from __future__ import annotations

from ..errors import plural
from typing import Mapping, Sequence

from ..significance.core import test_signature
from .tables import Table


def runs_score_table(summaries: Mapping[str, Sequence], digits: int) -> Table:
    """``score --runs``: ``{metric label: [RunsScore per system]}`` (same systems, same order per metric)."""
    labels = list(summaries)
    first = summaries[labels[0]]
    cols = ["system"]
    for m in labels:
        cols += [m, f"{m} sd"]
    cols.append("runs")
    rows = []
    for j, s in enumerate(first):
        row = [s.system]
        for m in labels:
            r = summaries[m][j]
            row += [r.mean, r.sd]
        row.append(len(s.run_scores))
        rows.append(row)
    k = len(first[0].run_scores)
    notes = [f"{m}|{test_signature(summaries[m][0].signature, [('runs', k)])}" for m in labels]
    notes.append(f"score = mean over the {plural(k, 'run')} (each run scored as a corpus); sd = sample standard deviation "
                 "over runs (n - 1)")
    return Table(cols, rows, notes=notes, digits=digits)


def runs_compare_table(label: str, res, k: int, digits: int, base_signature: str) -> Table:
    """``compare --runs``: MultEval's table of :class:`~mtscore.significance.runs.RunsResult` of one metric."""
    base = next(r for r in res if r.p_value is None)
    rows = [[r.system, r.mean, r.s_sel, r.s_opt if k > 1 else None,
             r.p_value] for r in res]  # p: 4 digits in text (text_view), full in JSON
    sig = test_signature(base_signature, [("test", "multeval-ar"), ("runs", k), ("shuffles", res[0].n_shuffles),
                                          ("boot", res[0].n_boot), ("seed", res[0].seed)])
    notes = [f"{label}|{sig}",
             f"n={plural(k, 'run')} per system; score = mean over runs; s_sel = bootstrap sd of each run's score (test-set "
             "selection), averaged over runs; s_opt = sd of the run scores (optimizer instability); p = MultEval's "
             f"stratified approximate randomization vs {base.system} (Clark et al. 2011)"]
    return Table(["system", label, "s_sel", "s_opt", "p"], rows,
                 title=f"{label}: {plural(k, 'run')} per system vs baseline {base.system}", notes=notes,
                 digits=digits, meta={"runs": [r.as_dict() for r in res], "p_columns": ["p"]})
