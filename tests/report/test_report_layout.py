"""The HTML report as a rendering of the one output model, in Chromium at 360, 768, 1280 and 1920 px:
the scores table scrolls inside its own box with the system column frozen on narrow screens, and from 1280 px on every
table fits (intervals under their scores) in a content column that uses the screen; headers never break inside a word;
every bar chart's value axis starts at 0 and says so; histograms in a grid; one signature block per
page; the scatter plot's y axis has ticks; rows and sort headers are reachable by keyboard; system A and B cannot
be the same; no significance marks for subsets of fewer than 6 segments. A screenshot per width is kept as a test
artefact (in tmp_path)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import CHROMIUM_MISSING, chromium_path
from mtscore.cli.demo import sample_dir

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(CHROMIUM_MISSING, allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the Python package 'playwright' (test extra)")

WIDTHS = (360, 768, 1280, 1920)
SYSTEMS = ("LIUM-NMT", "online-B", "uedin-nmt", "PROMT-Rule-based")


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    d = sample_dir()
    out = tmp_path_factory.mktemp("layout")
    ref = d / "newstest2017.en-de.ref.de"
    n = len(ref.read_text(encoding="utf-8").splitlines())
    # labels: two large subsets and two of one and two segments (no significance marks there)
    labels = ["news" if i % 2 else "sport" for i in range(n)]
    labels[0], labels[1], labels[2] = "tiny", "pair", "pair"
    (out / "labels.txt").write_text("".join(x + "\n" for x in labels), encoding="utf-8")
    comet = out / "comet"
    comet.mkdir()
    for k, s in enumerate(SYSTEMS):  # stored model scores, 4 digits: more columns than fit at 1280 px
        (comet / f"{s}.txt").write_text("".join(f"{0.8 + 0.01 * k + 0.001 * (i % 7)}\n" for i in range(n)),
                                        encoding="utf-8")
    page = out / "report.html"
    p = subprocess.run([sys.executable, "-m", "mtscore", "report", "-r", str(ref), "-i",
                        *(str(d / f"{s}.de") for s in SYSTEMS), "-m", "bleu", "chrf", "ter",
                        f"scores:COMET={comet}/{{system}}.txt", "--labels", str(out / "labels.txt"),
                        "--resamples", "100", "-o", str(page)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return page


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _open(browser, page_file, width):
    pg = browser.new_page(viewport={"width": width, "height": 900})
    pg.goto(page_file.as_uri())
    pg.wait_for_selector("body[data-explorer=ready]", timeout=30_000)
    return pg


LAYOUT_JS = """() => {
  const out = {};
  const first = document.querySelector('table.t');
  const box = first.closest('.tw');
  out.pageScroll = document.documentElement.scrollWidth - window.innerWidth;
  out.boxScrolls = box.scrollWidth > box.clientWidth;
  out.boxInside = box.getBoundingClientRect().right <= window.innerWidth + 1;
  out.sticky = getComputedStyle(first.querySelector('tbody td')).position;
  // a header word broken across lines has more than one client rect
  out.brokenHeaders = [];
  for (const w of document.querySelectorAll('table.t thead th .w')) {
    const lines = new Set([...w.getClientRects()].map(x => Math.round(x.top)));
    if (lines.size > 1 || w.scrollWidth > w.closest('th').scrollWidth) out.brokenHeaders.push(w.textContent);
  }
  const grid = document.querySelector('#bootstrap-differences .grid');
  const tops = [...grid.querySelectorAll('figure')].map(f => Math.round(f.getBoundingClientRect().top));
  out.histograms = tops.length; out.histogramRows = new Set(tops).size;
  out.captionSignatures = [...document.querySelectorAll('figcaption, p.note')]
    .filter(e => e.textContent.includes('|version:mtscore')).length;
  out.signatureBlocks = [...document.querySelectorAll('pre')].filter(e => e.textContent.includes('|version:mtscore')
    && !e.closest('details')).length;
  out.yticks = document.querySelectorAll('#mx-svg text.ytick').length;
  out.tablesScrolling = [...document.querySelectorAll('.tw')].filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.querySelector('caption').textContent);
  out.mainWidth = document.querySelector('main').getBoundingClientRect().width;
  return out;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_layout_at_width(browser, page_file, width, tmp_path):
    pg = _open(browser, page_file, width)
    r = pg.evaluate(LAYOUT_JS)
    assert r["pageScroll"] <= 1, r  # the page itself never scrolls sideways
    assert r["boxInside"] and r["sticky"] == "sticky", r  # the table scrolls in its own box, system column frozen
    if width <= 768:
        assert r["boxScrolls"], r  # 4 metrics' scores do not fit a tablet: the box scrolls, not the page
    else:  # from 1280 px on, every table fits: intervals under their scores, the width of the screen used
        assert r["tablesScrolling"] == [], r["tablesScrolling"]
    if width == 1920:  # the content uses the screen, not a 1,000 px column
        assert r["mainWidth"] >= 1700, r["mainWidth"]
    assert r["brokenHeaders"] == [], r["brokenHeaders"]
    assert r["histograms"] == 12  # 3 systems vs the baseline x 4 metrics (BLEU, chrF, TER, COMET), in a grid
    if width >= 768:
        assert r["histogramRows"] < r["histograms"], r  # a grid, not one per row
    assert r["captionSignatures"] == 0 and r["signatureBlocks"] == 1, r
    assert r["yticks"] >= 3, r
    shot = tmp_path / f"report-{width}.png"
    pg.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 5_000
    pg.close()


def test_one_axis_rule_for_every_bar_chart(page_file):
    """BLEU, chrF, TER and COMET's bar charts (scores, per subset, BP) all start their value axis at 0 and say so on
    the plot; none starts near its smallest bar (which turned a 0.01 difference into a doubling)."""
    import xml.etree.ElementTree as ET
    from mtscore.report.svg import AXIS_RULE
    html = page_file.read_text(encoding="utf-8")
    charts = re.findall(r'<svg xmlns="http://www.w3.org/2000/svg".*?</svg>', html, flags=re.S)
    bars = [c for c in charts if re.search(r"<rect [^>]*fill-opacity=\"0.85\"", c)]
    assert len(bars) == 4 + 4 + 1  # a score chart and a per-subset chart per metric, BP vs strict BP
    for c in bars:
        root = ET.fromstring(c)
        texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
        title = texts[0]
        assert any(t.endswith(AXIS_RULE) for t in texts), title
        ticks = [float(t.replace("−", "-")) for t in texts if re.fullmatch(r"-?[0-9.]+", t)]
        assert 0.0 in ticks, (title, ticks)  # the axis includes 0 (a tick there)
    assert 'class="axis-break"' not in html and "axis starts at" not in html


def test_keyboard_and_distinct_systems(browser, page_file):
    pg = _open(browser, page_file, 1280)
    th = pg.locator("#mx-head th[data-key=diff]")
    assert th.get_attribute("tabindex") == "0"
    th.focus()
    pg.keyboard.press("Enter")
    assert pg.get_attribute("#mx-head th[data-key=diff]", "aria-sort") == "descending"
    row = pg.locator("#mx-body tr").first
    row.focus()
    pg.keyboard.press("ArrowDown")
    pg.keyboard.press("Enter")
    second = pg.eval_on_selector_all("#mx-body tr", "trs => trs[1].dataset.i")
    assert pg.inner_text("#mx-detail").startswith(f"Segment #{int(second) + 1}")
    # system A and B cannot be the same: B's option of system A is disabled; choosing A = B clears B
    a = pg.eval_on_selector("#mx-a", "s => +s.value")
    disabled = pg.eval_on_selector_all("#mx-b option", "os => os.filter(o => o.disabled).map(o => +o.value - 1)")
    assert disabled == [a]
    b = pg.eval_on_selector("#mx-b", "s => +s.value - 1")
    if b >= 0:
        pg.eval_on_selector("#mx-a", f"s => {{ s.value = '{b}'; s.dispatchEvent(new Event('change')); }}")
        assert pg.eval_on_selector("#mx-b", "s => +s.value - 1") != pg.eval_on_selector("#mx-a", "s => +s.value")
    pg.close()


def test_no_marks_for_subsets_of_one_or_two_segments(page_file):
    html = page_file.read_text(encoding="utf-8")
    for label in ("tiny", "pair"):
        for row in re.findall(rf"<tr><td>{label}</td>(.*?)</tr>", html):
            assert "▲" not in row and "▼" not in row
    assert "no marks for subsets of fewer than 6 segments" in html  # docs/significance.md, "Tiny samples"
