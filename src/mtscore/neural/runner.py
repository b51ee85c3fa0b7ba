"""Scoring many inputs with a loaded model: identical inputs once, cache look-up, length-sorted batches,
out-of-memory halve-and-retry.

COMET regression models (COMET-DA) embed each sentence on its own, so a text that occurs many times (the
source and reference of every system, a hypothesis shared by two systems) is encoded once and only the
estimator runs per (src, mt, ref) triple. Unified models (CometKiwi, XCOMET) encode the joint input, so each
distinct input tuple is run once.
"""
from __future__ import annotations

import warnings

import numpy as np
import torch

from ..errors import InputError, MtscoreWarning
from . import cache as _cache
from . import comet_model as cm

CHUNK = 4096  # triples whose distinct sentences are embedded together (bounds the embeddings kept in memory)


def _is_oom(exc: BaseException) -> bool:
    oom = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    if oom is not None and isinstance(exc, oom):
        return True
    if isinstance(exc, MemoryError):
        return True
    msg = str(exc).lower()
    return isinstance(exc, RuntimeError) and ("out of memory" in msg or "can't allocate memory" in msg)


def batched(fn, items: list, batch_size: int, metric: str) -> list:
    """``fn`` over consecutive batches of ``items``; on out-of-memory the batch is halved and retried (a
    warning says so); at batch size 1 it is a one-line error."""
    out, i, bs = [], 0, batch_size
    while i < len(items):
        chunk = items[i:i + bs]
        try:
            with torch.inference_mode():
                res = fn(chunk)
        except Exception as exc:
            if not _is_oom(exc):
                raise
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            if bs == 1:
                raise InputError(f"{metric}: out of memory with batch_size=1 ({' '.join(str(exc).split())[:120]}); "
                                 "use a smaller precision (precision=bf16), another device, or shorter segments") from None
            bs = max(1, bs // 2)
            warnings.warn(f"{metric}: out of memory at batch_size={bs * 2}; retrying with batch_size={bs}",
                          MtscoreWarning, stacklevel=2)
            continue
        out.append(res)
        i += len(chunk)
    return out


def _regression(m: cm.Loaded, items: list[tuple], batch_size: int, metric: str) -> list[float]:
    scores: list[float] = []
    for c0 in range(0, len(items), CHUNK):
        chunk = items[c0:c0 + CHUNK]
        texts = list(dict.fromkeys(t for it in chunk for t in it if t is not None))
        ids = cm.tokenize(m, texts)
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        embs = batched(lambda idx: (idx, cm.sentence_embeddings(m, [ids[i] for i in idx])), order, batch_size, metric)
        row = {}
        for idx, e in embs:
            for j, i in enumerate(idx):
                row[texts[i]] = e[j]

        def est(tr):
            src = torch.stack([row[t[0]] for t in tr])
            mt = torch.stack([row[t[1]] for t in tr])
            ref = torch.stack([row[t[2]] for t in tr]) if m.class_id == cm.REGRESSION else None
            return cm.estimate(m, src, mt, ref).float().cpu()
        for s in batched(est, chunk, max(batch_size, 256), metric):
            scores.extend(s.tolist())
    return scores


def _unified(m: cm.Loaded, items: list[tuple], batch_size: int, metric: str):
    order = sorted(range(len(items)), key=lambda i: sum(len(t or "") for t in items[i]))
    use_ref = "ref" in m.input_segments and all(it[2] is not None for it in items)

    def run(idx):
        tr = [items[i] for i in idx]
        s, spans = cm.unified_batch(m, [t[1] for t in tr], [t[0] for t in tr], [t[2] for t in tr] if use_ref else None)
        return idx, s.cpu().tolist(), spans
    scores: list[float] = [0.0] * len(items)
    spans_out: list = [None] * len(items)
    for idx, s, spans in batched(run, order, batch_size, metric):
        for j, i in enumerate(idx):
            scores[i] = s[j]
            if spans is not None:
                spans_out[i] = spans[j]
    return scores, spans_out


def _metricx(m, items: list[tuple], batch_size: int, metric: str, max_len: int):
    from . import metricx_model as mx
    ids = mx.tokenize(m, [it[0] for it in items], max_len)
    order = sorted(range(len(items)), key=lambda i: len(ids[i]))
    scores: list[float] = [0.0] * len(items)
    for idx, s in batched(lambda idx: (idx, mx.predict(m, [ids[i] for i in idx]).cpu().tolist()), order, batch_size,
                          metric):
        for j, i in enumerate(idx):
            scores[i] = s[j]
    return scores


def score(m, items: list[tuple], batch_size: int, metric: str, use_cache: bool = True,
          score_cache: _cache.ScoreCache | None = None, kind: str | None = None, max_len: int = 0):
    """Scores (float64 array, one per item) and XCOMET's spans (a list, or None) of ``items``: COMET tuples
    ``(src, mt, ref)`` (ref None for quality estimation), or MetricX 1-tuples ``(input text,)`` (``max_len``:
    its token limit). ``kind`` names the computation in the cache key (default: the model's class)."""
    uniq = list(dict.fromkeys(items))
    where = {it: k for k, it in enumerate(uniq)}
    kind = kind or m.class_id
    vals: list = [None] * len(uniq)
    extras: list = [None] * len(uniq)
    keys = None
    if use_cache:
        score_cache = score_cache or _cache.ScoreCache()
        keys = [_cache.key(m.digest, m.dtype, kind, it) for it in uniq]
        hits = score_cache.get_many(keys)
        for k, kk in enumerate(keys):
            if kk in hits:
                vals[k], extras[k] = hits[kk]
    todo = [k for k, v in enumerate(vals) if v is None]
    if todo:
        todo_items = [uniq[k] for k in todo]
        if m.class_id == "metricx":
            got, spans = _metricx(m, todo_items, batch_size, metric, max_len), None
        elif m.class_id in (cm.REGRESSION, cm.REFERENCELESS):
            got, spans = _regression(m, todo_items, batch_size, metric), None
        else:
            got, spans = _unified(m, todo_items, batch_size, metric)
        for j, k in enumerate(todo):
            vals[k] = float(got[j])
            extras[k] = spans[j] if spans is not None else None
        if use_cache:
            score_cache.put_many([(keys[k], vals[k], extras[k]) for k in todo])
    scores = np.array([vals[where[it]] for it in items], dtype=np.float64)
    has_spans = any(e is not None for e in extras)
    return scores, ([extras[where[it]] for it in items] if has_spans else None)
