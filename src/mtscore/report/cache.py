"""The table of ``mtscore cache``: the neural score cache's file, entries and size (rendering only)."""
from __future__ import annotations

from .tables import Table


def cache_table(stats: dict, notes=()) -> Table:
    """``stats``: :meth:`mtscore.neural.cache.ScoreCache.stats` (path, entries, bytes)."""
    return Table(["file", "entries", "bytes"], [[stats["path"], stats["entries"], stats["bytes"]]],
                 title="neural score cache", notes=list(notes), digits=0)
