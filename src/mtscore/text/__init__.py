"""Integer encoding of tokenized text: flat token ids plus offsets (ragged arrays).

The names are loaded on first use (PEP 562): ``mtscore.text.fast`` (the compiled kernels' wrappers) is
imported by a small BLEU run, which never loads NumPy; :mod:`mtscore.text.encode` needs it."""

__all__ = ["Ragged", "Vocab", "encode_lines", "ngram_ids"]


def __getattr__(name):
    if name in __all__:
        from . import encode
        return getattr(encode, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
