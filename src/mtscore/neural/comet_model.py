"""COMET models rebuilt without unbabel-comet or pytorch-lightning.

A COMET checkpoint folder holds ``hparams.yaml`` (the model's class and sizes) and ``checkpoints/model.ckpt``
(a PyTorch Lightning checkpoint: its ``state_dict`` holds every weight, the encoder's included). The module
tree below has COMET's parameter names (``encoder.model.*``, ``layerwise_attention.*``, ``estimator.ff.*``,
``hidden2tag.*``), so the state dict loads as it is; the encoder is transformers' XLM-R (or XLM-R XL) built
from the config of the encoder the checkpoint names, whose tokenizer is used as is. The arithmetic follows
unbabel-comet 2.2.7 step by step (layer-wise scalar mix with softmax or sparsemax and optional masked layer
norm; average/max/CLS pooling; the estimator on ``[mt, ref, mt*ref, |mt-ref|, mt*src, |mt-src|]``; the unified
model's joint input ``<s> mt </s></s> src </s>`` and CLS embedding; XCOMET's weighted scores and error spans).
The encoder's forward pass is computed here (:func:`encoder_layers`), as unbabel-comet's transformers runs it.

Importing this module imports torch: :mod:`mtscore.metrics.comet` imports it only when a model is loaded.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

from ..errors import InputError, InvalidParameterError, plural
from . import _deps
from .locate import encoder_folder
from .tokenization import XlmrTokenizer

REGRESSION = "regression_metric"
REFERENCELESS = "referenceless_regression_metric"
UNIFIED = "unified_metric"
XCOMET = "xcomet_metric"
SUPPORTED = (REGRESSION, REFERENCELESS, UNIFIED, XCOMET)


def sparsemax(x: torch.Tensor, dim: int = 0) -> torch.Tensor:
    """Sparsemax (Martins & Astudillo 2016), computed as entmax's ``sparsemax`` (COMET's dependency) does it."""
    max_val, _ = x.max(dim=dim, keepdim=True)
    x = x - max_val
    topk, _ = torch.sort(x, dim=dim, descending=True)
    topk_cumsum = topk.cumsum(dim) - 1
    d = x.size(dim)
    rhos = torch.arange(1, d + 1, device=x.device, dtype=x.dtype)
    view = [1] * x.dim()
    view[0] = -1
    rhos = rhos.view(view).transpose(0, dim)
    support = rhos * topk > topk_cumsum
    support_size = support.sum(dim=dim).unsqueeze(dim)
    tau = topk_cumsum.gather(dim, support_size - 1)
    tau /= support_size.to(x.dtype)
    return torch.clamp(x - tau, min=0)


class LayerwiseAttention(nn.Module):
    """COMET's scalar mix of the encoder's layers: ``gamma * sum_k s_k * layer_k`` (``s = softmax(w)`` or
    ``sparsemax(w)``), each layer optionally normalised over its unmasked elements first."""

    def __init__(self, num_layers: int, layer_norm: bool, transformation: str):
        super().__init__()
        self.num_layers = num_layers
        self.layer_norm = layer_norm
        self.transform = sparsemax if transformation.startswith("sparsemax") and transformation != "sparsemax_patch" \
            else torch.softmax
        self.scalar_parameters = nn.ParameterList([nn.Parameter(torch.zeros(1)) for _ in range(num_layers)])
        self.gamma = nn.Parameter(torch.ones(1))

    def forward(self, tensors, mask):
        weights = torch.cat([p for p in self.scalar_parameters])
        normed = torch.split(self.transform(weights, dim=0), split_size_or_sections=1)
        if not self.layer_norm:
            return self.gamma * sum(w * t for w, t in zip(normed, tensors))
        mask_float = mask.float()
        broadcast_mask = mask_float.unsqueeze(-1)
        batch_size, _, input_dim = tensors[0].size()

        def _layer_norm(tensor):
            tensor_masked = tensor * broadcast_mask
            num = mask_float.sum(1) * input_dim
            mean = (tensor_masked.view(batch_size, -1).sum(1) / num).view(batch_size, 1, 1)
            variance = (((tensor_masked - mean) * broadcast_mask) ** 2).view(batch_size, -1).sum(1) / num
            return (tensor - mean) / torch.sqrt(variance + 1e-12).view(batch_size, 1, 1)

        return self.gamma * sum(w * _layer_norm(t) for w, t in zip(normed, tensors))


def _activation(name: str) -> nn.Module:
    cls = getattr(nn, str(name).title(), None)
    if cls is None:
        raise InvalidParameterError(f"comet: hparams.yaml names the activation {name!r}, which torch.nn does not have")
    return cls()


class FeedForward(nn.Module):
    def __init__(self, in_dim, hidden_sizes, activations, final_activation, out_dim=1):
        super().__init__()
        mods = [nn.Linear(in_dim, hidden_sizes[0]), _activation(activations), nn.Dropout(0.0)]
        for i in range(1, len(hidden_sizes)):
            mods += [nn.Linear(hidden_sizes[i - 1], hidden_sizes[i]), _activation(activations), nn.Dropout(0.0)]
        mods.append(nn.Linear(hidden_sizes[-1], int(out_dim)))
        if final_activation is not None:
            mods.append(_activation(final_activation))
        self.ff = nn.Sequential(*mods)

    def forward(self, x):
        return self.ff(x)


class _Encoder(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model


class CometNet(nn.Module):
    """The module tree of a COMET checkpoint (parameter names as unbabel-comet's)."""

    def __init__(self, hp: dict, encoder_model: nn.Module, class_id: str, num_labels: int = 0):
        super().__init__()
        self.encoder = _Encoder(encoder_model)
        cfg = encoder_model.config
        self.num_layers = cfg.num_hidden_layers + 1
        self.hidden = cfg.hidden_size
        self.mix = hp.get("layer", hp.get("sent_layer", "mix")) if class_id in (REGRESSION, REFERENCELESS) \
            else hp.get("sent_layer", "mix")
        if self.mix == "mix":
            self.layerwise_attention = LayerwiseAttention(self.num_layers, bool(hp.get("layer_norm", True)),
                                                          str(hp.get("layer_transformation", "softmax")))
        else:
            self.layerwise_attention = None
        in_dim = self.hidden * (6 if class_id == REGRESSION else 4 if class_id == REFERENCELESS else 1)
        self.estimator = FeedForward(in_dim, list(hp.get("hidden_sizes", [3072, 1024])), hp.get("activations", "Tanh"),
                                     hp.get("final_activation"))
        if num_labels:
            self.hidden2tag = nn.Linear(self.hidden, num_labels)

    def layers(self, ids, mask):
        return encoder_layers(self.encoder.model, ids, mask)

    def mixed(self, all_layers, mask):
        if self.layerwise_attention is not None:
            return self.layerwise_attention(all_layers, mask)
        layer = self.mix
        if not isinstance(layer, int) or not 0 <= layer < self.num_layers:
            raise InvalidParameterError(f"comet: invalid model layer {layer!r} in hparams.yaml")
        return all_layers[layer]


def encoder_layers(enc: nn.Module, ids: torch.Tensor, mask: torch.Tensor) -> tuple:
    """Every hidden state of transformers' XLM-R or XLM-R XL ``enc`` (the embeddings, then each layer's output;
    XLM-R XL's last one after its final layer norm), computed here rather than by ``enc.forward`` so that the
    float32 arithmetic is the same whatever transformers is installed: the order unbabel-comet's encoder runs
    in (transformers 4.57, scaled-dot-product attention with a boolean mask of the unpadded keys), where
    transformers 4.40 to 4.42 run another attention (eager: softmax of masked scores, then a product) whose
    sums differ in the last bits. Only the modules' parameters and torch's functions are used."""
    xl = hasattr(enc.encoder, "LayerNorm")  # XLM-R XL: pre-layer-norm blocks and a final layer norm
    emb = enc.embeddings
    pad_mask = ids.ne(emb.padding_idx).int()  # fairseq's positions: pads keep padding_idx, others count from it
    positions = (torch.cumsum(pad_mask, dim=1).type_as(pad_mask) * pad_mask).long() + emb.padding_idx
    h = emb.word_embeddings(ids) + emb.token_type_embeddings(torch.zeros_like(ids))
    h = h + emb.position_embeddings(positions)
    if not xl:
        h = emb.LayerNorm(h)
    # XLM-R's "gelu" is torch's exact gelu (transformers 5 may swap in a hub kernel for its activation module)
    act = nn.functional.gelu if enc.config.hidden_act == "gelu" else enc.encoder.layer[0].intermediate.intermediate_act_fn
    b, n = ids.shape
    keep = mask.bool()[:, None, None, :].expand(b, 1, n, n).contiguous()
    out = [h]
    for i, layer in enumerate(enc.encoder.layer):
        att = layer.attention
        x = att.self_attn_layer_norm(h) if xl else h
        a = _self_attention(att.self, x, keep, enc.config.num_attention_heads)
        a = att.output.dense(a)
        h = a + h if xl else att.output.LayerNorm(a + h)
        x = layer.LayerNorm(h) if xl else h
        f = layer.output.dense(act(layer.intermediate.dense(x)))
        h = f + h if xl else layer.output.LayerNorm(f + h)
        out.append(enc.encoder.LayerNorm(h) if xl and i == len(enc.encoder.layer) - 1 else h)
    return tuple(out)


def _self_attention(sa: nn.Module, x: torch.Tensor, keep: torch.Tensor, heads: int) -> torch.Tensor:
    b, n, d = x.shape
    hd = d // heads
    q, k, v = (proj(x).view(b, n, -1, hd).transpose(1, 2) for proj in (sa.query, sa.key, sa.value))
    a = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep, dropout_p=0.0, scale=hd ** -0.5,
                                                   is_causal=False)
    return a.transpose(1, 2).contiguous().reshape(b, n, -1).contiguous()


@dataclass
class Loaded:
    """A COMET model ready to score: the net, its tokenizer and what the signature names."""

    class_id: str
    hp: dict
    net: CometNet
    tokenizer: object
    folder: Path
    ckpt: Path
    digest: str
    max_positions: int
    input_segments: tuple = ("mt", "src", "ref")
    labels: tuple = ()
    device: str = "cpu"
    dtype: str = "fp32"
    calls: int = 0  # encoder forward passes (tests count them)
    extra: dict = field(default_factory=dict)

    @property
    def needs_reference(self) -> bool:
        return self.class_id == REGRESSION or (self.class_id in (UNIFIED,) and tuple(self.input_segments) == ("mt", "ref"))

    @property
    def uses_reference(self) -> bool:
        return self.class_id in (REGRESSION, XCOMET) or "ref" in self.input_segments


def file_digest(path: Path, cache=None) -> str:
    """sha256 of a file (memoised in the score cache when given: :func:`mtscore.neural.cache.file_digest`)."""
    from .cache import file_digest as memoised
    return memoised(path, cache)


def read_hparams(folder: Path, metric: str) -> dict:
    import yaml
    p = folder / "hparams.yaml"
    if not p.is_file():
        raise InvalidParameterError(f"{metric}: {folder} has no hparams.yaml (a COMET checkpoint folder holds "
                                    "hparams.yaml and checkpoints/model.ckpt)")
    try:
        hp = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputError(f"{metric}: hparams.yaml is not valid YAML ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''})", str(p)) from None
    except RecursionError:
        raise InputError(f"{metric}: hparams.yaml is nested too deeply to read: not a COMET checkpoint's "
                         "hyper-parameters", str(p)) from None
    if not isinstance(hp, dict) or "class_identifier" not in hp:
        raise InputError(f"{metric}: hparams.yaml has no class_identifier: not a COMET checkpoint", str(p))
    check_hparams(hp, metric, str(p))
    return hp


# the hparams.yaml keys mtscore reads, and what each must be (unbabel-comet's types)
_HP_TYPES = {"class_identifier": "str", "pretrained_model": "str", "encoder_model": "str", "pool": "str",
             "layer_transformation": "str", "activations": "str", "final_activation": "str|null",
             "layer_norm": "bool", "word_level_training": "bool", "hidden_sizes": "list of int",
             "input_segments": "list of str", "error_labels": "list of str", "layer": "int|str",
             "sent_layer": "int|str", "word_layer": "int"}


def check_hparams(hp: dict, metric: str, where: str) -> None:
    """Every key mtscore reads has the type unbabel-comet gives it: a one-line error naming the key, the
    expected type and the value otherwise (a string where a list belongs, a nested mapping ...)."""
    def ok(v, rule):
        if rule == "str":
            return isinstance(v, str)
        if rule == "str|null":
            return v is None or isinstance(v, str)
        if rule == "bool":
            return isinstance(v, bool)
        if rule == "int":
            return type(v) is int
        if rule == "int|str":
            return type(v) is int or isinstance(v, str)
        if rule == "list of int":
            return isinstance(v, list) and len(v) > 0 and all(type(x) is int and 0 < x <= 1 << 20 for x in v)
        if rule == "list of str":
            return isinstance(v, list) and all(isinstance(x, str) for x in v)
        return True
    for k, rule in _HP_TYPES.items():
        if k in hp and not ok(hp[k], rule):
            shown = repr(hp[k])
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise InputError(f"{metric}: hparams.yaml {k} must be a {rule.replace('|', ' or ')}, got "
                             f"{type(hp[k]).__name__} {shown}", where)


def read_weights(ckpt: Path, metric: str) -> dict:
    """The state dict, read without executing code: safetensors, or torch.load(weights_only=True)."""
    try:
        if ckpt.suffix == ".safetensors":
            from safetensors.torch import load_file
            return load_file(str(ckpt), device="cpu")
        obj = torch.load(str(ckpt), map_location="cpu", weights_only=True)
    except Exception as exc:  # corrupt, truncated, or a pickle that needs code to load
        msg = " ".join(str(exc).split())[:200]
        raise InputError(f"{metric}: cannot read the checkpoint's weights ({type(exc).__name__}: {msg}); "
                         "it must be a PyTorch checkpoint loadable with weights_only=True, or safetensors", str(ckpt)) from None
    sd = obj.get("state_dict", obj) if isinstance(obj, dict) else None
    if not isinstance(sd, dict) or not all(isinstance(v, torch.Tensor) for v in sd.values()):
        raise InputError(f"{metric}: the checkpoint holds no state_dict of tensors", str(ckpt))
    return sd


# in a checkpoint, not in the model: buffers of older transformers, the layer mix's training dropout, the
# encoder's unused pooler, the training losses' class weights
_EXTRA = (("position_ids", "dropout_mask", "dropout_fill"), ("encoder.model.pooler.", "wordloss.", "sentloss."))


def load_weights(net: nn.Module, sd: dict, metric: str, ckpt: Path, what: str) -> None:
    """Load ``sd`` into ``net`` by name: every parameter and buffer of ``net`` must come from the checkpoint
    (none may stay at its random initialisation); a tensor the model does not have is an error too."""
    own = net.state_dict()
    missing = [k for k in own if k not in sd]
    if missing:
        raise InputError(f"{metric}: parameter {missing[0]} is not in the checkpoint ({plural(len(missing), 'tensor')} "
                         f"missing): it would stay at its random initialisation (a checkpoint of another architecture or size than "
                         f"{what}?)", str(ckpt))
    unexpected = [k for k in sd if k not in own and not k.endswith(_EXTRA[0]) and not k.startswith(_EXTRA[1])]
    if unexpected:
        raise InputError(f"{metric}: the checkpoint has {plural(len(unexpected), 'tensor')} that {what} does not have "
                         f"(e.g. {unexpected[0]}): a checkpoint of another architecture or size", str(ckpt))
    bad = [k for k in own if tuple(own[k].shape) != tuple(sd[k].shape)]
    if bad:
        k = bad[0]
        raise InputError(f"{metric}: weight {k} has shape {tuple(sd[k].shape)}, the model built from hparams.yaml and "
                         f"the encoder config expects {tuple(own[k].shape)}: a checkpoint of another size", str(ckpt))
    result = net.load_state_dict({k: sd[k] for k in own}, strict=True)
    if result.missing_keys or result.unexpected_keys:  # strict=True raises first; kept as the by-name check
        raise InputError(f"{metric}: parameters not loaded: {result.missing_keys[:2]}", str(ckpt))


def load(folder: Path, metric: str, precision: str = "fp32", device: str = "cpu", cache=None,
         expect: tuple[str, ...] = SUPPORTED) -> Loaded:
    tf = _deps.transformers()
    hp = read_hparams(folder, metric)
    class_id = hp["class_identifier"]
    if class_id not in SUPPORTED:
        raise InputError(f"{metric}: class_identifier {class_id!r} is not a model mtscore runs "
                         f"(supported: {', '.join(SUPPORTED)})", str(folder / "hparams.yaml"))
    if class_id not in expect:
        raise InvalidParameterError(f"{metric}: {folder} is a {class_id} checkpoint; this metric runs "
                                    f"{' or '.join(expect)} (use the matching metric: comet, cometkiwi or xcomet)")
    ckpt = folder / "checkpoints" / "model.ckpt"
    if not ckpt.is_file() and (folder / "checkpoints" / "model.safetensors").is_file():
        ckpt = folder / "checkpoints" / "model.safetensors"
    enc_name = str(hp.get("pretrained_model", "xlm-roberta-large"))
    enc_dir = encoder_folder(enc_name, folder, metric)
    enc_kind = hp.get("encoder_model", "XLM-RoBERTa-XL" if class_id == XCOMET else "XLM-RoBERTa")
    if enc_kind == "XLM-RoBERTa":
        cfg_cls, model_cls = tf.XLMRobertaConfig, tf.XLMRobertaModel
    elif enc_kind == "XLM-RoBERTa-XL":
        cfg_cls, model_cls = tf.XLMRobertaXLConfig, tf.XLMRobertaXLModel
    else:
        raise InputError(f"{metric}: encoder_model {enc_kind!r} is not supported (XLM-RoBERTa, XLM-RoBERTa-XL)",
                         str(folder / "hparams.yaml"))
    try:
        cfg = cfg_cls.from_pretrained(str(enc_dir), local_files_only=True)
    except Exception as exc:
        raise InputError(f"{metric}: cannot read the encoder's config.json ({type(exc).__name__}: "
                         f"{' '.join(str(exc).split())[:200]})", str(enc_dir)) from None
    tok = XlmrTokenizer(enc_dir, metric)
    word_level = class_id == XCOMET or bool(hp.get("word_level_training", False))
    labels = ()
    if word_level:
        labels = ("O", *[f"I-{x}" for x in hp.get("error_labels", ["minor", "major", "critical"])])
    encoder = model_cls(cfg, add_pooling_layer=False)
    net = CometNet(hp, encoder, class_id, num_labels=len(labels))
    sd = read_weights(ckpt, metric)
    load_weights(net, sd, metric, ckpt, f"a {class_id} on {enc_kind}")
    vocab = net.encoder.model.config.vocab_size
    if len(tok) > vocab:
        raise InputError(f"{metric}: tokenizer mismatch: the encoder's tokenizer has {plural(len(tok), 'token')}, the checkpoint's "
                         f"embedding {plural(vocab, 'row')}", str(enc_dir))
    net.eval()
    net.requires_grad_(False)
    if precision == "bf16":
        net.to(torch.bfloat16)
    elif precision == "fp16":
        net.to(torch.float16)
    net.to(device)
    segs = tuple(hp.get("input_segments") or (("mt", "src", "ref") if class_id in (UNIFIED, XCOMET) else ()))
    if class_id == XCOMET:
        segs = ("mt", "src", "ref")
    return Loaded(class_id, hp, net, tok, folder, ckpt, file_digest(ckpt, cache),
                  cfg.max_position_embeddings - 2, segs, labels, device, precision)


# -- tokenization ---------------------------------------------------------------------------------------------

def tokenize(m: Loaded, texts: list[str], offsets: bool = False):
    """Token ids (with <s> ... </s>) of each text, truncated as COMET does (max_positions - 2 tokens), and
    with ``offsets`` their character spans (:mod:`.tokenization`: the reference's, whatever transformers)."""
    return m.tokenizer.encode(texts, m.max_positions - 2, offsets=offsets)


def pad(m: Loaded, seqs: list[list[int]]):
    pad_id = m.tokenizer.pad_token_id
    n = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), n), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), n), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, :len(s)] = 1
    return ids.to(m.device), mask.to(m.device)


# -- regression (COMET-DA) ------------------------------------------------------------------------------------

def sentence_embeddings(m: Loaded, seqs: list[list[int]]) -> torch.Tensor:
    """Pooled sentence embeddings of one batch of token id lists (COMET's compute_sentence_embedding)."""
    ids, mask = pad(m, seqs)
    m.calls += 1
    all_layers = m.net.layers(ids, mask)
    emb = m.net.mixed(all_layers, mask)
    pool = m.hp.get("pool", "avg")
    pad_id = m.tokenizer.pad_token_id
    if pool == "avg":
        word = emb.float().masked_fill_(ids.eq(pad_id).unsqueeze(-1), 0.0).type_as(emb)
        sent = torch.sum(word, 1)
        sum_mask = mask.unsqueeze(-1).expand(emb.size()).float().sum(1)
        return sent / sum_mask
    if pool == "max":
        return emb.float().masked_fill_(ids.eq(pad_id).unsqueeze(-1), float("-inf")).type_as(emb).max(dim=1)[0]
    if pool == "cls":
        return emb[:, 0, :]
    if pool == "default":
        return all_layers[-1][:, 0, :]
    raise InputError(f"comet: pooling {pool!r} in hparams.yaml is not one of avg, max, cls, default", str(m.folder))


def estimate(m: Loaded, src: torch.Tensor, mt: torch.Tensor, ref: torch.Tensor | None) -> torch.Tensor:
    if m.class_id == REFERENCELESS:
        feats = torch.cat((mt, src, mt * src, torch.abs(mt - src)), dim=1)
    else:
        diff_ref = torch.abs(mt - ref)
        diff_src = torch.abs(mt - src)
        prod_ref = mt * ref
        prod_src = mt * src
        feats = torch.cat((mt, ref, prod_ref, diff_ref, prod_src, diff_src), dim=1)
    return m.net.estimator(feats.to(m.net.estimator.ff[0].weight.dtype)).view(-1)


# -- unified models (CometKiwi, XCOMET) -----------------------------------------------------------------------

def concat(m: Loaded, parts: list[list[list[int]]]):
    """COMET's concat_sequences: ``<s> a </s></s> b </s> ...`` (pad ids removed), cut at max_positions when
    too long."""
    tok = m.tokenizer
    # as unbabel-comet, every pad id is dropped first: also those of a literal "<pad>" in the text
    parts = [[[t for t in seq if t != tok.pad_token_id] for seq in p] for p in parts]
    batch = []
    n_in = len(parts)
    special = 1 + n_in * 2
    for i in range(len(parts[0])):
        lengths = [len(p[i][1:-1]) for p in parts]
        seq = parts[0][i]
        for j in range(1, n_in):
            # XLM-R's pair template (its build_inputs_with_special_tokens): <s> A </s></s> B </s>
            seq = [tok.cls_token_id, *seq[1:-1], tok.sep_token_id, tok.sep_token_id, *parts[j][i][1:-1], tok.sep_token_id]
        if sum(lengths) > m.max_positions - special:
            seq = seq[:m.max_positions]
        batch.append(list(seq))
    lengths = torch.tensor([len(s) for s in batch], dtype=torch.long)
    ids, _ = pad(m, batch)
    mask = (torch.arange(ids.shape[1])[None, :] < lengths[:, None]).to(m.device)
    return ids, mask


def unified_forward(m: Loaded, ids, mask):
    m.calls += 1
    all_layers = m.net.layers(ids, mask)
    emb = m.net.mixed(all_layers, mask)
    score = m.net.estimator(emb[:, 0, :]).view(-1)
    logits = None
    if hasattr(m.net, "hidden2tag"):
        wl = m.hp.get("word_layer", 36 if m.class_id == XCOMET else 24)
        if not isinstance(wl, int) or not 0 <= wl < m.net.num_layers:
            raise InputError(f"comet: invalid word_layer {wl!r} in hparams.yaml", str(m.folder))
        logits = m.net.hidden2tag(all_layers[wl])
    return score, logits


def decode_spans(m: Loaded, probs: torch.Tensor, ids: torch.Tensor, offsets) -> list[list[dict]]:
    """COMET's UnifiedMetric.decode (argmax labels; a span is a run of I- labels)."""
    out = []
    for i in range(len(offsets)):
        n = len(offsets[i])
        spans, in_span, span = [], False, {}
        for token_id, p, off in zip(ids[i, :n], probs[i][:n], offsets[i]):
            prob, lab = torch.topk(p, 1)
            lab = lab.item() if lab.dim() < 1 else lab[0].item()
            label = m.labels[lab]
            if label.startswith("I") and not in_span:
                in_span = True
                span = {"tokens": [token_id], "severity": label.split("-")[1], "offset": list(off), "confidence": [prob]}
            elif label.startswith("I") and in_span:
                span["tokens"].append(token_id)
                span["confidence"].append(prob)
                span["offset"][1] = off[1]
            elif label == "O" and in_span:
                spans.append(span)
                in_span, span = False, {}
        out.append([{"text": m.tokenizer.decode(s["tokens"]), "confidence": torch.concat(s["confidence"]).mean().item(),
                     "severity": s["severity"], "start": int(s["offset"][0]), "end": int(s["offset"][1])}
                    for s in spans])
    return out


_SEVERITY = {"minor": 1, "major": 5, "critical": 10}


def unified_batch(m: Loaded, mts: list[str], srcs: list[str] | None, refs: list[str] | None):
    """Scores (and XCOMET's spans) of one batch of unified-model inputs, as COMET's predict_step."""
    word = m.class_id == XCOMET or hasattr(m.net, "hidden2tag")
    if word:
        mt_ids, mt_off = tokenize(m, mts, offsets=True)
    else:
        mt_ids, mt_off = tokenize(m, mts), None
    seqs = [mt_ids]
    use_src = srcs is not None and "src" in m.input_segments
    use_ref = refs is not None and "ref" in m.input_segments
    if use_src:
        seqs.append(tokenize(m, srcs))
    if use_ref:
        seqs.append(tokenize(m, refs))
    if use_src and use_ref:
        inputs = [concat(m, seqs[:2]), concat(m, [seqs[0], seqs[2]]), concat(m, seqs)]
    else:
        inputs = [concat(m, seqs)]
    preds = [unified_forward(m, ids, mask) for ids, mask in inputs]
    spans = None
    if word:
        seq_len = max(len(x) for x in mt_ids)
        if len(preds) == 3:
            weights = m.extra.get("input_weights_spans", torch.tensor([0.1667, 0.3333, 0.5]))
            probs = torch.sum(torch.stack([nn.functional.softmax(lg.float(), dim=2)[:, :seq_len, :] * w
                                           for w, (_, lg) in zip(weights, preds)]), dim=0)
        else:
            probs = nn.functional.softmax(preds[0][1].float(), dim=2)[:, :seq_len, :]
        spans = decode_spans(m, probs, inputs[0][0], mt_off)
    if len(preds) == 3 and m.class_id == XCOMET:
        w = [0.12, 0.33, 0.33, 0.22]
        reg = torch.stack([torch.where(s.float() > 1.0, 1.0, s.float()) * wk for (s, _), wk in zip(preds, w[:3])],
                          dim=0).sum(dim=0)
        mqm = [min(25, sum(_SEVERITY.get(a["severity"], 0) for a in sent)) for sent in spans]
        mqm = (torch.tensor(mqm) * -1 + 25) / 25
        scores = reg + mqm.to(reg.device) * w[3]
    elif len(preds) == 3:
        scores = torch.stack([s.float() for s, _ in preds], dim=0).mean(dim=0)
    elif m.class_id == XCOMET:  # no reference: unbabel-comet's QE fallback (one input, the same weights in sum)
        w = [0.12, 0.33, 0.33, 0.22]
        s = preds[0][0].float()
        mqm = [min(25, sum(_SEVERITY.get(a["severity"], 0) for a in sent)) for sent in spans]
        mqm = (torch.tensor(mqm) * -1 + 25) / 25
        scores = torch.where(s > 1.0, 1.0, s) * sum(w[:3]) + mqm.to(s.device) * w[3]
    else:
        scores = preds[0][0].float()
    return scores, spans
