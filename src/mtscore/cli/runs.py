"""``--runs K``: several optimizer runs per system (score: mean and sd over runs; compare: MultEval's
stratified test, significance/runs.py; tables: report/runs.py). The ``-i`` files come in groups of K consecutive files, one group
per system: ``-i sysA.run1 sysA.run2 sysA.run3 sysB.run1 sysB.run2 sysB.run3 --runs 3``."""
from __future__ import annotations

import os
import re

from ..errors import InvalidParameterError, plural
from ..params import OPTIONS

_RUN_TAIL = re.compile(r"([._-]*(run|opt|seed|rep)?[._-]*)$", re.IGNORECASE)


def group_name(files: list[str]) -> str:
    """The system name of a group of run files: their longest common prefix without a trailing run marker
    (``hyps.baseline.opt0 .. opt2`` -> ``hyps.baseline``; ``sysA.run1 ..`` -> ``sysA``)."""
    prefix = os.path.commonprefix(files)
    name = _RUN_TAIL.sub("", prefix)
    return name or files[0]


def group_runs(names: list[str], k: int) -> dict[str, list[str]]:
    k = OPTIONS["runs"].check(k, "--runs")  # the parameter table's rule (1..10^4)
    if k is None:
        raise OPTIONS["runs"].fail("--runs", k)
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
