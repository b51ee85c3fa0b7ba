"""The NumPy-free path of small BLEU runs (a 10-line `score -m bleu` no slower than sacreBLEU's CLI: docs/kernels.md).

* :func:`mtscore.metrics.bleu.bleu_row` (the one BLEU formula, a row on Python floats) against a vectorized
  NumPy formulation kept in the tests (tests/bleu_reference.py): bit-identical, every compatibility mode,
  smoothing, effective order, weights, strict brevity penalty; and rows of ``bleu_from_stats`` (compiled and
  reference kernels) against it;
* the small-input path of ``mtscore score`` (runner._small_job + BLEU.corpus_sums) against the usual path on
  random small corpora: the same stdout and stderr, byte for byte, for every option drawn (options the small
  path does not take fall back, and give the same bytes too);
* against sacreBLEU (test-only peer) on a 10-line file: smoothing, tokenizers, lowercase, two references,
  effective order, with the small path taken;
* the CLI on a small file imports no NumPy (fresh processes).

About 25 s."""
import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mtscore import runner
from mtscore.cli.main import main
from mtscore.text.fast import kernel_choice
from mtscore.metrics.bleu import bleu_from_stats, bleu_row
import bleu_reference as ref

ROOT = Path(__file__).resolve().parents[2]
from conftest import DATA as _DATA  # noqa: E402  (MTSCORE_TEST_DATA)
DATA = _DATA / "wmt17-en-de"


# --------------------------------------------------------------------------------------------------------
# bleu_row == the vectorized formula, bit for bit
# --------------------------------------------------------------------------------------------------------
@st.composite
def stat_rows(draw):
    n = draw(st.integers(1, 9))
    compat = draw(st.sampled_from(["sacrebleu", "sacrebleu", "mteval-v13a", "mteval-v11b"]))
    smooth = {"sacrebleu": draw(st.sampled_from(["none", "floor", "add-k", "exp"])), "mteval-v13a": "exp",
              "mteval-v11b": "none"}[compat]
    sv = draw(st.sampled_from([0.1, 1.0, 0.5, 3.0, 100.0])) if smooth in ("floor", "add-k") else None
    eff = draw(st.booleans())
    weights = draw(st.one_of(st.none(), st.lists(st.floats(0.01, 5.0), min_size=n, max_size=n).map(tuple)))
    strict = draw(st.booleans())
    fractional = draw(st.booleans())  # tBLEU's fractional matches, ref_length=average
    num = st.floats(0, 60, allow_nan=False).map(lambda x: round(x, 3)) if fractional else \
        st.integers(0, 60).map(float)
    hyp_len = draw(num)
    ref_len = draw(num)
    totals = [max(0.0, hyp_len - k) for k in range(n)] if draw(st.booleans()) else \
        [draw(num) for _ in range(n)]
    matches = [draw(st.sampled_from([0.0, t, math.floor(t / 2)])) if t else 0.0 for t in totals]
    row = [hyp_len, ref_len, *matches, *totals] + ([draw(num)] if strict else [])
    return row, n, smooth, sv, eff, weights, compat, strict


@settings(max_examples=400, deadline=None)
@given(stat_rows())
def test_bleu_row_is_the_vectorized_formula_bit_for_bit(case):
    row, n, smooth, sv, eff, weights, compat, strict = case
    score, precs, bp = bleu_row(row, n, smooth, sv, eff, weights, compat, strict)
    arr = np.asarray(row)
    want = ref.bleu(arr, n, smooth, sv, eff, weights, compat, strict)
    assert repr(score) == repr(float(want))
    assert repr(bleu_from_stats(arr, n, smooth, sv, eff, weights, compat, strict)) == repr(score)
    for kernels in ("c", "reference"):  # rows of a batch (sentence scores, resamples) too
        with kernel_choice(kernels):
            batch = bleu_from_stats(np.stack([arr, arr]), n, smooth, sv, eff, weights, compat, strict)
        assert repr(score) == repr(float(batch[0])) == repr(float(batch[1]))
    want_p = ref.precisions(arr[2:2 + n][None], arr[2 + n:2 + 2 * n][None], smooth, sv, compat)[0]
    assert [repr(p) for p in precs] == [repr(float(p)) for p in want_p]
    want_bp = ref.strict_bp(row[2 + 2 * n], row[1]) if strict else ref.bp(row[0], row[1])
    assert repr(bp) == repr(float(want_bp))


def test_bleu_row_known_values():
    # sacreBLEU's own numbers for these counts (its compute_bleu): 10-line WMT17 en-de, online-B
    row = [239.0, 254.0, 156.0, 82.0, 40.0, 25.0, 239.0, 229.0, 219.0, 209.0]
    score, precs, bp = bleu_row(row, 4, "exp", None, False, None)
    from sacrebleu.metrics import BLEU as SB
    want = SB.compute_bleu([156, 82, 40, 25], [239, 229, 219, 209], 239, 254, smooth_method="exp")
    assert score == want.score and precs == want.precisions and bp == want.bp


# --------------------------------------------------------------------------------------------------------
# the small path of `mtscore score` == the usual path, byte for byte
# --------------------------------------------------------------------------------------------------------
WORDS = ["the", "The", "cat", "sat", "on", "mat", ".", ",", "'s", "don't", "3.5", "1,000", "U.S.", "&amp;", "--",
         "Mädchen", "STRASSE", "€20", "中文", "(a)", "\"q\"", "e-mail", "x", "y", "z"]


def _line(draw):
    return " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=12)))


@st.composite
def corpora(draw):
    n = draw(st.integers(1, 12))
    n_sys = draw(st.integers(1, 2))
    n_ref = draw(st.integers(1, 3))
    systems = [[_line(draw) for _ in range(n)] for _ in range(n_sys)]
    refs = [[_line(draw) for _ in range(n)] for _ in range(n_ref)]
    return systems, refs


@st.composite
def options(draw):
    spec = draw(st.sampled_from(["bleu", "bleu", "bleu-sbp", "bleu:max_order=3", "bleu:effective_order=yes",
                                 "bleu:ref_length=shortest", "bleu:ref_length=average", "bleu:weights=0.1 0.2 0.3 0.4",
                                 "bleu:compat=mteval-v13a", "bleu:compat=mteval-v11b", "bleu:max_order=9",
                                 "bleu:engine=plain", "bleu:compat=nltk"]))
    metrics = [spec] + draw(st.sampled_from([[], [], ["bleu:max_order=2"], ["chrf"]]))
    argv = ["-m", *metrics]
    if "compat" not in spec:
        argv += ["--tokenize", draw(st.sampled_from(["13a", "13a", "none", "intl", "char"]))]
        smooth = draw(st.sampled_from([None, "none", "floor", "add-k", "exp"]))
        if smooth:
            argv += ["--smooth", smooth]
            if smooth in ("floor", "add-k") and draw(st.booleans()):
                argv += ["--smooth-value", draw(st.sampled_from(["0.5", "2", "0.01"]))]
    if draw(st.booleans()):
        argv.append("--lowercase")
    argv += draw(st.sampled_from([[], [], ["-f", "json"], ["-f", "tsv"], ["-w", "4"], ["--chunk-size", "2"],
                                  ["--kernels", "reference"], ["--sentence-level"]]))
    return argv


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _both(argv):
    """(small-path run, usual-path run, whether the small path was taken)"""
    taken = []
    real = runner._small_job

    def spy(*args):
        got = real(*args)
        taken.append(got[0] is not None)
        return got

    runner._small_job = spy
    try:
        small = _run(argv)
        runner.SMALL_MAX_SEGMENTS, saved = -1, runner.SMALL_MAX_SEGMENTS
        try:
            usual = _run(argv)
        finally:
            runner.SMALL_MAX_SEGMENTS = saved
    finally:
        runner._small_job = real
    return small, usual, any(taken[:1])


def _write(d, systems, refs):
    paths = {}
    for kind, cols in (("hyp", systems), ("ref", refs)):
        for i, col in enumerate(cols):
            p = os.path.join(d, f"{kind}{i}.txt")
            with open(p, "w", encoding="utf-8") as fh:
                fh.write("".join(x + "\n" for x in col))
            paths.setdefault(kind, []).append(p)
    return paths


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), options())
def test_small_path_prints_what_the_usual_path_prints(corpus, opts):
    systems, refs = corpus
    with tempfile.TemporaryDirectory() as d:
        paths = _write(d, systems, refs)
        argv = ["score", "-q", *opts, "-r", *paths["ref"], "-i", *paths["hyp"]]
        small, usual, taken = _both(argv)
    assert small == usual
    assert small[0] == 0, small[2]
    k = opts.index("-m") + 1
    metrics = opts[k:next((i for i in range(k, len(opts)) if opts[i].startswith("-")), len(opts))]
    plain = not {"chrf", "bleu:ref_length=average", "bleu:engine=plain", "bleu:compat=nltk"} & set(metrics)
    usual_only = {"--kernels", "--sentence-level"} & set(opts)
    if usual_only or ("--chunk-size" in opts and len(refs[0]) >= 2):  # more than one partition (or maybe)
        assert not taken
    elif plain:
        assert taken  # the small path ran (and printed the same bytes)


def test_small_path_is_taken_up_to_the_bound_and_not_beyond(tmp_path, monkeypatch):
    from sacrebleu.metrics import BLEU as SB
    hyps, refs = ["a b c d .", "x y", "", "a b", "q r s t u v"], ["a b c e .", "x y z", "w", "a b", "q r s t u"]
    paths = _write(str(tmp_path), [hyps], [refs])
    argv = ["score", "-q", "-m", "bleu", "-f", "json", "-r", *paths["ref"], "-i", *paths["hyp"]]
    for bound, want in ((5, True), (4, False)):
        monkeypatch.setattr(runner, "SMALL_MAX_SEGMENTS", bound)
        small, usual, taken = _both(argv)
        assert taken == want and small == usual
    assert json.loads(small[1])["rows"][0]["BLEU"] == SB().corpus_score(hyps, [refs]).score


def test_tsv_input_takes_the_small_path(tmp_path):
    p = tmp_path / "in.tsv"
    p.write_text("a b c d .\ta b c e .\ta b c d\nx y\tx y z\tx\n\tw\tv\n", encoding="utf-8")
    small, usual, taken = _both(["score", "-q", "-m", "bleu", "bleu-sbp", "-f", "json", "--tsv", str(p)])
    assert taken and small == usual and small[0] == 0
    from sacrebleu.metrics import BLEU as SB
    want = SB().corpus_score(["a b c d .", "x y", ""], [["a b c e .", "x y z", "w"], ["a b c d", "x", "v"]])
    assert json.loads(small[1])["rows"][0]["BLEU"] == want.score


def test_errors_are_the_same_on_the_small_path(tmp_path):
    paths = _write(str(tmp_path), [["a b", "c"]], [["a b"]])  # 2 hypotheses, 1 reference line
    argv = ["score", "-q", "-m", "bleu", "-r", *paths["ref"], "-i", *paths["hyp"]]
    small, usual, _ = _both(argv)
    assert small == usual and small[0] == 3 and "line" in small[2]


# --------------------------------------------------------------------------------------------------------
# against sacreBLEU on a 10-line file
# --------------------------------------------------------------------------------------------------------
def _ten_lines():
    if not DATA.is_dir():
        pytest.skip("../shared/data is absent (real WMT data for the 10-line comparison)")
    read = lambda p: (DATA / p).read_text(encoding="utf-8").split("\n")[:10]  # noqa: E731
    return (read("systems/newstest2017.online-B.0.en-de"), read("newstest2017.en-de.ref0.de"),
            read("systems/newstest2017.KIT.4950.en-de"))


SACRE_CASES = [  # (mtscore options, sacreBLEU BLEU(...) keywords, references: 1 or 2)
    ([], {}, 1),
    (["--smooth", "none"], {"smooth_method": "none"}, 1),
    (["--smooth", "floor"], {"smooth_method": "floor"}, 1),
    (["--smooth", "floor", "--smooth-value", "0.5"], {"smooth_method": "floor", "smooth_value": 0.5}, 1),
    (["--smooth", "add-k"], {"smooth_method": "add-k"}, 1),
    (["--smooth", "add-k", "--smooth-value", "2"], {"smooth_method": "add-k", "smooth_value": 2}, 1),
    (["--tokenize", "none"], {"tokenize": "none"}, 1),
    (["--tokenize", "intl"], {"tokenize": "intl"}, 1),
    (["--tokenize", "char"], {"tokenize": "char"}, 1),
    (["--lowercase"], {"lowercase": True}, 1),
    ([], {}, 2),
    (["--lowercase", "--tokenize", "intl"], {"lowercase": True, "tokenize": "intl"}, 2),
    (["-m", "bleu:effective_order=yes"], {"effective_order": True}, 1),
    (["-m", "bleu:max_order=2"], {"max_ngram_order": 2}, 2),
]


@pytest.mark.parametrize("opts,kw,n_refs", SACRE_CASES)
def test_ten_lines_match_sacrebleu(tmp_path, opts, kw, n_refs):
    from sacrebleu.metrics import BLEU as SB
    hyps, ref0, ref1 = _ten_lines()
    refs = [ref0, ref1][:n_refs]
    paths = _write(str(tmp_path), [hyps], refs)
    metric = [] if "-m" in opts else ["-m", "bleu"]
    argv = ["score", "-q", *metric, *opts, "-f", "json", "-r", *paths["ref"], "-i", *paths["hyp"]]
    small, usual, taken = _both(argv)
    assert taken and small == usual
    got = json.loads(small[1])["results"][0]["results"][0]
    want = SB(**kw).corpus_score(hyps, refs)
    assert got["score"] == want.score  # every digit
    assert got["precisions"] == want.precisions and got["bp"] == want.bp
    assert (got["hyp_len"], got["ref_len"]) == (want.sys_len, want.ref_len)


# --------------------------------------------------------------------------------------------------------
# no NumPy on the small path (fresh processes)
# --------------------------------------------------------------------------------------------------------
def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


# `python -m mtscore ARGS` with the names in sys.modules written to a file at exit (-X importtime would not
# do: its lines go to sys.stderr, which the CLI silences while a command runs)
WHOLE_CLI = ("import atexit, json, runpy, sys\n"
             "out = sys.argv[1]\n"
             "atexit.register(lambda: open(out, 'w').write(json.dumps(sorted(sys.modules))))\n"
             "sys.argv = ['mtscore'] + sys.argv[2:]\n"
             "runpy.run_module('mtscore', run_name='__main__', alter_sys=True)\n")


def _modules(tmp_path, argv):
    out = tmp_path / "modules.json"
    r = subprocess.run([sys.executable, "-c", WHOLE_CLI, str(out), *argv], env=_env(), capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "BLEU" in r.stdout
    return json.loads(out.read_text())


@pytest.mark.parametrize("extra", [[], ["-f", "tsv", "--lowercase"], ["--tokenize", "none", "-m", "bleu", "bleu-sbp"],
                                   ["--smooth", "floor", "-f", "json"]])
def test_cli_on_a_small_file_imports_no_numpy(tmp_path, extra):
    paths = _write(str(tmp_path), [["Der schnelle Fuchs springt .", "Zweite Zeile."]],
                   [["Der „schnelle“ Fuchs springt.", "Zweite Zeile hier."], ["Ein Fuchs.", "Zeile zwei."]])
    metric = [] if "-m" in extra else ["-m", "bleu"]
    mods = _modules(tmp_path, ["score", "-q", *metric, *extra, "-r", *paths["ref"], "-i", *paths["hyp"]])
    assert "mtscore.metrics.bleu" in mods and "mtscore.runner" in mods  # the probe sees the command's imports
    assert [m for m in mods if m == "numpy" or m.startswith("numpy.")] == []


def test_what_the_small_path_does_not_take_still_works_with_numpy(tmp_path):
    paths = _write(str(tmp_path), [["a b c"]], [["a b d"]])
    mods = _modules(tmp_path, ["score", "-q", "-m", "bleu", "ter", "-r", *paths["ref"], "-i", *paths["hyp"]])
    assert "numpy" in mods  # (TER has no NumPy-free sums; chrF has them: tests/contracts/test_startup.py)


# --------------------------------------------------------------------------------------------------------
# the sacreBLEU drop-in's compute_bleu (its own scalar copy: it also keeps float32 inputs in float32, as sacreBLEU
# does for its bootstrap resamples) agrees with sacreBLEU's field for field, as bleu_row does
# --------------------------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6), st.sampled_from(["none", "floor", "add-k", "exp"]), st.booleans(),
       st.sampled_from([None, 0.5, 2.0]), st.data())
def test_dropin_compute_bleu_is_sacrebleus(n, smooth, eff, sv, data):
    from sacrebleu.metrics import BLEU as Peer
    from mtscore.sacrebleu.metrics import BLEU as Ours
    hyp_len = data.draw(st.integers(0, 40))
    ref_len = data.draw(st.integers(0, 40))
    total = [max(0, hyp_len - k) for k in range(n)] if data.draw(st.booleans()) else \
        data.draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    correct = [data.draw(st.integers(0, t)) if t else 0 for t in total]
    kw = dict(smooth_method=smooth, smooth_value=sv, effective_order=eff, max_ngram_order=n)
    c1, t1, c2, t2 = list(correct), list(total), list(correct), list(total)
    want = Peer.compute_bleu(c1, t1, hyp_len, ref_len, **kw)
    got = Ours.compute_bleu(c2, t2, hyp_len, ref_len, **kw)
    assert repr(got.score) == repr(want.score)
    assert got.precisions == want.precisions and repr(got.bp) == repr(want.bp)
    assert (c2, t2) == (c1, t1) and got.counts == want.counts and got.totals == want.totals  # add-k's side effect
    assert str(got) == str(want)
    # bleu_row against the independent oracle (sacreBLEU's precisions are all 0 when nothing matches)
    row = [float(x) for x in (hyp_len, ref_len, *correct, *total)]
    score, precs, bp = bleu_row(row, n, smooth, sv if sv is not None else {"floor": 0.1, "add-k": 1}.get(smooth), eff, None)
    assert repr(score) == repr(want.score) and repr(bp) == repr(want.bp)
    if any(correct):
        assert precs == want.precisions
