"""The judges' answer store in the score cache's file (docs/llm-judges.md, "Cache and resume"): it shares the file
with the neural scores whichever comes first, and a file another process holds locked is waited for as the neural
scores wait (after 1 s a warning, after MTSCORE_CACHE_WAIT seconds a one-line error), never a silent minute-long
wait; a lock released within the wait costs nothing but the warning."""
from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
import warnings

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from llm_scripted_server import ScriptedServer, esa_answer  # noqa: E402

from mtscore.errors import InvalidParameterError, MtscoreWarning, OutputError  # noqa: E402
from mtscore.llm.cache import AnswerStore  # noqa: E402
from mtscore.llm.requests import Answer, Request  # noqa: E402


def _request(i: int) -> Request:
    return Request("judge", (("user", f"Score translation {i}."),), 0.0, None)


def _answer(i: int) -> Answer:
    return Answer(f"score: {i}", "stop", prompt_tokens=7, completion_tokens=2)


def _stored(db) -> set[str]:
    con = sqlite3.connect(db)
    try:
        return {r[0] for r in con.execute("SELECT digest FROM llm_answers")}
    finally:
        con.close()


class Holder:
    """Another process's view of the file: a connection holding an exclusive write lock until release()."""

    def __init__(self, db):
        self.con = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        self.con.execute("BEGIN EXCLUSIVE")

    def release(self):
        if self.con is not None:
            self.con.execute("ROLLBACK")
            self.con.close()
            self.con = None


def test_a_locked_store_is_said_then_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "0.6")
    db = tmp_path / "neural.sqlite"
    store = AnswerStore(db, batch=1)
    assert store.get(_request(1).digest) is None
    store.put(_request(1), _answer(1))  # batch=1: written at once
    holder = Holder(db)
    try:
        with pytest.warns(MtscoreWarning, match=r"the (neural )?score cache .*neural\.sqlite is locked by another process; "
                                                r"waiting up to 0\.6 s \(MTSCORE_CACHE_WAIT\)"):
            with pytest.raises(OutputError) as exc:
                store.put(_request(2), _answer(2))
        msg = str(exc.value)
        assert "\n" not in msg and "neural.sqlite" in msg
        assert "score cache is locked by another process" in msg and "MTSCORE_CACHE_WAIT=0.6" in msg
        assert "MTSCORE_NO_CACHE=1" in msg
        # the failed write is not tried (and waited for) again when the store closes: still locked, no error
        with warnings.catch_warnings(record=True) as again:
            warnings.simplefilter("always")
            store.close()
        assert not [w for w in again if issubclass(w.category, MtscoreWarning)]
    finally:
        holder.release()
    assert _stored(db) == {_request(1).digest}  # the first answer kept; the second never claimed to be


def test_opening_a_locked_file_waits_then_fails_in_one_line(tmp_path, monkeypatch):
    """A file in the neural scores' rollback-journal mode, held by another writer: even reading an answer needs
    the lock (the store switches the file to WAL when it opens it)."""
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "0.3")
    db = tmp_path / "neural.sqlite"
    holder = Holder(db)
    try:
        with pytest.warns(MtscoreWarning, match="waiting up to 0.3 s"):
            with pytest.raises(OutputError, match=r"locked by another process \(waited \d+ s, MTSCORE_CACHE_WAIT=0.3\)"):
                AnswerStore(db).get(_request(1).digest)
    finally:
        holder.release()
    store = AnswerStore(db)  # released: the same call works
    assert store.get(_request(1).digest) is None
    store.close()


def test_a_lock_released_within_the_wait_costs_only_the_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "30")
    db = tmp_path / "neural.sqlite"
    store = AnswerStore(db, batch=1)
    store.put(_request(1), _answer(1))
    holder = Holder(db)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")

        def release_after_the_warning():  # no clock in the test: released once the store has said it waits
            for _ in range(12000):
                if any("locked by another process" in str(w.message) for w in list(seen)):
                    break
                time.sleep(0.005)
            holder.release()
        t = threading.Thread(target=release_after_the_warning)
        t.start()
        try:
            store.put(_request(2), _answer(2))
        finally:
            t.join()
            holder.release()
    said = [str(w.message) for w in seen if issubclass(w.category, MtscoreWarning)]
    assert len(said) == 1 and "waiting up to 30 s (MTSCORE_CACHE_WAIT)" in said[0]
    store.close()
    assert _stored(db) == {_request(1).digest, _request(2).digest}
    again = AnswerStore(db)
    assert again.get(_request(2).digest) == Answer("score: 2", "stop", 7, 2, cached=True)
    assert again.stats() == {"entries": 2, "models": 1}
    again.close()


def test_the_wait_limit_is_validated(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "soon")
    with pytest.raises(InvalidParameterError, match=r"MTSCORE_CACHE_WAIT='soon': expected seconds from 0 to 86400"):
        AnswerStore(tmp_path / "neural.sqlite").get(_request(1).digest)


def test_score_with_a_judge_on_a_locked_cache_is_one_line(tmp_path, monkeypatch, capsys):
    from mtscore.cli.main import main
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(cache))
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "0.5")
    paths = {}
    for name, line in (("src.en", "The cat sat."), ("ref.de", "Die Katze saß."), ("a.de", "Die Katze sitzt.")):
        paths[name] = tmp_path / name
        paths[name].write_text(line + "\n", encoding="utf-8")
    args = ["score", "-r", str(paths["ref.de"]), "-i", str(paths["a.de"]), "-l", "en-de", "-f", "json", "-m"]
    holder = Holder(cache / "neural.sqlite")
    try:
        with ScriptedServer(esa_answer) as srv:
            spec = f"gemba-esa:endpoint={srv.url},model=judge,sources={paths['src.en']}"
            rc = main(args + [spec])
    finally:
        holder.release()
    io = capsys.readouterr()
    errors = [ln for ln in io.err.splitlines() if ln.startswith("mtscore: error:")]
    assert rc == 5 and len(errors) == 1 and "Traceback" not in io.err and io.out == "", (rc, io.err)
    assert "score cache is locked by another process" in errors[0] and "MTSCORE_CACHE_WAIT=0.5" in errors[0]
    assert "mtscore: warning: the neural score cache" in io.err and "waiting up to 0.5 s" in io.err
    with ScriptedServer(esa_answer) as srv:  # released: the same run scores
        spec = f"gemba-esa:endpoint={srv.url},model=judge,sources={paths['src.en']}"
        assert main(args + [spec]) == 0, capsys.readouterr().err
        assert srv.count > 0
    assert len(_stored(cache / "neural.sqlite")) == srv.count


@pytest.mark.parametrize("first", ["answers", "scores"])
def test_answers_and_neural_scores_share_the_file_in_either_order(tmp_path, monkeypatch, capsys, first):
    """Neither owner of the file takes the other's table for a foreign schema: a file the judges made first is a
    new score cache, and the neural scores' schema check ignores the answers' table."""
    import json

    from mtscore.cli.main import main
    from mtscore.neural import cache as neural
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path))
    k = neural.key("fp", "", "k", ("x",))

    def answers():
        store = AnswerStore(batch=1)
        store.put(_request(1), _answer(1))
        store.close()

    def scores():
        c = neural.ScoreCache()
        c.put_many([(k, 0.25, None)])
        c.close()
    for step in ((answers, scores) if first == "answers" else (scores, answers)):
        step()
    c = neural.ScoreCache()
    assert c.get_many([k]) == {k: (0.25, None)} and c.stats()["entries"] == 1
    c.close()
    store = AnswerStore()
    assert store.get(_request(1).digest) == Answer("score: 1", "stop", 7, 2, cached=True)
    store.close()
    assert main(["cache", "-f", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"][0]["entries"] == 1
    assert any("LLM judge answers (gemba-esa, gemba-mqm, gemba-da): 1 from 1 models" in n for n in doc["notes"])
    assert main(["cache", "--clear"]) == 0
    out = capsys.readouterr().out
    assert "cleared: 1 entries" in out and "cleared: 1 LLM judge answers" in out
    assert _stored(tmp_path / "neural.sqlite") == set()
