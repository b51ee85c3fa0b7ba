"""GEMBA's protocol per segment, as generators: yield a request, receive the answer, return the segment's result.

The escalation is GEMBA's, with its bounds made explicit (docs/llm-judges.md, "When an answer is not usable"):

* temperature step 0 first (``temperature`` = step / 10); an answer the parser cannot read is asked again at the
  next step, up to step 10 (temperature 1.0): at most 11 samples. As in both references, a re-ask carries no
  ``max_tokens``.
* ``variant=gemba``: a truncated answer (``finish_reason`` other than ``stop``) is asked again with twice the
  ``max_tokens`` (500 when none was set), while that stays <= 4000 (GEMBA's cap): at most 4 re-asks.
  ``variant=wmt25``: a ``length`` answer is read as it is (the WMT25 scorer does so); its requests carry
  ``max_tokens=8192``.
* a refusal (``content_filter``), a request that failed after its bounded retries, or the bounds above reached:
  the segment has **no score** (NaN; counted and reported). GEMBA 0.1.3 gives such a segment the score 0, which
  would silently rank a refused segment as the worst translation; mtscore does not.

GEMBA-ESA is two requests per segment: the error spans (the first answer, kept verbatim, is pasted into the second
prompt), then the 0-100 score.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import parse, prompts
from .requests import Answer, Request

MAX_TEMPERATURE_STEP = 10
MAX_TOKENS_CAP = 4000
FIRST_MAX_TOKENS = {("gemba", "mqm"): 500, ("gemba", "da"): 500, ("gemba", "da-ref"): 500,
                    ("gemba", "esa-spans"): None, ("gemba", "esa-score"): None,
                    ("wmt25", "esa-spans"): 8192, ("wmt25", "esa-score"): 8192}
STATUSES = ("ok", "unparseable", "truncated", "refused", "failed")


@dataclass(frozen=True)
class Outcome:
    """One segment's result."""

    score: float  # NaN without a score
    status: str  # one of STATUSES
    spans: tuple = ()  # error spans (dicts) for ESA/MQM

    @property
    def scored(self) -> bool:
        return not math.isnan(self.score)


def ask(model: str, messages, variant: str, kind: str, read):
    """Ask until ``read(answer_text)`` gives a value or a bound is reached; returns (value, answer, status)."""
    max_tokens = FIRST_MAX_TOKENS[(variant, kind)]
    answer = None
    for step in range(MAX_TEMPERATURE_STEP + 1):
        while True:
            answer: Answer = yield Request(model, messages, step / 10, max_tokens)
            if answer.failed:
                return None, answer, "failed"
            if answer.finish_reason == "content_filter" or answer.content is None:
                return None, answer, "refused"
            if answer.finish_reason != "stop" and not (variant == "wmt25" and answer.finish_reason == "length"):
                if variant == "wmt25":
                    return None, answer, "refused"  # the WMT25 scorer drops any other unfinished answer
                grown = (max_tokens or 500) * 2
                if grown > MAX_TOKENS_CAP:
                    return None, answer, "truncated"
                max_tokens = grown
                continue
            break
        value = read(answer.content.strip())
        if value is not None:
            return value, answer, "ok"
        max_tokens = None
    return None, answer, "unparseable"


def esa(model, variant, *, source, hypothesis, source_lang, target_lang, reference=""):
    spans_msgs = prompts.build("esa-spans", variant, source=source, hypothesis=hypothesis,
                               source_lang=source_lang, target_lang=target_lang)
    text, a1, status = yield from ask(model, spans_msgs, variant, "esa-spans", lambda t: t)
    if status != "ok":
        return Outcome(math.nan, status)
    score_msgs = prompts.build("esa-score", variant, source=source, hypothesis=hypothesis,
                               source_lang=source_lang, target_lang=target_lang, error_spans=text)
    read = parse.wmt25_number if variant == "wmt25" else parse.gemba_number
    value, a2, status = yield from ask(model, score_msgs, variant, "esa-score", read)
    spans = locate(hypothesis, error_lines(text))
    if status != "ok":
        return Outcome(math.nan, status, spans)
    return Outcome(float(value), "ok", spans)


def mqm(model, variant, *, source, hypothesis, source_lang, target_lang, reference=""):
    msgs = prompts.build("mqm", variant, source=source, hypothesis=hypothesis,
                         source_lang=source_lang, target_lang=target_lang)
    value, a, status = yield from ask(model, msgs, variant, "mqm", parse.mqm)
    if status != "ok":
        return Outcome(math.nan, status)
    return Outcome(float(value.score), "ok", locate(hypothesis, error_lines(a.content.strip())))


def da(model, variant, *, source, hypothesis, source_lang, target_lang, reference=None):
    kind = "da" if reference is None else "da-ref"
    msgs = prompts.build(kind, variant, source=source, hypothesis=hypothesis, reference=reference or "",
                         source_lang=source_lang, target_lang=target_lang)
    value, a, status = yield from ask(model, msgs, variant, kind, parse.gemba_number)
    if status != "ok":
        return Outcome(math.nan, status)
    return Outcome(float(value), "ok")


# --- error spans ----------------------------------------------------------------------------------------------
def error_lines(text: str) -> list[tuple[str, str, str]]:
    """(severity, category, quoted text) of each error line of an MQM/ESA answer, in order.

    The lines GEMBA-MQM's parser counts: under a ``critical:``/``major:``/``minor:`` header, not ``no-error``; a
    non-translation is critical. The span text is what stands between the first and the last double quote of the
    line (``accuracy/omission - "the account holder"``); a line without quotes has no span text."""
    out = []
    level = None
    for raw in text.split("\n"):
        line = raw.strip()
        low = line.lower()
        if not line or "no-error" in low or "no error" in low:
            continue
        if low in ("critical:", "major:", "minor:"):
            level = low[:-1]
            continue
        if level is None:
            continue
        severity = "critical" if "non-translation" in low else level
        category, _, rest = line.partition(" - ")
        q1, q2 = rest.find('"'), rest.rfind('"')
        quoted = rest[q1 + 1:q2] if 0 <= q1 < q2 else ""
        out.append((severity, category.strip(), quoted))
    return out


def locate(hypothesis: str, lines) -> tuple:
    """Character offsets of each error's text in the hypothesis.

    Rule (docs/llm-judges.md): the first occurrence at or after the end of the previous located span, matched
    exactly, else case-insensitively; an error whose text occurs only before that point takes its first
    occurrence; an error whose text is empty or not found has no span (it still counted in the score)."""
    spans = []
    low = hypothesis.lower()
    if len(low) != len(hypothesis):  # lower-casing changed lengths (e.g. "İ"): offsets would not carry over
        low = hypothesis
    cursor = 0
    for severity, category, text in lines:
        if not text:
            continue
        start = hypothesis.find(text, cursor)
        if start < 0:
            start = low.find(text.lower(), cursor)
        if start < 0:
            start = hypothesis.find(text)
        if start < 0:
            start = low.find(text.lower())
        if start < 0:
            continue
        end = start + len(text)
        spans.append({"start": start, "end": end, "severity": severity, "text": hypothesis[start:end],
                      "category": category, "confidence": 1.0})
        cursor = end
    return tuple(spans)


JUDGES = {"gemba-esa": esa, "gemba-mqm": mqm, "gemba-da": da}
