"""System names: the common prefix/suffix of the file names removed at separators.
Property tests (hypothesis) plus the CLI: --names, --baseline by short name, JSON paths. Takes ~10 s."""
import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from mtscore.cli.main import main
from mtscore.errors import InvalidParameterError
from mtscore.io.names import SEPARATORS, check_names, short_names, system_names
from conftest import data_path

PART = st.text(alphabet="ab1./-_", min_size=1, max_size=8)
PATHS = st.lists(st.builds(lambda a, b, c: a + b + c, st.sampled_from(["", "sys/", "x/y/", "run-1."]), PART,
                           st.sampled_from(["", ".txt", ".de", "-final.en-de"])),
                 min_size=1, max_size=6, unique=True)


def _cut_at_separators(path: str, name: str) -> bool:
    """``name`` is ``path`` less a prefix ending with a separator and a suffix starting with one."""
    for i in range(len(path) + 1):
        if i and path[i - 1] not in SEPARATORS:
            continue
        if path.startswith(name, i):
            rest = path[i + len(name):]
            if rest == "" or rest[0] in SEPARATORS:
                return True
    return False


@settings(max_examples=400, deadline=None)
@given(PATHS)
def test_short_names_properties(paths):
    names = short_names(paths)
    assert len(names) == len(paths)
    assert all(n and any(c not in SEPARATORS for c in n) or n == p for n, p in zip(names, paths))
    assert len(set(names)) == len(names)  # never two equal names
    for p, n in zip(paths, names):
        assert _cut_at_separators(p, n), (p, n)


@settings(max_examples=300, deadline=None)
@given(PATHS)
def test_one_prefix_and_suffix_removed_from_all(paths):
    """The names are the paths less ONE prefix and ONE suffix common to all of them."""
    if len(paths) < 2:
        return
    names = short_names(paths)
    p0, n0 = paths[0], names[0]
    ok = False
    for i in range(len(p0) - len(n0) + 1):
        if not p0.startswith(n0, i):
            continue
        pre, suf = p0[:i], p0[i + len(n0):]
        if all(p.startswith(pre) and p.endswith(suf) and len(p) >= len(pre) + len(suf)
               and p[len(pre):len(p) - len(suf)] == n for p, n in zip(paths, names)):
            ok = True
            break
    assert ok, (paths, names)


def test_examples():
    wmt17 = ["systems/newstest2017.uedin-nmt.4722.en-de", "systems/newstest2017.online-A.0.en-de",
             "systems/newstest2017.LIUM-NMT.4900.en-de"]
    assert short_names(wmt17) == ["uedin-nmt.4722", "online-A.0", "LIUM-NMT.4900"]
    assert short_names(["out/a.txt", "out/b.txt"]) == ["a", "b"]
    assert short_names(["/x/y/sys.txt"]) == ["sys.txt"]  # one file: its file name
    assert short_names(["a", "a.b"]) == ["a", "a.b"]  # nothing can go without emptying a name
    assert short_names(["p/run.1.txt", "p/run.2.txt"]) == ["1", "2"]
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
    assert re.search(r"^uedin-nmt\.4722 +28\.30$", out, re.M) and hyps[0] not in out
    assert main(["score", "-r", ref, "-i", *hyps, "--names", "U", "X", "K", "-f", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in obj["rows"]] == ["U", "X", "K"]
    assert [r["path"] for r in obj["results"]] == hyps
    assert main(["compare", "-r", ref, "-i", *hyps, "--names", "U", "X", "K", "--baseline", "X", "--resamples", "20",
                 "-f", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["comparison"]["baseline"] == "X" and obj["paths"] == dict(zip("UXK", hyps))
    assert main(["compare", "-r", ref, "-i", *hyps, "--baseline", "xmu.4910", "--resamples", "20"]) == 0
    assert "vs baseline xmu.4910" in capsys.readouterr().out
    assert main(["report", "-r", ref, "-i", *hyps[:2], "-m", "bleu", "--resamples", "20", "--examples", "1",
                 "--baseline", "xmu.4910", "-o", str(tmp_path / "r.html")]) == 0
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
    for baseline in ("xmu.4910", hyps[1]):  # by its shown name or by its file
        assert main(["analyse", "wins", "-r", ref, "-i", *hyps, "--baseline", baseline, "-f", "json"]) == 0
        assert "xmu.4910" in capsys.readouterr().out
    assert main(["analyse", "ngrams", "-r", ref, "-i", *hyps, "--names", "U", "X", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\bU\b", out) and re.search(r"\bX\b", out) and hyps[0] not in out and "uedin" not in out
    assert main(["audit", "sign", "-r", ref, "-i", *hyps, "-q"]) == 0
    assert "unrecognized" not in capsys.readouterr().err
