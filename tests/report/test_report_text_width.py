"""`mtscore report`'s text output fits a terminal (docs/report.md, "Text output"): tables are fitted to
$COLUMNS, else the terminal's width, else 100 columns — sentences and names left-aligned and cut with an
ellipsis, numbers and intervals never cut, tables too wide even so wrapped into blocks that repeat their first
column; notes wrap at spaces (a signature stays whole). `report -o FILE` without -f prints the scores table and
where the page is, and says how to get every table."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mtscore.cli.demo import sample_dir
from mtscore.report.tables import Table, render_table, text_width


def _report(*extra, columns=None):
    d = sample_dir()
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns:
        env["COLUMNS"] = str(columns)
    p = subprocess.run([sys.executable, "-m", "mtscore", "report", "-r", str(d / "newstest2017.en-de.ref.de"),
                        "-i", *(str(d / f"{s}.de") for s in ("LIUM-NMT", "uedin-nmt", "online-B")), "-m", "bleu",
                        "chrf", "--resamples", "30", "--examples", "4", "-q", *map(str, extra)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _too_wide(text, width):
    # a signature (one word, "|"-separated fields) is never cut: copying it must give the real one
    return [ln for ln in text.splitlines() if text_width(ln) > width and " " in ln.strip()]


@pytest.mark.parametrize("columns", [None, 60, 150])
def test_every_line_fits_the_width(columns):
    out = _report("-f", "text", columns=columns)
    assert "Segments that change most" in out
    assert _too_wide(out, columns or 100) == []


def test_numbers_whole_and_sentences_cut_left_aligned():
    out = _report("-f", "text")
    data = json.loads(_report("-f", "json"))
    t = next(t for t in data["tables"] if t["title"].startswith("Segments that change most"))
    lines = out.split(t["title"] + "\n", 1)[1].split("\n\n", 1)[0].splitlines()
    head, rows = lines[0], lines[2:]
    assert len(rows) == len(t["rows"])
    ref_at = head.index("reference")
    for line, row in zip(rows, t["rows"]):
        # the improvement: whole, as the JSON's number rounded
        assert f"{row['improvement']:.2f}" in line.split()
        # the reference: left-aligned under its header, cut with an ellipsis where it is longer than its column
        cell = line[ref_at:].split("  ")[0]
        assert row["reference"].startswith(cell.rstrip("…")), (cell, row["reference"])
        assert cell.endswith("…") or cell == row["reference"]


def test_report_with_o_prints_scores_and_says_how_to_get_every_table(tmp_path):
    page = tmp_path / "r.html"
    out = _report("-o", page, "--no-explore")
    assert out.startswith("Scores\n") and "Differences vs the baseline" not in out
    assert out.splitlines()[-1].startswith(f"report written to {page} (")
    assert "on stdout with -f text" in out.replace("\n", " ")
    every = _report("-o", tmp_path / "r2.html", "--no-explore", "-f", "text")
    for title in ("Scores", "Differences vs the baseline", "Scores per subset", "Segments that change most"):
        assert title in every


def test_fit_wraps_wide_numeric_tables_into_blocks_and_counts_wide_characters():
    cols = ["system"] + [f"metric {k}" for k in range(12)]
    t = Table(cols, [["神经机器翻译系统", *[12.3456 + k for k in range(12)]], ["b", *range(12)]], digits=2)
    out = render_table(t, "text", width=50)
    assert all(text_width(ln) <= 50 for ln in out.splitlines())
    blocks = out.split("\n\n")
    assert len(blocks) > 1 and all(b.splitlines()[-2].startswith("神经机器翻译系统") for b in blocks)
    for k in range(12):  # every number whole, once
        assert out.count(f"{12.3456 + k:.2f}") == 1
    assert render_table(t, "text") == render_table(t, "text", width=None)  # without a width: as before
