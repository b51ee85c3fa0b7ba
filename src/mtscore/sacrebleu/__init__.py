"""A drop-in for sacreBLEU 2.6's Python API: ``import mtscore.sacrebleu as sacrebleu``.

``corpus_bleu``, ``sentence_bleu``, ``corpus_chrf``, ``sentence_chrf``, ``corpus_ter``, ``sentence_ter``,
``raw_corpus_bleu``, the ``BLEU``/``CHRF``/``TER`` classes (``corpus_score``, ``sentence_score``,
``get_signature``, ``BLEU.compute_bleu``) and their score objects take sacreBLEU's arguments -- references
stream-major, one list per reference stream, ``None`` for a missing reference -- and return the very
numbers sacreBLEU returns, computed by mtscore's engines. ``__version__`` is the sacreBLEU API version
imitated (``"2.6.0"``, for code that checks it); signatures say ``version:mtscore-<mtscore version>``.
Environment: ``SACREBLEU_SEED`` (bootstrap seed, default 12345) is honoured here, as sacreBLEU does.

Also sacreBLEU's test-set API (``DATASETS``, ``get_source_file``, ``get_reference_files``, ``download_test_set``,
``get_available_testsets``, ``get_langpairs_for_testset``, ``smart_open``, ``SACREBLEU_DIR``; modules
``utils`` and ``dataset``), on the files of sacreBLEU's local cache -- mtscore never downloads -- and its
command line, :mod:`mtscore.sacrebleu.sacrebleu` (``main``), also run as ``python -m mtscore.sacrebleu``.
See docs/sacrebleu.md.
"""
from __future__ import annotations

from .._version import __version__ as MTSCORE_VERSION
from . import compat, dataset, metrics, utils
from .dataset import DATASETS
from .compat import (corpus_bleu, corpus_chrf, corpus_ter, raw_corpus_bleu, sentence_bleu, sentence_chrf,
                     sentence_ter)
from .metrics import (BLEU, CHRF, TER, BLEUScore, CHRFScore, METRICS, SIGNATURE_VERSION, Score, Signature,
                      TERScore)
from .metrics.helpers import extract_char_ngrams, extract_word_ngrams
from .utils import (SACREBLEU_DIR, download_test_set, get_available_testsets, get_langpairs_for_testset,
                    get_reference_files, get_source_file, smart_open)

from .version import __version__  # "2.6.0": the sacreBLEU API this module imitates
__description__ = "mtscore's drop-in for sacreBLEU's Python API (BLEU, chrF, TER)"

__all__ = ["BLEU", "CHRF", "TER", "BLEUScore", "CHRFScore", "TERScore", "Score", "Signature", "METRICS",
           "corpus_bleu", "raw_corpus_bleu", "sentence_bleu", "corpus_chrf", "sentence_chrf", "corpus_ter",
           "sentence_ter", "extract_word_ngrams", "extract_char_ngrams", "compat", "metrics", "__version__",
           "MTSCORE_VERSION", "SIGNATURE_VERSION", "DATASETS", "SACREBLEU_DIR", "smart_open", "download_test_set",
           "get_source_file", "get_reference_files", "get_available_testsets", "get_langpairs_for_testset",
           "dataset", "utils"]
