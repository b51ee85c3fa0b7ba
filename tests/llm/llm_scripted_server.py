"""A scripted OpenAI-compatible Chat Completions server for the tests: asyncio, 127.0.0.1 only, one thread.

``answer(body, seen)`` decides each reply: ``body`` is the request's JSON, ``seen`` how many times this exact body
arrived before. It returns one of

* ``("ok", content, finish_reason)`` -- a normal answer (usage counted from the lengths);
* ``("status", code, headers, text)`` -- an HTTP error (e.g. 429 with ``{"Retry-After": "0"}``, 500);
* ``("stall",)`` -- read the request and never answer (the client's timeout must fire);
* ``("malformed",)`` -- a 200 whose body is not JSON;
* ``("drop",)`` -- send half of the headers, then close the connection;
* ``("drop_body",)`` -- send the headers and part of the body, then close the connection;
* ``("filter",)`` -- a content-filter refusal (HTTP 400, ``code: content_filter``, as Azure OpenAI sends).

The server logs every request (body, Authorization header, the reply kind) in ``log``. ``delay`` seconds are
waited before each reply (asyncio.sleep: many requests wait at once).
"""
from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter


class ScriptedServer:
    def __init__(self, answer, delay: float = 0.0, keep_log: bool = True):
        self.answer = answer
        self.delay = delay
        self.keep_log = keep_log
        self.log: list[dict] = []
        self.count = 0
        self.ok_count = 0
        self._seen: Counter = Counter()
        self._lock = threading.Lock()
        self._loop = None
        self._server = None
        self._thread = None
        self.port = None
        self._writers = set()

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def __enter__(self):
        ready = threading.Event()

        def run():
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=512))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def __exit__(self, *exc):
        async def stop():
            self._server.close()
            for w in list(self._writers):
                w.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()
        fut = asyncio.run_coroutine_threadsafe(stop(), self._loop)
        fut.result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- one connection --------------------------------------------------------------------------------------
    async def _handle(self, reader, writer):
        self._writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {}
                for ln in lines[1:]:
                    if ":" in ln:
                        k, v = ln.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                doc = json.loads(body)
                key = json.dumps(doc, sort_keys=True)
                with self._lock:
                    seen = self._seen[key]
                    self._seen[key] += 1
                    self.count += 1
                action = self.answer(doc, seen)
                if self.keep_log:
                    self.log.append({"body": doc, "auth": headers.get("authorization"), "kind": action[0],
                                     "seen": seen})
                if self.delay:
                    await asyncio.sleep(self.delay)
                kind = action[0]
                if kind == "stall":
                    await asyncio.sleep(3600)
                    return
                if kind == "drop":
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/js")
                    await writer.drain()
                    writer.close()
                    return
                if kind == "drop_body":
                    body = b'{"choices": [{"index": 0, "finish_reason": "stop", "message": {"content": "85"}}]}'
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                                 + str(len(body)).encode() + b"\r\n\r\n" + body[:20])
                    await writer.drain()
                    writer.close()
                    return
                if kind == "ok":
                    _, content, finish = action
                    with self._lock:
                        self.ok_count += 1
                    prompt = sum(len(m["content"]) for m in doc["messages"]) // 4
                    payload = {"id": "x", "object": "chat.completion", "model": doc["model"],
                               "choices": [{"index": 0, "finish_reason": finish,
                                            "message": {"role": "assistant", "content": content}}],
                               "usage": {"prompt_tokens": prompt, "completion_tokens": len(content or "") // 4 + 1,
                                         "total_tokens": prompt + len(content or "") // 4 + 1}}
                    self._send(writer, 200, {}, json.dumps(payload).encode())
                elif kind == "status":
                    _, code, extra, text = action
                    self._send(writer, code, extra, text.encode())
                elif kind == "malformed":
                    self._send(writer, 200, {}, b'{"choices": [{"message": {"content": "85"')
                elif kind == "filter":
                    err = {"error": {"code": "content_filter", "message": "The response was filtered"}}
                    self._send(writer, 400, {}, json.dumps(err).encode())
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    @staticmethod
    def _send(writer, code, extra, body: bytes):
        reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests",
                  500: "Internal Server Error", 503: "Service Unavailable"}.get(code, "Status")
        head = [f"HTTP/1.1 {code} {reason}", "Content-Type: application/json", f"Content-Length: {len(body)}"]
        head += [f"{k}: {v}" for k, v in extra.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)


# -- a deterministic judge -----------------------------------------------------------------------------------
def last_user(body) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def is_score_prompt(body) -> bool:
    return "Annotated error spans:" in last_user(body)


def translation_of(body) -> str:
    """The hypothesis inside the last user turn (ESA/MQM: between the second pair of triple backticks)."""
    text = last_user(body)
    parts = text.split("```")
    return parts[3] if len(parts) > 3 else text


def judge_score(hyp: str) -> int:
    """The score the scripted judge gives a translation: a function of its text only."""
    return sum(map(ord, hyp)) % 101


def esa_answer(body, seen):
    """GEMBA-ESA as a well-behaved judge: error spans quoting the translation's first word, then the score."""
    hyp = translation_of(body)
    if is_score_prompt(body):
        return ("ok", f"{judge_score(hyp)}", "stop")
    word = hyp.split()[0] if hyp.split() else ""
    return ("ok", f'Major:\nno-error\nMinor:\nstyle/awkward - "{word}"', "stop")
