"""Render a :class:`mtscore.metrics.tbleu.TBLEUExplanation` (the paper's Figure 1) as text,
Markdown or JSON. Strings only; nothing is printed here."""
from __future__ import annotations

import math
from fractions import Fraction

from ..errors import InvalidParameterError, plural
from .tables import Table, render_table

EXPLAIN_FORMATS = ("text", "markdown", "json")


def _frac(x: float | None, digits: int) -> str:
    """``0.667 (2/3)`` when x is a fraction with a small denominator, else ``0.667``."""
    if x is None:
        return "-"
    s = f"{x:.{digits}f}"
    if float(s) == x:  # exact in decimal already
        return s
    f = Fraction(x).limit_denominator(64)
    if f.denominator > 1 and math.isclose(float(f), x, rel_tol=0, abs_tol=1e-12):
        s += f" ({f.numerator}/{f.denominator})"
    return s


def _num(x: float, digits: int) -> str:
    return str(int(x)) if float(x).is_integer() else _frac(x, digits)


def _short(x: float, digits: int) -> str:
    """``1``, ``2/3`` or ``0.734``: the compact weight of the paper's "(word, weight)" line."""
    if float(x).is_integer():
        return str(int(x))
    f = Fraction(x).limit_denominator(64)
    if math.isclose(float(f), x, rel_tol=0, abs_tol=1e-12):
        return f"{f.numerator}/{f.denominator}"
    return f"{x:.{digits}f}"


def render_explanation(expl, fmt: str = "text", digits: int = 3) -> str:
    """Text/Markdown: per reference the matching (test word -> reference word, affix distance,
    correction, weight), the corrected and weighted sentence, every n-gram with its score and
    whether it is credited; then the segment's weighted precisions beside BLEU's."""
    if fmt not in EXPLAIN_FORMATS:
        raise InvalidParameterError.choice("format", fmt, EXPLAIN_FORMATS)
    if fmt == "json":
        from .tables import dumps
        return dumps(expl.as_dict())
    tf = "markdown" if fmt == "markdown" else "text"
    h = (lambda s: f"### {s}") if fmt == "markdown" else (lambda s: s)
    eps = f"{expl.epsilon:g}" if float(f"{expl.epsilon:g}") == expl.epsilon else _frac(expl.epsilon, 4)
    out = [h(f"tBLEU explanation (epsilon = {eps}, multi_ref = {expl.multi_ref})"), "",
           f"Test ({plural(expl.hyp_len, 'token')}): {' '.join(expl.tokens)}", ""]
    for v in expl.references:
        out.append(h(f"Reference {v.index + 1} ({plural(len(v.tokens), 'token')}): {' '.join(v.tokens)}"))
        out.append("")
        rows = []
        for ln in v.links:
            action = "corrected" if ln.corrected else ("unmatched" if ln.ref_index is None else
                                                       ("identical" if ln.distance == 0 else "kept (AD > epsilon)"))
            rows.append([ln.test_index + 1, ln.test_word, ln.ref_word if ln.ref_word is not None else "-",
                         _frac(ln.distance, digits), action,
                         v.corrected[ln.test_index], _frac(ln.weight, digits)])
        out.append(render_table(Table(["#", "test word", "matched reference word", "AD", "action", "corrected",
                                       "weight"], rows, title="Matching", digits=digits), tf))
        out.append("")
        out.append("Corrected and weighted: " + " ".join(
            f"({w}, {_short(x, digits)})" for w, x in zip(v.corrected, v.weights)))
        out.append("")
        for n, grams in enumerate(v.ngrams, 1):
            if not grams:
                continue
            rows = [[" ".join(g.original), " ".join(g.corrected), _frac(g.score, digits), "yes" if g.credited else "no"]
                    for g in grams]
            out.append(render_table(Table([f"{n}-gram", "corrected", "score", "credited"], rows,
                                          title=f"{n}-grams (weighted matches {_num(v.matches[n - 1], digits)}"
                                                f" / {expl.totals[n - 1]})", digits=digits), tf))
            out.append("")
    rows = []
    for n in range(len(expl.totals)):
        rows.append([n + 1, _num(expl.matches[n], digits), expl.totals[n], expl.precisions[n],
                     expl.bleu_matches[n], expl.bleu_precisions[n]])
    title = "Segment statistics" + (" (best reference per n-gram position)" if len(expl.references) > 1
                                    and expl.multi_ref == "position" else "")
    out.append(render_table(Table(["n", "tBLEU matches", "total", "tBLEU p_n", "BLEU matches", "BLEU p_n"],
                                  rows, title=title, digits=digits), tf))
    out.append("")
    out.append(f"hyp_len = {expl.hyp_len}, ref_len = {_num(expl.ref_len, digits)}")
    out.append(f"sentence tBLEU = {expl.score:.2f}   sentence BLEU = {expl.bleu_score:.2f}")
    out.append(f"tBLEU|{expl.signature}")
    return "\n".join(out)


__all__ = ["render_explanation", "EXPLAIN_FORMATS"]
