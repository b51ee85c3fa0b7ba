"""chrF, chrF++ and TER: mtscore vs sacreBLEU 2.6, side by side, identical numbers checked.

    PYTHONPATH=src python benchmarks/bench_chrf_ter.py [--n 100000] [--runs 3] [--peer-ter-max 10000]

Per corpus and metric: wall time of the whole corpus computation (preprocessing, statistics, score;
for mtscore ``metric.corpus(hyps, refs)`` with numba kernels already compiled, once with one thread
and once with all numba threads; for sacreBLEU ``_extract_corpus_statistics`` + ``_aggregate_and_compute``
= ``corpus_score``), median of ``--runs`` runs for mtscore and ``--peer-runs`` for sacreBLEU.
The per-segment statistics of both must be identical and the corpus scores equal within 1e-9.

sacreBLEU's TER is pure Python (about 7-30 ms per segment and reference), so it runs on the first
``--peer-ter-max`` segments only; the ratio is measured on that same subset (TER is computed segment by
segment, so time is linear in the number of segments) and mtscore's time on the whole corpus is shown too.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from synth import make_corpus  # noqa: E402

import numba  # noqa: E402
from sacrebleu.metrics import CHRF as SBCHRF, TER as SBTER  # noqa: E402

from mtscore.metrics.registry import get_metric  # noqa: E402


def timed(fn, runs):
    """(median wall seconds, median CPU seconds of this process, last result)."""
    walls, cpus, out = [], [], None
    for _ in range(runs):
        c, t = time.process_time(), time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return (statistics.median(walls), statistics.median(cpus)), out


def peer(name):
    return {"chrf": lambda: SBCHRF(), "chrf++": lambda: SBCHRF(word_order=2), "ter": lambda: SBTER()}[name]()


def compare(name, hyps, refs, runs, peer_runs, peer_max=None):
    m = get_metric(name)
    m.corpus(hyps[:10], refs[:10])  # compile / load cached kernels
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    t1, _ = timed(lambda: m.stats(hyps, refs), runs)
    numba.set_num_threads(threads)
    tn, stats = timed(lambda: m.stats(hyps, refs), runs)
    t_full_1 = t1
    n_peer = len(hyps) if peer_max is None else min(peer_max, len(hyps))
    ph, pr = hyps[:n_peer], refs[:n_peer]
    if n_peer < len(hyps):
        numba.set_num_threads(1)
        t1, _ = timed(lambda: m.stats(ph, pr), runs)
        numba.set_num_threads(threads)
        tn, _ = timed(lambda: m.stats(ph, pr), runs)
    sb = peer(name)
    streams = [[seg[k] for seg in pr] for k in range(len(pr[0]))]

    def run_peer():
        st = sb._extract_corpus_statistics(ph, streams)
        return st, sb._aggregate_and_compute(st)

    tp, (sb_stats, sb_score) = timed(run_peer, peer_runs)
    t_full_1 = t_full_1[0]
    ours = stats.take(np.arange(n_peer))
    same_stats = np.array_equal(ours.values, np.asarray(sb_stats, dtype=np.float64))
    diff = abs(m.corpus_from_stats(ours).score - sb_score.score)
    return dict(metric=m.display_name, n=len(hyps), n_peer=n_peer, t_full=t_full_1, t1=t1, tn=tn, tp=tp,
                ratio1=tp[1] / t1[1], ration=tp[0] / tn[0], same=same_stats and diff < 1e-9, diff=diff,
                score=m.corpus_from_stats(stats).score, threads=threads)


def show(title, rows):
    print(f"\n### {title}\n")
    print("| metric | segments (peer) | mtscore 1 thread, CPU (wall) | sacreBLEU, CPU (wall) | ratio (CPU) | "
          "mtscore {0} threads, wall | ratio (wall) | identical |".format(rows[0]["threads"]))
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        seg = f"{r['n']:,}" + (f" ({r['n_peer']:,})" if r["n_peer"] != r["n"] else "")
        extra = f"; all {r['n']:,}: {r['t_full']:.2f} s wall" if r["n_peer"] != r["n"] else ""
        print(f"| {r['metric']} | {seg} | {r['t1'][1]:.3f} s ({r['t1'][0]:.3f} s{extra}) | "
              f"{r['tp'][1]:.2f} s ({r['tp'][0]:.2f} s) | {r['ratio1']:.0f}x | {r['tn'][0]:.3f} s | "
              f"{r['ration']:.0f}x | {'yes' if r['same'] else 'NO (diff %.2e)' % r['diff']} |")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000, help="synthetic segments")
    ap.add_argument("--runs", type=int, default=3, help="mtscore runs (median)")
    ap.add_argument("--peer-runs", type=int, default=1, help="sacreBLEU runs (median)")
    ap.add_argument("--peer-ter-max", type=int, default=10_000, help="segments for sacreBLEU's TER")
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "wmt21"))
    ap.add_argument("--skip-real", action="store_true", help="synthetic corpus only")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; numba threads "
          f"{numba.get_num_threads()}")

    t = time.perf_counter()
    hyps, refs = make_corpus(args.n, 1, seed=0)
    print(f"synthetic corpus: {args.n} segments, 1 reference, made in {time.perf_counter() - t:.1f} s")
    rows = [compare("chrf", hyps, refs, args.runs, args.peer_runs),
            compare("chrf++", hyps, refs, args.runs, args.peer_runs),
            compare("ter", hyps, refs, args.runs, args.peer_runs, args.peer_ter_max)]
    show(f"synthetic, {args.n:,} segments, 1 reference", rows)

    if Path(args.data).exists() and not args.skip_real:
        from mtscore.io.wmt import load_wmt21

        d = load_wmt21(args.data, "en-de")
        for names in (["A"], ["A", "C", "D"]):
            hyps, refs = [], []
            rs = d.refs_sentence_major(names)
            for system in sorted(d.systems):
                hyps += d.systems[system]
                refs += rs
            rows = [compare("chrf", hyps, refs, args.runs, args.peer_runs),
                    compare("chrf++", hyps, refs, args.runs, args.peer_runs),
                    compare("ter", hyps, refs, args.runs, args.peer_runs, args.peer_ter_max // len(names))]
            show(f"WMT21 en-de, {len(d.systems)} systems x {len(d.source)} segments concatenated, "
                 f"{len(names)} reference(s)", rows)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
