"""Tolerances of the neural known answers, derived from where the differences come from.

The known answers are float32 forward passes of the reference implementations (unbabel-comet, metricx) on one
machine. A float32 forward pass is a chain of matrix products whose summation order is the math library's choice:
oneDNN/MKL/OpenBLAS pick their kernels by the CPU (AVX2 or AVX-512, the vendor, the cache sizes) and by the batch
shape, so two correct float32 evaluations of the same weights on the same inputs differ by their rounding errors,
and 1e-6 holds only on the machine that made the file (on an AVX2-only AMD EPYC, MetricX differed by 1.1e-5).

The size of those rounding errors is measured, not guessed: the same model with its weights cast to float64 gives
the exact value up to ~1e-12, so ``E = max |score_fp32 - score_fp64|`` over the known-answer inputs is this
evaluation's float32 rounding error. The reference's rounding error is of the same kind and size (the same network,
weights and inputs), so two float32 evaluations differ by at most about ``2 E``; the bound used is
``1e-6 + 3 E`` (a margin for the reference's error being somewhat larger than ours), and every test that uses it
also checks that it stays small (``E < 1e-3``), so a wrong model (errors of 0.03 and more) can never pass.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import json
from pathlib import Path

import numpy as np

FIX = Path(__file__).resolve().parent / "fixtures" / "neural"
FLOOR = 1e-6


def same_machine(known: dict) -> bool:
    """Whether this process computes float32 as the one that made the known answers ``known`` did: the same
    torch CPU kernels (``torch.backends.cpu.get_cpu_capability()``: AVX512, AVX2 ...), the same torch release,
    the same CPU vendor and model (the BLAS torch links picks its kernels by them too) and one intra-op thread,
    as recorded in the file's ``machine`` and ``versions``. There the acceptance's
    1e-6 is asserted as well (mtscore's forward passes are the references' operation for operation); elsewhere
    only the portable bound of :func:`tolerance` holds."""
    import torch
    rec = known.get("machine") or {}
    ref_torch = str(known.get("versions", {}).get("torch", "")).split("+")[0]
    return (bool(rec) and rec.get("cpu_capability") == torch.backends.cpu.get_cpu_capability()
            and rec.get("cpu") == cpu_name()  # the BLAS torch links picks its kernels by vendor and model too
            and rec.get("threads") == 1 == torch.get_num_threads() and ref_torch == torch.__version__.split("+")[0])


def cpu_name() -> str:
    """The CPU's vendor and model as Linux reports them (``AuthenticAMD AMD EPYC``); "" where unknown."""
    fields = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("vendor_id", "model name") and key.strip() not in fields:
                    fields[key.strip()] = value.strip()
                if not line.strip() and fields:
                    break
    except OSError:
        return ""
    return " ".join(fields[k] for k in ("vendor_id", "model name") if k in fields)


def float64_copy(m):
    """A loaded COMET or MetricX model with its weights cast to float64 (same inputs, same code path)."""
    if hasattr(m, "net"):
        return dataclasses.replace(m, net=copy.deepcopy(m.net).double())
    return dataclasses.replace(m, model=copy.deepcopy(m.model).double())


def tolerance(s32, s64) -> float:
    """``1e-6 + 3 E`` with ``E`` the largest float32 rounding error of these scores (see the module docstring)."""
    err = float(np.max(np.abs(np.asarray(s32, dtype=np.float64) - np.asarray(s64, dtype=np.float64)), initial=0.0))
    assert err < 1e-3, f"float32 and float64 evaluations differ by {err}: not rounding"
    return FLOOR + 3 * err


@functools.lru_cache(maxsize=None)
def comet_tolerance(kind: str, batch_size: int | None = None) -> float:
    """The bound for the COMET-family fixture ``kind`` (comet-da, comet-da-ln, cometkiwi, xcomet) on its
    known-answer triples; for XCOMET it also covers the error spans' confidences."""
    from mtscore.neural import comet_model as cm
    from mtscore.neural import runner
    ka = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
    expect = {"comet-da": ("regression_metric",), "comet-da-ln": ("regression_metric",),
              "cometkiwi": ("unified_metric",), "xcomet": ("xcomet_metric",)}[kind]
    use_ref = kind != "cometkiwi"
    items = [(t["src"], t["mt"], t["ref"] if use_ref else None) for t in ka["triples"]]
    m = cm.load(FIX / kind, "test", expect=expect)
    bs = batch_size or ka["batch_size"]
    s32, sp32 = runner.score(m, items, bs, "test", use_cache=False)
    s64, sp64 = runner.score(float64_copy(m), items, bs, "test", use_cache=False)
    c32, c64 = [], []
    for a, b in zip(sp32 or [], sp64 or []):
        if [(s["start"], s["end"]) for s in a] == [(s["start"], s["end"]) for s in b]:
            c32 += [s["confidence"] for s in a]
            c64 += [s["confidence"] for s in b]
    return tolerance(list(s32) + c32, list(s64) + c64)


def metricx_tolerance(**kw) -> float:
    """The bound for a MetricX metric built by ``get_metric("metricx", **kw)`` (``cache=False``) on the
    known-answer triples."""
    from mtscore import neural
    from mtscore.metrics.registry import get_metric
    from mtscore.neural import metricx_model as mx
    ka = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
    hyps, refs = [t["mt"] for t in ka["triples"]], [[t["ref"]] for t in ka["triples"]]
    kw = dict(kw, cache=False)  # a float64 score must never enter the score cache under the fp32 key
    s32 = get_metric("metricx", **kw).stats(hyps, refs).values[:, 0]
    real = mx.load
    neural._LOADED.clear()  # the kept float32 model must not serve the float64 run
    mx.load = lambda *a, **k: float64_copy(real(*a, **k))
    try:
        s64 = get_metric("metricx", **kw).stats(hyps, refs).values[:, 0]
    finally:
        mx.load = real
        neural._LOADED.clear()
    return tolerance(s32, s64)
