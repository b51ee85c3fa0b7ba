"""The judges' raw answers in mtscore's score cache: kept before they are parsed, so a rerun (or ``compare``,
``report``, ``meta`` on the same outputs) sends no request and a better parser never costs one.

Table ``llm_answers`` of the score cache's SQLite file (:mod:`mtscore.neural.cache`: ``$MTSCORE_CACHE_DIR``,
default ``~/.cache/mtscore``; its schema, its lock waiting and its one-line errors are the score cache's), keyed
by the request digest (sha256 of model id, exact messages and sampling parameters; :mod:`mtscore.llm.requests`).
Answers are committed in small batches as they arrive (at least once a second, and when the run ends or is
interrupted), so a stopped run resumes with only the missing requests. Several processes may share the file:
SQLite serialises the writes (a process waits for another's lock as the score cache does) and the first answer
stored for a digest is kept. Failed requests are never stored. ``mtscore cache`` counts and clears these rows.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from ..errors import InputError, OutputError
from .requests import Answer, Request

TABLE = "llm_answers"


class AnswerStore:
    def __init__(self, path: Path | None = None, batch: int = 32, every: float = 1.0):
        from ..neural.cache import ScoreCache
        self._sc = ScoreCache(path)
        self.path = self._sc.path
        self._pending: list[tuple] = []
        self._batch = batch
        self._every = every
        self._last = time.monotonic()

    def _conn(self):
        return self._sc._conn()

    def get(self, digest: str) -> Answer | None:
        for d, _model, text in self._pending:
            if d == digest:
                return Answer.from_json(json.loads(text))
        db = self._conn()
        row = self._sc._retry(lambda: db.execute(f"SELECT answer FROM {TABLE} WHERE digest=?", (digest,)).fetchone())
        if row is None:
            return None
        try:
            return Answer.from_json(json.loads(row[0]))
        except (ValueError, TypeError, AttributeError):
            return None  # an unreadable entry is asked again (and replaced)

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
        rows = [(d, m, a, time.time()) for d, m, a in self._pending]

        def put():
            db.execute("BEGIN IMMEDIATE")
            try:
                # an unreadable entry of the same digest is replaced; a readable one (another process's) is kept
                db.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?) ON CONFLICT(digest) DO UPDATE SET "
                               "model=excluded.model, answer=excluded.answer, created=excluded.created "
                               "WHERE json_valid(answer) = 0", rows)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        try:
            self._sc._retry(put)
        except InputError as exc:
            raise OutputError(f"cannot write the LLM answers to the score cache ({exc}); set MTSCORE_NO_CACHE=1 "
                              "(or cache=false)", str(self.path)) from None
        self._pending.clear()

    def _existing(self):
        """The connection when the file exists and holds the answers table (showing creates nothing)."""
        if not self.path.exists():
            return None
        db = self._sc._conn(create=False)
        if TABLE not in self._sc._retry(lambda: self._sc._layout(db)):
            return None
        return db

    def stats(self) -> dict:
        db = self._existing()
        if db is None:
            return {"entries": 0, "models": 0}
        n, m = self._sc._retry(lambda: db.execute(f"SELECT COUNT(*), COUNT(DISTINCT model) FROM {TABLE}").fetchone())
        return {"entries": int(n), "models": int(m)}

    def clear(self) -> int:
        db = self._existing()
        if db is None:
            return 0
        n = self._sc._retry(lambda: db.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])

        def wipe():
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(f"DELETE FROM {TABLE}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        self._sc._retry(wipe)
        return int(n)

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._sc.close()
