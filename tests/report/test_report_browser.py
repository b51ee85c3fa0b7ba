"""The HTML report in a real browser (Debian's Chromium driven by Playwright): the segment explorer is used
as a person would (type a filter, sort by clicking a column header, click a segment and a point, switch the
metric) and what the page shows is checked against mtscore's own numbers; no console error, no request other
than the page itself; at 360, 768, 1280 and 1920 px, with 80-character, CJK and right-to-left system names and
segments, every plot's text stays inside its plot, is at least 11 px on screen and overlaps no other text, no table
scrolls sideways from 1280 px on, and the explorer's chosen segment keeps its text column readable (docs/report.md,
"Reading the page at any width"). A screenshot is kept as a test artefact (in tmp_path)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CHROMIUM_MISSING, chromium_path, data_path
from mtscore.analysis.alignment import align
from mtscore.analysis.buckets import token_lists
from mtscore.metrics.chrf import CHRF
from mtscore.metrics.registry import get_metric, parse_metric_spec
from mtscore.report.model import view

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(CHROMIUM_MISSING, allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the Python package 'playwright' (test extra)")

N = 300
LONG = "system-with-a-very-long-name-" + "x" * 51  # 80 characters
CJK = "神经机器翻译系统"
RTL = "מערכת-תרגום"


def _inputs(n_systems: int = 3):
    """The reference, the systems' outputs (an 80-character, a CJK and a right-to-left name first; more systems
    mix the two real outputs segment by segment) and the labels."""
    d = data_path("ted-sk-en")
    read = lambda name: (d / name).read_text(encoding="utf-8").split("\n")[:N]  # noqa: E731
    ref, s1, s2 = read("ted.ref.detok.eng"), read("ted.sys1.detok.eng"), read("ted.sys2.detok.eng")
    # segments with CJK, right-to-left and one 80-character token, in the reference and the outputs
    ref[5], s1[5], s2[5] = "机器翻译的质量在提高。", "机器翻译质量在提高。", "翻译的质量提高了。"
    ref[6], s1[6], s2[6] = "שלום עולם, זהו מבחן.", "שלום עולם זהו מבחן.", "שלום לעולם, מבחן."
    ref[7] = s1[7] = "a" * 80
    hyps = {LONG: s1, CJK: s2, RTL: s1[::-1]}
    for k in range(3, n_systems):
        hyps[f"team-{k}-transformer"] = [a if (i * k) % 7 < 3 else b for i, (a, b) in enumerate(zip(s1, s2))]
    labels = [("news" if i % 3 else "talk") for i in range(N)]
    return ref, hyps, labels


def _write_report(out, ref, hyps, labels, metrics, resamples):
    files = {}
    for name, lines in hyps.items():
        files[name] = out / name
        files[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    (out / "ref.txt").write_text("".join(x + "\n" for x in ref), encoding="utf-8")
    (out / "labels.txt").write_text("".join(x + "\n" for x in labels), encoding="utf-8")
    page = out / "report.html"
    p = subprocess.run([sys.executable, "-m", "mtscore", "report", "-r", str(out / "ref.txt"), "-i",
                        *(str(f) for f in files.values()), "-m", *metrics, "--labels", str(out / "labels.txt"),
                        "--resamples", str(resamples), "-o", str(page)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return page


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    ref, hyps, labels = _inputs()
    out = tmp_path_factory.mktemp("browser")
    page = _write_report(out, ref, hyps, labels, ["bleu", "chrf"], 200)
    return {"page": page, "ref": ref, "hyps": hyps, "dir": out}


# every metric of `mtscore metrics` that needs no model file, no server and no scores file (k-grr with another k
# than 4-grr's)
LEXICAL = ("bleu", "bleu-sbp", "chrf", "chrf++", "ter", "nist", "gtm", "lcm", "tbleu", "wer", "mwer", "per", "mper",
           "wrr", "mer", "wil", "wip", "cer", "wer-jiwer", "gleu-google", "ribes", "4-grr", "k-grr:k=2", "rose")


@pytest.fixture(scope="module", params=[(3, LEXICAL), (15, LEXICAL[:6])], ids=["3-systems-24-metrics",
                                                                              "15-systems-6-metrics"])
def many(request, tmp_path_factory):
    """A report with many metrics: 3 systems and every lexical metric, and 15 systems and 6 metrics."""
    n_systems, metrics = request.param
    ref, hyps, labels = _inputs(n_systems)
    page = _write_report(tmp_path_factory.mktemp("many"), ref, hyps, labels, list(metrics), 20)
    return {"page": page, "systems": list(hyps), "metrics": metrics}


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _open(browser, page_path, width):
    pg = browser.new_page(viewport={"width": width, "height": 900})
    events = {"console": [], "requests": []}
    pg.on("console", lambda m: events["console"].append(f"{m.type}: {m.text}"))
    pg.on("pageerror", lambda e: events["console"].append(f"pageerror: {e}"))
    pg.on("request", lambda r: events["requests"].append(r.url))
    pg.goto(page_path.as_uri())
    pg.wait_for_selector("body[data-explorer=ready]", timeout=30_000)
    return pg, events


def _rows(pg):
    return pg.eval_on_selector_all("#mx-body tr", "trs => trs.map(t => [...t.children].map(c => c.textContent))")


def test_explorer_filter_sort_click_and_switch(browser, report, tmp_path):
    pg, events = _open(browser, report["page"], 1280)
    assert pg.inner_text("#mx-count").startswith(f"{N} of {N} segments")
    names = pg.eval_on_selector_all("#mx-a option", "os => os.map(o => o.textContent)")
    assert names == [LONG, CJK, RTL]

    # type a filter: the rows are the segments whose reference or either output contains the words
    pg.fill("#mx-q", "the world")
    a, b = report["hyps"][LONG], report["hyps"][CJK]
    expected = [i for i in range(N) if any("the world" in t[i].lower() for t in (report["ref"], a, b))]
    assert expected and pg.inner_text("#mx-count").startswith(f"{len(expected)} of {N}")
    assert [int(r[0]) - 1 for r in _rows(pg)] == expected

    # sort by clicking the difference column: descending, then ascending
    pg.fill("#mx-q", "")
    pg.click("#mx-head th[data-key=diff]")
    assert pg.get_attribute("#mx-head th[data-key=diff]", "aria-sort") == "descending"
    deltas = [float(r[-1]) for r in _rows(pg) if r[-1] != "-"]
    assert deltas == sorted(deltas, reverse=True) and len(deltas) == min(N, 300)
    pg.click("#mx-head th[data-key=diff]")
    deltas = [float(r[-1]) for r in _rows(pg) if r[-1] != "-"]
    assert deltas == sorted(deltas)

    # label filter
    pg.select_option("#mx-label", label="talk")
    assert all(r[1] == "talk" for r in _rows(pg)) and pg.inner_text("#mx-count").startswith(f"{N // 3} of")
    pg.select_option("#mx-label", label="(all labels)")

    # click a segment: its alignment is mtscore's (same operations, same counts)
    pg.fill("#mx-q", "")
    pg.click("#mx-head th[data-key=idx]")
    pg.click('#mx-body tr[data-i="10"]')
    assert pg.inner_text("#mx-detail").startswith("Segment #11")
    ref_t = token_lists([report["ref"][10]])[0]
    ours = align(token_lists([a[10]])[0], ref_t)
    classes = pg.eval_on_selector_all("#mx-detail .row:nth-of-type(3) .op", "es => es.map(e => e.className)")
    got = {k: sum(k in c for c in classes) for k in ("op-match", "op-sub", "op-ins", "op-del")}
    assert got == {"op-match": ours.hits, "op-sub": ours.substitutions, "op-ins": ours.insertions,
                   "op-del": ours.deletions}
    assert pg.get_attribute('#mx-body tr[data-i="10"]', "class") == "sel"

    # switch the metric: system A's column shows chrF's sentence score of each segment
    pg.select_option("#mx-metric", index=1)
    row = next(r for r in _rows(pg) if r[0] == "1")
    chrf = CHRF()
    expected_chrf = chrf.sentence_scores(chrf.stats([a[0]], [[report["ref"][0]]]))[0]
    assert float(row[3]) == pytest.approx(expected_chrf, abs=0.005)

    # click a point of the scatter plot: its segment is selected in the table
    pg.click('#mx-svg circle[data-i="42"]', force=True)
    assert pg.inner_text("#mx-detail").startswith("Segment #43")

    shot = tmp_path / "explorer.png"
    pg.locator("#explore-segments").screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert events["console"] == []
    assert events["requests"] == [report["page"].as_uri()]
    pg.close()


FIT_JS = """() => {
  const bad = [], small = [], overlap = [];
  for (const svg of document.querySelectorAll('svg')) {
    const box = svg.getBoundingClientRect();
    if (box.width === 0) continue;
    const where = svg.closest('section').id, boxes = [];
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        bad.push(`${where}: "${t.textContent.slice(0, 40)}" [${Math.round(r.left)},${Math.round(r.right)}] outside [${Math.round(box.left)},${Math.round(box.right)}]`);
      // the text's size on screen: its font size times the scale the plot is drawn at
      const m = t.getScreenCTM(), px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (px < 11) small.push(`${where}: "${t.textContent.slice(0, 40)}" ${px.toFixed(1)} px`);
      for (const [q, s] of boxes) {
        const ox = Math.min(r.right, q.right) - Math.max(r.left, q.left), oy = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
        if (ox > 1 && oy > 2) overlap.push(`${where}: "${t.textContent.slice(0, 30)}" over "${s.slice(0, 30)}"`);
      }
      boxes.push([r, t.textContent]);
    }
  }
  const doc = document.documentElement;
  const scrolls = [...document.querySelectorAll('.tw')].filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.querySelector('caption').textContent);
  return {bad, small, overlap, overflow: doc.scrollWidth - window.innerWidth, scrolls};
}"""


@pytest.mark.parametrize("width", [360, 768, 1280, 1920])
def test_plots_fit_their_boxes(browser, report, width, tmp_path):
    """Every plot's text stays inside its plot, is at least 11 px on screen and overlaps no other text of the
    plot; the page never scrolls sideways, and from 1280 px on no table does either."""
    pg, events = _open(browser, report["page"], width)
    res = pg.evaluate(FIT_JS)
    if res["bad"] or res["small"] or res["overlap"] or res["overflow"] > 0:
        pg.screenshot(path=str(tmp_path / f"report-{width}.png"), full_page=True)
    assert res["bad"] == [], "\n".join(res["bad"][:20])
    assert res["small"] == [], "\n".join(res["small"][:20])
    assert res["overlap"] == [], "\n".join(res["overlap"][:20])
    assert res["overflow"] <= 0, f"the page scrolls sideways by {res['overflow']} px at {width} px"
    if width >= 1280:  # every table (scores, subsets, word accuracy ...) fits without scrolling
        assert res["scrolls"] == [], res["scrolls"]
    assert events["console"] == []
    pg.close()


EXPLORER_JS = r"""() => {
  const out = {}, detail = document.querySelector('#mx-detail'), width = detail.getBoundingClientRect().width;
  // the text column of each line of the chosen segment (reference, system A, system B), as a share of the width
  out.columns = [...detail.querySelectorAll('.row')].map(r => r.lastElementChild.getBoundingClientRect().width / width);
  // a word that fits its column is on one line: a Range over each word has the rects of one line
  out.broken = [];
  for (const row of detail.querySelectorAll('.row')) {
    const col = row.lastElementChild, colWidth = col.getBoundingClientRect().width;
    const walk = document.createTreeWalker(col, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      for (const m of n.textContent.matchAll(/\S+/g)) {
        const rg = document.createRange();
        rg.setStart(n, m.index); rg.setEnd(n, m.index + m[0].length);
        const rects = [...rg.getClientRects()], lines = new Set(rects.map(x => Math.round(x.top)));
        const w = rects.reduce((a, x) => a + x.width, 0);
        if (lines.size > 1 && w <= colWidth) out.broken.push(m[0]);
      }
    }
  }
  out.cutNumbers = [...document.querySelectorAll('#mx-body td.n')].filter(td => td.scrollWidth > td.clientWidth)
    .map(td => td.textContent).slice(0, 5);
  out.idxWidth = document.querySelector('#mx-head th[data-key=idx]').getBoundingClientRect().width;
  const sig = [...document.querySelectorAll('pre')].find(e => e.textContent.includes('|version:mtscore') && !e.closest('details'));
  out.sigsScroll = sig.scrollWidth - sig.clientWidth;
  const q = document.querySelector('#mx-q'), cs = getComputedStyle(q), ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  out.placeholder = [ctx.measureText(q.placeholder).width, q.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)];
  return out;
}"""


@pytest.mark.parametrize("width", [360, 768, 1280, 1920])
def test_explorer_readable_at_width(browser, report, width):
    """After choosing a segment its text columns take at least 40% of the width and break no word that fits
    them; the numbers of the table are never cut, the '#' column is narrow, the signatures wrap and the search
    box shows its whole placeholder."""
    pg, events = _open(browser, report["page"], width)
    pg.click('#mx-body tr[data-i="9"]')
    r = pg.evaluate(EXPLORER_JS)
    assert r["columns"] and min(r["columns"]) >= 0.4, r["columns"]
    assert r["broken"] == [], r["broken"]
    assert r["cutNumbers"] == [], r["cutNumbers"]
    assert r["idxWidth"] <= 60, r["idxWidth"]  # three digits and the sort arrow
    assert r["sigsScroll"] <= 1, r["sigsScroll"]
    assert r["placeholder"][0] <= r["placeholder"][1], r["placeholder"]
    assert events["console"] == []
    pg.close()


@pytest.mark.parametrize("width", [360, 768, 1280, 1920])
def test_many_metrics_and_systems_fit(browser, many, width):
    """With 24 metrics (or 15 systems) no table scrolls sideways from 1280 px on: a wide table is split into pieces
    under each other, each repeating the first column, that together show every column once (narrower, a piece
    scrolls in its box); every plot's text stays inside its plot, is at least 11 px on screen and overlaps no other;
    the page never scrolls sideways; no console error."""
    pg, events = _open(browser, many["page"], width)
    res = pg.evaluate(FIT_JS)
    if width >= 1280:
        assert res["scrolls"] == [], res["scrolls"]
    assert res["overflow"] <= 0, f"the page scrolls sideways by {res['overflow']} px at {width} px"
    assert res["bad"] == [], "\n".join(res["bad"][:20])
    assert res["small"] == [], "\n".join(res["small"][:20])
    assert res["overlap"] == [], "\n".join(res["overlap"][:20])
    pieces = pg.eval_on_selector_all("#scores .tw table", """ts => ts.map(t => ({
        caption: t.querySelector('caption').textContent,
        heads: [...t.querySelectorAll('thead th')].map(h => h.textContent),
        first: [...t.querySelectorAll('tbody tr')].map(r => r.firstElementChild.textContent)}))""")
    assert len(pieces) > 1 and all(p["caption"] == f"Scores ({k} of {len(pieces)})" for k, p in enumerate(pieces, 1))
    names = [n + (" (baseline)" if i == 0 else "") for i, n in enumerate(many["systems"])]
    assert all(p["heads"][0] == "system" and p["first"] == names for p in pieces)  # the system column repeated
    # every metric's score (its interval under it) and p-value (adjusted p under it), once, in the metrics' order
    heads = [h for p in pieces for h in p["heads"][1:]]
    metrics = [view((lambda n, kw: get_metric(n, **kw))(*parse_metric_spec(m))).name for m in many["metrics"]]
    assert len(heads) == 2 * len(metrics), heads
    for metric, score, p in zip(metrics, heads[::2], heads[1::2]):
        name = p[2:2 + (len(p) - 8) // 2]  # "p NAMEp_adj NAME"; NAME: the metric, and any parameter not its default
        assert name.startswith(metric) and p == f"p {name}p_adj {name}", (metric, p)
        assert score.startswith(f"{name} ") and score.endswith(f"{name} 95% CI"), (name, score)
    assert events["console"] == []
    pg.close()
