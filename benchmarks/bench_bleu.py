"""BLEU: mtscore (compiled fast path) vs sacreBLEU 2.6, side by side, whole process.

Every measurement is one fresh ``python`` subprocess that imports the tool, reads the files (hypothesis
+ reference files, one segment per line) and scores them; the parent times the whole process
(interpreter start, imports, reading, scoring) and the child reports its peak RSS
(``VmHWM`` of ``/proc/self/status``), its CPU time and its internal phases. Runs alternate
sacreBLEU / mtscore so that load on a shared machine hits both alike; the table reports medians and
the ratio sacreBLEU / mtscore. Scores must be identical (|diff| < 1e-9, every sentence score too).

Cases: corpus BLEU (13a) on N segments with 1 and 4 references, sentence BLEU of all N segments
(sacreBLEU: a loop over ``BLEU(effective_order=True).sentence_score``; mtscore: ``stats`` once and the
vectorized ``sentence_scores``), and corpus BLEU on ``--big`` segments (sacreBLEU there is run once or
extrapolated linearly from N, see ``--big-sacrebleu``).

mtscore runs with its defaults (the compiled C kernel, one thread per core: ``MTSCORE_THREADS=auto``)
and single-threaded (``MTSCORE_THREADS=1``), so the table shows both; sacreBLEU is single-threaded.
The reference path (``MTSCORE_KERNELS=reference``: what runs where the extension could not be compiled;
plain Python/NumPy) is timed once on the sentence case.

Usage: ``python benchmarks/bench_bleu.py --n 100000 --runs 3 --big 1000000 [--markdown out.md]``
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

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from synth import write_corpus  # noqa: E402

WORKER = r'''
import json, os, resource, sys, time
t0 = time.perf_counter()
tool, mode, hyp_path, out_npy = sys.argv[1:5]
ref_paths = sys.argv[5:]
if tool == "sacrebleu":
    from sacrebleu.metrics import BLEU
    t1 = time.perf_counter()
    def read(p):
        with open(p, encoding="utf-8") as fh:
            return fh.read().split("\n")[:-1]
    hyps = read(hyp_path)
    streams = [read(p) for p in ref_paths]
    t2 = time.perf_counter()
    if mode == "corpus":
        res = BLEU().corpus_score(hyps, streams)
        score = res.score
    else:
        bleu = BLEU(effective_order=True)
        vals = [bleu.sentence_score(h, list(rs)).score for h, rs in zip(hyps, zip(*streams))]
        score = sum(vals)
else:
    import numpy as np
    from mtscore.io import read_lines
    from mtscore.metrics.bleu import BLEU
    t1 = time.perf_counter()
    hyps = read_lines(hyp_path)
    refs = [list(x) for x in zip(*[read_lines(p) for p in ref_paths])]
    t2 = time.perf_counter()
    bleu = BLEU()
    stats = bleu.stats(hyps, refs)
    if mode == "corpus":
        score = bleu.corpus_from_stats(stats).score
    else:
        vals = bleu.sentence_scores(stats)
        score = float(vals.sum())
t3 = time.perf_counter()
if mode == "sentence":
    import numpy as np
    np.save(out_npy, np.asarray(vals, dtype=np.float64))
ru = resource.getrusage(resource.RUSAGE_SELF)
# peak RSS of this process image: VmHWM (ru_maxrss would include the forking parent's peak)
with open("/proc/self/status") as fh:
    hwm = [int(l.split()[1]) for l in fh if l.startswith("VmHWM:")]
print(json.dumps({"score": score, "import_s": t1 - t0, "read_s": t2 - t1, "score_s": t3 - t2,
                  "cpu_s": ru.ru_utime + ru.ru_stime, "maxrss_mb": (hwm[0] if hwm else ru.ru_maxrss) / 1024}))
'''


def run_once(tool, mode, hyp, refs, env_extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "src") + os.pathsep + env.get("PYTHONPATH", "")
    if env_extra:
        env.update(env_extra)
    with tempfile.TemporaryDirectory() as td:
        out_npy = os.path.join(td, "scores.npy")
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", WORKER, tool, mode, hyp, out_npy, *refs],
                              capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            raise RuntimeError(f"{tool} {mode} failed:\n{proc.stderr[-3000:]}")
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        res["wall_s"] = wall
        res["values"] = np.load(out_npy) if mode == "sentence" else None
    return res


VARIANTS = {"mtscore": {"MTSCORE_THREADS": "auto"}, "mtscore-1t": {"MTSCORE_THREADS": "1"}}


def case(name, mode, hyp, refs, runs, log, sacrebleu=True, peer_runs=None):
    rows = {"sacrebleu": [], "mtscore": [], "mtscore-1t": []}
    peer_runs = runs if peer_runs is None else peer_runs
    for r in range(runs):
        for tool in (("sacrebleu",) if sacrebleu and r < peer_runs else ()) + ("mtscore", "mtscore-1t"):
            res = run_once("sacrebleu" if tool == "sacrebleu" else "mtscore", mode, hyp, refs, VARIANTS.get(tool))
            rows[tool].append(res)
            log(f"  {name} run {r + 1} {tool}: wall {res['wall_s']:.2f}s cpu {res['cpu_s']:.2f}s "
                f"(import {res['import_s']:.2f} read {res['read_s']:.2f} score {res['score_s']:.2f}) "
                f"rss {res['maxrss_mb']:.0f}MB score {res['score']:.6f}")
    out = {"name": name, "runs": {k: len(v) for k, v in rows.items()}}
    for tool, rs in rows.items():
        if not rs:
            continue
        out[tool] = {k: statistics.median(x[k] for x in rs) for k in ("wall_s", "cpu_s", "score_s", "maxrss_mb")}
        out[tool]["score"] = rs[0]["score"]
        out[tool]["values"] = rs[0]["values"]
    if sacrebleu:
        a = out["sacrebleu"]
        diffs = []
        for b in (out["mtscore"], out["mtscore-1t"]):
            if mode == "corpus":
                diffs.append(abs(a["score"] - b["score"]))
            else:
                diffs.append(float(np.max(np.abs(a["values"] - b["values"]))))
        out["max_diff"] = max(diffs)
        out["identical"] = out["max_diff"] < 1e-9
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=3, help="runs per case (mtscore)")
    ap.add_argument("--peer-runs", type=int, default=3, help="runs per case for sacreBLEU (<= --runs)")
    ap.add_argument("--big", type=int, default=1000000, help="segments of the large case (0: skip)")
    ap.add_argument("--big-sacrebleu", choices=("run", "extrapolate"), default="extrapolate")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", help="write the result table (markdown) to this file")
    args = ap.parse_args(argv)

    def log(msg):
        print(msg, flush=True)

    corpora = os.path.join(HERE, "_corpora")
    log(f"writing/reusing synthetic corpora under {corpora}")
    hyp4, refs4 = write_corpus(os.path.join(corpora, f"n{args.n}_r4_s{args.seed}"), args.n, 4, args.seed)
    # the reference path (no C compiler at install time), sentence case
    ref_res = run_once("mtscore", "sentence", hyp4, refs4[:1], {"MTSCORE_KERNELS": "reference"})
    log(f"reference path, sentence case: wall {ref_res['wall_s']:.2f}s cpu {ref_res['cpu_s']:.2f}s")
    partial = os.path.join(corpora, "bench_bleu_partial.json")

    def keep(r):
        with open(partial, "a") as fh:
            tools = ("sacrebleu", "mtscore", "mtscore-1t")
            fh.write(json.dumps({k: v for k, v in r.items() if k not in tools} | {
                t: {k: v for k, v in r[t].items() if k != "values"} for t in tools if t in r}) + "\n")
        return r

    pr = min(args.peer_runs, args.runs)
    results = [keep(case(f"corpus, {args.n:,} seg, 1 ref", "corpus", hyp4, refs4[:1], args.runs, log, peer_runs=pr)),
               keep(case(f"corpus, {args.n:,} seg, 4 refs", "corpus", hyp4, refs4, args.runs, log, peer_runs=pr)),
               keep(case(f"sentence, {args.n:,} seg, 1 ref", "sentence", hyp4, refs4[:1], args.runs, log, peer_runs=pr))]
    big = None
    if args.big:
        hb, rb = write_corpus(os.path.join(corpora, f"n{args.big}_r1_s{args.seed}"), args.big, 1, args.seed)
        big = case(f"corpus, {args.big:,} seg, 1 ref", "corpus", hb, rb, 1 if args.big_sacrebleu == "run" else 2,
                   log, sacrebleu=args.big_sacrebleu == "run")
        if args.big_sacrebleu == "extrapolate":
            base = results[0]["sacrebleu"]
            f = args.big / args.n
            big["sacrebleu"] = {"wall_s": base["wall_s"] * f, "cpu_s": base["cpu_s"] * f, "score_s": base["score_s"] * f,
                                "maxrss_mb": float("nan"), "extrapolated": True}
        results.append(big)

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    lines = [f"| case | sacreBLEU wall (s) | mtscore wall (s), {cores} cores | wall ratio | CPU ratio | "
             "mtscore 1 thread wall (s) | wall ratio, 1 thread | peak RSS sacreBLEU / mtscore (MB) | identical |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        a, b, c = r["sacrebleu"], r["mtscore"], r["mtscore-1t"]
        ext = " (extrapolated)" if a.get("extrapolated") else ""
        rss = f"{a['maxrss_mb']:.0f} / {b['maxrss_mb']:.0f}" if not a.get("extrapolated") else f"n/a / {b['maxrss_mb']:.0f}"
        ident = ("yes" if r.get("identical") else f"NO (diff {r['max_diff']:.2e})") if "identical" in r else "n/a"
        lines.append(f"| {r['name']} | {a['wall_s']:.2f}{ext} | {b['wall_s']:.2f} | {a['wall_s'] / b['wall_s']:.1f}x | "
                     f"{a['cpu_s'] / b['cpu_s']:.1f}x | {c['wall_s']:.2f} | {a['wall_s'] / c['wall_s']:.1f}x | {rss} | {ident} |")
    lines.append("")
    sent = results[2]
    lines.append(f"reference path (MTSCORE_KERNELS=reference), sentence case: wall {ref_res['wall_s']:.2f} s / "
                 f"CPU {ref_res['cpu_s']:.2f} s ({sent['sacrebleu']['wall_s'] / ref_res['wall_s']:.1f}x sacreBLEU wall).")
    lines.append(f"Runs per case: mtscore {args.runs} per variant, sacreBLEU {pr} (medians); big case: sacreBLEU "
                 f"{'timed once' if args.big_sacrebleu == 'run' else 'extrapolated linearly from the first case'}.")
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(table + "\n")
    return 0 if all(r.get("identical", True) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
