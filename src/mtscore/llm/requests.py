"""One chat-completion request, built purely from its parts; its digest is its cache key.

The body carries exactly what GEMBA's client sends (``model``, ``messages``, ``temperature`` = step / 10,
``top_p`` 1, ``n`` 1, ``frequency_penalty`` 0, ``presence_penalty`` 0, ``max_tokens`` when set; GEMBA's
``stop: null`` is the API default and is left out). The digest is the sha256 of the body as canonical JSON (sorted
keys, no spaces, UTF-8): model id, exact messages and sampling parameters. Neither the endpoint nor the key is part
of a request.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from .prompts import Message, as_json


@dataclass(frozen=True)
class Request:
    model: str
    messages: tuple[Message, ...]
    temperature: float = 0.0
    max_tokens: int | None = None
    digest: str = field(init=False, repr=False, compare=False)
    _canonical: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        raw = json.dumps(self.body(), ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
        object.__setattr__(self, "_canonical", raw)
        object.__setattr__(self, "digest", hashlib.sha256(raw).hexdigest())

    def body(self) -> dict:
        b = {"model": self.model, "messages": as_json(self.messages), "temperature": self.temperature,
             "top_p": 1, "n": 1, "frequency_penalty": 0, "presence_penalty": 0}
        if self.max_tokens is not None:
            b["max_tokens"] = int(self.max_tokens)
        return b

    def canonical(self) -> bytes:
        """The body as canonical JSON (sorted keys, no spaces, UTF-8): what is sent and what the digest hashes."""
        return self._canonical

    def prompt_chars(self) -> int:
        return sum(len(c) for _, c in self.messages)


@dataclass(frozen=True)
class Answer:
    """What a server answered (or that it could not): the raw material the parsers read and the cache keeps.

    ``content`` is the message text as sent (None for a refusal or a failed request); ``finish_reason`` the
    server's (``stop``, ``length``, ``content_filter``) or ``error`` when no answer came after the bounded retries
    (``error`` says why; such an answer is never cached)."""

    content: str | None
    finish_reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str = ""
    cached: bool = False

    @property
    def failed(self) -> bool:
        return self.finish_reason == "error"

    def to_json(self) -> dict:
        return {"content": self.content, "finish_reason": self.finish_reason,
                "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}}

    @classmethod
    def from_json(cls, d: dict, cached: bool = True) -> "Answer":
        u = d.get("usage") or {}
        return cls(d.get("content"), str(d.get("finish_reason")), int(u.get("prompt_tokens") or 0),
                   int(u.get("completion_tokens") or 0), cached=cached)
