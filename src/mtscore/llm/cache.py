"""The judges' raw answers in mtscore's score cache: kept before they are parsed, so a rerun (or ``compare``,
``report``, ``meta`` on the same outputs) sends no request and a better parser never costs one.

A table ``llm_answers`` in the score cache's SQLite file (:mod:`mtscore.neural.cache`: ``$MTSCORE_CACHE_DIR``,
default ``~/.cache/mtscore``), keyed by the request digest (sha256 of model id, exact messages and sampling
parameters; :mod:`mtscore.llm.requests`). Answers are committed in small batches as they arrive (at least once a
second and when the run ends or is interrupted), so a stopped run resumes with only the missing requests. Several
processes may share the file: SQLite serialises the writes (WAL journal, 60 s busy timeout) and the first answer
stored for a digest is kept. Failed requests are never stored. ``mtscore cache`` counts and clears these rows.
"""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from ..errors import OutputError
from .requests import Answer, Request

TABLE = "llm_answers"


class AnswerStore:
    def __init__(self, path: Path | None = None, batch: int = 32, every: float = 1.0):
        from ..neural.cache import ScoreCache
        self.path = Path(path) if path else ScoreCache().path
        self._db = None
        self._pending: list[tuple] = []
        self._batch = batch
        self._every = every
        self._last = time.monotonic()

    def _conn(self):
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (digest TEXT PRIMARY KEY, model TEXT NOT NULL, "
                           "answer TEXT NOT NULL, created REAL NOT NULL)")
                db.commit()
            except (OSError, sqlite3.Error) as exc:
                raise OutputError(f"cannot open the score cache ({exc}); set MTSCORE_NO_CACHE=1 (or cache=false), "
                                  "or MTSCORE_CACHE_DIR to a writable folder", str(self.path)) from None
            self._db = db
        return self._db

    def get(self, digest: str) -> Answer | None:
        for d, _model, text in self._pending:
            if d == digest:
                return Answer.from_json(json.loads(text))
        row = self._conn().execute(f"SELECT answer FROM {TABLE} WHERE digest=?", (digest,)).fetchone()
        return Answer.from_json(json.loads(row[0])) if row else None

    def put(self, request: Request, answer: Answer) -> None:
        if answer.failed:
            return
        self._pending.append((request.digest, request.model, json.dumps(answer.to_json(), ensure_ascii=False)))
        if len(self._pending) >= self._batch or time.monotonic() - self._last >= self._every:
            self.flush()

    def flush(self) -> None:
        self._last = time.monotonic()
        if not self._pending:
            return
        db = self._conn()
        try:
            db.executemany(f"INSERT OR IGNORE INTO {TABLE} VALUES (?, ?, ?, ?)",
                           [(d, m, a, time.time()) for d, m, a in self._pending])
            db.commit()
        except sqlite3.Error as exc:
            raise OutputError(f"cannot write the score cache ({exc}); set MTSCORE_NO_CACHE=1 (or cache=false)",
                              str(self.path)) from None
        self._pending.clear()

    def _existing(self):
        """A connection to the file when it holds the answers table (showing or clearing creates nothing)."""
        if not self.path.is_file():
            return None
        db = sqlite3.connect(str(self.path), timeout=60)
        if db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (TABLE,)).fetchone() is None:
            db.close()
            return None
        return db

    def stats(self) -> dict:
        db = self._existing()
        if db is None:
            return {"entries": 0, "models": 0}
        try:
            n, m = db.execute(f"SELECT COUNT(*), COUNT(DISTINCT model) FROM {TABLE}").fetchone()
        finally:
            db.close()
        return {"entries": int(n), "models": int(m)}

    def clear(self) -> int:
        db = self._existing()
        if db is None:
            return 0
        try:
            n = db.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0]
            db.execute(f"DELETE FROM {TABLE}")
            db.commit()
        finally:
            db.close()
        return int(n)

    def close(self) -> None:
        if self._db is not None:
            self.flush()
            self._db.close()
            self._db = None
