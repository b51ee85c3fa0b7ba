"""HTML page for ``mtscore meta --task-set ... -o FILE``: the metrics ranking with significance clusters, as the WMT
metrics-task findings show it.

Rendering only: the page is drawn from the same :class:`~mtscore.report.tables.Table` that the text and JSON outputs
print (:func:`mtscore.report.meta.task_set_table`: its rows, and in ``meta`` each task's values, cluster ranks and
p-value matrix, the average's clusters and the WMT names of primary submissions, baselines and human baselines). No
statistic is computed here.

* The ranking table: metrics by the task set's weighted average value (WMT's global ranking), the average's
  significance cluster (a group of metrics none of which the best of the group beats significantly), the average
  rank, and per task the value with the task's cluster. Rows of one cluster share a band; a line separates clusters.
  Human baselines (a second human rating scored as a metric, as WMT25 reports them) are rows like the metrics, marked
  "human"; where they lack a task they have no average and follow the metrics.
* Column headers sort the table (click, or Enter/Space on the focused header; numbers descend first); the bands then
  follow the sorted column's clusters. Each metric's row expands (its button, or Enter/Space) to its per-task
  detail: value, cluster and the p-value that the task's best metric is not better.
* Per task and for the average, the p-value matrix in a ``<details>`` block (keyboard-expandable as well).

The one inline script only sorts and expands; the Content-Security-Policy allows it by its hash, nothing else.
"""
from __future__ import annotations

import math

from .html import Document, esc, esc_sig, table_html
from .model import P_DIGITS, P_FLOOR
from .tables import Table

STYLE = """
.rk-box{overflow-x:auto;max-width:100%}
table.rk{border-collapse:collapse;font-size:13px;margin:6px 0}
table.rk th,table.rk td{padding:3px 8px;border-bottom:1px solid #eee;vertical-align:top;white-space:nowrap}
table.rk>thead th{border-bottom:2px solid #444;text-align:left;cursor:pointer;user-select:none;position:sticky;top:0;
background:#f3f5f7}
table.rk>thead th:focus-visible,table.rk button:focus-visible{outline:2px solid #0072B2;outline-offset:-2px}
table.rk>thead th[aria-sort=ascending]::after{content:" \\25B2"}
table.rk>thead th[aria-sort=descending]::after{content:" \\25BC"}
table.rk td.n,table.rk th.n{text-align:right;font-variant-numeric:tabular-nums}
table.rk td.m{position:sticky;left:0;background:inherit;z-index:1}
table.rk tbody>tr{background:inherit}
table.rk tbody.b0{background:#fff}
table.rk tbody.b1{background:#eef3f8}
table.rk tbody.cs>tr:first-child>td{border-top:2px solid #1f3b57}
table.rk tbody.human td.m{font-style:italic}
table.rk .cl{display:inline-block;min-width:1.6em;font-size:11px;color:#1f3b57;text-align:left;padding-left:3px}
table.rk .tag{font-size:10.5px;border-radius:3px;padding:0 4px;margin-left:4px;font-style:normal}
table.rk .tag.human{background:#fde8c8}
table.rk .tag.baseline{background:#e3e3e3}
table.rk .tag.primary{background:#d9f2d9}
table.rk button.x{font:inherit;border:1px solid #bbb;background:#fff;border-radius:3px;width:1.6em;padding:0;
margin-right:4px;cursor:pointer}
table.rk tr.det td{white-space:normal;background:#fafafa}
table.rk table.d{border-collapse:collapse;font-size:12px;margin:2px 0 6px}
table.rk table.d td,table.rk table.d th{padding:1px 8px;border-bottom:1px solid #eee;position:static;cursor:auto}
"""

SCRIPT = r"""(function(){
"use strict";
var t=document.getElementById("rk-table");
var heads=Array.prototype.slice.call(t.tHead.rows[0].cells);
var bodies=Array.prototype.slice.call(t.tBodies);
function num(tb,c){var v=tb.rows[0].cells[c].getAttribute("data-v");return v===null||v===""?NaN:+v;}
function band(c){var prev=null,b=0;bodies.forEach(function(tb){
var cl=tb.rows[0].cells[c].getAttribute("data-c");if(cl===null)cl=tb.getAttribute("data-c");
tb.classList.remove("cs");if(prev!==null&&cl!==prev){b=1-b;tb.classList.add("cs");}
tb.classList.remove("b0","b1");tb.classList.add("b"+b);prev=cl;});}
function sortBy(c){var h=heads[c],dir=h.getAttribute("aria-sort")==="descending"?"ascending":"descending";
heads.forEach(function(x){x.removeAttribute("aria-sort");});h.setAttribute("aria-sort",dir);
var s=dir==="descending"?-1:1,txt=h.getAttribute("data-t")==="s";
bodies.sort(function(a,b){if(txt){var x=a.rows[0].cells[c].getAttribute("data-v"),y=b.rows[0].cells[c].getAttribute("data-v");
return (x<y?-1:x>y?1:0)*s;}
var u=num(a,c),v=num(b,c);if(isNaN(u)&&isNaN(v))return (+a.getAttribute("data-i"))-(+b.getAttribute("data-i"));
if(isNaN(u))return 1;if(isNaN(v))return -1;if(u===v)return (+a.getAttribute("data-i"))-(+b.getAttribute("data-i"));
return (u-v)*s;});
bodies.forEach(function(tb){t.appendChild(tb);});band(c);}
heads.forEach(function(h,c){h.addEventListener("click",function(){sortBy(c);});
h.addEventListener("keydown",function(e){if(e.key==="Enter"||e.key===" "){e.preventDefault();sortBy(c);}});});
bodies.forEach(function(tb){var b=tb.querySelector("button.x");if(!b)return;
b.addEventListener("click",function(){var open=b.getAttribute("aria-expanded")==="true";
b.setAttribute("aria-expanded",open?"false":"true");b.textContent=open?"+":"\u2212";
document.getElementById(b.getAttribute("aria-controls")).hidden=open;});});
document.body.setAttribute("data-ranking","ready");
})();"""

KIND_LABEL = {"human": "human", "baseline": "baseline", "primary": "primary"}


def _fmt(v, digits):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{digits}f}"


def _p(p):
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return f"< {P_FLOOR:.{P_DIGITS}f}" if p < P_FLOOR else f"{p:.{P_DIGITS}f}"


def _matrix_table(name, values: dict, ranks: dict, sig, digits) -> Table:
    """A task's p-value matrix as shown in WMT's appendices: row i, column j > i: p that metric j is not worse."""
    names = list(values)
    cols = ["metric", "value", "cluster"] + names
    rows = []
    for i, m in enumerate(names):
        rows.append([m, values[m], ranks.get(m)] + [sig[i][j] if j > i else None for j in range(len(names))])
    return Table(cols, rows, title=name, digits=digits, col_digits={n: P_DIGITS for n in names},
                 p_cols=tuple(names))


def render_ranking_html(table: Table, title: str | None = None) -> str:
    """The metrics-ranking page of a task set (``table``: :func:`mtscore.report.meta.task_set_table`)."""
    meta = table.meta
    tasks = meta["tasks"]
    digits = table.digits
    status = meta.get("status", {})
    avg = meta.get("average")
    pval = meta.get("pval", 0.05)
    cols = list(table.columns)
    i_rank, i_val = cols.index("avg rank"), cols.index("avg value")
    doc = Document(title or f"{meta.get('task_set', '')} metrics ranking".strip(), table.notes[0] if table.notes else "")
    doc.styles.append(STYLE)
    doc.scripts.append(SCRIPT)
    sec = doc.section("Metrics ranking", id="ranking")
    if avg:
        sec.text(f"Metrics by the weighted average of their task values (each mapped to [0, 1]). Cluster: metrics that "
                 f"the best metric of their group does not beat significantly (permutation test, p > {pval:g}); "
                 "the bands and lines mark the clusters of the column the table is sorted by. Per task: value and "
                 "the task's cluster.", "muted")
    else:
        sec.text("Metrics by the weighted average of their task values (each mapped to [0, 1]). No significance "
                 "tests were run (--perm-samples 0): every metric is its own cluster.", "muted")
    head = [("cluster", "n"), ("metric", "s"), ("avg value", "n"), ("avg rank", "n")]
    head += [(t["name"], "n") for t in tasks]
    out = ['<div class="rk-box"><table class="rk" id="rk-table"><caption class="muted" style="text-align:left">'
           + esc(table.title) + "</caption><thead><tr>"]
    for k, (h, kind) in enumerate(head):
        sort = ' aria-sort="descending"' if h == "avg value" else ""
        out.append(f'<th tabindex="0" scope="col" data-t="{kind}"{sort}'
                   f'{" class=n" if kind == "n" else ""}>{esc(h)}</th>')
    out.append("</tr></thead>")
    ncol = len(head)
    prev_cl, band = None, 0
    for i, row in enumerate(table.rows):
        m = row[0]
        kind = status.get(m, "")
        # the average's cluster; without significance tests every averaged metric is its own cluster
        cl = avg["ranks"].get(m) if avg else (i + 1 if row[i_val] is not None else None)
        key = "-" if cl is None else str(cl)
        cls = []
        if prev_cl is not None and key != prev_cl:
            band = 1 - band
            cls.append("cs")
        cls.append(f"b{band}")
        if kind == "human":
            cls.append("human")
        prev_cl = key
        tag = f'<span class="tag {kind}">{KIND_LABEL[kind]}</span>' if kind in KIND_LABEL else ""
        det_id = f"rk-d{i}"
        cells = [f'<td class="n" data-v="{_neg(cl)}" data-c="{key}">{"-" if cl is None else cl}</td>',
                 f'<td class="m" data-v="{esc(m)}" data-c="{key}"><button type="button" class="x" aria-expanded="false" '
                 f'aria-controls="{det_id}" aria-label="details of {esc(m)}">+</button>{esc(m)}{tag}</td>',
                 f'<td class="n" data-v="{_num(row[i_val])}" data-c="{key}">{_fmt(row[i_val], digits)}</td>',
                 f'<td class="n" data-v="{_neg(row[i_rank])}" data-c="{key}">{_fmt(row[i_rank], 2)}</td>']
        det = ['<table class="d"><thead><tr><th>task</th><th class="n">value</th><th class="n">cluster</th>'
               '<th>best metric</th><th class="n">p (best not better)</th></tr></thead><tbody>']
        for t in tasks:
            v = t["values"].get(m)
            r = t["ranks"].get(m)
            if v is None:
                cells.append('<td class="n" data-v="" data-c="-">-</td>')
                det.append(f"<tr><td>{esc(t['name'])}</td><td class=n>-</td><td class=n>-</td><td></td><td></td></tr>")
                continue
            cells.append(f'<td class="n" data-v="{_num(v)}" data-c="{r}">{_fmt(v, digits)}'
                         f'<span class="cl">({r})</span></td>')
            names = list(t["values"])
            best = names[0]
            p = None if best == m else t["sig_matrix"][0][names.index(m)]
            det.append(f"<tr><td>{esc(t['name'])}</td><td class=n>{_fmt(v, digits)}</td><td class=n>{r}</td>"
                       f"<td>{esc(best)}</td><td class=n>{_p(p) if best != m else '(best)'}</td></tr>")
        det.append("</tbody></table>")
        out.append(f'<tbody class="{" ".join(cls)}" data-i="{i}" data-c="{key}"><tr>{"".join(cells)}</tr>'
                   f'<tr class="det" id="{det_id}" hidden><td colspan="{ncol}">{"".join(det)}</td></tr></tbody>')
    out.append("</table></div>")
    sec.add("\n".join(out))
    legend = []
    if any(v == "human" for v in status.values()):
        legend.append("human: a human baseline, a second human rating scored as if it were a metric (WMT25); where it "
                      "lacks a task it has no average and no cluster.")
    if any(v in ("primary", "baseline") for v in status.values()):
        legend.append("primary / baseline: the task set's primary submissions and baseline metrics.")
    for n in legend:
        sec.text(n, "muted")

    sec = doc.section("Significance", id="significance")
    sec.text("p-value matrices: row i, column j: the p-value that metric j is not worse than metric i (metrics by "
             "decreasing value); a metric starts a new cluster when a metric of the current cluster beats it with "
             f"p <= {pval:g}.", "muted")
    blocks = []
    if avg:
        blocks.append(("average over tasks", avg["values"], avg["ranks"], avg["sig_matrix"], digits))
    for t in tasks:
        blocks.append((t["name"], t["values"], t["ranks"], t["sig_matrix"], digits))
    for name, values, ranks, sig, d in blocks:
        mt = _matrix_table(name, values, ranks, sig, d)
        sec.add(f"<details><summary>{esc(name)}</summary>{table_html(mt, exports=False, signatures=False)}</details>")

    sec = doc.section("Signatures", id="signatures")
    sec.add('<pre class="sigs">' + "\n".join(esc_sig(n) for n in table.notes) + "</pre>")
    return doc.render()


def _num(v):
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else repr(float(v))


def _neg(v):
    """Average ranks sort ascending as 'better first' when the column sorts descending: stored negated."""
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else repr(-float(v))
