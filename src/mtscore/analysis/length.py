"""Length analysis: hypothesis / reference length ratios per reference-length bucket and per subset, with
BLEU's brevity penalty and the strict brevity penalty (SBP) of each bucket."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from ..metrics.base import Stats
from ..metrics.bleu import brevity_penalty, strict_brevity_penalty


@dataclass(frozen=True)
class LengthRow:
    group: str
    n_segments: int
    hyp_len: float
    ref_len: float
    ratio: float
    bp: float
    sbp: float


@dataclass(frozen=True)
class LengthReport:
    by: str  # "bucket" or "subset"
    signature: str
    rows: tuple[LengthRow, ...]


def _row(name, hyp, ref) -> LengthRow:
    h, r = float(hyp.sum()), float(ref.sum())
    clip = float(np.minimum(hyp, ref).sum())
    return LengthRow(name, len(hyp), h, r, h / r if r > 0 else float("nan"), brevity_penalty(h, r),
                     strict_brevity_penalty(clip, r))


def length_analysis(stats: Stats, labels: Sequence[str] | None = None,
                    buckets: Sequence[int] = (10, 20, 30, 40, 60)) -> LengthReport:
    """Length report from BLEU-family statistics (columns ``hyp_len``, ``ref_len``).

    Without ``labels``: one row per reference-length bucket (``[0, b1)``, ``[b1, b2)`` ..., ``>= bk``) and a
    total; with ``labels`` (one per segment): one row per subset and a total."""
    if "hyp_len" not in stats.columns or "ref_len" not in stats.columns:
        raise InvalidParameterError(f"stats: length analysis needs BLEU-family statistics, got {stats.metric!r}")
    hyp, ref = stats.column("hyp_len"), stats.column("ref_len")
    rows = []
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(hyp):
            raise InputError(f"label file has {plural(len(labels), 'label')} for {plural(len(hyp), 'segment')}")
        lab = np.array(labels, dtype=object)
        for name in dict.fromkeys(labels):
            idx = lab == name
            rows.append(_row(str(name), hyp[idx], ref[idx]))
        by = "subset"
    else:
        edges = sorted(int(b) for b in buckets)
        if any(b <= 0 for b in edges) or len(set(edges)) != len(edges):
            raise InvalidParameterError(f"buckets: need distinct positive bucket edges, got {list(buckets)}")
        lo = 0
        for hi in edges + [None]:
            idx = (ref >= lo) & (ref < hi) if hi is not None else ref >= lo
            if idx.any():
                rows.append(_row(f"[{lo}, {hi})" if hi is not None else f">= {lo}", hyp[idx], ref[idx]))
            lo = hi
        by = "bucket"
    rows.append(_row("(all)", hyp, ref))
    return LengthReport(by, stats.signature, tuple(rows))
