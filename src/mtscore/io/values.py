"""One missing-value policy for score files read by meta-evaluation (docs/input.md, "Missing values").

* ``None`` (also ``none``, ``NA`` and an empty field) = not rated / not scored: a *missing* value. Missing
  values are counted and reported; they never stop a run.
* ``nan``, ``inf``, ``-inf``, ``1e999`` (which overflows to inf) and anything else that is not a finite
  number are **errors** naming the file and line (a single ``inf`` would otherwise turn a 0.94 Pearson into
  -1.0), unless the caller asks to treat them as missing with :class:`nonfinite_as_missing` (the CLI option
  ``--non-finite missing``, whose effect is printed: how many values, in which files).
"""
from __future__ import annotations

import math
from contextvars import ContextVar

from ..errors import InputError

MISSING_TOKENS = ("None", "none", "NA", "")

_counter: ContextVar["nonfinite_as_missing | None"] = ContextVar("mtscore_nonfinite", default=None)


class nonfinite_as_missing:
    """Within this block, non-finite scores are read as missing; ``counts`` says how many per file."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.counts: dict[str, int] = {}
        self._token = None

    def __enter__(self) -> "nonfinite_as_missing":
        if self.enabled:
            self._token = _counter.set(self)
        return self

    def __exit__(self, *exc) -> None:
        if self._token is not None:
            _counter.reset(self._token)
            self._token = None

    def note(self) -> str | None:
        if not self.counts:
            return None
        where = ", ".join(f"{p} ({n})" for p, n in self.counts.items())
        total = sum(self.counts.values())
        return f"--non-finite missing: {total} nan/inf value{'s' if total != 1 else ''} read as missing: {where}"


def parse_score(tok: str, path, line: int | None) -> float | None:
    """A score field: a finite float, or None for a missing value (see the module rules)."""
    t = tok.strip()
    if t in MISSING_TOKENS:
        return None
    try:
        v = float(t)
    except ValueError:
        shown = tok if len(tok) <= 40 else tok[:40] + "..."
        raise InputError(f"not a number: {shown!r} (None marks a missing score)", str(path), line) from None
    if not math.isfinite(v):
        c = _counter.get()
        if c is None:
            shown = tok if len(tok) <= 40 else tok[:40] + "..."
            raise InputError(f"score {shown!r} is not a finite number (None marks a missing score; "
                             "--non-finite missing reads nan/inf as missing)", str(path), line)
        c.counts[str(path)] = c.counts.get(str(path), 0) + 1
        return None
    return v
