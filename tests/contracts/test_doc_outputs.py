"""Every example output in README.md and docs/ is what the command prints today.

An output block is marked by the comment line right above its fence: ``<!-- output: mtscore ... -->`` (``{sample}``
stands for the built-in sample's folder). This test runs each marked command and compares the whole text; a fenced
block that looks like program output (a table rule, a signature, an error line) without a marker fails, so no
example output can go stale unnoticed. Python ``>>>`` examples in docs/ run as doctests.
"""
from __future__ import annotations

import doctest
import re
import shlex

import pytest

from conftest import ROOT
from mtscore.cli.demo import sample_dir
from mtscore.cli.main import main

DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
MARK = re.compile(r"^<!-- (output|error): (mtscore .*?) -->\n```[a-z]*\n(.*?)```", re.S | re.M)
FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```", re.S | re.M)
LOOKS_LIKE_OUTPUT = re.compile(r"^-{3,}( |$)|\|nrefs:|^mtscore: (error|warning)|explanation \(", re.M)


def _marked():
    out = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in MARK.finditer(text):
            out.append(pytest.param(m.group(1), m.group(2), m.group(3),
                                    id=f"{path.name}:{text[:m.start()].count(chr(10)) + 1}"))
    return out


def test_there_are_marked_outputs():
    assert len(_marked()) >= 2


@pytest.mark.parametrize("kind,cmd,expected", _marked())
def test_documented_output_is_what_the_command_prints(kind, cmd, expected, capsys, monkeypatch):
    """``output``: stdout equals the block. ``error``: the command fails and its one stderr line matches the block,
    where ``...`` stands for text the page leaves out; the home folder is /home/me, as the page shows it."""
    monkeypatch.chdir(ROOT)
    for var in ("HF_HOME", "HF_HUB_CACHE", "XDG_CACHE_HOME", "HUGGINGFACE_HUB_CACHE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", "/home/me")
    argv = [a.replace("{sample}", str(sample_dir())) for a in shlex.split(cmd)[1:]]
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    if kind == "output":
        assert rc == 0, err
        assert out == expected, f"{cmd}: the documented output is stale; it prints now:\n{out}"
    else:
        assert rc != 0 and out == ""
        pattern = ".*".join(map(re.escape, expected.rstrip("\n").split("...")))
        assert re.fullmatch(pattern, err.rstrip("\n")), f"{cmd}: the documented error is stale; it prints now:\n{err}"


def test_every_output_block_is_marked():
    unmarked = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            body, before = m.group(2), text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            if LOOKS_LIKE_OUTPUT.search(body) and not body.lstrip().startswith(("mtscore ", "$ ")) \
                    and not before.startswith(("<!-- output: ", "<!-- error: ")):
                unmarked.append(f"{path.name}:{text[:m.start()].count(chr(10)) + 1}")
    assert not unmarked, f"example output without an <!-- output: ... --> marker (so no test runs it): {unmarked}"


def test_python_examples_in_docs_run():
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group(1) in ("python", "pycon") and ">>> " in m.group(2):
                test = doctest.DocTestParser().get_doctest(m.group(2), {}, path.name, str(path), 0)
                runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
                runner.run(test)
                assert runner.failures == 0, f"{path.name}: a >>> example prints something else today"
