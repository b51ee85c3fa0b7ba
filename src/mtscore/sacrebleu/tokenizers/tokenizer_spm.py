"""sacreBLEU's SentencePiece tokenizers under their module and class names: ``TokenizerSPM(key="spm")`` and
``Flores101Tokenizer``, ``Flores200Tokenizer``, ``spBLEU1KTokenizer``. The model is never downloaded: it is
found where sacreBLEU caches it or given by the user (see docs/tokenizers.md); a missing model is a one-line
error saying where mtscore looked."""
from __future__ import annotations

from . import BaseTokenizer

# sacreBLEU's table of SentencePiece models: where sacreBLEU downloads each from and the signature name
# (mtscore never downloads; the model is looked up in sacreBLEU's cache, ``~/.sacrebleu/models/``)
SPM_MODELS = {
    "spm": {"url": "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model",
            "signature": "flores101"},
    "flores101": {"url": "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model",
                  "signature": "flores101"},
    "flores200": {"url": "https://tinyurl.com/flores200sacrebleuspm", "signature": "flores200"},
    "spBLEU-1K": {"url": "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model", "signature": "spBLEU-1K"},
}

__all__ = ["SPM_MODELS", "TokenizerSPM", "Flores101Tokenizer", "Flores200Tokenizer", "spBLEU1KTokenizer"]


class TokenizerSPM(BaseTokenizer):
    """``key``: ``spm`` (= flores101), ``flores101``, ``flores200`` or ``spBLEU-1K``."""

    def __init__(self, key: str = "spm"):
        self._name = key
        super().__init__()


class Flores101Tokenizer(TokenizerSPM):
    def __init__(self):
        super().__init__("flores101")


class Flores200Tokenizer(TokenizerSPM):
    def __init__(self):
        super().__init__("flores200")


class spBLEU1KTokenizer(TokenizerSPM):  # noqa: N801 (sacreBLEU's name)
    def __init__(self):
        super().__init__("spBLEU-1K")
