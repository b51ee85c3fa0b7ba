"""Per-segment statistics to Parquet and back, so that scores can be recomputed without the text.

``save_stats(results, directory)`` writes ``NN-<label>.parquet`` per metric: columns ``system``,
``segment`` and the metric's statistics columns; the schema metadata records the metric name, its
config (JSON), ``nrefs`` and the mtscore version. ``load_stats(directory)`` rebuilds the metric from
that config and returns the same :class:`StatsResult` objects.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import InputError, InvalidParameterError, OptionalDependencyError
from ..metrics.registry import get_metric_class
from .local import StatsResult

FORMAT = "mtscore-stats/1"


def _pa():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise OptionalDependencyError("reading or writing statistics files (Parquet)", "pyarrow", "dask") from None
    return pa, pq


def _safe(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in label)


def save_stats(results, directory) -> list[Path]:
    pa, pq = _pa()
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    by_metric: dict[str, list[StatsResult]] = {}
    for r in results.values():
        if r.rows is None:
            raise InvalidParameterError("save_stats: per-segment statistics were not kept")
        by_metric.setdefault(r.metric.display_name, []).append(r)
    written = []
    for position, (label, rs) in enumerate(by_metric.items()):
        m = rs[0].metric
        cols = {"system": pa.array([r.system for r in rs for _ in range(len(r.rows))], pa.string()),
                "segment": pa.array(np.concatenate([np.arange(len(r.rows)) for r in rs]) if rs else [], pa.int64())}
        values = np.concatenate([r.rows for r in rs]) if rs else np.zeros((0, len(m.columns)))
        for j, c in enumerate(m.columns):
            cols[c] = pa.array(values[:, j], pa.float64())
        meta = {"format": FORMAT, "metric": m.name, "label": label, "config": json.dumps(dataclasses.asdict(m.config)),
                "nrefs": json.dumps(rs[0].nrefs), "mtscore_version": __version__,
                "signature": m.signature(rs[0].nrefs), "position": str(position)}
        table = pa.table(cols).replace_schema_metadata({k: v.encode() for k, v in meta.items()})
        path = directory / f"{position:02d}-{_safe(label)}.parquet"
        pq.write_table(table, path)
        written.append(path)
    return written


def load_stats(directory) -> dict[tuple[str, str], StatsResult]:
    pa, pq = _pa()
    directory = Path(directory)
    files = sorted(directory.glob("*.parquet")) if directory.is_dir() else [directory]
    if not files or not files[0].exists():
        raise InputError("no statistics files (*.parquet) found", str(directory))
    tables = []
    for path in files:
        try:
            table = pq.read_table(path)
        except Exception as exc:
            raise InputError(f"cannot read as Parquet: {exc}", str(path)) from None
        meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
        tables.append((int(meta.get("position", 0) or 0), path, table, meta))
    out = {}
    for _, path, table, meta in sorted(tables, key=lambda t: t[0]):
        if meta.get("format") != FORMAT:
            raise InputError(f"not an mtscore statistics file (format {meta.get('format')!r}, expected {FORMAT!r})", str(path))
        cls = get_metric_class(meta["metric"])
        cfg = json.loads(meta["config"])
        cfg = {k: tuple(v) if isinstance(v, list) else v for k, v in cfg.items()}
        metric = cls(cls.Config(**cfg))
        if meta.get("label", metric.display_name) != metric.display_name:
            metric.display_name = meta["label"]
        missing = [c for c in metric.columns if c not in table.column_names]
        if missing:
            raise InputError(f"statistics columns missing: {', '.join(missing)}", str(path))
        nrefs = json.loads(meta["nrefs"])
        systems = table.column("system").to_pylist()
        values = np.column_stack([table.column(c).to_numpy() for c in metric.columns]) if len(systems) else \
            np.zeros((0, len(metric.columns)))
        order = list(dict.fromkeys(systems))
        sysarr = np.array(systems, dtype=object)
        for s in order:
            rows = values[sysarr == s]
            out[(s, metric.display_name)] = StatsResult(s, metric, rows.sum(axis=0), len(rows), nrefs, rows)
    return out
