"""Significance results (:class:`~mtscore.significance.ComparisonMatrix`) -> tables.

Rendering only: every number (p-values, adjusted p-values, score intervals, difference intervals)
comes from :mod:`mtscore.significance`. Names, scales, directions and digits come from the one output model
(:mod:`mtscore.report.model`): a WER shown x100 in ``score`` is x100 here too, its deltas and intervals with it.
Marks follow the direction: ``▲`` significantly better than the baseline (or, in ``--all-pairs``, the row
system better than the column system), ``▼`` significantly worse; a lower TER is better.
"""
from __future__ import annotations

import math

from .model import MARK_LEGEND, P_DIGITS, format_p, sig_mark, view
from .tables import Marked, Table, dumps, json_object, render_table, render_tidy

# keys of a ComparisonMatrix's as_dict that hold scores or score differences (scaled with the metric);
# p-values, levels, counts, t and df are not
_SCORE_KEYS = {"score", "low", "high", "mean", "half_width", "delta", "scores", "score_a", "score_b",
               "mean_difference", "pieces"}


def _bounded(x):
    """An interval end, or None (shown as -, JSON null) where the interval is unbounded (+-inf)."""
    return x if x is None or math.isfinite(x) else None


def scaled(obj, k: float, key: str | None = None):
    """A comparison's ``as_dict`` with every score and score difference on the shown scale (x ``k``)."""
    if isinstance(obj, dict):
        return {a: scaled(b, k, a) for a, b in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [scaled(x, k, key) for x in obj]
    if k != 1.0 and key in _SCORE_KEYS and isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return obj * k
    return obj


def untested_table(metric, systems, scores, reason: str, digits: int, signature: str, test: str) -> Table:
    """``mtscore compare`` on too few segments (mtscore.significance.minimum): the scores, no test, and why."""
    v = view(metric, digits)
    shown = [v.shown(s) for s in scores]
    sig = v.signature(signature)
    rows = [[s, x] for s, x in zip(systems, shown)]
    tidy = [[v.key, v.name, v.higher_is_better, v.scale, sig, test, s, None, x, None, None, None, None]
            for s, x in zip(systems, shown)]
    return Table(["system", "score"], rows, title=f"{v.name} {v.arrow}: {test} not run", notes=[sig, reason],
                 legend=[f"{v.name}: {v.direction}"], digits=digits, col_digits={"score": v.digits},
                 meta={"metric": v.as_dict(signature), "comparison": None, "untested": reason},
                 tidy=Table(["metric", "name", "higher_is_better", "scale", "signature", "test", "system", "baseline",
                             "score", "delta", "p", "p_adj", "mark"], tidy))


def matrix_table(m, digits: int, metric) -> Table:
    """One table for a ComparisonMatrix (baseline rows or an all-pairs matrix); ``metric``: the metric object
    (name, scale, direction: :mod:`mtscore.report.model`)."""
    v = view(metric, digits)
    k, hib = v.scale, v.higher_is_better
    scores = [v.shown(s) for s in m.scores]
    sig = v.signature(m.signature)
    notes = [sig, f"test: {m.test}; correction: {m.correction}"]
    legend = [f"{v.name}: {v.direction}", MARK_LEGEND.format(alpha=m.alpha)]
    meta = {"metric": v.as_dict(m.signature), "comparison": scaled(m.as_dict(), k)}
    title = f"{v.name} {v.arrow}: {m.test}" + (f" vs baseline {m.baseline}" if m.mode == "baseline" else " (all pairs)")
    tidy_cols = ["metric", "name", "higher_is_better", "scale", "signature", "test", "system", "baseline", "score",
                 "delta", "p", "p_adj", "mark"]
    tidy = []

    def tidy_row(sys_, base, score, delta, p, pa, mark):
        tidy.append([v.key, v.name, hib, k, sig, m.test, sys_, base, score, delta, p, pa, mark])

    if m.mode == "all-pairs":
        n = len(m.systems)
        cols = ["system", "score"] + [f"{i + 1}" for i in range(n)]
        rows = []
        for i, s in enumerate(m.systems):
            cells = []
            for j in range(n):
                if i == j:
                    cells.append(None)
                    continue
                pa = float(m.p_adjusted[i, j])
                d = scores[i] - scores[j]
                cells.append(Marked(pa, sig_mark(d, pa, m.alpha, hib)))
                if i < j:
                    tidy_row(s, m.systems[j], scores[i], d, float(m.p[i, j]), pa, sig_mark(d, pa, m.alpha, hib))
            rows.append([f"{i + 1} {s}", scores[i]] + cells)
        legend[1] = ("cell (row, column): adjusted p of the two systems; ▲ the row system is significantly better, "
                     f"▼ significantly worse (adjusted p < {m.alpha})")
        if m.test == "sign":
            bad = [f"{r.system_a} / {r.system_b}" for r in m.results if r.contradictory]
            notes.append("cells: adjusted p of the sign test, earlier system as the baseline;"
                         f" self-contradictory pairs: {', '.join(bad) if bad else 'none'}")
        return Table(cols, rows, title=title, notes=notes, legend=legend, digits=digits,
                     col_digits={"score": v.digits}, meta={**meta, "p_columns": cols[2:]},
                     tidy=Table(tidy_cols, tidy))
    rows = []
    bi = m.systems.index(m.baseline)
    by_b = {r.system_b: (r, m.p_adjusted[bi, m.systems.index(r.system_b)]) for r in m.results}
    base_score = scores[bi]
    if m.test in ("bootstrap", "ar"):
        has_ci = any(c is not None for c in m.cis)
        has_dci = any(c is not None for c in m.delta_cis)
        cols = ["system", "score"] + (["ci_low", "ci_high", "mean", "half_width"] if has_ci else []) + ["delta"] + \
            (["delta_low", "delta_high"] if has_dci else []) + ["p", "p_adj", "sig"]
        dci = dict(zip((r.system_b for r in m.results), m.delta_cis or (None,) * len(m.results)))
        for i, s in enumerate(m.systems):
            ci = m.cis[i] if has_ci else None
            row = [s, scores[i]]
            if has_ci:
                row += [v.shown(ci.low), v.shown(ci.high), v.shown(ci.mean), v.shown(ci.half_width)]
            if s == m.baseline:
                row += [None] * (4 if has_dci else 2) + [None, "baseline"]
                tidy_row(s, m.baseline, scores[i], None, None, None, "")
            else:
                r, pa = by_b[s]
                d = v.shown(r.delta)
                mark = sig_mark(d, float(pa), m.alpha, hib)
                row += [d] + ([_bounded(v.shown(dci[s].low)), _bounded(v.shown(dci[s].high))] if has_dci else []) + \
                    [r.p_value, float(pa), mark]
                tidy_row(s, m.baseline, scores[i], d, r.p_value, float(pa), mark)
            rows.append(row)
        if has_dci:
            levels = sorted({f"{100 * c.level:.4g}%" for c in m.delta_cis if c is not None})
            adj = next((c.adjusted for c in m.delta_cis if c is not None and c.adjusted), None)
            notes.append(f"delta_low/high: the interval of delta that inverts the test at the corrected level "
                         f"({', '.join(levels)}{', ' + adj + '-adjusted' if adj else ', unadjusted'}); "
                         "it excludes 0 exactly when sig is ▲ or ▼")
            if any(c is not None and not (math.isfinite(c.low) and math.isfinite(c.high)) for c in m.delta_cis):
                notes.append("delta_low/high -: unbounded (too few resamples for the test to exclude any delta at "
                             "this level; JSON null)")
    elif m.test == "sign":
        cols = ["system", "score", "fwd +/-/=", "fwd p", "bwd +/-/=", "bwd p", "p_adj", "sig", "contradiction"]
        for i, s in enumerate(m.systems):
            if s == m.baseline:
                rows.append([s, scores[i], None, None, None, None, None, "baseline", None])
                tidy_row(s, m.baseline, scores[i], None, None, None, "")
                continue
            r, pa = by_b[s]
            f, b = r.forward, r.backward
            mark = sig_mark(scores[i] - base_score, float(pa), m.alpha, hib)
            rows.append([s, scores[i], f"{f.n_plus}/{f.n_minus}/{f.n_ties}", f.p_value,
                         f"{b.n_plus}/{b.n_minus}/{b.n_ties}", b.p_value, float(pa), mark,
                         "yes" if r.contradictory else ("directions disagree" if r.directions_disagree else "no")])
            tidy_row(s, m.baseline, scores[i], scores[i] - base_score, f.p_value, float(pa), mark)
        notes.append("fwd: system's segments swapped into the baseline (+ = improves it); bwd: baseline's segments "
                     f"swapped into the system; method: {m.results[0].method}")
    else:
        cols = ["system", "score", "mean diff", "t", "df", "p", "p_adj", "sig"]
        for i, s in enumerate(m.systems):
            if s == m.baseline:
                rows.append([s, scores[i], None, None, None, None, None, "baseline"])
                tidy_row(s, m.baseline, scores[i], None, None, None, "")
                continue
            r, pa = by_b[s]
            d = v.shown(r.mean_difference)
            mark = sig_mark(d, float(pa), m.alpha, hib)
            rows.append([s, scores[i], d, r.t, r.df, r.p_value, float(pa), mark])
            tidy_row(s, m.baseline, scores[i], d, r.p_value, float(pa), mark)
        notes.append(f"{m.results[0].blocks} blocks of {m.results[0].block_size} consecutive segments")
    return Table(cols, rows, title=title, notes=notes, legend=legend, digits=digits,
                 col_digits={c: v.digits for c in cols if c not in ("t", "df")},
                 meta={**meta, "p_columns": [c for c in cols if c in ("p", "p_adj", "fwd p", "bwd p")]},
                 tidy=Table(tidy_cols, tidy))


def text_view(t: Table, fmt: str) -> Table:
    """p-value columns with 4 digits and ``< 0.0001`` below (JSON, TSV and CSV keep full numbers), and
    sacreBLEU's ``mean ± half-width`` as one column in text/LaTeX/Markdown."""
    if fmt in ("json", "tsv", "csv"):
        return t
    idx = [i for i, c in enumerate(t.columns) if c in t.meta.get("p_columns", ())]

    def p_cell(x):
        if isinstance(x, Marked):
            txt = format_p(x.value, P_DIGITS)
            return None if txt is None else txt + x.mark
        if isinstance(x, float):
            return format_p(x, P_DIGITS)
        return x

    rows = [[(p_cell(x) if i in idx else x) for i, x in enumerate(r)] for r in t.rows]
    cols = list(t.columns)
    if "mean" in cols and "half_width" in cols:
        m = cols.index("mean")
        d = t.col_digits.get("mean", t.digits)
        cols[m:m + 2] = ["mean ± hw"]
        rows = [r[:m] + [f"{r[m]:.{d}f} ± {r[m + 1]:.{d}f}"] + r[m + 2:] for r in rows]
    return Table(cols, rows, t.title, t.notes, t.digits, col_digits=t.col_digits, legend=t.legend)


def render_comparisons(tables, fmt: str) -> str:
    """Several metrics' tables in one output: JSON one object (one table) or a list; TSV/CSV one tidy table
    (the tables' long forms, one after the other: metric and signature columns, full precision); the other
    formats one table per metric, separated by a blank line."""
    if fmt == "json":
        out = []
        for t in tables:
            t.meta.pop("p_columns", None)
            out.append(json_object(t))
        return dumps(out[0] if len(out) == 1 else out)
    if fmt in ("tsv", "csv") and all(t.tidy is not None for t in tables):
        first = tables[0].tidy
        return render_tidy(Table(first.columns, [r for t in tables for r in t.tidy.rows]), fmt)
    return "\n\n".join(render_table(text_view(t, fmt), fmt) for t in tables)
