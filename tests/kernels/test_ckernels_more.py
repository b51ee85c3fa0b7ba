"""The compiled kernels of LCM, ROSE, MBR, the lattice oracle and K-GRR's alignment (mtscore._cmetrics)
against their plain Python reference implementations (the functions in the metric/search modules), on
hypothesis-generated inputs, with 1 and several threads and across chunk boundaries. Bit-identical floats.
~10 s, plus the signal checks of the single-call kernels (lattice, 13a encode: ~2 s)."""
from __future__ import annotations

import os
import signal
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtscore import ckernels
from mtscore.metrics import grr, lcm
from mtscore.metrics import rose_features as rf
from mtscore.search import lattice_oracle as lo
from mtscore.search import mbr

pytestmark = pytest.mark.skipif(ckernels._cmetrics is None, reason="the compiled extension is not built")

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
IDS = st.lists(st.integers(0, 4), max_size=14)
ROWS = st.lists(IDS, max_size=8)


def _ragged(rows):
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    ids = np.asarray([x for r in rows for x in r], dtype=np.int64)
    return ids, off


@st.composite
def corpora(draw, max_refs=3):
    """(hyp rows, ref rows, seg_ref offsets): every segment has 0..max_refs references."""
    n = draw(st.integers(0, 7))
    hyps = [draw(IDS) for _ in range(n)]
    counts = [draw(st.integers(0, max_refs)) for _ in range(n)]
    refs = [draw(IDS) for _ in range(sum(counts))]
    seg_ref = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=seg_ref[1:])
    return hyps, refs, seg_ref


def _small_chunks(monkeypatch):
    monkeypatch.setattr(ckernels, "CHUNK_COST", 3)  # chunks of one or two items: every boundary is crossed


# ---------------------------------------------------------------------------------------------------------
# LCM
@SETTINGS
@given(corpora(max_refs=0), st.lists(IDS, max_size=6), st.data(), st.integers(1, 4))
def test_lcm_match_equals_reference(corpus, cp_rows, data, threads):
    hyps, _, _ = corpus
    tok, cp_off = _ragged(cp_rows)
    h_ids, h_off = _ragged(hyps)
    n_seg = len(hyps)
    starts, ends, segs = [], [], []
    if n_seg:
        for j in range(len(cp_rows)):  # whole rows and random sub-spans of them
            a, b = int(cp_off[j]), int(cp_off[j + 1])
            s = data.draw(st.integers(a, b))
            e = data.draw(st.integers(s, b))
            for x, y in ((a, b), (s, e)):
                starts.append(x)
                ends.append(y)
                segs.append(data.draw(st.integers(0, n_seg - 1)))
    args = [np.asarray(x, dtype=np.int64) for x in (starts, ends, segs)]
    want = np.zeros(len(starts))
    lcm._lcm_kernel(tok, *args, h_ids, h_off, want)
    got = np.zeros(len(starts))
    ckernels.lcm_match(tok, *args, h_ids, h_off, got, threads=threads)
    assert np.array_equal(want, got)


def test_lcm_match_chunks(monkeypatch):
    rng = np.random.default_rng(1)
    hyps = [list(rng.integers(0, 3, rng.integers(0, 30))) for _ in range(40)]
    h_ids, h_off = _ragged(hyps)
    tok = rng.integers(0, 3, 600)
    starts = rng.integers(0, 580, 300)
    ends = starts + rng.integers(0, 20, 300)
    segs = rng.integers(0, 40, 300)
    want = np.zeros(300)
    lcm._lcm_kernel(tok, starts, ends, segs, h_ids, h_off, want)
    _small_chunks(monkeypatch)
    for threads in (1, 3):
        got = np.zeros(300)
        ckernels.lcm_match(tok, starts, ends, segs, h_ids, h_off, got, threads=threads)
        assert np.array_equal(want, got)


@SETTINGS
@given(st.lists(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), max_size=12), max_size=6))
def test_lcm_phrases_equal_reference(rows):
    flat = [t for r in rows for t in r]
    content, prep, detnum = (np.array([t[k] for t in flat], dtype=bool) for k in range(3))
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    want = lcm._phrase_kernel(content, prep, detnum, off)
    got = ckernels.lcm_phrases(content, prep, detnum, off)
    for a, b in zip(want, got):
        assert np.array_equal(a, b) and b.dtype == np.int64


# ---------------------------------------------------------------------------------------------------------
# ROSE
@SETTINGS
@given(corpora(), st.integers(1, 5), st.integers(1, 4))
def test_rose_ngram_pr_and_count_diffs_equal_reference(corpus, max_order, threads):
    hyps, refs, seg_ref = corpus
    h_ids, h_off = _ragged(hyps)
    r_ids, r_off = _ragged(refs)
    n = len(hyps)
    want_p, want_r = np.zeros((n, max_order)), np.zeros((n, max_order))
    rf._ngram_pr(h_ids, h_off, r_ids, r_off, seg_ref, np.int64(5), max_order, want_p, want_r)
    got_p, got_r = np.full((n, max_order), 7.0), np.full((n, max_order), 7.0)
    ckernels.rose_ngram_pr(h_ids, h_off, r_ids, r_off, seg_ref, 5, max_order, got_p, got_r, threads=threads)
    assert np.array_equal(want_p, got_p) and np.array_equal(want_r, got_r)
    cls = np.array([0, 1, 2, 1, 0], dtype=np.int8)
    want = np.zeros((n, 4))
    rf._count_diffs(h_ids, h_off, r_ids, r_off, seg_ref, cls, want)
    got = np.zeros((n, 4))
    ckernels.rose_count_diffs(h_ids, h_off, r_ids, r_off, seg_ref, cls, got, threads=threads)
    assert np.array_equal(want, got)  # inf where a segment has no reference, as the reference gives


@SETTINGS
@given(corpora(), st.data(), st.integers(1, 4))
def test_rose_mixed_prec_equals_reference(corpus, data, threads):
    hyps, refs, seg_ref = corpus
    hw, h_off = _ragged(hyps)
    rw, r_off = _ragged(refs)
    tags = st.integers(0, 2)
    ht = np.asarray(data.draw(st.lists(tags, min_size=len(hw), max_size=len(hw))), dtype=np.int64)
    rt = np.asarray(data.draw(st.lists(tags, min_size=len(rw), max_size=len(rw))), dtype=np.int64)
    n = len(hyps)
    want = np.zeros((n, 4))
    rf._mixed_prec(hw, ht, h_off, rw, rt, r_off, seg_ref, 4, want)
    got = np.zeros((n, 4))
    ckernels.rose_mixed_prec(hw, ht, h_off, rw, rt, r_off, seg_ref, 4, got, threads=threads)
    assert np.array_equal(want, got)


def test_rose_chunks(monkeypatch):
    rng = np.random.default_rng(2)
    n = 200
    hyps = [list(rng.integers(0, 4, rng.integers(0, 12))) for _ in range(n)]
    counts = rng.integers(0, 3, n)
    refs = [list(rng.integers(0, 4, rng.integers(0, 12))) for _ in range(int(counts.sum()))]
    seg_ref = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    h_ids, h_off = _ragged(hyps)
    r_ids, r_off = _ragged(refs)
    want_p, want_r = np.zeros((n, 4)), np.zeros((n, 4))
    rf._ngram_pr(h_ids, h_off, r_ids, r_off, seg_ref, np.int64(4), 4, want_p, want_r)
    want_m = np.zeros((n, 4))
    rf._mixed_prec(h_ids, h_ids % 2, h_off, r_ids, r_ids % 2, r_off, seg_ref, 4, want_m)
    _small_chunks(monkeypatch)
    for threads in (1, 4):
        p, r, m = np.zeros((n, 4)), np.zeros((n, 4)), np.zeros((n, 4))
        ckernels.rose_ngram_pr(h_ids, h_off, r_ids, r_off, seg_ref, 4, 4, p, r, threads=threads)
        ckernels.rose_mixed_prec(h_ids, h_ids % 2, h_off, r_ids, r_ids % 2, r_off, seg_ref, 4, m, threads=threads)
        assert np.array_equal(p, want_p) and np.array_equal(r, want_r) and np.array_equal(m, want_m)


def test_rose_features_end_to_end_equal_reference(monkeypatch):
    """The whole feature matrix through the compiled kernels equals the one through the references."""
    hyps = ["The cat sat on the mat .", "a b c", "", "Hello , world !"]
    refs = [["The cat is on the mat .", "A cat sat on a mat !"], ["a b c d"], ["x"], ["Hello world"]]
    fw = frozenset({"the", "a", "on"})
    got = rf.extract_features(hyps, refs, function_words=fw)
    monkeypatch.setattr(ckernels, "compiled", lambda name=None: False)
    want = rf.extract_features(hyps, refs, function_words=fw)
    assert np.array_equal(got, want)


# ---------------------------------------------------------------------------------------------------------
# MBR
@SETTINGS
@given(st.lists(st.lists(st.lists(st.integers(0, 6), max_size=10), min_size=1, max_size=5), max_size=5),
       st.integers(1, 4))
def test_mbr_clipped_matches_equal_reference(segments, threads):
    cands = [c for seg in segments for c in seg]
    g, goff = _ragged(cands)
    sizes = np.array([len(seg) for seg in segments], dtype=np.int64)
    seg_off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    pair_off = np.concatenate([[0], np.cumsum(sizes ** 2)]).astype(np.int64)
    rows = int(pair_off[-1])
    want = np.full((rows, 5), -1.0)
    mbr.pairwise_clipped_matches(g, goff, seg_off, pair_off, want, 3)
    got = np.full((rows, 5), -1.0)
    ckernels.mbr_clipped_matches(g, goff, seg_off, pair_off, got, 3, threads=threads)
    assert np.array_equal(want, got)


# ---------------------------------------------------------------------------------------------------------
# lattice oracle
WEIGHTS = st.sampled_from([0.0, 0.5, -1.25, 2.0, -0.1, 1e-3, 3.7])


@st.composite
def lattices(draw):
    Q = draw(st.integers(1, 7))
    arcs = []
    for q in range(Q - 1):
        for _ in range(draw(st.integers(0, 3))):
            arcs.append((q, draw(st.integers(q + 1, Q - 1)), draw(st.integers(-1, 3)), draw(WEIGHTS)))
    arcs.sort(key=lambda a: a[0])
    src = np.array([a[0] for a in arcs], dtype=np.int64)
    arc_off = np.searchsorted(src, np.arange(Q + 1)).astype(np.int64)
    dst = np.array([a[1] for a in arcs], dtype=np.int64)
    lab = np.array([a[2] for a in arcs], dtype=np.int64)
    w = np.array([a[3] for a in arcs], dtype=np.float64)
    final = np.array([draw(st.sampled_from([-np.inf, 0.0, 0.25, -2.0])) for _ in range(Q)])
    return arc_off, dst, lab, w, final


@SETTINGS
@given(lattices(), st.lists(st.integers(0, 3), max_size=6), st.integers(1, 4),
       st.sampled_from([0.0, 1.0, 0.5]), st.sampled_from([0.0, 1.0, 0.3]), st.sampled_from([0.0, 1.0, 0.1, 7.0]))
def test_lattice_viterbi_equals_reference(lat, r, K, alpha, beta, lam):
    arc_off, dst, lab, w, final = lat
    r = np.asarray(r, dtype=np.int64)
    want = lo.lattice_viterbi(arc_off, dst, lab, w, final, 0, r, K, alpha, beta, lam)
    got = ckernels.lattice_viterbi(arc_off, dst, lab, w, final, 0, r, K, alpha, beta, lam)
    assert [want[0], want[1], want[2]] == [got[0], got[1], got[2]]  # bit-identical (or all -inf)
    assert np.array_equal(want[3], got[3]) and got[3].shape[1] == 3


# ---------------------------------------------------------------------------------------------------------
# K-GRR alignment
@SETTINGS
@given(IDS, IDS, st.integers(1, 5), st.sampled_from([0.0, 1.0, 0.5, 2.25]), st.sampled_from([0.0, 1.0, 0.3]))
def test_grr_align_equals_reference(c, r, K, alpha, beta):
    c, r = np.asarray(c, dtype=np.int64), np.asarray(r, dtype=np.int64)
    want = grr._grr_align_kernel(c, r, K, alpha, beta)
    got = ckernels.grr_align(c, r, K, alpha, beta)
    assert want[0] == got[0]
    assert np.array_equal(want[1], got[1]) and got[1].shape == (len(want[1]), 3)


def test_bad_arguments_raise_not_crash():
    z = np.zeros(0, dtype=np.int64)
    with pytest.raises(ValueError):  # start outside the lattice
        ckernels.lattice_viterbi(np.zeros(2, dtype=np.int64), z, z, np.zeros(0), np.zeros(1), 5, z, 2, 1.0, 0.0, 0.0)
    with pytest.raises(ValueError):  # an arc to a state that does not exist
        ckernels.lattice_viterbi(np.array([0, 1], dtype=np.int64), np.array([3], dtype=np.int64),
                                 np.array([0], dtype=np.int64), np.zeros(1), np.zeros(1), 0, z, 2, 1.0, 0.0, 0.0)
    with pytest.raises(ValueError):  # a check-point outside the token array
        ckernels.lcm_match(z, np.array([0]), np.array([5]), np.array([0]), z, np.array([0, 0]), np.zeros(1))
    with pytest.raises(ValueError):  # a token id outside the class table
        ckernels.rose_count_diffs(np.array([9]), np.array([0, 1]), z, np.array([0]), np.array([0, 0]),
                                  np.zeros(3, dtype=np.int8), np.zeros((1, 4)))


# ---------------------------------------------------------------------------------------------------------
# Ctrl-C inside one long compiled call
class _Alarm(Exception):
    pass


def _raise_alarm(signum, frame):
    raise _Alarm


def _interrupted_inside(fn, *args) -> list:
    """Calls ``fn(*args)`` with a signal (SIGALRM, whose handler raises) arriving 50 ms in, and returns the
    profiler events of ``fn``: ``c_exception`` means the exception left the compiled call itself (the kernel
    checked for the signal and stopped); ``c_return`` means the kernel ran to its end and the handler ran
    afterwards. No timing assertion: the outcome is read from the events."""
    events = []

    def prof(frame, event, arg):
        if event.startswith("c_") and arg is fn:
            events.append(event)

    old = signal.signal(signal.SIGALRM, _raise_alarm)
    try:
        sys.setprofile(prof)
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        try:
            fn(*args)
        except _Alarm:
            pass
        finally:
            sys.setprofile(None)
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return events


def _long_lattice():
    Q, R = 1500, 800
    src = np.repeat(np.arange(Q - 1), np.minimum(1000, Q - 1 - np.arange(Q - 1)))
    dst = np.concatenate([np.arange(q + 1, min(Q, q + 1001)) for q in range(Q - 1)])
    off = np.searchsorted(src, np.arange(Q + 1)).astype(np.int64)
    final = np.full(Q, -np.inf)
    final[-1] = 0.0
    return (off, dst.astype(np.int64), (dst % 7).astype(np.int64), np.zeros(len(dst)), final, 0,
            (np.arange(R) % 7).astype(np.int64), 2, 1.0, 0.0, 0.0)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs setitimer")
@pytest.mark.parametrize("kernel", ["lattice_viterbi", "encode", "tokenize"])
def test_signal_stops_a_long_single_call(kernel):
    """The kernels that are one long call (no chunks) check for pending signals themselves: the handler's
    exception leaves the compiled call (each input takes seconds uninterrupted)."""
    if kernel == "lattice_viterbi":
        fn, args = ckernels._cmetrics.lattice_viterbi, _long_lattice()
    else:
        from mtscore.text import fast

        lines = 400_000
        data = b"\n".join([b"The quick, brown fox (jumps) over 3.5 lazy dogs' &amp; tails."] * lines)
        fn, args = (fast._ckernel.encode, (data, lines, True, False, False)) if kernel == "encode" else \
            (fast._ckernel.tokenize, (data, lines, True, True))
    assert _interrupted_inside(fn, *args) == ["c_call", "c_exception"]
