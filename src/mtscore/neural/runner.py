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


def batched(fn, items: list, batch_size: int, metric: str, bar: str | None = None, models=(None,)) -> list:
    """``fn(model, batch)`` over consecutive batches of ``items``; on out-of-memory the batch is halved and
    retried (a warning says so); at batch size 1 it is a one-line error. ``bar``: the unit of a progress bar on
    stderr (:mod:`mtscore.progress`: drawn on a terminal only, after 1.5 s, never with -q).

    ``models``: the model's replicas, one per device (``gpus=N``). With several, the same batches as with one
    are shared among one thread per replica (replica i takes batches i, i + N, i + 2N ...: neighbours in the
    length-sorted order cost about the same), and the results are put back in batch order: the same numbers
    as on one device."""
    if bar is None:
        return _spread(fn, items, batch_size, metric, None, models)
    from ..progress import progress
    with progress(metric, total=len(items), unit=bar) as b:
        return _spread(fn, items, batch_size, metric, b, models)


def _spread(fn, items, batch_size, metric, bar, models) -> list:
    models = list(models)
    if len(models) == 1:
        return _batched(lambda c: fn(models[0], c), items, batch_size, metric, bar)
    import threading
    chunks = [items[i:i + batch_size] for i in range(0, len(items), batch_size)]
    results: list = [None] * len(chunks)
    lock = threading.Lock()
    failed: list = []

    def work(model, first):
        for k in range(first, len(chunks), len(models)):
            if failed:
                return
            try:
                results[k] = _batched(lambda c: fn(model, c), chunks[k], batch_size, metric, None)
            except BaseException as exc:  # noqa: BLE001 - raised in the calling thread
                with lock:
                    failed.append(exc)
                return
            if bar is not None:
                with lock:
                    bar.update(len(chunks[k]))

    threads = [threading.Thread(target=work, args=(mm, i), name=f"mtscore-{metric}-{i}", daemon=True)
               for i, mm in enumerate(models)]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.1)  # (a short wait: Ctrl-C reaches this thread)
    except BaseException:
        with lock:
            failed.append(None)  # the others stop after their current batch
        raise
    if failed:
        raise failed[0]
    return [r for res in results for r in res]


def replicas(m, devices) -> list:
    """``m`` (loaded on ``devices[0]``) and a copy of it on each other device (data-parallel scoring)."""
    import copy
    import dataclasses
    field = "net" if hasattr(m, "net") else "model"
    out = [m]
    for dev in devices[1:]:
        out.append(dataclasses.replace(m, **{field: copy.deepcopy(getattr(m, field)).to(dev), "device": dev,
                                             "calls": 0}))
    return out


def _batched(fn, items, batch_size, metric, bar) -> list:
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
        if bar is not None:
            bar.update(len(chunk))
    return out


def embed(m: cm.Loaded, texts: list[str], batch_size: int, metric: str, models=None) -> dict:
    """COMET sentence embeddings ``{text: tensor}`` of distinct ``texts``, in length-sorted batches (each text
    encoded once; ``models``: replicas of ``m`` on other devices, see :func:`batched`)."""
    ids = cm.tokenize(m, texts)
    order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
    embs = batched(lambda mm, idx: (idx, cm.sentence_embeddings(mm, [ids[i] for i in idx]).to(m.device)), order,
                   batch_size, metric, bar="sentences", models=models or [m])
    row = {}
    for idx, e in embs:
        for j, i in enumerate(idx):
            row[texts[i]] = e[j]
    return row


def estimate(m: cm.Loaded, row: dict, triples: list[tuple], batch_size: int, metric: str) -> list[float]:
    """The regression estimator on ``(src, mt, ref)`` triples of embedded texts (``row``: :func:`embed`)."""
    def est(_, tr):
        src = torch.stack([row[t[0]] for t in tr])
        mt = torch.stack([row[t[1]] for t in tr])
        ref = torch.stack([row[t[2]] for t in tr]) if m.class_id == cm.REGRESSION else None
        return cm.estimate(m, src, mt, ref).float().cpu()
    out: list[float] = []
    for s in batched(est, triples, max(batch_size, 256), metric):
        out.extend(s.tolist())
    return out


def _regression(m: cm.Loaded, items: list[tuple], batch_size: int, metric: str, models=None) -> list[float]:
    scores: list[float] = []
    for c0 in range(0, len(items), CHUNK):
        chunk = items[c0:c0 + CHUNK]
        row = embed(m, list(dict.fromkeys(t for it in chunk for t in it if t is not None)), batch_size, metric,
                    models)
        scores.extend(estimate(m, row, chunk, batch_size, metric))
    return scores


def _unified(m: cm.Loaded, items: list[tuple], batch_size: int, metric: str, models=None):
    # batches as unbabel-comet's predict makes them (inputs sorted by the source's length in characters, else
    # the reference's): padding to another length changes the last float32 bits of every padded input, so the
    # same batches give the reference's numbers (its sort is not stable: ties may be batched otherwise)
    key = 0 if any(it[0] is not None for it in items) else 2
    order = sorted(range(len(items)), key=lambda i: len(items[i][key] or ""))
    use_ref = "ref" in m.input_segments and all(it[2] is not None for it in items)

    def run(mm, idx):
        tr = [items[i] for i in idx]
        s, spans = cm.unified_batch(mm, [t[1] for t in tr], [t[0] for t in tr], [t[2] for t in tr] if use_ref else None)
        return idx, s.cpu().tolist(), spans
    scores: list[float] = [0.0] * len(items)
    spans_out: list = [None] * len(items)
    for idx, s, spans in batched(run, order, batch_size, metric, bar="seg", models=models or [m]):
        for j, i in enumerate(idx):
            scores[i] = s[j]
            if spans is not None:
                spans_out[i] = spans[j]
    return scores, spans_out


def _metricx(m, items: list[tuple], batch_size: int, metric: str, max_len: int, models=None):
    from . import metricx_model as mx
    ids = mx.tokenize(m, [it[0] for it in items], max_len)
    order = sorted(range(len(items)), key=lambda i: len(ids[i]))
    scores: list[float] = [0.0] * len(items)
    for idx, s in batched(lambda mm, idx: (idx, mx.predict(mm, [ids[i] for i in idx]).cpu().tolist()), order,
                          batch_size, metric, bar="seg", models=models or [m]):
        for j, i in enumerate(idx):
            scores[i] = s[j]
    return scores


def check_finite(net, metric: str, where) -> None:
    """A one-line error when a loaded model has a NaN or infinite weight (a corrupt or diverged checkpoint):
    its scores would be NaN, or, through XCOMET's spans, silently wrong."""
    for name, p in list(net.named_parameters()) + list(net.named_buffers()):
        if p.is_floating_point() and not bool(torch.isfinite(p).all()):
            bad = int((~torch.isfinite(p)).sum())
            raise InputError(f"{metric}: the checkpoint's weight {name} has {bad} NaN or infinite "
                             f"value{'s' if bad != 1 else ''}: a corrupt or diverged checkpoint", str(where))


def score(m, items: list[tuple], batch_size: int, metric: str, use_cache: bool = True,
          score_cache: _cache.ScoreCache | None = None, kind: str | None = None, max_len: int = 0, models=None,
          fingerprint: str | None = None):
    """Scores (float64 array, one per item) and XCOMET's spans (a list, or None) of ``items``: COMET tuples
    ``(src, mt, ref)`` (ref None for quality estimation), or MetricX 1-tuples ``(input text,)`` (``max_len``:
    its token limit). ``kind`` names the computation in the cache key (default: the model's class).
    ``models``: ``m`` and its replicas on other devices (:func:`replicas`; data-parallel, same numbers).

    ``m`` is a loaded model, or a function that loads it and returns ``(model, replicas)``: it is called only
    when some item is not in the cache, so a fully cached run loads no model. ``fingerprint``: the model part
    of the cache key (:func:`mtscore.neural.cache.fingerprint`: weights, configuration, tokenizer, options,
    precision, code version); without it, the weights' digest and the precision of the loaded ``m``."""
    uniq = list(dict.fromkeys(items))
    where = {it: k for k, it in enumerate(uniq)}
    vals: list = [None] * len(uniq)
    extras: list = [None] * len(uniq)
    keys = None
    if use_cache:
        if fingerprint is None or kind is None:
            if callable(m) and not hasattr(m, "class_id"):
                m, models = m()
            kind = kind or m.class_id
            fingerprint = fingerprint or f"{m.digest}|{m.dtype}"
        score_cache = score_cache or _cache.ScoreCache()
        keys = [_cache.key(fingerprint, "", kind, it) for it in uniq]
        hits = score_cache.get_many(keys)
        for k, kk in enumerate(keys):
            if kk in hits:
                vals[k], extras[k] = hits[kk]
    todo = [k for k, v in enumerate(vals) if v is None]
    if todo:
        if callable(m) and not hasattr(m, "class_id"):
            m, models = m()
        todo_items = [uniq[k] for k in todo]
        if m.class_id == "metricx":
            got, spans = _metricx(m, todo_items, batch_size, metric, max_len, models), None
        elif m.class_id in (cm.REGRESSION, cm.REFERENCELESS):
            got, spans = _regression(m, todo_items, batch_size, metric, models), None
        else:
            got, spans = _unified(m, todo_items, batch_size, metric, models)
        for j, k in enumerate(todo):
            vals[k] = float(got[j])
            extras[k] = spans[j] if spans is not None else None
        if use_cache:
            score_cache.put_many([(keys[k], vals[k], extras[k]) for k in todo])
    scores = np.array([vals[where[it]] for it in items], dtype=np.float64)
    has_spans = any(e is not None for e in extras)
    return scores, ([extras[where[it]] for it in items] if has_spans else None)
