"""Integer encoding of tokenized text: flat token ids plus offsets (ragged arrays)."""
from .encode import Ragged, Vocab, encode_lines, ngram_ids

__all__ = ["Ragged", "Vocab", "encode_lines", "ngram_ids"]
