"""One exception hierarchy for everything mtscore raises on purpose.

Messages name the parameter or file, the rule, and the value seen.  The CLI maps
these exceptions to one-line messages and exit codes (see ``mtscore.cli``).
"""
from __future__ import annotations

from typing import Any


class MtscoreError(Exception):
    """Base class of every error mtscore raises deliberately."""


class InvalidParameterError(MtscoreError, ValueError, TypeError):
    """A parameter (API argument or CLI option) has a value outside its rule."""

    @classmethod
    def choice(cls, name: str, value, valid) -> "InvalidParameterError":
        valid = sorted(valid) if not isinstance(valid, (list, tuple)) else list(valid)
        return cls(message(name, "one of: " + ", ".join(map(str, valid)), value) + did_you_mean(value, valid))


def did_you_mean(value, valid) -> str:
    """``"; did you mean 'bleu'?"`` for the closest of ``valid`` (difflib, case-insensitive), or ``""``."""
    import difflib
    if not isinstance(value, str) or not value:
        return ""
    names = [str(v) for v in valid]
    low = {n.lower(): n for n in names}
    close = difflib.get_close_matches(value.lower(), list(low), n=1, cutoff=0.6)
    return f"; did you mean {low[close[0]]!r}?" if close and low[close[0]] != value else ""


class InputError(MtscoreError, ValueError):
    """Input data is malformed. ``path`` and ``line`` (1-based) say where, when known."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f":{line}"
            where += ": "
        super().__init__(where + message)
        self.message = message


class OptionalDependencyError(MtscoreError, ImportError):
    """An optional extra is needed for the requested feature."""

    def __init__(self, feature: str, package: str, extra: str):
        super().__init__(
            f"{feature} needs the optional package {package!r}; install it with: pip install 'mtscore[{extra}]'"
        )


class OutputError(MtscoreError, OSError):
    """An output (a file, a folder, standard output) cannot be written. ``path`` says which."""

    def __init__(self, message: str, path: str | None = None):
        self.path = path
        super().__init__(f"{path}: {message}" if path is not None else message)
        self.message = message

    def __str__(self) -> str:  # OSError's __str__ would format errno/strerror
        return self.args[0] if self.args else ""


class Terminated(BaseException):
    """Raised in the main thread when the process receives SIGTERM (the CLI installs the handler), so that
    ``finally`` blocks run and temporary files are removed; the CLI then exits with 143."""


class MtscoreWarning(UserWarning):
    """Base class of the warnings mtscore issues; the CLI prints each as one ``mtscore: warning:`` line."""


class InputWarning(MtscoreWarning):
    """Input that is read as given but probably not as meant (e.g. a leading byte-order mark)."""


def message(label: str, rule: str, value: Any) -> str:
    """The one message template: parameter, rule, value."""
    return f"{label}: must be {rule}, got {show_value(value)}"


def show_value(value: Any) -> str:
    """A value as messages quote it (long strings, huge numbers and lists shortened)."""
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10 ** 30:
        s = str(value)
        return f"{s[:12]}...({len(s)} digits)"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show_value(v) for v in list(value)[:8]) + (", ..." if len(value) > 8 else "") + "]"
    return repr(value)


def plural(n, noun: str, nouns: str | None = None) -> str:
    """``n`` and the noun in the number it needs: ``plural(1, "segment")`` -> ``"1 segment"``, ``plural(3, "entry",
    "entries")`` -> ``"3 entries"`` (messages say "1 segment", never "1 segments")."""
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"
