"""Produce tests/known_answers/mtme-wmt23-seg-corr.json with google-research/mt-metrics-eval itself.

Segment-level (and system-level PDP) correlations of the stored metrics of ../shared/data/wmt23 against MQM, as
mt-metrics-eval's ``stats.Correlation`` computes them, with its own system selection (``data.GetCorrelations``:
standard reference and other human translations and outliers left out). tests/meta/test_meta_mtme_seg.py compares
mtscore's numbers with these to 1e-12; it fails (does not skip) when this file is missing.

mt-metrics-eval is a GitHub-only tool (the PyPI package of that name is unrelated). How the file was made:

    git --git-dir=<mirror of github.com/google-research/mt-metrics-eval> archive HEAD | tar -x -C /tmp/mtme-src
    python3 -m venv --system-site-packages /tmp/mtme && /tmp/mtme/bin/pip install --no-deps /tmp/mtme-src
    PYTHONHASHSEED=0 /tmp/mtme/bin/python scripts/mtme_seg_known_answers.py --data ../shared/data \
        --commit 68a481aea1a787392d55af8f76ac8ef40c5f4664

(numpy 2.4.6, scipy 1.17.1 from the system site packages). As in scripts/mtme_known_answers.py, empty stand-in
modules are registered for apache_beam and dacite, which mt-metrics-eval imports but does not use on this path.
Nothing of mt-metrics-eval is copied into mtscore: this script only calls it and writes its numbers.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import types


def _stub(name):
    try:
        __import__(name)
    except ImportError:
        sys.modules[name] = types.ModuleType(name)


def _num(v):
    v = float(v)
    return None if math.isnan(v) else v


def _triple(res):
    return [_num(res[0]), _num(res[1]), int(res[2])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="parent of wmt23/")
    ap.add_argument("--commit", required=True, help="mt-metrics-eval commit being run (recorded in the output)")
    ap.add_argument("--out", default="tests/known_answers/mtme-wmt23-seg-corr.json")
    ap.add_argument("--lps", nargs="+", default=["en-de", "he-en", "zh-en"])
    args = ap.parse_args()
    _stub("apache_beam")
    _stub("dacite")
    import numpy as np
    import scipy
    import scipy.stats
    from mt_metrics_eval import data, stats

    out = {"tool": "google-research/mt-metrics-eval", "commit": args.commit,
           "script": "scripts/mtme_seg_known_answers.py", "numpy": np.__version__, "scipy": scipy.__version__,
           "gold": "mqm", "pythonhashseed": "0", "lps": {}}
    for lp in args.lps:
        evs = data.EvalSet("wmt23", lp, True, path=args.data)
        ref = evs.std_ref
        res = {"std_ref": ref, "metrics": {}}
        for level in ("seg", "sys"):
            corrs = data.GetCorrelations(evs, level, {ref}, set(), False, False, "mqm", False)
            for name, c in sorted(corrs.items()):
                base = name.split("-" + ref)[0] if name.endswith("-" + ref) else name
                if base not in ("BLEU", "chrF", "COMET", "BLEURT-20", "MetricX-23"):
                    continue
                m = res["metrics"].setdefault(name, {})
                if level == "sys":
                    m["sys"] = {"pearson": _triple(c.Pearson()), "pdp": _triple(c.Pearson(pdp=True)),
                                "n_sys": c.num_sys}
                    continue
                d = {"n_sys": c.num_sys, "n_items": c.num_items, "none_count": c.none_count}
                for avg in ("item", "none", "sys"):
                    d[avg] = {
                        "pearson": _triple(c.Pearson(average_by=avg)),
                        "spearman": _triple(c.Spearman(average_by=avg)),
                        "kendall": _triple(c.Kendall(average_by=avg)),
                        "kendall_c": _triple(c.Kendall(average_by=avg, variant="c")),
                        "acc23": _triple(c.KendallVariants(average_by=avg, variant="acc23")),
                        "tau23": _triple(c.KendallVariants(average_by=avg, variant="23")),
                        # PDP pooled over all cells ("none") enumerates (systems x items)^2 differences as Python
                        # lists, and by system items^2 per system: out of reach here beyond en-de's 557 items
                        **({"pdp": _triple(c.Pearson(average_by=avg, pdp=True))}
                           if avg == "item" or (avg == "sys" and c.num_items < 600) else {}),
                        # replace_nans_with_zeros: undefined groups count as 0 (their p-values too)
                        "pearson_nan0": _triple(c.AverageCorrelation(scipy.stats.pearsonr, avg, True)(
                            c.gold_scores, c.metric_scores)),
                        "kendall_nan0": _triple(c.AverageCorrelation(scipy.stats.kendalltau, avg, True)(
                            c.gold_scores, c.metric_scores)),
                        # micro average: each group's value weighted by its number of rated cells
                        "pearson_micro": _triple(c.AverageCorrelation(scipy.stats.pearsonr, avg, macro=False)(
                            c.gold_scores, c.metric_scores)),
                    }
                m["seg"] = d
        out["lps"][lp] = res
        print(lp, sorted(res["metrics"]), file=sys.stderr)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
