"""NIST / WER / PER / K-GRR: mtscore side by side with jiwer and NLTK, in one script.

    PYTHONPATH=src python benchmarks/bench_metrics_a.py [--n 100000] [--repeats 3] [--write]

Timings are medians of ``--repeats`` runs (wall clock, one process; compiled kernels).
mtscore times are end to end (tokenize + encode + statistics + score) unless marked "kernel".
NLTK gets pre-tokenized token lists (its tokenization is not timed; ours is).
``--write`` replaces the section "NIST / WER / PER / K-GRR" of benchmarks/RESULTS.md.
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

from mtscore.metrics._common import encode_corpus  # noqa: E402
from mtscore.metrics.grr import FourGRR, grr_pair_numerators  # noqa: E402
from mtscore.metrics.nist import NIST  # noqa: E402
from mtscore.metrics.wer import PER, WER  # noqa: E402
from mtscore.tokenize import tokenize_corpus  # noqa: E402

SECTION = "## NIST / WER / PER / K-GRR"


CPU = {}  # last timed() call: median process CPU seconds (robust to the shared machine's load)


def timed(fn, repeats):
    times, cpu, out = [], [], None
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    CPU["last"] = statistics.median(cpu)
    return statistics.median(times), out


def ctimed(fn, repeats):
    """(median wall s, median CPU s, result)."""
    w, out = timed(fn, repeats)
    return w, CPU["last"], out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--nltk-n", type=int, default=100_000, help="segments given to NLTK (it is slow)")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    import jiwer
    from nltk.translate.nist_score import corpus_nist

    lines = []
    R = args.repeats

    def row(task, ours, peer, peer_name, note=""):
        (ow, oc), (pw, pc) = ours, peer
        lines.append(f"| {task} | {ow:.3f} ({oc:.3f}) | {peer_name} {pw:.3f} ({pc:.3f}) | "
                     f"{pw / ow:.1f}x ({pc / oc:.1f}x) | {note} |")
        print(lines[-1], flush=True)

    def alone(task, ours, note):
        lines.append(f"| {task} | {ours[0]:.3f} ({ours[1]:.3f}) | - | - | {note} |")
        print(lines[-1], flush=True)

    # warm-up (imports)
    WER().corpus(["a b"], [["a c"]]); FourGRR().corpus(["a b"], [["a c"]]); NIST().corpus(["a"], [["a"]])

    hyps, refs = make_corpus(args.n, 1, seed=0)
    ref1 = [r[0] for r in refs]
    refs1 = [[r] for r in ref1]
    print(f"synthetic corpus: {args.n} segments", flush=True)

    # ---- WER
    ws = [" ".join(x.split()) for x in ref1]
    wh = [" ".join(x.split()) for x in hyps]
    jw, jc, v_j = ctimed(lambda: jiwer.wer(ws, wh), R)
    ow, oc, v_o = ctimed(lambda: WER(tokenize="none").corpus(hyps, refs1).score, R)
    assert abs(v_j - v_o) < 1e-12, (v_j, v_o)
    row(f"WER, {args.n} synthetic, whitespace tokens", (ow, oc), (jw, jc), "jiwer", f"equal scores ({v_o:.6f})")
    ow, oc, _ = ctimed(lambda: WER().corpus(hyps, refs1).score, R)
    row(f"WER, {args.n} synthetic, ours incl. 13a tokenization", (ow, oc), (jw, jc), "jiwer (whitespace)", "")

    # ---- PER (no peer: absolute time)
    ow, oc, _ = ctimed(lambda: PER(tokenize="none").corpus(hyps, refs1).score, R)
    alone(f"PER, {args.n} synthetic, whitespace tokens", (ow, oc), "no peer implementation")

    # ---- NIST: NLTK gets our 13a tokens; we get the same tokens as text (tokenize=none) and raw text (13a)
    n_nl = min(args.nltk_n, args.n)
    th = tokenize_corpus(hyps[:n_nl], "13a")
    tr = tokenize_corpus(ref1[:n_nl], "13a")
    tok_h = [h.split() for h in th]
    tok_r = [[r.split()] for r in tr]
    nw, nc, v_n = ctimed(lambda: corpus_nist(tok_r, tok_h, n=5), 1)
    ow, oc, v_on = ctimed(lambda: NIST(tokenize="none").corpus(th, [[r] for r in tr]).score, R)
    assert abs(v_n - v_on) < 1e-9, (v_n, v_on)
    row(f"NIST, {n_nl} synthetic, 1 ref, same tokens", (ow, oc), (nw, nc), "NLTK corpus_nist (1 run)",
        f"equal scores ({v_on:.4f})")
    ow, oc, _ = ctimed(lambda: NIST().corpus(hyps[:n_nl], refs1[:n_nl]).score, R)
    row(f"NIST, {n_nl} synthetic, ours incl. 13a tokenization", (ow, oc), (nw, nc), "NLTK (pre-tokenized)", "")

    # ---- 4-GRR
    for nr in (1, 4):
        h2, r2 = (hyps, refs) if nr == 1 else make_corpus(args.n // 5, nr, seed=1)
        enc = encode_corpus(h2, r2, "13a", False)
        n_pairs = enc.ref.n_rows
        kw, kc, _ = ctimed(lambda: grr_pair_numerators(enc, 4, 1.0, 0.0), R)
        ew, ec, _ = ctimed(lambda: FourGRR().corpus(h2, r2).score, R)
        alone(f"4-GRR, {len(h2)} synthetic x {nr} ref ({n_pairs} pairs, mean ref len {enc.ref.lengths.mean():.1f}, "
              f"mean hyp len {enc.hyp.lengths.mean():.1f})", (ew, ec),
              f"Viterbi kernel {kw:.3f} s ({kc:.3f} CPU s) = {n_pairs / kw:,.0f} pairs/s wall, "
              f"{n_pairs / kc:,.0f} pairs/CPU-s")

    # ---- real data
    try:
        from mtscore.io.wmt import load_wmt21
        d = load_wmt21(HERE.parent.parent / "shared" / "data" / "wmt21", "en-de")
    except Exception as exc:  # pragma: no cover
        print("real data not available:", exc)
        d = None
    if d is not None:
        names = sorted(d.systems)
        n_seg = len(d.refs["A"])
        rh = [h for s in names for h in d.systems[s]]
        rr = [r for _ in names for r in d.refs["A"]]
        rrefs = [[r] for r in rr]
        jw, jc, v_j = ctimed(lambda: jiwer.wer([" ".join(x.split()) for x in rr], [" ".join(x.split()) for x in rh]), R)
        ow, oc, v_o = ctimed(lambda: WER(tokenize="none").corpus(rh, rrefs).score, R)
        assert abs(v_j - v_o) < 1e-12
        row(f"WER, wmt21 en-de {len(names)} systems x ref A ({len(rh)} segments)", (ow, oc), (jw, jc), "jiwer",
            "equal scores")
        th = tokenize_corpus(rh, "13a")
        tr = tokenize_corpus(rr, "13a")
        tok_h = [h.split() for h in th]
        tok_r = [[r.split()] for r in tr]
        blocks = [slice(i * n_seg, (i + 1) * n_seg) for i in range(len(names))]

        def nltk_all():  # per system, like a user scoring each system
            return [corpus_nist(tok_r[b], tok_h[b], n=5) for b in blocks]

        def ours_all():
            m = NIST(tokenize="none")
            return [m.corpus(th[b], [[r] for r in tr[b]]).score for b in blocks]
        nw, nc, v_n = ctimed(nltk_all, R)
        ow, oc, v_on = ctimed(ours_all, R)
        assert max(abs(a - b) for a, b in zip(v_n, v_on)) < 1e-9
        row(f"NIST, wmt21 en-de {len(names)} systems x {n_seg} segments, ref A, same tokens", (ow, oc), (nw, nc),
            "NLTK corpus_nist", "equal scores")
        all_refs = d.refs_sentence_major()
        rr3 = [seg for _ in names for seg in all_refs]
        ew, ec, _ = ctimed(lambda: FourGRR().corpus(rh, rr3).score, R)
        enc = encode_corpus(rh, rr3, "13a", False)
        kw, kc, _ = ctimed(lambda: grr_pair_numerators(enc, 4, 1.0, 0.0), R)
        alone(f"4-GRR, wmt21 en-de {len(names)} systems x 3 refs ({enc.ref.n_rows} pairs, mean ref len "
              f"{enc.ref.lengths.mean():.1f})", (ew, ec),
              f"Viterbi kernel {enc.ref.n_rows / kw:,.0f} pairs/s wall, {enc.ref.n_rows / kc:,.0f} pairs/CPU-s")

    if args.write:
        header = [SECTION, "",
                  f"`PYTHONPATH=src python benchmarks/bench_metrics_a.py --n {args.n} --repeats {R}` "
                  f"({time.strftime('%Y-%m-%d')}; shared 2-core machine, other jobs running, so timings are noisy; "
                  "median of the repeats; CPU = process CPU time, the fairer number on an oversubscribed machine; "
                  "mtscore end to end from strings, NLTK given token lists).", "",
                  "| task | mtscore wall s (CPU s) | peer wall s (CPU s) | peer / mtscore wall (CPU) | note |", "|---|---|---|---|---|"]
        section = "\n".join(header + lines) + "\n"
        path = HERE / "RESULTS.md"
        text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n\n"
        if SECTION in text:
            start = text.index(SECTION)
            nxt = text.find("\n## ", start + len(SECTION))
            text = text[:start] + section + ("" if nxt < 0 else "\n" + text[nxt + 1:])
        else:
            text = text.rstrip("\n") + "\n\n" + section
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
