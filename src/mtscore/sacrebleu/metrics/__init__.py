"""sacreBLEU 2.6's metric classes (``BLEU``, ``CHRF``, ``TER``), score objects and signatures, on
mtscore's engines.

Per-segment statistics come from :mod:`mtscore.metrics` (the compiled BLEU/chrF/TER paths). The last
step -- a score from summed statistics -- follows sacreBLEU's scalar arithmetic operation for operation
(``math.log``/``math.exp``, Python sums, its smoothing and effective-order rules), so every attribute
of a score object (``score``, ``precisions``, ``bp`` ...) is the very float sacreBLEU returns, not just
the same rounded number. Statistics given as ``numpy.float32`` (sacreBLEU's bootstrap resamples) are
scored in float32 exactly as sacreBLEU does.

What differs from sacreBLEU: bad arguments raise :class:`mtscore.errors.InvalidParameterError` (a
``ValueError``/``TypeError``) with a one-line message instead of ``assert``/``AttributeError``;
reference streams of different lengths are an error (sacreBLEU's ``zip`` truncates silently); the
signature's ``version`` is ``mtscore-<version>``.
"""
from __future__ import annotations

import json
import logging
import math
import os
import statistics
from typing import Any, Dict, List, Optional, Sequence

from ..._version import __version__ as _MTSCORE_VERSION
from ..exceptions import (NoCachedReferencesError, NoReferencesError, ReferenceLengthError,
                          UnknownSmoothingError, UnknownTokenizerError)
from ...errors import InvalidParameterError, plural

sacrelogger = logging.getLogger("mtscore.sacrebleu")

SIGNATURE_VERSION = f"mtscore-{_MTSCORE_VERSION}"
MAX_NGRAM_ORDER = 4
_PUNCTS = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# sacreBLEU's tokenizer names (the ones mtscore lacks in this build raise a clear error when chosen)
SACREBLEU_TOKENIZERS = ("none", "zh", "13a", "intl", "char", "ja-mecab", "ko-mecab", "spm", "flores101",
                        "flores200", "spBLEU-1K")


def _my_log(num) -> float:
    # sacreBLEU's floored log: log(0) is -9999999999
    return -9999999999 if num == 0.0 else math.log(num)


def _sum_rows(rows):
    """sacreBLEU's ``sum_of_lists``: element-wise sum keeping the element type (one row: itself)."""
    if len(rows) == 1:
        return rows[0]
    size = len(rows[0])
    total = [type(rows[0][0])(0.0)] * size
    for row in rows:
        for i in range(size):
            total[i] += row[i]
    return total


def _vector_ok(sums) -> bool:
    """Whether the array paths of ``_scores_of_rows`` apply: a 2-D float32 array and NEP 50 promotion (NumPy 2),
    under which ``python_number <op> numpy.float32`` is a float32 operation in the scalar code exactly as
    ``python_number <op> float32_array`` is in the array code (NumPy 1's value-based casting makes the scalar
    operation float64 instead)."""
    import numpy as np
    return (isinstance(sums, np.ndarray) and sums.ndim == 2 and sums.dtype == np.float32 and len(sums) > 0
            and (np.float32(1.0) * 100.0).dtype == np.float32)


def _int_rows(sums) -> bool:
    """Whether BLEU's array path applies to integer rows: a 2-D int64 array whose values float64 holds exactly (the
    scalar code's ``100. * correct / total`` on numpy int64 is float64 arithmetic, as on float64 columns)."""
    import numpy as np
    return (isinstance(sums, np.ndarray) and sums.ndim == 2 and sums.dtype == np.int64 and len(sums) > 0
            and int(np.abs(sums).max()) < 2 ** 53)


def seed_from_env() -> tuple[Optional[int], str]:
    """(seed, seed string for signatures) from ``SACREBLEU_SEED`` (default 12345; ``none`` = unseeded)."""
    raw = os.environ.get("SACREBLEU_SEED", "12345")
    if raw.lower() == "none":
        return None, "none"
    try:
        return int(raw), str(raw).lower()
    except ValueError:
        raise InvalidParameterError(
            f"SACREBLEU_SEED: must be an integer or 'none', got {raw!r}") from None


# ---------------------------------------------------------------------------------------------------
# scores
class Score:
    """A score with sacreBLEU's ``format()`` (text, score only, JSON) and bootstrap CI fields."""

    def __init__(self, name: str, score: float):
        self.name = name
        self.score = score
        self._mean = -1.0
        self._ci = -1.0
        self._verbose = ""

    def format(self, width: int = 2, score_only: bool = False, signature: str = "", is_json: bool = False) -> str:
        sc = f"{self.score:.{width}f}"
        d: Dict[str, Any] = {"name": self.name, "score": float(sc), "signature": signature}
        if self._mean > 0:
            mean, var = f"{self._mean:.{width}f}", f"{self._ci:.{width}f}"
            conf = f"μ = {mean} ± {var}"
            sc += f" ({conf})"
            if is_json:
                d["confidence_mean"] = float(mean)
                d["confidence_var"] = float(var)
                d["confidence"] = conf
        line = f"{self.name}|{signature}" if signature else self.name
        line = f"{line} = {sc}"
        if self._verbose:
            line += f" {self._verbose}"
            d["verbose_score"] = self._verbose
        if score_only:
            return sc
        if is_json:
            for item in signature.split("|"):
                key, _, value = item.partition(":")
                d[key] = value
            return json.dumps(d, indent=1, ensure_ascii=False)
        return line

    def estimate_ci(self, scores: List["Score"]) -> None:
        """Mean and half-width of the 95% interval of bootstrap ``scores`` (order statistics n//40)."""
        raw = sorted(x.score for x in scores)
        n = len(raw)
        lo = n // 40
        self._ci = 0.5 * (raw[n - lo - 1] - raw[lo])
        self._mean = statistics.mean(raw)

    def __repr__(self) -> str:
        return self.format()


class BLEUScore(Score):
    def __init__(self, score, counts, totals, precisions, bp, sys_len, ref_len):
        super().__init__("BLEU", score)
        self.bp = bp
        self.counts = counts
        self.totals = totals
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.precisions = precisions
        self.prec_str = "/".join(f"{p:.1f}" for p in precisions)
        self.ratio = self.sys_len / self.ref_len if self.ref_len else 0
        self._verbose = (f"{self.prec_str} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
                         f"hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})")


class CHRFScore(Score):
    def __init__(self, score, char_order, word_order, beta):
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(f"chrF{beta}" + "+" * word_order, score)


class TERScore(Score):
    def __init__(self, score, num_edits, ref_length):
        super().__init__("TER", score)
        self.num_edits = int(num_edits)
        self.ref_length = ref_length


# ---------------------------------------------------------------------------------------------------
# signatures
class Signature:
    """sacreBLEU's signature: ``key:value`` pairs, ``version`` last, ``format(short=True)`` abbreviated."""

    def __init__(self, args: dict):
        self._abbr = {"version": "v", "nrefs": "#", "test": "t", "lang": "l", "subset": "S", "origlang": "o",
                      "bs": "bs", "ar": "ar", "seed": "rs"}
        if "num_refs" not in args:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        nrefs = "var" if args["num_refs"] == -1 else args["num_refs"]
        self.info = {"version": SIGNATURE_VERSION, "nrefs": nrefs, "bs": args.get("n_bootstrap"), "ar": None,
                     "seed": args.get("seed"), "test": args.get("test_set"), "lang": args.get("langpair"),
                     "origlang": args.get("origlang"), "subset": args.get("subset")}

    def format(self, short: bool = False) -> str:
        keys = [k for k in self.info if k != "version"] + ["version"]
        out = []
        for k in keys:
            v = self.info[k]
            if v is None:
                continue
            if isinstance(v, bool):
                v = "yes" if v else "no"
            out.append(f"{self._abbr[k] if short else k}:{v}")
        return "|".join(out)

    def update(self, key: str, value: Any) -> None:
        self.info[key] = value

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__


class BLEUSignature(Signature):
    def __init__(self, args: dict):
        super().__init__(args)
        self._abbr.update({"case": "c", "eff": "e", "tok": "tok", "smooth": "s"})
        smooth = args["smooth_method"]
        default = BLEU.SMOOTH_DEFAULTS[smooth]
        if default is not None:
            val = args["smooth_value"] if args["smooth_value"] is not None else default
            smooth += f"[{val:.2f}]"
        self.info.update({"case": "lc" if args["lowercase"] else "mixed",
                          "eff": "yes" if args["effective_order"] else "no",
                          "tok": args["tokenizer_signature"], "smooth": smooth})


class CHRFSignature(Signature):
    def __init__(self, args: dict):
        super().__init__(args)
        self._abbr.update({"case": "c", "eff": "e", "nc": "nc", "nw": "nw", "space": "s"})
        self.info.update({"case": "lc" if args["lowercase"] else "mixed",
                          "eff": "yes" if not args["eps_smoothing"] else "no",
                          "nc": args["char_order"], "nw": args["word_order"],
                          "space": "yes" if args["whitespace"] else "no"})


class TERSignature(Signature):
    def __init__(self, args: dict):
        super().__init__(args)
        self._abbr.update({"case": "c", "tok": "t", "norm": "nr", "punct": "pn", "asian": "as"})
        self.info.update({"case": "mixed" if args["case_sensitive"] else "lc", "tok": args["tokenizer_signature"],
                          "norm": args["normalized"], "punct": not args["no_punct"], "asian": args["asian_support"]})


# ---------------------------------------------------------------------------------------------------
# metrics
def _check(name: str, value):
    """An argument checked by its entry of the parameter table (mtscore.params.SACREBLEU_API): the one
    message template, ``name: must be <rule>, got <value>``."""
    from ...params import SACREBLEU_API
    return SACREBLEU_API[name].check(value, name)


_check_bool = _check


def _streams_to_segments(references, n_hyps: Optional[int], who: str):
    """sacreBLEU's stream-major references -> mtscore's sentence-major (``None`` = missing reference)."""
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise InvalidParameterError(f"{who}: `refs` should be a sequence of sequence of strings.")
    streams = [list(s) for s in references]
    if not streams:
        raise NoReferencesError(f"{who}: at least one reference stream is needed, got none")
    for k, s in enumerate(streams):
        if isinstance(references[k], str):
            raise InvalidParameterError(
                f"{who}: each element of `refs` should be a sequence of strings (one reference stream); "
                f"got a string for stream {k + 1}")
    lens = [len(s) for s in streams]
    if len(set(lens)) > 1 or (n_hyps is not None and lens[0] != n_hyps):
        detail = ", ".join(f"stream {k + 1} has {n}" for k, n in enumerate(lens))
        hyp = "" if n_hyps is None else f"{n_hyps} hypotheses, "
        raise ReferenceLengthError(
            f"{who}: every reference stream needs one entry per hypothesis: {hyp}{detail} "
            "(sacreBLEU would silently truncate to the shortest)")
    segs = []
    for i, seg in enumerate(zip(*streams)):
        lines = [x for x in seg if x is not None]
        for x in lines:
            if not isinstance(x, str):
                raise InvalidParameterError(f"{who}: references must be strings, got {type(x).__name__} in segment {i + 1}")
        if not lines:
            raise InvalidParameterError(f"{who}: segment {i + 1} has no reference (every entry is None)")
        segs.append(lines)
    counts = {len(s) for s in segs}
    num_refs = counts.pop() if len(counts) == 1 else (-1 if counts else len(streams))
    return segs, num_refs


class Metric:
    """The shared surface: ``corpus_score``, ``sentence_score``, ``get_signature``, reference caching."""

    _SIGNATURE_TYPE = Signature

    def __init__(self):
        self._ref_cache = None  # sentence-major references given to the constructor
        self._force = True
        self.n_bootstrap = None
        self.seed = None
        # num_refs is set when references are first seen: get_signature() before that is an error, as in sacreBLEU

    # -- to implement ----------------------------------------------------------------------------
    def _engine(self):  # the mtscore metric object
        raise NotImplementedError

    def _compute_score_from_stats(self, stats) -> Score:
        raise NotImplementedError

    def _aggregate_and_compute(self, stats) -> Score:
        return self._compute_score_from_stats(_sum_rows(stats))

    def _scores_of_rows(self, sums):
        """``np.array([self._compute_score_from_stats(row).score for row in sums])`` -- the scores of many summed
        statistics rows (bootstrap resamples, float32) -- computed row by row; BLEU and chrF override it with
        array arithmetic that performs the same operations on the same types (see :func:`_vector_ok`)."""
        import numpy as np
        return np.array([self._compute_score_from_stats(row).score for row in sums])

    def _row_scores(self, rows) -> list:
        """``[self._compute_score_from_stats(row).score for row in rows]`` (the same objects: BLEU overrides it
        with its array path for integer rows, whose scores are Python floats either way)."""
        return [self._compute_score_from_stats(row).score for row in rows]

    # -- statistics ------------------------------------------------------------------------------
    def _segments(self, hyps, references):
        name = type(self).__name__
        if isinstance(hyps, str) or not isinstance(hyps, Sequence):
            raise InvalidParameterError(f"{name}: `hyps` should be a sequence of strings.")
        hyps = list(hyps)
        if not set(map(type, hyps)) <= {str}:  # (the common case checked at C speed; else find the first offender)
            for i, h in enumerate(hyps):
                if not isinstance(h, str):
                    raise InvalidParameterError(
                        f"{name}: each element of `hyps` should be a string; hyps[{i}] is {type(h).__name__}")
        if references is not None:
            segs, num_refs = _streams_to_segments(references, len(hyps), name)
        elif self._ref_cache is not None:
            segs, num_refs = self._ref_cache
            if len(segs) != len(hyps):
                raise InvalidParameterError(
                    f"{name}: {plural(len(hyps), 'hypothesis', 'hypotheses')} but the cached references have "
                    f"{plural(len(segs), 'segment')}")
        else:
            raise NoCachedReferencesError(f"{name}: no references given and none were cached by the constructor")
        self.num_refs = num_refs
        return hyps, segs

    def _extract_corpus_statistics(self, hypotheses, references) -> List[list]:
        """Per-segment statistics as lists of Python numbers (sacreBLEU's layout)."""
        hyps, segs = self._segments(hypotheses, references)
        self._warn_tokenized(hyps)
        return self._rows(self._engine().stats(hyps, segs).values)

    def _stats_array(self, hypotheses, references):
        """Per-segment statistics as mtscore's float64 array (for the resampling engines)."""
        hyps, segs = self._segments(hypotheses, references)
        self._warn_tokenized(hyps)
        return self._engine().stats(hyps, segs).values

    def _stats_arrays(self, systems: Sequence[Sequence[str]], references) -> Optional[list]:
        """``[self._stats_array(hyps, references) for hyps in systems]`` computed together where the engine can
        (chrF: the references' n-grams counted once for all systems); ``None`` where it cannot, or where a system
        is not valid input (then the caller's system-by-system path raises its error in its place)."""
        together = getattr(self._engine(), "_stats_systems", None)
        if together is None or len(systems) < 2:
            return None
        try:
            checked = [self._segments(hyps, references) for hyps in systems]
        except (InvalidParameterError, NoCachedReferencesError, NoReferencesError, ReferenceLengthError):
            return None
        return together([hyps for hyps, _ in checked], checked[0][1])

    def _rows(self, values) -> List[list]:
        return [[int(x) for x in row] for row in values.tolist()]

    def _corpus_from_values(self, values) -> Score:
        """``_aggregate_and_compute(_rows(values))`` -- the corpus score of the statistics array -- with the rows'
        element-wise sum taken by NumPy when every value is a whole number (then the float64 sum is exact and
        equals the sum of the Python ints); else exactly that."""
        import numpy as np
        # (whole numbers: floor(x) == x, and the finite bound below excludes inf)
        if len(values) > 1 and bool((np.floor(values) == values).all()) and float(np.abs(values).sum()) < 2.0 ** 52:
            return self._compute_score_from_stats([int(x) for x in values.sum(axis=0).tolist()])
        return self._aggregate_and_compute(self._rows(values))

    def _warn_tokenized(self, hyps) -> None:
        if not self._force and sum(1 for h in hyps if h.endswith(" .")) >= 100:
            sacrelogger.warning("That's 100 lines that end in a tokenized period ('.')")
            sacrelogger.warning("It looks like you forgot to detokenize your test data, which may hurt your score.")
            sacrelogger.warning("If you insist your data is detokenized, or don't care, you can suppress this "
                                "message with the `force` parameter.")

    # -- public API ------------------------------------------------------------------------------
    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> Score:
        name = type(self).__name__
        if not isinstance(hypothesis, str):
            raise InvalidParameterError(f"{name}: The argument `hyp` should be a string.")
        if isinstance(references, str) or not isinstance(references, Sequence):
            raise InvalidParameterError(f"{name}: The argument `refs` should be a sequence of strings.")
        return self._aggregate_and_compute(self._extract_corpus_statistics([hypothesis], [[r] for r in references]))

    def corpus_score(self, hypotheses: Sequence[str], references: Optional[Sequence[Sequence[str]]],
                     n_bootstrap: int = 1) -> Score:
        n_bootstrap = _check("n_bootstrap", n_bootstrap)
        if n_bootstrap == 1:
            small = self._small_corpus_score(hypotheses, references)
            if small is not None:
                return small
        values = self._stats_array(hypotheses, references)
        actual = self._corpus_from_values(values)
        if n_bootstrap > 1:
            from ...significance._resample import sacrebleu_bootstrap_sums  # the engine (no import circle)
            self.n_bootstrap = n_bootstrap
            seed, self.seed = seed_from_env()
            sums = sacrebleu_bootstrap_sums(values, n_bootstrap, seed)  # float32 sums in sacreBLEU's order
            scores = [self._compute_score_from_stats(row) for row in sums]
            actual.estimate_ci(scores)
        return actual

    def _small_corpus_score(self, hypotheses, references) -> Optional[Score]:
        """The corpus score of a small input without NumPy (the engine's ``corpus_sums``, as mtscore's runner
        scores small files: whole-number statistics summed exactly, so the same score); ``None`` where that
        does not apply (then the usual path runs)."""
        return None

    def get_signature(self) -> Signature:
        return self._SIGNATURE_TYPE(self.__dict__)

    def _cache(self, references):
        if references is not None:
            self._ref_cache = _streams_to_segments(references, None, type(self).__name__)
            self.num_refs = self._ref_cache[1]


class BLEU(Metric):
    """sacreBLEU's ``BLEU(lowercase, force, tokenize, smooth_method, smooth_value, max_ngram_order,
    effective_order, trg_lang, references)``."""

    SMOOTH_DEFAULTS: Dict[str, Optional[float]] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
    TOKENIZERS = SACREBLEU_TOKENIZERS
    TOKENIZER_DEFAULT = "13a"
    _TOKENIZER_MAP = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
    _SIGNATURE_TYPE = BLEUSignature

    def __init__(self, lowercase: bool = False, force: bool = False, tokenize: Optional[str] = None,
                 smooth_method: str = "exp", smooth_value: Optional[float] = None,
                 max_ngram_order: int = MAX_NGRAM_ORDER, effective_order: bool = False, trg_lang: str = "",
                 references: Optional[Sequence[Sequence[str]]] = None):
        super().__init__()
        self._force = _check_bool("force", force)
        self.trg_lang = trg_lang
        self.lowercase = _check_bool("lowercase", lowercase)
        if smooth_method not in self.SMOOTH_DEFAULTS:
            raise UnknownSmoothingError.choice("smooth_method", smooth_method, list(self.SMOOTH_DEFAULTS))
        _check("smooth_value", smooth_value)
        self.smooth_value = smooth_value
        self.smooth_method = smooth_method
        self.max_ngram_order = _check("max_ngram_order", max_ngram_order)
        self.effective_order = _check_bool("effective_order", effective_order)
        if tokenize is None:
            best = self._TOKENIZER_MAP.get(self.trg_lang, self.TOKENIZER_DEFAULT)
        else:
            best = tokenize
            for lang, tok, alt in (("zh", "zh", "'zh' or 'spm'"), ("ja", "ja-mecab", "'ja-mecab' or 'spm'"),
                                   ("ko", "ko-mecab", "'ko-mecab' or 'spm'")):
                if self.trg_lang == lang and best != tok:
                    names = {"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}
                    sacrelogger.warning(f"Consider using the {alt} tokenizer for {names[lang]}.")
        from ...tokenize import TOKENIZERS as ours
        if best not in self.TOKENIZERS and best not in ours:
            raise UnknownTokenizerError.choice("tokenize", best, self.TOKENIZERS)
        if best not in ours:
            raise UnknownTokenizerError(
                f"tokenize: {best!r} is not available in this mtscore build (available: {', '.join(ours)})")
        self.tokenize = best
        self.tokenizer_signature = _tokenizer_signature(best)
        self._metric = None
        self._cache(references)

    def _engine(self):
        if self._metric is None:
            from ...metrics.bleu import BLEU as _BLEU
            if self.max_ngram_order > 9:
                raise InvalidParameterError(
                    f"max_ngram_order: mtscore counts n-grams up to order 9, got {self.max_ngram_order}")
            self._metric = _BLEU(tokenize=self.tokenize, lowercase=self.lowercase, max_order=self.max_ngram_order)
        return self._metric

    @staticmethod
    def compute_bleu(correct, total, sys_len, ref_len, smooth_method: str = "none", smooth_value=None,
                     effective_order: bool = False, max_ngram_order: int = MAX_NGRAM_ORDER) -> BLEUScore:
        """BLEU from sufficient statistics with smoothing (sacreBLEU's static method, same arithmetic)."""
        if smooth_method not in BLEU.SMOOTH_DEFAULTS:
            raise UnknownSmoothingError.choice("smooth_method", smooth_method, list(BLEU.SMOOTH_DEFAULTS))
        if smooth_value is None:
            smooth_value = BLEU.SMOOTH_DEFAULTS[smooth_method]
        bp = 1.0
        if sys_len < ref_len:
            bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
        precisions = [0.0] * max_ngram_order
        if not any(correct):  # no match at all: 0 (sacreBLEU #141)
            return BLEUScore(0.0, correct, total, precisions, bp, sys_len, ref_len)
        halvings = 1.0
        eff_order = max_ngram_order
        for n in range(1, len(precisions) + 1):
            if smooth_method == "add-k" and n > 1:
                correct[n - 1] += smooth_value
                total[n - 1] += smooth_value
            if total[n - 1] == 0:
                break
            if effective_order:
                eff_order = n
            if correct[n - 1] == 0:
                if smooth_method == "exp":
                    halvings *= 2
                    precisions[n - 1] = 100. / (halvings * total[n - 1])
                elif smooth_method == "floor":
                    precisions[n - 1] = 100. * smooth_value / total[n - 1]
            else:
                precisions[n - 1] = 100. * correct[n - 1] / total[n - 1]
        score = bp * math.exp(sum([_my_log(p) for p in precisions[:eff_order]]) / eff_order)
        return BLEUScore(score, correct, total, precisions, bp, sys_len, ref_len)

    def _small_corpus_score(self, hypotheses, references) -> Optional[BLEUScore]:
        from ...metrics.base import normalize_corpus
        from ...runner import SMALL_MAX_SEGMENTS
        hyps, segs = self._segments(hypotheses, references)
        if len(hyps) > SMALL_MAX_SEGMENTS:
            return None
        h, r = normalize_corpus(hyps, segs)
        sums = self._engine().corpus_sums(h, r)
        if sums is None:
            return None
        self._warn_tokenized(hyps)
        return self._compute_score_from_stats([int(x) for x in sums])

    def _compute_score_from_stats(self, stats) -> BLEUScore:
        n = self.max_ngram_order
        return self.compute_bleu(correct=stats[2:2 + n], total=stats[2 + n:], sys_len=int(stats[0]),
                                 ref_len=int(stats[1]), smooth_method=self.smooth_method,
                                 smooth_value=self.smooth_value, effective_order=self.effective_order,
                                 max_ngram_order=n)

    def _scores_of_rows(self, sums):
        """Array form of ``compute_bleu`` for rows where every n-gram order has matches (then smoothing and the
        effective order play no part): the precisions ``100. * correct / total`` in float32 as sacreBLEU's float32
        scalars give them, then ``math.log``, the built-in ``sum`` of a row's logs, ``math.exp`` and the brevity
        penalty in Python floats, as there. Any other row (or ``add-k`` smoothing): the row-by-row path."""
        import numpy as np
        n = self.max_ngram_order
        ints = _int_rows(sums)
        if not (ints or _vector_ok(sums)) or self.smooth_method == "add-k" or sums.shape[1] != 2 + 2 * n:
            return super()._scores_of_rows(sums)
        correct, total = sums[:, 2:2 + n], sums[:, 2 + n:]
        if not (np.all(correct > 0) and np.all(total > 0)):
            return super()._scores_of_rows(sums)
        if ints:  # int64 statistics: the scalar code's numpy int64 -> float64 operations, on columns
            correct, total = correct.astype(np.float64), total.astype(np.float64)
        prec = (100. * correct) / total
        if not np.all(prec > 0):
            return super()._scores_of_rows(sums)
        logs = iter(list(map(math.log, prec.ravel().tolist())))
        exp = math.exp
        # per row: exp(sum of its n logs (the built-in sum, left to right) / n), as compute_bleu
        geo = map(exp, [total / n for total in map(sum, zip(*[logs] * n))])
        out = []
        for (sys_len, ref_len), g in zip(sums[:, :2].tolist(), geo):
            sys_len, ref_len = int(sys_len), int(ref_len)
            bp = 1.0
            if sys_len < ref_len:
                bp = exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
            out.append(bp * g)
        return np.array(out)

    def _row_scores(self, rows) -> list:
        if _int_rows(rows):
            return self._scores_of_rows(rows).tolist()
        return super()._row_scores(rows)

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> BLEUScore:
        if not self.effective_order:
            sacrelogger.warning("It is recommended to enable `effective_order` for sentence-level BLEU.")
        return super().sentence_score(hypothesis, references)


class CHRF(Metric):
    """sacreBLEU's ``CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing, references)``."""

    CHAR_ORDER = 6
    WORD_ORDER = 0
    BETA = 2
    _SIGNATURE_TYPE = CHRFSignature

    def __init__(self, char_order: int = CHAR_ORDER, word_order: int = WORD_ORDER, beta: int = BETA,
                 lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False,
                 references: Optional[Sequence[Sequence[str]]] = None):
        super().__init__()
        self.char_order = _check("char_order", char_order)
        self.word_order = _check("word_order", word_order)
        if char_order + word_order < 1:
            from ...errors import message
            raise InvalidParameterError(message("char_order + word_order", "at least 1 (one n-gram order is needed)",
                                                char_order + word_order))
        _check("beta", beta)
        self.beta = beta
        self.order = self.char_order + self.word_order
        self.lowercase = _check_bool("lowercase", lowercase)
        self.whitespace = _check_bool("whitespace", whitespace)
        self.eps_smoothing = _check_bool("eps_smoothing", eps_smoothing)
        self._metric = None
        self._cache(references)

    def _engine(self):
        if self._metric is None:
            from ...metrics.chrf import CHRF as _CHRF
            self._metric = _CHRF(char_order=self.char_order, word_order=self.word_order, beta=self.beta,
                                 lowercase=self.lowercase, whitespace=self.whitespace,
                                 eps_smoothing=self.eps_smoothing)
        return self._metric

    def _compute_f_score(self, statistics) -> float:
        eps = 1e-16
        score = 0.0
        effective_order = 0
        factor = self.beta ** 2
        avg_prec, avg_rec = 0.0, 0.0
        for i in range(self.order):
            n_hyp, n_ref, n_match = statistics[3 * i: 3 * i + 3]
            prec = n_match / n_hyp if n_hyp > 0 else eps
            rec = n_match / n_ref if n_ref > 0 else eps
            denom = factor * prec + rec
            score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
            if n_hyp > 0 and n_ref > 0:
                avg_prec += prec
                avg_rec += rec
                effective_order += 1
        if self.eps_smoothing:
            return 100 * score / self.order
        if effective_order == 0:
            avg_prec = avg_rec = 0.0
        else:
            avg_prec /= effective_order
            avg_rec /= effective_order
        if avg_prec + avg_rec:
            score = (1 + factor) * avg_prec * avg_rec
            score /= ((factor * avg_prec) + avg_rec)
            return 100 * score
        return 0.0

    def _scores_of_rows(self, sums):
        """Array form of ``_compute_f_score`` for rows where every order has hypothesis, reference and matched
        n-grams (then no ``eps`` enters and the effective order is the order): the same float32 operations in the
        same order, on columns. Any other row: the row-by-row path for all (its scores can be Python floats)."""
        import numpy as np
        o = self.order
        if not _vector_ok(sums) or sums.shape[1] != 3 * o:
            return super()._scores_of_rows(sums)
        hyp, ref, match = sums[:, 0::3], sums[:, 1::3], sums[:, 2::3]
        if not (np.all(hyp > 0) and np.all(ref > 0) and np.all(match > 0)):
            return super()._scores_of_rows(sums)
        factor = self.beta ** 2
        prec = match / hyp
        rec = match / ref
        denom = factor * prec + rec
        if not np.all(denom > 0):
            return super()._scores_of_rows(sums)
        f = (1 + factor) * prec * rec / denom
        score, avg_prec, avg_rec = f[:, 0], prec[:, 0], rec[:, 0]  # 0.0 + float32 x is x
        for i in range(1, o):
            score = score + f[:, i]
            avg_prec = avg_prec + prec[:, i]
            avg_rec = avg_rec + rec[:, i]
        if self.eps_smoothing:
            return 100 * score / o
        avg_prec = avg_prec / o
        avg_rec = avg_rec / o
        if not np.all(avg_prec + avg_rec != 0):
            return super()._scores_of_rows(sums)
        score = (1 + factor) * avg_prec * avg_rec
        score = score / ((factor * avg_prec) + avg_rec)
        return 100 * score

    def _compute_score_from_stats(self, stats) -> CHRFScore:
        return CHRFScore(self._compute_f_score(stats), self.char_order, self.word_order, self.beta)


class TER(Metric):
    """sacreBLEU's ``TER(normalized, no_punct, asian_support, case_sensitive, references)``."""

    _SIGNATURE_TYPE = TERSignature

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, references: Optional[Sequence[Sequence[str]]] = None):
        super().__init__()
        self.no_punct = _check_bool("no_punct", no_punct)
        self.normalized = _check_bool("normalized", normalized)
        self.asian_support = _check_bool("asian_support", asian_support)
        self.case_sensitive = _check_bool("case_sensitive", case_sensitive)
        self.tokenizer_signature = "tercom"
        self._metric = None
        self._cache(references)

    def _engine(self):
        if self._metric is None:
            from ...metrics.ter import TER as _TER
            self._metric = _TER(normalized=self.normalized, no_punct=self.no_punct,
                                asian_support=self.asian_support, case_sensitive=self.case_sensitive)
        return self._metric

    def _rows(self, values):
        # [best edits (an integer), average reference length (a float)], as sacreBLEU
        return [[int(e), float(r)] for e, r in values.tolist()]

    def _compute_score_from_stats(self, stats) -> TERScore:
        edits, ref_len = stats[0], stats[1]
        if isinstance(ref_len, int):  # (summed exactly as integers): sacreBLEU's is a sum of float averages
            ref_len = float(ref_len)
        if ref_len > 0:
            score = edits / ref_len
        elif edits > 0:
            score = 1.0
        else:
            score = 0.0
        return TERScore(100 * score, edits, ref_len)


def _tokenizer_signature(name: str) -> str:
    from ... import tokenize as tk
    fn = getattr(tk, "tokenizer_signature", None)
    return fn(name) if fn is not None else name


METRICS = {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}
