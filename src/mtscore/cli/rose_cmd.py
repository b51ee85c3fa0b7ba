"""``mtscore rose``: train ROSE models (``rose train``) and show a model (``rose info``)."""
from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from ..params import add_option
from ..report import render_table
from ..report.rose import model_table
from ..tokenize import TOKENIZERS
from .main import write_stdout


def add_parser(sub) -> None:
    p = sub.add_parser("rose", help="train or inspect ROSE models",
                       description="ROSE (Song & Cohn 2011): train a model on human judgments, or inspect one.")
    rs = p.add_subparsers(dest="rose_command", metavar="ACTION")
    rs.required = True
    t = rs.add_parser("train", help="train a ROSE model on an mt-metrics-eval directory (needs mtscore[train])")
    t.add_argument("--data", required=True, metavar="DIR", help="mt-metrics-eval layout directory, e.g. ../shared/data/wmt23")
    t.add_argument("--lp", nargs="+", required=True, metavar="LP", help="language pairs to train on, e.g. he-en zh-en")
    t.add_argument("--human", default="mqm", help="human score kind (human-scores/<lp>.<kind>.seg.score; default mqm)")
    t.add_argument("--ref", default=None, help="reference name (default: the standard reference of each pair)")
    t.add_argument("--objective", choices=("regression", "ranking"), default="regression")
    t.add_argument("--kernel", choices=("linear", "poly", "rbf"), default="linear")
    t.add_argument("--features", choices=("core", "pos"), default="core",
                   help="core = features 1-17; pos = 1-33 (needs a POS tagger: mtscore[pos])")
    t.add_argument("--function-words", default="en", metavar="LANG|FILE", help="function-word list (default en)")
    t.add_argument("--tokenize", "--tok", choices=TOKENIZERS, default="13a", help="tokenizer (default 13a)")
    t.add_argument("--lowercase", "--lc", action="store_true", help="lowercase before computing features")
    add_option(t, "seed")
    add_option(t, "C", dest="C")
    add_option(t, "svr_epsilon", dest="epsilon")
    add_option(t, "degree")
    add_option(t, "gamma")
    add_option(t, "max_examples")
    add_option(t, "train_max_pairs", dest="max_pairs")
    t.add_argument("--name", default=None, help="model name (default ROSE-reg, ROSE-rank, ...)")
    t.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the model JSON")
    add_option(t, "threads")
    t.set_defaults(func=run_train)
    i = rs.add_parser("info", help="show a ROSE model (built-in name or JSON file)")
    i.add_argument("model", help="reg, rank, regpos, rankpos, or a model JSON file")
    add_option(i, "format")
    i.set_defaults(func=run_info)


def _command(args: argparse.Namespace) -> str:
    parts = ["mtscore", "rose", "train", "--data", args.data, "--lp", *args.lp, "--human", args.human,
             "--objective", args.objective, "--kernel", args.kernel, "--features", args.features,
             "--function-words", args.function_words, "--tokenize", args.tokenize, "--seed", str(args.seed)]
    if args.ref:
        parts += ["--ref", args.ref]
    if args.lowercase:
        parts.append("--lowercase")
    for flag, val, default in (("-C", args.C, None), ("--epsilon", args.epsilon, 0.1), ("--degree", args.degree, 3),
                               ("--gamma", args.gamma, None), ("--max-examples", args.max_examples, 5000),
                               ("--max-pairs", args.max_pairs, 3000), ("--name", args.name, None)):
        if val != default:
            parts += [flag, str(val)]
    parts += ["-o", args.output]
    return " ".join(shlex.quote(p) for p in parts)


def run_train(args: argparse.Namespace) -> int:
    from ..metrics.rose import load_function_words
    from ..rose.train import collect_mtme, train
    from ..io.output import check_writable

    check_writable(args.output)  # before the training, not after it

    fw = load_function_words(args.function_words)
    data = collect_mtme(args.data, args.lp, args.human, pos="textblob" if args.features == "pos" else None,
                        ref=args.ref, tokenize=args.tokenize, lowercase=args.lowercase, function_words=fw,
                        function_words_name=Path(args.function_words).stem)
    model = train(data, args.objective, args.kernel, seed=args.seed, C=args.C, epsilon=args.epsilon,
                  degree=args.degree, gamma=args.gamma, max_examples=args.max_examples, max_pairs=args.max_pairs,
                  name=args.name, command=_command(args))
    model.save(args.output)
    write_stdout(render_table(model_table(model), "text") + f"\nwrote {args.output}")
    return 0


def run_info(args: argparse.Namespace) -> int:
    from ..rose.model import load_model

    write_stdout(render_table(model_table(load_model(args.model)), args.format))
    return 0
