"""Options shared by the commands that score (score, compare, meta ...).

Every option is declared in :mod:`mtscore.params` and every metric parameter beside its metric's Config
(``PARAMS``: type, bounds, choices, help, flags); this module only wires them into argparse. A metric option belongs to the metrics that have it
(``--chrf-beta`` changes chrF only); ``-m NAME:KEY=VALUE`` is the general form for any parameter.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re

from .. import params as P
from ..io import read_ref_streams, read_systems, read_tsv
from ..io.text import count_detail
from ..errors import InputError, InvalidParameterError
from ..metrics.registry import (get_metric_class, metric_names, parse_metric_spec, registered_names,
                                split_metric_spec)
from ..tokenize import tokenizer_for_language
from ..tokenize.external import SPM_MODELS

MORE = "all metric parameters: mtscore metrics"


def add_input_options(p: argparse.ArgumentParser, systems: bool = True) -> None:
    p.add_argument("-r", "--refs", nargs="+", metavar="REF", help="reference files, one per reference stream")
    if systems:
        p.add_argument("-i", "--input", nargs="+", metavar="HYP", help="hypothesis files, one per system")
    p.add_argument("--tsv", metavar="FILE", help="one TSV file instead: HYP<TAB>REF1[<TAB>REF2...] per line")
    add_bom_option(p)


def add_bom_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strip-bom", action="store_true", default=False,
                   help="remove a UTF-8 byte-order mark at the start of an input file (default: keep it as part "
                        "of segment 1, as sacreBLEU does, with a warning)")


class ExtendOnce(argparse.Action):
    """``-m a b -m c``: every metric given (a repeated option extends the list; the default is replaced, not
    extended). argparse's plain ``nargs='+'`` kept only the last ``-m``, silently dropping the others."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = getattr(namespace, "_given_" + self.dest, False)
        current = list(getattr(namespace, self.dest) or []) if seen else []
        setattr(namespace, self.dest, current + list(values))
        setattr(namespace, "_given_" + self.dest, True)


class _DeprecatedFlag(argparse.Action):
    """An old option spelling: still works, with a one-line note."""

    def __init__(self, option_strings, dest, new_flag=None, **kw):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        P.deprecated(option_string, self.new_flag, "option")
        setattr(namespace, self.dest, values)


def _metric_classes(names) -> dict:
    """``{name: class}`` of registered metrics (registration order); one that cannot be loaded is left out
    (its own use reports why)."""
    out = {}
    for name in names:
        try:
            out[name] = get_metric_class(name)
        except Exception:  # noqa: BLE001 - e.g. an entry point of a broken distribution: not this parser's error
            continue
    return out


_ACTIVE: list = list(P.SHARED_METRIC_OPTIONS)  # the options the parsers built for this command line define


def all_metric_options() -> tuple:
    """The options of every registered metric (imports every metric module: help, messages, docs)."""
    return P.metric_options(_metric_classes(registered_names()))


def _options_for_parser(default_metrics) -> tuple:
    """The metric options a parser defines: those of the metrics the command line names (and the command's
    defaults) -- only their modules are imported -- or of every registered metric (P.METRICS_NAMED is None:
    help, or an option none of the named metrics declares). ``_ACTIVE`` collects those of every parser built
    for the command line (a command with sub-commands builds several)."""
    named = P.METRICS_NAMED
    if named is None:
        classes = _metric_classes(registered_names())
    else:
        classes = _metric_classes(registered_names(set(named) | {split_metric_spec(m)[0].lower()
                                                                 for m in default_metrics}))
    P.METRIC_CLASSES_IN_USE.update(classes)
    _ACTIVE[:] = P.metric_options(P.METRIC_CLASSES_IN_USE)
    return P.metric_options(classes)


# metric options shown in help beside sacreBLEU's everyday ones (``MetricOption.common``): those README and docs/
# use (tests/cli/test_help.py checks that every option a documented command line types is in that command's help)
IN_HELP = frozenset(("--max-order", "--ref-length", "--effective-order", "--compat", "--tbleu-epsilon", "--grr-k",
                     "--grr-insertion-penalty", "--gtm-exponent", "--gtm-measure", "--rose-model", "--function-words",
                     "--ter-normalized", "--ter-case-sensitive", "--wer-ref-length"))


def add_metric_options(p: argparse.ArgumentParser, default_metrics=("bleu",), accepted=None) -> None:
    """``-m`` and every metric option (the common sacreBLEU ones shown in help, the others accepted
    and listed by ``mtscore metrics``). ``accepted``: the metrics this command takes (help only)."""
    names = list(accepted) if accepted is not None else metric_names() if P.FULL_HELP else None
    available = f"available: {', '.join(names)}; " if names is not None else ""
    p.add_argument("-m", "--metrics", nargs="+", action=ExtendOnce, default=list(default_metrics), metavar="METRIC",
                   help=f"metrics, NAME or NAME:KEY=VALUE[,KEY=VALUE] (default: {' '.join(default_metrics)}); "
                        f"{available}parameters: mtscore metrics")
    g = p.add_argument_group("metric parameters", f"Each applies only to the metrics that have it; {MORE}.")
    for opt in _options_for_parser(default_metrics):
        par = opt.param
        shown = (opt.common or opt.flags[0] in IN_HELP) and \
            (accepted is None or any(opt.metrics is None or m in opt.metrics for m in accepted))
        if par.kind == "bool":
            kw = dict(action="store_const", const=opt.flag_value, default=None)
        else:
            metavar = P.choices_metavar(par) if par.choices is not None else \
                {"int": "N", "float": "X"}.get(par.kind, par.name.upper())
            kw = dict(type=P.cli_type(par, opt.flag), default=None, metavar=metavar)
        applies = ", ".join(opt.metrics) if opt.metrics else "every metric with it"
        help_ = (P.option_help(par, par.help) + f" [{applies}]") if shown else argparse.SUPPRESS
        g.add_argument(*opt.flags, dest=opt.dest, help=help_, **kw)
        for old in opt.deprecated_flags:
            g.add_argument(old, dest=opt.dest, action=_DeprecatedFlag, new_flag=opt.flag,
                           type=kw.get("type"), help=argparse.SUPPRESS)
    g.add_argument("--spm-model", metavar="FILE", default=None,
                   help="SentencePiece model of --tokenize spm/flores101/flores200/spBLEU-1K (default: where sacreBLEU "
                        "caches it, $SACREBLEU/models or ~/.sacrebleu/models; never downloaded)")
    g.add_argument("-l", "--langpair", metavar="SRC-TGT", default=None,
                   help="language pair: the default tokenizer is sacreBLEU's for the target language "
                        "(zh: zh, ja: ja-mecab, ko: ko-mecab, else 13a); with --testset it picks the test set's pair")
    g.add_argument("--no-cache", action="store_true", default=False,
                   help="neural metrics (comet, cometkiwi, xcomet, metricx): neither read nor write the score cache "
                        "(same as cache=false on each; MTSCORE_NO_CACHE=1 for every run)")
    g.add_argument("--force", action="store_true", default=False,
                   help="no warning when the output looks tokenized (100+ lines ending in ' .'), as sacreBLEU's --force")
    g.add_argument("--scores", nargs="+", action="append", metavar="ARG", default=None,
                   help="stored segment scores as a metric: --scores NAME FILE|PATTERN [key=value ...], e.g. "
                        "--scores COMET 'comet.{system}.txt' (same as -m scores:NAME=FILE; docs/external-scores.md)")


def add_format_option(p: argparse.ArgumentParser, width: int = 2, formats=None) -> None:
    from .. import report  # noqa: F401  (the report stage provides the output formats to the parameter layer)
    P.add_option(p, "format", choices=formats)
    P.add_option(p, "width", default=width)


def option_dest(field: str) -> str:  # kept for callers that look an option up by Config field
    for opts in (_ACTIVE, all_metric_options):  # the parser's, else every metric's (imports them)
        for opt in (opts if isinstance(opts, list) else opts()):
            if opt.field == field:
                return opt.dest
    raise KeyError(field)


def _applies(opt, name: str, fields) -> bool:
    """Option ``opt`` reaches metric ``name`` (Config fields ``fields``): a shared option every metric with the
    field, another one the metrics whose Config declares it (whether or not this parser loaded them)."""
    if opt.field not in fields:
        return False
    if opt.metrics is None or name in opt.metrics:
        return True
    p = P.config_params(get_metric_class(name).Config).get(opt.field)
    return p is not None and opt.flag in p.flags and (p.option_for is None or name in p.option_for)


def metric_params(args: argparse.Namespace, name: str) -> dict:
    """Values of the metric options given on the command line that belong to metric ``name``."""
    cls = get_metric_class(name)
    fields = {f.name for f in dataclasses.fields(cls.Config)}
    out = {}
    for opt in _ACTIVE:
        val = getattr(args, opt.dest, None)
        if val is not None and _applies(opt, name, fields):
            out[opt.field] = val
    if getattr(args, "no_cache", False) and "cache" in fields:
        out["cache"] = False
    if "tokenize" in fields:
        tok = resolve_tokenize(args)
        if tok is not None:
            out["tokenize"] = tok
    return out


def check_metric_options_used(args: argparse.Namespace, names) -> None:
    """A metric option given for none of the selected metrics is an error, not silently ignored."""
    for opt in _ACTIVE:
        if getattr(args, opt.dest, None) is None:
            continue
        if not any(_applies(opt, n, {f.name for f in dataclasses.fields(get_metric_class(n).Config)})
                   for n in names):
            every = next(o for o in all_metric_options() if o.flag == opt.flag)  # all metrics that have it
            who = ", ".join(every.metrics) if every.metrics else f"metrics with a {opt.field!r} parameter"
            raise InvalidParameterError(
                f"{opt.flag}: applies to {who}, and none of the selected metrics ({', '.join(names)}) has it")
    if getattr(args, "no_cache", False) and \
            not any("cache" in {f.name for f in dataclasses.fields(get_metric_class(n).Config)} for n in names):
        raise InvalidParameterError(f"--no-cache: applies to the neural metrics (comet, cometkiwi, xcomet, metricx) and the LLM judges "
                                    f"(gemba-esa, gemba-mqm, gemba-da), "
                                    f"and none of the selected metrics ({', '.join(names)}) has a score cache")


_LANGPAIR = re.compile(r"[A-Za-z][A-Za-z0-9_]*-[A-Za-z][A-Za-z0-9_]*")


def check_langpair(value: str | None) -> str | None:
    """``-l/--langpair``: ``SRC-TGT`` (language codes such as ``en-ja``); returns it unchanged."""
    if value is not None and not _LANGPAIR.fullmatch(value):
        raise InvalidParameterError(f"-l/--langpair: must be SRC-TGT with two language codes (e.g. en-ja), got {value!r}")
    return value


def resolve_tokenize(args: argparse.Namespace) -> str | None:
    """The tokenizer spec the options ask for, or ``None`` (each metric's default): ``--tokenize``, else the
    target language's (``-l``), combined with ``--spm-model`` into ``NAME:PATH``."""
    tok = getattr(args, option_dest("tokenize"), None)
    lp = check_langpair(getattr(args, "langpair", None))
    if tok is None and lp:
        tok = tokenizer_for_language(lp.split("-", 1)[1])
    model = getattr(args, "spm_model", None)
    if model is not None:
        if tok not in SPM_MODELS:
            raise InvalidParameterError(f"--spm-model: only with --tokenize {', '.join(SPM_MODELS)}; "
                                        f"got --tokenize {tok or '13a (the default)'}")
        if not os.path.isfile(model):
            raise InputError("--spm-model: no such file", model)
        tok = f"{tok}:{os.path.abspath(model)}"
    return tok




def make_metric(spec: str, args: argparse.Namespace | None = None):
    """One metric from a ``-m`` spec; command-line metric options apply, inline parameters win.
    Inline parameters label the column (``chrF3[beta=3]``); the signature depends on the Config only."""
    name, raw = split_metric_spec(spec)
    cls = get_metric_class(name)
    inline = P.parse_inline(cls.Config, name, raw, free=getattr(cls, "names_itself", False))
    given = metric_params(args, name) if args is not None else {}
    metric = cls(**{**given, **inline})
    if args is not None and callable(getattr(metric, "check_languages", None)):  # neural: -l outside the model
        metric.check_languages(check_langpair(getattr(args, "langpair", None)))
    if raw and not getattr(metric, "names_itself", False):
        metric.relabel(f"{metric.display_name}[{','.join(f'{k}={v}' for k, v in raw.items())}]")
    return metric


def build_metrics(args: argparse.Namespace, extra=()):
    """Metric objects for ``-m`` (duplicates dropped). ``extra``: other metric specs of the command
    (e.g. n-best oracles) that metric options may apply to."""
    out, seen, names = [], set(), []
    for spec in args.metrics:
        name, raw = split_metric_spec(spec)
        get_metric_class(name)
        names.append(name)
        key = (name, tuple(sorted(raw.items())))
        if key in seen:
            continue
        seen.add(key)
        out.append(make_metric(spec, args))
    for spec in getattr(args, "scores", None) or []:
        if len(spec) < 2:
            raise InvalidParameterError(f"--scores: needs NAME and FILE (or a {{system}} pattern), got {' '.join(spec)!r}")
        more = dict(parse_metric_spec("scores:" + ",".join(spec[2:]))[1]) if spec[2:] else {}
        out.append(get_metric_class("scores")(**{**metric_params(args, "scores"), **more,
                                                 "name": spec[0], "file": spec[1]}))
        names.append("scores")
    names += [split_metric_spec(s)[0] for s in extra if s]
    check_metric_options_used(args, names)
    labels = [m.display_name for m in out]  # every table, JSON row and plot is keyed by the label
    for i, label in enumerate(labels):
        if label in labels[:i]:
            raise InvalidParameterError(f"metrics: two metrics share the label {label!r} "
                                        f"({out[labels.index(label)].name}, {out[i].name}): tables and JSON rows are "
                                        "keyed by it; give one of them other parameters or drop it")
    return out


def check_file_inputs(args: argparse.Namespace, systems: bool, alternatives: str) -> None:
    """-r (and -i) given, and standard input used for one file at most."""
    if not args.refs:
        raise InvalidParameterError(f"-r/--refs: at least one reference file is required (or {alternatives})")
    if systems and not args.input:
        raise InvalidParameterError(f"-i/--input: at least one hypothesis file is required (or {alternatives})")
    if sum(p == "-" for p in list(args.refs) + list(args.input or [])) > 1:
        raise InvalidParameterError("standard input ('-') can be used for one file only")


def load_inputs(args: argparse.Namespace, systems: bool = True):
    """Return (systems {name: hyps}, refs sentence-major) with every length checked."""
    if getattr(args, "tsv", None):
        if args.refs or (systems and args.input):
            raise InvalidParameterError("--tsv: give either --tsv or -r/-i, not both")
        rows = read_tsv(args.tsv, strip_bom=args.strip_bom)
        return {args.tsv: [r[0] for r in rows]}, [r[1:] for r in rows]
    check_file_inputs(args, systems, "--tsv")
    strip = bool(getattr(args, "strip_bom", False))
    refs = read_ref_streams(args.refs, strip)
    syss = read_systems(args.input, strip) if systems else {}
    for name, hyps in syss.items():
        if len(hyps) != len(refs):
            raise InputError(f"files differ in line count: {count_detail([(name, len(hyps)), (args.refs[0], len(refs))])}")
    return syss, refs


class CompactHelp(argparse.HelpFormatter):
    """``--help`` that fits a screen: every option the command accepts on one line (its help up to the first
    ';' outside parentheses, cut to the line), the metric parameters and meta's modes as lists of option names;
    ``--help-all`` prints the full help (argparse's own layout), ``mtscore metrics NAME`` every parameter of a
    metric."""

    # groups shown as a list of option names: the metric parameters (each described with its metrics) and
    # the options of meta's own modes (--task-set, --spans) and its subsets of systems and segments
    NAMES_ONLY = ("metric parameters", "WMT rankings", "error spans", "subsets")

    def __init__(self, prog):
        import shutil
        width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 100))
        super().__init__(prog, max_help_position=32, width=width)
        self._heading = None

    def start_section(self, heading):
        self._heading = heading
        super().start_section(heading)

    def add_arguments(self, actions):
        if self._heading and self._heading.startswith(self.NAMES_ONLY):  # names only: --help-all describes them
            names = ["/".join(a.option_strings) for a in actions if a.help is not argparse.SUPPRESS and a.option_strings]
            if names:
                self.add_text(", ".join(names))
            return
        super().add_arguments(actions)

    def _format_action_invocation(self, action):
        if not action.option_strings:
            return super()._format_action_invocation(action)
        flags = ", ".join(action.option_strings)
        if action.nargs == 0:
            return flags
        meta = self._metavar_formatter(action, action.dest.upper())(1)[0]
        if self._long_choices(action, meta):  # the choices follow in the help text
            meta = action.dest.upper().replace("_", "-")
        return f"{flags} {meta}"

    @staticmethod
    def _long_choices(action, meta: str) -> bool:
        return action.choices is not None and action.metavar is None and len(meta) > 24

    def _expand_help(self, action):
        text = " ".join(super()._expand_help(action).split())
        depth = 0  # the first clause (up to a '; ' outside parentheses) says what the option is; --help-all the rest
        for i, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == ";" and depth == 0:
                text = text[:i]
                break
        if self._long_choices(action, self._metavar_formatter(action, action.dest.upper())(1)[0]):
            text += ": " + ", ".join(map(str, action.choices))
        return text

    def _split_lines(self, text, width):
        if len(text) <= width:
            return [text]
        cut = text[:width - 4].rsplit(" ", 1)[0]
        if cut.count("(") > cut.count(")") and cut.rfind(" (") > 0:  # no parenthesis cut in the middle
            cut = cut[:cut.rfind(" (")]
        return [cut.rstrip(" ,:") + " ..."]

    def _fill_text(self, text, width, indent):
        import textwrap
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False, break_long_words=False)


class _HelpAll(argparse.Action):
    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.formatter_class = argparse.HelpFormatter
        parser.print_help()
        parser.exit()


def compact_help(parser: argparse.ArgumentParser) -> None:
    """``--help`` one line per option (:class:`CompactHelp`) and ``--help-all`` the full text, on ``parser`` and
    its nested commands."""
    parser.formatter_class = CompactHelp
    if not any("--help-all" in a.option_strings for a in parser._actions):
        parser.add_argument("--help-all", action=_HelpAll, help="the full help: every option with its choices")
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sp in a.choices.values():
                if sp is not parser and sp._actions:
                    compact_help(sp)


def compact_usage(parser: argparse.ArgumentParser) -> None:
    """A usage line that fits: the positionals, the inputs (-r/-i where the command has them) and ``[options]``
    (argparse's own lists every option with its choices: 15 lines for score); nested commands likewise."""
    pos, has = [], set()
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            pos.append("{" + ",".join(a.choices) + "}")
            for sp in a.choices.values():
                if sp is not parser and getattr(sp, "usage", None) is None and sp._actions:
                    compact_usage(sp)
        elif not a.option_strings and a.dest != argparse.SUPPRESS:
            name = a.metavar or a.dest
            pos.append({"?": f"[{name}]", "*": f"[{name} ...]", "+": f"{name} [{name} ...]"}.get(a.nargs, name))
        else:
            has.update(a.option_strings)
    inputs = (["-r REF [REF ...]"] if "-r" in has else []) + (["-i HYP [HYP ...]"] if "-i" in has else [])
    parser.usage = " ".join(["%(prog)s"] + pos + inputs + ["[options]"])


# ---------------------------------------------------------------------------------------------------
# one vocabulary: every option means one thing and has one name in every command
# ---------------------------------------------------------------------------------------------------
# The concept of an option is declared once: a command option of the parameter layer carries its entry's
# ``concept`` (or name), set by :func:`mtscore.params.add_option`; a metric option is its Config field; any other
# option is its ``dest``, renamed here where two commands store one concept under two names. A former spelling
# (:class:`mtscore.params.DeprecatedOption`) still works for a release, with a note; docs/parameters.md lists them.
DEST_CONCEPT = {
    "html": "output",  # meta, audit: -o/--output FILE (the HTML page); report: the HTML report; rose train: the model
    "lang": "lcm_lang",  # mtscore lcm --lcm-lang
    "metric": "metrics",  # mtscore lattice -m (one metric)
    "test": "significance_test",  # compare --test
}


def concept_of(action: argparse.Action) -> str | None:
    """What option ``action`` means (None for a positional argument or a deprecated spelling)."""
    if not action.option_strings or isinstance(action, (P.DeprecatedOption, _DeprecatedFlag)):
        return None
    concept = getattr(action, "concept", None)
    if concept:
        return concept
    dest = action.dest[len("mopt_"):] if action.dest.startswith("mopt_") else action.dest
    return DEST_CONCEPT.get(dest, dest)
