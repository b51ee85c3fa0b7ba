"""COMET and MetricX on checkpoints made the way the published ones are, against the reference implementations.

scripts/neural_hub_known_answers.py made tests/fixtures/neural/hub/: 200 WMT23 triples (zh-en, en-de, he-en,
en-ja; paragraphs over 512 tokens, empty segments, literal <pad>/<s>/</s>, emoji, combining marks, whitespace at
the ends); encoder folders laid out as XLM-R's hub repositories (config.json, sentencepiece.bpe.model,
tokenizer.json, no tokenizer_config.json); a COMET-DA, a CometKiwi and an XCOMET built with unbabel-comet
2.2.7's classes and saved by Lightning (Trainer.save_checkpoint, save_hparams_to_yaml), scored by unbabel-comet
(transformers 4.57); MetricX's MT5ForRegression (google-research/metricx, transformers 4.30.2 as it pins) saved
with save_pretrained as safetensors fp32 and bf16 (only ``shared.weight``: the input embeddings are tied to it)
and as .bin, scored by metricx23/24.predict. The 32 MB MetricX checkpoints are replayed here from the seed
(tests/neural_tiny_mt5.py) with the tensors the reference saved, and their sha256 checked. Token ids (and
XCOMET's offsets) are compared as sha256 digests of each text's id list.
"""
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

import neural_tiny_mt5  # noqa: E402
from neural_float import float64_copy, same_machine, tolerance  # noqa: E402

from mtscore.errors import InputError  # noqa: E402
from mtscore.neural import comet_model as cm  # noqa: E402
from mtscore.neural import metricx_model as mx  # noqa: E402
from mtscore.neural import runner  # noqa: E402

HUB = Path(__file__).resolve().parents[1] / "fixtures" / "neural" / "hub"
TRIPLES = json.loads((HUB / "inputs.json").read_text(encoding="utf-8"))["triples"]
CKA = json.loads((HUB / "comet_known_answers.json").read_text(encoding="utf-8"))
MKA = json.loads((HUB / "metricx_known_answers.json").read_text(encoding="utf-8"))
TOL = 1e-6
EXPECT = {"comet-da": ("regression_metric",), "cometkiwi": ("unified_metric",), "xcomet": ("xcomet_metric",)}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One intra-op thread, as the references ran: on a loaded machine OpenMP's spinning threads make the
    batch-1 MetricX runs 40 times slower."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def digest(ids) -> str:
    return hashlib.sha256(json.dumps([int(i) for i in ids]).encode()).hexdigest()[:16]


def test_inputs_cover_the_edges():
    texts = [t[k] for t in TRIPLES for k in ("src", "mt", "ref")]
    assert len(TRIPLES) == 200 and {t["lp"] for t in TRIPLES} == {"zh-en", "en-de", "he-en", "en-ja", "edge"}
    assert "" in texts and any("<pad>" in t for t in texts) and any("</s>" in t for t in texts)
    assert any(t != t.strip() for t in texts) and any("\u0301" in t for t in texts) and any("👍" in t for t in texts)
    assert not (HUB / "xlmr" / "tokenizer_config.json").exists() and not (HUB / "xlmr-xl" / "tokenizer_config.json").exists()


# -- COMET ----------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def comet():
    return {k: cm.load(HUB / k, "test", expect=EXPECT[k]) for k in EXPECT}


@pytest.mark.parametrize("kind", list(EXPECT))
def test_comet_token_ids_and_offsets_are_the_reference(kind, comet):
    m, want = comet[kind], CKA["models"][kind]
    assert m.tokenizer.pad_token_id == want["pad_id"] == 1
    for k in ("src", "mt", "ref"):
        got = [digest(x) for x in cm.tokenize(m, [t[k] for t in TRIPLES])]
        bad = [i for i, (a, b) in enumerate(zip(got, want["token_ids"][k])) if a != b]
        assert not bad, f"{k}: token ids differ on segments {bad[:5]}"
    _, offs = cm.tokenize(m, [t["mt"] for t in TRIPLES], offsets=True)
    got = [digest([c for o in x for c in o]) for x in offs]
    assert got == want["mt_offsets"]
    assert max(len(x) for x in cm.tokenize(m, [t["src"] for t in TRIPLES])) == m.max_positions - 2 == 510  # truncated


@pytest.mark.parametrize("kind", list(EXPECT))
def test_comet_scores_and_spans_are_the_reference(kind, comet):
    m, want = comet[kind], CKA["models"][kind]
    assert hashlib.sha256((HUB / kind / "checkpoints" / "model.ckpt").read_bytes()).hexdigest() == want["ckpt_sha256"]
    items = [(t["src"], t["mt"], None if kind == "cometkiwi" else t["ref"]) for t in TRIPLES]
    scores, spans = runner.score(m, items, want["batch_size"], "test", use_cache=False)
    # 1e-6 plus this machine's float32 rounding, measured against float64 (tests/neural_float.py): float32
    # kernels differ by CPU; confidences (means of float32 probabilities) are bounded the same way
    s64, sp64 = runner.score(float64_copy(m), items, want["batch_size"], "test", use_cache=False)
    c32 = [s["confidence"] for sent in spans or [] for s in sent]
    c64 = [s["confidence"] for sent in sp64 or [] for s in sent]
    tol = tolerance(list(scores) + (c32 if len(c32) == len(c64) else []),
                    list(s64) + (c64 if len(c32) == len(c64) else []))
    np.testing.assert_allclose(scores, want["scores"], rtol=0, atol=tol)
    if same_machine(CKA):  # the reference's CPU kernels and thread count: the acceptance's 1e-6 itself
        np.testing.assert_allclose(scores, want["scores"], rtol=0, atol=TOL)
    assert len(set(np.round(want["scores"], 4))) > 100
    if kind == "xcomet":
        assert sum(map(len, want["error_spans"])) > 50
        for i, (got, exp) in enumerate(zip(spans, want["error_spans"])):
            assert [(s["text"], s["start"], s["end"], s["severity"]) for s in got] == \
                   [(s["text"], s["start"], s["end"], s["severity"]) for s in exp], i
            np.testing.assert_allclose([s["confidence"] for s in got], [s["confidence"] for s in exp], atol=tol)
            if same_machine(CKA):
                np.testing.assert_allclose([s["confidence"] for s in got], [s["confidence"] for s in exp], atol=TOL)


def test_literal_pad_is_dropped_from_unified_inputs_as_unbabel_comet_does(comet):
    m = comet["cometkiwi"]
    ids, mask = cm.concat(m, [cm.tokenize(m, ["a <pad> b"]), cm.tokenize(m, ["c"])])
    assert 1 not in ids[0].tolist() and bool(mask.all())


def _encoder_copy(tmp_path, kind="comet-da", enc="xlmr"):
    d = tmp_path / "m"
    shutil.copytree(HUB / kind, d / kind)
    shutil.copytree(HUB / enc, d / enc)
    return d / kind, d / enc


def test_missing_or_foreign_tokenizer_is_an_error_naming_the_folder(tmp_path):
    ck, enc = _encoder_copy(tmp_path)
    for f in ("tokenizer.json", "sentencepiece.bpe.model"):
        (enc / f).unlink()
    with pytest.raises(InputError, match=r"xlmr: test: the encoder folder has no tokenizer"):
        cm.load(ck, "test", expect=EXPECT["comet-da"])
    shutil.copy(HUB / "mt5" / "spiece.model", enc / "sentencepiece.bpe.model")  # mT5's in an XLM-R folder
    with pytest.raises(InputError, match=r"xlmr: test: not an XLM-R tokenizer: .*<s>=0 <pad>=1 </s>=2"):
        cm.load(ck, "test", expect=EXPECT["comet-da"])
    (enc / "sentencepiece.bpe.model").unlink()
    five = {"version": "1.0", "added_tokens": [{"id": i, "content": t, "special": True, "single_word": False,
                                                "lstrip": False, "rstrip": False, "normalized": False}
                                               for i, t in enumerate(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])],
            "model": {"type": "Unigram", "unk_id": 3, "vocab": [[t, 0.0] for t in ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]]}}
    (enc / "tokenizer.json").write_text(json.dumps(five))
    with pytest.raises(InputError, match=r"only 5 tokens"):
        cm.load(ck, "test", expect=EXPECT["comet-da"])


def test_xlmr_folder_with_only_the_sentencepiece_model_tokenizes_as_its_tokenizer_json(tmp_path):
    from mtscore.neural.tokenization import XlmrTokenizer
    _, enc = _encoder_copy(tmp_path)
    (enc / "tokenizer.json").unlink()
    a, b = XlmrTokenizer(enc, "t"), XlmrTokenizer(HUB / "xlmr", "t")
    texts = [t[k] for t in TRIPLES for k in ("src", "mt")]
    assert a.encode(texts, 512, offsets=True) == b.encode(texts, 512, offsets=True)


def test_comet_parameter_missing_from_the_checkpoint_is_named(tmp_path):
    ck, _ = _encoder_copy(tmp_path)
    obj = torch.load(ck / "checkpoints" / "model.ckpt", map_location="cpu", weights_only=True)
    del obj["state_dict"]["estimator.ff.0.bias"]
    torch.save(obj["state_dict"], ck / "checkpoints" / "model.ckpt")
    with pytest.raises(InputError, match=r"model.ckpt: test: parameter estimator.ff.0.bias is not in the checkpoint .1 tensor missing.: "
                                         "it would stay at its random initialisation"):
        cm.load(ck, "test", expect=EXPECT["comet-da"])


# -- MetricX --------------------------------------------------------------------------------------------------

def replay(folder: Path, name: str, weights: dict | None = None) -> Path:
    """The checkpoint ``name`` as save_pretrained wrote it (same tensors, same bytes for safetensors);
    ``weights``: ``neural_tiny_mt5.weights(MKA["seed"])`` when already drawn (every checkpoint has the same)."""
    from safetensors.torch import save_file
    rec = MKA["checkpoints"][name]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(rec["config"]))
    weights = neural_tiny_mt5.weights(MKA["seed"]) if weights is None else weights
    w = {k: torch.from_numpy(v) for k, v in weights.items()}
    dtype = getattr(torch, rec["dtype"])
    w = {k: v.to(dtype) for k, v in w.items()}
    for k in ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight"):
        w[k] = w["shared.weight"]  # one tensor in MT5ForRegression
    f = folder / rec["file"]
    if f.suffix == ".safetensors":
        save_file({k: w[k].contiguous() for k in rec["keys"]}, str(f), metadata=rec["metadata"])
        assert hashlib.sha256(f.read_bytes()).hexdigest() == rec["sha256"], "replayed checkpoint differs"
    else:
        torch.save({k: w[k] for k in rec["keys"]}, str(f))
        assert sorted(torch.load(str(f), weights_only=True)) == rec["keys"]
    return folder


@pytest.fixture(scope="module")
def metricx_dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("hub-metricx")
    weights = neural_tiny_mt5.weights(MKA["seed"])  # drawn once for the three checkpoints
    return {name: replay(base / name, name, weights) for name in MKA["checkpoints"]}


@pytest.fixture(scope="module")
def metricx_model(metricx_dirs):
    """``mx.load`` of a replayed checkpoint at a precision, loaded once for the tests that score with it (a run
    and its QE variant share the checkpoint; scoring leaves the model as it was)."""
    loaded = {}

    def get(checkpoint: str, precision: str = "fp32"):
        if (checkpoint, precision) not in loaded:
            loaded[checkpoint, precision] = mx.load(metricx_dirs[checkpoint], "metricx", tokenizer=str(HUB / "mt5"),
                                                    precision=precision)
        return loaded[checkpoint, precision]
    return get


def test_safetensors_as_published_hold_only_shared():
    for name in ("fp32-safetensors", "bf16-safetensors"):
        keys = MKA["checkpoints"][name]["keys"]
        assert "shared.weight" in keys and not any("embed_tokens" in k for k in keys)
        assert MKA["checkpoints"][name]["config"]["tie_word_embeddings"] is False


@pytest.mark.parametrize("run", list(MKA["runs"]))
def test_metricx_token_ids_and_scores_are_the_reference(run, metricx_model):
    want = MKA["runs"][run]
    # the reference computes in the checkpoint's dtype (torch_dtype="auto"): a bf16 checkpoint with precision=bf16
    bf16 = want["checkpoint"].startswith("bf16")
    m = metricx_model(want["checkpoint"], "bf16" if bf16 else "fp32")
    assert m.model.encoder.embed_tokens.weight is m.model.shared.weight
    texts = [mx.make_input(want["version"], want["qe"], t["src"], t["mt"], t["ref"]) for t in TRIPLES]
    ids = mx.tokenize(m, texts, want["max_input_length"])
    bad = [i for i, (a, b) in enumerate(zip(ids, want["token_ids"])) if digest(a) != b]
    assert not bad, f"token ids differ on segments {bad[:5]}"
    if not want["qe"]:
        assert max(want["lengths"]) == want["max_input_length"] - 1  # truncated inputs are among them
    scores, _ = runner.score(m, [(x,) for x in texts], 1, "metricx", use_cache=False, max_len=want["max_input_length"])
    if bf16:  # the same bf16 operations as the reference: equal on these inputs
        tol = TOL
    else:  # 1e-6 plus this machine's float32 rounding, measured against float64 (tests/neural_float.py)
        s64, _ = runner.score(float64_copy(m), [(x,) for x in texts], 1, "metricx", use_cache=False,
                              max_len=want["max_input_length"])
        tol = tolerance(scores, s64)
    np.testing.assert_allclose(scores, want["scores"], rtol=0, atol=tol)
    if same_machine(MKA):  # the reference's CPU kernels and thread count: the acceptance's 1e-6 itself
        np.testing.assert_allclose(scores, want["scores"], rtol=0, atol=TOL)
    assert sum(x > 0 for x in want["scores"]) > 40



def test_bf16_checkpoint_in_fp32_differs_by_bf16_rounding_only(metricx_dirs):
    """precision=fp32 (the default) computes a bf16 checkpoint in fp32 on its exactly converted weights: not the
    reference's numbers (bf16 arithmetic), but near them."""
    want = MKA["runs"]["metricx-24-bf16"]
    m = mx.load(metricx_dirs["bf16-safetensors"], "metricx", tokenizer=str(HUB / "mt5"))
    texts = [mx.make_input("24", False, t["src"], t["mt"], t["ref"]) for t in TRIPLES[:40]]
    scores, _ = runner.score(m, [(x,) for x in texts], 1, "metricx", use_cache=False, max_len=1536)
    diff = np.abs(scores - want["scores"][:40])
    assert 0 < np.median(diff) < 0.5 and diff.max() < 5


def test_metricx_whitespace_and_literal_special_tokens_as_transformers_4():
    from mtscore.neural.tokenization import Mt5Tokenizer
    tok = Mt5Tokenizer(HUB / "mt5", "metricx")
    space = tok.token_to_id("▁")
    assert tok.encode(["a "], 100)[0][-2] == space  # the lone ▁ of trailing whitespace, then </s>
    ids = tok.encode(["a </s> b"], 100)[0]
    assert ids[ids.index(1) - 1] == space and ids[-1] == 1


def test_metricx_missing_parameter_and_foreign_tokenizer(tmp_path, metricx_dirs):
    from safetensors.torch import load_file, save_file
    d = tmp_path / "m"
    shutil.copytree(metricx_dirs["fp32-safetensors"], d)
    sd = load_file(str(d / "model.safetensors"))
    with pytest.raises(InputError, match=r"not an mT5 tokenizer|no mT5 tokenizer"):
        mx.load(d, "metricx", tokenizer=str(HUB / "xlmr"))
    del sd["lm_head.weight"]
    save_file(sd, str(d / "model.safetensors"))
    with pytest.raises(InputError, match=r"model.safetensors: metricx: parameter lm_head.weight is not in the "
                                         r"checkpoint: it would stay at its random initialisation"):
        mx.load(d, "metricx", tokenizer=str(HUB / "mt5"))
