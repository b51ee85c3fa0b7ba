r"""Generic tables: a header, rows of cells, optional notes; rendered to one of :data:`FORMATS`.

Numbers stay numbers until rendering: JSON keeps full precision, text/LaTeX/Markdown/TSV/CSV round
to ``digits``. Cell values: numbers, strings, ``None`` (shown as ``-``), a confidence interval as a
2-tuple of numbers (shown as ``(low, high)``) and :class:`Marked` (a number with a significance
mark such as ``*``/``**``: ``27.34**`` in text, ``27.34$^{**}$`` in LaTeX, the bare number in JSON).
LaTeX output is a booktabs table (``\toprule``/``\midrule``/``\bottomrule``; needs
``\usepackage{booktabs}``), caption above, with text escaped and minus signs in math mode.
"""
from __future__ import annotations

import csv
import unicodedata
import io
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..errors import InvalidParameterError, plural

FORMATS = ("text", "json", "tsv", "csv", "latex", "markdown")


@dataclass(frozen=True)
class Marked:
    """A number with a mark (e.g. significance ``*`` p < 0.05, ``**`` p < 0.01)."""

    value: float
    mark: str = ""

    def __float__(self) -> float:
        return float(self.value)


def _is_num(v) -> bool:
    return isinstance(v, (int, float, Marked)) and not isinstance(v, bool)


@dataclass
class Table:
    columns: Sequence[str]
    rows: list[Sequence[Any]]
    title: str = ""
    notes: list[str] = field(default_factory=list)  # e.g. signatures, printed under the table
    digits: int = 2
    meta: dict = field(default_factory=dict)  # extra JSON-only content
    col_digits: dict = field(default_factory=dict)  # column name -> digits (e.g. p-values: 4)
    marks: dict = field(default_factory=dict)  # column name -> suffix in text/Markdown/LaTeX headers (e.g. " ↑")
    # the human legend (what marks and arrows mean): printed under the notes in text/Markdown/LaTeX, kept apart
    # from the data in JSON ("legend"), left out of TSV/CSV
    legend: list = field(default_factory=list)
    # TSV/CSV: this one tidy table instead (long form with metric and signature columns, numbers in full
    # precision, readable by pandas.read_csv without options); None: the table itself, as shown
    tidy: "Table | None" = None
    # p-value columns: 4 digits and "< 0.0001" below in text/Markdown/LaTeX (full numbers in JSON/TSV/CSV)
    p_cols: tuple = ()
    # HTML: runs of columns after the first that a table split into pieces (to fit the screen) keeps in one
    # piece, as their sizes (a metric's score, interval, p and adjusted p: 4); a column past the runs stands alone
    groups: tuple = ()

    def digits_of(self, i: int) -> int:
        return self.col_digits.get(self.columns[i], self.digits)


class ColumnTable(Table):
    """A :class:`Table` held column by column: ``data[0]`` an int64 array (e.g. segment numbers), the others
    float64 arrays (one per column), all of one length. ``rows`` are built only when a renderer needs them
    (JSON, LaTeX, Markdown); TSV, CSV and text are rendered column-wise (:mod:`mtscore.report.columns`, the
    ``--sentence-level`` tables of 100k+ segments), with the same text as the row-wise renderer."""

    def __init__(self, columns, data, **kw):
        import numpy as np  # here: the report layer is imported by commands that never need NumPy

        self.data = [np.asarray(data[0], dtype=np.int64)] + [np.asarray(c, dtype=np.float64) for c in data[1:]]
        n = {len(c) for c in self.data}
        if len(n) > 1:
            raise ValueError(f"ColumnTable: columns of different lengths {sorted(n)}")
        if len(self.data) != len(columns):
            raise ValueError(f"ColumnTable: {plural(len(self.data), 'column')} of values for "
                             f"{plural(len(columns), 'label')}")
        self._rows = None
        super().__init__(columns, None, **kw)

    @property
    def rows(self):
        if self._rows is None:
            self._rows = list(map(list, zip(self.data[0].tolist(), *(c.tolist() for c in self.data[1:]))))
        return self._rows

    @rows.setter
    def rows(self, value):
        if value is not None:
            self._rows = value
            self.data = None  # rows given: the row-wise renderers

    def n_rows(self) -> int:
        return len(self.data[0]) if self.data is not None else len(self.rows)


def _column_render(t: ColumnTable, fmt: str) -> str:
    """A :class:`ColumnTable` in any format: the text of the row-wise renderer, built column-wise."""
    from . import columns as C

    cols = list(t.columns)
    if fmt == "json":  # the row-wise renderer's object with an empty "rows", the rows' text put in its place
        if "rows" in t.meta:  # not a ColumnTable's own rows: the general renderer
            return render_table(Table(t.columns, t.rows, t.title, t.notes, t.digits, t.meta, t.col_digits, t.marks,
                                      t.legend), fmt)
        obj = json_object(Table(cols, [], t.title, t.notes, meta=t.meta, legend=t.legend))
        head, tail = dumps(obj).split('\n  "rows": []', 1)
        return head + '\n  "rows": [\n' + C.json_rows(t.data[0], t.data[1:], cols) + "\n  ]" + tail
    if fmt in ("tsv", "csv", "markdown", "latex"):
        sep = {"tsv": "\t", "csv": ",", "markdown": " | ", "latex": " & "}[fmt]
        digits = [t.digits_of(i + 1) for i in range(len(t.data) - 1)]
        body = C.compiled_rows(t.data[0], t.data[1:], digits, sep)
        if body is None:
            body = C.join_rows([C.int_cells(t.data[0])] + [C.float_cells(c, d) for c, d in zip(t.data[1:], digits)], sep)
        body = body[:-1]
        if fmt == "tsv":
            return "\t".join(cols) + "\n" + body
        if fmt == "csv":
            buf = io.StringIO()
            csv.writer(buf, lineterminator="\n").writerow(cols)
            return buf.getvalue() + body
        # every column is numeric (right-aligned); a number's text holds no character Markdown or LaTeX escapes,
        # and '-' only as its sign (LaTeX: a math minus, as _latex_num writes it)
        cols = [c + t.marks.get(c, "") for c in cols]
        if fmt == "markdown":
            out = [f"**{t.title}**", ""] if t.title else []
            out.append("| " + " | ".join(c.replace("|", r"\|") for c in cols) + " |")
            out.append("|" + "|".join("---:" for _ in cols) + "|")
            out.append("| " + body.replace("\n", " |\n| ") + " |")
            if t.notes or t.legend:
                out.append("")
                out += [f"- `{n}`" for n in t.notes] + [f"- {_md(n)}" for n in t.legend]
            return "\n".join(out)
        out = [r"\begin{table}[t]", r"\centering"]
        if t.title:
            out.append(rf"\caption{{{_latex(t.title)}}}")
        out += [rf"\begin{{tabular}}{{{'r' * len(cols)}}}", r"\toprule",
                " & ".join(_latex(c) for c in cols) + r" \\", r"\midrule"]
        out.append(body.replace("-", "$-$").replace("\n", " \\\\\n") + r" \\")
        out += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        out += ["% " + n.replace("\n", " ") for n in list(t.notes) + list(t.legend)]
        return "\n".join(out)
    cells = [C.int_cells(t.data[0])] + [C.float_cells(c, t.digits_of(i + 1)) for i, c in enumerate(t.data[1:])]
    # text
    cols = [c + t.marks.get(c, "") for c in cols]
    widths = [max(len(c), int(x.lens.max())) for c, x in zip(cols, cells)]
    head = "  ".join((v.ljust(w) if i == 0 else v.rjust(w)) for i, (v, w) in enumerate(zip(cols, widths)))
    out = ([t.title] if t.title else []) + [head, "  ".join("-" * w for w in widths)]
    body = C.join_rows(cells, "  ", widths, [i > 0 for i in range(len(cells))])[:-1]
    tail = ["", *t.notes, *t.legend] if (t.notes or t.legend) else []
    return "\n".join(out + [body] + tail)


def _num(v, digits: int) -> str:
    if isinstance(v, (float,)) or (hasattr(v, "dtype") and getattr(v.dtype, "kind", "") == "f"):
        v = float(v)
        if math.isnan(v):
            return "nan"
        return f"{v:.{digits}f}"
    return str(v)


def _is_ci(v) -> bool:
    return (isinstance(v, tuple) and len(v) == 2
            and all(x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)) for x in v))


def _cell(v, digits: int) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Marked):
        return _num(v.value, digits) + v.mark
    if isinstance(v, float):
        return _num(v, digits)
    if _is_ci(v):
        return "(" + ", ".join("-" if x is None else _num(float(x), digits) for x in v) + ")"
    return str(v)


def _json_value(v):
    if isinstance(v, Marked):
        return _json_value(v.value)
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, tuple):
        return [_json_value(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (list, dict)):
        return _json_value(v.item())
    return v


_LATEX_ESC = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
              "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
              "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
              # direction arrows and significance marks (amssymb for the triangles)
              "↑": r"$\uparrow$", "↓": r"$\downarrow$", "▲": r"$\blacktriangle$", "▼": r"$\blacktriangledown$",
              "±": r"$\pm$", "×": r"$\times$"}
_LATEX_MATH_MARK = {"▲": r"\blacktriangle", "▼": r"\blacktriangledown"}


def _latex(s: str) -> str:
    return "".join(_LATEX_ESC.get(ch, ch) for ch in s)


def _latex_num(text: str) -> str:
    """A rendered number: a leading minus becomes a math minus."""
    return "$-$" + text[1:] if text.startswith("-") and len(text) > 1 else _latex(text)


def _latex_cell(v, digits: int) -> str:
    if v is None:
        return "--"
    if isinstance(v, Marked):
        base = _latex_num(_num(v.value, digits))
        mark = "".join(_LATEX_MATH_MARK.get(ch, _latex(ch)) for ch in v.mark)
        return base + (f"$^{{{mark}}}$" if v.mark else "")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return _latex_num(_cell(v, digits))
    if _is_ci(v):
        return "(" + ", ".join("--" if x is None else _latex_num(_num(float(x), digits)) for x in v) + ")"
    return _latex(_cell(v, digits))


_MD_ESC = {"|": r"\|", "*": r"\*", "_": r"\_", "`": r"\`", "<": "&lt;", ">": "&gt;"}


def _md(s: str) -> str:
    return "".join(_MD_ESC.get(ch, ch) for ch in s)


def _cells(t: Table) -> list[list[str]]:
    """Every cell as text (``_cell``), column by column: a column of plain floats (or ints, or strings
    without newlines) is formatted with one ``str.format`` map instead of per-cell dispatch, which keeps
    100k-row sentence-level tables cheap; the text is identical to ``_cell``'s."""
    if not t.rows:
        return []
    n_cols = len(t.rows[0])
    if any(len(r) != n_cols for r in t.rows):  # ragged rows: the general path
        return [[(_p_cell(v) if t.p_cols and i < len(t.columns) and t.columns[i] in t.p_cols else
                  _cell(v, t.digits_of(i))).replace("\n", " ") for i, v in enumerate(r)] for r in t.rows]
    return [list(r) for r in zip(*_columns(t))]


def _p_cell(v) -> str:
    from .model import format_p
    mark = ""
    if isinstance(v, Marked):
        v, mark = v.value, v.mark
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        txt = format_p(float(v))
        return ("nan" if txt is None else txt) + mark
    return _cell(v, 4)


def _columns(t: Table) -> list[list[str]]:
    """The cells of :func:`_cells` column by column (rows of equal length)."""
    columns = []
    for i, col in enumerate(zip(*t.rows)):
        kinds = set(map(type, col))
        if t.p_cols and t.columns[i] in t.p_cols:
            columns.append([_p_cell(v) for v in col])
        elif kinds and all(k is not bool and issubclass(k, float) for k in kinds):
            columns.append(list(map(f"{{:.{t.digits_of(i)}f}}".format, col)))
        elif kinds == {int}:
            columns.append(list(map(str, col)))
        elif kinds == {str} and not any("\n" in v for v in col):
            columns.append(list(col))
        else:
            columns.append([_cell(v, t.digits_of(i)).replace("\n", " ") for v in col])
    return columns


def render_table(t: Table, fmt: str = "text", width: int | None = None) -> str:
    """``t`` in ``fmt``; ``width`` (text only): fit the table into that many columns (:func:`_fit_text`)."""
    if fmt not in FORMATS:
        raise InvalidParameterError.choice("format", fmt, FORMATS)
    if fmt == "text" and width is not None:
        return _fit_text(t, width)
    if fmt in ("tsv", "csv") and t.tidy is not None:
        return render_tidy(t.tidy, fmt)
    if fmt in ("tsv", "csv", "json") and t.p_cols:  # p-values as numbers there
        import copy
        t = copy.copy(t)
        t.p_cols = ()
    if isinstance(t, ColumnTable) and t.data is not None and t.n_rows():
        return _column_render(t, fmt)
    cols = list(t.columns)
    if fmt == "json":
        return dumps(json_object(t))
    if fmt == "tsv" and t.rows and all(len(r) == len(t.rows[0]) for r in t.rows):
        # column by column, rows joined at C speed (100k-row sentence-level tables); same text as below
        columns = [[c.replace("\t", " ") for c in col] if any("\t" in c for c in col) else col for col in _columns(t)]
        return "\n".join(["\t".join(cols)] + list(map("\t".join, zip(*columns))))
    cells = _cells(t)
    if fmt not in ("tsv", "csv"):
        numeric = [bool(t.rows) and all(_is_num(r[i]) for r in t.rows if r[i] is not None)
                   and any(r[i] is not None for r in t.rows) for i in range(len(cols))]
    if fmt == "tsv":
        lines = ["\t".join(cols)] + ["\t".join(c.replace("\t", " ") for c in r) for r in cells]
        return "\n".join(lines)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        w.writerows(cells)
        return buf.getvalue().rstrip("\n")
    cols = [c + t.marks.get(c, "") for c in cols]  # header marks: for readers, not for TSV/CSV/JSON
    if fmt == "markdown":
        out = []
        if t.title:
            out += [f"**{t.title}**", ""]
        out.append("| " + " | ".join(c.replace("|", r"\|") for c in cols) + " |")
        out.append("|" + "|".join("---:" if numeric[i] else "---" for i in range(len(cols))) + "|")
        out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in cells]
        if t.notes or t.legend:
            out.append("")
            out += [f"- `{n}`" for n in t.notes] + [f"- {_md(n)}" for n in t.legend]
        return "\n".join(out)
    if fmt == "latex":
        spec = "".join("r" if n else "l" for n in numeric)
        out = [r"\begin{table}[t]", r"\centering"]
        if t.title:
            out.append(rf"\caption{{{_latex(t.title)}}}")
        out += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                " & ".join(_latex(c) for c in cols) + r" \\", r"\midrule"]
        out += [" & ".join(_latex(_p_cell(v)) if (t.p_cols and t.columns[i] in t.p_cols and v is not None) else
                           _latex_cell(v, t.digits_of(i)) for i, v in enumerate(r)) + r" \\" for r in t.rows]
        out += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        out += ["% " + n.replace("\n", " ") for n in list(t.notes) + list(t.legend)]
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
    if t.notes or t.legend:
        out.append("")
        out += list(t.notes) + list(t.legend)
    return "\n".join(out)


def text_width(s: str) -> int:
    """Columns a string takes on a terminal: wide (CJK) characters two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _clip(s: str, w: int) -> str:
    """``s`` cut to ``w`` terminal columns, an ellipsis marking the cut."""
    if text_width(s) <= w:
        return s
    out, used = [], 0
    for c in s:
        cw = text_width(c)
        if used + cw > w - 1:
            break
        out.append(c)
        used += cw
    return "".join(out) + "…"


MIN_TEXT_COLUMN = 12  # a text column is never cut below this many terminal columns
MAX_TEXT_COLUMN = 40  # ... nor, when the table has to wrap into blocks anyway, below this many


def _fit_text(t: Table, width: int) -> str:
    """The text rendering fitted into ``width`` terminal columns (docs/report.md, "Text output"): text columns
    (sentences, names) are left-aligned and, widest first, cut with an ellipsis as far as needed, down to
    :data:`MIN_TEXT_COLUMN`; numbers and intervals are never cut: when the table does not fit even so, texts are cut
    to :data:`MAX_TEXT_COLUMN` at most and the columns are wrapped into blocks under each other, each repeating the
    first column. The title, notes and legends wrap at spaces (a
    signature, one word, stays whole)."""
    import textwrap
    cols = [c + t.marks.get(c, "") for c in t.columns]
    rows = t.rows
    cells = _cells(t) if rows else []
    numeric = [bool(rows) and all(_is_num(r[i]) or _is_ci(r[i]) for r in rows if r[i] is not None)
               and any(r[i] is not None for r in rows) for i in range(len(cols))]
    widths = [max([text_width(c)] + [text_width(r[i]) for r in cells]) for i, c in enumerate(cols)]
    sep = 2
    text_cols = [i for i in range(len(cols)) if not numeric[i]]
    # cutting texts down to MIN_TEXT_COLUMN makes the table fit: cut them (widest first) just enough; it does
    # not (many numbers): cut only texts longer than MAX_TEXT_COLUMN, and wrap the columns into blocks
    floor = [min(widths[i], MIN_TEXT_COLUMN) if i in text_cols else widths[i] for i in range(len(cols))]
    blocks_needed = sum(floor) + sep * (len(cols) - 1) > width
    if blocks_needed:
        widths = [min(w, MAX_TEXT_COLUMN) if i in text_cols else w for i, w in enumerate(widths)]
    while not blocks_needed and sum(widths) + sep * (len(widths) - 1) > width:
        over = sum(widths) + sep * (len(widths) - 1) - width
        j = max(text_cols, key=lambda i: widths[i], default=None)
        if j is None or widths[j] <= MIN_TEXT_COLUMN:
            break
        # the widest text column down to the next widest (at least one column at a time), the floor kept
        step = max(1, min(over, widths[j] - max([widths[i] for i in text_cols if i != j], default=0)))
        widths[j] = max(MIN_TEXT_COLUMN, widths[j] - step)
    cols = [_clip(c, w) for c, w in zip(cols, widths)]
    cells = [[_clip(v, w) for v, w in zip(r, widths)] for r in cells]

    def pad(v, i):
        gap = " " * (widths[i] - text_width(v))
        return v + gap if not numeric[i] else gap + v

    # blocks of columns that fit, each with the first column (the row's name) again
    blocks, cur = [], [0]
    for i in range(1, len(cols)):
        if len(cur) > 1 and sum(widths[k] for k in cur) + widths[i] + sep * len(cur) > width:
            blocks.append(cur)
            cur = [0]
        cur.append(i)
    blocks.append(cur)
    out = textwrap.wrap(t.title, width, break_long_words=False) if t.title else []
    for b, block in enumerate(blocks):
        if b:
            out.append("")
        out.append("  ".join(pad(cols[i], i) for i in block).rstrip())
        out.append("  ".join("-" * widths[i] for i in block))
        out += ["  ".join(pad(r[i], i) for i in block).rstrip() for r in cells]
    if t.notes or t.legend:
        out.append("")
        for n in list(t.notes) + list(t.legend):
            out += textwrap.wrap(n, width, break_long_words=False, break_on_hyphens=False) or [""]
    return "\n".join(out)


def json_object(t: Table) -> dict:
    """The JSON object of a table (before :func:`dumps`): columns, rows, title, notes (signatures and other
    data), legend (what marks mean, for readers), then the table's ``meta``."""
    cols = list(t.columns)
    obj = {"columns": cols, "rows": [dict(zip(cols, (_json_value(v) for v in r))) for r in t.rows]}
    if t.title:
        obj["title"] = t.title
    if t.notes:
        obj["notes"] = list(t.notes)
    if t.legend:
        obj["legend"] = list(t.legend)
    obj.update(t.meta)
    return obj


def full(v) -> str:
    """A TSV/CSV cell in full precision: floats as ``repr`` (shortest text that reads back to the same
    number), NaN as ``nan``, None as empty (pandas reads both as NaN)."""
    if v is None:
        return ""
    if isinstance(v, Marked):
        v = v.value
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) or math.isnan(v) else ("inf" if v > 0 else "-inf")
    if hasattr(v, "item") and not isinstance(v, str):
        return full(v.item())
    return str(v)


def render_tidy(t: Table, fmt: str) -> str:
    """A tidy table as TSV or CSV: every cell in full precision (:func:`full`)."""
    rows = [[full(v) for v in r] for r in t.rows]
    if fmt == "tsv":
        clean = [[c.replace("\t", " ").replace("\n", " ") for c in r] for r in [list(t.columns)] + rows]
        return "\n".join("\t".join(r) for r in clean)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(list(t.columns))
    w.writerows(rows)
    return buf.getvalue().rstrip("\n")


LONG_COLUMNS = ("table", "row", "column", "statistic", "value", "text", "metric", "name", "scale", "higher_is_better",
                "signature")


def long_table(tables: Sequence[Table]) -> Table:
    """Several tables (e.g. ``mtscore analyse``'s, one per metric) as ONE tidy long table for TSV/CSV: a row per
    cell — ``table`` (its title), ``row`` (the row's first cell), ``column``, ``statistic`` (``value``, or
    ``ci_low``/``ci_high`` for an interval cell), ``value`` (numbers in full precision) or ``text`` (other cells),
    and, on the cells that show a metric's values (the columns with a direction mark, and their intervals), the
    metric of the table (``metric``, ``name``, ``scale``, ``higher_is_better``, ``signature``, from its JSON
    ``metrics``)."""
    rows = []
    for t in tables:
        mv = (t.meta.get("metrics") or [None])[0] if isinstance(t.meta, dict) else None
        for r in t.rows:
            key = r[0]
            for col, v in zip(list(t.columns)[1:], list(r)[1:]):
                if isinstance(v, Marked):
                    v = v.value
                if v is None:
                    continue
                # the metric's columns: its values (a direction mark in the header) and their intervals
                metric_col = mv is not None and (col in t.marks or (_is_ci(v) and col.endswith(" CI")))
                base = [t.title, key, col]
                tail = ([mv.get("metric"), mv.get("name"), mv.get("scale"), mv.get("higher_is_better"),
                         mv.get("signature")] if metric_col else [None] * 5)
                if _is_ci(v):
                    for stat, x in zip(("ci_low", "ci_high"), v):
                        if x is not None:
                            rows.append(base + [stat, float(x), None] + tail)
                elif _is_num(v):
                    rows.append(base + ["value", float(v), None] + tail)
                else:
                    rows.append(base + ["text", None, str(v)] + tail)
    return Table(list(LONG_COLUMNS), rows)


def dumps(obj) -> str:
    from .model import dumps as _dumps
    return _dumps(obj)
