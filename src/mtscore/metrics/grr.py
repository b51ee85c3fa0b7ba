"""K-gram recognition rate (K-GRR, incl. 4-GRR), Chiang et al. 2008 §4.3; docs/definitions.md §5.

    K-GRR(c, r) = max over monotone alignments ( Σ_{k=1}^{K} M_k − α·I − β·D ) / Σ_{k=1}^{K} |g_k(r)|

computed by Viterbi over the (reference position, match-run length) automaton of docs/definitions.md §5.1-5.2 in
O(|c|·|r|·K) -- never by enumerating alignments. A run of L consecutive matches earns
Σ_{j=1}^{L} min(j, K); K = 1 gives WRR. Defaults α = 1 (insertion penalty), β = 0 (deletion
penalty). Scores can be negative; they are not clipped.

Statistics per segment: ``numerator, denominator``.

* One reference: N_i and D_i = Σ_k max(0, |r| − k + 1); corpus = Σ N / Σ D (the paper's
  micro-average; decomposable because D_i does not depend on the system).
* Several references (docs/definitions.md §5.4, **DECISION**; the paper is silent), ``multi_ref_agg``:
  ``"weighted_mean"`` (default): s_i = max_j N_ij / D_ij over references with D_ij > 0, weight
  W_i = mean_j D_ij (all references of the segment), stored as (W_i·s_i, W_i); corpus =
  Σ W_i s_i / Σ W_i -- still decomposable, and identical to Σ N / Σ D for one reference.
  ``"best_ref_micro"``: (N_ij*, D_ij*) of the best reference j* (ties -> larger D_ij); corpus =
  Σ N_ij* / Σ D_ij*; the weights then depend on the system, so this variant is *not* decomposable.
* Empty references (D = 0) are skipped when a segment has another reference. If all references of
  a segment are empty, the segment stores (max_j N_ij, 0): its insertions (−α per token) still count
  in a corpus numerator, it adds no weight. A zero denominator (segment or corpus) scores 1.0 when
  the numerator is 0 (e.g. empty hypothesis) and 0.0 otherwise (like WRR = 1 − WER with WER = 1).

:func:`grr_align` returns the best alignment (edit operations) of one pair.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Hashable, Sequence

import numpy as np

from ..errors import InvalidParameterError
from ..params import LOWERCASE, TOKENIZE, config_params, validate_config, Param as P
from ._common import EncodedCorpus, check_param, encode_corpus, fmt_num, num
from .base import Metric, MetricResult
from ..ckernels import grr_align as _grr_align  # compiled kernel; _grr_align_kernel is its reference
from ..ckernels import grr_numerators  # compiled kernel; grr_numerators_ref is its reference

MULTI_REF_AGGS = ("weighted_mean", "best_ref_micro")
MAX_K = 64
OPS = ("match", "sub", "ins", "del")


# --------------------------------------------------------------------------------------------------
# kernels
def grr_numerators_ref(h_ids, h_off, r_ids, r_off, pair_seg, K, alpha, beta):
    """Viterbi numerator max(Σ_k M_k − α I − β D) of every (segment, reference) pair.

    Layer = states after consuming t candidate tokens. ``V0[i]`` = value of (i, m=0), ``B[i]`` = max over m
    of (i, m). States with m >= 1 exist only where the last candidate token matched r[i-1]; they live in
    ``M[layer parity, i, m]`` and are valid only when ``stamp[parity, i]`` equals the layer's clock, so
    nothing needs clearing between layers or pairs.
    """
    n_pairs = len(r_off) - 1
    out = np.empty(n_pairs, dtype=np.float64)
    max_r = 0
    for p in range(n_pairs):
        if r_off[p + 1] - r_off[p] > max_r:
            max_r = r_off[p + 1] - r_off[p]
    V0 = np.empty(max_r + 1)
    B = np.empty(max_r + 1)
    nV0 = np.empty(max_r + 1)
    nB = np.empty(max_r + 1)
    KM = K if K > 1 else 2
    M = np.empty((2, max_r + 1, KM))
    stamp = np.full((2, max_r + 1), -10, dtype=np.int64)
    clock = 0
    neg = -np.inf
    for p in range(n_pairs):
        s = pair_seg[p]
        hs = h_off[s]
        n = h_off[s + 1] - hs
        rs = r_off[p]
        R = r_off[p + 1] - rs
        V0[0] = 0.0
        B[0] = 0.0
        for i in range(1, R + 1):
            V0[i] = V0[i - 1] - beta
            B[i] = V0[i]
        clock += 2  # layer 0 of this pair has no m >= 1 states
        cur = 0
        for t in range(n):
            clock += 1
            nxt = 1 - cur
            w = h_ids[hs + t]
            for i in range(R + 1):
                v = B[i] - alpha  # insertion: (i, m) -> (i, 0)
                if i >= 1:
                    x = B[i - 1]  # substitution: (i-1, m) -> (i, 0)
                    if x > v:
                        v = x
                    x = nB[i - 1] - beta  # deletion inside the new layer: (i-1, m) -> (i, 0)
                    if x > v:
                        v = x
                    if r_ids[rs + i - 1] == w:  # match: (i-1, m) -> (i, min(m+1, K-1)), gain m+1
                        if K == 1:
                            x = V0[i - 1] + 1.0
                            if x > v:
                                v = x
                            nb = v
                        else:
                            for mm in range(1, K):
                                M[nxt, i, mm] = neg
                            M[nxt, i, 1] = V0[i - 1] + 1.0
                            if stamp[cur, i - 1] == clock - 1:
                                for m in range(1, K):
                                    y = M[cur, i - 1, m]
                                    if y > neg:
                                        tgt = m + 1 if m + 1 < K else K - 1
                                        y += m + 1
                                        if y > M[nxt, i, tgt]:
                                            M[nxt, i, tgt] = y
                            stamp[nxt, i] = clock
                            nb = v
                            for mm in range(1, K):
                                if M[nxt, i, mm] > nb:
                                    nb = M[nxt, i, mm]
                    else:
                        nb = v
                else:
                    nb = v
                nV0[i] = v
                nB[i] = nb
            V0, nV0 = nV0, V0
            B, nB = nB, B
            cur = nxt
        out[p] = B[R]
    return out


def _grr_align_kernel(c, r, K, alpha, beta):
    """Dense Viterbi with back-pointers for one pair; returns (numerator, ops[::-1] as (op, t, i) rows)."""
    n = len(c)
    R = len(r)
    neg = -np.inf
    dp = np.full((n + 1, R + 1, K), neg)
    bop = np.full((n + 1, R + 1, K), -1, dtype=np.int64)
    bi = np.zeros((n + 1, R + 1, K), dtype=np.int64)
    bm = np.zeros((n + 1, R + 1, K), dtype=np.int64)
    dp[0, 0, 0] = 0.0
    for t in range(n + 1):
        if t > 0:
            w = c[t - 1]
            for i in range(R + 1):
                for m in range(K):
                    v = dp[t - 1, i, m]
                    if v == neg:
                        continue
                    if i < R and w == r[i]:  # match
                        tgt = m + 1 if m + 1 < K else K - 1
                        x = v + m + 1
                        if x > dp[t, i + 1, tgt]:
                            dp[t, i + 1, tgt] = x
                            bop[t, i + 1, tgt] = 0
                            bi[t, i + 1, tgt] = i
                            bm[t, i + 1, tgt] = m
                    if i < R:  # substitution
                        if v > dp[t, i + 1, 0]:
                            dp[t, i + 1, 0] = v
                            bop[t, i + 1, 0] = 1
                            bi[t, i + 1, 0] = i
                            bm[t, i + 1, 0] = m
                    x = v - alpha  # insertion
                    if x > dp[t, i, 0]:
                        dp[t, i, 0] = x
                        bop[t, i, 0] = 2
                        bi[t, i, 0] = i
                        bm[t, i, 0] = m
        for i in range(R):  # deletions within layer t, increasing i
            for m in range(K):
                v = dp[t, i, m]
                if v == neg:
                    continue
                x = v - beta
                if x > dp[t, i + 1, 0]:
                    dp[t, i + 1, 0] = x
                    bop[t, i + 1, 0] = 3
                    bi[t, i + 1, 0] = i
                    bm[t, i + 1, 0] = m
    best_m = 0
    for m in range(1, K):
        if dp[n, R, m] > dp[n, R, best_m]:
            best_m = m
    score = dp[n, R, best_m]
    ops = np.empty((n + R, 3), dtype=np.int64)
    k = 0
    t = n
    i = R
    m = best_m
    while t > 0 or i > 0:
        op = bop[t, i, m]
        pi = bi[t, i, m]
        pm = bm[t, i, m]
        if op == 0 or op == 1:
            ops[k, 0] = op
            ops[k, 1] = t - 1
            ops[k, 2] = pi
            t -= 1
        elif op == 2:
            ops[k, 0] = op
            ops[k, 1] = t - 1
            ops[k, 2] = -1
            t -= 1
        else:
            ops[k, 0] = 3
            ops[k, 1] = -1
            ops[k, 2] = pi
        i = pi
        m = pm
        k += 1
    return score, ops[:k][::-1].copy()


def grr_denominator(ref_len, k: int):
    """Σ_{j=1}^{k} max(0, |r| − j + 1) (vectorized over reference lengths)."""
    L = np.asarray(ref_len, dtype=np.float64)[..., None]
    return np.maximum(L - np.arange(k), 0.0).sum(-1)


def grr_ratio(numerator, denominator):
    """N / D with D == 0 -> 1.0 if N == 0 else 0.0 (vectorized)."""
    n = np.asarray(numerator, dtype=np.float64)
    d = np.asarray(denominator, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(d > 0, n / np.where(d > 0, d, 1.0), np.where(n == 0, 1.0, 0.0))
    return out if out.ndim else float(out)


def _check_params(k, alpha, beta):
    return (check_param(KGRRConfig, "k", k), float(check_param(KGRRConfig, "insertion_penalty", alpha, "alpha")),
            float(check_param(KGRRConfig, "deletion_penalty", beta, "beta")))


@dataclass(frozen=True)
class GRRAlignment:
    """Best alignment of one candidate/reference pair.

    ``ops``: (op, hyp_index, ref_index) in order; op in match / sub / ins (ref_index None) /
    del (hyp_index None).
    """

    score: float
    numerator: float
    denominator: float
    ops: list


def grr_align(hyp_tokens: Sequence[Hashable], ref_tokens: Sequence[Hashable], k: int = 4, alpha: float = 1.0,
              beta: float = 0.0) -> GRRAlignment:
    """K-GRR of one token pair with its best alignment (Viterbi back-pointers)."""
    k, alpha, beta = _check_params(k, alpha, beta)
    ids: dict = {}
    c = np.array([ids.setdefault(t, len(ids)) for t in hyp_tokens], dtype=np.int64)
    r = np.array([ids.setdefault(t, len(ids)) for t in ref_tokens], dtype=np.int64)
    numer, ops = _grr_align(c, r, k, alpha, beta)
    denom = float(grr_denominator(len(r), k))
    out = [(OPS[o], None if t < 0 else int(t), None if i < 0 else int(i)) for o, t, i in ops.tolist()]
    return GRRAlignment(float(grr_ratio(numer, denom)), float(numer), denom, out)


def grr_pair_numerators(enc: EncodedCorpus, k: int, alpha: float, beta: float) -> np.ndarray:
    return grr_numerators(enc.hyp.ids, enc.hyp.offsets, enc.ref.ids, enc.ref.offsets, enc.pair_seg,
                          k, float(alpha), float(beta))


def aggregate_refs(N: np.ndarray, D: np.ndarray, seg_start: np.ndarray, how: str) -> np.ndarray:
    """Per-pair (N, D) -> per-segment (numerator, denominator) as documented in the module."""
    n_seg = len(seg_start) - 1
    if n_seg == 0:
        return np.zeros((0, 2))
    starts = seg_start[:-1]
    counts = np.diff(seg_start)
    seg = np.repeat(np.arange(n_seg), counts)
    pos = D > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(pos, N / np.where(pos, D, 1.0), -np.inf)
    best = np.maximum.reduceat(ratio, starts)
    has = np.isfinite(best)
    # j*: best ratio, ties -> larger denominator (then the first)
    cand = np.where(pos & (ratio == best[seg]), D, -1.0)
    best_d = np.maximum.reduceat(cand, starts)
    is_best = pos & (ratio == best[seg]) & (D == best_d[seg])
    first = np.full(n_seg, -1, dtype=np.int64)
    idx = np.flatnonzero(is_best)
    first[seg[idx[::-1]]] = idx[::-1]  # smallest index wins
    maxN = np.maximum.reduceat(N, starts)
    num_ = np.where(has, N[np.maximum(first, 0)], maxN)
    den = np.where(has, D[np.maximum(first, 0)], 0.0)
    if how == "weighted_mean":
        W = np.add.reduceat(D, starts) / counts
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(has, W / np.where(den > 0, den, 1.0), 1.0)
        num_ = np.where(has, num_ * factor, num_)
        den = np.where(has, W, 0.0)
    return np.column_stack([num_, den])


# --------------------------------------------------------------------------------------------------
# K-GRR's parameters (4-GRR: the same without k); docs/contributing-a-metric.md
_KGRR_PARAMS = (
    P("k", "int", 4, lo=1, hi=64, flags=("--grr-k",), help="K: longest n-gram run rewarded", sig="k"),
    P("insertion_penalty", "float", 1.0, lo=-1.0e3, hi=1.0e3, aliases=("alpha",),
      flags=("--grr-insertion-penalty",), deprecated_flags=("--grr-alpha",),
      help="penalty per inserted hypothesis word (Chiang et al.'s alpha)", sig="alpha", sig_fmt=lambda a: f"{a:g}"),
    P("deletion_penalty", "float", 0.0, lo=-1.0e3, hi=1.0e3, aliases=("beta",),
      flags=("--grr-deletion-penalty",), deprecated_flags=("--grr-beta",),
      help="penalty per deleted reference word (Chiang et al.'s beta)", sig="beta", sig_fmt=lambda b: f"{b:g}"),
    P("multi_ref", "choice", "weighted_mean", choices=("weighted_mean", "best_ref_micro"),
      aliases=("multi_ref_agg",), flags=("--grr-multi-ref",),
      help="several references: weighted mean or best reference", sig="agg", sig_when="not_default"),
    TOKENIZE, LOWERCASE,
)


@dataclass(frozen=True)
class FourGRRConfig:
    PARAMS: ClassVar = tuple(p for p in _KGRR_PARAMS if p.name != "k")  # docs/contributing-a-metric.md
    insertion_penalty: float = 1.0  # Chiang et al.'s alpha (old name: alpha)
    deletion_penalty: float = 0.0  # Chiang et al.'s beta (old name: beta)
    multi_ref: str = "weighted_mean"  # old name: multi_ref_agg
    tokenize: str = "13a"
    lowercase: bool = False

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


@dataclass(frozen=True)
class KGRRConfig:
    PARAMS: ClassVar = _KGRR_PARAMS  # docs/contributing-a-metric.md
    k: int = 4
    insertion_penalty: float = 1.0
    deletion_penalty: float = 0.0
    multi_ref: str = "weighted_mean"
    tokenize: str = "13a"
    lowercase: bool = False

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


class KGRR(Metric):
    """General K-GRR (``k`` parameter, default 4). ``KGRR(k=2, alpha=0.5).corpus(hyps, refs)``."""

    name = "k-grr"
    display_name = "K-GRR"
    Config = KGRRConfig
    columns = ("numerator", "denominator")
    higher_is_better = True
    decomposable = True
    range = (float("-inf"), 1.0)
    table_scale = 100.0  # tables print it on 0..100 (the API keeps 0..1)

    def __init__(self, config=None, **params):
        super().__init__(config, **params)
        self.display_name = f"{self.k}-GRR"
        self.decomposable = self.config.multi_ref == "weighted_mean"

    @property
    def k(self) -> int:
        return getattr(self.config, "k", 4)

    def _validate(self) -> None:
        """Every field is checked by its declaration (the Config's PARAMS)."""

    def _stats(self, hyps, refs) -> np.ndarray:
        c = self.config
        enc = encode_corpus(hyps, refs, c.tokenize, c.lowercase)
        N = grr_pair_numerators(enc, self.k, c.insertion_penalty, c.deletion_penalty)
        D = grr_denominator(enc.ref.lengths, self.k)
        return aggregate_refs(N, D, enc.seg_start, c.multi_ref)

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        return grr_ratio(s[..., 0], s[..., 1])

    def _result(self, summed, signature: str, sentence: bool = False) -> MetricResult:
        s = np.asarray(summed, dtype=np.float64)
        comps = {"numerator": num(s[0]), "denominator": num(s[1])}
        detail = f"(numerator = {fmt_num(s[0])} denominator = {fmt_num(s[1])})"
        return MetricResult(self.name, self.display_name, float(self.score(s)), signature, comps, detail)

    def signature_items(self, nrefs):
        k = "k" if "k" in config_params(self.config) else ("k", self.k)  # 4-GRR: no parameter, K = 4
        return self.declared_signature(("nrefs", nrefs), "case", "tok", k, "alpha", "beta", "agg")


class FourGRR(KGRR):
    """4-GRR of Chiang et al. (2008): K-GRR with K = 4."""

    name = "4-grr"
    display_name = "4-GRR"
    Config = FourGRRConfig

# the reference(s) of the compiled kernel(s): mtscore.ckernels dispatches here without importing this module
from ..ckernels import register_reference  # noqa: E402

register_reference("grr_numerators", grr_numerators_ref)
register_reference("grr_align", _grr_align_kernel)
