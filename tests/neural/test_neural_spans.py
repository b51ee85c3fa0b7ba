"""XCOMET's error spans written by ``mtscore score --spans-out`` and read back by ``mtscore meta --spans``.

Oracles: the spans unbabel-comet 2.2.7 predicted with the tiny XCOMET checkpoint (tests/fixtures/neural/
known_answers.json, built by scripts/neural_known_answers.py), and a plain-Python character-level P/R/F1 (WMT QE
task 2 definition: credit 1 for a character both mark with the same severity, 0.5 for a severity mismatch) of
those same spans against a gold span file built here.
"""
import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

from mtscore.cli.main import main  # noqa: E402
from neural_float import comet_tolerance  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
KA = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
RANK = {"minor": 1, "major": 2, "critical": 3}


def _gold(mt: str, k: int):
    """Gold spans of segment k (deterministic, overlapping the predictions in part): the second word as major,
    and on every third segment the first four characters as minor; every fifth segment has no error."""
    if k % 5 == 4:
        return []
    out = []
    words = [(i, i + len(w)) for i, w in _words(mt)]
    if len(words) > 1:
        out.append((words[1][0], words[1][1], "major"))
    if k % 3 == 0 and len(mt) >= 4:
        out.append((0, 4, "minor"))
    return out


def _words(text):
    i = 0
    for w in text.split(" "):
        if w:
            yield i, w
        i += len(w) + 1


def _chars(spans):
    """character -> highest severity rank (overlaps: the most severe)."""
    out = {}
    for a, b, s in spans:
        for c in range(a, b):
            out[c] = max(out.get(c, 0), RANK[s])
    return out


def _prf(credit, npred, ngold):
    p = credit / npred if npred else float("nan")
    r = credit / ngold if ngold else float("nan")
    pz, rz = (0.0 if x != x else x for x in (p, r))
    return p, r, (2 * pz * rz / (pz + rz) if pz + rz else 0.0)


def _plain(gold_cells, pred_cells):
    """micro (P, R, F1) and macro F1 in plain Python."""
    tc = tp = tg = 0.0
    f1s = []
    for key, g in gold_cells.items():
        gc, pc = _chars(g), _chars(pred_cells[key])
        credit = sum((1.0 if gc[c] == s else 0.5) for c, s in pc.items() if c in gc)
        tc, tp, tg = tc + credit, tp + len(pc), tg + len(gc)
        if pc or gc:
            f1s.append(_prf(credit, len(pc), len(gc))[2])
    return _prf(tc, tp, tg), sum(f1s) / len(f1s)


def test_score_spans_out_feeds_meta_spans(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    t = KA["triples"]
    want = KA["models"]["xcomet"]["error_spans"]
    out = tmp_path / "outputs"
    out.mkdir()
    # two systems with the known-answer translations (one sources file serves every system, so only these
    # triples have known spans); the gold built below differs between them
    (tmp_path / "src.txt").write_text("\n".join(x["src"] for x in t) + "\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("\n".join(x["ref"] for x in t) + "\n", encoding="utf-8")
    (out / "sysA.txt").write_text("\n".join(x["mt"] for x in t) + "\n", encoding="utf-8")
    mts_b = [x["mt"] for x in t]
    (out / "sysB.txt").write_text("\n".join(mts_b) + "\n", encoding="utf-8")
    spans_file = tmp_path / "xcomet.json"
    spec = f"xcomet:model={FIX / 'xcomet'},sources={tmp_path / 'src.txt'},batch_size=4"
    args = ["score", "-r", str(tmp_path / "ref.txt"), "-i", str(out / "sysA.txt"), str(out / "sysB.txt"),
            "-m", spec, "-f", "json", "--spans-out", str(spans_file)]
    assert main(args) == 0, capsys.readouterr().err
    capsys.readouterr()
    doc = json.loads(spans_file.read_text(encoding="utf-8"))
    assert sorted(doc) == ["sysA", "sysB"]
    # the spans in the file are unbabel-comet's
    assert sum(map(len, want)) > 0
    for name in doc:
        assert len(doc[name]) == len(t)
        for got, exp in zip(doc[name], want):
            assert [(s["start"], s["end"], s["severity"], s["text"]) for s in got] == \
                   [(s["start"], s["end"], s["severity"], s["text"]) for s in exp]
            # float32 kernels differ by CPU: the bound is measured against float64 (tests/neural_float.py)
            assert [s["confidence"] for s in got] == pytest.approx([s["confidence"] for s in exp],
                                                                   abs=comet_tolerance("xcomet"))
    # a second run is served from the score cache and writes the same spans over the existing file
    spans_file.write_text("old", encoding="utf-8")
    assert main(args) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert json.loads(spans_file.read_text(encoding="utf-8")) == doc
    # an input of the run is never overwritten
    rc = main(args[:-1] + [str(out / "sysA.txt")])
    err = capsys.readouterr().err
    assert rc != 0 and "sysA.txt" in err and len(err.strip().splitlines()) == 1
    assert (out / "sysA.txt").read_text(encoding="utf-8").startswith(t[0]["mt"])

    # gold spans built here, as the TSV meta --spans reads
    gold = {}
    rows = ["system\tseg\tstart\tend\tseverity"]
    for shift, (name, mts) in enumerate((("sysA", [x["mt"] for x in t]), ("sysB", mts_b))):
        for k, mt in enumerate(mts):
            gold[(name, k)] = _gold(mt, k + shift)
            rows += [f"{name}\t{k + 1}\t{a}\t{b}\t{s}" for a, b, s in gold[(name, k)]]
    (tmp_path / "gold.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["meta", "--spans", "--gold", str(tmp_path / "gold.tsv"), "--gold-format", "tsv",
                 "--outputs", str(out), "--pred", f"xcomet={spans_file}", "-f", "json"]) == 0, capsys.readouterr().err
    table = json.loads(capsys.readouterr().out)
    row = table["rows"][0]
    # the same spans (unbabel-comet's, zero-width ones carry no character) scored in plain Python
    pred = {(name, k): [(s["start"], s["end"], s["severity"]) for s in want[k] if s["end"] > s["start"]]
            for name in ("sysA", "sysB") for k in range(len(t))}
    (p, r, f1), macro = _plain(gold, pred)
    assert 0 < f1 < 1 and 0 < macro < 1  # partial agreement: the check means something
    assert row["predictor"] == "xcomet"
    assert row["micro P"] == pytest.approx(p, abs=1e-12)
    assert row["micro R"] == pytest.approx(r, abs=1e-12)
    assert row["micro F1"] == pytest.approx(f1, abs=1e-12)
    assert row["macro F1"] == pytest.approx(macro, abs=1e-12)


def test_spans_out_needs_one_xcomet_metric(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("x\n", encoding="utf-8")
    rc = main(["score", "-r", str(tmp_path / "a.txt"), "-i", str(tmp_path / "a.txt"), "-m", "bleu",
               "--spans-out", str(tmp_path / "s.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "--spans-out" in err and "xcomet" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize("extra", [["--backend", "dask"], ["--spans-out", "-"]])
def test_spans_out_refusals(tmp_path, capsys, extra):
    (tmp_path / "s.txt").write_text("x\n", encoding="utf-8")
    spec = f"xcomet:model={FIX / 'xcomet'},sources={tmp_path / 's.txt'},cache=false"
    rc = main(["score", "-r", str(tmp_path / "s.txt"), "-i", str(tmp_path / "s.txt"), "-m", spec,
               "--spans-out", str(tmp_path / "o.json"), *extra])
    cap = capsys.readouterr()
    assert rc == 2 and "--spans-out" in cap.err and len(cap.err.strip().splitlines()) == 1 and cap.out == ""
    assert not (tmp_path / "o.json").exists()


def test_spans_out_unwritable_fails_before_the_model_runs(tmp_path, capsys):
    (tmp_path / "s.txt").write_text("x\n", encoding="utf-8")
    spec = f"xcomet:model={FIX / 'xcomet'},sources={tmp_path / 's.txt'},cache=false"
    rc = main(["score", "-r", str(tmp_path / "s.txt"), "-i", str(tmp_path / "s.txt"), "-m", spec,
               "--spans-out", str(tmp_path / "no" / "such" / "s.json")])
    err = capsys.readouterr().err
    assert rc != 0 and "s.json" in err and len(err.strip().splitlines()) == 1


def test_no_cache_flag_neither_reads_nor_writes_the_cache(tmp_path, capsys, monkeypatch):
    from mtscore.neural import comet_model as cm
    from mtscore.neural.cache import ScoreCache
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MTSCORE_NO_CACHE", raising=False)
    t = KA["triples"][:6]
    for name, key in (("src.txt", "src"), ("ref.txt", "ref"), ("a.txt", "mt")):
        (tmp_path / name).write_text("\n".join(x[key] for x in t) + "\n", encoding="utf-8")
    calls = []
    real = cm.sentence_embeddings
    monkeypatch.setattr(cm, "sentence_embeddings", lambda mm, seqs: (calls.append(len(seqs)), real(mm, seqs))[1])
    args = ["score", "-r", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "a.txt"), "-m", "bleu",
            f"comet:model={FIX / 'comet-da'},sources={tmp_path / 'src.txt'}", "-f", "json"]
    assert main(args + ["--no-cache"]) == 0, capsys.readouterr().err
    first = json.loads(capsys.readouterr().out)["rows"]
    assert calls and ScoreCache().stats()["entries"] == 0  # nothing written
    assert main(args) == 0  # fills the cache
    assert json.loads(capsys.readouterr().out)["rows"] == first
    assert ScoreCache().stats()["entries"] > 0
    calls.clear()
    assert main(args + ["--no-cache"]) == 0  # a full cache is not read either
    assert calls and json.loads(capsys.readouterr().out)["rows"] == first
    # a command without a neural metric: a one-line error, not a silently ignored flag
    rc = main(args[:5] + ["-m", "bleu", "--no-cache"])
    err = capsys.readouterr().err
    assert rc == 2 and "--no-cache" in err and len(err.strip().splitlines()) == 1
