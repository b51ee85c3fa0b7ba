"""Audit results -> report tables (rendered by ``mtscore.report.render_table``)."""
from __future__ import annotations

from .model import view
from .tables import Table


def _views(metrics, digits: int):
    """Display name -> MetricView (the one output model: names, scales, directions); identity without metrics."""
    return {m.display_name: view(m, digits) for m in (metrics or ())}


class _Same:
    key, scale, digits, higher_is_better = None, 1.0, None, True

    @staticmethod
    def shown(x):
        return x


def _signed(v, name: str, signature: str) -> str:
    """``NAME|signature`` as ``mtscore score`` prints it: the metric's own name (``BLEU``, never a column label
    such as ``BLEU[compat=...]``: the signature carries the parameters)."""
    return f"{getattr(v, 'signature_name', None) or name}|{signature}"
from ..analysis.deletion import DeletionReport
from ..analysis.length import LengthReport
from ..analysis.subsets import SubsetReport


def _value(x):
    """A score, or None (shown -) where it is undefined: never nan."""
    return None if x is None or x != x else x


def deletion_table(rep: DeletionReport, digits: int = 2, metrics=None) -> Table:
    vs = _views(metrics, digits)
    v = [vs.get(m, _Same) for m in rep.metrics]
    rows = []
    for kind, rate, scores in rep.rows():
        hyp_len, shortest = rep.lengths[(kind, rate)]
        rows.append([kind, f"{100 * rate:g}%", hyp_len, shortest] + [x.shown(s) for x, s in zip(v, scores)])
    resp = rep.responds()
    notes = [_signed(x, m, sig) for m, x, sig in zip(rep.metrics, v, rep.signatures)]
    notes.append(f"hypothesis = reference #{rep.used_reference + 1}, scored against "
                 f"{'all references' if rep.include_used else 'the other references'}; seed {rep.seed}")
    notes.append(f"word deletion keeps the total length >= the shortest-reference total up to about "
                 f"{100 * rep.critical_rate:.1f}% (whitespace words)")
    for (m, kind), ok in resp.items():
        if not ok:
            notes.append(f"{m} does not decrease at every deletion rate of {kind}")
    # TSV/CSV: a row per (deletion, rate, metric), full precision, the metric's model
    tidy = [[kind, rate, *rep.lengths[(kind, rate)], x.key, m, x.shown(sc), x.scale, x.higher_is_better,
             _signed(x, m, sig)]
            for kind, rate, scores in rep.rows() for m, x, sc, sig in zip(rep.metrics, v, scores, rep.signatures)]
    return Table(["deletion", "rate", "hyp words", "shortest-ref words"] + list(rep.metrics), rows,
                 tidy=Table(["deletion", "rate", "hyp_words", "shortest_ref_words", "metric", "name", "score", "scale",
                             "higher_is_better", "signature"], tidy),
                 title="Deletion stress test", notes=notes, digits=digits,
                 marks={m: " " + ("↑" if x.higher_is_better else "↓") for m, x in zip(rep.metrics, v)},
                 col_digits={m: x.digits for m, x in zip(rep.metrics, v) if x.digits is not None},
                 meta={"responds": {f"{m}|{k}": v for (m, k), v in resp.items()},
                       "critical_rate": rep.critical_rate})


def subsets_table(reports: list[SubsetReport], name_a: str, name_b: str, digits: int = 2, metrics=None) -> Table:
    vs = _views(metrics, digits)
    rows, tidy, no_ratio = [], [], False
    for rep in reports:
        v = vs.get(rep.metric, _Same)
        for r in rep.rows:
            # no reference word in the subset: the length ratio has no value (-, JSON null, an empty TSV field)
            has_ref = bool(r.ref_len and r.ref_len == r.ref_len)
            no_ratio = no_ratio or not has_ref
            a, b = v.shown(r.score_a), v.shown(r.score_b)
            rows.append([rep.metric, r.subset, r.n_segments, _value(a), _value(b), _value(a - b),
                         r.hyp_len_a / r.ref_len if has_ref else None, r.hyp_len_b / r.ref_len if has_ref else None])
            tidy.append([v.key] + rows[-1] + [v.scale, v.higher_is_better, _signed(v, rep.metric, rep.signature)])
    notes = [_signed(vs.get(rep.metric, _Same), rep.metric, rep.signature) for rep in reports]
    if no_ratio:
        notes.append("len ratio - = no reference word in the subset")
    if any(x is None for row in rows for x in row[3:6]):
        notes.append("score - = the metric has no value on the subset")
    verdicts = {}
    for rep in reports:
        p = rep.paradox
        verdicts[rep.metric] = p
        if p == "A":
            notes.append(f"{rep.metric}: PARADOX — {name_a} is better on every subset but worse combined")
        elif p == "B":
            notes.append(f"{rep.metric}: PARADOX — {name_b} is better on every subset but worse combined")
        else:
            notes.append(f"{rep.metric}: consistent (no subset paradox)")
    cols = ["metric", "subset", "segments", f"A={name_a}", f"B={name_b}", "A-B", "len ratio A", "len ratio B"]
    # TSV/CSV: full precision, with the metric's registry key, scale, direction and signature
    return Table(cols, rows, title="Subset (genre) paradox", notes=notes, digits=digits, meta={"paradox": verdicts},
                 tidy=Table(["metric", "name"] + cols[1:] + ["scale", "higher_is_better", "signature"], tidy))


def length_table(rep: LengthReport, digits: int = 3) -> Table:
    # token counts print as integers; the reference length stays fractional where it is an average
    integral = all(float(v).is_integer() for r in rep.rows for v in (r.hyp_len, r.ref_len))
    count = (lambda v: int(v)) if integral else (lambda v: v)
    # no reference word: the ratio has no value (-, JSON null), never nan or inf
    rows = [[r.group, r.n_segments, count(r.hyp_len), count(r.ref_len), r.ratio if r.ref_len > 0 else None, r.bp,
             r.sbp] for r in rep.rows]
    # the lengths, BP and SBP of BLEU's statistics: signed as score signs BLEU
    sig = rep.signature if "|" in rep.signature.split("nrefs:", 1)[0] else _signed(None, "BLEU", rep.signature)
    notes = [sig]
    if any(r.ref_len <= 0 for r in rep.rows):
        notes.append("ratio - = no reference word in the group")
    cols = [rep.by, "segments", "hyp len", "ref len", "ratio", "BP", "SBP"]
    return Table(cols, rows, title="Length analysis", notes=notes, digits=digits,
                 tidy=Table(cols + ["signature"], [r + [sig] for r in rows]))  # TSV/CSV: full precision


def sign_table(results, digits: int = 4, metrics=None, untested: str | None = None) -> Table:
    """Composite-set sign test in both directions, one row per metric, with the verdict. ``untested``: why the
    test is not reported (too few segments, ``significance.minimum``): the scores only, the reason as a note."""
    rows, verdicts, tidy = [], {}, []
    by_key = {getattr(m, "name", ""): view(m, 2) for m in (metrics or ())}
    for r in results:
        v = by_key.get(r.metric, _Same)
        f, b = r.forward, r.backward
        verdict = "contradicts itself" if r.contradictory else (
            "directions disagree" if r.directions_disagree else "consistent")
        if untested:
            verdicts[r.metric] = "not tested"
            rows.append([getattr(v, "name", r.metric), r.method, v.shown(r.score_a), v.shown(r.score_b),
                         "-", None, "-", "-", None, "-", "not tested"])
            tidy.append([getattr(v, "key", None) or r.metric, getattr(v, "name", r.metric), r.method,
                         v.shown(r.score_a), v.shown(r.score_b), None, None, None, None, None, None, None, None, None,
                         None, "not tested", v.scale, v.higher_is_better, _signed(v, r.metric, r.signature)])
            continue
        verdicts[r.metric] = verdict
        rows.append([getattr(v, "name", r.metric), r.method, v.shown(r.score_a), v.shown(r.score_b),
                     f"{f.n_plus}+/{f.n_minus}-/{f.n_ties}=", f.p_value, f.winner or "-",
                     f"{b.n_plus}+/{b.n_minus}-/{b.n_ties}=", b.p_value, b.winner or "-", verdict])
        tidy.append([getattr(v, "key", None) or r.metric, getattr(v, "name", r.metric), r.method, v.shown(r.score_a),
                     v.shown(r.score_b), f.n_plus, f.n_minus, f.n_ties, f.p_value, f.winner, b.n_plus, b.n_minus,
                     b.n_ties, b.p_value, b.winner, verdict, v.scale, v.higher_is_better,
                     _signed(v, r.metric, r.signature)])
    name_a = results[0].system_a if results else "A"
    name_b = results[0].system_b if results else "B"
    notes = [_signed(by_key.get(r.metric, _Same), r.metric, r.signature) for r in results]
    if untested:
        notes.append(untested)
    else:
        notes.append(f"forward: baseline A={name_a}, candidate B={name_b}'s segments swapped in one at a time; "
                     "backward: the reverse. '+' = the swap improves the baseline's score.")
    score_digits = max([v.digits for v in by_key.values()], default=digits)  # the model's digits (p: 4)
    return Table(["metric", "method", "A", "B", "forward (A base)", "p fwd", "winner fwd", "backward (B base)",
                  "p bwd", "winner bwd", "verdict"], rows, title="Sign-test consistency", notes=notes,
                 digits=digits, meta={"verdict": verdicts}, col_digits={"A": score_digits, "B": score_digits},
                 p_cols=("p fwd", "p bwd"),
                 # TSV/CSV: full precision, the counts as numbers, the metric's model
                 tidy=Table(["metric", "name", "method", "A", "B", "fwd_plus", "fwd_minus", "fwd_ties", "p_fwd",
                             "winner_fwd", "bwd_plus", "bwd_minus", "bwd_ties", "p_bwd", "winner_bwd", "verdict",
                             "scale", "higher_is_better", "signature"], tidy))


def lengths_tidy(named_tables) -> Table:
    """``audit length`` of several systems as ONE table for TSV/CSV: the systems' tables (full precision) with a
    ``system`` column."""
    named_tables = list(named_tables)
    cols = ["system"] + list(named_tables[0][1].tidy.columns) if named_tables else ["system"]
    return Table(cols, [[name] + list(r) for name, t in named_tables for r in t.tidy.rows])
