"""A/B of ``mtscore score -m bleu --sentence-level -f tsv`` on the 100k synthetic corpus: two source trees
(``--old`` / ``--new``, each a ``src`` folder with its extensions built) in alternating whole-process runs, plus
the loop over sacreBLEU's ``sentence_score`` of ``bench_everyday.py`` (``--peer-runs``), with the same
``bench_everyday.run`` measurement (wall, CPU of the process tree). Checks that both trees print the same bytes
and the sacreBLEU loop the same segment scores.

Usage: ``python benchmarks/sentence_tsv_ab.py --old /path/to/old/src --new src [--runs 7] [--peer-runs 1]``."""
from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_everyday as B  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--peer-runs", type=int, default=1)
    ap.add_argument("--n", type=int, default=100_000)
    a = ap.parse_args()
    hyp, ref = B._synth(a.n)
    cmd = B.MT + ["score", "-q", "-m", "bleu", "--sentence-level", "-f", "tsv", "-r", ref, "-i", hyp]
    env = {k: dict(os.environ, PYTHONPATH=os.path.abspath(p)) for k, p in (("old", a.old), ("new", a.new))}
    res: dict = {"old": [], "new": [], "sacrebleu": []}
    outs = {}
    for i in range(max(a.runs, a.peer_runs)):
        if i < a.runs:
            for k in ("old", "new"):
                w, c, _, so = B.run(cmd, env=env[k])
                res[k].append((w, c))
                outs[k] = so
        if i < a.peer_runs:
            w, c, _, so = B.run([B.PY, "-c", B.SB_SENT, hyp, ref])
            res["sacrebleu"].append((w, c))
            outs["sacrebleu"] = so
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for k, v in res.items() if v}
    for k, (w, c) in med.items():
        print(f"{k}: wall {[round(x[0], 3) for x in res[k]]} median {w:.3f} s, CPU median {c:.3f} s")
    print("old and new print the same bytes:", outs["old"] == outs["new"])
    if "sacrebleu" in med:
        print("segment scores as sacreBLEU's loop:", outs["new"].split("\n")[1:] == outs["sacrebleu"].split("\n")[1:])
        for k in ("old", "new"):
            print(f"{k}: {med['sacrebleu'][0] / med[k][0]:.1f}x wall, {med['sacrebleu'][1] / med[k][1]:.1f}x CPU")
    print("load (1/5/15 min):", " ".join(f"{x:.1f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
