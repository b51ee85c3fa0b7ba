"""WMT24++: the google/wmt24pp release layout (one jsonl per language pair: source, post-edited target,
original_target, document_id, domain, is_bad_source) read by ``score -t wmt24pp --testset-dir DIR``, bad sources
left out as the release recommends; and mt-metrics-eval's WMT24++ folder (posteditA as the standard reference)
read by ``meta --data``, whose jsonl sources carry is_bad_source for ``--filter``.

Fixture: tests/fixtures/wmt24pp (41 verbatim rows of en-de_DE and en-ja_JP, PROVENANCE.md). Oracle: the rows read
here with the json module, written as plain files, scored the plain way."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
FIX = TESTS / "fixtures" / "wmt24pp"


def _rows(lp):
    return [json.loads(x) for x in (FIX / f"{lp}.jsonl").read_text(encoding="utf-8").splitlines()]


def _kept(lp):
    return [r for r in _rows(lp) if not r["is_bad_source"]]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "mtscore", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def _write(path, lines):
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return path


def test_fixture_is_the_release_layout():
    for lp in ("en-de_DE", "en-ja_JP"):
        rows = _rows(lp)
        assert len(rows) == 41 and all(r["lp"] == lp for r in rows)
        assert [r["segment_id"] for r in rows if r["is_bad_source"]] == [0, 167, 257, 262, 265, 267]
        assert {r["domain"] for r in rows} == {"canary", "news", "social", "speech", "literary"}


@pytest.mark.parametrize("lp", ["en-de_DE", "en-ja_JP"])
def test_echo_leaves_out_bad_sources(lp):
    for field, key in (("src", "source"), ("ref", "target"), ("ref:original", "original_target"),
                       ("docid", "document_id"), ("domain", "domain")):
        p = _run("score", "-t", "wmt24pp", "-l", lp, "--testset-dir", FIX, "--echo", field)
        assert p.returncode == 0, p.stderr
        assert p.stdout.rstrip("\n").split("\n") == [r[key] for r in _kept(lp)], field


@pytest.mark.parametrize("lp", ["en-de_DE", "en-ja_JP"])
def test_score_against_the_post_edits(tmp_path, lp):
    kept = _kept(lp)
    hyp = _write(tmp_path / "original.txt", [r["original_target"] for r in kept])  # a "system": the unedited refs
    ref = _write(tmp_path / "postedit.txt", [r["target"] for r in kept])
    tok = ["--tokenize", "char"] if lp.endswith("ja_JP") else []
    a = _run("score", "-t", "wmt24pp", "-l", lp, "--testset-dir", FIX, "-i", hyp, "-m", "bleu", "chrf", *tok,
             "-f", "json")
    b = _run("score", "-r", ref, "-i", hyp, "-m", "bleu", "chrf", *tok, "-f", "json")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert ja["rows"] == jb["rows"] and ja["rows"]
    vals = [v for r in ja["rows"] for k, v in r.items() if isinstance(v, float)]
    assert vals and all(0 < v < 100 for v in vals)  # the post-edits differ from the original references


def test_hypotheses_for_every_row_are_refused(tmp_path):
    rows = _rows("en-de_DE")
    hyp = _write(tmp_path / "all.txt", [r["original_target"] for r in rows])
    p = _run("score", "-t", "wmt24pp", "-l", "en-de_DE", "--testset-dir", FIX, "-i", hyp)
    lines = p.stderr.strip().splitlines()
    assert p.returncode != 0 and len(lines) == 1 and "Traceback" not in p.stderr
    assert "41" in lines[0] and "35" in lines[0], lines[0]


def test_malformed_rows_are_one_line(tmp_path):
    d = tmp_path / "wmt24pp"
    d.mkdir()
    rows = (FIX / "en-de_DE.jsonl").read_text(encoding="utf-8").splitlines()
    for k, bad in ((3, "{not json"), (4, rows[4].replace('"is_bad_source": false', '"is_bad_source": "no"')),
                   (5, rows[5].replace('"target":', '"target_x":'))):
        lines = list(rows)
        lines[k] = bad
        _write(d / "en-de_DE.jsonl", lines)
        p = _run("score", "-t", "wmt24pp", "-l", "en-de_DE", "--testset-dir", d, "--echo", "src")
        err = p.stderr.strip().splitlines()
        assert p.returncode == 3 and len(err) == 1 and f"en-de_DE.jsonl:{k + 1}" in err[0], p.stderr


def test_listed_and_not_confused_with_other_jsonl(tmp_path):
    p = _run("score", "--list", "--testset-dir", FIX)
    assert p.returncode == 0 and "wmt24pp" in p.stdout and "en-de_DE, en-ja_JP (WMT24++ release" in p.stdout
    # an mt-metrics-eval jsonl source file (WMT25 layout) is not a WMT24++ test set
    (tmp_path / "x" / "sources").mkdir(parents=True)
    _write(tmp_path / "x" / "sources" / "en-de_DE.jsonl", [json.dumps({"source": "a"})])
    q = _run("score", "-t", "sources", "-l", "en-de_DE", "--testset-dir", tmp_path / "x", "--echo", "src")
    assert q.returncode == 3 and "not found" in q.stderr  # an input error (docs/input.md exit codes)


def _mtme_folder(root: Path, lp: str) -> Path:
    """mt-metrics-eval's WMT24++ folder, with the release file as its jsonl source (is_bad_source kept as a
    per-segment field), posteditA (target) and refA (original_target) references, three systems and synthetic
    segment-level human scores (WMT24++ has none; the values only need to differ)."""
    d = root / "wmt24pp"
    for sub in ("sources", "references", f"system-outputs/{lp}", "human-scores"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    rows = _rows(lp)
    shutil.copy(FIX / f"{lp}.jsonl", d / "sources" / f"{lp}.jsonl")
    _write(d / "references" / f"{lp}.posteditA.jsonl", [json.dumps({"target": r["target"]}) for r in rows])
    _write(d / "references" / f"{lp}.refA.txt", [r["original_target"] for r in rows])
    systems = {"original": [r["original_target"] for r in rows], "copy": [r["source"] for r in rows],
               "half": [r["target"][: len(r["target"]) // 2] for r in rows]}
    for s, lines in systems.items():
        _write(d / "system-outputs" / lp / f"{s}.txt", lines)
    human = {"original": 90.0, "copy": 20.0, "half": 50.0}
    _write(d / "human-scores" / f"{lp}.esa.seg.score",
           [f"{s}\t{human[s] - (i * 7 + len(s)) % 11}" for s in systems for i in range(len(rows))])
    return d


def test_meta_reads_mtme_wmt24pp_and_filters_bad_sources(tmp_path):
    from mtscore.io.wmt import load_mtme
    lp = "en-ja_JP"
    d = _mtme_folder(tmp_path, lp)
    data = load_mtme(d, lp)
    assert data.std_ref() == "posteditA"  # mt-metrics-eval's WMT24++ standard reference, not refA
    assert [m["is_bad_source"] for m in data.source_meta].count(True) == 6
    base = ["meta", "--data", d, "--lp", lp, "--human", "esa", "-m", "chrf", "--level", "seg", "--stats", "pearson",
            "-f", "json"]
    p = _run(*base, "--filter", "is_bad_source=false")
    assert p.returncode == 0, p.stderr
    t = json.loads(p.stdout)
    assert any("is_bad_source in {false}: 35 segments of 41" in n for n in t["notes"]), t["notes"]
    # oracle: the bad rows unrated in the human file
    f = d / "human-scores" / f"{lp}.esa.seg.score"
    bad = {i for i, r in enumerate(_rows(lp)) if r["is_bad_source"]}
    out = []
    for k, ln in enumerate(f.read_text().splitlines()):
        s, v = ln.split("\t")
        out.append(f"{s}\t{'None' if k % 41 in bad else v}")
    f.write_text("\n".join(out) + "\n")
    q = _run(*base)
    assert q.returncode == 0, q.stderr
    assert json.loads(q.stdout)["rows"] == t["rows"]
