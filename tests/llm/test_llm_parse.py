"""mtscore's answer parsers agree with the reference parsers on 1,148 answer strings.

Known answers: tests/fixtures/llm/parses.jsonl.gz (scripts/gemba_known_answers.py): the gemba package 0.1.3's
``validate_number`` and ``parse_mqm_answer`` and the WMT25 scorer's ``validate_number(final_score=True)`` on
answers shaped like real ones, the few-shot answers, Markdown, out-of-range and several numbers, Unicode digits,
empty and truncated answers, GEMBA-MQM's JSON form (valid and broken). Where a reference raised, mtscore's parser
says "unparseable" (None).
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from mtscore.llm import parse

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "llm"

with gzip.open(FIX / "parses.jsonl.gz", "rt", encoding="utf-8") as _fh:
    ROWS = [json.loads(line) for line in _fh]


def _want(value):
    return None if isinstance(value, dict) and "exception" in value else value


def test_there_are_enough_and_varied_answers():
    assert len(ROWS) >= 1000
    numbers = [r["gemba_number"] for r in ROWS]
    assert sum(v is None for v in numbers) > 100 and sum(isinstance(v, int) for v in numbers) > 100
    assert any(isinstance(r["gemba_number"], dict) for r in ROWS)  # the reference crashed at least once
    assert len({r["gemba_mqm"] for r in ROWS if isinstance(r["gemba_mqm"], int)}) > 10


def test_gemba_number():
    bad = [(r["answer"], parse.gemba_number(r["answer"]), _want(r["gemba_number"])) for r in ROWS
           if parse.gemba_number(r["answer"]) != _want(r["gemba_number"])]
    assert not bad, bad[:5]


def test_wmt25_final_score():
    bad = [(r["answer"], parse.wmt25_number(r["answer"]), _want(r["wmt25_final_score"])) for r in ROWS
           if parse.wmt25_number(r["answer"]) != _want(r["wmt25_final_score"])]
    assert not bad, bad[:5]


def test_mqm_score_normalized_and_errors():
    checked = 0
    for r in ROWS:
        got = parse.mqm(r["answer"])
        want = _want(r["gemba_mqm"])
        if want is None:
            assert got is None, r["answer"]
            continue
        assert got is not None, r["answer"]
        assert got.score == want, r["answer"]
        assert got.normalized == r["gemba_mqm_norm"], r["answer"]
        assert got.errors == r["gemba_mqm_errors"], r["answer"]
        checked += 1
    assert checked > 1000


def test_none_answer():
    assert parse.gemba_number(None) is None and parse.wmt25_number(None) is None and parse.mqm(None) is None
