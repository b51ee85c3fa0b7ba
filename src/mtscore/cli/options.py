"""Options shared by the commands that score (score, compare, meta ...).

Each metric option maps to a ``Config`` field; a metric receives only the options its Config has
and that the user gave explicitly, so adding a metric needs no change here unless it brings a new
option (then add one line to ``METRIC_OPTIONS``).
"""
from __future__ import annotations

import argparse
import dataclasses

from ..io import read_lines, read_ref_streams, read_systems, read_tsv
from ..errors import InputError, InvalidParameterError
from ..metrics.registry import get_metric_class, metric_names
from ..report import FORMATS
from ..tokenize import TOKENIZERS

# (flags, config field, argparse kwargs)
METRIC_OPTIONS = [
    (("--tokenize", "--tok"), "tokenize", dict(choices=TOKENIZERS, help="tokenizer (default 13a)")),
    (("--lowercase", "--lc"), "lowercase", dict(action="store_true", default=None, help="lowercase before scoring")),
    (("--ref-length",), "ref_length", dict(choices=("closest", "shortest", "average"),
                                          help="effective reference length (BLEU default closest, BLEU-SBP shortest)")),
    (("--smooth",), "smooth", dict(choices=("none", "floor", "add-k", "exp"), help="BLEU smoothing (default exp)")),
    (("--smooth-value",), "smooth_value", dict(type=float, help="value for floor / add-k smoothing")),
    (("--max-order",), "max_order", dict(type=int, help="BLEU maximum n-gram order (default 4)")),
    (("--effective-order",), "effective_order", dict(action="store_true", default=None,
                                                     help="drop orders without candidate n-grams (sentence BLEU always does)")),
    (("--compat",), "compat", dict(choices=("sacrebleu", "mteval-v13a", "mteval-v11b"),
                                  help="BLEU compatibility mode (default sacrebleu)")),
    # chrF / chrF++ (sacreBLEU's options; --lowercase applies too)
    (("--chrf-char-order",), "char_order", dict(type=int, metavar="N", help="chrF character n-gram order (default 6)")),
    (("--chrf-word-order",), "word_order", dict(type=int, metavar="N",
                                               help="chrF word n-gram order (default 0 for chrf, 2 for chrf++)")),
    (("--chrf-beta",), "beta", dict(type=float, metavar="BETA", help="chrF recall weight beta (default 2)")),
    (("--chrf-whitespace",), "whitespace", dict(action="store_true", default=None,
                                                help="chrF: keep whitespace in character n-grams")),
    (("--chrf-eps-smoothing",), "eps_smoothing", dict(action="store_true", default=None,
                                                      help="chrF: average per-order F with 1e-16 for undefined "
                                                           "values (chrF++.py/NLTK/Moses) instead of effective order")),
    # TER (sacreBLEU's tercom tokenizer options; TER is case-insensitive unless --ter-case-sensitive)
    (("--ter-normalized",), "normalized", dict(action="store_true", default=None,
                                              help="TER: normalize punctuation and XML entities (tercom -N)")),
    (("--ter-no-punct",), "no_punct", dict(action="store_true", default=None, help="TER: remove punctuation")),
    (("--ter-asian-support",), "asian_support", dict(action="store_true", default=None,
                                                    help="TER: CJK handling with --ter-normalized / --ter-no-punct")),
    (("--ter-case-sensitive",), "case_sensitive", dict(action="store_true", default=None,
                                                      help="TER: do not lowercase")),
]


def add_input_options(p: argparse.ArgumentParser, systems: bool = True) -> None:
    p.add_argument("-r", "--refs", nargs="+", metavar="REF", help="reference files, one per reference stream")
    if systems:
        p.add_argument("-i", "--input", nargs="+", metavar="HYP", help="hypothesis files, one per system")
    p.add_argument("--tsv", metavar="FILE", help="one TSV file instead: HYP<TAB>REF1[<TAB>REF2...] per line")


def add_metric_options(p: argparse.ArgumentParser, default_metrics=("bleu",)) -> None:
    p.add_argument("-m", "--metrics", nargs="+", default=list(default_metrics), metavar="METRIC",
                   help=f"metrics (default: {' '.join(default_metrics)}); available: {', '.join(metric_names())}")
    g = p.add_argument_group("metric parameters (applied to every metric that has them)")
    for flags, dest, kw in METRIC_OPTIONS:
        kw = dict(kw)
        kw.setdefault("default", None)
        g.add_argument(*flags, dest=dest, **kw)


def add_format_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-f", "--format", choices=FORMATS, default="text", help="output format (default text)")
    p.add_argument("-w", "--width", type=int, default=2, help="digits after the decimal point in text output")


def metric_params(args: argparse.Namespace, name: str) -> dict:
    cls = get_metric_class(name)
    fields = {f.name for f in dataclasses.fields(cls.Config)}
    params = {}
    for _, dest, _ in METRIC_OPTIONS:
        val = getattr(args, dest, None)
        if val is not None and dest in fields:
            params[dest] = val
    return params


def build_metrics(args: argparse.Namespace):
    names = []
    for m in args.metrics:
        get_metric_class(m)  # unknown names -> error listing valid names
        if m.lower() not in names:
            names.append(m.lower())
    return [get_metric_class(n)(**metric_params(args, n)) for n in names]


def load_inputs(args: argparse.Namespace, systems: bool = True):
    """Return (systems {name: hyps}, refs sentence-major) with every length checked."""
    if getattr(args, "tsv", None):
        if args.refs or (systems and args.input):
            raise InvalidParameterError("--tsv: give either --tsv or -r/-i, not both")
        rows = read_tsv(args.tsv)
        return {args.tsv: [r[0] for r in rows]}, [r[1:] for r in rows]
    if not args.refs:
        raise InvalidParameterError("-r/--refs: at least one reference file is required (or --tsv)")
    if systems and not args.input:
        raise InvalidParameterError("-i/--input: at least one hypothesis file is required (or --tsv)")
    if sum(p == "-" for p in list(args.refs) + list(args.input or [])) > 1:
        raise InvalidParameterError("standard input ('-') can be used for one file only")
    refs = read_ref_streams(args.refs)
    syss = read_systems(args.input) if systems else {}
    for name, hyps in syss.items():
        if len(hyps) != len(refs):
            raise InputError(
                f"{name} has {len(hyps)} lines but the reference file {args.refs[0]} has {len(refs)}; "
                "every system needs one line per reference line")
    return syss, refs
