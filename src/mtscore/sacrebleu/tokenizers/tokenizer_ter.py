"""sacreBLEU's ``TercomTokenizer`` (TER preprocessing) on :mod:`mtscore.tokenize.tercom`."""
from __future__ import annotations

from ...tokenize.tercom import tercom_tokenize


class TercomTokenizer:
    """``TercomTokenizer(normalized, no_punct, asian_support, case_sensitive)(line)`` -> tokens joined by
    single spaces; lowercased unless ``case_sensitive``."""

    # sacreBLEU's character classes (kept as its class attributes; the tokenizer in mtscore.tokenize.tercom
    # implements the same classes)
    ASIAN_PUNCT = r"([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])"
    FULL_WIDTH_PUNCT = r"([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])"

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False):
        self._normalized = normalized
        self._no_punct = no_punct
        self._asian_support = asian_support
        self._case_sensitive = case_sensitive

    def signature(self) -> str:
        return "tercom"

    def __call__(self, sent: str) -> str:
        return tercom_tokenize(sent, self._normalized, self._no_punct,
                               self._asian_support, self._case_sensitive)
