"""``backend=local``: the judge's causal LM run in this process (tiny random Llama built here, see
tests/llm/llm_tiny_causal_lm.py), through the same protocol, cache and metric surface as the HTTP backend.

Oracle: every answer the batched backend stored is regenerated request by request with transformers' own
``generate`` on the same chat template (greedy requests), and must be the same text.
"""
from __future__ import annotations

import json
import os
import sqlite3
import sys

import pytest

pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")
sys.path.insert(0, os.path.dirname(__file__))
from llm_tiny_causal_lm import build  # noqa: E402

from mtscore.errors import InvalidParameterError  # noqa: E402
from mtscore.metrics.registry import get_metric  # noqa: E402

SRC = ["The cat sat on the mat.", "It rained all day.", "We like tea.", "Short."]
HYP = ["Die Katze saß auf der Matte.", "Es hat geregnet.", "Wir mögen Tee.", "Kurz."]


@pytest.fixture(scope="module")
def model85(tmp_path_factory):
    return build(tmp_path_factory.mktemp("tiny") / "tiny-85", greedy="85")


def test_local_backend_scores_batches_and_caches(model85, tmp_path, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "src.en"
    src.write_text("\n".join(SRC) + "\n", encoding="utf-8")
    m = get_metric("gemba-esa", backend="local", model=str(model85), sources=str(src), batch_size=3)
    m.check_languages("en-de")
    st = m.stats(HYP, [[h] for h in HYP])
    # the model says "85" (greedy): as error spans (kept verbatim, pasted into the second prompt) and as the score
    assert list(m.sentence_scores(st)) == [85.0] * len(HYP)
    assert m.usage["answers"] == 2 * len(HYP) and m.usage["prompt_tokens"] > 0
    sig = m.signature()
    assert "backend:local" in sig and f"model:{model85.name}@" in sig
    # a second metric object (a new process would do the same) reads everything from the cache: no generation
    m2 = get_metric("gemba-esa", backend="local", model=str(model85), sources=str(src))
    m2.check_languages("en-de")
    assert list(m2.sentence_scores(m2.stats(HYP, [[h] for h in HYP]))) == [85.0] * len(HYP)
    assert m2.usage["answers"] == 0 and m2.usage["cached"] == 2 * len(HYP) and m2._local.model is None

    # oracle: each stored answer regenerated alone with transformers' generate
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(model85))
    lm = AutoModelForCausalLM.from_pretrained(str(model85)).eval()
    rows = sqlite3.connect(tmp_path / "cache" / "neural.sqlite").execute(
        "SELECT digest, answer FROM llm_answers").fetchall()
    assert len(rows) == 2 * len(HYP)
    from mtscore.llm import prompts
    for i, (s, h) in enumerate(zip(SRC, HYP)):
        msgs = prompts.as_json(prompts.build("esa-spans", "gemba", source=s, hypothesis=h, source_lang="English",
                                             target_lang="German"))
        ids = tok.apply_chat_template(msgs, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        with torch.inference_mode():
            out = lm.generate(**ids, max_new_tokens=512, do_sample=False, eos_token_id=tok.eos_token_id,
                              pad_token_id=tok.pad_token_id)
        alone = tok.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
        assert alone == "85"
    assert {json.loads(a)["content"] for _, a in rows} == {"85"}


def test_local_backend_parameters(model85, tmp_path):
    src = tmp_path / "src.en"
    src.write_text("x\n", encoding="utf-8")
    with pytest.raises(InvalidParameterError, match="endpoint= and api_key_env= are for backend=http"):
        get_metric("gemba-esa", backend="local", model=str(model85), sources=str(src), endpoint="http://127.0.0.1:1")
    with pytest.raises(InvalidParameterError, match="has no config.json"):
        get_metric("gemba-esa", backend="local", model=str(tmp_path), sources=str(src))


def test_local_dry_run_loads_no_model(model85, tmp_path, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "src.en"
    src.write_text("\n".join(SRC) + "\n", encoding="utf-8")
    m = get_metric("gemba-mqm", backend="local", model=str(model85), sources=str(src), dry_run=True)
    m.check_languages("en-de")
    m.stats(HYP, [[h] for h in HYP])
    assert m._local is None or m._local.model is None
    assert m.dry_run_line().startswith(f"gemba-mqm: 4 requests to send to {model85} for 4 segments")
