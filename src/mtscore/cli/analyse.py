"""``mtscore analyse``: where systems differ (docs/analysis.md).

    mtscore analyse words   -r REF -i SYS_A SYS_B [--freq-counts FILE | --freq-corpus FILE] [--cutoffs 1:2:5:10]
    mtscore analyse lengths -r REF -i SYS_A SYS_B [--by length|lengthdiff|source --src SRC] [-m bleu]
    mtscore analyse wins    -r REF -i SYS_A SYS_B -m bleu chrf [--baseline SYS_A]
    mtscore analyse ngrams  -r REF -i SYS_A SYS_B [--compare match|over|under] [--top 50]
    mtscore analyse align   -r REF -i SYS_A [--segments]
    mtscore analyse docs    -r REF -i SYS_A SYS_B --docs DOCIDS -m bleu chrf
"""
from __future__ import annotations

import argparse

from ..errors import InputError, InvalidParameterError, plural
from ..io import read_lines
from ..report.html import tables_text
from ..report.model import view
from ..params import add_deprecated, add_option, message
from .main import write_stdout
from .names import add_names_option, display_names
from .options import add_format_option, add_input_options, add_metric_options, build_metrics
from .options import load_inputs as _load_files
from ..tokenize import TOKENIZERS


def _write(tables, fmt) -> None:
    """The analysis tables: TSV/CSV as ONE tidy long table (a row per cell, numbers in full precision, the metric's
    name, scale, direction and signature; readable by pandas.read_csv without options), other formats as tables."""
    if fmt in ("tsv", "csv"):
        from ..report.tables import long_table, render_tidy
        write_stdout(render_tidy(long_table(tables), fmt))
    else:
        write_stdout(tables_text(tables, fmt))


def _common(p, metrics=None, resample=True) -> None:
    add_input_options(p)
    add_names_option(p)
    if metrics:
        add_metric_options(p, default_metrics=metrics)
    else:
        p.add_argument("--tokenize", "--tok", choices=TOKENIZERS, default="13a",
                       help="tokenizer for the words analysed (default 13a; 'none' splits on whitespace only)")
        p.add_argument("--lowercase", "--lc", action="store_true", help="lowercase words before comparing them")
    if resample:
        add_option(p, "analyse_resamples", dest="resamples")
        add_option(p, "seed")
    add_format_option(p)


def add_parser(sub) -> None:
    p = sub.add_parser("analyse", help="where systems differ: word accuracy, length buckets, "
                       "wins, n-gram differences, alignments, document-level scores",
                       description="Per-system analyses (compare-mt's, with bootstrap CIs from the same engine as "
                                   "`mtscore compare`). See docs/analysis.md.")
    a = p.add_subparsers(dest="analyse_command", metavar="ANALYSIS", parser_class=type(p))
    a.required = True

    w = a.add_parser("words", help="word precision/recall/F by frequency bucket or part of speech")
    _common(w)
    w.add_argument("--by", choices=("frequency", "pos"), default="frequency",
                   help="bucket words by frequency (default) or by part-of-speech tag (TextBlob's bundled tagger, "
                        "extra [pos]; a matched word takes the tag of the reference word it matches)")
    w.add_argument("--src", metavar="FILE", help="source file: source-side accuracy (needs --src-align)")
    w.add_argument("--src-align", metavar="FILE",
                   help="source-reference word alignments, Pharaoh i-j per line: a source word is correct when "
                        "all the reference words it is aligned to are matched")
    w.add_argument("--freq-counts", metavar="FILE", help="word frequencies: WORD<TAB>COUNT per line")
    w.add_argument("--freq-corpus", metavar="FILE", help="word frequencies counted in a (training) corpus file")
    w.add_argument("--cutoffs", default="1:2:3:4:5:10:100:1000", help="frequency bucket cutoffs (default compare-mt's)")
    w.add_argument("--measure", choices=("fmeas", "prec", "rec"), default="fmeas", help="measure shown (default fmeas)")
    add_option(w, "threads")
    w.set_defaults(func=run_words)

    ln = a.add_parser("lengths", help="scores (or segment counts) by sentence-length bucket")
    _common(ln, metrics=("bleu",))
    ln.add_argument("--by", choices=("length", "lengthdiff", "source"), default="length",
                    help="bucket by reference length, hypothesis-reference length difference, or source length")
    ln.add_argument("--src", metavar="FILE", help="source file (for --by source)")
    ln.add_argument("--statistic", choices=("score", "count"), default=None,
                    help="corpus score per bucket, or segment count (default: score, count for lengthdiff)")
    ln.add_argument("--cutoffs", default=None, help="bucket cutoffs, e.g. 10:20:30 (default compare-mt's)")
    add_option(ln, "threads")
    ln.set_defaults(func=run_lengths)

    wn = a.add_parser("wins", help="segments each system wins against the baseline, by score difference")
    _common(wn, metrics=("bleu",), resample=False)
    wn.add_argument("--baseline", metavar="SYSTEM", help="baseline file (default: the first)")
    wn.add_argument("--cutoffs", default="-10:-5:-1:0:1:5:10", help="difference bucket cutoffs")
    add_option(wn, "threads")
    wn.set_defaults(func=run_wins)

    ng = a.add_parser("ngrams", help="n-grams one system matches (or over-/under-produces) more than another")
    _common(ng, resample=False)
    add_deprecated(ng, "--compare", ng.add_argument(
        "--ngram-type", dest="ngram_type", choices=("match", "over", "under"), default="match",
        help="n-grams matching the reference (match), or the hypothesis has more (over) or fewer (under) of"))
    add_option(ng, "ratio_alpha", dest="alpha", old=("--alpha",))
    add_option(ng, "min_n")
    add_option(ng, "max_n")
    add_option(ng, "top")
    ng.set_defaults(func=run_ngrams)

    al = a.add_parser("align", help="hit/substitution/deletion/insertion counts (word alignment)")
    _common(al, resample=False)
    al.add_argument("--segments", action="store_true", help="also one row per segment (JSON: the aligned pairs)")
    al.set_defaults(func=run_align)

    dc = a.add_parser("docs", help="document-level scores (segments joined per document id)")
    _common(dc, metrics=("bleu", "chrf"))
    dc.add_argument("--docs", required=True, metavar="FILE",
                    help="document id per segment: DOCID or DOMAIN<TAB>DOCID (mt-metrics-eval documents/*.docs)")
    add_option(dc, "threads")
    dc.set_defaults(func=run_docs)


def load_inputs(args):
    """The systems keyed by the names every command shows (``--names``, else the file names without their shared
    prefix and suffix), and the references."""
    syss, refs = _load_files(args)
    args.paths_by_name = dict(zip(display_names(args, list(syss)), syss))
    return dict(zip(args.paths_by_name, syss.values())), refs


def _check_resampling(args) -> None:
    if getattr(args, "resamples", 0) == 1:  # the table bounds 0..10^7; one resample gives no interval
        raise InvalidParameterError(message("--resamples", "0 (no intervals) or at least 2", "1"))


def _tokens(args, syss, refs):
    from ..analysis.buckets import system_tokens
    return system_tokens(syss, refs, args.tokenize, args.lowercase)


def run_words(args: argparse.Namespace) -> int:
    from ..analysis.buckets import parse_cutoffs, word_accuracy, word_frequencies
    from ..report.analyses import word_accuracy_table
    _check_resampling(args)
    buckets = parse_cutoffs(args.cutoffs, "--cutoffs")
    syss, refs = load_inputs(args)
    hyps, ref = _tokens(args, syss, refs)
    sig = f"tok:{args.tokenize}|case:{'lc' if args.lowercase else 'mixed'}"
    if bool(args.src) != bool(args.src_align):
        raise InvalidParameterError("--src and --src-align: give both (source-side accuracy) or neither")
    if args.src:
        from ..analysis.buckets import read_alignments, source_word_accuracy
        src = [line.split() for line in read_lines(args.src)]
        if len(src) != len(ref):
            raise InputError(f"{plural(len(src), 'source line')} for {plural(len(ref), 'segment')}", args.src)
        freqs = None
        if args.freq_counts or args.freq_corpus:
            freqs = word_frequencies(counts_file=args.freq_counts, corpus_file=args.freq_corpus)
        r = source_word_accuracy(hyps, ref, src, read_alignments(args.src_align, len(ref)), buckets=buckets,
                                 freqs=freqs, n_resamples=args.resamples, seed=args.seed, signature=sig)
        _write([word_accuracy_table(r, "rec", max(args.width, 4))], args.format)
        return 0
    if args.by == "pos":
        from ..metrics.rose_pos import tag_tokens
        if args.freq_counts or args.freq_corpus:
            raise InvalidParameterError("--freq-counts/--freq-corpus: only with --by frequency")
        r = word_accuracy(hyps, ref, ref_labels=tag_tokens(ref), labels={s: tag_tokens(h) for s, h in hyps.items()},
                          n_resamples=args.resamples, seed=args.seed, signature=sig + "|pos:textblob")
        _write([word_accuracy_table(r, args.measure, max(args.width, 4))], args.format)
        return 0
    freqs = None
    if args.freq_counts or args.freq_corpus:
        freqs = word_frequencies(counts_file=args.freq_counts, corpus_file=args.freq_corpus, lowercase=args.lowercase)
    r = word_accuracy(hyps, ref, buckets=buckets, freqs=freqs, n_resamples=args.resamples, seed=args.seed,
                      signature=sig)
    _write([word_accuracy_table(r, args.measure, max(args.width, 4))], args.format)
    return 0


def run_lengths(args: argparse.Namespace) -> int:
    from ..analysis.buckets import (DEFAULT_LENGTH_CUTOFFS, DEFAULT_LENGTHDIFF_CUTOFFS, Buckets, length_values,
                                    parse_cutoffs, sentence_buckets)
    from ..report.analyses import sentence_bucket_table
    _check_resampling(args)
    metrics = build_metrics(args)
    syss, refs = load_inputs(args)
    statistic = args.statistic or ("count" if args.by == "lengthdiff" else "score")
    default = DEFAULT_LENGTHDIFF_CUTOFFS if args.by == "lengthdiff" else DEFAULT_LENGTH_CUTOFFS
    buckets = parse_cutoffs(args.cutoffs, "--cutoffs") if args.cutoffs else Buckets(default)
    tok = metrics[0].config.tokenize if hasattr(metrics[0].config, "tokenize") else "13a"
    src = None
    if args.by == "source":
        if not args.src:
            raise InvalidParameterError("--by source: give the source file with --src")
        src = read_lines(args.src)
        if len(src) != len(refs):
            raise InputError(f"{plural(len(src), 'source line')} for {plural(len(refs), 'segment')}", args.src)
    bucket_of, by = length_values(args.by, syss, refs, tok, src)
    tables = []
    if statistic == "count":
        tables.append(sentence_bucket_table(sentence_buckets(bucket_of, buckets, by), args.width))
    else:
        for m in metrics:
            stats = {s: m.stats(h, refs) for s, h in syss.items()}
            r = sentence_buckets(bucket_of, buckets, by, stats=stats, metric=m, n_resamples=args.resamples,
                                 seed=args.seed, signature=f"{m.display_name}|{stats[next(iter(stats))].signature}")
            tables.append(sentence_bucket_table(r, args.width, view(m, args.width)))
    _write(tables, args.format)
    return 0


def _baseline(value, names, paths_by_name) -> str:
    if value is None:
        return names[0]
    if value in names:
        return value
    for name, path in paths_by_name.items():  # the baseline given as its file, as -i names it
        if value == path:
            return name
    raise InvalidParameterError.choice("--baseline", value, names)


def run_wins(args: argparse.Namespace) -> int:
    from ..analysis.buckets import parse_cutoffs, score_difference_buckets
    from ..report.analyses import score_difference_table
    metrics = build_metrics(args)
    syss, refs = load_inputs(args)
    if len(syss) < 2:
        raise InvalidParameterError(f"-i/--input: wins need at least two systems, got {len(syss)}")
    names = list(syss)
    base = _baseline(args.baseline, names, args.paths_by_name)
    buckets = parse_cutoffs(args.cutoffs, "--cutoffs", integer=False)
    tables = []
    import numpy as np
    for m in metrics:
        v = view(m, args.width)
        # the differences (and the cutoffs) on the metric's shown scale: WER x100 as everywhere
        stats = {s: m.stats(h, refs) for s, h in syss.items()}
        seg = {s: v.scale * np.asarray(m.sentence_scores(st), dtype=np.float64) for s, st in stats.items()}
        r = score_difference_buckets(seg, base, m.display_name, buckets, m.higher_is_better,
                                     signature=m.sentence_signature(stats[base]))
        tables.append(score_difference_table(r, args.width, v))
    _write(tables, args.format)
    return 0


def run_ngrams(args: argparse.Namespace) -> int:
    from ..analysis.ngrams import ngram_differences
    from ..report.analyses import ngram_table
    syss, refs = load_inputs(args)
    if len(syss) != 2:
        raise InvalidParameterError(f"-i/--input: the n-gram analysis compares two systems, got {len(syss)}")
    hyps, ref = _tokens(args, syss, refs)
    a, b = list(hyps)
    r = ngram_differences(hyps[a], hyps[b], ref, names=(a, b), compare=args.ngram_type, alpha=args.alpha,
                          min_n=args.min_n, max_n=args.max_n, top=args.top)
    _write([ngram_table(r, "a", max(args.width, 4)), ngram_table(r, "b", max(args.width, 4))],
           args.format)
    return 0


def run_align(args: argparse.Namespace) -> int:
    from ..analysis.alignment import align_corpus
    from ..report.analyses import alignment_segments_table, alignment_table
    syss, refs = load_inputs(args)
    hyps, ref = _tokens(args, syss, refs)
    summaries = [align_corpus(s, h, ref) for s, h in hyps.items()]
    from dataclasses import replace

    from ..metrics.registry import get_metric_class
    # jiwer's WER on the --tokenize tokens: shown as the wer-jiwer metric is (x100, lower is better); the
    # metric's name only with jiwer's own tokenization (--tokenize none splits on whitespace as jiwer does)
    v = view(get_metric_class("wer-jiwer"), args.width)
    if args.tokenize != "none" or args.lowercase:  # (jiwer's lowercase is a parameter of its own)
        v = replace(v, name="WER", signature_name="WER")
    tables = [alignment_table(summaries, args.width, v)]
    if args.segments:
        tables.append(alignment_segments_table(summaries))
    _write(tables, args.format)
    return 0


def run_docs(args: argparse.Namespace) -> int:
    from ..analysis.documents import document_scores, read_doc_ids
    from ..report.analyses import document_table
    _check_resampling(args)
    metrics = build_metrics(args)
    syss, refs = load_inputs(args)
    ids = read_doc_ids(args.docs, len(refs))
    tables = [document_table(document_scores(syss, refs, ids, m, n_resamples=args.resamples, seed=args.seed),
                             args.width, view(m, args.width)) for m in metrics]
    _write(tables, args.format)
    return 0
