"""MetricX and the batch: what depends on it and by how much (docs/neural-metrics.md, "Batching").

The arithmetic does not depend on the batch: run in float64, a segment's score alone and in a padded batch of
19 agree to 1e-12 (padding, attention mask and the position of the score token are right). In float32 they
differ by the float32 rounding of the CPU's matrix kernels, whose accumulation order depends on the matrix
shape (rows = batch x length): the bound checked here is the model's own float32 error, measured against the
float64 run of the same checkpoint, not a number written down. The checkpoint is the tiny random MetricX of
tests/test_neural_metricx.py (regenerated from its seed, sha256 checked).
"""
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

import neural_tiny_mt5  # noqa: E402

from mtscore.neural import metricx_model as mx  # noqa: E402
from mtscore.neural import runner  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
MKA = json.loads((FIX / "metricx_known_answers.json").read_text(encoding="utf-8"))
TRIPLES = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))["triples"]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    d = tmp_path_factory.mktemp("metricx-batches") / "tiny-metricx"
    assert neural_tiny_mt5.build(d, MKA["seed"]) == MKA["safetensors_sha256"], "regenerated checkpoint differs"
    return mx.load(d, "metricx", tokenizer=str(FIX / "mt5-tokenizer"))


def _scores(m, batch_size):
    items = [(mx.make_input("24", False, t["src"], t["mt"], t["ref"]),) for t in TRIPLES]
    return runner.score(m, items, batch_size, "metricx", use_cache=False, max_len=1536)[0]


def test_batch_dependence_is_float32_rounding_only(loaded):
    b1, b16 = _scores(loaded, 1), _scores(loaded, 16)
    m64 = mx.load(loaded.folder, "metricx", tokenizer=str(FIX / "mt5-tokenizer"))
    m64.model.double()
    e1, e16 = _scores(m64, 1), _scores(m64, 16)
    assert np.abs(e1 - e16).max() <= 1e-12  # the arithmetic itself does not depend on the batch
    f32_error = np.abs(b1 - e1).max()  # the model's float32 error on these inputs
    batch_diff = np.abs(b1 - b16).max()
    print(f"\nMetricX tiny checkpoint: |batch 1 - batch 16| = {batch_diff:.3g}, |float32 - float64| = {f32_error:.3g}")
    assert batch_diff <= f32_error
    assert len({round(x, 3) for x in e1 if x > 0}) >= 4  # not all clamped: the comparison means something


def test_nan_weights_are_a_one_line_error(loaded, tmp_path):
    """A MetricX checkpoint with a NaN weight (a diverged or corrupt file) is refused when loaded, in one line
    naming the weight, instead of clamped NaN scores."""
    import shutil

    from safetensors.torch import load_file, save_file

    from mtscore.errors import InputError
    from mtscore.metrics.registry import get_metric
    d = tmp_path / "nan-metricx"
    d.mkdir()
    shutil.copy(loaded.folder / "config.json", d / "config.json")
    sd = load_file(str(loaded.folder / "model.safetensors"))
    sd["decoder.final_layer_norm.weight"][2] = float("inf")
    save_file(sd, str(d / "model.safetensors"))
    (tmp_path / "s.txt").write_text("a\n", encoding="utf-8")
    m = get_metric("metricx", model=str(d), sources=str(tmp_path / "s.txt"), tokenizer=str(FIX / "mt5-tokenizer"),
                   cache=False)
    with pytest.raises(InputError, match=r"weight decoder.final_layer_norm.weight has 1 NaN or infinite value") as e:
        m.stats(["x"], [["y"]])
    assert "\n" not in str(e.value)
