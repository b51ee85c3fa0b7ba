"""Several optimizer runs per system (significance/runs.py) against MultEval's own output on its example data.

Known answers: tests/known_answers/multeval/ -- MultEval (jhclark/multeval @ bd93ed1, built offline without
METEOR by build_multeval.py) run with 10,000 shuffles and 10,000 bootstrap samples; the per-segment
statistics of its example data (make_stats.py). s_opt (MultEval's STDDEV) and the mean over runs must agree to
the 6 printed digits; s_sel and p-values within Monte-Carlo error. About 10 s.
"""
import re
from pathlib import Path

import numpy as np
import pytest

from mtscore.errors import InvalidParameterError
from mtscore.metrics.base import Metric, Stats
from mtscore.metrics.bleu import BLEU
from mtscore.significance.runs import compare_runs, s_opt, stratified_ar

KA = Path(__file__).resolve().parents[1] / "known_answers" / "multeval"
SYSTEMS = {"baseline": "baseline", "sys1": "system 1", "sys2": "system 2"}


class Length(Metric):
    """MultEval's Length metric: 100 * hypothesis length / reference length (summed), from BLEU's columns."""

    name = "length"
    display_name = "Length"
    columns = ("hyp_len", "ref_len")

    class Config:  # no parameters
        pass

    def __init__(self):
        self.config = None

    def score(self, summed):
        s = np.asarray(summed, dtype=np.float64)
        return 100.0 * s[..., 0] / s[..., 1]


def known():
    for f in ("multeval-example.results.txt", "multeval-example.table.txt", "example-bleu-stats.npz"):
        assert (KA / f).exists(), f"known-answer file missing: {KA / f} (tests/known_answers/multeval/README.md)"
    res = {}
    for ln in (KA / "multeval-example.results.txt").read_text().splitlines():
        m = re.fullmatch(r"RESULT: (.+?): (BLEU|Length): (\w+): (\S+)", ln)
        res[(m.group(1), m.group(2), m.group(3))] = m.group(4)
    z = np.load(KA / "example-bleu-stats.npz")
    return res, z["stats"].astype(np.float64), [str(c) for c in z["columns"]]


def runs_of(metric, arr, columns):
    idx = [columns.index(c) for c in metric.columns]
    return {s: [Stats(metric.name, tuple(metric.columns), arr[i, k][:, idx], 1, "") for k in range(arr.shape[1])]
            for i, s in enumerate(SYSTEMS)}


@pytest.fixture(scope="module")
def data():
    return known()


@pytest.mark.parametrize("mname", ["BLEU", "Length"])
def test_mean_and_s_opt_exact(data, mname):
    res, arr, cols = data
    metric = BLEU(tokenize="none") if mname == "BLEU" else Length()
    runs = runs_of(metric, arr, cols)
    for s, label in SYSTEMS.items():
        sc = np.asarray(metric.score(np.stack([st.sum() for st in runs[s]])))
        assert f"{sc.mean():.6f}" == res[(label, mname, "AVG")]
        assert f"{s_opt(sc):.6f}" == res[(label, mname, "STDDEV")]
        assert f"{sc.min():.6f}" == res[(label, mname, "MIN")] and f"{sc.max():.6f}" == res[(label, mname, "MAX")]


@pytest.mark.parametrize("mname", ["BLEU", "Length"])
def test_s_sel_and_p_within_monte_carlo_error(data, mname):
    res, arr, cols = data
    metric = BLEU(tokenize="none") if mname == "BLEU" else Length()
    n_sh, n_boot = (4000 if mname == "Length" else 1000), 1000
    out = {r.system: r for r in compare_runs(metric, runs_of(metric, arr, cols), n_shuffles=n_sh, n_boot=n_boot,
                                             seed=2011)}
    for s, label in SYSTEMS.items():
        theirs = float(res[(label, mname, "RESAMPLED_STDDEV_AVG")])
        # sd of a bootstrap sd estimate ~ sd / sqrt(2 (n - 1)), averaged over 3 runs; theirs used 10,000 samples
        err = theirs / np.sqrt(2 * (n_boot - 1)) / np.sqrt(3) + theirs / np.sqrt(2 * 9999) / np.sqrt(3)
        assert abs(out[s].s_sel - theirs) < 5 * err, (s, out[s].s_sel, theirs)
        if s == "baseline":
            assert out[s].p_value is None
            continue
        p_t = float(res[(label, mname, "P_VALUE")])
        p_o = out[s].p_value
        se = np.sqrt(max(p_t, 1 / 10001) * (1 - p_t) / 10000) + np.sqrt(max(p_o, 1 / (n_sh + 1)) * (1 - p_o) / n_sh)
        assert abs(p_o - p_t) < 4 * se + 1e-3, (s, mname, p_o, p_t)
    if mname == "Length":  # the one p-value of the example away from 0: MultEval printed 0.092291
        assert 0.06 < out["sys1"].p_value < 0.13


def test_stratified_ar_one_run_is_paired_ar_and_identical_systems(data):
    res, arr, cols = data
    metric = Length()
    runs = runs_of(metric, arr, cols)
    # identical systems (MultEval's sys2 = baseline): no shuffle is strictly more different -> p = 1 / (n + 1)
    p, obs = stratified_ar(metric, runs["baseline"], runs["sys2"], 500, seed=1)
    assert obs == 0 and p == 1 / 501
    # one run: the ordinary paired approximate randomization (same statistic as significance/core's AR)
    from mtscore.significance import compare_stats
    p1, _ = stratified_ar(metric, runs["baseline"][:1], runs["sys1"][:1], 4000, seed=3)
    m = compare_stats(metric, {"a": runs["baseline"][0], "b": runs["sys1"][0]}, test="ar", n=4000, seed=4,
                      correction="none")
    p2 = m.results[0].p_value
    assert abs(p1 - p2) < 4 * (np.sqrt(p1 * (1 - p1) / 4000) + np.sqrt(p2 * (1 - p2) / 4000)) + 1e-3


def test_runs_validation(data):
    res, arr, cols = data
    metric = Length()
    runs = runs_of(metric, arr, cols)
    with pytest.raises(InvalidParameterError, match="same number"):
        compare_runs(metric, {"a": runs["baseline"], "b": runs["sys1"][:2]})
    with pytest.raises(InvalidParameterError, match=r"^n_shuffles: must be an integer in 2\.\.10\^7, got 0$"):
        compare_runs(metric, runs, n_shuffles=0)  # the parameter table's rule of n (message template of params)
    with pytest.raises(InvalidParameterError, match=r"^n_boot: must be an integer in 2\.\.10\^7, got 1$"):
        compare_runs(metric, runs, n_boot=1)
    with pytest.raises(InvalidParameterError, match=r"^seed: must be an integer in 0\.\.2\^32-1, got -2$"):
        compare_runs(metric, runs, seed=-2)


def test_cli_runs_score_and_compare(tmp_path, capsys):
    from mtscore.cli.main import main
    ref = tmp_path / "ref"
    ref.write_text("a b c d\ne f g\nh i\n")
    lines = {"A": ["a b c d", "e f x", "h"], "B": ["a b c", "e f g", "h i"]}
    files = []
    for s in ("A", "B"):
        for k in range(3):
            f = tmp_path / f"sys{s}.run{k + 1}"
            ln = list(lines[s])
            ln[k] = ln[k] + " extra"
            f.write_text("\n".join(ln) + "\n")
            files.append(str(f))
    rc = main(["score", "-r", str(ref), "-i", *files, "--runs", "3", "-m", "chrf", "-w", "4"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert re.search(r"\nsysA +\d+\.\d{4} +\d+\.\d{4} +3\n", out) and "runs:3" in out  # sysA.run1..3 -> sysA
    rc = main(["compare", "-r", str(ref), "-i", *files, "--runs", "3", "-m", "chrf", "--resamples", "200", "--n-ci", "50"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "s_sel" in out and "s_opt" in out and "test:multeval-ar|runs:3|shuffles:200|boot:50" in out
    rc = main(["score", "-r", str(ref), "-i", *files[:5], "--runs", "3"])
    err = capsys.readouterr().err
    assert rc == 2 and "5 -i files do not split into groups of 3" in err and len(err.strip().split("\n")) == 1
    rc = main(["compare", "-r", str(ref), "-i", *files, "--runs", "3", "-t", "sign"])
    err = capsys.readouterr().err
    assert rc == 2 and "stratified approximate randomization" in err


def test_cli_runs_json_has_numbers(tmp_path, capsys):
    import json
    from mtscore.cli.main import main
    ref = tmp_path / "ref"
    ref.write_text("a b c d\ne f g\nh i\n")
    files = []
    for s, text in (("A", "a b c d\ne f x\nh\n"), ("B", "a b c\ne f g\nh i\n")):
        for k in range(2):
            f = tmp_path / f"{s}.opt{k}"
            f.write_text(text if k == 0 else text.replace("\n", " z\n", 1))
            files.append(str(f))
    rc = main(["compare", "-r", str(ref), "-i", *files, "--runs", "2", "-m", "chrf", "--resamples", "100", "--n-ci", "20",
               "-f", "json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    rows = json.loads(out)["rows"]
    assert [r["system"] for r in rows] == ["A", "B"]  # A.opt0, A.opt1 -> A (shown without the shared path)
    assert rows[0]["p"] is None and isinstance(rows[1]["p"], float) and 0 < rows[1]["p"] <= 1
    assert isinstance(rows[1]["s_opt"], float) and isinstance(rows[1]["s_sel"], float)


def test_score_runs_mean_and_sd_match_statistics_module(tmp_path, capsys):
    """score --runs: mean and sample sd over the runs' corpus scores equal the statistics module's on
    the corpus scores of each run file scored on its own (score -f json)."""
    import json
    import statistics
    from mtscore.cli.main import main
    ref = tmp_path / "ref"
    ref.write_text("a b c d\ne f g\nh i\n")
    files = []
    for s, text in (("A", "a b c d\ne f x\nh\n"), ("B", "a b c\ne f g\nh i\n")):
        for k in range(3):
            f = tmp_path / f"{s}.run{k}"
            f.write_text(text.replace("\n", " z\n" * 1, k) if k else text)
            files.append(str(f))
    rc = main(["score", "-r", str(ref), "-i", *files, "-m", "chrf", "bleu", "-f", "json"])
    single = json.loads(capsys.readouterr().out)
    assert rc == 0
    per = {r["system"]: r for r in single["rows"]}
    rc = main(["score", "-r", str(ref), "-i", *files, "--runs", "3", "-m", "chrf", "bleu", "-f", "json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    rows = {r["system"]: r for r in out["rows"]}
    assert sorted(rows) == ["A", "B"]
    for g in ("A", "B"):
        for label in ("chrF2", "BLEU"):
            runs = [per[k][label] for k in per if k.startswith(g)]
            assert len(runs) == 3
            assert rows[g][label] == pytest.approx(statistics.mean(runs), abs=1e-12)
            assert rows[g][f"{label} sd"] == pytest.approx(statistics.stdev(runs), abs=1e-12)
        assert rows[g]["runs"] == 3
