"""How often does the composite-set sign test (Collins et al. 2005) contradict itself on real WMT data?

For every pair of systems of every language pair of ../shared/data/wmt21 and ../shared/data/wmt23, run the
sign test in both directions (A as the baseline, then B) and count pairs where the two directions name
different winners ("disagree") and where both directions are significant at alpha = 0.05 with opposite
winners ("contradict", Chiang et al. 2008 §3.1). Metrics: BLEU, BLEU-SBP and every registered
sentence-decomposable metric (4-GRR, WER, TER ... when present), plus a script-local clipped unigram
recall as a decomposable reference that is always available.

Usage: PYTHONPATH=src python scripts/sign_test_contradictions.py [--data ../shared/data] [--out docs/sign-test-wmt.md]
"""
from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mtscore.io.wmt import load_mtme, load_wmt21
from mtscore.metrics.base import Metric
from mtscore.metrics.registry import get_metric, get_metric_class, metric_names
from mtscore.significance import sign_test
from mtscore.tokenize import tokenize_corpus

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class _Cfg:
    tokenize: str = "13a"


class UnigramRecall(Metric):
    """Clipped unigram recall against the best reference (max matches / its length); decomposable:
    corpus = sum(matches) / sum(ref_len), weights = reference lengths (system-independent)."""

    name = "unigram-recall"
    display_name = "unigram recall (decomposable reference)"
    Config = _Cfg
    columns = ("matches", "ref_len")
    decomposable = True

    def _stats(self, hyps, refs):
        toks = tokenize_corpus(hyps, self.config.tokenize)
        out = np.zeros((len(hyps), 2))
        flat = tokenize_corpus([r for seg in refs for r in seg], self.config.tokenize)
        k = 0
        for i, seg in enumerate(refs):
            hc = Counter(toks[i].split())
            best = (-1.0, 0.0)
            for _ in seg:
                rt = flat[k].split()
                k += 1
                rc = Counter(rt)
                mt = sum(min(c, hc[w]) for w, c in rc.items())
                frac = mt / len(rt) if rt else 0.0
                if frac > best[0]:
                    best = (frac, float(len(rt)), float(mt))
            out[i] = (best[2], best[1]) if len(best) == 3 else (0.0, 0.0)
        return out

    def score(self, summed):
        s = np.asarray(summed, dtype=np.float64)
        den = np.where(s[..., 1] > 0, s[..., 1], 1.0)
        return np.where(s[..., 1] > 0, 100.0 * s[..., 0] / den, 0.0)


def datasets(data: Path):
    for lp in ("cs-en", "de-en", "en-de", "en-zh"):
        try:
            d = load_wmt21(data / "wmt21", lp)
        except Exception as exc:  # missing data: say so and go on
            print(f"skip wmt21 {lp}: {exc}")
            continue
        yield f"wmt21 {lp}", ("zh" if lp.endswith("zh") else "13a"), d.systems, d.refs_sentence_major(), \
            f"{len(d.refs)} refs ({','.join(sorted(d.refs))})"
    for lp in ("en-de", "he-en", "zh-en"):
        try:
            d = load_mtme(data / "wmt23", lp)
        except Exception as exc:
            print(f"skip wmt23 {lp}: {exc}")
            continue
        ref = d.std_ref()
        yield f"wmt23 {lp}", "13a", d.mt_systems(), [[r] for r in d.refs[ref]], f"1 ref ({ref})"


def metrics_for(tok: str):
    out = [get_metric("bleu", tokenize=tok), get_metric("bleu-sbp", tokenize=tok)]
    for name in metric_names():
        if name in ("bleu", "bleu-sbp"):
            continue
        cls = get_metric_class(name)
        if getattr(cls, "decomposable", False):
            try:
                out.append(cls(tokenize=tok) if "tokenize" in {f.name for f in __import__("dataclasses").fields(cls.Config)} else cls())
            except Exception as exc:
                print(f"skip metric {name}: {exc}")
    out.append(UnigramRecall(tokenize=tok))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "sign-test-wmt.md"))
    ap.add_argument("--alpha", type=float, default=0.05)
    a = ap.parse_args()
    rows, examples = [], []
    totals: dict[str, list[int]] = {}
    t0 = time.time()
    for label, tok, systems, refs, refdesc in datasets(Path(a.data)):
        names = sorted(systems)
        for m in metrics_for(tok):
            stats = {s: m.stats(systems[s], refs) for s in names}
            n_pairs = dis = con = sig = 0
            for x, y in itertools.combinations(names, 2):
                r = sign_test(m, stats[x], stats[y], names=(x, y), alpha=a.alpha)
                n_pairs += 1
                dis += r.directions_disagree
                con += r.contradictory
                sig += r.forward.p_value < a.alpha
                if r.contradictory and len([e for e in examples if e[0] == label and e[1] == m.display_name]) < 2:
                    examples.append((label, m.display_name, x, y, r))
            label_m = f"{m.display_name}" + (" (decomposable)" if m.decomposable and m.name != "unigram-recall" else "")
            rows.append((label, len(names), refdesc, label_m, n_pairs, sig, dis, con))
            t = totals.setdefault(label_m, [0, 0, 0, 0])
            t[0] += n_pairs; t[1] += sig; t[2] += dis; t[3] += con
            print(f"{label:14s} {label_m:45s} pairs={n_pairs:4d} sig(fwd)={sig:4d} disagree={dis:4d} contradict={con:4d}")
    out = ["# Composite sign test on WMT data: how often does it contradict itself?", "",
           "Generated by `scripts/sign_test_contradictions.py` (mtscore) from `../shared/data/wmt21` and",
           "`../shared/data/wmt23`. For every unordered pair of systems (A, B) the sign test of Collins et al. (2005)",
           "is run in both directions: B's segments swapped one at a time into A's summed statistics (A = baseline),",
           "and A's into B's. *disagree*: the two directions name different winners; *contradict*: in addition,",
           f"both directions are significant at alpha = {a.alpha} (two-sided exact binomial), i.e. each system is",
           "'significantly better' than the other — the paradox of Chiang et al. (2008) §3.1. *sig (fwd)*: pairs",
           "whose forward direction alone is significant. Decomposable metrics use per-segment scores, for which",
           "the two directions mirror each other by construction (0 contradictions is the expected result).", "",
           "wmt21: news systems, all references together (en-zh scored with tokenize=zh); wmt23: mt-metrics-eval",
           "layout, standard reference, MT systems only (human references excluded). BLEU = sacreBLEU defaults,",
           "BLEU-SBP = strict brevity penalty with shortest reference. `unigram recall` is a script-local",
           "decomposable reference metric (clipped unigram matches / best reference length); registered",
           "decomposable metrics (4-GRR, WER, TER ...) are added automatically when present.", "",
           "## Totals", "", "| metric | pairs | sig (fwd) | disagree | contradict |", "|---|---:|---:|---:|---:|"]
    for k, (p, s, d, c) in totals.items():
        out.append(f"| {k} | {p} | {s} | {d} ({100 * d / max(p, 1):.1f}%) | {c} ({100 * c / max(p, 1):.1f}%) |")
    out += ["", "## Per language pair", "", "| data | systems | references | metric | pairs | sig (fwd) | disagree | contradict |",
            "|---|---:|---|---|---:|---:|---:|---:|"]
    for r in rows:
        out.append("| " + " | ".join(map(str, r)) + " |")
    if examples:
        out += ["", "## Examples of contradictions", ""]
        for label, mname, x, y, r in examples:
            f, b = r.forward, r.backward
            out.append(f"- {label}, {mname}: {x} = {r.score_a:.2f}, {y} = {r.score_b:.2f}; baseline {x}: "
                       f"{f.n_plus}+/{f.n_minus}- (p = {f.p_value:.2g}, winner {f.winner}); baseline {y}: "
                       f"{b.n_plus}+/{b.n_minus}- (p = {b.p_value:.2g}, winner {b.winner})")
    out += ["", f"Registered metrics when generated: {', '.join(metric_names())}. Run time {time.time() - t0:.0f} s.", ""]
    Path(a.out).write_text("\n".join(out), encoding="utf-8")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
