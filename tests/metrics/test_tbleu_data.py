"""tBLEU on real WMT data: epsilon = 0 reproduces BLEU on every system; pruning is exact."""
from __future__ import annotations

import numpy as np
import pytest

from mtscore.io.wmt import load_mtme, load_wmt21
from mtscore.metrics.bleu import BLEU
from mtscore.metrics.tbleu import TBLEU


def _check_equal(systems, refs, force_first=False):
    t, b = TBLEU(epsilon=0.0), BLEU()
    assert systems
    for k, (name, hyps) in enumerate(systems.items()):
        ts, bs = t.stats(hyps, refs), b.stats(hyps, refs)
        np.testing.assert_array_equal(ts.values, bs.values, err_msg=name)
        assert abs(t.corpus_from_stats(ts).score - b.corpus_from_stats(bs).score) < 1e-9, name
        np.testing.assert_allclose(t.sentence_scores(ts), b.sentence_scores(bs), rtol=0, atol=1e-9)
        if force_first and k == 0:  # the Hungarian matching on every pair changes nothing at epsilon 0
            np.testing.assert_array_equal(t._stats(list(hyps), refs, force_matching=True), bs.values)


def test_epsilon_zero_is_bleu_wmt21_en_de(data):
    d = load_wmt21(data("wmt21"), "en-de")
    refs = d.refs_sentence_major()
    assert len(refs[0]) == 3 and len(d.systems) == 20
    _check_equal(d.systems, refs, force_first=True)


@pytest.mark.parametrize("lp", ["en-de", "he-en", "zh-en"])
def test_epsilon_zero_is_bleu_wmt23(data, lp):
    d = load_mtme(data("wmt23"), lp)
    refs = [[x] for x in d.refs[d.std_ref()]]
    _check_equal(d.mt_systems(), refs)


@pytest.mark.parametrize("eps", [0.05, 0.3])
def test_pruning_is_exact_on_real_data(data, eps):
    d = load_wmt21(data("wmt21"), "en-de")
    refs = d.refs_sentence_major()
    hyps = d.systems["Online-W"]
    m = TBLEU(epsilon=eps)
    np.testing.assert_array_equal(m.stats(hyps, refs).values, m._stats(hyps, refs, force_matching=True))
