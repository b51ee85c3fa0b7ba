"""Known answers of the neural metrics on checkpoints made the way the published ones are, each reference run in
its own environment with the versions it pins (docs/neural-metrics.md, "Known answers").

Three steps, each in its own environment, all writing under tests/fixtures/neural/hub/:

1. ``inputs`` (any Python with the WMT23 data): ``inputs.json``, 200 (src, mt, ref) triples of WMT23 zh-en,
   en-de, he-en and en-ja (two systems each, paragraphs over 512 tokens included) and edge cases: empty
   segments, literal ``<pad>``/``<s>``/``</s>`` text, emoji, combining marks, whitespace at the ends::

       python scripts/neural_hub_known_answers.py inputs --data ../shared/data

2. ``comet`` (unbabel-comet 2.2.7 with what it resolves: transformers 4.57, numpy < 2)::

       python3 -m venv /work/venvs/comet
       /work/venvs/comet/bin/pip install "torch==2.13.0" "unbabel-comet==2.2.7" "numpy<2"
       /work/venvs/comet/bin/python scripts/neural_hub_known_answers.py comet

   Trains a SentencePiece model on the inputs and lays out two encoder folders as the hub repositories of
   XLM-R / XLM-R XL are laid out (``config.json``, ``sentencepiece.bpe.model``, ``tokenizer.json``, no
   ``tokenizer_config.json``); builds a COMET-DA (RegressionMetric), a CometKiwi (UnifiedMetric on [mt, src])
   and an XCOMET (XCOMETMetric: word tags, XLM-R XL) with unbabel-comet's classes, random weights from a
   seed, 514 positions; saves each with Lightning's ``Trainer.save_checkpoint`` and Lightning's
   ``save_hparams_to_yaml``; scores the inputs with ``load_from_checkpoint(...).predict`` and records the
   scores, the error spans, and the sha256 of every text's token ids (and of the MT's offsets).

3. ``metricx`` (google-research/metricx at the commit below, transformers 4.30.2 as its requirements.txt pins)::

       python3 -m venv /work/venvs/metricx
       /work/venvs/metricx/bin/pip install "torch==2.13.0" "transformers[torch]==4.30.2" sentencepiece==0.1.99 \\
           datasets==2.13.1 "numpy<2" protobuf "pyarrow<15" "accelerate<1.0" "pandas<2.3"
       git -C <metricx clone> archive fc4978eb064670f7cc33e93ea4f52d38396b8ae6 | tar -x -C /tmp/metricx
       /work/venvs/metricx/bin/python scripts/neural_hub_known_answers.py metricx --metricx /tmp/metricx

   Trains an mT5-style SentencePiece model (ids <pad> 0, </s> 1, <unk> 2) saved as google/mt5-* lay it out
   (``spiece.model``, ``tokenizer_config.json``, ``special_tokens_map.json``: written by T5Tokenizer); builds
   metricx's ``MT5ForRegression`` (``tie_word_embeddings: false``, as MetricX-23/24) with the weights of
   tests/neural_tiny_mt5.py and saves it with ``save_pretrained``: safetensors fp32, ``.bin`` fp32, and
   safetensors bf16 (as the MetricX-24 checkpoints are published); records which tensors each file holds and
   its sha256 (the tests replay the save from the seed and check it), runs ``metricx23.predict`` /
   ``metricx24.predict`` (reference-based and QE, batch size 1) and records the scores and the sha256 of the
   token ids of every input.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HUB = ROOT / "tests" / "fixtures" / "neural" / "hub"
METRICX_COMMIT = "fc4978eb064670f7cc33e93ea4f52d38396b8ae6"
SEED = 2036


def ids_digest(ids) -> str:
    """sha256 of a token id list (the tests compute the same)."""
    return hashlib.sha256(json.dumps([int(i) for i in ids]).encode()).hexdigest()[:16]


# -- 1. inputs ----------------------------------------------------------------------------------------------

EDGE = [
    {"src": "", "mt": "", "ref": ""},
    {"src": "Guten Morgen.", "mt": "", "ref": "Good morning."},
    {"src": "Guten Morgen.", "mt": "Good morning.", "ref": ""},
    {"src": "", "mt": "Good morning.", "ref": "Good morning."},
    {"src": "Drücken Sie <pad> zweimal.", "mt": "Press <pad> twice.", "ref": "Press the <pad> key twice."},
    {"src": "<pad>", "mt": "<pad><pad> <pad>", "ref": "<pad>"},
    {"src": "Das Tag <s> beginnt.", "mt": "The tag <s> starts a sentence.", "ref": "The <s> tag starts."},
    {"src": "Ende </s>", "mt": "End </s> of text </s>", "ref": "</s>The end"},
    {"src": "a </s> b <s> c <pad> d", "mt": "a</s>b<s>c<pad>d", "ref": "a <unk> b <mask> c"},
    {"src": "Toll gemacht 👍🏽🎉", "mt": "Well done 👍🏽🎉", "ref": "Great job! 👏👨‍👩‍👧"},
    {"src": "Café naïve", "mt": "Cafe\u0301 nai\u0308ve", "ref": "Café naïve"},
    {"src": "שָׁלוֹם עֲלֵיכֶם", "mt": "Peace be upon you", "ref": "Peace unto you"},
    {"src": "नमस्ते दुनिया", "mt": "Hello world", "ref": "Hello, world"},
    {"src": "  Leerzeichen am Anfang", "mt": "  spaces at the start", "ref": " spaces at the start"},
    {"src": "Leerzeichen am Ende  ", "mt": "spaces at the end ", "ref": "spaces at the end\t"},
    {"src": "\tTab und  doppelte   Leerzeichen\u00a0", "mt": "tab and  double   spaces\u00a0", "ref": "\u3000全角スペース"},
    {"src": "   ", "mt": " ", "ref": "   "},
    {"src": "Ｆｕｌｌｗｉｄｔｈ ｔｅｘｔ ①②", "mt": "Fullwidth text ①②", "ref": "ﬁ ligature ﬀ"},
    {"src": "Zero\u200bwidth\u200djoiner", "mt": "zero\u200bwidth", "ref": "zero width"},
    {"src": "``quotes'' and „Anführung“", "mt": "``quotes'' and \"quotes\"", "ref": "“quotes” and 'quotes'"},
]


def make_inputs(data: Path) -> list[dict]:
    w = data / "wmt23"
    ja = data / "wmt23-en-ja"

    def lines(p):
        return p.read_text(encoding="utf-8").split("\n")[:-1]
    pairs = [
        ("zh-en", lines(w / "sources/zh-en.txt"), lines(w / "references/zh-en.refA.txt"),
         [lines(w / "system-outputs/zh-en" / f"{s}.txt") for s in ("ONLINE-B", "NLLB_Greedy")]),
        ("en-de", lines(w / "sources/en-de.txt"), lines(w / "references/en-de.refA.txt"),
         [lines(w / "system-outputs/en-de" / f"{s}.txt") for s in ("ONLINE-B", "GPT4-5shot")]),
        ("he-en", lines(w / "sources/he-en.txt"), lines(w / "references/he-en.refB.txt"),
         [lines(w / "system-outputs/he-en" / f"{s}.txt") for s in ("ONLINE-B", "NLLB_Greedy")]),
        ("en-ja", lines(ja / "generaltest2023.en-ja.src.en"), lines(ja / "generaltest2023.en-ja.ref.refA.ja"),
         [lines(ja / "system-outputs" / f"generaltest2023.en-ja.hyp.{s}.ja") for s in ("ONLINE-B", "GPT4-5shot")]),
    ]
    out = []
    for lp, src, ref, systems in pairs:
        n = len(src)
        picks = [(i * 7919 + 13) % n for i in range(60)]
        if lp == "en-de":  # the longest paragraphs: > 512 tokens each
            picks[:3] = sorted(range(n), key=lambda i: -len(src[i]))[:3]
        for k, i in enumerate(list(dict.fromkeys(picks))[:45]):
            out.append({"lp": lp, "seg": i, "src": src[i], "mt": systems[k % 2][i], "ref": ref[i]})
    out = out[:180] + [{"lp": "edge", "seg": k, **e} for k, e in enumerate(EDGE)]
    assert len(out) == 200, len(out)
    return out


def seed_lines(inputs) -> list[str]:
    return [t[k] for t in inputs for k in ("src", "mt", "ref") if t[k].strip()]


# -- 2. COMET (unbabel-comet) ------------------------------------------------------------------------------

def _train_spm(prefix: Path, lines, vocab, **ids):
    import sentencepiece as spm
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=vocab, model_type="unigram",
        character_coverage=0.9995, normalization_rule_name="nmt_nfkc", num_threads=1, minloglevel=2,
        seed_sentencepiece_size=200000, **ids)
    Path(str(prefix) + ".vocab").unlink()


def xlmr_encoder(folder: Path, lines, xl: bool):
    """An XLM-R-layout encoder folder: config.json, sentencepiece.bpe.model (SentencePiece ids <unk> 0, <s> 1,
    </s> 2, as XLM-R's; fairseq's ids come from the converter), tokenizer.json; no tokenizer_config.json."""
    from transformers import XLMRobertaConfig, XLMRobertaTokenizerFast, XLMRobertaXLConfig
    folder.mkdir(parents=True, exist_ok=True)
    prefix = folder / "sentencepiece.bpe"
    _train_spm(prefix, lines, 3000, unk_id=0, bos_id=1, eos_id=2, pad_id=-1)
    tok = XLMRobertaTokenizerFast(vocab_file=str(prefix) + ".model")
    with tempfile.TemporaryDirectory() as tmp:
        tok.save_pretrained(tmp)
        shutil.copy(Path(tmp) / "tokenizer.json", folder / "tokenizer.json")
    cfg = (XLMRobertaXLConfig if xl else XLMRobertaConfig)(
        vocab_size=len(tok), hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=48,
        max_position_embeddings=514, pad_token_id=1, bos_token_id=0, eos_token_id=2, type_vocab_size=1)
    cfg.save_pretrained(str(folder))
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "sentencepiece.bpe.model", "tokenizer.json"]


def _randomize(model, seed):
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


def comet_models(inputs):
    import pytorch_lightning as ptl
    import torch
    from pytorch_lightning.core.saving import save_hparams_to_yaml
    torch.set_num_threads(1)
    lines = seed_lines(inputs)
    xlmr_encoder(HUB / "xlmr", lines, xl=False)
    shutil.rmtree(HUB / "xlmr-xl", ignore_errors=True)
    shutil.copytree(HUB / "xlmr", HUB / "xlmr-xl")
    from transformers import XLMRobertaXLConfig
    cfg = json.loads((HUB / "xlmr" / "config.json").read_text())
    XLMRobertaXLConfig(**{k: v for k, v in cfg.items() if k not in ("architectures", "transformers_version",
                                                                    "model_type")}).save_pretrained(str(HUB / "xlmr-xl"))
    from comet import load_from_checkpoint
    from comet.models import RegressionMetric, UnifiedMetric, XCOMETMetric
    res = {}
    kinds = {
        "comet-da": dict(cls=RegressionMetric, enc="xlmr", kw=dict(layer_transformation="sparsemax", layer_norm=False, pool="avg")),
        "cometkiwi": dict(cls=UnifiedMetric, enc="xlmr", kw=dict(
            input_segments=["mt", "src"], layer_transformation="sparsemax", layer_norm=True, word_level_training=False,
            encoder_model="XLM-RoBERTa", final_activation="Sigmoid")),
        "xcomet": dict(cls=XCOMETMetric, enc="xlmr-xl", kw=dict(encoder_model="XLM-RoBERTa-XL", word_layer=2,
                                                                layer_transformation="sparsemax", layer_norm=False)),
    }
    for seed, (kind, spec) in enumerate(kinds.items(), start=SEED):
        folder = HUB / kind
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "checkpoints").mkdir(parents=True)
        os.chdir(folder)
        model = spec["cls"](pretrained_model=f"../{spec['enc']}", load_pretrained_weights=False, hidden_sizes=[48, 24],
                            train_data=[], validation_data=[], **spec["kw"])
        _randomize(model, seed)
        trainer = ptl.Trainer(accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                              enable_progress_bar=False, enable_model_summary=False, max_epochs=0)
        trainer.strategy.connect(model)
        trainer.save_checkpoint(str(folder / "checkpoints" / "model.ckpt"))
        save_hparams_to_yaml(str(folder / "hparams.yaml"), model.hparams)
        del model, trainer
        model = load_from_checkpoint(str(folder / "checkpoints" / "model.ckpt"))
        data = [{k: t[k] for k in ("src", "mt", "ref") if not (kind == "cometkiwi" and k == "ref")} for t in inputs]
        out = model.predict(data, batch_size=8, gpus=0, progress_bar=False, num_workers=0)
        tok = model.encoder.tokenizer
        enc = tok([t["mt"] for t in inputs], truncation=True, max_length=model.encoder.max_positions - 2)
        r = {"ckpt_sha256": hashlib.sha256((folder / "checkpoints" / "model.ckpt").read_bytes()).hexdigest(),
             "batch_size": 8, "scores": [float(s) for s in out.scores],
             "token_ids": {k: [ids_digest(x) for x in tok([t[k] for t in inputs], truncation=True,
                                                           max_length=model.encoder.max_positions - 2)["input_ids"]]
                           for k in ("src", "mt", "ref")},
             "mt_offsets": [ids_digest([c for o in enc[i].offsets for c in o]) for i in range(len(inputs))],
             "pad_id": tok.pad_token_id}
        md = out.get("metadata")
        if md is not None and "error_spans" in md:
            r["error_spans"] = md["error_spans"]
        res[kind] = r
        print(kind, r["scores"][:4], file=sys.stderr)
    os.chdir(ROOT)
    return res


# -- 3. MetricX (google-research/metricx) -------------------------------------------------------------------

def mt5_tokenizer(folder: Path, lines):
    from transformers import T5Tokenizer
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        _train_spm(Path(tmp) / "spiece", lines + ["source: candidate: reference:"] * 20, 3000,
                   pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
        tok = T5Tokenizer(str(Path(tmp) / "spiece.model"), extra_ids=0)
        tok.save_pretrained(str(folder))
    assert not (folder / "tokenizer.json").exists()


def metricx_models(inputs, metricx: Path):
    import torch
    sys.path.insert(0, str(metricx))
    sys.path.insert(0, str(ROOT / "tests"))
    import neural_tiny_mt5
    from metricx24 import models
    from transformers import AutoTokenizer, MT5Config
    torch.set_num_threads(1)
    tok_dir = HUB / "mt5"
    shutil.rmtree(tok_dir, ignore_errors=True)
    mt5_tokenizer(tok_dir, seed_lines(inputs))
    cfg = {k: v for k, v in neural_tiny_mt5.CONFIG.items() if k != "architectures"}
    w = neural_tiny_mt5.weights(SEED)
    out = {"metricx_commit": METRICX_COMMIT, "seed": SEED, "checkpoints": {}, "runs": {}}
    tok = AutoTokenizer.from_pretrained(str(tok_dir))
    out["tokenizer_class"] = type(tok).__name__
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model = models.MT5ForRegression(MT5Config(**cfg))
        sd = {k: torch.from_numpy(v) for k, v in w.items() if "embed_tokens" not in k}
        missing, unexpected = model.load_state_dict(sd, strict=False)
        assert set(missing) == {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight"} and not unexpected
        assert model.encoder.embed_tokens.weight is model.shared.weight
        saves = {"fp32-safetensors": (torch.float32, True), "fp32-bin": (torch.float32, False),
                 "bf16-safetensors": (torch.bfloat16, True)}
        for name, (dtype, safe) in saves.items():
            d = tmp / name
            model.to(dtype).save_pretrained(str(d), safe_serialization=safe)
            f = d / ("model.safetensors" if safe else "pytorch_model.bin")
            if safe:
                from safetensors import safe_open
                with safe_open(str(f), "pt") as fh:
                    keys = sorted(fh.keys())
                    meta = fh.metadata()
            else:
                keys, meta = sorted(torch.load(str(f), map_location="cpu", weights_only=True)), None
            out["checkpoints"][name] = {"file": f.name, "sha256": hashlib.sha256(f.read_bytes()).hexdigest(),
                                        "keys": keys, "metadata": meta, "dtype": str(dtype).split(".")[1],
                                        "config": json.loads((d / "config.json").read_text())}
            print(name, f.name, len(keys), [k for k in keys if "embed" in k or k == "shared.weight"], file=sys.stderr)
        model.to(torch.float32)
        runs = {"metricx-23": ("23", False, "fp32-bin"), "metricx-23-qe": ("23", True, "fp32-bin"),
                "metricx-24": ("24", False, "fp32-safetensors"), "metricx-24-qe": ("24", True, "fp32-safetensors"),
                "metricx-24-bf16": ("24", False, "bf16-safetensors"),
                "metricx-24-qe-bf16": ("24", True, "bf16-safetensors")}
        max_len = {"23": 1024, "24": 1536}
        for key, (version, qe, ck) in runs.items():
            inp, res = tmp / "in.jsonl", tmp / f"{key}.jsonl"
            rows = [{"source": t["src"], "hypothesis": t["mt"], "reference": "" if qe else t["ref"]} for t in inputs]
            inp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            cmd = [sys.executable, "-m", f"metricx{version}.predict", "--tokenizer", str(tok_dir),
                   "--model_name_or_path", str(tmp / ck), "--max_input_length", str(max_len[version]),
                   "--batch_size", "1", "--input_file", str(inp), "--output_file", str(res)]
            if qe:
                cmd.append("--qe")
            r = subprocess.run(cmd, cwd=metricx, capture_output=True, text=True,
                               env={"PYTHONPATH": str(metricx), "PATH": "/usr/bin:/bin", "HOME": str(tmp),
                                    "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "CUDA_VISIBLE_DEVICES": "",
                                    "OMP_NUM_THREADS": "1"})
            if r.returncode:
                raise SystemExit(r.stderr[-3000:])
            preds = [json.loads(x)["prediction"] for x in res.read_text(encoding="utf-8").splitlines()]
            texts = [_metricx_input(version, qe, t) for t in inputs]
            ids = [x[:-1] for x in tok(texts, max_length=max_len[version], truncation=True)["input_ids"]]
            out["runs"][key] = {"version": version, "qe": qe, "checkpoint": ck, "max_input_length": max_len[version],
                                "scores": preds, "token_ids": [ids_digest(x) for x in ids],
                                "lengths": [len(x) for x in ids]}
            print(key, [round(p, 4) for p in preds[:6]], file=sys.stderr)
    return out


def _metricx_input(version, qe, t):  # as metricx2x/predict.py's _make_input
    if version == "23":
        return f"candidate: {t['mt']} " + (f"source: {t['src']}" if qe else f"reference: {t['ref']}")
    return f"source: {t['src']} candidate: {t['mt']}" + ("" if qe else f" reference: {t['ref']}")


def versions(names):
    import importlib.metadata as im
    out = {}
    for p in names:
        try:
            out[p] = im.version(p)
        except im.PackageNotFoundError:
            pass
    return out | {"python": platform.python_version()}


def machine() -> dict:
    """What decides the float32 bits besides the versions: torch's CPU kernels (``AVX512``, ``AVX2`` ...) and the
    thread count (both references run with one thread) and the CPU's vendor and model (the BLAS torch links picks its
    kernels by them); the tests assert 1e-6 only where all are the same."""
    import torch
    cpu = {}
    with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:  # vendor and model (BLAS kernels)
        for line in fh:
            key, _, value = line.partition(":")
            cpu.setdefault(key.strip(), value.strip())
    return {"cpu_capability": torch.backends.cpu.get_cpu_capability(), "threads": 1,
            "cpu": " ".join(cpu[k] for k in ("vendor_id", "model name") if k in cpu)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=("inputs", "comet", "metricx"))
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--metricx", help="the unpacked google-research/metricx repository")
    a = ap.parse_args()
    HUB.mkdir(parents=True, exist_ok=True)
    if a.step == "inputs":
        inputs = make_inputs(Path(a.data))
        assert all(unicodedata.is_normalized("NFC", t["src"]) or True for t in inputs)
        (HUB / "inputs.json").write_text(json.dumps({"script": "scripts/neural_hub_known_answers.py inputs",
                                                     "triples": inputs}, indent=0, ensure_ascii=False) + "\n",
                                         encoding="utf-8")
        return
    inputs = json.loads((HUB / "inputs.json").read_text(encoding="utf-8"))["triples"]
    if a.step == "comet":
        res = {"script": "scripts/neural_hub_known_answers.py comet",
               "versions": versions(("unbabel-comet", "torch", "transformers", "tokenizers", "sentencepiece",
                                     "pytorch-lightning", "numpy", "entmax")),
               "machine": machine(), "models": comet_models(inputs)}
        (HUB / "comet_known_answers.json").write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
    else:
        res = {"script": "scripts/neural_hub_known_answers.py metricx",
               "versions": versions(("torch", "transformers", "tokenizers", "sentencepiece", "datasets", "accelerate",
                                     "numpy", "safetensors")),
               "machine": machine(), **metricx_models(inputs, Path(a.metricx).resolve())}
        (HUB / "metricx_known_answers.json").write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
