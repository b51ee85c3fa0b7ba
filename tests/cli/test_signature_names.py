"""Every command signs a metric's numbers as ``mtscore score`` does: ``NAME|nrefs:...|version:...`` with the
metric's own name (never a bare ``nrefs:1|...``, never a column label such as ``BLEU[compat=...]``), and no
table shows ``nan``: an undefined value is a dash with a note saying what it means."""
from __future__ import annotations

import json
import re

import pytest

from conftest import cli_output
from mtscore.cli.main import main

REF = ["the cat sat on the mat", "hello world , how are you", "a dog ran far away", "it is raining today",
       "one two three four five", "the house is big", "", "we went home late"]
SYS = {"s0": ["the cat sat on the mat", "hello world", "a dog ran away", "it rains today", "one two three",
              "house big", "extra words", "we went home"],
       "s1": ["a cat sat", "hello world , how are you", "a dog ran far", "raining", "one two three four five",
              "the house is big", "", "we went home late"]}
SIGNED = re.compile(r"^(\S*?)\|?(nrefs:\S*version:mtscore-\S+)$", re.M)


cli = cli_output  # mtscore in this process; its stdout


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    for s, lines in SYS.items():
        (tmp_path / f"{s}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "docs.txt").write_text("\n".join(["d1"] * 2 + ["d2"] * 2 + ["d3"] * 4) + "\n", encoding="utf-8")
    (tmp_path / "labels.txt").write_text("\n".join(["news"] * 6 + ["empty", "talk"]) + "\n", encoding="utf-8")
    return tmp_path


def _signatures(text):
    return [(m.group(1), m.group(2)) for m in SIGNED.finditer(text)]


def _score_signature(files, spec):
    out = cli("score", "-r", files / "ref.txt", files / "s1.txt", "-i", files / "s0.txt", "-m", spec)
    (sig,) = _signatures(out)
    return sig


@pytest.mark.parametrize("argv", [
    ["analyse", "docs", "--docs", "{d}/docs.txt", "-m", "bleu", "--resamples", "0"],
    ["analyse", "wins", "-m", "bleu"],
    ["analyse", "lengths", "-m", "bleu", "--resamples", "0"],
    ["audit", "subsets", "--labels", "{d}/labels.txt", "-m", "bleu"],
    ["audit", "sign", "-m", "bleu"],
    ["audit", "length"],
    ["compare", "-m", "bleu", "--resamples", "20"],
])
def test_every_command_names_the_metric_it_signs(files, argv):
    argv = [a.replace("{d}", str(files)) for a in argv]
    out = cli(*argv[:2] if argv[0] in ("analyse", "audit") else argv[:1], "-r", files / "ref.txt", "-i",
              files / "s0.txt", files / "s1.txt", *argv[2 if argv[0] in ("analyse", "audit") else 1:])
    sigs = _signatures(out)
    assert sigs, out
    for name, _ in sigs:
        assert name == "BLEU", (argv, out)


def test_a_column_label_never_replaces_the_metric_name(files):
    """``audit deletion -m bleu:compat=...`` labels its column BLEU[compat=...]; the signature is score's."""
    out = cli("audit", "deletion", "-r", files / "ref.txt", files / "s1.txt", "-m", "bleu",
              "bleu:compat=mteval-v11b", "--rates", "0.1")
    names = [n for n, _ in _signatures(out)]
    assert names == ["BLEU", "BLEU"], out
    expected = _score_signature(files, "bleu:compat=mteval-v11b")
    assert ("BLEU", expected[1]) in _signatures(out)
    tsv = cli("audit", "deletion", "-r", files / "ref.txt", files / "s1.txt", "-m", "bleu",
              "bleu:compat=mteval-v11b", "--rates", "0.1", "-f", "tsv")
    assert not re.search(r"\tBLEU\[[^\t]*\|nrefs", tsv), tsv


def test_audit_subsets_shows_no_nan(files):
    """A subset whose references are empty has no length ratio: a dash and a note, never nan."""
    for fmt in ("text", "markdown", "tsv"):
        out = cli("audit", "subsets", "-r", files / "ref.txt", "-i", files / "s0.txt", files / "s1.txt",
                  "--labels", files / "labels.txt", "-m", "bleu", "-f", fmt)
        assert "nan" not in out.lower(), out
    text = cli("audit", "subsets", "-r", files / "ref.txt", "-i", files / "s0.txt", files / "s1.txt",
               "--labels", files / "labels.txt", "-m", "bleu")
    assert "len ratio - = no reference word in the subset" in text
    js = json.loads(cli("audit", "subsets", "-r", files / "ref.txt", "-i", files / "s0.txt", files / "s1.txt",
                        "--labels", files / "labels.txt", "-m", "bleu", "-f", "json"))
    assert "NaN" not in json.dumps(js)


@pytest.mark.parametrize("command", ["score", "compare", "report", "analyse wins", "audit subsets"])
def test_two_metrics_with_one_label_are_refused_in_every_command(files, command, capsys):
    """Tables and JSON rows are keyed by a metric's label: ``-m 4-grr k-grr`` (k-grr's default k is 4, so
    both are labelled 4-GRR) once lost one metric's numbers in report's JSON; every command refuses it."""
    extra = ["--labels", files / "labels.txt"] if command == "audit subsets" else []
    rc = main([*command.split(), "-r", str(files / "ref.txt"), "-i", str(files / "s0.txt"), str(files / "s1.txt"),
               "-m", "4-grr", "k-grr", *map(str, extra)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1, err
    assert "metrics: two metrics share the label '4-GRR' (4-grr, k-grr)" in err[0]
    # the same two with distinct parameters are two metrics
    assert "2-GRR" in cli("score", "-r", files / "ref.txt", "-i", files / "s0.txt", "-m", "4-grr", "k-grr:k=2")
