"""Segment-level correlations on ../shared/data/wmt23 (MQM) equal google-research/mt-metrics-eval's, to 1e-12.

Known answers: mt-metrics-eval @68a481aea1a787392d55af8f76ac8ef40c5f4664 run once from its source by
scripts/mtme_seg_known_answers.py (``stats.Correlation`` on its own system selection, ``data.GetCorrelations``),
stored in tests/known_answers/mtme-wmt23-seg-corr.json. The file missing is a failure, never a skip; the data
missing is a skip (the tests' data location, conftest.data_path).

Many MQM items have equal human scores for every system (all 0, no error found): their Pearson/Spearman are
undefined (NaN) and drop out of the item average, as in mt-metrics-eval; groups of 2 scores have scipy's p-value
(1.0), not NaN counted as 0.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import data_path
from mtscore.meta import evaluate as E

KA = Path(__file__).resolve().parents[1] / "known_answers" / "mtme-wmt23-seg-corr.json"
LPS = ["en-de", "he-en", "zh-en"]
STATS = {"pearson": "pearson", "spearman": "spearman", "kendall": "kendall", "kendall_c": "tau_c",
         "acc23": "acc_eq", "tau23": "tau_eq", "pdp": "pdp"}
TOL = 1e-12


def _known():
    assert KA.exists(), f"known-answer file missing: {KA} (make it with scripts/mtme_seg_known_answers.py)"
    return json.loads(KA.read_text())


_CACHE: dict = {}


def _inputs(lp):
    """Human MQM and the stored metrics on mt-metrics-eval's systems, as `mtscore meta --data` selects them."""
    if lp not in _CACHE:
        from mtscore.io.wmt import load_mtme
        from mtscore.meta.human import from_mtme
        d = load_mtme(data_path("wmt23"), lp)
        h = from_mtme(d, "mqm")
        systems = [s for s in E.select_systems(list(d.systems), h, references=sorted(d.refs))
                   if not np.isnan(h.row(s)).all()]  # systems without any rating: left out (both tools)
        joined = E.join(h, systems, d.n_segments)
        ref = d.std_ref()
        metrics = {}
        for base in ("BLEU", "chrF", "COMET", "BLEURT-20", "MetricX-23"):
            name = f"{base}-{ref}"
            seg = d.metric_scores(name, "seg")
            sys_ = d.metric_scores(name, "sys")
            metrics[name] = E.from_external(name, seg, sys_, systems, d.n_segments, name)
        _CACHE[lp] = (joined, metrics)
    return _CACHE[lp]


def test_known_answer_file_records_its_origin():
    ka = _known()
    assert ka["tool"] == "google-research/mt-metrics-eval"
    assert ka["commit"] == "68a481aea1a787392d55af8f76ac8ef40c5f4664"
    assert sorted(ka["lps"]) == LPS


@pytest.mark.parametrize("lp", LPS)
@pytest.mark.parametrize("avg_by", ["item", "sys", "none"])
def test_seg_level_equals_mtme(lp, avg_by):
    """Values of every statistic (p-values: test_pvalues_equal_mtme; scipy per group is the slow part)."""
    ka = _known()["lps"][lp]
    joined, metrics = _inputs(lp)
    for name, want in ka["metrics"].items():
        w = want["seg"]
        assert w["n_sys"] == len(joined.systems), (lp, name)
        ours = E.segment_level(metrics[name], joined, tuple(STATS.values()), avg_by=avg_by, want_p=False)
        for key, st in STATS.items():
            if key not in w[avg_by]:  # mt-metrics-eval's PDP by system/pooled is out of reach beyond en-de
                assert key == "pdp" and (avg_by == "none" or lp != "en-de"), (lp, avg_by, key)
                continue
            assert ours[st].value == pytest.approx(w[avg_by][key][0], abs=TOL), (lp, name, avg_by, key)
        # replace_nans_with_zeros: undefined groups count as 0
        ours0 = E.segment_level(metrics[name], joined, ("pearson", "kendall"), avg_by=avg_by, nan_as_zero=True,
                                want_p=False)
        for key, st in (("pearson_nan0", "pearson"), ("kendall_nan0", "kendall")):
            assert ours0[st].value == pytest.approx(w[avg_by][key][0], abs=TOL), (lp, name, avg_by, key)


@pytest.mark.parametrize("lp", LPS)
def test_pvalues_equal_mtme(lp):
    """p-values averaged as mt-metrics-eval averages them: every metric and statistic on en-de (557 items); Pearson
    by item for every metric elsewhere (each item's p-value is a scipy call)."""
    ka = _known()["lps"][lp]
    joined, metrics = _inputs(lp)
    for name, want in ka["metrics"].items():
        w = want["seg"]
        cases = [("item", ("pearson",))] if lp != "en-de" else \
            [(avg, ("pearson", "kendall", "tau_c")) for avg in ("item", "sys", "none")]
        for avg_by, stats in cases:
            ours = E.segment_level(metrics[name], joined, stats, avg_by=avg_by)
            for st in stats:
                key = {"tau_c": "kendall_c"}.get(st, st)
                assert ours[st].pvalue == pytest.approx(w[avg_by][key][1], abs=TOL), (lp, name, avg_by, st)
            if lp == "en-de" and avg_by == "item":
                ours0 = E.segment_level(metrics[name], joined, ("pearson", "kendall"), avg_by="item", nan_as_zero=True)
                for key, st in (("pearson_nan0", "pearson"), ("kendall_nan0", "kendall")):
                    assert ours0[st].pvalue == pytest.approx(w["item"][key][1], abs=TOL), (lp, name, key)


@pytest.mark.parametrize("lp", LPS)
def test_micro_average_equals_mtme(lp):
    """mt-metrics-eval's macro=False: each group weighted by its number of rated cells (library:
    Grouped.average(macro=False))."""
    ka = _known()["lps"][lp]
    joined, metrics = _inputs(lp)
    for name, want in ka["metrics"].items():
        for avg_by in ("item", "sys"):
            c = E._cells(metrics[name], joined, avg_by)
            value, p, n = want["seg"][avg_by]["pearson_micro"]
            with_p = avg_by == "sys" or lp == "en-de"  # each item's p-value is a scipy call: en-de's 557 only
            v, pv, nn = c.grouped.average("pearson", macro=False, pvalues=with_p)
            assert v == pytest.approx(value, abs=TOL), (lp, name, avg_by)
            if with_p:
                assert pv == pytest.approx(p, abs=TOL), (lp, name, avg_by)
            assert nn == n


@pytest.mark.parametrize("lp", LPS)
def test_sys_level_pdp_equals_mtme(lp):
    """System level: mt-metrics-eval's Pearson(pdp=True) over all pairs of systems (= Pearson r)."""
    ka = _known()["lps"][lp]
    joined, metrics = _inputs(lp)
    for name, want in ka["metrics"].items():
        ours = E.system_level(metrics[name], joined, ("pdp", "pearson"))
        assert ours["pdp"].value == pytest.approx(want["sys"]["pdp"][0], abs=TOL), (lp, name)
        assert ours["pearson"].value == pytest.approx(want["sys"]["pearson"][0], abs=TOL), (lp, name)
