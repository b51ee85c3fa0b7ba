"""The one place that talks to an OpenAI-compatible server: endpoint, key, the scheduler and its retries.

HTTP client: Python's standard library (``http.client`` + ``ssl``) on a pool of threads, one keep-alive connection
per thread (docs/llm-judges.md says why: no new dependency, TLS verification by ``ssl.create_default_context()``,
a socket timeout per request; a judge's requests are few and long, so threads waiting on sockets cost nothing).

* :class:`Endpoint` validates the URL (``http``/``https``, a host, no user/password, no query or fragment) and
  takes the key from ``OPENAI_API_KEY`` or the variable named by ``api_key_env=``; the key is only ever put in the
  ``Authorization`` header, and :meth:`Endpoint.scrub` removes it from any text that leaves this module.
* :class:`Scheduler` keeps ``concurrency`` requests in flight, retries 429, 408, 5xx, timeouts, dropped
  connections and malformed JSON with exponential backoff and jitter (``Retry-After`` honoured, up to
  ``max_wait``), at most ``attempts`` tries per request; then the request counts as failed (its segment gets no
  score). Other HTTP errors (401, 403, 404 ...) stop the run with one line. Usage (prompt and completion tokens)
  is totalled, progress drawn on stderr.
* :func:`drive` runs per-segment protocols (generators that yield requests and receive answers, see
  :mod:`mtscore.llm.protocol`): an answer in the cache is used without a request; every new answer is stored in
  the cache the moment it arrives, so an interrupted run loses nothing it received.
"""
from __future__ import annotations

import email.utils
import http.client
import json
import os
import random
import socket
import ssl
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..errors import InvalidParameterError, MtscoreError
from .requests import Answer, Request

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529})


class JudgeServerError(MtscoreError):
    """The server refused the run (bad key, unknown model, wrong URL ...): retrying would not help."""


class _Transient(Exception):
    def __init__(self, why: str, retry_after: float | None = None):
        super().__init__(why)
        self.retry_after = retry_after


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Endpoint:
    """A validated Chat Completions URL and the key for it (never shown)."""

    def __init__(self, url: str | None = None, api_key_env: str = "", timeout: float = 120.0):
        url = url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_ENDPOINT
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidParameterError(f"endpoint: must be an http:// or https:// URL with a host, got {url!r}")
        if parts.username is not None or parts.password is not None:
            raise InvalidParameterError("endpoint: must not carry a user name or password (put the key in "
                                        "OPENAI_API_KEY or the variable named by api_key_env=)")
        if parts.query or parts.fragment:
            raise InvalidParameterError(f"endpoint: must not have a query or fragment, got {url!r}")
        try:
            port = parts.port
        except ValueError:
            raise InvalidParameterError(f"endpoint: invalid port in {url!r}") from None
        self.scheme, self.host = parts.scheme, parts.hostname
        self.port = port or (443 if parts.scheme == "https" else 80)
        path = parts.path.rstrip("/")
        if not path.endswith("/chat/completions"):
            path += "/chat/completions"
        self.path = path
        self.url = f"{self.scheme}://{parts.netloc}{path}"
        self.timeout = float(timeout)
        name = api_key_env or "OPENAI_API_KEY"
        if api_key_env and api_key_env not in os.environ:
            raise InvalidParameterError(f"api_key_env: the environment variable {api_key_env} is not set")
        self._key = os.environ.get(name) or ""
        self.key_source = name if self._key else ""

    def __repr__(self) -> str:
        return f"Endpoint({self.url!r})"

    def scrub(self, text: str) -> str:
        return text.replace(self._key, "[key]") if self._key and len(self._key) >= 4 else text

    def connect(self):
        if self.scheme == "https":
            return http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def headers(self) -> dict:
        h = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "mtscore"}
        if self._key:
            h["Authorization"] = "Bearer " + self._key
        return h


def read_answer(status: int, headers, data: bytes, endpoint: Endpoint) -> Answer:
    """One HTTP response -> an :class:`Answer`, a :class:`_Transient` (retry) or a :class:`JudgeServerError`."""
    text = data.decode("utf-8", "replace")
    try:
        doc = json.loads(text) if text.strip() else None
    except ValueError:
        doc = None
    err = doc.get("error") if isinstance(doc, dict) and isinstance(doc.get("error"), dict) else {}
    if status == 200:
        if not isinstance(doc, dict) or not isinstance(doc.get("choices"), list) or not doc["choices"]:
            raise _Transient("malformed JSON in a 200 answer")
        choice = doc["choices"][0] if isinstance(doc["choices"][0], dict) else {}
        msg = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
        finish = str(choice.get("finish_reason") or "stop")
        content = msg.get("content")
        if finish == "content_filter" or msg.get("refusal") or content is None:
            return Answer(None, "content_filter", int(usage.get("prompt_tokens") or 0),
                          int(usage.get("completion_tokens") or 0))
        return Answer(str(content), finish, int(usage.get("prompt_tokens") or 0),
                      int(usage.get("completion_tokens") or 0))
    if status == 400 and (err.get("code") == "content_filter" or
                          (isinstance(err.get("innererror"), dict) and
                           err["innererror"].get("code") == "ResponsibleAIPolicyViolation")):
        return Answer(None, "content_filter")
    if status in RETRY_STATUS:
        raise _Transient(f"HTTP {status}", _retry_after(headers.get("Retry-After")))
    why = str(err.get("message") or text)[:200].replace("\n", " ")
    raise JudgeServerError(endpoint.scrub(f"{endpoint.url}: HTTP {status}: {why}"))


@dataclass
class Usage:
    requests: int = 0  # HTTP requests sent (retries included)
    answers: int = 0  # answers received (from the server, not the cache)
    cached: int = 0  # answers taken from the cache
    retries: int = 0
    failed: int = 0  # requests given up after the bounded retries
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("requests", "answers", "cached", "retries", "failed",
                                              "prompt_tokens", "completion_tokens", "seconds")}


class Scheduler:
    """Sends requests to one endpoint: ``concurrency`` in flight, bounded retries with backoff and jitter."""

    def __init__(self, endpoint: Endpoint, concurrency: int = 8, attempts: int = 6, backoff: float = 1.0,
                 max_wait: float = 120.0, sleep=time.sleep):
        self.endpoint = endpoint
        self.concurrency = int(concurrency)
        self.attempts = int(attempts)
        self.backoff = float(backoff)
        self.max_wait = float(max_wait)
        self.usage = Usage()
        self._sleep = sleep
        self._local = threading.local()
        self._conns: list = []
        self._conns_lock = threading.Lock()
        self._stop = threading.Event()
        self._jitter = random.Random()  # timing only: never touches a score

    def _conn(self):
        c = getattr(self._local, "conn", None)
        if c is None:
            c = self.endpoint.connect()
            self._local.conn = c
            with self._conns_lock:
                self._conns.append(c)
        return c

    def _drop_conn(self):
        c = getattr(self._local, "conn", None)
        if c is not None:
            try:
                c.close()
            except OSError:
                pass
            self._local.conn = None

    def _post(self, body: bytes) -> Answer:
        conn = self._conn()
        try:
            conn.request("POST", self.endpoint.path, body=body, headers=self.endpoint.headers())
            resp = conn.getresponse()
            data = resp.read()
            status, headers = resp.status, resp.headers
            if resp.will_close:
                self._drop_conn()
        except (socket.timeout, TimeoutError):
            self._drop_conn()
            raise _Transient(f"no answer within timeout={self.endpoint.timeout:g} s") from None
        except (ConnectionError, http.client.HTTPException, OSError) as exc:
            self._drop_conn()
            raise _Transient(f"connection error ({type(exc).__name__})") from None
        return read_answer(status, headers, data, self.endpoint)

    def send(self, request: Request) -> Answer:
        """One request with its bounded retries (runs in a worker thread)."""
        body = request.canonical()
        why = ""
        for attempt in range(1, self.attempts + 1):
            if self._stop.is_set():
                return Answer(None, "error", error="interrupted")
            with self.usage._lock:
                self.usage.requests += 1
                if attempt > 1:
                    self.usage.retries += 1
            try:
                ans = self._post(body)
            except _Transient as exc:
                why = str(exc)
                if attempt == self.attempts:
                    break
                delay = self.backoff * 2 ** (attempt - 1)
                delay = min(self.max_wait, delay / 2 + self._jitter.uniform(0, delay / 2))
                if exc.retry_after is not None:
                    delay = min(self.max_wait, max(delay, exc.retry_after))
                self._sleep(delay)
                continue
            with self.usage._lock:
                self.usage.answers += 1
                self.usage.prompt_tokens += ans.prompt_tokens
                self.usage.completion_tokens += ans.completion_tokens
            return ans
        with self.usage._lock:
            self.usage.failed += 1
        return Answer(None, "error", error=self.endpoint.scrub(f"{why} after {self.attempts} attempts"))

    def stop(self):
        """Stop sending (Ctrl-C): requests not yet sent are not sent; open connections are closed."""
        self._stop.set()
        with self._conns_lock:
            for c in self._conns:
                try:
                    c.close()
                except OSError:
                    pass


def drive(protocols, scheduler: Scheduler | None, store=None, bar=None) -> dict:
    """Run per-segment protocols to their ends; returns ``{key: result}``.

    ``protocols`` yields ``(key, generator)``; a generator yields :class:`Request` objects, receives an
    :class:`Answer` for each, and returns its result. ``store`` (an :class:`~mtscore.llm.cache.AnswerStore` or
    None) supplies cached answers and keeps new ones. ``scheduler`` None: nothing may be sent (a request not in
    the cache is answered with a failed Answer ``error="not cached"``; the dry run counts these). Protocols are
    started only as slots free up, so memory stays flat however many segments there are. A request equal to
    one already on its way is not sent again: its protocol waits for that answer."""
    results: dict = {}
    ready: deque = deque()  # (key, gen, request) waiting for a slot
    source = iter(protocols)
    exhausted = False
    window = scheduler.concurrency if scheduler is not None else 1
    usage = scheduler.usage if scheduler is not None else None
    t0 = time.perf_counter()

    def step(key, gen, answer):
        while True:
            try:
                req = gen.send(answer)
            except StopIteration as stop:
                results[key] = stop.value
                if bar is not None:
                    bar.update(1)
                return
            hit = store.get(req.digest) if store is not None else None
            if hit is not None:
                if usage is not None:
                    usage.cached += 1
                answer = hit
                continue
            if scheduler is None:
                answer = Answer(None, "error", error="not cached")
                continue
            if req.digest in pending:  # the same request is already on its way: wait for its answer
                pending[req.digest].append((key, gen))
                return
            pending[req.digest] = []
            ready.append((key, gen, req))
            return

    def start_more():
        nonlocal exhausted
        while not exhausted and len(ready) + len(inflight) < window:
            try:
                key, gen = next(source)
            except StopIteration:
                exhausted = True
                return
            step(key, gen, None)

    inflight: dict = {}
    pending: dict = {}  # digest of a request sent or about to be -> protocols waiting for the same answer
    if scheduler is None:
        for key, gen in source:
            step(key, gen, None)
        return results
    pool = ThreadPoolExecutor(max_workers=scheduler.concurrency, thread_name_prefix="mtscore-llm")
    try:
        while True:
            start_more()
            while ready and len(inflight) < scheduler.concurrency:
                key, gen, req = ready.popleft()
                inflight[pool.submit(scheduler.send, req)] = (key, gen, req)
            if not inflight:
                if exhausted and not ready:
                    break
                continue
            done, _ = wait(list(inflight), timeout=0.5, return_when=FIRST_COMPLETED)
            for fut in done:
                key, gen, req = inflight.pop(fut)
                answer = fut.result()
                if store is not None and not answer.failed:
                    store.put(req, answer)
                waiters = pending.pop(req.digest, [])
                step(key, gen, answer)
                for wkey, wgen in waiters:
                    step(wkey, wgen, answer)
    except BaseException:
        scheduler.stop()
        for fut in list(inflight):
            fut.cancel()
        # keep what already arrived: answers of finished requests go to the cache before we leave
        for fut, (key, gen, req) in list(inflight.items()):
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                answer = fut.result()
                if store is not None and not answer.failed:
                    store.put(req, answer)
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        if store is not None:
            store.flush()
        usage.seconds += time.perf_counter() - t0
    return results
