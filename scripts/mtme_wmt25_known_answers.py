"""Produce tests/known_answers/mtme-wmt25-fixture-k0.json: mt-metrics-eval's WMT25 task set (``tasks.WMT25``) run
from its source on tests/fixtures/wmt25 (scripts/make_wmt25_fixture.py), the reference for mtscore's
``--task-set wmt25``. The human baseline (the second ESA rating, esa-human2, scored as if it were a metric, as the
WMT25 findings rank it) is given to mt-metrics-eval as a metric file ``esa-human2-src`` in a temporary copy.

    PYTHONHASHSEED=0 /tmp/mtme/bin/python scripts/mtme_wmt25_known_answers.py \
        --commit 68a481aea1a787392d55af8f76ac8ef40c5f4664

(mt-metrics-eval installed from its GitHub source into its own venv, as in scripts/mtme_known_answers.py; never
the unrelated PyPI package). primary=False: every metric of the fixture is ranked (with primary=True
mt-metrics-eval keeps only WMT25's primary submissions). Only numbers are written; nothing is copied into mtscore.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import types
from pathlib import Path


def _stub(name):
    try:
        __import__(name)
    except ImportError:
        sys.modules[name] = types.ModuleType(name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixture", default="tests/fixtures/wmt25")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--out", default="tests/known_answers/mtme-wmt25-fixture-k0.json")
    args = ap.parse_args()
    _stub("apache_beam")
    _stub("dacite")
    import numpy as np
    import scipy
    from mt_metrics_eval import data, tasks

    tmp = Path(tempfile.mkdtemp())
    root = tmp / "wmt25"
    shutil.copytree(args.fixture, root)
    lps = sorted(p.name for p in (root / "metric-scores").iterdir())
    for lp in lps:  # the human baseline as a metric
        for level in ("seg", "sys"):
            src = root / "human-scores" / f"{lp}.esa-human2.{level}.score"
            if src.exists():  # mt-metrics-eval refuses None in metric files: the unrated cells (unrated by the
                # gold too in the fixture, so never used) are written as 0
                text = src.read_text().replace("\tNone\n", "\t0.0\n")
                (root / "metric-scores" / lp / f"esa-human2-src.{level}.score").write_text(text)
    orders = {}
    original = data.EvalSet.Correlation

    def recording(self, gold_scores, metric_scores, sys_names=None, indexes=None):
        names = list(set(gold_scores if sys_names is None else sys_names))
        orders.setdefault(self.lp, names)
        return original(self, gold_scores, metric_scores, sys_names, indexes)
    data.EvalSet.Correlation = recording
    evs = {("wmt25", lp): data.EvalSet("wmt25", lp, True, path=str(tmp)) for lp in lps}
    ts, weights = tasks.WMT25(lps, primary=False, k=0)
    res = ts.Run(eval_set_dict=evs)
    out = {"tool": "google-research/mt-metrics-eval", "commit": args.commit, "numpy": np.__version__,
           "scipy": scipy.__version__, "script": "scripts/mtme_wmt25_known_answers.py", "task_set": "tasks.WMT25",
           "fixture": args.fixture, "k": 0, "pythonhashseed": "0", "lps": lps, "weights": list(map(float, weights)),
           "system_order": orders,
           "tasks": [{"task": r.name, "metrics": list(r.corr_ranks),
                      "corr": {m: float(v[0]) for m, v in r.corr_ranks.items()},
                      "rank": {m: int(v[1]) for m, v in r.corr_ranks.items()}} for r in res],
           "average_ranks": {m: float(v) for m, v in res.AverageRanks(weights).items()},
           "average_corrs": {m: float(v) for m, v in res.AverageCorrs(weights).items()}}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    shutil.rmtree(tmp)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
