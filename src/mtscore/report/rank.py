"""Rendering of AutoRank results (``mtscore rank``; docs/rank.md): text, JSON, tidy TSV/CSV, Markdown, LaTeX in the
style of the WMT reports' tables, and a self-contained HTML page. Rendering only: every number comes from the
:class:`mtscore.rank.core.RankResult` objects."""
from __future__ import annotations

import html as _html
import json
import math

from .model import dumps
from .tables import Table, full, render_table

RULE_NAMES = {"wmt25": "WMT25 (robust scaling)", "wmt24": "WMT24 (linear ranks)"}


def _f(x):
    return None if x is None else float(x)


def _digits(res, m: int, width: int) -> int:
    """Digits of a metric's raw scores: at least ``width``; 4 when its scores are small (COMET-like, 0..1)."""
    vals = [abs(float(v)) for v in res.raw[m]]
    return max(width, 4) if vals and max(vals) < 10 else width


def _meta_cols(res) -> list:
    return list(res.metadata)


def _meta_text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def _missing_notes(res) -> list:
    notes = []
    for m, name in enumerate(res.metrics):
        miss = int(res.missing[m].sum())
        if miss:
            worst = max(range(len(res.systems)), key=lambda i: res.missing[m, i])
            notes.append(f"{name}: {miss} missing segment score(s) left out of the means "
                         f"(most: {res.systems[worst]}, {int(res.missing[m, worst])} of "
                         f"{int(res.missing[m, worst] + res.segments[m, worst])})")
    return notes


def _notes(res) -> list:
    out = [res.signature]
    out += _missing_notes(res)
    u = res.uncertainty
    if u is None:
        out.append(f"no interval: {res.no_interval}")
    elif u.invalid:
        out.append(f"{u.invalid} of {u.n} resamples left out: a system had no scored segment in them")
    return out


def _legend(res) -> list:
    lg = ["AutoRank: 1 = best; ↑ higher is better, ↓ lower is better"]
    u = res.uncertainty
    if u is not None:
        lg.append(f"interval: {100 * (1 - u.alpha):g}% percentile interval over {u.n} bootstrap resamples of "
                  f"{u.n_docs} documents; P(first): share of resamples with the best AutoRank; cluster: systems "
                  f"not separated at alpha {u.alpha:g} (every system above a boundary significantly better than "
                  "every system below it)")
    return lg


def ranking_table(res, width: int = 2) -> Table:
    """The shown table of one ranking (text, Markdown, the basis of the others)."""
    u = res.uncertainty
    meta = _meta_cols(res)
    cols = ["#", "system"] + meta + ["AutoRank"]
    if u is not None:
        cols += ["interval", "P(first)", "cluster"]
    cols += list(res.metrics)
    marks = {name: (" ↑" if h else " ↓") for name, h in zip(res.metrics, res.higher_is_better)}
    marks["AutoRank"] = " ↓"
    col_digits = {"AutoRank": 2, "P(first)": 3}
    for m, name in enumerate(res.metrics):
        col_digits[name] = _digits(res, m, width)
    rows = []
    for i, s in enumerate(res.systems):
        row = [i + 1, s] + [_meta_text(res.metadata[c].get(s)) for c in meta] + [float(res.autorank[i])]
        if u is not None:
            row += [f"{u.low[i]:.2f}–{u.high[i]:.2f}", float(u.p_first[i]), int(u.clusters[i])]
        row += [float(res.raw[m, i]) for m in range(len(res.metrics))]
        rows.append(row)
    title = f"AutoRank {RULE_NAMES[res.rule]}" + (f": {res.label}" if res.label else "")
    return Table(cols, rows, title=title, notes=_notes(res), legend=_legend(res), marks=marks,
                 col_digits=col_digits, digits=width)


def json_object(res) -> dict:
    u = res.uncertainty
    systems = []
    for i, s in enumerate(res.systems):
        row = {"position": i + 1, "system": s, "autorank": float(res.autorank[i])}
        if u is not None:
            row.update(interval=[float(u.low[i]), float(u.high[i])], p_first=float(u.p_first[i]),
                       cluster=int(u.clusters[i]))
        if res.metadata:
            row["metadata"] = {c: res.metadata[c].get(s) for c in res.metadata}
        row["metrics"] = {name: {"score": float(res.raw[m, i]), "scaled": float(res.scaled[m, i]),
                                 "segments": int(res.segments[m, i]), "missing": int(res.missing[m, i])}
                          for m, name in enumerate(res.metrics)}
        systems.append(row)
    obj = {"label": res.label, "rule": res.rule, "signature": res.signature,
           "metrics": [{"name": n, "higher_is_better": bool(h), "signature": sig, "source": src,
                        "missing": int(res.missing[m].sum())}
                       for m, (n, h, sig, src) in enumerate(zip(res.metrics, res.higher_is_better, res.signatures,
                                                                res.sources or [""] * len(res.metrics)))],
           "systems": systems}
    if res.top is not None:
        obj["scale_top"] = res.top
    if u is not None:
        obj["bootstrap"] = {"unit": "documents", "n": u.n, "seed": u.seed, "alpha": u.alpha, "documents": u.n_docs,
                            "invalid_resamples": u.invalid,
                            "better": [[res.systems[j] for j in range(len(res.systems)) if u.better[i, j]]
                                       for i in range(len(res.systems))]}
    obj["notes"] = _notes(res)[1:]
    return obj


TIDY_COLUMNS = ("lp", "rule", "position", "system", "metric", "statistic", "value", "higher_is_better", "signature")


def tidy_table(results) -> Table:
    """Every number of every ranking, one per row (full precision)."""
    rows = []
    for res in results:
        u = res.uncertainty
        for i, s in enumerate(res.systems):
            base = [res.label, res.rule, i + 1, s]
            rows.append(base + ["AutoRank", "autorank", float(res.autorank[i]), False, res.signature])
            if u is not None:
                for stat, v in (("ci_low", u.low[i]), ("ci_high", u.high[i]), ("p_first", u.p_first[i]),
                                ("cluster", u.clusters[i])):
                    rows.append(base + ["AutoRank", stat, float(v), False, res.signature])
            for m, name in enumerate(res.metrics):
                h, sig = res.higher_is_better[m], res.signatures[m]
                for stat, v in (("score", res.raw[m, i]), ("scaled", res.scaled[m, i]),
                                ("segments", res.segments[m, i]), ("missing", res.missing[m, i])):
                    rows.append(base + [name, stat, float(v), bool(h), sig])
            for c in res.metadata:
                rows.append(base + [c, "metadata", _meta_text(res.metadata[c].get(s)), None, None])
    return Table(list(TIDY_COLUMNS), rows)


def _tex(s) -> str:
    repl = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
            "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}
    return "".join(repl.get(ch, ch) for ch in str(s))


def latex(res, width: int = 2) -> str:
    """A table like the WMT reports': the language pair on top, AutoRank then each metric with its arrow, a rule
    between clusters; the signature in a comment."""
    u = res.uncertainty
    meta = _meta_cols(res)
    head = ["System"] + [_tex(c) for c in meta] + [r"AutoRank $\downarrow$"]
    if u is not None:
        head += [rf"{100 * (1 - u.alpha):g}\% interval", "P(first)"]
    head += [f"{_tex(n)} " + (r"$\uparrow$" if h else r"$\downarrow$") for n, h in zip(res.metrics, res.higher_is_better)]
    spec = "l" + "l" * len(meta) + "r" * (len(head) - 1 - len(meta))
    out = [r"\begin{table*}[t]", r"\centering", rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    if res.label:
        out.append(rf"\multicolumn{{{len(head)}}}{{c}}{{\textbf{{{_tex(res.label)}}}}} \\")
        out.append(r"\midrule")
    out += [" & ".join(rf"\textbf{{{h}}}" for h in head) + r" \\", r"\midrule"]
    for i, s in enumerate(res.systems):
        if u is not None and i and u.clusters[i] != u.clusters[i - 1]:
            out.append(r"\midrule")
        cells = [_tex(s)] + [_tex(_meta_text(res.metadata[c].get(s))) for c in meta] + [f"{res.autorank[i]:.1f}"]
        if u is not None:
            cells += [f"{u.low[i]:.1f}--{u.high[i]:.1f}", f"{u.p_first[i]:.2f}"]
        cells += [f"{res.raw[m, i]:.{_digits(res, m, width)}f}" for m in range(len(res.metrics))]
        out.append(" & ".join(cells) + r" \\")
    cap = f"AutoRank ({RULE_NAMES[res.rule]})" + (f" for {res.label}" if res.label else "")
    if u is not None:
        cap += "; horizontal rules separate clusters of systems whose ranks are significantly different"
    out += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(cap)}.}}", r"\end{table*}"]
    out += ["% " + n for n in _notes(res)]
    return "\n".join(out)


def render_rankings(results, fmt: str = "text", width: int = 2) -> str:
    if fmt == "json":
        return dumps({"rankings": [json_object(r) for r in results]})
    if fmt in ("tsv", "csv"):
        return render_table(Table(list(TIDY_COLUMNS), [], tidy=tidy_table(results)), fmt)
    if fmt == "latex":
        return "\n\n".join(latex(r, width) for r in results)
    return "\n\n".join(render_table(ranking_table(r, width), fmt) for r in results)


# ---------------------------------------------------------------------------------------------------- HTML page

_CSS = """
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--alt:#f6f8fa;--accent:#0a58ca}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);margin:1.5rem}
h1{font-size:1.3rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.5rem 0 .25rem}
.sig,.note{color:var(--muted);font-size:12px}.sig{word-break:break-all}
.wrap{overflow-x:auto}
table.rank{border-collapse:collapse;margin:.5rem 0;min-width:40rem}
table.rank th,table.rank td{border-bottom:1px solid var(--line);padding:.3rem .6rem;text-align:right;white-space:nowrap}
table.rank th:nth-child(-n+3),table.rank td:nth-child(-n+3){text-align:left}
table.rank th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit}
table.rank th button:focus-visible,table.rank td button:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
tr.c-alt>td{background:var(--alt)}
td button.toggle{background:none;border:1px solid var(--line);border-radius:3px;width:1.6rem;cursor:pointer}
tr.detail>td{text-align:left;background:#fbfbfc}
tr.detail table{border-collapse:collapse}tr.detail th,tr.detail td{padding:.15rem .6rem;text-align:right}
tr.detail th:first-child,tr.detail td:first-child{text-align:left}
.bar{position:relative;display:inline-block;width:8rem;height:.6rem;background:var(--alt);vertical-align:middle}
.bar span{position:absolute;top:0;bottom:0;background:#9ec5fe}.bar i{position:absolute;top:-2px;bottom:-2px;width:2px;background:var(--accent)}
"""

_JS = r"""
(function(){
  function val(td){var v=td.getAttribute('data-v');if(v===null)return td.textContent.trim().toLowerCase();
    var x=parseFloat(v);return isNaN(x)?v.toLowerCase():x;}
  document.querySelectorAll('table.rank').forEach(function(tbl){
    var body=tbl.tBodies[0];
    function pairs(){var out=[],rows=[].slice.call(body.rows);for(var i=0;i<rows.length;i++){
      if(rows[i].classList.contains('sys')){out.push([rows[i],rows[i+1]&&rows[i+1].classList.contains('detail')?rows[i+1]:null]);}}
      return out;}
    tbl.querySelectorAll('thead th button').forEach(function(btn){
      btn.addEventListener('click',function(){
        var th=btn.parentNode,col=th.cellIndex,asc=th.getAttribute('aria-sort')!=='ascending';
        tbl.querySelectorAll('thead th').forEach(function(h){h.removeAttribute('aria-sort');});
        th.setAttribute('aria-sort',asc?'ascending':'descending');
        var p=pairs();p.sort(function(a,b){var x=val(a[0].cells[col]),y=val(b[0].cells[col]);
          if(x<y)return asc?-1:1;if(x>y)return asc?1:-1;return 0;});
        p.forEach(function(r){body.appendChild(r[0]);if(r[1])body.appendChild(r[1]);});
      });
    });
    tbl.querySelectorAll('button.toggle').forEach(function(b){
      b.addEventListener('click',function(){
        var d=document.getElementById(b.getAttribute('aria-controls'));var open=b.getAttribute('aria-expanded')==='true';
        b.setAttribute('aria-expanded',open?'false':'true');d.hidden=open;b.textContent=open?'+':'\u2212';
      });
    });
  });
  document.body.setAttribute('data-rank','ready');
})();
"""


def _e(s) -> str:
    return _html.escape(str(s), quote=True)


def _num(x, d) -> str:
    x = float(x)
    return "" if math.isnan(x) else f"{x:.{d}f}"


def _section(res, k: int, width: int) -> str:
    u = res.uncertainty
    meta = _meta_cols(res)
    heads = ["", "#", "System"] + meta + ["AutoRank ↓"]
    if u is not None:
        heads += [f"{100 * (1 - u.alpha):g}% interval", "P(first)", "Cluster"]
    heads += [f"{n} {'↑' if h else '↓'}" for n, h in zip(res.metrics, res.higher_is_better)]
    th = ['<th scope="col"></th>'] + [f'<th scope="col"><button type="button">{_e(h)}</button></th>'
                                      for h in heads[1:]]
    lo_all = float(min(u.low.min(), res.autorank.min())) if u is not None else 1.0
    hi_all = float(max(u.high.max(), res.autorank.max())) if u is not None else float(res.autorank.max())
    span = (hi_all - lo_all) or 1.0
    rows = []
    for i, s in enumerate(res.systems):
        did = f"r{k}-d{i}"
        alt = " c-alt" if u is not None and u.clusters[i] % 2 == 0 else ""
        cells = [f'<td><button type="button" class="toggle" aria-expanded="false" aria-controls="{did}" '
                 f'aria-label="details of {_e(s)}">+</button></td>',
                 f'<td data-v="{i + 1}">{i + 1}</td>', f"<td>{_e(s)}</td>"]
        cells += [f"<td>{_e(_meta_text(res.metadata[c].get(s)))}</td>" for c in meta]
        cells.append(f'<td data-v="{full(float(res.autorank[i]))}">{_num(res.autorank[i], 2)}</td>')
        if u is not None:
            left = 100 * (u.low[i] - lo_all) / span
            wid = 100 * (u.high[i] - u.low[i]) / span
            mid = 100 * (res.autorank[i] - lo_all) / span
            cells.append(f'<td data-v="{full(float(u.low[i]))}"><span class="bar" aria-hidden="true">'
                         f'<span style="left:{left:.2f}%;width:{max(wid, 0.5):.2f}%"></span>'
                         f'<i style="left:{mid:.2f}%"></i></span> {_num(u.low[i], 2)}–{_num(u.high[i], 2)}</td>')
            cells.append(f'<td data-v="{full(float(u.p_first[i]))}">{_num(u.p_first[i], 3)}</td>')
            cells.append(f'<td data-v="{int(u.clusters[i])}">{int(u.clusters[i])}</td>')
        for m in range(len(res.metrics)):
            cells.append(f'<td data-v="{full(float(res.raw[m, i]))}">{_num(res.raw[m, i], _digits(res, m, width))}</td>')
        rows.append(f'<tr class="sys{alt}">' + "".join(cells) + "</tr>")
        scaled_name = "robust-scaled" if res.rule == "wmt25" else "scaled rank"
        det = ['<table><thead><tr><th scope="col">metric</th><th scope="col">score</th>'
               f'<th scope="col">{scaled_name}</th><th scope="col">segments</th><th scope="col">missing</th>'
               "</tr></thead><tbody>"]
        for m, name in enumerate(res.metrics):
            det.append(f"<tr><td>{_e(name)}</td><td>{_num(res.raw[m, i], _digits(res, m, width) + 2)}</td>"
                       f"<td>{_num(res.scaled[m, i], 4)}</td><td>{int(res.segments[m, i])}</td>"
                       f"<td>{int(res.missing[m, i])}</td></tr>")
        det.append("</tbody></table>")
        if u is not None:
            det.append(f'<p class="note">AutoRank {_num(res.autorank[i], 3)}, {100 * (1 - u.alpha):g}% interval '
                       f'{_num(u.low[i], 3)}–{_num(u.high[i], 3)}, P(first) {_num(u.p_first[i], 3)}, cluster '
                       f'{int(u.clusters[i])}</p>')
        rows.append(f'<tr class="detail" id="{did}" hidden><td colspan="{len(heads)}">' + "".join(det) + "</td></tr>")
    title = f"AutoRank {RULE_NAMES[res.rule]}" + (f": {res.label}" if res.label else "")
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in _notes(res)[1:] + _legend(res))
    return (f'<section><h2>{_e(title)}</h2><p class="sig">{_e(res.signature)}</p><div class="wrap">'
            f'<table class="rank" id="rank-{k}"><thead><tr>{"".join(th)}</tr></thead><tbody>{"".join(rows)}'
            f"</tbody></table></div>{notes}</section>")


def render_html(results, width: int = 2, title: str = "mtscore rank") -> str:
    """One self-contained page (inline CSS and script, no request): a sortable table per ranking (click or
    Enter/Space on a column header), each system's row expands to its per-metric raw and scaled scores and its
    interval."""
    data = json.dumps({"rankings": [json_object(r) for r in results]}, ensure_ascii=False).replace("</", "<\\/")
    body = "".join(_section(r, k, width) for k, r in enumerate(results))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{_e(title)}</h1>{body}"
            f'<script type="application/json" id="rank-data">{data}</script>'
            f"<script>{_JS}</script></body></html>\n")
