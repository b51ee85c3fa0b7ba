"""sacreBLEU's n-gram helpers (``sacrebleu.metrics.helpers``; ``extract_word_ngrams`` and ``extract_char_ngrams``
are also top-level names of ``sacrebleu``), with sacreBLEU's signatures and return values.

- ``extract_all_word_ngrams(line, min_order, max_order)`` -> (Counter of token tuples of every order in
  ``[min_order, max_order]``, number of whitespace-separated tokens);
- ``extract_word_ngrams(tokens, n)`` -> Counter of the order-``n`` n-grams of a token list, each joined by one space;
- ``extract_char_ngrams(line, n, include_whitespace=False)`` -> Counter of the character n-grams (whitespace
  removed first unless ``include_whitespace``);
- ``extract_all_char_ngrams(line, max_order, include_whitespace=False)`` -> a list of such Counters, orders
  1 .. ``max_order``.
"""
from __future__ import annotations

from collections import Counter
from typing import List, Sequence, Tuple

__all__ = ["extract_all_word_ngrams", "extract_word_ngrams", "extract_char_ngrams", "extract_all_char_ngrams"]


def _windows(seq, n: int):
    """The length-``n`` windows of ``seq``, left to right (none when ``n`` exceeds its length)."""
    return (seq[start:start + n] for start in range(max(len(seq) - n + 1, 0)))


def extract_all_word_ngrams(line: str, min_order: int, max_order: int) -> Tuple[Counter, int]:
    tokens = tuple(line.split())
    counts: Counter = Counter()
    for n in range(min_order, max_order + 1):
        counts.update(_windows(tokens, n))
    return counts, len(tokens)


def extract_word_ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(" ".join(w) for w in _windows(list(tokens), n))


def _squeeze(line: str, include_whitespace: bool) -> str:
    return line if include_whitespace else "".join(line.split())


def extract_char_ngrams(line: str, n: int, include_whitespace: bool = False) -> Counter:
    return Counter(_windows(_squeeze(line, include_whitespace), n))


def extract_all_char_ngrams(line: str, max_order: int, include_whitespace: bool = False) -> List[Counter]:
    text = _squeeze(line, include_whitespace)
    return [Counter(_windows(text, n)) for n in range(1, max_order + 1)]
