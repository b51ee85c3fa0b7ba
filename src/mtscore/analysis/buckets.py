"""Bucketed analyses of where systems differ (the analyses compare-mt made popular), as result objects:

* :func:`word_accuracy` — precision / recall / F-measure of reference words, by word-frequency bucket
  (frequencies from the references, a counts file or a training corpus) or by any word label (e.g. POS);
* :func:`sentence_buckets` — a corpus score (or a count of segments) per bucket of reference length, of
  length difference (hypothesis - reference), of source length, or of any per-segment value;
* :func:`score_difference_buckets` — how many segments each system wins against a baseline, and by how much,
  from per-segment scores of any metric.

Everything is computed from per-segment sufficient statistics, so bootstrap confidence intervals come from
the one resampling engine (:mod:`mtscore.significance`) with the same draws for every system (paired).
Definitions follow compare-mt 0.2.10 where it defines them (checked against it in
``tests/analysis/test_analysis_comparemt.py``); docs/analysis.md lists the differences.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural

DEFAULT_FREQ_CUTOFFS = (1, 2, 3, 4, 5, 10, 100, 1000)
DEFAULT_LENGTH_CUTOFFS = (10, 20, 30, 40, 50, 60)
DEFAULT_LENGTHDIFF_CUTOFFS = (-20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21)
DEFAULT_DIFF_CUTOFFS = (-10.0, -5.0, -1.0, 0.0, 1.0, 5.0, 10.0)


# ------------------------------------------------------------------------------------------------ buckets
@dataclass(frozen=True)
class Buckets:
    """Half-open buckets ``(-inf, c0), [c0, c1), ..., [c_last, inf)`` given by ascending cutoffs."""

    cutoffs: tuple[float, ...]
    integer: bool = True

    def __post_init__(self):
        c = tuple(self.cutoffs)
        if not c:
            raise InvalidParameterError("bucket cutoffs: at least one cutoff is needed, got none")
        if any(not np.isfinite(x) for x in c):
            raise InvalidParameterError(f"bucket cutoffs: must be finite numbers, got {list(c)}")
        if any(b <= a for a, b in zip(c, c[1:])):
            raise InvalidParameterError(f"bucket cutoffs: must be strictly increasing, got {list(c)}")
        object.__setattr__(self, "cutoffs", c)

    @property
    def labels(self) -> tuple[str, ...]:
        """compare-mt's bucket names: ``<1``, ``1`` (a one-value integer bucket), ``[5,10)``, ``>=1000``."""
        c = self.cutoffs
        out = [f"<{_fmt(c[0])}"]
        for lo, hi in zip(c, c[1:]):
            out.append(_fmt(lo) if self.integer and hi - lo == 1 else f"[{_fmt(lo)},{_fmt(hi)})")
        out.append(f">={_fmt(c[-1])}")
        return tuple(out)

    def __len__(self) -> int:
        return len(self.cutoffs) + 1

    def index(self, values) -> np.ndarray:
        """Bucket of each value: the number of cutoffs <= value."""
        return np.searchsorted(np.asarray(self.cutoffs, dtype=np.float64), np.asarray(values, dtype=np.float64),
                               side="right")


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def parse_cutoffs(text: str, name: str = "--cutoffs", integer: bool = True) -> Buckets:
    """``"1:2:3:10"`` (compare-mt's colon-separated form) or ``"1,2,3,10"``."""
    parts = [p for p in text.replace(",", ":").split(":") if p.strip()]
    try:
        vals = tuple(float(p) for p in parts)
    except ValueError:
        raise InvalidParameterError(f"{name}: must be numbers separated by ':' or ',', got {text!r}") from None
    try:
        return Buckets(vals, integer=integer and all(v.is_integer() for v in vals))
    except InvalidParameterError as exc:
        raise InvalidParameterError(str(exc).replace("bucket cutoffs", name, 1)) from None


# ------------------------------------------------------------------------------------------------ scoring
class _FMeasure:
    """Scores summed (matches, hypothesis words, reference words) as compare-mt does: P, R, F = 0 when no
    word matches. ``part`` picks precision, recall or F."""

    def __init__(self, part: str = "fmeas"):
        self.part = part

    def score(self, summed: np.ndarray) -> np.ndarray:
        m, o, r = summed[..., 0], summed[..., 1], summed[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            rec = np.where(m > 0, m / np.where(r > 0, r, 1), 0.0)
            prec = np.where(m > 0, m / np.where(o > 0, o, 1), 0.0)
            f = np.where(m > 0, 2 * prec * rec / np.where(prec + rec > 0, prec + rec, 1), 0.0)
        return {"prec": prec, "rec": rec, "fmeas": f}[self.part]


@dataclass(frozen=True)
class BucketStat:
    """One statistic of one system in one bucket, with its bootstrap interval (None without resampling)."""

    value: float
    ci: tuple[float, float] | None = None


@dataclass(frozen=True)
class WordAccuracy:
    """Word accuracy by bucket: ``matches[s][b]``, ``hyp_words[s][b]``, ``ref_words[b]`` and the measures."""

    systems: tuple[str, ...]
    buckets: tuple[str, ...]
    by: str  # "frequency" or "label"
    ref_words: tuple[int, ...]
    hyp_words: tuple[tuple[int, ...], ...]
    matches: tuple[tuple[int, ...], ...]
    precision: tuple[tuple[BucketStat, ...], ...]
    recall: tuple[tuple[BucketStat, ...], ...]
    fmeasure: tuple[tuple[BucketStat, ...], ...]
    n_resamples: int
    seed: int | None
    level: float
    signature: str


def _clipped(hyp: Sequence[str], ref: Sequence[str]) -> Counter:
    """Per word, how many hypothesis tokens match a reference token (each reference token used once)."""
    rc = Counter(ref)
    return Counter({w: min(c, rc[w]) for w, c in Counter(hyp).items() if w in rc})


def _frequency_counts(systems, names, ref, buckets, freqs, ref_tot, hyp_tot, match) -> None:
    """Word counts by frequency bucket per segment (``ref_tot[i, b]``, ``hyp_tot[k, i, b]``, ``match[k, i, b]``:
    hypothesis tokens matching a reference token, each reference token used once), vectorized over token ids;
    the per-segment loop of :func:`word_accuracy` (with ``_clipped``) is the definition, checked in the tests."""
    from ._vector import lookup, ragged_ids
    index: dict = {}
    r_ids, r_off = ragged_ids(ref, index)
    hyp = [ragged_ids(systems[s], index) for s in names]
    bucket = buckets.index([freqs.get(w, 0) for w in index]).astype(np.int64)  # per token id
    n, B, V = len(ref), len(buckets), np.int64(max(len(index), 1))

    def cells(ids, off, weights=None):
        row = np.repeat(np.arange(n, dtype=np.int64), np.diff(off))
        return np.bincount(row * B + bucket[ids], weights, minlength=n * B).reshape(n, B)

    ref_tot += cells(r_ids, r_off)
    r_row = np.repeat(np.arange(n, dtype=np.int64), np.diff(r_off))
    ukr, cr = np.unique(r_row * V + r_ids, return_counts=True)
    for k, (h_ids, h_off) in enumerate(hyp):
        hyp_tot[k] += cells(h_ids, h_off)
        h_row = np.repeat(np.arange(n, dtype=np.int64), np.diff(h_off))
        ukh, ch = np.unique(h_row * V + h_ids, return_counts=True)
        m = np.minimum(ch, lookup(ukr, cr, ukh))
        keep = m > 0
        match[k] += np.bincount((ukh[keep] // V) * B + bucket[ukh[keep] % V], m[keep].astype(np.float64),
                                minlength=n * B).reshape(n, B)


def word_frequencies(ref_tokens: Sequence[Sequence[str]] | None = None, counts_file: str | None = None,
                     corpus_file: str | None = None, lowercase: bool = False) -> Mapping[str, int]:
    """Word counts for frequency buckets: a ``word<TAB>count`` file, else a training corpus (tokens split on
    spaces), else the references (compare-mt's order of precedence)."""
    from ..io import read_lines
    counts: Counter = Counter()
    if counts_file:
        for n, line in enumerate(read_lines(counts_file), 1):
            cols = line.rstrip("\r\n").split("\t")
            if len(cols) != 2:
                raise InputError(f"expected WORD<TAB>COUNT, got {len(cols)} column(s)", counts_file, n)
            try:
                c = int(cols[1])
            except ValueError:
                raise InputError(f"count must be an integer, got {cols[1]!r}", counts_file, n) from None
            if c < 0:
                raise InputError(f"count must be >= 0, got {c}", counts_file, n)
            counts[cols[0].lower() if lowercase else cols[0]] = c
        return counts
    lines = [line.split() for line in read_lines(corpus_file)] if corpus_file else ref_tokens
    if lines is None:
        raise InvalidParameterError("word frequencies: give references, a counts file or a corpus file")
    for toks in lines:
        counts.update(t.lower() for t in toks) if lowercase else counts.update(toks)
    return counts


def word_accuracy(systems: Mapping[str, Sequence[Sequence[str]]], ref: Sequence[Sequence[str]], *,
                  buckets: Buckets | None = None, freqs: Mapping[str, int] | None = None,
                  labels: Mapping[str, Sequence[Sequence[str]]] | None = None, ref_labels=None,
                  n_resamples: int = 1000, seed: int | None = 12345, level: float = 0.95,
                  signature: str = "") -> WordAccuracy:
    """Precision, recall and F-measure of words per bucket, for every system (token lists per segment).

    Frequency buckets (default): a word's bucket is that of its frequency in ``freqs`` (default: counted in
    ``ref``). Label buckets: ``ref_labels[i][j]`` labels reference token j of segment i and
    ``labels[system][i][j]`` hypothesis tokens (e.g. POS tags); a matched hypothesis word takes the label of
    the reference word it matches, as in compare-mt. ``n_resamples > 0`` adds bootstrap intervals.
    """
    names = tuple(systems)
    n = len(ref)
    for s in names:
        if len(systems[s]) != n:
            raise InputError(f"{s} has {plural(len(systems[s]), 'segment')}, the reference {n}")
    if ref_labels is not None:
        label_set = sorted({x for seg in ref_labels for x in seg} |
                           {x for s in names for seg in (labels or {}).get(s, ()) for x in seg})
        b_names, by = tuple(label_set), "label"
        lab_index = {x: i for i, x in enumerate(label_set)}
    else:
        buckets = buckets or Buckets(DEFAULT_FREQ_CUTOFFS)
        freqs = word_frequencies(ref) if freqs is None else freqs
        b_names, by = buckets.labels, "frequency"
    B = len(b_names)
    ref_tot = np.zeros((n, B))
    hyp_tot = np.zeros((len(names), n, B))
    match = np.zeros((len(names), n, B))

    def freq_bucket(words):
        return buckets.index([freqs.get(w, 0) for w in words])

    if ref_labels is None:
        _frequency_counts(systems, names, ref, buckets, freqs, ref_tot, hyp_tot, match)
    for i, r in enumerate(ref if ref_labels is not None else ()):
        if ref_labels is not None:
            if len(ref_labels[i]) != len(r):
                raise InputError(f"segment {i + 1}: {plural(len(ref_labels[i]), 'reference label')} for {plural(len(r), 'word')}")
            rb = np.array([lab_index[x] for x in ref_labels[i]], dtype=np.int64)
        else:
            rb = freq_bucket(r)
        np.add.at(ref_tot[i], rb, 1)
        for k, s in enumerate(names):
            h = systems[s][i]
            if ref_labels is not None:
                hl = labels[s][i]
                if len(hl) != len(h):
                    raise InputError(f"{s}, segment {i + 1}: {plural(len(hl), 'label')} for {plural(len(h), 'word')}")
                hb = _label_buckets_matched(h, hl, r, rb, lab_index)
                np.add.at(hyp_tot[k, i], hb[0], 1)
                np.add.at(match[k, i], hb[1], 1)
            else:
                np.add.at(hyp_tot[k, i], freq_bucket(h), 1)
                clipped = _clipped(h, r)
                if clipped:
                    words = list(clipped)
                    np.add.at(match[k, i], freq_bucket(words), np.array([clipped[w] for w in words], float))
    measures = {}
    for part in ("prec", "rec", "fmeas"):
        scorer = _FMeasure(part)
        rows = []
        for k in range(len(names)):
            summed = np.stack([match[k].sum(0), hyp_tot[k].sum(0), ref_tot.sum(0)], axis=-1)  # [B, 3]
            rows.append(scorer.score(summed))
        measures[part] = rows
    cis = _bucket_cis(match, hyp_tot, ref_tot, n_resamples, seed, level) if n_resamples else None

    def pack(part):
        return tuple(tuple(BucketStat(float(measures[part][k][b]), None if cis is None else cis[part][k][b])
                           for b in range(B)) for k in range(len(names)))

    return WordAccuracy(names, b_names, by, tuple(int(x) for x in ref_tot.sum(0)),
                        tuple(tuple(int(x) for x in hyp_tot[k].sum(0)) for k in range(len(names))),
                        tuple(tuple(int(x) for x in match[k].sum(0)) for k in range(len(names))),
                        pack("prec"), pack("rec"), pack("fmeas"), n_resamples, seed, level, signature)


def read_alignments(path: str, n_segments: int | None = None) -> list[list[tuple[int, int]]]:
    """Pharaoh alignments ``i-j`` (source word i, reference word j, 0-based), one line per segment."""
    from ..io import read_lines
    out = []
    for n, line in enumerate(read_lines(path), 1):
        pairs = []
        for item in line.split():
            a, dash, b = item.partition("-")
            if not dash or not a.isdigit() or not b.isdigit():
                raise InputError(f"expected alignments i-j (0-based word numbers), got {item!r}", path, n)
            pairs.append((int(a), int(b)))
        out.append(pairs)
    if n_segments is not None and len(out) != n_segments:
        raise InputError(f"{plural(len(out), 'alignment line')} for {plural(n_segments, 'segment')}", path)
    return out


def source_word_accuracy(systems: Mapping[str, Sequence[Sequence[str]]], ref: Sequence[Sequence[str]],
                         src: Sequence[Sequence[str]], aligns: Sequence[Sequence[tuple[int, int]]], *,
                         buckets: Buckets | None = None, freqs: Mapping[str, int] | None = None,
                         n_resamples: int = 1000, seed: int | None = 12345, level: float = 0.95,
                         signature: str = "") -> WordAccuracy:
    """Source-side word accuracy (compare-mt's source analysis): a source word is translated correctly when
    it is aligned to at least one reference word and every reference word it is aligned to is matched by the
    hypothesis (each reference token matched once, left to right). Buckets by the word's frequency in
    ``freqs`` (default: counted in the source). Precision = recall = the share of correct source words."""
    names = tuple(systems)
    n = len(ref)
    if len(src) != n or len(aligns) != n:
        raise InputError(f"source ({len(src)}), alignments ({len(aligns)}) and reference ({n}) differ in segments")
    buckets = buckets or Buckets(DEFAULT_FREQ_CUTOFFS)
    freqs = word_frequencies(src) if freqs is None else freqs
    B = len(buckets)
    tot = np.zeros((n, B))
    match = np.zeros((len(names), n, B))
    for i in range(n):
        sb = buckets.index([freqs.get(w, 0) for w in src[i]])
        np.add.at(tot[i], sb, 1)
        to_ref: list[list[int]] = [[] for _ in src[i]]
        for a, b in aligns[i]:
            if a >= len(src[i]) or b >= len(ref[i]):
                raise InputError(f"segment {i + 1}: alignment {a}-{b} outside the source ({plural(len(src[i]), 'word')}) "
                                 f"or the reference ({plural(len(ref[i]), 'word')})")
            to_ref[a].append(b)
        occ, seen = [], Counter()
        for w in ref[i]:
            occ.append(seen[w])
            seen[w] += 1
        for k, s in enumerate(names):
            hc = Counter(systems[s][i])
            matched = [occ[j] < hc[w] for j, w in enumerate(ref[i])]
            ok = [bool(t) and all(matched[j] for j in t) for t in to_ref]
            np.add.at(match[k, i], sb[np.array(ok, dtype=bool)], 1)
    hyp_tot = np.broadcast_to(tot, match.shape)
    measures = {part: [_FMeasure(part).score(np.stack([match[k].sum(0), tot.sum(0), tot.sum(0)], -1))
                       for k in range(len(names))] for part in ("prec", "rec", "fmeas")}
    cis = _bucket_cis(match, np.array(hyp_tot), tot, n_resamples, seed, level) if n_resamples else None

    def pack(part):
        return tuple(tuple(BucketStat(float(measures[part][k][b]), None if cis is None else cis[part][k][b])
                           for b in range(B)) for k in range(len(names)))

    total = tuple(int(x) for x in tot.sum(0))
    return WordAccuracy(names, buckets.labels, "source frequency", total, tuple(total for _ in names),
                        tuple(tuple(int(x) for x in match[k].sum(0)) for k in range(len(names))),
                        pack("prec"), pack("rec"), pack("fmeas"), n_resamples, seed, level, signature)


def _label_buckets_matched(h, hl, r, rb, lab_index):
    """(bucket of each hypothesis word, bucket of each matched hypothesis word): a matched word takes the
    label of the reference word it matches (the next unused occurrence, left to right)."""
    pos: dict[str, list[int]] = {}
    for j, w in enumerate(r):
        pos.setdefault(w, []).append(j)
    used: Counter = Counter()
    hb, mb = [], []
    for w, lab in zip(h, hl):
        p = pos.get(w)
        if p and used[w] < len(p):
            b = int(rb[p[used[w]]])
            used[w] += 1
            mb.append(b)
        else:
            b = lab_index[lab]
        hb.append(b)
    return np.array(hb, dtype=np.int64), np.array(mb, dtype=np.int64)


def _bucket_cis(match, hyp_tot, ref_tot, n, seed, level):
    """Paired bootstrap intervals of P/R/F per system and bucket (the same draws for all)."""
    from ..significance import bootstrap_scores, confidence_interval
    K, N, B = match.shape
    out = {p: [[None] * B for _ in range(K)] for p in ("prec", "rec", "fmeas")}
    for part in out:
        scorer = _FMeasure(part)
        for b in range(B):
            values = [np.stack([match[k, :, b], hyp_tot[k, :, b], ref_tot[:, b]], axis=1) for k in range(K)]
            res = bootstrap_scores(scorer, values, n, seed)
            for k in range(K):
                obs = float(scorer.score(values[k].sum(0)))
                ci = confidence_interval(res[k], obs, level)
                out[part][k][b] = (ci.low, ci.high)
    return out


# ------------------------------------------------------------------------------------------------ sentences
@dataclass(frozen=True)
class SentenceBuckets:
    """A corpus score (``statistic="score"``) or a segment count per bucket and system."""

    systems: tuple[str, ...]
    buckets: tuple[str, ...]
    by: str  # "reference length", "length difference", "source length", ...
    statistic: str  # "score" or "count"
    metric: str  # display name of the metric ("" for counts)
    counts: tuple[tuple[int, ...], ...]  # segments per bucket and system
    values: tuple[tuple[BucketStat, ...], ...]
    n_resamples: int
    seed: int | None
    level: float
    signature: str


def sentence_buckets(bucket_of: Mapping[str, np.ndarray], buckets: Buckets, by: str, *,
                     stats: Mapping | None = None, metric=None, n_resamples: int = 1000, seed: int | None = 12345,
                     level: float = 0.95, signature: str = "") -> SentenceBuckets:
    """Per system, the bucket of each segment (``bucket_of[system]``: values to bucket) and, for
    ``statistic="score"``, the metric's per-segment statistics ``stats[system]`` (a ``Stats``): the score of a
    bucket is the corpus score of its segments; CIs resample the segments of the bucket (paired across systems
    where their segments coincide, i.e. when the bucket does not depend on the system)."""
    from ..significance import bootstrap_scores, confidence_interval
    names = tuple(bucket_of)
    idx = {s: buckets.index(bucket_of[s]) for s in names}
    B = len(buckets)
    counts = tuple(tuple(int((idx[s] == b).sum()) for b in range(B)) for s in names)
    if stats is None or metric is None:
        values = tuple(tuple(BucketStat(float(c)) for c in row) for row in counts)
        return SentenceBuckets(names, buckets.labels, by, "count", "", counts, values, 0, seed, level, signature)
    rows = {s: [] for s in names}
    shared = all(np.array_equal(idx[s], idx[names[0]]) for s in names)
    for b in range(B):
        sel = {s: np.flatnonzero(idx[s] == b) for s in names}
        obs = {s: (float(metric.score(stats[s].values[sel[s]].sum(0))) if len(sel[s]) else float("nan"))
               for s in names}
        cis = {s: None for s in names}
        if n_resamples and all(len(sel[s]) for s in names):
            groups = [names] if shared else [(s,) for s in names]
            for g in groups:
                res = bootstrap_scores(metric, [stats[s].values[sel[s]] for s in g], n_resamples, seed)
                for k, s in enumerate(g):
                    ci = confidence_interval(res[k], obs[s], level)
                    cis[s] = (ci.low, ci.high)
        for s in names:
            rows[s].append(BucketStat(obs[s], cis[s]))
    return SentenceBuckets(names, buckets.labels, by, "score", metric.display_name, counts,
                           tuple(tuple(rows[s]) for s in names), n_resamples, seed, level, signature)


# ------------------------------------------------------------------------------------------------ wins
@dataclass(frozen=True)
class ScoreDifferenceBuckets:
    """Per system against the baseline: how many segments fall in each bucket of the per-segment score
    difference (system - baseline), with wins / ties / losses."""

    baseline: str
    systems: tuple[str, ...]  # the compared systems (baseline excluded)
    buckets: tuple[str, ...]
    metric: str
    counts: tuple[tuple[int, ...], ...]
    wins: tuple[int, ...]
    ties: tuple[int, ...]
    losses: tuple[int, ...]
    mean_difference: tuple[float, ...]
    signature: str


def score_difference_buckets(segment_scores: Mapping[str, np.ndarray], baseline: str, metric_name: str,
                             buckets: Buckets | None = None, higher_is_better: bool = True,
                             signature: str = "") -> ScoreDifferenceBuckets:
    """Buckets of per-segment score differences against ``baseline`` (signs flipped for lower-is-better
    metrics, so that a positive difference is always an improvement)."""
    if baseline not in segment_scores:
        raise InvalidParameterError.choice("baseline", baseline, list(segment_scores))
    buckets = buckets or Buckets(DEFAULT_DIFF_CUTOFFS, integer=False)
    base = np.asarray(segment_scores[baseline], dtype=np.float64)
    sign = 1.0 if higher_is_better else -1.0
    others = tuple(s for s in segment_scores if s != baseline)
    counts, wins, ties, losses, means = [], [], [], [], []
    for s in others:
        d = sign * (np.asarray(segment_scores[s], dtype=np.float64) - base)
        if not np.all(np.isfinite(d)):
            raise InputError(f"{s}: per-segment {plural(metric_name, 'score')} must be finite")
        i = buckets.index(d)
        counts.append(tuple(int((i == b).sum()) for b in range(len(buckets))))
        wins.append(int((d > 0).sum()))
        ties.append(int((d == 0).sum()))
        losses.append(int((d < 0).sum()))
        means.append(float(d.mean()) if len(d) else float("nan"))
    return ScoreDifferenceBuckets(baseline, others, buckets.labels, metric_name, tuple(counts), tuple(wins),
                                  tuple(ties), tuple(losses), tuple(means), signature)


def token_lists(lines: Sequence[str], tokenize: str = "13a", lowercase: bool = False) -> list[list[str]]:
    """Token lists of segments as the metrics see them (the named tokenizer, then whitespace split)."""
    from ..tokenize import tokenize_corpus
    return [t.split() for t in tokenize_corpus(list(lines), tokenize, lowercase)]



def system_tokens(systems: Mapping[str, Sequence[str]], refs, tokenize: str = "13a", lowercase: bool = False):
    """Token lists of every system and of the first reference of each segment (``refs`` sentence-major)."""
    ref = token_lists([r[0] for r in refs], tokenize, lowercase)
    return {name: token_lists(h, tokenize, lowercase) for name, h in systems.items()}, ref


def length_values(by: str, systems: Mapping[str, Sequence[str]], refs, tokenize: str = "13a",
                  src: Sequence[str] | None = None) -> tuple[dict, str]:
    """Per system, the value each segment is bucketed by (``analyse lengths --by``): the reference length
    (first reference), the source length (``src``, 13a tokens) or the length difference hypothesis - reference;
    returns ({system: values}, the label of the value)."""
    ref_len = np.array([len(t) for t in token_lists([r[0] for r in refs], tokenize)])
    if by == "source":
        values = np.array([len(t) for t in token_lists(src, "13a")])
        return {s: values for s in systems}, "source length"
    if by == "lengthdiff":
        return {s: np.array([len(t) for t in token_lists(h, tokenize)]) - ref_len for s, h in systems.items()}, \
            "length difference"
    return {s: ref_len for s in systems}, "reference length"


def segment_scores(metric, systems: Mapping[str, Sequence[str]], refs) -> dict:
    """Each system's segment scores by ``metric`` (``analyse wins``)."""
    return {s: metric.sentence_scores(metric.stats(h, refs)) for s, h in systems.items()}
