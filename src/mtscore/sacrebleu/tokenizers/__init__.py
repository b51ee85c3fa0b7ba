"""sacreBLEU's tokenizer classes (``sacrebleu.tokenizers.*``) on mtscore's tokenizers: callables
``line -> tokenized line`` with ``signature()``, under sacreBLEU's module and class names."""
from __future__ import annotations


class BaseTokenizer:
    """A tokenizer: ``tok(line)`` returns the tokens joined by single spaces."""

    _name = "none"

    def __init__(self):
        from ...tokenize import get_tokenizer
        self._fn = get_tokenizer(self._name)

    def signature(self) -> str:
        from ...tokenize import tokenizer_signature
        return tokenizer_signature(self._name)

    def __call__(self, line: str) -> str:
        return self._fn(line)


def _named(cls_name: str, name: str):
    return type(cls_name, (BaseTokenizer,), {"_name": name, "__doc__": f"sacreBLEU's {name!r} tokenizer."})
