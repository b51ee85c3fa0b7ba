"""BLEU equals the published sacreBLEU 2.6 scores in ../shared/data to the last digit."""
from collections import defaultdict

import numpy as np
import pytest

from mtscore import BLEU
from mtscore.io.wmt import load_mtme, load_wmt21, read_wmt21_scores
from conftest import data_path

LPS = ["en-de", "he-en", "zh-en"]


@pytest.mark.parametrize("lp", LPS)
def test_wmt23_system_segment_domain(lp):
    d = load_mtme(data_path("wmt23"), lp)
    refs = [[r] for r in d.refs["refA"]]
    sys_scores = d.metric_scores("BLEU-refA", "sys")
    seg_scores = d.metric_scores("BLEU-refA", "seg")
    dom_scores = d.metric_scores("BLEU-refA", "domain")
    bleu = BLEU()
    domains = np.array(d.domains)
    checked = 0
    for name, expected in sys_scores.items():
        st = bleu.stats(d.systems[name], refs)
        assert bleu.corpus_from_stats(st).score == pytest.approx(expected, abs=1e-9), name
        seg = bleu.sentence_scores(st)
        exp_seg = np.array(seg_scores[name], dtype=float)
        assert np.max(np.abs(seg - exp_seg)) < 1e-9, name
        for dom in sorted(set(domains)):
            sub = st.take(np.flatnonzero(domains == dom))
            assert bleu.score(sub.sum()) == pytest.approx(dom_scores[(dom, name)], abs=1e-9), (name, dom)
        checked += 1
    assert checked >= 12


def _wmt21_rows():
    rows = read_wmt21_scores(data_path("wmt21", "scores", "automatic-scores.tsv"))
    by = defaultdict(dict)
    for r in rows:
        if r["metric"].startswith("bleu-"):
            by[r["pair"]][(r["system"], r["metric"][5:])] = r["score"]
    return by


@pytest.mark.parametrize("lp", ["en-de", "en-zh", "de-en", "cs-en"])
def test_wmt21_every_bleu_row(lp):
    rows = _wmt21_rows()[lp]
    d = load_wmt21(data_path("wmt21"), lp)
    tok = "zh" if lp.endswith("-zh") else "13a"
    bleu = BLEU(tokenize=tok)
    checked = 0
    for (system, which), expected in sorted(rows.items()):
        if system not in d.systems:
            continue  # rows naming systems whose text is not in the data (metricsystem*, ref-B)
        names = sorted(d.refs) if which == "all" else [which]
        refs = d.refs_sentence_major(names)
        got = bleu.corpus(d.systems[system], refs).score
        assert got == pytest.approx(expected, abs=1e-9), (system, which)
        checked += 1
    assert checked >= 3 * len(d.systems)
