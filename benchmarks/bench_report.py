"""Time `mtscore report` pieces on ted-sk-en (2 systems x 2445 segments) and compare the batched
paired bootstrap of mtscore.significance (the one engine of compare, report and the API; with the
difference interval) with sacreBLEU's paired bootstrap.

    PYTHONPATH=src python benchmarks/bench_report.py [--runs 3]
"""
import argparse
import statistics
import time
from pathlib import Path

from mtscore.io import read_lines
from mtscore.metrics.bleu import BLEU, BLEUSBP
from mtscore.analysis.systems import build_report
from mtscore.report.systems import render_html
from mtscore.significance import compare_stats

D = Path(__file__).resolve().parents[2] / "shared" / "data" / "ted-sk-en"


def med(fn, runs):
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    ref = read_lines(D / "ted.ref.detok.eng")
    s1, s2 = read_lines(D / "ted.sys1.detok.eng"), read_lines(D / "ted.sys2.detok.eng")
    refs = [[r] for r in ref]
    m = BLEU()
    st = [m.stats(s1, refs), m.stats(s2, refs)]
    ours = med(lambda: compare_stats(m, {"a": st[0], "b": st[1]}, n=1000, seed=12345), a.runs)
    import sacrebleu
    from sacrebleu.significance import _paired_bs_test
    sb = sacrebleu.BLEU()
    bl_stats = sb._extract_corpus_statistics(s1, [ref])
    bl = sb._aggregate_and_compute(bl_stats)
    theirs = med(lambda: _paired_bs_test({"BLEU": (bl_stats, bl)}, "b", s2, [ref], {"BLEU": sb}, 1000, seed=12345),
                 a.runs)
    print(f"paired bootstrap BLEU, 1000 resamples: mtscore {ours:.3f} s, sacreBLEU {theirs:.3f} s "
          f"(sacreBLEU includes extracting the system's statistics), ratio {theirs / ours:.1f}x")
    full = med(lambda: render_html(build_report({"sys1": s1, "sys2": s2}, refs, [BLEU(), BLEUSBP()])), a.runs)
    print(f"full report (BLEU + BLEU-SBP, 1000 resamples, subsets, precisions, examples, HTML): {full:.2f} s")


if __name__ == "__main__":
    main()
