"""BLEU as ``nltk.translate.bleu_score`` computes it (``corpus_bleu``, ``sentence_bleu``, Chen & Cherry smoothing
methods 0-7 of ``SmoothingFunction``), for ``BLEU(compat="nltk")`` and as library functions.

Definitions (NLTK 3.9-3.10, the version pinned in the ``test`` extra):

* input: token lists (mtscore splits each line on whitespace after its tokenizer; compat nltk defaults to
  ``tokenize=none``, i.e. NLTK's usual ``line.split()``);
* modified precision of order n per sentence: clipped matches / max(1, hypothesis n-grams) - the max(1, .) is per
  sentence, so a short sentence adds 1 to the corpus denominator of an order it has no n-grams of;
* reference length: the closest reference length, ties to the shorter; BP = 1 if c > r, 0 if c = 0, else
  exp(1 - r/c);
* corpus BLEU returns 0 when there is no unigram match at all; otherwise the smoothed precisions p_n and
  BLEU = BP * exp(fsum(w_n * log p_n over p_n > 0)) - precisions that are still 0 are skipped;
* smoothing (epsilon 0.1, alpha 5, k 5 by default): 0 = zero precisions become the smallest float (with a
  warning in NLTK; the score is then tiny but not 0); 1 = (0 + epsilon)/den for zero counts; 2 = add one to
  numerator and denominator of orders >= 2; 3 = NIST geometric: the i-th zero-count order gets 1/(2^i * den);
  4 = like 3 with 1/(2^i * k / ln(hyp_len)); 5 = average of the neighbouring orders' precisions (uses the 5-gram
  precision); 6 = interpolation with the order-2 extrapolation (needs a non-zero trigram precision); 7 = 4 then 5.
* NLTK quirks kept on purpose: in ``corpus_bleu`` the methods 4-7 receive the *last* sentence's hypothesis and
  references (method 5 takes its 5-gram precision, method 6 its n-gram counts) together with the corpus
  hypothesis length; exact rational arithmetic (``Fraction``) where NLTK keeps Fractions, floats where it mixes
  floats in.

The corpus statistics therefore carry "last sentence" columns that are non-zero on the last row only (so that the
sum over a corpus carries them); under resampling those columns follow the last row's weight - a documented
approximation of NLTK's (order-dependent) definition.
"""
from __future__ import annotations

import math
import sys
import warnings
from collections import Counter
from fractions import Fraction
from typing import Sequence

import numpy as np

from ..errors import InvalidParameterError, plural

NLTK_METHODS = tuple(f"method{i}" for i in range(8))


class _Raw:
    """NLTK's ``Fraction(num, den, _normalize=False)``: the value of num/den, but num and den kept raw."""

    __slots__ = ("num", "den", "value")

    def __init__(self, num: int, den: int):
        self.num, self.den = int(num), int(den)
        self.value = Fraction(self.num, self.den)


def _ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)) if len(tokens) >= n else Counter()


def modified_precision(references: Sequence[Sequence[str]], hypothesis: Sequence[str], n: int) -> tuple[int, int]:
    """(clipped matches, max(1, hypothesis n-grams)) of order n."""
    counts = _ngrams(hypothesis, n)
    max_counts: dict = {}
    for ref in references:
        rc = _ngrams(ref, n)
        for g in counts:
            max_counts[g] = max(max_counts.get(g, 0), rc[g])
    num = sum(min(c, max_counts[g]) for g, c in counts.items())
    return num, max(1, sum(counts.values()))


def closest_ref_length(references, hyp_len: int) -> int:
    return min((len(r) for r in references), key=lambda r: (abs(r - hyp_len), r))


def brevity_penalty(closest_ref_len, hyp_len) -> float:
    if hyp_len > closest_ref_len:
        return 1
    if hyp_len == 0:
        return 0
    return math.exp(1 - closest_ref_len / hyp_len)


def columns(max_n: int) -> tuple[str, ...]:
    return (("hyp_len", "ref_len") + tuple(f"match_{i}" for i in range(1, max_n + 1))
            + tuple(f"total_{i}" for i in range(1, max_n + 1))
            + ("match5_own", "total5_own", "last_hyp_len", "last_match5", "last_total5"))


def segment_stats(hypothesis: Sequence[str], references: Sequence[Sequence[str]], max_n: int) -> list[float]:
    """Per-sentence statistics (``columns(max_n)``; the ``last_*`` columns are zero here)."""
    row = [len(hypothesis), closest_ref_length(references, len(hypothesis)) if references else 0]
    mp = [modified_precision(references, hypothesis, i) for i in range(1, max_n + 1)]
    row += [m[0] for m in mp] + [m[1] for m in mp]
    m5 = modified_precision(references, hypothesis, 5)
    return row + [m5[0], m5[1], 0, 0, 0]


def corpus_stats(hyps_tokens, refs_tokens, max_n: int) -> np.ndarray:
    """[N, C] statistics; the last row also carries the last sentence's length and 5-gram precision."""
    if len(hyps_tokens) != len(refs_tokens):
        raise InvalidParameterError(f"{plural(len(hyps_tokens), 'hypothesis', 'hypotheses')} but {plural(len(refs_tokens), 'reference set')}")
    rows = [segment_stats(h, r, max_n) for h, r in zip(hyps_tokens, refs_tokens)]
    out = np.array(rows, dtype=np.float64).reshape(len(rows), len(columns(max_n)))
    if len(rows):
        out[-1, -3:] = [out[-1, 0], out[-1, -5], out[-1, -4]]
    return out


def _smooth(p_n: list, method: int, hyp_len: int, last_len: int, last_m5: tuple[int, int],
            epsilon: float, alpha: float, k: float) -> list:
    """Apply NLTK's smoothing ``method`` to the list of _Raw precisions; returns Fractions / floats."""
    if method == 0:
        out = []
        for i, p in enumerate(p_n):
            if p.num != 0:
                out.append(p.value)
            else:
                out.append(sys.float_info.min)
        return out
    if method == 1:
        return [(p.num + epsilon) / p.den if p.num == 0 else p.value for p in p_n]
    if method == 2:
        return [_Raw(p.num + 1, p.den + 1).value if i != 0 else p.value for i, p in enumerate(p_n)]
    if method == 3:
        out, inc = [], 1
        for p in p_n:
            if p.num == 0:
                out.append(1 / (2 ** inc * p.den))
                inc += 1
            else:
                out.append(p.value)
        return out
    if method == 4:
        return _method4(p_n, hyp_len or last_len, k)
    if method == 5:
        return _method5([p.value for p in p_n], last_m5)
    if method == 6:
        return _method6(p_n, last_len, alpha)
    if method == 7:
        vals = _method4(p_n, hyp_len or last_len, k)
        return _method5(vals, last_m5)
    raise InvalidParameterError.choice("smoothing", f"method{method}", NLTK_METHODS)


def _method4(p_n, hyp_len, k):
    out, inc = [], 1
    for p in p_n:
        if p.num == 0 and hyp_len > 1:
            numerator = 1 / (2 ** inc * k / math.log(hyp_len))
            out.append(numerator / p.den)
            inc += 1
        else:
            out.append(p.value)
    return out


def _method5(vals, last_m5):
    nxt = list(vals) + [_Raw(*last_m5).value]
    out = list(vals)
    prev = vals[0] + 1
    for i in range(len(out)):
        out[i] = (prev + out[i] + nxt[i + 1]) / 3
        prev = out[i]
    return out


def _method6(p_n, last_len, alpha):
    if len(p_n) < 3 or not p_n[2].value:
        raise InvalidParameterError("smoothing method6 (NLTK): needs a non-zero trigram precision "
                                    "(NLTK asserts this)")
    vals = [p.value for p in p_n]
    for i in range(2, len(vals)):
        pi0 = 0 if vals[i - 2] == 0 else vals[i - 1] ** 2 / vals[i - 2]
        m = p_n[i].num
        n_grams = max(0, last_len - i)  # (i+1)-grams of the last hypothesis
        vals[i] = (m + alpha * pi0) / (n_grams + alpha)
    return vals


def score_stats(summed, weights_list, method: int = 0, epsilon: float = 0.1, alpha: float = 5, k: float = 5,
                auto_reweigh: bool = False) -> list[float]:
    """NLTK corpus BLEU (0..1) from summed statistics, one value per weight vector."""
    s = np.asarray(summed, dtype=np.float64)
    max_n = (len(s) - 7) // 2
    hyp_len, ref_len = int(s[0]), int(s[1])
    nums = [int(x) for x in s[2:2 + max_n]]
    dens = [int(x) for x in s[2 + max_n:2 + 2 * max_n]]
    last_len, last_m5 = int(s[-3]), (int(s[-2]), int(s[-1]))
    need = max(len(w) for w in weights_list)
    if need > max_n:
        raise InvalidParameterError(f"weights: {need} orders, but the statistics have {max_n}")
    if nums[0] == 0:
        return [0] * len(weights_list)
    bp = brevity_penalty(ref_len, hyp_len)
    p_n = [_Raw(nums[i], max(dens[i], 0)) if dens[i] > 0 else _Raw(0, 1) for i in range(need)]
    if method == 0 and any(p.num == 0 for p in p_n):
        warnings.warn("NLTK BLEU without smoothing: a zero n-gram count makes the score (nearly) 0")
    vals = _smooth(p_n, method, hyp_len, last_len, last_m5, epsilon, alpha, k)
    out = []
    for w in weights_list:
        w = tuple(w)
        if auto_reweigh and hyp_len < 4 and w == (0.25, 0.25, 0.25, 0.25):
            w = (1 / hyp_len,) * hyp_len
        terms = (wi * math.log(p) for wi, p in zip(w, vals) if p > 0)
        out.append(bp * math.exp(math.fsum(terms)))
    return out


def _weights_list(weights):
    try:
        weights[0][0]
    except (TypeError, IndexError):
        return [tuple(weights)], True
    return [tuple(w) for w in weights], False


def _method_number(smoothing) -> int:
    if smoothing is None:
        return 0
    if isinstance(smoothing, int) and 0 <= smoothing <= 7:
        return smoothing
    if isinstance(smoothing, str) and smoothing in NLTK_METHODS:
        return int(smoothing[-1])
    raise InvalidParameterError.choice("smoothing", str(smoothing), NLTK_METHODS)


def corpus_bleu(list_of_references, hypotheses, weights=(0.25, 0.25, 0.25, 0.25), smoothing=None,
                auto_reweigh: bool = False, epsilon: float = 0.1, alpha: float = 5, k: float = 5):
    """``nltk.translate.bleu_score.corpus_bleu`` on token lists; ``weights`` may be a list of weight vectors
    (then a list of scores). ``smoothing``: 0-7 or "method0".."method7"."""
    wl, single = _weights_list(weights)
    max_n = max(len(w) for w in wl)
    st = corpus_stats(hypotheses, list_of_references, max(max_n, 1)).sum(axis=0)
    res = score_stats(st, wl, _method_number(smoothing), epsilon, alpha, k, auto_reweigh)
    return res[0] if single else res


def sentence_bleu(references, hypothesis, weights=(0.25, 0.25, 0.25, 0.25), smoothing=None,
                  auto_reweigh: bool = False, epsilon: float = 0.1, alpha: float = 5, k: float = 5):
    """``nltk.translate.bleu_score.sentence_bleu`` (= corpus_bleu of one sentence)."""
    return corpus_bleu([references], [hypothesis], weights, smoothing, auto_reweigh, epsilon, alpha, k)
