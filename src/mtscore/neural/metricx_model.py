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
    config._attn_implementation = "eager"  # as metricx's transformers ran T5 (sdpa differs at 1e-5 on these logits)
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
    enc = model.encoder(input_ids=ids, attention_mask=mask, return_dict=True).last_hidden_state
    dec_in = torch.zeros((len(seqs), 1), dtype=torch.long, device=m.device)
    dec = model.decoder(input_ids=dec_in, encoder_hidden_states=enc, encoder_attention_mask=mask,
                        use_cache=False, return_dict=True).last_hidden_state
    if getattr(m, "tied", False):
        dec = dec * (model.config.d_model ** -0.5)
    logits = model.lm_head(dec)
    return torch.clamp(logits[:, 0, SCORE_TOKEN].float(), 0, 25)
