"""The one rule for tiny samples: a paired significance test needs at least :data:`MIN_SEGMENTS` segments.

Below six segments no paired test can reach p < 0.05 honestly: even when every segment favours one system, the
exact two-sided sign test gives p = 2 x 0.5^5 = 0.0625 for five segments, and a bootstrap or a randomization over so
few segments has so few distinct resamples that its p-value (0.001 for two segments) measures the resampling, not
the systems. So every command (compare, report, analyse docs) runs no test on fewer segments and says why
(docs/significance.md, "Tiny samples").
"""
from __future__ import annotations

MIN_SEGMENTS = 6


def untested(n_segments: int) -> str | None:
    """Why no test is run on ``n_segments`` segments (None when it is run)."""
    if n_segments >= MIN_SEGMENTS:
        return None
    what = "segment" if n_segments == 1 else "segments"
    return (f"no significance test on {n_segments} {what}: a paired test needs at least {MIN_SEGMENTS} "
            f"(docs/significance.md)")
