"""Test sets from local folders (-t/-l): a sacreBLEU-cache-shaped folder, an mt-metrics-eval folder and a WMT release
folder, all built from ../shared/data under tmp_path (HOME, SACREBLEU and MTME_DATA point there), give the same
numbers as the files and the published scores. Takes ~15 s."""
import csv
import json
import shutil
from pathlib import Path

import pytest

from mtscore import BLEU
from mtscore.cli.main import main
from mtscore.errors import InputError, InvalidParameterError
from mtscore.io import read_lines
from mtscore.io import testsets as ts
from mtscore.io.wmt import read_sys_scores, read_wmt21_scores
from conftest import data_path


@pytest.fixture
def env(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SACREBLEU", raising=False)
    monkeypatch.delenv("MTME_DATA", raising=False)
    return tmp_path


def _sacrebleu_cache(root):
    """wmt21 en-de / en-zh and wmt23 en-ja as sacreBLEU 2.6 leaves them in its cache (field ref:A -> file ref-A)."""
    w21, w23 = data_path("wmt21"), data_path("wmt23-en-ja")
    (root / "wmt21").mkdir(parents=True)
    (root / "wmt23").mkdir()
    for lp, tgt, refs in (("en-de", "de", "ACD"), ("en-zh", "zh", "AB")):
        shutil.copy(w21 / "sources" / f"newstest2021.{lp}.src.en", root / "wmt21" / f"wmt21.{lp}.src")
        for r in refs:
            shutil.copy(w21 / "references" / f"newstest2021.{lp}.ref.{r}.{tgt}", root / "wmt21" / f"wmt21.{lp}.ref-{r}")
    shutil.copy(w23 / "generaltest2023.en-ja.src.en", root / "wmt23" / "wmt23.en-ja.src")
    shutil.copy(w23 / "generaltest2023.en-ja.ref.refA.ja", root / "wmt23" / "wmt23.en-ja.ref-refA")
    return root


def _published(lp, system, metric="bleu-A"):
    for r in read_wmt21_scores(data_path("wmt21", "scores", "automatic-scores.tsv")):
        if r["pair"] == lp and r["system"] == system and r["metric"] == metric:
            return r["score"]
    raise AssertionError((lp, system, metric))


def _json_score(capsys, metric="BLEU"):
    out = json.loads(capsys.readouterr().out)
    return [row[metric] for row in out["rows"]]


def test_sacrebleu_cache(env, monkeypatch, capsys):
    cache = _sacrebleu_cache(env / "cache")
    monkeypatch.setenv("SACREBLEU", str(cache))
    hyp_de = data_path("wmt21", "system-outputs", "newstest2021.en-de.hyp.Facebook-AI.de")
    hyp_zh = data_path("wmt21", "system-outputs", "newstest2021.en-zh.hyp.NiuTrans.zh")
    # sacreBLEU's registry: WMT21 is scored against reference A only
    assert main(["score", "-t", "wmt21", "-l", "en-de", "-i", str(hyp_de), "-f", "json", "-w", "10"]) == 0
    assert _json_score(capsys) == [pytest.approx(_published("en-de", "Facebook-AI"), abs=1e-12)]
    # -l en-zh picks the zh tokenizer, as sacreBLEU does
    assert main(["score", "-t", "wmt21", "-l", "en-zh", "-i", str(hyp_zh), "-f", "json"]) == 0
    assert _json_score(capsys) == [pytest.approx(_published("en-zh", "NiuTrans"), abs=1e-12)]
    t = ts.find_testset("wmt21", "en-de")
    assert t.layout == ts.SACREBLEU and t.ref_fields == ("ref:A",)
    assert t.field_names() == ["src", "ref:A", "ref:C", "ref:D"]
    # --echo and --list as sacreBLEU prints them
    assert main(["score", "-t", "wmt21", "-l", "en-de", "--echo", "src", "ref"]) == 0
    echo = capsys.readouterr().out.split("\n")
    src = read_lines(cache / "wmt21" / "wmt21.en-de.src")
    ref = read_lines(cache / "wmt21" / "wmt21.en-de.ref-A")
    assert echo[:3] == [f"{a}\t{b}" for a, b in zip(src, ref)][:3] and len(echo) == len(src) + 1
    assert main(["score", "-t", "wmt21", "--list"]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == ["en-de: src, ref:A, ref:C, ref:D", "en-zh: src, ref:A, ref:B"]
    assert main(["score", "--list", "-l", "en-ja"]) == 0
    assert "wmt23" in capsys.readouterr().out


def test_sacrebleu_cache_ja_mecab_by_langpair(env, monkeypatch, capsys):
    pytest.importorskip("MeCab")
    cache = _sacrebleu_cache(env / "cache")
    monkeypatch.setenv("SACREBLEU", str(cache))
    root = data_path("wmt23-en-ja")
    with open(root / "sacrebleu-2.6-scores.tsv", encoding="utf-8") as fh:
        stored = {r[0]: r[1] for r in list(csv.reader(fh, delimiter="\t"))[1:]}
    names = ["ONLINE-Y", "SKIM"]
    hyps = [str(root / "system-outputs" / f"generaltest2023.en-ja.hyp.{n}.ja") for n in names]
    assert main(["score", "-t", "wmt23", "-l", "en-ja", "-i", *hyps, "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f"{r['BLEU']:.10f}" for r in out["rows"]] == [stored[n] for n in names]
    assert "tok:ja-mecab-0.996-IPA" in out["notes"][0]


def test_mt_metrics_eval_folder(env, monkeypatch, capsys):
    src = data_path("wmt23")
    mtme = env / "mtme"
    dst = mtme / "wmt23"
    for sub in ("sources", "references", "documents"):
        shutil.copytree(src / sub, dst / sub)
    monkeypatch.setenv("MTME_DATA", str(mtme))
    hyps = {n: src / "system-outputs" / "he-en" / f"{n}.txt" for n in ("GPT4-5shot", "ONLINE-A")}
    published = read_sys_scores(src / "metric-scores" / "he-en" / "BLEU-refB.sys.score")
    t = ts.find_testset("wmt23", "he-en")
    assert t.layout == ts.MTME and t.path("ref").endswith("he-en.refB.txt")  # mt-metrics-eval's standard reference
    assert main(["score", "-t", "wmt23", "-l", "he-en", "-i", *map(str, hyps.values()), "-f", "json"]) == 0
    assert _json_score(capsys) == [pytest.approx(published[n], abs=1e-9) for n in hyps]
    assert main(["score", "-t", "wmt23", "-l", "he-en", "--echo", "docid"]) == 0
    docs = [ln.split("\t")[1] for ln in read_lines(src / "documents" / "he-en.docs")]
    assert capsys.readouterr().out.split("\n")[:-1] == docs
    # report and compare take -t / --testset too
    assert main(["compare", "--testset", "wmt23", "-l", "he-en", "-i", *map(str, hyps.values()), "--resamples", "50",
                 "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["comparison"]["scores"] == [
        pytest.approx(published[n], abs=1e-9) for n in hyps]
    assert main(["report", "-t", "wmt23", "-l", "he-en", "-i", *map(str, hyps.values()), "-m", "bleu",
                 "--resamples", "20", "--examples", "1"]) == 0
    assert "BLEU" in capsys.readouterr().out


def test_wmt_release_folder_and_joined_testsets(env, capsys):
    w21 = data_path("wmt21")
    rel = env / "releases" / "wmt21-news-systems" / "txt"
    (rel / "sources").mkdir(parents=True)
    (rel / "references").mkdir()
    for p in w21.joinpath("sources").glob("newstest2021.en-de.*"):
        shutil.copy(p, rel / "sources" / p.name)
    for p in w21.joinpath("references").glob("newstest2021.en-de.*"):
        shutil.copy(p, rel / "references" / p.name)
    hyp = w21 / "system-outputs" / "newstest2021.en-de.hyp.Facebook-AI.de"
    for name in ("newstest2021", "wmt21", "wmt21-news-systems"):
        assert main(["score", "--testset-dir", str(env / "releases"), "-t", name, "-l", "en-de", "-i", str(hyp),
                     "-f", "json"]) == 0, name
        assert _json_score(capsys) == [pytest.approx(_published("en-de", "Facebook-AI"), abs=1e-12)]
    # two test sets joined by a comma: concatenated, as sacreBLEU does (here WMT21 twice, then once more)
    joined = env / "joined.txt"
    hyp_lines = read_lines(hyp)
    joined.write_text("\n".join(hyp_lines + hyp_lines) + "\n", encoding="utf-8")
    assert main(["score", "--testset-dir", str(env / "releases"), "-t", "newstest2021,wmt21", "-l", "en-de",
                 "-i", str(joined), "-f", "json"]) == 0
    ref = read_lines(w21 / "references" / "newstest2021.en-de.ref.A.de")
    expected = BLEU().corpus(hyp_lines + hyp_lines, [[r] for r in ref + ref]).score
    assert _json_score(capsys) == [pytest.approx(expected, abs=1e-12)]


def test_errors_are_one_line(env, capsys):
    hyp = env / "h.txt"
    hyp.write_text("a\n", encoding="utf-8")
    cases = [
        (["score", "-t", "wmt99", "-l", "en-de", "-i", str(hyp)], 3, "not found"),
        (["score", "-t", "wmt21", "-i", str(hyp)], 2, "needs a language pair"),
        (["score", "-t", "wmt21", "-l", "english-german!", "-i", str(hyp)], 2, "-l/--langpair"),
        (["score", "--download", "wmt21"], 2, "never downloads"),
        (["score", "--echo", "src"], 2, "--echo"),
        (["score", "--testset-dir", str(env / "nope"), "-t", "x", "-l", "en-de"], 2, "--testset-dir"),
        (["score", "-t", "a,,b", "-l", "en-de", "-i", str(hyp)], 2, "none empty"),
    ]
    for args, code, text in cases:
        assert main(args) == code, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and text in err, (args, err)
    main(["score", "-t", "wmt99", "-l", "en-de", "-i", str(hyp)])
    err = capsys.readouterr().err
    assert str(env / "home" / ".sacrebleu" / "wmt99") in err and ".mt-metrics-eval" in err
    with pytest.raises(InputError, match="searched"):
        ts.find_testset("wmt99", "en-de", environ={"SACREBLEU": str(env / "s"), "MTME_DATA": str(env / "m")})
    with pytest.raises(InvalidParameterError):
        ts.find_testset("wmt21", "ende")


def test_rejects_testset_with_refs(env, monkeypatch, capsys):
    cache = _sacrebleu_cache(env / "cache")
    monkeypatch.setenv("SACREBLEU", str(cache))
    ref = cache / "wmt21" / "wmt21.en-de.ref-A"
    assert main(["score", "-t", "wmt21", "-l", "en-de", "-r", str(ref), "-i", str(ref)]) == 2
    assert "either a test set" in capsys.readouterr().err


def test_a_cached_test_set_the_registry_does_not_know(env):
    """A folder in sacreBLEU's cache under a name its registry lacks: the files present decide."""
    cache = _sacrebleu_cache(env / "cache")
    (cache / "wmt21").rename(cache / "mysets")
    for f in (cache / "mysets").iterdir():
        f.rename(f.with_name(f.name.replace("wmt21.", "mysets.", 1)))
    t = ts.find_testset("mysets", "en-de", environ={"SACREBLEU": str(cache), "MTME_DATA": str(env / "m")})
    assert t.ref_fields == ("ref:A",)  # the first ref-* file, the field sacreBLEU's --echo ref falls back to
    assert t.field_names() == ["src", "ref:A", "ref:C", "ref:D"]
    assert ts.read_references([t])[0] == [read_lines(cache / "mysets" / "mysets.en-de.ref-A")[0]]


def _registry_pairs():
    from mtscore.sacrebleu.dataset import DATASETS
    return [(name, lp) for name, ds in DATASETS.items() for lp in ds.langpairs]


def test_registry_fields_are_the_dataset_classes_fields():
    """io reads sacreBLEU's registry from mtscore's data file (never from an installed sacreBLEU, whose presence
    changed the result: ``wmt17/tworefs`` scored one reference of two without it). For every pair of all 67 test
    sets its fields and scored references equal those of the drop-in's dataset classes, and of real sacreBLEU
    2.6's where it is installed (WMT21+ XML sets: the scored references; their fields need the raw XML)."""
    from mtscore.sacrebleu.dataset import DATASETS
    try:
        import sacrebleu
        real = sacrebleu.dataset.DATASETS if not getattr(sacrebleu, "__version__", "").count("mtscore") else None
    except ImportError:
        real = None
    pairs = _registry_pairs()
    assert len({n for n, _ in pairs}) == 67 and len(pairs) > 400  # (452)
    multi = 0
    for name, lp in pairs:
        entry = ts._registry()["datasets"][name]
        fields, refs = ts._registry_fields(entry, lp)
        for classes in [DATASETS] + ([real] if real is not None else []):
            ds = classes[name]
            if entry["format"] == "WMTXMLDataset":
                assert fields is None and refs == list(ds._get_langpair_allowed_refs(lp)), (name, lp)
            else:
                try:
                    want = list(ds.fieldnames(lp))
                except ValueError:  # (sacreBLEU's own check: a pair with fewer than two files)
                    want = None
                assert fields == want, (name, lp)
                if want is not None:
                    assert refs == [f for f in want if f.startswith("ref")]
        multi += refs is not None and len(refs) > 1
    assert multi >= 20  # the pairs where a wrong guess loses references (wmt17/tworefs, wmt21/AB, ...)
    assert ts._registry()["subsets"]["wmt19"] == __import__("mtscore.sacrebleu.dataset").sacrebleu.dataset.SUBSETS["wmt19"]


def test_two_reference_test_set_without_sacrebleu_installed(env, tmp_path):
    """``wmt17/tworefs`` in sacreBLEU's cache, resolved in a process where ``import sacrebleu`` fails: both
    references (before: ``ref:0`` only, since the registry came from the installed package)."""
    import os
    import subprocess
    import sys
    cache = env / "cache" / "wmt17" / "tworefs"  # (sacreBLEU: folder NAME, files NAME with / as _)
    d = data_path("wmt17-en-de")
    cache.mkdir(parents=True)
    ref = (d / "newstest2017.en-de.ref0.de").read_text(encoding="utf-8")
    (cache / "wmt17_tworefs.en-fi.src").write_text(ref, encoding="utf-8")
    (cache / "wmt17_tworefs.en-fi.ref-0").write_text(ref, encoding="utf-8")
    (cache / "wmt17_tworefs.en-fi.ref-1").write_text(ref, encoding="utf-8")
    blocked = tmp_path / "blocked" / "sacrebleu"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('sacrebleu is blocked in this test')\n")
    code = ("import sys, mtscore.io.testsets as ts; t = ts.find_testset('wmt17/tworefs', 'en-fi', "
            "environ={'SACREBLEU': sys.argv[1], 'MTME_DATA': sys.argv[1]}); print(' '.join(t.ref_fields))")
    root = Path(__file__).resolve().parents[2] / "src"
    env_ = dict(os.environ, PYTHONPATH=f"{tmp_path / 'blocked'}{os.pathsep}{root}")
    p = subprocess.run([sys.executable, "-c", code, str(env / "cache")], capture_output=True, text=True, env=env_)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["ref:0", "ref:1"]


def test_echo_all_unknown_field_and_tokenize_none_warning(env, monkeypatch, capsys):
    cache = _sacrebleu_cache(env / "cache")
    monkeypatch.setenv("SACREBLEU", str(cache))
    assert main(["score", "-t", "wmt21", "-l", "en-zh", "--echo", "all"]) == 0
    first = capsys.readouterr().out.split("\n")[0].split("\t")
    assert len(first) == 3  # src, ref:A, ref:B
    assert main(["score", "-t", "wmt21", "-l", "en-zh", "--echo", "docid"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no field 'docid'" in err and "available: src, ref:A, ref:B" in err
    assert main(["score", "-t", "wmt21", "-l", "en-zh", "--echo", "all", "src"]) == 2
    assert "'all' cannot be combined" in capsys.readouterr().err
    hyp = data_path("wmt21", "system-outputs", "newstest2021.en-zh.hyp.NiuTrans.zh")
    assert main(["score", "-t", "wmt21", "-l", "en-zh", "-i", str(hyp), "--tokenize", "none"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert any("turning off BLEU's internal tokenizer" in ln for ln in err)
