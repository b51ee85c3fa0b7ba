"""The WMT25 task set on a fixture in mt-metrics-eval's WMT25 layout, against mt-metrics-eval itself.

The WMT25 data package is not available to the tests, so tests/fixtures/wmt25 (made by
scripts/make_wmt25_fixture.py: two language pairs with locales, ESA gold esa-human1 plus a second rating
esa-human2 for en-cs_CZ, MQM gold for ja-zh_CN, reference-based -refA and quality-estimation -src metrics) was
ranked by mt-metrics-eval @68a481aea1a787392d55af8f76ac8ef40c5f4664 (``tasks.WMT25``, run from its source by
scripts/mtme_wmt25_known_answers.py, the human baseline given to it as a metric) into
tests/known_answers/mtme-wmt25-fixture-k0.json. A missing known-answer file fails.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mtscore.meta import tasks as T

TESTS = Path(__file__).resolve().parents[1]
FIXTURE = TESTS / "fixtures" / "wmt25"
KA = TESTS / "known_answers" / "mtme-wmt25-fixture-k0.json"
METRICS = ["BLEU", "chrF", "MetricX-25", "COMETKiwi22", "GEMBA-v2"]


def _known():
    assert KA.exists(), f"known-answer file missing: {KA} (scripts/mtme_wmt25_known_answers.py)"
    return json.loads(KA.read_text())


def _name(mtme_name):  # mt-metrics-eval's display name: '*' = not primary, '[noref]' = -src (QE)
    return mtme_name.lstrip("*").replace("[noref]", "")


def test_wmt25_definition():
    assert len(T.WMT25_LPS) == 16 and "en-sr_Cyrl_RS" in T.WMT25_LPS and "en-bho_IN" in T.WMT25_LPS
    assert T.default_gold("wmt25", "ja-zh_CN") == T.default_gold("wmt25", "en-ko_KR") == "mqm"
    assert {T.default_gold("wmt25", lp) for lp in T.WMT25_LPS if lp not in T.WMT25_MQM_LPS} == {"esa-human1"}
    assert T.default_gold("wmt24", "en-de") == "mqm"
    assert T.metric_status("wmt25", "MetricX-25") == "primary"
    assert T.metric_status("wmt25", "COMETKiwi22") == "baseline"
    assert T.metric_status("wmt25", "esa-human2") == "human"


def test_wmt25_task_set_equals_mtme():
    ka = _known()
    assert ka["commit"] == "68a481aea1a787392d55af8f76ac8ef40c5f4664" and ka["task_set"] == "tasks.WMT25"
    res = T.run_task_set(FIXTURE, ka["lps"], METRICS, "wmt25", k=0, orders=ka["system_order"])
    assert len(res.tasks) == len(ka["tasks"]) == 4
    from spa_bound import spa_bounds  # SPA: exact sums here, float32 BLAS sums there (tests/spa_bound.py)
    bounds = {lp: spa_bounds(T.load_lp(FIXTURE, lp, METRICS, None, task_set="wmt25",
                                       human_baselines=T.WMT25_HUMAN_BASELINES)) for lp in ka["lps"]}
    assert res.weights == pytest.approx(ka["weights"], abs=1e-15)
    for ours, theirs in zip(res.tasks, ka["tasks"]):
        lp, level = theirs["task"].split("lang=")[1].split()[0], theirs["task"].split("level=")[1].split()[0]
        assert ours.name.startswith(f"{lp} {level}")
        assert list(ours.values) == [_name(m) for m in theirs["metrics"]], ours.name
        for m, v in theirs["corr"].items():
            tol = bounds[lp][_name(m)] if level == "sys" else 1e-12
            assert ours.values[_name(m)] == pytest.approx(v, abs=tol), (ours.name, m)
            assert ours.ranks[_name(m)] == theirs["rank"][m], (ours.name, m)
    assert "esa-human2" in res.tasks[0].values and "esa-human2" not in res.tasks[2].values  # ESA pairs only
    ours_avg = res.average_ranks()
    assert list(ours_avg) == [_name(m) for m in ka["average_ranks"]]
    for m, v in ka["average_ranks"].items():
        assert ours_avg[_name(m)] == pytest.approx(v, abs=1e-12)
    ours_v = res.average_values()
    for m, v in ka["average_corrs"].items():
        tol = max(b.get(_name(m), 0.0) for b in bounds.values()) + 1e-12
        assert ours_v[_name(m)] == pytest.approx(v, abs=tol)


def test_wmt25_cli():
    out = subprocess.run([sys.executable, "-m", "mtscore", "meta", "--data", str(FIXTURE), "--task-set", "wmt25",
                          "--external", *METRICS, "--perm-samples", "0", "-f", "json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    table = json.loads(out.stdout)
    rows = {r["metric"]: r for r in table["rows"]}
    assert set(rows) == set(METRICS) | {"esa-human2"}
    assert rows["esa-human2"]["avg rank"] is None and rows["esa-human2"]["ja-zh_CN sys spa"] == "-"
    ka = _known()
    for m, v in ka["average_ranks"].items():
        assert rows[_name(m)]["avg rank"] == pytest.approx(v, abs=1e-12)


def test_jsonl_layout_reads_like_txt(tmp_path):
    """WMT25 ships sources/references/outputs as jsonl (fields source / target / hypothesis) with per-translation
    metadata (metadata/<lp>/<SYSTEM>.jsonl): the same test set in that layout reads and ranks the same."""
    import shutil
    from mtscore.io.wmt import load_mtme
    root = tmp_path / "wmt25"
    shutil.copytree(FIXTURE, root)
    lp = "en-cs_CZ"

    def to_jsonl(txt, key):
        lines = txt.read_text(encoding="utf-8").split("\n")[:-1]
        txt.with_suffix(".jsonl").write_text("".join(json.dumps({key: x, "lang": "cs"}) + "\n" for x in lines))
        txt.unlink()
    to_jsonl(root / "sources" / f"{lp}.txt", "source")
    to_jsonl(root / "references" / f"{lp}.refA.txt", "target")
    (root / "metadata" / lp).mkdir(parents=True)
    for p in sorted((root / "system-outputs" / lp).glob("*.txt")):
        (root / "metadata" / lp / f"{p.stem}.jsonl").write_text(
            "".join(json.dumps({"segment": i, "llm_judge": False}) + "\n" for i in range(24)))
        to_jsonl(p, "hypothesis")
    a, b = load_mtme(FIXTURE, lp), load_mtme(root, lp)
    assert (a.sources, a.refs, a.systems) == (b.sources, b.refs, b.systems)
    assert sorted(b.metadata) == sorted(b.systems) and b.metadata["CommandA"][3] == {"segment": 3, "llm_judge": False}
    ka = _known()
    ra = T.run_task_set(FIXTURE, ka["lps"], METRICS, "wmt25", orders=ka["system_order"])
    rb = T.run_task_set(root, ka["lps"], METRICS, "wmt25", orders=ka["system_order"])
    assert [t.values for t in ra.tasks] == [t.values for t in rb.tasks]
    bad = root / "system-outputs" / lp / "CommandA.jsonl"
    bad.write_text('{"hypothesis": 3}\n' * 24)
    from mtscore.errors import InputError
    with pytest.raises(InputError, match="string field 'hypothesis'"):
        load_mtme(root, lp)
