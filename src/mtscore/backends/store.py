"""Per-segment statistics to Parquet and back, so that scores can be recomputed without the text.

``save_stats(results, directory)`` writes ``NN-<label>.parquet`` per metric: columns ``system``,
``segment`` and the metric's statistics columns; the schema metadata records the metric name, its
config (JSON), ``nrefs`` and the mtscore version. ``load_stats(directory)`` rebuilds the metric from
that config and returns the same :class:`StatsResult` objects.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import uuid
from pathlib import Path

import numpy as np

from .._version import __version__
from .._testhooks import fault_point
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


_OURS = re.compile(r"^[0-9]{2,}-.*\.parquet$")


def check_stats_folder(directory) -> list[str]:
    """The rule for an existing ``--save-stats`` folder (see :func:`save_stats`); returns the files of an
    earlier set in it. Called before the work too, so that a long run does not end in this error."""
    from ..io.output import check_folder
    directory = Path(directory)
    check_folder(directory)
    old = []
    if directory.is_dir():
        try:
            entries = sorted(os.listdir(directory))
        except OSError as exc:
            from ..io.output import output_error
            raise output_error(directory, exc) from None
        foreign = [e for e in entries if not _OURS.match(e)]
        if foreign:
            from ..errors import OutputError
            raise OutputError(f"cannot write statistics: the folder holds other files ({', '.join(foreign[:3])}"
                              f"{', ...' if len(foreign) > 3 else ''}); give a new or empty folder, or one written "
                              "by --save-stats", str(directory))
        old = entries
        for e in entries:  # replaced or removed below: only a set that --save-stats wrote, never an input
            _check_replaceable(directory / e, directory)
    return old


def _check_replaceable(path: Path, directory) -> None:
    """A file of an earlier set may be replaced or removed only when it is an mtscore statistics file (its
    Parquet metadata says so) and not one of this run's inputs (device and inode, as every output)."""
    from ..errors import OutputError
    from ..io.output import input_named
    if not path.exists():
        return
    name = input_named(path)
    if name is not None:
        raise OutputError(f"cannot write statistics: the folder's {path.name} is one of this run's inputs"
                          f"{'' if os.path.abspath(name) == os.path.abspath(path) else f' (read as {name})'}; "
                          "give a new or empty folder", str(directory))
    try:
        _, pq = _pa()
        with open(path, "rb") as fh:
            meta = pq.read_schema(fh).metadata or {}
        ours = meta.get(b"format") == FORMAT.encode()
    except OptionalDependencyError:
        raise
    except Exception:  # noqa: BLE001 - not Parquet, unreadable: not a file of ours
        ours = False
    if not ours:
        raise OutputError(f"cannot write statistics: the folder's {path.name} is not a statistics file written by "
                          "--save-stats (it is not replaced); give a new or empty folder", str(directory))


def save_stats(results, directory) -> list[Path]:
    """Write one ``NN-<label>.parquet`` per metric into ``directory``, as one set (all files or none).

    Rule for an existing folder: it may be empty or hold an earlier set of statistics (``NN-*.parquet``),
    which is replaced as a whole (files of the old set that the new one does not have are removed, so
    ``rescore`` never mixes two runs); a folder with any other file is an error and nothing is written.
    Every set carries a run id; ``load_stats`` refuses a folder whose files come from different runs."""
    pa, pq = _pa()
    from ..io.output import OutputSet
    directory = Path(directory)
    old = check_stats_folder(directory)
    run_id = uuid.uuid4().hex
    by_metric: dict[str, list[StatsResult]] = {}
    for r in results.values():
        if r.rows is None:
            raise InvalidParameterError("save_stats: per-segment statistics were not kept")
        by_metric.setdefault(r.metric.display_name, []).append(r)
    staged = []
    for position, (label, rs) in enumerate(by_metric.items()):
        m = rs[0].metric
        cols = {"system": pa.array([r.system for r in rs for _ in range(len(r.rows))], pa.string()),
                "segment": pa.array(np.concatenate([np.arange(len(r.rows)) for r in rs]) if rs else [], pa.int64())}
        values = np.concatenate([r.rows for r in rs]) if rs else np.zeros((0, len(m.columns)))
        for j, c in enumerate(m.columns):
            cols[c] = pa.array(values[:, j], pa.float64())
        meta = {"format": FORMAT, "metric": getattr(m, "registry_name", m.name), "label": label, "config": json.dumps(dataclasses.asdict(m.config)),
                "nrefs": json.dumps(rs[0].nrefs), "mtscore_version": __version__,
                "signature": m.signature(rs[0].nrefs), "position": str(position), "run_id": run_id,
                "n_files": str(len(by_metric))}
        table = pa.table(cols).replace_schema_metadata({k: v.encode() for k, v in meta.items()})
        staged.append((f"{position:02d}-{_safe(label)}.parquet", table))
    with OutputSet(directory) as out:
        for name, table in staged:
            out.add(name, lambda tmp, table=table: pq.write_table(table, tmp))
        out.commit()
    for name in old:
        if name not in {n for n, _ in staged}:
            try:
                os.unlink(directory / name)
            except OSError:
                pass
    return [directory / n for n, _ in staged]


def load_stats(directory) -> dict[tuple[str, str], StatsResult]:
    """Read a folder (or one file) written by :func:`save_stats`; every file is checked, and files of
    different runs (different run ids, systems or segment counts) are refused, naming both files."""
    pa, pq = _pa()
    directory = Path(directory)
    if not directory.exists():
        raise InputError("no statistics files (*.parquet) found: no such file or folder", str(directory))
    try:
        files = sorted(directory.glob("*.parquet")) if directory.is_dir() else [directory]
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(directory)) from None
    if not files:
        raise InputError("no statistics files (*.parquet) found", str(directory))
    tables = []
    for path in files:
        try:
            fault_point("read")
            from ..io.output import note_input
            with open(path, "rb") as fh:  # an open file: pyarrow cannot encode a name that is not UTF-8
                note_input(path, fh.fileno())
                table = pq.read_table(fh)
        except MemoryError:
            raise
        except OSError as exc:
            if exc.errno is None:  # pyarrow's own errors (ArrowIOError is OSError): a file it cannot parse
                raise InputError(f"cannot read as Parquet: {' '.join(str(exc).split())}", str(path)) from None
            raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
        except Exception as exc:
            raise InputError(f"cannot read as Parquet: {' '.join(str(exc).split())}", str(path)) from None
        meta = {k.decode(errors="replace"): v.decode(errors="replace")
                for k, v in (table.schema.metadata or {}).items()}
        if meta.get("format") != FORMAT:
            raise InputError(f"not an mtscore statistics file (format {meta.get('format')!r}, expected {FORMAT!r})",
                             str(path))
        try:
            position = int(meta.get("position", 0) or 0)
        except ValueError:
            raise InputError(f"bad statistics metadata: position {meta.get('position')!r}", str(path)) from None
        tables.append((position, path, table, meta))
    out = {}
    first = None  # (path, run id, {system: n segments})
    for _, path, table, meta in sorted(tables, key=lambda t: t[0]):
        metric, nrefs, per_system = _interpret(path, table, meta)
        shape = {s: len(rows) for s, rows in per_system.items()}
        if first is None:
            first = (path, meta.get("run_id"), shape)
        elif first[1] != meta.get("run_id") or first[2] != shape:
            raise InputError(f"statistics files from different runs: {first[0].name} and {path.name} "
                             f"({'different run ids' if first[1] != meta.get('run_id') else 'different systems or segment counts'}); "
                             "give a folder written by one --save-stats", str(directory))
        for s, rows in per_system.items():
            out[(s, metric.display_name)] = StatsResult(s, metric, rows.sum(axis=0), len(rows), nrefs, rows)
    return out


def _interpret(path, table, meta):
    """(metric, nrefs, {system: rows}) of one statistics table; InputError naming the file on any flaw."""
    try:
        cls = get_metric_class(meta["metric"])
        cfg = json.loads(meta["config"])
        if not isinstance(cfg, dict):
            raise ValueError("config is not an object")
        cfg = {k: tuple(v) if isinstance(v, list) else v for k, v in cfg.items()}
        metric = cls(**cfg)  # parameters renamed since the file was written: their old names still work
        nrefs = json.loads(meta["nrefs"])
        if not (nrefs == "var" or (isinstance(nrefs, int) and not isinstance(nrefs, bool) and nrefs >= 1)):
            raise ValueError(f"nrefs {nrefs!r}")
    except (KeyError, ValueError, TypeError, RecursionError) as exc:
        raise InputError(f"bad statistics metadata ({type(exc).__name__}: {' '.join(str(exc).split())})"[:300],
                         str(path)) from None
    if meta.get("label", metric.display_name) != metric.display_name:
        metric.relabel(meta["label"])  # the column label; the signature keeps the metric's own name
    missing = [c for c in ["system"] + list(metric.columns) if c not in table.column_names]
    if missing:
        raise InputError(f"statistics columns missing: {', '.join(missing)}", str(path))
    try:
        systems = table.column("system").to_pylist()
        values = np.column_stack([np.asarray(table.column(c).to_numpy(zero_copy_only=False), dtype=np.float64)
                                  for c in metric.columns]) if len(systems) else np.zeros((0, len(metric.columns)))
    except (ValueError, TypeError, pa_errors()) as exc:
        raise InputError(f"bad statistics values ({' '.join(str(exc).split())})"[:300], str(path)) from None
    if any(not isinstance(s, str) for s in systems):
        raise InputError("bad statistics: a system name is missing", str(path))
    bad = np.flatnonzero(~np.isfinite(values).all(axis=1))
    if len(bad):
        raise InputError(f"bad statistics: row {bad[0] + 1} has a value that is not finite", str(path))
    sysarr = np.array(systems, dtype=object)
    return metric, nrefs, {s: values[sysarr == s] for s in dict.fromkeys(systems)}


def pa_errors():
    import pyarrow as pa
    return pa.ArrowException
