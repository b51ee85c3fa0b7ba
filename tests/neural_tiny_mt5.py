"""A tiny random MetricX (mT5 regression) checkpoint, made the same way by the tests and by
scripts/neural_metricx_known_answers.py (which scored it with google-research/metricx's own code).

MetricX reads its score from logit 250089 (``<extra_id_10>``) of the first decoder step, so the vocabulary
must have mT5's size (250112 rows) and the checkpoint is 32 MB: too large to commit, so it is generated from a
seed (NumPy's PCG64, whose stream is stable across NumPy versions) with plain NumPy and written with
safetensors; known_answers.json records its sha256, checked before comparing. The tokenizer (a SentencePiece
model trained on the built-in sample, T5 ids: pad 0, eos 1, unk 2) is committed in fixtures/neural/mt5-tokenizer.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

CONFIG = {
    "architectures": ["MT5ForConditionalGeneration"], "model_type": "mt5", "vocab_size": 250112, "d_model": 16,
    "d_kv": 8, "d_ff": 24, "num_layers": 2, "num_decoder_layers": 2, "num_heads": 2,
    "relative_attention_num_buckets": 8, "relative_attention_max_distance": 32, "dropout_rate": 0.0,
    "layer_norm_epsilon": 1e-6, "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False,
    "is_encoder_decoder": True, "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0,
    "initializer_factor": 1.0, "use_cache": False,
}


def shapes(c=CONFIG) -> dict[str, tuple]:
    d, h, kv, ff, V = c["d_model"], c["num_heads"], c["d_kv"], c["d_ff"], c["vocab_size"]
    out = {"shared.weight": (V, d), "lm_head.weight": (V, d)}

    def attn(prefix, rel):
        for p in "qkv":
            out[f"{prefix}.{p}.weight"] = (h * kv, d)
        out[f"{prefix}.o.weight"] = (d, h * kv)
        if rel:
            out[f"{prefix}.relative_attention_bias.weight"] = (c["relative_attention_num_buckets"], h)

    def ffn(prefix):
        out[f"{prefix}.DenseReluDense.wi_0.weight"] = (ff, d)
        out[f"{prefix}.DenseReluDense.wi_1.weight"] = (ff, d)
        out[f"{prefix}.DenseReluDense.wo.weight"] = (d, ff)
        out[f"{prefix}.layer_norm.weight"] = (d,)
    for i in range(c["num_layers"]):
        b = f"encoder.block.{i}.layer"
        attn(f"{b}.0.SelfAttention", i == 0)
        out[f"{b}.0.layer_norm.weight"] = (d,)
        ffn(f"{b}.1")
    out["encoder.final_layer_norm.weight"] = (d,)
    for i in range(c["num_decoder_layers"]):
        b = f"decoder.block.{i}.layer"
        attn(f"{b}.0.SelfAttention", i == 0)
        out[f"{b}.0.layer_norm.weight"] = (d,)
        attn(f"{b}.1.EncDecAttention", False)
        out[f"{b}.1.layer_norm.weight"] = (d,)
        ffn(f"{b}.2")
    out["decoder.final_layer_norm.weight"] = (d,)
    return out


def weights(seed: int) -> dict[str, np.ndarray]:
    """Every tensor drawn from N(0, 0.5) (layer norms 1 + N(0, 0.1)); embed_tokens: copies of ``shared``, as
    transformers saves them (MetricX's clamp to 0..25 makes about half the random scores 0)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    out = {}
    for name, shape in shapes().items():
        if name.endswith("layer_norm.weight"):
            out[name] = (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        else:
            out[name] = (0.5 * rng.standard_normal(shape)).astype(np.float32)
    out["encoder.embed_tokens.weight"] = out["shared.weight"].copy()
    out["decoder.embed_tokens.weight"] = out["shared.weight"].copy()
    return out


def build(folder: Path, seed: int) -> str:
    """Write config.json + model.safetensors into ``folder``; returns the safetensors' sha256."""
    from safetensors.numpy import save_file
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(CONFIG, indent=1, sort_keys=True))
    w = weights(seed)
    save_file({k: w[k] for k in sorted(w)}, str(folder / "model.safetensors"))
    return hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
