"""One vocabulary across commands: every command's parser is walked (nested commands too) and each option's
concept read from its one declaration (mtscore.cli.options.concept_of). No option name may mean two things in two
commands, and no concept may be spelled two ways; a former spelling still works, hidden from help, with a note,
and docs/parameters.md lists it."""
from __future__ import annotations

import argparse
import collections
import re

import pytest

from conftest import ROOT
from mtscore import params as P
from mtscore.cli.main import build_parser, main
from mtscore.cli.options import concept_of

# the drop-in sacreBLEU command line keeps sacreBLEU's own names (docs/sacrebleu.md)
OWN_VOCABULARY = {"sacrebleu"}


def _walk(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if not path and name in OWN_VOCABULARY:
                    continue
                yield from _walk(sub, path + (name,))
        elif action.option_strings:
            yield " ".join(path) or "mtscore", action


ACTIONS = list(_walk(build_parser()))
CURRENT = [(cmd, a) for cmd, a in ACTIONS if concept_of(a) is not None]
FORMER = [(cmd, a) for cmd, a in ACTIONS if isinstance(a, P.DeprecatedOption)]


def test_the_walk_sees_every_command():
    cmds = {cmd.split()[0] for cmd, _ in ACTIONS}
    assert {"score", "compare", "report", "meta", "audit", "analyse", "lattice", "rose", "nbest"} <= cmds
    assert len(CURRENT) > 500


def test_one_meaning_per_option_name():
    meanings = collections.defaultdict(set)
    for cmd, a in CURRENT:
        for flag in a.option_strings:
            meanings[flag].add((concept_of(a), cmd))
    clash = {f: sorted(s) for f, s in meanings.items() if len({c for c, _ in s}) > 1}
    assert not clash, f"one option name, several meanings: {clash}"


def test_one_name_per_meaning():
    names = collections.defaultdict(set)
    for cmd, a in CURRENT:
        names[concept_of(a)].add((tuple(sorted(f for f in a.option_strings if f.startswith("--"))), cmd))
    clash = {c: sorted(s) for c, s in names.items() if len({n for n, _ in s}) > 1}
    assert not clash, f"one meaning, several option names: {clash}"


@pytest.mark.parametrize("concept,flag", [("resamples", "--resamples"), ("ci_level", "--ci-level"),
                                          ("output", "--output"), ("level", "--level")])
def test_the_chosen_names(concept, flag):
    """The number of resamples is --resamples everywhere (compare, report, analyse, meta); --ci-level a confidence
    level; --level is meta's sys/seg/doc/domain only."""
    cmds = {cmd for cmd, a in CURRENT if concept_of(a) == concept}
    assert cmds, concept
    assert all(flag in a.option_strings for cmd, a in CURRENT if concept_of(a) == concept)
    if concept == "resamples":
        assert {"compare", "report", "meta", "analyse docs"} <= cmds
    if concept == "ci_level":
        assert {"compare", "report", "meta"} <= cmds


def test_former_spellings_are_hidden_and_documented():
    doc = (ROOT / "docs" / "parameters.md").read_text(encoding="utf-8")
    section = doc.split("## Deprecated spellings", 1)[1].split("\n## ", 1)[0]
    assert FORMER
    for cmd, a in FORMER:
        assert a.help == argparse.SUPPRESS
        for flag in a.option_strings:
            row = [line for line in section.splitlines() if f"`{flag}`" in line and f"`{cmd.split()[0]}" in line]
            assert row, f"{cmd} {flag}: not in docs/parameters.md's deprecated spellings"
            assert any(f in row[0] for f in a.current.option_strings if f.startswith("--")), row[0]


def _parse(argv):
    return build_parser(argv).parse_args(argv)


@pytest.mark.parametrize("old,new,dest,value", [
    (["compare", "-r", "r", "-i", "a", "b", "--n", "50"], ["--resamples", "50"], "n", 50),
    (["compare", "-r", "r", "-i", "a", "b", "--n-samples", "50"], ["--resamples", "50"], "n", 50),
    (["compare", "-r", "r", "-i", "a", "b", "--level", "0.9"], ["--ci-level", "0.9"], "level", 0.9),
    (["compare", "-r", "r", "-i", "a", "b", "-t", "ar"], ["--test", "ar"], "test", "ar"),
    (["meta", "--data", "d", "--lp", "x", "--ci", "20"], ["--resamples", "20"], "ci", 20),
    (["meta", "--data", "d", "--lp", "x", "--block-size", "7"], ["--perm-block-size", "7"], "block_size", 7),
    (["meta", "--data", "d", "--lp", "x", "--html", "x.html"], ["-o", "x.html"], "html", "x.html"),
    (["report", "-r", "r", "-i", "a", "--html", "x.html"], ["--output", "x.html"], "output", "x.html"),
    (["audit", "subsets", "-r", "r", "-i", "a", "--labels", "l", "--html", "x.html"], ["-o", "x.html"], "html",
     "x.html"),
    (["analyse", "ngrams", "-r", "r", "-i", "a", "b", "--alpha", "2"], ["--ratio-smoothing", "2"], "alpha", 2.0),
    (["analyse", "ngrams", "-r", "r", "-i", "a", "b", "--compare", "over"], ["--ngram-type", "over"], "ngram_type",
     "over"),
])
def test_a_former_spelling_still_works(old, new, dest, value, capsys):
    P._NOTED.clear()
    got = _parse(old)
    note = capsys.readouterr().err
    assert getattr(got, dest) == value
    assert re.search(r"mtscore: note: option '[-\w]+' is deprecated; use '--[\w-]+'", note), note
    i = next(i for i, x in enumerate(old) if x.startswith("-") and x not in ("-r", "-i", "--data", "--lp",
                                                                              "--labels"))
    assert getattr(_parse(old[:i] + new + old[i + 2:]), dest) == value


def test_a_former_spelling_is_not_in_help(capsys):
    former = collections.defaultdict(set)
    for cmd, a in FORMER:
        former[cmd].update(a.option_strings)
    for cmd, flags in former.items():
        for opt in ("--help", "--help-all"):
            with pytest.raises(SystemExit):
                main(cmd.split() + [opt])
            out = capsys.readouterr().out
            assert "usage:" in out
            for flag in flags:
                assert not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", out), (cmd, opt, flag)
