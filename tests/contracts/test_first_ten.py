"""What a newcomer sees in the first ten minutes: outputs that are what they say, machine-readable
formats with numbers as numbers, a report command that does not flood the terminal, and a test suite that
never changes the machine it runs on."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

SAMPLE = ROOT / "src" / "mtscore" / "data" / "sample"
REF = str(SAMPLE / "newstest2017.en-de.ref.de")
A, B = str(SAMPLE / "LIUM-NMT.de"), str(SAMPLE / "uedin-nmt.de")


def run(*args, cwd=None):
    p = subprocess.run([sys.executable, "-m", "mtscore", *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def test_report_writing_html_prints_a_short_summary(tmp_path):
    out = tmp_path / "r.html"
    rc, stdout, err = run("report", "-r", REF, "-i", A, B, "-o", str(out), "--resamples", "200")
    assert rc == 0, err
    assert out.stat().st_size > 10_000
    lines = stdout.splitlines()
    assert len(lines) < 30  # no table of full sentences
    # fits 100 columns (a signature, one word, and the page's path stay whole)
    assert max(len(x) for x in lines[:-1] if " " in x) <= 100
    assert lines[-1].startswith(f"report written to {out} (") and lines[-1].endswith("KiB)")
    # an explicit -f still gives every table (the documented `-o r.html -f latex > tables.tex` use)
    rc, full, err = run("report", "-r", REF, "-i", A, B, "-o", str(out), "--resamples", "200", "-f", "text")
    assert rc == 0, err
    assert len(full.splitlines()) > 3 * len(lines)
    rc, j, err = run("report", "-r", REF, "-i", A, B, "--resamples", "200", "-f", "json")
    assert rc == 0 and len(json.loads(j)["tables"]) >= 4


def _values(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _values(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _values(v)
    else:
        yield obj


def test_compare_json_has_numbers_not_formatted_strings():
    rc, out, err = run("compare", "-r", REF, "-i", A, B, "-m", "bleu", "--resamples", "200", "-f", "json")
    assert rc == 0, err
    doc = json.loads(out)
    assert "mean" in doc["columns"] and "half_width" in doc["columns"]
    for row in doc["rows"]:
        for key, v in row.items():
            if key not in ("system", "sig"):
                assert v is None or isinstance(v, (int, float)), (key, v)
        assert row["ci_low"] <= row["mean"] <= row["ci_high"] and row["half_width"] > 0
    strings = [v for v in _values(doc["rows"]) if isinstance(v, str)]
    assert not any(re.fullmatch(r"-?[\d.]+( ± [\d.]+)?", s) for s in strings), strings
    # the text table keeps sacreBLEU's "mean ± half-width" form
    rc, text, _ = run("compare", "-r", REF, "-i", A, B, "-m", "bleu", "--resamples", "200")
    assert "mean ± hw" in text and re.search(r"\d+\.\d\d ± \d+\.\d\d", text)


def test_audit_length_prints_token_counts_as_integers():
    rc, out, err = run("audit", "length", "-r", REF, "-i", A)
    assert rc == 0, err
    row = next(line for line in out.splitlines() if line.startswith("(all)"))
    cells = row.split()
    assert cells[1] == "400" and re.fullmatch(r"\d+", cells[2]) and re.fullmatch(r"\d+", cells[3]), row
    rc, out, _ = run("audit", "length", "-r", REF, "-i", A, "-f", "json")
    rows = json.loads(out)["rows"] if "rows" in json.loads(out) else json.loads(out)["tables"][0]["rows"]
    assert all(isinstance(r["hyp len"], int) and isinstance(r["ref len"], int) for r in rows)


def test_line_count_message_is_grammatical(tmp_path):
    labels = tmp_path / "labels"
    labels.write_text("a\n", encoding="utf-8")
    rc, out, err = run("audit", "subsets", "-r", REF, "-i", A, B, "--labels", str(labels))
    assert rc == 3 and out == ""
    assert "has 400 lines" in err and "inputs has" not in err


# ------------------------------------------------------------------------------------------------ hygiene
_INSTALL = re.compile(r"""[\[(]\s*["'](apt-get|apt|dpkg|pip|pip3)["']|sys\.executable,\s*["']-m["'],\s*["']pip["']"""
                      r"""|(system|run|Popen|check_output|check_call)\(\s*f?["'](sudo )?(apt|pip)""")


# `pip wheel ... --no-index -w TMP` builds a wheel into a temporary folder and installs nothing (the shim test
# builds the shim's wheel with the suite's own pip, then installs it into a fresh venv under tmp_path)
_BUILD_ONLY = re.compile(r"""["']pip["'],\s*["']wheel["'].*["']--no-index["']""")


def test_no_test_installs_system_packages_or_calls_pip_outside_a_venv():
    """Tests never call apt; pip only inside a venv under the test's temporary folder (the fresh-install
    test runs the README's own command there; the no-compiler test runs the venv's own python -m pip), or
    ``pip wheel --no-index`` building into a temporary folder."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == Path(__file__).name:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _INSTALL.search(line) and not _BUILD_ONLY.search(line):
                offenders.append(f"{path.name}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_hypothesis_writes_no_example_database():
    from hypothesis import settings
    assert settings().database is None and settings().derandomize is True


# ------------------------------------------------------------------------------------------------ demo, tables
def test_demo_marks_directions_uses_one_scale_and_says_what_each_metric_is_for():
    rc, out, err = run("demo")
    assert rc == 0, err
    lines = out.splitlines()
    header = lines[1]
    for col, mark in (("BLEU", "↑"), ("TER", "↓"), ("WER", "↓"), ("PER", "↓"), ("4-GRR", "↑"), ("chrF2", "↑")):
        assert f"{col} {mark}" in header, (col, header)
    assert any(line.startswith("↑ higher is better, ↓ lower is better; WER, PER, 4-GRR, GTM computed on 0-1 and "
                               "shown ×100") for line in lines)
    # WER on the 0-100 scale in the table and in the JSON results (one scale everywhere); the API keeps 0-1
    rc, j, _ = run("demo", "-m", "wer", "bleu", "tbleu:epsilon=0.2", "-f", "json")
    doc = json.loads(j)
    row = doc["rows"][0]
    res = next(r for r in doc["results"][0]["results"] if r["metric"] == "wer")
    assert res["scale"] == 100 and res["score"] == row["WER"] and 0 < res["score"] / 100 < 1
    from mtscore.cli.demo import load_sample
    from mtscore.metrics.registry import get_metric
    systems, refs = load_sample()
    assert res["score"] == 100 * get_metric("wer").corpus(systems[doc["rows"][0]["system"]], refs).score
    # the demo's tBLEU uses a tolerance at which it differs from BLEU on the sample, spelled as its signature
    assert all(r["tBLEU[eps:0.2]"] != r["BLEU"] for r in doc["rows"])
    assert any(n.startswith("tBLEU|") and "|eps:0.2|" in n for n in doc["notes"])
    purposes = [line for line in lines if ": " in line and "|" not in line and not line.startswith(("↑", "Built"))]
    assert len(purposes) == 11 and purposes[0].startswith("BLEU: ")


def test_signature_is_the_same_however_an_option_is_given():
    a = run("score", "-r", REF, "-i", A, "-m", "chrf:beta=3")[1].splitlines()
    b = run("score", "-r", REF, "-i", A, "-m", "chrf", "--chrf-beta", "3")[1].splitlines()
    sig = [line for line in a if line.startswith("chrF3|")]
    assert sig and sig == [line for line in b if line.startswith("chrF3|")]
    # a metric option of chrF does not reach another metric
    c = run("score", "-r", REF, "-i", A, "-m", "chrf", "4-grr", "--chrf-beta", "3")[1]
    assert "beta:3" not in next(line for line in c.splitlines() if line.startswith("4-GRR|"))


def test_docs_have_no_development_time_wording():
    bad = re.compile(r"when mtscore\.\w+ lands|not yet in this branch|being written in parallel|will reuse the same"
                     r"|\bTODO\b|\bFIXME\b|work in progress", re.I)
    found = [f"{p.name}:{n}" for p in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if bad.search(line)]
    assert found == []
