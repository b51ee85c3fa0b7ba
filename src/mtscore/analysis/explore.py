"""The data behind the report's segment explorer: every segment's score under every metric for every system,
its label, its tokens, the word alignment of each hypothesis against the reference (jiwer's counts, see
:mod:`mtscore.analysis.alignment`) and, per hypothesis token, the longest n-gram it belongs to that matches a
reference n-gram (clipped as BLEU clips). Computed here, in Python; the page only sorts, filters and draws it."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..metrics.base import Metric, Stats
from ..params import DEFAULT_SEED
from ..metrics.alignment import align_ops  # (the module that registers its reference kernel)


@dataclass(frozen=True)
class ExplorerData:
    systems: tuple[str, ...]
    metrics: tuple[dict, ...]  # {"name", "higher_is_better", "scale"}
    scores: tuple  # [metric][system] -> list of N segment scores (the metric's own scale)
    labels: tuple[str, ...] | None
    ref: tuple[tuple[str, ...], ...]  # tokens of the first reference
    hyps: tuple  # [system][segment] -> tokens
    ops: tuple  # [system][segment] -> alignment as a string of = S D I (one character per aligned pair)
    ngram: tuple  # [system][segment] -> per hypothesis token, the longest matched n-gram order ('0'..'9')
    tokenize: str
    # error spans of the metrics that predict them (XCOMET), for the segments that have any:
    # [{"name": display name, "systems": [{segment index: {"t": the hypothesis as scored, "s": [[start, end,
    # severity, confidence], ...]}} per system]}]; character offsets into "t" (code points, end exclusive)
    spans: tuple = ()

    def as_json(self) -> dict:
        def num(x):
            x = float(x)
            return round(x, 6) if np.isfinite(x) else None
        return {"systems": list(self.systems), "metrics": list(self.metrics),
                "scores": [[[num(v) for v in s] for s in m] for m in self.scores],
                "labels": list(self.labels) if self.labels is not None else None,
                "ref": [" ".join(t) for t in self.ref],
                "hyps": [[" ".join(t) for t in s] for s in self.hyps],
                "ops": [list(s) for s in self.ops], "ngram": [list(s) for s in self.ngram],
                "tokenize": self.tokenize, **({"spans": list(self.spans)} if self.spans else {})}


def error_spans(name: str, hyps: Sequence[Sequence[str]], spans: Sequence) -> dict:
    """The explorer's spans entry of one metric: ``hyps[system][segment]`` the hypotheses as scored,
    ``spans[system][segment]`` the metric's spans (``{"start", "end", "severity", "confidence"}``); only the
    segments with spans are kept (with their text), so a page without errors grows by nothing."""
    systems = []
    for hs, ss in zip(hyps, spans):
        systems.append({str(i): {"t": hs[i], "s": [[int(sp["start"]), int(sp["end"]), str(sp["severity"]),
                                                     round(float(sp["confidence"]), 3)] for sp in seg]}
                        for i, seg in enumerate(ss) if seg})
    return {"name": name, "systems": systems}


def matched_orders(hyp: Sequence[str], refs: Sequence[Sequence[str]], max_order: int = 4) -> str:
    """For each hypothesis token, the highest order n <= max_order of a matched n-gram covering it (n-gram
    instances matched left to right against the maximum count over the references, as BLEU clips)."""
    best = [0] * len(hyp)
    for n in range(1, max_order + 1):
        avail: Counter = Counter()
        for r in refs:
            c = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
            for g, k in c.items():
                if k > avail[g]:
                    avail[g] = k
        for i in range(len(hyp) - n + 1):
            g = tuple(hyp[i:i + n])
            if avail[g] > 0:
                avail[g] -= 1
                for j in range(i, i + n):
                    best[j] = n
    return "".join(str(min(b, 9)) for b in best)


def explorer_data(systems: Mapping[str, Sequence[str]], refs: Sequence[Sequence[str]],
                  metric_stats: Sequence[tuple[Metric, Sequence[Stats]]], labels: Sequence[str] | None = None,
                  tokenize: str = "13a") -> ExplorerData:
    """``metric_stats``: (metric, per-system statistics in the order of ``systems``) pairs, e.g. the report's."""
    from ..text.encode import encode_texts
    from ._vector import matched_orders_vec
    names = tuple(systems)
    n_seg = len(refs)
    n_refs = np.array([len(r) for r in refs], dtype=np.int64)
    ref_lines = [x for r in refs for x in r]
    lines = ref_lines + [h for s in names for h in systems[s]]
    enc, _, types = encode_texts(lines, tokenize, with_types=True)  # one vocabulary: equal ids <=> equal tokens
    ids, off = enc.ids, enc.offsets
    flat = list(map(types.__getitem__, ids.tolist()))
    off_list = off.tolist()
    toks = [flat[a:b] for a, b in zip(off_list[:-1], off_list[1:])]
    n_ref_rows = len(ref_lines)
    first_ref = np.concatenate([[0], np.cumsum(n_refs)[:-1]]).astype(np.int64)
    ref_tok = [toks[first_ref[i]] if n_refs[i] else [] for i in range(n_seg)]
    # first-reference rows as id rows (segments without a reference align against nothing)
    r0_ids = np.concatenate([ids[off[first_ref[i]]:off[first_ref[i] + 1]] if n_refs[i] else ids[:0]
                             for i in range(n_seg)]) if n_seg else ids[:0]
    r0_off = np.zeros(n_seg + 1, dtype=np.int64)
    np.cumsum([len(t) for t in ref_tok], out=r0_off[1:])
    r_ids, r_off = ids[:off[n_ref_rows]], off[:n_ref_rows + 1]
    ref_seg = np.repeat(np.arange(n_seg, dtype=np.int64), n_refs)
    hyps, ops, ngram = [], [], []
    for k, s in enumerate(names):
        lo = n_ref_rows + k * n_seg
        h_off = off[lo:lo + n_seg + 1] - off[lo]
        h_ids = ids[off[lo]:off[lo + n_seg]]
        hyps.append(tuple(tuple(t) for t in toks[lo:lo + n_seg]))
        ops.append(tuple(align_ops(h_ids, h_off, r0_ids, r0_off)))
        best = np.minimum(matched_orders_vec(h_ids, h_off, r_ids, r_off, ref_seg), 9).astype(np.uint8) + 48
        text = best.tobytes().decode("ascii")
        ngram.append(tuple(text[a:b] for a, b in zip(h_off[:-1].tolist(), h_off[1:].tolist())))
    metrics, scores = [], []
    for m, stats in metric_stats:
        metrics.append({"name": m.display_name, "higher_is_better": bool(m.higher_is_better),
                        "scale": float(getattr(m, "table_scale", 1.0))})
        scores.append(tuple(tuple(float(x) for x in m.sentence_scores(st)) for st in stats))
    return ExplorerData(names, tuple(metrics), tuple(scores), tuple(labels) if labels is not None else None,
                        tuple(tuple(t) for t in ref_tok), tuple(hyps), tuple(ops), tuple(ngram), tokenize)


@dataclass
class ReportAnalyses:
    """What ``mtscore report -o page.html`` shows beside the report: the explorer's data and the per-system
    analyses (word accuracy by frequency, score by reference length, n-gram differences of the baseline and
    the first other system), computed here; report/ renders them."""

    explorer: "ExplorerData"
    words: object  # analysis.buckets.WordAccuracy
    lengths: object  # analysis.buckets.SentenceBuckets
    ngrams: object | None  # analysis.ngrams.NgramDifferences (None with one system)


def report_analyses(rep, systems: Mapping[str, Sequence[str]], refs, labels=None, n_resamples: int = 1000,
                    seed=DEFAULT_SEED) -> ReportAnalyses:
    """The analyses of a :class:`~mtscore.analysis.systems.SystemsReport` (``systems``: shown name -> hypotheses,
    in the report's order); at most 1000 resamples for their intervals."""
    from .buckets import DEFAULT_LENGTH_CUTOFFS, Buckets, sentence_buckets, word_accuracy
    from .ngrams import ngram_differences
    names = list(systems)
    tok = getattr(rep.bleu.metric.config, "tokenize", "13a")
    data = explorer_data(systems, refs, [(m.metric, m.stats) for m in rep.metrics], labels, tokenize=tok)
    ref = [list(t) for t in data.ref]
    hyps = {n: [list(t) for t in data.hyps[k]] for k, n in enumerate(names)}
    n_res = min(n_resamples, 1000)
    words = word_accuracy(hyps, ref, n_resamples=n_res, seed=seed)
    lengths = np.array([len(t) for t in ref])
    m = rep.metrics[0]
    sb = sentence_buckets({n: lengths for n in names}, Buckets(DEFAULT_LENGTH_CUTOFFS), "reference length",
                          stats=dict(zip(names, m.stats)), metric=m.metric, n_resamples=n_res, seed=seed,
                          signature=m.signature)
    nd = None
    if len(names) > 1:
        base = names[rep.baseline]
        other = next(n for n in names if n != base)
        nd = ngram_differences(hyps[other], hyps[base], ref, names=(other, base), top=15)
    return ReportAnalyses(data, words, sb, nd)
