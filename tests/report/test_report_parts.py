"""Building blocks of the reports: SVG charts, tables (LaTeX/Markdown/CSV), progress bars, token
highlighting. (The resampling the report shows is mtscore.significance's: tests/significance/test_significance.py
and tests/significance/test_report_agreement.py.)"""
import csv
import io
import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtscore import progress as P
from mtscore.metrics.bleu import BLEU
from mtscore.report import Marked, Table, render_table, svg

NS = "{http://www.w3.org/2000/svg}"


def _parse(s):
    return ET.fromstring(s)


# ------------------------------------------------------------------------------------------------ svg
def test_bar_chart_marks_and_error_bars():
    s = svg.bar_chart(["a", "b", "c"], {"x": [1.0, 2.0, 3.0], "y": [2.0, -1.0, 0.5]},
                      {"x": [(0.5, 1.5), (1.5, 2.5), (2.5, 3.5)], "y": [None, (-2, 0), (0, 1)]}, title="T & <t>")
    root = _parse(s)
    rects = [r for r in root.iter(NS + "rect") if r.find(NS + "title") is not None]
    assert len(rects) == 6  # one per (category, series)
    paths = list(root.iter(NS + "path"))
    assert len(paths) == 5  # error bars where given
    assert root.find(NS + "title").text == "T & <t>"
    tips = [r.find(NS + "title").text for r in rects]
    assert "b — y: -1.00 (-2.00, 0.00)" in tips


def test_histogram_density_integrates_to_one_and_lines():
    rng = np.random.default_rng(0)
    x = rng.normal(1, 0.3, 1000)
    s = svg.histogram({"d": x}, bins=30, vlines=[(0.0, "0"), (1.0, "obs")], shade=(0.4, 1.6))
    root = _parse(s)
    bars = [r for r in root.iter(NS + "rect") if (r.find(NS + "title") is not None
                                                 and r.find(NS + "title").text.startswith("d: "))]
    assert 10 <= len(bars) <= 30
    assert len(list(root.iter(NS + "polyline"))) == 1  # density line
    assert len([ln for ln in root.iter(NS + "line") if ln.find(NS + "title") is not None]) == 2
    # the histogram is a density: sum(height * width) == 1
    edges = np.linspace(x.min() - (x.max() - x.min()) * 0.03, x.max() + (x.max() - x.min()) * 0.03, 31)
    h, _ = np.histogram(x, bins=edges, density=True)
    assert math.isclose(float((h * np.diff(edges)).sum()), 1.0, rel_tol=1e-9)


def test_scatter_and_line_chart():
    s = svg.scatter({"m": [(1, 2, "s1"), (2, 4, "s2"), (3, 5.5, "s3")]}, xlabel="human", ylabel="metric")
    root = _parse(s)
    assert len(list(root.iter(NS + "circle"))) == 3
    fit = [ln for ln in root.iter(NS + "line") if ln.find(NS + "title") is not None]
    a, b = np.polyfit([1, 2, 3], [2, 4, 5.5], 1)
    assert f"{a:.4g}" in fit[0].find(NS + "title").text
    s = svg.line_chart([1, 2, 3, 4], {"a": [60, 30, 17, 10], "b": [58, 31, 18, 11]},
                       errors={"a": [(59, 61)] * 4}, xlabels=["1-gram", "2-gram", "3-gram", "4-gram"])
    root = _parse(s)
    assert len(list(root.iter(NS + "polyline"))) == 2
    assert len(list(root.iter(NS + "circle"))) == 8


def test_charts_without_data():
    for s in (svg.bar_chart([], {}), svg.histogram({"a": []}), svg.scatter({"a": [(float("nan"), 1, "")]}),
              svg.line_chart([], {})):
        assert "no data" in s
        _parse(s)


@settings(max_examples=60, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6))
def test_nice_ticks_cover_range(lo, span):
    hi = lo + span
    t = svg.nice_ticks(lo, hi)
    assert t[0] <= lo + 1e-9 * max(1, abs(lo)) and t[-1] >= hi - 1e-9 * max(1, abs(hi))
    assert 2 <= len(t) <= 13
    d = np.diff(t)
    assert np.allclose(d, d[0], rtol=1e-6)


# ------------------------------------------------------------------------------------------------ tables
def _t():
    return Table(["system", "BLEU", "95% CI", "p"],
                 [["a_b & c", Marked(27.3456, "**"), (26.1, 28.25), 0.0009995],
                  ["x<y>|z", -1.5, (-2.0, None), None]], title="Scores 50%", notes=["BLEU|nrefs:1"],
                 col_digits={"p": 4})


def test_latex_booktabs_escapes_marks_and_ci():
    out = render_table(_t(), "latex")
    lines = out.splitlines()
    assert lines[:3] == [r"\begin{table}[t]", r"\centering", r"\caption{Scores 50\%}"]
    assert r"\begin{tabular}{lrlr}" in out and r"\toprule" in out and r"\midrule" in out and r"\bottomrule" in out
    assert r"a\_b \& c & 27.35$^{**}$ & (26.10, 28.25) & 0.0010 \\" in lines
    assert r"x\textless{}y\textgreater{}\textbar{}z & $-$1.50 & ($-$2.00, --) & -- \\" in lines
    assert lines[-1] == "% BLEU|nrefs:1"
    # every row has as many cells as columns
    body = lines[lines.index(r"\midrule") + 1:lines.index(r"\bottomrule")]
    assert all(r.count(" & ") == 3 for r in body)


def test_markdown_and_csv_and_json():
    md = render_table(_t(), "markdown").splitlines()
    assert md[2] == "| system | BLEU | 95% CI | p |"
    assert md[3] == "|---|---:|---|---:|"
    assert md[4] == r"| a\_b & c | 27.35\*\* | (26.10, 28.25) | 0.0010 |"
    assert md[5] == r"| x&lt;y&gt;\|z | -1.50 | (-2.00, -) | - |"
    rows = list(csv.reader(io.StringIO(render_table(_t(), "csv"))))
    assert rows[0] == ["system", "BLEU", "95% CI", "p"]
    assert rows[1] == ["a_b & c", "27.35**", "(26.10, 28.25)", "0.0010"]
    js = json.loads(render_table(_t(), "json"))
    assert js["rows"][0]["BLEU"] == 27.3456 and js["rows"][0]["95% CI"] == [26.1, 28.25]
    assert js["rows"][1]["95% CI"] == [-2.0, None]
    txt = render_table(_t(), "text")
    assert "27.35**" in txt and "(26.10, 28.25)" in txt


# ------------------------------------------------------------------------------------------------ progress
class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_draws_on_tty_only_and_clears():
    tty = _Tty()
    with P.progress("work", total=10, unit="x", delay=0, stream=tty) as bar:
        for _ in range(10):
            bar.update(1)
            bar._last = 0  # no throttling in the test
    out = tty.getvalue()
    assert "work:" in out and "10/10 x" in out and "100.0%" in out
    assert out.endswith("\r")  # the line is cleared at the end
    plain = io.StringIO()
    with P.progress("work", total=10, delay=0, stream=plain) as bar:
        bar.update(10)
    assert plain.getvalue() == ""


def test_progress_silenced_and_delay():
    tty = _Tty()
    with P.silenced():
        with P.progress("w", total=3, delay=0, stream=tty) as bar:
            bar.update(3)
    assert tty.getvalue() == ""
    with P.progress("w", total=3, delay=3600, stream=tty) as bar:  # quick work prints nothing
        bar.update(3)
    assert tty.getvalue() == ""
    assert list(P.track(range(4), "t")) == [0, 1, 2, 3]
    assert "/s" in P.Progress("w", None, "seg").line()


# ------------------------------------------------------------------------------------------------ highlighting
def test_token_diff_and_alignment_rendering():
    from mtscore.analysis.systems import Token, grr_tokens, token_diff
    from mtscore.report.systems import tokens_html
    h, r = token_diff(["the", "cat", "the", "<x>"], ["the", "cat", "sat"])
    assert [t.kind for t in h] == ["match", "match", "extra", "extra"]  # the 2nd "the" is clipped
    assert [t.kind for t in r] == ["match", "match", "missing"]
    hh, rh = tokens_html(h), tokens_html(r)
    assert hh.count('class="tok-m"') == 2 and hh.count('class="tok-x"') == 2
    assert "&lt;x&gt;" in hh and rh.count('class="tok-r"') == 1 and ">sat<" in rh
    ops = [("match", 0, 0), ("sub", 1, 1), ("ins", 2, None), ("del", None, 2)]
    out = tokens_html(grr_tokens(ops, ["a", "b", "c"], ["a", "x", "y"]))
    assert out.count("op-match") == 1 and "b→x" in out and "op-ins" in out and ">y<" in out
    from mtscore.errors import InvalidParameterError
    with pytest.raises(InvalidParameterError, match="weird"):
        grr_tokens([("weird", 0, 0)], ["a"], ["a"])
    with pytest.raises(ValueError, match="kind"):
        tokens_html([Token("a", "nonsense")])


def test_report_highlights_4grr_alignments_and_tbleu_corrections():
    """The sentence-level section uses the first decomposable metric and its own alignment (no silent
    fallback); without one, sentence BLEU and plain token matches."""
    from mtscore.analysis.systems import build_report
    from mtscore.metrics.grr import FourGRR, grr_align
    from mtscore.metrics.tbleu import TBLEU
    refs = [["the cat sat on the mat"], ["a dog barked loudly"], ["it rains today"]]
    sysa = ["the cat sat on a mat", "a dog barks", "it rains"]
    sysb = ["the cat sat on the mat", "dog barked loudly", "today it rains"]
    rep = build_report({"a": sysa, "b": sysb}, refs, [FourGRR()], n_resamples=20, examples=3)
    sd = rep.sentence[0]
    assert sd.highlight.startswith("4-GRR alignment")
    e = sd.best[0] if sd.best else sd.worst[0]
    al = grr_align(sysb[e.index].split(), refs[e.index][0].split())
    assert [t.kind for t in e.hyp_tokens] == [{"match": "align-match"}.get(op, op) for op, _, _ in al.ops]
    rep = build_report({"a": sysa, "b": sysb}, refs, [TBLEU()], n_resamples=20, examples=3)
    assert rep.sentence[0].metric_name == "BLEU"  # tBLEU is not decomposable: sentence BLEU, token matches
    assert rep.sentence[0].highlight == "token diff"


def test_chart_text_sizes_and_crowded_scatter_labels():
    """Every chart's text is at least svg.FS px at its intrinsic width (the page scales it by at least 0.85: >= 11
    px on screen, docs/report.md); crowded points keep one label, the others' names stay in their tooltips."""
    charts = [svg.bar_chart(["a", "b"], {"x": [1.0, 2.0]}), svg.histogram({"d": [0.1, 0.2, 0.4]}, vlines=[(0, "0")]),
              svg.line_chart([1, 2], {"a": [1, 2], "b": [2, 3]}), svg.scatter({"m": [(1, 1, "s1"), (2, 2, "s2")]})]
    for s in charts:
        root = _parse(s)
        assert f"font-size:{svg.FS}px" in root.get("style")
        assert all(float(t.get("font-size", svg.FS)) >= svg.FS for t in root.iter(NS + "text"))
        assert float(root.get("width")) <= svg.WIDTH
    s = svg.scatter({"m": [(1.0, 1.0, "ONLINE-A"), (1.001, 1.0, "ONLINE-B"), (1.0, 1.001, "ONLINE-G"),
                           (2.0, 2.0, "far")]})
    labels = [t.text for t in _parse(s).iter(NS + "text") if t.text in ("ONLINE-A", "ONLINE-B", "ONLINE-G", "far")]
    assert labels == ["ONLINE-A", "far"]
    assert s.count("<circle") == 4 and "ONLINE-B: (" in s and "ONLINE-G: (" in s


# ------------------------------------------------------------------------------------------------ wide tables
def _pieces_of(page):
    """The pieces of one table_html block: (caption, header texts, first cells) of each <table>."""
    import re
    out = []
    for t in re.findall(r"<table class=\"t\">(.*?)</table>", page, flags=re.S):
        strip = lambda s: re.sub(r"<[^>]+>", "", s)  # noqa: E731
        heads = [strip(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", t, flags=re.S)]
        first = [strip(r) for r in re.findall(r"<tr><td[^>]*>(.*?)</td>", t, flags=re.S)]
        out.append((strip(re.search(r"<caption>(.*?)</caption>", t).group(1)), heads, first))
    return out


def test_wide_table_splits_into_pieces_with_its_first_column_and_groups():
    """A table wider than a 1280 px window is shown as pieces, each with the first column; together they show every
    column once, in order, a group of columns (score, interval, p, adjusted p) never torn apart; the exports keep
    the whole table; a narrow table stays one table."""
    from mtscore.report.html import table_html
    systems = ["system-with-a-very-long-name-" + "x" * 51, "神经机器翻译系统", "b"]
    cols, rows = ["system"], [[s] for s in systems]
    for m in range(20):
        cols += [f"M{m}", f"M{m} 95% CI", f"p M{m}", f"p_adj M{m}"]
        for k, r in enumerate(rows):
            r += [Marked(10.0 * m + k, "▲" if k else ""), (10.0 * m + k - 1, 10.0 * m + k + 1), 0.01 * k, 0.02 * k]
    wide = Table(cols, rows, title="Scores", groups=(4,) * 20)
    page = table_html(wide)
    pieces = _pieces_of(page)
    assert len(pieces) > 2
    assert [p[0] for p in pieces] == [f"Scores ({k} of {len(pieces)})" for k in range(1, len(pieces) + 1)]
    assert all(p[1][0] == "system" and p[2] == systems for p in pieces)
    heads = [h for p in pieces for h in p[1][1:]]
    assert heads == [h for m in range(20) for h in (f"M{m}M{m} 95% CI", f"p M{m}p_adj M{m}")]
    for p in pieces:  # a score and its p-value are in one piece
        assert [h.startswith("p ") for h in p[1][1:]] == [False, True] * ((len(p[1]) - 1) // 2)
    # even pieces: no piece has more than one metric more than another
    sizes = [(len(p[1]) - 1) // 2 for p in pieces]
    assert max(sizes) - min(sizes) <= 1, sizes
    # the exports hold the whole table once
    assert page.count("<details>") == 1 and page.count(r"\begin{tabular}") == 1
    assert "M19 95\\% CI" in page and "p\\_adj M19" in page
    # three metrics fit a laptop screen: one table, its caption as given
    narrow = Table(cols[:13], [r[:13] for r in rows], title="Scores", groups=(4,) * 3)
    assert [p[0] for p in _pieces_of(table_html(narrow))] == ["Scores"]
    # a name longer than 24 characters may break anywhere (it alone would not fit a phone); a short one stays whole
    assert f'<span class="lw">{systems[0]}</span>' in page and '<span class="lw">神经' not in page


def test_many_series_make_a_plot_taller_not_its_plot_area_smaller():
    """The legend of 15 systems adds rows to the plot's height: the plot area (its y axis line) is as tall as with 4
    systems, in line charts, histograms, vertical bar charts and scatter plots."""
    def axis_and_height(s):
        root = _parse(s)
        axis = [ln for ln in root.iter(NS + "line") if ln.get("stroke") == "#888" and ln.get("x1") == ln.get("x2")][0]
        return float(axis.get("y2")) - float(axis.get("y1")), float(root.get("height"))

    def charts(n):
        names = [f"system {k}" for k in range(n)]
        return [svg.line_chart([1, 2, 3], {s: [1.0 + k, 2.0, 3.0] for k, s in enumerate(names)}),
                svg.histogram({s: np.linspace(0, 1 + k, 50) for k, s in enumerate(names)}),
                svg.bar_chart(["a", "b"], {s: [1.0, 2.0 + k] for k, s in enumerate(names)}, horizontal=False),
                svg.scatter({s: [(0.0, 1.0, "x"), (1.0, 2.0 + k, "y")] for k, s in enumerate(names)})]
    for few, many in zip(charts(4), charts(15)):
        (area4, h4), (area15, h15) = axis_and_height(few), axis_and_height(many)
        assert area15 == pytest.approx(area4) and h15 > h4
