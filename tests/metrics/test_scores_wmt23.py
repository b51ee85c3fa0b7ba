"""Acceptance of stored scores (``scores:``) on the WMT23 metrics-task data (../shared/data/wmt23):
published COMET, BLEURT-20 and MetricX-23 segment scores give back the published system scores, the tests of
``compare`` agree with independent NumPy/SciPy computations, ``report`` shows COMET beside BLEU, and ``meta``
on system-level files alone equals meta on the segment files. About 15 s."""
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from mtscore.cli.main import main
from conftest import data_path

LPS = {"en-de": "refA", "he-en": "refB", "zh-en": "refA"}
# mt-metrics-eval stores MetricX negated (higher is better, -25..0)
METRICS = {"COMET": "", "BLEURT-20": "", "MetricX-23": ",direction=higher,range=-25..0"}


def cli(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out, err


def read_sys(path):
    out = {}
    for ln in Path(path).read_text(encoding="utf-8").splitlines():
        s, v = ln.split("\t")
        out[s] = float(v)
    return out


def read_seg(path):
    out = {}
    for ln in Path(path).read_text(encoding="utf-8").splitlines():
        s, v = ln.split("\t")
        out.setdefault(s, []).append(float(v))
    return {s: np.array(v) for s, v in out.items()}


@pytest.mark.parametrize("lp", sorted(LPS))
def test_score_reproduces_stored_system_scores(lp, capsys):
    root = data_path("wmt23")
    ref = LPS[lp]
    ms = root / "metric-scores" / lp
    stored = {name: read_sys(ms / f"{name}-{ref}.sys.score") for name in METRICS}
    systems = sorted(s for s in stored["COMET"] if (root / "system-outputs" / lp / f"{s}.txt").exists())
    assert len(systems) >= 12
    specs = [f"scores:{name}={ms}/{name}-{ref}.seg.score{extra}" for name, extra in METRICS.items()]
    out, _ = cli(capsys, "score", "-r", root / "references" / f"{lp}.{ref}.txt",
                 "-i", *[root / "system-outputs" / lp / f"{s}.txt" for s in systems], "-m", *specs, "-f", "json")
    rows = json.loads(out)["rows"]
    assert len(rows) == len(systems)
    for row, s in zip(rows, systems):
        assert row["system"] == s  # the name mtscore shows (common prefix/suffix removed) = the name in the file
        for name in METRICS:
            # the published system score is the mean of the segment scores: equal to round-off
            assert row[name] == pytest.approx(stored[name][s], rel=1e-12, abs=1e-12), (lp, s, name)


def _two(root, a, b):
    d = root / "system-outputs" / "en-de"
    return ["-r", root / "references" / "en-de.refA.txt", "-i", d / f"{a}.txt", d / f"{b}.txt",
            "-m", f"scores:COMET={root}/metric-scores/en-de/COMET-refA.seg.score", "-f", "json"]


@pytest.mark.parametrize("a,b", [("ONLINE-B", "GPT4-5shot"), ("NLLB_Greedy", "NLLB_MBR_BLEU"),
                                 ("ONLINE-A", "ONLINE-Y")])
def test_compare_bootstrap_equals_plain_numpy(a, b, capsys):
    root = data_path("wmt23")
    seg = read_seg(root / "metric-scores/en-de/COMET-refA.seg.score")
    n, seed = 1000, 7
    out, _ = cli(capsys, "compare", *_two(root, a, b), "--resamples", n, "--seed", seed, "--sacrebleu-compat")
    res = json.loads(out)["rows"][1]
    # plain NumPy: sacreBLEU's draws (rng.choice of N indices per resample), mean of the drawn segments,
    # centred |delta| statistic with strict '>' and (c + 1) / (n + 1)
    x, y = seg[a], seg[b]
    idx = np.random.default_rng(seed).choice(len(x), size=(n, len(x)), replace=True)
    d = np.abs(y[idx].mean(axis=1) - x[idx].mean(axis=1))
    obs = abs(y.mean() - x.mean())
    p = (np.count_nonzero(d - d.mean() > obs) + 1) / (n + 1)
    assert res["p"] == p
    assert 0.01 < p < 0.99 or a == "ONLINE-A"


@pytest.mark.parametrize("a,b", [("ONLINE-B", "GPT4-5shot"), ("NLLB_Greedy", "NLLB_MBR_BLEU")])
def test_compare_ar_agrees_with_scipy_permutation_test(a, b, capsys):
    root = data_path("wmt23")
    seg = read_seg(root / "metric-scores/en-de/COMET-refA.seg.score")
    n = 4000
    out, _ = cli(capsys, "compare", *_two(root, a, b), "--test", "ar", "--resamples", n, "--seed", 3)
    p_ours = json.loads(out)["rows"][1]["p"]
    res = sps.permutation_test((seg[a], seg[b]), lambda x, y, axis: np.abs(x.mean(axis) - y.mean(axis)),
                               permutation_type="samples", vectorized=True, n_resamples=n,
                               alternative="greater", random_state=11)
    p_ref = res.pvalue
    se = np.sqrt(p_ref * (1 - p_ref) / n) + np.sqrt(p_ours * (1 - p_ours) / n)
    assert 0.02 < p_ref < 0.98
    assert abs(p_ours - p_ref) < 4 * se, (p_ours, p_ref, se)


def test_report_shows_comet_beside_bleu(capsys, tmp_path):
    root = data_path("wmt23")
    d = root / "system-outputs" / "en-de"
    html = tmp_path / "r.html"
    out, _ = cli(capsys, "report", "-r", root / "references" / "en-de.refA.txt", "-i", d / "ONLINE-A.txt",
                 d / "ONLINE-B.txt", "-m", "bleu", f"scores:COMET={root}/metric-scores/en-de/COMET-refA.seg.score",
                 "--resamples", 50, "--examples", 2, "-o", html, "--no-subset-ci")
    head = out.split("\n")[1]
    assert "BLEU" in head and "COMET" in head and head.index("BLEU") < head.index("COMET")
    stored = read_sys(root / "metric-scores/en-de/COMET-refA.sys.score")
    assert f"{stored['ONLINE-A']:.4f}" in out.split("\n")[3]  # a stored COMET: its own scale, 4 digits (docs/output.md)
    page = html.read_text(encoding="utf-8")
    assert "COMET" in page and "name:COMET|file:" in page
    # best/worst segments are chosen by the first decomposable metric: COMET here (BLEU is not decomposable)
    assert "by COMET (token diff)" in page


@pytest.mark.parametrize("lp", sorted(LPS))
def test_meta_on_system_level_files_equals_segment_files(lp, capsys):
    root = data_path("wmt23")
    ref = LPS[lp]
    ms = root / "metric-scores" / lp
    seg_specs = [f"scores:{n}={ms}/{n}-{ref}.seg.score{extra}" for n, extra in METRICS.items()]
    out_seg, _ = cli(capsys, "meta", "--data", root, "--lp", lp, "--ref", ref, "-m", *seg_specs, "-f", "json")
    sys_args = []
    for n, extra in METRICS.items():
        sys_args += ["--sys-scores", n, ms / f"{n}-{ref}.sys.score"] + [x for x in extra.split(",") if x]
    out_sys, _ = cli(capsys, "meta", *sys_args, "--human-sys", root / "human-scores" / f"{lp}.mqm.sys.score",
                     "-f", "json")
    a, b = json.loads(out_seg), json.loads(out_sys)
    assert a["title"].rsplit(", ", 1)[1] == b["title"].rsplit(", ", 1)[1]  # "<k> systems"
    rows_a = {r["metric"]: r for r in a["rows"]}
    rows_b = {r["metric"]: r for r in b["rows"]}
    assert set(rows_a) == set(rows_b) == set(METRICS)
    for name in METRICS:
        for col, v in rows_a[name].items():
            if col != "metric":
                assert rows_b[name][col] == pytest.approx(v, abs=1e-12), (lp, name, col)
    # and the stored external path of meta (--external, seg + sys files) gives the same numbers
    out_ext, _ = cli(capsys, "meta", "--data", root, "--lp", lp, "--ref", ref,
                     "--external", *[f"{n}-{ref}" for n in METRICS], "-f", "json")
    for r in json.loads(out_ext)["rows"]:
        name = r["metric"].rsplit("-", 1)[0]
        for col, v in r.items():
            if col != "metric":
                assert rows_b[name][col] == pytest.approx(v, abs=1e-12), (lp, name, col)
