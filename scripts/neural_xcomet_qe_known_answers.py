"""XCOMET without a reference (its quality-estimation fallback), scored by unbabel-comet on the tiny XCOMET
checkpoint of tests/fixtures/neural/xcomet: the known answers of ``mtscore score -m xcomet:... `` without -r.

Run ONCE, in a separate environment that has unbabel-comet (it pins numpy < 2 and transformers < 5; its
torchmetrics needs setuptools < 81 for pkg_resources):

    python3 -m venv /tmp/venv-comet
    /tmp/venv-comet/bin/pip install "torch==2.13.0" "unbabel-comet==2.2.7" "numpy<2" "transformers==4.57.6" \
        "setuptools<81"
    /tmp/venv-comet/bin/python scripts/neural_xcomet_qe_known_answers.py

It reads the triples of tests/fixtures/neural/known_answers.json, drops the references, and writes
tests/fixtures/neural/xcomet_qe_known_answers.json: unbabel-comet's segment scores and error spans (its
``XCOMETMetric.predict_step`` with one input: ``min(score, 1) * 0.78 + mqm * 0.22``), the batch size, the
checkpoint's sha256 and the versions used.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from neural_known_answers import OUT, ROOT, score, versions  # noqa: E402


def main():
    import torch
    torch.set_num_threads(1)
    ka = json.loads((OUT / "known_answers.json").read_text(encoding="utf-8"))
    folder = OUT / "xcomet"
    data = [{"src": t["src"], "mt": t["mt"]} for t in ka["triples"]]
    res = score(folder, data, ka["batch_size"])
    out = {"script": "scripts/neural_xcomet_qe_known_answers.py", "versions": versions(),
           "batch_size": ka["batch_size"],
           "ckpt_sha256": hashlib.sha256((folder / "checkpoints" / "model.ckpt").read_bytes()).hexdigest(),
           "inputs": "the triples of known_answers.json without their references", **res}
    (ROOT / "tests" / "fixtures" / "neural" / "xcomet_qe_known_answers.json").write_text(
        json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(res["scores"][:3], file=sys.stderr)


if __name__ == "__main__":
    main()
