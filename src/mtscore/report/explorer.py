"""The report's interactive segment explorer: a sortable, filterable table of segments (text search, label,
metric, score difference), switching the metric and the two systems shown, a scatter plot of the two systems'
segment scores linked to the table, and a detail view of a clicked segment (word alignment and matched
n-grams). The data (:class:`mtscore.analysis.explore.ExplorerData`) is computed in Python and embedded as
JSON; the page's one inline script (allowed by its SHA-256 hash in the Content-Security-Policy, nothing else
may run or load) only sorts, filters and draws it."""
from __future__ import annotations

import json

from .html import esc, script_hash as _script_hash

STYLE = """
.mx-controls{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:center;font-size:13px;margin:6px 0 10px}
.mx-controls label{display:flex;gap:4px;align-items:center;min-width:0;max-width:100%}
.mx-controls select{max-width:min(22em,70vw);min-width:0}
.mx-controls input[type=search]{width:21ch;max-width:100%;box-sizing:content-box}
.mx-controls input[type=number]{width:6em}
.mx-wrap{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
.mx-plot{flex:0 1 360px;min-width:min(100%,300px);max-width:100%}
.mx-plot svg{width:100%;height:auto;border:1px solid #eee;background:#fff}
.mx-plot .pt{fill:#1f77b4;opacity:.75;cursor:pointer}
.mx-plot .pt.off{opacity:.08}
.mx-plot .pt.sel{fill:#d62728;opacity:1}
.mx-tablebox{flex:1 1 480px;min-width:0;max-width:100%;max-height:560px;overflow:auto;border:1px solid #eee}
table.mx{border-collapse:collapse;font-size:12.5px;width:100%;table-layout:fixed;min-width:33em}
table.mx th[data-key=idx]{width:3.2em}table.mx th[data-key=label]{width:5.5em}
table.mx th[data-key=a],table.mx th[data-key=b]{width:4.8em}table.mx th[data-key=diff]{width:5.4em}
table.mx th{position:sticky;top:0;background:#f3f5f7;cursor:pointer;text-align:left;padding:4px 6px;
border-bottom:2px solid #444;user-select:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.mx th:focus-visible,table.mx tr:focus-visible{outline:2px solid #0072B2;outline-offset:-2px}
table.mx tr{cursor:pointer}
table.mx th[aria-sort=ascending]::after{content:" \\25B2"}
table.mx th[aria-sort=descending]::after{content:" \\25BC"}
table.mx td{padding:3px 6px;border-bottom:1px solid #eee;vertical-align:top;overflow:hidden;text-overflow:ellipsis}
table.mx td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.mx td.txt{white-space:nowrap}
table.mx tr{cursor:pointer}
table.mx tr:hover td{background:#f6f9fc}
table.mx tr.sel td{background:#fde8e8}
.mx-detail{margin-top:10px;font-size:13px;border-top:1px solid #ddd;padding-top:6px;overflow-wrap:break-word}
.mx-detail .row{margin:4px 0;display:grid;grid-template-columns:minmax(0,min(16em,30%)) minmax(0,1fr);gap:10px}
.mx-detail .lab{color:#555;font-size:12px;overflow-wrap:break-word;min-width:0}
.mx-detail .row>:last-child{min-width:0}
.ng2{box-shadow:inset 0 -2px #2ca02c}.ng3{box-shadow:inset 0 -3px #2ca02c}.ng4{box-shadow:inset 0 -4px #1a7a1a}
.mx-count{font-size:12.5px;color:#555}
mark.sp{color:inherit;border-radius:2px;padding:0 1px}
mark.sp-minor{background:#fff1b8}mark.sp-major{background:#ffc9a8}mark.sp-critical{background:#ff9e9e;
box-shadow:inset 0 -2px #b00}
"""

SCRIPT = r"""(function(){
"use strict";
var D=JSON.parse(document.getElementById("mx-data").textContent);
var N=D.ref.length,S=D.systems.length;
function $(id){return document.getElementById(id);}
var st={m:0,a:0,b:S>1?1:-1,label:"",q:"",min:NaN,key:"idx",dir:1,sel:-1,limit:300};
function fill(sel,items,val){sel.textContent="";items.forEach(function(t,i){var o=document.createElement("option");
o.value=String(i);o.textContent=t;sel.appendChild(o);});sel.value=String(val);}
fill($("mx-metric"),D.metrics.map(function(m){return m.name+(m.higher_is_better?" \u2191":" \u2193");}),0);
fill($("mx-a"),D.systems,0);
fill($("mx-b"),["(none)"].concat(D.systems),st.b+1);
if(D.labels){var ls=Array.from(new Set(D.labels)).sort();fill($("mx-label"),["(all labels)"].concat(ls),0);
$("mx-label").dataset.values=JSON.stringify([""].concat(ls));}else{$("mx-labelbox").style.display="none";}
function sc(s,i){var v=D.scores[st.m][s][i];return v===null?NaN:v*D.metrics[st.m].scale;}
function diff(i){if(st.b<0)return NaN;var d=sc(st.b,i)-sc(st.a,i);return D.metrics[st.m].higher_is_better?d:-d;}
function fmt(x){return isNaN(x)?"-":x.toFixed(2);}
var lower={ref:null,hyp:[]};
function low(s){if(s<0){if(!lower.ref)lower.ref=D.ref.map(function(t){return t.toLowerCase();});return lower.ref;}
if(!lower.hyp[s])lower.hyp[s]=D.hyps[s].map(function(t){return t.toLowerCase();});return lower.hyp[s];}
function keyOf(i){switch(st.key){case "label":return D.labels?D.labels[i]:"";case "ref":return D.ref[i];
case "a":return sc(st.a,i);case "b":return st.b<0?NaN:sc(st.b,i);case "diff":return diff(i);default:return i;}}
function visible(){var out=[],q=st.q.toLowerCase();
for(var i=0;i<N;i++){if(st.label&&D.labels[i]!==st.label)continue;
if(q&&low(-1)[i].indexOf(q)<0&&low(st.a)[i].indexOf(q)<0&&(st.b<0||low(st.b)[i].indexOf(q)<0))continue;
if(!isNaN(st.min)&&!(Math.abs(diff(i))>=st.min))continue;out.push(i);}
var k=out.map(keyOf),ord=out.map(function(_,j){return j;});
ord.sort(function(x,y){var p=k[x],q2=k[y];if(typeof p==="number"&&isNaN(p))return 1;if(typeof q2==="number"&&isNaN(q2))return -1;
return (p<q2?-1:p>q2?1:out[x]-out[y])*st.dir;});
return ord.map(function(j){return out[j];});}
function cell(tr,text,cls,title){var td=document.createElement("td");td.textContent=text;if(cls)td.className=cls;
if(title)td.title=title;tr.appendChild(td);}
function header(){var cols=[["idx","#"],["label","label"],["ref","reference"],["a",D.systems[st.a]],
["b",st.b<0?"-":D.systems[st.b]],["diff","\u0394 (B vs A)"]];var tr=$("mx-head");tr.textContent="";
cols.forEach(function(c){if(c[0]==="label"&&!D.labels)return;var th=document.createElement("th");th.textContent=c[1];
th.title=c[1];th.dataset.key=c[0];th.setAttribute("aria-sort",st.key===c[0]?(st.dir>0?"ascending":"descending"):"none");
th.tabIndex=0;th.setAttribute("role","button");
th.addEventListener("click",function(){if(st.key===c[0])st.dir=-st.dir;else{st.key=c[0];st.dir=(c[0]==="diff"||c[0]==="a"||c[0]==="b")?-1:1;}
render();var again=$("mx-head").querySelector('th[data-key="'+c[0]+'"]');if(again)again.focus();});
th.addEventListener("keydown",function(e){if(e.key==="Enter"||e.key===" "){e.preventDefault();th.click();}});tr.appendChild(th);});}
var shown=[];
function table(){var body=$("mx-body");body.textContent="";var lim=Math.min(shown.length,st.limit);
for(var r=0;r<lim;r++){var i=shown[r],tr=document.createElement("tr");tr.dataset.i=String(i);tr.tabIndex=0;if(i===st.sel)tr.className="sel";
cell(tr,String(i+1),"n");if(D.labels)cell(tr,D.labels[i],"txt",D.labels[i]);cell(tr,D.ref[i],"txt",D.ref[i]);
cell(tr,fmt(sc(st.a,i)),"n");cell(tr,st.b<0?"-":fmt(sc(st.b,i)),"n");var d=diff(i);
cell(tr,isNaN(d)?"-":(d>0?"+":"")+d.toFixed(2),"n");body.appendChild(tr);}
$("mx-count").textContent=shown.length+" of "+N+" segments"+(shown.length>lim?" (first "+lim+" listed; filter or sort to see others)":"");}
$("mx-body").addEventListener("click",function(e){var tr=e.target.closest("tr");if(tr)select(+tr.dataset.i);});
$("mx-body").addEventListener("keydown",function(e){var tr=e.target.closest("tr");if(!tr)return;
if(e.key==="Enter"||e.key===" "){e.preventDefault();select(+tr.dataset.i);var t=$("mx-body").querySelector('tr[data-i="'+tr.dataset.i+'"]');if(t)t.focus();}
else if(e.key==="ArrowDown"&&tr.nextElementSibling){e.preventDefault();tr.nextElementSibling.focus();}
else if(e.key==="ArrowUp"&&tr.previousElementSibling){e.preventDefault();tr.previousElementSibling.focus();}});
var NS="http://www.w3.org/2000/svg",pts=[];
function plot(){var svg=$("mx-svg");svg.textContent="";pts=[];if(st.b<0){$("mx-plotbox").style.display="none";return;}
$("mx-plotbox").style.display="";var W=340,H=340,P=64,xs=[],ys=[];
for(var i=0;i<N;i++){xs.push(sc(st.a,i));ys.push(sc(st.b,i));}
var f=xs.concat(ys).filter(function(v){return !isNaN(v);}),lo=Math.min.apply(null,f.concat([0])),hi=Math.max.apply(null,f.concat([1]));
if(hi===lo)hi=lo+1;var td=hi-lo>=20?0:hi-lo>=2?1:2;function X(v){return P+(v-lo)/(hi-lo)*(W-P-8);}function Y(v){return H-P-(v-lo)/(hi-lo)*(H-P-8);}
function el(n,a,t){var e=document.createElementNS(NS,n);for(var k in a)e.setAttribute(k,a[k]);if(t!==undefined)e.textContent=t;svg.appendChild(e);return e;}
el("line",{x1:X(lo),y1:Y(lo),x2:X(hi),y2:Y(hi),stroke:"#aaa","stroke-dasharray":"4 3"});
el("line",{x1:P,y1:H-P,x2:W-8,y2:H-P,stroke:"#444"});el("line",{x1:P,y1:8,x2:P,y2:H-P,stroke:"#444"});
for(var q=0;q<=4;q++){var tv=lo+(hi-lo)*q/4;el("line",{x1:P-4,y1:Y(tv),x2:P,y2:Y(tv),stroke:"#444"});
el("text",{x:P-6,y:Y(tv)+4,"font-size":13,"text-anchor":"end","class":"ytick"},tv.toFixed(td));
el("line",{x1:X(tv),y1:H-P,x2:X(tv),y2:H-P+4,stroke:"#444"});}
el("text",{x:P,y:H-P+17,"font-size":13},lo.toFixed(td));el("text",{x:W-8,y:H-P+17,"font-size":13,"text-anchor":"end"},hi.toFixed(td));
el("text",{x:(W+P)/2,y:H-8,"font-size":13,"text-anchor":"middle"},"A: "+clip(D.systems[st.a],30));
el("text",{x:14,y:(H-P)/2,"font-size":13,"text-anchor":"middle",transform:"rotate(-90 14 "+(H-P)/2+")"},"B: "+clip(D.systems[st.b],30));
var on=new Uint8Array(N);shown.forEach(function(i){on[i]=1;});
for(i=0;i<N;i++){if(isNaN(xs[i])||isNaN(ys[i])){pts.push(null);continue;}
var c=el("circle",{cx:X(xs[i]).toFixed(1),cy:Y(ys[i]).toFixed(1),r:2.6,"class":"pt"+(on[i]?"":" off")+(i===st.sel?" sel":"")});
c.dataset.i=String(i);var t=document.createElementNS(NS,"title");t.textContent="#"+(i+1)+": "+fmt(xs[i])+" / "+fmt(ys[i]);c.appendChild(t);pts.push(c);}}
$("mx-svg").addEventListener("click",function(e){var c=e.target.closest("circle");if(c)select(+c.dataset.i,true);});
function clip(s,n){return s.length>n?s.slice(0,n-1)+"\u2026":s;}
function span(text,cls,title){var e=document.createElement("span");e.textContent=text;if(cls)e.className=cls;if(title)e.title=title;return e;}
function aligned(s,i){var box=document.createElement("span"),ops=D.ops[s][i],h=D.hyps[s][i]?D.hyps[s][i].split(" "):[],
r=D.ref[i]?D.ref[i].split(" "):[],ng=D.ngram[s][i],hi=0,ri=0;
for(var k=0;k<ops.length;k++){var o=ops[k],e;if(o==="="){e=span(h[hi],"op op-match","hit");}
else if(o==="S"){e=span(h[hi],"op op-sub","substitution for: "+r[ri]);}
else if(o==="I"){e=span(h[hi],"op op-ins","insertion");}else{e=span(r[ri],"op op-del","deleted reference word");}
if(o!=="D"){var n=+ng[hi];if(n>=2)e.className+=" ng"+Math.min(n,4);if(n>=1)e.title+="; in a matched "+n+"-gram";hi++;}
if(o!=="I")ri++;box.appendChild(e);box.appendChild(document.createTextNode(" "));}return box;}
function detail(){var d=$("mx-detail");d.textContent="";if(st.sel<0){d.appendChild(span("Click a segment (row or point) to see its alignment.","muted"));return;}
var i=st.sel,h=document.createElement("div");h.appendChild(span("Segment #"+(i+1)+(D.labels?" \u00b7 "+D.labels[i]:""),"seg-title"));d.appendChild(h);
function line(lab,node){var r=document.createElement("div");r.className="row";r.appendChild(span(lab,"lab"));r.appendChild(node);d.appendChild(r);}
line("reference",span(D.ref[i]));
[st.a,st.b].forEach(function(s){if(s<0)return;line(clip(D.systems[s],30)+" ("+fmt(sc(s,i))+")",aligned(s,i));});
(D.spans||[]).forEach(function(m){[st.a,st.b].forEach(function(s){if(s<0)return;var e=m.systems[s][String(i)];
line(m.name+" error spans: "+clip(D.systems[s],24),e?spanned(e):span("no error span","muted"));});});}
function spanned(e){/* the hypothesis as scored, its error spans marked by severity (code-point offsets) */
var ch=Array.from(e.t),box=document.createElement("span"),at=0;box.className="sp-text";
e.s.slice().sort(function(x,y){return x[0]-y[0];}).forEach(function(v){var a=Math.max(v[0],at),b=Math.min(v[1],ch.length);if(b<=a)return;
if(a>at)box.appendChild(document.createTextNode(ch.slice(at,a).join("")));
var m=document.createElement("mark");m.className="sp sp-"+v[2];m.textContent=ch.slice(a,b).join("");
m.title=v[2]+" error (confidence "+v[3]+")";box.appendChild(m);at=b;});
if(at<ch.length)box.appendChild(document.createTextNode(ch.slice(at).join("")));return box;}
function select(i,fromPlot){st.sel=i;table();plot();detail();if(fromPlot){var tr=$("mx-body").querySelector('tr[data-i="'+i+'"]');if(tr)tr.scrollIntoView({block:"nearest"});}}
function render(){shown=visible();header();table();plot();detail();}
$("mx-metric").addEventListener("change",function(e){st.m=+e.target.value;render();});
function distinct(){/* system A and B are never the same system: the other one's option is disabled */
var a=$("mx-a"),b=$("mx-b");if(st.a===st.b){st.b=-1;b.value="0";}
Array.prototype.forEach.call(a.options,function(o){o.disabled=(+o.value===st.b);});
Array.prototype.forEach.call(b.options,function(o){o.disabled=(+o.value-1===st.a);});}
$("mx-a").addEventListener("change",function(e){st.a=+e.target.value;distinct();render();});
$("mx-b").addEventListener("change",function(e){st.b=+e.target.value-1;distinct();render();});
$("mx-label").addEventListener("change",function(e){st.label=JSON.parse(e.target.dataset.values||"[\"\"]")[+e.target.value]||"";render();});
$("mx-q").addEventListener("input",function(e){st.q=e.target.value;render();});
$("mx-min").addEventListener("input",function(e){st.min=e.target.value===""?NaN:+e.target.value;render();});
distinct();render();document.body.dataset.explorer="ready";
})();"""


def script_hash(script: str = SCRIPT) -> str:
    """The CSP source that allows exactly this inline script (:func:`mtscore.report.html.script_hash`)."""
    return _script_hash(script)


def _json_block(obj) -> str:
    # JSON inside <script type=application/json>: '</' must not close the element
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def explorer_html(data) -> str:
    """The explorer's controls, table, plot and detail containers, and its data block."""
    return "".join([
        '<div class="mx-controls">',
        '<label>metric <select id="mx-metric"></select></label>',
        '<label>system A <select id="mx-a"></select></label>',
        '<label>system B <select id="mx-b"></select></label>',
        '<label id="mx-labelbox">label <select id="mx-label"></select></label>',
        '<label>search <input id="mx-q" type="search" placeholder="reference or outputs" '
        'title="words in the reference or in either output"></label>',
        '<label>|Δ| ≥ <input id="mx-min" type="number" min="0" step="any"></label>',
        '<span class="mx-count" id="mx-count"></span></div>',
        '<div class="mx-wrap"><div class="mx-plot" id="mx-plotbox">',
        '<svg id="mx-svg" viewBox="0 0 340 340" role="img" aria-label="segment scores of system B against system A">'
        '</svg><p class="muted">Each point is a segment: system A\'s score (x) against B\'s (y); points outside '
        'the filter fade; click a point to select its segment.</p></div>',
        '<div class="mx-tablebox"><table class="mx"><thead><tr id="mx-head"></tr></thead>'
        '<tbody id="mx-body"></tbody></table></div></div>',
        '<div class="mx-detail" id="mx-detail"></div>',
        '<p class="legend muted">Alignment: <span class="op op-match">hit</span><span class="op op-sub">substitution'
        '</span><span class="op op-ins">insertion</span><span class="op op-del">deleted reference word</span>'
        '<span class="ng4">underlined: part of a matched n-gram (thicker: longer)</span></p>',
        ('<p class="legend muted">Error spans (' + esc(", ".join(m["name"] for m in data.spans)) +
         ', shown for the selected segment): <mark class="sp sp-minor">minor</mark> <mark class="sp sp-major">major'
         '</mark> <mark class="sp sp-critical">critical</mark></p>') if getattr(data, "spans", ()) else "",
        f'<script type="application/json" id="mx-data">{_json_block(data.as_json())}</script>',
        f'<p class="muted">Tokens: {esc(data.tokenize)} tokenizer; alignments against the first reference.</p>',
    ])
