"""``meta -r ... -i ... --human-file WAVE.csv --human-format esa-csv --docs FILE``: the documents file decides the
ESA segment offset as ``documents/<lp>.docs`` does under ``--data`` (docs/meta.md). Oracle: the same files laid out
as an mt-metrics-eval folder and read with ``--data``; both forms must give the same numbers."""
from __future__ import annotations

import contextlib
import io
import json
import os

import pytest

from mtscore.cli.main import main

DOCS = ["canary", "d1", "d1", "d2", "d2", "d3", "d3", "d4"]
REF = [f"the reference sentence number {i} here" for i in range(len(DOCS))]
HYPS = {"A": [f"the reference sentence {i} here" for i in range(len(DOCS))],
        "B": [f"a sentence {i}" for i in range(len(DOCS))],
        "C": [f"reference number {i} here there" for i in range(len(DOCS))]}
# ids count the canary line (offset 0), ratings of segments 1..7 by one rater
SCORES = {"A": [80, 75, 90, 70, 85, 60, 88], "B": [20, 35, 10, 40, 30, 25, 15], "C": [50, 45, 55, 65, 40, 35, 60]}


def _esa_rows():
    rows = []
    for s, vals in SCORES.items():
        for seg, v in enumerate(vals, 1):
            rows.append(f"u1,{s},{seg},TGT,eng,ces,{v},{DOCS[seg]},False,[],1,{seg}")
    return "\n".join(rows) + "\n"


def _run(d, *argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(d), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def d(tmp_path):
    (tmp_path / "wave.csv").write_text(_esa_rows())
    (tmp_path / "ref.txt").write_text("\n".join(REF) + "\n")
    for s, lines in HYPS.items():
        (tmp_path / f"{s}.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "docs.tsv").write_text("".join(f"news\t{x}\n" for x in DOCS))
    (tmp_path / "docids.txt").write_text("".join(f"{x}\n" for x in DOCS))
    root = tmp_path / "mtme"
    for sub in ("sources", "references", "documents", "system-outputs/en-cs"):
        (root / sub).mkdir(parents=True)
    (root / "sources" / "en-cs.txt").write_text("".join(f"src {i}\n" for i in range(len(DOCS))))
    (root / "references" / "en-cs.refA.txt").write_text("\n".join(REF) + "\n")
    (root / "documents" / "en-cs.docs").write_text("".join(f"news\t{x}\n" for x in DOCS))
    for s, lines in HYPS.items():
        (root / "system-outputs" / "en-cs" / f"{s}.txt").write_text("\n".join(lines) + "\n")
    return tmp_path


ESA = ["--human-file", "wave.csv", "--human-format", "esa-csv", "--lp", "en-cs", "-m", "chrf", "bleu"]


@pytest.mark.parametrize("level", ["sys", "seg"])
def test_docs_decide_the_offset_as_data_does(d, level):
    rc, out, err = _run(d, "meta", "-r", "ref.txt", "-i", "A.txt", "B.txt", "C.txt", *ESA, "--level", level,
                        "-f", "json")
    assert rc == 2 and "cannot be decided" in err, err  # no documents: refused, rightly
    rc, want, err = _run(d, "meta", "--data", "mtme", *ESA, "--level", level, "-f", "json")
    assert rc == 0, err
    for docs in ("docs.tsv", "docids.txt"):  # DOMAIN<TAB>DOCID as documents/<lp>.docs, or a doc id a line
        rc, got, err = _run(d, "meta", "-r", "ref.txt", "-i", "A.txt", "B.txt", "C.txt", *ESA, "--level", level,
                            "--docs", docs, "-f", "json")
        assert rc == 0, err
        g, w = json.loads(got), json.loads(want)
        assert g["rows"] == w["rows"] and g["rows"], (g, w)
        assert "segment_id + 0" in got


def test_docs_rules(d):
    (d / "short.txt").write_text("canary\nd1\n")
    base = ["meta", "-r", "ref.txt", "-i", "A.txt", "B.txt", "C.txt"]
    for argv, code, text in [
        (base + ESA + ["--docs", "short.txt"], 3, "short.txt: has 2 lines but the reference has 8"),
        (base + ESA + ["--docs", "nope.txt"], 3, "nope.txt"),
        (base + ["--human-file", "wave.csv", "--human-format", "tsv", "--docs", "docs.tsv"], 2, "--docs:"),
        (["meta", "--data", "mtme", *ESA, "--docs", "docs.tsv"], 2, "--docs: not with --data"),
    ]:
        rc, out, err = _run(d, *argv)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert rc == code and len(lines) == 1 and lines[0].startswith("mtscore: error:") and text in lines[0], \
            (argv, rc, err)
    assert os.path.exists(d / "wave.csv")
