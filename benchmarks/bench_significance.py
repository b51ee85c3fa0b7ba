"""Significance benchmark: mtscore vs sacreBLEU's PairedTest, side by side.

100k synthetic segments (benchmarks/synth.py), 2 systems, BLEU (13a). Every measurement runs in
its own subprocess, which reports wall time and peak RSS (ru_maxrss), so memory peaks do not
leak between measurements. Reported:

* test only: mtscore's test given the statistics (computed once by a "prep" subprocess and loaded
  from a cache file, so the measured peak RSS is that of the test plus the loaded statistics); for
  sacreBLEU (whose API starts from texts) its PairedTest end-to-end time minus its statistics
  extraction for the two systems (measured separately the same way); its peak RSS is end-to-end;
* statistics extraction times of both tools are reported beside;
* an all-pairs bootstrap matrix, 20 systems x 1000 segments x 1000 resamples (mtscore only).

Usage: PYTHONPATH=src python benchmarks/bench_significance.py [--segments 100000] [--repeat 3]
       [--peer-repeat 1] [--skip-peer-ar]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {here!r})
from synth import make_corpus, perturb
mode, N, n, cache = {mode!r}, {N}, {n}, {cache!r}
if mode in ("mt-bs", "mt-bs-compat", "mt-ar"):
    hyps = refs = hyps2 = None  # statistics come from the cache written by "mt-prep"
elif mode != "mt-matrix":
    hyps, refs = make_corpus(N, 1, 0)
    hyps2 = perturb(hyps, 0.1, 1)
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = {{}}
if mode == "mt-prep":
    import numpy as np
    from mtscore.metrics.registry import get_metric
    m = get_metric("bleu")
    t0 = time.perf_counter()
    sa, sb = m.stats(hyps, refs), m.stats(hyps2, refs)
    t1 = time.perf_counter()
    np.savez(cache, a=sa.values, b=sb.values, sig=sa.signature)
    out = dict(total_s=t1 - t0)
elif mode in ("mt-bs", "mt-bs-compat", "mt-ar"):
    import numpy as np
    from mtscore.metrics.base import Stats
    from mtscore.metrics.registry import get_metric
    from mtscore.significance import paired_bootstrap, approximate_randomization
    m = get_metric("bleu")
    z = np.load(cache)
    sa = Stats("bleu", m.columns, z["a"], 1, str(z["sig"]))
    sb = Stats("bleu", m.columns, z["b"], 1, str(z["sig"]))
    t0 = t1 = time.perf_counter()
    if mode == "mt-bs":
        r = paired_bootstrap(m, sa, sb, n=n, seed=12345)
    elif mode == "mt-bs-compat":
        r = paired_bootstrap(m, sa, sb, n=n, seed=12345, sacrebleu_compat=True)
    else:
        r = approximate_randomization(m, sa, sb, n=n, seed=12345)
    t2 = time.perf_counter()
    out = dict(test_s=t2 - t1, total_s=t2 - t0, p=r.p_value)
elif mode.startswith("sb-"):
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest
    streams = [[r[0] for r in refs]]
    if mode == "sb-stats":
        m = BLEU()
        t0 = time.perf_counter()
        m._extract_corpus_statistics(hyps, streams)
        m._extract_corpus_statistics(hyps2, streams)
        t2 = time.perf_counter()
        out = dict(total_s=t2 - t0)
    else:
        t0 = time.perf_counter()
        pt = PairedTest([("a", hyps), ("b", hyps2)], {{"BLEU": BLEU()}}, streams,
                        test_type="bs" if mode == "sb-bs" else "ar", n_samples=n)
        _, scores = pt()
        t2 = time.perf_counter()
        out = dict(total_s=t2 - t0, p=scores["BLEU"][1].p_value)
elif mode == "mt-matrix":
    import numpy as np
    from mtscore.metrics.registry import get_metric
    from mtscore.significance import compare_stats
    m = get_metric("bleu")
    h, r = make_corpus(1000, 1, 5)
    systems = {{f"sys{{k}}": perturb(h, 0.02 * k, k) for k in range(20)}}
    stats = {{k: m.stats(v, r) for k, v in systems.items()}}
    t0 = time.perf_counter()
    res = compare_stats(m, stats, test="bootstrap", n=n, seed=12345, all_pairs=True)
    t2 = time.perf_counter()
    out = dict(total_s=t2 - t0, test_s=t2 - t0, pairs=len(res.results))
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["corpus_rss_mb"] = base_rss / 1024
print("RESULT " + json.dumps(out))
"""


CACHE = os.path.join(tempfile.gettempdir(), f"mtscore_bench_sig_{os.getpid()}.npz")


def run(mode: str, N: int, n: int, timeout: int = 3600) -> dict:
    code = CHILD.format(here=HERE, mode=mode, N=N, n=n, cache=CACHE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(HERE, "..", "src"), env.get("PYTHONPATH", "")])
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": f"rc={proc.returncode} after {time.perf_counter() - t:.0f}s: {proc.stderr.strip()[-300:]}"}


def median_of(mode, N, n, k):
    runs = [run(mode, N, n) for _ in range(k)]
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0]
    out = {key: statistics.median(r[key] for r in ok) for key in ok[0] if isinstance(ok[0][key], (int, float))}
    out["runs"] = len(ok)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peer-repeat", type=int, default=1)
    ap.add_argument("--skip-peer-ar", action="store_true")
    a = ap.parse_args()
    N = a.segments
    res = {}
    res["mt-prep"] = run("mt-prep", N, 0)
    res["mt-bs"] = median_of("mt-bs", N, 1000, a.repeat)
    res["mt-bs-compat"] = median_of("mt-bs-compat", N, 1000, a.repeat)
    res["mt-ar"] = median_of("mt-ar", N, 10000, a.repeat)
    res["mt-matrix"] = median_of("mt-matrix", 1000, 1000, a.repeat)
    res["sb-stats"] = median_of("sb-stats", N, 0, a.peer_repeat)
    res["sb-bs"] = median_of("sb-bs", N, 1000, a.peer_repeat)
    if not a.skip_peer_ar:
        res["sb-ar"] = median_of("sb-ar", N, 10000, a.peer_repeat)
    print(json.dumps(res, indent=1))
    if os.path.exists(CACHE):
        os.remove(CACHE)
    sbs = res["sb-stats"].get("total_s", float("nan"))
    lines = [f"segments={N}; mtscore BLEU statistics of both systems: {res['mt-prep'].get('total_s', float('nan')):.1f}s; "
             f"sacreBLEU's: {sbs:.1f}s"]
    for ours, peer in (("mt-bs", "sb-bs"), ("mt-bs-compat", "sb-bs"), ("mt-ar", "sb-ar")):
        o, p = res.get(ours, {}), res.get(peer, {})
        if "total_s" not in o or "total_s" not in p:
            lines.append(f"{ours} vs {peer}: missing ({o.get('error') or p.get('error')})")
            continue
        lines.append(
            f"{ours}: test {o['test_s']:.3f}s (peak {o['rss_mb']:.0f} MB)"
            f" | {peer}: total {p['total_s']:.2f}s, test-only ~{p['total_s'] - sbs:.2f}s, peak {p['rss_mb']:.0f} MB"
            f" | speed-up (test only) {(p['total_s'] - sbs) / o['test_s']:.1f}x,"
            f" memory {100 * o['rss_mb'] / p['rss_mb']:.1f}% of peer | p ours {o['p']:.4f} peer {p['p']:.4f}")
    mm = res["mt-matrix"]
    lines.append(f"all-pairs bootstrap 20 systems x 1000 segments x 1000 resamples: {mm.get('test_s', float('nan')):.2f}s "
                 f"({mm.get('pairs')} pairs)")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
