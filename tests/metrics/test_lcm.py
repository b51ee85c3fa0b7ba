"""LCM-lite: docs/definitions.md §10 example, a plain-Python n-gram partial-matching oracle, extraction rules,
user check-point files, edge cases, CLI, and real WMT23 zh-en data."""
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtscore.cli.main import main
from mtscore.errors import InputError, InvalidParameterError
from mtscore.metrics.lcm import BUILTIN_CATEGORIES, LCM, extract_checkpoints, match_checkpoints
from mtscore.report import render_table
from mtscore.report.lcm import lcm_table
from mtscore.text import Vocab


# --- oracle -----------------------------------------------------------------------------------
def ngrams(toks, n):
    return [tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)]


def partial_match(cp, cand):
    """(matched, total): all n-grams of the check-point, n = 1..|cp|, clipped by candidate counts."""
    matched = total = 0
    for n in range(1, len(cp) + 1):
        g_cp = ngrams(cp, n)
        g_c = ngrams(cand, n)
        total += len(g_cp)
        for g in set(g_cp):
            matched += min(g_cp.count(g), g_c.count(g))
    return matched, total


def kernel(cp, cand):
    v = Vocab()
    h = v.encode([" ".join(cand)])
    r = v.encode([" ".join(cp)])
    return match_checkpoints(r.ids, [0], [len(cp)], [0], h)[0]


# --- docs/definitions.md §10 ---------------------------------------------------------------------------------
def test_spec_example():
    cp, cand = "that is hard to answer".split(), "it is difficult to answer".split()
    assert partial_match(cp, cand) == (4, 15)
    assert kernel(cp, cand) == 4
    res = LCM().corpus(["it is difficult to answer"], [["that is hard to answer"]])
    assert res.components["categories"]["sentence"] == pytest.approx(4 / 15)
    assert res.components["levels"]["sentence"] == pytest.approx(4 / 15)


@settings(max_examples=200, deadline=None)
@given(cp=st.lists(st.sampled_from("abc"), min_size=1, max_size=8),
       cand=st.lists(st.sampled_from("abcd"), min_size=0, max_size=8))
def test_kernel_equals_oracle(cp, cand):
    assert kernel(cp, cand) == partial_match(cp, cand)[0]


@settings(max_examples=40, deadline=None)
@given(refs=st.lists(st.lists(st.sampled_from(["the", "cat", "on", "Big", "3", "sat", "in", "a", "."]),
                              max_size=7), min_size=1, max_size=3),
       hyp=st.lists(st.sampled_from(["the", "cat", "on", "Big", "3", "dog", "in"]), max_size=7))
def test_metric_equals_oracle_over_extracted_checkpoints(refs, hyp):
    m = LCM(tokenize="none")
    values = m.stats([" ".join(hyp)], [[" ".join(r) for r in refs]]).values[0]
    v = Vocab()
    r = v.encode([" ".join(x) for x in refs])
    start, end, cat, row = extract_checkpoints(r, v, "en")
    want_m = np.zeros(len(BUILTIN_CATEGORIES))
    want_t = np.zeros(len(BUILTIN_CATEGORIES))
    for s, e, c in zip(start, end, cat):
        toks = [list(v.index)[i] for i in r.ids[s:e]]
        mm, tt = partial_match(toks, hyp)
        want_m[c] += mm
        want_t[c] += tt
    assert np.array_equal(values[2::3], want_m)
    assert np.array_equal(values[3::3], want_t)
    assert values[1] == pytest.approx(np.mean([len(x) for x in refs]))


# --- extraction rules -------------------------------------------------------------------------------
def test_extraction_hand_example():
    ref = "The White House said in a statement on Monday that 3 people were killed in the large fire ."
    v = Vocab()
    r = v.encode([ref])
    toks = ref.split()
    start, end, cat, row = extract_checkpoints(r, v, "en")
    got = {}
    for s, e, c in zip(start, end, cat):
        got.setdefault(BUILTIN_CATEGORIES[c], []).append(" ".join(toks[s:e]))
    assert got["content"] == ["White", "House", "said", "statement", "Monday", "people", "killed", "large", "fire"]
    assert got["det"] == ["The", "a", "that", "the"]
    assert got["prep"] == ["in", "on", "in"]
    assert got["aux"] == ["were"]
    assert got["number"] == ["3"]
    assert got["capital"] == ["White", "House", "Monday"]  # "The" is initial and a function word
    assert got["content-run"] == ["White House said", "large fire"]
    assert got["pp"] == ["in a statement", "on Monday", "in the large fire"]
    assert got["sentence"] == [ref]
    assert "pron" not in got and "conj" not in got
    assert set(row) == {0}


def test_other_languages_and_none():
    v = Vocab()
    r = v.encode(["Der Hund ist in dem Haus"])
    start, end, cat, _ = extract_checkpoints(r, v, "de")
    cats = [BUILTIN_CATEGORIES[c] for c in cat]
    assert cats.count("content") == 2 and "aux" in cats and "prep" in cats and cats.count("det") == 2
    start, end, cat, _ = extract_checkpoints(r, v, "none")
    assert [BUILTIN_CATEGORIES[c] for c in cat].count("content") == 6
    with pytest.raises(InvalidParameterError, match="lang"):
        LCM(lang="xx")


# --- scores, penalty, references ---------------------------------------------------------------------------
def test_penalty_and_general_score():
    # hypothesis longer than the reference: penalty = Lref / Lcand = 2 / 4
    m = LCM(lang="none")
    res = m.corpus(["a b c d"], [["a b"]])
    # check-points: content "a", "b" (2/2), content-run "a b" (3/3), sentence "a b" (3/3)
    assert res.components["penalty"] == pytest.approx(0.5)
    assert res.components["categories"]["content"] == pytest.approx(0.5)
    assert res.score == pytest.approx(0.5 * (2 + 3 + 3) / (2 + 3 + 3))
    # shorter hypothesis: no penalty
    res = m.corpus(["a"], [["a b"]])
    assert res.components["penalty"] == 1.0
    assert res.components["categories"]["sentence"] == pytest.approx(1 / 3)
    assert res.score == pytest.approx((1 + 1 + 1) / (2 + 3 + 3))


def test_multiple_references_and_additivity():
    m = LCM()
    hyps = ["it is difficult to answer", "the cat sat"]
    refs = [["that is hard to answer", "it is hard to answer"], ["the cat sat", "a cat sat down"]]
    s = m.stats(hyps, refs)
    # sentence check-points from both references: 4/15 + (1+1+1+1 + 1+1 + 1)=... via the oracle
    want = partial_match("that is hard to answer".split(), hyps[0].split())[0] + \
        partial_match("it is hard to answer".split(), hyps[0].split())[0]
    k = m.columns.index("match_sentence")
    assert s.values[0, k] == want
    assert s.values[0, m.columns.index("total_sentence")] == 30
    assert s.values[0, m.columns.index("count_sentence")] == 2
    assert s.values[1, 1] == pytest.approx(3.5)  # mean reference length
    both = m.corpus_from_stats(s)
    halves = m.score(s.take([0]).sum() + s.take([1]).sum())
    assert both.score == pytest.approx(halves)
    # vectorized over leading axes
    w = np.array([[1.0, 0.0], [1.0, 1.0]])
    assert m.score(w @ s.values)[1] == pytest.approx(both.score)
    assert m.sentence_scores(s)[0] == pytest.approx(m.corpus([hyps[0]], [refs[0]]).score)


def test_empty_references_and_hypotheses():
    m = LCM()
    res = m.corpus(["something"], [[""]])
    assert res.score == 0.0  # no check-points at all: general score 0
    assert all(math.isnan(v) for v in res.components["categories"].values())
    assert res.components["penalty"] == 0.0  # Lref = 0 < Lcand
    res = m.corpus(["", ""], [[""], ["a b"]])
    assert res.score == 0.0 and res.components["penalty"] == 1.0
    assert res.components["categories"]["sentence"] == 0.0
    res = m.corpus([""], [[""]])
    assert res.score == 0.0 and not math.isnan(res.components["penalty"])
    sent = m.sentence_scores(m.stats(["a", "x"], [[""], ["a"]]))
    assert sent[0] == 0.0 and not np.isnan(sent).any()
    with pytest.raises(InputError, match="no reference"):
        m.corpus(["a"], [[]])


# --- user check-points ------------------------------------------------------------------------------
def test_user_checkpoints(tmp_path):
    f = tmp_path / "cp.tsv"
    f.write_text("# segment category level words\n"
                 "1\tidiom\tphrase\tthat is hard to answer\n"
                 "1\tnoun\tword\tanswer\n"
                 "\n"
                 "2\tnoun\tword\tcat\n"
                 "2\tvo\tphrase\tsat * mat\n", encoding="utf-8")
    m = LCM(checkpoints=str(f))
    assert m.categories == ("idiom", "noun", "vo")
    assert m.levels == {"idiom": "phrase", "noun": "word", "vo": "phrase"}
    hyps = ["it is difficult to answer", "the cat sat on the rug"]
    res = m.corpus(hyps, [["that is hard to answer"], ["the cat sat on the mat ."]])
    c = res.components["categories"]
    assert c["idiom"] == pytest.approx(4 / 15)
    assert c["noun"] == pytest.approx(1.0)
    assert c["vo"] == pytest.approx(1 / 2)  # pieces "sat" (matched) and "mat" (not)
    assert res.components["counts"]["vo"] == 1
    assert res.components["levels"]["phrase"] == pytest.approx((4 + 1) / (15 + 2))
    assert "cp:user[" in res.signature
    assert res.components["penalty"] == 1.0  # 11 hypothesis tokens, 12 reference tokens
    # the penalty uses the references given to the metric: 1 token each, hypotheses longer
    res = m.corpus(hyps, [["x"], ["y"]])
    assert res.components["penalty"] == pytest.approx(2 / 11)
    assert res.components["categories"]["idiom"] == pytest.approx(4 / 15 * 2 / 11)


@pytest.mark.parametrize("content,msg", [
    ("1\tnoun\tword\n", "4 fields"),
    ("x\tnoun\tword\tcat\n", "positive integer"),
    ("0\tnoun\tword\tcat\n", "positive integer"),
    ("1\tnoun\tword\tcat\n2\tnoun\tphrase\tdog\n", "level"),
    ("1\tnoun\tword\t * \n", "no reference words"),
    ("# nothing\n", "no check-points"),
])
def test_user_checkpoint_errors(tmp_path, content, msg):
    f = tmp_path / "cp.tsv"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=msg):
        LCM(checkpoints=str(f))


def test_user_checkpoint_segment_out_of_range(tmp_path):
    f = tmp_path / "cp.tsv"
    f.write_text("1\tnoun\tword\tcat\n3\tnoun\tword\tdog\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"cp.tsv:2: segment 3 does not exist"):
        LCM(checkpoints=str(f)).corpus(["a", "b"], [["a"], ["b"]])


# --- report and CLI -----------------------------------------------------------------------------------
def test_table_and_cli(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    ref.write_text("that is hard to answer\nThe White House said on Monday .\n", encoding="utf-8")
    hyp.write_text("it is difficult to answer\nThe White House said Monday .\n", encoding="utf-8")
    assert main(["lcm", "-r", str(ref), "-i", str(hyp), str(ref), "-f", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    rows = {r["category"]: r for r in obj["rows"]}
    assert rows["[general]"]["ref"] == pytest.approx(100.0)  # x100, as score -m lcm shows it; names as everywhere
    assert rows["pron"]["hyp"] is None  # no check-points -> null
    assert rows["sentence"]["check-points"] == 2
    assert main(["lcm", "-r", str(ref), "-i", str(hyp), "-f", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "| [general] |" in md and "| content-run |" in md
    assert main(["score", "-m", "lcm", "gtm", "--gtm-exponent", "1.2", "-r", str(ref), "-i", str(hyp)]) == 0
    out = capsys.readouterr().out
    assert "LCM" in out and "GTM" in out and "e:1.2" in out
    bad = tmp_path / "cp.tsv"
    bad.write_text("1\tnoun\n", encoding="utf-8")
    assert main(["lcm", "-r", str(ref), "-i", str(hyp), "--checkpoints", str(bad)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cp.tsv:1" in err
    assert main(["score", "-m", "gtm", "--gtm-exponent", "0.5", "-r", str(ref), "-i", str(hyp)]) == 2


# --- real data -----------------------------------------------------------------------------------------
def test_wmt23_zh_en_categories(data):
    from mtscore.io.wmt import load_mtme
    d = load_mtme(data("wmt23"), "zh-en")
    refs = [[x] for x in d.refs["refA"]]
    m = LCM()
    systems = d.mt_systems()
    names = sorted(systems)[:4]
    stats = {s: m.stats(systems[s], refs) for s in names}
    # denominators and counts come from the references only: identical for every system
    base = next(iter(stats.values())).values
    cols = [i for i, c in enumerate(m.columns) if c.startswith(("total_", "count_"))]
    for s in stats.values():
        assert np.array_equal(s.values[:, cols], base[:, cols])
    counts = {c: base[:, m.columns.index(f"count_{c}")].sum() for c in m.categories}
    assert all(counts[c] > 100 for c in ("content", "prep", "det", "number", "capital", "content-run", "pp"))
    assert counts["sentence"] == sum(1 for x in d.refs["refA"] if x.strip())
    for s, st_ in stats.items():
        r = m.corpus_from_stats(st_)
        assert 0 < r.score < 1
        for lev in ("word", "phrase", "sentence"):
            assert 0 < r.components["levels"][lev] < 1
    # the reference scored against itself: every category with check-points is 1
    self_res = m.corpus(d.refs["refA"], refs)
    assert self_res.score == pytest.approx(1.0)
    assert all(v == pytest.approx(1.0) for v in self_res.components["categories"].values())
    assert render_table(lcm_table(m, stats), "markdown").count("\n") > len(m.categories)
