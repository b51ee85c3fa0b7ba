"""Minimum-Bayes-risk selection from n-best lists (Kumar & Byrne 2004).

For the candidates ``c_1..c_k`` of a segment with posterior ``p`` (uniform, or a softmax with
temperature ``T`` over the model scores: ``p_j ∝ exp(s_j / T)``) the expected utility of ``c_a`` is

    U(a) = Σ_b p_b · u(c_a as hypothesis, c_b as reference)          (b = a included)

and MBR picks ``argmax_a U(a)`` (for an error metric such as WER, ``argmin`` of the expected loss);
ties go to the earlier candidate. ``u`` is the *sentence* score of any registered metric.

Pairwise utility matrices are computed without redundant work:

* BLEU / BLEU-SBP: every candidate is tokenized and encoded once, its n-gram ids computed once
  (exact ids, :func:`mtscore.text.ngram_ids`); a compiled kernel then builds, per segment, a dense
  (n-gram x candidate) count table and accumulates the clipped matches ``Σ_g min(#_a(g), #_b(g))``
  for all ``k^2`` ordered pairs and all orders; the sentence scores of all pairs come from one
  vectorized :meth:`BLEU.sentence_scores` call on the pair statistics (so they are the metric's own
  sentence BLEU, i.e. sacreBLEU's ``sentence_bleu``).
* chrF / chrF++: the pairwise kernel of :mod:`mtscore.search.pairwise` (character and word n-gram count
  vectors built once per candidate, clipped-min sums over the shared n-grams of each pair, threads over
  segments); the scores are sacreBLEU's ``sentence_score``.
* K-GRR / WRR / WER: candidates encoded once; the metric's own Viterbi / Levenshtein kernels run on
  the pair layout (each pair is inherently O(|a|·|b|)).
* COMET (COMET-DA, ``comet``): every candidate and every source encoded once (per chunk of segments);
  only the estimator runs on the ``k^2`` (hypothesis, pseudo-reference) pairs of each segment
  (:meth:`COMET.pair_utility`).
* any other metric: its ``stats`` on all pairs of a chunk of segments (generic; used by the tests as
  the oracle of the fast paths). Neural metrics (CometKiwi, XCOMET, MetricX) take this path, each pair's
  source from the metric's ``sources=`` file (one line per segment).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .._threadparam import with_threads
from ..ckernels import mbr_clipped_matches, register_reference
from ..errors import InputError, InvalidParameterError
from ..metrics.base import Metric
from ..params import OPTIONS
from ..text import Vocab, ngram_ids
from ..tokenize import tokenize_corpus
from .oracle import Pool, Selection, make_selection
from ..progress import progress

POSTERIORS = ("uniform", "model")
PAIR_CHUNK = 400_000
# metrics whose segment statistics depend on the whole reference corpus (NIST's information weights);
# kept here as well as in Metric.partitionable, which not every metric sets yet
CORPUS_DEPENDENT = {"nist"}  # ordered pairs per vectorized scoring call


def posteriors(pool: Pool, kind: str = "uniform", temperature: float = 1.0) -> np.ndarray:
    """Per-candidate posterior (sums to 1 within each segment)."""
    if kind not in POSTERIORS:
        raise InvalidParameterError.choice("posterior", kind, POSTERIORS)
    sizes = pool.sizes
    seg = pool.seg_of()
    if kind == "uniform":
        return 1.0 / sizes[seg]
    temperature = OPTIONS["temperature"].check(temperature)  # the parameter table's rule (0 < x <= 10^6)
    s = pool.scores
    real = pool.orig >= 0
    if not np.all(np.isfinite(s[real])):
        raise InputError("model posteriors need a model score for every candidate; this n-best list has "
                         "candidates without one (use the uniform posterior)")
    x = np.where(real, s, 0.0) / float(temperature)
    mx = np.maximum.reduceat(x, pool.seg_off[:-1])
    e = np.exp(x - mx[seg])
    z = np.add.reduceat(e, pool.seg_off[:-1])
    return e / z[seg]


# --------------------------------------------------------------------------------------------------
def pairwise_clipped_matches(g, goff, seg_off, pair_off, out, col):
    """``out[pair_off[s] + a*k + b, col] = Σ_g min(#_a(g), #_b(g))`` for all candidates a, b of segment s.

    ``g``: n-gram ids of one order, all candidates concatenated (candidate j owns g[goff[j]:goff[j+1]]).
    """
    n_seg = len(seg_off) - 1
    for s in range(n_seg):
        c0 = seg_off[s]
        k = seg_off[s + 1] - c0
        p0 = goff[c0]
        p1 = goff[c0 + k]
        base = pair_off[s]
        if p1 == p0:
            for q in range(k * k):
                out[base + q, col] = 0.0
            continue
        local = g[p0:p1]
        u = np.unique(local)
        loc = np.searchsorted(u, local)
        G = len(u)
        C = np.zeros((G, k), dtype=np.int32)
        for b in range(k):
            for p in range(goff[c0 + b] - p0, goff[c0 + b + 1] - p0):
                C[loc[p], b] += 1
        acc = np.zeros(k, dtype=np.int64)
        seen = np.full(G, -1, dtype=np.int64)
        for a in range(k):
            for b in range(k):
                acc[b] = 0
            for p in range(goff[c0 + a] - p0, goff[c0 + a + 1] - p0):
                l = loc[p]
                if seen[l] == a:
                    continue
                seen[l] = a
                ca = C[l, a]
                row = C[l]
                for b in range(k):
                    x = row[b]
                    acc[b] += ca if ca < x else x
            for b in range(k):
                out[base + a * k + b, col] = acc[b]


def _pair_index(sizes: np.ndarray, seg_off: np.ndarray):
    """(hyp row, ref row) of every ordered pair, segment-major, a-major within a segment."""
    total = int((sizes.astype(np.int64) ** 2).sum())
    pair_off = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes.astype(np.int64) ** 2, out=pair_off[1:])
    seg = np.repeat(np.arange(len(sizes)), sizes ** 2)
    q = np.arange(total, dtype=np.int64) - pair_off[:-1][seg]
    k = sizes[seg]
    a = seg_off[:-1][seg] + q // k
    b = seg_off[:-1][seg] + q % k
    return a, b, pair_off


def _chunks(sizes: np.ndarray, limit: int = PAIR_CHUNK):
    """Consecutive segment ranges with at most ``limit`` ordered pairs (at least one segment)."""
    sq = sizes.astype(np.int64) ** 2
    i = 0
    n = len(sizes)
    while i < n:
        j, acc = i, 0
        while j < n and (j == i or acc + sq[j] <= limit):
            acc += sq[j]
            j += 1
        yield i, j
        i = j


class PairwiseUtility:
    """Sentence-level utility of every ordered candidate pair within each segment of a pool."""

    def __init__(self, metric: Metric, pool: Pool, method: str = "auto"):
        carried = getattr(metric, "carries_sources", False)  # neural: each pair's source from sources=
        if (not metric.partitionable and not carried) or metric.name in CORPUS_DEPENDENT:
            raise InvalidParameterError(
                f"{metric.name}: its segment statistics depend on the whole corpus; it cannot be an MBR utility")
        self.metric = metric
        self.pool = pool
        name = metric.name
        fast = {"bleu": "bleu", "bleu-sbp": "bleu", "k-grr": "grr", "4-grr": "grr",
                "wer": "wer", "mwer": "wer", "wrr": "wer", "comet": "comet"}.get(name, "generic")
        from ..metrics.chrf import is_chrf
        if is_chrf(metric):
            fast = "chrf"
        if method == "auto":
            method = fast
        elif method not in ("generic", fast):
            raise InvalidParameterError.choice("pairwise method", method, ("auto", "generic", fast))
        self.method = method
        self._prepared = False
        self.src_rows = None
        if carried:  # the source of each pool row (sources= has one line per segment), read now: errors first
            self.src_rows = metric.sources_of_rows(pool.seg_of(), pool.n_segments)

    # -- preparation: per candidate, once ---------------------------------------------------------
    def _prepare(self):
        if self._prepared:
            return
        m = self.metric
        if self.method == "bleu":
            toks = m._preprocess(self.pool.texts)
            self.enc = Vocab().encode(toks)
            self.lens = self.enc.lengths.astype(np.float64)
            self.grams = []
            for gids, rows, _ in ngram_ids([self.enc], m.config.max_order):
                goff = np.zeros(self.enc.n_rows + 1, dtype=np.int64)
                np.cumsum(np.bincount(rows[0], minlength=self.enc.n_rows), out=goff[1:])
                self.grams.append((gids[0].astype(np.int64), goff))
        elif self.method == "chrf":
            from ..metrics.chrf import chrf_symbols
            self.syms = chrf_symbols(m, self.pool.texts)
        elif self.method in ("grr", "wer"):
            c = m.config
            self.enc = Vocab().encode(tokenize_corpus(self.pool.texts, c.tokenize, lowercase=c.lowercase))
            self.lens = self.enc.lengths.astype(np.float64)
        elif self.method == "comet":  # every candidate and source encoded once; the estimator per pair
            self.comet_util = m.pair_utility(list(self.pool.texts), self.src_rows)
        self._prepared = True

    def matrices(self, segments: Sequence[int] | None = None):
        """Yield ``(segment, k x k utility matrix)`` (rows: hypothesis, columns: reference)."""
        self._prepare()
        pool = self.pool
        sizes_all = pool.sizes
        segs = np.arange(pool.n_segments) if segments is None else np.asarray(segments, dtype=np.int64)
        sub_sizes = sizes_all[segs]
        for i, j in _chunks(sub_sizes):
            chunk = segs[i:j]
            util, pair_off = self._chunk_utilities(chunk)
            for t, s in enumerate(chunk):
                k = int(sizes_all[s])
                yield int(s), util[pair_off[t]:pair_off[t + 1]].reshape(k, k)

    def _chunk_utilities(self, chunk: np.ndarray):
        pool = self.pool
        if self.method == "chrf":  # the pairwise kernel: every candidate against every one of its segment
            from ..ckernels import chrf_pairwise
            sizes = pool.sizes[chunk]
            starts = pool.seg_off[:-1][chunk]
            rows = np.concatenate([np.arange(s, s + k) for s, k in zip(starts, sizes)]) if len(chunk) else \
                np.zeros(0, np.int64)
            loc_off = np.zeros(len(chunk) + 1, dtype=np.int64)
            np.cumsum(sizes, out=loc_off[1:])
            c = self.metric.config
            util, off = chrf_pairwise(*self.syms, c.char_order, c.word_order, rows, loc_off,
                                      np.zeros(len(chunk), dtype=np.int64), True, c.beta, c.eps_smoothing)
            pair_off = np.zeros(len(chunk) + 1, dtype=np.int64)
            np.cumsum(sizes.astype(np.int64) ** 2, out=pair_off[1:])
            return util, pair_off
        sizes = pool.sizes[chunk]
        starts = pool.seg_off[:-1][chunk]
        # pool rows of the chunk's candidates, laid out contiguously
        rows = np.concatenate([np.arange(s, s + k) for s, k in zip(starts, sizes)]) if len(chunk) else np.zeros(0, np.int64)
        loc_off = np.zeros(len(chunk) + 1, dtype=np.int64)
        np.cumsum(sizes, out=loc_off[1:])
        a_loc, b_loc, pair_off = _pair_index(sizes, loc_off)
        a, b = rows[a_loc], rows[b_loc]
        m = self.metric
        if self.method == "bleu":
            n = m.config.max_order
            P = len(a)
            strict = bool(getattr(m, "_strict_bp", False))
            stats = np.empty((P, 2 + 2 * n + (1 if strict else 0)))
            stats[:, 0] = self.lens[a]
            stats[:, 1] = self.lens[b]
            for order, (g, goff) in enumerate(self.grams):
                # sub-layout of the chunk's candidates
                cnt = goff[rows + 1] - goff[rows]
                sub_off = np.zeros(len(rows) + 1, dtype=np.int64)
                np.cumsum(cnt, out=sub_off[1:])
                idx = np.repeat(goff[rows] - sub_off[:-1], cnt) + np.arange(int(sub_off[-1]), dtype=np.int64)
                mbr_clipped_matches(g[idx], sub_off, loc_off, pair_off, stats, 2 + order)
                stats[:, 2 + n + order] = np.maximum(self.lens[a] - order, 0.0)
            if strict:
                stats[:, 2 + 2 * n] = np.minimum(stats[:, 0], stats[:, 1])
            util = np.asarray(m.sentence_scores(stats), dtype=np.float64)
        elif self.method in ("grr", "wer"):
            enc = self.enc
            rl = enc.lengths[b]
            r_off = np.zeros(len(b) + 1, dtype=np.int64)
            np.cumsum(rl, out=r_off[1:])
            r_ids = enc.ids[np.repeat(enc.offsets[b] - r_off[:-1], rl) + np.arange(int(r_off[-1]), dtype=np.int64)]
            if self.method == "grr":
                from ..metrics.grr import grr_denominator, grr_numerators, grr_ratio
                c = m.config
                N = grr_numerators(enc.ids, enc.offsets, r_ids, r_off, a, m.k, float(c.insertion_penalty), float(c.deletion_penalty))
                util = np.asarray(grr_ratio(N, grr_denominator(rl, m.k)), dtype=np.float64)
            else:
                from ..metrics.wer import error_rate, levenshtein_pairs
                d = levenshtein_pairs(enc.ids, enc.offsets, r_ids, r_off, a).astype(np.float64)
                util = np.asarray(error_rate(d, rl.astype(np.float64)), dtype=np.float64)
                if m.name == "wrr":
                    util = 1.0 - util
        elif self.method == "comet":
            util = self.comet_util(a, b)
        else:
            texts = pool.texts
            if self.src_rows is not None:  # a neural metric: the source of each pair's hypothesis
                m = m.with_sources([self.src_rows[x] for x in a])
            st = m.stats([texts[x] for x in a], [[texts[y]] for y in b])
            util = np.asarray(m.sentence_scores(st), dtype=np.float64)
        return util, pair_off


@with_threads
def expected_utilities(util: PairwiseUtility, post: np.ndarray) -> np.ndarray:
    """Expected utility of every pool row (against its own segment's candidates)."""
    out = np.zeros(len(util.pool.texts))
    off = util.pool.seg_off
    with progress("MBR", total=len(off) - 1, unit="seg") as bar:
        for s, M in util.matrices():
            p = post[off[s]:off[s + 1]]
            out[off[s]:off[s + 1]] = M @ p
            bar.update(1)
    return out


@with_threads
def mbr_select(pool: Pool, metric: Metric, posterior: str = "uniform", temperature: float = 1.0,
               method: str = "auto") -> Selection:
    """MBR selection with ``metric`` as the sentence-level utility (see the module docstring).

    ``method="aggregate"`` (chrF / chrF++ only, uniform posterior) selects by the *aggregate chrF* utility
    instead -- not chrF: each candidate against all candidates of its segment at once (fastChrF's approximation,
    :func:`mtscore.search.pairwise.aggregate_chrf`); the selection's label and ``utility`` say so."""
    if method == "aggregate":
        return _aggregate_select(pool, metric, posterior)
    post = posteriors(pool, posterior, temperature)
    pu = PairwiseUtility(metric, pool, method)
    eu = expected_utilities(pu, post)
    from .oracle import segment_argbest
    rows = segment_argbest(eu, pool.seg_off, metric.higher_is_better)
    label = f"MBR({metric.display_name}, {posterior}" + (f", T={temperature:g})" if posterior == "model" else ")")
    return make_selection(label, pool, rows, expected_utility=eu[rows], posterior=posterior,
                          temperature=float(temperature), utility=metric.name, pairwise=pu.method)


def _aggregate_select(pool: Pool, metric: Metric, posterior: str) -> Selection:
    from ..ckernels import chrf_pairwise
    from .oracle import segment_argbest
    from ..metrics.chrf import chrf_symbols, is_chrf
    if not is_chrf(metric):
        raise InvalidParameterError(f"MBR method aggregate: needs a chrF metric (chrf, chrf++), got {metric.name!r}")
    if posterior != "uniform":
        raise InvalidParameterError(f"MBR method aggregate: the aggregate chrF utility weighs the candidates "
                                    f"uniformly; posterior must be uniform, got {posterior!r}")
    c = metric.config
    n = len(pool.texts)
    eu, _ = chrf_pairwise(*chrf_symbols(metric, pool.texts), c.char_order, c.word_order, np.arange(n),
                          pool.seg_off, np.zeros(pool.n_segments, dtype=np.int64), True, c.beta, c.eps_smoothing,
                          False, aggregate=True)
    rows = segment_argbest(eu, pool.seg_off, True)
    return make_selection(f"MBR(aggregate {metric.display_name}, uniform)", pool, rows, expected_utility=eu[rows],
                          posterior="uniform", temperature=1.0, utility=f"aggregate-{metric.name}",
                          pairwise="aggregate")


register_reference("mbr_clipped_matches", pairwise_clipped_matches)
