"""Building blocks of the reports: SVG charts, tables (LaTeX/Markdown/CSV), the paired bootstrap
resampler (vs a naive oracle and vs sacreBLEU), progress bars."""
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
from mtscore.report.resample import (bootstrap_p_value, bootstrap_scores, paired_bootstrap, percentile_ci,
                                     resample_counts)

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


# ------------------------------------------------------------------------------------------------ resampler
def _toy_stats(n=57, seed=1):
    rng = np.random.default_rng(seed)
    hyp = rng.integers(1, 30, n).astype(float)
    ref = hyp + rng.integers(-3, 4, n)
    cols = [hyp, np.maximum(ref, 1)]
    m = [np.minimum(rng.integers(0, 30, n), np.maximum(hyp - k, 0)) for k in range(4)]
    t = [np.maximum(hyp - k, 0) for k in range(4)]
    return np.column_stack(cols + m + t)


def test_resample_counts_match_indices():
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 11, size=(5, 11))
    w = resample_counts(idx, 11)
    for b in range(5):
        assert np.array_equal(w[b], np.bincount(idx[b], minlength=11))


@pytest.mark.parametrize("seed", [0, 7, 12345])
def test_bootstrap_scores_equal_naive_loop(seed):
    m = BLEU()
    a, b = _toy_stats(seed=1), _toy_stats(seed=2)
    got = bootstrap_scores(m, [a, b], 230, seed, batch_size=37)
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(a), size=(230, len(a)), replace=True)  # sacreBLEU's draw
    for k in range(230):
        for s, v in enumerate((a, b)):
            assert got[k, s] == pytest.approx(float(m.score(v[idx[k]].sum(0))), abs=1e-9)


def test_percentile_ci_and_p_value_rules():
    s = np.arange(1000, dtype=float)[::-1]
    assert percentile_ci(s, 0.95) == (25.0, 974.0)  # sacreBLEU: s[n//40], s[n - n//40 - 1]
    d = np.array([0.1, -0.2, 0.3, 0.0])
    # |d| - mean|d| = [-0.05, 0.05, 0.15, -0.15]; >= 0.05 (ties count) -> 2 -> p = 3/5
    assert bootstrap_p_value(d, 0.05) == pytest.approx(3 / 5)
    assert bootstrap_p_value(d, 0.06) == pytest.approx(2 / 5)  # no tie: sacreBLEU's value
    pb = paired_bootstrap(BLEU(), ["a", "a2"], [_toy_stats(), _toy_stats()], 100, 0)
    assert pb.p_values == (None, 1.0)  # identical systems are never significantly different


def test_paired_bootstrap_matches_sacrebleu(data):
    sacrebleu = pytest.importorskip("sacrebleu")
    from sacrebleu.significance import _paired_bs_test
    from mtscore.io import read_lines
    d = data("ted-sk-en")
    ref = read_lines(d / "ted.ref.detok.eng")[:800]
    s1 = read_lines(d / "ted.sys1.detok.eng")[:800]
    s2 = read_lines(d / "ted.sys2.detok.eng")[:800]
    sb = sacrebleu.BLEU()
    bl_stats = sb._extract_corpus_statistics(s1, [ref])
    bl = sb._aggregate_and_compute(bl_stats)
    _, res = _paired_bs_test({"BLEU": (bl_stats, bl)}, "s2", s2, [ref], {"BLEU": sb}, n_samples=500, seed=12345)
    r = res["BLEU"]
    m = BLEU()
    pb = paired_bootstrap(m, ["s1", "s2"], [m.stats(s1, [[x] for x in ref]), m.stats(s2, [[x] for x in ref])],
                          500, 12345)
    assert pb.scores[1] == pytest.approx(r.score, abs=1e-9)
    assert pb.sample_means[1] == pytest.approx(r.mean, abs=1e-3)  # sacreBLEU sums float32 statistics
    lo, hi = pb.ci[1]
    assert (hi - lo) / 2 == pytest.approx(r.ci, abs=1e-3)
    assert pb.p_values[1] == pytest.approx(r.p_value, abs=2 / 501)


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
    from mtscore.report.systems import _render_grr, _token_diff, grr_aligner, tbleu_explainer
    h, r = _token_diff(["the", "cat", "the", "<x>"], ["the", "cat", "sat"])
    assert h.count('class="tok-m"') == 2 and h.count('class="tok-x"') == 2  # 2nd "the" is clipped
    assert "&lt;x&gt;" in h and r.count('class="tok-r"') == 1 and ">sat<" in r
    ops = [("match", 0, 0), ("sub", 1, 1), ("ins", 2, None), ("del", None, 2)]
    out = _render_grr(ops, ["a", "b", "c"], ["a", "x", "y"])
    assert out.count("op-match") == 1 and "b→x" in out and "op-ins" in out and ">y<" in out
    with pytest.raises(ValueError):
        _render_grr([("weird", 0, 0)], ["a"], ["a"])
    # absent optional metrics are looked up lazily and give None (the report falls back to token diffs)
    for fn in (grr_aligner, tbleu_explainer):
        assert fn() is None or callable(fn())
