"""COMET models run by mtscore itself, checked against unbabel-comet on tiny checkpoints.

The oracle: scripts/neural_known_answers.py built the tiny random-weight checkpoints in tests/fixtures/neural/
(a wmt22-comet-da-style RegressionMetric, a wmt20-style one with softmax + layer norm, a CometKiwi-style
UnifiedMetric on [mt, src], an XCOMET on an XLM-R XL encoder; a SentencePiece tokenizer trained on the built-in
sample) with unbabel-comet's own classes, and scored them with unbabel-comet 2.2.7 in a separate environment
(it pins numpy < 2). Its scores (and XCOMET's error spans) are in known_answers.json with the versions used;
here mtscore scores the same checkpoints (fp32, CPU) and must agree to 1e-6. A missing known-answer file
fails, never skips. No network: the checkpoints are folders in the checkout.
"""
import hashlib
import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

from mtscore.cli.main import main  # noqa: E402
from mtscore.errors import InputError, InvalidParameterError, MtscoreWarning  # noqa: E402
from mtscore.metrics.registry import get_metric  # noqa: E402
from mtscore.neural import comet_model as cm  # noqa: E402
from mtscore.neural import runner  # noqa: E402
from mtscore.neural.cache import ScoreCache  # noqa: E402
from neural_float import comet_tolerance  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
KA = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
TOL = 1e-6


def _items(kind):
    use_ref = kind != "cometkiwi"
    return [(t["src"], t["mt"], t["ref"] if use_ref else None) for t in KA["triples"]]


def _load(kind, **kw):
    expect = {"comet-da": ("regression_metric",), "comet-da-ln": ("regression_metric",),
              "cometkiwi": ("unified_metric",), "xcomet": ("xcomet_metric",)}[kind]
    return cm.load(FIX / kind, "test", expect=expect, **kw)


@pytest.mark.parametrize("kind", ["comet-da", "comet-da-ln", "cometkiwi", "xcomet"])
def test_known_answers_vs_unbabel_comet(kind):
    want = KA["models"][kind]
    ckpt = FIX / kind / "checkpoints" / "model.ckpt"
    assert hashlib.sha256(ckpt.read_bytes()).hexdigest() == want["ckpt_sha256"], "fixture differs from the one scored"
    m = _load(kind)
    scores, spans = runner.score(m, _items(kind), KA["batch_size"], "test", use_cache=False)
    tol = comet_tolerance(kind)  # float32 kernels differ by CPU: the bound is measured (tests/neural_float.py)
    np.testing.assert_allclose(scores, want["scores"], rtol=0, atol=tol)
    assert len(set(np.round(want["scores"], 4))) >= 8  # the model discriminates (XCOMET: through its spans)
    if kind == "xcomet":
        assert spans is not None and len(spans) == len(want["error_spans"])
        assert sum(map(len, want["error_spans"])) > 0  # there are spans to compare
        for got, exp in zip(spans, want["error_spans"]):
            assert [(s["start"], s["end"], s["severity"], s["text"]) for s in got] == \
                   [(s["start"], s["end"], s["severity"], s["text"]) for s in exp]
            np.testing.assert_allclose([s["confidence"] for s in got], [s["confidence"] for s in exp], atol=tol)


def test_batch_size_and_order_do_not_change_scores():
    m = _load("comet-da")
    items = _items("comet-da")
    a, _ = runner.score(m, items, 1, "test", use_cache=False)
    b, _ = runner.score(m, items[::-1], 7, "test", use_cache=False)
    np.testing.assert_allclose(a, b[::-1], atol=TOL, rtol=0)


def test_identical_inputs_scored_once(monkeypatch):
    m = _load("comet-da")
    seen = []
    real = cm.sentence_embeddings
    monkeypatch.setattr(cm, "sentence_embeddings", lambda mm, seqs: (seen.extend(seqs), real(mm, seqs))[1])
    items = _items("comet-da")
    runner.score(m, items * 3, 4, "test", use_cache=False)
    distinct = {t for it in items for t in it}
    assert len(seen) == len(distinct)  # every distinct sentence embedded once, whatever its role and count


def _cli_files(tmp_path, n=12):
    t = KA["triples"][:n]
    for name, key in (("src.txt", "src"), ("ref.txt", "ref"), ("a.txt", "mt")):
        (tmp_path / name).write_text("\n".join(x[key] for x in t) + "\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("\n".join(x["ref"] for x in t) + "\n", encoding="utf-8")
    return t


def test_cli_score_matches_and_second_run_is_served_from_the_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    t = _cli_files(tmp_path)
    calls = []
    real = cm.sentence_embeddings
    monkeypatch.setattr(cm, "sentence_embeddings", lambda mm, seqs: (calls.append(len(seqs)), real(mm, seqs))[1])
    spec = f"comet:model={FIX / 'comet-da'},sources={tmp_path / 'src.txt'},batch_size=5"
    args = ["score", "-r", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"),
            "-m", "bleu", spec, "-f", "json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert calls, "the first run ran the model"
    want = np.mean(KA["models"]["comet-da"]["scores"][:12])
    assert first["rows"][0]["COMET"] == pytest.approx(want, abs=TOL)
    sig = json.dumps(first)
    assert "precision:fp32" in sig and "digest:" + KA["models"]["comet-da"]["ckpt_sha256"][:12] in sig
    calls.clear()
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert calls == []  # no model call: every segment from the cache
    assert second["rows"] == first["rows"]  # bit-identical
    # --no-cache / MTSCORE_NO_CACHE recomputes
    monkeypatch.setenv("MTSCORE_NO_CACHE", "1")
    assert main(args) == 0
    assert calls and json.loads(capsys.readouterr().out)["rows"] == first["rows"]
    # compare and report run on the same metric (and hit the cache)
    monkeypatch.delenv("MTSCORE_NO_CACHE")
    calls.clear()
    assert main(["compare", "-r", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"),
                 "-m", spec, "--resamples", "50"]) == 0, capsys.readouterr().err
    out = tmp_path / "report.html"
    assert main(["report", "-r", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"),
                 "-m", "bleu", spec, "--resamples", "50", "-o", str(out), "-q"]) == 0, capsys.readouterr().err
    assert calls == []
    assert "COMET" in out.read_text(encoding="utf-8")


def test_cache_hit_is_bit_identical(tmp_path):
    m = _load("comet-da")
    sc = ScoreCache(tmp_path / "c.sqlite")
    items = _items("comet-da")
    a, _ = runner.score(m, items, 4, "test", use_cache=True, score_cache=sc)
    calls = m.calls
    b, _ = runner.score(m, items, 4, "test", use_cache=True, score_cache=sc)
    assert m.calls == calls and a.tobytes() == b.tobytes()
    assert sc.stats()["entries"] == len(set(items))


def test_several_references(tmp_path):
    m = get_metric("comet", model=str(FIX / "comet-da"), sources=str(tmp_path / "src.txt"), ref="mean", cache=False)
    t = _cli_files(tmp_path, 4)
    hyps = [x["mt"] for x in t]
    refs = [[x["ref"], x["src"]] for x in t]
    st = m.stats(hyps, refs)
    one = runner.score(m._load(), [(x["src"], x["mt"], x["ref"]) for x in t], 4, "t", use_cache=False)[0]
    two = runner.score(m._load(), [(x["src"], x["mt"], x["src"]) for x in t], 4, "t", use_cache=False)[0]
    np.testing.assert_allclose(st.values[:, 0], (one + two) / 2, atol=TOL, rtol=0)  # other batches: padding
    assert "ref:mean" in st.signature
    mx = get_metric("comet", model=str(FIX / "comet-da"), sources=str(tmp_path / "src.txt"), ref="max", cache=False)
    np.testing.assert_allclose(mx.stats(hyps, refs).values[:, 0], np.maximum(one, two), atol=TOL, rtol=0)


def test_out_of_memory_halves_the_batch_then_fails_in_one_line(monkeypatch):
    m = _load("comet-da")
    items = _items("comet-da")
    want, _ = runner.score(m, items, 8, "test", use_cache=False)
    real = cm.sentence_embeddings

    def small_only(mm, seqs):
        if len(seqs) > 2:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(mm, seqs)
    monkeypatch.setattr(cm, "sentence_embeddings", small_only)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got, _ = runner.score(m, items, 8, "test", use_cache=False)
    np.testing.assert_allclose(got, want, atol=TOL, rtol=0)
    assert any(issubclass(x.category, MtscoreWarning) and "retrying with batch_size=2" in str(x.message) for x in w)

    def never(mm, seqs):
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
    monkeypatch.setattr(cm, "sentence_embeddings", never)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InputError, match="out of memory with batch_size=1"):
            runner.score(m, items, 8, "test", use_cache=False)


def _one_line_error(capsys, rc, code=2):
    err = capsys.readouterr().err.strip()
    assert rc == code and len(err.split("\n")) == 1 and err.startswith("mtscore: error: "), (rc, err)
    return err


def test_missing_model_names_the_folders_looked_in(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    _cli_files(tmp_path, 3)
    base = ["score", "-r", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "a.txt"), "-m"]
    err = _one_line_error(capsys, main(base + [f"comet:model=Unbabel/wmt22-comet-da,sources={tmp_path / 'src.txt'}"]))
    assert "not found" in err and str(tmp_path / "hub" / "models--Unbabel--wmt22-comet-da") in err
    assert "never downloads" in err
    err = _one_line_error(capsys, main(base + ["comet"]))
    assert "no model given" in err
    err = _one_line_error(capsys, main(base + [f"comet:model={tmp_path},sources=x"]))
    assert "has no hparams.yaml" in err


def test_model_found_in_the_hf_cache_offline(tmp_path, monkeypatch):
    hub = tmp_path / "hub"
    snap = hub / "models--Org--tiny-comet" / "snapshots" / "abc123"
    shutil.copytree(FIX / "comet-da", snap)
    (hub / "models--Org--tiny-comet" / "refs").mkdir()
    (hub / "models--Org--tiny-comet" / "refs" / "main").write_text("abc123")
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    _cli_files(tmp_path, 3)
    m = get_metric("comet", model="Org/tiny-comet", sources=str(tmp_path / "src.txt"), cache=False)
    t = KA["triples"][:3]
    st = m.stats([x["mt"] for x in t], [[x["ref"]] for x in t])
    np.testing.assert_allclose(st.values[:, 0], KA["models"]["comet-da"]["scores"][:3], atol=TOL)
    assert "model:Org/tiny-comet" in st.signature


def _copy(tmp_path, kind):
    d = tmp_path / kind
    shutil.copytree(FIX / kind, d)
    return d


def test_corrupt_checkpoint(tmp_path):
    d = _copy(tmp_path, "comet-da")
    ck = d / "checkpoints" / "model.ckpt"
    ck.write_bytes(ck.read_bytes()[: ck.stat().st_size // 2])
    with pytest.raises(InputError, match="cannot read the checkpoint's weights") as e:
        cm.load(d, "comet")
    assert "\n" not in str(e.value)


def test_checkpoint_that_needs_code_to_load_is_refused(tmp_path):
    d = _copy(tmp_path, "comet-da")
    ck = d / "checkpoints" / "model.ckpt"
    sd = torch.load(str(ck), weights_only=True)

    class Evil:
        def __reduce__(self):
            return (print, ("executed",))
    sd["callbacks"] = Evil()
    torch.save(sd, str(ck))
    with pytest.raises(InputError, match="weights_only=True"):
        cm.load(d, "comet")


def test_checkpoint_of_another_architecture(tmp_path):
    with pytest.raises(InvalidParameterError, match="is a unified_metric checkpoint"):
        cm.load(FIX / "cometkiwi", "comet", expect=("regression_metric",))
    d = _copy(tmp_path, "comet-da")
    shutil.copy(FIX / "comet-da-ln" / "checkpoints" / "model.ckpt", d / "checkpoints" / "model.ckpt")
    cm.load(d, "comet")  # same architecture, other weights: loads
    shutil.copy(FIX / "cometkiwi" / "checkpoints" / "model.ckpt", d / "checkpoints" / "model.ckpt")
    with pytest.raises(InputError, match="another (architecture|size)"):
        cm.load(d, "comet")
    (d / "hparams.yaml").write_text((d / "hparams.yaml").read_text().replace("regression_metric", "ranking_metric"))
    with pytest.raises(InputError, match="'ranking_metric' is not a model mtscore runs"):
        cm.load(d, "comet")


def test_tokenizer_mismatch(tmp_path):
    from transformers import AutoTokenizer
    d = _copy(tmp_path, "comet-da")
    tok = AutoTokenizer.from_pretrained(str(d / "encoder"))
    tok.add_tokens([f"neu{i}" for i in range(20)])
    tok.save_pretrained(str(d / "encoder"))
    with pytest.raises(InputError, match="tokenizer mismatch: the encoder's tokenizer has"):
        cm.load(d, "comet")


def test_missing_encoder(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    d = _copy(tmp_path, "comet-da")
    (d / "hparams.yaml").write_text((d / "hparams.yaml").read_text().replace("pretrained_model: encoder",
                                                                              "pretrained_model: xlm-roberta-large"))
    with pytest.raises(InvalidParameterError, match="encoder 'xlm-roberta-large'.*models--FacebookAI--xlm-roberta-large"):
        cm.load(d, "comet")


def test_bf16_runs_and_is_named(tmp_path):
    m = get_metric("comet", model=str(FIX / "comet-da"), sources=str(tmp_path / "s.txt"), precision="bf16", cache=False)
    t = KA["triples"][:4]
    (tmp_path / "s.txt").write_text("\n".join(x["src"] for x in t) + "\n", encoding="utf-8")
    st = m.stats([x["mt"] for x in t], [[x["ref"]] for x in t])
    np.testing.assert_allclose(st.values[:, 0], KA["models"]["comet-da"]["scores"][:4], atol=0.1)
    assert "precision:bf16" in st.signature


def test_cometkiwi_metric_ignores_references(tmp_path):
    t = KA["triples"][:5]
    (tmp_path / "s.txt").write_text("\n".join(x["src"] for x in t) + "\n", encoding="utf-8")
    m = get_metric("cometkiwi", model=str(FIX / "cometkiwi"), sources=str(tmp_path / "s.txt"), cache=False)
    a = m.stats([x["mt"] for x in t], [[x["ref"]] for x in t]).values[:, 0]
    b = m.stats([x["mt"] for x in t], [["other"] for x in t]).values[:, 0]
    np.testing.assert_allclose(a, KA["models"]["cometkiwi"]["scores"][:5], atol=TOL)
    assert a.tobytes() == b.tobytes()
    with pytest.raises(InvalidParameterError, match="regression_metric checkpoint"):
        get_metric("cometkiwi", model=str(FIX / "comet-da"), sources=str(tmp_path / "s.txt"))._load()


def test_xcomet_metric_keeps_spans(tmp_path):
    t = KA["triples"]
    (tmp_path / "s.txt").write_text("\n".join(x["src"] for x in t) + "\n", encoding="utf-8")
    m = get_metric("xcomet", model=str(FIX / "xcomet"), sources=str(tmp_path / "s.txt"), cache=False)
    st = m.stats([x["mt"] for x in t], [[x["ref"]] for x in t])
    np.testing.assert_allclose(st.values[:, 0], KA["models"]["xcomet"]["scores"], atol=TOL)
    assert [[(s["start"], s["end"]) for s in x] for x in m.last_spans] == \
           [[(s["start"], s["end"]) for s in x] for x in KA["models"]["xcomet"]["error_spans"]]


def test_model_loaded_once_per_process_and_reloaded_when_the_files_change(tmp_path):
    import os
    import pickle
    d = _copy(tmp_path, "comet-da")
    (tmp_path / "s.txt").write_text("a\n", encoding="utf-8")
    a = get_metric("comet", model=str(d), sources=str(tmp_path / "s.txt"), cache=False)
    b = pickle.loads(pickle.dumps(a))  # as a worker receives it: without the model
    assert b._model is None and a._load() is b._load()  # loaded once, kept for the process
    ck = d / "checkpoints" / "model.ckpt"
    os.utime(ck, ns=(ck.stat().st_atime_ns, ck.stat().st_mtime_ns + 10 ** 9))
    c = get_metric("comet", model=str(d), sources=str(tmp_path / "s.txt"), cache=False)
    assert c._load() is not a._load()
