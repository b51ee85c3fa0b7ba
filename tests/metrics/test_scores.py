"""Stored metric scores as a metric (``scores:NAME=FILE``): readers, binding, validation, signature, and the
commands that use it. The wmt23 acceptance checks are in test_scores_wmt23.py."""
import json
import math

import numpy as np
import pytest

from mtscore.cli.main import main
from mtscore.errors import InputError, InvalidParameterError
from mtscore.io.scores import read_score_file
from mtscore.metrics.base import stats_for
from mtscore.metrics.registry import get_metric
from mtscore.metrics.scores import ExternalScores, name_candidates


@pytest.fixture
def corpus(tmp_path):
    (tmp_path / "ref.txt").write_text("a b c\nd e\n\nf\n", encoding="utf-8")
    (tmp_path / "sysA.txt").write_text("a b c\nd\n\nf g\n", encoding="utf-8")
    (tmp_path / "sysB.txt").write_text("a c\nd e\nx\nf\n", encoding="utf-8")
    return tmp_path


A = [0.5, 0.25, 1.0, 0.75]
B = [0.4, 0.5, 0.0, 1.0]


def cli(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def one_line_error(err: str, *needles):
    lines = err.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("mtscore: error: "), err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def write_lines(path, vals):
    path.write_text("".join(f"{v}\n" for v in vals), encoding="utf-8")
    return path


def base_args(tmp):
    return ["score", "-r", tmp / "ref.txt", "-i", tmp / "sysA.txt", tmp / "sysB.txt", "-f", "json", "-w", "6"]


def scores_of(out, label):
    return [row[label] for row in json.loads(out)["rows"]]


# ------------------------------------------------------------------------------------------------
# formats
def test_lines_pattern_binds_by_system_name(corpus, capsys):
    write_lines(corpus / "comet.sysA.txt", A)
    write_lines(corpus / "comet.sysB.txt", B)
    rc, out, err = cli(capsys, *base_args(corpus), "-m", "bleu", f"scores:COMET={corpus}/comet.{{system}}.txt")
    assert rc == 0, err
    assert scores_of(out, "COMET") == pytest.approx([np.mean(A), np.mean(B)], abs=0, rel=1e-15)


def test_mtme_seg_file_and_scores_option(corpus, capsys):
    f = corpus / "X.seg.score"
    f.write_text("".join(f"sysB\t{v}\n" for v in B) + "".join(f"sysA\t{v}\n" for v in A)
                 + "other\t1\nother\t1\nother\t1\nother\t1\n", encoding="utf-8")
    rc, out, err = cli(capsys, *base_args(corpus), "-m", "chrf", "--scores", "BLEURT-20", f)
    assert rc == 0, err
    assert scores_of(out, "BLEURT-20") == pytest.approx([np.mean(A), np.mean(B)])
    sig = json.loads(out)["notes"][1]
    assert sig.startswith("BLEURT-20|name:BLEURT-20|file:") and "|agg:mean|dir:higher|" in sig


def test_tsv_is_one_based_any_order(corpus, capsys):
    f = corpus / "s.tsv"
    rows = [f"sysA\t{i + 1}\t{v}" for i, v in enumerate(A)] + [f"sysB\t{i + 1}\t{v}" for i, v in enumerate(B)]
    f.write_text("\n".join(reversed(rows)) + "\n", encoding="utf-8")
    rc, out, err = cli(capsys, *base_args(corpus), "-m", f"scores:COMET={f}")
    assert rc == 0, err
    assert scores_of(out, "COMET") == pytest.approx([np.mean(A), np.mean(B)])
    # 0-based ids are an error unless declared
    f0 = corpus / "s0.tsv"
    f0.write_text("\n".join(f"sysA\t{i}\t{v}" for i, v in enumerate(A)) + "\n", encoding="utf-8")
    rc, _, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", "-m", f"scores:COMET={f0}")
    assert rc == 3
    one_line_error(err, "s0.tsv:1", "1-based", "seg_base=0")
    rc, out, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", "-f", "json",
                       "-m", f"scores:COMET={f0},seg_base=0")
    assert rc == 0, err
    assert scores_of(out, "COMET") == pytest.approx([np.mean(A)])


def test_tsv_duplicate_and_gap(corpus, capsys):
    f = corpus / "d.tsv"
    f.write_text("sysA\t1\t0.1\nsysA\t1\t0.2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"d.tsv:2: .*segment 1 appears twice \(first on line 1\)"):
        read_score_file(str(f))
    f.write_text("sysA\t1\t0.1\nsysA\t3\t0.2\n", encoding="utf-8")
    with pytest.raises(InputError, match="no row for segment 2"):
        read_score_file(str(f))


def test_comet_json_layout_and_text_check(corpus, capsys):
    # the layout of comet-score --to_json (Unbabel/COMET comet/cli/score.py): {translation file: [segments]}
    hyps = {"sysA.txt": (corpus / "sysA.txt").read_text().split("\n")[:4],
            "sysB.txt": (corpus / "sysB.txt").read_text().split("\n")[:4]}
    obj = {f"out/{k}": [{"src": "s", "mt": h, "ref": "r", "COMET": v} for h, v in zip(hyps[k], vals)]
           for k, vals in (("sysA.txt", A), ("sysB.txt", B))}
    f = corpus / "comet.json"
    f.write_text(json.dumps(obj), encoding="utf-8")
    rc, out, err = cli(capsys, *base_args(corpus), "-m", f"scores:COMET={f}")
    assert rc == 0, err
    assert scores_of(out, "COMET") == pytest.approx([np.mean(A), np.mean(B)])
    # a JSON whose 'mt' texts are not the system's lines is refused (scores of another output)
    obj["out/sysA.txt"][1]["mt"] = "something else"
    f.write_text(json.dumps(obj), encoding="utf-8")
    m = get_metric("scores", COMET=str(f))
    with pytest.raises(InputError, match="entry 2 of 'out/sysA.txt' scored a different text than line 2"):
        stats_for(m, "sysA.txt", hyps["sysA.txt"], None)


# ------------------------------------------------------------------------------------------------
# validation: each a one-line error
def test_line_count_mismatch(corpus, capsys):
    write_lines(corpus / "c.sysA.txt", A[:3])
    rc, _, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt",
                     "-m", f"scores:COMET={corpus}/c.{{system}}.txt")
    assert rc == 3
    one_line_error(err, "3 segment scores for system", "which has 4 segments")


@pytest.mark.parametrize("bad,kind", [("None", "None"), ("nan", "nan"), ("inf", "inf"), ("-inf", "inf")])
def test_missing_values_error_or_skip(corpus, capsys, bad, kind):
    vals = [0.5, bad, 1.0, 0.75]
    write_lines(corpus / "c.sysA.txt", vals)
    args = ["score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", "-f", "json", "-w", "6",
            "-m", f"scores:COMET={corpus}/c.{{system}}.txt"]
    rc, _, err = cli(capsys, *args)
    assert rc == 3
    one_line_error(err, f"segment 2 has no finite score ({kind})", "--missing skip", "c.sysA.txt:2")
    rc, out, err = cli(capsys, *args, "--missing", "skip")
    assert rc == 0, err
    assert scores_of(out, "COMET") == pytest.approx([np.mean([0.5, 1.0, 0.75])])
    assert f"left out 1 of 4 segment scores" in err and f"({kind}: 1)" in err and "mean is over the other 3" in err
    assert "missing:skip" in out


def test_unknown_system_and_duplicates(corpus, capsys):
    f = corpus / "x.seg.score"
    f.write_text("".join(f"sysA\t{v}\n" for v in A) + "".join(f"sysC\t{v}\n" for v in B), encoding="utf-8")
    rc, _, err = cli(capsys, *base_args(corpus), "-m", f"scores:COMET={f}")
    assert rc == 3
    one_line_error(err, "system", "sysB.txt", "is not in", "unknown system", "sysA, sysC")
    # a system in two separate blocks of an mt-metrics-eval file
    f.write_text("sysA\t1\nsysA\t1\nsysB\t1\nsysB\t1\nsysA\t1\nsysA\t1\nsysB\t1\nsysB\t1\n", encoding="utf-8")
    rc, _, err = cli(capsys, *base_args(corpus), "-m", f"scores:COMET={f}")
    one_line_error(err, "x.seg.score:5", "'sysA' appears in two separate blocks", "duplicate system")
    # two systems answering to the same entry
    (corpus / "d1").mkdir()
    (corpus / "d1" / "sysA.txt").write_text((corpus / "sysA.txt").read_text())
    f.write_text("".join(f"sysA\t{v}\n" for v in A), encoding="utf-8")
    rc, _, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", corpus / "d1" / "sysA.txt",
                     "-m", f"scores:COMET={f}")
    one_line_error(err, "both match 'sysA'", "duplicate system")
    # one single-system file for two systems
    write_lines(corpus / "one.txt", A)
    rc, _, err = cli(capsys, *base_args(corpus), "-m", f"scores:COMET={corpus / 'one.txt'}")
    one_line_error(err, "holds the scores of ONE system", "{system} pattern")
    # a pattern that finds no file
    rc, _, err = cli(capsys, *base_args(corpus), "-m", f"scores:COMET={corpus}/none.{{system}}.txt")
    one_line_error(err, "no score file for system", "none.sysA.txt", "none.sysA")


def test_system_level_file_where_segments_are_needed(corpus, capsys):
    f = corpus / "COMET.sys.score"
    f.write_text("sysA\t0.6\nsysB\t0.5\n", encoding="utf-8")
    for cmd in ("score", "compare"):
        rc, _, err = cli(capsys, cmd, "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", corpus / "sysB.txt",
                         "-m", f"scores:COMET={f}")
        assert rc == 3
        one_line_error(err, "holds system-level scores", "needs segment scores", "meta --sys-scores")


def test_direction_declared_or_error(corpus, capsys):
    write_lines(corpus / "q.sysA.txt", A)
    rc, _, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt",
                     "-m", f"scores:MyQE={corpus}/q.{{system}}.txt")
    assert rc == 2
    one_line_error(err, "scores:MyQE: unknown metric name", "direction=higher")
    m = ExternalScores(MyQE="f", direction="lower")
    assert m.higher_is_better is False and m.range == (-math.inf, math.inf)
    assert ExternalScores(COMET="f").higher_is_better is True
    assert ExternalScores(**{"BLEURT-20": "f"}).higher_is_better is True  # not BLEU's entry
    assert ExternalScores(COMETKiwi="f").higher_is_better is True and ExternalScores(**{"TER-refA": "f"}).range[0] == 0
    with pytest.raises(InvalidParameterError, match="unknown metric name"):
        ExternalScores(Damerau="f")  # not DA
    mx = ExternalScores(**{"MetricX-23": "f"})
    assert mx.higher_is_better is False and mx.range == (0.0, 25.0)
    with pytest.raises(InvalidParameterError, match="range must be written LO..HI"):
        ExternalScores(COMET="f", range="0-1")
    with pytest.raises(InvalidParameterError, match="direction: must be one of: higher, lower, got 'up'"):
        ExternalScores(COMET="f", direction="up")


def test_range_violation_names_the_line_and_hints_metricx(corpus, capsys):
    write_lines(corpus / "mx.sysA.txt", [-1.5, 2.0, 3.0, 4.0])
    rc, _, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt",
                     "-m", f"scores:MetricX-23={corpus}/mx.{{system}}.txt")
    assert rc == 3
    one_line_error(err, "mx.sysA.txt:1", "-1.5 is outside the declared range 0..25", "by more than 5%",
                   "direction=higher,range=-25..0")
    rc, out, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", "-f", "json",
                       "-m", f"scores:MetricX-23={corpus}/mx.{{system}}.txt,direction=higher,range=-25..25")
    assert rc == 0, err


def test_not_a_number_and_bad_format(corpus, capsys):
    write_lines(corpus / "c.sysA.txt", [0.5, "abc", 1.0, 0.75])
    rc, _, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt",
                     "-m", f"scores:COMET={corpus}/c.{{system}}.txt")
    one_line_error(err, "c.sysA.txt:2", "'abc' is not a number")
    (corpus / "w.txt").write_text("a\tb\tc\td\n")
    with pytest.raises(InputError, match="4 TAB-separated fields"):
        read_score_file(str(corpus / "w.txt"))


def test_signature_carries_name_digest_aggregation_direction(corpus):
    f = write_lines(corpus / "c.txt", A)
    m = ExternalScores(COMET=str(f))
    st = stats_for(m, "sysA.txt", ["x"] * 4, None)
    import hashlib
    digest = hashlib.sha256(f.read_bytes()).hexdigest()[:12]
    assert st.signature.startswith(f"name:COMET|file:{digest}|agg:mean|dir:higher|version:mtscore-")
    assert m.score(st.sum()) == pytest.approx(np.mean(A))
    np.testing.assert_array_equal(m.sentence_scores(st), A)


def test_name_candidates():
    assert name_candidates("out/en-de/ONLINE-A.txt") == ["out/en-de/ONLINE-A.txt", "ONLINE-A.txt", "ONLINE-A"]
    assert name_candidates("ONLINE-A") == ["ONLINE-A"]


def test_audits_reusing_text_say_so_in_one_line(corpus, capsys):
    write_lines(corpus / "c.sysA.txt", A)
    rc, _, err = cli(capsys, "audit", "deletion", "-r", corpus / "ref.txt",
                     "-m", f"scores:COMET={corpus}/c.{{system}}.txt")
    assert rc == 2
    one_line_error(err, "stored scores belong to named systems", "cannot score other text")


def _twice(corpus):
    """The 4-segment corpus twice (8 segments: compare tests from 6 segments on, docs/significance.md)."""
    for name in ("ref.txt", "sysA.txt", "sysB.txt"):
        text = (corpus / name).read_text(encoding="utf-8")
        (corpus / name).write_text(text + text, encoding="utf-8")


def test_compare_sign_and_audit_sign_on_stored_scores(corpus, capsys):
    write_lines(corpus / "c.sysA.txt", A)
    write_lines(corpus / "c.sysB.txt", B)
    spec = f"scores:COMET={corpus}/c.{{system}}.txt"
    rc, out, err = cli(capsys, "compare", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", corpus / "sysB.txt",
                       "-m", spec, "--test", "sign")
    assert rc == 0, err
    assert "no significance test on 4 segments" in out  # too few for any paired test
    _twice(corpus)
    write_lines(corpus / "c.sysA.txt", A + A)
    write_lines(corpus / "c.sysB.txt", B + B)
    rc, out, err = cli(capsys, "compare", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", corpus / "sysB.txt",
                       "-m", spec, "--test", "sign")
    assert rc == 0, err
    # B beats A on segments 2 and 4, loses on 1 and 3 (twice): 4+/4-/0= in the segment sign test
    assert "4/4/0" in out
    rc, out, err = cli(capsys, "audit", "sign", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt",
                       corpus / "sysB.txt", "-m", spec)
    assert rc == 0, err
    # the row and the signature name the metric as `mtscore score` does (COMET|..., not scores:COMET|...)
    row = next(line for line in out.splitlines() if line.startswith("COMET "))
    assert row.split()[1] == "segment" and row.count("4+/4-/0=") == 2, out  # forward and backward
    sig = next(line for line in out.splitlines() if "|file:" in line)
    assert sig.startswith("COMET|name:COMET|file:") and "|test:sign|sign:segment|" in sig, out


# ------------------------------------------------------------------------------------------------
# meta on system-level files alone
def _sys_file(path, rows):
    path.write_text("".join(f"{s}\t{v}\n" for s, v in rows), encoding="utf-8")
    return path


def test_meta_system_level_only(tmp_path, capsys):
    from scipy import stats as sps
    human = _sys_file(tmp_path / "h.sys.score", [("s1", -3.0), ("s2", -1.0), ("s3", -2.0), ("s4", None),
                                                 ("refA", 0.0)])
    comet = _sys_file(tmp_path / "COMET.sys.score", [("s1", 0.7), ("s2", 0.9), ("s3", 0.75), ("s4", 0.8),
                                                     ("refA", 0.99), ("other", 0.5)])
    mx = _sys_file(tmp_path / "mx.tsv", [("s1", 9.0), ("s2", 2.0), ("s3", 4.0), ("s4", 5.0), ("refA", 1.0)])
    rc, out, err = cli(capsys, "meta", "--sys-scores", "COMET", comet, "--sys-scores", "MetricX-23", mx,
                       "--human-sys", human, "-f", "json", "--stats", "pearson", "kendall")
    assert rc == 0, err
    rows = {r["metric"]: r for r in json.loads(out)["rows"]}
    # s4 has no human score (None = unrated) and refA is a human "system": s1..s3 are correlated
    h = [-3.0, -1.0, -2.0]
    assert rows["COMET"]["Pearson r"] == pytest.approx(sps.pearsonr([0.7, 0.9, 0.75], h)[0])
    # MetricX is lower-is-better (built-in table): negated before correlating
    assert rows["MetricX-23"]["Pearson r"] == pytest.approx(sps.pearsonr([-9.0, -2.0, -4.0], h)[0])
    assert rows["MetricX-23"]["Kendall tau_b"] == pytest.approx(1.0)


def test_meta_system_level_only_errors(tmp_path, capsys):
    human = _sys_file(tmp_path / "h.sys.score", [("s1", -3.0), ("s2", -1.0), ("s3", -2.0)])
    comet = _sys_file(tmp_path / "c.sys.score", [("s1", 0.7), ("s2", 0.9)])
    rc, _, err = cli(capsys, "meta", "--sys-scores", "COMET", comet, "--human-sys", human)
    assert rc == 3
    one_line_error(err, "--sys-scores COMET: no score for system(s) s3", "--exclude")
    seg = _sys_file(tmp_path / "c.seg.score", [("s1", 0.7), ("s1", 0.8), ("s2", 0.9), ("s2", 0.9)])
    rc, _, err = cli(capsys, "meta", "--sys-scores", "COMET", seg, "--human-sys", human)
    one_line_error(err, "expected system-level scores", "2 lines per system")
    nan = _sys_file(tmp_path / "n.sys.score", [("s1", 0.7), ("s2", "nan"), ("s3", 0.1)])
    rc, _, err = cli(capsys, "meta", "--sys-scores", "COMET", nan, "--human-sys", human)
    one_line_error(err, "system 's2' has no finite score (nan)")
    rc, _, err = cli(capsys, "meta", "--sys-scores", "Foo", comet, "--human-sys", human)
    assert rc == 2
    one_line_error(err, "scores:Foo: unknown metric name", "direction=higher")
    rc, _, err = cli(capsys, "meta", "--sys-scores", "COMET", comet, "--human-sys", human, "--level", "seg")
    one_line_error(err, "--level seg", "--level sys only")
    rc, _, err = cli(capsys, "meta", "--sys-scores", "COMET", comet)
    one_line_error(err, "give both")


def test_human_sys_nonfinite_is_an_error(tmp_path, capsys):
    human = _sys_file(tmp_path / "h.sys.score", [("s1", -3.0), ("s2", "nan"), ("s3", -2.0)])
    comet = _sys_file(tmp_path / "c.sys.score", [("s1", 0.7), ("s2", 0.9), ("s3", 0.8)])
    rc, _, err = cli(capsys, "meta", "--sys-scores", "COMET", comet, "--human-sys", human)
    assert rc == 3
    one_line_error(err, "h.sys.score", "'s2' has a non-finite score (nan)", "None marks an unrated system")


def test_saved_statistics_rescore(corpus, capsys):
    write_lines(corpus / "c.sysA.txt", A)
    write_lines(corpus / "c.sysB.txt", B)
    pytest.importorskip("pyarrow")
    rc, out1, err = cli(capsys, *base_args(corpus), "-m", "chrf", f"scores:COMET={corpus}/c.{{system}}.txt",
                        "--save-stats", corpus / "st")
    assert rc == 0, err
    rc, out2, err = cli(capsys, "rescore", corpus / "st", "-f", "json", "-w", "6")
    assert rc == 0, err
    assert scores_of(out2, "COMET") == scores_of(out1, "COMET") == pytest.approx([np.mean(A), np.mean(B)])
    sig = json.loads(out1)["notes"][1]
    assert sig.startswith("COMET|name:COMET|file:") and sig in out2  # same digest: the files are still there
    (corpus / "c.sysA.txt").unlink()
    (corpus / "c.sysB.txt").unlink()
    rc, out3, err = cli(capsys, "rescore", corpus / "st", "-f", "json", "-w", "6")
    assert rc == 0, err
    assert scores_of(out3, "COMET") == scores_of(out1, "COMET")
    assert "COMET|name:COMET|file:unknown|agg:mean|dir:higher" in out3  # no file to hash any more


def test_signature_does_not_depend_on_system_order(corpus):
    write_lines(corpus / "c.sysA.txt", A)
    write_lines(corpus / "c.sysB.txt", B)
    sigs = []
    for order in (("sysA.txt", "sysB.txt"), ("sysB.txt", "sysA.txt")):
        m = ExternalScores(COMET=f"{corpus}/c.{{system}}.txt")
        first = stats_for(m, order[0], ["x"] * 4, None)
        stats_for(m, order[1], ["x"] * 4, None)
        sigs += [first.signature, m.signature()]
    assert len(set(sigs)) == 1


def test_compare_all_pairs_and_block_t_beside_a_lexical_metric(corpus, capsys):
    _twice(corpus)
    write_lines(corpus / "c.sysA.txt", A + A)
    write_lines(corpus / "c.sysB.txt", B + B)
    (corpus / "sysC.txt").write_text("a b c\nd e\n\nf\n" * 2, encoding="utf-8")
    write_lines(corpus / "c.sysC.txt", [0.9] * 8)
    spec = f"scores:COMET={corpus}/c.{{system}}.txt"
    rc, out, err = cli(capsys, "compare", "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", corpus / "sysB.txt",
                       corpus / "sysC.txt", "-m", "chrf", spec, "--all-pairs", "--resamples", "100", "-f", "json")
    assert rc == 0, err
    tables = json.loads(out)
    assert [t["title"] for t in tables] == ["chrF2 ↑: bootstrap (all pairs)", "COMET ↑: bootstrap (all pairs)"]
    scores = [r["score"] for r in tables[1]["rows"]]
    assert scores == pytest.approx([np.mean(A), np.mean(B), 0.9])


def test_binding_by_the_shown_name(corpus, capsys):
    # --names (or the short default names) are names of the systems too: {system} tries them after the path forms
    write_lines(corpus / "c.base.txt", A)
    write_lines(corpus / "c.cand.txt", B)
    spec = f"scores:COMET={corpus}/c.{{system}}.txt"
    for cmd in (["score", "-f", "json"], ["compare", "--resamples", "20", "-f", "json"], ["report", "--resamples", "20"]):
        rc, out, err = cli(capsys, cmd[0], "-r", corpus / "ref.txt", "-i", corpus / "sysA.txt", corpus / "sysB.txt",
                           "--names", "base", "cand", "-m", spec, *cmd[1:])
        assert rc == 0, (cmd, err)
        if cmd[0] == "score":
            assert scores_of(out, "COMET") == pytest.approx([np.mean(A), np.mean(B)])
    # the default short names: out-A.txt, out-B.txt -> out-A, out-B (the shared extension goes, never a word)
    for s in "AB":
        (corpus / f"out-{s}.txt").write_text((corpus / f"sys{s}.txt").read_text())
    write_lines(corpus / "d.out-A.txt", A)
    write_lines(corpus / "d.out-B.txt", B)
    rc, out, err = cli(capsys, "score", "-r", corpus / "ref.txt", "-i", corpus / "out-A.txt", corpus / "out-B.txt",
                       "-f", "json", "-m", f"scores:COMET={corpus}/d.{{system}}.txt")
    assert rc == 0, err
    assert [r["system"] for r in json.loads(out)["rows"]] == ["out-A", "out-B"]
    assert scores_of(out, "COMET") == pytest.approx([np.mean(A), np.mean(B)])
