"""COMET-DA throughput on CPU: mtscore's own inference vs unbabel-comet's ``predict``.

    python benchmarks/bench_neural_cpu.py --comet-python /work/venv-comet/bin/python [--n 32] [--batch-size 16] [--reps 2]

Both tools score the same checkpoint: a wmt22-comet-da-sized RegressionMetric with random weights (XLM-R large:
24 layers, hidden 1024, 16 heads, FFN 4096, 250002-row embedding; estimator 6144 -> 3072 -> 1024 -> 1; sparsemax
layer mix; 2.2 GB), built here in a temporary folder, whose tokenizer is the tiny SentencePiece model of the tests
(tests/fixtures/neural/comet-da/encoder; no download: the real XLM-R tokenizer is not on this machine, so
sentences are cut into more, shorter pieces than XLM-R would; both tools get the same token ids). Inputs: the
first segments of the built-in sample with at most 80 characters (src = uedin-nmt's line, ref = the reference),
in two layouts:

* ``distinct``: one system, N triples (every sentence different);
* ``shared``:  two systems (online-B, LIUM-NMT) over N/2 segments: each source and reference occurs twice, as
  when several systems are scored on one test set.

Each tool runs in its own process (unbabel-comet in its own environment: it pins numpy < 2); runs alternate
(comet, mtscore, comet, mtscore ...); the time is that of scoring (model already loaded), the median of the runs;
load times are printed beside. Same batch size, same torch threads (torch's default), fp32, mtscore's score cache
off (MTSCORE_NO_CACHE=1), unbabel-comet with ``gpus=0, progress_bar=False, num_workers=0``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "mtscore" / "data" / "sample"

COMET_RUNNER = r'''
import json, os, sys, time, warnings
warnings.filterwarnings("ignore")
import logging; logging.disable(logging.WARNING)
folder, data_file, bs = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.chdir(folder)
t0 = time.perf_counter()
from comet import load_from_checkpoint
model = load_from_checkpoint(os.path.join(folder, "checkpoints", "model.ckpt"))
t1 = time.perf_counter()
data = json.load(open(data_file))
out = model.predict(data, batch_size=bs, gpus=0, progress_bar=False, num_workers=0)
t2 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "score": t2 - t1, "scores": [float(x) for x in out.scores]}))
'''

MTSCORE_RUNNER = r'''
import json, os, sys, time
folder, data_file, bs = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
from pathlib import Path
from mtscore.neural import comet_model as cm, runner
m = cm.load(Path(folder), "comet", expect=("regression_metric",))
t1 = time.perf_counter()
data = json.load(open(data_file))
scores, _ = runner.score(m, [(d["src"], d["mt"], d["ref"]) for d in data], bs, "comet", use_cache=False)
t2 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "score": t2 - t1, "scores": scores.tolist()}))
'''


def build_checkpoint(folder: Path) -> None:
    import torch
    import yaml
    from transformers import XLMRobertaConfig, XLMRobertaModel

    from mtscore.neural import comet_model as cm

    enc = folder / "encoder"
    shutil.copytree(ROOT / "tests" / "fixtures" / "neural" / "comet-da" / "encoder", enc)
    cfg = XLMRobertaConfig(vocab_size=250002, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                           intermediate_size=4096, max_position_embeddings=514, pad_token_id=1, bos_token_id=0,
                           eos_token_id=2, type_vocab_size=1, layer_norm_eps=1e-5)
    cfg.save_pretrained(str(enc))
    hp = {"class_identifier": "regression_metric", "encoder_model": "XLM-RoBERTa", "pretrained_model": "encoder",
          "pool": "avg", "layer": "mix", "layer_transformation": "sparsemax", "layer_norm": False,
          "hidden_sizes": [3072, 1024], "activations": "Tanh", "final_activation": None, "dropout": 0.1,
          "load_pretrained_weights": False, "keep_embeddings_frozen": True, "nr_frozen_epochs": 0.3,
          "optimizer": "AdamW", "warmup_steps": 0, "encoder_learning_rate": 1.0e-06, "learning_rate": 1.5e-05,
          "layerwise_decay": 0.95, "loss": "mse", "batch_size": 16, "train_data": [], "validation_data": []}
    (folder / "hparams.yaml").write_text(yaml.safe_dump(hp))
    torch.manual_seed(0)
    net = cm.CometNet(hp, XLMRobertaModel(cfg, add_pooling_layer=False), "regression_metric")
    with torch.no_grad():
        for p in net.layerwise_attention.scalar_parameters:
            p.normal_()
    (folder / "checkpoints").mkdir()
    torch.save({"epoch": 0, "global_step": 0, "pytorch-lightning_version": "2.6.6", "state_dict": net.state_dict(),
                "hyper_parameters": hp}, str(folder / "checkpoints" / "model.ckpt"))  # what unbabel-comet's loader needs


def inputs(n: int, layout: str) -> list[dict]:
    read = lambda f: (SAMPLE / f).read_text(encoding="utf-8").splitlines()  # noqa: E731
    ref, src = read("newstest2017.en-de.ref.de"), read("uedin-nmt.de")
    a, b = read("online-B.de"), read("LIUM-NMT.de")
    idx = [i for i in range(len(ref)) if max(len(ref[i]), len(src[i]), len(a[i]), len(b[i])) <= 80]
    if layout == "distinct":
        return [{"src": src[i], "mt": a[i], "ref": ref[i]} for i in idx[:n]]
    half = idx[:n // 2]
    return [{"src": src[i], "mt": a[i], "ref": ref[i]} for i in half] + \
           [{"src": src[i], "mt": b[i], "ref": ref[i]} for i in half]


def run(python: str, code: str, folder: Path, data_file: Path, bs: int, env: dict) -> dict:
    r = subprocess.run([python, "-c", code, str(folder), str(data_file), str(bs)], capture_output=True, text=True,
                       env=env, timeout=3600)
    if r.returncode != 0:
        raise SystemExit(f"{python}: {r.stderr.strip().splitlines()[-3:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--comet-python", required=True, help="python of an environment with unbabel-comet")
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--layouts", default="distinct,shared")
    a = ap.parse_args()
    env = {**os.environ, "MTSCORE_NO_CACHE": "1", "PYTHONPATH": str(ROOT / "src"), "TOKENIZERS_PARALLELISM": "false"}
    with tempfile.TemporaryDirectory(prefix="mtscore-bench-neural-") as tmp:
        folder = Path(tmp) / "comet-large-random"
        folder.mkdir()
        t = time.perf_counter()
        build_checkpoint(folder)
        print(f"checkpoint built in {time.perf_counter() - t:.0f} s: "
              f"{(folder / 'checkpoints' / 'model.ckpt').stat().st_size / 2**30:.2f} GiB", flush=True)
        for layout in a.layouts.split(","):
            data = inputs(a.n, layout)
            df = Path(tmp) / f"{layout}.json"
            df.write_text(json.dumps(data))
            res = {"unbabel-comet": [], "mtscore": []}
            for _ in range(a.reps):
                res["unbabel-comet"].append(run(a.comet_python, COMET_RUNNER, folder, df, a.batch_size, env))
                res["mtscore"].append(run(sys.executable, MTSCORE_RUNNER, folder, df, a.batch_size, env))
            diff = max(abs(x - y) for x, y in zip(res["unbabel-comet"][0]["scores"], res["mtscore"][0]["scores"]))
            print(f"\nlayout {layout}: {len(data)} triples, batch_size {a.batch_size}, {a.reps} runs each "
                  f"(alternating); max |score difference| {diff:.2e}")
            print(f"{'tool':15} {'score s (median)':>17} {'segments/s':>11} {'load s':>7}  runs")
            med = {}
            for tool, rs in res.items():
                med[tool] = statistics.median(r["score"] for r in rs)
                print(f"{tool:15} {med[tool]:17.2f} {len(data) / med[tool]:11.2f} "
                      f"{statistics.median(r['load'] for r in rs):7.1f}  {[round(r['score'], 2) for r in rs]}")
            print(f"mtscore / unbabel-comet throughput: {med['unbabel-comet'] / med['mtscore']:.2f}x", flush=True)
        print(f"\nload average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
