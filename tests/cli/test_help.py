"""Help and hints: every option a README/docs command line types is in that command's --help; the
usage line fits; "did you mean" for metric, value, option, command and system names; sacreBLEU's positional
reference points to -r and to ``mtscore sacrebleu``; ``mtscore metrics NAME`` shows real defaults."""
from __future__ import annotations

import re

import pytest

from conftest import ROOT
from mtscore.cli.demo import sample_dir
from mtscore.cli.main import main

DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
NESTED = ("audit", "analyse", "rose")


def documented_options() -> dict:
    """(command, sub-command) -> the options README and docs/ type on its command lines."""
    used: dict = {}
    for path in DOCS:
        for block in re.findall(r"```[a-z]*\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                m = re.match(r"^\s*(?:\$ )?mtscore (?:-q )?(\w+)(?: (\w+))?", line)
                if not m or m.group(1) == "sacrebleu":
                    continue
                key = (m.group(1), m.group(2) if m.group(1) in NESTED else None)
                for flag in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", line.split("|")[0]):
                    used.setdefault(key, set()).add((flag, path.name))
    return used


def _help(capsys, *argv) -> str:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return capsys.readouterr().out


def test_every_documented_option_is_in_help(capsys):
    missing = []
    used = documented_options()
    assert len(used) >= 10
    for (cmd, sub), flags in sorted(used.items(), key=str):
        text = _help(capsys, cmd, *([sub] if sub else []))
        for flag, doc in sorted(flags):
            if not re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", text):
                missing.append(f"mtscore {cmd}{' ' + sub if sub else ''} {flag} ({doc})")
    assert not missing, missing


@pytest.mark.parametrize("cmd", ["score", "compare", "report", "meta", "nbest", "demo"])
def test_usage_line_is_short(cmd, capsys):
    text = _help(capsys, cmd)
    usage = text.split("\n\n")[0]
    assert usage.startswith(f"usage: mtscore {cmd}") and len(usage.splitlines()) <= 2, usage


def _err(capsys, *argv) -> str:
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's usage errors
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    return err


def test_did_you_mean(capsys):
    d = sample_dir()
    ref, a, b = d / "newstest2017.en-de.ref.de", d / "LIUM-NMT.de", d / "uedin-nmt.de"
    assert "did you mean 'bleu'?" in _err(capsys, "score", "-r", ref, "-i", a, "-m", "blue")
    assert "did you mean 'json'?" in _err(capsys, "score", "-r", ref, "-i", a, "-f", "jsn")
    assert "did you mean 'exp'?" in _err(capsys, "score", "-r", ref, "-i", a, "--smooth", "expp")
    assert "did you mean --tokenize" in _err(capsys, "score", "-r", ref, "-i", a, "--tokenise", "none")
    assert "did you mean 'score'?" in _err(capsys, "scroe", "-r", ref)
    err = _err(capsys, "compare", "-r", ref, "-i", a, b, "--baseline", "uedin")
    assert "LIUM-NMT, uedin-nmt" in err and "did you mean 'uedin-nmt'?" in err
    assert "did you mean 'uedin-nmt'?" in _err(capsys, "report", "-r", ref, "-i", a, b, "--baseline", "uedin")
    err = _err(capsys, "score", ref, "-i", a)  # sacreBLEU's habit: the reference first
    assert "-r" in err and "mtscore sacrebleu REF -i HYP" in err


def test_metrics_shows_real_defaults(capsys):
    assert main(["metrics", "bleu", "rose"]) == 0
    out = capsys.readouterr().out
    assert "see help" not in out
    assert "smooth: choice, default exp;" in out and "weights: list of float, default 0.25/0.25/0.25/0.25" in out
    assert "effective_order: bool, default no for corpus scores, yes for sentence scores" in out
    assert "ref_length: choice, default closest;" in out


COMMANDS_WITH_HELP = ["score", "compare", "report", "meta", "nbest", "lattice", "demo", "rescore", "explain",
                      "metrics", "tokenize", "lcm", "analyse", "audit"]


@pytest.mark.parametrize("cmd", COMMANDS_WITH_HELP)
def test_help_fits_a_screen_and_help_all_has_the_rest(cmd, capsys):
    """--help: one line per option (the metric parameters and meta's modes as lists of names), at most 75 lines,
    naming every option the command shows; --help-all: argparse's full text, every option with its choices."""
    import argparse
    from mtscore.cli.main import build_parser
    short = _help(capsys, cmd)
    assert len(short.splitlines()) <= 75, (cmd, len(short.splitlines()))
    sub = next(a for a in build_parser([cmd, "--help"])._actions if isinstance(a, argparse._SubParsersAction))
    shown = [o for a in sub.choices[cmd]._actions if a.help is not argparse.SUPPRESS for o in a.option_strings]
    assert len(shown) >= 3
    missing = [o for o in shown if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", short)]
    assert not missing, (cmd, missing)
    with pytest.raises(SystemExit):
        main([cmd, "--help-all"])
    full = capsys.readouterr().out
    assert full.startswith(f"usage: mtscore {cmd}") and "--help-all" in full


def test_short_help_keeps_the_first_clause(capsys):
    out = _help(capsys, "score")
    assert "--smooth" in out and "--grr-insertion-penalty" in out  # listed whole, never broken at a hyphen
    assert re.search(r"^  -f, --format \{text,json,tsv,csv,latex,markdown\}", out, re.M)
    assert all(line.count("(") >= line.count(")") - 0 for line in out.splitlines())
    with pytest.raises(SystemExit):
        main(["score", "--help-all"])
    full = capsys.readouterr().out
    assert "{none,floor,add-k,exp" in full and "available: 4-grr, bleu" in " ".join(full.split())
