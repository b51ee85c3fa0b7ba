"""The one output model: every command that scores shows a metric with the same value, scale, name and
direction in every format (score, rescore, compare, report, nbest, lattice, demo, audit, analyse, meta).

The contract test is registry-driven: every registered metric that builds without a file, stored scores
(``scores:BLEURT=...``) and, when torch is installed (it is part of the test extras), the neural metrics COMET,
CometKiwi, XCOMET and MetricX on the tiny random checkpoints of the neural tests x every output format x every
scoring command, on the built-in sample (its first segments, to keep the run short; the acceptance test below uses
all 400). The expected value of each metric comes from the API (``Metric.corpus``) times the scale the
metric declares; each output is parsed back (JSON, TSV/CSV with the csv module, text/Markdown/LaTeX tables by
their columns) and compared: JSON/TSV/CSV to the last bit of the float, the others to the metric's digits.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import re

import pytest

from mtscore.cli.demo import load_sample
from mtscore.cli.main import main
from mtscore.cli.options import make_metric
from mtscore.metrics.registry import metric_names
from mtscore.report import FORMATS
from mtscore.report.model import view

SYSTEMS = ("LIUM-NMT", "uedin-nmt")
N_SEG = 30  # the contract test's prefix of the sample (the acceptance test uses all 400 segments)


def _builds_without_parameters(name: str) -> bool:
    from mtscore.metrics.registry import get_metric_class
    try:
        get_metric_class(name)()
        return True
    except Exception:  # noqa: BLE001 - needs a model checkpoint (COMET, MetricX ...) or a file (stored scores)
        return False


# every registered metric that can be built without a file (new metrics are included automatically); the neural
# metrics need torch and a checkpoint: added by _neural_specs (the sample fixture) when torch is installed.
SPECS = [("k-grr:k=3" if n == "k-grr" else n) for n in metric_names() if _builds_without_parameters(n)]
COMBOS: list = []  # (command, format, metric) checked, for the closing note


NEURAL = ("comet", "cometkiwi", "xcomet", "metricx")  # need torch and a checkpoint


def _neural_specs(d, tmp_path_factory) -> list:
    """The neural metrics on the tiny random checkpoints of the neural tests (tests/fixtures/neural; MetricX's
    regenerated from its seed as tests/neural/test_neural_metricx.py does), when torch (part of the test extras) is
    installed; the reference file stands in for the sources (a random model: the contract is about how the
    number is shown, its value comes from the same model through the API)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return []
    from pathlib import Path
    fix = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
    import neural_tiny_mt5
    mka = json.loads((fix / "metricx_known_answers.json").read_text(encoding="utf-8"))
    mx = tmp_path_factory.mktemp("metricx") / "tiny-metricx"
    assert neural_tiny_mt5.build(mx, mka["seed"]) == mka["safetensors_sha256"]
    src = d / "ref.de"
    return [f"comet:model={fix / 'comet-da'},sources={src}", f"cometkiwi:model={fix / 'cometkiwi'},sources={src}",
            f"xcomet:model={fix / 'xcomet'},sources={src}",
            f"metricx:model={mx},sources={src},tokenizer={fix / 'mt5-tokenizer'}"]


def _loads(text: str):
    """Strict JSON: NaN / Infinity are not JSON (jq and browsers reject them); mtscore writes null."""
    def bad(name):
        raise AssertionError(f"not strict JSON: {name}")
    return json.loads(text, parse_constant=bad)


def _run(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert rc == 0, (args, err)
    return out


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The first N_SEG segments of the built-in sample in a temp folder, stored COMET-like scores per system, and the
    expected (name, shown value, higher_is_better, digits) of every metric per system, from the API."""
    d = tmp_path_factory.mktemp("sample")
    systems, refs = load_sample()
    refs = refs[:N_SEG]
    (d / "ref.de").write_text("".join(r[0] + "\n" for r in refs), encoding="utf-8")
    hyps = {}
    for s in SYSTEMS:
        hyps[s] = systems[s][:N_SEG]
        (d / f"{s}.de").write_text("".join(h + "\n" for h in hyps[s]), encoding="utf-8")
        # stored segment scores: an independent oracle (their mean), on a 0..1 model scale
        vals = [round(0.5 + 0.37 * math.sin(3 * i + len(s)) ** 2, 6) for i in range(N_SEG)]
        (d / f"c.{s}.txt").write_text("".join(f"{v}\n" for v in vals), encoding="utf-8")
        hyps[s + ":comet"] = sum(vals) / len(vals)
    specs = SPECS + [f"scores:BLEURT={d}/c.{{system}}.txt"] + _neural_specs(d, tmp_path_factory)
    expected = {s: {} for s in SYSTEMS}
    for spec in specs:
        m = make_metric(spec)
        v = view(m)
        for s in SYSTEMS:
            raw = hyps[s + ":comet"] if spec.startswith("scores:") else m.corpus(hyps[s], refs).score
            expected[s][v.name] = (v.shown(raw), v.higher_is_better, v.digits, v.key)
    return d, specs, expected


def _num(text: str) -> float:
    text = re.sub(r"\$\^\{[^$]*\}\$$", "", text)  # a LaTeX mark
    return float(text.replace("$-$", "-").replace("−", "-").rstrip("▲▼*").strip())


def _grid(out: str, fmt: str) -> list[list[str]]:
    """The first table of a text / Markdown / LaTeX rendering as rows of cells (header first)."""
    lines = out.splitlines()
    if fmt == "markdown":
        rows = [[c.strip() for c in ln.strip().strip("|").split(" | ")] for ln in lines if ln.startswith("| ")]
        return rows
    if fmt == "latex":
        body = lines[lines.index(r"\toprule") + 1:]
        rows = []
        for ln in body:
            if ln.startswith(r"\bottomrule"):
                break
            if ln == r"\midrule":
                continue
            rows.append([c.strip().replace(r"\_", "_") for c in ln.rstrip().removesuffix(r"\\").split(" & ")])
        return rows
    # text: the header is the line above the first '----' rule; columns are the rule's dash runs; a table wider
    # than the terminal continues in blocks under it that repeat its first column (docs/report.md, "Text output")
    k = next(i for i, ln in enumerate(lines) if ln.startswith("---"))
    rows = None
    while True:
        spans = [m.span() for m in re.finditer(r"-+", lines[k])]
        block = []
        end = len(lines)
        for j, ln in enumerate([lines[k - 1]] + lines[k + 1:]):
            if not ln.strip():
                end = k + j
                break
            cells = []
            for i, (a, b) in enumerate(spans):  # right-aligned numbers may start left of their rule
                lo = spans[i - 1][1] if i else 0
                cells.append(ln[lo:b].strip() if i else ln[:b].strip())
            block.append(cells)
        rows = block if rows is None else [r + b[1:] for r, b in zip(rows, block)]
        if end + 2 < len(lines) and lines[end + 2].startswith("---") and lines[end + 1].split()[:1] == [rows[0][0]]:
            k = end + 2
            continue
        return rows


def _head(name, hib, fmt):
    """A score column's header: the name and the direction's arrow (LaTeX: math arrows)."""
    if fmt == "latex":
        return f"{name} " + (r"$\uparrow$" if hib else r"$\downarrow$")
    return f"{name} {'↑' if hib else '↓'}"


def _check_wide(out, fmt, expected, command, label_of=lambda s: s, first_col="system"):
    """A wide table (a row per system, a column per metric): value to the metric's digits, name, arrow."""
    rows = _grid(out, fmt)
    head = rows[0]
    for s, metrics in expected.items():
        row = next(r for r in rows[1:] if r[0] == label_of(s))
        for name, (value, hib, digits, key) in metrics.items():
            arrow = "↑" if hib else "↓"
            col = head.index(_head(name, hib, fmt))  # the name and the direction
            assert _num(row[col]) == pytest.approx(float(f"{value:.{digits}f}"), abs=10 ** -digits / 2), \
                (command, fmt, name, row[col], value)
            shown = re.sub(r"\$\^\{[^$]*\}\$$", "", row[col]).rstrip("▲▼")
            assert shown.split(".")[-1].isdigit() and len(shown.split(".")[-1]) == digits, (command, fmt, name, shown)
            COMBOS.append((command, fmt, name)) if s == SYSTEMS[0] else None


def _check_tidy(out, fmt, expected, command, system_col="system", keep=lambda r: True, rel=0.0):
    reader = csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ",")
    rows = [r for r in reader if keep(r)]
    for s, metrics in expected.items():
        for name, (value, hib, digits, key) in metrics.items():
            r = next(r for r in rows if r[system_col] == s and r["name"] == name)
            assert float(r["score"]) == pytest.approx(value, rel=rel, abs=0), (command, fmt, name, r["score"], value)
            assert r["metric"] == key and r["higher_is_better"] == ("true" if hib else "false")
            if "signature" in r:
                assert r["signature"].split("|")[0] in (name.split("[")[0], name)
            COMBOS.append((command, fmt, name)) if s == SYSTEMS[0] else None


def _check_json_rows(obj, expected, command, system_key="system", label_of=lambda s: s):
    metrics = {m["name"]: m for m in obj["metrics"]}
    for s, ms in expected.items():
        row = next(r for r in obj["rows"] if r[system_key] == label_of(s))
        for name, (value, hib, digits, key) in ms.items():
            assert row[name] == value, (command, name, row[name], value)
            assert metrics[name]["higher_is_better"] is hib and metrics[name]["metric"] == key
            assert metrics[name]["digits"] == digits
            COMBOS.append((command, "json", name)) if s == SYSTEMS[0] else None
    json.dumps(obj, allow_nan=False)  # strict JSON


def _score_args(d, specs):
    return ["-r", d / "ref.de", "-i", *[d / f"{s}.de" for s in SYSTEMS], "-m", *specs]


@pytest.fixture(scope="module")
def saved_stats(sample, tmp_path_factory):
    """``score --save-stats`` (JSON output, thrown away) once: the file every format's ``rescore`` reads."""
    d, specs, _ = sample
    stats = tmp_path_factory.mktemp("saved") / "stats"
    specs_saved = [s for s in specs if not s.startswith("scores:")]  # stored scores are re-read, not saved
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in ("score", *_score_args(d, specs_saved), "--save-stats", stats, "-f", "json")])
    assert rc == 0, err.getvalue()
    return stats


@pytest.mark.parametrize("fmt", FORMATS)
def test_score_rescore_contract(sample, saved_stats, fmt, capsys):
    d, specs, expected = sample
    out = _run(capsys, "score", *_score_args(d, specs), "-f", fmt)
    _check_all("score", out, fmt, expected)
    if fmt == "json":  # the results keep the same number, name, scale and direction
        obj = _loads(out)
        for entry in obj["results"]:
            for r in entry["results"]:
                value, hib, digits, key = expected[entry["system"]][r["name"]]
                assert r["score"] == value and r["higher_is_better"] is hib and r["metric"] == key
    out = _run(capsys, "rescore", saved_stats, "-f", fmt)
    exp = {s: {k: v for k, v in m.items() if v[3] != "scores"} for s, m in expected.items()}
    _check_all("rescore", out, fmt, exp)


def _check_all(command, out, fmt, expected, label_of=lambda s: s):
    if fmt == "json":
        _check_json_rows(_loads(out), expected, command, label_of=label_of)
    elif fmt in ("tsv", "csv"):
        _check_tidy(out, fmt, expected, command)
    else:
        _check_wide(out, fmt, expected, command, label_of=label_of)


@pytest.mark.parametrize("fmt", FORMATS)
def test_compare_contract(sample, fmt, capsys):
    d, specs, expected = sample
    out = _run(capsys, "compare", *_score_args(d, specs), "--resamples", "20", "-f", fmt)
    names = list(expected[SYSTEMS[0]])
    if fmt == "json":
        tables = _loads(out)
        assert [t["metric"]["name"] for t in tables] == names
        for t in tables:
            name = t["metric"]["name"]
            for s in SYSTEMS:
                value, hib, digits, key = expected[s][name]
                # the significance engine sums the statistics its own way: equal to ~1 ulp
                assert next(r for r in t["rows"] if r["system"] == s)["score"] == pytest.approx(value, rel=1e-13)
                assert t["comparison"]["scores"][SYSTEMS.index(s)] == pytest.approx(value, rel=1e-13)
                assert t["metric"]["higher_is_better"] is hib and t["metric"]["metric"] == key
            assert t["title"].startswith(f"{name} {'↑' if hib else '↓'}:")
            COMBOS.append(("compare", fmt, name))
        json.dumps(tables, allow_nan=False)
    elif fmt in ("tsv", "csv"):
        _check_tidy(out, fmt, expected, "compare", rel=1e-13)
    else:
        for name in names:
            value, hib, digits, key = expected[SYSTEMS[0]][name]
            title = f"{name} {'↑' if hib else '↓'}: bootstrap vs baseline {SYSTEMS[0]}"  # name and direction
            if fmt == "latex":
                title = title.replace("↑", r"$\uparrow$").replace("↓", r"$\downarrow$")
            found = list(re.finditer(r"(?m)^(\*\*|\\caption\{)?" + re.escape(title), out))
            assert len(found) == 1, (fmt, title)
            rows = _grid(out[found[0].start():], fmt)
            col = rows[0].index("score")
            for s in SYSTEMS:
                v = expected[s][name][0]
                row = next(r for r in rows[1:] if r[0] == s)
                assert _num(row[col]) == pytest.approx(float(f"{v:.{digits}f}"), abs=10 ** -digits / 2), (fmt, name)
            COMBOS.append(("compare", fmt, name))


@pytest.mark.parametrize("fmt", FORMATS + ("html",))
def test_report_contract(sample, fmt, capsys, tmp_path):
    d, specs, expected = sample
    args = ["report", *_score_args(d, specs), "--resamples", "20", "--examples", "0", "--no-subset-ci",
            "--no-explore"]
    base = lambda s: s + (" (baseline)" if s == SYSTEMS[0] else "")  # noqa: E731
    if fmt == "html":
        html_file = tmp_path / "r.html"
        _run(capsys, *args, "-o", html_file)
        page = html_file.read_text(encoding="utf-8")
        for name, (value, hib, digits, key) in expected[SYSTEMS[1]].items():
            words = f"{name} {'↑' if hib else '↓'}".split(" ")  # each header word unbreakable
            head = " ".join(f'<span class="w">{re.escape(w)}</span>' for w in words)
            assert re.search(r"<th[^>]*>" + head, page), name
            assert f">{value:.{digits}f}" in page, (name, value)
            COMBOS.append(("report", "html", name))
        return
    out = _run(capsys, *args, "-f", fmt)
    if fmt == "json":
        obj = _loads(out)
        _check_json_rows(obj["tables"][0], expected, "report", label_of=base)
    elif fmt in ("tsv", "csv"):  # one tidy table: the scores section's score rows
        assert "\n\n" not in out
        _check_tidy(out, fmt, expected, "report",
                    keep=lambda r: r["section"] == "scores" and r["statistic"] == "score" and
                    r.update(score=r["value"]) is None)
    else:
        _check_wide(out, fmt, expected, "report", label_of=base)


@pytest.mark.parametrize("fmt", FORMATS)
def test_nbest_contract(sample, fmt, capsys, tmp_path):
    d, specs, expected = sample
    for s in SYSTEMS:  # a one-candidate n-best list per system: its 1-best is the system
        nb = tmp_path / f"{s}.jsonl"
        nb.write_text("".join(json.dumps([h]) + "\n" for h in (d / f"{s}.de").read_text("utf-8").splitlines()),
                      encoding="utf-8")
        plain = [x for x in specs if not x.startswith("scores:")]
        out = _run(capsys, "nbest", nb, "-r", d / "ref.de", "-m", *plain, "-f", fmt)
        exp = {s: {k: v for k, v in expected[s].items() if v[3] != "scores"}}
        if fmt == "json":
            obj = _loads(out)
            _check_json_rows({"rows": [dict(obj["rows"][0], system=s)], "metrics": obj["metrics"]}, exp, "nbest")
        elif fmt in ("tsv", "csv"):
            rows = list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
            first = rows[0]["selection"]
            _check_tidy(out, fmt, exp, "nbest", system_col="selection",
                        keep=lambda r: r["selection"] == first and r.update(selection=s) is None)
        else:
            rows = _grid(out, fmt)
            head = rows[0]
            for name, (value, hib, digits, key) in exp[s].items():
                col = head.index(_head(name, hib, fmt))
                assert _num(rows[1][col]) == pytest.approx(float(f"{value:.{digits}f}"), abs=10 ** -digits / 2)
                COMBOS.append(("nbest", fmt, name)) if s == SYSTEMS[0] else None


@pytest.fixture(scope="module")
def demo_expected(sample):
    """The demo scores the whole built-in sample (400 segments): expected values from the API."""
    d, specs, _ = sample
    full_sys, full_refs = load_sample()
    # the built-in sample has no source file: the neural metrics (which need sources) are not in the demo
    plain = [x for x in specs if not x.startswith("scores:") and x.split(":")[0] not in NEURAL]
    exp = {s: {} for s in SYSTEMS}
    for spec in plain:
        m = make_metric(spec)
        v = view(m)
        for s in SYSTEMS:
            exp[s][v.name] = (v.shown(m.corpus(full_sys[s], full_refs).score), v.higher_is_better, v.digits, v.key)
    return plain, exp


@pytest.fixture(scope="module")
def demo_scoring_once():
    """The demo's scoring (every plain metric on 4 systems x 400 segments, the costly part) runs once for the six
    formats: ``demo.run`` hands the format to the rendering only, never to ``compute_texts``; the first format's
    run computes (and is checked against the API like every format), the later runs, with the same systems,
    references and metric signatures (asserted), show those results in their formats."""
    from mtscore.cli import demo
    real, first = demo.compute_texts, []

    def once(systems, refs, metrics):
        key = (systems, refs, [m.signature(1) for m in metrics])
        if not first:
            first.append((key, real(systems, refs, metrics)))
        assert key == first[0][0], "the demo scored other inputs than its first run"
        return first[0][1]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(demo, "compute_texts", once)
        yield first


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_demo_contract(demo_expected, demo_scoring_once, fmt, capsys):
    plain, exp = demo_expected
    out = _run(capsys, "demo", "-m", *plain, "-f", fmt)
    assert demo_scoring_once, "the demo did not score"
    _check_all("demo", out, fmt, exp)


@pytest.mark.parametrize("fmt", FORMATS)
def test_lattice_contract(sample, fmt, capsys, tmp_path):
    """A lattice per segment that holds one path, the hypothesis: the oracle path is the system's output, so the
    corpus K-GRR / WRR of the paths is the system's score (lattice supports 4-GRR, K-GRR, WRR)."""
    d, specs, expected = sample
    s = SYSTEMS[0]
    lat = tmp_path / "l.plf"
    lat.write_text("".join(f"((({h!r}, 0.0, 1),),)\n" for h in (d / f"{s}.de").read_text("utf-8").splitlines()),
                   encoding="utf-8")
    for metric, extra in (("4-grr", []), ("wrr", [])):
        m = make_metric(metric)
        v = view(m)
        out = _run(capsys, "lattice", lat, "-r", d / "ref.de", "-m", metric, "--tokenize", "13a", *extra, "-f", fmt)
        systems, refs = load_sample()
        exp = v.shown(m.corpus(systems[s][:N_SEG], refs[:N_SEG]).score)
        if fmt == "json":
            obj = _loads(out)
            assert obj["corpus"]["score"] == pytest.approx(exp, rel=1e-12) and obj["corpus"]["name"] == v.name
            assert obj["metrics"][0]["higher_is_better"] is v.higher_is_better
        elif fmt in ("tsv", "csv"):
            assert out.splitlines()[0].split("\t" if fmt == "tsv" else ",")[3] == v.name
        else:
            assert f"corpus {v.name} of the oracle paths = {exp:.{v.digits}f}" in out
            assert _head(v.name, v.higher_is_better, fmt) in out
        COMBOS.append(("lattice", fmt, v.name))


# ------------------------------------------------------------------------------------------------ acceptance
ACCEPT = ("wer", "per", "4-grr", "gtm", "ter")


def test_error_rates_and_fractions_are_the_same_number_everywhere(capsys, tmp_path):
    """WER, PER, 4-GRR, GTM and TER on the built-in sample (400 segments): score (every format), compare -f json,
    report's JSON and nbest on a one-candidate list print the same value on the same scale (x100 for the
    fractions, TER as computed), equal to the API's score times the declared scale."""
    from mtscore.cli.demo import sample_dir
    d = sample_dir()
    ref = d / "newstest2017.en-de.ref.de"
    system = "LIUM-NMT"
    hyp = d / f"{system}.de"
    systems, refs = load_sample()
    api = {}
    for name in ACCEPT:
        m = make_metric(name)
        api[view(m).name] = (m.corpus(systems[system], refs).score * (100.0 if name != "ter" else 1.0), view(m))
    seen = {k: {} for k in api}
    for fmt in FORMATS:
        out = _run(capsys, "score", "-r", ref, "-i", hyp, d / "uedin-nmt.de", "-m", *ACCEPT, "-f", fmt)
        if fmt == "json":
            obj = _loads(out)
            for k in api:
                seen[k]["score json rows"] = obj["rows"][0][k]
                seen[k]["score json results"] = next(r["score"] for r in obj["results"][0]["results"]
                                                     if r["name"] == k)
        elif fmt in ("tsv", "csv"):
            rows = list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
            for k in api:
                seen[k][f"score {fmt}"] = float(next(r["score"] for r in rows if r["system"] == system and
                                                     r["name"] == k))
        else:
            rows = _grid(out, fmt)
            for k, (value, v) in api.items():
                seen[k][f"score {fmt}"] = _num(rows[1][rows[0].index(_head(k, v.higher_is_better, fmt))])
    tables = _loads(_run(capsys, "compare", "-r", ref, "-i", hyp, d / "uedin-nmt.de", "-m", *ACCEPT, "--resamples", "50",
                         "-f", "json"))
    for t in tables:
        seen[t["metric"]["name"]]["compare json"] = t["rows"][0]["score"]
    rep = _loads(_run(capsys, "report", "-r", ref, "-i", hyp, d / "uedin-nmt.de", "-m", *ACCEPT, "--resamples", "20",
                      "--examples", "0", "--no-subset-ci", "-f", "json"))
    for k in api:
        seen[k]["report json"] = rep["tables"][0]["rows"][0][k]
    nb = tmp_path / "one.jsonl"
    nb.write_text("".join(json.dumps([h]) + "\n" for h in systems[system]), encoding="utf-8")
    obj = _loads(_run(capsys, "nbest", nb, "-r", ref, "-m", *ACCEPT, "-f", "json"))
    for k in api:
        seen[k]["nbest json"] = obj["rows"][0][k]
    for k, (value, v) in api.items():
        for where, x in seen[k].items():
            if where.startswith("score") and where[6:] in ("text", "latex", "markdown"):
                assert x == round(value, 2), (k, where, x, value)
            else:  # full precision: the same float (the bootstrap engine's own summation: within 1e-13)
                assert x == pytest.approx(value, rel=1e-13, abs=0), (k, where, x, value)
        assert 1 < value < 100, (k, value)  # the same scale: 0-100
        assert len(seen[k]) == 10  # 7 renderings of score, compare, report, nbest


def test_tsv_and_csv_are_tidy_tables_pandas_reads_without_options(capsys):
    pd = pytest.importorskip("pandas")
    from mtscore.cli.demo import sample_dir
    d = sample_dir()
    ref = d / "newstest2017.en-de.ref.de"
    hyps = [d / f"{s}.de" for s in ("LIUM-NMT", "uedin-nmt", "online-B")]
    for cmd, extra in (("score", []), ("compare", ["--resamples", "50"]), ("compare", ["--resamples", "50", "--all-pairs"])):
        for fmt in ("tsv", "csv"):
            out = _run(capsys, cmd, "-r", ref, "-i", *hyps, "-m", "bleu", "ter", "wer", *extra, "-f", fmt)
            path = io.StringIO(out)
            df = pd.read_csv(path, sep="\t") if fmt == "tsv" else pd.read_csv(path)
            assert {"metric", "name", "score", "signature", "higher_is_better"} <= set(df.columns)
            assert set(df["name"]) == {"BLEU", "TER", "WER"}
            assert df["score"].dtype.kind == "f" and df["signature"].str.contains(r"\|nrefs:1\|").all()
            assert (df.groupby("name")["scale"].first() == pd.Series({"BLEU": 1.0, "TER": 1.0, "WER": 100.0})).all()
            if cmd == "compare":
                assert {"p", "p_adj", "delta", "mark"} <= set(df.columns)
                # full precision: p-values are not rounded to 4 digits
                assert any(len(repr(p)) > 8 for p in df["p"].dropna())


def test_report_tsv_csv_is_one_tidy_table(capsys):
    """``report -f tsv/csv``: ONE long table (a row per section, system, subset, segment, metric and statistic) with
    metric, name, scale, direction and signature columns and full-precision values; pandas reads it without options
    and its numbers are those of the report's JSON tables."""
    pd = pytest.importorskip("pandas")
    from mtscore.cli.demo import sample_dir
    d = sample_dir()
    ref = d / "newstest2017.en-de.ref.de"
    hyps = [d / f"{s}.de" for s in ("LIUM-NMT", "uedin-nmt", "PROMT-Rule-based")]
    args = ["report", "-r", ref, "-i", *hyps, "-m", "bleu", "ter", "wer", "--resamples", "50", "--examples", "2"]
    obj = _loads(_run(capsys, *args, "-f", "json"))
    for fmt in ("tsv", "csv"):
        out = _run(capsys, *args, "-f", fmt)
        df = pd.read_csv(io.StringIO(out), sep="\t") if fmt == "tsv" else pd.read_csv(io.StringIO(out))
        assert list(df.columns) == ["section", "system", "baseline", "subset", "segment", "metric", "name",
                                    "statistic", "value", "scale", "higher_is_better", "mark", "signature", "test"]
        assert df["value"].dtype.kind == "f"
        assert set(df["section"]) == {"scores", "differences", "subsets", "lengths", "precision", "examples"}
        sc = df[(df.section == "scores") & (df.statistic == "score")]
        assert set(sc["name"]) == {"BLEU", "TER", "WER"}
        assert (sc.groupby("name")["scale"].first() == pd.Series({"BLEU": 1.0, "TER": 1.0, "WER": 100.0})).all()
        assert (sc.groupby("name")["higher_is_better"].first() == pd.Series({"BLEU": True, "TER": False,
                                                                              "WER": False})).all()
        assert sc["signature"].str.contains(r"\|nrefs:1\|").all()
        scores = obj["tables"][0]
        for _, row in sc.iterrows():  # full precision: the JSON's numbers to the bit
            js = next(r for r in scores["rows"] if r["system"].split(" (")[0] == row["system"])
            assert row["value"] == js[row["name"]], (row["name"], row["system"])
        diffs = df[(df.section == "differences") & (df.statistic == "p_adj")]
        assert len(diffs) == 3 * 2 and diffs["value"].between(0, 1).all()
        promt = df[(df.section == "differences") & (df.statistic == "delta") & (df.system == "PROMT-Rule-based")]
        assert dict(zip(promt["name"], promt["mark"])) == {"BLEU": "▼", "TER": "▼", "WER": "▼"}
        ex = df[df.section == "examples"]
        assert len(ex) and ex["segment"].notna().all() and (ex["segment"] % 1 == 0).all()
        assert df[df.section == "subsets"]["subset"].notna().all()


def test_analyse_tsv_csv_is_one_long_table_pandas_reads(capsys, tmp_path):
    """Every ``analyse`` TSV/CSV (several tables per run) is ONE long table: pandas reads it without options, the
    values are numbers in full precision (their JSON's), texts (n-grams' example segments) in ``text``."""
    pd = pytest.importorskip("pandas")
    from mtscore.cli.demo import sample_dir
    d = sample_dir()
    files = ["-r", d / "newstest2017.en-de.ref.de", "-i", d / "LIUM-NMT.de", d / "uedin-nmt.de"]
    docs = tmp_path / "docs.txt"
    docs.write_text("".join(f"d{i // 40}\n" for i in range(400)), encoding="utf-8")
    runs = {"words": ["--resamples", "20"], "lengths": ["-m", "bleu", "wer", "--resamples", "20"],
            "wins": ["-m", "bleu", "ter"], "ngrams": ["--top", "5"], "align": [],
            "docs": ["--docs", docs, "-m", "chrf", "--resamples", "20"]}
    for what, extra in runs.items():
        tables = _loads(_run(capsys, "analyse", what, *files, *extra, "-f", "json"))["tables"]
        for fmt in ("tsv", "csv"):
            out = _run(capsys, "analyse", what, *files, *extra, "-f", fmt)
            df = pd.read_csv(io.StringIO(out), sep="\t") if fmt == "tsv" else pd.read_csv(io.StringIO(out))
            assert list(df.columns) == ["table", "row", "column", "statistic", "value", "text", "metric", "name",
                                        "scale", "higher_is_better", "signature"], what
            assert df["value"].dtype.kind == "f" and set(df["table"]) == {t["title"] for t in tables}, what
            for t in tables:  # each numeric cell of the JSON, to the bit
                first = t["columns"][0]
                for r in t["rows"]:
                    for col, v in r.items():
                        if col == first or not isinstance(v, (int, float)) or isinstance(v, bool):
                            continue
                        got = df[(df.table == t["title"]) & (df.row.astype(str) == str(r[first])) &
                                 (df.column == col) & (df.statistic == "value")]["value"]
                        assert list(got) == [float(v)], (what, t["title"], r[first], col)


def test_audit_tsv_csv_is_one_table_pandas_reads(capsys, tmp_path):
    """``audit deletion/subsets/sign/length -f tsv/csv``: one table each (``length`` of several systems too), full
    precision (the JSON's numbers), readable by pandas without options."""
    pd = pytest.importorskip("pandas")
    from mtscore.cli.demo import sample_dir
    d = sample_dir()
    ref, hyps = d / "newstest2017.en-de.ref.de", [d / "LIUM-NMT.de", d / "uedin-nmt.de"]
    labels = tmp_path / "labels.txt"
    labels.write_text("".join(("news" if i % 3 else "talk") + "\n" for i in range(400)), encoding="utf-8")
    runs = {"subsets": ["-r", ref, "-i", *hyps, "--labels", labels, "-m", "bleu", "wer"],
            "sign": ["-r", ref, "-i", *hyps, "-m", "bleu", "wer"], "length": ["-r", ref, "-i", *hyps],
            "deletion": ["-r", ref, hyps[0], "-m", "bleu", "ter"]}
    for what, args in runs.items():
        obj = _loads(_run(capsys, "audit", what, *args, "-f", "json"))
        for fmt in ("tsv", "csv"):
            out = _run(capsys, "audit", what, *args, "-f", fmt)
            assert "\n\n" not in out, what
            df = pd.read_csv(io.StringIO(out), sep="\t") if fmt == "tsv" else pd.read_csv(io.StringIO(out))
            assert len(df) and "signature" in df.columns, what
            if what == "subsets":
                js = {(r["metric"], r["subset"]): r for r in obj["rows"]}
                for _, r in df.iterrows():
                    assert r[df.columns[4]] == js[(r["name"], r["subset"])][obj["columns"][3]]
                assert set(df["higher_is_better"]) == {True, False} and set(df["scale"]) == {1.0, 100.0}
            if what == "sign":
                assert list(df["p_fwd"]) == [r["p fwd"] for r in obj["rows"]] and df["fwd_plus"].dtype.kind == "i"
            if what == "length":
                tables = obj["tables"]
                assert len(df) == sum(len(t["rows"]) for t in tables) and df["ratio"].dtype.kind == "f"
            if what == "deletion":
                assert set(df["name"]) == {"BLEU", "TER"} and df["score"].dtype.kind == "f"


def test_audit_shows_the_systems_by_the_names_score_shows(sample, capsys):
    """audit subsets/sign/length name the systems as score does (short names, --names), not by their paths."""
    d, specs, expected = sample
    files = ["-r", d / "ref.de", "-i", *[d / f"{s}.de" for s in SYSTEMS]]
    names = [r["system"] for r in _loads(_run(capsys, "score", *files, "-f", "json"))["rows"]]
    assert names == list(SYSTEMS)
    labels = d / "labels2.txt"
    labels.write_text("".join(("x" if i % 2 else "y") + "\n" for i in range(N_SEG)), encoding="utf-8")
    sub = _loads(_run(capsys, "audit", "subsets", *files, "--labels", labels, "-f", "json"))
    assert sub["columns"][3:5] == [f"A={names[0]}", f"B={names[1]}"]
    sign = _loads(_run(capsys, "audit", "sign", *files, "-m", "bleu", "-f", "json"))
    assert {r["winner fwd"] for r in sign["rows"]} <= {*names, "-"}
    length = _loads(_run(capsys, "audit", "length", *files, "-f", "json"))
    assert [t["title"] for t in length["tables"]] == [f"Length analysis: {n}" for n in names]
    renamed = _loads(_run(capsys, "audit", "subsets", *files, "--labels", labels, "--names", "P", "Q", "-f", "json"))
    assert renamed["columns"][3:5] == ["A=P", "B=Q"]


def test_marks_follow_direction_and_all_pairs_prints_them(capsys):
    from mtscore.cli.demo import sample_dir
    d = sample_dir()
    ref = d / "newstest2017.en-de.ref.de"
    hyps = [d / f"{s}.de" for s in ("LIUM-NMT", "uedin-nmt", "PROMT-Rule-based")]
    out = _run(capsys, "compare", "-r", ref, "-i", *hyps, "-m", "ter", "bleu", "--resamples", "200", "-f", "tsv")
    rows = list(csv.DictReader(io.StringIO(out), delimiter="\t"))
    for r in rows:
        if r["mark"]:
            hib = r["higher_is_better"] == "true"
            better = (float(r["delta"]) > 0) == hib
            assert r["mark"] == ("▲" if better else "▼") and float(r["p_adj"]) < 0.05
    # PROMT (rule-based) is far worse in BLEU (lower) and in TER (higher): ▼ for both
    assert {r["name"]: r["mark"] for r in rows if r["system"] == "PROMT-Rule-based"} == {"TER": "▼", "BLEU": "▼"}
    text = _run(capsys, "compare", "-r", ref, "-i", *hyps, "-m", "ter", "--resamples", "200", "--all-pairs")
    assert "▲" in text and "▼" in text and "▲ the row system is significantly better" in text
    # every mark the legend describes can appear; '*' is not used any more
    assert "*" not in text.split("\n\n")[0]


def test_small_p_values_print_as_less_than(capsys):
    from mtscore.cli.demo import sample_dir
    d = sample_dir()
    ref = d / "newstest2017.en-de.ref.de"
    hyps = [d / f"{s}.de" for s in ("LIUM-NMT", "PROMT-Rule-based")]
    out = _run(capsys, "compare", "-r", ref, "-i", *hyps, "-m", "bleu", "-t", "sign")
    assert "< 0.0001" in out and "0.0000" not in out
    obj = _loads(_run(capsys, "compare", "-r", ref, "-i", *hyps, "-m", "bleu", "-t", "sign", "-f", "json"))
    assert 0 < obj["rows"][1]["fwd p"] < 1e-4  # JSON keeps the number


def test_json_is_strict_nan_and_inf_as_null():
    from mtscore.report import Table, render_table
    from mtscore.report.model import dumps
    t = Table(["system", "x"], [["a", float("nan")], ["b", float("inf")]], meta={"m": [float("-inf"), 1.5]},
              legend=["for readers"])
    obj = _loads(render_table(t, "json"))
    assert [r["x"] for r in obj["rows"]] == [None, None] and obj["m"] == [None, 1.5]
    assert obj["legend"] == ["for readers"] and "notes" not in obj  # the legend is not data
    assert _loads(dumps({"a": float("nan")})) == {"a": None}


def test_one_scale_rule_is_declared_by_every_metric():
    """Every registered metric whose range ends at 1 (a fraction) or that is an error rate computed on 0-1 is
    shown x100; the others as computed. The rule lives in one place (Metric.table_scale)."""
    from mtscore.metrics.registry import get_metric_class
    fractions = {"4-grr", "k-grr", "wrr", "gtm", "lcm", "wer", "per", "mwer", "mper", "cer", "mer", "wil", "wip",
                 "wer-jiwer", "gleu-google", "ribes"}
    for n in metric_names():
        cls = get_metric_class(n)
        assert view(cls).scale == (100.0 if n in fractions else 1.0), n
        if 0.0 <= cls.range[0] and cls.range[1] <= 1.0:  # (GEMBA-MQM's -25..0 penalty scale is no fraction)
            assert n in fractions, n


@pytest.mark.parametrize("fmt", FORMATS)
def test_audit_contract(sample, fmt, capsys):
    """``audit subsets``: every metric's combined scores of A and B (its '(all)' row) on the same scale as score's."""
    d, specs, expected = sample
    labels = d / "labels.txt"
    labels.write_text("".join(("a" if i % 2 else "b") + "\n" for i in range(N_SEG)), encoding="utf-8")
    plain = [x for x in specs if not x.startswith("scores:")]
    out = _run(capsys, "audit", "subsets", "-r", d / "ref.de", "-i", *[d / f"{s}.de" for s in SYSTEMS],
               "--labels", labels, "-m", *plain, "-f", fmt)
    names = [n for n, v in expected[SYSTEMS[0]].items() if v[3] != "scores"]
    if fmt == "json":
        obj = _loads(out)
        cols = obj["columns"]
        for name in names:
            row = next(r for r in obj["rows"] if r["metric"] == name and r["subset"] == "(all)")
            for k, s in enumerate(SYSTEMS):
                assert row[cols[3 + k]] == pytest.approx(expected[s][name][0], rel=1e-13), (name, s)
            COMBOS.append(("audit", fmt, name))
        return
    if fmt in ("tsv", "csv"):  # full precision, the metric's registry key, name, scale, direction, signature
        rows = list(csv.reader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
        head = rows[0]
        assert head[:4] == ["metric", "name", "subset", "segments"] and head[-3:] == ["scale", "higher_is_better",
                                                                                      "signature"]
        for name in names:
            value, hib, digits, key = expected[SYSTEMS[0]][name]
            row = next(r for r in rows[1:] if r[1] == name and r[2] == "(all)")
            assert (row[0], row[-2]) == (key, "true" if hib else "false")
            assert row[-1].split("|")[0] in (name.split("[")[0], name)
            for k, s in enumerate(SYSTEMS):
                assert float(row[4 + k]) == pytest.approx(expected[s][name][0], rel=1e-12), (fmt, name, s)
            COMBOS.append(("audit", fmt, name))
        return
    rows = _grid(out, fmt)
    for name in names:
        row = next(r for r in rows[1:] if r[0] == name and r[1] in ("(all)", r"(all)"))
        for k, s in enumerate(SYSTEMS):
            assert _num(row[3 + k]) == pytest.approx(expected[s][name][0], abs=0.005 + 1e-9), (fmt, name, s, row)
        COMBOS.append(("audit", fmt, name))


def _chunks(out: str, fmt: str) -> list[str]:
    """The tables of a several-table output (``tables_text``), one text each."""
    if fmt == "latex":
        return [r"\begin{table}" + c for c in out.split(r"\begin{table}")[1:]]
    if fmt == "markdown":
        return ["**" + c for c in re.split(r"(?m)^\*\*", out)[1:]]
    if fmt in ("tsv", "csv"):
        return out.split("\n\n")
    lines = out.splitlines()  # text: a table's title is the line above its header, above its '---' rule
    starts = [i - 2 for i, ln in enumerate(lines) if ln.startswith("---")]
    return ["\n".join(lines[a:b]) for a, b in zip(starts, starts[1:] + [len(lines)])]


def _title(chunk: str, fmt: str) -> str:
    first = chunk.splitlines()[0] if fmt != "latex" else re.search(r"\\caption\{(.*)\}", chunk).group(1)
    if fmt == "latex":
        first = first.replace(r"$\uparrow$", "↑").replace(r"$\downarrow$", "↓").replace(r"\_", "_")
    return first.strip("*")


def _cell_table(chunk: str, fmt: str) -> list[list[str]]:
    if fmt in ("tsv", "csv"):
        return list(csv.reader(io.StringIO(chunk), delimiter="\t" if fmt == "tsv" else ","))
    return _grid(chunk, fmt)


def _close(cell: str, value: float, digits: int) -> bool:
    return _num(cell) == pytest.approx(float(f"{value:.{digits}f}"), abs=10 ** -digits / 2 + 1e-12)


def _check_long(out, fmt, what, names, expected, segs, scales):
    """``analyse -f tsv/csv``: one long table (analyse's tables a row per cell) with the metric's key, name, scale,
    direction and signature on the cells that show its values."""
    rows = list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
    assert rows and "\n\n" not in out
    for name in names:
        value0, hib, digits, key = expected[SYSTEMS[0]][name]
        label = f"{name} {'↑' if hib else '↓'}"
        title = {"lengths": f"{label} by reference length", "docs": f"Document-level {label}",
                 "wins": f"Segments won against {SYSTEMS[0]} ({label})"}[what]
        mine = [r for r in rows if r["table"] == title]
        for s in SYSTEMS:
            value = expected[s][name][0]
            if what == "wins":
                if s == SYSTEMS[0]:
                    continue
                r = next(r for r in mine if r["row"] == s and r["column"] == "mean diff")
                assert float(r["value"]) == pytest.approx(segs[name], rel=1e-9, abs=1e-12), (what, name)
                continue
            row, col = ("<100000", f"{s} {name}") if what == "lengths" else ("(all documents)", s)
            r = next(r for r in mine if r["row"] == row and r["column"] == col and r["statistic"] == "value")
            assert float(r["value"]) == pytest.approx(value, rel=1e-9, abs=1e-12), (what, name, s)
            assert (r["metric"], r["name"], float(r["scale"]), r["higher_is_better"]) == \
                (key, name, scales[name], "true" if hib else "false"), (what, name, r)
            assert r["signature"].split("|")[0] in (name.split("[")[0], name), r["signature"]
        COMBOS.append((f"analyse {what}", fmt, name))


@pytest.fixture(scope="module")
def wins_oracle(sample):
    """``analyse wins``' oracle, the same for every format: per metric, the mean difference of the API's segment
    scores (second system minus first, in the metric's direction, on the shown scale), and the metric's scale."""
    d, specs, _ = sample
    segs, scales = {}, {}
    _, refs = load_sample()
    hyps = {s: (d / f"{s}.de").read_text("utf-8").splitlines() for s in SYSTEMS}
    for spec in [x for x in specs if not x.startswith("scores:")]:
        m = make_metric(spec)
        v = view(m)
        scales[v.name] = v.scale
        seg = {s: [v.shown(float(x)) for x in m.sentence_scores(m.stats(hyps[s], refs[:N_SEG]))] for s in SYSTEMS}
        sign = 1.0 if v.higher_is_better else -1.0
        segs[v.name] = sum(sign * (b - a) for a, b in zip(seg[SYSTEMS[0]], seg[SYSTEMS[1]])) / N_SEG
    return segs, scales


@pytest.mark.parametrize("fmt", FORMATS)
def test_analyse_contract(sample, wins_oracle, fmt, capsys, tmp_path):
    """``analyse lengths`` (one bucket holding every segment: its score is the corpus score), ``analyse docs``
    (every segment its own document: the corpus of documents is the corpus) and ``analyse wins`` (the mean
    segment-score difference, in the metric's direction, equals the mean of the API's segment scores' differences
    on the shown scale): every metric with score's name, scale, direction and digits. (``analyse words`` and
    ``ngrams`` show word and n-gram statistics, not metric values; ``align`` shows WER, checked below.)"""
    d, specs, expected = sample
    # stored scores are bound to whole systems: analyse re-scores buckets, documents and segments of the texts
    plain = [x for x in specs if not x.startswith("scores:")]
    files = ["-r", d / "ref.de", "-i", *[d / f"{s}.de" for s in SYSTEMS]]
    docs = d / "docs.txt"
    docs.write_text("".join(f"doc{i}\n" for i in range(N_SEG)), encoding="utf-8")
    runs = {
        "lengths": _run(capsys, "analyse", "lengths", *files, "-m", *plain, "--cutoffs", "100000", "--resamples", "0",
                        "-f", fmt),
        "docs": _run(capsys, "analyse", "docs", *files, "-m", *plain, "--docs", docs, "--resamples", "0", "-f", fmt),
        "wins": _run(capsys, "analyse", "wins", *files, "-m", *plain, "-f", fmt),
    }
    names = [n for n, v in expected[SYSTEMS[0]].items() if v[3] != "scores"]
    segs, scales = wins_oracle  # the wins oracle: the API's segment scores
    for what, out in runs.items():
        if fmt in ("tsv", "csv"):  # ONE tidy long table: a row per cell, full precision, the metric's model
            _check_long(out, fmt, what, names, expected, segs, scales)
            continue
        if fmt == "json":
            tables = _loads(out)["tables"]
        else:
            tables = _chunks(out, fmt)
        assert len(tables) == len(names), (what, fmt, len(tables))
        for t, name in zip(tables, names):
            value0, hib, digits, key = expected[SYSTEMS[0]][name]
            label = f"{name} {'↑' if hib else '↓'}"
            if fmt == "json":
                mv = t["metrics"][0]
                assert (mv["name"], mv["metric"], mv["higher_is_better"], mv["digits"]) == (name, key, hib, digits)
                assert mv["scale"] == scales[name]
                assert label in t["title"], (what, t["title"])
                for s in SYSTEMS:
                    value = expected[s][name][0]
                    if what == "lengths":
                        got = t["rows"][0][f"{s} {name}"]
                    elif what == "docs":
                        got = t["rows"][0][s]
                    else:
                        if s == SYSTEMS[0]:
                            continue
                        got, value = t["rows"][0]["mean diff"], segs[name]
                    assert got == pytest.approx(value, rel=1e-9, abs=1e-12), (what, name, s, got, value)
            else:
                if fmt not in ("tsv", "csv"):
                    assert label in _title(t, fmt), (what, fmt, name, _title(t, fmt))
                rows = _cell_table(t, fmt)
                head = rows[0]
                arrow = "" if fmt in ("tsv", "csv") else (" " + (r"$\uparrow$" if hib else r"$\downarrow$")
                                                          if fmt == "latex" else " " + label[-1])
                for s in SYSTEMS:
                    value = expected[s][name][0]
                    if what == "lengths":
                        col = head.index(f"{s} {name}{arrow}")
                    elif what == "docs":
                        col = head.index(f"{s}{arrow}")
                    else:
                        if s == SYSTEMS[0]:
                            continue
                        col, value = head.index("mean diff"), segs[name]
                    assert _close(rows[1][col], value, digits), (what, fmt, name, s, rows[1][col], value)
            COMBOS.append((f"analyse {what}", fmt, name))


@pytest.mark.parametrize("fmt", FORMATS)
def test_analyse_align_wer_is_shown_as_wer_jiwer(sample, fmt, capsys):
    """``analyse align --tokenize none`` splits words as jiwer does: its WER is the ``wer-jiwer`` metric's, shown
    with that metric's name, scale (x100) and direction."""
    d, specs, expected = sample
    out = _run(capsys, "analyse", "align", "-r", d / "ref.de", "-i", *[d / f"{s}.de" for s in SYSTEMS],
               "--tokenize", "none", "-f", fmt)
    name = "WER(jiwer)"
    value0, hib, digits, key = expected[SYSTEMS[0]][name]
    assert key == "wer-jiwer" and not hib
    if fmt == "json":
        t = _loads(out)["tables"][0]
        assert t["metrics"][0]["name"] == name and t["metrics"][0]["scale"] == 100.0
        for r, s in zip(t["rows"], SYSTEMS):
            assert r[name] == pytest.approx(expected[s][name][0], rel=1e-12)
    elif fmt in ("tsv", "csv"):  # one long table
        rows = [r for r in csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ",")
                if r["column"] == name]
        assert [r["row"] for r in rows] == list(SYSTEMS)
        for r, s in zip(rows, SYSTEMS):
            assert float(r["value"]) == pytest.approx(expected[s][name][0], rel=1e-12)
            assert (r["metric"], r["scale"], r["higher_is_better"]) == ("wer-jiwer", "100.0", "false")
    else:
        rows = _cell_table(_chunks(out, fmt)[0], fmt)
        col = [c.replace(r"$\downarrow$", "↓") for c in rows[0]].index(name if fmt in ("tsv", "csv") else name + " ↓")
        for r, s in zip(rows[1:], SYSTEMS):
            assert _close(r[col], expected[s][name][0], digits), (fmt, r[col])
    COMBOS.append(("analyse align", fmt, name))


@pytest.mark.parametrize("fmt", FORMATS + ("html",))
def test_meta_contract(sample, fmt, capsys, tmp_path):
    """``meta``: the metric names in its correlation table are score's display names; its JSON ``metrics`` give
    each metric's scale, direction, digits and signature and its system scores on the shown scale (the values score
    prints); the lower-is-better metrics are named with their arrow in the legend (they are correlated negated);
    the HTML scatter plots show the system scores as score does. The correlations themselves are not metric values
    (a correlation is invariant to the scale; its sign follows the negation stated in the legend): they are not
    compared here (tests/meta/test_meta_* check them against mt-metrics-eval)."""
    d, specs, expected = sample
    third = "online-B"
    systems, _ = load_sample()
    (d / f"{third}.de").write_text("".join(h + "\n" for h in systems[third][:N_SEG]), encoding="utf-8")
    (d / f"c.{third}.txt").write_text("".join(f"{0.3 + 0.01 * i}\n" for i in range(N_SEG)), encoding="utf-8")
    human = tmp_path / "human.seg.score"  # mt-metrics-eval layout: SYSTEM<TAB>score, a line per segment
    human.write_text("".join(f"{s}\t{(k + 1) * 0.1 + 0.01 * (i % 7)}\n" for k, s in enumerate((*SYSTEMS, third))
                             for i in range(N_SEG)), encoding="utf-8")
    args = ["meta", "-r", d / "ref.de", "-i", *[d / f"{s}.de" for s in (*SYSTEMS, third)], "--human-file", human,
            "-m", *specs, "--stats", "pearson"]
    names = list(expected[SYSTEMS[0]])
    if fmt == "html":
        page_file = tmp_path / "m.html"
        _run(capsys, *args, "-o", page_file)
        page = page_file.read_text(encoding="utf-8")
        from mtscore.report.svg import _e
        plots = page.split("<svg")[1:]
        for name in names:
            value, hib, digits, key = expected[SYSTEMS[1]][name]
            label = _e(f"{name} {'↑' if hib else '↓'}")  # the scatter plot of this metric: titled with its label
            plot = [p for p in plots if f">{label}<" in p and _e(f"{SYSTEMS[1]}: (") in p]
            assert len(plot) == 1, (name, len(plot))
            # the point's tooltip: (human, metric) with the metric's system score as score shows it
            assert re.search(re.escape(_e(f"{SYSTEMS[1]}: (")) + r"[-0-9.]+, " + re.escape(f"{value:.{digits}f})"),
                             plot[0]), (name, value)
            COMBOS.append(("meta", fmt, name))
        return
    out = _run(capsys, *args, "-f", fmt)
    if fmt == "json":
        obj = _loads(out)
        assert [r["metric"] for r in obj["rows"]] and {r["metric"] for r in obj["rows"]} == set(names)
        got = {m["name"]: m for m in obj["metrics"]}
        for name in names:
            for s in SYSTEMS:
                value, hib, digits, key = expected[s][name]
                m = got[name]
                assert (m["metric"], m["higher_is_better"], m["digits"]) == (key, hib, digits), (name, m)
                assert m["system_scores"][s] == pytest.approx(value, rel=1e-12), (name, s)
                assert m["signature"].split("|")[0] in (name.split("[")[0], name)
            COMBOS.append(("meta", fmt, name))
        return
    if fmt in ("tsv", "csv"):  # one table, full precision, each metric's key, name, scale, direction, signature
        rows = list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
        assert {r["name"] for r in rows} == set(names)
        scales = {v.name: v.scale for v in (view(make_metric(x)) for x in specs)}
        for r in rows:
            value, hib, digits, key = expected[SYSTEMS[0]][r["name"]]
            assert (r["metric"], r["higher_is_better"]) == (key, "true" if hib else "false"), r
            assert float(r["scale"]) == scales[r["name"]]
            assert r["signature"].split("|")[0] in (r["name"].split("[")[0], r["name"])
            float(r["Pearson r"])
            COMBOS.append(("meta", fmt, r["name"]))
        pd = pytest.importorskip("pandas")  # readable without options
        df = pd.read_csv(io.StringIO(out), sep="\t") if fmt == "tsv" else pd.read_csv(io.StringIO(out))
        assert df["Pearson r"].dtype.kind == "f" and list(df["name"]) == [r["name"] for r in rows]
        return
    rows = _cell_table(_chunks(out, fmt)[0], fmt)
    shown = {r[0].replace(r"\_", "_") for r in rows[1:]}
    assert shown == set(names), (fmt, shown ^ set(names))
    for name in names:
        hib = expected[SYSTEMS[0]][name][1]
        if not hib and fmt != "tsv" and fmt != "csv":  # the legend (not part of TSV/CSV data)
            legend = out.replace(r"$\downarrow$", "↓").replace(r"\_", "_")
            assert f"{name} ↓" in legend, (fmt, name)
        COMBOS.append(("meta", fmt, name))


def test_zz_contract_size():
    """The number of (command, format, metric) combinations the contract tests above checked (closing note)."""
    combos = set(COMBOS)
    print(f"\ncontract: {len(combos)} (command, format, metric) combinations, "
          f"{len({c for c, _, _ in combos})} commands, {len({f for _, f, _ in combos})} formats, "
          f"{len({m for _, _, m in combos})} metrics")
    if combos:
        assert len({m for _, _, m in combos}) >= len(SPECS)
        try:
            import torch  # noqa: F401
        except ImportError:
            return
        # with torch (the test extras), the neural metrics are in the contract
        assert {"COMET", "CometKiwi", "XCOMET", "MetricX"} <= {m for _, _, m in combos}, sorted({m for *_, m in combos})
