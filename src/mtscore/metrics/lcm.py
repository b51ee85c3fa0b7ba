"""LCM-lite: linguistic check-points (Zhou et al. 2008 / Woodpecker, as used in CWMT2008), docs/definitions.md §10.

A *check-point* is a piece of a reference (its "reference words") with a category; the candidate
is scored on it by the **n-gram partial matching rate**: every n-gram of the check-point's words,
n = 1..|cp|, counts once in the denominator, and is matched (clipped: ``min(#cp(g), #cand(g))``)
when it occurs anywhere in the candidate sentence. For any set S of check-points (a category, a
level, all of them)

    R(S) = sum_{cp in S} matched(cp) / sum_{cp in S} |cp| (|cp| + 1) / 2
    penalty = Lref / Lcand if Lcand > Lref else 1      (average sentence lengths of the test set)
    Score(S) = R(S) * penalty

Built-in extraction (from every reference; no parser or aligner), categories and levels:

* word: ``content`` (tokens with a letter that are not function words), ``prep``, ``det``,
  ``pron``, ``conj``, ``aux`` (function-word classes from ``mtscore/data/lcm/<lang>.tsv``),
  ``number`` (tokens with a digit), ``capital`` (non-initial, capitalised, not a function word);
* phrase: ``content-run`` (maximal runs of >= 2 content words), ``pp`` (a preposition, optional
  determiners/numbers, then a maximal run of >= 1 content words);
* sentence: ``sentence`` (the whole reference).

User-supplied check-points (``checkpoints=PATH``) replace the extraction; see
:func:`read_checkpoints` for the file format. Statistics per segment are ``hyp_len``, ``ref_len``
(mean over the segment's references) and, per category, ``match_*``, ``total_*``, ``count_*``;
all additive. A category without check-points has an undefined score (NaN); the general score of
a corpus without any check-point is 0.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import ClassVar, Sequence

import numpy as np
import regex

from ..ckernels import lcm_match, lcm_phrases, register_reference
from ..errors import InputError, InvalidParameterError, plural
from ..io import read_lines
from ..params import LOWERCASE, Provided, TOKENIZE, provide, validate_config, Param as P
from ..text import Ragged, Vocab
from ..tokenize import check_tokenizer, tokenize_corpus
from .base import Metric, MetricResult

FW_CLASSES = ("prep", "det", "pron", "conj", "aux")
BUILTIN_CATEGORIES = ("content", "prep", "det", "pron", "conj", "aux", "number", "capital",
                      "content-run", "pp", "sentence")
BUILTIN_LEVELS = {c: "word" for c in BUILTIN_CATEGORIES[:8]}
BUILTIN_LEVELS.update({"content-run": "phrase", "pp": "phrase", "sentence": "sentence"})
LEVEL_ORDER = ("word", "phrase", "sentence")
_HAS_LETTER = regex.compile(r"\p{L}")
_HAS_DIGIT = regex.compile(r"\d")
_DATA = Path(__file__).resolve().parents[1] / "data" / "lcm"


def languages() -> list[str]:
    return sorted(p.name[:-4] for p in _DATA.iterdir() if p.name.endswith(".tsv")) + ["none"]


provide("lcm_languages", languages)  # the `lang` choices of the parameter layer (also lazily from the registry)


@lru_cache(maxsize=None)
def function_words(lang: str) -> dict[str, str]:
    """word (lowercased) -> class, from the shipped list ``data/lcm/<lang>.tsv`` ("none": empty)."""
    if lang == "none":
        return {}
    if lang not in languages():
        raise InvalidParameterError.choice("lang", lang, languages())
    text = (_DATA / f"{lang}.tsv").read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cls, words = line.split("\t", 1)
        for w in words.split():
            out.setdefault(w.lower(), cls)
    return out


# --------------------------------------------------------------------------------------------------
# check-point matching: reference implementation of the compiled kernel ``_cmetrics.lcm_match``
def _cp_matched(tok, s, e, cand, E, RR, cntc, rank):
    m = e - s
    L = len(cand)
    W = L + 1
    for p in range(m - 1, -1, -1):
        for q in range(L - 1, -1, -1):
            if tok[s + p] == cand[q]:
                v = 1
                if p + 1 < m and q + 1 < L:
                    v += E[(p + 1) * W + q + 1]
                E[p * W + q] = v
            else:
                E[p * W + q] = 0
    for a in range(m - 1, -1, -1):
        for b in range(m - 1, a, -1):
            if tok[s + a] == tok[s + b]:
                v = 1
                if b + 1 < m:
                    v += RR[(a + 1) * m + b + 1]
                RR[a * m + b] = v
            else:
                RR[a * m + b] = 0
    matched = 0
    for p in range(m):
        maxn = m - p
        for n in range(maxn + 1):
            cntc[n] = 0
            rank[n] = 0
        for q in range(L):
            v = E[p * W + q]
            if v > maxn:
                v = maxn
            cntc[v] += 1
        for a in range(p):
            v = RR[a * m + p]
            if v > maxn:
                v = maxn
            rank[v] += 1
        cc = 0
        rr = 0
        for n in range(maxn, 0, -1):
            cc += cntc[n]
            rr += rank[n]
            if rr < cc:  # the (rr+1)-th occurrence of this n-gram in the check-point is matched
                matched += 1
    return matched


def _lcm_kernel(tok, cp_start, cp_end, cp_seg, h_ids, h_off, out):
    maxm = 1
    for k in range(len(cp_start)):
        maxm = max(maxm, cp_end[k] - cp_start[k])
    maxl = 1
    for i in range(len(h_off) - 1):
        maxl = max(maxl, h_off[i + 1] - h_off[i])
    E = np.zeros((maxm + 1) * (maxl + 1), dtype=np.int64)
    RR = np.zeros(maxm * maxm, dtype=np.int64)
    cntc = np.zeros(maxm + 2, dtype=np.int64)
    rank = np.zeros(maxm + 2, dtype=np.int64)
    for k in range(len(cp_start)):
        s = cp_seg[k]
        out[k] = _cp_matched(tok, cp_start[k], cp_end[k], h_ids[h_off[s]:h_off[s + 1]], E, RR, cntc, rank)


def match_checkpoints(tok: np.ndarray, cp_start, cp_end, cp_seg, h: Ragged) -> np.ndarray:
    """Matched n-gram count of every check-point ``tok[cp_start:cp_end]`` against candidate ``cp_seg``."""
    out = np.zeros(len(cp_start), dtype=np.float64)
    if len(cp_start):
        lcm_match(tok, cp_start, cp_end, cp_seg, h.ids, h.offsets, out)
    return out


# --------------------------------------------------------------------------------------------------
# built-in extraction (``_phrase_kernel``: reference implementation of ``_cmetrics.lcm_phrases``)
def _phrase_kernel(content, prep, detnum, offsets):
    """(start, end, kind) of content runs (kind 0, length >= 2) and PP proxies (kind 1)."""
    n_tok = len(content)
    starts = np.empty(n_tok, dtype=np.int64)
    ends = np.empty(n_tok, dtype=np.int64)
    kinds = np.empty(n_tok, dtype=np.int64)
    k = 0
    for row in range(len(offsets) - 1):
        a = offsets[row]
        b = offsets[row + 1]
        i = a
        while i < b:
            if content[i]:
                j = i
                while j < b and content[j]:
                    j += 1
                if j - i >= 2:
                    starts[k] = i
                    ends[k] = j
                    kinds[k] = 0
                    k += 1
                i = j
            else:
                i += 1
        for i in range(a, b):
            if prep[i]:
                j = i + 1
                while j < b and detnum[j] and not content[j]:
                    j += 1
                if j < b and content[j]:
                    while j < b and content[j]:
                        j += 1
                    starts[k] = i
                    ends[k] = j
                    kinds[k] = 1
                    k += 1
    return starts[:k], ends[:k], kinds[:k]


def extract_checkpoints(r: Ragged, vocab: Vocab, lang: str):
    """Built-in check-points of encoded references ``r``.

    Returns ``(start, end, cat, row)`` arrays: token span ``r.ids[start:end]``, category index into
    :data:`BUILTIN_CATEGORIES`, reference row.
    """
    fw = function_words(lang)
    types = list(vocab.index)  # id order
    n_types = len(types)
    cls_idx = {c: i for i, c in enumerate(FW_CLASSES)}
    fwc = np.full(n_types, -1, dtype=np.int64)
    letter = np.zeros(n_types, dtype=bool)
    digit = np.zeros(n_types, dtype=bool)
    upper = np.zeros(n_types, dtype=bool)
    for i, t in enumerate(types):
        c = fw.get(t.lower())
        if c is not None:
            fwc[i] = cls_idx[c]
        letter[i] = _HAS_LETTER.search(t) is not None
        digit[i] = _HAS_DIGIT.search(t) is not None
        upper[i] = t[:1].isupper()
    ids = r.ids
    t_fw = fwc[ids] if len(ids) else np.zeros(0, dtype=np.int64)
    t_content = letter[ids] & (t_fw < 0) if len(ids) else np.zeros(0, dtype=bool)
    pos = np.arange(len(ids), dtype=np.int64) - np.repeat(r.offsets[:-1], r.lengths)
    rows = r.row_index()
    tok_pos = np.arange(len(ids), dtype=np.int64)
    starts, cats = [], []
    cat = {c: i for i, c in enumerate(BUILTIN_CATEGORIES)}
    starts.append(tok_pos[t_content]); cats.append(np.full(int(t_content.sum()), cat["content"]))
    fw_mask = t_fw >= 0
    starts.append(tok_pos[fw_mask]); cats.append(t_fw[fw_mask] + cat["prep"])
    if len(ids):
        m = digit[ids]
        starts.append(tok_pos[m]); cats.append(np.full(int(m.sum()), cat["number"]))
        m = upper[ids] & (pos > 0) & (t_fw < 0) & letter[ids]
        starts.append(tok_pos[m]); cats.append(np.full(int(m.sum()), cat["capital"]))
    w_start = np.concatenate(starts).astype(np.int64)
    w_cat = np.concatenate(cats).astype(np.int64)
    w_end = w_start + 1
    detnum = (t_fw == cls_idx["det"]) | (digit[ids] if len(ids) else np.zeros(0, dtype=bool))
    p_start, p_end, p_kind = lcm_phrases(t_content, t_fw == cls_idx["prep"], detnum, r.offsets)
    p_cat = np.where(p_kind == 0, cat["content-run"], cat["pp"])
    nonempty = np.flatnonzero(r.lengths > 0)
    s_start, s_end = r.offsets[:-1][nonempty], r.offsets[1:][nonempty]
    start = np.concatenate([w_start, p_start, s_start])
    end = np.concatenate([w_end, p_end, s_end])
    cats_all = np.concatenate([w_cat, p_cat, np.full(len(nonempty), cat["sentence"], dtype=np.int64)])
    row_of = rows[start] if len(start) else np.zeros(0, dtype=np.int64)
    return start, end, cats_all, row_of


# --------------------------------------------------------------------------------------------------
# user-supplied check-points
@dataclass(frozen=True)
class CheckpointFile:
    path: str
    categories: tuple[str, ...]
    levels: tuple[str, ...]  # level of each category
    seg: np.ndarray  # 0-based segment of every piece
    cat: np.ndarray  # category index of every piece
    first: np.ndarray  # 1 for the first piece of each check-point (for counting instances)
    texts: tuple[str, ...]  # reference words of every piece (untokenized)
    lines: np.ndarray  # file line of every piece
    digest: str


def read_checkpoints(path) -> CheckpointFile:
    """Read a check-point file: UTF-8 TSV, one check-point per line, ``#`` comments and blank lines ignored::

        SEGMENT<TAB>CATEGORY<TAB>LEVEL<TAB>REFERENCE WORDS

    SEGMENT is the 1-based segment number; CATEGORY any name (a category has one LEVEL, typically
    word / phrase / sentence); REFERENCE WORDS the check-point's words in the reference, tokenized
    by the metric's tokenizer like the hypotheses. A ``*`` token marks a gap (non-contiguous
    check-point): the pieces between gaps are scored as separate n-gram sets of one check-point.
    """
    path = os.fspath(path)
    lines = read_lines(path)
    cats: dict[str, int] = {}
    levels: list[str] = []
    seg, cat, first, texts, lns = [], [], [], [], []
    for ln, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 4:
            raise InputError(f"expected SEGMENT<TAB>CATEGORY<TAB>LEVEL<TAB>WORDS (4 fields), got {len(parts)}", path, ln)
        s, c, lev, words = parts
        try:
            si = int(s)
        except ValueError:
            raise InputError(f"SEGMENT must be a positive integer, got {s!r}", path, ln) from None
        if si < 1:
            raise InputError(f"SEGMENT must be a positive integer, got {s!r}", path, ln)
        if not c.strip() or not lev.strip():
            raise InputError("CATEGORY and LEVEL must not be empty", path, ln)
        c, lev = c.strip(), lev.strip()
        if c not in cats:
            cats[c] = len(cats)
            levels.append(lev)
        elif levels[cats[c]] != lev:
            raise InputError(f"category {c!r} has level {levels[cats[c]]!r} earlier, {lev!r} here", path, ln)
        pieces = [p.strip() for p in f" {words} ".split(" * ")]
        pieces = [p for p in pieces if p and p != "*"]
        if not pieces:
            raise InputError("check-point has no reference words", path, ln)
        for k, p in enumerate(pieces):
            seg.append(si - 1); cat.append(cats[c]); first.append(1 if k == 0 else 0)
            texts.append(p); lns.append(ln)
    if not cats:
        raise InputError("no check-points in the file", path)
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:8]
    return CheckpointFile(path, tuple(cats), tuple(levels), np.asarray(seg, np.int64), np.asarray(cat, np.int64),
                          np.asarray(first, np.float64), tuple(texts), np.asarray(lns, np.int64), digest)


# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LCMConfig:
    # parameters (docs/contributing-a-metric.md): name, type, bounds, default, help, command-line option
    PARAMS: ClassVar = (
        P("lang", "choice", "en", choices=Provided("lcm_languages"), flags=("--lcm-lang",), help="function-word lists",
          sig="cp", sig_uses=("checkpoints",),  # the check points: built-in (lite-LANG) or a user file's digest
          sig_fmt=lambda lang, digest: f"lite-{lang}" if digest is None else f"user[{digest}]"),
        P("checkpoints", "path", None, nullable=True, flags=("--checkpoints",),
          help="user check-point file (see docs/lcm.md)"),
        TOKENIZE, LOWERCASE,
    )
    lang: str = "en"  # function-word lists (data/lcm/<lang>.tsv) or "none"
    checkpoints: str | None = None  # path of a user check-point file (replaces the extraction)
    tokenize: str = "13a"
    lowercase: bool = False

    def __post_init__(self):
        validate_config(self)  # by the declarations (PARAMS above)


class LCM(Metric):
    """LCM-lite general score; per-category and per-level scores in the result's components."""

    name = "lcm"
    display_name = "LCM"
    Config = LCMConfig
    higher_is_better = True
    decomposable = False  # the length penalty is corpus-level and system-dependent
    range = (0.0, 1.0)
    table_scale = 100.0  # tables print it on 0..100 (the API keeps 0..1)

    def __init__(self, config=None, **params):
        super().__init__(config, **params)
        if self.config.checkpoints is not None:
            self._cpfile = read_checkpoints(self.config.checkpoints)
            self.categories = self._cpfile.categories
            self.levels = dict(zip(self._cpfile.categories, self._cpfile.levels))
        else:
            self._cpfile = None
            self.categories = BUILTIN_CATEGORIES
            self.levels = dict(BUILTIN_LEVELS)
        cols = ["hyp_len", "ref_len"]
        for c in self.categories:
            cols += [f"match_{c}", f"total_{c}", f"count_{c}"]
        self.columns = tuple(cols)

    def _validate(self) -> None:
        """Every field is checked by its declaration (the Config's PARAMS)."""

    def level_names(self) -> list[str]:
        seen = []
        for lev in LEVEL_ORDER:
            if lev in self.levels.values():
                seen.append(lev)
        for lev in self.levels.values():
            if lev not in seen:
                seen.append(lev)
        return seen

    # -- statistics ----------------------------------------------------------------------------
    def _tok(self, lines):
        return tokenize_corpus(lines, self.config.tokenize, lowercase=bool(self.config.lowercase))

    def _stats(self, hyps, refs):
        n = len(hyps)
        nc = len(self.categories)
        vocab = Vocab()
        h = vocab.encode(self._tok(hyps))
        flat = [x for seg in refs for x in seg]
        nref = np.array([len(seg) for seg in refs], dtype=np.int64)
        pair_seg = np.repeat(np.arange(n, dtype=np.int64), nref)
        r = vocab.encode(self._tok(flat))
        ref_len = np.bincount(pair_seg, weights=r.lengths.astype(np.float64), minlength=n) / np.maximum(nref, 1)
        if self._cpfile is None:
            start, end, cat, row = extract_checkpoints(r, vocab, self.config.lang)
            seg = pair_seg[row] if len(row) else row
            tok = r.ids
            first = np.ones(len(start))
        else:
            cf = self._cpfile
            bad = np.flatnonzero(cf.seg >= n)
            if len(bad):
                k = int(bad[0])
                raise InputError(f"segment {cf.seg[k] + 1} does not exist (the corpus has {plural(n, 'segment')})",
                                 cf.path, int(cf.lines[k]))
            cp = vocab.encode(self._tok(list(cf.texts)))
            empty = np.flatnonzero(cp.lengths == 0)
            if len(empty):
                k = int(empty[0])
                raise InputError("check-point words are empty after tokenization", cf.path, int(cf.lines[k]))
            start, end, cat, seg, tok, first = cp.offsets[:-1], cp.offsets[1:], cf.cat, cf.seg, cp.ids, cf.first
        matched = match_checkpoints(tok, start, end, seg, h)
        m = (end - start).astype(np.float64)
        total = m * (m + 1) / 2
        key = seg * nc + cat
        size = n * nc
        out = np.zeros((n, 2 + 3 * nc))
        out[:, 0] = h.lengths
        out[:, 1] = ref_len
        out[:, 2::3] = np.bincount(key, weights=matched, minlength=size).reshape(n, nc)
        out[:, 3::3] = np.bincount(key, weights=total, minlength=size).reshape(n, nc)
        out[:, 4::3] = np.bincount(key, weights=first, minlength=size).reshape(n, nc)
        return out

    # -- scoring -------------------------------------------------------------------------------
    @staticmethod
    def penalty(summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        hyp, ref = s[..., 0], s[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(hyp > ref, ref / np.where(hyp > 0, hyp, 1.0), 1.0)

    def _group(self, summed, cats: Sequence[int], empty_value=np.nan):
        s = np.asarray(summed, dtype=np.float64)
        idx = np.asarray(cats, dtype=np.int64)
        match = s[..., 2 + 3 * idx].sum(-1)
        total = s[..., 3 + 3 * idx].sum(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            rec = np.where(total > 0, match / np.where(total > 0, total, 1.0), empty_value)
        return rec * self.penalty(s)

    def score(self, summed):
        out = self._group(summed, range(len(self.categories)), empty_value=0.0)
        return out if np.ndim(out) else float(out)

    def category_scores(self, summed) -> dict[str, np.ndarray]:
        return {c: self._group(summed, [i]) for i, c in enumerate(self.categories)}

    def level_scores(self, summed) -> dict[str, np.ndarray]:
        out = {}
        for lev in self.level_names():
            out[lev] = self._group(summed, [i for i, c in enumerate(self.categories) if self.levels[c] == lev])
        return out

    def _result(self, summed, signature, sentence=False):
        s = np.asarray(summed, dtype=np.float64)
        cats = {c: float(v) for c, v in self.category_scores(s).items()}
        levs = {c: float(v) for c, v in self.level_scores(s).items()}
        counts = {c: float(s[4 + 3 * i]) for i, c in enumerate(self.categories)}
        pen = float(self.penalty(s))
        general = float(self.score(s))
        comps = {"general": general, "levels": levs, "categories": cats, "counts": counts, "penalty": pen,
                 "hyp_len": float(s[0]), "ref_len": float(s[1])}
        detail = " ".join(f"{k} = {v:.4f}" for k, v in levs.items()) + f" (penalty = {pen:.3f})"
        return MetricResult(self.name, self.display_name, general, signature, comps, detail)

    def param_value(self, name):
        """The signature writes a check-point file as the digest of what it holds."""
        if name == "checkpoints":
            return None if self._cpfile is None else self._cpfile.digest
        return super().param_value(name)

    def signature_items(self, nrefs):
        return self.declared_signature(("nrefs", nrefs), "case", "tok", "cp")


register_reference("lcm_match", _lcm_kernel)
register_reference("lcm_phrases", _phrase_kernel)
