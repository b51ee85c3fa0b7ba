"""XCOMET's error spans in the output model: ``score --sentence-level -f json`` carries them per
system and segment (the data ``--spans-out`` writes), and the HTML report's segment explorer highlights them for
the selected segment (checked in Chromium: a row chosen with the keyboard, then clicked; the marks' texts and
severities against the spans).

Oracle: the spans unbabel-comet 2.2.7 predicted with the tiny XCOMET checkpoint (tests/fixtures/neural/
known_answers.json, built by scripts/neural_known_answers.py).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

from conftest import CHROMIUM_MISSING, chromium_path  # noqa: E402
from mtscore.cli.main import main  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
KA = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
TRIPLES = KA["triples"]
WANT = KA["models"]["xcomet"]["error_spans"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("spans")
    for name, key in (("src.txt", "src"), ("ref.txt", "ref"), ("mt.txt", "mt")):
        (d / name).write_text("".join(t[key] + "\n" for t in TRIPLES), encoding="utf-8")
    # a second system: the references with their first word dropped (other spans, or none)
    (d / "other.txt").write_text("".join(" ".join(t["ref"].split(" ")[1:]) + "\n" for t in TRIPLES),
                                 encoding="utf-8")
    return d


def _spec(d):
    return f"xcomet:model={FIX / 'xcomet'},sources={d / 'src.txt'},batch_size={KA['batch_size']}"


def _key(spans):
    return [[(s["start"], s["end"], s["severity"]) for s in seg] for seg in spans]


def test_score_json_carries_the_spans_that_spans_out_writes(files, capsys, tmp_path):
    d = files
    out_file = tmp_path / "spans.json"
    args = ["score", "-r", d / "ref.txt", "-i", d / "mt.txt", d / "other.txt", "-m", "bleu", _spec(d),
            "--sentence-level", "-f", "json", "--spans-out", out_file]
    assert main([str(a) for a in args]) == 0
    obj = json.loads(capsys.readouterr().out)
    spans = obj["error_spans"]["XCOMET"]
    assert spans == json.loads(out_file.read_text(encoding="utf-8"))  # the same data
    assert list(spans) == ["mt", "other"]  # the names score shows
    assert _key(spans["mt"]) == _key(WANT)  # unbabel-comet's spans
    for got, exp in zip(spans["mt"], WANT):
        assert [s["confidence"] for s in got] == pytest.approx([s["confidence"] for s in exp], abs=1e-6)
    assert len(spans["other"]) == len(TRIPLES) == len(obj["rows"])
    # the corpus table (no segment output) carries none; without --spans-out the JSON still has them
    assert main([str(a) for a in args[:-2]]) == 0
    assert json.loads(capsys.readouterr().out)["error_spans"]["XCOMET"] == spans
    assert main([str(a) for a in args[:-5] + ["-f", "json"]]) == 0
    assert "error_spans" not in json.loads(capsys.readouterr().out)


def _marks(text: str, spans) -> list[tuple[str, str]]:
    """What the explorer marks: spans by start, each clipped to start after the previous one (plain Python)."""
    out, at = [], 0
    for s in sorted(spans, key=lambda s: s["start"]):
        a, b = max(s["start"], at), min(s["end"], len(text))
        if b <= a:
            continue
        out.append((text[a:b], s["severity"]))
        at = b
    return out


@pytest.fixture(scope="module")
def page(files, tmp_path_factory):
    d = files
    html = tmp_path_factory.mktemp("spans-page") / "r.html"
    small = tmp_path_factory.mktemp("spans-page") / "plain.html"
    base = ["report", "-r", d / "ref.txt", "-i", d / "mt.txt", d / "other.txt", "--resamples", "20", "-q"]
    assert main([str(a) for a in base + ["-m", "bleu", _spec(d), "-o", html]]) == 0
    assert main([str(a) for a in base + ["-m", "bleu", "-o", small]]) == 0
    return html, small


def test_explorer_data_carries_only_the_segments_with_spans(page):
    html, _ = page
    text = html.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="mx-data">(.*?)</script>', text,
                                re.S).group(1).replace("<\\/", "</"))
    entry = data["spans"][0]
    assert entry["name"] == "XCOMET" and len(entry["systems"]) == 2
    mt = entry["systems"][0]
    assert set(mt) == {str(i) for i, s in enumerate(WANT) if s}  # only the segments with a span
    for i, e in mt.items():
        assert e["t"] == TRIPLES[int(i)]["mt"]
        assert [(a, b, sev) for a, b, sev, _ in e["s"]] == [(s["start"], s["end"], s["severity"])
                                                           for s in WANT[int(i)]]
    # the size budget: the spans add the text of the segments that have spans and ~30 bytes per span
    block = json.dumps(data["spans"], ensure_ascii=False, separators=(",", ":"))
    chars = sum(len(e["t"]) for sysd in entry["systems"] for e in sysd.values())
    n = sum(len(e["s"]) for sysd in entry["systems"] for e in sysd.values())
    assert len(block.encode("utf-8")) <= 2 * chars + 40 * n + 200
    assert "Error spans (XCOMET" in text


def test_explorer_highlights_the_spans_of_the_selected_segment(page, tmp_path):
    chromium = chromium_path()
    if chromium is None:
        pytest.skip(CHROMIUM_MISSING)
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the Python package 'playwright' (test extra)")
    html, _ = page
    k = max(range(len(WANT)), key=lambda i: len(_marks(TRIPLES[i]["mt"], WANT[i])))  # the most marks
    k2 = next(i for i in range(len(WANT)) if i != k and _marks(TRIPLES[i]["mt"], WANT[i]))
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        pg = b.new_page(viewport={"width": 1280, "height": 900})
        errors = []
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(html.as_uri())
        pg.wait_for_selector("body[data-explorer=ready]", timeout=30_000)
        assert pg.eval_on_selector_all("#mx-detail mark", "ms => ms.length") == 0  # nothing selected yet
        # keyboard: focus the segment's row, Enter selects it
        pg.focus(f'#mx-body tr[data-i="{k}"]')
        pg.keyboard.press("Enter")
        got = pg.eval_on_selector_all("#mx-detail .row", "rs => rs.map(r => [r.children[0].textContent, "
                                      "[...r.querySelectorAll('mark')].map(m => [m.textContent, m.className])])")
        rows = {lab: marks for lab, marks in got}
        want = [(t, f"sp sp-{sev}") for t, sev in _marks(TRIPLES[k]["mt"], WANT[k])]
        assert [tuple(m) for m in rows["XCOMET error spans: mt"]] == want
        assert "XCOMET error spans: other" in rows
        # the whole hypothesis is shown, marks in place
        shown = pg.eval_on_selector_all("#mx-detail .sp-text", "xs => xs.map(x => x.textContent)")
        assert TRIPLES[k]["mt"] in shown
        title = pg.get_attribute("#mx-detail mark.sp", "title")
        assert re.fullmatch(r"(minor|major|critical) error \(confidence [0-9.]+\)", title)
        # mouse: click another row
        pg.click(f'#mx-body tr[data-i="{k2}"]')
        marks = pg.eval_on_selector_all("#mx-detail .row", "rs => rs.filter(r => r.children[0].textContent === "
                                        "'XCOMET error spans: mt').map(r => [...r.querySelectorAll('mark')]"
                                        ".map(m => [m.textContent, m.className]))")
        assert [tuple(m) for m in marks[0]] == [(t, f"sp sp-{sev}") for t, sev in
                                                _marks(TRIPLES[k2]["mt"], WANT[k2])]
        pg.screenshot(path=str(tmp_path / "spans.png"), full_page=False)
        b.close()
    assert not errors, errors
