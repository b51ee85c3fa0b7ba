"""System names: only the shared directory and the shared extension are removed from the file names, never a
distinguishing word (ONLINE-A.txt is ONLINE-A, not A), and a name is the same alone or beside others.
Property tests (hypothesis) plus the CLI: --names, --baseline by short name, JSON paths. Takes ~10 s."""
import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from mtscore.cli.main import main
from mtscore.errors import InvalidParameterError
from mtscore.io.names import check_names, short_names, system_names
from conftest import data_path

PART = st.text(alphabet="ab1./-_", min_size=1, max_size=8).filter(lambda s: not s.endswith("/"))
PATHS = st.lists(st.builds(lambda a, b, c: a + b + c, st.sampled_from(["", "sys/", "x/y/", "run-1."]), PART,
                           st.sampled_from(["", ".txt", ".de", "-final.en-de"])),
                 min_size=1, max_size=6, unique=True)


def _extension(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return base[base.rfind("."):] if base.rfind(".") > 0 else ""


@settings(max_examples=400, deadline=None)
@given(PATHS)
def test_short_names_properties(paths):
    """Each name is its path less leading whole folders shared by all and less the extension shared by all; the
    names are distinct and non-empty."""
    names = short_names(paths)
    assert len(names) == len(paths) and len(set(names)) == len(names)
    exts = {_extension(p) for p in paths}
    ext = exts.pop() if len(exts) == 1 else ""
    prefixes = set()
    for p, n in zip(paths, names):
        assert n
        stem = p[:len(p) - len(ext)] if ext else p
        assert stem.endswith(n), (p, n)
        prefix = stem[:len(stem) - len(n)]
        assert prefix == "" or prefix.endswith("/"), (p, n)  # only whole folders go
        prefixes.add(prefix)
    assert len(prefixes) == 1, (paths, names)  # the same folders, removed from every path
    if len(paths) > 1:  # and only shared ones: the first differing folder (or the file name) stays
        assert not all(n.split("/")[0] == names[0].split("/")[0] and "/" in n for n in names)


@settings(max_examples=300, deadline=None)
@given(PATHS, st.sampled_from([".txt", ".de"]))
def test_a_name_is_the_same_alone_or_with_others(paths, ext):
    """Files with one extension: a file's name does not depend on which other systems are scored with it."""
    paths = list(dict.fromkeys(p.rsplit("/", 1)[-1] + ext for p in paths if p.rsplit("/", 1)[-1].strip(".")))
    if not paths:
        return
    together = short_names(paths)
    for p, n in zip(paths, together):
        assert short_names([p]) == [n]


def test_examples():
    wmt17 = ["systems/newstest2017.uedin-nmt.4722.en-de", "systems/newstest2017.online-A.0.en-de",
             "systems/newstest2017.LIUM-NMT.4900.en-de"]
    assert short_names(wmt17) == ["newstest2017.uedin-nmt.4722", "newstest2017.online-A.0",
                                  "newstest2017.LIUM-NMT.4900"]
    assert short_names(["ONLINE-A.txt", "ONLINE-B.txt", "ONLINE-W.txt"]) == ["ONLINE-A", "ONLINE-B", "ONLINE-W"]
    assert short_names(["sample/LIUM-NMT.de"]) == ["LIUM-NMT"]  # alone ...
    assert short_names(["sample/LIUM-NMT.de", "sample/online-B.de"]) == ["LIUM-NMT", "online-B"]  # ... or not
    assert short_names(["out/a.txt", "out/b.txt"]) == ["a", "b"]
    assert short_names(["/x/y/sys.txt"]) == ["sys"]  # one file: its file name without its extension
    assert short_names(["run1/out.txt", "run2/out.txt"]) == ["run1/out", "run2/out"]  # a differing folder stays
    assert short_names(["a", "a.b"]) == ["a", "a.b"]  # no shared extension
    assert short_names(["a.txt", "b.de"]) == ["a.txt", "b.de"]
    assert short_names(["p/run.1.txt", "p/run.2.txt"]) == ["run.1", "run.2"]
    assert short_names([]) == []


def test_check_names():
    assert system_names(["a.txt", "b.txt"], ["A", "B"]) == ["A", "B"]
    for names, msg in ((["A"], "one name per system"), (["A", "A"], "unique"), (["A", ""], "non-empty"),
                       (["A", "B\tC"], "tab")):
        with pytest.raises(InvalidParameterError, match=msg):
            check_names(names, 2)


def test_cli_names_everywhere(tmp_path, capsys):
    root = data_path("wmt17-en-de")
    ref = str(root / "newstest2017.en-de.ref0.de")
    hyps = [str(root / "systems" / f"newstest2017.{s}.en-de") for s in ("uedin-nmt.4722", "xmu.4910", "KIT.4950")]
    assert main(["score", "-r", ref, "-i", *hyps]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^newstest2017\.uedin-nmt\.4722 +28\.30$", out, re.M) and hyps[0] not in out
    assert main(["score", "-r", ref, "-i", *hyps, "--names", "U", "X", "K", "-f", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in obj["rows"]] == ["U", "X", "K"]
    assert [r["path"] for r in obj["results"]] == hyps
    assert main(["compare", "-r", ref, "-i", *hyps, "--names", "U", "X", "K", "--baseline", "X", "--resamples", "20",
                 "-f", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["comparison"]["baseline"] == "X" and obj["paths"] == dict(zip("UXK", hyps))
    assert main(["compare", "-r", ref, "-i", *hyps, "--baseline", "newstest2017.xmu.4910", "--resamples", "20"]) == 0
    assert "vs baseline newstest2017.xmu.4910" in capsys.readouterr().out
    assert main(["report", "-r", ref, "-i", *hyps[:2], "-m", "bleu", "--resamples", "20", "--examples", "1",
                 "--baseline", "newstest2017.xmu.4910", "-o", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    assert "uedin-nmt.4722" in out and hyps[0] not in out
    assert "xmu.4910" in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert main(["report", "-r", ref, "-i", *hyps[:2], "-m", "bleu", "--resamples", "20", "--examples", "1",
                 "--names", "U", "X", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["paths"] == {"U": hyps[0], "X": hyps[1]}
    assert main(["score", "-r", ref, "-i", *hyps, "--names", "U", "X"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--names: one name per system is needed (3), got 2" in err


def test_analyse_uses_the_same_names_and_takes_quiet_after_nested_commands(capsys):
    """analyse shows the names score shows (not the paths), --names and --baseline by name or file work there, and
    -q is accepted after a nested command (analyse lengths -q, audit sign -q) as after any other command."""
    root = data_path("wmt17-en-de")
    ref = str(root / "newstest2017.en-de.ref0.de")
    hyps = [str(root / "systems" / f"newstest2017.{s}.en-de") for s in ("uedin-nmt.4722", "xmu.4910")]
    assert main(["analyse", "lengths", "-r", ref, "-i", *hyps, "--resamples", "0", "-q"]) == 0
    out = capsys.readouterr().out
    assert "uedin-nmt.4722 BLEU" in out and "xmu.4910 BLEU" in out and hyps[0] not in out
    for baseline in ("newstest2017.xmu.4910", hyps[1]):  # by its shown name or by its file
        assert main(["analyse", "wins", "-r", ref, "-i", *hyps, "--baseline", baseline, "-f", "json"]) == 0
        assert "xmu.4910" in capsys.readouterr().out
    assert main(["analyse", "ngrams", "-r", ref, "-i", *hyps, "--names", "U", "X", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\bU\b", out) and re.search(r"\bX\b", out) and hyps[0] not in out and "uedin" not in out
    assert main(["audit", "sign", "-r", ref, "-i", *hyps, "-q"]) == 0
    assert "unrecognized" not in capsys.readouterr().err


def test_cli_keeps_the_distinguishing_words(tmp_path, capsys):
    """score / compare / report show ONLINE-A, never A; LIUM-NMT.de is LIUM-NMT alone and beside another system."""
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\na dog ran far away\nit is raining today\n" * 2, encoding="utf-8")
    lines = {"ONLINE-A": "the cat sat on the mat\na dog ran away\nit rains today\n" * 2,
             "ONLINE-B": "a cat sat on a mat\na dog ran\nraining today\n" * 2,
             "ONLINE-W": "cat mat\ndog far\ntoday\n" * 2}
    for name, text in lines.items():
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    files = [str(tmp_path / f"{n}.txt") for n in lines]
    assert main(["score", "-r", str(ref), "-i", *files, "-f", "json"]) == 0
    assert [r["system"] for r in json.loads(capsys.readouterr().out)["rows"]] == list(lines)
    assert main(["compare", "-r", str(ref), "-i", *files, "--resamples", "20", "--baseline", "ONLINE-B"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^ONLINE-A ", out, re.M) and "vs baseline ONLINE-B" in out and not re.search(r"^A ", out, re.M)
    (tmp_path / "LIUM-NMT.de").write_text(lines["ONLINE-A"], encoding="utf-8")
    (tmp_path / "online-B.de").write_text(lines["ONLINE-B"], encoding="utf-8")
    shown = []
    for inputs in (["LIUM-NMT.de"], ["LIUM-NMT.de", "online-B.de"]):
        assert main(["score", "-r", str(ref), "-i", *(str(tmp_path / f) for f in inputs), "-f", "json"]) == 0
        shown.append(json.loads(capsys.readouterr().out)["rows"][0]["system"])
    assert shown == ["LIUM-NMT", "LIUM-NMT"]
