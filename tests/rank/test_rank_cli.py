"""``mtscore rank`` end to end (docs/rank.md): inputs from metrics computed in the run, from mtscore score's JSON,
from per-segment files (JSON lines, mt-metrics-eval ``*.seg.score`` with documents) and system-level files; domain and
metadata filters; every output format carries the same numbers; bad input is one line naming the file and the rule."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from conftest import data_path, run_cli
from mtscore.rank import core as C
from mtscore.rank import inputs as I

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "mtscore" / "data" / "sample"
KA = Path(__file__).resolve().parents[1] / "known_answers"
SYSTEMS = ["LIUM-NMT", "online-B", "uedin-nmt", "PROMT-Rule-based"]


def run(argv, cwd=None):
    return run_cli(*argv, cwd=cwd)


def _sample_args():
    return ["-r", SAMPLE / "newstest2017.en-de.ref.de", "-i", *(SAMPLE / f"{s}.de" for s in SYSTEMS)]


@pytest.fixture(scope="module")
def score_json(tmp_path_factory):
    d = tmp_path_factory.mktemp("rank")
    code, out, err = run(["score", *_sample_args(), "-m", "bleu", "chrf", "--sentence-level", "-f", "json", "-q"])
    assert code == 0, err
    p = d / "scores.json"
    p.write_text(out, encoding="utf-8")
    return p


def test_score_then_rank_then_html(score_json, tmp_path):
    page = tmp_path / "rank.html"
    code, out, err = run(["rank", "--score-json", score_json, "--resamples", "200", "-f", "json", "-o", page])
    assert code == 0, err
    r = json.loads(out)["rankings"][0]
    assert [m["name"] for m in r["metrics"]] == ["BLEU", "chrF2"]
    assert r["signature"].startswith("autorank:wmt25|metric:BLEU(higher)[BLEU|nrefs:1")
    assert "bootstrap:documents|n:200|seed:12345" in r["signature"]
    # the system scores are the means of the sentence scores score printed
    sent = json.loads(score_json.read_text(encoding="utf-8"))
    for row in r["systems"]:
        vals = [x[f"{row['system']}:BLEU"] for x in sent["rows"]]
        assert row["metrics"]["BLEU"]["score"] == pytest.approx(sum(vals) / len(vals), rel=1e-12)
        lo, hi = row["interval"]
        assert lo <= row["autorank"] <= hi or row["autorank"] == pytest.approx(lo) or row["autorank"] == pytest.approx(hi)
    assert sum(x["p_first"] for x in r["systems"]) == pytest.approx(1.0)
    assert r["systems"][0]["autorank"] == 1.0 and r["systems"][-1]["system"] == "PROMT-Rule-based"
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "http" not in html.split("<body>", 1)[1].replace(
        "http://www.w3.org", "")  # self-contained: nothing fetched


def test_computed_metrics_use_corpus_statistics(tmp_path):
    """-i/-m: each metric's system score is its corpus score (BLEU of the summed statistics), and a resample scores
    the drawn statistics, which a plain-Python replay of the engine's draws reproduces."""
    from mtscore.metrics.registry import get_metric
    from mtscore.significance import Draws

    code, out, err = run(["rank", *_sample_args(), "-m", "bleu", "ter", "-q", "--resamples", "30", "--seed", "3",
                          "-f", "json"])
    assert code == 0, err
    r = json.loads(out)["rankings"][0]
    refs = (SAMPLE / "newstest2017.en-de.ref.de").read_text(encoding="utf-8").split("\n")[:-1]
    bleu, ter = get_metric("bleu"), get_metric("ter")
    stats = {}
    for s in SYSTEMS:
        hyps = (SAMPLE / f"{s}.de").read_text(encoding="utf-8").split("\n")[:-1]
        stats[s] = (bleu.stats(hyps, [[x] for x in refs]).values, ter.stats(hyps, [[x] for x in refs]).values)
        row = next(x for x in r["systems"] if x["system"] == s)
        assert row["metrics"]["BLEU"]["score"] == pytest.approx(float(bleu.score(stats[s][0].sum(axis=0))), abs=1e-12)
        assert row["metrics"]["TER"]["score"] == pytest.approx(float(ter.score(stats[s][1].sum(axis=0))), abs=1e-12)
    # replay: each segment its own document; the rule on each resample's corpus scores
    W = Draws(3).bootstrap_counts(30, len(refs), scheme="counts")
    order = [x["system"] for x in r["systems"]]
    boot = []
    for b in range(30):
        X = np.array([[float(bleu.score(W[b] @ stats[s][0])) for s in order],
                      [float(ter.score(W[b] @ stats[s][1])) for s in order]])
        boot.append(C.R.wmt25(X, [True, False]))
    boot = np.array(boot)
    lo = np.percentile(boot, 2.5, axis=0)
    assert np.allclose(lo, [x["interval"][0] for x in r["systems"]], atol=1e-9, rtol=0)


def test_formats_carry_the_same_numbers(score_json):
    base = ["rank", "--score-json", score_json, "--resamples", "100"]
    js = json.loads(run(base + ["-f", "json"])[1])["rankings"][0]
    code, tsv, _ = run(base + ["-f", "csv"])
    rows = list(csv.DictReader(io.StringIO(tsv)))
    got = {(x["system"], x["statistic"]): float(x["value"]) for x in rows if x["metric"] == "AutoRank"}
    for s in js["systems"]:
        assert got[(s["system"], "autorank")] == s["autorank"]
        assert got[(s["system"], "ci_low")] == s["interval"][0]
        assert got[(s["system"], "p_first")] == s["p_first"]
    text = run(base)[1]
    assert text.splitlines()[0].startswith("AutoRank WMT25")
    assert js["signature"] in text
    tex = run(base + ["-f", "latex"])[1]
    assert r"AutoRank $\downarrow$" in tex and r"BLEU $\uparrow$" in tex and "% autorank:wmt25" in tex
    md = run(base + ["-f", "markdown"])[1]
    assert md.count("\n|") >= 5


def test_jsonl_segments_give_the_published_wmt25_system_scores(tmp_path):
    """WMT25's GEMBA-ESA per-segment outputs (English-Italian) read by rank's JSON lines reader: the system scores
    equal the organisers' 4-decimal print; documents and domains come from the lines."""
    ka = json.loads((KA / "wmt25-autorank.json").read_text(encoding="utf-8"))
    argv = ["rank", "--lp", "en-it_IT", "--resamples", "0", "-f", "json"]
    for metric, info in ka["segments"].items():
        argv += ["--seg-scores", metric, KA / info["file"], "direction=higher"]
    code, out, err = run(argv)
    assert code == 0, err
    r = json.loads(out)["rankings"][0]
    assert r["label"] == "en-it_IT" and len(r["systems"]) == 33
    for metric, info in ka["segments"].items():
        for row in r["systems"]:
            assert abs(row["metrics"][metric]["score"] - float(info["system_scores_4dp"][row["system"]])) <= 5e-5
    # the domain filter keeps the news documents only, and the ranking changes accordingly
    code, out, err = run(argv + ["--filter", "domain=news"])
    assert code == 0, err
    news = json.loads(out)["rankings"][0]
    n_all = r["systems"][0]["metrics"]["GEMBA-ESA-CMDA"]["segments"]
    n_news = news["systems"][0]["metrics"]["GEMBA-ESA-CMDA"]["segments"]
    assert 0 < n_news < n_all


def test_missing_segments_are_counted_and_reported(tmp_path):
    f = tmp_path / "m.jsonl"
    lines = []
    for s, vals in (("a", [1, 2, None, 4]), ("b", [2, None, None, 1]), ("c", [0, 0, 1, 1])):
        lines += [json.dumps({"system": s, "doc": f"d{i // 2}", "domain": "x", "score": v}) for i, v in enumerate(vals)]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(["rank", "--seg-scores", "Q", f, "direction=higher", "--resamples", "50"])
    assert code == 0, err
    assert "Q: 3 missing segment score(s) left out of the means (most: b, 2 of 4)" in out
    js = json.loads(run(["rank", "--seg-scores", "Q", f, "direction=higher", "--resamples", "0", "-f", "json"])[1])
    b = next(x for x in js["rankings"][0]["systems"] if x["system"] == "b")
    assert b["metrics"]["Q"] == {"score": 1.5, "scaled": b["metrics"]["Q"]["scaled"], "segments": 2, "missing": 2}


def test_mtme_segment_files_with_documents_and_system_meta(tmp_path):
    root = data_path("wmt23")
    lp = "zh-en"
    ms = root / "metric-scores" / lp
    meta = tmp_path / "meta.tsv"
    systems = sorted({ln.split("\t")[0] for ln in (ms / "COMET-refA.seg.score").read_text().splitlines()})
    meta.write_text("system\ttype\n" + "".join(f"{s}\t{'online' if s.startswith('ONLINE') else 'other'}\n"
                                               for s in systems), encoding="utf-8")
    argv = ["rank", "--lp", lp, "--docs", root / "documents" / f"{lp}.docs", "--resamples", "100", "-f", "json",
            "--system-meta", meta, "--exclude", "synthetic_ref"]
    for name in ("COMET", "BLEURT-20", "MetricX-23", "chrF"):
        argv += ["--seg-scores", name, ms / f"{name}-refA.seg.score"]
    code, out, err = run(argv)
    assert code == 0, err
    r = json.loads(out)["rankings"][0]
    assert len(r["systems"]) == 15
    mx = next(m for m in r["metrics"] if m["name"] == "MetricX-23")
    assert mx["higher_is_better"] is False  # the direction from mtscore's table of known metrics
    assert r["bootstrap"]["documents"] > 50
    assert {x["metadata"]["type"] for x in r["systems"]} == {"online", "other"}
    code, out, err = run(argv + ["--filter", "type=online"])
    assert code == 0, err
    assert {x["system"][:6] for x in json.loads(out)["rankings"][0]["systems"]} == {"ONLINE"}


def test_system_level_files_rank_without_interval(tmp_path):
    a, b = tmp_path / "a.sys.score", tmp_path / "b.sys.score"
    a.write_text("s1\t0.5\ns2\t0.7\ns3\t0.6\n")
    b.write_text("s1\t3.0\ns2\t2.0\ns3\t1.0\n")
    code, out, err = run(["rank", "--sys-scores", "A", a, "direction=higher", "--sys-scores", "B", b,
                          "direction=lower", "--autorank", "wmt24"])
    assert code == 0, err
    assert "no interval: metric(s) with system-level scores only: A, B" in out
    lines = [ln.split() for ln in out.splitlines()[3:6]]
    assert [ln[1] for ln in lines] == ["s2", "s3", "s1"]
    assert [float(ln[2]) for ln in lines] == [1.5, 1.5, 3.0]  # (1 + 2) / 2, (2 + 1) / 2, (3 + 3) / 2; ties by name


@pytest.mark.parametrize("argv,code,msg", [
    (["--seg-scores", "Q", "missing.jsonl", "direction=higher"], 3, "missing.jsonl"),
    (["--seg-scores", "Q", "bad.jsonl"], 2, "--seg-scores Q: unknown metric name, so its direction is unknown"),
    (["--seg-scores", "Q"], 2, "--seg-scores: needs NAME and FILE"),
    (["--sys-scores", "A", "a.sys.score", "direction=higher", "--filter", "domain=news"], 2, "--filter domain=...: the segments have no"),
    (["--sys-scores", "A", "a.sys.score", "direction=higher", "--filter", "nope=1"], 2, "--filter nope: not 'domain' nor a column"),
    (["--sys-scores", "A", "a.sys.score", "direction=higher", "--sys-scores", "B", "short.sys.score", "direction=higher"], 3, "metric B: no scores for "
                                                                                      "system(s) s3"),
    (["--sys-scores", "A", "a.sys.score", "direction=higher", "--exclude", "zz"], 2, "--exclude: unknown system(s) zz"),
    (["--sys-scores", "A", "a.sys.score", "direction=higher", "--scale-top", "9"], 2, "--scale-top: only the wmt24 rule"),
    (["--seg-scores", "Q", "bad.jsonl", "direction=higher"], 3, "bad.jsonl"),
    ([], 2, "rank: no metric"),
])
def test_bad_input_is_one_line(tmp_path, argv, code, msg):
    (tmp_path / "a.sys.score").write_text("s1\t0.5\ns2\t0.7\ns3\t0.6\n")
    (tmp_path / "short.sys.score").write_text("s1\t0.5\ns2\t0.7\n")
    (tmp_path / "bad.jsonl").write_text('{"system": "a", "score": "x"}\n')
    got, out, err = run(["rank", *argv], cwd=tmp_path)
    assert got == code, err
    assert len(err.strip().splitlines()) == 1 and msg in err and "Traceback" not in err


def test_read_system_meta_json(tmp_path):
    p = tmp_path / "m.json"
    p.write_text(json.dumps({"a": {"constrained": True, "params": "7B", "langs": ["x"]}, "b": {"constrained": False}}))
    assert I.read_system_meta(str(p)) == {"constrained": {"a": True, "b": False}, "params": {"a": "7B"}}


def test_jsonl_with_several_language_pairs_gives_one_ranking_each(tmp_path):
    f = tmp_path / "two.jsonl"
    rows = []
    for lp in ("en-de", "en-cs"):
        for s, base in (("a", 3.0), ("b", 2.0), ("c", 1.0)):
            for d in range(4):
                rows.append({"lp": lp, "system": s, "doc": f"{lp}-{d}", "scores": [base + d, base - d * (lp == "en-cs")]})
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    code, out, err = run(["rank", "--seg-scores", "Q", f, "direction=higher", "--resamples", "20", "-f", "json"])
    assert code == 0, err
    got = json.loads(out)["rankings"]
    assert [r["label"] for r in got] == ["en-cs", "en-de"]
    assert all(r["bootstrap"]["documents"] == 4 for r in got)
    sig = got[0]["metrics"][0]["signature"]
    assert sig.startswith("Q|scores:two.jsonl|direction:higher|digest:") and sig in got[0]["signature"]
    one = json.loads(run(["rank", "--seg-scores", "Q", f, "direction=higher", "--lp", "en-de", "-f", "json",
                          "--resamples", "20"])[1])["rankings"]
    assert len(one) == 1 and one[0]["label"] == "en-de" and one[0]["systems"] == got[1]["systems"]


def test_computed_metrics_with_documents(tmp_path):
    docs = tmp_path / "sample.docs"
    docs.write_text("".join(f"news\tdoc{i // 10}\n" for i in range(400)), encoding="utf-8")
    code, out, err = run(["rank", *_sample_args(), "-m", "chrf", "-q", "--docs", docs, "--resamples", "50",
                          "-f", "json"])
    assert code == 0, err
    assert json.loads(out)["rankings"][0]["bootstrap"]["documents"] == 40
    short = tmp_path / "short.docs"
    short.write_text("news\tdoc0\n", encoding="utf-8")
    code, out, err = run(["rank", *_sample_args(), "-m", "chrf", "-q", "--docs", short])
    assert code == 3 and "--docs: 1 line for 400 segments" in err and len(err.strip().splitlines()) == 1


def test_multi_metric_json_lines_one_file_per_system(tmp_path):
    """The layout of WMT25's published automatic scores: one file per system, a line per document with every
    metric's segment scores; the system is the file name; directions declared."""
    docs = [("news", "n1", 2), ("news", "n2", 1), ("speech", "s1", 3), ("speech", "s2", 2)]
    quality = {"good": 0.8, "mid": 0.5, "bad": 0.2}
    files = []
    for s, q in quality.items():
        lines = []
        for lp in ("en-xx", "en-yy"):
            for k, (dom, doc, n) in enumerate(docs):
                a = [round(q + 0.01 * (j - k), 3) for j in range(n)]
                b = [round(-5 * (1 - q) + 0.1 * j, 3) for j in range(n)]
                if s == "mid" and doc == "s1" and lp == "en-xx":
                    a[1] = None
                lines.append(json.dumps({"language_pair": lp, "domain": dom, "document_id": doc,
                                         "metric_scores": {"A": a, "B": b}}))
        f = tmp_path / f"{s}.jsonl"
        f.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(f)
    base = ["rank", "--multi-scores", *files, "--lp", "en-xx", "--resamples", "50", "-f", "json"]
    code, out, err = run(base + ["--direction", "A=higher", "--direction", "B=higher"])
    assert code == 0, err
    r = json.loads(out)["rankings"][0]
    assert [x["system"] for x in r["systems"]] == ["good", "mid", "bad"]
    assert r["bootstrap"]["documents"] == 4
    mid = r["systems"][1]["metrics"]["A"]
    assert mid["missing"] == 1 and mid["segments"] == 7
    assert {m["name"]: m["missing"] for m in r["metrics"]} == {"A": 1, "B": 0}
    code, out, err = run(base + ["--direction", "*=higher", "--keep-metrics", "B", "--filter", "domain=speech"])
    assert code == 0, err
    r = json.loads(out)["rankings"][0]
    assert [m["name"] for m in r["metrics"]] == ["B"] and r["bootstrap"]["documents"] == 2
    both = json.loads(run(["rank", "--multi-scores", *files, "--direction", "*=higher", "--resamples", "0",
                           "-f", "json"])[1])["rankings"]
    assert [x["label"] for x in both] == ["en-xx", "en-yy"]
    code, out, err = run(base)
    assert code == 2 and "--direction A=higher|lower" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(base + ["--direction", "*=higher", "--keep-metrics", "C"])
    assert code == 2 and "--keep-metrics: not in the --multi-scores files: C" in err
