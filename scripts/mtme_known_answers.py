"""Produce tests/known_answers/mtme-wmt23-*.json with google-research/mt-metrics-eval itself.

mt-metrics-eval is a GitHub-only tool (the PyPI package of that name is unrelated): CI cannot reach it, so its
outputs on ../shared/data/wmt23 are stored as known-answer files that tests/meta/test_meta_mtme.py compares against.

How these files were made (the commit is recorded in every output file):

    git --git-dir=<mirror of github.com/google-research/mt-metrics-eval> archive HEAD | tar -x -C /tmp/mtme-src
    python3 -m venv --system-site-packages /tmp/mtme && /tmp/mtme/bin/pip install --no-deps /tmp/mtme-src
    PYTHONHASHSEED=0 /tmp/mtme/bin/python scripts/mtme_known_answers.py --data ../shared/data \
        --commit 68a481aea1a787392d55af8f76ac8ef40c5f4664 --k 0    # values, plain ranks
    for lp in en-de he-en zh-en; do
      PYTHONHASHSEED=0 /tmp/mtme/bin/python scripts/mtme_known_answers.py --data ../shared/data \
        --commit 68a481aea1a787392d55af8f76ac8ef40c5f4664 --k 1000 --sets wmt24 --level sys --lps $lp
      PYTHONHASHSEED=0 /tmp/mtme/bin/python scripts/mtme_known_answers.py --data ../shared/data \
        --commit 68a481aea1a787392d55af8f76ac8ef40c5f4664 --k 100 --sets wmt24 --level seg --lps $lp
    done
        # significance clusters of system-level SPA (k = 1000 as WMT; 796 s en-de, 2,030 s he-en, 2,355 s zh-en
        # on the shared 2-core machine, partly run side by side under load) and of segment-level acc_eq* with tie
        # calibration and the "pairs" test (k = 100, i.e. exactly 100 draws as its block size is 100: 528 s en-de,
        # 1,039 s he-en, 1,609 s zh-en; k = 1000 would take hours per language pair there). Each file records the
        # seconds it took. One process per language pair: np.random.seed(1234) restarts the draws in each.

The k0 files were made again on 2026-11-28 with numpy 2.4.6 / scipy 1.17.1 (recorded in them): SPA sums float32
segment scores, whose exact ties depend on the summation order of the numpy/BLAS build, and the earlier files
(another build) differed in he-en's system-level SPA by 1.3e-5 (every metric; one human p-value) and elsewhere by
round-off (< 3e-16). mtscore equals the run in the current environment to 1e-12.

mt-metrics-eval's data.py imports apache_beam (used only for its optional parallel mode) and ratings.py imports
dacite (used only to read rating files); neither code path runs here, so when they are not installed this script
registers empty stand-in modules under those names before importing mt-metrics-eval. Nothing of mt-metrics-eval
is copied into mtscore: this script only calls it and writes its numbers.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import types


def _stub(name):
    try:
        __import__(name)
    except ImportError:
        sys.modules[name] = types.ModuleType(name)


def _result(res):
    return {"task": res.name,
            "metrics": list(res.corr_ranks),
            "corr": {m: float(v[0]) for m, v in res.corr_ranks.items()},
            "rank": {m: int(v[1]) for m, v in res.corr_ranks.items()},
            "sig_matrix": [[float(x) for x in row] for row in res.matrix.tolist()]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="parent of wmt23/")
    ap.add_argument("--commit", required=True, help="mt-metrics-eval commit being run (recorded in the output)")
    ap.add_argument("--k", type=int, default=0, help="permutation draws (0 = no significance test)")
    ap.add_argument("--out", default="tests/known_answers")
    ap.add_argument("--lps", nargs="+", default=["en-de", "he-en", "zh-en"])
    ap.add_argument("--sets", nargs="+", default=["wmt24", "wmt23"])
    ap.add_argument("--level", choices=("sys", "seg"), help="keep only the tasks of this level (the segment-level "
                    "'pairs' permutation test of mt-metrics-eval takes hours with k=1000)")
    args = ap.parse_args()
    _stub("apache_beam")
    _stub("dacite")
    import numpy as np
    from mt_metrics_eval import data, tasks

    lps = sorted(args.lps)
    # record the system order mt-metrics-eval uses (it iterates a set, so the order depends on PYTHONHASHSEED):
    # SPA's float32 sums can tie exactly, so p-values - and SPA in the 5th digit - depend on that order
    orders = {}
    original = data.EvalSet.Correlation

    def recording(self, gold_scores, metric_scores, sys_names=None, indexes=None):
        names = list(set(gold_scores if sys_names is None else sys_names))
        orders.setdefault(self.lp, {})[str(len(next(iter(gold_scores.values()))))] = names
        return original(self, gold_scores, metric_scores, sys_names, indexes)
    data.EvalSet.Correlation = recording
    evs = {("wmt23", lp): data.EvalSet("wmt23", lp, True, path=args.data) for lp in lps}
    for lp in lps:  # only the stored metrics of ../shared/data are used; record which
        print(lp, sorted(evs[("wmt23", lp)].metric_names), file=sys.stderr)
    for which in args.sets:
        np.random.seed(1234)  # PermutationSigDiff draws from numpy's global generator
        ts, weights = (tasks.WMT24OnWMT23 if which == "wmt24" else tasks.WMT23)(lps, k=args.k)
        if args.level:
            keep = [t for t in ts if t.level == args.level]
            ts = tasks.TaskSet()
            for t in keep:
                ts.Append(t)
            weights = [1 / len(keep)] * len(keep)
        t0 = time.time()
        results = ts.Run(eval_set_dict=evs)
        secs = time.time() - t0
        import scipy
        out = {"tool": "google-research/mt-metrics-eval", "commit": args.commit,
               "numpy": np.__version__, "scipy": scipy.__version__,
               "script": "scripts/mtme_known_answers.py", "task_set": f"tasks.{'WMT24OnWMT23' if which == 'wmt24' else 'WMT23'}",
               "k": args.k, "level": args.level or "all", "numpy_global_seed": 1234, "pythonhashseed": "0", "seconds": round(secs, 1),
               "weights": list(map(float, weights)),
               "system_order": orders,
               "tasks": [_result(r) for r in results],
               "average_ranks": {m: float(v) for m, v in results.AverageRanks(weights).items()},
               "average_corrs": {m: float(v) for m, v in results.AverageCorrs(weights).items()}}
        if args.k:
            cr, mat = results.AverageCorrMatrix(weights)
            out["average_corr_ranks"] = {m: [float(c), int(r)] for m, (c, r) in cr.items()}
            out["average_sig_matrix"] = [[float(x) for x in row] for row in mat.tolist()]
        sub = "" if lps == ["en-de", "he-en", "zh-en"] else "-" + "-".join(lps)
        path = f"{args.out}/mtme-wmt23-{which}{sub}{'-' + args.level if args.level else ''}-k{args.k}.json"
        with open(path, "w") as f:
            json.dump(out, f, indent=1, sort_keys=False)
            f.write("\n")
        print(f"wrote {path} ({secs:.0f}s)", file=sys.stderr)


if __name__ == "__main__":
    main()
