"""``comet``: run a COMET model (unbabel-comet) from a local checkpoint -- optional extra ``mtscore[comet]``.

    mtscore score -r ref.de -i sys.de -m comet:model=/models/wmt22-comet-da,sources=src.en

mtscore never downloads a model: ``model=`` names a folder that holds ``checkpoints/model.ckpt`` (what
``comet.download_model`` leaves on disk) or the ``.ckpt`` file itself. ``sources=`` is the source file (one
segment per line, aligned with the references). Each segment's COMET score is a statistic row ``(score, 1)``
and the corpus score is their mean, as ``comet-score`` reports it; everything downstream (compare, report,
meta) is the same as for stored scores (:mod:`mtscore.metrics.scores`). With several references the first
one is used (COMET models take one). Without the package or the weights, score with ``comet-score`` where
they are, and read its ``--to_json`` file with ``scores:COMET=FILE`` (docs/external-scores.md).
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, InvalidParameterError, OptionalDependencyError, plural
from .base import Metric, format_signature


@dataclass(frozen=True)
class COMETConfig:
    model: str = ""
    sources: str = ""
    batch_size: int = 8
    gpus: int = 0


_HINT = ("pass comet:model=DIR with the folder of a COMET checkpoint already on disk (it holds "
         "checkpoints/model.ckpt) or the .ckpt file; mtscore never downloads models (or run comet-score elsewhere "
         "and read its --to_json file with -m scores:COMET=FILE)")


def checkpoint_path(model: str) -> str:
    if not model:
        raise InvalidParameterError(f"comet: no model given; {_HINT}")
    if os.path.isdir(model):
        ckpt = os.path.join(model, "checkpoints", "model.ckpt")
        if not os.path.isfile(ckpt):
            raise InvalidParameterError(f"comet: model={model!r} has no checkpoints/model.ckpt; {_HINT}")
        return ckpt
    if os.path.isfile(model) and model.endswith(".ckpt"):
        return model
    raise InvalidParameterError(f"comet: model={model!r} is not a checkpoint folder or .ckpt file; {_HINT}")


def _import_comet():
    try:
        return importlib.import_module("comet")
    except ImportError:
        raise OptionalDependencyError("the comet metric", "unbabel-comet", "comet") from None


class COMET(Metric):
    name = "comet"
    display_name = "COMET"
    Config = COMETConfig
    columns = ("score", "count")
    decomposable = True
    higher_is_better = True
    range = (-np.inf, np.inf)
    partitionable = False  # sources are aligned with the whole test set
    names_itself = True  # labelled COMET, not COMET[model=...,sources=...]

    def _validate(self) -> None:
        c = self.config
        self._ckpt = checkpoint_path(c.model)
        if not c.sources:
            raise InvalidParameterError("comet: COMET scores (source, hypothesis, reference) triples; pass "
                                        "sources=FILE (one source segment per line)")
        # batch_size, gpus: the parameter table (mtscore.params)
        self._comet = _import_comet()  # a missing package is reported before any reading
        self._model = None

    def _load(self):
        if self._model is None:
            self._model = self._comet.load_from_checkpoint(self._ckpt)
        return self._model

    def _stats(self, hyps, refs) -> np.ndarray:
        from ..io import read_lines
        src = read_lines(self.config.sources)
        if len(src) != len(hyps):
            raise InputError(f"comet: {plural(len(src), 'source segment')} for {plural(len(hyps), 'hypothesis', 'hypotheses')}", self.config.sources)
        data = [{"src": s, "mt": h, "ref": r[0]} for s, h, r in zip(src, hyps, refs)]
        out = self._load().predict(data, batch_size=self.config.batch_size, gpus=self.config.gpus)
        scores = out.scores if hasattr(out, "scores") else out[0]  # COMET >= 2.0: Prediction; 1.x: (seg, sys)
        scores = np.asarray(scores, dtype=np.float64)
        if scores.shape != (len(hyps),) or not np.isfinite(scores).all():
            raise InputError(f"comet: the model returned {scores.shape} scores (finite: "
                             f"{bool(np.isfinite(scores).all())}) for {plural(len(hyps), 'segment')}", self._ckpt)
        return np.column_stack([scores, np.ones(len(hyps))])

    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[..., 0] / s[..., 1]

    def signature_items(self, nrefs):
        return [("model", os.path.basename(os.path.normpath(self.config.model))),
                ("ckpt-bytes", os.path.getsize(self._ckpt)), ("ref", "first" if nrefs != 1 else None),
                ("agg", "mean"), ("dir", "higher")]

    def signature(self, nrefs=1) -> str:
        return format_signature(self.signature_items(nrefs))
