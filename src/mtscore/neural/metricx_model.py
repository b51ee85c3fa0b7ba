"""MetricX-23 and MetricX-24 (google-research/metricx) without its code: an mT5 encoder-decoder whose score is
logit 250089 (``<extra_id_10>``) of the first decoder step (decoder input: token 0), clamped to 0..25 (lower is
better).

Inputs, as metricx's predict.py builds them, tokenized with ``max_input_length`` truncation and the final EOS
removed:

* MetricX-23: ``candidate: {mt} reference: {ref}``; QE: ``candidate: {mt} source: {src}``;
* MetricX-24 (hybrid): ``source: {src} candidate: {mt} reference: {ref}``; QE: ``source: {src} candidate: {mt}``.

The checkpoint is a transformers folder (``config.json`` and ``model.safetensors`` or ``pytorch_model.bin``, read
with safetensors or ``torch.load(weights_only=True)``); the tokenizer is mT5's (any size: one vocabulary),
from ``tokenizer=`` or the model folder or the Hugging Face cache (google/mt5-xl, -large, -base, -xxl), offline.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch

from ..errors import InputError, InvalidParameterError, plural
from . import _deps
from .comet_model import file_digest
from .locate import in_hub_cache
from .tokenization import Mt5Tokenizer

SCORE_TOKEN = 250089
TOKENIZER_NAMES = ("google/mt5-xl", "google/mt5-large", "google/mt5-base", "google/mt5-xxl", "google/mt5-small")


@dataclass
class LoadedMetricX:
    model: object
    tokenizer: object
    folder: Path
    weights: Path
    digest: str
    device: str = "cpu"
    dtype: str = "fp32"
    calls: int = 0
    class_id: str = "metricx"
    tied: bool = False  # tie_word_embeddings of config.json (the decoder output is rescaled when tied)


def make_input(version: str, qe: bool, src: str | None, mt: str, ref: str | None) -> str:
    if version == "23":
        return f"candidate: {mt} source: {src}" if qe else f"candidate: {mt} reference: {ref}"
    return f"source: {src} candidate: {mt}" if qe else f"source: {src} candidate: {mt} reference: {ref}"


def _tokenizer_folder(tokenizer: str, folder: Path, metric: str) -> Path:
    def has_tok(p: Path) -> bool:
        return (p / "spiece.model").is_file()
    if tokenizer:
        p = Path(tokenizer).expanduser()
        if p.is_dir():  # Mt5Tokenizer says what is wrong with a folder that is not mT5's tokenizer
            return p
        snap, looked = in_hub_cache(tokenizer)
        if snap is not None and has_tok(snap):
            return snap
        raise InvalidParameterError(f"{metric}: tokenizer={tokenizer!r} not found (no folder with spiece.model, "
                                    f"as mT5's; looked in {', '.join(looked) or 'no hub folder'}); mtscore never "
                                    "downloads: pass tokenizer=DIR of an mT5 tokenizer")
    if has_tok(folder):
        return folder
    looked = []
    for name in TOKENIZER_NAMES:
        snap, lk = in_hub_cache(name)
        looked += lk
        if snap is not None and has_tok(snap):
            return snap
    raise InvalidParameterError(f"{metric}: no mT5 tokenizer: the model folder has none and none is in the Hugging Face "
                                f"cache (looked in {', '.join(looked)}); pass tokenizer=DIR (any mT5 size: one vocabulary)")


def load(folder: Path, metric: str, tokenizer: str = "", precision: str = "fp32", device: str = "cpu",
         cache=None) -> LoadedMetricX:
    tf = _deps.transformers()
    cfg_path = folder / "config.json"
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{metric}: cannot read config.json ({type(exc).__name__}: {exc})", str(cfg_path)) from None
    if cfg.get("model_type") not in ("mt5", "t5") or not cfg.get("is_encoder_decoder", True):
        raise InputError(f"{metric}: config.json has model_type {cfg.get('model_type')!r}: not an mT5 "
                         "(MetricX) checkpoint", str(cfg_path))
    if int(cfg.get("vocab_size", 0)) <= SCORE_TOKEN:
        raise InputError(f"{metric}: vocab_size {cfg.get('vocab_size')} has no logit {SCORE_TOKEN} (<extra_id_10>), "
                         "which MetricX reads: not a MetricX checkpoint", str(cfg_path))
    weights = next((folder / n for n in ("model.safetensors", "pytorch_model.bin") if (folder / n).is_file()), None)
    if weights is None:
        raise InvalidParameterError(f"{metric}: {folder} has no model.safetensors or pytorch_model.bin")
    try:
        if weights.suffix == ".safetensors":
            from safetensors.torch import load_file
            sd = load_file(str(weights), device="cpu")
        else:
            sd = torch.load(str(weights), map_location="cpu", weights_only=True)
    except Exception as exc:
        raise InputError(f"{metric}: cannot read the checkpoint's weights ({type(exc).__name__}: "
                         f"{' '.join(str(exc).split())[:200]}); it must be safetensors or a PyTorch file loadable "
                         "with weights_only=True", str(weights)) from None
    config = tf.MT5Config(**{k: v for k, v in cfg.items() if k not in ("architectures", "transformers_version")})
    config.use_cache = False
    tied = bool(cfg.get("tie_word_embeddings", True))  # mT5 and MetricX: false (transformers 5 may not keep it)
    config.tie_word_embeddings = tied
    model = tf.MT5ForConditionalGeneration(config)
    if not tied and model.lm_head.weight is model.shared.weight:
        model.lm_head.weight = torch.nn.Parameter(model.shared.weight.detach().clone())
    load_weights(model, sd, tied, metric, weights)
    model.eval()
    model.requires_grad_(False)
    if precision == "bf16":
        model.to(torch.bfloat16)
    elif precision == "fp16":
        model.to(torch.float16)
    model.to(device)
    tdir = _tokenizer_folder(tokenizer, folder, metric)
    tok = Mt5Tokenizer(tdir, metric)
    if len(tok) > config.vocab_size:
        raise InputError(f"{metric}: tokenizer mismatch: {plural(len(tok), 'token')}, the embedding has {plural(config.vocab_size, 'row')}",
                         str(tdir))
    out = LoadedMetricX(model, tok, folder, weights, file_digest(weights, cache), device, precision)
    out.tied = tied
    return out


# MT5's encoder and decoder read their input embeddings from ``shared`` (one module, whatever
# tie_word_embeddings says: that flag ties the output layer only); save_pretrained keeps one copy of tied tensors
_FROM_SHARED = ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight")


def load_weights(model, sd: dict, tied: bool, metric: str, weights: Path) -> None:
    """Load ``sd`` into ``model`` by parameter name: every parameter comes from the checkpoint or is derived
    from ``shared`` as transformers' MT5 derives it (the input embeddings always, ``lm_head`` when tied and
    absent); a parameter that would stay at its random initialisation is an error naming it."""
    own = model.state_dict()
    derived = set(_FROM_SHARED) | ({"lm_head.weight"} if tied and "lm_head.weight" not in sd else set())
    unexpected = [k for k in sd if k not in own]
    if unexpected:
        raise InputError(f"{metric}: the weights do not fit an mT5 with this config.json ({plural(len(unexpected), 'unexpected tensor')}, "
                         f"e.g. {unexpected[:2]}): a checkpoint of another architecture", str(weights))
    if "shared.weight" not in sd:
        alias = next((k for k in _FROM_SHARED if k in sd), None)
        if alias is None:
            raise InputError(f"{metric}: parameter shared.weight (the input embedding) is not in the checkpoint: "
                             "it would stay at its random initialisation", str(weights))
        sd = {**sd, "shared.weight": sd[alias]}
    for k in own:
        if k not in sd and k not in derived:
            raise InputError(f"{metric}: parameter {k} is not in the checkpoint: it would stay at its random "
                             "initialisation (config.json says tie_word_embeddings: "
                             f"{str(tied).lower()})", str(weights))
        if k in sd and tuple(sd[k].shape) != tuple(own[k].shape):
            raise InputError(f"{metric}: weight {k} has shape {tuple(sd[k].shape)}, config.json says "
                             f"{tuple(own[k].shape)}", str(weights))
    for k in _FROM_SHARED:
        if k in sd and not torch.equal(sd[k], sd["shared.weight"]):
            raise InputError(f"{metric}: parameter {k} differs from shared.weight; MT5 reads its input embeddings "
                             "from shared (one tensor)", str(weights))
    with torch.no_grad():
        for name, p in model.named_parameters(remove_duplicate=False):
            if name in sd:
                p.copy_(sd[name].to(p.dtype))
    model.encoder.set_input_embeddings(model.shared)
    model.decoder.set_input_embeddings(model.shared)
    if tied and "lm_head.weight" not in sd:
        model.lm_head.weight = model.shared.weight
    if model.encoder.embed_tokens.weight is not model.shared.weight:
        raise InputError(f"{metric}: the encoder's input embedding is not shared.weight after loading "
                         "(transformers changed MT5's layout?)", str(weights))


def tokenize(m: LoadedMetricX, texts: list[str], max_len: int) -> list[list[int]]:
    return [x[:-1] for x in m.tokenizer.encode(texts, max_len)]  # metricx's _remove_eos


def predict(m: LoadedMetricX, seqs: list[list[int]]) -> torch.Tensor:
    n = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), n), dtype=torch.long)
    mask = torch.zeros((len(seqs), n), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, :len(s)] = 1
    ids, mask = ids.to(m.device), mask.to(m.device)
    m.calls += 1
    model = m.model
    dec = forward(model, ids, mask)
    if getattr(m, "tied", False):
        dec = dec * (model.config.d_model ** -0.5)
    logits = model.lm_head(dec)
    return torch.clamp(logits[:, 0, SCORE_TOKEN].float(), 0, 25)


# -- the mT5 forward pass ------------------------------------------------------------------------------------
#
# MetricX's predict.py runs transformers 4.30.2's T5 (eager attention): computed here step for step on the
# parameters of the loaded MT5 modules, so that the float32 (and bf16) arithmetic is that one whatever
# transformers is installed (transformers 5 can also route T5 to other attention kernels, or hub kernels for
# its activations). docs/neural-metrics.md, "Known answers", has the measured agreement.

def forward(model, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The decoder's last hidden state ``(batch, 1, d_model)`` for decoder input token 0, as MetricX's
    MT5ForRegression computes it: the encoder over ``ids`` (``mask``: 1 for tokens, 0 for padding), then one
    decoder step attending to it."""
    cfg = model.config
    dtype = model.shared.weight.dtype
    big = torch.finfo(dtype).min
    enc_mask = (1.0 - mask[:, None, None, :].to(dtype)) * big  # transformers' extended attention mask
    h = model.shared(ids)
    bias = None
    for block in model.encoder.block:
        h, bias = _self_attention_layer(block.layer[0], h, bias, enc_mask, cfg, bidirectional=True)
        h = _feed_forward_layer(block.layer[1], h, cfg)
    enc = _layer_norm(model.encoder.final_layer_norm, h, cfg.layer_norm_epsilon)
    h = model.shared(torch.zeros((ids.shape[0], 1), dtype=torch.long, device=ids.device))
    dec_mask = torch.zeros((ids.shape[0], 1, 1, 1), dtype=dtype, device=ids.device)  # one step: attends to itself
    bias = cross_bias = None
    for block in model.decoder.block:
        h, bias = _self_attention_layer(block.layer[0], h, bias, dec_mask, cfg, bidirectional=False)
        h, cross_bias = _cross_attention_layer(block.layer[1], h, enc, cross_bias, enc_mask, cfg)
        h = _feed_forward_layer(block.layer[2], h, cfg)
    return _layer_norm(model.decoder.final_layer_norm, h, cfg.layer_norm_epsilon)


def _fp16_clamp(h: torch.Tensor) -> torch.Tensor:
    if h.dtype != torch.float16:
        return h
    top = torch.finfo(h.dtype).max
    clamp = torch.where(torch.isinf(h).any(), top - 1000, top)
    return torch.clamp(h, min=-clamp, max=clamp)


def _layer_norm(ln, h: torch.Tensor, eps: float) -> torch.Tensor:
    """T5's RMS layer norm: the variance in float32, no mean, no bias."""
    variance = h.to(torch.float32).pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(variance + eps)
    if ln.weight.dtype in (torch.float16, torch.bfloat16):
        h = h.to(ln.weight.dtype)
    return ln.weight * h


def _bucket(relative_position: torch.Tensor, bidirectional: bool, num_buckets: int, max_distance: int):
    import math
    buckets = 0
    if bidirectional:
        num_buckets //= 2
        buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    large = max_exact + (torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, relative_position, large)


def _attention(att, x: torch.Tensor, kv: torch.Tensor, bias: torch.Tensor, cfg) -> torch.Tensor:
    b = x.shape[0]
    heads, dk = cfg.num_heads, cfg.d_kv

    def shape(t):
        return t.view(b, -1, heads, dk).transpose(1, 2)
    q, k, v = shape(att.q(x)), shape(att.k(kv)), shape(att.v(kv))
    scores = torch.matmul(q, k.transpose(3, 2))
    scores += bias
    weights = torch.nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
    out = torch.matmul(weights, v).transpose(1, 2).contiguous().view(b, -1, heads * dk)
    return att.o(out)


def _self_attention_layer(layer, h, bias, mask, cfg, bidirectional: bool):
    att = layer.SelfAttention
    x = _layer_norm(layer.layer_norm, h, cfg.layer_norm_epsilon)
    if bias is None:  # the first block's relative position bias (plus the mask), shared by the later blocks
        n = h.shape[1]
        pos = torch.arange(n, dtype=torch.long, device=h.device)
        # the bucket of each of the 2n-1 distances key - query once (not of each of the n*n pairs), then the
        # pairs' buckets looked up by their distance: the same integers as _bucket over the n*n matrix
        distances = torch.arange(-(n - 1), n, dtype=torch.long, device=h.device)
        per_distance = _bucket(distances, bidirectional, cfg.relative_attention_num_buckets,
                               cfg.relative_attention_max_distance)
        buckets = per_distance[pos[None, :] - pos[:, None] + (n - 1)]
        bias = att.relative_attention_bias(buckets).permute([2, 0, 1]).unsqueeze(0) + mask
    return _fp16_clamp(h + _attention(att, x, x, bias, cfg)), bias


def _cross_attention_layer(layer, h, enc, bias, mask, cfg):
    att = layer.EncDecAttention
    x = _layer_norm(layer.layer_norm, h, cfg.layer_norm_epsilon)
    if bias is None:  # no relative positions across: zeros plus the encoder mask
        bias = torch.zeros((1, cfg.num_heads, h.shape[1], enc.shape[1]), device=h.device, dtype=h.dtype) + mask
    return _fp16_clamp(h + _attention(att, x, enc, bias, cfg)), bias


def _act(ff, x: torch.Tensor, name: str) -> torch.Tensor:
    if name == "gelu_new":  # transformers' NewGELUActivation (mT5's gated-gelu)
        import math
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
    if name == "relu":
        return torch.nn.functional.relu(x)
    return ff.act(x)


def _feed_forward_layer(layer, h, cfg):
    ff = layer.DenseReluDense
    x = _layer_norm(layer.layer_norm, h, cfg.layer_norm_epsilon)
    name = getattr(cfg, "dense_act_fn", "")
    if hasattr(ff, "wi_0"):  # gated (mT5: gated-gelu)
        x = _act(ff, ff.wi_0(x), name) * ff.wi_1(x)
    else:
        x = _act(ff, ff.wi(x), name)
    if x.dtype != ff.wo.weight.dtype:
        x = x.to(ff.wo.weight.dtype)
    return _fp16_clamp(h + ff.wo(x))
