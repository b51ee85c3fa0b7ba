"""Options shared by the commands that score (score, compare, meta ...).

Each metric option maps to a ``Config`` field; a metric receives only the options its Config has
and that the user gave explicitly, so adding a metric needs no change here unless it brings a new
option (then add one line to ``METRIC_OPTIONS``).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re

from ..io import read_ref_streams, read_systems, read_tsv
from ..io.text import count_detail
from ..errors import InputError, InvalidParameterError
from ..metrics.registry import parse_metric_spec, parse_value as _parse_value  # noqa: F401 (re-exported)
from ..metrics.registry import get_metric_class, metric_names
from ..report import FORMATS
from ..tokenize import TOKENIZERS, tokenizer_for_language
from ..tokenize.external import SPM_MODELS

# (flags, config field, argparse kwargs)
METRIC_OPTIONS = [
    (("--tokenize", "--tok"), "tokenize", dict(choices=TOKENIZERS, help="tokenizer (default 13a)")),
    (("--lowercase", "--lc"), "lowercase", dict(action="store_true", default=None, help="lowercase before scoring")),
    (("--ref-length",), "ref_length", dict(choices=("closest", "shortest", "average"),
                                          help="effective reference length (BLEU default closest, BLEU-SBP shortest)")),
    (("--smooth",), "smooth", dict(choices=("none", "floor", "add-k", "exp") + tuple(f"method{i}" for i in range(8)),
                                  help="BLEU smoothing (default exp; compat nltk: NLTK's method0..method7, "
                                       "default method0)")),
    (("--smooth-value",), "smooth_value", dict(type=float, help="value for floor / add-k smoothing")),
    (("--max-order",), "max_order", dict(type=int, help="BLEU maximum n-gram order (default 4)")),
    (("--effective-order",), "effective_order", dict(action="store_true", default=None,
                                                     help="drop orders without candidate n-grams (sentence BLEU always does)")),
    (("--compat",), "compat", dict(choices=("sacrebleu", "mteval-v13a", "mteval-v11b", "nltk"),
                                  help="BLEU compatibility mode (default sacrebleu)")),
    (("--gtm-exponent",), "exponent", dict(type=float, help="GTM run-length exponent e >= 1 (default 1; WMT07 used 1.2)")),
    (("--gtm-measure",), "measure", dict(choices=("f", "precision", "recall"), help="GTM score reported (default f)")),
    (("--gtm-aggregate",), "aggregate", dict(choices=("grid", "segments"),
                                             help="GTM corpus MMS for e > 1: sum of segment MMS (default) or one grid")),
    (("--lcm-lang",), "lang", dict(help="LCM function-word lists: en, de, zh or none (default en)")),
    (("--checkpoints",), "checkpoints", dict(metavar="FILE", help="LCM user check-point file (see docs/lcm.md)")),
    (("--tbleu-epsilon",), "epsilon", dict(type=float, metavar="EPS",
                                           help="tBLEU affix-distance threshold for corrections, 0..1 (default 0.05)")),
    (("--tbleu-multi-ref",), "multi_ref", dict(choices=("position", "sentence"),
                                               help="tBLEU with several references: best reference per n-gram "
                                                    "position (default) or per sentence and order")),
    (("--empty-ref",), "empty_ref", dict(choices=("mtscore", "jiwer"),
                                         help="mer/wil/wip/cer/wer-jiwer with an empty reference: mtscore's rule "
                                              "(default) or jiwer's (WER = insertions count ...)")),
    (("--cer-no-spaces",), "cer_spaces", dict(action="store_false", default=None,
                                              help="cer: drop whitespace instead of counting spaces (jiwer counts them)")),
    (("--wer-ref-len",), "ref_len", dict(choices=("average", "best"),
                                        help="WER/PER normaliser with several references: average reference length "
                                             "(default) or the length of the best reference")),
    (("--grr-k",), "k", dict(type=int, help="K of k-grr (default 4)")),
    (("--grr-alpha",), "alpha", dict(type=float, help="K-GRR insertion penalty (default 1)")),
    (("--grr-beta",), "beta", dict(type=float, help="K-GRR deletion penalty (default 0)")),
    (("--grr-multi-ref",), "multi_ref_agg", dict(choices=("weighted_mean", "best_ref_micro"),
                                                help="K-GRR with several references (default weighted_mean)")),
    (("--rose-model",), "rose_model", dict(metavar="MODEL", help="ROSE model: reg, rank, regpos, rankpos or a JSON file")),
    (("--function-words",), "function_words", dict(metavar="LANG|FILE",
                                                   help="ROSE function-word list (en, de, zh, cs, he, sk or a file)")),
    (("--pos-tagger",), "pos_tagger", dict(choices=("textblob", "pretagged"),
                                           help="ROSE POS variants: TextBlob tagger or word/TAG input")),
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
    # stored scores (metrics/scores.py)
    (("--missing",), "missing", dict(choices=("error", "skip"),
                                    help="stored scores (scores:NAME=FILE): None/nan/inf is an error (default) or "
                                         "skip: left out of the mean (the effect is printed on stderr)")),
]


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


def add_metric_options(p: argparse.ArgumentParser, default_metrics=("bleu",)) -> None:
    p.add_argument("-m", "--metrics", nargs="+", default=list(default_metrics), metavar="METRIC",
                   help=f"metrics (default: {' '.join(default_metrics)}); available: {', '.join(metric_names())}")
    g = p.add_argument_group("metric parameters (applied to every metric that has them)")
    for flags, field, kw in METRIC_OPTIONS:
        kw = dict(kw)
        kw.setdefault("default", None)
        g.add_argument(*flags, dest=option_dest(field), **kw)
    g.add_argument("--spm-model", metavar="FILE", default=None,
                   help="SentencePiece model of --tokenize spm/flores101/flores200/spBLEU-1K (default: where sacreBLEU "
                        "caches it, $SACREBLEU/models or ~/.sacrebleu/models; never downloaded)")
    g.add_argument("-l", "--langpair", metavar="SRC-TGT", default=None,
                   help="language pair: the default tokenizer is sacreBLEU's for the target language "
                        "(zh: zh, ja: ja-mecab, ko: ko-mecab, else 13a); with -t it picks the test set's pair")
    g.add_argument("--force", action="store_true", default=False,
                   help="no warning when the output looks tokenized (100+ lines ending in ' .'), as sacreBLEU's --force")
    g.add_argument("--scores", nargs="+", action="append", metavar="ARG", default=None,
                   help="stored segment scores as a metric: --scores NAME FILE|PATTERN [key=value ...], e.g. "
                        "--scores COMET 'comet.{system}.txt' (same as -m scores:NAME=FILE; docs/external-scores.md)")


def add_format_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-f", "--format", choices=FORMATS, default="text", help="output format (default text)")
    p.add_argument("-w", "--width", type=int, default=2, help="digits after the decimal point in text output")


def option_dest(field: str) -> str:
    """argparse destination of a metric option (prefixed, so it never clashes with a command's own options)."""
    return f"metric_{field}"


def metric_params(args: argparse.Namespace, name: str) -> dict:
    cls = get_metric_class(name)
    fields = {f.name for f in dataclasses.fields(cls.Config)}
    params = {}
    for _, field, _ in METRIC_OPTIONS:
        val = getattr(args, option_dest(field), None)
        if val is not None and field in fields:
            params[field] = val
    if "tokenize" in fields:
        tok = resolve_tokenize(args)
        if tok is not None:
            params["tokenize"] = tok
    return params


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


def build_metrics(args: argparse.Namespace):
    """Metric objects for ``-m``: names, optionally with inline parameters (which win over the shared
    options, and label the metric's column, e.g. ``BLEU[ref_length=shortest]``)."""
    out, seen = [], set()
    for spec in args.metrics:
        name, inline = parse_metric_spec(spec)
        get_metric_class(name)  # unknown names -> error listing valid names
        key = (name, tuple(sorted(inline.items(), key=lambda kv: kv[0])))
        if key in seen:
            continue
        seen.add(key)
        metric = get_metric_class(name)(**{**metric_params(args, name), **inline})
        if inline and not getattr(metric, "names_itself", False):
            metric.display_name = f"{metric.display_name}[{','.join(f'{k}={v}' for k, v in inline.items())}]"
        out.append(metric)
    for spec in getattr(args, "scores", None) or []:
        if len(spec) < 2:
            raise InvalidParameterError(f"--scores: needs NAME and FILE (or a {{system}} pattern), got {' '.join(spec)!r}")
        extra = dict(parse_metric_spec("x:" + ",".join(spec[2:]))[1]) if spec[2:] else {}
        out.append(get_metric_class("scores")(**{**metric_params(args, "scores"), **extra,
                                                 "name": spec[0], "file": spec[1]}))
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
