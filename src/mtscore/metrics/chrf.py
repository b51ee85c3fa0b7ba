"""chrF (Popović 2015) and chrF++ (Popović 2017), exactly as sacreBLEU 2.6 computes them.

Statistics per segment, for every character order ``n = 1..char_order`` then every word order
``n = 1..word_order``: ``hyp`` (hypothesis n-grams; 0 when the chosen reference has no n-gram of
that order), ``ref`` (reference n-grams) and ``match`` (clipped matches). With several references
the segment keeps the statistics of the reference whose *sentence-level* chrF is highest (the first
such reference on ties), as sacreBLEU does. The corpus score is chrF of the summed statistics; the
segment score is chrF of one row (= sacreBLEU ``sentence_score``). chrF is not decomposable.

Text handling (sacreBLEU): optional :meth:`str.lower` (``lowercase``); character n-grams over the
text with all whitespace removed (kept with ``whitespace=True``); word n-grams over whitespace
tokens where a token longer than one character loses one trailing ASCII punctuation character into a
token of its own, or else one leading one (``"(hi)"`` -> ``"(hi"``, ``")"``).

Score of statistics (β = ``beta``, F = (1+β²)PR / (β²P + R)): by default P and R are averaged over the
orders where both the hypothesis and the reference have n-grams ("effective order"; 0 when there is
none); with ``eps_smoothing`` the per-order F values are averaged over all orders, with 1e-16 for an
undefined precision, recall or F (chrF++.py / NLTK / Moses style). An empty hypothesis or an empty
reference therefore scores 0 by default (about 1e-14 with ``eps_smoothing``).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace as _replace
from functools import lru_cache
from typing import ClassVar, Sequence

from ..errors import InvalidParameterError
from ..params import LOWERCASE, message, validate_config, Param as P
from .base import Metric, MetricResult

EPS = 1e-16
_CHUNK_SEGMENTS = 16384  # segments per kernel call without NumPy (mtscore.ckernels.CHUNK_SEGMENTS)
_BATCH_SYMBOLS = 1 << 21  # code points per call of the several-systems path (CHRF._stats_systems)
_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"  # string.punctuation
_P = "[" + re.escape(_PUNCT) + "]"
# a whitespace-delimited token of >= 2 characters ending in punctuation, or else starting with one
_WORD_SPLIT = re.compile(rf"(?<!\S)(?:(\S+)({_P})|({_P})(\S+))(?!\S)")


def _split_repl(m: re.Match) -> str:
    if m.group(1) is not None:
        return m.group(1) + " " + m.group(2)
    return m.group(3) + " " + m.group(4)


def chrf_words(text: str) -> str:
    """chrF++'s word tokenization of one line, tokens joined by spaces."""
    return _WORD_SPLIT.sub(_split_repl, text)


@lru_cache(maxsize=1)
def _whitespace_table() -> np.ndarray:
    """``table[c]`` is True iff ``chr(c).isspace()`` (what :meth:`str.split` splits on)."""
    import numpy as np
    top = 0x3001  # every code point with isspace() is below this; checked below
    table = np.array([chr(c).isspace() for c in range(top)], dtype=bool)
    return table


@lru_cache(maxsize=1)
def _whitespace_bytes() -> bytes:
    """:func:`_whitespace_table` as bytes (0/1), for the compiled kernels without NumPy."""
    return bytes(chr(c).isspace() for c in range(0x3001))


def _check_whitespace_table() -> bool:
    table = _whitespace_table()
    return all(not chr(c).isspace() for c in range(len(table), 0x110000))


@dataclass(frozen=True)
class CHRFConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option,
    # signature entry (sacreBLEU's; beta is in the name, chrF2)
    PARAMS: ClassVar = (
        P("char_order", "int", 6, lo=0, hi=30, flags=("--chrf-char-order",), common=True, help="character n-gram order",
          sig="nc"),
        P("word_order", "int", 0, lo=0, hi=10, flags=("--chrf-word-order",), common=True,
          help="word n-gram order (chrF++: 2)", sig="nw"),
        P("beta", "float", 2, lo=0.0, hi=1.0e3, lo_open=True, flags=("--chrf-beta",), common=True, help="recall weight"),
        LOWERCASE,
        P("whitespace", "bool", False, flags=("--chrf-whitespace",), help="keep whitespace in character n-grams",
          sig="space"),
        P("eps_smoothing", "bool", False, flags=("--chrf-eps-smoothing",),
          help="average per-order F with 1e-16 for undefined values (chrF++.py/NLTK/Moses)",
          sig="eff", sig_fmt=lambda eps: not eps),
    )
    char_order: int = 6
    word_order: int = 0
    beta: float = 2
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


@dataclass(frozen=True)
class CHRFPPConfig(CHRFConfig):
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = tuple(_replace(p, default=2) if p.name == "word_order" else p
                            for p in CHRFConfig.PARAMS)
    word_order: int = 2


def chrf_score(stats, n_orders: int, beta: float, eps_smoothing: bool) -> np.ndarray:
    """chrF (percent) of statistics ``[..., 3 * n_orders]``; same floating-point steps as sacreBLEU."""
    import numpy as np
    s = np.asarray(stats, dtype=np.float64)
    shape = s.shape[:-1]
    factor = beta ** 2
    score = np.zeros(shape)
    eff = np.zeros(shape)
    avg_prec = np.zeros(shape)
    avg_rec = np.zeros(shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n_orders):
            n_hyp, n_ref, n_match = s[..., 3 * i], s[..., 3 * i + 1], s[..., 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / n_hyp, EPS)
            rec = np.where(n_ref > 0, n_match / n_ref, EPS)
            denom = factor * prec + rec
            score = score + np.where(denom > 0, (1 + factor) * prec * rec / denom, EPS)
            valid = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(valid, avg_prec + prec, avg_prec)
            avg_rec = np.where(valid, avg_rec + rec, avg_rec)
            eff = eff + valid
        if eps_smoothing:
            out = 100 * score / n_orders
        else:
            avg_prec = np.where(eff > 0, avg_prec / eff, 0.0)
            avg_rec = np.where(eff > 0, avg_rec / eff, 0.0)
            pos = (avg_prec + avg_rec) != 0
            f = (1 + factor) * avg_prec * avg_rec
            f = f / (factor * avg_prec + avg_rec)
            out = np.where(pos, 100 * f, 0.0)
    return out if out.ndim else float(out)


def chrf_score_py(stats: Sequence[float], n_orders: int, beta: float, eps_smoothing: bool) -> float:
    """:func:`chrf_score` of one row of statistics in Python floats: the same operations in the same order, so
    the same float (tests/kernels/test_ckernels_perf.py)."""
    factor = beta ** 2
    score = eff = avg_prec = avg_rec = 0.0
    for i in range(n_orders):
        n_hyp, n_ref, n_match = stats[3 * i], stats[3 * i + 1], stats[3 * i + 2]
        prec = n_match / n_hyp if n_hyp > 0 else EPS
        rec = n_match / n_ref if n_ref > 0 else EPS
        denom = factor * prec + rec
        score = score + ((1 + factor) * prec * rec / denom if denom > 0 else EPS)
        if n_hyp > 0 and n_ref > 0:
            avg_prec = avg_prec + prec
            avg_rec = avg_rec + rec
            eff = eff + 1.0
    if eps_smoothing:
        return 100 * score / n_orders
    avg_prec = avg_prec / eff if eff > 0 else 0.0
    avg_rec = avg_rec / eff if eff > 0 else 0.0
    if avg_prec + avg_rec == 0:
        return 0.0
    f = (1 + factor) * avg_prec * avg_rec
    f = f / (factor * avg_prec + avg_rec)
    return 100 * f


class CHRF(Metric):
    """``CHRF().corpus(hyps, refs)``; ``CHRF(word_order=2)`` is chrF++."""

    name = "chrf"
    display_name = "chrF2"
    Config = CHRFConfig
    higher_is_better = True
    decomposable = False
    range = (0.0, 100.0)

    def __init__(self, config=None, **params):
        super().__init__(config, **params)
        c = self.config
        self.display_name = f"chrF{c.beta}" + "+" * c.word_order
        cols = []
        for kind, order in (("c", c.char_order), ("w", c.word_order)):
            for n in range(1, order + 1):
                cols += [f"{kind}{n}_hyp", f"{kind}{n}_ref", f"{kind}{n}_match"]
        self.columns = tuple(cols)

    def _validate(self) -> None:
        c = self.config  # fields: their declarations (PARAMS); here: the rule across fields
        if c.char_order + c.word_order < 1:
            raise InvalidParameterError(message("char_order + word_order", "at least 1 (one n-gram order is needed)",
                                                f"{c.char_order} + {c.word_order}"))
        b = c.beta
        object.__setattr__(c, "beta", int(b) if float(b).is_integer() else float(b))

    @property
    def n_orders(self) -> int:
        return self.config.char_order + self.config.word_order

    # -- statistics ----------------------------------------------------------------------------
    def _stats(self, hyps, refs) -> np.ndarray:
        return self._stats_layout(hyps, refs, False)

    def _stats_columns(self, hyps: list[str], ref_columns: list[list[str]]) -> np.ndarray | None:
        """:meth:`_stats` with the references as columns (``ref_columns[k][i]``: reference ``k`` of segment ``i``,
        every entry a str), as streamed partitions read them: no list per segment (backends/local.py)."""
        if type(self)._stats is not CHRF._stats:
            return None  # (a subclass with statistics of its own)
        return self._stats_layout(hyps, ref_columns, True)

    def _stats_layout(self, hyps, refs, by_columns: bool) -> np.ndarray:
        import numpy as np
        from . import _ngram_kernel  # noqa: F401 (registers the reference kernels)
        from ..ckernels import chrf_word_ids, drop_whitespace, ngram_pair_stats, segment_code_points

        c = self.config
        if c.lowercase:
            hyps = [h.lower() for h in hyps]
            refs = [[r.lower() for r in seg] for seg in refs]  # (a segment's references, or a column)
        ws = _whitespace_table()
        # plain chrF reads the code points without whitespace at once; chrF++'s words need the whitespace
        drop = not c.whitespace and c.word_order == 0
        cps, off, seg_text_off = segment_code_points(hyps, refs, ws if drop else None, by_columns)
        counts = np.diff(seg_text_off) - 1
        n_pairs = int(seg_text_off[-1]) - len(counts)
        K = self.n_orders
        pair_stats = np.zeros((n_pairs, 3 * K), dtype=np.float64)
        if c.char_order > 0:
            sym, soff = (cps, off) if c.whitespace or drop else drop_whitespace(cps, off, ws)
            ngram_pair_stats(sym, soff, seg_text_off, c.char_order, pair_stats, 0)
        if c.word_order > 0:
            wids, woff = chrf_word_ids(cps, off, ws)
            ngram_pair_stats(wids, woff, seg_text_off, c.word_order, pair_stats, 3 * c.char_order)
        return _best_reference(pair_stats, counts, K, c.beta, c.eps_smoothing)

    def _stats_systems(self, hyp_columns: Sequence[list[str]], refs) -> list[np.ndarray] | None:
        """:meth:`_stats` of several systems against the same references, each reference's n-grams counted once
        (``compare`` and the drop-in's paired tests score many systems against one reference: per system, half
        of the work is the reference). ``hyp_columns[k]``: system ``k``'s hypotheses (checked text, lists of
        str); ``refs``: sentence-major references or a :class:`~mtscore.metrics.base.RefRows`. Applies to one
        reference per segment; ``None`` otherwise (the caller scores system by system).

        The segments are laid out reference first, then every system, for the n-gram kernel, which counts the
        first text of a segment against each following one: clipped matches ``min(count_ref, count_sys)`` are
        symmetric, so the kernel's rows are each system's statistics with the two counts exchanged. The counts
        are then put in chrF's places: ``ref`` = the reference's n-grams of the order (its length - n + 1),
        ``hyp`` = the system's, 0 where the reference has none (:meth:`_stats`). Same numbers as :meth:`_stats`
        system by system (tests/kernels/test_ckernels_perf.py)."""
        if type(self)._stats is not CHRF._stats or not hyp_columns:
            return None
        import numpy as np
        from .base import RefRows
        if type(refs) is RefRows:
            if len(refs.columns) != 1:
                return None
            ref_col = refs.columns[0]
        else:
            if any(len(seg) != 1 for seg in refs):
                return None
            ref_col = [seg[0] for seg in refs]
        n_seg = len(ref_col)
        if any(len(h) != n_seg for h in hyp_columns):
            return None
        K = len(hyp_columns)
        # segments in blocks of about _BATCH_SYMBOLS code points over all texts (bounded memory)
        total = sum(map(len, ref_col)) + 1
        step = max(1, int(_BATCH_SYMBOLS * n_seg // (total * (K + 1))))
        parts = [self._stats_block(ref_col[a:a + step], [h[a:a + step] for h in hyp_columns])
                 for a in range(0, n_seg, step)] if n_seg else [np.zeros((0, K, 3 * self.n_orders))]
        block = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return [np.ascontiguousarray(block[:, k]) for k in range(K)]

    def _stats_block(self, ref_col: list[str], hyp_columns: list[list[str]]) -> np.ndarray:
        """``out[i, k]``: the statistics row of segment ``i`` of system ``k`` (see :meth:`_stats_systems`)."""
        import numpy as np
        from . import _ngram_kernel  # noqa: F401 (registers the reference kernels)
        from ..ckernels import chrf_word_ids, drop_whitespace, ngram_pair_stats, segment_code_points

        c = self.config
        if c.lowercase:
            ref_col = [r.lower() for r in ref_col]
            hyp_columns = [[h.lower() for h in col] for col in hyp_columns]
        ws = _whitespace_table()
        drop = not c.whitespace and c.word_order == 0
        cps, off, seg_text_off = segment_code_points(ref_col, hyp_columns, ws if drop else None, True)
        n_seg, K, n_orders = len(ref_col), len(hyp_columns), self.n_orders
        swapped = np.zeros((n_seg * K, 3 * n_orders), dtype=np.float64)
        first = seg_text_off[:-1]  # each segment's first text: its reference
        lengths = []
        if c.char_order > 0:
            sym, soff = (cps, off) if c.whitespace or drop else drop_whitespace(cps, off, ws)
            ngram_pair_stats(sym, soff, seg_text_off, c.char_order, swapped, 0)
            lengths += [(soff[first + 1] - soff[first], n) for n in range(1, c.char_order + 1)]
        if c.word_order > 0:
            wids, woff = chrf_word_ids(cps, off, ws)
            ngram_pair_stats(wids, woff, seg_text_off, c.word_order, swapped, 3 * c.char_order)
            lengths += [(woff[first + 1] - woff[first], n) for n in range(1, c.word_order + 1)]
        out = np.empty((n_seg, K, 3 * n_orders), dtype=np.float64)
        sw = swapped.reshape(n_seg, K, 3 * n_orders)
        for j, (ref_len, n) in enumerate(lengths):
            n_ref = np.maximum(ref_len - (n - 1), 0).astype(np.float64)[:, None]
            n_sys = sw[:, :, 3 * j + 1]
            out[:, :, 3 * j] = np.where(n_ref > 0, n_sys, 0.0)
            out[:, :, 3 * j + 1] = n_ref
            out[:, :, 3 * j + 2] = sw[:, :, 3 * j + 2]
        return out

    # -- scoring -------------------------------------------------------------------------------
    def score(self, summed) -> np.ndarray:
        c = self.config
        return chrf_score(summed, self.n_orders, c.beta, c.eps_smoothing)

    def corpus_sums(self, hyps: list[str], refs: list[list[str]]) -> list[float] | None:
        """The column sums of the statistics of a normalised corpus, computed without NumPy (mtscore.runner's path
        for small inputs, as BLEU's :meth:`~mtscore.metrics.bleu.BLEU.corpus_sums`): the compiled kernels of
        :meth:`_stats` on bytearrays, one reference per segment. ``None`` where that does not apply (several
        references on a segment: the best one is chosen by sentence chrF; the reference kernels; a subclass with
        statistics of its own): then the caller takes the usual path. The statistics are whole numbers, so the
        sums are exact and equal to NumPy's."""
        if type(self)._stats is not CHRF._stats or any(len(seg) != 1 for seg in refs):
            return None
        from ..text.fast import _threads, kernel_backend
        if kernel_backend() != "c":
            return None
        try:
            from .. import _cmetrics
        except ImportError:  # not built
            return None
        if not all(hasattr(_cmetrics, k) for k in ("segment_code_points", "drop_whitespace", "chrf_word_ids",
                                                     "ngram_pair_stats")):
            return None  # (a stale development build)
        from array import array
        c = self.config
        if c.lowercase:
            hyps = [h.lower() for h in hyps]
            refs = [[r.lower() for r in seg] for seg in refs]
        ws = _whitespace_bytes()
        drop = not c.whitespace and c.word_order == 0
        cps, off, seg_text_off = _cmetrics.segment_code_points(hyps, refs, ws if drop else None, False)
        n_seg, n_cols = len(hyps), 3 * self.n_orders
        out = bytearray(8 * n_seg * n_cols)
        n_threads = _threads(None, n_seg, per_thread=1024)  # as ckernels.ngram_pair_stats
        passes = []
        if c.char_order > 0:
            passes.append(((cps, off) if c.whitespace or drop else _cmetrics.drop_whitespace(cps, off, ws),
                           c.char_order, 0))
        if c.word_order > 0:
            passes.append((_cmetrics.chrf_word_ids(cps, off, ws), c.word_order, 3 * c.char_order))
        for (sym, soff), order, col0 in passes:
            for lo in range(0, n_seg, _CHUNK_SEGMENTS):  # (Ctrl-C is seen between two calls)
                _cmetrics.ngram_pair_stats(sym, soff, seg_text_off, lo, min(n_seg, lo + _CHUNK_SEGMENTS), order, out,
                                           n_cols, col0, n_threads)
        values = array("d", out)
        return [float(sum(values[j::n_cols])) for j in range(n_cols)]

    def result(self, summed, nrefs: int | str = 1) -> MetricResult:
        """Corpus result of summed statistics: an array, or a list of numbers (from :meth:`corpus_sums`: then
        NumPy is not needed)."""
        return self._result(summed, self.signature(nrefs))

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        c = self.config
        if isinstance(summed, list):  # Python numbers (corpus_sums): chrF in Python floats, the same steps
            s = [float(x) for x in summed]
            score = chrf_score_py(s, self.n_orders, c.beta, c.eps_smoothing)
        else:
            import numpy as np
            s = np.asarray(summed, dtype=np.float64)
            score = float(self.score(s))
        comps = {"char_order": c.char_order, "word_order": c.word_order, "beta": c.beta,
                 "hyp": [int(x) for x in s[0::3]], "ref": [int(x) for x in s[1::3]],
                 "match": [int(x) for x in s[2::3]]}
        return MetricResult(self.name, self.display_name, score, signature, comps, "")

    def signature_items(self, nrefs):
        return self.declared_signature(("nrefs", nrefs), "case", "eff", "nc", "nw", "space")  # sacreBLEU's order


class CHRFPlusPlus(CHRF):
    """chrF++: chrF with word unigrams and bigrams (``word_order=2``)."""

    name = "chrf++"
    display_name = "chrF2++"
    Config = CHRFPPConfig


def _best_reference(pair_stats: np.ndarray, counts: np.ndarray, n_orders: int, beta, eps_smoothing: bool) -> np.ndarray:
    """Per segment, the row of the reference with the highest sentence chrF (first on ties)."""
    import numpy as np
    n_seg = len(counts)
    if n_seg == 0:
        return np.zeros((0, 3 * n_orders))
    if np.all(counts == 1):
        return pair_stats
    f = np.asarray(chrf_score(pair_stats, n_orders, beta, eps_smoothing))
    starts = np.zeros(n_seg, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    seg = np.repeat(np.arange(n_seg), counts)
    best = np.maximum.reduceat(f, starts)
    idx = np.arange(len(f))
    first = np.minimum.reduceat(np.where(f == best[seg], idx, len(f)), starts)
    return pair_stats[first]


def is_chrf(m: Metric) -> bool:
    """chrF or chrF++ with chrF's own statistics (what the pairwise kernel computes)."""
    return isinstance(m, CHRF) and type(m)._stats is CHRF._stats


def chrf_symbols(m: Metric, texts: Sequence[str]):
    """chrF's symbols of every text: ``(c_sym, c_off, w_sym, w_off)`` (characters as code points, without
    whitespace unless ``whitespace=True``; chrF++'s word ids), int64, one row per text."""
    import numpy as np
    from ..ckernels import chrf_word_ids, drop_whitespace, segment_code_points
    from . import _ngram_kernel  # noqa: F401 (registers the reference kernels)
    c = m.config
    texts = [t.lower() for t in texts] if c.lowercase else list(texts)
    ws = _whitespace_table()
    drop = not c.whitespace and c.word_order == 0
    cps, off, _ = segment_code_points(texts, [], ws if drop else None, True)
    c_sym, c_off = (cps, off) if (c.whitespace or drop) else drop_whitespace(cps, off, ws)
    if c.word_order > 0:
        w_sym, w_off = chrf_word_ids(cps, off, ws)
    else:
        w_sym, w_off = np.zeros(0, dtype=np.int64), np.zeros(len(texts) + 1, dtype=np.int64)
    return c_sym, c_off, w_sym, w_off
