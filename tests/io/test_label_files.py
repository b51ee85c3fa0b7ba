"""Label files are read by one rule in every command that takes them (docs/report.md, "Label files"): a line is
split at TABs and the label is field --label-field (default 1). An mt-metrics-eval documents/<lp>.docs file
(DOMAIN<TAB>DOCID) gives `report --labels` and `audit subsets --labels` the same domains (`report` used to take
whole lines: subsets named "news<TAB>gb-0"), `--label-field 2` the documents that `analyse docs --docs` reads."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mtscore.cli.demo import sample_dir
from mtscore.errors import InputError
from mtscore.io.labels import read_doc_ids, read_labels

N = 400  # the built-in sample's segments


def _docs_file(tmp_path):
    """mt-metrics-eval's layout: DOMAIN<TAB>DOCID, documents of 40 segments, two domains."""
    rows = [("news" if i < 250 else "manuals", f"gb-{i // 40}") for i in range(N)]
    p = tmp_path / "en-de.docs"
    p.write_text("".join(f"{d}\t{doc}\n" for d, doc in rows), encoding="utf-8")
    return p, rows


def _run(*args):
    p = subprocess.run([sys.executable, "-m", "mtscore", *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _inputs():
    d = sample_dir()
    return ["-r", d / "newstest2017.en-de.ref.de", "-i", d / "LIUM-NMT.de", d / "uedin-nmt.de", "-m", "bleu"]


def test_reader_fields_and_errors(tmp_path):
    p, rows = _docs_file(tmp_path)
    assert read_labels(str(p), N) == [d for d, _ in rows]
    assert read_labels(str(p), N, field=2) == [doc for _, doc in rows]
    assert read_doc_ids(str(p), N) == [doc for _, doc in rows]
    plain = tmp_path / "plain.txt"
    plain.write_text("a b\nc\n", encoding="utf-8")  # one field per line: the whole line, spaces and all
    assert read_labels(str(plain), 2) == ["a b", "c"]
    with pytest.raises(InputError, match=r"plain\.txt:1: line has 1 TAB-separated field, --label-field is 2"):
        read_labels(str(plain), 2, field=2)
    with pytest.raises(InputError, match="en-de.docs has 400 lines, each input has 3 lines"):
        read_labels(str(p), 3)


def test_report_and_audit_read_the_domain_and_analyse_docs_the_document(tmp_path):
    p, rows = _docs_file(tmp_path)
    domains = sorted({d for d, _ in rows})
    documents = sorted({doc for _, doc in rows})

    def report_subsets(*extra):
        out = json.loads(_run("report", *_inputs(), "--labels", p, *extra, "--resamples", "20", "--no-subset-ci",
                              "--examples", "0", "-f", "json", "-q"))
        t = next(t for t in out["tables"] if t["title"].startswith("Scores per subset"))
        return sorted(r["subset"] for r in t["rows"])

    assert report_subsets() == domains  # not "news\tgb-0" ...: 2 subsets, not 10
    assert report_subsets("--label-field", "2") == documents
    audit = json.loads(_run("audit", "subsets", *_inputs(), "--labels", p, "-f", "json", "-q"))
    assert sorted({r["subset"] for r in audit["rows"]} - {"(all)"}) == domains
    docs = json.loads(_run("analyse", "docs", *_inputs(), "--docs", p, "-f", "json", "-q"))
    assert sorted(r["document"] for r in docs["tables"][0]["rows"][1:]) == documents
