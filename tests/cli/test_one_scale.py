"""One scale per metric everywhere: a metric computed on 0..1 (4-GRR, GTM, LCM, RIBES, GLEU, WER, MER, WIL ...)
is shown x100 by every command (score, compare, report, lcm), listed by ``mtscore metrics`` with its range on that
scale, and shown x100 in every table of README.md and docs/. The shown number is checked against the metric's own
Python API score times its declared scale, computed here."""
from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT, cli_output
from mtscore.metrics.registry import get_metric, get_metric_class, metric_names

REF = ["the cat sat on the mat today", "hello world , how are you doing", "a dog ran far away from home",
       "it is raining in the city today", "one two three four five six", "the house on the hill is big"]
HYP = ["the cat sat on a mat", "hello world how are you", "a dog ran away from the home", "it rains in town today",
       "one two three five six", "the big house on the hill"]
HYP2 = ["a cat on the mat today", "hello , how are you doing", "the dog ran far away", "raining in the city",
        "one two three four five six", "house on hill is big"]
# every built-in metric that needs no model file, network or stored scores
CHEAP = [n for n in ("bleu", "chrf", "ter", "nist", "gtm", "lcm", "ribes", "gleu-google", "wer", "per", "mwer", "mper",
                     "cer", "mer", "wil", "wip", "4-grr", "wrr") if n in metric_names()]
X100 = [n for n in CHEAP if get_metric_class(n).table_scale != 1.0]


cli = cli_output  # mtscore in this process; its stdout


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("scale")
    for name, lines in (("ref.txt", REF), ("sysA.txt", HYP), ("sysB.txt", HYP2)):
        (d / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def _shown(name, hyps=HYP):
    m = get_metric(name)
    return m.corpus(hyps, [[r] for r in REF]).score * m.table_scale


def test_some_metrics_are_shown_x100():
    assert {"gtm", "lcm", "ribes", "gleu-google", "mer", "wil", "4-grr", "wrr"} <= set(X100)


@pytest.mark.parametrize("name", CHEAP)
def test_every_command_shows_one_scale(files, name):
    shown = _shown(name)
    io_ = ["-r", files / "ref.txt", "-i", files / "sysA.txt", files / "sysB.txt"]
    rows = json.loads(cli("score", *io_, "-m", name, "-f", "json"))["rows"]
    key = next(k for k in rows[0] if k not in ("system",))
    assert rows[0][key] == pytest.approx(shown, abs=1e-9), (name, rows[0])
    text = {"score": cli("score", *io_, "-m", name),
            "compare": cli("compare", *io_, "-m", name, "--resamples", "20"),
            "report": cli("report", *io_, "-m", name, "--resamples", "20", "--examples", "0")}
    if name == "lcm":
        text["lcm"] = cli("lcm", *io_)
    for cmd, out in text.items():
        assert re.search(rf"(?<![\d.]){re.escape(f'{shown:.2f}')}(?![\d])", out), (name, cmd, shown, out)
        if get_metric_class(name).table_scale != 1.0 and abs(shown) >= 1.0:  # the 0..1 number is never shown
            assert not re.search(rf"(?<![\d.]){re.escape(f'{shown / 100:.2f}')}(?![\d])", out.split("\n\n")[0]) \
                or f"{shown / 100:.2f}" == f"{shown:.2f}", (name, cmd, out)


def test_the_metrics_listing_uses_the_shown_scale():
    infos = {m["name"]: m for m in json.loads(cli("metrics", "-f", "json"))}
    text = cli("metrics")
    for name in X100 + ["bleu", "ter"]:
        cls = get_metric_class(name)
        lo, hi = (x * cls.table_scale for x in cls.range)
        num = (lambda x: "inf" if x == float("inf") else "-inf" if x == float("-inf") else f"{x:g}")
        assert infos[name]["range"] == [num(lo), num(hi)], name
        assert infos[name]["scale"] == cls.table_scale
        assert re.search(rf"^{re.escape(name)}  \(.*range \[{re.escape(num(lo))}, {re.escape(num(hi))}\]", text, re.M)
        shown = _shown(name)
        assert lo <= shown <= hi, (name, shown, lo, hi)
    assert "range [0, 1]" not in text and "range [-inf, 1]" not in text


def _tables(text):
    """(header cells, body rows) of every markdown table."""
    lines = text.splitlines()
    for i in range(len(lines) - 1):
        if lines[i].startswith("|") and re.match(r"^\|[\s:|-]+\|$", lines[i + 1]) and "---" in lines[i + 1]:
            head = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            body = []
            for line in lines[i + 2:]:
                if not line.startswith("|"):
                    break
                body.append([c.strip() for c in line.strip().strip("|").split("|")])
            yield head, body


def _number(cell):
    try:
        return float(cell.replace("−", "-").strip("`*"))
    except ValueError:
        return None


def test_docs_show_the_x100_metrics_x100():
    """A docs table column named after a x100 metric (GTM, LCM, 4-GRR, WER ...) holds numbers on 0..100: a column
    whose values all lie in [-1, 1] but not all 0 is the API's 0..1 number (docs/nbest-bn-en.md showed 0.1885)."""
    names = sorted({get_metric_class(n).display_name for n in metric_names()
                    if get_metric_class(n).table_scale != 1.0}, key=len, reverse=True)
    bad = []
    for page in [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md")):
        for head, body in _tables(page.read_text(encoding="utf-8")):
            for j, cell in enumerate(head):
                label = cell.strip("` ").replace(" ↑", "").replace(" ↓", "")
                if not any(label == n or label.startswith((n + " ", n + "[", n + "(")) for n in names):
                    continue
                vals = [v for row in body if j < len(row) for v in [_number(row[j])] if v is not None]
                if vals and all(abs(v) <= 1 for v in vals) and any(v != 0 for v in vals):
                    bad.append(f"{page.name}: column {cell!r}: {vals[:3]}")
    assert not bad, bad
