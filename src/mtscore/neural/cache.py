"""The neural score cache: per-segment scores of a model, kept between runs so that ``compare``, ``report``,
``meta`` and reruns never recompute them.

One SQLite file, ``$MTSCORE_CACHE_DIR/neural.sqlite`` (default ``$XDG_CACHE_HOME/mtscore``, else
``~/.cache/mtscore``). A row is keyed by the sha256 of (model digest, precision, metric kind, the exact input
texts): the model digest is the sha256 of the checkpoint file, so another checkpoint under the same name never
hits. The score is stored as the 8 bytes of the float64 it was, so a hit is bit-identical to the
recomputation; XCOMET's error spans are stored beside it as JSON. ``MTSCORE_NO_CACHE=1`` (or the metric
parameter ``cache=false``) neither reads nor writes it; :meth:`ScoreCache.stats` gives its size and
:meth:`ScoreCache.clear` empties it (deleting the file does too).
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import struct
from pathlib import Path

from ..errors import OutputError


def cache_dir() -> Path:
    env = os.environ
    if env.get("MTSCORE_CACHE_DIR"):
        return Path(env["MTSCORE_CACHE_DIR"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "mtscore"


def disabled() -> bool:
    return os.environ.get("MTSCORE_NO_CACHE", "").strip().lower() in ("1", "true", "yes", "on")


def key(model_digest: str, precision: str, kind: str, texts: tuple) -> bytes:
    h = hashlib.sha256()
    for part in (model_digest, precision, kind, *texts):
        b = ("\x00" if part is None else "\x01" + part).encode("utf-8", "surrogatepass")
        h.update(struct.pack("<Q", len(b)))
        h.update(b)
    return h.digest()


class ScoreCache:
    """A SQLite table ``key -> (score bytes, extra JSON)``; ``path`` None = the default location."""

    def __init__(self, path: Path | None = None):
        self.path = Path(path) if path else cache_dir() / "neural.sqlite"
        self._db = None

    def _conn(self):
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(str(self.path), timeout=60)
                db.execute("CREATE TABLE IF NOT EXISTS scores (k BLOB PRIMARY KEY, v BLOB NOT NULL, extra TEXT)")
                db.execute("CREATE TABLE IF NOT EXISTS digests (path TEXT, size INTEGER, mtime INTEGER, digest TEXT, "
                           "PRIMARY KEY (path, size, mtime))")
                db.commit()
            except (OSError, sqlite3.Error) as exc:
                raise OutputError(f"cannot open the neural score cache ({exc}); set MTSCORE_NO_CACHE=1 (or --no-cache, cache=false), or "
                                  "MTSCORE_CACHE_DIR to a writable folder", str(self.path)) from None
            self._db = db
        return self._db

    def get_many(self, keys: list[bytes]) -> dict[bytes, tuple[float, object]]:
        db = self._conn()
        out = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            q = f"SELECT k, v, extra FROM scores WHERE k IN ({','.join('?' * len(chunk))})"
            for k, v, extra in db.execute(q, chunk):
                out[bytes(k)] = (struct.unpack("<d", v)[0], json.loads(extra) if extra else None)
        return out

    def put_many(self, rows: list[tuple[bytes, float, object]]) -> None:
        db = self._conn()
        try:
            db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?)",
                           [(k, struct.pack("<d", float(v)), None if extra is None else json.dumps(extra))
                            for k, v, extra in rows])
            db.commit()
        except sqlite3.Error as exc:
            raise OutputError(f"cannot write the neural score cache ({exc}); set MTSCORE_NO_CACHE=1 (or --no-cache, cache=false)", str(self.path)) from None

    def get_digest(self, k):
        row = self._conn().execute("SELECT digest FROM digests WHERE path=? AND size=? AND mtime=?", k).fetchone()
        return row[0] if row else None

    def put_digest(self, k, digest):
        db = self._conn()
        db.execute("INSERT OR REPLACE INTO digests VALUES (?, ?, ?, ?)", (*k, digest))
        db.commit()

    def stats(self) -> dict:
        if not self.path.is_file():
            return {"path": str(self.path), "entries": 0, "bytes": 0}
        n = self._conn().execute("SELECT COUNT(*) FROM scores").fetchone()[0]
        return {"path": str(self.path), "entries": int(n), "bytes": self.path.stat().st_size}

    def clear(self) -> None:
        if self.path.is_file():
            db = self._conn()
            db.execute("DELETE FROM scores")
            db.execute("DELETE FROM digests")
            db.commit()
            db.execute("VACUUM")

    def close(self):
        if self._db is not None:
            self._db.close()
            self._db = None

    def __getstate__(self):
        return {"path": self.path, "_db": None}
