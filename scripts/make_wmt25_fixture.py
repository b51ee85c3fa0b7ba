"""Write tests/fixtures/wmt25/: a small synthetic test set in mt-metrics-eval's WMT25 layout.

The WMT25 data package is not available here, so the WMT25 task set is tested on this fixture, built from the
layout mt-metrics-eval documents (README "File organization and naming convention") and its WMT25 meta-info
(meta_info.py @68a481a: language pairs with locales, standard reference refA, gold esa-human1 except MQM for
ja-zh_CN and en-ko_KR; a second ESA rating esa-human2):

    wmt25/sources/<lp>.txt, references/<lp>.refA.txt, system-outputs/<lp>/<SYS>.txt, documents/<lp>.docs
    wmt25/human-scores/<lp>.<gold>.{seg,sys,domain}.score      (+ <lp>.esa-human2.* for the ESA pairs)
    wmt25/metric-scores/<lp>/<METRIC>-refA.{seg,sys}.score    (reference-based)
    wmt25/metric-scores/<lp>/<METRIC>-src.{seg,sys}.score     (quality estimation)

Scores are drawn from a seeded generator (numpy default_rng(2029), a seed under which no two metrics tie in a
task, so that their order does not depend on round-off): a latent quality per (system, segment), human
scores = rounded noisy copies (ESA 0..100 integers, MQM -25..0 in steps of 1 with many 0s), metric scores = noisier
copies at several scales with ties; some segments are unrated for every system (None), as in WMT files. Texts are
placeholders ("seg N of SYS"). Run: python3 scripts/make_wmt25_fixture.py [OUT_DIR]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

LPS = {"en-cs_CZ": "esa-human1", "ja-zh_CN": "mqm"}
SYSTEMS = ["AyaExpanse-8B", "CommandA", "Gemini-2.5-Pro", "GPT-4.1", "ONLINE-B", "Shy-hunyuan-MT", "refA"]
METRICS = {"BLEU-refA": (30.0, 12.0, 1), "chrF-refA": (55.0, 10.0, 1), "MetricX-25-refA": (-4.0, 2.0, 2),
           "COMETKiwi22-src": (0.75, 0.08, 3), "GEMBA-v2-src": (-3.0, 2.5, 0)}
N_SEG = 24
DOCS = [("news", "news_1")] * 6 + [("social", "social_1")] * 6 + [("news", "news_2")] * 6 + [("speech", "speech_1")] * 6


def fmt(v):
    return "None" if v is None else repr(float(v))


def main(out: Path):
    rng = np.random.default_rng(2029)
    for lp, gold in LPS.items():
        S = len(SYSTEMS)
        quality = rng.normal(size=(S, 1)) * 0.8 + rng.normal(size=(S, N_SEG))
        quality[SYSTEMS.index("refA")] += 1.0
        unrated = rng.random(N_SEG) < 0.15  # whole segments unrated
        for d in ("sources", "references", "documents", f"system-outputs/{lp}", "human-scores", f"metric-scores/{lp}"):
            (out / d).mkdir(parents=True, exist_ok=True)
        (out / "sources" / f"{lp}.txt").write_text("".join(f"source segment {i}\n" for i in range(N_SEG)))
        (out / "references" / f"{lp}.refA.txt").write_text("".join(f"reference {i}\n" for i in range(N_SEG)))
        (out / "documents" / f"{lp}.docs").write_text("".join(f"{d}\t{doc}\n" for d, doc in DOCS))
        for s in SYSTEMS:
            (out / "system-outputs" / lp / f"{s}.txt").write_text("".join(f"seg {i} of {s}\n" for i in range(N_SEG)))
        humans = {}
        kinds = [gold] + (["esa-human2"] if gold.startswith("esa") else [])
        for kind in kinds:
            noise = rng.normal(size=(S, N_SEG)) * 0.6
            if kind == "mqm":
                h = -np.clip(np.round(np.maximum(0, -(quality + noise) * 4 + 2)), 0, 25)
                h = np.where(rng.random((S, N_SEG)) < 0.3, 0.0, h)  # many error-free segments
            else:
                h = np.clip(np.round(70 + 12 * (quality + noise)), 0, 100)
            humans[kind] = np.where(unrated[None, :], np.nan, h)
        for kind, h in humans.items():
            seg = "".join(f"{s}\t{fmt(None if np.isnan(h[i, j]) else h[i, j])}\n" for i, s in enumerate(SYSTEMS)
                          for j in range(N_SEG))
            (out / "human-scores" / f"{lp}.{kind}.seg.score").write_text(seg)
            (out / "human-scores" / f"{lp}.{kind}.sys.score").write_text(
                "".join(f"{s}\t{fmt(np.nanmean(h[i]))}\n" for i, s in enumerate(SYSTEMS)))
            dom = []
            for dname in sorted({d for d, _ in DOCS}):
                mask = np.array([d == dname for d, _ in DOCS])
                for i, s in enumerate(SYSTEMS):
                    v = h[i, mask]
                    dom.append(f"{dname}\t{s}\t{fmt(np.nanmean(v) if (~np.isnan(v)).any() else None)}\n")
            (out / "human-scores" / f"{lp}.{kind}.domain.score").write_text("".join(dom))
        for name, (centre, scale, digits) in METRICS.items():
            m = np.round(centre + scale * (quality + rng.normal(size=(S, N_SEG)) * 1.2) / 2, digits)
            (out / "metric-scores" / lp / f"{name}.seg.score").write_text(
                "".join(f"{s}\t{fmt(m[i, j])}\n" for i, s in enumerate(SYSTEMS) for j in range(N_SEG)))
            (out / "metric-scores" / lp / f"{name}.sys.score").write_text(
                "".join(f"{s}\t{fmt(m[i].mean())}\n" for i, s in enumerate(SYSTEMS)))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/wmt25"))
