"""Progress bars on stderr for long work, with no third-party dependency.

::

    from mtscore.progress import progress
    with progress("bootstrap", total=1000, unit="resamples") as bar:
        for batch in batches:
            ...
            bar.update(len(batch))

A bar is drawn only when all of these hold:

* the stream (default ``sys.stderr``, looked up when the bar starts) is a terminal;
* progress is not silenced (``with silenced():`` — the CLI's ``--quiet`` — or ``set_enabled(False)``);
* the work has lasted longer than ``delay`` seconds (default 1.5 s), so quick commands print nothing.

Nothing is ever written to stdout. Redraws are throttled (at most ~10 per second); the line is
cleared when the bar closes, so the terminal is left as it was.
"""
from __future__ import annotations

import contextvars
import sys
import time
from contextlib import contextmanager
from typing import Iterable, Iterator, TextIO, TypeVar

__all__ = ["progress", "track", "silenced", "set_enabled", "enabled", "Progress"]

DEFAULT_DELAY = 1.5  # seconds of work before a bar appears (tests set 0 to force drawing)
_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar("mtscore_progress_enabled", default=True)
T = TypeVar("T")


def set_enabled(flag: bool) -> None:
    """Turn progress bars on (the default: drawn on terminals only) or off for this context."""
    _ENABLED.set(bool(flag))


def enabled() -> bool:
    return _ENABLED.get()


@contextmanager
def silenced(flag: bool = True):
    """``with silenced():`` no progress bars inside the block (``flag=False`` leaves them as they are)."""
    if not flag:
        yield
        return
    token = _ENABLED.set(False)
    try:
        yield
    finally:
        _ENABLED.reset(token)


def _fmt_count(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.1f}M"
    if x >= 1e4:
        return f"{x / 1e3:.0f}k"
    return f"{int(x)}"


def _fmt_time(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


class Progress:
    """One bar. Use through :func:`progress`; ``update(n)`` adds ``n`` units of work."""

    WIDTH = 24

    def __init__(self, desc: str = "", total: float | None = None, unit: str = "", delay: float | None = None,
                 stream: TextIO | None = None, min_interval: float = 0.1):
        self.desc = desc
        self.total = total if total is None or total > 0 else None
        self.unit = unit
        self.delay = DEFAULT_DELAY if delay is None else delay
        self.min_interval = min_interval
        self.n = 0.0
        self._stream = stream
        self._start = time.monotonic()
        self._last = 0.0
        self._shown = False
        self._active = False
        self._width = 0
        self.postfix = None  # optional callable(elapsed seconds) -> text shown after the bar (e.g. requests/s)

    def _open(self) -> None:
        stream = self._stream if self._stream is not None else sys.stderr
        self._stream = stream
        try:
            tty = bool(stream is not None and stream.isatty())
        except (AttributeError, ValueError):
            tty = False
        self._active = tty and enabled()

    @property
    def active(self) -> bool:
        """True when this bar may draw (terminal, not silenced)."""
        return self._active

    def set_total(self, total: float | None) -> None:
        self.total = total if total is None or total > 0 else None

    def update(self, n: float = 1) -> None:
        self.n += n
        if not self._active:
            return
        now = time.monotonic()
        if now - self._start < self.delay or now - self._last < self.min_interval:
            return
        self._last = now
        self._draw(now)

    def line(self, now: float | None = None) -> str:
        """The text of the bar as it would be drawn now."""
        now = time.monotonic() if now is None else now
        text = self._line(now)
        if self.postfix is not None:
            text += " " + self.postfix(now - self._start)
        return text

    def _line(self, now: float) -> str:
        el = now - self._start
        rate = self.n / el if el > 0 else 0.0
        unit = f" {self.unit}" if self.unit else ""
        head = f"{self.desc}: " if self.desc else ""
        if self.total:
            frac = min(1.0, self.n / self.total)
            fill = int(frac * self.WIDTH)
            bar = "#" * fill + "-" * (self.WIDTH - fill)
            eta = (self.total - self.n) / rate if rate > 0 else 0.0
            return (f"{head}{frac * 100:5.1f}% [{bar}] {_fmt_count(self.n)}/{_fmt_count(self.total)}{unit} "
                    f"{_fmt_time(el)}<{_fmt_time(eta)}")
        return f"{head}{_fmt_count(self.n)}{unit} {_fmt_time(el)} ({rate:.1f}{unit}/s)"

    def _draw(self, now: float) -> None:
        text = self.line(now)
        pad = max(0, self._width - len(text))
        self._width = len(text)
        try:
            self._stream.write("\r" + text + " " * pad)
            self._stream.flush()
        except (OSError, ValueError):
            self._active = False
            return
        self._shown = True

    def close(self) -> None:
        if self._shown and self._active:
            try:
                self._stream.write("\r" + " " * self._width + "\r")
                self._stream.flush()
            except (OSError, ValueError):
                pass
        self._active = False


@contextmanager
def progress(desc: str = "", total: float | None = None, unit: str = "", *, delay: float | None = None,
             stream: TextIO | None = None) -> Iterator[Progress]:
    """Context manager yielding a :class:`Progress` bar (silent unless stderr is a terminal)."""
    bar = Progress(desc, total, unit, delay, stream)
    bar._open()
    try:
        yield bar
    finally:
        bar.close()


def track(items: Iterable[T], desc: str = "", total: float | None = None, unit: str = "", **kw) -> Iterator[T]:
    """Iterate over ``items`` with a bar (one unit per item)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with progress(desc, total, unit, **kw) as bar:
        for it in items:
            yield it
            bar.update(1)
