#!/usr/bin/env python
"""Generate the results part of docs/rose.md (like Song & Cohn 2011, Tables 3-5) on WMT23 MQM.

Usage: PYTHONPATH=src python scripts/rose_report.py [--data ../shared/data/wmt23] [--write docs/rose.md]

* segment level: Kendall tau, WMT10 style (docs/definitions.md §9): for every segment, every pair of MT systems that
  both have a human score; pairs with a human tie are dropped, a metric tie counts as discordant;
  tau = (C - D) / (C + D) pooled over all segments of the language pair;
* system level: Spearman rho (Pearson on average ranks) and Pearson r between the corpus scores and
  the human MQM system scores (human-scores/<lp>.mqm.sys.score);
* metrics: the shipped ROSE models (reg, rank; regpos, rankpos when a POS tagger is installed; POS
  variants only on the to-English pairs because the tagger is English), smoothed sentence BLEU
  (sacreBLEU sentence_bleu: exp smoothing, effective order; corpus BLEU at system level), and chrF /
  4-GRR when those metrics are registered;
* he-en and zh-en are the pairs the shipped models were trained on; en-de is unseen (German
  function words, same model);
* kernel comparison (paper Table 3): ROSE-reg trained with linear / polynomial / RBF kernels on
  he-en + zh-en (seed 0; non-linear kernels on a seeded sample of --max-examples examples).

The correlation functions are written here (small, checked against scipy in tests/rose/test_rose_report.py)
because the meta-evaluation package is being written in parallel.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from mtscore.io.wmt import load_mtme  # noqa: E402
from mtscore.metrics.registry import get_metric, metric_names  # noqa: E402
from mtscore.rose.model import load_model  # noqa: E402

BEGIN, END = "<!-- rose_report:begin -->", "<!-- rose_report:end -->"
TRAINED, UNSEEN = ("he-en", "zh-en"), ("en-de",)
FUNCTION_WORDS = {"he-en": "en", "zh-en": "en", "en-de": "de"}


# --- correlations ----------------------------------------------------------------------------------
def kendall_wmt10(metric: np.ndarray, human: np.ndarray) -> tuple[float, int]:
    """metric, human: [n_systems, n_segments], NaN = unrated. Returns (tau, number of pairs)."""
    conc = disc = 0
    n_sys = metric.shape[0]
    for a in range(n_sys):
        for b in range(a + 1, n_sys):
            ok = ~np.isnan(human[a]) & ~np.isnan(human[b])
            dh = human[a, ok] - human[b, ok]
            dm = metric[a, ok] - metric[b, ok]
            keep = dh != 0
            dh, dm = dh[keep], dm[keep]
            c = int(np.sum(np.sign(dh) == np.sign(dm)))  # metric ties (sign 0) never equal a non-zero sign
            conc += c
            disc += len(dh) - c
    tot = conc + disc
    return ((conc - disc) / tot if tot else float("nan")), tot


def pearson(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    x, y = x - x.mean(), y - y.mean()
    d = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / d) if d > 0 else float("nan")


def average_ranks(x) -> np.ndarray:
    x = np.asarray(x, float)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x))
    xs = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and xs[j + 1] == xs[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x, y) -> float:
    return pearson(average_ranks(x), average_ranks(y))


# --- evaluation ------------------------------------------------------------------------------------
def metric_list(pos_ok: bool, lp: str):
    out = [("ROSE-reg", "rose-reg", {}), ("ROSE-rank", "rose-rank", {})]
    if pos_ok and lp.endswith("-en"):
        out += [("ROSE-regpos", "rose-regpos", {}), ("ROSE-rankpos", "rose-rankpos", {})]
    out.append(("BLEU (segment: smoothed sentence BLEU; system: corpus BLEU)", "bleu", {}))
    names = metric_names()
    if "chrf" in names:
        out.append(("chrF", "chrf", {}))
    if "4-grr" in names:
        out.append(("4-GRR", "4-grr", {}))
    return out


def evaluate_lp(root: Path, lp: str, pos_ok: bool):
    data = load_mtme(root, lp)
    ref = data.std_ref()
    refs = [[x] for x in data.refs[ref]]
    seg = data.human_scores("mqm", "seg")
    sys_h = data.human_scores("mqm", "sys")
    systems = sorted(s for s in data.mt_systems() if s in seg and sys_h.get(s) is not None)
    H = np.array([[np.nan if v is None else v for v in seg[s]] for s in systems])
    hs = np.array([sys_h[s] for s in systems])
    rows = []
    for label, name, params in metric_list(pos_ok, lp):
        if name.startswith("rose"):
            params = dict(params, function_words=FUNCTION_WORDS[lp])
        m = get_metric(name, **params)
        seg_scores, corpus = [], []
        for s in systems:
            st = m.stats(data.systems[s], refs)
            seg_scores.append(m.sentence_scores(st))
            corpus.append(m.corpus_from_stats(st).score)
        tau, npairs = kendall_wmt10(np.array(seg_scores), H)
        rows.append((label, tau, spearman(corpus, hs), pearson(corpus, hs), npairs))
    return {"lp": lp, "ref": ref, "n_systems": len(systems), "n_segments": data.n_segments, "rows": rows}


def kernel_models(root: Path, tmp: Path, max_examples: int):
    from mtscore.metrics.rose import load_function_words
    from mtscore.rose.train import collect_mtme, train

    data = collect_mtme(root, list(TRAINED), "mqm", function_words=load_function_words("en"))
    out = []
    for kernel in ("linear", "poly", "rbf"):
        m = train(data, "regression", kernel, seed=0, max_examples=max_examples)
        p = tmp / f"rose-reg-{kernel}.json"
        m.save(p)
        out.append((f"ROSE-reg, {kernel} kernel", p))
    return out


def fmt(x) -> str:
    return "n/a" if x != x else f"{x:.3f}"


def render(results, kernel_results, pos_ok: bool, seconds: float, args) -> str:
    lines = [BEGIN, "", "_Generated by `PYTHONPATH=src python scripts/rose_report.py"
             + (f" --max-examples {args.max_examples}" if args.max_examples != 3000 else "") + f"` in {seconds:.0f} s; do not edit by hand._", ""]
    if not pos_ok:
        lines += ["No POS tagger was installed when this was generated: the -pos variants are left out.", ""]
    for title, lps in (("Trained-on language pairs (he-en, zh-en)", TRAINED), ("Unseen language pair (en-de)", UNSEEN)):
        lines += [f"### {title}", ""]
        for r in (x for x in results if x["lp"] in lps):
            lines += [f"**{r['lp']}** (reference {r['ref']}, {r['n_systems']} MT systems, {r['n_segments']} segments; "
                      f"{r['rows'][0][4]} segment pairs without human tie)", "",
                      "| metric | segment Kendall τ (WMT10) | system Spearman ρ | system Pearson r |",
                      "|---|---:|---:|---:|"]
            lines += [f"| {lab} | {fmt(t)} | {fmt(s)} | {fmt(p)} |" for lab, t, s, p, _ in r["rows"]]
            lines.append("")
    if not kernel_results:
        return "\n".join(lines + ["(kernel comparison skipped: --no-kernels)", "", END])
    lines += ["### Kernel comparison (like the paper's Table 3): ROSE-reg, core features, trained on he-en + zh-en", "",
              "| kernel | " + " | ".join(f"{r['lp']} τ | {r['lp']} ρ" for r in kernel_results) + " |",
              "|---|" + "---:|---:|" * len(kernel_results)]
    labels = [lab for lab, *_ in kernel_results[0]["rows"]]
    for i, lab in enumerate(labels):
        lines.append(f"| {lab} | " + " | ".join(f"{fmt(r['rows'][i][1])} | {fmt(r['rows'][i][2])}" for r in kernel_results) + " |")
    lines += ["", END]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="ROSE meta-evaluation tables for docs/rose.md")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wmt23"))
    ap.add_argument("--write", default=str(ROOT / "docs" / "rose.md"), help="file whose generated section is replaced ('-' = stdout)")
    ap.add_argument("--max-examples", type=int, default=3000, help="sample size for the non-linear kernels")
    ap.add_argument("--no-kernels", action="store_true")
    args = ap.parse_args(argv)
    from mtscore.metrics.rose_pos import tagger_available

    t0 = time.time()
    root = Path(args.data)
    pos_ok = tagger_available("textblob")
    results = [evaluate_lp(root, lp, pos_ok) for lp in TRAINED + UNSEEN]
    kernel_results = []
    if not args.no_kernels:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            models = kernel_models(root, Path(tmp), args.max_examples)
            for lp in TRAINED + UNSEEN:
                r = evaluate_lp_models(root, lp, models)
                kernel_results.append(r)
    text = render(results, kernel_results, pos_ok, time.time() - t0, args)
    if args.write == "-":
        print(text)
        return 0
    path = Path(args.write)
    doc = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + text + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    path.write_text(doc, encoding="utf-8")
    print(f"wrote {path}")
    return 0


def evaluate_lp_models(root: Path, lp: str, models):
    data = load_mtme(root, lp)
    refs = [[x] for x in data.refs[data.std_ref()]]
    seg = data.human_scores("mqm", "seg")
    sys_h = data.human_scores("mqm", "sys")
    systems = sorted(s for s in data.mt_systems() if s in seg and sys_h.get(s) is not None)
    H = np.array([[np.nan if v is None else v for v in seg[s]] for s in systems])
    hs = np.array([sys_h[s] for s in systems])
    base = get_metric("rose-reg", function_words=FUNCTION_WORDS[lp])
    feats = {s: base.features(data.systems[s], refs) for s in systems}  # features once, every model on them
    rows = []
    for label, path in models:
        model = load_model(path)
        seg_scores = np.array([model.decision(feats[s]) for s in systems])
        corpus = seg_scores.mean(axis=1)
        tau, npairs = kendall_wmt10(seg_scores, H)
        rows.append((label, tau, spearman(corpus, hs), pearson(corpus, hs), npairs))
    return {"lp": lp, "rows": rows}


if __name__ == "__main__":
    sys.exit(main())
