"""BLEU of many statistics rows at once (sentence BLEU of every segment): the compiled ``_ckernel.bleu_scores``
against the reference path of ``bleu_from_stats`` (:func:`bleu_row` per row), a vectorized NumPy formulation
(tests/bleu_reference.py) and sacreBLEU's ``compute_bleu`` /
``sentence_score`` (test-only peer), bit for bit. Takes ~3 s."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtscore.metrics.bleu import BLEU, BLEUSBP, bleu_from_stats
from mtscore.text import fast
from mtscore.text.fast import kernel_choice

sacrebleu = pytest.importorskip("sacrebleu")
needs_c = pytest.mark.skipif(fast._ckernel is None, reason="the compiled extension is not built")

_SMOOTH = st.sampled_from([("exp", None), ("none", None), ("floor", 0.1), ("floor", 0.37), ("add-k", 1.0),
                           ("add-k", 0.5), ("add-k", 0.0)])


@st.composite
def _rows(draw, n):
    """Statistics rows as the kernels produce them: lengths, then matches <= totals, totals = max(len - j, 0);
    also free-form rows (zero lengths, matches without totals) that the rules must treat alike."""
    out = []
    for _ in range(draw(st.integers(0, 25))):
        if draw(st.booleans()):
            hyp = draw(st.integers(0, 60))
            tot = [max(hyp - j, 0) for j in range(n)]
            cor = [draw(st.integers(0, t)) for t in tot]
            ref = draw(st.integers(0, 80))
            clip = min(hyp, ref)
        else:
            hyp, ref, clip = (draw(st.integers(0, 9)) for _ in range(3))
            tot = [draw(st.integers(0, 9)) for _ in range(n)]
            cor = [draw(st.integers(0, 9)) for _ in range(n)]
        out.append([hyp, ref] + cor + tot + [clip])
    return np.array(out, dtype=np.float64).reshape(-1, 3 + 2 * n)


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6), _SMOOTH, st.booleans(), st.booleans(), st.data())
def test_compiled_rows_equal_the_numpy_path(n, smooth, eff, strict, data):
    rows = data.draw(_rows(n))
    if not strict:
        rows = rows[:, :-1]
    args = (n, smooth[0], smooth[1], eff, None, "sacrebleu", strict)
    with kernel_choice("c"):
        got = bleu_from_stats(rows, *args)
    with kernel_choice("reference"):
        want = bleu_from_stats(rows, *args)
    assert got.shape == want.shape == (len(rows),)
    assert got.tobytes() == want.tobytes()  # bit for bit, NaN-free
    import bleu_reference
    assert got.tobytes() == bleu_reference.bleu(rows, *args).tobytes()
    with kernel_choice("c"):  # leading axes kept
        assert bleu_from_stats(rows.reshape(1, len(rows), rows.shape[1]), *args).shape == (1, len(rows))


@needs_c
@settings(max_examples=200, deadline=None)
@given(_SMOOTH, st.booleans(), st.data())
def test_compiled_rows_equal_sacrebleu_compute_bleu(smooth, eff, data):
    """The independent oracle: sacreBLEU's compute_bleu on every row (its add-k / floor / exp / none rules)."""
    rows = data.draw(_rows(4))[:, :-1]
    with kernel_choice("c"):
        got = bleu_from_stats(rows, 4, smooth[0], smooth[1], eff, None)
    from sacrebleu.metrics.bleu import BLEU as SB
    sv = smooth[1]
    for r, g in zip(rows.astype(int).tolist(), got.tolist()):
        want = SB.compute_bleu(r[2:6], r[6:10], r[0], r[1], smooth_method=smooth[0], smooth_value=sv,
                               effective_order=eff).score
        assert g == want


@needs_c
def test_sentence_scores_are_sacrebleu_sentence_score_on_real_text():
    """Every segment of a real system (WMT17 en-de, first 600 lines) and a few edge segments: the compiled rows
    equal sacreBLEU's sentence_score (BLEU, effective order) bit for bit, and BLEU-SBP's rows equal the
    reference path's and the vectorized formulation's (tests/bleu_reference.py)."""
    from conftest import data_path
    from mtscore.io import read_lines
    d = data_path("wmt17-en-de")
    hyps = read_lines(d / "systems" / "newstest2017.online-B.0.en-de")[:600] + ["", "a", "a b c d e", "x"]
    refs = read_lines(d / "newstest2017.en-de.ref0.de")[:600] + ["a", "", "a b c d e", "y"]
    peer = sacrebleu.BLEU(effective_order=True)
    for metric in (BLEU(), BLEU(smooth="floor", smooth_value=0.1), BLEU(smooth="add-k", smooth_value=1)):
        stats = metric.stats(hyps, [[r] for r in refs])
        with kernel_choice("c"):
            ours = [float(x) for x in metric.sentence_scores(stats)]
        with kernel_choice("reference"):
            ref_path = [float(x) for x in metric.sentence_scores(stats)]
        assert ours == ref_path
        if metric.config.smooth == "exp":
            assert ours == [peer.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
        else:
            sb = sacrebleu.BLEU(effective_order=True, smooth_method=metric.config.smooth,
                                smooth_value=metric.config.smooth_value)
            assert ours == [sb.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    sbp = BLEUSBP()
    st_ = sbp.stats(hyps, [[r] for r in refs])
    with kernel_choice("c"):
        a = sbp.sentence_scores(st_)
    with kernel_choice("reference"):
        b = sbp.sentence_scores(st_)
    assert a.tobytes() == b.tobytes()
    import bleu_reference
    assert a.tobytes() == bleu_reference.bleu(st_.values, 4, "exp", None, True, None, strict=True).tobytes()  # eff: yes


@pytest.mark.parametrize("kernels", ["c", "reference"])
def test_add_k_effective_order_counts_the_smoothed_totals(kernels):
    """sacreBLEU adds k to order n > 1 before its 'total == 0: stop' test (docs/definitions.md §1.5): "a x y" vs "a b c" has
    matches 1/0/0/0 of totals 3/2/1/0; smoothed, orders 2-4 are 1/3, 1/2, 1/1, so all four orders count:
    BLEU = (1/3 · 1/3 · 1/2 · 1)^(1/4) = 48.549 (mtscore gave (1/18)^(1/3) = 38.157 before: three orders)."""
    if kernels == "c" and fast._ckernel is None:
        pytest.skip("the compiled extension is not built")
    m = BLEU(smooth="add-k")
    with kernel_choice(kernels):
        got = float(m.sentence_scores(m.stats(["a x y"], [["a b c"]]))[0])
    assert got == pytest.approx(100 * (1 / 18) ** 0.25, abs=1e-12)
    assert got == sacrebleu.BLEU(effective_order=True, smooth_method="add-k").sentence_score("a x y", ["a b c"]).score
