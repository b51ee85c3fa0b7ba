"""``mtscore`` entry point. Sub-commands live in their own modules (``add_parser`` + ``run``).

Exit codes: 0 success; 2 usage or invalid parameter; 3 bad input data (file, line); 4 a missing
optional dependency; 1 any other mtscore error; 130 interrupted.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from importlib import import_module

from .. import __version__
from ..progress import silenced
from ..errors import InputError, InvalidParameterError, MtscoreError, MtscoreWarning, OptionalDependencyError

# sub-command -> module (each defines add_parser(subparsers) and run(args) -> int)
COMMANDS = {
    "score": "mtscore.cli.score",
    "compare": "mtscore.cli.compare",
    "demo": "mtscore.cli.demo",
    "tokenize": "mtscore.cli.tokenize_cmd",
    "rescore": "mtscore.cli.rescore",
    "meta": "mtscore.cli.meta",
    "audit": "mtscore.cli.audit",
    "report": "mtscore.cli.report",
    "lcm": "mtscore.cli.lcm_cmd",
    "explain": "mtscore.cli.explain",
    "rose": "mtscore.cli.rose_cmd",
    "nbest": "mtscore.cli.nbest",
    "lattice": "mtscore.cli.lattice",
}

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INPUT, EXIT_DEPENDENCY = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like argparse but naming the program
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _chosen_command(argv) -> str | None:
    """The sub-command named in ``argv`` (first argument that is not an option), if it is a known one."""
    for a in argv:
        if not a.startswith("-"):
            return a if a in COMMANDS else None
        if a in ("-h", "--help", "--version"):
            return None
    return None


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The full parser; with ``argv`` naming a sub-command, only that sub-command's module is imported
    (the others are listed by name), so a command does not pay for every other command's imports."""
    parser = _Parser(prog="mtscore", description="Machine-translation evaluation and meta-evaluation.")
    parser.add_argument("--version", action="version", version=f"mtscore {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", default=False,
                        help="no progress bars on stderr (they are drawn only when stderr is a terminal)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    chosen = _chosen_command(argv) if argv is not None else None
    version_only = argv is not None and chosen is None and "--version" in argv and "-h" not in argv and "--help" not in argv
    for name, module in COMMANDS.items():
        if not version_only and (chosen is None or name == chosen):  # --version imports no command module
            import_module(module).add_parser(sub)
        else:
            sub.add_parser(name)
    for sp in sub.choices.values():  # --quiet is accepted after the sub-command too
        sp.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="no progress bars on stderr")
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        with silenced(bool(getattr(args, "quiet", False))), _one_line_warnings():
            return int(args.func(args) or 0)
    except InputError as exc:
        return _fail(exc, EXIT_INPUT)
    except InvalidParameterError as exc:
        return _fail(exc, EXIT_USAGE)
    except OptionalDependencyError as exc:
        return _fail(exc, EXIT_DEPENDENCY)
    except MtscoreError as exc:
        return _fail(exc, EXIT_ERROR)
    except KeyboardInterrupt:
        sys.stderr.write("mtscore: interrupted\n")
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = None  # type: ignore[assignment]
        finally:
            return EXIT_OK


class _one_line_warnings(warnings.catch_warnings):
    """mtscore's own warnings as one ``mtscore: warning: ...`` line on stderr, each message once per run."""

    def __enter__(self):
        super().__enter__()
        seen: set[str] = set()
        previous = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if not issubclass(category, MtscoreWarning):
                return previous(message, category, filename, lineno, file, line)
            text = " ".join(str(message).split("\n"))
            if text not in seen:
                seen.add(text)
                sys.stderr.write(f"mtscore: warning: {text}\n")

        warnings.simplefilter("always", MtscoreWarning)
        warnings.showwarning = show
        return self


def _fail(exc: Exception, code: int) -> int:
    msg = " ".join(str(exc).split("\n"))
    sys.stderr.write(f"mtscore: error: {msg}\n")
    return code


def write_stdout(text: str) -> None:
    """Write a complete result to stdout at once (nothing is printed before the work succeeded)."""
    if not text.endswith("\n"):
        text += "\n"
    sys.stdout.write(text)
    sys.stdout.flush()


def write_file(path: str, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed into place)."""
    import os
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", path) from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
