"""The metrics-ranking page of ``mtscore meta --task-set ... -o FILE``: a rendering of the same table the
JSON output prints (rows, clusters, per-task values and p-value matrices), checked cell by cell against that JSON and
the clusters re-derived from its p-value matrices by a plain-Python rule; then in Chromium at 360 and 1280 px (the
page never scrolls sideways), sorting by keyboard and click, expanding a metric's detail row and a p-value matrix."""
from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
FIXTURE = TESTS / "fixtures" / "wmt25"
METRICS = ["BLEU", "chrF", "MetricX-25", "COMETKiwi22", "GEMBA-v2"]
K = 200


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ranking")
    page = out / "ranking.html"
    p = subprocess.run([sys.executable, "-m", "mtscore", "meta", "--data", str(FIXTURE), "--task-set", "wmt25",
                        "--external", *METRICS, "--perm-samples", str(K), "-f", "json", "-o", str(page)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), page


class _Rows(HTMLParser):
    """The ranking table's body rows as lists of cell texts (detail rows and nested tables left out)."""

    def __init__(self):
        super().__init__()
        self.rows, self.heads, self.tags = [], [], []
        self.depth = 0  # table nesting
        self.in_rk = False
        self.cell = None
        self.row = None
        self.in_head = False
        self.skip = 0
        self.spans = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.depth += 1
            if a.get("id") == "rk-table":
                self.in_rk = True
            return
        if not self.in_rk or self.depth != 1:
            return
        if tag == "thead":
            self.in_head = True
        elif tag == "tr":
            self.row = None if "det" in (a.get("class") or "") else []
        elif tag in ("td", "th") and (self.row is not None or self.in_head):
            self.cell = []
        elif tag == "span":
            is_tag = "tag" in (a.get("class") or "").split()
            self.spans.append(is_tag)
            if is_tag:
                self.tags.append((len(self.rows), a["class"].split()[-1]))
                self.skip += 1
        elif tag == "button":
            self.skip += 1

    def handle_endtag(self, tag):
        if tag == "table":
            if self.depth == 1 and self.in_rk:
                self.in_rk = False
            self.depth -= 1
            return
        if not self.in_rk or self.depth != 1:
            return
        if tag == "button" or (tag == "span" and self.spans.pop()):
            self.skip -= 1
        elif tag in ("td", "th") and self.cell is not None:
            text = "".join(self.cell).strip()
            if self.in_head:
                self.heads.append(text)
            else:
                self.row.append(text)
            self.cell = None
        elif tag == "thead":
            self.in_head = False
        elif tag == "tr" and self.row is not None and not self.in_head:
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None and not self.skip:
            self.cell.append(data)


def _clusters(names, sig, pval):
    """Plain-Python cluster rule (WMT): a metric opens a new cluster when a metric of the current cluster beats it."""
    ranks, rank, start = [], 1, 0
    for i in range(len(names)):
        if any(sig[s][i] <= pval for s in range(start, i)):
            rank, start = rank + 1, i
        ranks.append(rank)
    return dict(zip(names, ranks))


def test_page_renders_the_json_ranking(run):
    table, page = run
    html = page.read_text(encoding="utf-8")
    meta = table  # the Table.meta keys are top-level in JSON
    # clusters in the JSON follow the WMT rule on its own p-value matrices (the page only shows them)
    avg = meta["average"]
    assert _clusters(list(avg["values"]), avg["sig_matrix"], meta["pval"]) == avg["ranks"]
    for t in meta["tasks"]:
        assert _clusters(list(t["values"]), t["sig_matrix"], meta["pval"]) == t["ranks"]
    assert len({r for r in avg["ranks"].values()}) >= 2  # the fixture separates its metrics into several clusters
    p = _Rows()
    p.feed(html)
    assert p.heads == ["cluster", "metric", "avg value", "avg rank"] + [t["name"] for t in meta["tasks"]]
    rows = table["rows"]
    assert [r[1] for r in p.rows] == [r["metric"] for r in rows]  # same metrics, same order
    assert {rows[i]["metric"]: kind for i, kind in p.tags} == meta["status"]  # tags: WMT25's names
    d = 4  # meta's default -w
    for shown, r in zip(p.rows, rows):
        m = r["metric"]
        cl = avg["ranks"].get(m)
        assert shown[0] == ("-" if cl is None else str(cl))
        assert shown[2] == ("-" if r["avg value"] is None else f"{r['avg value']:.{d}f}")
        assert shown[3] == ("-" if r["avg rank"] is None else f"{r['avg rank']:.2f}")
        for cell, t in zip(shown[4:], meta["tasks"]):
            if m in t["values"]:
                assert cell == f"{t['values'][m]:.{d}f}({t['ranks'][m]})", (m, t["name"])
                assert r[t["name"]] == f"{t['values'][m]:.{d}f} ({t['ranks'][m]})"  # the text/JSON cell
            else:
                assert cell == "-" and r[t["name"]] == "-"
    # the human baseline as WMT25 reports it: ranked in the ESA pair's tasks, no average, marked human
    hum = [i for i, r in enumerate(rows) if r["metric"] == "esa-human2"]
    assert len(hum) == 1 and (hum[0], "human") in p.tags and p.rows[hum[0]][0] == "-"
    assert meta["status"]["esa-human2"] == "human" and meta["status"]["MetricX-25"] == "primary"
    # one p-value matrix per task and one for the average, in <details>; the signature once
    assert html.count("<details><summary>") == len(meta["tasks"]) + 1
    assert table["notes"][0] in html.replace("|<wbr>", "|").replace(",<wbr>", ",")
    assert "script-src 'sha256-" in html and "http://" not in html and "https://" not in html


def test_without_significance_tests(tmp_path):
    page = tmp_path / "p.html"
    p = subprocess.run([sys.executable, "-m", "mtscore", "meta", "--data", str(FIXTURE), "--task-set", "wmt25",
                        "--external", *METRICS, "--perm-samples", "0", "-o", str(page)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    html = page.read_text(encoding="utf-8")
    assert "No significance tests were run" in html and html.count("<details><summary>") == 4
    rows = _Rows()
    rows.feed(html)
    assert [r[0] for r in rows.rows] == [str(i + 1) for i in range(len(METRICS))] + ["-"]


# --- in Chromium -------------------------------------------------------------------------------------

def _browser_or_skip():
    from conftest import CHROMIUM_MISSING, chromium_path
    path = chromium_path()
    if path is None:
        pytest.skip(CHROMIUM_MISSING)
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the Python package 'playwright' (test extra)")
    return path, sync_api


@pytest.fixture(scope="module")
def browser():
    path, sync_api = _browser_or_skip()
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _open(browser, page, width):
    pg = browser.new_page(viewport={"width": width, "height": 900})
    errors = []
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.goto(page.as_uri())
    pg.wait_for_selector("body[data-ranking=ready]", timeout=30_000)
    return pg, errors


ORDER_JS = "() => [...document.querySelectorAll('#rk-table > tbody')].map(b => b.rows[0].cells[1].dataset.v)"


@pytest.mark.parametrize("width", (360, 1280))
def test_layout_at_width(browser, run, width, tmp_path):
    table, page = run
    pg, errors = _open(browser, page, width)
    r = pg.evaluate("""() => {
      const box = document.querySelector('.rk-box');
      return {pageScroll: document.documentElement.scrollWidth - window.innerWidth,
              boxRight: box.getBoundingClientRect().right, boxScrolls: box.scrollWidth > box.clientWidth,
              sticky: getComputedStyle(document.querySelector('#rk-table td.m')).position};
    }""")
    assert r["pageScroll"] <= 1, r  # the page never scrolls sideways: the table scrolls in its box
    assert r["boxRight"] <= width + 1 and r["sticky"] == "sticky", r
    if width == 360:
        assert r["boxScrolls"], r  # 8 columns do not fit a phone: the box scrolls, the metric column stays
    else:
        assert not r["boxScrolls"], r  # they fit a laptop
    shot = tmp_path / f"ranking-{width}.png"
    pg.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 5_000
    assert errors == []  # the script ran under the page's Content-Security-Policy
    pg.close()


def test_sort_and_expand_by_keyboard_and_click(browser, run):
    table, page = run
    meta = table  # the Table.meta keys are top-level in JSON
    pg, errors = _open(browser, page, 1280)
    assert pg.evaluate(ORDER_JS) == [r["metric"] for r in table["rows"]]
    # keyboard: focus the first task's header, Enter sorts descending, Space ascending
    task = meta["tasks"][0]
    col = 4
    th = pg.locator("#rk-table > thead th").nth(col)
    assert th.get_attribute("tabindex") == "0"
    th.focus()
    pg.keyboard.press("Enter")
    assert th.get_attribute("aria-sort") == "descending"
    in_task = list(task["values"])  # by decreasing value (ties by name), as the task ranks them
    order = pg.evaluate(ORDER_JS)
    assert order[:len(in_task)] == in_task
    assert set(order[len(in_task):]) == {r["metric"] for r in table["rows"]} - set(in_task)
    # the bands follow that task's clusters: a line wherever the cluster changes
    starts = pg.evaluate("() => [...document.querySelectorAll('#rk-table > tbody')].map(b => b.classList.contains('cs'))")
    ranks = [task["ranks"][m] for m in in_task]
    assert starts[1:len(in_task)] == [ranks[i] != ranks[i - 1] for i in range(1, len(in_task))]
    # sorting moves whole metric groups (row + detail row), never the detail tables' own parts
    assert pg.evaluate("() => document.querySelectorAll('#rk-table > tbody').length") == len(table["rows"])
    assert pg.evaluate("() => [...document.querySelectorAll('#rk-table tr.det')].every(r => r.querySelector('table.d tbody'))")
    pg.keyboard.press(" ")
    assert th.get_attribute("aria-sort") == "ascending"
    assert pg.evaluate(ORDER_JS)[:len(in_task)] == in_task[::-1]
    # click: the metric column sorts by name
    pg.click("#rk-table > thead th:nth-child(2)")
    names = pg.evaluate(ORDER_JS)
    assert names == sorted(names, reverse=True) or names == sorted(names)
    # expand a metric's detail row by keyboard (its button), collapse it by click
    m = table["rows"][1]["metric"]
    btn = pg.locator(f'#rk-table button[aria-label="details of {m}"]')
    det = pg.locator(f"#{btn.get_attribute('aria-controls')}")
    assert not det.is_visible()
    btn.focus()
    pg.keyboard.press("Enter")
    assert btn.get_attribute("aria-expanded") == "true" and det.is_visible()
    text = det.inner_text()
    best = list(task["values"])[0]
    p = task["sig_matrix"][0][list(task["values"]).index(m)] if m != best and m in task["values"] else None
    assert task["name"] in text and (p is None or f"{p:.4f}" in text or "< 0.0001" in text)
    btn.click()
    assert btn.get_attribute("aria-expanded") == "false" and not det.is_visible()
    # a p-value matrix opens from the keyboard
    summ = pg.locator("#significance details summary").first
    summ.focus()
    pg.keyboard.press("Enter")
    assert pg.evaluate("() => document.querySelector('#significance details').open")
    assert errors == []
    pg.close()
