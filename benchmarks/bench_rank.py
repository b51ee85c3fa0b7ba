"""AutoRank bootstrap benchmark: 1,000 paired document resamples x 15 systems x 4 metrics (docs/rank.md).

Data: ../shared/data/wmt23 zh-en (mt-metrics-eval layout): the segment scores of COMET, BLEURT-20, MetricX-23 and chrF
(refA) for the 15 systems (synthetic_ref left out), 1,976 segments in the documents of documents/zh-en.docs. The files
are read once (timed apart); then ``mtscore.rank.core.rank`` (WMT25 rule, 1,000 resamples) is timed ``--repeat``
times: CPU time of the process (``time.process_time``, all threads) and wall time; the median is reported.

Usage: PYTHONPATH=src python benchmarks/bench_rank.py [--data ../shared/data] [--n 1000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("MTSCORE_TEST_DATA", str(Path(__file__).resolve().parents[2]
                                                                              / "shared" / "data")))
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from mtscore.rank import inputs as I
    from mtscore.rank.core import rank

    root = Path(args.data) / "wmt23"
    lp = "zh-en"
    t0 = time.perf_counter()
    table = I.SegmentTable()
    docs, domains = I.read_docs(str(root / "documents" / f"{lp}.docs"))
    table.set_docs(docs, domains, "docs")
    for name in ("COMET", "BLEURT-20", "MetricX-23", "chrF"):
        path = str(root / "metric-scores" / lp / f"{name}-refA.seg.score")
        higher, fmt = I._direction(name, path, {})
        table.add(name, higher, "", I.read_segment_file(name, path, fmt), path)
    inp = I.assemble(table, [], lp, {}, [], exclude=["synthetic_ref"])
    t_read = time.perf_counter() - t0
    cpu, wall = [], []
    for _ in range(args.repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        res = rank(inp, "wmt25", n=args.n, seed=12345)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    u = res.uncertainty
    print(f"systems {len(inp.systems)}, metrics {len(inp.metrics)}, segments {len(inp.docs)}, "
          f"documents {u.n_docs}, resamples {u.n}")
    print(f"read the files: {t_read:.2f} s (once)")
    print(f"rank + bootstrap: CPU {statistics.median(cpu):.3f} s (median of {args.repeat}; "
          f"{', '.join(f'{x:.3f}' for x in cpu)}), wall {statistics.median(wall):.3f} s")
    print(f"top: {res.systems[0]} AutoRank {res.autorank[0]:.2f} interval {u.low[0]:.2f}-{u.high[0]:.2f} "
          f"P(first) {u.p_first[0]:.3f}; clusters {int(u.clusters.max())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
