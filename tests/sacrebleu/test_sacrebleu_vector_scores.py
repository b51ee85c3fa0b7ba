"""The drop-in's array scoring of bootstrap resamples (``Metric._scores_of_rows``, used by ``--paired-bs`` and
``PairedTest``) against the installed sacreBLEU 2.6 scoring the same float32 rows one by one
(``_compute_score_from_stats``): the very same floats, the same dtype, for regular rows (the array path) and
degenerate ones (zero counts: the row-by-row path), every BLEU/chrF option that changes the arithmetic; and
``Metric._row_scores`` (``PairedTest``'s approximate randomization) on the same counts as int64 rows."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import mtscore.sacrebleu as sacrebleu
from mtscore.sacrebleu.metrics import Metric

from conftest import data_path

peer = pytest.importorskip("sacrebleu")

VARIANTS = [
    ("BLEU", {}), ("BLEU", {"smooth_method": "floor"}), ("BLEU", {"smooth_method": "none"}),
    ("BLEU", {"smooth_method": "add-k", "smooth_value": 2}), ("BLEU", {"effective_order": True}),
    ("BLEU", {"max_ngram_order": 2}), ("CHRF", {}), ("CHRF", {"word_order": 2}),
    ("CHRF", {"char_order": 4, "beta": 1}), ("CHRF", {"eps_smoothing": True}), ("CHRF", {"beta": 3, "word_order": 1}),
]


def _width(ours):
    return 2 + 2 * ours.max_ngram_order if isinstance(ours, sacrebleu.BLEU) else 3 * ours.order


def _peer_scores(theirs, sums):
    return np.array([theirs._compute_score_from_stats(row).score for row in sums.copy()])


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def _bleu_rows(rng, m, order, zeros):
    ref = rng.integers(1, 70000, m)
    sys_len = np.maximum(ref + rng.integers(-8000, 8000, m), 0 if zeros else 1)
    total = np.stack([np.maximum(sys_len - k * 3000, 0 if zeros else 1) for k in range(order)], 1)
    correct = (total * rng.uniform(0.05 if not zeros else 0.0, 0.8, (m, order))).astype(np.int64)
    if not zeros:
        correct = np.maximum(correct, 1)
    return np.concatenate([sys_len[:, None], ref[:, None], correct, total], 1).astype(np.float32)


def _chrf_rows(rng, m, order, zeros):
    hyp = rng.integers(0 if zeros else 1, 400000, (m, order))
    ref = rng.integers(0 if zeros else 1, 400000, (m, order))
    match = (np.minimum(hyp, ref) * rng.uniform(0.0 if zeros else 0.1, 1.0, (m, order))).astype(np.int64)
    if not zeros:
        match = np.maximum(match, 1)
    return np.stack([hyp, ref, match], 2).reshape(m, 3 * order).astype(np.float32)


@pytest.mark.parametrize("cls,kw", VARIANTS)
@pytest.mark.parametrize("zeros", [False, True])
def test_random_rows_equal_sacrebleu(cls, kw, zeros):
    ours, theirs = getattr(sacrebleu, cls)(**kw), getattr(peer, cls)(**kw)
    rng = np.random.default_rng(len(kw) * 7 + zeros)
    for m in (1, 3, 500):
        if cls == "BLEU":
            sums = _bleu_rows(rng, m, ours.max_ngram_order, zeros)
        else:
            sums = _chrf_rows(rng, m, ours.order, zeros)
        _same(ours._scores_of_rows(sums.copy()), _peer_scores(theirs, sums))
        _same(ours._scores_of_rows(sums.copy()), Metric._scores_of_rows(ours, sums.copy()))
        # the same counts as int64 rows (the approximate-randomization test's swapped sums): Python floats,
        # identical to sacreBLEU's scalar code on each int64 row
        ints = sums.astype(np.int64)
        assert list(map(repr, ours._row_scores(ints.copy()))) == \
            [repr(theirs._compute_score_from_stats(row).score) for row in ints.copy()]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), variant=st.sampled_from(VARIANTS))
def test_hypothesis_rows_equal_sacrebleu(data, variant):
    cls, kw = variant
    ours, theirs = getattr(sacrebleu, cls)(**kw), getattr(peer, cls)(**kw)
    m = data.draw(st.integers(1, 6))
    sums = data.draw(hnp.arrays(np.float32, (m, _width(ours)),
                                elements=st.integers(0, 2 ** 24).map(float)))
    _same(ours._scores_of_rows(sums.copy()), _peer_scores(theirs, sums))


def test_real_bootstrap_resamples_equal_sacrebleu():
    from mtscore.sacrebleu.significance import _resampled_sums
    d = data_path("wmt21")
    def lines(p):
        with open(p, encoding="utf-8") as fh:
            return [ln.rstrip("\n") for ln in fh][:300]
    hyp = lines(d / "system-outputs" / "newstest2021.en-de.hyp.Facebook-AI.de")
    refs = [lines(d / "references" / "newstest2021.en-de.ref.A.de")]
    for cls, kw in VARIANTS:
        ours, theirs = getattr(sacrebleu, cls)(**kw), getattr(peer, cls)(**kw)
        sums = _resampled_sums(ours._stats_array(hyp, refs), 300, 12345)
        _same(ours._scores_of_rows(sums.copy()), _peer_scores(theirs, sums))
