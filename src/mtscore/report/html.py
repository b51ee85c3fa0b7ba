"""Self-contained HTML documents: sections of paragraphs, tables and inline-SVG figures.

The page needs nothing from the network: styles are inline, figures are inline SVG, and a
Content-Security-Policy meta tag (``default-src 'none'; style-src 'unsafe-inline'; img-src data:``, plus
``script-src 'sha256-...'`` naming the page's own inline scripts, if any) makes the browser refuse (and
report) any external load and any other script. Every table can be copied
as LaTeX (booktabs), Markdown or CSV from a ``<details>`` block under it, and carries the
signatures of its numbers.

Used by ``mtscore report`` (:mod:`mtscore.report.systems`), ``mtscore meta --html``
(:mod:`mtscore.report.meta_html`) and meant for ``mtscore audit``.
"""
from __future__ import annotations

import base64
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from html import escape
from typing import Sequence

from .._version import __version__
from .tables import Marked, Table, _cell, _is_num, render_table

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

STYLE = """
:root{color-scheme:light}
body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:0;color:#1a1a1a;
background:#fafafa;line-height:1.45}
header{background:#1f3b57;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;opacity:.85;font-size:13px}
nav{padding:8px 28px;background:#e9eef3;font-size:13px}
nav a{margin-right:14px;color:#1f3b57}
main{padding:8px 28px 40px;max-width:1840px}
main p{max-width:110ch}
section{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:6px 18px 14px;margin:16px 0}
h2{font-size:18px;border-bottom:1px solid #eee;padding-bottom:4px}
h3{font-size:15px;margin:14px 0 6px}
.tw{overflow-x:auto;max-width:100%;position:relative}
table.t tr>:first-child{position:sticky;left:0;background:#fff;z-index:1;box-shadow:1px 0 0 #ddd}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,320px),1fr));gap:4px 12px}
.grid figure{display:block;margin:6px 0;min-width:0}
.grid svg{width:100%;height:auto;display:block}
table.t{border-collapse:collapse;font-size:13px;margin:6px 0}
table.t caption{text-align:left;font-weight:600;padding:4px 0}
table.t th,table.t td{padding:3px 10px;border-bottom:1px solid #eee;vertical-align:top}
table.t thead th{border-bottom:2px solid #444;text-align:left;overflow-wrap:anywhere;min-width:4.5em}
table.t td.n,table.t th.n{text-align:right;font-variant-numeric:tabular-nums}
table.t td.n{white-space:nowrap}
table.t th .w{white-space:nowrap}
table.t .lw{overflow-wrap:anywhere}
table.t td.h{min-width:min(11em,28vw)}
table.t tbody tr:last-child td{border-bottom:2px solid #444}
.sig{color:#b00;font-weight:700}
table.t .ci{display:block;color:#666;font-size:11.5px;font-weight:400}
.note,.sigs{font-size:11.5px;color:#555;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
overflow-wrap:anywhere;margin:2px 0}
details{margin:4px 0 10px;font-size:12.5px}
details summary{cursor:pointer;color:#1f3b57}
pre{background:#f4f4f4;padding:8px;overflow-x:auto;font-size:11.5px;max-height:320px}
pre.sigs{white-space:pre-wrap;overflow-wrap:anywhere;overflow-x:visible}
figure{margin:10px 12px 10px 0;display:inline-block;vertical-align:top}
figcaption{font-size:12px;color:#444;overflow-wrap:anywhere}
header p,h2,h3,p{overflow-wrap:anywhere}
svg{max-width:100%;height:auto}
.seg{border-top:1px solid #eee;padding:6px 0;font-size:13px}
.seg .lab{display:inline-block;min-width:min(170px,35%);margin-right:8px;color:#555;font-size:12px;overflow-wrap:anywhere}
.seg div{overflow-wrap:anywhere}
.tok-m{background:#d9f2d9}
.tok-x{background:#ffd6d6;text-decoration:none}
.tok-r{background:#fff1c2}
.op{border-radius:2px;padding:0 1px}
.op-match{background:#d9f2d9}
.op-sub{background:#fff1c2}
.op-ins{background:#ffd6d6}
.op-del{background:#e3e3e3;text-decoration:line-through}
.legend span{margin-right:10px;font-size:12px;padding:0 3px}
.muted{color:#777;font-size:12.5px}
@media (max-width:600px){header,nav{padding-left:10px;padding-right:10px}main{padding:6px 8px 30px}
section{padding:4px 10px 10px}}
"""


def script_hash(script: str) -> str:
    """The CSP source that allows exactly this inline script."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"


def esc(s) -> str:
    return escape(str(s), quote=True)


def esc_sig(s) -> str:
    """Escaped text whose signatures break between fields (after '|' and ','), not in the middle of a word."""
    return esc(s).replace("|", "|<wbr>").replace(",", ",<wbr>")


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-") or "s"


def _header(text: str) -> str:
    """A header's words, each unbreakable (``segment`` never becomes ``segment``/``s``, ``LIUM-NMT:`` never
    ``LIUM-``/``NMT:``); the header wraps between words. A word longer than ``LONG_WORD`` characters (an 80-character
    system name) may still break, or no table would fit a laptop screen."""
    return " ".join(f'<span class="w">{esc(w)}</span>' if len(w) <= LONG_WORD else esc(w)
                    for w in text.split(" ") if w)


LONG_WORD = 24


def _is_signature(note: str) -> bool:
    return "|version:mtscore" in note or note.startswith("report|")


# What a table may take at a 1280 px window: the window less main's and the section's padding and borders
# (2 x 28 + 2 x 19 px) and a scroll bar (15 px). A table wider than this is split into pieces (see table_html).
TABLE_PX = 1280 - 56 - 38 - 15
FIRST_COLUMN_PX = 210  # the first column (systems, subsets) as a piece reserves it, up to its text's width


def _char_em(ch: str, bold: bool) -> float:
    """A character's advance in em, on the wide side of common sans-serif fonts (DejaVu Sans, the widest of
    them, measured in Chromium): digits 0.64 (bold 0.70), a lower-case letter 0.62 on average."""
    if "0" <= ch <= "9":
        return 0.70 if bold else 0.64
    if ch in " .,:;'|!":
        return 0.38 if bold else 0.32
    if ch in "()[]-ilIjtf":
        return 0.46 if bold else 0.40
    if ch in "mwMW%@":
        return 1.1 if bold else 1.0
    if unicodedata.east_asian_width(ch) in "WF":
        return 1.0
    if ch.isupper():
        return 0.85 if bold else 0.76
    return 0.69 if bold else 0.63


def _text_px(text: str, size: float, bold: bool = False) -> float:
    return size * sum(_char_em(c, bold) for c in text)


def _min_px(text: str, size: float, bold: bool = False) -> float:
    """The narrowest a text wraps to: its longest word (a word longer than ``LONG_WORD`` characters breaks
    anywhere, see :func:`_breakable`)."""
    return max([_text_px(w, size, bold) for w in text.split() if len(w) <= LONG_WORD] + [size])


def _breakable(text: str) -> str:
    """Escaped cell text whose words longer than ``LONG_WORD`` characters (an 80-character system name) may break
    anywhere, so that no name alone makes a table wider than the screen."""
    return " ".join(f'<span class="lw">{esc(w)}</span>' if len(w) > LONG_WORD else esc(w) for w in text.split(" "))


def _pieces(widths: list[float], groups: list[list[int]], budget: float) -> list[list[int]]:
    """The groups of visible columns (after the first, ``widths[0]``) put into as few consecutive pieces as fit
    ``budget`` px each (with the first column again; a group wider than that is a piece alone), of even widths:
    the least budget that needs no more pieces."""
    best = _fill(widths, groups, budget)
    lo, hi = 0.0, budget
    while hi - lo > 4:
        mid = (lo + hi) / 2
        if len(_fill(widths, groups, mid)) <= len(best):
            hi = mid
        else:
            lo = mid
    return _fill(widths, groups, hi)


def _fill(widths: list[float], groups: list[list[int]], budget: float) -> list[list[int]]:
    """The groups put into pieces in order, each as many as fit ``budget`` px (at least one)."""
    out, cur, used = [], [], widths[0]
    for g in groups:
        w = sum(widths[i] for i in g)
        if cur and used + w > budget:
            out.append(cur)
            cur, used = [], widths[0]
        cur += g
        used += w
    if cur or not out:
        out.append(cur)
    return out


def table_html(t: Table, *, exports: bool = True, caption: str | None = None, signatures: bool = True) -> str:
    """A table as HTML (numbers right-aligned, significance marks highlighted), its notes
    (signatures) and, in a ``<details>`` block, its LaTeX / Markdown / CSV renderings.

    A table wider than a 1280 px window (:data:`TABLE_PX`, by the widths its texts take at least) is shown as
    pieces under each other, each repeating the first column (systems, subsets) and keeping the table's column
    groups (:attr:`Table.groups`: a metric's score, interval and p-values) together, so that no table scrolls
    sideways from 1280 px on, whatever the number of metrics or systems; narrower windows scroll each piece in its
    own box with the first column frozen. The exports keep the whole table."""
    cols = list(t.columns)
    num = [bool(t.rows) and all(_is_num(r[i]) for r in t.rows if r[i] is not None) for i in range(len(cols))]
    # an interval column (every value a (low, high) pair) is shown under the number it belongs to (the column
    # before it), and an adjusted p-value under its unadjusted one: half the columns, so that score tables fit a
    # laptop screen (the exports keep every column)
    ci = [i > 0 and num[i - 1] and any(r[i] is not None for r in t.rows)
          and all(isinstance(r[i], tuple) and len(r[i]) == 2 for r in t.rows if r[i] is not None)
          for i in range(len(cols))]
    for i, c in enumerate(cols):
        if i > 0 and c.startswith("p_adj") and cols[i - 1] == "p" + c[len("p_adj"):] and not ci[i - 1]:
            ci[i] = True
    ci.append(False)
    heads, body = {}, {}  # visible column -> its header cell, its cells (one per row)
    width = {}  # visible column -> the least width it takes (px)
    for i, c in enumerate(cols):
        if ci[i]:
            continue
        label = c + t.marks.get(c, "")
        under = f'<span class="ci">{_header(cols[i + 1] + t.marks.get(cols[i + 1], ""))}</span>' if ci[i + 1] else ""
        heads[i] = f'<th{" class=n" if num[i] else ""}>{_header(label)}{under}</th>'
        w = max(_min_px(label, 13, True), 4.5 * 13,
                _min_px(cols[i + 1] + t.marks.get(cols[i + 1], ""), 11.5) if ci[i + 1] else 0)
        cells = []
        for r in t.rows:
            v = r[i]
            d = t.digits_of(i)
            numeric = _is_num(v) or (isinstance(v, tuple) and len(v) == 2)
            cls = ' class="n"' if numeric else ""
            below = _cell(r[i + 1], t.digits_of(i + 1)) if ci[i + 1] else ""
            under = f'<span class="ci">{esc(below)}</span>' if ci[i + 1] else ""
            text = _cell(v, d)
            if numeric:  # on one line
                w = max(w, _text_px(text, 13), _text_px(below, 11.5))
            else:
                w = max(w, _min_px(text, 13), _min_px(below, 11.5))
                if i == 0:  # the first column as wide as its texts, up to FIRST_COLUMN_PX (at least 11 em)
                    w = max(w, 11 * 13, min(FIRST_COLUMN_PX - 20, _text_px(text, 13)))
            if isinstance(v, Marked) and v.mark:
                base = _cell(Marked(v.value, ""), d)
                w = max(w, _text_px(base, 13) + _text_px(v.mark, 13, True))
                cells.append(f'<td{cls}>{esc(base)}<span class="sig">{esc(v.mark)}</span>{under}</td>')
            elif numeric:
                cells.append(f"<td{cls}>{esc(text)}{under}</td>")
            elif i == 0:  # a row's name: never narrower than 11 em (a long name wraps, not to a word a line)
                cells.append(f'<td class="h">{_breakable(text)}{under}</td>')
            else:
                cells.append(f"<td{cls}>{_breakable(text)}{under}</td>")
        body[i] = cells
        width[i] = w + 20  # the cell's padding
    visible = list(heads)
    # the column groups, on the visible columns (an interval or adjusted p belongs to its column's group)
    group_of, k = {}, 1
    for g, size in enumerate(t.groups):
        for i in range(k, k + size):
            group_of[i] = g
        k += size
    groups = []
    for i in visible[1:]:
        key = group_of.get(i, ("alone", i))
        if groups and groups[-1][0] == key:
            groups[-1][1].append(i)
        else:
            groups.append((key, [i]))
    pos = {i: j for j, i in enumerate(visible)}
    pieces = _pieces([width[i] for i in visible], [[pos[i] for i in g] for _, g in groups], TABLE_PX) \
        if visible else [[]]
    cap = t.title if caption is None else caption
    out = []
    for p, piece in enumerate(pieces):
        shown = visible[:1] + [visible[j] for j in piece]
        out.append('<div class="tw"><table class="t">')
        if cap:
            more = f" ({p + 1} of {len(pieces)})" if len(pieces) > 1 else ""
            out.append(f"<caption>{esc(cap)}{more}</caption>")
        out.append("<thead><tr>" + "".join(heads[i] for i in shown) + "</tr></thead><tbody>")
        for r in range(len(t.rows)):
            out.append("<tr>" + "".join(body[i][r] for i in shown) + "</tr>")
        out.append("</tbody></table></div>")
    for n in t.notes:  # signatures=False: the page lists them once (its "Signatures" section)
        if signatures or not _is_signature(n):
            out.append(f'<p class="note">{esc_sig(n)}</p>')
    for n in t.legend:
        out.append(f'<p class="note muted">{esc(n)}</p>')
    if exports:
        out.append("<details><summary>LaTeX (booktabs) · Markdown · CSV</summary>")
        for fmt, label in (("latex", "LaTeX"), ("markdown", "Markdown"), ("csv", "CSV")):
            out.append(f"<p class=\"muted\">{label}</p><pre>{esc(render_table(t, fmt))}</pre>")
        out.append("</details>")
    return "\n".join(out)


def figure(svg: str, caption: str = "") -> str:
    cap = f"<figcaption>{esc_sig(caption)}</figcaption>" if caption else ""
    return f"<figure>{svg}{cap}</figure>"


def para(text: str, cls: str = "") -> str:
    return f'<p{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>{esc(text)}</p>'


@dataclass
class Section:
    title: str
    blocks: list[str] = field(default_factory=list)
    id: str = ""

    def add(self, html: str) -> "Section":
        self.blocks.append(html)
        return self

    def text(self, s: str, cls: str = "") -> "Section":
        return self.add(para(s, cls))

    def table(self, t: Table, **kw) -> "Section":
        return self.add(table_html(t, **kw))

    def figure(self, svg: str, caption: str = "") -> "Section":
        """One figure, in a grid cell like :meth:`figures`' (the same size as the other plots)."""
        return self.figures([(svg, caption)])

    def figures(self, items) -> "Section":
        """Several figures laid out in a grid (as many columns as the width allows), not one per row."""
        items = list(items)
        if not items:
            return self
        return self.add('<div class="grid">' + "".join(figure(svg, cap) for svg, cap in items) + "</div>")

    def sub(self, title: str) -> "Section":
        return self.add(f"<h3>{esc(title)}</h3>")


@dataclass
class Document:
    """An HTML page: a title, a subtitle line, sections (with a table of contents)."""

    title: str
    subtitle: str = ""
    sections: list[Section] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)  # inline scripts, each allowed by its hash in the CSP
    styles: list[str] = field(default_factory=list)  # extra inline CSS

    def section(self, title: str, id: str = "") -> Section:
        s = Section(title, id=id or _slug(title))
        used = {x.id for x in self.sections}
        base, k = s.id, 2
        while s.id in used:
            s.id = f"{base}-{k}"
            k += 1
        self.sections.append(s)
        return s

    def render(self) -> str:
        nav = " ".join(f'<a href="#{esc(s.id)}">{esc(s.title)}</a>' for s in self.sections)
        body = []
        for s in self.sections:
            body.append(f'<section id="{esc(s.id)}"><h2>{esc(s.title)}</h2>')
            body += s.blocks
            body.append("</section>")
        sub = f"<p>{esc_sig(self.subtitle)}</p>" if self.subtitle else ""
        csp = CSP
        if self.scripts:
            csp += "; script-src " + " ".join(script_hash(x) for x in self.scripts)
        return "\n".join([
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta name="generator" content="mtscore {esc(__version__)}">',
            f"<title>{esc(self.title)}</title>",
            f"<style>{STYLE}{''.join(self.styles)}</style>",
            "</head>",
            "<body>",
            f"<header><h1>{esc(self.title)}</h1>{sub}</header>",
            f"<nav>{nav}</nav>",
            "<main>",
            *body,
            "</main>",
            *(f"<script>{x}</script>" for x in self.scripts),
            "</body>",
            "</html>",
            "",
        ])


def tables_text(tables: Sequence[Table], fmt: str, width: int | None = None) -> str:
    """Several tables in one output: a JSON document ``{"tables": [...]}`` or blocks separated by blank lines;
    ``width``: text fitted into that many columns (:func:`mtscore.report.tables.render_table`)."""
    from .tables import dumps, json_object
    if fmt == "json":
        return dumps({"tables": [json_object(t) for t in tables]})
    return "\n\n".join(render_table(t, fmt, width if fmt == "text" else None) for t in tables)
