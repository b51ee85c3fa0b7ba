"""``mtscore meta --filter KEY=VALUE`` on the WMT25-layout fixture, in its jsonl form (sources with
per-segment fields, metadata/<lp>/<SYSTEM>.jsonl per translation).

Oracle: the same command without a filter on a copy of the data whose dropped cells are written as unrated
(``None``) in the human and metric segment files, with the system-level files removed (so that every system score
is the mean of the kept segments, which is what the filter recomputes): the two must give the same statistics.
Errors are one line, with a did-you-mean."""
from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

TESTS = Path(__file__).resolve().parents[1]
FIXTURE = TESTS / "fixtures" / "wmt25"
LP = "en-cs_CZ"
N = 24
METRICS = ["BLEU-refA", "MetricX-25-refA", "COMETKiwi22-src"]


def _systems():
    return sorted(p.stem for p in (FIXTURE / "system-outputs" / LP).glob("*.txt"))


def _bad_source(i):  # a few sources marked bad, as WMT24++ marks HTML/URL/emoji segments
    return i in (0, 5, 13)


def _llm(system, i):  # per-translation metadata: a deterministic pattern
    return (i + len(system)) % 3 == 0


@pytest.fixture(scope="module")
def jsonl_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("wmt25") / "wmt25"
    shutil.copytree(FIXTURE, root)
    src = root / "sources" / f"{LP}.txt"
    lines = src.read_text(encoding="utf-8").split("\n")[:-1]
    src.with_suffix(".jsonl").write_text("".join(
        json.dumps({"source": x, "document_id": f"d{i // 6}", "is_bad_source": _bad_source(i)}) + "\n"
        for i, x in enumerate(lines)))
    src.unlink()
    (root / "metadata" / LP).mkdir(parents=True)
    for s in _systems():
        (root / "metadata" / LP / f"{s}.jsonl").write_text(
            "".join(json.dumps({"llm_judge": _llm(s, i), "segment": i}) + "\n" for i in range(N)))
    return root


def _domains():
    return [ln.split("\t")[0] for ln in (FIXTURE / "documents" / f"{LP}.docs").read_text().splitlines()]


def _masked_copy(src_root, dst, keep):
    """The oracle's data: cells with keep(system, i) False written as None; system/domain files removed."""
    shutil.copytree(src_root, dst)
    files = [dst / "human-scores" / f"{LP}.esa-human1.seg.score"] + \
        [dst / "metric-scores" / LP / f"{m}.seg.score" for m in METRICS]
    for f in files:
        out, count = [], {}
        for ln in f.read_text().splitlines():
            s, v = ln.split("\t")
            i = count.get(s, 0)
            count[s] = i + 1
            out.append(f"{s}\t{v if keep(s, i) else 'None'}")
        f.write_text("\n".join(out) + "\n")
        f.with_name(f.name.replace(".seg.", ".sys.")).unlink()
    (dst / "human-scores" / f"{LP}.esa-human1.domain.score").unlink()
    return dst


def _meta(root, *extra):
    """``mtscore meta`` in process (the command line's own entry, without a Python start-up per call; the program
    itself runs end to end in tests/meta/test_meta_wmt25.py)."""
    from mtscore.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["meta", "--data", str(root), "--lp", LP, "--human", "esa-human1", "--external", *METRICS,
                   "-f", "json", *extra])
    assert rc == 0, err.getvalue()
    return json.loads(out.getvalue())


_UNFILTERED: dict = {}


def _meta_unfiltered(root, *args):
    """The unfiltered run, once per set of arguments (the same for every filter of a level)."""
    key = (str(root), args)
    if key not in _UNFILTERED:
        _UNFILTERED[key] = _meta(root, *args)
    return _UNFILTERED[key]


def _values(table):
    cols = [c for c in table["columns"] if c != "metric"]
    return {r["metric"]: [r[c] for c in cols] for r in table["rows"]}


def _same(a, b):
    va, vb = _values(a), _values(b)
    assert va.keys() == vb.keys()
    for m in va:
        for x, y in zip(va[m], vb[m]):
            if isinstance(x, float) or isinstance(y, float):
                assert x == pytest.approx(y, abs=1e-12, nan_ok=True), m
            else:
                assert x == y, m


@pytest.mark.parametrize("level", ["seg", "sys"])
@pytest.mark.parametrize("filters, keep", [
    (["domain=news"], lambda s, i: _domains()[i] == "news"),
    (["domain=news", "domain=speech"], lambda s, i: _domains()[i] in ("news", "speech")),
    (["is_bad_source=false"], lambda s, i: not _bad_source(i)),
    (["llm_judge=false"], lambda s, i: not _llm(s, i)),
    (["llm_judge=false", "domain=social"], lambda s, i: not _llm(s, i) and _domains()[i] == "social"),
], ids=["domain", "two-domains", "source-field", "translation-field", "and"])
def test_filter_equals_masked_copy(jsonl_root, tmp_path, level, filters, keep):
    stats = ["pearson", "kendall"] if level == "seg" else ["pearson", "spearman", "accuracy"]
    args = ["--level", level, "--stats", *stats]
    got = _meta(jsonl_root, *args, *[x for f in filters for x in ("--filter", f)])
    want = _meta(_masked_copy(jsonl_root, tmp_path / "copy", keep), *args)
    _same(got, want)
    note = [n for n in got["notes"] if n.startswith("filter:")]
    assert len(note) == 1 and filters[0].split("=")[0] in note[0]
    # and the filter changes the numbers (the test would otherwise pass with the filter ignored)
    full = _meta_unfiltered(jsonl_root, *args)
    assert _values(full) != _values(got)


def test_task_set_filter_equals_masked_human(jsonl_root, tmp_path):
    """--task-set wmt25 --filter domain=news: the same ranking as the task set on data whose other segments are
    unrated in the gold (and in the human baseline)."""
    from mtscore.meta import tasks as T
    keep = [d == "news" for d in _domains()]
    copy = tmp_path / "copy"
    shutil.copytree(jsonl_root, copy)
    for kind in ("esa-human1", "esa-human2"):
        f = copy / "human-scores" / f"{LP}.{kind}.seg.score"
        out, count = [], {}
        for ln in f.read_text().splitlines():
            s, v = ln.split("\t")
            i = count.get(s, 0)
            count[s] = i + 1
            out.append(f"{s}\t{v if keep[i] else 'None'}")
        f.write_text("\n".join(out) + "\n")
    metrics = ["BLEU", "MetricX-25", "COMETKiwi22"]
    a = T.run_task_set(jsonl_root, [LP], metrics, "wmt25", filters=["domain=news"])
    b = T.run_task_set(copy, [LP], metrics, "wmt25")
    assert [t.values for t in a.tasks] == [t.values for t in b.tasks]
    full = T.run_task_set(jsonl_root, [LP], metrics, "wmt25")
    assert [t.values for t in full.tasks] != [t.values for t in a.tasks]
    assert a.notes and "domain in {news}" in a.notes[0]


def _err(root, *extra, rc=2):
    p = subprocess.run([sys.executable, "-m", "mtscore", "meta", "--data", str(root), "--lp", LP, "--human",
                        "esa-human1", "--external", "BLEU-refA", *extra], capture_output=True, text=True, timeout=300)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == rc and len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    return lines[0]


@pytest.mark.parametrize("extra, expect", [
    (["--filter", "domian=news"], ["unknown key 'domian'", "did you mean 'domain'?", "llm_judge", "is_bad_source"]),
    (["--filter", "domain=nwes"], ["no segment has domain = 'nwes'", "values of domain: news, social, speech",
                                   "did you mean 'news'?"]),
    (["--filter", "llm_judge=False"], ["no translation has llm_judge = 'False'", "values of llm_judge: false, true",
                                       "did you mean 'false'?"]),
    (["--filter", "domain"], ["expected KEY=VALUE", "'domain'"]),
    (["--filter", "domain=news", "--level", "domain"], ["levels sys and seg", "--level domain"]),
])
def test_filter_errors(jsonl_root, extra, expect):
    line = _err(jsonl_root, *extra)
    for e in expect:
        assert e in line, line


def test_filter_errors_elsewhere(jsonl_root, tmp_path):
    p = subprocess.run([sys.executable, "-m", "mtscore", "meta", "--task-set", "wmt23", "--data", str(jsonl_root),
                        "--lps", LP, "--external", "BLEU", "--human", "esa-human1", "--filter", "domain=news"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "not with --task-set wmt23" in p.stderr and len(p.stderr.splitlines()) == 1
    # a metadata file shorter than the source
    bad = tmp_path / "bad"
    shutil.copytree(jsonl_root, bad)
    m = sorted((bad / "metadata" / LP).glob("*.jsonl"))[0]
    m.write_text("".join(m.read_text().splitlines(keepends=True)[:-1]))
    line = _err(bad, "--filter", "llm_judge=true", rc=3)  # an input error (docs/input.md exit codes)
    assert m.name in line and "23 lines but the source has 24" in line
    # the text layout has no jsonl fields: the known keys are those of documents/
    line = _err(FIXTURE, "--filter", "llm_judge=true")
    assert "unknown key 'llm_judge'; keys: document, domain" in line


def test_plain_python_mask(jsonl_root):
    """The mask itself against a plain reading of the files."""
    from mtscore.io.wmt import load_mtme
    from mtscore.meta import filters as F
    d = load_mtme(jsonl_root, LP)
    systems = _systems()
    f = F.build(d, systems, F.parse(["llm_judge=true", "domain=news", "domain=social"]))
    want = np.array([[_llm(s, i) and _domains()[i] in ("news", "social") for i in range(N)] for s in systems])
    assert (f.mask == want).all() and f.mask.any() and not f.mask.all()
