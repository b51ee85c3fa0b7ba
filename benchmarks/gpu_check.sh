#!/usr/bin/env bash
# One short GPU check of mtscore's neural metrics, for a machine with a CUDA GPU and the neural extra:
#   bash benchmarks/gpu_check.sh [N_TRIPLES=512] [BATCH=32]
# It builds the random wmt22-comet-da-sized checkpoint of bench_neural_cpu.py (2.2 GB, in a temporary folder), then
# scores N triples of the built-in sample on the first GPU: fp32, bf16 (seconds, segments/s, max |bf16 - fp32|),
# fp32 on all visible GPUs (gpus=N: one replica per GPU; max |diff| must be 0), and a rerun served from the score
# cache (seconds, model calls = 0). Prints one table; nothing is written outside $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-512}"
BATCH="${2:-32}"
PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3
PYTHONPATH=src "$PY" - "$N" "$BATCH" <<'EOF'
import os, sys, tempfile, time
from pathlib import Path
import numpy as np
import torch
sys.path.insert(0, "benchmarks")
import bench_neural_cpu as B
from mtscore.neural import comet_model as cm, runner
from mtscore.neural.cache import ScoreCache

n, bs = int(sys.argv[1]), int(sys.argv[2])
if not torch.cuda.is_available():
    raise SystemExit("gpu_check: torch sees no GPU (torch %s)" % torch.__version__)
print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; {n} triples, batch_size {bs}")
with tempfile.TemporaryDirectory(prefix="mtscore-gpu-check-") as tmp:
    folder = Path(tmp) / "ckpt"
    folder.mkdir()
    B.build_checkpoint(folder)
    data = B.inputs(10 ** 6, "distinct")
    data = (data * (n // max(1, len(data)) + 1))[:n]
    # distinct triples: suffix a number so that deduplication does not shrink the work
    items = [(d["src"], f"{d['mt']} {i}", d["ref"]) for i, d in enumerate(data)]
    rows, ref = [], None
    for prec in ("fp32", "bf16"):
        m = cm.load(folder, "comet", precision=prec, device="cuda", expect=("regression_metric",))
        runner.score(m, items[:bs], bs, "comet", use_cache=False)  # warm-up
        torch.cuda.synchronize()
        t = time.perf_counter()
        s, _ = runner.score(m, items, bs, "comet", use_cache=False)
        torch.cuda.synchronize()
        dt = time.perf_counter() - t
        ref = s if ref is None else ref
        rows.append((prec, dt, n / dt, float(np.abs(s - ref).max()), m.calls))
        del m
        torch.cuda.empty_cache()
    ngpu = torch.cuda.device_count()
    if ngpu > 1:
        devices = [f"cuda:{i}" for i in range(ngpu)]
        m = cm.load(folder, "comet", precision="fp32", device=devices[0], expect=("regression_metric",))
        reps = runner.replicas(m, devices)
        runner.score(m, items[:bs * ngpu], bs, "comet", use_cache=False, models=reps)  # warm-up
        torch.cuda.synchronize()
        t = time.perf_counter()
        s, _ = runner.score(m, items, bs, "comet", use_cache=False, models=reps)
        torch.cuda.synchronize()
        dt = time.perf_counter() - t
        rows.append((f"fp32 {ngpu} GPUs", dt, n / dt, float(np.abs(s - ref).max()), sum(r.calls for r in reps)))
        del m, reps
        torch.cuda.empty_cache()
    cache = ScoreCache(Path(tmp) / "cache.sqlite")
    m = cm.load(folder, "comet", precision="fp32", device="cuda", expect=("regression_metric",))
    runner.score(m, items, bs, "comet", use_cache=True, score_cache=cache)
    calls = m.calls
    t = time.perf_counter()
    s, _ = runner.score(m, items, bs, "comet", use_cache=True, score_cache=cache)
    dt = time.perf_counter() - t
    rows.append(("fp32 cache hit", dt, n / dt, float(np.abs(s - ref).max()), m.calls - calls))
print(f"{'run':16} {'seconds':>8} {'segments/s':>11} {'max |diff| vs fp32':>19} {'model calls':>11}")
for r in rows:
    print(f"{r[0]:16} {r[1]:8.2f} {r[2]:11.1f} {r[3]:19.2e} {r[4]:11d}")
EOF
