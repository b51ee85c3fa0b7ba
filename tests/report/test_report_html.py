"""``mtscore report`` / ``meta --html`` end to end: numbers equal the library's, the HTML is valid,
self-contained and small, it loads in headless Chromium with no console error and no network
request, and progress bars never reach stdout."""
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from conftest import CHROMIUM_MISSING, ROOT, chromium_path, data_path
from mtscore.io import read_lines
from mtscore.metrics.bleu import BLEU, BLEUSBP
from mtscore.analysis.systems import build_report
from mtscore.report.systems import render_html, report_tables
from mtscore.significance import compare_stats

SEED = 12345


# ------------------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="session")
def chromium():
    """Path of a Chromium binary; the test skips (naming the package) when it is missing: tests never
    install system packages (.ci/run installs Debian's ``chromium`` before the suite)."""
    found = chromium_path()
    if not found:
        pytest.skip(CHROMIUM_MISSING)
    return found


@pytest.fixture(scope="module")
def ted():
    d = data_path("ted-sk-en")
    ref = read_lines(d / "ted.ref.detok.eng")
    return {"sys1": read_lines(d / "ted.sys1.detok.eng"), "sys2": read_lines(d / "ted.sys2.detok.eng")}, ref, d


@pytest.fixture(scope="module")
def ted_report(ted, tmp_path_factory):
    systems, ref, _ = ted
    rep = build_report(systems, [[r] for r in ref], [BLEU(), BLEUSBP()], n_resamples=1000, seed=SEED)
    html = render_html(rep)
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(html, encoding="utf-8")
    return rep, html, path


class _Tables(HTMLParser):
    """Collect the cells of every <table class="t"> and check strict tag balance."""

    VOID = {"meta", "br", "img", "input", "link", "hr", "col", "wbr", "source", "area", "base", "embed", "track"}
    SVG_VOID_OK = {"rect", "line", "circle", "path", "polyline", "polygon", "stop"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.stack, self.errors = [], [], []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "span" and ("class", "ci") in attrs and self._cell is not None and self.tables:
            # an interval shown under its score (docs/report.md): the grid has it as the next column, as exported
            self.tables[-1][-1].append(self._cell)
            self._cell = ""

    def handle_startendtag(self, tag, attrs):
        if tag not in self.VOID and tag not in self.SVG_VOID_OK:
            self.errors.append(f"self-closing <{tag}/>")

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if tag in ("td", "th") and self.tables and self.tables[-1]:
            self.tables[-1][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def _tables(html):
    p = _Tables()
    p.feed(html)
    p.close()
    return p


# ------------------------------------------------------------------------------------------------ numbers
def test_key_numbers_equal_library_and_sacrebleu(ted, ted_report):
    import sacrebleu
    systems, ref, _ = ted
    rep, html, _ = ted_report
    scores = _tables(html).tables[0]  # Scores table: header + one row per system
    header = scores[0]
    assert header[:5] == ["system", "BLEU ↑", "BLEU 95% CI", "p BLEU", "p_adj BLEU"]
    refs = [[r] for r in ref]
    m = BLEU()
    st = [m.stats(systems[s], refs) for s in ("sys1", "sys2")]
    cmp = compare_stats(m, {"sys1": st[0], "sys2": st[1]}, n=1000, seed=SEED)  # compare's engine and defaults
    for i, name in enumerate(("sys1", "sys2")):
        row = scores[1 + i]
        exp = sacrebleu.corpus_bleu(systems[name], [ref]).score
        assert abs(rep.metrics[0].scores[i] - exp) < 1e-9  # library == sacreBLEU
        assert row[1].rstrip("▲▼") == f"{exp:.2f}"  # page == library
        ci = cmp.cis[i]
        assert row[2] == f"({ci.low:.2f}, {ci.high:.2f})"  # same seed -> same CI
    p = cmp.results[0].p_value
    assert scores[2][3] == f"{p:.4f}"
    mark = ("▲" if cmp.scores[1] > cmp.scores[0] else "▼") if cmp.adjusted("sys1", "sys2") < 0.05 else ""
    assert scores[2][1] == f"{cmp.scores[1]:.2f}{mark}"
    # BLEU-SBP from the library (statistics of the strict BP metric)
    ms = BLEUSBP()
    exp_sbp = ms.corpus(systems["sys2"], refs).score
    assert scores[2][5].rstrip("▲▼") == f"{exp_sbp:.2f}"
    # the n-gram precision table equals sacreBLEU's precisions
    prec = next(t for t in _tables(html).tables if t and t[0][:2] == ["system", "1-gram"])
    for i, name in enumerate(("sys1", "sys2")):
        sb = sacrebleu.corpus_bleu(systems[name], [ref])
        assert [prec[1 + i][1 + 2 * k] for k in range(4)] == [f"{p:.2f}" for p in sb.precisions]
    # signatures of every metric appear on the page
    for sig in (st[0].signature, ms.signature(1), rep.signature()):
        assert sig in html


def test_subsets_from_labels_rescore_exactly(ted):
    systems, ref, _ = ted
    n = len(ref)
    labels = [f"doc{i // 500}" for i in range(n)]
    rep = build_report(systems, [[r] for r in ref], [BLEU()], labels=labels, n_resamples=50, seed=0, examples=2)
    import sacrebleu
    assert [s.label for s in rep.subsets] == sorted(set(labels))
    for sub in rep.subsets:
        idx = [i for i in range(n) if labels[i] == sub.label]
        for k, name in enumerate(("sys1", "sys2")):
            exp = sacrebleu.corpus_bleu([systems[name][i] for i in idx], [[ref[i] for i in idx]]).score
            assert abs(sub.sections["bleu"].scores[k] - exp) < 1e-9
    sd = rep.sentence[0]
    sent = BLEU().sentence_scores(BLEU().stats(systems["sys2"], [[r] for r in ref])) - \
        BLEU().sentence_scores(BLEU().stats(systems["sys1"], [[r] for r in ref]))
    assert [e.index for e in sd.best] == list(np.argsort(-sent, kind="stable")[:2])
    with pytest.raises(Exception, match="labels"):
        build_report(systems, [[r] for r in ref], [BLEU()], labels=labels[:-1], n_resamples=10)


def test_tables_render_in_every_format(ted_report):
    rep, _, _ = ted_report
    for t in report_tables(rep):
        for fmt in ("text", "json", "tsv", "csv", "latex", "markdown"):
            from mtscore.report import render_table
            out = render_table(t, fmt)
            assert out
        latex = render_table(t, "latex")
        assert "\\toprule" in latex and "\\bottomrule" in latex


# ------------------------------------------------------------------------------------------------ HTML
def test_html_valid_self_contained_and_small(ted_report):
    _, html, path = ted_report
    assert path.stat().st_size < 5 * 1024 * 1024
    html5lib = pytest.importorskip("html5lib")
    html5lib.HTMLParser(strict=True).parse(html)  # raises on any parse error
    p = _tables(html)
    assert p.errors == [] and p.stack == []
    assert not re.search(r"""(?:src|href|xlink:href|action)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", html, re.I)
    assert "<script" not in html.lower()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html


def _run_chromium(chromium, tmp_path, page, *extra):
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0", *extra,
           page.as_uri()]
    home = tmp_path / "home"  # Chromium writes crash-report and dconf folders under HOME / XDG dirs
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, env=env)
    console = [ln for ln in r.stderr.splitlines() if ":CONSOLE" in ln]
    return r, console


def test_chromium_renders_offline_without_console_errors(chromium, ted_report, tmp_path):
    rep, html, path = ted_report
    shot = tmp_path / "report.png"
    r, console = _run_chromium(chromium, tmp_path, path, "--window-size=1280,1800", f"--screenshot={shot}",
                               "--dump-dom")
    assert console == [], console
    assert shot.exists() and shot.stat().st_size > 20_000
    with open(shot, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    dom = r.stdout
    assert "<svg" in dom and "Scores" in dom
    assert f"{rep.metrics[0].scores[0]:.2f}" in dom
    out = os.environ.get("MTSCORE_REPORT_SCREENSHOT")  # keep the screenshot for a look when asked
    if out:
        shutil.copy(shot, out)


def test_chromium_detector_sees_external_loads(chromium, tmp_path):
    """Positive control: the CSP of our pages blocks and logs an external image load."""
    from mtscore.report.html import Document
    doc = Document("control")
    doc.section("x").add('<img src="https://example.invalid/x.png" alt="x">')
    page = tmp_path / "bad.html"
    page.write_text(doc.render(), encoding="utf-8")
    _, console = _run_chromium(chromium, tmp_path, page, "--dump-dom")
    assert any("Content Security Policy" in ln for ln in console), console


# ------------------------------------------------------------------------------------------------ CLI
def _small_inputs(ted, tmp_path, n=400):
    systems, ref, _ = ted
    files = {}
    for name, lines in (("ref", ref), ("sys1", systems["sys1"]), ("sys2", systems["sys2"])):
        p = tmp_path / f"{name}.txt"
        p.write_text("\n".join(lines[:n]) + "\n", encoding="utf-8")
        files[name] = str(p)
    return files


def _run_with_pty_stderr(args, tmp_path):
    """Run the CLI with stdout a pipe and stderr a pseudo-terminal; progress bars drawn at once."""
    import pty
    import select
    master, slave = pty.openpty()
    code = ("import sys, mtscore.progress as p; p.DEFAULT_DELAY = 0.0; "
            "from mtscore.cli.main import main; sys.exit(main(sys.argv[1:]))")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=slave, env=env,
                            cwd=tmp_path)
    os.close(slave)
    err = b""
    while True:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk and proc.poll() is not None:
                break
            err += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read()
    proc.wait(timeout=120)
    os.close(master)
    return proc.returncode, out.decode(), err.decode(errors="replace")


def test_progress_goes_to_stderr_never_stdout(ted, tmp_path):
    f = _small_inputs(ted, tmp_path)
    html = tmp_path / "r.html"
    args = ["report", "-r", f["ref"], "-i", f["sys1"], f["sys2"], "-o", str(html), "-f", "json",
            "--resamples", "400"]
    rc, out, err = _run_with_pty_stderr(args, tmp_path)
    assert rc == 0, err
    doc = json.loads(out)  # stdout is exactly one JSON document
    assert doc["tables"][0]["title"] == "Scores"
    assert "bootstrap" in err and "\r" in err  # the bar was drawn on the terminal
    assert html.exists()
    rc, out, err = _run_with_pty_stderr(args + ["--quiet"], tmp_path)
    assert rc == 0 and json.loads(out)["tables"]
    assert "bootstrap" not in err  # --quiet: no bar


def test_report_cli_errors(ted, tmp_path):
    f = _small_inputs(ted, tmp_path, 50)
    labels = tmp_path / "labels.txt"
    labels.write_text("a\nb\n", encoding="utf-8")
    from mtscore.cli.main import main
    assert main(["report", "-r", f["ref"], "-i", f["sys1"], "--labels", str(labels), "-q"]) == 3
    assert main(["report", "-r", f["ref"], "-i", f["sys1"], f["sys2"], "--baseline", "nope", "-q"]) == 2
    assert main(["report", "-r", f["ref"], "-i", f["sys1"], "--resamples", "0", "-q"]) == 2


def test_meta_html(tmp_path):
    root = data_path("wmt23")
    out = tmp_path / "meta.html"
    from mtscore.cli.main import main
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["meta", "--data", str(root), "--lp", "en-de", "-m", "bleu", "--resamples", "20", "-f", "json",
                   "-o", str(out), "-q"])
    assert rc == 0
    table = json.loads(buf.getvalue())
    html = out.read_text(encoding="utf-8")
    pytest.importorskip("html5lib").HTMLParser(strict=True).parse(html)
    cells = _tables(html).tables[0]
    assert cells[1][0] == "BLEU" and cells[1][1] == f"{table['rows'][0]['Pearson r']:.4f}"
    n_sys = len(table["systems"])
    scatter = html[html.index('id="metric-vs-human-scores"'):]
    assert scatter.count("<circle") == n_sys  # one point per system
