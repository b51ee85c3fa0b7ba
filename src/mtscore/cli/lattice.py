"""``mtscore lattice``: oracle paths of word lattices under K-GRR / WRR (product with the metric automaton + Viterbi).

Example::

    mtscore lattice lattices.plf -r ref.0 ref.1 -m 4-grr --lambda 0.1
"""
from __future__ import annotations

import argparse

from ..errors import InputError, plural
from ..io import read_ref_streams
from .options import add_bom_option
from ..report import render_table
from ..report.search import lattice_table
from ..search.lattice import LATTICE_FORMATS, PLF_SCORES, read_lattices
from ..search.lattice_oracle import METRICS, lattice_oracles
from ..tokenize import TOKENIZERS
from .main import write_stdout
from ..metrics.grr import KGRRConfig
from ..params import add_deprecated, add_option, cli_type, config_params, option_help
from .options import _DeprecatedFlag, add_format_option


def add_parser(sub) -> None:
    p = sub.add_parser("lattice", help="oracle paths of word lattices under K-GRR / WRR",
                       description="Best path of each lattice against its references under 4-GRR, K-GRR or WRR "
                                   "(optionally interpolated with the arc model scores). See docs/search.md.")
    p.add_argument("lattices", help="lattice file: Moses PLF (one per line) or OpenFst text (blank-line separated)")
    p.add_argument("--lattice-format", choices=LATTICE_FORMATS + ("auto",), default="auto",
                   help="default auto: a line starting with '(' -> plf, else openfst")
    p.add_argument("--plf-scores", choices=PLF_SCORES, default="log",
                   help="PLF arc scores are log scores (default) or probabilities (log taken)")
    p.add_argument("--numeric-eps", action="store_true", help="OpenFst: label 0 is epsilon (besides <eps>)")
    p.add_argument("-r", "--refs", nargs="+", required=True, metavar="REF", help="reference files, one per stream")
    add_bom_option(p)
    add_deprecated(p, "--metric", p.add_argument("-m", "--metrics", dest="metric", choices=METRICS, default="4-grr",
                                                 help="metric (default 4-grr)"))
    grr = config_params(KGRRConfig)
    p.add_argument("--grr-k", dest="grr_k", type=cli_type(grr["k"], "--grr-k"), default=4, metavar="N",
                   help=option_help(grr["k"]))
    for flag, old, field in (("--grr-insertion-penalty", "--grr-alpha", "insertion_penalty"),
                             ("--grr-deletion-penalty", "--grr-beta", "deletion_penalty")):
        dest = "grr_" + field
        p.add_argument(flag, dest=dest, type=cli_type(grr[field], flag), default=grr[field].default, metavar="X",
                       help=option_help(grr[field]))
        p.add_argument(old, dest=dest, type=cli_type(grr[field], old), action=_DeprecatedFlag, new_flag=flag,
                       help=argparse.SUPPRESS)
    add_option(p, "lam", dest="lam")
    p.add_argument("--tokenize", "--tok", choices=TOKENIZERS, default="none",
                   help="tokenizer of references and arc labels (default none: whitespace)")
    p.add_argument("--lowercase", "--lc", action="store_true", help="lowercase references and arc labels")
    add_format_option(p)
    add_option(p, "threads")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refs = read_ref_streams(args.refs, args.strip_bom)
    lats = read_lattices(args.lattices, args.lattice_format, args.plf_scores, args.numeric_eps)
    if len(lats) != len(refs):
        raise InputError(f"{plural(len(lats), 'lattice')} for {plural(len(refs), 'reference segment')}", args.lattices)
    run_ = lattice_oracles(lats, refs, args.metric, args.grr_k, args.grr_insertion_penalty, args.grr_deletion_penalty, args.lam, args.tokenize,
                           args.lowercase)
    from ..metrics.registry import get_metric_class
    table = lattice_table(run_, args.width, get_metric_class(run_.corpus.metric))
    write_stdout(render_table(table, args.format))
    return 0
