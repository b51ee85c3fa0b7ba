"""Word lattices: acyclic FSAs with word (or epsilon) arcs and optional model scores.

Formats
-------
**Moses PLF** (Python lattice format, one lattice per line)::

    ((('a', 1.0, 1),), (('b', 0.5, 1), ('x', 0.5, 1),), (('c', 1.0, 1), ('*EPS*', 1.0, 1),), (('d', 1.0, 1),),)

Column ``j`` is state ``j``; an arc ``(word, score..., distance)`` goes from state ``j`` to state
``j + distance`` (distance >= 1); the state after the last column is the (only) final state, start is 0.
``*EPS*`` (or ``''``) is epsilon. Zero or more scores may be given; the arc's model score is their
sum, taken as a log score by default (``plf_scores="log"``) or as a probability whose natural log is
used (``plf_scores="prob"``, Moses' convention for confusion networks; scores must then be > 0).

**OpenFst text format** (``fstprint`` output; several lattices separated by blank lines)::

    src dst label [weight]            acceptor arc   (4 fields: the 4th is a weight when it parses as a number)
    src dst ilabel olabel [weight]    transducer arc (the input label is used)
    state [weight]                    final state

The start state is the first state of the first line (OpenFst's convention); ``<eps>`` (or ``0``
with ``numeric_eps=True``) is epsilon. Weights are costs in the tropical semiring: the model score is
``-weight`` (final weights too). States need not be numbered in topological order; they are
renumbered internally.

A label with several whitespace-separated words becomes a chain of one-word arcs. A cycle, a
distance < 1, an arc beyond the last state, a malformed line, or a lattice without any path from
the start to a final state raises :class:`~mtscore.errors.InputError` naming the file, the line,
and the state or arc.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import InputError, InvalidParameterError, plural
from .nbest import _read_text_lines

EPS_LABELS = ("*EPS*", "<eps>", "")
PLF_SCORES = ("log", "prob")


@dataclass(frozen=True)
class Lattice:
    """An acyclic word lattice in topological order (state ids 0..n_states-1, arcs sorted by source).

    ``labels[j]`` is the word of arc j or ``None`` for epsilon; ``weight[j]`` its model score (higher is
    better, 0 when absent); ``final[q]`` the final score of state q (``-inf``: not final).
    ``arc_where[j]`` / ``state_names[q]`` say where they came from (for messages).
    """

    n_states: int
    start: int
    src: np.ndarray
    dst: np.ndarray
    labels: list
    weight: np.ndarray
    final: np.ndarray
    name: str = "<lattice>"
    state_names: list = field(default_factory=list, repr=False)
    arc_where: list = field(default_factory=list, repr=False)

    @property
    def n_arcs(self) -> int:
        return len(self.src)

    @property
    def arc_off(self) -> np.ndarray:
        return np.searchsorted(self.src, np.arange(self.n_states + 1)).astype(np.int64)

    def finals(self) -> np.ndarray:
        return np.flatnonzero(np.isfinite(self.final))

    def out_arcs(self, q: int) -> range:
        off = self.arc_off
        return range(int(off[q]), int(off[q + 1]))


# --------------------------------------------------------------------------------------------------
def build_lattice(n_states: int, start: int, src, dst, labels, weight=None, final=None, name: str = "<lattice>",
                  state_names=None, arc_where=None, path=None, arc_lines=None) -> Lattice:
    """Check, split multi-word labels, topologically sort and renumber a lattice given as arc lists.

    ``final`` maps state -> final score (dict, or array with -inf for non-final states).
    """
    src = [int(x) for x in src]
    dst = [int(x) for x in dst]
    labels = [None if (lab is None or lab in EPS_LABELS) else str(lab) for lab in labels]
    weight = [0.0] * len(src) if weight is None else [float(w) for w in weight]
    if not (len(src) == len(dst) == len(labels) == len(weight)):
        raise InvalidParameterError("lattice: src, dst, labels and weight must have the same length")
    state_names = list(state_names) if state_names is not None else [str(q) for q in range(n_states)]
    arc_where = list(arc_where) if arc_where is not None else [f"arc {j}" for j in range(len(src))]
    if arc_lines is not None and len(arc_lines) != len(src):
        arc_lines = None
    fin = np.full(n_states, -np.inf)
    if isinstance(final, dict):
        for q, w in final.items():
            fin[int(q)] = float(w)
    elif final is not None:
        fin[:] = np.asarray(final, dtype=np.float64)
    if not 0 <= start < max(n_states, 1) or n_states == 0:
        raise InputError(f"{name}: start state {start} does not exist", path)
    for j, (a, b) in enumerate(zip(src, dst)):
        if not (0 <= a < n_states and 0 <= b < n_states):
            raise InputError(f"{name}: {arc_where[j]}: state out of range", path)
    # split multi-word labels into chains
    s2, d2, l2, w2, wh2 = [], [], [], [], []
    for j in range(len(src)):
        lab = labels[j]
        words = lab.split() if lab is not None else [None]
        if lab is not None and not words:
            words = [None]
        prev = src[j]
        for t, wd in enumerate(words):
            nxt = dst[j] if t == len(words) - 1 else n_states
            if t < len(words) - 1:
                n_states += 1
                state_names.append(f"{arc_where[j]} (word {t + 2})")
                fin = np.append(fin, -np.inf)
            s2.append(prev)
            d2.append(nxt)
            l2.append(wd)
            w2.append(weight[j] if t == 0 else 0.0)
            wh2.append(arc_where[j])
            prev = nxt
    lines2 = None
    if arc_lines is not None:
        lines2 = []
        for j in range(len(src)):
            lab = labels[j]
            lines2 += [arc_lines[j]] * max(1, len(lab.split()) if lab is not None else 1)
    order = _topological_order(n_states, s2, d2, name, state_names, wh2, path, lines2)
    rank = np.empty(n_states, dtype=np.int64)
    rank[order] = np.arange(n_states)
    S = rank[np.asarray(s2, dtype=np.int64)] if s2 else np.zeros(0, np.int64)
    Dd = rank[np.asarray(d2, dtype=np.int64)] if d2 else np.zeros(0, np.int64)
    arc_order = np.argsort(S, kind="stable")
    lat = Lattice(n_states, int(rank[start]), S[arc_order], Dd[arc_order], [l2[j] for j in arc_order],
                  np.asarray(w2, dtype=np.float64)[arc_order] if w2 else np.zeros(0), fin[order], name,
                  [state_names[q] for q in order], [wh2[j] for j in arc_order])
    _check_has_path(lat, path)
    return lat


def _topological_order(n, src, dst, name, state_names, arc_where, path, arc_lines=None) -> np.ndarray:
    indeg = np.zeros(n, dtype=np.int64)
    out: list[list[int]] = [[] for _ in range(n)]
    for j, (a, b) in enumerate(zip(src, dst)):
        out[a].append(j)
        indeg[b] += 1
    stack = [q for q in range(n - 1, -1, -1) if indeg[q] == 0]
    order = []
    while stack:
        q = stack.pop()
        order.append(q)
        for j in reversed(out[q]):
            b = dst[j]
            indeg[b] -= 1
            if indeg[b] == 0:
                stack.append(b)
    if len(order) < n:
        # find a cycle among the remaining states to report it
        # walk backwards: every unsorted state has an incoming arc from an unsorted state (states
        # downstream of a cycle are unsorted too, but only the walk back is sure to meet the cycle)
        left = set(range(n)) - set(order)
        inc: list[list[int]] = [[] for _ in range(n)]
        for j, b in enumerate(dst):
            inc[b].append(j)
        q = min(left)
        seen: dict[int, int] = {}
        via: list[int] = []
        while q not in seen:
            seen[q] = len(via)
            j = next(j for j in inc[q] if src[j] in left)
            via.append(j)
            q = src[j]
        cyc = via[seen[q]:][::-1]  # the cycle's arcs in forward order
        states = " -> ".join(state_names[src[j]] for j in cyc) + f" -> {state_names[dst[cyc[-1]]]}"
        raise InputError(f"{name}: the lattice is cyclic (states {states}; first arc: {arc_where[cyc[0]]}); "
                         "lattices must be acyclic", path, None if arc_lines is None else arc_lines[cyc[0]])
    return np.asarray(order, dtype=np.int64)


def _check_has_path(lat: Lattice, path) -> None:
    reach = np.zeros(lat.n_states, dtype=bool)
    reach[lat.start] = True
    for j in range(lat.n_arcs):  # arcs sorted by source in topological order
        if reach[lat.src[j]]:
            reach[lat.dst[j]] = True
    if not np.any(reach & np.isfinite(lat.final)):
        if not np.any(np.isfinite(lat.final)):
            raise InputError(f"{lat.name}: the lattice has no final state", path)
        raise InputError(f"{lat.name}: no final state is reachable from the start state "
                         f"{lat.state_names[lat.start]}", path)


# --------------------------------------------------------------------------------------------------
def parse_plf(text: str, name: str = "<plf>", path=None, line: int | None = None, plf_scores: str = "log") -> Lattice:
    """One PLF lattice from its text (see the module docstring)."""
    if plf_scores not in PLF_SCORES:
        raise InvalidParameterError.choice("plf_scores", plf_scores, PLF_SCORES)
    try:
        obj = ast.literal_eval(text.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise InputError(f"{name}: not a PLF lattice (a Python tuple literal): {type(exc).__name__}: "
                         f"{getattr(exc, 'msg', exc)}", path, line) from None
    if not isinstance(obj, (tuple, list)):
        raise InputError(f"{name}: a PLF lattice is a tuple of columns, got {type(obj).__name__}", path, line)
    n_cols = len(obj)
    src, dst, labels, weight, where = [], [], [], [], []
    for c, col in enumerate(obj):
        if not isinstance(col, (tuple, list)):
            raise InputError(f"{name}: column {c}: expected a tuple of arcs, got {col!r}"[:300], path, line)
        for k, arc in enumerate(col):
            here = f"column {c}, arc {k}"
            if not isinstance(arc, (tuple, list)) or len(arc) < 2 or not isinstance(arc[0], str):
                raise InputError(f"{name}: {here}: expected ('word', score..., distance), got {arc!r}"[:300], path, line)
            dist = arc[-1]
            if isinstance(dist, bool) or not isinstance(dist, int):
                raise InputError(f"{name}: {here}: the distance (last field) must be an integer, got {dist!r}", path, line)
            if dist < 1:
                raise InputError(f"{name}: {here}: distance {dist} < 1 would make the lattice cyclic", path, line)
            if c + dist > n_cols:
                raise InputError(f"{name}: {here}: distance {dist} points beyond the last state {n_cols}", path, line)
            sc = 0.0
            for v in arc[1:-1]:
                vals = v if isinstance(v, (tuple, list)) else (v,)
                for x in vals:
                    if not _finite_number(x):
                        raise InputError(f"{name}: {here}: scores must be finite numbers, got {x!r}", path, line)
                    if plf_scores == "prob":
                        if x <= 0:
                            raise InputError(f"{name}: {here}: probability {x!r} must be > 0 (plf_scores=prob)",
                                             path, line)
                        sc += math.log(x)
                    else:
                        sc += float(x)
            src.append(c)
            dst.append(c + dist)
            labels.append(arc[0])
            weight.append(sc)
            where.append(here)
    return build_lattice(n_cols + 1, 0, src, dst, labels, weight, {n_cols: 0.0}, name,
                         [f"state {q}" for q in range(n_cols + 1)], where, path,
                         None if line is None else [line] * len(src))


def _finite_number(v) -> bool:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:  # an int too large for a float
        return False


def read_plf(path, plf_scores: str = "log", lines: Sequence[str] | None = None) -> list[Lattice]:
    """One lattice per line of a PLF file (empty lines are errors); ``lines``: the file's lines, already read."""
    out = []
    for ln, raw in enumerate(_read_text_lines(path) if lines is None else lines, 1):
        if not raw.strip():
            raise InputError("empty line: every line must be a PLF lattice (an empty lattice is '()')", path, ln)
        out.append(parse_plf(raw, f"lattice {ln}", str(path), ln, plf_scores))
    return out


def read_openfst(path, numeric_eps: bool = False, lines: Sequence[str] | None = None) -> list[Lattice]:
    """Lattices in OpenFst's text format, separated by blank lines (see the module docstring); ``lines``: the
    file's lines, already read."""
    lines = _read_text_lines(path) if lines is None else list(lines)
    out = []
    block: list[tuple[int, str]] = []
    for ln, raw in enumerate(lines + [""], 1):
        if raw.strip():
            block.append((ln, raw))
        elif block:
            out.append(_parse_openfst_block(block, str(path), len(out) + 1, numeric_eps))
            block = []
    return out


def _num(tok: str):
    try:
        v = float(tok)
    except ValueError:
        return None
    return v if math.isfinite(v) or v == math.inf else None


def _parse_openfst_block(block, path, k, numeric_eps) -> Lattice:
    name = f"lattice {k}"
    ids: dict[str, int] = {}
    names: list[str] = []

    def state(tok, ln):
        if not tok.isdigit():
            raise InputError(f"{name}: state id must be a non-negative integer, got {tok!r}", path, ln)
        if tok not in ids:
            ids[tok] = len(ids)
            names.append(f"state {tok}")
        return ids[tok]

    src, dst, labels, weight, where, final, alines = [], [], [], [], [], {}, []
    start = None
    for ln, raw in block:
        f = raw.split()
        if start is None:
            start = state(f[0], ln)  # OpenFst: the first state mentioned is the start state
        if len(f) in (1, 2):
            q = state(f[0], ln)
            w = 0.0
            if len(f) == 2:
                v = _num(f[1])
                if v is None:
                    raise InputError(f"{name}: final weight must be a number, got {f[1]!r}", path, ln)
                w = v
            if math.isinf(w):  # infinite cost = not final
                continue
            final[q] = -w
            continue
        if len(f) > 5:
            raise InputError(f"{name}: expected 'src dst label [weight]', 'src dst ilabel olabel [weight]' or "
                             f"'state [weight]', got {plural(len(f), 'field')}", path, ln)
        a = state(f[0], ln)
        b = state(f[1], ln)
        lab = f[2]
        w = 0.0
        if len(f) == 4:
            v = _num(f[3])
            if v is not None:
                w = v
        elif len(f) == 5:
            v = _num(f[4])
            if v is None:
                raise InputError(f"{name}: arc weight must be a number, got {f[4]!r}", path, ln)
            w = v
        if math.isinf(w):
            raise InputError(f"{name}: arc {f[0]} -> {f[1]}: infinite weight", path, ln)
        if lab in ("<eps>",) or (numeric_eps and lab == "0"):
            lab = None
        src.append(a)
        dst.append(b)
        labels.append(lab)
        weight.append(-w)
        where.append(f"arc {f[0]} -> {f[1]} ({lab if lab is not None else '<eps>'}) at line {ln}")
        alines.append(ln)
    return build_lattice(len(ids), start, src, dst, labels, weight, final, name, names, where, path, alines)


LATTICE_FORMATS = ("plf", "openfst")


def read_lattices(path, fmt: str = "auto", plf_scores: str = "log", numeric_eps: bool = False) -> list[Lattice]:
    """``fmt``: plf, openfst, or auto (a first non-blank character '(' -> plf)."""
    lines = None
    if fmt == "auto":  # the lines read to see the format are the lines parsed: a FIFO or stdin is read once
        lines = _read_text_lines(path)
        first = next((x for x in lines if x.strip()), "")
        fmt = "plf" if first.lstrip().startswith("(") else "openfst"
    if fmt == "plf":
        return read_plf(path, plf_scores, lines)
    if fmt == "openfst":
        return read_openfst(path, numeric_eps, lines)
    raise InvalidParameterError.choice("lattice format", fmt, LATTICE_FORMATS + ("auto",))


def lattice_from_strings(candidates: Sequence[str], scores: Sequence[float] | None = None,
                         name: str = "<n-best>") -> Lattice:
    """The lattice whose paths are exactly the candidates (whitespace tokens); score on the first arc."""
    src, dst, labels, weight = [], [], [], []
    n = 2  # 0 = start, 1 = final
    for j, c in enumerate(candidates):
        toks = c.split()
        w = 0.0 if scores is None else float(scores[j])
        if not toks:
            src.append(0)
            dst.append(1)
            labels.append(None)
            weight.append(w)
            continue
        prev = 0
        for t, tok in enumerate(toks):
            nxt = 1 if t == len(toks) - 1 else n
            if t < len(toks) - 1:
                n += 1
            src.append(prev)
            dst.append(nxt)
            labels.append(tok)
            weight.append(w if t == 0 else 0.0)
            prev = nxt
    return build_lattice(n, 0, src, dst, labels, weight, {1: 0.0}, name)


def enumerate_paths(lat: Lattice, limit: int = 100_000):
    """All (tokens, model score) paths from start to a final state (for tests and small lattices)."""
    out = []
    off = lat.arc_off

    def rec(q, toks, sc):
        if len(out) > limit:
            raise InvalidParameterError(f"enumerate_paths: more than {limit} paths")
        if np.isfinite(lat.final[q]):
            out.append((list(toks), sc + float(lat.final[q])))
        for j in range(off[q], off[q + 1]):
            lab = lat.labels[j]
            if lab is not None:
                toks.append(lab)
            rec(int(lat.dst[j]), toks, sc + float(lat.weight[j]))
            if lab is not None:
                toks.pop()

    rec(lat.start, [], 0.0)
    return out
