"""Scale benchmark: 10 million synthetic segments scored with corpus BLEU in bounded memory,
throughput per core, and scaling from 1 to 2 worker processes (and a 2-worker Dask LocalCluster).

    python benchmarks/bench_scale.py [--segments 10000000] [--chunk 20000] [--pool 200000]

The segments are generated on the fly (nothing is stored): a pool of ``--pool`` distinct synthetic
segment pairs (benchmarks/synth.py) is drawn once, and every partition takes ``--chunk`` consecutive
pairs from the pool at a partition-specific offset, so the 10M segments are processed by the same code
path as files (tokenize, encode, count), while generating them costs almost nothing. Peak RSS is read
from the kernel (ru_maxrss of this process and of its worker processes) and every run is a fresh
process, so one run's memory does not hide another's.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))


def partitions(n_segments: int, chunk: int, pool: int, seed: int = 0):
    from synth import make_corpus
    hyps, refs = make_corpus(pool, 1, seed)
    ref1 = [r[0] for r in refs]
    done, k = 0, 0
    while done < n_segments:
        n = min(chunk, n_segments - done)
        start = (k * 7919) % pool
        idx = [(start + i) % pool for i in range(n)]
        yield [[hyps[i] for i in idx]], [[ref1[i]] for i in idx]
        done += n
        k += 1


def _tree_rss_mb(root: int) -> float:
    """Resident memory of ``root`` and all its descendants (forkserver workers included), from /proc."""
    parents = {}
    rss = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            parents[int(d)] = int(fields[1])
            rss[int(d)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    keep = {root}
    changed = True
    while changed:
        changed = False
        for pid, ppid in parents.items():
            if ppid in keep and pid not in keep:
                keep.add(pid)
                changed = True
    return sum(rss.get(p, 0) for p in keep) / 2 ** 20


def _sample_peak(stop, out):
    me = os.getpid()
    while not stop.is_set():
        out[0] = max(out[0], _tree_rss_mb(me))
        stop.wait(0.5)


def run_one(mode: str, n_segments: int, chunk: int, pool: int) -> dict:
    from mtscore.backends.local import CorpusJob, run_job
    from mtscore.metrics.bleu import BLEU
    job = CorpusJob([BLEU()], ["synthetic"], keep_segments=False)
    t0 = time.perf_counter()
    parts = partitions(n_segments, chunk, pool)
    first = next(parts)  # the pool is generated here; not part of the scoring time
    import itertools
    gen_s = time.perf_counter() - t0
    import threading
    stop, peak = threading.Event(), [0.0]
    sampler = threading.Thread(target=_sample_peak, args=(stop, peak), daemon=True)
    sampler.start()
    t1 = time.perf_counter()
    if mode.startswith("dask"):
        from mtscore.backends.dask_backend import MemoryShard, connect, run_job_dask
        client = connect(None, n_workers=int(mode.split("-")[1]))
        shards = (MemoryShard(tuple(map(tuple, h)), tuple(map(tuple, r)), i)
                  for i, (h, r) in enumerate(itertools.chain([first], parts)))
        res = run_job_dask(job, list(shards), client=client)
        client.close()
    else:
        jobs = int(mode.split("-")[1])
        res = run_job(job, itertools.chain([first], parts), jobs=jobs)
    wall = time.perf_counter() - t1
    stop.set()
    sampler.join()
    r = next(iter(res.values()))
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"mode": mode, "segments": r.n_segments, "bleu": r.result().score, "wall_s": wall, "pool_gen_s": gen_s,
            "peak_rss_mb_main": self_kb / 1024, "peak_rss_mb_worker": child_kb / 1024,
            "peak_rss_mb_tree": peak[0],
            "seg_per_s": r.n_segments / wall}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=10_000_000)
    ap.add_argument("--chunk", type=int, default=20_000)
    ap.add_argument("--pool", type=int, default=200_000)
    ap.add_argument("--modes", nargs="+", default=["local-1", "local-2", "dask-2"])
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.segments, args.chunk, args.pool)))
        return
    rows = []
    for mode in args.modes:
        out = subprocess.run([sys.executable, __file__, "--one", mode, "--segments", str(args.segments),
                              "--chunk", str(args.chunk), "--pool", str(args.pool)], capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            raise SystemExit(out.returncode)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(json.dumps(row), flush=True)
    base = rows[0]["seg_per_s"]
    print(f"\n{args.segments:,} segments, corpus BLEU (13a, 1 reference), chunk {args.chunk:,}, cores {os.cpu_count()}")
    print("| mode | wall (s) | segments/s | per worker | speed-up | peak RSS main (MB) | peak RSS all processes (MB) | BLEU |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        workers = int(r["mode"].split("-")[1])
        print(f"| {r['mode']} | {r['wall_s']:.1f} | {r['seg_per_s']:,.0f} | {r['seg_per_s'] / workers:,.0f} | "
              f"{r['seg_per_s'] / base:.2f}x | {r['peak_rss_mb_main']:.0f} | {r['peak_rss_mb_tree']:.0f} | {r['bleu']:.4f} |")
    if len({round(r["bleu"], 12) for r in rows}) != 1:
        raise SystemExit("scores differ between modes")


if __name__ == "__main__":
    main()
