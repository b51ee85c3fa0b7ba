"""A tiny random-weight causal LM with a chat template, built on the spot (no download), for ``transformers serve``.

A Llama-architecture model (2 layers, width 32) with seeded random weights and a byte-level BPE tokenizer trained
here on a few sentences; its chat template wraps each turn as ``<|role|>content``. Its answers are nonsense, which
is the point: the tests see GEMBA's unparseable path and the plumbing (chat template, usage, concurrency, the
cache). One edit keeps answers short: dimension 0 of the residual stream is a constant (embeddings 100, no layer
writes to it), and the output rows of the end-of-sequence token and of the token "85" read it, so greedy decoding
stops at once (an empty answer) and sampling at higher temperatures sometimes says "85" first.
"""
from __future__ import annotations

from pathlib import Path

TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")
SAMPLE = ["Score: 85", "Major:", "Minor:", "no-error", "accuracy/mistranslation", "The cat sat on the mat.",
          "Die Katze saß auf der Matte.", "0 10 20 33 50 66 70 85 90 100", "English German Chinese source translation"]


def build(path: Path, seed: int = 38, greedy: str = "") -> Path:
    """``greedy=""``: greedy decoding stops at once (an empty answer); ``greedy="85"``: it says "85" and stops
    (dimension 1, written only by the embedding of "85", makes the end-of-sequence token follow it)."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(SAMPLE * 4, vocab_size=400, min_frequency=1,
                            special_tokens=["<s>", "</s>", "<pad>", "<|system|>", "<|user|>", "<|assistant|>"])
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    tok.chat_template = TEMPLATE
    tok.save_pretrained(path)
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=4096,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    model = LlamaForCausalLM(cfg)
    with torch.no_grad():
        model.model.embed_tokens.weight[:, 0] = 100.0
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight[0, :] = 0.0
            layer.mlp.down_proj.weight[0, :] = 0.0
        model.lm_head.weight[:, 0] = 0.0
        model.lm_head.weight[tok.eos_token_id, 0] = 2.0
        eighty_five = tok.convert_tokens_to_ids("85")
        model.lm_head.weight[eighty_five, 0] = 1.8
        if greedy == "85":
            model.lm_head.weight[eighty_five, 0] = 2.2  # "85" first ...
            model.model.embed_tokens.weight[:, 1] = 0.0
            model.model.embed_tokens.weight[eighty_five, 1] = 100.0
            for layer in model.model.layers:
                layer.self_attn.o_proj.weight[1, :] = 0.0
                layer.mlp.down_proj.weight[1, :] = 0.0
            model.lm_head.weight[:, 1] = 0.0
            model.lm_head.weight[tok.eos_token_id, 1] = 5.0  # ... then the end, right after an "85"
    model.generation_config = GenerationConfig(max_new_tokens=16, eos_token_id=tok.eos_token_id,
                                               pad_token_id=tok.pad_token_id, do_sample=False)
    model.save_pretrained(path)
    return path
