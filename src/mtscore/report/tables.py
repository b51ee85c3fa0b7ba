"""Generic tables: a header, rows of cells, optional notes; rendered to one of :data:`FORMATS`.

Numbers stay numbers until rendering: JSON keeps full precision, text/LaTeX/Markdown round to
``digits``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..errors import InvalidParameterError

FORMATS = ("text", "json", "tsv", "latex", "markdown")


@dataclass
class Table:
    columns: Sequence[str]
    rows: list[Sequence[Any]]
    title: str = ""
    notes: list[str] = field(default_factory=list)  # e.g. signatures, printed under the table
    digits: int = 2
    meta: dict = field(default_factory=dict)  # extra JSON-only content


def _cell(v, digits: int) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.{digits}f}"
    if isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v):
        return f"({v[0]:.{digits}f}, {v[1]:.{digits}f})"
    return str(v)


def _json_value(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, tuple):
        return [_json_value(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (list, dict)):
        return v.item()
    return v


_LATEX_ESC = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
              "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def _latex(s: str) -> str:
    return "".join(_LATEX_ESC.get(ch, ch) for ch in s)


def render_table(t: Table, fmt: str = "text") -> str:
    if fmt not in FORMATS:
        raise InvalidParameterError.choice("format", fmt, FORMATS)
    cols = list(t.columns)
    if fmt == "json":
        obj = {"columns": cols, "rows": [dict(zip(cols, (_json_value(v) for v in r))) for r in t.rows]}
        if t.title:
            obj["title"] = t.title
        if t.notes:
            obj["notes"] = list(t.notes)
        obj.update(t.meta)
        return json.dumps(obj, ensure_ascii=False, indent=2)
    cells = [[_cell(v, t.digits) for v in r] for r in t.rows]
    if fmt == "tsv":
        lines = ["\t".join(cols)] + ["\t".join(c.replace("\t", " ") for c in r) for r in cells]
        return "\n".join(lines)
    if fmt == "markdown":
        numeric = [all(isinstance(r[i], (int, float)) for r in t.rows if r[i] is not None) and t.rows
                   for i in range(len(cols))]
        out = []
        if t.title:
            out += [f"**{t.title}**", ""]
        out.append("| " + " | ".join(c.replace("|", r"\|") for c in cols) + " |")
        out.append("|" + "|".join("---:" if numeric[i] else "---" for i in range(len(cols))) + "|")
        out += ["| " + " | ".join(c.replace("|", r"\|") for c in r) + " |" for r in cells]
        if t.notes:
            out.append("")
            out += [f"- `{n}`" for n in t.notes]
        return "\n".join(out)
    if fmt == "latex":
        numeric = [bool(t.rows) and all(isinstance(r[i], (int, float)) for r in t.rows if r[i] is not None)
                   for i in range(len(cols))]
        spec = "".join("r" if n else "l" for n in numeric)
        out = [r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
               " & ".join(_latex(c) for c in cols) + r" \\", r"\midrule"]
        out += [" & ".join(_latex(c) for c in r) + r" \\" for r in cells]
        out += [r"\bottomrule", r"\end{tabular}"]
        if t.title:
            out.append(rf"\caption{{{_latex(t.title)}}}")
        out.append(r"\end{table}")
        if t.notes:
            out += ["% " + n for n in t.notes]
        return "\n".join(out)
    # text
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    def line(vals):
        return "  ".join((v.ljust(w) if i == 0 else v.rjust(w)) for i, (v, w) in enumerate(zip(vals, widths)))
    out = []
    if t.title:
        out.append(t.title)
    out.append(line(cols))
    out.append("  ".join("-" * w for w in widths))
    out += [line(r) for r in cells]
    if t.notes:
        out.append("")
        out += list(t.notes)
    return "\n".join(out)
