"""gemba-esa / gemba-mqm / gemba-da as metrics: the Python API and ``mtscore score/compare/report`` against the
scripted server on 127.0.0.1 -- scores, signatures, missing scores (NaN, never 0), spans, the cache (a rerun sends
zero requests), the dry run, and the key (a recognisable string) nowhere in any output or the cache file.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from llm_scripted_server import ScriptedServer, esa_answer, is_score_prompt, judge_score, translation_of  # noqa: E402

from mtscore.errors import InvalidParameterError  # noqa: E402
from mtscore.metrics.registry import get_metric  # noqa: E402

SECRET = "sk-MTSCORE-CANARY-7f3a9c1e5b"
SRC = ["The cat sat on the mat.", "It rained all day.", "We like {braces} and `ticks`.", "", "Short."]
REF = ["Die Katze saß auf der Matte.", "Es regnete den ganzen Tag.", "Wir mögen {Klammern}.", "", "Kurz."]
SYS_A = ["Die Katze saß auf der Matte.", "Es hat den ganzen Tag geregnet.", "Wir mögen {Klammern} und `Häkchen`.",
         "", "Kurz."]
SYS_B = ["Katze Matte.", "Regen Tag.", "Klammern.", "Leer.", "Kurz!"]


@pytest.fixture()
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    paths = {}
    for name, lines in (("src.en", SRC), ("ref.de", REF), ("a.de", SYS_A), ("b.de", SYS_B)):
        p = tmp_path / name
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = str(p)
    return paths


def test_api_scores_are_the_judges_and_the_signature_names_the_protocol(files):
    with ScriptedServer(esa_answer) as srv:
        m = get_metric("gemba-esa", model="judge", endpoint=srv.url, sources=files["src.en"], concurrency=3)
        m.check_languages("en-de")
        st = m.stats(SYS_A, [[r] for r in REF])
    want = [float(judge_score(h)) for h in SYS_A]
    assert list(m.sentence_scores(st)) == want
    assert m.corpus_from_stats(st).score == pytest.approx(sum(want) / len(want))
    sig = m.signature()
    for part in ("model:judge", "variant:gemba", "tpl:", "temp:0-1", "maxtok:none", "agg:mean-of-scored"):
        assert part in sig
    assert get_metric("gemba-esa", model="judge", endpoint=srv.url, sources=files["src.en"],
                      variant="wmt25").signature() != sig
    # the spans quote the first word of each translation
    assert m.span_log[0][0][0]["text"] == "Die"


def test_unscored_segments_are_nan_never_zero_and_counted(files):
    def answer(body, seen):
        if "Regen" in translation_of(body):
            return ("filter",)
        if "Leer" in translation_of(body) and is_score_prompt(body):
            return ("ok", "no number here", "stop")
        return esa_answer(body, seen)

    with ScriptedServer(answer) as srv:
        m = get_metric("gemba-esa", model="judge", endpoint=srv.url, sources=files["src.en"])
        m.check_languages("en-de")
        with pytest.warns(Warning, match=r"2 of 5 segments have no score \(1 refused, 1 unparseable\)"):
            st = m.stats(SYS_B, [[r] for r in REF])
    seg = m.sentence_scores(st)
    assert math.isnan(seg[1]) and math.isnan(seg[3])
    others = [float(judge_score(SYS_B[i])) for i in (0, 2, 4)]
    res = m.corpus_from_stats(st)
    assert res.score == pytest.approx(sum(others) / 3)
    assert (res.components["scored"], res.components["unscored"]) == (3, 2)


def test_gemba_da_with_and_without_reference_and_mqm(files):
    def answer(body, seen):
        text = body["messages"][-1]["content"]
        if "human reference" in text:
            return ("ok", "90/100", "stop")  # GEMBA reads N/100 only when alone
        if text.startswith("Score the following translation"):
            return ("ok", "85", "stop")
        return ("ok", 'Critical:\nno-error\nMajor:\naccuracy/omission - "Kurz"\nMinor:\nfluency/punctuation - "."',
                "stop")

    with ScriptedServer(answer) as srv:
        kw = dict(model="judge", endpoint=srv.url, sources=files["src.en"])
        ref = get_metric("gemba-da", **kw)
        src = get_metric("gemba-da", ref=False, **kw)
        mqm = get_metric("gemba-mqm", **kw)
        for m in (ref, src, mqm):
            m.check_languages("en-de")
        refs = [[r] for r in REF]
        assert list(ref.sentence_scores(ref.stats(SYS_A, refs))) == [90.0] * 5
        assert list(src.sentence_scores(src.stats(SYS_A, refs))) == [85.0] * 5
        assert list(mqm.sentence_scores(mqm.stats(SYS_A, refs))) == [-6.0] * 5
    assert "ref:yes" in ref.signature() and "ref:none" in src.signature()
    assert mqm.range == (-25.0, 0.0)
    last = mqm.span_log[0][4]
    assert [(s["severity"], s["text"], s["start"]) for s in last] == [("major", "Kurz", 0), ("minor", ".", 4)]


def test_parameters_are_checked_before_any_request(files):
    with pytest.raises(InvalidParameterError, match="pass model=NAME"):
        get_metric("gemba-esa", sources=files["src.en"], endpoint="http://127.0.0.1:9/v1")
    with pytest.raises(InvalidParameterError, match="variant=wmt25 has no 'mqm' prompt"):
        get_metric("gemba-mqm", model="m", variant="wmt25", sources=files["src.en"], endpoint="http://127.0.0.1:9/v1")
    with pytest.raises(InvalidParameterError, match="endpoint: must be an http"):
        get_metric("gemba-esa", model="m", sources=files["src.en"], endpoint="file:///etc/passwd")
    m = get_metric("gemba-esa", model="m", sources=files["src.en"], endpoint="http://127.0.0.1:9/v1")
    with pytest.raises(InvalidParameterError, match="pass -l SRC-TGT"):
        m.stats(SYS_A, [[r] for r in REF])


def _cli(args, env):
    return subprocess.run([sys.executable, "-m", "mtscore", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_cli_score_compare_report_rerun_dry_run_and_the_key_nowhere(files, tmp_path):
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "PYTHONPATH": os.pathsep.join(sys.path)}
    outputs = []
    with ScriptedServer(esa_answer) as srv:
        spec = f"gemba-esa:endpoint={srv.url},model=judge,sources={files['src.en']},concurrency=4"
        base = ["-r", files["ref.de"], "-i", files["a.de"], files["b.de"], "-l", "en-de"]
        dry = _cli(["score", *base, "-m", "bleu", spec, "--dry-run"], env)
        assert dry.returncode == 0 and srv.count == 0, dry.stderr
        assert dry.stdout.startswith("gemba-esa: 20 requests to send to http://127.0.0.1:") and \
            "for 10 segments (0 answered by the cache)" in dry.stdout and "nothing was sent" in dry.stdout
        spans = tmp_path / "spans.json"
        first = _cli(["score", *base, "-m", "bleu", spec, "-f", "json", "--spans-out", str(spans)], env)
        assert first.returncode == 0, first.stderr
        assert srv.count == 20  # 2 systems x 5 segments x 2 requests
        assert all(e["auth"] == "Bearer " + SECRET for e in srv.log)  # the key went where it belongs
        doc = json.loads(first.stdout)
        outputs += [first.stdout, first.stderr, spans.read_text(encoding="utf-8")]
        span_doc = json.loads(spans.read_text(encoding="utf-8"))
        assert span_doc["a"][0][0]["text"] == "Die"
        again = _cli(["score", *base, "-m", spec, "--sentence-level", "-f", "json"], env)
        assert again.returncode == 0 and srv.count == 20  # the rerun sends zero requests
        seg_doc = json.loads(again.stdout)
        assert seg_doc["error_spans"]["GEMBA-ESA"]["a"][0][0]["text"] == "Die"
        assert [r["b:GEMBA-ESA"] for r in seg_doc["rows"]] == [float(judge_score(h)) for h in SYS_B]
        outputs += [again.stdout, again.stderr]
        cmp_ = _cli(["compare", *base, "-m", spec, "--n-samples", "200"], env)
        assert cmp_.returncode == 0, cmp_.stderr
        html = tmp_path / "report.html"
        rep = _cli(["report", *base, "-m", spec, "-o", str(html), "--resamples", "200"], env)
        assert rep.returncode == 0, rep.stderr
        assert srv.count == 20  # compare and report too: all from the cache
        outputs += [cmp_.stdout, cmp_.stderr, rep.stdout, rep.stderr, html.read_text(encoding="utf-8")]
        dry2 = _cli(["score", *base, "-m", spec, "--dry-run"], env)
        assert "gemba-esa: 0 requests to send" in dry2.stdout and "(20 answered by the cache)" in dry2.stdout
        outputs += [dry.stdout, dry.stderr, dry2.stdout, dry2.stderr]
    esa = [r for r in doc["results"][0]["results"] if r["metric"] == "gemba-esa"][0]
    assert esa["llm_answers"] == 20 and esa["llm_prompt_tokens"] > 0 and esa["unscored"] == 0
    cache_bytes = b"".join(p.read_bytes() for p in (tmp_path / "cache").iterdir())
    assert cache_bytes
    for out in outputs:
        assert SECRET not in out
    assert SECRET.encode() not in cache_bytes


def test_cache_command_counts_and_clears_llm_answers(files, capsys):
    from mtscore.cli.main import main
    with ScriptedServer(esa_answer) as srv:
        m = get_metric("gemba-esa", model="judge", endpoint=srv.url, sources=files["src.en"])
        m.check_languages("en-de")
        m.stats(SYS_A, [[r] for r in REF])
    assert main(["cache", "-f", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("LLM judge answers (gemba-esa, gemba-mqm, gemba-da): 10 from 1 models" in n for n in notes)
    assert main(["cache", "-f", "json", "--clear"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert "cleared: 10 LLM judge answers" in notes and any(": 0 from 0 models" in n for n in notes)


def test_judge_spans_are_evaluated_by_meta_spans_against_human_spans(tmp_path, monkeypatch):
    """``score --spans-out`` of gemba-esa feeds ``meta --spans`` (WMT23 zh-en MQM rater 1 as gold): the judge here
    marks each translation's first word minor, and meta's P/R/F1 equal the span library's on the same files."""
    from mtscore.meta import spans as SP
    fx = Path(__file__).resolve().parents[1] / "fixtures" / "spans" / "wmt23-zh-en-iaa"
    outs = sorted((fx / "system-outputs").glob("*.txt"))  # meta needs every rated system
    n = len(outs[0].read_text(encoding="utf-8").split("\n")) - 1
    src = tmp_path / "src.zh"
    src.write_text("".join(f"源句 {i}\n" for i in range(n)), encoding="utf-8")
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    spans = tmp_path / "gemba-spans.json"
    with ScriptedServer(esa_answer) as srv:
        r = _cli(["score", "-r", str(outs[0]), "-i", *map(str, outs), "-l", "zh-en", "-m",
                  f"gemba-esa:endpoint={srv.url},model=judge,sources={src},concurrency=16",
                  "--spans-out", str(spans)], env)
    assert r.returncode == 0, r.stderr
    m = _cli(["meta", "--spans", "--gold", str(fx / "zh-en.mqm.rater1.seg.rating"), "--pred", f"judge={spans}",
              "--outputs", str(fx / "system-outputs"), "-f", "json"], env)
    assert m.returncode == 0, m.stderr
    row = [x for x in json.loads(m.stdout)["rows"] if x["predictor"] == "judge"][0]
    texts = {(p.stem, k): line for p in outs for k, line in enumerate(p.read_text(encoding="utf-8").split("\n")[:-1])}
    gold = SP.read_rating_file(fx / "zh-en.mqm.rater1.seg.rating", "rater1")
    lib = SP.score_spans(gold, SP.read_pred_file(spans, "judge", texts))
    assert row["micro F1"] == pytest.approx(lib.micro[2], abs=1e-12)
    assert 0 < lib.micro[0] <= 1  # the first words overlap some human errors


def test_progress_bar_shows_requests_per_second_and_tokens(files, monkeypatch):
    import io

    from mtscore import progress as P

    class Tty(io.StringIO):
        def isatty(self):
            return True

    lines = []
    real = P.Progress._draw

    def draw(self, now):
        lines.append(self.line(now))
        real(self, now)

    monkeypatch.setattr(P, "DEFAULT_DELAY", 0.0)
    monkeypatch.setattr(P.Progress, "_draw", draw)
    monkeypatch.setattr("sys.stderr", Tty())
    with ScriptedServer(esa_answer, delay=0.05) as srv:
        m = get_metric("gemba-esa", model="judge", endpoint=srv.url, sources=files["src.en"], concurrency=1)
        m.check_languages("en-de")
        m.stats(SYS_A, [[r] for r in REF])
    assert lines and all("GEMBA-ESA:" in ln and " req/s, " in ln and " tokens, " in ln for ln in lines)


def test_nbest_oracle_with_a_judge_is_quality_estimation_reranking(tmp_path, monkeypatch):
    """``mtscore nbest --oracle gemba-esa:...`` picks, per segment, the candidate the judge scores highest."""
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    cands = [["Die Katze.", "Eine Katze saß.", "Katze Matte Matte."], ["Es regnete.", "Regen den ganzen Tag.",
                                                                       "Es hat geregnet."]]
    nb = tmp_path / "nbest.txt"
    nb.write_text("".join(f"{i} ||| {c} ||| LM= -1 ||| -1\n" for i, cs in enumerate(cands) for c in cs),
                  encoding="utf-8")
    (tmp_path / "ref.de").write_text("Die Katze saß.\nEs regnete.\n", encoding="utf-8")
    (tmp_path / "src.en").write_text("The cat sat.\nIt rained.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with ScriptedServer(esa_answer) as srv:
        spec = f"gemba-esa:endpoint={srv.url},model=judge,sources={tmp_path / 'src.en'}"
        r = _cli(["nbest", str(nb), "-r", str(tmp_path / "ref.de"), "-l", "en-de", "-m", spec, "--oracle", spec,
                  "-f", "json"], env)
    assert r.returncode == 0, r.stderr
    rows = {x["selection"]: x for x in json.loads(r.stdout)["rows"]}
    best = [max(judge_score(c) for c in cs) for cs in cands]
    assert rows["oracle(GEMBA-ESA, per segment)"]["GEMBA-ESA"] == pytest.approx(sum(best) / 2)
    assert srv.count == 2 * 6  # every candidate judged once; the selections are scored from the cache


def test_meta_correlates_a_judge_with_human_scores(files, tmp_path):
    """``meta -m gemba-esa:...`` against human segment scores: the segment-level Pearson equals numpy's on the
    judge's scores (no-grouping flattening over systems x segments)."""
    import numpy as np
    systems = {"a": SYS_A, "b": SYS_B, "c": [h.upper() for h in SYS_A]}
    paths = []
    for name, lines in systems.items():
        p = tmp_path / f"{name}.txt"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(p))
    human = {(s, i): float((len(h) * 7 + i * 13) % 100) for s, hs in systems.items() for i, h in enumerate(hs)}
    hf = tmp_path / "human.tsv"
    hf.write_text("".join(f"{s}\t{i + 1}\t{v}\n" for (s, i), v in human.items()), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with ScriptedServer(esa_answer) as srv:
        spec = f"gemba-esa:endpoint={srv.url},model=judge,sources={files['src.en']}"
        r = _cli(["meta", "-r", files["ref.de"], "-i", *paths, "-l", "en-de", "-m", spec, "--human-file", str(hf),
                  "--human-format", "tsv", "--level", "seg", "--stats", "pearson", "--avg-by", "none", "-f", "json"],
                 env)
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout)["rows"][0]
    x = [judge_score(h) for s, hs in systems.items() for h in hs]
    y = [human[(s, i)] for s, hs in systems.items() for i in range(len(hs))]
    assert row["metric"] == "GEMBA-ESA"
    assert row["Pearson r"] == pytest.approx(float(np.corrcoef(x, y)[0, 1]), abs=1e-12)
