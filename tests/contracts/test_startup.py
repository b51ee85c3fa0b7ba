"""Start-up work: what ``import mtscore`` and a short ``mtscore score`` load, BLAS threads in the
CLI, and the two cheap pre-checks of the tokenizer hints (no timing here: benchmarks/bench_everyday.py
measures the times; these tests pin what makes them short). About 5 s."""
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"

# modules a plain `score -m bleu` of two small files has no use for (NumPy: runner._small_job)
NOT_ON_THE_BLEU_PATH = ("numpy", "numba", "scipy", "dask", "distributed", "regex", "importlib.metadata", "pyarrow",
                        "concurrent.futures.process", "mtscore.metrics.lcm", "mtscore.metrics.scores",
                        "mtscore.backends.dask_backend", "mtscore.significance", "mtscore.meta")

PROBE = r"""
import json, os, sys
from mtscore.cli.main import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as fh:
    json.dump({"code": code, "modules": sorted(sys.modules), "blas": os.environ.get("OPENBLAS_NUM_THREADS")}, fh)
"""


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _probe(tmp_path, argv, **env):
    out = tmp_path / "probe.json"
    r = subprocess.run([sys.executable, "-c", PROBE, str(out), *argv], env=_env(**env), capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text()), r.stdout


@pytest.fixture()
def small(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("Der „schnelle“ Fuchs springt.\nZweite Zeile hier.\n", encoding="utf-8")
    hyp.write_text("Der schnelle Fuchs springt .\nZweite Zeile.\n", encoding="utf-8")
    return str(ref), str(hyp)


def test_import_mtscore_loads_no_numpy_and_keeps_its_api():
    code = ("import sys, mtscore; before = 'numpy' in sys.modules; "
            "ok = callable(mtscore.score) and mtscore.metrics.registry.get_metric('bleu').name == 'bleu'; "
            "print(before, ok, 'numpy' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True)
    # NumPy is not loaded by the import, nor by looking up and building BLEU (a small BLEU run never needs it)
    assert r.stdout.split() == ["False", "True", "False"]
    r = subprocess.run([sys.executable, "-c", "import mtscore; mtscore.no_such_thing"], env=_env(),
                       capture_output=True, text=True)
    assert "AttributeError" in r.stderr and "no_such_thing" in r.stderr


def test_version_loads_no_numpy():
    code = ("import sys\nfrom mtscore.cli.main import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print('numpy' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["mtscore", "0.1.0", "False"]


def test_score_bleu_imports_only_what_it_uses(tmp_path, small):
    ref, hyp = small
    got, out = _probe(tmp_path, ["score", "-q", "-m", "bleu", "-r", ref, "-i", hyp, "-f", "json"])
    assert got["code"] == 0
    assert json.loads(out)["rows"][0]["BLEU"] > 0
    loaded = [m for m in NOT_ON_THE_BLEU_PATH if any(x == m or x.startswith(m + ".") for x in got["modules"])]
    assert loaded == []


def test_cli_runs_blas_single_threaded_unless_the_user_says(tmp_path, small):
    ref, hyp = small
    argv = ["score", "-q", "-m", "bleu", "-r", ref, "-i", hyp]
    assert _probe(tmp_path, argv)[0]["blas"] == "1"
    assert _probe(tmp_path, argv, OPENBLAS_NUM_THREADS="2")[0]["blas"] == "2"
    got = _probe(tmp_path, argv, OMP_NUM_THREADS="3")[0]
    assert got["blas"] is None  # OpenBLAS reads OMP_NUM_THREADS itself: left alone


def test_help_still_lists_metric_names_and_choices(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mtscore", "score", "--help-all"], env=_env(), capture_output=True,
                       text=True, check=True)  # --help names each option; --help-all lists its choices
    text = " ".join(r.stdout.split())
    assert "available: 4-grr, bleu, bleu-sbp" in text
    assert "--tokenize {13a,intl,zh" in text
    from mtscore.cli.main import build_parser  # a parser that may print help computes every choice list
    for argv, full in ((None, True), (["score", "--help"], True), (["score", "--help-all"], True),
                       (["score", "-m", "lcm"], False)):
        score = build_parser(argv)._subparsers._group_actions[0].choices["score"]
        lang = next(a for a in score._actions if "--lcm-lang" in a.option_strings)
        assert (lang.metavar == "{de,en,zh,none}") == full, (argv, lang.metavar)


def test_a_parse_only_parser_gives_the_same_values():
    from mtscore.cli.main import build_parser
    argv = ["score", "-m", "bleu", "chrf", "--tokenize", "intl", "--chrf-beta", "3", "-f", "json", "-r", "r", "-i", "h"]
    lean = vars(build_parser(argv).parse_args(argv))
    full = vars(build_parser(None).parse_args(argv))
    lean.pop("func"), full.pop("func")
    # the lean parser defines the options of the metrics the command line names; another metric's option, not
    # given, is absent there and None in the full one (every reader uses getattr(args, dest, None))
    assert set(lean) <= set(full) and all(full[k] is None for k in set(full) - set(lean))
    assert lean == {k: full[k] for k in lean}


# -- the references' script: the pre-check never hides CJK text -------------------------------------------
def test_cjk_blocks_hold_every_han_kana_hangul_character():
    regex = pytest.importorskip("regex")  # the reference for the scripts (what script_hint counts with)
    from mtscore.tokenize.languages import _maybe_cjk
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    script = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")
    chars = script.findall(text)
    assert len(chars) > 100_000
    outside = [hex(ord(c)) for c in chars if _maybe_cjk().fullmatch(c) is None]
    assert outside == []


@pytest.mark.parametrize("text,hint", [("東京は日本の首都です。" * 20, "ja-mecab"), ("我们今天去北京。" * 20, "zh"),
                                       ("안녕하세요 여러분 " * 20, "ko-mecab"), ("Der „schnelle“ Fuchs — 5 €" * 20, None),
                                       ("", None), ("Müller 東京 " * 10, None)])
def test_script_hint_with_the_pre_check(text, hint):
    from mtscore.tokenize.languages import script_hint
    assert script_hint([text]) == hint


# -- the tokenized-period count over a column of lines ---------------------------------------------------
_LINE = st.lists(st.sampled_from(["a", " ", ".", " .", "\t", "\r", "\x0b", "x y", "é", "\n"]), max_size=6).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=40))
def test_tokenized_period_count_is_the_per_line_count(lines):
    from mtscore.cli.hints import _TOK_PERIOD, tokenized_periods
    assert tokenized_periods(lines) == sum(1 for ln in lines if _TOK_PERIOD.search(ln))
    plain = [ln.replace("\n", "") for ln in lines]  # lines as read from files (the joined search)
    assert tokenized_periods(plain) == sum(1 for ln in plain if _TOK_PERIOD.search(ln))


# -- sentence-level tables, column by column --------------------------------------------------------------
_SCORE = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just(-0.0), st.floats(0, 100))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 12), st.integers(1, 3), st.sampled_from([1.0, 100.0]), st.integers(0, 4), st.data())
def test_sentence_table_and_tsv_are_the_cell_by_cell_ones(n, n_sys, scale, digits, data):
    """The rows built column by column equal the row-by-row construction, and the TSV joined column-wise
    equals the general renderer's (``_cells``), tabs in labels included."""
    from mtscore.report.scores import sentence_table
    from mtscore.report.tables import Table, _cells, render_table

    class M:
        display_name, higher_is_better, table_scale = "BLEU", True, scale
    names = [f"s\t{i}" for i in range(n_sys)]
    per = {s: [data.draw(st.lists(_SCORE, min_size=n, max_size=n))] for s in names}
    t = sentence_table(names, [M()], per, ["sig"], digits)
    want = [[i + 1] + [float(per[s][0][i]) * scale for s in names] for i in range(n)]
    assert [[repr(v) for v in r] for r in t.rows] == [[repr(v) for v in r] for r in want]
    general = "\n".join(["\t".join(t.columns)] + ["\t".join(c.replace("\t", " ") for c in r) for r in _cells(t)])
    assert render_table(t, "tsv") == general
    labels = Table(["system", "x"], [["a\tb", 1.5], ["c", 2.25]], digits=digits)
    assert render_table(labels, "tsv") == "system\tx\na b\t" + f"{1.5:.{digits}f}" + "\nc\t" + f"{2.25:.{digits}f}"


def test_sacrebleu_dropin_small_file_imports_no_numpy(tmp_path, small):
    """``mtscore sacrebleu REF -i HYP`` (BLEU, no bootstrap) on a small file: the engine's exact column sums, no
    NumPy; the same score as the NumPy path of a larger call."""
    ref, hyp = small
    got, out = _probe(tmp_path, ["sacrebleu", ref, "-i", hyp, "-b", "-w", "12"])
    assert got["code"] == 0
    loaded = [m for m in ("numpy", "scipy", "mtscore.significance") if
              any(x == m or x.startswith(m + ".") for x in got["modules"])]
    assert loaded == []
    from mtscore.sacrebleu.metrics import BLEU
    lines = lambda p: Path(p).read_text(encoding="utf-8").splitlines()  # noqa: E731
    values = BLEU()._stats_array(lines(hyp), [lines(ref)])
    m = BLEU()
    assert float(out) == round(m._aggregate_and_compute(m._rows(values)).score, 12)


def test_score_bleu_chrf_small_file_imports_no_numpy(tmp_path, small):
    """``score -m bleu chrf chrf++`` of a small file: chrF's exact column sums too (CHRF.corpus_sums),
    no NumPy; the same scores, to the last bit, as the NumPy path (``Metric.corpus``)."""
    ref, hyp = small
    got, out = _probe(tmp_path, ["score", "-q", "-m", "bleu", "chrf", "chrf++", "-r", ref, "-i", hyp, "-f", "json"])
    assert got["code"] == 0
    loaded = [m for m in NOT_ON_THE_BLEU_PATH if any(x == m or x.startswith(m + ".") for x in got["modules"])]
    assert loaded == []
    from mtscore.metrics.registry import get_metric
    lines = lambda p: Path(p).read_text(encoding="utf-8").splitlines()  # noqa: E731
    row = json.loads(out)["rows"][0]
    for name, label in (("chrf", "chrF2"), ("chrf++", "chrF2++"), ("bleu", "BLEU")):
        want = get_metric(name).corpus(lines(hyp), [[r] for r in lines(ref)]).score
        assert row[label] == want
