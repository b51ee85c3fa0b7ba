"""The parameter layer (mtscore.params): one table, one rule per parameter, one message; every bad
bad value is a one-line error (exit 2), metric options stay with their metric, signatures
do not depend on how a parameter was given, sacreBLEU spellings get a hint."""
import json
import math

import pytest

from mtscore import params as P
from mtscore.cli.main import main
from mtscore.errors import InvalidParameterError
from mtscore.metrics.registry import get_metric_class, metric_names

SAMPLE = "src/mtscore/data/sample"
REF = f"{SAMPLE}/newstest2017.en-de.ref.de"
A, B = f"{SAMPLE}/LIUM-NMT.de", f"{SAMPLE}/online-B.de"


@pytest.fixture
def small(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat is on the mat\nhello world\n\n", encoding="utf-8")
    a = tmp_path / "a.txt"
    a.write_text("the cat sat on the mat\nhello world\n\n", encoding="utf-8")
    b = tmp_path / "b.txt"
    b.write_text("a cat\nhello\nextra\n", encoding="utf-8")
    return str(ref), str(a), str(b)


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error(code, out, err, needle):
    assert code == 2 and out == "", (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mtscore: error: ") and needle in lines[0], err
    assert "Traceback" not in err


# -- the examples of docs/parameters.md, each an error naming the parameter, the rule and the value -------------
@pytest.mark.parametrize("extra,needle", [
    (["-m", "bleu:weights=1"], "weights: must be 4 numbers"),
    (["-m", "chrf:beta=1e308"], "chrf:beta: must be a finite number with 0 < x <= 1000, got '1e308'"),
    (["-w", "-1"], "--width: must be an integer in 0..17, got '-1'"),
    (["-m", "bleu:effective_order=maybe"], "bleu:effective_order: must be a boolean"),
    (["-m", "bleu:lowercase=nein"], "bleu:lowercase: must be a boolean (true/false, 1/0, yes/no, on/off)"),
    (["--smooth", "add-k", "--smooth-value", "nan"], "--smooth-value: must be a finite number with 0 < x <= 100, got 'nan'"),
    (["--smooth-value", "inf"], "--smooth-value: must be a finite number"),
    (["-m", "bleu:max_order=99999999999999999999999"], "bleu:max_order: must be an integer in 1..9"),
    (["-m", "tbleu:epsilon=-0.1"], "tbleu:epsilon: must be a finite number in [0, 1], got '-0.1'"),
    (["-m", "gtm:exponent=1e300"], "gtm:exponent: must be a finite number in [1, 10]"),
    (["--chunk-size", "0"], "--chunk-size: must be an integer in 1..10^9, got '0'"),
    (["--jobs", "-3"], "--jobs: must be an integer in 1..1024"),
    (["--dask-workers", "0"], "--dask-workers: must be an integer in 1..256, got '0'"),
    (["--dask-workers", "-1"], "--dask-workers: must be an integer in 1..256, got '-1'"),
    (["-m", "bleu:nope=1"], "unknown parameter 'nope'"),
    (["-m", "bleu:smooth"], "parameters must be written NAME:KEY=VALUE"),
])
def test_score_parameter_errors(capsys, small, extra, needle):
    ref, a, _ = small
    one_error(*cli(capsys, "score", "-r", ref, "-i", a, *extra), needle)


@pytest.mark.parametrize("argv,needle", [
    (["compare", "--resamples", "1000000000000"], "--resamples: must be an integer in 2..10^7, got '1000000000000'"),
    (["compare", "--resamples", "1"], "--resamples: must be an integer in 2..10^7, got '1'"),
    (["compare", "-w", "-1"], "--width: must be an integer in 0..17"),
    (["compare", "--seed", "-1"], "--seed: must be an integer in 0..2^32-1, got '-1'"),
    (["compare", "--alpha", "nan"], "--alpha: must be a finite number with 0 < x < 1"),
    (["report", "--seed", "-1"], "--seed: must be an integer in 0..2^32-1, got '-1'"),
    (["report", "--seed", str(2 ** 32)], "--seed: must be an integer in 0..2^32-1"),
    (["report", "--resamples", "1"], "--resamples: must be an integer in 2..10^7"),
])
def test_command_parameter_errors(capsys, small, argv, needle):
    ref, a, b = small
    one_error(*cli(capsys, argv[0], "-r", ref, "-i", a, b, *argv[1:]), needle)


@pytest.mark.parametrize("extra,needle", [
    (["--seed", "-1"], "--seed: must be an integer in 0..2^32-1"),
    (["--thresh", "nan"], "--thresh: must be a finite number with 0 < x <= 10^12, got 'nan'"),
    (["--thresh", "0"], "--thresh: must be a finite number with 0 < x <= 10^12, got '0'"),
    (["--thresh", "inf"], "--thresh: must be a finite number"),
    (["--max-pairs", "0"], "--max-pairs: must be an integer in 1..10^9, got '0'"),
    (["--perm-samples", "-1"], "--perm-samples: must be an integer in 0..10^7, got '-1'"),
    (["--resamples", "-5"], "--resamples: must be an integer in 0..10^7"),
    (["--ci-level", "1"], "--ci-level: must be a finite number with 0 < x < 1, got '1'"),
])
def test_meta_parameter_errors(capsys, small, extra, needle):
    ref, a, b = small
    one_error(*cli(capsys, "meta", "-r", ref, "-i", a, b, "--human-file", a, *extra), needle)


def test_meta_config_api_uses_the_table():
    from mtscore.meta.run import MetaConfig
    for kw, name in ((dict(thresh=math.nan), "thresh"), (dict(max_pairs=0), "max_pairs"),
                     (dict(perm_samples=0, compare="perm"), "perm_samples"), (dict(perm_samples=-1), "perm_samples"),
                     (dict(seed=-1), "seed")):
        with pytest.raises(InvalidParameterError, match=f"^{name}: must be"):
            MetaConfig(**kw).validate()


def test_python_api_uses_the_same_table():
    from mtscore import BLEU
    from mtscore.metrics.bleu import BLEUConfig
    for kw, needle in ((dict(smooth_value=math.nan), "smooth_value: must be a finite number"),
                       (dict(max_order=0), "max_order: must be an integer in 1..9, got 0"),
                       (dict(lowercase="off"), "lowercase: must be a boolean"),  # the API takes Python types
                       (dict(weights=(1.0,)), "weights: must be 4 numbers"),
                       (dict(weights=(0.5, 0.5, math.inf, 0)), "weights: must be finite numbers")):
        with pytest.raises(InvalidParameterError, match="^" + needle.replace("(", r"\(").replace(")", r"\)")):
            BLEU(**kw)
    with pytest.raises(InvalidParameterError, match="^smooth_value:"):
        BLEUConfig(smooth_value=math.inf)  # the Config itself checks, not only the metric


@pytest.mark.parametrize("word,value", [(w, True) for w in ("true", "1", "yes", "on", "TRUE", "On")]
                         + [(w, False) for w in ("false", "0", "no", "off", "NO", "Off")])
def test_boolean_words(word, value):
    assert P.LOWERCASE.parse(word) is value


@pytest.mark.parametrize("word", ["", "y", "n", "2", "-1", "truee", "none", "nan", "ja"])
def test_other_boolean_words_are_errors(word):
    with pytest.raises(InvalidParameterError, match="^lowercase: must be a boolean"):
        P.LOWERCASE.parse(word)


def test_inline_booleans_are_not_truthy_strings(capsys, small):
    """``-m bleu:lowercase=off`` used to lowercase (a non-empty string is true)."""
    ref, a, _ = small
    code, out, _ = cli(capsys, "score", "-r", ref, "-i", a, "-m", "bleu:lowercase=off", "bleu:lowercase=on", "-f", "json")
    assert code == 0
    sigs = [r["signature"] for r in json.loads(out)["meta"]["results"][0]["results"]] if "meta" in json.loads(out) \
        else None
    code, out, err = cli(capsys, "score", "-r", ref, "-i", a, "-m", "bleu:lowercase=off")
    assert "case:mixed" in out
    code, out, err = cli(capsys, "score", "-r", ref, "-i", a, "-m", "bleu:lowercase=ON")
    assert "case:lc" in out


def test_rose_model_config_strings_follow_the_boolean_rule(tmp_path):
    from mtscore.metrics.rose import ROSE
    from mtscore.rose.model import DATA_DIR, load_model
    d = json.loads((DATA_DIR / "rose-rank.json").read_text(encoding="utf-8"))
    d["config"]["lowercase"] = "no"
    f = tmp_path / "m.json"
    f.write_text(json.dumps(d), encoding="utf-8")
    assert ROSE(rose_model=str(f)).lowercase is False  # "no" used to lowercase
    d["config"]["lowercase"] = "nope"
    f.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(Exception, match="config.lowercase: must be a boolean"):
        load_model(str(f))


@pytest.mark.parametrize("kernel,needle", [
    ({"type": "poly", "degree": 400, "gamma": 1.0, "coef0": 1.0}, "kernel.degree: must be an integer in 1..10"),
    ({"type": "poly", "degree": 3, "gamma": 1e300, "coef0": 1.0}, "kernel.gamma: must be a finite number"),
    ({"type": "rbf", "gamma": -1.0}, "kernel.gamma: must be a finite number with 0 < x <= 100"),
    ({"type": "rbf"}, "kernel.gamma"),
])
def test_rose_kernel_parameters_are_bounded(tmp_path, kernel, needle):
    """Kernel parameters that made scores nan/inf are errors naming the file and the parameter."""
    from mtscore.errors import InputError
    from mtscore.rose.model import DATA_DIR, load_model
    d = json.loads((DATA_DIR / "rose-rank.json").read_text(encoding="utf-8"))
    k = len(d["features"])
    d.update(kernel=kernel, support=[[0.0] * k, [1.0] * k], dual_coef=[1.0, -1.0])
    d.pop("weights", None)
    f = tmp_path / "m.json"
    f.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(InputError, match=needle) as e:
        load_model(str(f))
    assert str(f) in str(e.value)


# -- metric options belong to their metric ---------------------------------------------------------
def test_chrf_beta_does_not_change_4grr(capsys):
    """Cross-talk between metric options: --chrf-beta used to print 4-GRR|...|beta:3."""
    code, out, err = cli(capsys, "score", "-r", REF, "-i", A, "-m", "chrf", "4-grr", "--chrf-beta", "3")
    assert code == 0, err
    assert "4-GRR|nrefs:1|case:mixed|tok:13a|k:4|alpha:1|beta:0|" in out
    assert "chrF3|" in out
    code, plain, _ = cli(capsys, "score", "-r", REF, "-i", A, "-m", "4-grr", "-f", "json")
    code, mixed, _ = cli(capsys, "score", "-r", REF, "-i", A, "-m", "4-grr", "chrf", "--chrf-beta", "3", "-f", "json")
    assert json.loads(plain)["rows"][0]["4-GRR"] == json.loads(mixed)["rows"][0]["4-GRR"]


def test_an_option_for_no_selected_metric_is_an_error(capsys):
    one_error(*cli(capsys, "score", "-r", REF, "-i", A, "-m", "bleu", "--chrf-beta", "3"),
              "--chrf-beta: applies to chrf, chrf++, and none of the selected metrics (bleu) has it")


def test_signature_is_the_same_however_a_parameter_is_given(capsys):
    """-m chrf:beta=3 and --chrf-beta 3 both sign as sacreBLEU's chrF3; the inline form labels the column."""
    code, inline, _ = cli(capsys, "score", "-r", REF, "-i", A, "-m", "chrf:beta=3")
    code2, option, _ = cli(capsys, "score", "-r", REF, "-i", A, "-m", "chrf", "--chrf-beta", "3")
    assert code == code2 == 0
    sig = [ln for ln in option.splitlines() if ln.startswith("chrF3|")]
    assert sig and sig == [ln for ln in inline.splitlines() if ln.startswith("chrF3")]
    assert "chrF3[beta=3]" in inline.splitlines()[0] and "[beta=3]|" not in inline
    import sacrebleu
    chrf = sacrebleu.CHRF(beta=3)
    chrf.corpus_score(["a b"], [["a b"]])
    want = chrf.get_signature().format()  # sacreBLEU's: nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:...
    assert sig[0].split("|version:")[0] == "chrF3|" + want.split("|version:")[0]


def test_two_configs_of_one_metric_in_one_table(capsys):
    code, out, err = cli(capsys, "score", "-r", REF, "-i", A, "-m", "bleu", "bleu:smooth=floor,smooth_value=0.2",
                         "-f", "json")
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert set(row) >= {"BLEU", "BLEU[smooth=floor,smooth_value=0.2]"}


# -- renamed parameters keep their old names ------------------------------------------------------
def test_aliases_work_with_one_deprecation_line(capsys):
    from mtscore.metrics.grr import KGRR
    from mtscore.metrics.wer import WER
    P._NOTED.clear()
    assert KGRR(alpha=0.5, beta=1.0).config == KGRR(insertion_penalty=0.5, deletion_penalty=1.0).config
    assert KGRR(multi_ref_agg="best_ref_micro").config.multi_ref == "best_ref_micro"
    assert WER(ref_len="best").config.ref_length == "best"
    err = capsys.readouterr().err.splitlines()
    assert "mtscore: note: parameter 'alpha' is deprecated; use 'insertion_penalty'" in err
    assert "mtscore: note: parameter 'ref_len' is deprecated; use 'ref_length'" in err
    with pytest.raises(InvalidParameterError, match="given together with its new name"):
        KGRR(alpha=1.0, insertion_penalty=1.0)


def test_aliases_in_inline_parameters_and_old_flags(capsys):
    P._NOTED.clear()
    code, old, err = cli(capsys, "score", "-r", REF, "-i", A, "-m", "4-grr:beta=1")
    assert code == 0 and "parameter 'beta' is deprecated; use 'deletion_penalty'" in err
    code, new, _ = cli(capsys, "score", "-r", REF, "-i", A, "-m", "4-grr:deletion_penalty=1")
    def sig(out):
        return [ln for ln in out.splitlines() if ln.startswith("4-GRR|")]
    assert sig(old) == sig(new) and "beta:1|" in sig(new)[0]
    code, flag, err = cli(capsys, "score", "-r", REF, "-i", A, "-m", "4-grr", "--grr-beta", "1")
    assert code == 0 and "option '--grr-beta' is deprecated; use '--grr-deletion-penalty'" in err
    assert sig(flag) == sig(new)


def test_saved_statistics_with_old_field_names_load(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    from mtscore.backends.store import load_stats
    code, _, err = cli(capsys, "score", "-r", REF, "-i", A, "-m", "4-grr", "--save-stats", str(tmp_path / "st"))
    assert code == 0, err
    import pyarrow.parquet as pq
    (f,) = sorted((tmp_path / "st").glob("*.parquet"))
    t = pq.read_table(f)
    meta = {k.decode(): v.decode() for k, v in t.schema.metadata.items()}
    cfg = json.loads(meta["config"])
    cfg["alpha"] = cfg.pop("insertion_penalty")  # as written before the rename
    cfg["beta"] = cfg.pop("deletion_penalty")
    cfg["multi_ref_agg"] = cfg.pop("multi_ref")
    meta["config"] = json.dumps(cfg)
    pq.write_table(t.replace_schema_metadata({k: v.encode() for k, v in meta.items()}), f)
    (res,) = load_stats(tmp_path / "st").values()
    assert res.metric.config.insertion_penalty == 1.0


# -- one default seed ---------------------------------------------------------------------------
def test_one_default_seed_everywhere():
    from mtscore.cli.main import COMMANDS, build_parser
    found = {}
    parser = build_parser()

    def walk(p, path):
        for a in p._actions:
            if a.dest == "seed":
                found[path] = a.default
            if hasattr(a, "choices") and isinstance(a.choices, dict):
                for name, sp in a.choices.items():
                    walk(sp, f"{path} {name}".strip())
    walk(parser, "")
    assert {"compare", "report", "meta", "audit deletion", "nbest", "rose train"} <= set(found)
    assert set(found.values()) == {12345}, found
    assert P.DEFAULT_SEED == 12345 and len(COMMANDS) >= 14


def test_every_seed_default_in_the_package_is_the_one_default_seed():
    """Every Python function, dataclass field and keyword default named ``seed`` in src/mtscore is the default
    seed (12345, written as DEFAULT_SEED or the number) or None (a caller-supplied stream); found by walking the
    source (ast), so a function added later is checked too."""
    import ast
    from pathlib import Path
    src = Path(P.__file__).resolve().parent
    # part of a statistic's definition, not a resampling default: mt-metrics-eval's SPA draws its permutation
    # signs with seed 4, and SPA equals theirs to the last digit only with it (meta/spa.py)
    definition = {"SPA_SEED"}
    seen, bad = 0, []
    for f in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            pairs = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                pos = a.posonlyargs + a.args
                pairs += list(zip(pos[len(pos) - len(a.defaults):], a.defaults))
                pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
                pairs = [(k.arg, d) for k, d in pairs]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                pairs = [(node.target.id, node.value)]
            for name, d in pairs:
                if name != "seed":
                    continue
                seen += 1
                ok = (isinstance(d, ast.Constant) and d.value in (None, P.DEFAULT_SEED)) or \
                    (isinstance(d, (ast.Name, ast.Attribute)) and (getattr(d, "id", None) or d.attr) in {"DEFAULT_SEED"} | definition)
                if not ok:
                    bad.append(f"{f.relative_to(src)}:{d.lineno}: seed default {ast.unparse(d)}")
    assert seen >= 15 and not bad, bad


# -- sacreBLEU spellings ----------------------------------------------------------------------------
@pytest.mark.parametrize("cmd,flag,needle", [
    ("score", "-tok", "-tok: use --tokenize (or: mtscore sacrebleu ...)"),
    ("compare", "-tok", "-tok: use --tokenize"),  # compare defines -t: -tok must not parse as -t ok
    ("score", "-lc", "-lc: use --lowercase"),
    ("report", "-lc", "-lc: use --lowercase"),
    ("score", "-b", "-b: not an option of mtscore score; mtscore prints a table"),
    ("score", "--score-only", "--score-only: not an option of mtscore score"),
    ("score", "--confidence", "--confidence: not an option of mtscore score; use mtscore compare"),
    ("compare", "--paired-bs", "--paired-bs: not an option of mtscore compare; use mtscore compare --test bootstrap"),
    ("compare", "--paired-ar", "use mtscore compare --test ar"),
    ("score", "-e", "-e: not an option of mtscore score; mtscore reads UTF-8"),
    ("score", "--short", "--short: not an option of mtscore score"),
    ("score", "-s", "-s: use --smooth"),
    ("score", "-sl", "-sl: use --sentence-level"),
])
def test_sacrebleu_spellings_get_a_hint(capsys, cmd, flag, needle):
    one_error(*cli(capsys, cmd, "-r", REF, "-i", A, B, flag, "x"), needle)


def test_hints_never_shadow_real_options(capsys):
    """-w is score's own --width; -t is compare's --test; they are parsed, not hinted."""
    from mtscore.cli.main import SACREBLEU_HINTS, build_parser
    code, out, err = cli(capsys, "score", "-r", REF, "-i", A, "-w", "3")
    assert code == 0 and "." in out and len(out.splitlines()[2].split()[-1].split(".")[1]) == 3
    code, out, err = cli(capsys, "compare", "-r", REF, "-i", A, B, "-t", "sign", "-f", "json")
    assert code == 0, err
    parser = build_parser()
    sub = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    for name, sp in sub.choices.items():
        assert sp.allow_abbrev is False, name
    assert parser.allow_abbrev is False and "-tok" in SACREBLEU_HINTS


def test_no_abbreviations(capsys):
    with pytest.raises(SystemExit) as e:
        main(["score", "-r", REF, "-i", A, "--sent"])
    assert e.value.code == 2 and "unrecognized arguments: --sent" in capsys.readouterr().err


# -- mtscore metrics and help ------------------------------------------------------------------------
def test_metrics_command_lists_every_metric_and_parameter(capsys):
    code, out, err = cli(capsys, "metrics", "-f", "json")
    assert code == 0, err
    infos = {m["name"]: m for m in json.loads(out)}
    assert set(infos) == set(metric_names())
    chrf = {p["name"]: p for p in infos["chrf"]["parameters"]}
    assert chrf["beta"]["lo"] == 0 and chrf["beta"]["hi"] == 1000 and chrf["beta"]["lo_inclusive"] is False
    assert chrf["beta"]["options"] == ["--chrf-beta"]
    assert infos["ter"]["higher_is_better"] is False and infos["ter"]["decomposable"] is True
    assert infos["bleu"]["decomposable"] is False and infos["bleu"]["range"] == ["0", "100"]
    grr = {p["name"]: p for p in infos["4-grr"]["parameters"]}
    assert grr["deletion_penalty"]["aliases"] == ["beta"]
    code, text, _ = cli(capsys, "metrics", "chrf")
    assert code == 0 and text.startswith("chrf  (chrF2; higher is better") and "0 < x <= 1000" in text


def test_every_numeric_parameter_has_both_bounds():
    for name in metric_names():
        cls = get_metric_class(name)
        decl = P.config_params(cls.Config)
        import dataclasses
        fields = [f.name for f in dataclasses.fields(cls.Config)]
        assert set(fields) == set(decl), (name, set(fields) ^ set(decl))  # every field is declared
    declared = [p for name in metric_names() for p in P.config_params(get_metric_class(name).Config).values()]
    for p in [*P.OPTIONS.values(), *declared, *P.ROSE_KERNEL.values()]:
        if p.kind in ("int", "float", "ints", "floats"):
            assert p.lo is not None and p.hi is not None and p.lo < p.hi, p.name


def test_help_is_short_and_points_to_mtscore_metrics(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = capsys.readouterr().out
    # the options README and docs type are listed (tests/cli/test_help.py); the rest is behind mtscore metrics
    assert "mtscore metrics" in out and "METRIC_SMOOTH_VALUE" not in out and "--gtm-aggregate" not in out
    assert "--tokenize" in out and "--chrf-beta" in out
    with pytest.raises(SystemExit):
        main(["explain", "--help-all"])  # --help shows each option's first clause; --help-all all of it
    out = " ".join(capsys.readouterr().out.split())
    assert "available: tbleu" in out and "rose" not in out.split("available:")[1].split(";")[0]


def test_parameters_page_is_generated_from_the_table():
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("gen_parameters_doc", root / "scripts" / "gen_parameters_doc.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert (root / "docs" / "parameters.md").read_text(encoding="utf-8") == mod.page(), \
        "docs/parameters.md is stale: run python3 scripts/gen_parameters_doc.py"


def test_every_choice_option_of_the_own_commands_uses_the_one_template():
    """argparse ``choices=`` of mtscore's own commands go through the parameter layer's choice rule (one
    message, exit 2); sacreBLEU's command line (mtscore sacrebleu) keeps sacreBLEU's wording."""
    import argparse
    from mtscore.cli.main import build_parser, main
    parser = build_parser()
    left = []

    def walk(p, path):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    if name != "sacrebleu":
                        walk(sp, f"{path} {name}".strip())
            elif a.choices is not None and not isinstance(a.choices, dict):
                left.append(f"{path} {a.option_strings or a.dest}")
    walk(parser, "")
    assert not left, f"choices not checked by the parameter table: {left}"
    for argv, want in ((["meta", "--human-format", "xx"],
                        "--human-format: must be one of: mtme, wmt-da, mqm-tsv, scored-tsv, tsv, rr, esa-csv, got 'xx'"),
                       (["meta", "--level", "zz"], "--level: must be one of: sys, seg, doc, domain, got 'zz'"),
                       (["compare", "--ties", "loose"], "--ties: must be one of: sacrebleu, strict, inclusive, got 'loose'")):
        import contextlib
        import io
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main(argv) == 2
        assert err.getvalue() == f"mtscore: error: {want}\n"
