"""``meta --spans --span-severity wmt25`` against the official scorer of the WMT25 MTEval shared task 2 (error span
detection): wmt-conference/wmt25-mteval ``scripts/scoring/task2/scoring_esa.py`` @ d1f6ab9 run from its source by
scripts/wmt25_task2_known_answers.py on the 288-segment WMT23 zh-en fixture (gold rater 1; predictions rater 2 and
rater 3's XCOMET-style file) into tests/known_answers/wmt25-task2-spans.json. A missing known-answer file fails."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mtscore.meta import spans as SP

TESTS = Path(__file__).resolve().parents[1]
KA = TESTS / "known_answers" / "wmt25-task2-spans.json"
F = TESTS / "fixtures" / "spans" / "wmt23-zh-en-iaa"


def _known():
    assert KA.exists(), f"known-answer file missing: {KA} (scripts/wmt25_task2_known_answers.py)"
    return json.loads(KA.read_text())


def _run(severity):
    p = subprocess.run([sys.executable, "-m", "mtscore", "meta", "--spans", "--gold",
                        str(F / "zh-en.mqm.rater1.seg.rating"), "--rater2", str(F / "zh-en.mqm.rater2.seg.rating"),
                        "--pred", f"xcomet={F / 'predictions' / 'rater3.xcomet.json'}", "--outputs",
                        str(F / "system-outputs"), "--span-severity", severity, "-f", "json"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return {("rater2" if "(human)" in r["predictor"] else "rater3-xcomet"): r for r in json.loads(p.stdout)["rows"]}


def test_equals_the_official_wmt25_scorer():
    ka = _known()
    assert ka["commit"] == "d1f6ab9a58d2fb64a88ba5b260dc371f142d7e1c" and "scoring_esa.py" in ka["scorer"]
    ours = _run("wmt25")
    for name, want in ka["predictors"].items():
        assert want["cells"] == 288
        row = ours[name]
        assert row["micro P"] == pytest.approx(want["precision"], abs=1e-12), name
        assert row["micro R"] == pytest.approx(want["recall"], abs=1e-12), name
        assert row["micro F1"] == pytest.approx(want["f1"], abs=1e-12), name
        # and the scores.txt its main() wrote as the task ran it (4 significant digits)
        txt = dict(re.findall(r"^(zhen_\w+): ([0-9.]+)$", want["scores_txt"], re.M))
        assert txt["zhen_f1"] == f"{row['micro F1']:.4}" and txt["zhen_rec"] == f"{row['micro R']:.4}"
        assert txt["zhen_prec"] == f"{row['micro P']:.4}"


def test_partial_differs_where_spans_overlap():
    """mtscore's default (a character's most severe span; WMT23/24 QE) and WMT25's counting (every span counts)
    differ on this fixture, whose raters mark overlapping spans: rater 2 vs rater 1 0.3100 against 0.2931."""
    ka = _known()
    part = _run("partial")
    assert round(part["rater2"]["micro F1"], 4) == 0.3100
    assert round(ka["predictors"]["rater2"]["f1"], 4) == 0.2931


def _plain_wmt25(gold, pred, n):
    """Plain Python: per-character major/minor counts, matched counts 1, the rest 0.5 (the task's definition)."""
    def counts(spans):
        M, m = [0] * n, [0] * n
        for a, b, s in spans:
            for c in range(a, b):
                (M if s >= 2 else m)[c] += 1
        return M, m
    gM, gm = counts(gold)
    pM, pm = counts(pred)
    tp = sum(min(a, b) + min(x, y) + 0.5 * min(max(0, a - b) + max(0, x - y), max(0, b - a) + max(0, y - x))
             for a, b, x, y in zip(gM, pM, gm, pm))
    return tp, sum(pM) + sum(pm), sum(gM) + sum(gm)


def test_segment_counts_wmt25_against_plain_python():
    import random
    rnd = random.Random(7)
    for _ in range(300):
        n = rnd.randint(1, 40)

        def spans():
            out = []
            for _ in range(rnd.randint(0, 4)):
                a = rnd.randint(0, n - 1)
                out.append((a, rnd.randint(a + 1, n), rnd.choice((1, 2, 3))))
            return out
        g, p = spans(), spans()
        assert SP.segment_counts(g, p, "wmt25") == pytest.approx(_plain_wmt25(g, p, n), abs=1e-12)
    # two overlapping gold spans count a character twice; critical is major
    assert SP.segment_counts([(0, 4, 2), (2, 4, 1)], [(0, 4, 3)], "wmt25") == (4.0, 4, 6)
    assert SP.segment_counts([(0, 4, 2)], [(0, 4, 1)], "wmt25") == (2.0, 4, 4)  # mismatch: 0.5 a character
