"""The HTML report as a rendering of the one output model, in Chromium at 360, 768, 1280 and 1920 px (issue 29):
the scores table scrolls inside its own box with the system column frozen; headers never break inside a word;
bar charts of close scores start at a marked axis break, not at 0; histograms in a grid; one signature block per
page; the scatter plot's y axis has ticks; rows and sort headers are reachable by keyboard; system A and B cannot
be the same; no significance marks for subsets of fewer than 6 segments. A screenshot per width is kept as a test
artefact (in tmp_path)."""
from __future__ import annotations

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
  return out;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_layout_at_width(browser, page_file, width, tmp_path):
    pg = _open(browser, page_file, width)
    r = pg.evaluate(LAYOUT_JS)
    assert r["pageScroll"] <= 1, r  # the page itself never scrolls sideways
    assert r["boxInside"] and r["sticky"] == "sticky", r  # the table scrolls in its own box, system column frozen
    if width <= 1280:
        assert r["boxScrolls"], r  # 16 score columns do not fit: the box scrolls, not the page
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


def test_bar_chart_of_close_scores_marks_its_axis_break(page_file):
    html = page_file.read_text(encoding="utf-8")
    # COMET's stored scores differ by 0.01: from 0 the bars would look equal; the axis starts near them, marked
    assert 'class="axis-break"' in html and "not 0" in html


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
    import re
    html = page_file.read_text(encoding="utf-8")
    for label in ("tiny", "pair"):
        for row in re.findall(rf"<tr><td>{label}</td>(.*?)</tr>", html):
            assert "▲" not in row and "▼" not in row
    assert "no marks for subsets of fewer than 6 segments" in html  # docs/significance.md, "Tiny samples"
