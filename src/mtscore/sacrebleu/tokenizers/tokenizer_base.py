"""sacreBLEU's ``sacrebleu.tokenizers.tokenizer_base``: the ``BaseTokenizer`` class."""
from . import BaseTokenizer

__all__ = ["BaseTokenizer"]
