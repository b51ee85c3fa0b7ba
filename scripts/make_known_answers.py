"""Known answers of every registered metric on slices of ../shared/data (step 0).

Written BEFORE the kernels were ported from numba to C: the port must leave every per-segment statistic
and every corpus score bit-identical. For each (slice, metric) the file stores

* ``stats_sha256``: SHA-256 of the float64 per-segment statistics (C order, little endian),
* ``shape``, ``columns`` and ``colsum`` (``repr`` of each column's float64 sum, for a readable diff),
* ``corpus``: ``repr`` of the corpus score, ``sentences_sha256``: SHA-256 of the float64 segment scores.

Usage: ``PYTHONPATH=src python scripts/make_known_answers.py [--check]`` (``--check`` compares instead of
writing). ``tests/metrics/test_known_answers.py`` runs the check; ``tests/known_answers/CHANGES.md`` lists the
deliberate changes made since (with the commit that made them).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("MTSCORE_TEST_DATA", ROOT.parent / "shared" / "data"))  # as the tests read it
OUT = ROOT / "tests" / "known_answers" / "metrics.json"

# name -> (hyp file, [ref files], lines, metric params applied to every metric that accepts them)
SLICES = {
    "wmt23-en-de": ("wmt23/system-outputs/en-de/GPT4-5shot.txt", ["wmt23/references/en-de.refA.txt"], 200),
    "wmt23-zh-en": ("wmt23/system-outputs/zh-en/GPT4-5shot.txt", ["wmt23/references/zh-en.refA.txt"], 300),
    "wmt21-en-de-3ref": ("wmt21/system-outputs/newstest2021.en-de.hyp.Facebook-AI.de",
                         ["wmt21/references/newstest2021.en-de.ref.A.de", "wmt21/references/newstest2021.en-de.ref.C.de",
                          "wmt21/references/newstest2021.en-de.ref.D.de"], 250),
    "wmt21-en-zh-2ref": ("wmt21/system-outputs/newstest2021.en-zh.hyp.NiuTrans.zh",
                         ["wmt21/references/newstest2021.en-zh.ref.A.zh", "wmt21/references/newstest2021.en-zh.ref.B.zh"], 200),
    "wmt17-en-de": ("wmt17-en-de/systems/newstest2017.online-A.0.en-de",
                    ["wmt17-en-de/newstest2017.en-de.ref0.de"], 300),
}
# (slice, metric, params): non-default settings that take other kernel paths
VARIANTS = [
    ("wmt21-en-zh-2ref", "bleu", {"tokenize": "zh"}),
    ("wmt21-en-de-3ref", "bleu", {"ref_length": "shortest", "lowercase": True}),
    ("wmt21-en-de-3ref", "bleu", {"tokenize": "intl"}),
    ("wmt23-en-de", "chrf", {"lowercase": True, "whitespace": True}),
    ("wmt23-en-de", "ter", {"normalized": True, "case_sensitive": True}),
    ("wmt17-en-de", "ter", {"asian_support": True, "no_punct": True}),
]
# the metrics with compiled/numba kernels when the file was written (metrics registered later by other
# work are not part of this file: they have no kernel of this port)
METRICS = ['4-grr', 'bleu', 'bleu-sbp', 'chrf', 'chrf++', 'gtm', 'k-grr', 'lcm', 'mper', 'mwer', 'nist', 'per', 'rose', 'rose-rank', 'rose-reg', 'tbleu', 'ter', 'wer', 'wrr']
# metrics that need models/extras not part of the core install are skipped
SKIP = {"rose-regpos", "rose-rankpos"}


def read(path: Path, n: int) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[:n]


def slice_data(name: str):
    hyp, refs, n = SLICES[name]
    hyps = read(DATA / hyp, n)
    streams = [read(DATA / r, n) for r in refs]
    return hyps, [list(seg) for seg in zip(*streams)]


def sha(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f8").tobytes()).hexdigest()


def compute(metric_names=None) -> dict:
    from mtscore.errors import MtscoreError
    from mtscore.metrics.registry import get_metric, metric_names as all_names

    names = [m for m in (metric_names or METRICS) if m not in SKIP]
    out = {}
    for sl in SLICES:
        hyps, refs = slice_data(sl)
        for m in names:
            try:
                metric = get_metric(m)
            except MtscoreError:  # needs parameters (e.g. "scores": external score files): not a kernel metric
                continue
            out[f"{sl}/{m}"] = one(metric, hyps, refs)
    for sl, m, params in VARIANTS:
        hyps, refs = slice_data(sl)
        key = f"{sl}/{m}?" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))
        out[key] = one(get_metric(m, **params), hyps, refs)
    return out


def one(metric, hyps, refs) -> dict:
    if True:
        if True:
            st = metric.stats(hyps, refs)
            v = np.asarray(st.values, dtype=np.float64)
            res = metric.corpus(hyps, refs)
            sent = np.asarray(metric.sentence_scores(st), dtype=np.float64)
            return {
                "columns": list(st.columns), "shape": list(v.shape), "stats_sha256": sha(v),
                "colsum": [repr(float(x)) for x in v.sum(axis=0)], "corpus": repr(float(res.score)),
                "sentences_sha256": sha(sent),
            }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    got = compute()
    if args.check:
        want = json.loads(OUT.read_text())["answers"]
        bad = [k for k in want if want[k] != got.get(k)]
        for k in bad:
            print("DIFFERS:", k, want[k], got.get(k))
        print(f"{len(want) - len(bad)}/{len(want)} identical")
        return 1 if bad else 0
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    OUT.write_text(json.dumps({"commit": commit, "script": "scripts/make_known_answers.py",
                               "slices": {k: {"hyp": v[0], "refs": v[1], "lines": v[2]} for k, v in SLICES.items()},
                               "answers": got}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(got)} answers to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
