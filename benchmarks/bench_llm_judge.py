"""Throughput and memory of the LLM judges' scheduler against a scripted server that answers after a fixed delay.

    python benchmarks/bench_llm_judge.py                          # 1,000 GEMBA-ESA segments, 200 ms, concurrency 32
    python benchmarks/bench_llm_judge.py --memory 1000,10000      # peak RSS of the client at 1,000 and 10,000 segments

The server (tests/llm/llm_scripted_server.py, asyncio on 127.0.0.1) runs in its own process, so the client's
numbers are the client's. Each segment costs GEMBA-ESA's two requests (error spans, then the score); the ideal
time is requests x delay / concurrency (2,000 x 0.2 s / 32 = 12.5 s); GEMBA's serial loop would need
requests x delay = 400 s. The client is ``gemba-esa`` through the Python API with the score cache in a fresh
temporary folder (every answer is written to it, as in a real run); a second run on the same cache is timed too
(it must send zero requests).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SERVER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from llm_scripted_server import ScriptedServer, esa_answer
with ScriptedServer(esa_answer, delay=float(sys.argv[2]), keep_log=False) as srv:
    print(srv.port, flush=True)
    sys.stdin.read()  # until the benchmark closes our stdin
    print(srv.count, flush=True)
"""

CLIENT = r"""
import json, os, resource, sys, time, warnings
n, url, conc, src_path = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
from mtscore.metrics.registry import get_metric
hyps = [f"Das ist der Satz Nummer {i}, eine Übersetzung mit {i % 17} Fehlern und etwas mehr Text." for i in range(n)]
refs = [[h] for h in hyps]
out = {}
for run in ("first", "cached"):
    m = get_metric("gemba-esa", model="bench-judge", endpoint=url, sources=src_path, concurrency=conc)
    m.check_languages("en-de")
    t = time.perf_counter()
    st = m.stats(hyps, refs)
    out[run] = {"seconds": time.perf_counter() - t, "usage": dict(m.usage),
                "scored": int(st.values[:, 1].sum())}
ru = resource.getrusage(resource.RUSAGE_SELF)
out["peak_rss_mb"] = ru.ru_maxrss / 1024
out["client_cpu_s"] = ru.ru_utime + ru.ru_stime
print(json.dumps(out))
"""


def run_once(n: int, delay: float, conc: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    srv = subprocess.Popen([sys.executable, "-c", SERVER, str(ROOT / "tests" / "llm"), str(delay)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    port = int(srv.stdout.readline())
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src.en"
        src.write_text("".join(f"This is sentence number {i}, a source with {i % 17} words and more text.\n"
                               for i in range(n)), encoding="utf-8")
        env_c = {**env, "MTSCORE_CACHE_DIR": str(Path(tmp) / "cache")}
        p = subprocess.run([sys.executable, "-c", CLIENT, str(n), f"http://127.0.0.1:{port}/v1", str(conc), str(src)],
                           capture_output=True, text=True, env=env_c)
    srv.stdin.close()
    served = int(srv.stdout.readline())
    srv.wait(30)
    if p.returncode:
        raise SystemExit(p.stderr)
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["served"] = served
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--segments", type=int, default=1000)
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--memory", default="", help="comma-separated segment counts: peak client RSS of each")
    ap.add_argument("--memory-delay", type=float, default=0.01)
    args = ap.parse_args()
    if not args.memory:
        r = run_once(args.segments, args.delay, args.concurrency)
        ideal = 2 * args.segments * args.delay / args.concurrency
        first = r["first"]
        print(f"| {args.segments} GEMBA-ESA segments ({2 * args.segments} requests), {args.delay * 1000:g} ms per "
              f"answer, concurrency={args.concurrency} | {first['seconds']:.2f} s | ideal {ideal:.2f} s | "
              f"{first['seconds'] / ideal if ideal else float('nan'):.3f}x ideal | server answered {r['served']} | "
              f"rerun from the cache {r['cached']['seconds']:.2f} s, {r['cached']['usage']['requests']} requests | "
              f"peak RSS {r['peak_rss_mb']:.0f} MB | client CPU {r['client_cpu_s']:.2f} s (both runs) |")
        print(json.dumps(r))
        return
    for n in [int(x) for x in args.memory.split(",")]:
        r = run_once(n, args.memory_delay, args.concurrency)
        print(f"| {n} segments ({2 * n} requests), {args.memory_delay * 1000:g} ms, concurrency={args.concurrency} | "
              f"{r['first']['seconds']:.2f} s | peak client RSS {r['peak_rss_mb']:.1f} MB | served {r['served']} |")


if __name__ == "__main__":
    main()
