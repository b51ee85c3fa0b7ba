"""The neural score cache: per-segment scores of a model, kept between runs so that ``compare``, ``report``,
``meta`` and reruns never recompute them (docs/neural-metrics.md, "The score cache").

One SQLite file, ``$MTSCORE_CACHE_DIR/neural.sqlite`` (default ``$XDG_CACHE_HOME/mtscore``, else
``~/.cache/mtscore``). A row is keyed by the sha256 of (the model's fingerprint, the metric's kind, the exact
input texts). The fingerprint (:func:`fingerprint`) covers everything else that decides a score: the weights'
sha256, hparams.yaml / config.json, the tokenizer files, the metric's options, the precision, the inference
code's version (:data:`INFERENCE_VERSION`) and the torch / transformers / tokenizers versions. It is computed
from the files without loading the model, so a run whose every segment is in the cache loads no model.

The weights' sha256 is memoised in the same file (table ``digests``), keyed by the file's real path, device,
inode, size, modification and change time (nanoseconds): a rerun hashes no multi-GB checkpoint again, and a file
rewritten in place (same size, even with its mtime restored) changes its change time and is hashed again.

The score is stored as the 8 bytes of the float64 it was, so a hit is bit-identical to the recomputation;
XCOMET's error spans are stored beside it as JSON. A stored value that is not 8 bytes, or spans that are not a
list of well-formed spans, are recomputed and replaced (one warning says how many). ``MTSCORE_NO_CACHE=1`` (or
the metric parameter ``cache=false``) neither reads nor writes it; :meth:`ScoreCache.stats` gives its size and
:meth:`ScoreCache.clear` empties it. A cache held locked by another process is waited for: after
``LOCK_NOTICE_S`` a warning says so, and after ``MTSCORE_CACHE_WAIT`` seconds (default 30) it is a one-line
error.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import struct
import time
import warnings
from pathlib import Path

from ..errors import InputError, InvalidParameterError, MtscoreWarning, OutputError

SCHEMA = 2  # PRAGMA user_version of the file
# Bump when mtscore's inference code changes a score (tokenization, arithmetic, span decoding): every cached score
# of an older version is then recomputed.
INFERENCE_VERSION = "3"  # 3: tokenizers built as the references run them (mtscore.neural.tokenization)
LOCK_NOTICE_S = 1.0
TABLES = {"scores": ["k", "v", "extra"],
          "digests": ["path", "dev", "ino", "size", "mtime_ns", "ctime_ns", "digest"],
          # the LLM judges' raw answers (mtscore.llm.cache), keyed by the request's digest
          "llm_answers": ["digest", "model", "answer", "created"]}
# a schema-2 file written before the judges' table existed: the table is added when the file is opened to write
_BEFORE_LLM = {k: v for k, v in TABLES.items() if k != "llm_answers"}
_OLD_TABLES = {"scores": ["k", "v", "extra"], "digests": ["path", "size", "mtime", "digest"]}
_SEVERITIES = ("minor", "major", "critical")
_NO_CACHE_HINT = "set MTSCORE_NO_CACHE=1 (or --no-cache, cache=false), or MTSCORE_CACHE_DIR to another folder"


def cache_dir() -> Path:
    env = os.environ
    if env.get("MTSCORE_CACHE_DIR"):
        return Path(env["MTSCORE_CACHE_DIR"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "mtscore"


def cache_file() -> Path:
    """Where the cache is (it may not exist)."""
    return cache_dir() / "neural.sqlite"


def disabled() -> bool:
    return os.environ.get("MTSCORE_NO_CACHE", "").strip().lower() in ("1", "true", "yes", "on")


def wait_limit() -> float:
    """``MTSCORE_CACHE_WAIT``: seconds to wait for a cache another process holds locked (default 30)."""
    raw = os.environ.get("MTSCORE_CACHE_WAIT", "").strip()
    if not raw:
        return 30.0
    try:
        v = float(raw)
    except ValueError:
        v = float("nan")
    if not math.isfinite(v) or v < 0 or v > 86400:
        raise InvalidParameterError(f"MTSCORE_CACHE_WAIT={raw!r}: expected seconds from 0 to 86400")
    return v


def key(fingerprint: str, precision: str, kind: str, texts: tuple) -> bytes:
    h = hashlib.sha256()
    for part in (fingerprint, precision, kind, *texts):
        b = ("\x00" if part is None else "\x01" + part).encode("utf-8", "surrogatepass")
        h.update(struct.pack("<Q", len(b)))
        h.update(b)
    return h.digest()


def file_digest(path: Path, cache: "ScoreCache | None" = None) -> str:
    """sha256 of a file, memoised in ``cache`` (when given) by its real path, device, inode, size, mtime and
    ctime (ns): an unchanged multi-GB checkpoint is hashed once, not on every run."""
    real = os.path.realpath(path)
    st = os.stat(real)
    k = (real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if cache is not None:
        got = cache.get_digest(k)
        if got:
            return got
    h = hashlib.sha256()
    with open(real, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    digest = h.hexdigest()
    if cache is not None:
        cache.put_digest(k, digest)
    return digest


def _versions() -> str:
    from importlib import metadata
    out = []
    for dist in ("torch", "transformers", "tokenizers", "sentencepiece"):
        try:
            out.append(f"{dist}={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            out.append(f"{dist}=-")
    return ",".join(out)


def fingerprint(files: dict[str, Path | None], options: dict, cache: "ScoreCache | None" = None) -> str:
    """The part of the cache key that is not the input text: the sha256 of every named file (``None``: a file
    that is absent, which is part of the key too: adding a tokenizer_config.json changes it), the metric's
    ``options`` (precision, input format, tokenizer, ...), :data:`INFERENCE_VERSION` and the library versions."""
    h = hashlib.sha256()
    parts = [f"inference={INFERENCE_VERSION}", _versions()]
    parts += [f"option {k}={options[k]!r}" for k in sorted(options)]
    for name in sorted(files):
        p = files[name]
        parts.append(f"file {name}=" + ("-" if p is None else file_digest(p, cache)))
    for part in parts:
        b = part.encode("utf-8", "surrogateescape")
        h.update(struct.pack("<Q", len(b)))
        h.update(b)
    return h.hexdigest()


def _valid_spans(extra) -> bool:
    if not isinstance(extra, list):
        return False
    for sp in extra:
        if not isinstance(sp, dict) or sp.get("severity") not in _SEVERITIES or not isinstance(sp.get("text"), str):
            return False
        s, e, c = sp.get("start"), sp.get("end"), sp.get("confidence")
        if type(s) is not int or type(e) is not int or not 0 <= s <= e:
            return False
        if type(c) not in (int, float) or not math.isfinite(c):
            return False
    return True


def _is_locked(exc) -> bool:
    msg = str(exc).lower()
    return "locked" in msg or "busy" in msg


def retry_locked(fn, path, what: str, bad):
    """``fn()``, waited for while another process holds the SQLite file ``path`` locked: a warning after
    LOCK_NOTICE_S, a one-line :class:`OutputError` after MTSCORE_CACHE_WAIT seconds. Any other SQLite error is
    raised as ``bad(exc)``. ``what`` names the file in both messages (``the neural score cache``). The
    connection's own busy timeout should be short (a fraction of a second): this loop does the waiting. Shared
    with the LLM judges' answers (:mod:`mtscore.llm.cache`), which live in the same file."""
    import sqlite3
    limit = wait_limit()
    start = time.monotonic()
    told = False
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc):
                raise bad(exc) from None
            waited = time.monotonic() - start
            if not told and waited >= min(LOCK_NOTICE_S, limit):
                warnings.warn(f"{what} {path} is locked by another process; waiting up to "
                              f"{limit:g} s (MTSCORE_CACHE_WAIT)", MtscoreWarning, stacklevel=4)
                told = True
            if waited >= limit:
                raise OutputError(f"{what} is locked by another process (waited {waited:.0f} s, "
                                  f"MTSCORE_CACHE_WAIT={limit:g}); {_NO_CACHE_HINT}", str(path)) from None
            time.sleep(min(0.05, max(0.0, limit - waited)))
        except sqlite3.Error as exc:
            raise bad(exc) from None


class ScoreCache:
    """A SQLite table ``key -> (score bytes, extra JSON)``; ``path`` None = the default location."""

    def __init__(self, path: Path | None = None):
        self.path = Path(path) if path else cache_file()
        self._db = None
        self._unreadable = 0

    # -- the file ------------------------------------------------------------------------------------
    def check_location(self) -> None:
        """A one-line error when the cache's folder is not a folder or ``neural.sqlite`` is not a file."""
        folder = self.path.parent
        for p in [*reversed(folder.parents), folder]:
            try:
                st = os.stat(p)
            except FileNotFoundError:
                break
            except OSError as exc:
                raise OutputError(f"cannot use the neural score cache's folder ({exc.strerror}); {_NO_CACHE_HINT}",
                                  str(p)) from None
            if not stat.S_ISDIR(st.st_mode):
                what = "MTSCORE_CACHE_DIR" if os.environ.get("MTSCORE_CACHE_DIR") and p == folder else "the cache folder"
                raise OutputError(f"{what} names a file, not a folder: no neural score cache can be kept there; "
                                  f"{_NO_CACHE_HINT}", str(p))
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise OutputError(f"cannot use the neural score cache ({exc.strerror}); {_NO_CACHE_HINT}",
                              str(self.path)) from None
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise OutputError(f"the neural score cache is {kind}, not an SQLite file; remove it or {_NO_CACHE_HINT}",
                              str(self.path))

    def _retry(self, fn):
        """``fn()``, waited for while another process holds the file locked (:func:`retry_locked`); other SQLite
        errors are one line too."""
        return retry_locked(fn, self.path, "the neural score cache", self._bad)

    def _bad(self, exc) -> Exception:
        return InputError(f"not a readable neural score cache ({type(exc).__name__}: {exc}); delete the file or run "
                          f"'mtscore cache --clear', or {_NO_CACHE_HINT}", str(self.path))

    def _layout(self, db) -> dict:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: [r[1] for r in db.execute(f'PRAGMA table_info("{n}")')] for n in names}

    def _create(self, db) -> None:
        db.execute("CREATE TABLE IF NOT EXISTS scores (k BLOB PRIMARY KEY, v BLOB NOT NULL, extra TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS digests (path TEXT PRIMARY KEY, dev INTEGER, ino INTEGER, "
                   "size INTEGER, mtime_ns INTEGER, ctime_ns INTEGER, digest TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS llm_answers (digest TEXT PRIMARY KEY, model TEXT NOT NULL, "
                   "answer TEXT NOT NULL, created REAL NOT NULL)")
        db.execute(f"PRAGMA user_version = {SCHEMA}")

    @staticmethod
    def _in_transaction(db, fn) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            fn()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _conn(self, create: bool = True, repair: bool = False):
        """The connection; the tables are made in a new or empty file. A cache written before the key covered
        more than the weights (schema 0: scores keyed by the weights' digest only) is emptied (its scores could
        be stale); a file with other tables or another schema version is a one-line error (or, with
        ``repair``, for ``mtscore cache --clear``, its two tables are made anew)."""
        if self._db is not None:
            return self._db
        import sqlite3
        self.check_location()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot make the neural score cache's folder ({exc.strerror}); {_NO_CACHE_HINT}",
                              str(self.path.parent)) from None
        try:
            db = sqlite3.connect(str(self.path), timeout=min(0.25, wait_limit()), isolation_level=None)
        except sqlite3.Error as exc:
            raise OutputError(f"cannot open the neural score cache ({exc}); {_NO_CACHE_HINT}", str(self.path)) from None

        def setup():
            layout = self._layout(db)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            # tables of other programs in the file are ignored; ours (TABLES, the judges' answers included) are checked
            mine = {n: c for n, c in layout.items() if n in TABLES}
            if version == SCHEMA and mine == TABLES:
                return
            if version == SCHEMA and mine == _BEFORE_LLM:  # the judges' table is added when writing
                if create:
                    self._in_transaction(db, lambda: self._create(db))
                return
            if set(mine) <= {"llm_answers"} and version in (0, SCHEMA):  # new, or made by the judges first
                if create:
                    self._in_transaction(db, lambda: self._create(db))
                return
            if (version == 0 and mine == _OLD_TABLES) or repair:
                def remake():
                    for n in mine:
                        if n != "llm_answers":  # the judges' answers are kept (mtscore cache --clear empties them)
                            db.execute(f'DROP TABLE IF EXISTS "{n}"')
                    self._create(db)
                self._in_transaction(db, remake)
                return
            shown = "; ".join(f"table {n} ({', '.join(c)})" for n, c in sorted(mine.items()))
            raise InputError(f"not a score cache of this mtscore: schema version {version} with {shown or 'no table'}, "
                             f"expected version {SCHEMA} with tables scores (k, v, extra), digests and llm_answers; delete the file "
                             "or run 'mtscore cache --clear'", str(self.path))
        try:
            self._retry(setup)
        except BaseException:
            db.close()
            raise
        self._db = db
        return db

    # -- scores ----------------------------------------------------------------------------------------
    def get_many(self, keys: list[bytes]) -> dict[bytes, tuple[float, object]]:
        """The stored (score, extra) of ``keys``; unreadable entries (a value that is not 8 bytes, a stored
        score that is not finite, extra that is not JSON or not a list of well-formed spans) are left out: they
        are recomputed and replaced, and one warning says how many."""
        db = self._conn()
        out = {}
        bad = 0
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            q = f"SELECT k, v, extra FROM scores WHERE k IN ({','.join('?' * len(chunk))})"
            for k, v, extra in self._retry(lambda: db.execute(q, chunk).fetchall()):
                try:
                    if not isinstance(v, bytes) or len(v) != 8:
                        raise ValueError("not 8 bytes")
                    val = struct.unpack("<d", v)[0]
                    if not math.isfinite(val):
                        raise ValueError("not finite")
                    ex = json.loads(extra) if extra else None
                    if ex is not None and not _valid_spans(ex):
                        raise ValueError("malformed spans")
                except (ValueError, TypeError, RecursionError, struct.error):
                    bad += 1
                    continue
                out[bytes(k)] = (val, ex)
        if bad:
            self._unreadable += bad
            warnings.warn(f"the neural score cache {self.path} has {bad} unreadable "
                          f"entr{'y' if bad == 1 else 'ies'} (a truncated value or a malformed span entry): "
                          "recomputed and replaced", MtscoreWarning, stacklevel=2)
        return out

    def put_many(self, rows: list[tuple[bytes, float, object]]) -> None:
        db = self._conn()
        data = [(k, struct.pack("<d", float(v)), None if extra is None else json.dumps(extra))
                for k, v, extra in rows if math.isfinite(float(v))]  # a non-finite score is an error, never kept

        def put():
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?)", data)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        try:
            self._retry(put)
        except InputError as exc:
            raise OutputError(f"cannot write the neural score cache ({exc.message if hasattr(exc, 'message') else exc}); "
                              f"{_NO_CACHE_HINT}", str(self.path)) from None

    # -- the weights' digests --------------------------------------------------------------------------
    def get_digest(self, k):
        """``k``: (real path, dev, inode, size, mtime_ns, ctime_ns)."""
        db = self._conn()
        row = self._retry(lambda: db.execute(
            "SELECT digest FROM digests WHERE path=? AND dev=? AND ino=? AND size=? AND mtime_ns=? AND ctime_ns=?",
            tuple(k)).fetchone())
        return row[0] if row else None

    def put_digest(self, k, digest):
        db = self._conn()
        try:
            self._retry(lambda: db.execute("INSERT OR REPLACE INTO digests VALUES (?, ?, ?, ?, ?, ?, ?)",
                                           (*k, digest)))
        except InputError:
            pass  # a memo only: the digest is computed again next time

    # -- the command ``mtscore cache`` -------------------------------------------------------------------
    def stats(self) -> dict:
        self.check_location()
        if not self.path.exists():
            return {"path": str(self.path), "entries": 0, "bytes": 0}
        db = self._conn(create=False)
        if "scores" not in self._retry(lambda: self._layout(db)):
            n = 0
        else:
            n = self._retry(lambda: db.execute("SELECT COUNT(*) FROM scores").fetchone()[0])
        return {"path": str(self.path), "entries": int(n), "bytes": self.path.stat().st_size}

    def clear(self) -> None:
        """Empty the cache (a file of another schema gets its two tables made anew)."""
        self.check_location()
        if not self.path.exists():
            return
        if self._db is not None:
            self.close()
        db = self._conn(repair=True)

        def wipe():
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM scores")
                db.execute("DELETE FROM digests")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        self._retry(wipe)
        self._retry(lambda: db.execute("VACUUM"))

    def close(self):
        if self._db is not None:
            self._db.close()
            self._db = None

    def __getstate__(self):
        return {"path": self.path, "_db": None, "_unreadable": 0}
