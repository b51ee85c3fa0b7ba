"""``mtscore rank``'s HTML page in a real browser (Debian's Chromium driven by Playwright), end to end on the built-in
sample: ``score`` with two metrics -> ``rank -o page.html``; the table is sorted by clicking a column header and by the
keyboard (Tab to a header, Enter/Space), a system's row expands to its per-metric raw and scaled scores and its
interval (click and keyboard), and the page logs no console error and requests nothing but itself."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CHROMIUM_MISSING, chromium_path, cli_output

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(CHROMIUM_MISSING, allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the Python package 'playwright' (test extra)")

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "mtscore" / "data" / "sample"
SYSTEMS = ["LIUM-NMT", "online-B", "uedin-nmt", "PROMT-Rule-based"]


def _run(argv):
    return cli_output(*argv)


@pytest.fixture(scope="module")
def page_and_data(tmp_path_factory):
    d = tmp_path_factory.mktemp("rank-browser")
    scores = d / "scores.json"
    scores.write_text(_run(["score", "-r", SAMPLE / "newstest2017.en-de.ref.de",
                            "-i", *(SAMPLE / f"{s}.de" for s in SYSTEMS), "-m", "bleu", "chrf",
                            "--sentence-level", "-f", "json", "-q"]), encoding="utf-8")
    page = d / "rank.html"
    data = json.loads(_run(["rank", "--score-json", scores, "--resamples", "300", "-o", page, "-f", "json"]))
    return page, data["rankings"][0]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _open(browser, page):
    pg = browser.new_page(viewport={"width": 1280, "height": 900})
    events = {"console": [], "requests": []}
    pg.on("console", lambda m: events["console"].append(f"{m.type}: {m.text}") if m.type in ("error", "warning")
          else None)
    pg.on("pageerror", lambda e: events["console"].append(f"pageerror: {e}"))
    pg.on("request", lambda r: events["requests"].append(r.url))
    pg.goto(page.as_uri())
    pg.wait_for_selector("body[data-rank=ready]", timeout=30_000)
    return pg, events


def _systems(pg):
    return pg.eval_on_selector_all("#rank-0 tbody tr.sys", "trs => trs.map(t => t.cells[2].textContent)")


def _header(pg, label):
    return pg.locator("#rank-0 thead th button", has_text=label).first


def test_sort_by_click_and_keyboard(browser, page_and_data):
    page, data = page_and_data
    pg, events = _open(browser, page)
    shown = [s["system"] for s in data["systems"]]
    assert _systems(pg) == shown  # as ranked
    by_bleu = [s["system"] for s in sorted(data["systems"], key=lambda s: s["metrics"]["BLEU"]["score"])]
    _header(pg, "BLEU").click()
    assert _systems(pg) == by_bleu
    sort = pg.eval_on_selector_all("#rank-0 thead th", "ths => ths.map(t => [t.textContent, t.getAttribute('aria-sort')])")
    assert [s for s in sort if s[1]] == [["BLEU ↑", "ascending"]]
    _header(pg, "BLEU").click()
    assert _systems(pg) == by_bleu[::-1]
    # keyboard: focus the System header and press Enter, then Space (reverses)
    _header(pg, "System").focus()
    pg.keyboard.press("Enter")
    assert _systems(pg) == sorted(shown, key=str.lower)
    pg.keyboard.press("Space")
    assert _systems(pg) == sorted(shown, key=str.lower)[::-1]
    _header(pg, "AutoRank").click()
    assert _systems(pg) == shown
    assert not events["console"], events["console"]
    assert events["requests"] == [page.as_uri()]
    pg.close()


def test_expand_a_row(browser, page_and_data):
    page, data = page_and_data
    pg, events = _open(browser, page)
    first = data["systems"][0]
    toggle = pg.locator("#rank-0 button.toggle[aria-controls=r0-d0]")
    detail = pg.locator("#r0-d0")
    assert detail.is_hidden()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true" and detail.is_visible()
    text = detail.inner_text()
    for name, m in first["metrics"].items():
        assert name in text
        assert f"{m['scaled']:.4f}" in text
    lo, hi = first["interval"]
    assert f"{lo:.3f}–{hi:.3f}" in text and f"P(first) {first['p_first']:.3f}" in text
    # the detail row travels with its system when the table is sorted
    pg.locator("#rank-0 thead th button", has_text="System").first.click()
    rows = pg.eval_on_selector_all("#rank-0 tbody tr", "trs => trs.map(t => t.className + ':' + t.id)")
    i = next(k for k, r in enumerate(rows) if r.endswith(":r0-d0"))
    assert rows[i - 1].startswith("sys")
    # keyboard: Enter on the focused toggle closes it
    toggle.focus()
    pg.keyboard.press("Enter")
    assert toggle.get_attribute("aria-expanded") == "false" and detail.is_hidden()
    assert not events["console"], events["console"]
    pg.close()
