"""System-level meta-evaluation from system-level score files alone (no system outputs, no segments).

    mtscore meta --sys-scores COMET metric-scores/en-de/COMET-refA.sys.score \\
                 --sys-scores MetricX-23 metric-scores/en-de/MetricX-23-refA.sys.score direction=higher \\
                 --human-sys human-scores/en-de.mqm.sys.score

Metric files: mt-metrics-eval ``*.sys.score`` (``SYSTEM<TAB>score``, one line per system) or the same two
columns in any ``.tsv``. Direction as for ``scores:`` (built-in table, or ``direction=higher|lower``);
lower-is-better scores are negated so that every metric is "higher = better", as in the rest of meta.
Human file: the same layout; ``None`` = not rated (that system is left out of the correlations, as
NaN human scores are everywhere in meta). A metric score that is ``None``/nan/inf is an error.

The evaluated systems are the human-scored ones minus human "systems" (refA, synthetic_ref, Human-B.0, HUMAN-B ...; kept
with ``include_human``) and ``exclude``; each must have a score in every metric file.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..io.scores import is_missing, read_score_file
from ..metrics.base import format_signature
from ..metrics.scores import ExternalScores
from .evaluate import Joined, MetricScores
from .human import is_human_system


def read_system_level(path: str, what: str) -> dict[str, float | None]:
    """``SYSTEM<TAB>score`` per line, one line per system."""
    sf = read_score_file(path, "mtme")
    if not sf.system_level and any(len(v) != 1 for v in sf.systems.values()):
        n = len(next(iter(sf.systems.values())))
        raise InputError(f"{what}: expected system-level scores (one line per system), found {plural(n, 'line')} per system "
                         "(a segment-level file?)", path)
    return {s: v[0] for s, v in sf.systems.items()}


def system_only_inputs(specs: Sequence[Sequence[str]], human_path: str, include_human: bool = False,
                       exclude: Sequence[str] = ()) -> tuple[list[MetricScores], Joined]:
    """Metric scores and human scores joined on systems, from ``specs`` = [NAME, FILE, key=value ...]."""
    from ..metrics.registry import parse_metric_spec  # the one parser of key=value metric parameters

    human = read_system_level(human_path, "--human-sys")
    excl = set(exclude)
    unknown = sorted(e for e in excl if e not in human)
    if unknown:
        raise InvalidParameterError(f"--exclude: unknown system(s) {', '.join(unknown)}")
    systems = [s for s in human if s not in excl and (include_human or not is_human_system(s))]
    if len(systems) < 2:
        raise InvalidParameterError(f"at least 2 systems are needed for a correlation, got {len(systems)}")
    hv = np.array([math.nan if human[s] is None else human[s] for s in systems], dtype=np.float64)
    bad = [s for s in systems if human[s] is not None and not math.isfinite(human[s])]
    if bad:  # the policy of docs/input.md: None = not rated; nan/inf are errors
        raise InputError(f"--human-sys: system {bad[0]!r} has a non-finite score ({human[bad[0]]}); "
                         "None marks an unrated system", human_path)
    scores, names = [], set()
    for spec in specs:
        if len(spec) < 2:
            raise InvalidParameterError(f"--sys-scores: needs NAME and FILE, got {' '.join(spec)!r}")
        name, path = spec[0], spec[1]
        extra = parse_metric_spec("scores:" + ",".join(spec[2:]))[1] if spec[2:] else {}
        m = ExternalScores(name=name, file=path, **extra)  # direction/range: declared or from the table
        if name in names:
            raise InvalidParameterError(f"--sys-scores: metric name {name!r} given twice")
        names.add(name)
        vals = read_system_level(path, f"--sys-scores {name}")
        missing = [s for s in systems if s not in vals]
        if missing:
            raise InputError(f"--sys-scores {name}: no score for system(s) {', '.join(missing)} (scored by humans); "
                             "use --exclude to leave them out", path)
        row = []
        lo, hi = m.range
        for s in systems:
            v = vals[s]
            kind = is_missing(v)
            if kind is not None:
                raise InputError(f"--sys-scores {name}: system {s!r} has no finite score ({kind})", path)
            if not lo <= v <= hi:
                hint = ""
                if not m.higher_is_better and v < 0 <= lo:
                    # WMT20's mt-metrics-eval files store TER (and other error rates) negated, higher = better
                    hint = (f"; negated scores (WMT20 stores TER as -TER, higher = better)? declare them: "
                            f"--sys-scores {name} {path} direction=higher")
                raise InputError(f"--sys-scores {name}: system {s!r}: score {v!r} is outside the declared range "
                                 f"{m.signature_items()[4][1]}{hint}", path)
            row.append(v)
        sign = 1.0 if m.higher_is_better else -1.0
        sysv = sign * np.array(row, dtype=np.float64)
        m._files[path] = read_score_file(path, "mtme")  # for the signature's digest
        scores.append(MetricScores(name, list(systems), np.zeros((len(systems), 0)), sysv, None,
                                   f"{name}|{format_signature(m.signature_items() + [('level', 'sys')])}"))
    return scores, Joined(list(systems), None, hv, 0)
