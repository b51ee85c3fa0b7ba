"""``mtscore meta --filter KEY=VALUE``: meta-evaluate on the translations whose metadata match (docs/meta.md).

Keys come from three places of an mt-metrics-eval directory (one language pair):

* ``domain`` and ``document``: ``documents/<lp>.docs`` (per segment);
* any other field of the rows of ``sources/<lp>.jsonl`` (per segment, e.g. WMT24++'s ``is_bad_source``);
* any field of ``metadata/<lp>/<SYSTEM>.jsonl`` (per translation, WMT25's jsonl layout): a translation-level key
  selects cells (system, segment), not whole segments.

Values compare as text: a JSON string as it is, any other JSON value as JSON writes it (``true``, ``false``,
``3``, ``null``). Several filters: values of one key are alternatives (``--filter domain=news --filter
domain=social`` keeps both domains), different keys must all match. A key that is nowhere, or a value that no
segment has, is a one-line error that lists what there is (with a did-you-mean).

The result is a boolean mask [system, segment]; :func:`apply` leaves the human scores of the other cells out (not
rated) and recomputes every system-level score from the kept cells: the human system score as the mean of its
kept rated segments, a metric's as its score on the kept segments (a corpus metric such as BLEU recomputed from its
statistics; stored scores as the mean of their kept segment scores). No score file is changed.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, did_you_mean, plural

SEGMENT_KEYS = ("domain", "document")


def parse(specs: Sequence[str] | None) -> dict[str, list[str]]:
    """``["domain=news", "domain=social", "llm_judge=false"]`` -> {key: [values]} (order kept)."""
    out: dict[str, list[str]] = {}
    for spec in specs or ():
        key, sep, value = str(spec).partition("=")
        key = key.strip()
        if not sep or not key:
            raise InvalidParameterError(f"--filter: expected KEY=VALUE (e.g. domain=news), got {spec!r}")
        vals = out.setdefault(key, [])
        if value not in vals:
            vals.append(value)
    return out


def _text(v) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


@dataclass
class Filtered:
    mask: np.ndarray  # [S, N] bool: kept cells
    note: str


def _values_error(key, wanted, have, where):
    shown = sorted(have)
    more = f", ... ({plural(len(shown), 'value')})" if len(shown) > 12 else ""
    hint = did_you_mean(wanted, shown)
    return InvalidParameterError(f"--filter {key}={wanted}: no {where} has {key} = {wanted!r}; values of {key}: "
                                 f"{', '.join(shown[:12])}{more}{hint}")


def build(mtme, systems: Sequence[str], filters: dict[str, list[str]]) -> Filtered:
    """The kept cells of ``systems`` (rows) x segments of ``mtme`` (:class:`mtscore.io.wmt.MTMEData`)."""
    n = mtme.n_segments
    S = len(systems)
    mask = np.ones((S, n), dtype=bool)
    seg_keys: dict[str, list[str]] = {}
    if mtme.docs:
        seg_keys["domain"] = [d for d, _ in mtme.docs]
        seg_keys["document"] = [doc for _, doc in mtme.docs]
    if mtme.source_meta:
        for k in sorted({k for row in mtme.source_meta for k in row}):
            if k not in seg_keys:
                seg_keys[k] = [_text(row.get(k)) if k in row else None for row in mtme.source_meta]
    trans_keys = sorted({k for s in systems for row in mtme.metadata.get(s, ()) for k in row})
    parts = []
    for key, values in filters.items():
        if key in seg_keys:
            col = seg_keys[key]
            for v in values:
                if v not in col:
                    raise _values_error(key, v, {x for x in col if x is not None}, "segment")
            keep = np.array([x in values for x in col], dtype=bool)
            mask &= keep[None, :]
            parts.append(f"{key} in {{{', '.join(values)}}}: {plural(int(keep.sum()), 'segment')} of {n}")
        elif key in trans_keys:
            rows = []
            seen = set()
            for s in systems:
                meta = mtme.metadata.get(s)
                path = mtme.root / "metadata" / mtme.lp / f"{s}.jsonl"
                if meta is None:
                    raise InputError(f"--filter {key}: system {s!r} has no metadata file (the other systems' "
                                     f"metadata have {key!r})", str(path))
                if len(meta) != n:
                    raise InputError(f"has {plural(len(meta), 'line')} but the source has {n}", str(path))
                col = [_text(r[key]) if key in r else None for r in meta]
                seen.update(x for x in col if x is not None)
                rows.append([x in values for x in col])
            for v in values:
                if v not in seen:
                    raise _values_error(key, v, seen, "translation")
            keep = np.array(rows, dtype=bool).reshape(S, n)
            mask &= keep
            parts.append(f"{key} in {{{', '.join(values)}}}: {plural(int(keep.sum()), 'translation')} of {S * n}")
        else:
            known = sorted(set(seg_keys) | set(trans_keys))
            where = (f"keys: {', '.join(known)}" if known else
                     f"no metadata in this language pair (documents/{mtme.lp}.docs, sources/{mtme.lp}.jsonl, "
                     f"metadata/{mtme.lp}/<SYSTEM>.jsonl)")
            raise InvalidParameterError(f"--filter: unknown key {key!r}; {where}{did_you_mean(key, known)}")
    if not mask.any():
        raise InvalidParameterError(f"--filter: no translation matches every filter ({'; '.join(parts)})")
    return Filtered(mask, "filter: " + "; ".join(parts) + " (system scores recomputed on the kept cells)")


def apply(f: Filtered, joined, scores):
    """Leave out the human scores of the cells ``f`` drops; recompute system-level human and metric scores on the
    kept cells. Returns (joined, scores), new objects."""
    from dataclasses import replace
    M = f.mask
    if joined.human_seg is None:
        raise InvalidParameterError("--filter: needs segment-level human scores (the filter selects segments)")
    hseg = np.where(M, joined.human_seg, np.nan)
    ok = ~np.isnan(hseg)
    with np.errstate(invalid="ignore", divide="ignore"):
        hsys = np.where(ok.any(axis=1), np.nansum(np.where(ok, hseg, 0.0), axis=1) / ok.sum(axis=1), np.nan)
    j = replace(joined, human_seg=hseg, human_sys=hsys, human_domain=None, human_doc=None)
    W = M.astype(np.float64)
    same = bool((M == M[:1]).all())
    out = []
    for m in scores:
        if m.rescore is not None:
            base = m.rescore

            if same:
                def rescore(weights, base=base):
                    return base(np.atleast_2d(np.asarray(weights, dtype=np.float64)) * W[0])
            else:
                def rescore(weights, base=base):
                    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
                    return np.stack([base(w * W[s])[:, s] for s in range(W.shape[0])], axis=1)
            sys_ = rescore(np.ones(M.shape[1]))[0]
        else:
            seg = np.where(M, m.seg, np.nan)
            with np.errstate(invalid="ignore"):
                sys_ = np.array([np.nanmean(r) if (~np.isnan(r)).any() else np.nan for r in seg])
            rescore = None
        out.append(replace(m, sys=np.asarray(sys_, dtype=np.float64), rescore=rescore))
    return j, out


# ------------------------------------------------------------------------------------------------
# item subsampling (mt-metrics-eval's ``GetCorrelations(sample_size=..., sample_method=...)``, ``stats.Sample``)

SAMPLE_METHODS = ("uniform", "stratify")


def _bin_sizes(proportions: np.ndarray, size: int, bins: np.ndarray, rng) -> np.ndarray:
    """Split ``size`` over bins in proportion (largest remainder; ties in random order), never more than a bin
    holds: what a full bin cannot take goes to the others, again in proportion."""
    k = len(bins)
    out = np.zeros(k, dtype=np.int64)
    room = bins.astype(np.int64).copy()
    left = int(size)
    props = np.asarray(proportions, dtype=np.float64).copy()
    while left > 0:
        open_ = room > 0
        p = np.where(open_, props, 0.0)
        p = p / p.sum()
        ideal = p * left
        take = np.minimum(np.floor(ideal).astype(np.int64), room)
        rest = left - int(take.sum())
        if rest > 0:
            frac = np.where(open_ & (take < room), ideal - np.floor(ideal), -1.0)
            order = rng.permutation(k)  # random tie order, then by decreasing remainder
            order = order[np.argsort(-frac[order], kind="stable")]
            for i in order[:rest]:
                if frac[i] >= 0:
                    take[i] += 1
        if take.sum() == 0:  # only fractions below one share left: one more to the largest open bins
            order = np.argsort(-np.where(open_, ideal, -1.0), kind="stable")[:left]
            take[order] += 1
        out += take
        room -= take
        left -= int(take.sum())
    return out


def sample_segments(n: int, size: int, method: str = "uniform", doc_sizes=None, seed=None) -> np.ndarray:
    """Indices (sorted) of ``size`` of ``n`` segments drawn without replacement: ``uniform``, or ``stratify`` by
    document (``doc_sizes``: segments per document, in order; each document gets its proportional share, by
    largest remainder, drawn uniformly within it). ``size`` 0 or more than ``n``: every segment (as
    mt-metrics-eval's ``stats.Sample``)."""
    if method not in SAMPLE_METHODS:
        raise InvalidParameterError.choice("--sample-method", method, SAMPLE_METHODS)
    if size < 0:
        raise InvalidParameterError(f"--sample-size: must be >= 0, got {size}")
    if size == 0 or size > n:
        size = n
    from ..significance._resample import Draws  # the one source of random draws (same stream as default_rng(seed))
    rng = Draws.of(seed)
    if method == "uniform":
        return np.sort(rng.subsample(n, size))
    bins = np.asarray(doc_sizes, dtype=np.int64)
    if bins.sum() != n:
        raise InvalidParameterError(f"--sample-method stratify: the documents hold {int(bins.sum())} segments, "
                                    f"the test set {n}")
    per = _bin_sizes(bins / n, size, bins, rng)
    out, beg = [], 0
    for b, s in zip(bins, per):
        out.extend(rng.subsample(int(b), int(s)) + beg)
        beg += int(b)
    return np.sort(np.asarray(out, dtype=np.int64))


def sample_filter(n_systems: int, n: int, size: int, method: str, docs=None, seed=None) -> Filtered:
    """The segments of :func:`sample_segments` as a mask (every system), for :func:`apply`. ``docs``: document
    id per segment (contiguous runs), needed by ``stratify``."""
    sizes = None
    if method == "stratify":
        if not docs:
            raise InvalidParameterError("--sample-method stratify: needs documents (documents/<lp>.docs in --data)")
        sizes, last = [], object()
        for d in docs:
            if d != last:
                sizes.append(0)
                last = d
            sizes[-1] += 1
    idx = sample_segments(n, size, method, sizes, seed)
    keep = np.zeros(n, dtype=bool)
    keep[idx] = True
    return Filtered(np.repeat(keep[None, :], n_systems, axis=0),
                    f"sample: {plural(len(idx), 'segment')} of {n} ({method}, seed {seed})")
