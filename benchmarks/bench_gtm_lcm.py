"""GTM / LCM speed: 100k synthetic segments, one reference, one core.

Runs mtscore's GTM (e = 1 and 1.2) and LCM-lite side by side with their plain-Python oracles from
tests/ (there is no installable peer implementation of GTM or Woodpecker; the oracles are timed on
a subset and scaled linearly), and sacreBLEU BLEU on the same corpus as a familiar yardstick.
Median of several runs. Usage: PYTHONPATH=src python benchmarks/bench_gtm_lcm.py [n_segments] [runs]
"""
from __future__ import annotations

import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from synth import make_corpus  # noqa: E402

from mtscore.metrics.gtm import GTM  # noqa: E402
from mtscore.metrics.lcm import LCM  # noqa: E402
from mtscore.text import Vocab  # noqa: E402
from mtscore.metrics.lcm import extract_checkpoints  # noqa: E402
from mtscore.tokenize import tokenize_corpus  # noqa: E402


def timed(fn, runs):
    ts = []
    out = None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    sub = min(n, 1000)
    t = time.perf_counter()
    hyps, refs = make_corpus(n, 1, seed=0)
    print(f"corpus: {n} segments, 1 reference, generated in {time.perf_counter() - t:.1f} s")
    # warm-up (imports)
    GTM(exponent=1.2).corpus(hyps[:10], refs[:10]); LCM().corpus(hyps[:10], refs[:10])
    rows = []
    for label, metric in [("GTM e=1", GTM()), ("GTM e=1.2", GTM(exponent=1.2)), ("LCM-lite", LCM())]:
        sec, res = timed(lambda: metric.corpus(hyps, refs), runs)
        rows.append((label, sec, res.score))
    tok_sec, _ = timed(lambda: (tokenize_corpus(hyps, "13a"), tokenize_corpus([r[0] for r in refs], "13a")), runs)

    # plain-Python oracles from the tests, on a subset, scaled to n
    from test_gtm import greedy_matching, runs_score
    from test_lcm import partial_match

    def py_gtm(e):
        th = tokenize_corpus(hyps[:sub], "13a")
        tr = tokenize_corpus([r[0] for r in refs[:sub]], "13a")
        return sum(runs_score(greedy_matching(a.split(), b.split()), e) for a, b in zip(th, tr))

    def py_lcm():
        th = tokenize_corpus(hyps[:sub], "13a")
        tr = tokenize_corpus([r[0] for r in refs[:sub]], "13a")
        v = Vocab()
        r = v.encode(tr)
        start, end, cat, row = extract_checkpoints(r, v, "en")
        types = list(v.index)
        tot = 0
        for s, e, rw in zip(start, end, row):
            tot += partial_match([types[i] for i in r.ids[s:e]], th[rw].split())[0]
        return tot

    py = {"GTM e=1": lambda: py_gtm(1.0), "GTM e=1.2": lambda: py_gtm(1.2), "LCM-lite": py_lcm}
    print(f"\n{'metric':<10} {'mtscore s':>10} {'score':>8} {'python oracle s (scaled)':>25} {'ratio':>7}")
    for label, sec, score in rows:
        psec, _ = timed(py[label], 1)
        scaled = psec * n / sub
        print(f"{label:<10} {sec:>10.2f} {score:>8.4f} {scaled:>25.1f} {scaled / sec:>6.1f}x")
    print(f"(13a tokenization of hyps + refs alone: {tok_sec:.2f} s)")
    try:
        import sacrebleu
        sec, _ = timed(lambda: sacrebleu.corpus_bleu(hyps, [[r[0] for r in refs]]), 1)
        print(f"sacreBLEU corpus_bleu on the same corpus (yardstick): {sec:.2f} s")
    except ImportError:
        pass


if __name__ == "__main__":
    main()
