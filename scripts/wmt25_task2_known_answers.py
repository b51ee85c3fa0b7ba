"""Produce tests/known_answers/wmt25-task2-spans.json: the official scorer of the WMT25 MTEval shared task 2 (error
span detection), wmt-conference/wmt25-mteval ``scripts/scoring/task2/scoring_esa.py``, run from its source on the
288-segment span fixture (tests/fixtures/spans/wmt23-zh-en-iaa), the reference for ``mtscore meta --spans
--span-severity wmt25``.

    git -C /work/.mirror/wmt-conference+wmt25-mteval/repo show \
        d1f6ab9a58d2fb64a88ba5b260dc371f142d7e1c:scripts/scoring/task2/scoring_esa.py > /tmp/scoring_esa.py
    python3 -m venv /tmp/wmt25 && /tmp/wmt25/bin/pip install numpy pandas
    /tmp/wmt25/bin/python scripts/wmt25_task2_known_answers.py --scorer /tmp/scoring_esa.py \
        --commit d1f6ab9a58d2fb64a88ba5b260dc371f142d7e1c

The fixture is written in the scorer's input layout (its ``TSV_FIELDS_RELEASE`` columns plus ``start_indices``,
``end_indices``, ``error_types``; one row per rated translation, ``no-error`` when a translation has none; only
target-side errors: ``is_source_error`` annotations have source offsets) by plain ``json`` parsing here, not by
mtscore. Gold: rater 1; predictions: rater 2 (the rater-agreement row), and rater 3 from its XCOMET-style file. The
scorer is run twice: its ``main()`` as the task ran it (``ref/task2_refs.tsv``, ``res/predictions.tsv`` ->
``scores.txt``, 4 significant digits) and its ``get_char_f1`` on the same rows (full precision). Only numbers are
written; nothing of the scorer is copied into mtscore.
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

FIX = Path("tests/fixtures/spans/wmt23-zh-en-iaa")
FIELDS = ["doc_id", "segment_id", "source_lang", "target_lang", "set_id", "system_id", "source_segment",
          "hypothesis_segment", "reference_segment", "domain_name", "method"]


def read_rating(path):
    """{(system, seg 0-based): [(start, end, severity)]} of the rated translations (target-side errors)."""
    out, count = {}, {}
    for ln in path.read_text(encoding="utf-8").splitlines():
        sysname, val = ln.split("\t", 1)
        k = count.get(sysname, 0)
        count[sysname] = k + 1
        if val == "None":
            continue
        out[(sysname, k)] = [(e["start"], e["end"], e["severity"]) for e in json.loads(val)["errors"]
                             if not e.get("is_source_error")]
    return out


def read_xcomet(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(s, k): [(e["start"], e["end"], e["severity"]) for e in segs[k]] for s, segs in data.items()
            for k in range(len(segs))}


def texts():
    out = {}
    for f in sorted((FIX / "system-outputs").glob("*.txt")):
        for k, line in enumerate(f.read_text(encoding="utf-8").split("\n")[:-1]):
            out[(f.stem, k)] = line
    return out


def rows(cells, spans, hyp):
    out = []
    for (s, k) in cells:
        errs = spans.get((s, k), [])
        row = {"doc_id": f"doc{k}", "segment_id": str(k), "source_lang": "zh", "target_lang": "en",
               "set_id": "official", "system_id": s, "source_segment": "", "hypothesis_segment": hyp[(s, k)],
               "reference_segment": "", "domain_name": "general", "method": "mqm"}
        if errs:
            row["start_indices"] = " ".join(str(a) for a, _, _ in errs)
            row["end_indices"] = " ".join(str(b) for _, b, _ in errs)
            row["error_types"] = " ".join(sv for _, _, sv in errs)
        else:
            row["start_indices"] = row["end_indices"] = ""
            row["error_types"] = "no-error"
        out.append(row)
    return out


def write_tsv(path, rws):
    path.parent.mkdir(parents=True, exist_ok=True)
    cols = FIELDS + ["start_indices", "end_indices", "error_types"]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        w.writerow(cols)
        for r in rws:
            w.writerow([r[c] for c in cols])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scorer", required=True, help="scoring_esa.py of wmt-conference/wmt25-mteval")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--out", default="tests/known_answers/wmt25-task2-spans.json")
    args = ap.parse_args()
    spec = importlib.util.spec_from_file_location("scoring_esa", args.scorer)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import numpy
    import pandas

    hyp = texts()
    gold = read_rating(FIX / "zh-en.mqm.rater1.seg.rating")
    preds = {"rater2": read_rating(FIX / "zh-en.mqm.rater2.seg.rating"),
             "rater3-xcomet": read_xcomet(FIX / "predictions" / "rater3.xcomet.json")}
    result = {"scorer": "wmt-conference/wmt25-mteval scripts/scoring/task2/scoring_esa.py", "commit": args.commit,
              "fixture": str(FIX), "gold": "zh-en.mqm.rater1.seg.rating",
              "numpy": numpy.__version__, "pandas": pandas.__version__, "predictors": {}}
    for name, pred in preds.items():
        cells = sorted(set(gold) & set(pred)) if name == "rater2" else sorted(gold)
        g_rows, p_rows = rows(cells, gold, hyp), rows(cells, pred, hyp)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            write_tsv(tmp / "in" / "ref" / "task2_refs.tsv", g_rows)
            write_tsv(tmp / "in" / "res" / "predictions.tsv", p_rows)
            (tmp / "out").mkdir()
            subprocess.run([sys.executable, args.scorer, str(tmp / "in"), str(tmp / "out")], check=True)
            scores_txt = (tmp / "out" / "scores.txt").read_text(encoding="utf-8")
        lens = [len(hyp[c]) for c in cells]
        g_err = [mod.get_error_list(r) for r in g_rows]
        p_err = [mod.get_error_list(r) for r in p_rows]
        p, r, f1 = mod.get_char_f1(lens, g_err, p_err, partial_credit=0.5)
        result["predictors"][name] = {"cells": len(cells), "precision": float(p), "recall": float(r),
                                      "f1": float(f1), "scores_txt": scores_txt}
        print(name, len(cells), p, r, f1)
        print(scores_txt)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
