"""Meta-evaluation conventions that change numbers: undefined correlations, p-values of small groups,
the WMT24 ESA segment offset, human rows, stored-scores-only runs.

Oracles: scipy.stats (as mt-metrics-eval uses it), mt-metrics-eval's own p-value averaging tests (stats_test.py at
commit 68a481aea1a787392d55af8f76ac8ef40c5f4664: ``testAverageByItem``, ``testAverageByItemWithMissingEntries``,
``testMicroAveraging``, ``testNaNHandling*``: their vectors, the expectations computed with scipy as they are
there; no code copied), and the WMT24 ESA wave files with the test set's documents file.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.stats

from conftest import data_path
from mtscore.meta import _kernels as K
from mtscore.meta import evaluate as E
from mtscore.meta import stats as S
from mtscore.meta.esa import decide_offset, read_wmt24_esa
from mtscore.meta.human import HumanScores, is_human_system


def _sp(fn, a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fn(a, b)
    return float(r[0]), float(r[1])


def _grouped(gold, metric, num_sys, by):
    """mt-metrics-eval's layout: vectors of num_sys consecutive system rows; None gold = unrated (dropped)."""
    g = np.array([np.nan if v is None else v for v in gold], dtype=float).reshape(num_sys, -1)
    m = np.asarray(metric, dtype=float).reshape(num_sys, -1)
    rows = list(zip(g, m)) if by == "sys" else list(zip(g.T, m.T))
    xs, ys, starts = [], [], [0]
    for gr, mr in rows:
        ok = ~np.isnan(gr)
        xs.extend(mr[ok])
        ys.extend(gr[ok])
        starts.append(len(xs))
    return S.Grouped(np.array(xs), np.array(ys), np.array(starts, dtype=np.int64))


# ---------------------------------------------------------------------------------------------
# p-values averaged over groups: mt-metrics-eval's test vectors

def test_average_pvalues_item():
    """testAverageByItem: 2 systems x 3 items, groups of 2 scores: scipy gives p = 1.0 for each (not NaN -> 0)."""
    g, m = [1, 2, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    want = [_sp(scipy.stats.pearsonr, a, b) for a, b in (([1, 4], [2, 3]), ([2, 5], [1, 5]), ([3, 6], [8, 6]))]
    v, p, n = _grouped(g, m, 2, "item").average("pearson")
    assert n == 3
    assert v == pytest.approx(np.mean([w[0] for w in want]), abs=1e-12)
    assert p == pytest.approx(np.mean([w[1] for w in want]), abs=1e-12)
    assert p == pytest.approx(1.0, abs=1e-12)  # the old NaN-as-0 rule gave 0.0 ("highly significant")


def test_average_pvalues_item_missing():
    """testAverageByItemWithMissingEntries: a None gold score leaves item 2 with one score: left out."""
    g, m = [1, None, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1, p3 = _sp(scipy.stats.pearsonr, [1, 4], [2, 3]), _sp(scipy.stats.pearsonr, [3, 6], [8, 6])
    v, p, n = _grouped(g, m, 2, "item").average("pearson")
    assert n == 2
    assert v == pytest.approx((p1[0] + p3[0]) / 2, abs=1e-12)
    assert p == pytest.approx((p1[1] + p3[1]) / 2, abs=1e-12)


def test_average_pvalues_micro():
    """testMicroAveraging: by system, each system's correlation weighted by its number of rated scores."""
    g, m = [1, None, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1, p2 = _sp(scipy.stats.pearsonr, [1, 3], [2, 8]), _sp(scipy.stats.pearsonr, [4, 5, 6], [3, 5, 6])
    v, p, n = _grouped(g, m, 2, "sys").average("pearson", macro=False)
    assert n == 5
    assert v == pytest.approx((2 * p1[0] + 3 * p2[0]) / 5, abs=1e-12)
    assert p == pytest.approx((2 * p1[1] + 3 * p2[1]) / 5, abs=1e-12)


def test_average_by_sys_and_nan_handling():
    """testAverageBySystem, testNaNHandling, testNaNHandlingWithZeros."""
    g, m = [1, 2, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1, p2 = _sp(scipy.stats.pearsonr, [1, 2, 3], [2, 1, 8]), _sp(scipy.stats.pearsonr, [4, 5, 6], [3, 5, 6])
    v, p, _ = _grouped(g, m, 2, "sys").average("pearson")
    assert (v, p) == pytest.approx(((p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2), abs=1e-12)
    g, m = [1, 2, 3, 4, 5, 6], [2, 2, 2, 4, 5, 6]  # system 1's metric scores are constant: undefined
    assert _grouped(g, m, 2, "sys").average("pearson")[0] == pytest.approx(1.0, abs=1e-12)
    assert _grouped(g, m, 2, "sys").average("pearson", nan_as_zero=True)[0] == pytest.approx(0.5, abs=1e-12)


def test_pvalue_small_groups_as_scipy():
    for stat, fn in (("pearson", scipy.stats.pearsonr), ("kendall", scipy.stats.kendalltau)):
        assert S.pvalue(stat, [2, 3], [1, 4]) == _sp(fn, [1, 4], [2, 3])[1] == 1.0
    assert np.isnan(S.pvalue("spearman", [2, 3], [1, 4]))  # scipy: undefined for 2 scores
    assert np.isnan(S.pvalue("pearson", [2], [1]))
    assert np.isnan(S.pvalue("pearson", [1, 2, 3], [5, 5, 5]))


def test_segment_level_pvalue_of_pairs_of_cells():
    """Through the meta path: 2 systems, every item a group of 2 -> p 1.0 (was 0.0), value = mean of +-1."""
    h = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 5.0, 4.5]])
    mt = np.array([[0.1, 0.5, 0.2, 0.9], [0.3, 0.4, 0.6, 0.1]])
    j = E.Joined(["a", "b"], h, h.mean(axis=1), 4)
    ms = E.MetricScores("m", ["a", "b"], mt, mt.mean(axis=1))
    r = E.segment_level(ms, j, ("pearson", "kendall"), avg_by="item")
    want = np.mean([_sp(scipy.stats.pearsonr, h[:, i], mt[:, i])[0] for i in range(4)])
    assert r["pearson"].value == pytest.approx(want, abs=1e-12)
    assert r["pearson"].pvalue == pytest.approx(1.0, abs=1e-12)
    assert r["kendall"].pvalue == pytest.approx(1.0, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Pearson of a constant vector: NaN (scipy, mt-metrics-eval), not round-off

@pytest.mark.parametrize("kernel", ["compiled", "reference"])
def test_pearson_constant_is_nan(kernel):
    fn = K.group_pearson if kernel == "compiled" else K.plain_reference("group_pearson")
    x = np.array([0.3, 0.1, 0.7])
    for y in ([0.1, 0.1, 0.1], [-0.2, -0.2, -0.2], [1e30, 1e30, 1e30]):
        y = np.array(y)
        st = np.array([0, 3], dtype=np.int64)
        assert np.isnan(fn(x, y, np.ones(3), st)[0]), y
        assert np.isnan(fn(y, x, np.ones(3), st)[0]), y
        # weighted: only cells of positive weight count (a resample that drops the one differing cell)
        y2 = np.r_[y, 5.0]
        x2 = np.r_[x, 0.4]
        st2 = np.array([0, 4], dtype=np.int64)
        assert np.isnan(fn(x2, y2, np.array([2.0, 1.0, 1.0, 0.0]), st2)[0])
        assert not np.isnan(fn(x2, y2, np.ones(4), st2)[0])


def test_item_average_drops_constant_items():
    """Items whose human scores are all equal (MQM 0 for every system, or -0.1 ...) drop out of the item average."""
    rng = np.random.default_rng(3)
    h = rng.integers(-5, 1, size=(6, 40)).astype(float) * 0.1
    h[:, ::4] = -0.1  # constant items: round-off in the mean would leave tiny non-zero deviations
    mt = rng.normal(size=(6, 40))
    names = [f"s{i}" for i in range(6)]
    r = E.segment_level(E.MetricScores("m", names, mt, mt.mean(1)), E.Joined(names, h, h.mean(1), 40),
                        ("pearson",), avg_by="item")
    vals = []
    for i in range(40):
        if np.all(h[:, i] == h[0, i]):
            continue
        vals.append(_sp(scipy.stats.pearsonr, h[:, i], mt[:, i])[0])
    assert r["pearson"].value == pytest.approx(np.mean(vals), abs=1e-12)


# ---------------------------------------------------------------------------------------------
# WMT24 ESA: offset decided from the data, human rows, several wave files

DOCS = ["canary", "d1", "d2", "d3", "d4", "d5"]


def _esa(rows):
    return "\n".join(f"u{u},{s},{seg},TGT,eng,ces,{sc},{doc},False,[],1,2" for u, s, seg, sc, doc in rows) + "\n"


def test_esa_offset_from_documents(tmp_path):
    cur = tmp_path / "wave.csv"  # current files: ids count the canary line (offset 0)
    cur.write_text(_esa([(1, "A", 1, 80, "d1"), (1, "A", 3, 70, "d3"), (1, "B", 5, 60, "d5#incomplete"),
                         (1, "B", 2, 50, "d2"), (1, "refA", 4, 99, "d4")]))
    hs = read_wmt24_esa(cur, 6, "en-cs", docs=DOCS)
    assert hs.systems == ["A", "B"]  # refA dropped like other human rows
    np.testing.assert_array_equal(hs.seg[0], [np.nan, 80, np.nan, 70, np.nan, np.nan])
    assert "segment_id + 0" in hs.notes[0] and "refA (1)" in hs.notes[1]
    assert read_wmt24_esa(cur, 6, "en-cs", docs=DOCS, include_human=True).systems == ["A", "B", "refA"]
    old = tmp_path / "old.csv"  # first release: ids without the canary line (offset 1)
    old.write_text(_esa([(1, "A", 0, 80, "d1"), (1, "A", 2, 70, "d3"), (1, "B", 4, 60, "d5")]))
    hs = read_wmt24_esa(old, 6, "en-cs", docs=DOCS)
    np.testing.assert_array_equal(hs.seg[0], [np.nan, 80, np.nan, 70, np.nan, np.nan])
    from mtscore.errors import InvalidParameterError
    with pytest.raises(InvalidParameterError, match=r"--esa-offset 1: 3 of 3 ESA rows name another document"):
        read_wmt24_esa(cur, 6, "en-cs", docs=DOCS, offset=1)
    bad = tmp_path / "bad.csv"  # neither offset fits every row
    bad.write_text(_esa([(1, "A", 1, 80, "d1"), (1, "A", 1, 70, "d2")]))
    with pytest.raises(InvalidParameterError, match="cannot be decided from the documents"):
        read_wmt24_esa(bad, 6, "en-cs", docs=DOCS)
    with pytest.raises(InvalidParameterError, match="cannot be decided from the data"):
        read_wmt24_esa(cur, 6, "en-cs")
    # without documents: the canary rule (a rated segment_id 0 with a canary first line = first-release ids)
    assert decide_offset([(0, "d1"), (2, "d2")], 6, first_line="CANARY GUID 26b5c67b")[0] == 1
    with pytest.raises(InvalidParameterError, match="canary rule does not apply"):
        decide_offset([(1, "d1")], 6, first_line="CANARY GUID 26b5c67b")


def test_esa_several_waves(tmp_path):
    w1, w2 = tmp_path / "w1.csv", tmp_path / "w2.csv"
    w1.write_text(_esa([(1, "A", 1, 80, "d1"), (1, "B", 1, 40, "d1")]))
    w2.write_text(_esa([(2, "A", 1, 60, "d1"), (2, "A", 3, 30, "d3")]))
    hs = read_wmt24_esa([w1, w2], 6, "en-cs", docs=DOCS)
    np.testing.assert_array_equal(hs.seg[0], [np.nan, 70, np.nan, 30, np.nan, np.nan])  # mean over raters


def _wmt24(*parts):
    return data_path("wmt24-news-systems", *parts)


def test_wmt24_esa_en_cs_chrf():
    """WMT24 en-cs ESA (waves 2 and 3 of wmt-conference/wmt24-news-systems): offset 0 from the documents file;
    chrF's segment Pearson 0.240 (the old default offset 1 gave 0.103 and is now refused)."""
    root = _wmt24("txt")
    waves = [str(_wmt24("humeval", f"esa_generalMT2024_wave{w}.csv")) for w in (2, 3)]
    rated = {ln.split(",")[1] for w in waves for ln in open(w, encoding="utf-8") if ",eng,ces," in ln}
    exclude = sorted(p.stem for p in (root / "system-outputs" / "en-cs").glob("*.txt") if p.stem not in rated)
    cmd = [sys.executable, "-m", "mtscore", "meta", "--data", str(root), "--lp", "en-cs", "-m", "chrf",
           "--level", "seg", "--stats", "pearson", "--human-file", *waves, "--human-format", "esa-csv", "-f", "json"]
    if exclude:
        cmd += ["--exclude", *exclude]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    row = res["rows"][0]
    value = row["Pearson r"] if isinstance(row, dict) else row[1]
    assert round(value, 3) == 0.240
    bad = subprocess.run(cmd + ["--esa-offset", "1"], capture_output=True, text=True, timeout=600)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "--esa-offset 1: 1101 of 4470 ESA rows name another document" in bad.stderr


# ---------------------------------------------------------------------------------------------
# human rows, stored scores only, negated TER

def test_human_system_names():
    for s in ("refA", "refB", "ref-A", "synthetic_ref", "Human-A.0", "Human-B.0", "Human-P.0", "HUMAN-B"):
        assert is_human_system(s), s
    for s in ("ONLINE-B", "Humane-MT", "GPT-4", "Preferred"):
        assert not is_human_system(s), s
    assert is_human_system("translator2", references=["translator2"])
    h = HumanScores("mqm", ["A", "B", "Human-B.0", "HUMAN-B"], 2, np.array([[1, 2], [2, 1], [3, 3], [2, 2.0]]))
    assert E.select_systems(["A", "B", "Human-B.0", "HUMAN-B"], h) == ["A", "B"]


def test_sys_scores_human_rows_and_negated_ter(tmp_path, capsys):
    from mtscore.cli.main import main
    human = tmp_path / "mqm.sys.score"
    human.write_text("A\t-1.0\nB\t-2.0\nC\t-3.5\nHuman-B.0\t-0.5\n")
    ter = tmp_path / "TER.sys.score"
    ter.write_text("A\t-0.40\nB\t-0.45\nC\t-0.60\nHuman-B.0\t-0.30\n")
    rc = main(["meta", "--sys-scores", "TER", str(ter), "--human-sys", str(human), "--stats", "pearson"])
    err = capsys.readouterr().err
    assert rc != 0 and "direction=higher" in err and "WMT20" in err and len(err.strip().splitlines()) == 1
    rc = main(["meta", "--sys-scores", "TER", str(ter), "direction=higher", "--human-sys", str(human),
               "--stats", "pearson", "-f", "json"])
    assert rc == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    value = row["Pearson r"] if isinstance(row, dict) else row[1]
    # Human-B.0 is left out like ref*: 3 systems
    assert value == pytest.approx(scipy.stats.pearsonr([-1.0, -2.0, -3.5], [-0.40, -0.45, -0.60])[0], abs=1e-12)


def test_stored_scores_only_without_outputs(tmp_path, capsys):
    """``meta --data`` with --external only: no system outputs and no references are needed."""
    from mtscore.cli.main import main
    src = data_path("wmt23")
    d = tmp_path / "wmt23"
    for sub in ("sources/en-de.txt", "documents/en-de.docs", "human-scores/en-de.mqm.seg.score",
                "human-scores/en-de.mqm.sys.score", "metric-scores/en-de/COMET-refA.seg.score",
                "metric-scores/en-de/COMET-refA.sys.score"):
        (d / sub).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src / sub, d / sub)
    args = ["meta", "--lp", "en-de", "--external", "COMET-refA", "--level", "seg", "--stats", "pearson", "-f", "json"]

    def value(root):
        assert main(["meta", "--data", str(root), *args[1:]]) == 0
        row = json.loads(capsys.readouterr().out)["rows"][0]
        return row["Pearson r"] if isinstance(row, dict) else row[1]
    assert value(d) == value(src)
