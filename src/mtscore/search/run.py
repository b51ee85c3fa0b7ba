"""One call that runs the n-best algorithms and tabulates the scores of every selection.

Used by ``mtscore nbest`` and ``scripts/nbest_report.py``.
"""
from __future__ import annotations

from ..errors import plural
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..metrics.base import Metric
from .mbr import mbr_select
from .nbest import NBestList
from .oracle import CandidateStats, Pool, Selection, check_refs, corpus_oracle, one_best, segment_oracle
from .rerank import rerank, split_segments, tune
from ..params import DEFAULT_SEED


@dataclass
class NBestRun:
    nbest: NBestList
    pool: Pool
    refs: list
    report_metrics: list
    _stats: dict = field(default_factory=dict)
    selections: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @classmethod
    def create(cls, nbest: NBestList, refs, report_metrics: Sequence[Metric]) -> "NBestRun":
        refs = check_refs(refs, nbest.n_segments)
        run = cls(nbest, Pool.of(nbest), refs, list(report_metrics))
        empty = nbest.empty_segments()
        if len(empty):
            shown = ", ".join(str(int(i)) for i in empty[:10]) + (" ..." if len(empty) > 10 else "")
            run.notes.append(f"{len(empty)} of {plural(nbest.n_segments, 'segment')} {'has' if len(empty) == 1 else 'have'} no candidates (ids {shown}); "
                             "an empty output is used for them in every selection")
        return run

    def stats(self, metric: Metric) -> CandidateStats:
        key = (metric.name, metric.display_name, repr(metric.config))
        if key not in self._stats:
            self._stats[key] = CandidateStats(metric, self.pool, self.refs)
        return self._stats[key]

    def add(self, sel: Selection) -> Selection:
        self.selections.append(sel)
        return sel

    # -- algorithms -------------------------------------------------------------------------------
    def one_best(self):
        return self.add(one_best(self.pool))

    def oracle(self, metric: Metric, corpus: bool | None = None):
        cs = self.stats(metric)
        out = [self.add(segment_oracle(cs))]
        if corpus or (corpus is None and not metric.decomposable):
            sel = self.add(corpus_oracle(cs))
            i = sel.info
            self.notes.append(f"{sel.method}: coordinate ascent from the {i['start']} ({i['start_score']:.4f}), "
                              f"{i['swaps']} swaps in {i['passes']} passes -> {i['score']:.4f}")
        return out

    def mbr(self, metric: Metric, posterior: str = "uniform", temperature: float = 1.0):
        return self.add(mbr_select(self.pool, metric, posterior, temperature))

    def rerank(self, weights: np.ndarray, label: str = "rerank"):
        return self.add(rerank(self.pool, weights, label))

    def tune(self, metric: Metric, tune_fraction: float = 0.5, seed: int = DEFAULT_SEED, init=None, restarts: int = 2):
        """Tune rerank weights on a random part, report both parts; returns (TuneResult, tune ids, test ids)."""
        tune_ids, test_ids = split_segments(self.nbest.n_segments, tune_fraction, seed)
        res = tune(self.stats(metric), tune_ids, init=init, seed=seed, restarts=restarts)
        self.add(rerank(self.pool, res.weights, f"rerank(tuned on {metric.display_name})"))
        self.notes.append(f"tuning: {len(tune_ids)} tune / {plural(len(test_ids), 'test segment')} (seed {seed}); "
                          f"tune {metric.display_name} {res.initial_score * _scale(metric):.4f} -> {res.score * _scale(metric):.4f}; "
                          "weights: "
                          + " ".join(f"{n}={w:.4g}" for n, w in zip(self.nbest.feature_names, res.weights)))
        return res, tune_ids, test_ids

    # -- scoring ----------------------------------------------------------------------------------
    def score(self, metric: Metric, sel: Selection, segments=None) -> float:
        cs = self.stats(metric)
        rows = sel.rows if segments is None else sel.rows[np.asarray(segments, dtype=np.int64)]
        return float(metric.score(cs.values[rows].sum(0)))

    def summary(self, parts: dict | None = None) -> "NBestSummary":
        """Scores of every selection (x parts: name -> segment ids) with every report metric;
        rendered by :func:`mtscore.report.search.nbest_table`."""
        parts = parts or {"all": None}
        rows = []
        for sel in self.selections:
            for pname, segs in parts.items():
                vals = [self.score(m, sel, segs) for m in self.report_metrics]
                rows.append(SelectionScores(
                    sel.method, pname, tuple(vals),
                    {k: _plain(v) for k, v in sel.info.items() if k not in ("expected_utility",)},
                    sel.index.tolist() if segs is None else sel.index[segs].tolist()))
        sigs = {}
        for m in self.report_metrics:
            sigs.setdefault(m.display_name, self.stats(m).signature)
        return NBestSummary(tuple(m.display_name for m in self.report_metrics),
                            tuple(m.range[1] <= 1.0 for m in self.report_metrics), tuple(parts), tuple(rows),
                            tuple(self.notes) + tuple(f"{k}|{v}" for k, v in sigs.items()),
                            tuple(self.report_metrics))


@dataclass(frozen=True)
class SelectionScores:
    method: str
    part: str
    scores: tuple[float, ...]  # one per report metric
    info: dict
    chosen_rank: list


@dataclass(frozen=True)
class NBestSummary:
    metrics: tuple[str, ...]  # display names
    unit_range: tuple[bool, ...]  # metric's range ends at <= 1 (shown with more digits)
    parts: tuple[str, ...]
    rows: tuple[SelectionScores, ...]
    notes: tuple[str, ...]
    report_metrics: tuple = ()  # the metric objects (their names, scales and directions: mtscore.report.model)


def _scale(metric) -> float:
    """The shown scale of a metric's scores (mtscore.report.model's rule: the metric's ``table_scale``)."""
    return float(getattr(metric, "table_scale", 1.0) or 1.0)


def _plain(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        return v.item()
    return v
