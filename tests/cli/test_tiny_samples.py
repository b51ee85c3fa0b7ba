"""One rule for significance on tiny samples: below mtscore.significance.MIN_SEGMENTS (6) segments compare, report
and analyse docs run no paired test, show no p-value and no mark, and say why; from 6 segments on they test. The
minimum itself is checked against the exact sign test: 5 unanimous segments cannot reach p < 0.05, 6 can."""
from __future__ import annotations

import json
from math import comb

import pytest

from conftest import cli_output
from mtscore.significance import MIN_SEGMENTS, untested

REF = ["the cat sat on the mat", "a dog ran far away", "it is raining today", "one two three four",
       "the house is big", "we went home late", "she reads a book", "birds fly south"]
GOOD = list(REF)
BAD = ["cat", "dog", "rain", "one", "house", "home", "book", "birds"]


cli = cli_output  # mtscore in this process; its stdout


def _files(tmp_path, n):
    paths = []
    for name, lines in (("ref.txt", REF), ("good.txt", GOOD), ("bad.txt", BAD)):
        (tmp_path / name).write_text("\n".join(lines[:n]) + "\n", encoding="utf-8")
        paths.append(tmp_path / name)
    return paths


def _two_sided_sign_p(n):
    """The exact two-sided sign test p of n segments that all favour one system."""
    return min(1.0, 2 * comb(n, n) / 2 ** n)


def test_the_minimum_is_the_smallest_n_where_a_sign_test_can_be_significant():
    assert _two_sided_sign_p(MIN_SEGMENTS - 1) >= 0.05 > _two_sided_sign_p(MIN_SEGMENTS)
    assert untested(MIN_SEGMENTS) is None
    assert "2 segments" in untested(2) and str(MIN_SEGMENTS) in untested(2)


@pytest.mark.parametrize("n", [2, MIN_SEGMENTS - 1])
def test_compare_runs_no_test_on_too_few_segments(tmp_path, n):
    ref, good, bad = _files(tmp_path, n)
    out = cli("compare", "-r", ref, "-i", good, bad, "--resamples", "200")
    assert "▼" not in out and "▲" not in out and "0.0010" not in out
    assert untested(n) in out
    js = json.loads(cli("compare", "-r", ref, "-i", good, bad, "--resamples", "200", "-f", "json"))
    assert js["untested"] == untested(n) and js["comparison"] is None
    assert [r["system"] for r in js["rows"]] == ["good", "bad"]


def test_compare_tests_from_the_minimum_on(tmp_path):
    ref, good, bad = _files(tmp_path, MIN_SEGMENTS)
    out = cli("compare", "-r", ref, "-i", good, bad, "--resamples", "200")
    assert "no significance test" not in out and "▼" in out


def test_report_and_analyse_docs_follow_the_same_rule(tmp_path):
    ref, good, bad = _files(tmp_path, 8)
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(["short"] * 2 + ["long"] * 6) + "\n", encoding="utf-8")
    js = json.loads(cli("analyse", "docs", "-r", ref, "-i", good, bad, "--docs", docs, "-m", "bleu",
                        "--resamples", "200", "-f", "json"))
    p = {row["document"]: row["p"] for row in js["tables"][0]["rows"]}
    assert p["short"] is None and p["long"] is not None
    text = cli("analyse", "docs", "-r", ref, "-i", good, bad, "--docs", docs, "-m", "bleu", "--resamples", "200")
    assert f"fewer than {MIN_SEGMENTS} segments" in text
    ref2, good2, bad2 = _files(tmp_path, 2)
    out = cli("report", "-r", ref2, "-i", good2, bad2, "-m", "bleu", "--resamples", "200", "--examples", "0")
    scores = out.split("\n\n")[0]
    assert "▼" not in scores and "0.0010" not in scores
    assert untested(2) in out


@pytest.mark.parametrize("n", [MIN_SEGMENTS - 1, MIN_SEGMENTS])
def test_audit_sign_follows_the_same_rule(tmp_path, n):
    """audit sign (the papers' sign-test consistency check) reports no counts, p-values or winners below the
    minimum, says why, and tests from the minimum on."""
    ref, good, bad = _files(tmp_path, n)
    rows = json.loads(cli("audit", "sign", "-r", ref, "-i", bad, good, "-m", "bleu", "wer", "-f", "json"))
    text = cli("audit", "sign", "-r", ref, "-i", bad, good, "-m", "bleu", "wer")
    if n < MIN_SEGMENTS:
        assert untested(n) in text and "not tested" in text
        assert all(r["p fwd"] is None and r["winner fwd"] == "-" for r in rows["rows"])
    else:
        assert "not tested" not in text
        assert all(isinstance(r["p fwd"], float) and r["winner fwd"] != "-" for r in rows["rows"])
