"""Search: MBR with sentence BLEU over big n-best lists, and the lattice oracle, timed.

    PYTHONPATH=src python benchmarks/bench_search.py [--segments 1000] [--cands 100] [--repeats 3]
                                                      [--peer-segments 3] [--write]

* MBR: a synthetic n-best list (``synth.make_corpus`` references; every candidate a noisy edit of the
  reference: ~25 tokens, Zipfian words, punctuation), sentence BLEU (sacreBLEU defaults: 13a, exp
  smoothing, effective order) as utility, uniform posterior, all k^2 ordered pairs per segment
  (self-pairs included). mtscore end to end from strings. Peer: a plain loop of
  ``sacrebleu.sentence_bleu`` over all pairs of ``--peer-segments`` segments, extrapolated linearly
  to all pairs (the loop is the "naive" implementation; the choices agree on the timed segments).
* Lattice oracle: a random decoder-like acyclic lattice with ~10,000 arcs (34 positions x 61 states,
  5 arcs per state one or two positions ahead, 10% epsilon arcs, 45% of the words the reference word
  near that position; see ``synthetic_lattice``) against a 30-word reference; 4-GRR, WRR, and 4-GRR with 4 references; end to end (incl. label encoding) and
  the compiled kernel alone. No peer tool is installed; the number to meet is < 1 s.

``--write`` replaces the section "Search: MBR and lattice oracle" of benchmarks/RESULTS.md.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from synth import make_corpus, noisy_words as _noisy, sentence_text as _sentence  # noqa: E402

from mtscore.metrics.bleu import BLEU  # noqa: E402
from mtscore.search import NBestList, Pool, mbr_select  # noqa: E402
from mtscore.search.lattice import build_lattice  # noqa: E402
from mtscore.search.lattice_oracle import lattice_oracle, lattice_viterbi  # noqa: E402

SECTION = "## Search: MBR and lattice oracle"


def timed(fn, repeats):
    walls, cpus, out = [], [], None
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), out


def synthetic_nbest(n_segments: int, n_cands: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    _, refs = make_corpus(n_segments, 1, seed)
    words_pool = np.array(sorted({w for r in refs for w in r[0].split()}), dtype=object)
    cands = []
    for r in refs:
        base = r[0].rstrip(".?!").split()
        seg = []
        for _ in range(n_cands):
            seg.append(_sentence(_noisy(base, words_pool, rng, 0.3) or base[:1], rng))
        cands.append(seg)
    return cands, refs


def synthetic_lattice(n_arcs: int, ref_words: list[str], seed: int = 0, layers: int = 34, per_state: int = 5):
    """A decoder-like lattice: ``layers`` positions x W states; every state has ``per_state`` arcs to random
    states one (85%) or two (15%) positions ahead; the word is the reference word near that position (45%),
    a random vocabulary word, or epsilon (10%); the last position's states go to the final state by epsilon."""
    rng = np.random.default_rng(seed)
    vocab = list(dict.fromkeys(ref_words)) + [f"w{i}" for i in range(300)]
    W = max(1, -(-n_arcs // (per_state * (layers - 1))))  # ceil: at least n_arcs arcs
    n_states = layers * W + 1
    final = n_states - 1
    src, dst, lab, w = [], [], [], []
    R = len(ref_words)
    for layer in range(layers - 1):
        for j in range(W):
            q = layer * W + j
            for _ in range(per_state):
                step = 1 if (rng.random() < 0.85 or layer == layers - 2) else 2
                d = (layer + step) * W + int(rng.integers(0, W))
                u = rng.random()
                pos = min(R - 1, max(0, int(round(layer * R / (layers - 1))) + int(rng.integers(-1, 2))))
                word = None if u < 0.1 else (ref_words[pos] if u < 0.55 else vocab[int(rng.integers(0, len(vocab)))])
                src.append(q)
                dst.append(d)
                lab.append(word)
                w.append(float(-rng.exponential()))
    for j in range(W):
        src.append((layers - 1) * W + j)
        dst.append(final)
        lab.append(None)
        w.append(0.0)
    return build_lattice(n_states, 0, src, dst, lab, w, {final: 0.0})


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=1000)
    ap.add_argument("--cands", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--peer-segments", type=int, default=3)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    import sacrebleu

    lines = []
    R = args.repeats
    bleu = BLEU()
    # warm-up: imports
    mbr_select(Pool.of(NBestList.from_lists([["a b c", "a b d"]])), bleu)
    tiny = build_lattice(2, 0, [0], [1], ["a"], [0.0], {1: 0.0})
    lattice_oracle(tiny, "a")

    cands, refs = synthetic_nbest(args.segments, args.cands)
    pool = Pool.of(NBestList.from_lists(cands))
    n_pairs = int((pool.sizes.astype(np.int64) ** 2).sum())
    toks = np.mean([len(c.split()) for seg in cands[:50] for c in seg])
    print(f"n-best: {args.segments} segments x {args.cands} candidates, {n_pairs:,} ordered pairs, "
          f"~{toks:.1f} whitespace tokens per candidate", flush=True)
    ow, oc, sel = timed(lambda: mbr_select(pool, bleu), R)
    print(f"mtscore MBR: {ow:.2f} s wall ({oc:.2f} s CPU)", flush=True)

    P = args.peer_segments

    def naive():
        chosen = []
        for seg in cands[:P]:
            eu = [sum(sacrebleu.sentence_bleu(a, [b]).score for b in seg) / len(seg) for a in seg]
            chosen.append(int(np.argmax(eu)))
        return chosen

    pw, pc, chosen = timed(naive, 1)
    assert chosen == sel.index[:P].tolist(), (chosen, sel.index[:P])
    peer_pairs = sum(len(seg) ** 2 for seg in cands[:P])
    est_w, est_c = pw * n_pairs / peer_pairs, pc * n_pairs / peer_pairs
    print(f"naive sacreBLEU loop: {pw:.2f} s for {peer_pairs:,} pairs -> {est_w:.0f} s extrapolated", flush=True)
    lines.append(f"| MBR, sentence BLEU, {args.segments} x {args.cands} candidates ({n_pairs / 1e6:.0f}M pairs) | "
                 f"{ow:.2f} ({oc:.2f}) | sacreBLEU loop {est_w:.0f} ({est_c:.0f}), extrapolated from {P} segments "
                 f"({peer_pairs:,} pairs, {pw:.1f} s) | {est_w / ow:.0f}x ({est_c / oc:.0f}x) | same choices on the "
                 f"{P} timed segments |")

    # lattice oracle
    ref_words = refs[0][0].split()
    while len(ref_words) < 30:
        ref_words += refs[len(ref_words)][0].split()
    ref = " ".join(ref_words[:30])
    lat = synthetic_lattice(10_000, ref.split())
    extra = [" ".join(np.random.default_rng(i).permutation(ref.split())) for i in range(3)]
    for label, fn in [
        ("4-GRR", lambda: lattice_oracle(lat, ref, "4-grr")),
        ("WRR", lambda: lattice_oracle(lat, ref, "wrr")),
        ("4-GRR, 4 references", lambda: lattice_oracle(lat, [ref] + extra, "4-grr")),
        ("4-GRR, lambda = 0.1", lambda: lattice_oracle(lat, ref, "4-grr", lam=0.1)),
    ]:
        w_, c_, o = timed(fn, max(R, 3))
        print(f"lattice oracle {label}: {w_:.3f} s (score {o.score:.4f}, {len(o.tokens)} tokens)", flush=True)
        lines.append(f"| lattice oracle, {label}: {lat.n_arcs:,} arcs, {lat.n_states:,} states, 30-word reference | "
                     f"{w_:.3f} ({c_:.3f}) | - | - | oracle {o.score:.4f}, path of {len(o.tokens)} words |")
    vocab = {t: i for i, t in enumerate(dict.fromkeys(ref.split()))}
    r_ids = np.array([vocab[t] for t in ref.split()], dtype=np.int64)
    lab = np.array([-1 if x is None else vocab.get(x, len(vocab) + 1) for x in lat.labels], dtype=np.int64)
    off = lat.arc_off
    w_, c_, _ = timed(lambda: lattice_viterbi(off, lat.dst, lab, lat.weight, lat.final, lat.start, r_ids, 4, 1.0,
                                              0.0, 0.0), max(R, 3))
    print(f"lattice kernel alone: {w_:.4f} s", flush=True)
    lines.append(f"| lattice Viterbi kernel alone (4-GRR, same lattice) | {w_:.4f} ({c_:.4f}) | - | - | "
                 f"{lat.n_arcs * 31 * 4 / 1e6:.1f}M arc x state relaxations |")

    if args.write:
        header = [SECTION, "",
                  f"`PYTHONPATH=src python benchmarks/bench_search.py --segments {args.segments} --cands {args.cands} "
                  f"--repeats {R} --peer-segments {P} --write` ({time.strftime('%Y-%m-%d')}; shared 2-core machine "
                  "with other helpers' jobs running, so wall times are noisy: CPU time in parentheses; median of "
                  "the repeats; mtscore end to end from strings).", "",
                  "| task | mtscore wall s (CPU s) | peer wall s (CPU s) | peer / mtscore wall (CPU) | note |",
                  "|---|---|---|---|---|"]
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
