"""Significance results (:class:`~mtscore.significance.ComparisonMatrix`) -> tables.

Rendering only: every number (p-values, adjusted p-values, score intervals, difference intervals)
comes from :mod:`mtscore.significance`.
"""
from __future__ import annotations

import math

from .tables import Table



def _bounded(x):
    """An interval end, or None (shown as -, JSON null) where the interval is unbounded (+-inf)."""
    return x if x is None or math.isfinite(x) else None

def _mark(p, alpha):
    return "*" if p is not None and p == p and p < alpha else ""


def matrix_table(m, digits: int = 2) -> Table:
    """One table for a ComparisonMatrix (baseline rows or an all-pairs matrix)."""
    notes = [f"{m.metric}|{m.signature}", f"test: {m.test}; correction: {m.correction}; * = adjusted p < {m.alpha}"]
    meta = {"comparison": m.as_dict()}
    title = f"{m.metric}: {m.test}" + (f" vs baseline {m.baseline}" if m.mode == "baseline" else " (all pairs)")
    if m.mode == "all-pairs":
        cols = ["system", "score"] + [f"{i + 1}" for i in range(len(m.systems))]
        rows = []
        for i, s in enumerate(m.systems):
            cells = [None if i == j else float(m.p_adjusted[i, j]) for j in range(len(m.systems))]
            rows.append([f"{i + 1} {s}", m.scores[i]] + cells)
        if m.test == "sign":
            bad = [f"{r.system_a} / {r.system_b}" for r in m.results if r.contradictory]
            notes.append("cells: adjusted p of the sign test, earlier system as the baseline;"
                         f" self-contradictory pairs: {', '.join(bad) if bad else 'none'}")
        else:
            notes.append("cells: adjusted p-values")
        return Table(cols, rows, title=title, notes=notes, digits=digits, meta={**meta, "p_columns": cols[2:]})
    rows = []
    bi = m.systems.index(m.baseline)
    by_b = {r.system_b: (r, m.p_adjusted[bi, m.systems.index(r.system_b)]) for r in m.results}
    if m.test in ("bootstrap", "ar"):
        has_ci = any(c is not None for c in m.cis)
        has_dci = any(c is not None for c in m.delta_cis)
        cols = ["system", "score"] + (["ci_low", "ci_high", "mean", "half_width"] if has_ci else []) + ["delta"] + \
            (["delta_low", "delta_high"] if has_dci else []) + ["p", "p_adj", "sig"]
        dci = dict(zip((r.system_b for r in m.results), m.delta_cis or (None,) * len(m.results)))
        for i, s in enumerate(m.systems):
            ci = m.cis[i] if has_ci else None
            row = [s, m.scores[i]]
            if has_ci:
                row += [ci.low, ci.high, ci.mean, ci.half_width]
            if s == m.baseline:
                row += [None] * (4 if has_dci else 2) + [None, "baseline"]
            else:
                r, pa = by_b[s]
                row += [r.delta] + ([_bounded(dci[s].low), _bounded(dci[s].high)] if has_dci else []) + \
                    [r.p_value, float(pa), _mark(pa, m.alpha)]
            rows.append(row)
        if has_dci:
            levels = sorted({f"{100 * c.level:.4g}%" for c in m.delta_cis if c is not None})
            adj = next((c.adjusted for c in m.delta_cis if c is not None and c.adjusted), None)
            notes.append(f"delta_low/high: the interval of delta that inverts the test at the corrected level "
                         f"({', '.join(levels)}{', ' + adj + '-adjusted' if adj else ', unadjusted'}); "
                         "it excludes 0 exactly when sig = *")
            if any(c is not None and not (math.isfinite(c.low) and math.isfinite(c.high)) for c in m.delta_cis):
                notes.append("delta_low/high -: unbounded (too few resamples for the test to exclude any delta at "
                             "this level; JSON null)")
    elif m.test == "sign":
        cols = ["system", "score", "fwd +/-/=", "fwd p", "bwd +/-/=", "bwd p", "p_adj", "sig", "contradiction"]
        for i, s in enumerate(m.systems):
            if s == m.baseline:
                rows.append([s, m.scores[i], None, None, None, None, None, "baseline", None])
                continue
            r, pa = by_b[s]
            f, b = r.forward, r.backward
            rows.append([s, m.scores[i], f"{f.n_plus}/{f.n_minus}/{f.n_ties}", f.p_value,
                         f"{b.n_plus}/{b.n_minus}/{b.n_ties}", b.p_value, float(pa), _mark(pa, m.alpha),
                         "yes" if r.contradictory else ("directions disagree" if r.directions_disagree else "no")])
        notes.append("fwd: system's segments swapped into the baseline (+ = improves it); bwd: baseline's segments "
                     f"swapped into the system; method: {m.results[0].method}")
    else:
        cols = ["system", "score", "mean diff", "t", "df", "p", "p_adj", "sig"]
        for i, s in enumerate(m.systems):
            if s == m.baseline:
                rows.append([s, m.scores[i], None, None, None, None, None, "baseline"])
                continue
            r, pa = by_b[s]
            rows.append([s, m.scores[i], r.mean_difference, r.t, r.df, r.p_value, float(pa), _mark(pa, m.alpha)])
        notes.append(f"{m.results[0].blocks} blocks of {m.results[0].block_size} consecutive segments")
    return Table(cols, rows, title=title, notes=notes, digits=digits,
                 meta={**meta, "p_columns": [c for c in cols if c in ("p", "p_adj", "fwd p", "bwd p")]})


P_DIGITS = 4


def text_view(t: Table, fmt: str) -> Table:
    """p-value columns with 4 digits (JSON keeps full numbers), and sacreBLEU's ``mean ± half-width`` as
    one column in text/LaTeX/Markdown (JSON, TSV and CSV keep mean and half-width as two numbers)."""
    idx = [i for i, c in enumerate(t.columns) if c in t.meta.get("p_columns", ())]
    rows = [[(f"{v:.{P_DIGITS}f}" if i in idx and isinstance(v, float) else v) for i, v in enumerate(r)]
            for r in t.rows]
    cols = list(t.columns)
    if fmt in ("text", "latex", "markdown") and "mean" in cols and "half_width" in cols:
        m = cols.index("mean")
        cols[m:m + 2] = ["mean ± hw"]
        rows = [r[:m] + [f"{r[m]:.{t.digits}f} ± {r[m + 1]:.{t.digits}f}"] + r[m + 2:] for r in rows]
    return Table(cols, rows, t.title, t.notes, t.digits)
