#!/usr/bin/env python
"""ROSE (core features) on 100k synthetic segments x 4 references, one core.

Reports the median of --runs runs of the whole ``ROSE.stats`` + corpus score (tokenize, encode,
features, score) and a stage breakdown; side by side: mtscore BLEU statistics on the same corpus
(same tokenizer and encoder, the work every n-gram metric shares) and sacreBLEU corpus BLEU (no
ROSE implementation exists to compare with; sacreBLEU gives the cost of the usual n-gram tool).
Usage: PYTHONPATH=src python benchmarks/bench_rose.py [--segments 100000] [--refs 4] [--runs 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np  # noqa: E402

from synth import make_corpus  # noqa: E402


def timed(fn, runs):
    ts, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=100_000)
    ap.add_argument("--refs", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sacrebleu", action="store_true", help="also time sacreBLEU corpus BLEU (slow)")
    args = ap.parse_args()
    from mtscore.metrics.registry import get_metric
    from mtscore.metrics.rose_features import core_features, token_classes
    from mtscore.text import Vocab
    from mtscore.tokenize import tokenize_corpus

    hyps, refs = make_corpus(args.segments, args.refs, seed=0)
    rose = get_metric("rose")
    rose.stats(hyps[:50], refs[:50])  # warm-up (imports) outside the timing
    t_rose, st = timed(lambda: rose.corpus_from_stats(rose.stats(hyps, refs)), args.runs)
    # stage breakdown (one run)
    flat = [r for s in refs for r in s]
    t0 = time.perf_counter()
    th, tr = tokenize_corpus(hyps, "13a"), tokenize_corpus(flat, "13a")
    t1 = time.perf_counter()
    v = Vocab()
    h, r = v.encode(th), v.encode(tr)
    t2 = time.perf_counter()
    cls = token_classes(list(v.index), rose.function_words)
    t3 = time.perf_counter()
    core_features(h.ids, h.offsets, r.ids, r.offsets, np.full(len(hyps), args.refs), cls, len(v))
    t4 = time.perf_counter()
    bleu = get_metric("bleu")
    t_bleu, _ = timed(lambda: bleu.corpus_from_stats(bleu.stats(hyps, refs)), 1)
    lines = [f"ROSE core, {args.segments} segments x {args.refs} refs ({len(h.ids) + len(r.ids)} tokens): "
             f"median of {args.runs} = {t_rose:.2f} s (score {st.score:.4f})",
             f"  stages: tokenize 13a {t1 - t0:.2f} s, encode {t2 - t1:.2f} s, token classes {t3 - t2:.2f} s, "
             f"features (compiled) {t4 - t3:.2f} s",
             f"mtscore BLEU stats+score, same corpus: {t_bleu:.2f} s (ROSE/BLEU = {t_rose / t_bleu:.2f})"]
    if args.sacrebleu:
        import sacrebleu

        streams = [list(x) for x in zip(*refs)]
        t_sb, _ = timed(lambda: sacrebleu.corpus_bleu(hyps, streams), 1)
        lines.append(f"sacreBLEU corpus_bleu, same corpus: {t_sb:.2f} s (sacreBLEU/ROSE = {t_sb / t_rose:.2f})")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
