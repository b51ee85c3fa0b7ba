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
