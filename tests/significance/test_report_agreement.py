"""One resampling engine: ``compare``, ``report`` and the Python API give the same p-values and
intervals for the same data, seed and settings, and a significance mark never disagrees with the
difference interval printed beside it."""
import contextlib
import io
import json

import numpy as np
import pytest

from conftest import data_path
from mtscore.cli.demo import SAMPLE_SYSTEMS, sample_dir
from mtscore.cli.main import main
from mtscore.metrics.bleu import BLEU
from mtscore.metrics.registry import get_metric
from mtscore.significance import compare_stats


def _json(args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(args + ["-q"]) == 0
    return json.loads(buf.getvalue())


def _check_agree(ref, hyps, metric_args, seed):
    cmp = _json(["compare", "-r", ref, "-i", *hyps, *metric_args, "--seed", str(seed), "-f", "json"])
    rep = _json(["report", "-r", ref, "-i", *hyps, *metric_args, "--seed", str(seed), "-f", "json",
                 "--examples", "0", "--no-subset-ci"])
    cmps = cmp if isinstance(cmp, list) else [cmp]
    scores, diffs = rep["tables"][0], rep["tables"][1]
    assert scores["title"] == "Scores" and diffs["title"].startswith("Differences")
    for c in cmps:
        m = c["comparison"]
        label = get_metric(m["metric"]).display_name
        col = next(c for c in scores["columns"] if c in (label, f"{label} (lower is better)"))
        for i, row in enumerate(scores["rows"]):
            ci = m["ci"][i]
            assert row[col] == m["scores"][i]
            assert row[f"{label} 95% CI"] == [ci["low"], ci["high"]]  # identical floats, not approximately
        base = m["baseline"]
        rows = [x for x in diffs["rows"] if x["metric"] == label]  # the same order: systems after the baseline
        assert len(rows) == len(m["comparisons"])
        for r, dci, row in zip(m["comparisons"], m["delta_ci"], rows):
            assert r["system_a"] == base
            assert row["p"] == r["p_value"]
            j = m["systems"].index(r["system_b"])
            assert row["p_adj"] == m["p_adjusted"][m["systems"].index(base)][j]
            assert row["delta CI"] == [dci["low"], dci["high"]]
            # the mark and the interval cannot disagree
            significant = row["p_adj"] < m["alpha"]
            assert significant == (not dci["low"] <= 0.0 <= dci["high"])
    return cmps


def test_compare_and_report_agree_on_the_builtin_sample():
    d = sample_dir()
    ref = str(d / "newstest2017.en-de.ref.de")
    hyps = [str(d / f"{s}.de") for s in SAMPLE_SYSTEMS]
    cmps = _check_agree(ref, hyps, ["-m", "bleu", "chrf"], 8)
    # docs/significance.md's example: +1.33 BLEU of uedin-nmt over LIUM-NMT is not significant after Holm
    # (raw p = 0.030, adjusted 0.060) and its Holm-level interval includes 0
    bleu = cmps[0]["comparison"]
    k = [r["system_b"] for r in bleu["comparisons"]].index(bleu["systems"][1])
    assert bleu["comparisons"][k]["p_value"] == pytest.approx(30 / 1001)
    assert bleu["delta_ci"][k]["low"] < 0 < bleu["delta_ci"][k]["high"]
    assert bleu["delta_ci"][k]["level"] == pytest.approx(0.975) and bleu["delta_ci"][k]["adjusted"] == "holm"


def test_compare_and_report_agree_on_ted_sk_en(tmp_path):
    d = data_path("ted-sk-en")
    ref = str(d / "ted.ref.detok.eng")
    hyps = [str(d / "ted.sys1.detok.eng"), str(d / "ted.sys2.detok.eng")]
    _check_agree(ref, hyps, ["-m", "bleu", "ter"], 12345)


def test_api_gives_the_same_numbers():
    """significance.compare (texts) == compare_stats (statistics) == the CLI, default seed 12345."""
    from mtscore.significance import compare
    from mtscore.cli.demo import load_sample
    systems, refs = load_sample()
    names = list(systems)[:3]
    api = compare({n: systems[n] for n in names}, refs, "bleu")
    m = BLEU()
    st = compare_stats(m, {n: m.stats(systems[n], refs) for n in names})
    assert api.signature == st.signature and "seed:12345" in api.signature
    for a, b in zip(api.results, st.results):
        assert a.p_value == b.p_value
    assert [c.interval for c in api.cis] == [c.interval for c in st.cis]
    assert [c.pieces for c in api.delta_cis] == [c.pieces for c in st.delta_cis]
    np.testing.assert_array_equal(api.p_adjusted, st.p_adjusted)
