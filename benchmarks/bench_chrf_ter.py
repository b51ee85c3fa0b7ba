"""chrF, chrF++ and TER: mtscore vs sacreBLEU 2.6, side by side, identical numbers checked.

    PYTHONPATH=src python benchmarks/bench_chrf_ter.py [--n 100000] [--runs 3] [--peer-ter-max 10000]

Per corpus and metric: wall time of the whole corpus computation (preprocessing, statistics, score;
for mtscore ``metric.corpus(hyps, refs)`` (compiled kernels), once with one kernel thread
and once with the default threads; for sacreBLEU ``_extract_corpus_statistics`` + ``_aggregate_and_compute``
= ``corpus_score``), median of ``--runs`` runs for mtscore and ``--peer-runs`` for sacreBLEU.
The per-segment statistics of both must be identical and the corpus scores equal within 1e-9.

sacreBLEU's TER is pure Python (about 7-30 ms per segment and reference), so it runs on the first
``--peer-ter-max`` segments only; the ratio is measured on that same subset (TER is computed segment by
segment, so time is linear in the number of segments); mtscore's time on the whole corpus (one run, one
thread) is shown too, and its statistics on the subset must equal those of the whole-corpus run.
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

from mtscore.text.fast import available_cores, kernel_threads  # noqa: E402
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
    m.corpus(hyps[:10], refs[:10])  # warm-up (imports)
    threads = _default_threads()
    n_peer = len(hyps) if peer_max is None else min(peer_max, len(hyps))
    ph, pr = hyps[:n_peer], refs[:n_peer]
    t_full = None
    if n_peer < len(hyps):  # whole corpus once (1 thread), the ratio on the peer's subset
        with kernel_threads(1):
            t_full, stats_full = timed(lambda: m.stats(hyps, refs), 1)
    with kernel_threads(1):
        t1, _ = timed(lambda: m.stats(ph, pr), runs)
    tn, stats = timed(lambda: m.stats(ph, pr), runs)
    sb = peer(name)
    streams = [[seg[k] for seg in pr] for k in range(len(pr[0]))]

    def run_peer():
        st = sb._extract_corpus_statistics(ph, streams)
        return st, sb._aggregate_and_compute(st)

    tp, (sb_stats, sb_score) = timed(run_peer, peer_runs)
    same_stats = np.array_equal(stats.values, np.asarray(sb_stats, dtype=np.float64))
    if t_full is not None:
        same_stats = same_stats and np.array_equal(stats_full.values[:n_peer], stats.values)
    diff = abs(m.corpus_from_stats(stats).score - sb_score.score)
    row = dict(metric=m.display_name, n=len(hyps), n_peer=n_peer, t_full=t_full[0] if t_full else None,
               t1=t1, tn=tn, tp=tp, ratio1=tp[1] / t1[1], ration=tp[0] / tn[0],
               same=same_stats and diff < 1e-9, diff=diff, threads=threads)
    print(_row(row))
    sys.stdout.flush()
    return row


def _default_threads() -> int:
    """The kernels' default thread count for a large input (one per usable core, at most 8)."""
    return min(available_cores(), 8)


def _row(r):
    seg = f"{r['n']:,}" + (f" ({r['n_peer']:,})" if r["n_peer"] != r["n"] else "")
    extra = f"; all {r['n']:,}: {r['t_full']:.2f} s wall" if r["t_full"] is not None else ""
    return (f"| {r['metric']} | {seg} | {r['t1'][1]:.3f} s ({r['t1'][0]:.3f} s{extra}) | "
            f"{r['tp'][1]:.2f} s ({r['tp'][0]:.2f} s) | {r['ratio1']:.0f}x | {r['tn'][0]:.3f} s | "
            f"{r['ration']:.0f}x | {'yes' if r['same'] else 'NO (diff %.2e)' % r['diff']} |")


def header(title):
    print(f"\n### {title}\n")
    print("| metric | segments (peer) | mtscore 1 thread, CPU (wall) | sacreBLEU, CPU (wall) | ratio (CPU) | "
          f"mtscore {_default_threads()} threads, wall | ratio (wall) | identical |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000, help="synthetic segments")
    ap.add_argument("--runs", type=int, default=3, help="mtscore runs (median)")
    ap.add_argument("--peer-runs", type=int, default=1, help="sacreBLEU runs (median)")
    ap.add_argument("--peer-ter-max", type=int, default=5_000, help="segments for sacreBLEU's TER (divided by the number of references on real data)")
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "wmt21"))
    ap.add_argument("--skip-real", action="store_true", help="synthetic corpus only")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; default kernel threads "
          f"{_default_threads()}")

    t = time.perf_counter()
    hyps, refs = make_corpus(args.n, 1, seed=0)
    print(f"synthetic corpus: {args.n} segments, 1 reference, made in {time.perf_counter() - t:.1f} s")
    header(f"synthetic, {args.n:,} segments, 1 reference")
    compare("chrf", hyps, refs, args.runs, args.peer_runs)
    compare("chrf++", hyps, refs, args.runs, args.peer_runs)
    compare("ter", hyps, refs, args.runs, args.peer_runs, args.peer_ter_max)

    if Path(args.data).exists() and not args.skip_real:
        from mtscore.io.wmt import load_wmt21

        d = load_wmt21(args.data, "en-de")
        for names in (["A"], ["A", "C", "D"]):
            hyps, refs = [], []
            rs = d.refs_sentence_major(names)
            for system in sorted(d.systems):
                hyps += d.systems[system]
                refs += rs
            header(f"WMT21 en-de, {len(d.systems)} systems x {len(d.source)} segments concatenated, "
                   f"{len(names)} reference(s)")
            compare("chrf", hyps, refs, args.runs, args.peer_runs)
            compare("chrf++", hyps, refs, args.runs, args.peer_runs)
            compare("ter", hyps, refs, args.runs, args.peer_runs, args.peer_ter_max // len(names))
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
