"""Train ROSE models on human judgments (docs/definitions.md §7; scikit-learn underneath, extra ``train``).

* regression (ROSE-reg): ``LinearSVR(epsilon=0.1, C=1/mean||z||^2, loss="epsilon_insensitive")``
  on standardized features z and the human segment scores (SVM-light ``-z r -t 0`` defaults);
* ranking (ROSE-rank): RankSVM = ``LinearSVC(loss="hinge", fit_intercept=False, C=1/mean||z||^2)``
  on difference vectors ``z_a - z_b`` of pairs of systems on the same segment whose human scores
  differ (SVM-light ``-z p``: constraints only for pairs with different targets), label
  ``sign(y_a - y_b)``; a seeded half of the pairs is flipped so that both classes are present.
* polynomial / RBF kernels (the paper's kernel comparison, Table 3): ``SVR`` / a kernel RankSVM
  (``SVC`` on the precomputed pair kernel ``K(a,c) - K(a,d) - K(b,c) + K(b,d)``); C = 1/mean K(z,z).
  Kernel training is quadratic in the examples, so at most ``max_examples`` examples / ``max_pairs``
  pairs (a seeded sample) are used. The model stores its support points in JSON.

Everything is deterministic for a fixed ``seed`` (liblinear/libsvm get ``random_state=seed``; pair
flipping and sampling use ``numpy.random.default_rng(seed)``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from .._threadparam import with_threads
from .._version import __version__
from ..errors import InputError, InvalidParameterError, OptionalDependencyError
from ..metrics.rose_features import ALL_FEATURES, CORE_FEATURES, FEATURES_VERSION, extract_features
from .model import KERNELS, OBJECTIVES, RoseModel, kernel_matrix
from ..progress import track
from ..params import DEFAULT_SEED


@dataclass
class TrainingData:
    """Feature rows with human scores; ``group`` = one id per (language pair, segment)."""

    X: np.ndarray
    y: np.ndarray
    group: np.ndarray
    system: list[str]
    features: tuple[str, ...]
    description: dict = field(default_factory=dict)


def _sklearn():
    try:
        import sklearn  # noqa: F401
        from sklearn import svm
    except ImportError:
        raise OptionalDependencyError("training ROSE models", "scikit-learn", "train") from None
    return svm


@with_threads
def collect_mtme(root, lps: Sequence[str], human: str = "mqm", *, pos: str | None = None, ref: str | None = None,
                 tokenize: str = "13a", lowercase: bool = False, function_words: frozenset[str] = frozenset(),
                 function_words_name: str = "en") -> TrainingData:
    """Features and human segment scores of every MT system of each language pair (mt-metrics-eval layout).

    Human references that appear as systems are excluded; segments the humans did not rate are dropped.
    """
    from ..io.wmt import load_mtme

    root = Path(root)
    Xs, ys, groups, systems, files = [], [], [], [], []
    offset = 0
    for lp in track(list(lps), "ROSE features", unit="lp"):
        data = load_mtme(root, lp)
        scores = data.human_scores(human, "seg")
        r = ref or data.std_ref()
        if r not in data.refs:
            raise InvalidParameterError.choice("ref", r, sorted(data.refs))
        syss = {k: v for k, v in data.mt_systems().items()
                if k in scores and any(s is not None for s in scores[k])}
        if len(syss) < 2:
            raise InputError(f"training data: {lp} has {len(syss)} system(s) with {human} scores; "
                             "ROSE training needs at least two systems per language pair", str(root))
        names = sorted(syss)
        n = data.n_segments
        hyps = [h for s in names for h in syss[s]]
        refs = [[x] for _ in names for x in data.refs[r]]
        X = extract_features(hyps, refs, tokenize=tokenize, lowercase=lowercase, function_words=function_words, pos=pos)
        y = np.array([np.nan if v is None else v for s in names for v in scores[s]], dtype=np.float64)
        g = np.tile(np.arange(n), len(names)) + offset
        keep = ~np.isnan(y)
        Xs.append(X[keep])
        ys.append(y[keep])
        groups.append(g[keep])
        systems += [f"{lp}:{s}" for s in np.repeat(names, n)[keep]]
        offset += n
        files.append({"lp": lp, "ref": r, "systems": names, "rated_segments": int(keep.sum()),
                      "human": f"human-scores/{lp}.{human}.seg.score"})
    desc = {"data": root.name, "lps": list(lps), "human": human, "files": files,
            "tokenize": tokenize, "lowercase": lowercase, "function_words": function_words_name, "pos_tagger": pos}
    return TrainingData(np.vstack(Xs), np.concatenate(ys), np.concatenate(groups), systems,
                        ALL_FEATURES if pos else CORE_FEATURES, desc)


def ranking_pairs(y: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All pairs (a, b), a < b, of rows in the same group with different human scores."""
    order = np.argsort(group, kind="stable")
    g = group[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    ends = np.r_[starts[1:], len(g)]
    A, B = [], []
    for s, e in zip(starts, ends):
        if e - s < 2:
            continue
        idx = order[s:e]
        ia, ib = np.triu_indices(e - s, 1)
        a, b = idx[ia], idx[ib]
        keep = y[a] != y[b]
        A.append(a[keep])
        B.append(b[keep])
    if not A:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(A).astype(np.int64), np.concatenate(B).astype(np.int64)


def train(data: TrainingData, objective: str = "regression", kernel: str = "linear", *, seed: int = DEFAULT_SEED,
          C: float | None = None, epsilon: float = 0.1, degree: int = 3, gamma: float | None = None,
          coef0: float = 1.0, max_examples: int = 5000, max_pairs: int = 3000, max_iter: int = 100000,
          name: str | None = None, command: str | None = None) -> RoseModel:
    if objective not in OBJECTIVES:
        raise InvalidParameterError.choice("objective", objective, OBJECTIVES)
    if kernel not in KERNELS:
        raise InvalidParameterError.choice("kernel", kernel, KERNELS)
    from ..params import OPTIONS, ROSE_KERNEL  # the parameter table
    seed = OPTIONS["seed"].check(seed, "seed")
    C = OPTIONS["C"].check(C, "C")
    epsilon = OPTIONS["svr_epsilon"].check(epsilon, "epsilon")
    degree = ROSE_KERNEL["degree"].check(degree, "degree")
    gamma = ROSE_KERNEL["gamma"].check(gamma, "gamma")
    coef0 = ROSE_KERNEL["coef0"].check(coef0, "coef0")
    max_examples = OPTIONS["max_examples"].check(max_examples, "max_examples")
    max_pairs = OPTIONS["train_max_pairs"].check(max_pairs, "max_pairs")
    svm = _sklearn()
    X, y = np.asarray(data.X, dtype=np.float64), np.asarray(data.y, dtype=np.float64)
    n_sys = len({s for s in data.system})
    if len(X) == 0 or n_sys < 2:
        raise InputError(f"training data: {n_sys} system(s) with human scores; ROSE training needs at least two")
    rng = np.random.default_rng(seed)
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    Z = (X - mean) / scale
    k = Z.shape[1]
    g = gamma if gamma is not None else 1.0 / k
    kern = {"type": kernel} if kernel == "linear" else (
        {"type": "poly", "degree": int(degree), "gamma": float(g), "coef0": float(coef0)} if kernel == "poly"
        else {"type": "rbf", "gamma": float(g)})
    info: dict = {"objective": objective, "kernel": kernel, "seed": int(seed), "n_examples": int(len(X)),
                  "n_systems": n_sys, "sklearn": __import__("sklearn").__version__}
    weights = support = dual = None
    intercept = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # liblinear convergence chatter; max_iter is recorded
        if objective == "regression":
            idx = np.arange(len(Z))
            if kernel != "linear" and len(Z) > max_examples:
                idx = np.sort(rng.choice(len(Z), max_examples, replace=False))
            Zt, yt = Z[idx], y[idx]
            diag = (Zt * Zt).sum(1) if kernel == "linear" else np.diag(kernel_matrix(kern, Zt[:2000], Zt[:2000]))
            c = C if C is not None else 1.0 / float(np.mean(diag))
            info.update(C=c, epsilon=epsilon, n_used=int(len(idx)))
            if kernel == "linear":
                est = svm.LinearSVR(epsilon=epsilon, C=c, loss="epsilon_insensitive", dual=True,
                                    random_state=int(seed), max_iter=max_iter).fit(Zt, yt)
                weights, intercept = est.coef_.ravel().copy(), float(np.ravel(est.intercept_)[0])
            else:
                est = svm.SVR(kernel=kernel, C=c, epsilon=epsilon, degree=int(degree), gamma=float(g),
                              coef0=float(coef0)).fit(Zt, yt)
                support, dual = est.support_vectors_.copy(), est.dual_coef_.ravel().copy()
                intercept = float(est.intercept_[0])
        else:
            a, b = ranking_pairs(y, data.group)
            if len(a) == 0:
                raise InputError("training data: no usable ranking pairs (no segment has two systems with "
                                 "different human scores)")
            info["n_pairs"] = int(len(a))
            limit = max_pairs if kernel != "linear" else None
            if limit is not None and len(a) > limit:
                pick = np.sort(rng.choice(len(a), limit, replace=False))
                a, b = a[pick], b[pick]
            lab = np.sign(y[a] - y[b])
            flip = rng.random(len(a)) < 0.5
            a, b = np.where(flip, b, a), np.where(flip, a, b)
            lab = np.where(flip, -lab, lab)
            info["n_pairs_used"] = int(len(a))
            if kernel == "linear":
                D = Z[a] - Z[b]
                c = C if C is not None else 1.0 / float(np.mean((Z * Z).sum(1)))
                info["C"] = c
                est = svm.LinearSVC(C=c, loss="hinge", fit_intercept=False, dual=True,
                                    random_state=int(seed), max_iter=max_iter).fit(D, lab)
                weights = est.coef_.ravel().copy()
            else:
                Za, Zb = Z[a], Z[b]
                Kp = (kernel_matrix(kern, Za, Za) - kernel_matrix(kern, Za, Zb)
                      - kernel_matrix(kern, Zb, Za) + kernel_matrix(kern, Zb, Zb))
                diag = np.diag(kernel_matrix(kern, Z[:2000], Z[:2000]))
                c = C if C is not None else 1.0 / float(np.mean(diag))
                info["C"] = c
                est = svm.SVC(kernel="precomputed", C=c, random_state=int(seed)).fit(Kp, lab)
                sv, coef = est.support_, est.dual_coef_.ravel()
                support = np.vstack([Za[sv], Zb[sv]])
                dual = np.concatenate([coef, -coef])
    if command:
        info["command"] = command
    default = {("regression", "linear"): "ROSE-reg", ("ranking", "linear"): "ROSE-rank"}
    base = default.get((objective, "linear"), f"ROSE-{'reg' if objective == 'regression' else 'rank'}-{kernel}")
    if data.features == ALL_FEATURES and kernel == "linear":
        base += "pos"
    cfg = {k2: data.description.get(k2) for k2 in ("tokenize", "lowercase", "function_words", "pos_tagger")}
    training = {"dataset": {k2: v for k2, v in data.description.items() if k2 not in cfg}, **info,
                "features_version": FEATURES_VERSION, "mtscore_version": __version__}
    return RoseModel(name or base, objective, tuple(data.features), mean, scale, kern, intercept,
                     weights, support, dual, cfg, training)
