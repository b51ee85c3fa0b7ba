"""``mtscore`` entry point. Sub-commands live in their own modules (``add_parser`` + ``run``).

Exit codes: 0 success; 2 usage or invalid parameter; 3 bad input data (file, line); 4 a missing
optional dependency; 5 an output cannot be written; 1 any other mtscore error; 130 interrupted (SIGINT,
Ctrl-C); 141 standard output closed by its reader (SIGPIPE, e.g. ``| head``), quietly; 143 terminated (SIGTERM).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import warnings
from importlib import import_module

from .._version import __version__
from ..progress import silenced
from ..errors import (InputError, InvalidParameterError, MtscoreError, MtscoreWarning, OptionalDependencyError,
                      OutputError, Terminated)
from ..io.output import _drop_stdout, write_stdout  # noqa: F401  (write_stdout: re-exported for the commands)
from ..io.output import write_text as write_file  # noqa: F401  (the one writer; see mtscore.io.output)
from ..params import OptionValueError
from .._testhooks import fault_point

fault_point("import")  # tests: Ctrl-C while the command-line layer is imported (mtscore.cli.entry answers it)

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
    "metrics": "mtscore.cli.metrics_cmd",
    "sacrebleu": "mtscore.cli.sacrebleu_cmd",
    "analyse": "mtscore.cli.analyse",
    "cache": "mtscore.cli.cache_cmd",
    "rank": "mtscore.cli.rank_cmd",
}

# options whose values are outputs; every other option's value that names an existing file is an input of the
# run, which no output may replace (mtscore.io.output)
OUTPUT_DESTS = frozenset({"output", "html", "save_stats", "write_selections", "spans_out"})

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INPUT, EXIT_DEPENDENCY, EXIT_OUTPUT = 0, 1, 2, 3, 4, 5
EXIT_INTERRUPTED, EXIT_PIPE, EXIT_TERMINATED = 130, 141, 143


class _Parser(argparse.ArgumentParser):
    def __init__(self, *a, **kw):
        kw["allow_abbrev"] = False  # sacreBLEU spellings such as -tok/-lc never parse as other options
        super().__init__(*a, **kw)

    def error(self, message):  # one line, exit 2: "mtscore: error: <command>: <argparse's message>"
        argv = getattr(self, "_argv", None)
        if argv is not None and message.startswith(("unrecognized arguments:", "argument COMMAND: invalid choice")):
            from .hints import usage_hint  # "did you mean", -r for a positional reference
            message += usage_hint(_command_parsers(self, argv), argv, message, COMMANDS)
        cmd = " ".join(self.prog.split()[1:])
        self.exit(EXIT_USAGE, f"mtscore: error: {cmd + ': ' if cmd else ''}{' '.join(message.split())}\n")

    def _print_message(self, message, file=None):  # argparse would swallow a write error (help into /dev/full)
        if not message:
            return
        if file is None:  # help and version go to sys.stdout, which is None when stdout was closed (>&-)
            if sys.stdout is None:
                raise OutputError("cannot write: standard output is closed", "<stdout>")
            file = sys.stderr
        try:
            file.write(message)
            file.flush()
        except OSError as exc:
            from ..io.output import output_error
            _drop_stdout()
            raise output_error("<stdout>" if file is sys.stdout else "<stderr>", exc) from None


def _chosen_command(argv) -> str | None:
    """The sub-command named in ``argv`` (first argument that is not an option), if it is a known one."""
    for a in argv:
        if not a.startswith("-"):
            return a if a in COMMANDS else None
        if a in ("-h", "--help", "--version"):
            return None
    return None


def _metrics_named(argv) -> frozenset:
    """Registry names of the metrics ``argv`` selects (``-m``/``--metrics`` values, ``--scores``), lowercased."""
    names, on = set(), False
    for a in argv:
        if a == "--":
            break
        if a in ("-m", "--metrics") or a.startswith("--metrics="):
            on = a in ("-m", "--metrics")
            if not on:
                names.add(a.split("=", 1)[1].split(":", 1)[0].lower())
            continue
        if a.startswith("-") and len(a) > 1 and not a[1].isdigit():
            if a.split("=", 1)[0] == "--scores":
                names.add("scores")
            on = False
            continue
        if on:
            names.add(a.split(":", 1)[0].strip().lower())
    return frozenset(names)


def _undeclared_option(parser, argv) -> bool:
    """An option in ``argv`` that the parser (built for the named metrics only) does not define."""
    defined = set().union(*(_defined_options(p) for p in _command_parsers(parser, argv)))
    for a in argv:
        if a == "--":
            break
        if a.startswith("-") and len(a) > 1 and not (a[1].isdigit() or a[1] == "."):
            if a.split("=", 1)[0] not in defined:
                return True
    return False


def build_parser(argv=None, every_metric: bool = False) -> argparse.ArgumentParser:
    """The full parser; with ``argv`` naming a sub-command, only that sub-command's module is imported
    (the others are listed by name), so a command does not pay for every other command's imports; and only
    the metric modules of the metrics it names (``every_metric``: all, for their options)."""
    parser = _Parser(prog="mtscore", description="Machine-translation evaluation and meta-evaluation. "
                                                 "Metrics and their parameters: mtscore metrics.")
    parser.add_argument("--version", action="version", version=f"mtscore {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", default=False,
                        help="no progress bars on stderr (they are drawn only when stderr is a terminal)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    chosen = _chosen_command(argv) if argv is not None else None
    version_only = argv is not None and chosen is None and "--version" in argv and "-h" not in argv and "--help" not in argv
    from .. import params
    saved, params.FULL_HELP = params.FULL_HELP, argv is None or "-h" in argv or "--help" in argv or "--help-all" in argv
    saved_named = params.METRICS_NAMED
    params.METRICS_NAMED = None if params.FULL_HELP or every_metric else _metrics_named(argv)
    params.METRIC_CLASSES_IN_USE.clear()  # a new command line: its parsers' metrics only
    placeholders = set()
    placeholder = None
    try:  # a parser that will not print help skips the help-only work (see params.FULL_HELP)
        for name, module in COMMANDS.items():
            if not version_only and (chosen is None or name == chosen):  # --version imports no command module
                import_module(module).add_parser(sub)
            else:  # only named (the command line runs another command, or --version): no options, no help, and
                # one empty parser for all of them (what add_parser(name) registers, without building 17 parsers)
                placeholder = placeholder or _Parser(prog="mtscore", add_help=False)
                sub.choices[name] = placeholder
                placeholders.add(name)
    finally:
        params.FULL_HELP, params.METRICS_NAMED = saved, saved_named
    for name, sp in sub.choices.items():  # --quiet is accepted after the sub-command too
        if name not in placeholders:
            _add_quiet(sp)
            if name != "sacrebleu":  # sacreBLEU's own command line keeps sacreBLEU's messages
                table_choices(sp)
                from .options import compact_help, compact_usage
                compact_usage(sp)  # a usage line that fits (the options follow, grouped)
                compact_help(sp)  # --help one line per option; --help-all the full text
    return parser


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    """``-q/--quiet`` on a command and on each of its nested commands (``analyse lengths -q``, ``audit sign -q``);
    ``--kernels`` next to each ``--threads``."""
    if not any("--quiet" in a.option_strings for a in parser._actions):
        parser.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                            help="no progress bars on stderr")
    if any("--threads" in a.option_strings for a in parser._actions) and \
            not any("--kernels" in a.option_strings for a in parser._actions):
        from ..params import add_option
        add_option(parser, "kernels")  # where the work runs compiled kernels (the commands with --threads)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for nested in action.choices.values():
                _add_quiet(nested)


def table_choices(parser: argparse.ArgumentParser) -> None:
    """Every ``choices=`` option of mtscore's own commands is checked by the parameter layer's rule for
    choices (:class:`mtscore.params.Param`), so a bad value gets the one message template
    (``--human-format: must be one of: mtme, ..., got 'x'``) instead of argparse's own wording."""
    from ..params import Param, cli_type
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sp in a.choices.values():
                table_choices(sp)
            continue
        if a.choices is None or a.type is not None or isinstance(a.choices, dict):
            continue
        choices = tuple(a.choices)
        if not choices or not all(isinstance(c, str) for c in choices):
            continue
        flag = next((f for f in a.option_strings if f.startswith("--")), a.option_strings[0] if a.option_strings
                    else a.dest)
        if a.metavar is None:
            a.metavar = "{" + ",".join(choices) + "}"
        a.type = cli_type(Param(a.dest, "choice", choices=choices), flag)
        a.choices = None


def _single_threaded_blas() -> None:
    """BLAS runs single-threaded in the CLI unless the user sets its thread count (``OPENBLAS_NUM_THREADS``,
    ``GOTO_NUM_THREADS`` or ``OMP_NUM_THREADS``): mtscore's parallelism is its kernel threads (and ``--jobs``
    workers), which BLAS threads would only compete with, and OpenBLAS starts its thread pool when NumPy is
    imported (about 50 ms of a short run on 2 cores). Effective only before NumPy is imported."""
    if "numpy" in sys.modules or any(v in os.environ for v in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                                               "OMP_NUM_THREADS")):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"


def _note_score_cache() -> None:
    """The neural score cache is an input of every run (a neural metric reads it): no output may replace it,
    nor a link to it (docs/neural-metrics.md, "The score cache")."""
    from ..io.output import note_reserved
    from ..neural.cache import cache_file
    try:
        note_reserved(cache_file(), "the neural score cache (an input of the neural metrics)")
    except (OSError, RuntimeError, KeyError):  # no home folder: no cache to protect
        pass


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _single_threaded_blas()
    from ..io.output import note_inputs_in, reset_inputs
    reset_inputs()
    with _signal_handlers():
        try:
            chosen = _chosen_command(argv)
            raw = getattr(import_module(COMMANDS[chosen]), "run_argv", None) if chosen else None
            if raw is not None:  # a command that parses its own arguments (sacreBLEU's command line)
                k = argv.index(chosen)
                quiet, rest = any(a in ("-q", "--quiet") for a in argv[:k]), argv[k + 1:]

                def func():
                    return raw(rest)
            else:
                parser = build_parser(argv)
                if _undeclared_option(parser, argv):  # another metric's option (or a typo): every metric's
                    parser = build_parser(argv, every_metric=True)
                try:
                    check_foreign_options(parser, argv)  # sacreBLEU spellings: a hint naming the mtscore option
                    parser._argv = argv  # for the hints of an unrecognized argument (_Parser.error)
                    args = parser.parse_args(argv)
                except OptionValueError as exc:  # an option's value broke its rule (mtscore.params)
                    return _fail(exc, EXIT_USAGE)
                except SystemExit:
                    _flush_stdout()  # --help / --version into a full or closed stdout: one line, not a traceback
                    raise
                quiet = bool(getattr(args, "quiet", False))
                note_inputs_in(v for k, v in vars(args).items() if k not in OUTPUT_DESTS and not callable(v))
                _note_score_cache()

                def func():
                    return _with_threads(args)
            with silenced(quiet), _one_line_warnings():
                code = int(func() or 0)
            _flush_stdout()
            return code
        except InputError as exc:
            return _fail(exc, EXIT_INPUT)
        except InvalidParameterError as exc:
            return _fail(exc, EXIT_USAGE)
        except OptionalDependencyError as exc:
            return _fail(exc, EXIT_DEPENDENCY)
        except OutputError as exc:
            return _fail(exc, EXIT_OUTPUT)
        except MtscoreError as exc:
            return _fail(exc, EXIT_ERROR)
        except MemoryError:
            return _fail("out of memory (a line or a file too large for the memory available?)", EXIT_ERROR)
        except KeyboardInterrupt:
            _say("mtscore: interrupted")
            return EXIT_INTERRUPTED
        except Terminated:
            _say("mtscore: terminated")
            return EXIT_TERMINATED
        except BrokenPipeError:
            _drop_stdout()  # the reader went away (| head): exit quietly
            return EXIT_PIPE


def _with_threads(args):
    """Runs the command; ``--threads N`` (commands whose work runs compiled kernels) sets the thread count of
    every kernel call in it (:func:`mtscore.text.fast.kernel_threads`), ahead of ``$MTSCORE_THREADS``, and
    ``--kernels`` the implementation (:func:`mtscore.text.fast.kernel_choice`), ahead of ``$MTSCORE_KERNELS``."""
    threads = getattr(args, "threads", None)
    kernels = getattr(args, "kernels", None)
    if threads is None and kernels is None:
        return args.func(args)
    from ..text.fast import kernel_choice, kernel_threads
    with kernel_threads(threads), kernel_choice(kernels):
        return args.func(args)


class _signal_handlers:
    """SIGTERM raises :class:`Terminated` in the main thread (so ``finally`` blocks remove temporary files);
    SIGINT raises KeyboardInterrupt (Python's default, restored if a library changed it). Restored on exit."""

    def __enter__(self):
        import signal
        import threading
        self.saved = {}
        if threading.current_thread() is not threading.main_thread():
            return self
        for sig, handler in ((signal.SIGTERM, _on_sigterm), (signal.SIGINT, signal.default_int_handler)):
            try:
                old = signal.getsignal(sig)
                if sig == signal.SIGINT and old == signal.SIG_IGN:
                    continue  # started with SIGINT ignored (a background job): keep it so
                signal.signal(sig, handler)
                self.saved[sig] = old
            except (ValueError, OSError):  # pragma: no cover - not the main thread / unsupported
                pass
        return self

    def __exit__(self, *exc):
        import signal
        for sig, old in self.saved.items():
            try:
                signal.signal(sig, old if old is not None else signal.SIG_DFL)
            except (ValueError, OSError, TypeError):  # pragma: no cover
                pass
        return False


# sacreBLEU spellings -> mtscore equivalents. A hint is given only for a token the chosen command's
# parser does NOT define (a real option always wins); candidates are tried in order.
SACREBLEU_HINTS: dict[str, tuple[tuple[str, ...], str]] = {
    "-tok": (("--tokenize",), ""),
    "-lc": (("--lowercase",), ""),
    "-s": (("--smooth",), ""),
    "--smooth-method": (("--smooth",), ""),
    "-b": ((), "mtscore prints a table; use -f tsv or -f json for machine-readable scores"),
    "--score-only": ((), "mtscore prints a table; use -f tsv or -f json for machine-readable scores"),
    "-w": (("--width",), ""),
    "--width": (("--width",), ""),
    "-f": (("--format",), ""),
    "-sl": (("--sentence-level",), ""),
    "-cc": (("--chrf-char-order",), ""),
    "-cw": (("--chrf-word-order",), ""),
    "--confidence": ((), "use mtscore compare (bootstrap intervals and tests) or mtscore report"),
    "-ci": ((), "use mtscore compare (bootstrap intervals and tests) or mtscore report"),
    "--confidence-n": (("--resamples",), "use mtscore compare --resamples N"),
    "-nc": (("--resamples",), "use mtscore compare --resamples N"),
    "--paired-bs": ((), "use mtscore compare --test bootstrap"),
    "--paired-bs-n": ((), "use mtscore compare --test bootstrap --resamples N"),
    "--paired-ar": ((), "use mtscore compare --test ar"),
    "--paired-ar-n": ((), "use mtscore compare --test ar --resamples N"),
    "--paired-jobs": (("--jobs",), ""),
    "-t": (("--test-set",), "test sets by name are read by mtscore score/compare/report -t where available"),
    "--test-set": (("--test-set",), ""),
    "-l": (("--langpair",), ""),
    "--language-pair": (("--langpair",), ""),
    "--echo": ((), "not an mtscore option"),
    "--list": ((), "not an mtscore option"),
    "--download": ((), "mtscore never downloads test sets"),
    "-e": ((), "mtscore reads UTF-8 (invalid bytes are an error naming file and line)"),
    "--encoding": ((), "mtscore reads UTF-8 (invalid bytes are an error naming file and line)"),
    "--short": ((), "mtscore prints full signatures only"),
    "-sh": ((), "mtscore prints full signatures only"),
    "-nr": ((), "give one -r file per reference stream, or --tsv"),
    "--num-refs": ((), "give one -r file per reference stream, or --tsv"),
    "-d": ((), "mtscore prints each metric's signature under the table; -f json has every component"),
    "--detail": ((), "mtscore prints each metric's signature under the table; -f json has every component"),
    "--no-color": ((), "mtscore prints no colours"),
    "-V": (("--version",), ""),
    "--citation": ((), "not an mtscore option"),
    "-ol": ((), "not an mtscore option"),
    "--origlang": ((), "not an mtscore option"),
    "--subset": ((), "not an mtscore option"),
    "--force": ((), "not an mtscore option"),
}
HINT_TAIL = " (or: mtscore sacrebleu ...)"
NO_HINT_COMMANDS = ("sacrebleu",)  # the drop-in has sacreBLEU's own parser


def _defined_options(parser) -> set:
    return set(getattr(parser, "_option_string_actions", {}))


def _command_parsers(parser, argv):
    """The parsers the tokens of ``argv`` reach: the top level, the command, a nested sub-command."""
    chain, cur = [parser], parser
    for tok in argv:
        if tok == "--":
            break
        subs = [a for a in getattr(cur, "_actions", []) if isinstance(a, argparse._SubParsersAction)]
        if subs and not tok.startswith("-") and tok in subs[0].choices:
            cur = subs[0].choices[tok]
            chain.append(cur)
    return chain


def check_foreign_options(parser, argv) -> None:
    """A sacreBLEU option the chosen command does not define: one line naming the mtscore equivalent."""
    chain = _command_parsers(parser, argv)
    if len(chain) < 2 or chain[1].prog.split()[-1] in NO_HINT_COMMANDS:
        return
    defined = set().union(*(_defined_options(p) for p in chain))
    cmd = " ".join(chain[-1].prog.split()[1:])
    for tok in argv:
        if tok == "--":
            break
        if tok.startswith("-") and tok.endswith("=--"):  # argparse would drop the '--' and pass an empty list
            raise InvalidParameterError(f"{tok[:-3]}: '--' is not a value (write {tok[:-3]} -- only as the last option)")
        flag = tok.split("=", 1)[0]
        if not flag.startswith("-") or flag in defined or flag not in SACREBLEU_HINTS:
            continue
        cands, text = SACREBLEU_HINTS[flag]
        use = next((c for c in cands if c in defined and c != flag), None)
        if use:
            hint = f"use {use}"
        else:
            hint = f"not an option of mtscore {cmd}" + (f"; {text}" if text and not text.startswith("not an") else "")
        raise InvalidParameterError(f"{flag}: {hint}{HINT_TAIL}")


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


def _on_sigterm(signum, frame):
    raise Terminated()


def _flush_stdout() -> None:
    out = sys.stdout
    if out is None:
        return
    try:
        out.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        _drop_stdout()
        from ..io.output import output_error
        raise (output_error("<stdout>", exc) if isinstance(exc, OSError)
               else OutputError("cannot write: standard output is closed", "<stdout>")) from None


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # stderr closed too: the exit code still tells
        pass


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _fail(exc, code: int) -> int:
    msg = " ".join(str(exc).split("\n"))
    # one line whatever a file name or value holds: other line breaks and control characters escaped
    msg = _CONTROL.sub(lambda m: repr(m.group())[1:-1], msg)
    _say(f"mtscore: error: {msg}")
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
