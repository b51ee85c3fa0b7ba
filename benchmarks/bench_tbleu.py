"""tBLEU speed on WMT21 en-de: 20 systems x 1002 segments x 3 references (60,120 segment-reference
pairs), one core. Reports wall and CPU time (median of --repeats runs), throughput, and where the
time goes (tokenization / candidate check + affix distances + cost matrices / Hungarian /
weighted matches), beside mtscore BLEU and sacreBLEU BLEU on the same data (no other tBLEU
implementation exists to compare with; see docs/definitions.md §6.6).

    PYTHONPATH=src python benchmarks/bench_tbleu.py [--repeats 3] [--eps 0.05 0.3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import mtscore.metrics.tbleu as tb  # noqa: E402
from mtscore.io.wmt import load_wmt21  # noqa: E402
from mtscore.metrics.bleu import BLEU  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "wmt21")


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def run_metric(metric, systems, refs):
    return [metric.corpus(h, refs).score for h in systems.values()]


def breakdown(eps, systems, refs):
    """Per-stage CPU seconds over all systems (same code path as TBLEU._stats, split up)."""
    m = tb.TBLEU(epsilon=eps)
    stages = dict(encode=0.0, candidates_costs=0.0, hungarian_correct=0.0, weighted_matches=0.0)
    flagged = pairs = 0
    orig_lsa = tb.linear_sum_assignment
    lsa_time = [0.0]

    def lsa(c):
        t = time.process_time()
        r = orig_lsa(c)
        lsa_time[0] += time.process_time() - t
        return r

    orig_cc = tb._candidate_costs
    cc_info = {}

    def cc(*a):
        t = time.process_time()
        r = orig_cc(*a)
        cc_info["t"] = cc_info.get("t", 0.0) + time.process_time() - t
        cc_info["flagged"] = cc_info.get("flagged", 0) + int(r[0].sum())
        cc_info["pairs"] = cc_info.get("pairs", 0) + len(r[0])
        return r

    tb.linear_sum_assignment, tb._candidate_costs = lsa, cc
    try:
        for hyps in systems.values():
            hyps_n, refs_n = tb.normalize_corpus(hyps, refs)
            (h, r, ps, words), _, c1 = timed(lambda: m._encode(hyps_n, refs_n))
            corr, _, c2 = timed(lambda: tb.correct_pairs(h, r, ps, words, eps))
            _, _, c3 = timed(lambda: tb.weighted_matches(corr, r, ps, h, 4))
            stages["encode"] += c1
            stages["hungarian_correct"] += c2
            stages["weighted_matches"] += c3
    finally:
        tb.linear_sum_assignment, tb._candidate_costs = orig_lsa, orig_cc
    stages["candidates_costs"] = cc_info["t"]
    stages["hungarian_correct"] -= cc_info["t"]
    stages["of which linear_sum_assignment"] = lsa_time[0]
    return stages, cc_info["flagged"], cc_info["pairs"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.05, 0.3])
    ap.add_argument("--data", default=DATA)
    args = ap.parse_args()
    d = load_wmt21(args.data, "en-de")
    refs = d.refs_sentence_major()
    systems = d.systems
    n_pairs = sum(len(r) for r in refs) * len(systems)
    print(f"WMT21 en-de: {len(systems)} systems, {len(refs)} segments, {len(refs[0])} references "
          f"-> {n_pairs} segment-reference pairs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    # warm up (imports) and the reference-tokenization cache outside the timings
    tb.TBLEU(epsilon=0.3).corpus(next(iter(systems.values())), refs)

    rows = []

    def bench(label, make, note=""):
        walls, cpus = [], []
        for _ in range(args.repeats):
            metric = make()  # fresh object: no reference cache carried between repeats
            _, w, c = timed(lambda: run_metric(metric, systems, refs))
            walls.append(w)
            cpus.append(c)
        rows.append((label, statistics.median(walls), statistics.median(cpus), note))
        print(f"{label:32s} wall {statistics.median(walls):6.2f} s  cpu {statistics.median(cpus):6.2f} s  "
              f"({n_pairs / statistics.median(cpus):,.0f} pairs/cpu-s) {note}", flush=True)

    try:
        import sacrebleu
        from sacrebleu.metrics import BLEU as SB

        def sb_run():
            sb = SB()
            streams = [list(x) for x in zip(*refs)]

            class _M:
                def corpus(self, h, _r):
                    return sb.corpus_score(h, streams)
            return _M()
        bench(f"sacreBLEU {sacrebleu.__version__} BLEU", sb_run)
    except ImportError:  # pragma: no cover
        pass
    bench("mtscore BLEU", BLEU)
    for eps in [0.0] + list(args.eps):
        bench(f"mtscore tBLEU eps={eps:g}", lambda e=eps: tb.TBLEU(epsilon=e))
    for eps in args.eps:
        stages, flagged, pairs = breakdown(eps, systems, refs)
        print(f"breakdown eps={eps:g} (cpu s, all systems): "
              + ", ".join(f"{k} {v:.2f}" for k, v in stages.items())
              + f"; pairs needing matching {flagged}/{pairs} ({100 * flagged / pairs:.1f}%)")
    base = {r[0]: r for r in rows}
    sb_cpu = next((r[2] for r in rows if r[0].startswith("sacreBLEU")), None)
    print("\n| run | wall s | cpu s | pairs / cpu-s | cpu vs mtscore BLEU | cpu vs sacreBLEU |")
    print("|---|---:|---:|---:|---:|---:|")
    bl = base["mtscore BLEU"][2]
    for label, w, c, _ in rows:
        vs_sb = f"{c / sb_cpu:.2f}x" if sb_cpu else "-"
        print(f"| {label} | {w:.2f} | {c:.2f} | {n_pairs / c:,.0f} | {c / bl:.2f}x | {vs_sb} |")


if __name__ == "__main__":
    main()
