"""Reading the judges' answers: pure functions of the answer text, the same rules as the reference parsers.

* :func:`gemba_number` -- GEMBA-DA's and GEMBA-ESA's score (the gemba package's ``validate_number``): the answer's
  digits if it holds exactly one run of digits; else ``N/100`` written alone; then kept only inside 0..100.
* :func:`wmt25_number` -- the WMT25 scorer's final-score rule: drop ``*`` and ``_``, take the LAST whole number of
  one to three digits that lies inside 0..100; when there is none, GEMBA's rule above.
* :func:`mqm` -- GEMBA-MQM's error list and score: lines under ``critical:``/``major:``/``minor:`` headers (or the
  ``{"improved translation": ..., "errors": ...}`` JSON form), the first five errors weighted 25/5/1, the penalty
  capped at 25; the score is minus the penalty (0 is best, -25 worst).

"Digits" are Unicode decimal digits (``\\d`` in Python's ``re``: Arabic-Indic, Devanagari, full-width ...), read by
``int`` as the references do. Where a reference parser raises (its ``['']`` branch reads an empty number) these
return ``None``: the answer is unparseable, not a crash. Tested against the references' parses of 1,148 answer
strings (tests/fixtures/llm/parses.jsonl.gz).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_DIGITS = re.compile(r"\d+")
_SLASH_MAX = re.compile(r"^[0-9]*/100$")
_MD = re.compile(r"[*_]+")
_SHORT_NUMBER = re.compile(r"\b\d{1,3}\b")
_WORD = re.compile(r"\b\w+\b")

LEVELS = ("critical", "major", "minor")
WEIGHTS = {"critical": 25, "major": 5, "minor": 1}
MAX_COUNTED_ERRORS = 5
MAX_PENALTY = 25


def _gemba_raw(answer: str) -> int | None:
    runs = _DIGITS.findall(answer)
    if len(runs) == 1:
        return int(runs[0])
    # "['85']" can only reach here without any digit (one run would have returned above): the reference then
    # reads int('') and raises; unparseable here
    if _SLASH_MAX.match(answer):  # "85/100" (two runs); "$" also before a final newline, as in the reference
        return int(answer.split("/")[0])
    return None


def gemba_number(answer: str | None, lo: int = 0, hi: int = 100) -> int | None:
    """GEMBA's numeric answer, or ``None`` (no single number, or outside ``lo..hi``)."""
    if answer is None:
        return None
    value = _gemba_raw(answer)
    if value is None or value < lo or value > hi:
        return None
    return value


def wmt25_number(answer: str | None, lo: int = 0, hi: int = 100) -> int | None:
    """The WMT25 scorer's final score: the last in-range 1-3 digit number, else GEMBA's rule."""
    if answer is None:
        return None
    inside = [v for v in map(int, _SHORT_NUMBER.findall(_MD.sub("", answer))) if lo <= v <= hi]
    if inside:
        return inside[-1]
    return gemba_number(answer, lo, hi)


@dataclass(frozen=True)
class MqmAnswer:
    """A parsed GEMBA-MQM (or GEMBA-ESA error-span) answer."""

    score: int  # minus the capped penalty: 0 (no error) .. -25
    errors: dict = field(default_factory=dict)  # level -> list of error lines (lower-cased) or JSON objects

    @property
    def normalized(self) -> int:
        """GEMBA-MQM_norm: 100 + 4 * score (0..100)."""
        return 100 + 4 * self.score


def _errors_from_lines(text: str) -> dict:
    found: dict[str, list] = {level: [] for level in LEVELS}
    level = None
    for line in text.lower().split("\n"):
        line = line.strip()
        if not line or "no-error" in line or "no error" in line:
            continue
        if line in ("critical:", "major:", "minor:"):
            level = line[:-1]
            continue
        if level is None:
            continue  # an error line before any severity header counts nowhere
        # a non-translation is critical whatever header it stands under
        found["critical" if "non-translation" in line else level].append(line)
    return found


def _errors_from_broken_json(text: str) -> dict:
    if '"errors": ' not in text or "improved translation" not in text:
        return {}
    parts = text.split('", "errors": ')
    if len(parts) != 2:
        return {}
    if '"improved translation": "' not in parts[0]:
        raise ValueError("no improved translation")  # the reference fails here too (IndexError)
    tail = parts[1][:-1]
    try:
        return json.loads(tail)
    except ValueError:
        pass
    # count "class" words after each severity word: each is one error of class "other"
    errors: dict[str, list] = {}
    last = None
    for word in _WORD.findall(tail.lower()):
        if word in LEVELS:
            last = word
        elif last is not None and word == "class":
            errors.setdefault(last, []).append({"class": "other"})
    return errors


def mqm(answer: str | None) -> MqmAnswer | None:
    """GEMBA-MQM's reading of an answer. ``None`` only for a missing answer or JSON the reference cannot read."""
    if answer is None:
        return None
    text = str(answer)
    try:
        if text.startswith('{"improved translation"'):
            try:
                errors = json.loads(text)["errors"]
            except ValueError:
                errors = _errors_from_broken_json(text)
        else:
            errors = _errors_from_lines(text)
        listed: dict[str, list] = {}
        penalty = 0
        counted = 0
        for level in LEVELS:
            if level not in errors:
                continue
            for error in errors[level]:
                if counted < MAX_COUNTED_ERRORS:
                    penalty += WEIGHTS[level]
                    counted += 1
                listed.setdefault(level, []).append(error)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return MqmAnswer(score=-min(penalty, MAX_PENALTY), errors=listed)
