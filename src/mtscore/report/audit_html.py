"""Self-contained HTML pages for ``mtscore audit`` (deletion, subsets, length)."""
from __future__ import annotations

from . import svg
from .html import Document


def deletion_html(rep, table, title: str = "Deletion stress test") -> str:
    doc = Document(title, f"hypothesis = reference #{rep.used_reference + 1}; "
                          f"{'all references' if rep.include_used else 'the other references'}; seed {rep.seed}")
    sec = doc.section("Scores by deletion rate")
    for kind in rep.kinds:
        rates = list(rep.rates)
        series = {m: [rep.scores[(kind, r)][j] for r in rates] for j, m in enumerate(rep.metrics)}
        sec.figure(svg.line_chart([100 * r for r in rates], series, title=kind, xlabel="deleted (%)",
                                  ylabel="score", xlabels=[f"{100 * r:g}%" for r in rates]),
                   f"{kind}: each metric's corpus score as more is deleted")
    sec.table(table)
    return doc.render()


def subsets_html(reports, table, name_a: str, name_b: str, title: str = "Subset (genre) paradox") -> str:
    doc = Document(title, f"A = {name_a}, B = {name_b}")
    sec = doc.section("Scores per subset")
    for rep in reports:
        cats = [r.subset for r in rep.rows]
        verdict = {"A": f"paradox: {name_a} better on every subset, worse combined",
                   "B": f"paradox: {name_b} better on every subset, worse combined"}.get(rep.paradox, "consistent")
        sec.figure(svg.bar_chart(cats, {"A": [r.score_a for r in rep.rows], "B": [r.score_b for r in rep.rows]},
                                 title=f"{rep.metric}: {verdict}", ylabel=rep.metric),
                   f"{rep.metric} per subset and combined ((all))")
    sec.table(table)
    return doc.render()


def length_html(named_reports, tables, title: str = "Length analysis") -> str:
    doc = Document(title)
    for (name, rep), table in zip(named_reports, tables):
        sec = doc.section(name)
        cats = [r.group for r in rep.rows]
        sec.figure(svg.bar_chart(cats, {"ratio": [r.ratio for r in rep.rows], "BP": [r.bp for r in rep.rows],
                                        "SBP": [r.sbp for r in rep.rows]}, title=f"{name}: length ratio, BP and SBP"),
                   "hypothesis/reference length ratio, BLEU's brevity penalty and the strict one, per group")
        sec.table(table)
    return doc.render()
