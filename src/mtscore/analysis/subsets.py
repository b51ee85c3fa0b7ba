"""Subset (genre) paradox (Chiang et al. 2008 §3.2): a system can be worse on every subset of a test set
and better on the union, because BLEU's brevity penalty and micro-averaged precisions are corpus-level.

For two systems A and B and a label per segment (document, domain, genre ...), score both on every subset
and on the whole, and flag the paradox: A better than B on every subset but worse combined, or the
reverse. The report carries the length ratios that explain it (BP vs SBP per subset; reference words per
hypothesis word).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..metrics.base import Metric, Stats


@dataclass(frozen=True)
class SubsetRow:
    subset: str  # label, or "(all)"
    n_segments: int
    score_a: float
    score_b: float
    hyp_len_a: float
    hyp_len_b: float
    ref_len: float  # effective reference length of A's statistics where the metric has one, else nan


@dataclass(frozen=True)
class SubsetReport:
    metric: str
    signature: str
    higher_is_better: bool
    rows: tuple[SubsetRow, ...]  # subsets in label order, then the combined row last

    @property
    def combined(self) -> SubsetRow:
        return self.rows[-1]

    @property
    def subsets(self) -> tuple[SubsetRow, ...]:
        return self.rows[:-1]

    def _better(self, x: float, y: float) -> bool:
        return x > y if self.higher_is_better else x < y

    @property
    def paradox(self) -> str | None:
        """``"A"`` if A is better on every subset but not better combined (and B worse ...), ``"B"`` likewise,
        else None. Needs at least two subsets."""
        subs = self.subsets
        if len(subs) < 2:
            return None
        c = self.combined
        if all(self._better(r.score_a, r.score_b) for r in subs) and self._better(c.score_b, c.score_a):
            return "A"
        if all(self._better(r.score_b, r.score_a) for r in subs) and self._better(c.score_a, c.score_b):
            return "B"
        return None


def _length_cols(metric: Metric, values: np.ndarray):
    cols = list(metric.columns)
    hyp = values[:, cols.index("hyp_len")] if "hyp_len" in cols else np.full(len(values), np.nan)
    ref = values[:, cols.index("ref_len")] if "ref_len" in cols else np.full(len(values), np.nan)
    return hyp, ref


def subset_paradox(metric: Metric, stats_a: Stats, stats_b: Stats, labels: Sequence[str],
                   subsets: Sequence[str] | None = None) -> SubsetReport:
    """Per-subset and combined scores of two systems from their statistics (same metric, same segments).

    ``subsets`` restricts the comparison to these labels (the combined row is then their union); every
    requested subset must have segments."""
    if len(stats_a) != len(stats_b):
        raise InvalidParameterError(f"systems: the two systems have {len(stats_a)} and {plural(len(stats_b), 'segment')}")
    labels = list(labels)
    if len(labels) != len(stats_a):
        raise InputError(f"label file has {plural(len(labels), 'label')} for {plural(len(stats_a), 'segment')}")
    lab = np.array(labels, dtype=object)
    names = list(dict.fromkeys(labels)) if subsets is None else list(dict.fromkeys(subsets))
    if not names:
        raise InputError("no segments, so no subsets")
    union = np.isin(lab, np.array(names, dtype=object))
    rows = []
    ha, ra = _length_cols(metric, stats_a.values)
    hb, _ = _length_cols(metric, stats_b.values)
    for name in names + [None]:
        idx = np.flatnonzero(lab == name) if name is not None else np.flatnonzero(union)
        if len(idx) == 0:
            raise InputError(f"subset {name!r} has no segments")
        sa, sb = stats_a.values[idx].sum(0), stats_b.values[idx].sum(0)
        rows.append(SubsetRow("(all)" if name is None else str(name), len(idx), float(metric.score(sa)),
                              float(metric.score(sb)), float(ha[idx].sum()), float(hb[idx].sum()), float(ra[idx].sum())))
    return SubsetReport(metric.display_name, stats_a.signature, metric.higher_is_better, tuple(rows))
