"""Oracle (best-scoring) path of a word lattice under K-GRR / WRR (docs/definitions.md §5.5).

Product of the lattice with the K-GRR automaton (states ``(q, i, m)``: lattice state, reference
position, current match-run length capped at K-1) and Viterbi over it. Lattice states are in
topological order and, within a state, reference positions increase, so one sweep visits every
product state after all its predecessors (deletions stay in q and increase i; every arc increases
q). The kernel (compiled: ``_cmetrics.lattice_viterbi``; :func:`lattice_viterbi` here is its reference
implementation) works on flat arrays of arcs sorted by source state and keeps back-pointers;
cost O(|arcs| · |r| · K) time and O(|states| · |r| · K) memory.

Objective for one reference r_j: ``N_j(path) / D_j + λ · S(path)``, where N_j is the K-GRR
numerator (Σ_k M_k − α I − β D), D_j the denominator Σ_k max(0, |r_j| − k + 1) and S the path's
model score (Σ arc scores + final score); in the kernel all gains are scaled by D_j
(``N + λ D_j S``), which has the same maximiser. With several references the oracle runs once per
reference and keeps the best objective (docs/definitions.md §5.4: the sentence score is the best ratio over
references). References with D_j = 0 are skipped when another has D_j > 0.

WRR (``metric="wrr"``) is K = 1, α = 1, β = 0 with the mWER rule for several references: segment
score ``1 − min_j (|r_j| − N_j) / L̄`` (``|r_j| − N_j`` is the edit distance, L̄ the mean reference
length), exactly the ``wrr`` metric's sentence score.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .._threadparam import with_threads
from ..ckernels import lattice_viterbi as _viterbi
from ..ckernels import register_reference
from ..errors import InvalidParameterError, plural
from ..metrics._common import check_param
from ..metrics.grr import KGRRConfig
from ..params import OPTIONS
from ..tokenize import tokenize_corpus
from .lattice import Lattice, build_lattice

OPS = ("match", "sub", "ins", "del", "eps")


def lattice_viterbi(arc_off, arc_dst, arc_lab, arc_w, final_w, start, r, K, alpha, beta, lam):
    """Best value of N + lam·S over lattice paths; returns (value, numerator, model score, ops rows).

    ``ops`` rows (op, arc, ref_index): op 0 match, 1 sub, 2 ins, 3 del (arc -1), 4 epsilon arc.
    """
    Q = len(arc_off) - 1
    R = len(r)
    neg = -np.inf
    size = Q * (R + 1) * K
    V = np.full(size, neg)
    bcell = np.full(size, -1, dtype=np.int64)
    barc = np.full(size, -1, dtype=np.int64)
    bop = np.full(size, -1, dtype=np.int8)
    V[(start * (R + 1)) * K] = 0.0
    for q in range(start, Q):
        for i in range(R + 1):
            for m in range(K):
                cell = (q * (R + 1) + i) * K + m
                v = V[cell]
                if v == neg:
                    continue
                if i < R:  # deletion: (q, i, m) -> (q, i+1, 0)
                    t = (q * (R + 1) + i + 1) * K
                    x = v - beta
                    if x > V[t]:
                        V[t] = x
                        bcell[t] = cell
                        barc[t] = -1
                        bop[t] = 3
                for j in range(arc_off[q], arc_off[q + 1]):
                    q2 = arc_dst[j]
                    w = arc_lab[j]
                    gain = lam * arc_w[j]
                    if w < 0:  # epsilon arc: (q, i, m) -> (q2, i, m)
                        t = (q2 * (R + 1) + i) * K + m
                        x = v + gain
                        if x > V[t]:
                            V[t] = x
                            bcell[t] = cell
                            barc[t] = j
                            bop[t] = 4
                        continue
                    t = (q2 * (R + 1) + i) * K  # insertion: -> (q2, i, 0)
                    x = v + gain - alpha
                    if x > V[t]:
                        V[t] = x
                        bcell[t] = cell
                        barc[t] = j
                        bop[t] = 2
                    if i < R:
                        t = (q2 * (R + 1) + i + 1) * K  # substitution: -> (q2, i+1, 0)
                        x = v + gain
                        if x > V[t]:
                            V[t] = x
                            bcell[t] = cell
                            barc[t] = j
                            bop[t] = 1
                        if w == r[i]:  # match: -> (q2, i+1, min(m+1, K-1)), gain m+1
                            mm = m + 1 if m + 1 < K else K - 1
                            t = (q2 * (R + 1) + i + 1) * K + mm
                            x = v + gain + m + 1
                            if x > V[t]:
                                V[t] = x
                                bcell[t] = cell
                                barc[t] = j
                                bop[t] = 0
    best = neg
    best_cell = -1
    best_q = -1
    for q in range(Q):
        fw = final_w[q]
        if fw == neg:
            continue
        for m in range(K):
            cell = (q * (R + 1) + R) * K + m
            if V[cell] == neg:
                continue
            x = V[cell] + lam * fw
            if x > best:
                best = x
                best_cell = cell
                best_q = q
    if best_cell < 0:
        return neg, neg, neg, np.zeros((0, 3), dtype=np.int64)
    # back-trace
    n_ops = 0
    c = best_cell
    while bcell[c] >= 0:
        n_ops += 1
        c = bcell[c]
    ops = np.empty((n_ops, 3), dtype=np.int64)
    numer = 0.0
    model = final_w[best_q]
    c = best_cell
    k = n_ops - 1
    while bcell[c] >= 0:
        p = bcell[c]
        op = bop[c]
        pm = p % K
        pi = (p // K) % (R + 1)
        ops[k, 0] = op
        ops[k, 1] = barc[c]
        ops[k, 2] = pi
        if op == 0:
            numer += pm + 1
        elif op == 2:
            numer -= alpha
            ops[k, 2] = -1
        elif op == 3:
            numer -= beta
        elif op == 4:
            ops[k, 2] = -1
        if barc[c] >= 0:
            model += arc_w[barc[c]]
        k -= 1
        c = p
    return best, numer, model, ops


@dataclass(frozen=True)
class LatticeOracle:
    """Best path of a lattice: tokens, sentence score, the objective (score + λ·model), alignment.

    ``alignment``: (op, hyp_index, ref_index) like :func:`mtscore.metrics.grr.grr_align`
    (ops match / sub / ins / del), against reference ``ref_index`` (0-based) of the segment.
    """

    tokens: list
    score: float
    objective: float
    numerator: float
    denominator: float
    model_score: float
    ref_index: int
    alignment: list
    arcs: list  # lattice arc indices along the path (epsilon arcs included)

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


def _prepare(lat: Lattice, tokenize: str, lowercase: bool) -> Lattice:
    """Apply the metric's tokenizer to every arc label (multi-token labels become chains)."""
    if tokenize == "none" and not lowercase:
        if all(lab is None or len(lab.split()) == 1 for lab in lat.labels):
            return lat
    words = [lab for lab in lat.labels if lab is not None]
    toks = tokenize_corpus(words, tokenize, lowercase=lowercase) if words else []
    it = iter(toks)
    labels = [None if lab is None else (next(it) or None) for lab in lat.labels]
    fin = {int(q): float(lat.final[q]) for q in np.flatnonzero(np.isfinite(lat.final))}
    return build_lattice(lat.n_states, lat.start, lat.src, lat.dst, labels, lat.weight, fin, lat.name,
                         lat.state_names, lat.arc_where)


METRICS = ("4-grr", "k-grr", "wrr")


def _empty_reference(lat: Lattice, arc_off, lab, r, k, alpha, beta, lam):
    """All references empty (denominator 0): the score is 1 for a path with numerator 0 (no words,
    or α = 0) and 0 otherwise, so the best objective is max(1 + λ·S over word-free paths, λ·S over all
    paths). Returns (numerator, model score, ops) of the winner."""
    # best model path over all paths (α = 0 makes the numerator 0 on every path: model score only)
    _, _, model_all, ops_all = _viterbi(arc_off, lat.dst, lab, lat.weight, lat.final, lat.start, r, k,
                                               0.0, beta, lam if lam != 0 else 0.0)
    n_words_all = int(np.sum(ops_all[:, 0] != 4)) if len(ops_all) else 0
    numer_all = -alpha * n_words_all
    cands = [((1.0 if numer_all == 0 else 0.0) + lam * model_all, numer_all, model_all, ops_all)]
    keep = np.flatnonzero(lab < 0)  # epsilon arcs only
    if alpha != 0 and len(keep):
        src = lat.src[keep]
        off = np.searchsorted(src, np.arange(lat.n_states + 1)).astype(np.int64)
        val, _, model_e, ops_e = _viterbi(off, lat.dst[keep], lab[keep], lat.weight[keep], lat.final,
                                                 lat.start, r, k, alpha, beta, lam)
        if np.isfinite(val):
            ops_e = ops_e.copy()
            ops_e[:, 1] = keep[ops_e[:, 1]]
            cands.append((1.0 + lam * model_e, 0.0, model_e, ops_e))
    best = max(cands, key=lambda c: c[0])  # first on ties
    return best[1], best[2], best[3]


@with_threads
def lattice_oracle(lat: Lattice, refs: Sequence[str] | str, metric: str = "4-grr", k: int = 4, alpha: float = 1.0,
                   beta: float = 0.0, lam: float = 0.0, tokenize: str = "none", lowercase: bool = False) -> LatticeOracle:
    """Oracle path of ``lat`` against the reference(s) ``refs`` (see the module docstring).

    ``metric``: "4-grr" (K = 4), "k-grr" (``k``) or "wrr" (K = 1, α = 1, β = 0). References are
    tokenized with ``tokenize`` (default "none": whitespace), and so are the arc labels.
    """
    if metric not in METRICS:
        raise InvalidParameterError.choice("metric", metric, METRICS)
    if metric == "4-grr":
        k = 4
    if metric == "wrr":
        k, alpha, beta = 1, 1.0, 0.0
    k = check_param(KGRRConfig, "k", k)
    alpha = float(check_param(KGRRConfig, "insertion_penalty", alpha, "alpha"))
    beta = float(check_param(KGRRConfig, "deletion_penalty", beta, "beta"))
    lam = float(OPTIONS["lam"].check(lam, "lambda"))
    check_param(KGRRConfig, "tokenize", tokenize)
    check_param(KGRRConfig, "lowercase", lowercase)
    refs = [refs] if isinstance(refs, str) else list(refs)
    if not refs:
        raise InvalidParameterError("refs: at least one reference is needed")
    lat = _prepare(lat, tokenize, lowercase)
    vocab: dict[str, int] = {}
    ref_tok = [t.split() for t in tokenize_corpus(refs, tokenize, lowercase=lowercase)]
    r_ids = [np.array([vocab.setdefault(w, len(vocab)) for w in toks], dtype=np.int64) for toks in ref_tok]
    lab = np.array([-1 if w is None else vocab.get(w, len(vocab) + 1) for w in lat.labels], dtype=np.int64)
    # unknown words all share one id that matches no reference token
    arc_off = lat.arc_off
    lens = np.array([len(x) for x in r_ids], dtype=np.float64)
    if metric == "wrr":
        Lbar = float(lens.mean())
        denoms = np.full(len(refs), Lbar)
        use = np.arange(len(refs))
    else:
        denoms = np.maximum(lens[:, None] - np.arange(k)[None, :], 0.0).sum(1)
        use = np.flatnonzero(denoms > 0)
        if len(use) == 0:
            use = np.arange(len(refs))
    best = None
    for j in use:
        D = float(denoms[j])
        if D > 0:
            val, numer, model, ops = _viterbi(arc_off, lat.dst, lab, lat.weight, lat.final, lat.start,
                                                     r_ids[j], k, alpha, beta, lam * D)
        else:
            numer, model, ops = _empty_reference(lat, arc_off, lab, r_ids[j], k, alpha, beta, lam)
        if metric == "wrr":
            edits = lens[j] - numer
            score = 1.0 - (edits / D if D > 0 else (1.0 if edits > 0 else 0.0))
        else:
            score = numer / D if D > 0 else (1.0 if numer == 0 else 0.0)
        obj = score + lam * model
        if best is None or obj > best[0]:
            best = (obj, score, numer, D, model, int(j), ops)
    obj, score, numer, D, model, j, ops = best
    tokens, align, arcs = [], [], []
    for op, arc, ri in ops.tolist():
        if arc >= 0:
            arcs.append(int(arc))
        if op == 4:
            continue
        if op == 3:
            align.append(("del", None, int(ri)))
            continue
        align.append((OPS[op], len(tokens), None if op == 2 else int(ri)))
        tokens.append(lat.labels[arc])
    if metric != "wrr":
        D_report = D
    else:
        D_report = float(denoms[j])
    return LatticeOracle(tokens, float(score), float(obj), float(numer), D_report, float(model), j, align, arcs)


@dataclass(frozen=True)
class LatticeOracleRun:
    """The oracle paths of a test set's lattices (``mtscore lattice``) and their corpus score."""

    label: str  # the metric as shown: 4-GRR, K-GRR, WRR
    lam: float
    oracles: list  # LatticeOracle per segment
    sizes: list  # (states, arcs) per lattice
    corpus: object  # MetricResult of the oracle paths against the references


@with_threads
def lattice_oracles(lats: Sequence[Lattice], refs: Sequence[Sequence[str]], metric: str = "4-grr", k: int = 4,
                    alpha: float = 1.0, beta: float = 0.0, lam: float = 0.0, tokenize: str = "none",
                    lowercase: bool = False) -> LatticeOracleRun:
    """:func:`lattice_oracle` of every lattice (``refs`` sentence-major), and the corpus score of the paths."""
    from ..metrics.registry import get_metric
    if len(lats) != len(refs):
        raise InvalidParameterError(f"lattices: {plural(len(lats), 'lattice')} for {plural(len(refs), 'reference segment')}")
    oracles = [lattice_oracle(lat, seg_refs, metric, k, alpha, beta, lam, tokenize, lowercase)
               for lat, seg_refs in zip(lats, refs)]
    if metric == "wrr":
        m = get_metric("wrr", tokenize=tokenize, lowercase=lowercase)
    else:
        k = 4 if metric == "4-grr" else k
        m = get_metric("k-grr", k=k, insertion_penalty=alpha, deletion_penalty=beta, tokenize=tokenize,
                       lowercase=lowercase)
    label = {"4-grr": "4-GRR", "wrr": "WRR"}.get(metric, f"{k}-GRR")
    return LatticeOracleRun(label, float(lam), oracles, [(lat.n_states, lat.n_arcs) for lat in lats],
                            m.corpus([o.text for o in oracles], refs))


register_reference("lattice_viterbi", lattice_viterbi)
