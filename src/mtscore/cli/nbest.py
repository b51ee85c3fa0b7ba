"""``mtscore nbest``: 1-best, oracle, MBR and reranked selections from an n-best list, scored by metrics.

Examples::

    mtscore nbest nbest.txt -r ref.0 ref.1 --tokenize none -m bleu bleu-sbp 4-grr --oracle bleu 4-grr --mbr bleu
    mtscore nbest nbest.txt -r ref.0 --tokenize none --weights lm_0=1,WordPenalty=-2
    mtscore nbest nbest.txt -r ref.0 --tokenize none --tune bleu --tune-fraction 0.5 --seed 0
"""
from __future__ import annotations

import argparse
import re

from ..errors import InputError, plural
from ..io import read_ref_streams
from ..io.output import OutputSet, check_folder
from .options import add_bom_option
from ..metrics.registry import get_metric_class
from ..report import render_table
from ..search.nbest import NBEST_FORMATS, read_nbest
from ..search.rerank import parse_weights, weights_vector
from ..report.search import nbest_table
from ..search.run import NBestRun
from .main import write_stdout
from ..params import add_option
from .options import add_format_option, add_metric_options, build_metrics, make_metric


def add_parser(sub) -> None:
    p = sub.add_parser("nbest", help="oracle / MBR / reranking selections from an n-best list",
                       description="Select one candidate per segment from an n-best list (1-best, oracle, MBR, "
                                   "linear reranking, tuned reranking) and score each selection. See docs/search.md.")
    p.add_argument("nbest", help="n-best list: Moses/Joshua 'i ||| hyp ||| features ||| score' or JSONL")
    p.add_argument("--nbest-format", choices=NBEST_FORMATS + ("auto",), default="auto",
                   help="input format (default: auto, .jsonl/.json -> jsonl, else moses)")
    p.add_argument("-r", "--refs", nargs="+", required=True, metavar="REF", help="reference files, one per stream")
    add_bom_option(p)
    add_metric_options(p)
    g = p.add_argument_group("selections (the 1-best is always shown)")
    g.add_argument("--oracle", nargs="+", default=[], metavar="METRIC",
                   help="oracle selections: exact per-segment oracle; plus a corpus-level coordinate-ascent oracle "
                        "for metrics that are not decomposable (e.g. bleu)")
    g.add_argument("--corpus-oracle", action="store_true", help="also run the corpus-level oracle for decomposable metrics")
    g.add_argument("--mbr", nargs="+", default=[], metavar="METRIC", help="MBR selections with these sentence-level utilities")
    g.add_argument("--posterior", choices=("uniform", "model"), default="uniform",
                   help="MBR posterior: uniform, or softmax of the model scores / temperature (default uniform)")
    add_option(g, "temperature")
    g.add_argument("--weights", metavar="NAME=V,...", help="rerank with these feature weights (missing features: 0)")
    g.add_argument("--tune", metavar="METRIC", help="tune rerank weights on a random part of the segments for this "
                   "corpus metric (coordinate ascent, exact line search) and report tune/test parts")
    add_option(g, "tune_fraction")
    add_option(g, "seed", help="seed of the tune/test split and random directions")
    p.add_argument("--write-selections", metavar="DIR", help="write each selection's outputs to DIR/<selection>.txt")
    add_format_option(p)
    add_option(p, "threads")
    p.set_defaults(func=run)


def _metric(spec: str, args):
    return make_metric(spec, args)


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_") or "selection"


def write_selections(folder: str, selections, source: str) -> list[str]:
    """``FOLDER/<selection>.txt``, one line per segment, written as a set (all files or none).

    Rule for an existing FOLDER: it is kept; a file of the same name is replaced (atomically), other files
    are left alone. A selected candidate that contains a line break cannot be one line: that is an error
    naming the segment, and nothing is written."""
    names: dict[str, str] = {}
    for sel in selections:
        name = _slug(sel.method)
        k = 2
        while name in names.values():  # two methods with the same slug must not overwrite each other
            name = f"{_slug(sel.method)}-{k}"
            k += 1
        names[sel.method] = name
        for i, t in enumerate(sel.texts):
            if "\n" in t:
                raise InputError(f"--write-selections: the candidate selected by {sel.method} for segment {i + 1} "
                                 "contains a line break, so the selection cannot be written one line per segment",
                                 source)
    with OutputSet(folder) as out:
        for sel in selections:
            out.add(names[sel.method] + ".txt", "".join(t + "\n" for t in sel.texts))
        return out.commit()


def run(args: argparse.Namespace) -> int:
    if args.write_selections:
        check_folder(args.write_selections)  # before the work, not after it
    refs = read_ref_streams(args.refs, args.strip_bom)
    nbest = read_nbest(args.nbest, args.nbest_format, n_segments=len(refs)
                       if args.nbest_format != "jsonl" and not str(args.nbest).endswith((".jsonl", ".json")) else None)
    if nbest.n_segments != len(refs):
        raise InputError(f"{plural(nbest.n_segments, 'candidate list')} for {plural(len(refs), 'reference segment')}", args.nbest)
    metrics = build_metrics(args, extra=list(args.oracle) + list(args.mbr) + [args.tune or ""])
    job = NBestRun.create(nbest, refs, metrics)
    job.one_best()
    for spec in args.oracle:
        job.oracle(_metric(spec, args), corpus=True if args.corpus_oracle else None)
    for spec in args.mbr:
        job.mbr(_metric(spec, args), args.posterior, args.temperature)
    if args.weights:
        w = weights_vector(parse_weights(args.weights), nbest.feature_names)
        job.rerank(w, "rerank(given weights)")
    parts = None
    if args.tune:
        _, tune_ids, test_ids = job.tune(_metric(args.tune, args), args.tune_fraction, args.seed)
        parts = {"tune": tune_ids, "test": test_ids}
    table = nbest_table(job.summary(parts), digits=args.width)
    if args.write_selections:
        write_selections(args.write_selections, job.selections, args.nbest)
    write_stdout(render_table(table, args.format))
    return 0
