"""BLEU (Papineni et al. 2002) and BLEU-SBP (Chiang et al. 2008), docs/definitions.md §1-2.

Statistics per segment: ``hyp_len, ref_len, match_1..N, total_1..N`` (BLEU-SBP adds ``clip_len``
= min(hyp_len, ref_len)). ``ref_len`` is the effective reference length of the configured method
(closest with ties to the shorter, shortest, or average as a float). Scores are computed from
summed statistics by one formula, :func:`bleu_row` (one row on Python floats), which reproduces sacreBLEU's
``compute_bleu`` (and the mteval-v13a / v11b rules in those compatibility modes); :func:`bleu_from_stats`
applies it over leading axes, many rows at once in the compiled ``_ckernel.bleu_scores`` (the same operations
in C, bit-identical). The tests check both against sacreBLEU and against a vectorized NumPy formulation
(tests/bleu_reference.py).

NumPy is imported where arrays are used, not with this module: a small corpus-BLEU run
(:meth:`BLEU.corpus_sums`, mtscore.runner) never loads it.
"""
from __future__ import annotations

from typing import ClassVar
import dataclasses
import math
from dataclasses import dataclass, replace as _replace

from ..errors import InvalidParameterError
from ..params import LOWERCASE, TOKENIZE, message, validate_config, Param as P
from ..tokenize import check_tokenizer, tokenize_corpus
from .base import Metric, MetricResult

SMOOTHINGS = ("none", "floor", "add-k", "exp") + tuple(f"method{i}" for i in range(8))  # methodN: compat nltk
SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}
REF_LENGTHS = ("closest", "shortest", "average")
COMPAT = ("sacrebleu", "mteval-v13a", "mteval-v11b", "nltk")  # nltk: metrics/nltk_bleu.py
ENGINES = ("fast", "plain")  # fast: compiled kernels (text/fast.py); plain: the reference path
_MY_LOG_ZERO = -9999999999.0  # sacreBLEU's my_log(0)

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _smooth_sig(smooth, smooth_value):
    """``smooth:`` as sacreBLEU writes it (the value of floor and add-k; NLTK's method1 when not its 0.1)."""
    if smooth in ("floor", "add-k") or (smooth == "method1" and smooth_value != 0.1):
        return f"{smooth}[{smooth_value:.2f}]"
    return smooth


def _alpha_k_used(alpha, k, compat, smooth) -> bool:
    return compat == "nltk" and smooth in ("method4", "method6", "method7") and (alpha, k) != (5, 5)


@dataclass(frozen=True)
class BLEUConfig:
    """BLEU parameters. ``None`` means "the default of the compatibility mode"."""
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option,
    # signature entry (the values signed are the resolved ones: smooth exp, ref_length closest ...)
    PARAMS: ClassVar = (
        P("max_order", "int", 4, lo=1, hi=9, flags=("--max-order",), help="maximum n-gram order",
          sig="order", sig_when="not_default"),
        P("weights", "floats", None, lo=0.0, hi=1.0e3, nullable=True,
          help="n-gram order weights (max_order numbers >= 0, positive sum; text: '0.25/0.25/0.25/0.25'); "
               "default uniform", sig="weights", sig_when=lambda w: w is not None,
          sig_fmt=lambda w: ",".join(f"{x:g}" for x in w)),
        P("smooth", "choice", None, choices=("none", "floor", "add-k", "exp") + tuple(f"method{i}" for i in range(8)),
          nullable=True, flags=("--smooth",), common=True,
          help="smoothing (default exp; mteval-v11b: none; compat nltk: NLTK's method0..method7)",
          sig="smooth", sig_uses=("smooth_value",), sig_fmt=_smooth_sig),
        P("smooth_value", "float", None, lo=0.0, hi=100.0, lo_open=True, nullable=True, flags=("--smooth-value",),
          common=True, help="value for floor (default 0.1) / add-k (default 1) smoothing"),
        P("effective_order", "bool", None, nullable=True, flags=("--effective-order",),
          help="drop orders without candidate n-grams (default: no for corpus, yes for sentence scores)",
          sig="eff", sig_fmt=bool),
        P("ref_length", "choice", None, choices=("closest", "shortest", "average"), nullable=True,
          flags=("--ref-length",), help="effective reference length (BLEU: closest; BLEU-SBP and mteval-v11b: shortest)",
          sig="bp", sig_when=lambda r: r != "closest"),
        TOKENIZE,
        _replace(LOWERCASE, default=None, nullable=True, help="lowercase (default no; mteval modes: ASCII-only yes)"),
        P("compat", "choice", "sacrebleu", choices=("sacrebleu", "mteval-v13a", "mteval-v11b", "nltk"),
          flags=("--compat",), help="compatibility mode", sig="compat", sig_when="not_default"),
        P("nltk_alpha", "float", 5.0, lo=0.0, hi=1.0e3, lo_open=True,
          help="compat nltk: SmoothingFunction alpha (method 6)", sig="alpha-k",
          sig_uses=("nltk_k", "compat", "smooth"), sig_when=_alpha_k_used, sig_fmt=lambda a, k, *_: f"{a:g},{k:g}"),
        P("nltk_k", "float", 5.0, lo=0.0, hi=1.0e3, lo_open=True, help="compat nltk: SmoothingFunction k (methods 4, 7)"),
        P("engine", "choice", "fast", choices=("fast", "plain"), help="fast (compiled) or plain (reference) code"),
    )

    max_order: int = 4
    weights: tuple[float, ...] | None = None  # None = uniform 1/N
    smooth: str | None = None  # sacrebleu: "exp"; mteval-v13a: "exp"; mteval-v11b: "none"
    smooth_value: float | None = None
    effective_order: bool | None = None  # None: False for corpus scores, True for sentence scores
    ref_length: str | None = None  # closest (BLEU default), shortest (SBP, mteval-v11b default), average
    tokenize: str = "13a"
    lowercase: bool | None = None  # None: False (sacrebleu), True ASCII-only (mteval modes, as without -c)
    compat: str = "sacrebleu"
    engine: str = "fast"  # "fast" (compiled; falls back to plain where unsupported) or "plain" (reference)
    nltk_alpha: float = 5.0  # compat nltk: SmoothingFunction alpha (method 6) and k (methods 4, 7)
    nltk_k: float = 5.0

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


def _resolved(cfg: BLEUConfig, default_ref_length: str) -> BLEUConfig:
    compat = cfg.compat
    if compat == "nltk":  # NLTK: no smoothing (method0), whitespace tokens, epsilon 0.1 for method1
        # NLTK scores token lists: the default 13a becomes "none" (line.split()); other tokenizers stay
        return dataclasses.replace(cfg, smooth=cfg.smooth or "method0", lowercase=bool(cfg.lowercase),
                                   tokenize="none" if cfg.tokenize == "13a" else cfg.tokenize,
                                   smooth_value=0.1 if cfg.smooth_value is None else cfg.smooth_value,
                                   ref_length=cfg.ref_length or "closest",
                                   effective_order=False if cfg.effective_order is None else cfg.effective_order)
    smooth = cfg.smooth or ("none" if compat == "mteval-v11b" else "exp")
    ref_length = cfg.ref_length or ("shortest" if compat == "mteval-v11b" else default_ref_length)
    lowercase = cfg.lowercase if cfg.lowercase is not None else compat != "sacrebleu"
    sv = cfg.smooth_value if cfg.smooth_value is not None else SMOOTH_DEFAULTS.get(smooth)
    # dataclasses.replace keeps the config's own class (metrics built on BLEU extend BLEUConfig)
    return dataclasses.replace(cfg, smooth=smooth, smooth_value=sv, ref_length=ref_length, lowercase=lowercase)


class BLEU(Metric):
    """Corpus and sentence BLEU. ``BLEU(ref_length="shortest").corpus(hyps, refs)``."""

    name = "bleu"
    display_name = "BLEU"
    Config = BLEUConfig
    higher_is_better = True
    decomposable = False
    range = (0.0, 100.0)
    _default_ref_length = "closest"
    _strict_bp = False

    def __init__(self, config=None, **params):
        super().__init__(config, **params)
        self.config = _resolved(self.config, self._default_ref_length)
        n = self.config.max_order
        cols = ["hyp_len", "ref_len"] + [f"match_{i}" for i in range(1, n + 1)] + [f"total_{i}" for i in range(1, n + 1)]
        if self._strict_bp:
            cols.append("clip_len")
        self.columns = tuple(cols)
        if self.config.compat == "nltk":
            from . import nltk_bleu
            self.columns = nltk_bleu.columns(n)

    def _validate(self) -> None:
        c = self.config  # each field is checked by its declaration (PARAMS); here: rules across fields
        if c.weights is not None and (len(c.weights) != c.max_order or sum(c.weights) <= 0):
            raise InvalidParameterError(message(
                "weights", f"{c.max_order} numbers (one per order up to max_order) with a positive sum", c.weights))
        if c.compat == "nltk":
            if c.smooth is not None and not c.smooth.startswith("method"):
                raise InvalidParameterError(f"smooth: compat=nltk takes NLTK's SmoothingFunction methods "
                                            f"method0..method7, got {c.smooth!r}")
            if self._strict_bp:
                raise InvalidParameterError("compat: nltk is a BLEU mode (not BLEU-SBP)")
            if c.ref_length not in (None, "closest") or c.effective_order:
                raise InvalidParameterError("compat=nltk fixes ref_length (closest) and uses no effective order")
        elif c.smooth is not None and c.smooth.startswith("method"):
            raise InvalidParameterError(f"smooth: {c.smooth} is an NLTK smoothing method (use compat=nltk)")
        elif c.compat != "sacrebleu":
            if c.smooth not in (None, "exp" if c.compat == "mteval-v13a" else "none"):
                raise InvalidParameterError(
                    f"smooth: compat={c.compat} fixes the smoothing ({'exp' if c.compat == 'mteval-v13a' else 'none'}); got {c.smooth!r}")
            if c.tokenize not in ("13a", "intl"):
                raise InvalidParameterError(f"tokenize: compat={c.compat} supports 13a or intl, got {c.tokenize!r}")

    # -- statistics ----------------------------------------------------------------------------
    def _preprocess(self, lines: list[str]) -> list[str]:
        c = self.config
        if c.lowercase and c.compat != "sacrebleu" and c.tokenize == "13a":
            lines = [ln.translate(_ASCII_LOWER) for ln in lines]  # mteval: tr/[A-Z]/[a-z]/
            return tokenize_corpus(lines, c.tokenize, lowercase=False)
        return tokenize_corpus(lines, c.tokenize, lowercase=bool(c.lowercase))

    def _stats(self, hyps: list[str], refs: list[list[str]]) -> np.ndarray:
        if self.config.compat == "nltk":
            from . import nltk_bleu
            n_refs = [len(seg) for seg in refs]
            tok = iter(self._preprocess(list(hyps) + [r for seg in refs for r in seg]))
            h = [next(tok).split() for _ in hyps]
            r = [[next(tok).split() for _ in range(k)] for k in n_refs]
            return nltk_bleu.corpus_stats(h, r, self.config.max_order)
        if self.config.engine == "fast":
            values = self._stats_fast(hyps, refs)
            if values is not None:
                return values
        return self._stats_plain(hyps, refs)

    def _stats_fast(self, hyps: list[str], refs: list[list[str]], out=None) -> np.ndarray | None:
        """Compiled path (text/fast.py); ``None`` where it does not apply (then the plain path runs).

        13a is tokenized inside the kernel; the other tokenizers use the regular-expression
        tokenizers and the kernel only splits, encodes and counts. With ``out`` (a flat float64 buffer,
        see :meth:`corpus_sums`) only the one-pass kernel runs, filling ``out``; ``None`` where it does not apply."""
        from ..text.fast import bleu_statistics_fast, bleu_statistics_strings, encode_corpus, kernel_backend

        c = self.config
        mteval_lc = bool(c.lowercase) and c.compat != "sacrebleu"
        if c.tokenize == "13a":  # 13a inside the kernel
            mode, lower = "13a", bool(c.lowercase) and not mteval_lc
        elif c.tokenize == "none":  # str.split inside the kernel (str.lower first, as tokenize_corpus does)
            mode, lower, mteval_lc = "none", bool(c.lowercase), False
        else:  # tokenized by the regular expressions; the kernel splits on whitespace
            mode, lower, mteval_lc = "none", False, False
            n_refs = [len(seg) for seg in refs]
            tok = iter(self._preprocess(list(hyps) + [r for seg in refs for r in seg]))
            hyps = [next(tok) for _ in hyps]
            refs = [[next(tok) for _ in range(k)] for k in n_refs]
        # compiled extension: tokenize and count in one pass, no corpus vocabulary
        values = bleu_statistics_strings(hyps, refs, c.max_order, c.ref_length, self._strict_bp, mode,
                                         lowercase=lower, ascii_lowercase=mteval_lc, out=out)
        if values is not None or out is not None:
            return values
        if kernel_backend() != "c":  # the reference path: BLEU's plain path (the caller runs it)
            return None
        flat = list(hyps)
        for seg in refs:
            flat.extend(seg)
        enc = encode_corpus(flat, mode, lowercase=lower, ascii_lowercase=mteval_lc)
        if enc is None:
            return None
        import numpy as np
        ids, offsets, _ = enc
        ref_starts = np.zeros(len(refs) + 1, dtype=np.int64)
        np.cumsum([len(seg) for seg in refs], out=ref_starts[1:])
        return bleu_statistics_fast(ids, offsets, len(hyps), ref_starts, c.max_order, c.ref_length,
                                    self._strict_bp)

    def _stats_columns(self, hyps: list[str], ref_columns: list[list[str]]) -> np.ndarray | None:
        """:meth:`_stats` with the references as columns (``ref_columns[k][i]``: reference ``k`` of segment ``i``,
        every entry a str), as streamed partitions read them: the compiled 13a path without a list per segment
        (backends/local.py). ``None`` where that path does not apply; the caller then uses :meth:`_stats`."""
        c = self.config
        if c.compat == "nltk" or c.engine != "fast" or c.tokenize not in ("13a", "none") or \
                type(self)._stats is not BLEU._stats:
            return None  # (a metric built on BLEU with statistics of its own, e.g. tBLEU, computes its own)
        from ..text.fast import bleu_statistics_columns

        mteval_lc = bool(c.lowercase) and c.compat != "sacrebleu" and c.tokenize == "13a"
        return bleu_statistics_columns(hyps, ref_columns, c.max_order, c.ref_length, self._strict_bp, c.tokenize,
                                       lowercase=bool(c.lowercase) and not mteval_lc, ascii_lowercase=mteval_lc)

    def _stats_plain(self, hyps: list[str], refs: list[list[str]]) -> np.ndarray:
        """The reference path: regex tokenization, dict vocabulary, sort-based NumPy counting."""
        import numpy as np
        from ..text import Vocab
        flat_refs = [r for seg in refs for r in seg]
        pair_seg = np.repeat(np.arange(len(refs), dtype=np.int64), [len(seg) for seg in refs])
        vocab = Vocab()
        h = vocab.encode(self._preprocess(hyps))
        r = vocab.encode(self._preprocess(flat_refs))
        return bleu_statistics(h, r, pair_seg, self.config.max_order, self.config.ref_length, self._strict_bp)

    def corpus_sums(self, hyps: list[str], refs: list[list[str]]) -> list[float] | None:
        """The column sums of the statistics of a normalised corpus (mtscore.metrics.base.normalize_corpus),
        computed without NumPy: the compiled one-pass kernel fills a flat ``array("d")`` and Python adds its
        columns. ``None`` where that does not apply (then the caller takes the usual path, :meth:`_stats`):
        compat nltk, the plain engine, a subclass with its own statistics, the reference kernels, lines
        the kernel does not take, or ``ref_length=average`` (fractional lengths: the sum would depend on
        the order of additions). Every statistic here is a whole number, so the sums are exact and equal
        to NumPy's. This is mtscore.runner's path for small inputs, where importing NumPy would cost more
        than the whole score."""
        c = self.config
        if c.compat == "nltk" or c.engine != "fast" or c.ref_length == "average" or \
                type(self)._stats is not BLEU._stats:
            return None
        from array import array
        n_cols = len(self.columns)
        buf = array("d", bytes(8 * n_cols * len(hyps)))
        if self._stats_fast(hyps, refs, out=buf) is None:
            return None
        return [float(sum(buf[j::n_cols])) for j in range(n_cols)]

    def result(self, summed, nrefs: int | str = 1) -> MetricResult:
        """Corpus result of summed statistics: an array or any sequence of numbers (a list from
        :meth:`corpus_sums`); no NumPy is needed unless ``summed`` is an array."""
        return self._result(summed, self.signature(nrefs))

    # -- scoring -------------------------------------------------------------------------------
    def score(self, summed, effective_order: bool | None = None) -> np.ndarray:
        c = self.config
        if c.compat == "nltk":
            return self._nltk_score(summed)
        import numpy as np
        eff = c.effective_order if effective_order is None else effective_order
        return bleu_from_stats(np.asarray(summed, dtype=np.float64), c.max_order, c.smooth, c.smooth_value,
                               bool(eff), c.weights, c.compat, self._strict_bp)

    def _nltk_score(self, summed, own_last: bool = False) -> np.ndarray:
        """NLTK BLEU x 100 over leading axes (pure Python per row: NLTK's rational arithmetic)."""
        import numpy as np
        from . import nltk_bleu
        c = self.config
        x = np.asarray(summed, dtype=np.float64)
        flat = x.reshape(-1, x.shape[-1])
        w = c.weights or (1.0 / c.max_order,) * c.max_order
        method = int(c.smooth[-1])
        out = np.empty(len(flat))
        for i, row in enumerate(flat):
            if own_last:  # a single sentence: its own length and 5-gram precision are "the last sentence"
                row = row.copy()
                row[-3:] = [row[0], row[-5], row[-4]]
            try:
                out[i] = 100.0 * nltk_bleu.score_stats(row, [w], method, c.smooth_value, c.nltk_alpha, c.nltk_k)[0]
            except InvalidParameterError:
                if not own_last:  # a corpus score NLTK refuses (method6 without trigram matches): an error
                    raise
                out[i] = np.nan  # a sentence NLTK refuses: no score (NaN)
        return out.reshape(x.shape[:-1]) if x.ndim > 1 else np.float64(out[0])

    def sentence_scores(self, stats) -> np.ndarray:
        values = getattr(stats, "values", stats)
        if self.config.compat == "nltk":
            return self._nltk_score(values, own_last=True)
        eff = True if self.config.effective_order is None else self.config.effective_order
        return self.score(values, effective_order=eff)

    def sentence_signature(self, stats) -> str:
        if self.config.effective_order is None:
            return stats.signature.replace("|eff:no|", "|eff:yes|")
        return stats.signature

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        c = self.config
        if c.compat == "nltk":
            import numpy as np
            summed = np.asarray(summed, dtype=np.float64)
            n = c.max_order
            score = float(self._nltk_score(summed, own_last=sentence))
            comps = {"hyp_len": _num(summed[0]), "ref_len": _num(summed[1]),
                     "counts": [_num(x) for x in summed[2:2 + n]], "totals": [_num(x) for x in summed[2 + n:2 + 2 * n]]}
            detail = "/".join(f"{_num(a)}/{_num(b)}" for a, b in zip(comps["counts"], comps["totals"])) + (
                f" (hyp_len = {comps['hyp_len']} ref_len = {comps['ref_len']})")
            return MetricResult(self.name, self.display_name, score, signature, comps, detail)
        eff = (True if sentence else False) if c.effective_order is None else c.effective_order
        row = [float(x) for x in summed]  # one row, on Python floats (an array row, a list, an array("d"))
        n = c.max_order
        sys_len, ref_len = row[0], row[1]
        correct, total = row[2:2 + n], row[2 + n:2 + 2 * n]
        score, precs, bp = bleu_row(row, n, c.smooth, c.smooth_value, bool(eff), c.weights, c.compat, self._strict_bp)
        if type(self).score is not BLEU.score:  # a subclass with its own formula
            import numpy as np
            score = float(self.score(np.asarray(row), effective_order=eff))
        ratio = sys_len / ref_len if ref_len > 0 else 0.0
        detail = "/".join(f"{p:.1f}" for p in precs) + (
            f" ({'SBP' if self._strict_bp else 'BP'} = {bp:.3f} ratio = {ratio:.3f} "
            f"hyp_len = {_num(sys_len)} ref_len = {_num(ref_len)})")
        comps = {"precisions": [float(p) for p in precs], "bp": float(bp), "ratio": float(ratio),
                 "hyp_len": _num(sys_len), "ref_len": _num(ref_len),
                 "counts": [_num(x) for x in correct], "totals": [_num(x) for x in total]}
        sig = signature.replace("|eff:no|", "|eff:yes|") if sentence and c.effective_order is None else signature
        return MetricResult(self.name, self.display_name, score, sig, comps, detail)

    def signature_items(self, nrefs):
        # the parameters' entries (PARAMS) in sacreBLEU's order, BLEU-SBP's fixed brevity penalty among them
        return self.declared_signature(("nrefs", nrefs), "case", "eff", "tok", "smooth", "bp",
                                       ("brevity", "strict" if self._strict_bp else None), "order", "weights",
                                       "compat", "alpha-k")


class BLEUSBP(BLEU):
    """BLEU with the strict brevity penalty of Chiang et al. (2008): default reference length shortest."""

    name = "bleu-sbp"
    display_name = "BLEU-SBP"
    _default_ref_length = "shortest"
    _strict_bp = True


def _num(x: float):
    return int(x) if float(x).is_integer() else float(x)


# ---------------------------------------------------------------------------------------------------
def effective_ref_lengths(hyp_len: np.ndarray, ref_lens: np.ndarray, pair_seg: np.ndarray, method: str) -> np.ndarray:
    """Per-segment effective reference length from per-(segment, reference) lengths."""
    import numpy as np
    n_seg = len(hyp_len)
    ref_lens = ref_lens.astype(np.float64)
    if method == "average":
        return np.bincount(pair_seg, weights=ref_lens, minlength=n_seg) / np.bincount(pair_seg, minlength=n_seg)
    starts = np.searchsorted(pair_seg, np.arange(n_seg))  # pairs are grouped by segment, in order
    if method == "shortest":
        return np.minimum.reduceat(ref_lens, starts)
    # closest: minimal |ref - hyp|, ties -> shorter reference
    big = float(ref_lens.max() + 1) if len(ref_lens) else 1.0
    key = np.abs(ref_lens - hyp_len[pair_seg]) * big + ref_lens
    best = np.minimum.reduceat(key, starts)
    return np.mod(best, big)


def bleu_statistics(h, r, pair_seg: np.ndarray, max_order: int, ref_length: str, strict: bool = False) -> np.ndarray:
    """Sufficient statistics from encoded hypotheses ``h`` (N rows) and references ``r``
    (one row per (segment, reference) pair, ``pair_seg`` = its segment, grouped by segment)."""
    import numpy as np
    from ..text import ngram_ids
    n_seg = h.n_rows
    hyp_len = h.lengths.astype(np.float64)
    ref_len = effective_ref_lengths(hyp_len, r.lengths, pair_seg, ref_length)
    matches = np.zeros((n_seg, max_order))
    totals = np.maximum(hyp_len[:, None] - np.arange(max_order)[None, :], 0)
    for n, (gids, rows, n_ids) in enumerate(ngram_ids([h, r], max_order)):
        G = np.int64(n_ids)
        hk, hc = np.unique(rows[0] * G + gids[0], return_counts=True)
        rk, rc = np.unique(rows[1] * G + gids[1], return_counts=True)
        if len(hk) == 0 or len(rk) == 0:
            continue
        sk = pair_seg[rk // G] * G + rk % G  # per-segment key, max over that segment's references
        order = np.argsort(sk, kind="stable")
        sk, rc = sk[order], rc[order]
        starts = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
        mk, mx = sk[starts], np.maximum.reduceat(rc, starts)
        idx = np.minimum(np.searchsorted(mk, hk), len(mk) - 1)
        clipped = np.where(mk[idx] == hk, np.minimum(hc, mx[idx]), 0)
        matches[:, n] = np.bincount(hk // G, weights=clipped, minlength=n_seg)
    cols = [hyp_len[:, None], ref_len[:, None], matches, totals]
    if strict:
        cols.append(np.minimum(hyp_len, ref_len)[:, None])
    return np.hstack(cols)


def brevity_penalty(sys_len: float, ref_len: float) -> float:
    """sacreBLEU's brevity penalty: ``exp(1 - r/c)`` for ``c < r`` (0 for ``c = 0 < r``), else 1."""
    if sys_len < ref_len:
        return math.exp(1.0 - ref_len / sys_len) if sys_len > 0 else 0.0
    return 1.0


def strict_brevity_penalty(clip_len: float, ref_len: float) -> float:
    """BLEU-SBP's φ(Σ min(c_i, r_i) / Σ r_i), φ(x) = exp(1 - 1/x), φ(0) = 0; Σ r = 0 -> 1."""
    if ref_len <= 0:
        return 1.0
    return 0.0 if clip_len <= 0 else min(math.exp(1.0 - ref_len / clip_len), 1.0)


_SMOOTH_CODES = {"none": 0, "exp": 1, "floor": 2, "add-k": 3}


def _bleu_scores_compiled(summed: np.ndarray, n: int, smooth: str, smooth_value, effective_order: bool,
                          strict: bool) -> np.ndarray | None:
    """:func:`bleu_from_stats` of every row in the compiled kernel (``_ckernel.bleu_scores``: the same operations
    with the C library's exp/log, bit-identical to :func:`bleu_row` and to sacreBLEU); ``None`` where it
    does not apply (reference kernels chosen or not built, another smoothing, a malformed shape)."""
    import numpy as np
    from ..text import fast

    code = _SMOOTH_CODES.get(smooth)
    if (code is None or summed.shape[-1] != 2 + 2 * n + (1 if strict else 0) or not 1 <= n <= 1024
            or fast.kernel_backend() != "c" or not hasattr(fast._ckernel, "bleu_scores")):
        return None
    rows = np.ascontiguousarray(summed.reshape(-1, summed.shape[-1]))
    out = np.empty(len(rows), dtype=np.float64)
    fast._ckernel.bleu_scores(rows, len(rows), n, code, float(smooth_value or 0.0), bool(effective_order),
                              bool(strict), out)
    return out.reshape(summed.shape[:-1])


def bleu_from_stats(summed, max_order: int, smooth: str, smooth_value, effective_order: bool,
                    weights, compat: str = "sacrebleu", strict: bool = False):
    """BLEU (in percent) of summed statistics ``[..., 2 + 2N (+1)]`` over leading axes: each row is
    :func:`bleu_row` (the one BLEU formula, on Python floats with ``math.exp`` / ``math.log`` as sacreBLEU);
    many rows at once (sentence BLEU, resamples, MBR utilities) in the compiled kernel
    ``_ckernel.bleu_scores`` where it applies (the same operations in the same order, bit-identical; checked
    in tests/kernels/test_bleu_scores_kernel.py). A single row gives a float."""
    import numpy as np
    summed = np.asarray(summed, dtype=np.float64)
    args = (max_order, smooth, smooth_value, effective_order, weights, compat, strict)
    if summed.ndim <= 1:
        return bleu_row(summed.tolist(), *args)[0]
    if compat == "sacrebleu" and weights is None:
        got = _bleu_scores_compiled(summed, max_order, smooth, smooth_value, effective_order, strict)
        if got is not None:
            return got
    rows = summed.reshape(-1, summed.shape[-1]).tolist()
    out = np.fromiter((bleu_row(r, *args)[0] for r in rows), dtype=np.float64, count=len(rows))
    return out.reshape(summed.shape[:-1])


def bleu_row(row, max_order: int, smooth: str, smooth_value, effective_order: bool, weights, compat: str = "sacrebleu",
             strict: bool = False) -> tuple[float, list[float], float]:
    """One row of summed statistics (``hyp_len, ref_len, match_1..N, total_1..N (, clip_len)``, Python floats)
    -> ``(BLEU in percent, precisions in percent, brevity penalty)``, on Python floats with ``math.exp`` /
    ``math.log`` (the C library's, as sacreBLEU's); no NumPy. The one BLEU formula of the package: every
    score and every row of :func:`bleu_from_stats` is this (or its compiled copy, ``_ckernel.bleu_scores``)."""
    n = max_order
    sys_len, ref_len = row[0], row[1]
    correct, total = list(row[2:2 + n]), list(row[2 + n:2 + 2 * n])
    bp = strict_brevity_penalty(row[2 + 2 * n], ref_len) if strict else brevity_penalty(sys_len, ref_len)
    # the precisions
    c, t = list(correct), list(total)
    if smooth == "add-k" and n > 1:
        c[1:] = [x + smooth_value for x in c[1:]]
        t[1:] = [x + smooth_value for x in t[1:]]
    has = [x > 0 for x in t]
    if compat == "sacrebleu":
        active, on = [], True
        for h in has:
            on = on and h
            active.append(on)
    else:
        active = has
    precs, halvings = [], 0
    for k in range(n):
        safe_t = t[k] if has[k] else 1.0
        p = 100.0 * c[k] / safe_t
        if c[k] == 0:
            if smooth == "exp":
                halvings += active[k]
                p = 100.0 / (2.0 ** halvings * safe_t)
            elif smooth == "floor":
                p = 100.0 * smooth_value / safe_t
        if compat == "sacrebleu":
            p = p if active[k] else 0.0
        else:
            p = p if has[k] else 100.0
        precs.append(p)
    # the geometric mean
    logp = [math.log(p) if p > 0 else _MY_LOG_ZERO for p in precs]
    if compat == "sacrebleu":
        eff = n
        if effective_order:  # the orders counted after add-k's k is added (docs/definitions.md §1.5), as the precisions' active
            eff = sum(active)
        m = max(eff, 1)
        if weights is None:
            mean_log = _ordered_sum(logp[:m]) / m
        else:
            ww = [float(w) if k < m else 0.0 for k, w in enumerate(weights)]
            mean_log = _ordered_sum([a * b for a, b in zip(ww, logp)]) / _ordered_sum(ww)
        score = bp * math.exp(mean_log)
        if not any(x != 0 for x in correct) or eff == 0:  # "early stop if there are no matches"
            score = 0.0
    else:
        if weights is None:
            mean_log = _ordered_sum(logp) / n
        else:
            w = [float(x) for x in weights]
            mean_log = _ordered_sum([a * b for a, b in zip(w, logp)]) / _ordered_sum(w)
        if compat == "mteval-v11b" and any(a == 0 or b == 0 for a, b in zip(correct, total)):
            score = 0.0  # no smoothing: any order with zero matches or no candidate n-grams gives 0
        else:
            score = bp * math.exp(mean_log)
        if sys_len <= 0:
            score = 0.0
    return score, precs, bp


def _ordered_sum(xs):
    """``xs[0] + xs[1] + ...`` in this order (as ``np.cumsum(xs)[-1]``)."""
    acc = xs[0]
    for x in xs[1:]:
        acc += x
    return acc
