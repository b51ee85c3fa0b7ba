"""``mtscore sacrebleu ...``: sacreBLEU 2.6's command line, as it is, on mtscore's engines.

The options, their defaults, the order of the work and every byte printed on stdout on success follow
sacreBLEU 2.6 (``sacrebleu/sacrebleu.py`` and ``utils.py``), except the ``version:`` field of
signatures (``version:mtscore-<version>``). Reading is sacreBLEU's: files are split on ``\\n`` only,
standard input with universal newlines, each line ``rstrip()``-ed, a byte-order mark kept, several
systems on standard input as TAB-separated columns. Where sacreBLEU crashes or silently accepts
nonsense (an unreadable or non-UTF-8 file, ``-w -1``, ``--paired-bs-n 0``, a missing -i file ...)
this layer raises mtscore's one-line errors (exit 2 usage, 3 input; see docs/sacrebleu.md).
sacreBLEU's environment variables (``SACREBLEU``, ``SACREBLEU_SEED``, ``SACREBLEU_FORMAT``,
``NO_COLOR``) are honoured here and nowhere else in mtscore.
"""
from __future__ import annotations

import argparse
import codecs
import gzip
import io
import json
import os
import re
import sys
from collections import defaultdict
from typing import Dict, List, Optional, Sequence

from .._version import __version__
from .._testhooks import fault_point
from ..errors import InputError, InvalidParameterError, plural
from .metrics import BLEU, METRICS, SACREBLEU_TOKENIZERS

OUTPUT_FORMATS = ("json", "text", "latex")
SACREBLEU_VERSION = "2.6.0"  # the sacreBLEU whose command line this is
_UNSET = object()
PROG = "mtscore sacrebleu"


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (through the CLI's InvalidParameterError mapping)
        raise InvalidParameterError(message)


def _opt(group, name: str, *flags: str) -> None:
    """A numeric option of sacreBLEU's from the parameter table (mtscore.params.SACREBLEU_OPTIONS): its value
    is parsed and bounded there, and a bad one gets the table's one message (``-w/--width: must be ...``)."""
    from ..params import SACREBLEU_OPTIONS, cli_type, option_help
    prm = SACREBLEU_OPTIONS[name]
    label = "/".join(sorted(prm.flags, key=len))
    group.add_argument(*flags, dest=name, type=cli_type(prm, label), default=prm.default,
                       metavar=prm.metavar or ("X" if prm.kind == "float" else "N"), help=option_help(prm))


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """sacreBLEU 2.6's options, names, short forms and defaults."""
    p = _ArgumentParser(
        prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="sacreBLEU 2.6's command line on mtscore: same options, same output (signatures say "
                    "version:mtscore-...).\n    cat output.detok.de | mtscore sacrebleu REF")
    p.add_argument("--citation", "--cite", default=False, action="store_true", help="bibtex citation of a test set")
    p.add_argument("--list", default=False, action="store_true", help="list the test sets found locally")
    p.add_argument("--test-set", "-t", type=str, default=None,
                   help="test set(s), comma-separated, resolved from local files (never downloaded)")
    p.add_argument("--language-pair", "-l", dest="langpair", default=None, help="source-target language pair")
    p.add_argument("--origlang", "-ol", dest="origlang", default=None, help="subset by original language")
    p.add_argument("--subset", dest="subset", default=None, help="subset by document annotation")
    p.add_argument("--download", type=str, default=None, help="refused: mtscore never downloads")
    p.add_argument("--echo", nargs="+", type=str, default=None, help="print fields of a test set (src, ref, docid ...)")
    p.add_argument("--input", "-i", type=str, nargs="*", default=None, help="system output file(s) instead of STDIN")
    p.add_argument("refs", nargs="*", default=[], help="reference files (before -i)")
    _opt(p, "num_refs", "--num-refs", "-nr")
    p.add_argument("--encoding", "-e", type=str, default="utf-8", help="text encoding of the files (default utf-8)")
    p.add_argument("--metrics", "-m", choices=[m.lower() for m in METRICS], nargs="+", default=["bleu"],
                   help="metrics (default bleu)")
    p.add_argument("--sentence-level", "-sl", action="store_true", help="score each sentence")
    b = p.add_argument_group("BLEU related arguments")
    b.add_argument("--smooth-method", "-s", choices=BLEU.SMOOTH_DEFAULTS.keys(), default="exp",
                   dest="bleu_smooth_method", help="smoothing (default exp)")
    _opt(b, "bleu_smooth_value", "--smooth-value", "-sv")
    b.add_argument("--tokenize", "-tok", choices=SACREBLEU_TOKENIZERS, default=None, dest="bleu_tokenize",
                   help="tokenizer (default 13a; zh/ja-mecab/ko-mecab for those target languages)")
    b.add_argument("--lowercase", "-lc", dest="bleu_lowercase", action="store_true", default=False,
                   help="case-insensitive BLEU")
    b.add_argument("--force", default=False, action="store_true", dest="bleu_force",
                   help="no warning for input that looks tokenized")
    c = p.add_argument_group("chrF related arguments")
    _opt(c, "chrf_char_order", "--chrf-char-order", "-cc")
    _opt(c, "chrf_word_order", "--chrf-word-order", "-cw")
    _opt(c, "chrf_beta", "--chrf-beta")
    c.add_argument("--chrf-whitespace", action="store_true", default=False, help="keep whitespace in character n-grams")
    c.add_argument("--chrf-lowercase", action="store_true", default=False, help="case-insensitive chrF")
    c.add_argument("--chrf-eps-smoothing", action="store_true", default=False, help="epsilon smoothing (chrF++.py)")
    t = p.add_argument_group("TER related arguments")
    t.add_argument("--ter-case-sensitive", action="store_true", help="case-sensitive TER")
    t.add_argument("--ter-asian-support", action="store_true", help="CJK handling")
    t.add_argument("--ter-no-punct", action="store_true", help="remove punctuation")
    t.add_argument("--ter-normalized", action="store_true", help="normalization and tokenization")
    s = p.add_argument_group("Confidence intervals and paired tests")
    s.add_argument("--confidence", "-ci", action="store_true", help="bootstrap confidence interval")
    _opt(s, "confidence_n", "--confidence-n", "-cin")
    pair = s.add_mutually_exclusive_group()
    pair.add_argument("--paired-ar", "-par", action="store_true", help="paired approximate randomization")
    pair.add_argument("--paired-bs", "-pbs", action="store_true", help="paired bootstrap resampling")
    _opt(s, "paired_ar_n", "--paired-ar-n", "-parn")
    _opt(s, "paired_bs_n", "--paired-bs-n", "-pbsn")
    _opt(s, "paired_jobs", "--paired-jobs", "-j")
    r = p.add_argument_group("Reporting related arguments")
    r.add_argument("--quiet", "-q", default=False, action="store_true", help="no informative messages on stderr")
    r.add_argument("--short", "-sh", default=False, action="store_true", help="short signature")
    r.add_argument("--score-only", "-b", default=False, action="store_true", help="print only the score")
    _opt(r, "width", "--width", "-w")
    r.add_argument("--detail", "-d", default=False, action="store_true", help="scores per subset of a test set")
    r.add_argument("--no-color", "-nc", action="store_true", help="no terminal colors")
    r.add_argument("--format", "-f", default="json", choices=OUTPUT_FORMATS,
                   help="json (default) or text; latex for several systems; SACREBLEU_FORMAT overrides")
    from ..params import add_option
    own = p.add_argument_group("mtscore (not sacreBLEU's)")
    add_option(own, "threads")  # docs/kernels.md: no effect on the output
    add_option(own, "kernels")  # docs/kernels.md: compiled or reference kernels, no effect on the output
    own.add_argument("--testset-dir", default=None, metavar="DIR",
                     help="also look for -t test sets in DIR (sacreBLEU-cache, mt-metrics-eval or WMT release layout)")
    p.add_argument("--version", "-V", action="version",
                   version=f"%(prog)s {SACREBLEU_VERSION} (mtscore {__version__}'s drop-in for sacreBLEU "
                           f"{SACREBLEU_VERSION})")
    return p


# ---------------------------------------------------------------------------------------------------
# output helpers (colors as sacreBLEU's: only when enabled and stdout is a terminal)
_ANSI = {"yellow": "\x1b[33m", "cyan": "\x1b[36m", "red": "\x1b[31m", "green": "\x1b[32m"}
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


class _Out:
    def __init__(self, colors: bool):
        self.colors = colors
        self.parts: List[str] = []

    def color(self, msg: str, name: str) -> str:
        return f"{_ANSI[name]}{msg}\x1b[0m" if self.colors else msg

    def print(self, *items) -> None:
        self.parts.append(" ".join(str(x) for x in items) + "\n")

    def text(self) -> str:
        return "".join(self.parts)


def _vlen(s: str) -> int:
    return len(_ANSI_RE.sub("", s))


def _pad(s: str, width: int, align: str) -> str:
    fill = width - _vlen(s)
    if fill <= 0:
        return s
    if align == "right":
        return " " * fill + s
    left = fill // 2
    return " " * left + s + " " * (fill - left)


_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "^": r"\^{}", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "\\": r"\textbackslash{}", "<": r"\ensuremath{<}",
                  ">": r"\ensuremath{>}"}


def render_table(headers: List[str], columns: List[List[str]], fmt: str) -> str:
    """The multi-system table: a grid with box-drawing characters (``text``) or booktabs LaTeX.

    The first column is right-aligned, the others centered (the extra space of an odd fill goes right);
    a column is at least its header plus two wide; cells may span several lines (text only)."""
    n_rows = len(columns[0]) if columns else 0
    cells = [[c.split("\n") for c in col] for col in columns]
    widths = []
    for h, col in zip(headers, cells):
        w = _vlen(h) + 2
        for lines in col:
            w = max(w, max(_vlen(x) for x in lines))
        widths.append(w)
    aligns = ["right"] + ["center"] * (len(headers) - 1)
    if fmt == "latex":
        def row(values):
            padded = [" " + _pad(v, w, a) + " " for v, w, a in zip(values, widths, aligns)]
            return ("&".join("".join(_LATEX_ESCAPES.get(ch, ch) for ch in cell) for cell in padded) + "\\\\").rstrip()
        lines = ["\\begin{tabular}{" + "".join("r" if a == "right" else "c" for a in aligns) + "}", "\\toprule",
                 row(headers), "\\midrule"]
        for i in range(n_rows):
            lines.append(row([col[i][0] for col in cells]))
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines)

    def rule(left, fill, sep, right):
        return left + sep.join(fill * (w + 2) for w in widths) + right

    def rows(values_lines):
        height = max(len(v) for v in values_lines)
        out = []
        for k in range(height):
            parts = []
            for lines_, w, a in zip(values_lines, widths, aligns):
                text = lines_[k] if k < len(lines_) else ""
                parts.append(" " + (_pad(text, w, a) if text else " " * w) + " ")
            out.append("│" + "│".join(parts) + "│")
        return out

    lines = [rule("╒", "═", "╤", "╕")]
    lines += rows([[h] for h in headers])
    lines.append(rule("╞", "═", "╪", "╡"))
    for i in range(n_rows):
        lines += rows([col[i] for col in cells])
        lines.append(rule("├", "─", "┼", "┤") if i < n_rows - 1 else rule("╘", "═", "╧", "╛"))
    if n_rows == 0:
        lines[-1] = rule("╘", "═", "╧", "╛")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# reading, as sacreBLEU reads
def _read_bytes(path: str) -> bytes:
    import zlib
    try:
        fault_point("read")
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as fh:
                return fh.read()
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path) from None
    except PermissionError:
        raise InputError("permission denied", path) from None
    except MemoryError:
        raise InputError("the file is too large for the memory available", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    except (EOFError, zlib.error) as exc:  # corrupt or truncated gzip data
        raise InputError(f"cannot read: {exc or 'the gzip data ends early'}", path) from None


def _decode(data: bytes, encoding: str, path: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"cannot decode as {encoding} (byte 0x{data[exc.start]:02x} at byte offset {exc.start}); "
                         "give the encoding with -e/--encoding", path, line) from None


def read_file_lines(path: str, encoding: str) -> List[str]:
    """Lines of a file split on ``\\n`` only (sacreBLEU's ``newline="\\n"``), each ``rstrip()``-ed."""
    text = _decode(_read_bytes(path), encoding, path)
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return [ln.rstrip() for ln in lines]


def read_stdin_systems(data: bytes, encoding: str) -> List[List[str]]:
    """Systems from standard input: universal newlines, TAB-separated columns = systems (sacreBLEU)."""
    text = _decode(data, encoding, "<stdin>").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    first = lines[0].rstrip().split("\t")  # the first line's fields are not stripped one by one
    systems = [[s] for s in first]
    for i, line in enumerate(lines[1:], 2):
        fields = line.rstrip().split("\t")
        if len(fields) != len(systems):
            raise InputError(f"standard input: line has {len(fields)} TAB-separated field(s), line 1 has "
                             f"{len(systems)} (one column per system)", "<stdin>", i)
        for k, sent in enumerate(fields):
            systems[k].append(sent.rstrip())
    return systems


# ---------------------------------------------------------------------------------------------------
def _validate(args) -> None:
    """What the parameter table cannot say of one value (mtscore.params' one message template)."""
    from ..errors import message
    if "chrf" in args.metrics and args.chrf_char_order + args.chrf_word_order < 1:
        raise InvalidParameterError(message("-cc/--chrf-char-order + -cw/--chrf-word-order",
                                            "at least 1 (one n-gram order is needed)",
                                            args.chrf_char_order + args.chrf_word_order))
    try:
        codecs.lookup(args.encoding)
    except LookupError:
        raise InvalidParameterError(message("-e/--encoding", "a text encoding Python knows (e.g. utf-8, latin-1)",
                                            args.encoding)) from None
    if args.langpair is not None and not re.fullmatch(r"[^-\s]+-[^-\s]+", args.langpair):
        raise InvalidParameterError(message("-l/--language-pair", "SRC-TRG (e.g. en-de)", args.langpair))


class _Log:
    """sacreBLEU's messages on stderr (``sacreBLEU: ...``); informative ones are silenced by -q."""

    def __init__(self, quiet: bool, stream):
        self.quiet = quiet
        self.stream = stream

    def info(self, msg: str) -> None:
        if not self.quiet:
            self.stream.write(f"sacreBLEU: {msg}\n")

    warning = info


def _registry():
    """sacreBLEU 2.6's test-set registry, as data (mtscore.sacrebleu.dataset)."""
    from .dataset import DATASETS
    return DATASETS


def _find_testsets(args, environ):
    from ..io.testsets import find_testsets
    if args.langpair is None:
        raise InvalidParameterError("-l/--language-pair: a test set (-t) needs a language pair, e.g. -l en-de")
    return find_testsets(args.test_set, args.langpair, testset_dir=args.testset_dir, environ=environ)


def _fieldnames(name: str, pair: str, local) -> List[str]:
    """The fields sacreBLEU lists for a pair: from the registry (WMT21+ XML sets: from the raw file, in the
    cache), else from the files found on disk."""
    from .dataset import TestSetNotDownloaded
    reg = _registry()
    if name in reg and pair in reg[name].langpairs:
        try:
            return reg[name].fieldnames(pair)
        except TestSetNotDownloaded:
            if (name, pair) not in local:
                raise
    if (name, pair) in local:
        return local[(name, pair)].field_names()
    raise InputError(f"test set {name!r} has no language pair {pair} (sacreBLEU's registry lists "
                     f"{', '.join(reg[name].langpairs) if name in reg else 'no such test set'}; none on disk)")


def _list(args, environ, out: "_Out") -> None:
    """sacreBLEU's ``--list``: the registry's test sets (those with the pair in either direction for ``-l``),
    each on disk marked ``[on disk: PAIRS]``, then test sets found on disk that the registry lacks; with
    ``-t``, the fields of each pair (``-l``: of that pair)."""
    from ..io.testsets import list_testsets, split_names
    reg = _registry()
    found = list_testsets(None, testset_dir=args.testset_dir, environ=environ)
    local = {(t.name, t.langpair): t for t in found}
    if args.test_set:
        for name in split_names(args.test_set):
            if args.langpair:
                pairs = [args.langpair]
            elif name in reg:
                pairs = list(reg[name].langpairs)
            else:
                pairs = [t.langpair for t in found if t.name == name]
                if not pairs:
                    raise InputError(f"test set {name!r} is neither in sacreBLEU's registry nor on disk "
                                     "(mtscore never downloads; --list shows the registry)")
            for pair in pairs:
                out.print(f"{pair}: {', '.join(_fieldnames(name, pair, local))}")
        return
    if args.langpair:
        src, _, tgt = args.langpair.partition("-")
        both = (args.langpair, f"{tgt}-{src}")
        names = [d.name for d in reg.values() if any(p in d.langpairs for p in both)]
        found = [t for t in found if t.langpair in both]
        out.print(f"The available test sets for {args.langpair} are:")
    else:
        names = list(reg)
        out.print("The available test sets are:")
    on_disk: Dict[str, List[str]] = defaultdict(list)
    for t in found:
        on_disk[t.name].append(t.langpair)
    for name in sorted(names):
        mark = f"  [on disk: {', '.join(sorted(on_disk[name]))}]" if name in on_disk else ""
        out.print(f"{name:<30}: {reg[name].description.strip()}{mark}")
    for name in sorted(set(on_disk) - set(names)):
        root = next(t.root for t in found if t.name == name)
        out.print(f"{name:<30}: (not in sacreBLEU's registry; on disk: {', '.join(sorted(on_disk[name]))} "
                  f"in {root})")


def main(argv: Optional[Sequence[str]] = None) -> None:
    """sacreBLEU's ``sacrebleu.sacrebleu.main()`` (and ``python -m sacrebleu`` under the shim): the command line on
    ``sys.argv[1:]`` (or ``argv``) as program ``sacrebleu``; exits with its status. Errors are mtscore's one line
    with its exit codes (2 usage, 3 input, 4 missing dependency, 5 output, 1 other; Ctrl-C: 130). The shim's
    ``sacrebleu`` console script runs the same through mtscore's command-line entry point."""
    sys.exit(_console(list(sys.argv[1:] if argv is None else argv)))


def _console(argv: List[str]) -> int:
    from ..errors import MtscoreError, OptionalDependencyError, OutputError
    codes = ((InputError, 3), (InvalidParameterError, 2), (OptionalDependencyError, 4), (OutputError, 5))
    try:
        code = run(argv, prog="sacrebleu")
        sys.stdout.flush()
        return code
    except MtscoreError as exc:
        sys.stderr.write(f"mtscore: error: {' '.join(str(exc).split())}\n")
        return next((c for t, c in codes if isinstance(exc, t)), 1)
    except KeyboardInterrupt:
        sys.stderr.write("mtscore: interrupted\n")
        return 130


def run(argv: Sequence[str], stdin=None, stdout=None, stderr=None, environ=None, prog: str = PROG) -> int:
    """Run the sacreBLEU command line ``argv`` (without the program name). Returns the exit status.

    ``environ`` (default ``os.environ``) supplies ``SACREBLEU_FORMAT``, ``NO_COLOR`` and ``SACREBLEU`` (the
    test-set cache); ``SACREBLEU_SEED`` is read from ``os.environ`` by the bootstrap and paired tests, as
    sacreBLEU's do. Errors are raised as mtscore exceptions (the CLI maps them to one line and an exit code)."""
    environ = os.environ if environ is None else environ
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    from ..params import OptionValueError
    try:
        args = build_parser(prog).parse_args(list(argv))
    except OptionValueError as exc:  # a value against its table entry: the table's one-line message
        raise InvalidParameterError(str(exc)) from None
    import logging
    logger = logging.getLogger("mtscore.sacrebleu")  # the API layer's warnings, as sacreBLEU logs them
    handler = logging.StreamHandler(stderr)
    handler.setFormatter(logging.Formatter("sacreBLEU: %(message)s"))
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING if args.quiet else logging.INFO)
    logger.propagate = False
    from .._threadparam import threads_block
    from ..text.fast import kernel_choice
    try:
        with threads_block(args.threads), kernel_choice(args.kernels):
            return _run(args, stdin, stdout, stderr, environ)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


def _run(args, stdin, stdout, stderr, environ) -> int:
    fmt_env = environ.get("SACREBLEU_FORMAT")
    if fmt_env is not None and fmt_env.lower() in OUTPUT_FORMATS:
        args.format = fmt_env.lower()
    _validate(args)
    log = _Log(args.quiet, stderr)
    colors = not (environ.get("NO_COLOR") or args.no_color)
    try:
        colors = colors and stdout.isatty()
    except (AttributeError, ValueError):
        colors = False
    out = _Out(colors)
    paired = args.paired_bs or args.paired_ar

    if args.download:
        raise InvalidParameterError(f"--download: mtscore never downloads test sets (got {args.download!r}); "
                                    "use sacreBLEU itself to fetch them, mtscore reads its cache folder")
    if args.list:
        _list(args, environ, out)
        _emit(stdout, out.text())
        return 0
    if args.sentence_level and len(set(args.metrics)) > 1:
        raise InvalidParameterError("-sl/--sentence-level: only one metric can be used in sentence-level mode, "
                                    f"got {' '.join(args.metrics)}")
    if args.citation:
        if not args.test_set:
            raise InvalidParameterError("--citation: needs a test set (-t)")
        from ..io.testsets import split_names
        reg = _registry()
        for name in split_names(args.test_set):
            if name not in reg or not reg[name].citation:
                raise InputError(f"--citation: sacreBLEU's registry has no citation for test set {name!r}")
            out.print(reg[name].citation)
        _emit(stdout, out.text())
        return 0
    if args.num_refs != 1 and (args.test_set is not None or len(args.refs) > 1):
        raise InvalidParameterError("-nr/--num-refs: TAB-separated references need exactly one reference file "
                                    f"(and no -t); got {len(args.refs)} file(s)")
    testsets = None
    if args.test_set is None:
        if not args.refs:
            raise InvalidParameterError("references: give the reference file(s) before -i/--input "
                                        "(mtscore sacrebleu REF [REF ...] -i HYP [HYP ...]), or a test set with -t")
    elif args.refs:
        raise InvalidParameterError("-t/--test-set: give either a test set or reference files, not both "
                                    f"(got -t {args.test_set} and {len(args.refs)} file(s))")
    else:
        testsets = _find_testsets(args, environ)
    if args.echo:
        if testsets is None:
            raise InvalidParameterError("--echo: needs a test set (-t) and a language pair (-l)")
        from ..io.testsets import echo
        text = echo(testsets, args.echo, args.origlang, args.subset)
        _emit(stdout, text + "\n" if text else "")
        return 0
    filtering = args.origlang is not None or args.subset is not None
    if filtering and testsets is None:
        raise InvalidParameterError("--origlang/--subset: filtering by document metadata needs a test set (-t) and "
                                    "a language pair (-l)")
    if args.langpair:
        args.bleu_trg_lang = args.langpair.split("-")[1]
    if testsets is not None and args.bleu_tokenize == "none":
        log.warning("You are turning off BLEU's internal tokenizer presumably to supply your own tokenized files.")
        log.warning("Published numbers will not be comparable to other papers.")
    if args.input is not None and not args.input:
        raise InvalidParameterError("-i/--input: give at least one system output file (or read standard input "
                                    "by leaving -i out)")
    if args.paired_jobs != 1:
        log.info("--paired-jobs is accepted and ignored: the paired tests run in one process")
    if args.bleu_smooth_value is not None and args.bleu_smooth_method not in ("floor", "add-k") \
            and "bleu" in args.metrics:
        log.warning(f"--smooth-value {args.bleu_smooth_value} is ignored by --smooth-method "
                    f"{args.bleu_smooth_method} (it applies to floor and add-k)")

    # -- references --------------------------------------------------------------------------------
    concat = [list(args.refs)] if testsets is None else [t.references for t in testsets]
    ref_paths = concat[0]
    full_refs: List[List[str]] = [[] for _ in range(max(len(concat[0]), args.num_refs))]
    for refno, path in ((k, p) for files in concat for k, p in enumerate(files)):
        for lineno, line in enumerate(read_file_lines(path, args.encoding), 1):
            if args.num_refs == 1:
                full_refs[refno].append(line)
            else:
                fields = line.split("\t", args.num_refs - 1)
                if len(fields) != args.num_refs:
                    raise InputError(f"expected {args.num_refs} TAB-separated references (-nr), found "
                                     f"{len(fields)}", path, lineno)
                for k, ref in enumerate(fields):
                    full_refs[k].append(ref)
    num_refs = len(full_refs)

    # -- systems ----------------------------------------------------------------------------------
    systems: List[List[str]] = []
    names: List[str] = []
    if args.input is None:
        data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read().encode(args.encoding)
        systems = read_stdin_systems(data, args.encoding)
        names = [f"System {i + 1}" for i in range(len(systems))]
    else:
        for path in args.input:
            if path in names:
                if paired and path == names[0]:
                    log.info(f"Ignoring {path!r} as it was also given as the baseline.")
                    continue
                raise InvalidParameterError(f"-i/--input: {path!r} is given twice; every system needs its own file")
            systems.append(read_file_lines(path, args.encoding))
            names.append(path)
    num_sys = len(systems)
    if paired:
        names = (["Baseline"] + [f"System {i + 1}" for i in range(num_sys - 1)] if args.input is None
                 else [f"Baseline: {names[0]}"] + names[1:])
    if args.sentence_level:
        if num_sys > 1:
            raise InvalidParameterError(f"-sl/--sentence-level: only one system can be scored, got {num_sys}")
        if args.confidence or paired:
            raise InvalidParameterError("-sl/--sentence-level: confidence intervals and paired tests are not "
                                        "available in sentence-level mode")
        args.bleu_effective_order = True
    if paired and num_sys == 1:
        raise InvalidParameterError("--paired-bs/--paired-ar: paired tests need several systems given to -i/--input")
    if num_sys > 1 and args.confidence:
        raise InvalidParameterError("-ci/--confidence: for several systems use a paired test (--paired-bs or "
                                    "--paired-ar)")
    for k, system in enumerate(systems):
        lens = [len(r) for r in full_refs]
        if any(n != len(system) for n in lens):
            sys_name = args.input[k] if args.input is not None else f"standard input (column {k + 1})"
            detail = ", ".join([f"{sys_name} has {plural(len(system), 'line')}"] +
                               [f"{p} has {plural(n, 'line')}" for p, n in zip(ref_paths, lens)]
                               if args.num_refs == 1 else
                               [f"{sys_name} has {plural(len(system), 'line')}",
                                f"{ref_paths[0]} has {plural(lens[0], 'line')}"])
            raise InputError(f"system and reference streams have different lengths: {detail}")
    if systems and not systems[0] and not args.sentence_level:  # sacreBLEU 2.6 fails with IndexError here
        where = args.input[0] if args.input else "standard input"
        raise InputError("no segment to score: the system output and the references are empty", where)
    full_systems, unfiltered_refs = systems, full_refs
    if filtering:
        keep = _subset_mask(testsets, args)
        if len(keep) != len(full_refs[0]):
            raise InputError(f"the document metadata of test set {args.test_set} has {len(keep)} segments, its "
                             f"references {len(full_refs[0])}")
        systems = [[x for x, k in zip(s, keep) if k] for s in systems]
        full_refs = [[x for x, k in zip(r, keep) if k] for r in full_refs]
        if not systems[0]:
            raise InputError(f"test set {args.test_set!r} contains no sentence with"
                             + (f" origlang={args.origlang}" if args.origlang is not None else "")
                             + (f" subset={args.subset}" if args.subset is not None else ""))

    # -- metrics -----------------------------------------------------------------------------------
    metrics = {}
    for name in args.metrics:
        prefix = name + "_"
        kw = {k[len(prefix):]: v for k, v in vars(args).items() if k.startswith(prefix)}
        kw["references"] = full_refs
        metrics[name.upper()] = METRICS[name.upper()](**kw)
    _ = num_refs

    if args.sentence_level:
        metric, system = list(metrics.values())[0], systems[0]
        values = metric._stats_array(system, None)
        sig = metric.get_signature().format(args.short)
        for row in metric._rows(values):
            out.print(metric._compute_score_from_stats(row).format(args.width, args.score_only, sig))
        _emit(stdout, out.text())
        return 0

    if args.detail and args.format == "json":  # the breakdown is text (sacreBLEU)
        args.format = "text"
    if num_sys == 1:
        results = []
        for name in sorted(metrics):
            score = metrics[name].corpus_score(systems[0], None,
                                               n_bootstrap=args.confidence_n if args.confidence else 1)
            sig = metrics[name].get_signature().format(args.short if args.format != "json" else False)
            results.append(score.format(args.width, args.score_only, sig, args.format == "json"))
        _print_single(results, args, out)
        if args.detail:
            _print_subset_results(metrics, full_systems[0], unfiltered_refs, testsets, args, out)
    else:
        named = list(zip(names, systems))
        log.info(f"Found {num_sys} systems.")
        if not paired:
            sigs: Dict[str, str] = {}
            scores: Dict[str, list] = defaultdict(list)
            scores["System"] = names
            for _, system in named:
                for name in sorted(metrics):
                    score = metrics[name].corpus_score(system, None)
                    sigs[score.name] = metrics[name].get_signature().format(args.short)
                    scores[score.name].append(score.format(args.width, True))
        else:
            from .significance import PairedTest
            ptest = PairedTest(named, metrics, None, test_type="bs" if args.paired_bs else "ar",
                               n_samples=args.paired_bs_n if args.paired_bs else args.paired_ar_n,
                               n_jobs=args.paired_jobs)
            sig_objs, scores = ptest()
            sigs = {k: v.format(args.short) for k, v in sig_objs.items()}
        _print_table(scores, sigs, args, out)
    _emit(stdout, out.text())
    return 0


def _subset_mask(testsets, args, origlang=_UNSET, subset=_UNSET) -> List[bool]:
    """Segments kept by ``--origlang``/``--subset`` over the joined test sets (sacreBLEU's filter_subset)."""
    from ..io.testsets import subset_mask
    origlang = args.origlang if origlang is _UNSET else origlang
    subset = args.subset if subset is _UNSET else subset
    keep: List[bool] = []
    for t in testsets:
        keep += subset_mask(t, origlang, subset)
    return keep


def _print_subset_results(metrics, full_system, full_refs, testsets, args, out: _Out) -> None:
    """``-d/--detail``: scores per original language x subset (sacreBLEU's print_subset_results).

    sacreBLEU iterates over the characters of an ``--origlang`` given with ``--detail`` (and crashes); the
    drop-in breaks down by that one original language."""
    from ..io.testsets import available_origlangs, available_subsets
    if testsets is None:
        if args.origlang is not None:
            raise InvalidParameterError("-d/--detail with --origlang needs a test set (-t) and a language pair (-l)")
        origlangs: List[str] = []
    else:
        origlangs = [args.origlang] if args.origlang else available_origlangs(testsets)
    if not origlangs:
        out.print("No subset information found. Consider using --origlang argument.")
        return
    results: Dict[str, list] = {}
    for origlang in origlangs:
        subsets = [None] + ([args.subset] if args.subset is not None else available_subsets(testsets))
        for subset in subsets:
            keep = _subset_mask(testsets, args, origlang, subset)
            system = [x for x, k in zip(full_system, keep) if k]
            if not system:
                continue
            refs = [[x for x, k in zip(r, keep) if k] for r in full_refs]
            key = f"origlang={origlang}"
            if subset is None:
                key += " domain=ALL"
            elif subset.startswith("country:"):
                key += f" country={subset[8:]}"
            else:
                key += f" domain={subset}"
            results[key] = [(len(system), m.corpus_score(system, refs)) for m in metrics.values()]
    if not results:
        return
    w = args.width
    left = max(len(k) for k in results) + 1
    mwidth = max(len(score.name) for _, score in next(iter(results.values())))
    for key, scores in results.items():
        ckey = out.color(f"{key:<{left}}", "yellow")
        for n, score in scores:
            out.print(f"{ckey}: sentences={n:<6} {score.name:<{mwidth}} = {score.score:.{w}f}")


def _emit(stdout, text: str) -> None:
    """Write the result as UTF-8 whatever the locale's encoding (sacreBLEU re-opens stdout as UTF-8)."""
    buf = getattr(stdout, "buffer", None)
    try:
        if buf is None:
            stdout.write(text)
            return
        stdout.flush()
        buf.write(text.encode("utf-8"))
        buf.flush()
    except BrokenPipeError:
        raise  # the reader went away (| head): the CLI exits quietly
    except OSError as exc:  # a full device (> /dev/full): one line, exit 5 (as every mtscore command)
        from ..io.output import _drop_stdout, output_error
        if stdout is sys.stdout:
            _drop_stdout()  # nothing more goes to the full stream at exit
        raise output_error("<stdout>", exc) from None


def _print_single(results: List[str], args, out: _Out) -> None:
    if args.format == "json":
        out.print("[\n" + ",\n".join(results) + "\n]" if len(results) > 1 else results[0])
        return
    if "μ" in results[0]:
        rx = re.compile(r"(\(μ = [0-9\.]+ ± [0-9\.]+\))")
        results = [rx.sub(lambda m: out.color(m.group(), "cyan"), r) for r in results]
    if len(results) == 1:
        out.print(results[0])
        return
    lens = []
    for line in results:
        if "=" in line:
            lens.append(line.index("=") - 1)
        else:
            out.print(line)
    if lens:
        w = max(lens)
        for n, line in zip(lens, results):
            out.print(f"{line[:n]:>{w}}{line[n:]}")


def _json_value(v):
    if isinstance(v, str):
        return v
    d = {}
    for k, x in v.__dict__.items():
        d[k] = x if x is None or isinstance(x, (int, float)) else float(x)
    return d


def _print_table(results: Dict[str, list], sigs: Dict[str, str], args, out: _Out) -> None:
    if args.format == "json":
        keys = list(results.keys())
        rows = []
        for i in range(len(results["System"])):
            row = {"system": results["System"][i]}
            for k in keys[1:]:
                row[k] = _json_value(results[k][i])
            rows.append(row)
        out.print(json.dumps(rows, indent=4))
        return
    fmt = "text" if args.format == "text" else "latex"
    multiline = fmt == "text"
    headers, columns = ["System"], [list(results["System"])]
    is_bs = False  # once a bootstrap column is seen, every later header says so (sacreBLEU)
    for metric, vals in results.items():
        if metric == "System":
            continue
        col = []
        for res in vals:
            if isinstance(res, str):
                cell = res
            else:
                cell = f"{res.score:.{args.width}f}"
                if res.mean is not None:
                    is_bs = True
                    cell += f" ({res.mean:.{args.width}f} ± {res.ci:.{args.width}f})"
                if res.p_value is not None:
                    msg = f"(p = {res.p_value:.4f})"
                    cell += ("\n" if multiline else " ") + (out.color(msg, "red") if res.p_value > 0.05 else msg + "*")
            col.append(cell)
        headers.append(metric + (" (μ ± 95% CI)" if is_bs else ""))
        columns.append(col)
    baseline_name, has_baseline = "", False
    for col in columns:  # sacreBLEU colors the first row from the "Baseline:" column on
        if col and (col[0].startswith("Baseline:") or has_baseline):
            if col[0].startswith("Baseline:"):
                baseline_name = col[0]
            has_baseline = True
            col[0] = out.color(col[0], "yellow")
    headers = [out.color(h, "cyan") for h in headers]
    out.print(render_table(headers, columns, fmt))
    out.print()
    if paired_mode(args):
        kind = "bootstrap resampling" if args.paired_bs else "approximate randomization"
        n = args.paired_bs_n if args.paired_bs else args.paired_ar_n
        unit = "resampling trials" if args.paired_bs else "trials"
        msg = f"Paired {kind} test with {n} {unit}"
        bl = out.color("baseline", "yellow")
        bl_name = out.color(baseline_name, "yellow")
        null = out.color("Null hypothesis", "green")
        red = out.color("highlighted in red", "red")
        out.print("-" * len(msg) + "\n" + msg + "\n" + "-" * len(msg))
        out.print(f" - Each system is pairwise compared to {bl_name}.")
        if args.paired_bs:
            out.print("   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric.")
        else:
            out.print("   Actual system score is provided for each metric.")
        out.print()
        out.print(f" - {null}: the system and the {bl} translations are essentially")
        out.print(f"   generated by the same underlying process. For a given system and the {bl},")
        out.print("   the p-value is roughly the probability of the absolute score difference (delta)")
        out.print(f"   or higher occurring due to chance, under the assumption that the {null.lower()} is correct.")
        out.print()
        out.print(f" - Assuming a significance threshold of 0.05, the {null.lower()} can be rejected")
        out.print('   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely to be attributed')
        out.print(f'   to chance, hence the system is significantly "different" than the {bl}.')
        out.print(f"   Otherwise, the p-values are {red}.")
        out.print()
        out.print(f' - NOTE: Significance does not tell whether a system is "better" than the {bl} but rather')
        out.print('   emphasizes the "difference" of the systems in terms of the replicability of the delta.')
        out.print()
    out.print("-----------------")
    out.print("Metric signatures")
    out.print("-----------------")
    for name, sig in sigs.items():
        out.print(f" - {name:<10} {sig}")


def paired_mode(args) -> bool:
    return bool(args.paired_bs or args.paired_ar)
