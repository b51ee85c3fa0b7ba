"""sacreBLEU's effective order with add-k smoothing: orders counted after k is added (SPEC §10), checked against
sacreBLEU's sentence_score (test-only peer) and the hand value."""
import pytest

from mtscore.metrics.bleu import BLEU
from mtscore.text import fast
from mtscore.text.fast import kernel_choice

sacrebleu = pytest.importorskip("sacrebleu")


@pytest.mark.parametrize("kernels", ["c", "reference"])
def test_add_k_effective_order_counts_the_smoothed_totals(kernels):
    """sacreBLEU adds k to order n > 1 before its 'total == 0: stop' test (SPEC §10): "a x y" vs "a b c" has
    matches 1/0/0/0 of totals 3/2/1/0; smoothed, orders 2-4 are 1/3, 1/2, 1/1, so all four orders count:
    BLEU = (1/3 · 1/3 · 1/2 · 1)^(1/4) = 48.549 (mtscore gave (1/18)^(1/3) = 38.157 before: three orders)."""
    if kernels == "c" and fast._ckernel is None:
        pytest.skip("the compiled extension is not built")
    m = BLEU(smooth="add-k")
    with kernel_choice(kernels):
        got = float(m.sentence_scores(m.stats(["a x y"], [["a b c"]]))[0])
    assert got == pytest.approx(100 * (1 / 18) ** 0.25, abs=1e-12)
    assert got == sacrebleu.BLEU(effective_order=True, smooth_method="add-k").sentence_score("a x y", ["a b c"]).score
