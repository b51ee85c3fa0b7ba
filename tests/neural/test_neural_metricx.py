"""MetricX-23/24 run by mtscore itself, checked against google-research/metricx's predict.py.

The oracle: scripts/neural_metricx_known_answers.py ran ``python -m metricx23.predict`` / ``metricx24.predict``
(metricx commit fc4978eb, transformers 4.57.6, batch size 1) on a tiny random mT5 regression checkpoint and the
triples of tests/fixtures/neural/known_answers.json, reference-based and QE; the scores are in
metricx_known_answers.json. The checkpoint (32 MB: MetricX needs mT5's 250112-row vocabulary) is regenerated here
from the same seed (tests/neural_tiny_mt5.py) and its sha256 checked first; the tokenizer is committed.
"""
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

import neural_tiny_mt5  # noqa: E402
from neural_float import comet_tolerance, metricx_tolerance  # noqa: E402

from mtscore import __version__  # noqa: E402
from mtscore.cli.main import main  # noqa: E402
from mtscore.errors import InputError  # noqa: E402
from mtscore.metrics.registry import get_metric  # noqa: E402
from mtscore.neural import metricx_model as mx  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
MKA = json.loads((FIX / "metricx_known_answers.json").read_text(encoding="utf-8"))
TRIPLES = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))["triples"]
TOK = FIX / "mt5-tokenizer"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("metricx") / "tiny-metricx"
    assert neural_tiny_mt5.build(d, MKA["seed"]) == MKA["safetensors_sha256"], "regenerated checkpoint differs"
    return d


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    d = tmp_path_factory.mktemp("metricx-texts")
    for name, key in (("src.txt", "src"), ("ref.txt", "ref"), ("a.txt", "mt")):
        (d / name).write_text("\n".join(t[key] for t in TRIPLES) + "\n", encoding="utf-8")
    return d


@pytest.mark.parametrize("key", ["metricx-23", "metricx-23-qe", "metricx-24", "metricx-24-qe"])
def test_known_answers_vs_metricx(key, model_dir, texts):
    want = MKA["models"][key]
    version = key.split("-")[1]
    kw = dict(model=str(model_dir), sources=str(texts / "src.txt"), version=version, qe=want["qe"], tokenizer=str(TOK),
              batch_size=1, cache=False)  # as the reference ran (see below for batches)
    m = get_metric("metricx", **kw)
    st = m.stats([t["mt"] for t in TRIPLES], [[t["ref"]] for t in TRIPLES])
    # float32 kernels differ by CPU: the bound is measured against float64 (tests/neural_float.py)
    np.testing.assert_allclose(st.values[:, 0], want["scores"], rtol=0, atol=metricx_tolerance(**kw))
    assert len({round(x, 4) for x in want["scores"] if x > 0}) >= 4  # not all clamped: the model discriminates
    assert f"version:{version}" in st.signature and "dir:lower" in st.signature
    assert m.higher_is_better is False


def test_cli_bleu_comet_metricx_score_compare_report_second_run_cached(model_dir, texts, tmp_path, capsys,
                                                                        monkeypatch):
    """The acceptance run: score -m bleu comet metricx, then compare and report: the model runs in the first
    command only (calls of both models counted), the rerun's rows are bit-identical."""
    from mtscore.neural import comet_model as cm
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    calls = []
    # float32 kernels differ by CPU and batch shape: bounds measured against float64 (tests/neural_float.py),
    # before the model calls are counted
    tol_mx = metricx_tolerance(model=str(model_dir), sources=str(texts / "src.txt"), tokenizer=str(TOK), batch_size=1)
    tol_c = comet_tolerance("comet-da")
    real, real_c = mx.predict, cm.sentence_embeddings
    monkeypatch.setattr(mx, "predict", lambda m, seqs: (calls.append(("mx", len(seqs))), real(m, seqs))[1])
    monkeypatch.setattr(cm, "sentence_embeddings", lambda m, seqs: (calls.append(("c", len(seqs))), real_c(m, seqs))[1])
    spec = f"metricx:model={model_dir},sources={texts / 'src.txt'},tokenizer={TOK}"
    comet = f"comet:model={FIX / 'comet-da'},sources={texts / 'src.txt'}"
    io = ["-r", str(texts / "ref.txt"), "-i", str(texts / "a.txt"), str(texts / "ref.txt")]
    args = ["score", *io, "-m", "bleu", comet, spec, "-f", "json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert {k for k, _ in calls} == {"mx", "c"}
    assert first["rows"][0]["MetricX"] == pytest.approx(np.mean(MKA["models"]["metricx-24"]["scores"]), abs=tol_mx)
    ka = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
    assert first["rows"][0]["COMET"] == pytest.approx(np.mean(ka["models"]["comet-da"]["scores"]), abs=tol_c)
    calls.clear()
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == first["rows"] and calls == []
    assert main(["compare", *io, "-m", "bleu", comet, spec, "--resamples", "50"]) == 0
    out = tmp_path / "report.html"
    assert main(["report", *io, "-m", "bleu", comet, spec, "--resamples", "50", "-o", str(out), "-q"]) == 0
    assert calls == []
    html = out.read_text(encoding="utf-8")
    assert "MetricX" in html and "COMET" in html


def test_not_a_metricx_checkpoint(tmp_path, model_dir):
    with pytest.raises(InputError, match="not an mT5"):
        mx.load(FIX / "comet-da" / "encoder", "metricx")
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text((model_dir / "config.json").read_text())
    (d / "model.safetensors").write_bytes(b"\0" * 100)
    with pytest.raises(InputError, match="cannot read the checkpoint's weights"):
        mx.load(d, "metricx", tokenizer=str(TOK))


def test_missing_tokenizer_names_the_cache_folders(tmp_path, model_dir, monkeypatch):
    from mtscore.errors import InvalidParameterError
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(InvalidParameterError, match="models--google--mt5-xl"):
        mx.load(model_dir, "metricx")


def test_partitions_and_two_replicas(model_dir, texts, tmp_path, capsys, monkeypatch):
    """MetricX-24 (it reads sources=) over 3 partitions (--chunk-size 7: each carries its source lines) equals
    metricx's known answers; on two CPU replicas (gpus=N's mechanics) the scores are those of one device, bit for
    bit, and both replicas ran batches."""
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    spec = f"metricx:model={model_dir},sources={texts / 'src.txt'},tokenizer={TOK},batch_size=1,cache=false"
    assert main(["score", "-r", str(texts / "ref.txt"), "-i", str(texts / "a.txt"), "-m", spec, "--chunk-size", "7",
                 "--sentence-level", "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    tol = metricx_tolerance(model=str(model_dir), sources=str(texts / "src.txt"), tokenizer=str(TOK), batch_size=1)
    np.testing.assert_allclose([r["MetricX"] for r in rows], MKA["models"]["metricx-24"]["scores"], rtol=0, atol=tol)
    kw = dict(model=str(model_dir), sources=str(texts / "src.txt"), tokenizer=str(TOK), batch_size=2, cache=False)
    one, two = get_metric("metricx", **kw), get_metric("metricx", **kw)
    two._device_list = ("cpu", "cpu")
    hyps, refs = [t["mt"] for t in TRIPLES], [[t["ref"]] for t in TRIPLES]
    assert one.stats(hyps, refs).values.tobytes() == two.stats(hyps, refs).values.tobytes()
    assert len(two._replicas) == 2 and all(r.calls > 0 for r in two._replicas)


@pytest.mark.parametrize("kw", [dict(), dict(qe=True), dict(version="23", max_input_length=99),
                                dict(precision="bf16", ref="mean")])
def test_signature_written_from_the_declarations(kw, model_dir, texts):
    """MetricX's signature: the declared entries (version, qe, max-len with its resolved default, precision) among
    what is not a parameter (model, weights digest, ref as the number of references makes it, library versions),
    written out here by the rule docs/neural-metrics.md states."""
    import hashlib
    import torch
    import transformers
    m = get_metric("metricx", model=str(model_dir), sources=str(texts / "src.txt"), tokenizer=str(TOK), **kw)
    c = {"version": "24", "qe": False, "max_input_length": 0, "precision": "fp32", "ref": "first", **kw}
    digest = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()[:12]
    max_len = c["max_input_length"] or (1536 if c["version"] == "24" else 1024)
    for nrefs in (1, 2):
        ref = "none" if c["qe"] else (None if nrefs == 1 else c["ref"])
        want = (f"model:tiny-metricx|digest:{digest}|version:{c['version']}|qe:{'yes' if c['qe'] else 'no'}|"
                f"max-len:{max_len}|precision:{c['precision']}|" + (f"ref:{ref}|" if ref else "") +
                f"agg:mean|dir:lower|torch:{torch.__version__.split('+')[0]}|transformers:{transformers.__version__}|"
                f"version:mtscore-{__version__}")
        assert m.signature(nrefs) == want
