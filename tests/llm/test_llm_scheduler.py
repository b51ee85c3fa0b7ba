"""The scheduler and GEMBA's protocol against a scripted server on 127.0.0.1: faults, escalation, resume.

The server (tests/llm/llm_scripted_server.py) answers from a script and injects the faults a real endpoint
shows: 429 with Retry-After, 500, a stalled connection, malformed JSON, ``finish_reason: length``, a content-filter
refusal, a connection dropped mid-answer. Nothing here waits for a real backoff: the scheduler's sleep is
recorded instead (and the stall waits for a 0.3 s timeout).
"""
from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from llm_scripted_server import ScriptedServer, esa_answer, is_score_prompt, judge_score, translation_of  # noqa: E402

from mtscore.errors import InvalidParameterError  # noqa: E402
from mtscore.llm import protocol  # noqa: E402
from mtscore.llm.cache import AnswerStore  # noqa: E402
from mtscore.llm.client import Endpoint, JudgeServerError, Scheduler, drive  # noqa: E402

HYPS = [f"Das ist Satz Nummer {i} mit {'x' * (i % 7)} Wörtern." for i in range(40)]
SRCS = [f"This is sentence number {i}." for i in range(40)]


def esa_protocols(hyps=HYPS, variant="gemba"):
    for i, (s, h) in enumerate(zip(SRCS, hyps)):
        yield i, protocol.esa("judge-1", variant, source=s, hypothesis=h, source_lang="English",
                              target_lang="German")


def scheduler(server, sleeps=None, **kw):
    kw.setdefault("concurrency", 4)
    ep = Endpoint(server.url, timeout=kw.pop("timeout", 5.0))
    return Scheduler(ep, sleep=(sleeps.append if sleeps is not None else (lambda s: None)), **kw)


class MemStore:
    def __init__(self):
        self.d = {}

    def get(self, digest):
        return self.d.get(digest)

    def put(self, req, ans):
        self.d[req.digest] = ans

    def flush(self):
        pass


def ok_bodies(server):
    return [json.dumps(e["body"], sort_keys=True) for e in server.log if e["kind"] == "ok"]


def test_scores_equal_the_judges_answers_and_no_request_is_repeated():
    with ScriptedServer(esa_answer) as srv:
        sched = scheduler(srv, concurrency=8)
        res = drive(esa_protocols(), sched, MemStore())
    assert [res[i].score for i in range(len(HYPS))] == [float(judge_score(h)) for h in HYPS]
    assert all(r.status == "ok" for r in res.values())
    assert srv.count == 2 * len(HYPS)  # two requests per segment (GEMBA-ESA)
    oks = ok_bodies(srv)
    assert len(oks) == len(set(oks))
    assert sched.usage.answers == 80 and sched.usage.prompt_tokens > 0 and sched.usage.completion_tokens > 0
    # the first answer is pasted verbatim into the second prompt, and its quoted word becomes an error span
    span = res[0].spans[0]
    assert (span["start"], span["severity"], span["text"]) == (0, "minor", "Das")


def test_escalation_on_unparseable_answers_follows_gemba():
    def answer(body, seen):
        if not is_score_prompt(body):
            return esa_answer(body, seen)
        t = body["temperature"]
        if t == 0:
            return ("ok", "I cannot give a number.", "stop")
        if t == 0.1:
            return ("ok", "Between 60 and 70.", "stop")  # two numbers: unparseable for GEMBA
        return ("ok", "Score: 77", "stop")

    with ScriptedServer(answer) as srv:
        res = drive(esa_protocols(HYPS[:3]), scheduler(srv), MemStore())
    assert [r.score for r in res.values()] == [77.0] * 3
    score_reqs = [e["body"] for e in srv.log if is_score_prompt(e["body"])]
    assert sorted(b["temperature"] for b in score_reqs) == [0, 0, 0, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2]
    assert all("max_tokens" not in b for b in score_reqs)


def test_unparseable_to_the_end_is_nan_after_eleven_samples():
    def answer(body, seen):
        return ("ok", "no idea", "stop") if is_score_prompt(body) else esa_answer(body, seen)

    with ScriptedServer(answer) as srv:
        res = drive(esa_protocols(HYPS[:2]), scheduler(srv), MemStore())
    assert all(math.isnan(r.score) and r.status == "unparseable" for r in res.values())
    temps = sorted({e["body"]["temperature"] for e in srv.log if is_score_prompt(e["body"])})
    assert temps == [i / 10 for i in range(11)]
    assert srv.count == 2 * (1 + 11)


def test_truncated_answers_get_a_larger_max_tokens_up_to_the_cap():
    def answer(body, seen):
        mt = body.get("max_tokens")
        if translation_of(body).startswith("Das ist Satz Nummer 0 "):
            return ("ok", "Critical:\naccuracy/omission - \"Das\"", "length")  # always truncated
        if mt == 500:
            return ("ok", "Major:\naccuracy/omi", "length")
        return ("ok", 'Critical:\nno-error\nMajor:\naccuracy/omission - "Satz"\nMinor:\nno-error', "stop")

    def protos():
        for i in range(2):
            yield i, protocol.mqm("judge-1", "gemba", source=SRCS[i], hypothesis=HYPS[i], source_lang="English",
                                  target_lang="German")

    with ScriptedServer(answer) as srv:
        res = drive(protos(), scheduler(srv), MemStore())
    assert math.isnan(res[0].score) and res[0].status == "truncated"
    assert res[1].score == -5.0 and res[1].spans[0]["text"] == "Satz"
    sizes = sorted(e["body"]["max_tokens"] for e in srv.log if "Nummer 0 " in translation_of(e["body"]))
    assert sizes == [500, 1000, 2000, 4000]
    assert sorted(e["body"]["max_tokens"] for e in srv.log if "Nummer 1 " in translation_of(e["body"])) == [500, 1000]


def test_wmt25_reads_a_truncated_answer_as_it_is():
    def answer(body, seen):
        if is_score_prompt(body):
            return ("ok", "The errors are minor. **Final score: 71**", "length")
        return esa_answer(body, seen)

    with ScriptedServer(answer) as srv:
        res = drive(esa_protocols(HYPS[:2], "wmt25"), scheduler(srv), MemStore())
    assert [r.score for r in res.values()] == [71.0, 71.0]
    assert {e["body"]["max_tokens"] for e in srv.log} == {8192}


FAULTS = [("status", 429, {"Retry-After": "7"}, '{"error": {"message": "slow down"}}'),
          ("status", 500, {}, "oops"), ("stall",), ("malformed",), ("drop",), ("drop_body",),
          ("status", 503, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, "")]


def test_each_transient_fault_is_retried_and_the_scores_are_unchanged():
    def answer(body, seen):
        i = int(translation_of(body).split()[4])
        if seen == 0 and i < len(FAULTS):
            return FAULTS[i]
        return esa_answer(body, seen)

    sleeps: list = []
    with ScriptedServer(answer) as srv:
        sched = scheduler(srv, sleeps, timeout=0.3, backoff=0.01)
        res = drive(esa_protocols(HYPS[:10]), sched, MemStore())
    assert [res[i].score for i in range(10)] == [float(judge_score(h)) for h in HYPS[:10]]
    assert sched.usage.retries == 2 * len(FAULTS)  # each fault hit both requests of its segment once
    assert max(sleeps) >= 7  # Retry-After honoured
    assert all(s <= sched.max_wait for s in sleeps)
    oks = ok_bodies(srv)
    assert len(oks) == len(set(oks)) == 20


def test_content_filter_refusal_gives_no_score_and_is_not_retried():
    def answer(body, seen):
        if "Nummer 1 " in translation_of(body):
            return ("filter",)
        if "Nummer 2 " in translation_of(body) and is_score_prompt(body):
            return ("ok", None, "content_filter")
        return esa_answer(body, seen)

    with ScriptedServer(answer) as srv:
        res = drive(esa_protocols(HYPS[:3]), scheduler(srv), MemStore())
    assert res[0].status == "ok"
    assert res[1].status == res[2].status == "refused"
    assert math.isnan(res[1].score) and math.isnan(res[2].score)
    assert srv.count == 2 + 1 + 2


def test_retries_are_bounded_then_the_segment_fails():
    def answer(body, seen):
        return ("status", 500, {}, "down") if "Nummer 0 " in translation_of(body) else esa_answer(body, seen)

    with ScriptedServer(answer) as srv:
        sched = scheduler(srv, attempts=3, backoff=0.0)
        store = MemStore()
        res = drive(esa_protocols(HYPS[:2]), sched, store)
    assert res[0].status == "failed" and math.isnan(res[0].score)
    assert res[1].status == "ok"
    assert srv.count == 3 + 2
    assert sched.usage.failed == 1
    assert len(store.d) == 2  # the failure is not cached: a rerun asks again


def test_a_permanent_error_stops_the_run_with_one_line_and_no_key():
    secret = "sk-test-PERMANENT-0123456789"

    def answer(body, seen):
        return ("status", 401, {}, json.dumps({"error": {"message": f"Incorrect API key provided: {secret}"}}))

    os.environ["MTSCORE_TEST_KEY_401"] = secret
    try:
        with ScriptedServer(answer) as srv:
            ep = Endpoint(srv.url, api_key_env="MTSCORE_TEST_KEY_401")
            with pytest.raises(JudgeServerError) as info:
                drive(esa_protocols(HYPS[:2]), Scheduler(ep, concurrency=2, sleep=lambda s: None), MemStore())
        assert srv.log[0]["auth"] == "Bearer " + secret
    finally:
        del os.environ["MTSCORE_TEST_KEY_401"]
    msg = str(info.value)
    assert "HTTP 401" in msg and secret not in msg and "\n" not in msg and "[key]" in msg


def test_interrupted_run_resumes_with_exactly_the_missing_requests(tmp_path):
    class StopAfter:
        def __init__(self, n):
            self.n = n

        def update(self, k):
            self.n -= k
            if self.n <= 0:
                raise KeyboardInterrupt

    db = tmp_path / "cache.sqlite"
    with ScriptedServer(esa_answer) as srv:
        store = AnswerStore(db)
        with pytest.raises(KeyboardInterrupt):
            drive(esa_protocols(), scheduler(srv), store, StopAfter(10))
        store.close()
        first = srv.count
    assert 20 <= first < 80
    import sqlite3
    stored = {r[0] for r in sqlite3.connect(db).execute("SELECT digest FROM llm_answers")}
    assert len(stored) >= 20

    # every request of the full run, as digests (built, not sent)
    from mtscore.llm.requests import Request
    everything = set()
    with ScriptedServer(esa_answer) as srv2:
        sched = scheduler(srv2)
        store = AnswerStore(db)
        res = drive(esa_protocols(), sched, store)
        store.close()
        sent = [Request(e["body"]["model"], tuple((m["role"], m["content"]) for m in e["body"]["messages"]),
                        e["body"]["temperature"], e["body"].get("max_tokens")).digest for e in srv2.log]
    assert [res[i].score for i in range(len(HYPS))] == [float(judge_score(h)) for h in HYPS]
    assert len(sent) == len(set(sent))
    assert not set(sent) & stored  # nothing already answered is asked again
    everything = set(sent) | stored
    assert len(everything) == 2 * len(HYPS)  # ... and together they are the whole run
    # a third run: everything is cached, zero requests
    with ScriptedServer(esa_answer) as srv3:
        store = AnswerStore(db)
        drive(esa_protocols(), scheduler(srv3), store)
        store.close()
    assert srv3.count == 0


@pytest.mark.parametrize("url,rule", [
    ("ftp://example.org/v1", "http:// or https://"), ("http:///v1", "with a host"),
    ("https://user:pw@example.org/v1", "user name or password"), ("https://example.org/v1?k=1", "query"),
    ("http://example.org:99999/v1", "invalid port")])
def test_endpoint_url_is_validated(url, rule):
    with pytest.raises(InvalidParameterError, match=rule):
        Endpoint(url)


def test_endpoint_paths_and_tls():
    ep = Endpoint("https://example.org/v1/")
    assert ep.url == "https://example.org/v1/chat/completions" and ep.port == 443
    conn = ep.connect()
    import ssl
    assert conn._context.verify_mode == ssl.CERT_REQUIRED and conn._context.check_hostname
    assert Endpoint("http://127.0.0.1:8000/v1/chat/completions").path == "/v1/chat/completions"
    with pytest.raises(InvalidParameterError, match="MTSCORE_SURELY_UNSET_VAR is not set"):
        Endpoint("http://127.0.0.1:1/v1", api_key_env="MTSCORE_SURELY_UNSET_VAR")


def test_two_processes_share_the_cache(tmp_path):
    """Two processes answer the same run into one cache file at once; both finish, every answer is stored once."""
    import subprocess
    script = tmp_path / "run.py"
    script.write_text(f"""
import sys
sys.path.insert(0, {os.path.dirname(__file__)!r})
from llm_scripted_server import ScriptedServer, esa_answer
from mtscore.llm import protocol
from mtscore.llm.cache import AnswerStore
from mtscore.llm.client import Endpoint, Scheduler, drive
hyps = [f"Satz {{i}} von vielen" for i in range(60)]
with ScriptedServer(esa_answer) as srv:
    store = AnswerStore(sys.argv[1], batch=1)
    res = drive(((i, protocol.esa("m", "gemba", source="s", hypothesis=h, source_lang="English",
                                  target_lang="German")) for i, h in enumerate(hyps)),
                Scheduler(Endpoint(srv.url), concurrency=8), store)
    store.close()
    print(sum(r.status == "ok" for r in res.values()))
""", encoding="utf-8")
    db = tmp_path / "shared.sqlite"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, str(script), str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert [o[0].strip() for o in outs] == ["60", "60"]
    import sqlite3
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM llm_answers").fetchone()[0] == 120


def test_identical_requests_in_one_run_are_sent_once_even_without_a_cache():
    same = ["Gleicher Satz."] * 12 + ["Anderer Satz."] * 4
    protos = ((i, protocol.esa("judge-1", "gemba", source="Same sentence.", hypothesis=h, source_lang="English",
                               target_lang="German")) for i, h in enumerate(same))
    with ScriptedServer(esa_answer) as srv:
        res = drive(protos, scheduler(srv, concurrency=8), None)
    assert srv.count == 4  # two distinct segments x two requests
    assert [res[i].score for i in range(16)] == [float(judge_score(h)) for h in same]


def test_answers_share_the_score_cache_file_and_its_schema(tmp_path):
    """A score-cache file written before the answers table existed gets the table; the neural scores stay."""
    import sqlite3

    from mtscore.llm.requests import Answer, Request
    from mtscore.neural.cache import ScoreCache, key
    db = tmp_path / "neural.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE scores (k BLOB PRIMARY KEY, v BLOB NOT NULL, extra TEXT)")
    con.execute("CREATE TABLE digests (path TEXT PRIMARY KEY, dev INTEGER, ino INTEGER, size INTEGER, "
                "mtime_ns INTEGER, ctime_ns INTEGER, digest TEXT)")
    con.execute("PRAGMA user_version = 2")
    con.commit()
    con.close()
    sc = ScoreCache(db)
    sc.put_many([(key("f", "fp32", "k", ("a",)), 0.5, None)])
    sc.close()
    store = AnswerStore(db)
    req = Request("m", (("user", "hi"),))
    store.put(req, Answer("85", "stop", 3, 1))
    store.close()
    again = AnswerStore(db)
    assert again.get(req.digest).content == "85" and again.stats() == {"entries": 1, "models": 1}
    again.close()
    sc = ScoreCache(db)
    assert sc.stats()["entries"] == 1 and len(sc.get_many([key("f", "fp32", "k", ("a",))])) == 1
    sc.close()
