"""Build the tiny random-weight COMET checkpoints of the neural tests and score them with unbabel-comet.

Run ONCE, in a separate environment that has unbabel-comet (it pins numpy < 2 and transformers < 5, so it never
shares mtscore's environment; it is not a dependency of mtscore at run time or in the tests):

    python3 -m venv /work/venv-comet
    /work/venv-comet/bin/pip install "torch==2.13.0+cpu" "unbabel-comet==2.2.7"
    /work/venv-comet/bin/python scripts/neural_known_answers.py

It writes, under tests/fixtures/neural/:

* ``<kind>/`` for each kind (comet-da: a wmt22-comet-da-style RegressionMetric; comet-da-ln: the wmt20 style
  with softmax + layer norm; cometkiwi: a UnifiedMetric on [mt, src] (wmt22-cometkiwi-da style); xcomet:
  an XCOMETMetric on an XLM-R-XL encoder): ``hparams.yaml``, ``checkpoints/model.ckpt`` (a PyTorch Lightning
  style checkpoint: ``{"state_dict": ...}`` saved with torch.save), and ``encoder/`` (the encoder's
  config.json and a SentencePiece tokenizer trained here on the built-in sample, converted to tokenizer.json).
  ``hparams.yaml`` names the encoder as ``pretrained_model: encoder`` -- a folder next to it; this script
  runs unbabel-comet with the checkpoint folder as working directory so that it finds it there too.
* ``known_answers.json``: the input triples, unbabel-comet's segment scores (and XCOMET's error spans), the
  batch size used, the sha256 of each model.ckpt and the versions of everything involved.

Every parameter is drawn from a seeded generator (also the scalar-mix weights and gamma, which COMET
initialises to constants), so the tests discriminate. Pointed at a real checkpoint instead
(``--real DIR --pairs FILE.jsonl``) it prints unbabel-comet's scores for it, to compare with
``mtscore score -m comet:model=DIR`` on a machine that has both.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "neural"
SAMPLE = ROOT / "src" / "mtscore" / "data" / "sample"


def read(name):
    return (SAMPLE / name).read_text(encoding="utf-8").splitlines()


def triples():
    """The inputs: sample lines (source = a German system output: the model is random, only the
    arithmetic is checked), with an empty hypothesis, a duplicate, a long line past the encoder's
    512 - 4 = 124 token limit (truncation), and non-Latin text."""
    ref = read("newstest2017.en-de.ref.de")
    a, b = read("online-B.de"), read("uedin-nmt.de")
    out = [{"src": b[i], "mt": a[i], "ref": ref[i]} for i in range(14)]
    out.append({"src": b[20], "mt": "", "ref": ref[20]})
    out.append(dict(out[3]))  # an identical triple
    out.append({"src": " ".join(b[30:36]), "mt": " ".join(a[30:40]), "ref": " ".join(ref[30:38])})
    out.append({"src": "Привет, мир! 你好，世界。", "mt": "Hallo Welt!", "ref": "Hallo, Welt!"})
    out.append({"src": b[40], "mt": a[40] + " " + a[40], "ref": ref[40]})
    return out


def train_tokenizer(folder: Path, seed_lines):
    import sentencepiece as spm
    from transformers import XLMRobertaTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    prefix = folder / "sentencepiece.bpe"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(seed_lines), model_prefix=str(prefix), vocab_size=400, model_type="unigram",
        character_coverage=1.0, normalization_rule_name="identity", bos_id=0, pad_id=1, eos_id=2, unk_id=3,
        num_threads=1, minloglevel=2)
    (folder / "sentencepiece.bpe.vocab").unlink()
    tok = XLMRobertaTokenizerFast(vocab_file=str(prefix) + ".model")
    tok.model_max_length = 128
    tok.save_pretrained(str(folder))
    return tok


def randomize(model, seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            scale = 1.0 if ("scalar_parameters" in name or "gamma" in name or "hidden2tag.weight" in name) else 0.3
            p.copy_(torch.randn(p.shape, generator=g) * scale)
            if name == "hidden2tag.bias":  # error labels about as likely as "O": spans to compare
                p.copy_(torch.tensor([1.0, 0.0, 0.0, 0.0]))
            if "gamma" in name:
                p.abs_().add_(0.5)


def build(kind: str, seed: int, seed_lines):
    import torch
    import yaml
    from transformers import XLMRobertaConfig, XLMRobertaXLConfig

    folder = OUT / kind
    enc = folder / "encoder"
    tok = train_tokenizer(enc, seed_lines)
    common = dict(vocab_size=max(len(tok), tok.vocab_size),  # <mask> included
                  hidden_size=32, num_hidden_layers=3, num_attention_heads=4,
                  intermediate_size=48, max_position_embeddings=130, pad_token_id=1, bos_token_id=0,
                  eos_token_id=2, type_vocab_size=1)
    cfg = (XLMRobertaXLConfig if kind == "xcomet" else XLMRobertaConfig)(**common)
    cfg.save_pretrained(str(enc))
    os.chdir(folder)
    from comet.models import RegressionMetric, UnifiedMetric, XCOMETMetric
    base = dict(pretrained_model="encoder", load_pretrained_weights=False, hidden_sizes=[48, 24],
                train_data=[], validation_data=[])
    if kind == "comet-da":  # wmt22-comet-da: sparsemax mix, no layer norm, average pooling
        model = RegressionMetric(layer_transformation="sparsemax", layer_norm=False, pool="avg", **base)
    elif kind == "comet-da-ln":  # wmt20-comet-da style: softmax mix with layer norm
        model = RegressionMetric(layer_transformation="softmax", layer_norm=True, pool="avg", **base)
    elif kind == "cometkiwi":  # wmt22-cometkiwi-da: unified metric on [mt, src], CLS, sparsemax + layer norm
        model = UnifiedMetric(input_segments=["mt", "src"], layer_transformation="sparsemax", layer_norm=True,
                              word_level_training=False, encoder_model="XLM-RoBERTa", final_activation="Sigmoid",
                              **base)
    elif kind == "xcomet":
        model = XCOMETMetric(encoder_model="XLM-RoBERTa-XL", word_layer=2, layer_transformation="sparsemax",
                             layer_norm=False, **base)
    else:
        raise SystemExit(kind)
    randomize(model, seed)
    (folder / "checkpoints").mkdir(exist_ok=True)
    hp = dict(model.hparams)
    (folder / "hparams.yaml").write_text(yaml.safe_dump(hp, sort_keys=True))
    ckpt = folder / "checkpoints" / "model.ckpt"
    sd = {k: v.clone() for k, v in model.state_dict().items()}
    import pytorch_lightning as ptl
    torch.save({"epoch": 0, "global_step": 0, "pytorch-lightning_version": ptl.__version__, "state_dict": sd,
                "hyper_parameters": hp}, str(ckpt))
    return folder


def score(folder: Path, data, batch_size):
    os.chdir(folder)
    from comet import load_from_checkpoint
    model = load_from_checkpoint(str(folder / "checkpoints" / "model.ckpt"))
    out = model.predict(data, batch_size=batch_size, gpus=0, progress_bar=False, num_workers=0)
    res = {"scores": [float(s) for s in out.scores]}
    md = out.get("metadata") if hasattr(out, "get") else None
    if md is not None and "error_spans" in md:
        res["error_spans"] = md["error_spans"]
    if md is not None:
        for k in ("src_scores", "ref_scores", "unified_scores"):
            if k in md:
                res[k] = [float(x) for x in md[k]]
    return res


def versions():
    import importlib.metadata as im
    return {p: im.version(p) for p in ("unbabel-comet", "torch", "transformers", "tokenizers", "sentencepiece",
                                       "pytorch-lightning", "numpy", "entmax")} | {"python": platform.python_version()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", help="a real COMET checkpoint folder (prints its scores on --pairs)")
    ap.add_argument("--pairs", help="JSON lines of {src, mt, ref}")
    ap.add_argument("--batch-size", type=int, default=4)
    a = ap.parse_args()
    if a.real:
        data = [json.loads(x) for x in Path(a.pairs).read_text().splitlines() if x.strip()]
        print(json.dumps(score(Path(a.real).resolve(), data, a.batch_size)))
        return
    import torch
    torch.set_num_threads(1)
    seed_lines = [x for f in ("newstest2017.en-de.ref.de", "online-B.de", "uedin-nmt.de") for x in read(f)]
    seed_lines += ["Привет, мир! 你好，世界。"] * 3
    data = triples()
    answers = {"script": "scripts/neural_known_answers.py", "versions": versions(), "batch_size": a.batch_size,
               "triples": data, "models": {}}
    for seed, kind in enumerate(("comet-da", "comet-da-ln", "cometkiwi", "xcomet"), start=31):
        folder = build(kind, seed, seed_lines)
        digest = hashlib.sha256((folder / "checkpoints" / "model.ckpt").read_bytes()).hexdigest()
        inputs = [{k: v for k, v in t.items() if k != "ref"} for t in data] if kind == "cometkiwi" else data
        res = score(folder, inputs, a.batch_size)
        answers["models"][kind] = {"ckpt_sha256": digest, **res}
        print(kind, res["scores"][:3], file=sys.stderr)
    os.chdir(ROOT)
    (OUT / "known_answers.json").write_text(json.dumps(answers, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
