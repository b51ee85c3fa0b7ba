"""Error-span meta-evaluation: readers, character-level P/R/F1 with severity partial credit, micro and
macro, bootstrap CIs, paired significance and rater-vs-rater agreement.

Fixture: tests/fixtures/spans/wmt23-zh-en-iaa (288 translations of WMT23 zh-en rated by every MQM rater; see its
PROVENANCE.md). Oracle: the plain-Python scorer below (characters as Python sets, severities compared one by one),
written from the definition in docs/meta.md and independent of mtscore.meta.spans.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtscore.errors import InputError
from mtscore.meta import spans as SP

FX = Path(__file__).resolve().parents[1] / "fixtures" / "spans" / "wmt23-zh-en-iaa"
RANK = {"minor": 1, "major": 2, "critical": 3}


def _texts():
    out = {}
    for p in sorted((FX / "system-outputs").glob("*.txt")):
        for k, line in enumerate(p.read_text(encoding="utf-8").split("\n")[:-1]):
            out[(p.stem, k)] = line
    return out


def _plain_rating(path):
    """{(system, segment): [(start, end, severity)]} of a rating file, in plain Python."""
    out, count = {}, {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        s, r = line.split("\t")[:2]
        k = count.get(s, 0)
        count[s] = k + 1
        if r != "None":
            out[(s, k)] = [(e["start"], e["end"], e["severity"]) for e in json.loads(r)["errors"]
                           if not e["is_source_error"] and e["severity"] in RANK and e["end"] > e["start"]]
    return out


def _plain_score(gold, pred, cells, severity=True):
    credit_sum = npred_sum = ngold_sum = 0.0
    f1s = []
    for c in cells:
        g, p = {}, {}
        for table, spans in ((g, gold.get(c, [])), (p, pred.get(c, []))):
            for a, b, sev in spans:
                for ch in range(a, b):
                    table[ch] = max(table.get(ch, 0), RANK[sev])
        credit = 0.0
        for ch in set(g) & set(p):
            credit += 1.0 if (not severity or g[ch] == p[ch]) else 0.5
        credit_sum += credit
        npred_sum += len(p)
        ngold_sum += len(g)
        if g or p:
            prec = credit / len(p) if p else 0.0
            rec = credit / len(g) if g else 0.0
            f1s.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    P, R = credit_sum / npred_sum, credit_sum / ngold_sum
    return P, R, 2 * P * R / (P + R), sum(f1s) / len(f1s)


@pytest.fixture(scope="module")
def data():
    texts = _texts()
    lengths = {k: len(v) for k, v in texts.items()}
    r1 = SP.read_rating_file(FX / "zh-en.mqm.rater1.seg.rating", "rater1", lengths)
    r2 = SP.read_rating_file(FX / "zh-en.mqm.rater2.seg.rating", "rater2", lengths)
    return texts, r1, r2


def test_fixture_size_and_reader(data):
    texts, r1, r2 = data
    assert len(r1.cells) == len(r2.cells) == 288 == len(texts)
    plain = _plain_rating(FX / "zh-en.mqm.rater1.seg.rating")
    assert {c: sorted((a, b) for a, b, _ in v) for c, v in plain.items()} == \
        {c: sorted((a, b) for a, b, _ in v) for c, v in r1.cells.items()}


@pytest.mark.parametrize("severity", [True, False])
def test_scores_equal_plain_python(data, severity):
    texts, r1, _ = data
    gold = _plain_rating(FX / "zh-en.mqm.rater1.seg.rating")
    cells = sorted(gold)
    for pred_file, plain_pred in (("rater3.xcomet.json", None), ("rater2.tsv", "zh-en.mqm.rater2.seg.rating")):
        pred = SP.read_pred_file(FX / "predictions" / pred_file, pred_file, texts)
        if plain_pred is None:
            raw = json.loads((FX / "predictions" / pred_file).read_text())
            plain = {(s, k): [(e["start"], e["end"], e["severity"]) for e in seg if e["end"] > e["start"]]
                     for s, segs in raw.items() for k, seg in enumerate(segs)}
        else:
            plain = _plain_rating(FX / plain_pred)
        res = SP.score_spans(r1, pred, severity=severity)
        P, R, F, macro = _plain_score(gold, plain, cells, severity)
        assert res.micro == pytest.approx((P, R, F), abs=1e-12), pred_file
        assert res.macro_f1 == pytest.approx(macro, abs=1e-12), pred_file
        assert 0.05 < res.micro[2] < 0.95  # two humans agree in part: not a degenerate fixture


def test_agreement_is_rater2_scored_against_rater1(data):
    texts, r1, r2 = data
    agr = SP.agreement(r1, r2)
    tsv = SP.score_spans(r1, SP.read_pred_file(FX / "predictions" / "rater2.tsv", "tsv", texts))
    assert agr.micro == pytest.approx(tsv.micro, abs=1e-12) and agr.macro_f1 == pytest.approx(tsv.macro_f1, abs=1e-12)
    back = SP.agreement(r2, r1)  # the other way round: precision and recall swap
    assert back.micro[0] == pytest.approx(agr.micro[1], abs=1e-12)
    assert back.micro[1] == pytest.approx(agr.micro[0], abs=1e-12)


def test_gemba_spans_located_in_the_text(data):
    texts, r1, _ = data
    gem = SP.read_pred_file(FX / "predictions" / "rater3.gemba.json", "gemba", texts)
    xc = SP.read_pred_file(FX / "predictions" / "rater3.xcomet.json", "xcomet", texts)
    raw = json.loads((FX / "predictions" / "rater3.gemba.json").read_text())
    by_cell = {(r["system"], r["seg"] - 1): [e["span"] for e in r["errors"]] for r in raw}
    for cell, spans in gem.cells.items():
        assert sorted(texts[cell][a:b] for a, b, _ in spans) == sorted(by_cell[cell]), cell  # the named text
    a, b = SP.score_spans(r1, gem), SP.score_spans(r1, xc)
    # same texts, located at their first occurrence: the same characters or a repeated word elsewhere
    assert abs(a.micro[2] - b.micro[2]) < 0.02
    with pytest.raises(Exception, match="give the translations"):
        SP.read_pred_file(FX / "predictions" / "rater3.gemba.json", "gemba", None)


def test_bootstrap_and_paired_pvalue(data):
    texts, r1, r2 = data
    a = SP.score_spans(r1, SP.read_pred_file(FX / "predictions" / "rater3.xcomet.json", "xcomet", texts))
    b = SP.score_spans(r1, SP.read_pred_file(FX / "predictions" / "rater2.tsv", "tsv", texts))
    mult = SP.bootstrap([a, b], 300, seed=7)
    assert mult.shape == (300, 288) and (mult.sum(axis=1) == 288).all()
    for s in (a, b):
        lo, hi = s.ci["micro_f1"]
        assert lo < s.micro[2] < hi
        # each resample's micro F1 = the plain definition on the expanded data (resample 0 checked)
        rep = np.repeat(np.arange(288), mult[0].astype(int))
        sub = s.counts[rep].sum(axis=0)
        assert s.samples["micro_f1"][0] == pytest.approx(2 * sub[0] / (sub[1] + sub[2]), abs=1e-12)
    better, other = (a, b) if a.micro[2] >= b.micro[2] else (b, a)
    p = SP.paired_pvalue(better, other)
    assert p == pytest.approx(np.mean(better.samples["micro_f1"] <= other.samples["micro_f1"]), abs=1e-15)
    assert 0 <= p <= 0.5


def test_severity_credit_small_cases():
    g = SP.Spans("g", {("A", 0): [(0, 4, 2)], ("A", 1): [], ("A", 2): [(2, 3, 1)]})
    p = SP.Spans("p", {("A", 0): [(2, 6, 1)], ("A", 1): [], ("A", 2): []}, systems={"A"})
    r = SP.score_spans(g, p)
    # segment 0: chars 2,3 both marked, severities differ: credit 1.0 of 4 predicted, 4 gold; segment 2: miss
    assert r.counts.tolist() == [[1.0, 4, 4], [0, 0, 0], [0, 0, 1]]
    assert r.micro == pytest.approx((1 / 4, 1 / 5, 2 * (1 / 4) * (1 / 5) / (1 / 4 + 1 / 5)))
    assert r.macro_f1 == pytest.approx((0.25 + 0.0) / 2)  # segment 1 (no errors anywhere) left out
    assert SP.score_spans(g, p, severity=False).counts[0, 0] == 2.0


def test_bad_inputs(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("system\tseg\tstart\tend\tseverity\nA\t1\t5\t2\tminor\n")
    with pytest.raises(InputError, match=r"span \[5, 2\) is not a character range"):
        SP.read_pred_file(bad, "bad")
    bad.write_text("system\tseg\tstart\tend\tseverity\nA\t1\t0\t2\tsevere\n")
    with pytest.raises(InputError, match="unknown error severity 'severe'"):
        SP.read_pred_file(bad, "bad")
    r = tmp_path / "r.rating"
    r.write_text('A\t{"errors": [{"start": 0, "end": 99, "severity": "minor"}]}\n')
    with pytest.raises(InputError, match="ends after the translation's 5 characters"):
        SP.read_rating_file(r, "r", {("A", 0): 5})
    g = SP.Spans("g", {("B", 0): []})
    with pytest.raises(InputError, match="no predictions for system"):
        SP.score_spans(g, SP.Spans("p", {}, systems={"A"}))


def test_cli_spans(tmp_path):
    cmd = [sys.executable, "-m", "mtscore", "meta", "--spans",
           "--gold", str(FX / "zh-en.mqm.rater1.seg.rating"), "--rater2", str(FX / "zh-en.mqm.rater2.seg.rating"),
           "--pred", f"xcomet={FX / 'predictions' / 'rater3.xcomet.json'}",
           f"gemba={FX / 'predictions' / 'rater3.gemba.json'}",
           "--outputs", str(FX / "system-outputs"), "--resamples", "200", "-f", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    table = json.loads(out.stdout)
    rows = {r["predictor"]: r for r in table["rows"]}
    assert set(rows) == {"xcomet", "gemba", "zh-en.mqm.rater2 vs zh-en.mqm.rater1 (human)"}
    texts = _texts()
    gold = SP.read_rating_file(FX / "zh-en.mqm.rater1.seg.rating", "rater1")
    lib = SP.score_spans(gold, SP.read_pred_file(FX / "predictions" / "rater3.xcomet.json", "x", texts))
    assert rows["xcomet"]["micro F1"] == pytest.approx(lib.micro[2], abs=1e-12)
    assert rows["xcomet"]["macro F1"] == pytest.approx(lib.macro_f1, abs=1e-12)
    bad = subprocess.run(cmd[:5] + ["--pred", "x=" + str(tmp_path / "missing.json")], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_esa_wave_spans(tmp_path):
    """WMT24 ESA wave rows: error_spans with start_i/end_i/severity; "missing" = omission (no characters); the
    later rating of a rater replaces the earlier; human rows (refA) dropped."""
    rows = [
        'u1,sysA,1,TGT,eng,ces,60,d1,False,"[{""start_i"":0,""end_i"":4,""severity"":""major"",""error_type"":null}]",1,2',
        'u1,sysA,1,TGT,eng,ces,70,d1,False,"[{""start_i"":2,""end_i"":5,""severity"":""minor"",""error_type"":null},'
        '{""start_i"":""missing"",""end_i"":""missing"",""severity"":""major"",""error_type"":null}]",3,4',
        'u2,sysB,2,TGT,eng,ces,90,d1,False,[],1,2',
        'u2,refA,2,TGT,eng,ces,99,d1,False,[],1,2',
    ]
    f = tmp_path / "wave.csv"
    f.write_text("\n".join(rows) + "\n")
    sp = SP.read_esa_spans(f, "en-cs")
    assert sp.cells == {("sysA", 1): [(2, 5, 1)], ("sysB", 2): []}
    assert sp.omissions == 1


def test_tsv_as_gold(data):
    """The TSV format as gold (MQM exports with offsets): rater 2's TSV as gold = rater 2's rating file as gold."""
    texts, r1, r2 = data
    g = SP.gold_from_tsv(FX / "predictions" / "rater2.tsv", "rater2-tsv", texts)
    pred = SP.read_pred_file(FX / "predictions" / "rater3.xcomet.json", "x", texts)
    a, b = SP.score_spans(g, pred), SP.score_spans(r2, pred)
    assert a.micro == pytest.approx(b.micro, abs=1e-12) and a.macro_f1 == pytest.approx(b.macro_f1, abs=1e-12)


def test_google_mqm_tsv_spans():
    """google/wmt-mqm-human-evaluation TSV (<v> marks): reader = a plain-Python regex parse; rater agreement."""
    import re
    path = FX.parent / "wmt23-zh-en-mqm-tsv" / "mqm_generalMT2023_zhen.sxs.head.tsv"
    by_rater = SP.read_mqm_tsv_spans(path)
    assert sorted(by_rater) == ["rater2", "rater4", "rater7"]
    plain: dict = {}
    lines = path.read_text(encoding="utf-8").split("\n")[1:]
    for line in lines:
        if not line:
            continue
        system, _, _, seg, rater, _, target, category, sev = line.split("\t")
        cell = plain.setdefault(rater, {}).setdefault((system, int(seg) - 1), [])
        m = re.search(r"<v>(.*?)</v>", target)
        if category == "No-error" or sev == "HOTW-test" or m is None:
            continue
        start = len(target[:m.start()].replace("<v>", "").replace("</v>", ""))
        cell.append((start, start + len(m.group(1)), sev.lower()))
    for rater, sp in by_rater.items():
        assert set(sp.cells) == set(plain[rater])
        for c, spans in sp.cells.items():
            assert sorted((a, b) for a, b, _ in spans) == sorted((a, b) for a, b, _ in plain[rater][c] if b > a), c
    assert all(len(sp.cells) == 30 for sp in by_rater.values())  # 5 systems x 6 segments, three ratings each
    agr = SP.agreement(by_rater["rater2"], by_rater["rater4"])
    P, R, F, macro = _plain_score(plain["rater2"], plain["rater4"], sorted(plain["rater2"]))
    assert agr.micro == pytest.approx((P, R, F), abs=1e-12) and agr.macro_f1 == pytest.approx(macro, abs=1e-12)


def test_cli_google_mqm_tsv():
    path = FX.parent / "wmt23-zh-en-mqm-tsv" / "mqm_generalMT2023_zhen.sxs.head.tsv"
    base = [sys.executable, "-m", "mtscore", "meta", "--spans", "--gold", str(path), "--gold-format", "mqm-tsv"]
    out = subprocess.run(base + ["--gold-rater", "rater2", "--rater2", "rater4", "-f", "json"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)["rows"]
    by_rater = SP.read_mqm_tsv_spans(path)
    assert row["micro F1"] == pytest.approx(SP.agreement(by_rater["rater2"], by_rater["rater4"]).micro[2], abs=1e-12)
    bad = subprocess.run(base + ["--rater2", "rater4"], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "several raters (rater2, rater4, rater7)" in bad.stderr
