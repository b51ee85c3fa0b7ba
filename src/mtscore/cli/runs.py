"""``--runs K``: several optimizer runs per system (score: mean and sd over runs; compare: MultEval's
stratified test, significance/runs.py). The ``-i`` files come in groups of K consecutive files, one group
per system: ``-i sysA.run1 sysA.run2 sysA.run3 sysB.run1 sysB.run2 sysB.run3 --runs 3``."""
from __future__ import annotations

import os
import re

from ..errors import InvalidParameterError, plural
from ..report import Table

_RUN_TAIL = re.compile(r"([._-]*(run|opt|seed|rep)?[._-]*)$", re.IGNORECASE)


def group_name(files: list[str]) -> str:
    """The system name of a group of run files: their longest common prefix without a trailing run marker
    (``hyps.baseline.opt0 .. opt2`` -> ``hyps.baseline``; ``sysA.run1 ..`` -> ``sysA``)."""
    prefix = os.path.commonprefix(files)
    name = _RUN_TAIL.sub("", prefix)
    return name or files[0]


def group_runs(names: list[str], k: int) -> dict[str, list[str]]:
    if k is None or k < 1:
        raise InvalidParameterError(f"--runs: must be an integer >= 1, got {k}")
    if len(names) % k:
        raise InvalidParameterError(f"--runs {k}: {plural(len(names), '-i file')} {'does' if len(names) == 1 else 'do'} not split into groups of {k} "
                                    "(give the K runs of each system one after the other)")
    groups: dict[str, list[str]] = {}
    for j in range(0, len(names), k):
        files = names[j:j + k]
        g = group_name(files)
        if g in groups:
            raise InvalidParameterError(f"--runs {k}: two groups of runs get the same system name {g!r} "
                                        f"({groups[g][0]} and {files[0]})")
        groups[g] = files
    from ..io.names import short_names  # shown as the other commands show systems: without the shared prefix/suffix
    return dict(zip(short_names(list(groups)), groups.values()))


def runs_score_table(groups, metrics, results, digits: int) -> Table:
    import numpy as np
    cols = ["system"]
    for m in metrics:
        cols += [m.display_name, f"{m.display_name} sd"]
    cols.append("runs")
    rows, sigs = [], {}
    for g, files in groups.items():
        row = [g]
        for m in metrics:
            sc = np.array([results[(f, m.display_name)].result().score for f in files])
            row += [float(sc.mean()), float(sc.std(ddof=1)) if len(sc) > 1 else None]
            sigs.setdefault(m.display_name, results[(files[0], m.display_name)].result().signature)
        row.append(len(files))
        rows.append(row)
    k = len(next(iter(groups.values())))
    from ..significance.core import test_signature
    notes = [f"{n}|{test_signature(s, [('runs', k)])}" for n, s in sigs.items()]
    notes.append(f"score = mean over the {plural(k, 'run')} (each run scored as a corpus); sd = sample standard deviation "
                 "over runs (n - 1)")
    return Table(cols, rows, notes=notes, digits=digits)


def runs_compare_table(metric, res, k: int, digits: int, base_signature: str) -> Table:
    from ..significance.core import test_signature
    base = next(r for r in res if r.p_value is None)
    rows = [[r.system, r.mean, r.s_sel, r.s_opt if k > 1 else None,
             r.p_value] for r in res]  # p: 4 digits in text (text_view), full in JSON
    sig = test_signature(base_signature, [("test", "multeval-ar"), ("runs", k), ("shuffles", res[0].n_shuffles),
                          ("boot", res[0].n_boot), ("seed", res[0].seed)])
    notes = [f"{metric.display_name}|{sig}",
             f"n={plural(k, 'run')} per system; score = mean over runs; s_sel = bootstrap sd of each run's score (test-set "
             "selection), averaged over runs; s_opt = sd of the run scores (optimizer instability); p = MultEval's "
             f"stratified approximate randomization vs {base.system} (Clark et al. 2011)"]
    return Table(["system", metric.display_name, "s_sel", "s_opt", "p"], rows,
                 title=f"{metric.display_name}: {plural(k, 'run')} per system vs baseline {base.system}", notes=notes,
                 digits=digits, meta={"runs": [r.as_dict() for r in res], "p_columns": ["p"]})
