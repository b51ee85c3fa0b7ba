"""Tables of the per-system analyses (:mod:`mtscore.analysis` buckets, n-grams, alignments, documents).
Renders result objects only: no computation beyond picking and arranging their fields."""
from __future__ import annotations

from ..errors import plural
from .model import MetricView
from .tables import Table

MEASURES = {"fmeas": ("fmeasure", "F-measure"), "prec": ("precision", "precision"), "rec": ("recall", "recall")}


def _with_ci(stat, has_ci: bool, empty: bool = False):
    """The value, and its interval cell when the table has interval columns (None where there is none).
    An ``empty`` bucket (nothing to measure) has no value: None, shown as ``-`` and written as JSON null."""
    if empty:
        return [None, None] if has_ci else [None]
    return [stat.value, stat.ci] if has_ci else [stat.value]


def _undefined(field: str, ref_words: int, hyp_words: int) -> bool:
    """A word measure with nothing to count: precision without hypothesis words, recall without reference
    words, F-measure without either (compare-mt prints 0 there; mtscore prints ``-``)."""
    if field == "precision":
        return hyp_words == 0
    if field == "recall":
        return ref_words == 0
    return ref_words == 0 and hyp_words == 0


def word_accuracy_table(r, measure: str = "fmeas", digits: int = 4) -> Table:
    field, label = MEASURES[measure]
    has_ci = any(s.ci is not None for row in getattr(r, field) for s in row)
    cols = [r.by if r.by != "frequency" else "frequency", "ref words"]
    for s in r.systems:
        cols += [f"{s} {label}"] + ([f"{s} {int(round(r.level * 100))}% CI"] if has_ci else [])
    rows = []
    for b, name in enumerate(r.buckets):
        row = [name, r.ref_words[b]]
        for k in range(len(r.systems)):
            row += _with_ci(getattr(r, field)[k][b], has_ci, _undefined(field, r.ref_words[b], r.hyp_words[k][b]))
        rows.append(row)
    notes = [f"word {label} by {r.by} bucket (a hypothesis word matches an unused reference word of the "
             "same form; counts as compare-mt); - = no words to measure in the bucket"]
    if has_ci:
        notes.append(f"CI: paired bootstrap over segments, {plural(r.n_resamples, 'resample')}, seed {r.seed}")
    if r.signature:
        notes.append(r.signature)
    return Table(cols, rows, title=f"Word accuracy ({label}) by {r.by}", notes=notes, digits=digits,
                 meta={"matches": [list(x) for x in r.matches], "hyp_words": [list(x) for x in r.hyp_words]})


def _shown(stat, v: MetricView | None):
    """A bucket statistic (value and interval) on the metric's shown scale (the one output model)."""
    if v is None or v.scale == 1.0:
        return stat
    from dataclasses import replace
    ci = None if stat.ci is None else (v.shown(stat.ci[0]), v.shown(stat.ci[1]))
    return replace(stat, value=v.shown(stat.value), ci=ci)


def _unsigned(v: MetricView, signature: str) -> str:
    """``signature`` without a leading ``NAME|`` of metric ``v``."""
    for head in (v.signature_name + "|", v.name + "|"):
        if signature.startswith(head):
            return signature[len(head):]
    return signature


def signature_line(v: MetricView | None, signature: str) -> str:
    """The signature as every command prints it: ``NAME|nrefs:1|...`` (``mtscore score``'s form)."""
    return v.signature(_unsigned(v, signature)) if v is not None and signature else signature


def _model(v: MetricView | None, signature: str = "", digits: int = 2):
    """The JSON ``metrics`` entry, the header marks and the digits of a table that shows metric ``v``'s values."""
    if v is None:
        return {}, digits
    d = v.as_dict()
    if signature:  # NAME|nrefs:1|... (a signature without the name gets it)
        d["signature"] = signature_line(v, signature)
    return {"metrics": [d]}, max(digits, v.digits)


def sentence_bucket_table(r, digits: int = 2, view: MetricView | None = None) -> Table:
    """``view``: the metric's :class:`~mtscore.report.model.MetricView` (its scores on the shown scale, its
    name and direction, as ``mtscore score`` shows them); None for a count table."""
    has_ci = any(s.ci is not None for row in r.values for s in row)
    meta, digits = _model(view if r.statistic == "score" else None, r.signature, digits)
    name = view.name if view is not None and r.statistic == "score" else r.metric
    cols, marks = [r.by], {}
    for s in r.systems:
        if r.statistic == "count":
            cols.append(f"{s} segments")
        else:
            cols += [f"{s} segments", f"{s} {name}"] + ([f"{s} {int(round(r.level * 100))}% CI"] if has_ci else [])
            if view is not None:
                marks[f"{s} {name}"] = " " + view.arrow
    rows = []
    for b, bucket in enumerate(r.buckets):
        row = [bucket]
        for k in range(len(r.systems)):
            if r.statistic == "count":
                row.append(r.counts[k][b])
            else:
                row += [r.counts[k][b]] + _with_ci(_shown(r.values[k][b], view), has_ci, r.counts[k][b] == 0)
        rows.append(row)
    title = (f"{view.label if view is not None else name} by {r.by}" if r.statistic == "score"
             else f"Segments by {r.by}")
    notes = [signature_line(view if r.statistic == "score" else None, r.signature)] if r.signature else []
    if r.statistic != "count" and any(c == 0 for row in r.counts for c in row):
        notes.append("- = an empty bucket (0 segments): no score")
    if has_ci:
        notes.append(f"CI: bootstrap over the bucket's segments, {plural(r.n_resamples, 'resample')}, seed {r.seed}")
    per_system = 1 if r.statistic == "count" else 2 + has_ci
    return Table(cols, rows, title=title, notes=notes, digits=digits, marks=marks, meta=meta,
                 groups=(per_system,) * len(r.systems))


def score_difference_table(r, digits: int = 2, view: MetricView | None = None) -> Table:
    """``view``: the metric's :class:`~mtscore.report.model.MetricView`; the differences (and the bucket cutoffs)
    are on its shown scale: the segment scores were scaled before bucketing (``mtscore analyse wins``)."""
    meta, digits = _model(view, r.signature, digits)
    cols = ["system", "wins", "ties", "losses", "mean diff"] + [f"diff {b}" for b in r.buckets]
    # no segment: no mean (-, JSON null), never nan
    rows = [[s, r.wins[k], r.ties[k], r.losses[k],
             r.mean_difference[k] if r.wins[k] + r.ties[k] + r.losses[k] > 0 else None, *r.counts[k]]
            for k, s in enumerate(r.systems)]
    notes = [f"per-segment {r.metric} difference against {r.baseline} (positive = better than the baseline, "
             "also for lower-is-better metrics); columns count segments per difference bucket"]
    if view is not None and view.scale != 1.0:
        notes[0] += f"; differences on the shown scale ({view.name} x{view.scale:g})"
    if r.signature:
        notes.append(signature_line(view, r.signature))
    label = view.label if view is not None else r.metric
    return Table(cols, rows, title=f"Segments won against {r.baseline} ({label})", notes=notes, digits=digits,
                 meta=meta)


def ngram_table(r, which: str = "a", digits: int = 4) -> Table:
    items = r.a_better if which == "a" else r.b_better
    win, lose = (r.system_a, r.system_b) if which == "a" else (r.system_b, r.system_a)
    cols = ["n-gram", "score", f"{r.system_a} {r.compare}", f"{r.system_b} {r.compare}", "examples"]
    rows = [[x.ngram, x.score, x.count_a, x.count_b, " ".join(str(i + 1) for i in x.examples)] for x in items]
    notes = [f"{r.min_n}..{r.max_n}-grams; score = (count_{r.system_a} + a) / (count_{r.system_a} + "
             f"count_{r.system_b} + 2a), a = {r.alpha:g} (compare-mt's smoothed ratio); examples: 1-based segments"]
    return Table(cols, rows, title=f"n-grams where {win} > {lose} in {r.compare}", notes=notes, digits=digits,
                 meta={"all_scores": r.scores} if which == "a" else {})


def alignment_table(summaries, digits: int = 4, view: MetricView | None = None) -> Table:
    """``view``: how WER is shown (the ``wer-jiwer`` metric's view: x100, lower is better, as every command
    shows it); None: the fraction as computed."""
    name = "WER" if view is None else view.name
    cols = ["system", "hits", "substitutions", "deletions", "insertions", name]
    rows = [[a.system, a.hits, a.substitutions, a.deletions, a.insertions,
             a.wer if view is None else view.shown(a.wer)] for a in summaries]
    meta, _ = _model(view)
    return Table(cols, rows, title="Word alignment against the reference",
                 notes=["minimum edit alignment, jiwer's counts (see docs/analysis.md)"], digits=digits,
                 marks={name: " " + view.arrow} if view is not None else {}, meta=meta)


def alignment_segments_table(summaries, digits: int = 4) -> Table:
    cols = ["segment"]
    for a in summaries:
        cols += [f"{a.system} H", f"{a.system} S", f"{a.system} D", f"{a.system} I"]
    rows = []
    for i in range(len(summaries[0].segments)):
        row = [i + 1]
        for a in summaries:
            sg = a.segments[i]
            row += [sg.hits, sg.substitutions, sg.deletions, sg.insertions]
        rows.append(row)
    return Table(cols, rows, title="Alignment counts per segment", digits=digits,
                 meta={"alignments": {a.system: [[list(p) for p in sg.pairs] for sg in a.segments]
                                      for a in summaries}})


def document_table(r, digits: int = 2, view: MetricView | None = None) -> Table:
    """``view``: the metric's :class:`~mtscore.report.model.MetricView` (scores on its shown scale)."""
    meta, digits = _model(view, r.signature, digits)
    sh = (lambda x: x) if view is None else view.shown
    cols = ["document", "segments"] + list(r.systems) + (["p"] if len(r.systems) > 1 else [])
    rows = [["(all documents)", sum(d.n_segments for d in r.documents), *map(sh, r.corpus)] +
            ([None] if len(r.systems) > 1 else [])]
    for d in r.documents:
        rows.append([d.doc, d.n_segments, *map(sh, d.scores)] + ([d.p_value] if len(r.systems) > 1 else []))
    notes = [f"{r.metric} over whole documents (each document's segments joined with a space); first row: the "
             "corpus of documents", signature_line(view, r.signature)]
    if len(r.systems) > 1:
        from ..significance.minimum import MIN_SEGMENTS, untested
        notes.append(f"p: paired bootstrap of {r.systems[1]} vs {r.systems[0]} over the document's segments "
                     f"({plural(r.n_resamples, 'resample')}, seed {r.seed})")
        if r.n_resamples and any(untested(d.n_segments) for d in r.documents):
            notes.append(f"p -: no test for a document of fewer than {MIN_SEGMENTS} segments (a paired test needs "
                         f"at least {MIN_SEGMENTS}; docs/significance.md)")
    return Table(cols, rows, title=f"Document-level {view.label if view is not None else r.metric}", notes=notes,
                 digits=digits, col_digits={"p": 4}, p_cols=("p",), meta=meta,
                 marks={s: " " + view.arrow for s in r.systems} if view is not None else {})


def report_analysis_tables(an, digits: int = 2, lengths_view: MetricView | None = None) -> list[Table]:
    """The per-system analysis tables of the report page (:func:`mtscore.analysis.explore.report_analyses`);
    ``lengths_view``: the view of the metric scored by length (the report's first metric)."""
    tables = [word_accuracy_table(an.words), sentence_bucket_table(an.lengths, digits, lengths_view)]
    if an.ngrams is not None:
        tables += [ngram_table(an.ngrams, "a"), ngram_table(an.ngrams, "b")]
    return tables
