"""ROSE model files: versioned JSON (never pickles), validated on load.

Layout (``format_version`` 1)::

    {"format": "mtscore-rose-model", "format_version": 1, "features_version": "rose-features-1",
     "mtscore_version": "...", "name": "ROSE-rank", "objective": "ranking" | "regression",
     "features": [17 or 33 names], "scaler": {"mean": [...], "scale": [...]},
     "kernel": {"type": "linear"} | {"type": "poly", "degree": d, "gamma": g, "coef0": c}
               | {"type": "rbf", "gamma": g},
     "weights": [...] (linear only), "intercept": b,
     "support": [[...], ...], "dual_coef": [...] (non-linear only; standardized points),
     "config": {"tokenize": "13a", "lowercase": false, "function_words": "en", "pos_tagger": null | "textblob"},
     "training": {... what data, which command, seed, C, epsilon ...}}

Score of raw features f: ``z = (f - mean) / scale``; linear: ``w . z + b``; non-linear:
``sum_s dual_coef_s K(support_s, z) + b``.
"""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import InputError, InvalidParameterError, plural
from ..params import ROSE_KERNEL, ROSE_MODEL_CONFIG, convert_mapping

_MISSING = "(missing)"
from .rose_features import ALL_FEATURES, CORE_FEATURES, FEATURES_VERSION, POS_FEATURES

FORMAT = "mtscore-rose-model"
FORMAT_VERSION = 1
KERNELS = ("linear", "poly", "rbf")
OBJECTIVES = ("regression", "ranking")
DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "rose"
BUILTIN_MODELS = {"reg": "rose-reg.json", "rank": "rose-rank.json",
                  "regpos": "rose-regpos.json", "rankpos": "rose-rankpos.json"}


@dataclass(frozen=True, eq=False)
class RoseModel:
    name: str
    objective: str
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    kernel: dict
    intercept: float = 0.0
    weights: np.ndarray | None = None
    support: np.ndarray | None = None
    dual_coef: np.ndarray | None = None
    config: dict = field(default_factory=dict)
    training: dict = field(default_factory=dict)

    @property
    def linear(self) -> bool:
        return self.kernel.get("type") == "linear"

    @property
    def uses_pos(self) -> bool:
        return any(f in POS_FEATURES for f in self.features)

    def standardize(self, X) -> np.ndarray:
        return (np.asarray(X, dtype=np.float64) - self.mean) / self.scale

    def kernel_matrix(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return kernel_matrix(self.kernel, A, B)

    def decision(self, X) -> np.ndarray:
        """Model score of raw feature rows ``X[..., K]``."""
        Z = self.standardize(X)
        if self.linear:
            # an elementwise product summed by NumPy, not BLAS' dot: the same bits on every CPU (OpenBLAS picks
            # its dot kernel by processor, and the last bits of a corpus score followed it)
            return (Z * self.weights).sum(-1) + self.intercept
        shape = Z.shape[:-1]
        Z2 = Z.reshape(-1, Z.shape[-1])
        out = np.zeros(len(Z2))
        for s in range(0, len(Z2), 4096):  # bounded memory
            out[s:s + 4096] = self.kernel_matrix(Z2[s:s + 4096], self.support) @ self.dual_coef
        return (out + self.intercept).reshape(shape)

    # -- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        d: dict[str, Any] = {
            "format": FORMAT, "format_version": FORMAT_VERSION, "features_version": FEATURES_VERSION,
            "mtscore_version": __version__, "name": self.name, "objective": self.objective,
            "features": list(self.features),
            "scaler": {"mean": self.mean.tolist(), "scale": self.scale.tolist()},
            "kernel": dict(self.kernel), "intercept": float(self.intercept)}
        if self.linear:
            d["weights"] = self.weights.tolist()
        else:
            d["support"] = self.support.tolist()
            d["dual_coef"] = self.dual_coef.tolist()
        d["config"] = dict(self.config)
        d["training"] = dict(self.training)
        return d

    def save(self, path) -> None:
        from ..io.output import write_text
        write_text(path, json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, d: Any, source: str = "<model>") -> "RoseModel":
        return _validate(d, source)


def kernel_matrix(kernel: dict, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    kind = kernel["type"]
    if kind == "linear":
        return A @ B.T
    if kind == "poly":
        return (kernel["gamma"] * (A @ B.T) + kernel["coef0"]) ** kernel["degree"]
    if kind == "rbf":
        d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * (A @ B.T)
        return np.exp(-kernel["gamma"] * np.maximum(d2, 0.0))
    raise InvalidParameterError.choice("kernel", kind, KERNELS)


def _err(source: str, msg: str) -> InputError:
    return InputError(f"invalid ROSE model: {msg}", source)


def _numbers(d: dict, key: str, n: int | None, source: str, positive: bool = False) -> np.ndarray:
    v = d.get(key)
    if not isinstance(v, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        raise _err(source, f"{key!r} must be a list of numbers")
    try:
        a = np.asarray(v, dtype=np.float64)
    except OverflowError:
        raise _err(source, f"{key!r} must be finite") from None
    if n is not None and len(a) != n:
        raise _err(source, f"{key!r} has {plural(len(a), 'value')} for {plural(n, 'feature')}")
    if not np.all(np.isfinite(a)) or (positive and np.any(a <= 0)):
        raise _err(source, f"{key!r} must be finite{' and positive' if positive else ''}")
    return a


def _finite(v) -> bool:
    try:
        return math.isfinite(v)
    except OverflowError:  # an int too large for a float
        return False


def _validate(d: Any, source: str) -> RoseModel:
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise _err(source, f"not an mtscore ROSE model (expected \"format\": \"{FORMAT}\")")
    if d.get("format_version") != FORMAT_VERSION:
        raise _err(source, f"format_version {d.get('format_version')!r} is not supported; this mtscore "
                           f"({__version__}) reads version {FORMAT_VERSION}: retrain the model with `mtscore rose train`")
    if d.get("features_version") != FEATURES_VERSION:
        raise _err(source, f"trained on features {d.get('features_version')!r}, this mtscore computes "
                           f"{FEATURES_VERSION!r}: retrain the model with `mtscore rose train`")
    feats = d.get("features")
    if not isinstance(feats, list) or not all(isinstance(f, str) for f in feats):
        raise _err(source, "'features' must be a list of feature names")
    unknown = [f for f in feats if f not in ALL_FEATURES]
    if unknown:
        raise _err(source, f"unknown feature(s) {', '.join(unknown)}; known: {', '.join(ALL_FEATURES)}")
    if len(set(feats)) != len(feats):
        raise _err(source, "'features' lists a feature twice")
    want = ALL_FEATURES if any(f in POS_FEATURES for f in feats) else CORE_FEATURES
    missing = [f for f in want if f not in feats]
    if missing:
        raise _err(source, f"missing feature(s) {', '.join(missing)} (a model uses all {len(CORE_FEATURES)} core "
                           f"features, or all {len(ALL_FEATURES)} with POS)")
    if d.get("objective") not in OBJECTIVES:
        raise _err(source, f"'objective' must be one of {', '.join(OBJECTIVES)}, got {d.get('objective')!r}")
    order = [feats.index(f) for f in want]  # canonical order
    k = len(feats)
    scaler = d.get("scaler")
    if not isinstance(scaler, dict):
        raise _err(source, "'scaler' must be an object with 'mean' and 'scale'")
    mean = _numbers(scaler, "mean", k, source)[order]
    scale = _numbers(scaler, "scale", k, source, positive=True)[order]
    kernel = d.get("kernel")
    if not isinstance(kernel, dict) or kernel.get("type") not in KERNELS:
        raise _err(source, f"'kernel' must be an object with 'type' in {', '.join(KERNELS)}")
    kernel = dict(kernel)
    for p in {"poly": ("degree", "gamma", "coef0"), "rbf": ("gamma",)}.get(kernel["type"], ()):
        try:  # the parameter table (mtscore.params): bounded so that K(x, y) stays finite
            kernel[p] = dataclasses.replace(ROSE_KERNEL[p], nullable=False).check(
                kernel[p] if p in kernel else _MISSING, f"kernel.{p}")
        except InvalidParameterError as exc:
            raise _err(source, str(exc)) from None
    b = d.get("intercept", 0.0)
    if not isinstance(b, (int, float)) or isinstance(b, bool) or not _finite(b):
        raise _err(source, "'intercept' must be a finite number")
    weights = support = dual = None
    if kernel["type"] == "linear":
        weights = _numbers(d, "weights", k, source)[order]
    else:
        sv = d.get("support")
        if not isinstance(sv, list) or not sv or not all(isinstance(r, list) and len(r) == k for r in sv):
            raise _err(source, f"'support' must be a non-empty list of {k}-value rows")
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for r in sv for x in r):
            raise _err(source, "'support' must contain numbers only")
        try:
            support = np.asarray(sv, dtype=np.float64)[:, order]
        except OverflowError:
            raise _err(source, "'support' must be finite") from None
        if not np.all(np.isfinite(support)):
            raise _err(source, "'support' must be finite")
        dual = _numbers(d, "dual_coef", len(sv), source)
    cfg = d.get("config", {})
    if not isinstance(cfg, dict):
        raise _err(source, "'config' must be an object")
    try:  # tokenize, lowercase, function_words, pos_tagger: the parameter table ("no" is false)
        cfg = convert_mapping(ROSE_MODEL_CONFIG, cfg, "config.")
    except InvalidParameterError as exc:
        raise _err(source, str(exc)) from None
    if not isinstance(d.get("training", {}), dict):
        raise _err(source, "'training' must be an object")
    if not isinstance(d.get("name", "ROSE"), str):
        raise _err(source, "'name' must be a string")
    return RoseModel(str(d.get("name", "ROSE")), d["objective"], tuple(want), mean, scale, dict(kernel),
                     float(b), weights, support, dual, dict(cfg), dict(d.get("training", {})))


def load_model(name_or_path) -> RoseModel:
    """A built-in model (``reg``, ``rank``, ``regpos``, ``rankpos``) or a model JSON file."""
    key = str(name_or_path)
    path = DATA_DIR / BUILTIN_MODELS[key] if key in BUILTIN_MODELS else Path(key)
    try:
        exists = path.exists()
    except OSError as exc:  # a name the file system refuses (too long, ...): the parameter's value is wrong
        shown = key if len(key) <= 80 else key[:77] + "..."
        raise InvalidParameterError(f"rose_model: {shown!r} is not a usable file name ({exc.strerror})") from None
    if not exists:
        if key in BUILTIN_MODELS:
            raise InputError(f"built-in ROSE model {key!r} is not shipped with this installation", str(path))
        raise InvalidParameterError(
            f"rose_model: {key!r} is neither a built-in model ({', '.join(BUILTIN_MODELS)}) nor an existing file")
    from ..io.text import _read_bytes
    data = _read_bytes(str(path))  # a folder, an unreadable file: InputError naming the path
    try:
        d = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _err(str(path), f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at byte offset {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise _err(str(path), f"not valid JSON ({exc})") from None
    except RecursionError:
        raise _err(str(path), "not valid JSON (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise _err(str(path), f"not valid JSON ({exc})") from None
    return _validate(d, str(path))
