"""How far mtscore's neural metrics are from their references on the hub-layout checkpoints: the largest
|mtscore - reference| per model over the 200 inputs of tests/fixtures/neural/hub/ (the known answers of
scripts/neural_hub_known_answers.py), in the environment it runs in (docs/neural-metrics.md, "How it is
checked")::

    PYTHONPATH=src python scripts/neural_hub_agreement.py            # one thread, as the references ran
    PYTHONPATH=src python scripts/neural_hub_agreement.py --threads 2 --json out.json

Rows: COMET-DA, CometKiwi and XCOMET scores, XCOMET's span confidences (its spans must be the reference's in
text, start, end and severity), MetricX-23 (.bin) and MetricX-24 (safetensors fp32), reference-based and QE,
and the bf16 safetensors with ``precision=bf16`` (the reference computes a bf16 checkpoint in bf16) and with
``precision=fp32`` (not the reference's arithmetic: the difference is bf16's rounding). The MetricX checkpoints
are rebuilt from their seed (tests/neural_tiny_mt5.py) and their sha256 checked against the known answers.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HUB = ROOT / "tests" / "fixtures" / "neural" / "hub"
sys.path.insert(0, str(ROOT / "tests"))

EXPECT = {"comet-da": ("regression_metric",), "cometkiwi": ("unified_metric",), "xcomet": ("xcomet_metric",)}


def replay(folder: Path, rec: dict, seed: int) -> Path:
    """The MetricX checkpoint ``rec`` of the known answers, with the tensors save_pretrained wrote."""
    import neural_tiny_mt5
    import torch
    from safetensors.torch import save_file
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(rec["config"]))
    w = {k: torch.from_numpy(v).to(getattr(torch, rec["dtype"])) for k, v in neural_tiny_mt5.weights(seed).items()}
    for k in ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight"):
        w[k] = w["shared.weight"]
    f = folder / rec["file"]
    if f.suffix == ".safetensors":
        save_file({k: w[k].contiguous() for k in rec["keys"]}, str(f), metadata=rec["metadata"])
        if hashlib.sha256(f.read_bytes()).hexdigest() != rec["sha256"]:
            raise SystemExit(f"{f}: the rebuilt checkpoint is not the reference's (sha256 differs)")
    else:
        torch.save({k: w[k] for k in rec["keys"]}, str(f))
    return folder


def row(name: str, got, want) -> dict:
    d = np.abs(np.asarray(got, dtype=np.float64) - np.asarray(want, dtype=np.float64))
    return {"model": name, "n": int(d.size), "max": float(d.max(initial=0.0)), "median": float(np.median(d)) if d.size else 0.0,
            "differ": int((d > 0).sum()), "over_1e-6": int((d > 1e-6).sum())}


def comet_rows(triples) -> list[dict]:
    from mtscore.neural import comet_model as cm
    from mtscore.neural import runner
    ka = json.loads((HUB / "comet_known_answers.json").read_text(encoding="utf-8"))["models"]
    out = []
    for kind, expect in EXPECT.items():
        m = cm.load(HUB / kind, "agreement", expect=expect)
        items = [(t["src"], t["mt"], None if kind == "cometkiwi" else t["ref"]) for t in triples]
        scores, spans = runner.score(m, items, ka[kind]["batch_size"], "agreement", use_cache=False)
        out.append(row(kind, scores, ka[kind]["scores"]))
        if kind == "xcomet":
            def shape(sp):
                return [[(s["text"], s["start"], s["end"], s["severity"]) for s in sent] for sent in sp]
            if shape(spans) != shape(ka[kind]["error_spans"]):
                raise SystemExit("xcomet: the error spans differ from the reference's (text, start, end, severity)")
            out.append(row("xcomet span confidences", [s["confidence"] for sent in spans for s in sent],
                           [s["confidence"] for sent in ka[kind]["error_spans"] for s in sent]))
    return out


def metricx_rows(triples) -> list[dict]:
    from mtscore.neural import metricx_model as mx
    from mtscore.neural import runner
    ka = json.loads((HUB / "metricx_known_answers.json").read_text(encoding="utf-8"))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {name: replay(Path(tmp) / name, rec, ka["seed"]) for name, rec in ka["checkpoints"].items()}
        runs = [(run, "bf16" if want["checkpoint"].startswith("bf16") else "fp32") for run, want in ka["runs"].items()]
        runs += [(run, "fp32") for run, want in ka["runs"].items() if want["checkpoint"].startswith("bf16")]
        for run, precision in runs:
            want = ka["runs"][run]
            m = mx.load(dirs[want["checkpoint"]], "metricx", tokenizer=str(HUB / "mt5"), precision=precision)
            texts = [mx.make_input(want["version"], want["qe"], t["src"], t["mt"], t["ref"]) for t in triples]
            scores, _ = runner.score(m, [(x,) for x in texts], 1, "metricx", use_cache=False,
                                     max_len=want["max_input_length"])
            out.append(row(f"{run} ({want['checkpoint']}, precision={precision})", scores, want["scores"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (the references ran with 1)")
    ap.add_argument("--json", help="also write the rows and the environment to this file")
    a = ap.parse_args()
    import torch
    import transformers
    torch.set_num_threads(a.threads)
    triples = json.loads((HUB / "inputs.json").read_text(encoding="utf-8"))["triples"]
    env = {"torch": torch.__version__, "transformers": transformers.__version__,
           "cpu_capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads()}
    rows = comet_rows(triples) + metricx_rows(triples)
    print(" ".join(f"{k}={v}" for k, v in env.items()))
    print(f"{'model':<62} {'n':>4} {'max |diff|':>11} {'median':>9} {'differ':>6} {'>1e-6':>5}")
    for r in rows:
        print(f"{r['model']:<62} {r['n']:>4} {r['max']:>11.3g} {r['median']:>9.2g} {r['differ']:>6} {r['over_1e-6']:>5}")
    if a.json:
        Path(a.json).write_text(json.dumps({"env": env, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
