"""Every example output in README.md and docs/ is what the command prints today.

An output block is marked by the comment line right above its fence: ``<!-- output: mtscore ... -->`` (``{sample}``
stands for the built-in sample's folder). This test runs each marked command and compares the whole text; a fenced
block that looks like program output (a table rule, a signature, an error line) without a marker fails, and so does
a ``$ mtscore ...`` block that shows output after its command, so no example output can go stale unnoticed.
``python3 scripts/update_doc_outputs.py`` rewrites the marked blocks (the same markers, the same way of running).
Defaults a page states (``(`--seed`, default 12345)``) are checked against the commands' parsers. Python ``>>>``
examples in docs/ run as doctests.
"""
from __future__ import annotations

import doctest
import importlib.util
import re
import shlex

import pytest

from conftest import ROOT
from mtscore.cli.demo import sample_dir
from mtscore.cli.main import main

DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
_spec = importlib.util.spec_from_file_location("update_doc_outputs", ROOT / "scripts" / "update_doc_outputs.py")
_updater = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_updater)
MARK = _updater.MARK  # one marker syntax for the test and the script that rewrites the blocks
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
            if before.startswith(("<!-- output: ", "<!-- error: ")):
                continue
            lines = [ln for ln in body.splitlines() if ln.strip()]
            commands = body.lstrip().startswith(("mtscore ", "$ "))
            shown_after_command = any(ln.startswith("$ mtscore") for ln in lines) and \
                any(not ln.startswith(("$ ", "#", " ", "\t")) for ln in lines)
            if (LOOKS_LIKE_OUTPUT.search(body) and not commands) or shown_after_command:
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


def _parser_defaults():
    """flag -> the defaults it has in the commands that define it (mtscore's own commands)."""
    import argparse
    from mtscore.cli.main import build_parser
    out: dict = {}

    def walk(parser, top=True):
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    if not (top and name == "sacrebleu"):
                        walk(sub, False)
            elif a.help != argparse.SUPPRESS or a.default is not None:
                for f in a.option_strings:
                    out.setdefault(f, set()).update(a.default if isinstance(a.default, list) else [a.default])
    walk(build_parser())
    from mtscore.cli.options import all_metric_options
    for opt in all_metric_options():  # a metric option's default is its parameter's (the option itself: None)
        if opt.param is None:
            continue
        for f in opt.flags:
            out.setdefault(f, set()).add(opt.param.default)
    return out


def test_documented_defaults_are_the_parsers():
    """``(`--seed`, default 0)`` in a page is checked against the option's default in the commands (docs/audit.md
    said 0 where every command uses 12345)."""
    defaults = _parser_defaults()
    pattern = re.compile(r"`(--[a-z][a-z0-9-]*)[^`]*`,? default:? (-?\d+(?:\.\d+)?)\b")
    wrong, checked = [], 0
    for path in DOCS:
        for m in pattern.finditer(path.read_text(encoding="utf-8")):
            flag, value = m.group(1), float(m.group(2))
            if flag not in defaults:
                wrong.append(f"{path.name}: {flag} is no option of any command")
                continue
            numbers = {float(d) for d in defaults[flag] if isinstance(d, (int, float)) and not isinstance(d, bool)}
            checked += 1
            if value not in numbers:
                wrong.append(f"{path.name}: {flag} default {m.group(2)}, the commands use {sorted(numbers)}")
    assert checked >= 5 and not wrong, wrong
