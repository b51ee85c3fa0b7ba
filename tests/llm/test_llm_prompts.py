"""mtscore's GEMBA prompts equal, byte for byte, the chat messages the reference implementations build.

Known answers: tests/fixtures/llm/prompts.jsonl.gz, written once by scripts/gemba_known_answers.py with the gemba
package 0.1.3 and the WMT25 automatic evaluation's scorer (commits in known_answers_meta.json): 262 inputs from
ten data sets (eight languages, empty, very long and brace/backtick/quote segments), five prompt kinds.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from mtscore.errors import InvalidParameterError
from mtscore.llm import languages, prompts

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "llm"


def _rows():
    with gzip.open(FIX / "prompts.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


ROWS = _rows()


def test_known_answer_file_is_what_its_meta_says():
    import hashlib
    meta = json.loads((FIX / "known_answers_meta.json").read_text(encoding="utf-8"))
    raw = gzip.open(FIX / "prompts.jsonl.gz").read()
    assert hashlib.sha256(raw).hexdigest() == meta["prompts_sha256"]
    assert len(ROWS) == meta["n_prompts"] >= 1000
    assert meta["n_inputs"] >= 200
    assert {(r["variant"], r["kind"]) for r in ROWS} == {("gemba", k) for k in prompts.KINDS} | {
        ("wmt25", "esa-spans"), ("wmt25", "esa-score")}


@pytest.mark.parametrize("variant", ["gemba", "wmt25"])
def test_messages_byte_identical(variant):
    rows = [r for r in ROWS if r["variant"] == variant]
    assert rows
    for r in rows:
        inp = r["inputs"]
        s, t = r["pair"].split("-")
        # the language names come from mtscore's own tables for the pair's codes
        assert languages.name(s, variant) == inp["source_lang"], r["pair"]
        assert languages.name(t, variant) == inp["target_lang"], r["pair"]
        got = prompts.as_json(prompts.build(
            r["kind"], variant, source=inp["source_seg"], hypothesis=inp["target_seg"],
            reference=inp.get("reference_seg", ""), source_lang=inp["source_lang"],
            target_lang=inp["target_lang"], error_spans=inp["error_spans"]))
        want = r["messages"]
        assert json.dumps(got, ensure_ascii=False, sort_keys=True) == json.dumps(want, ensure_ascii=False, sort_keys=True), (
            r["kind"], r["dataset"], r["line"])


def test_inputs_cover_what_matters():
    gemba = [r for r in ROWS if r["variant"] == "gemba" and r["kind"] == "da"]
    assert any(r["inputs"]["source_seg"] == "" for r in gemba)
    assert any(r["inputs"]["target_seg"] == "" for r in gemba)
    assert max(len(r["inputs"]["source_seg"]) for r in gemba) > 3000
    assert any("{" in r["inputs"]["source_seg"] for r in gemba)
    assert len({r["pair"] for r in gemba}) >= 8


def test_unknown_kind_or_variant_is_a_parameter_error():
    with pytest.raises(InvalidParameterError, match="variant=wmt25 has no 'mqm' prompt"):
        prompts.template("mqm", "wmt25")
    with pytest.raises(InvalidParameterError, match="variant: expected one of gemba, wmt25, got 'x'"):
        prompts.template("da", "x")
    with pytest.raises(InvalidParameterError, match="no language name for code 'qq'"):
        languages.name("qq")


def test_template_digest_changes_with_the_template():
    assert prompts.template_digest(["esa-spans", "esa-score"], "gemba") != prompts.template_digest(
        ["esa-spans", "esa-score"], "wmt25")
    assert len(prompts.template_digest(["da"], "gemba")) == 12
