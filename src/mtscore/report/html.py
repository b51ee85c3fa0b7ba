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


def table_html(t: Table, *, exports: bool = True, caption: str | None = None, signatures: bool = True) -> str:
    """A table as HTML (numbers right-aligned, significance marks highlighted), its notes
    (signatures) and, in a ``<details>`` block, its LaTeX / Markdown / CSV renderings."""
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
    out = ['<div class="tw"><table class="t">']
    cap = t.title if caption is None else caption
    if cap:
        out.append(f"<caption>{esc(cap)}</caption>")
    heads = []
    for i, c in enumerate(cols):
        if ci[i]:
            continue
        under = f'<span class="ci">{_header(cols[i + 1] + t.marks.get(cols[i + 1], ""))}</span>' if ci[i + 1] else ""
        heads.append(f'<th{" class=n" if num[i] else ""}>{_header(c + t.marks.get(c, ""))}{under}</th>')
    out.append("<thead><tr>" + "".join(heads) + "</tr></thead><tbody>")
    for r in t.rows:
        cells = []
        for i, v in enumerate(r):
            if ci[i]:
                continue
            d = t.digits_of(i)
            numeric = _is_num(v) or (isinstance(v, tuple) and len(v) == 2)
            cls = ' class="n"' if numeric else ""
            under = f'<span class="ci">{esc(_cell(r[i + 1], t.digits_of(i + 1)))}</span>' if ci[i + 1] else ""
            if isinstance(v, Marked) and v.mark:
                base = _cell(Marked(v.value, ""), d)
                cells.append(f'<td{cls}>{esc(base)}<span class="sig">{esc(v.mark)}</span>{under}</td>')
            else:
                cells.append(f"<td{cls}>{esc(_cell(v, d))}{under}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
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
