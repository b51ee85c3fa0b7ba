"""Issue 30's compiled and vectorized paths against their plain Python references (hypothesis inputs, 1 and
several threads, chunk boundaries): the word alignment (``_cmetrics.align_ops`` vs ``align_ops_ref``)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtscore import ckernels
from mtscore.metrics import alignment as al

compiled_only = pytest.mark.skipif(ckernels._cmetrics is None, reason="the compiled extension is not built")

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
WORDS = st.lists(st.sampled_from(["a", "b", "c", "d", "é", "a b"]), max_size=16)
PAIRS = st.lists(st.tuples(WORDS, WORDS), max_size=12)


def _ragged(rows):
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    return np.asarray([x for r in rows for x in r], dtype=np.int64), off


@compiled_only
@SETTINGS
@given(PAIRS, st.integers(1, 4))
def test_align_ops_equal_reference(pairs, threads):
    hyps, refs = [p[0] for p in pairs], [p[1] for p in pairs]
    got = al.alignment_ops(hyps, refs, threads=threads)
    assert got == [al.align_ops_ref(h, r) for h, r in pairs]
    for (h, r), ops in zip(pairs, got):  # the ops walk both sides exactly
        assert ops.count("=") + ops.count("S") + ops.count("I") == len(h)
        assert ops.count("=") + ops.count("S") + ops.count("D") == len(r)
        assert ops.count("S") + ops.count("D") + ops.count("I") == al._distances(r, h)[len(r), len(h)]


@compiled_only
def test_align_ops_chunks_and_long_rows(monkeypatch):
    rng = np.random.default_rng(3)
    rows_h = [rng.integers(0, 6, rng.integers(0, 60)).tolist() for _ in range(40)]
    rows_r = [rng.integers(0, 6, rng.integers(0, 60)).tolist() for _ in range(40)]
    want = [al.align_ops_ref(h, r) for h, r in zip(rows_h, rows_r)]
    h_ids, h_off = _ragged(rows_h)
    r_ids, r_off = _ragged(rows_r)
    monkeypatch.setattr(ckernels, "CHUNK_COST", 3)
    assert ckernels.align_ops(h_ids, h_off, r_ids, r_off, threads=3) == want


def test_align_reference_path_same(monkeypatch):
    """``MTSCORE_KERNELS=reference`` runs the plain Python alignment: same SegmentAlignment."""
    from mtscore.text.fast import kernel_choice
    h, r = "the cat sat on the mat".split(), "a cat sat on mat today".split()
    with kernel_choice("reference"):
        a = al.align(h, r)
    assert a == al.align(h, r)
    assert [p[0] for p in a.pairs] == list(al.align_ops_ref(h, r))


@compiled_only
def test_align_ops_bad_arguments_raise():
    z = np.zeros(2, dtype=np.int64)
    with pytest.raises(ValueError):
        ckernels._cmetrics.align_ops(z, np.array([0, 2]), z, np.array([0, 2]), np.array([0, 1]), 0, 1,
                                     np.zeros(1, np.uint8), np.zeros(1, np.int64), 1)


# ---------------------------------------------------------------------------------------------------------
# explorer: matched n-gram orders (vectorized) and the whole explorer data against the plain Python path
TOKS = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=14)


@SETTINGS
@given(st.lists(st.tuples(TOKS, st.lists(TOKS, max_size=3)), max_size=8), st.integers(1, 5))
def test_matched_orders_vec_equals_reference(segments, max_order):
    from mtscore.analysis._vector import matched_orders_vec, ragged_ids
    from mtscore.analysis.explore import matched_orders
    index: dict = {}
    h_ids, h_off = ragged_ids([h for h, _ in segments], index)
    r_ids, r_off = ragged_ids([r for _, rs in segments for r in rs], index)
    ref_seg = np.repeat(np.arange(len(segments)), [len(rs) for _, rs in segments])
    best = matched_orders_vec(h_ids, h_off, r_ids, r_off, ref_seg, max_order)
    got = ["".join(str(min(int(b), 9)) for b in best[h_off[i]:h_off[i + 1]]) for i in range(len(segments))]
    assert got == [matched_orders(h, rs, max_order) for h, rs in segments]


def _explorer_plain(systems, refs, tokenize="13a"):
    """The explorer's tokens, alignments and matched orders the plain way: the regex tokenizer + split, the
    Python alignment, the Counter-based matched orders."""
    from mtscore.analysis.buckets import token_lists
    from mtscore.analysis.explore import matched_orders
    width = max((len(r) for r in refs), default=0)
    streams = [token_lists([r[k] if k < len(r) else "" for r in refs], tokenize) for k in range(width)]
    ref_tok = streams[0] if streams else [[] for _ in refs]
    seg_refs = [[streams[k][i] for k in range(len(r))] for i, r in enumerate(refs)]
    hyps, ops, ngram = [], [], []
    for s in systems:
        toks = token_lists(list(systems[s]), tokenize)
        hyps.append(tuple(tuple(t) for t in toks))
        ops.append(tuple(al.align_ops_ref(h, r) for h, r in zip(toks, ref_tok)))
        ngram.append(tuple(matched_orders(h, seg_refs[i]) for i, h in enumerate(toks)))
    return tuple(tuple(t) for t in ref_tok), tuple(hyps), tuple(ops), tuple(ngram)


@pytest.mark.parametrize("tokenize", ["13a", "none"])
def test_explorer_data_equals_plain_path_on_wmt17(data, tokenize):
    from mtscore.analysis.explore import explorer_data
    d = data("wmt17-en-de")
    names = sorted(p.name for p in (d / "systems").iterdir())[:3]
    n = 400
    systems = {s: (d / "systems" / s).read_text(encoding="utf-8").split("\n")[:n] for s in names}
    ref = (d / "newstest2017.en-de.ref0.de").read_text(encoding="utf-8").split("\n")[:n]
    # several references on some segments, none on one
    refs = [[r, systems[names[0]][i]] if i % 3 == 0 else ([] if i == 5 else [r]) for i, r in enumerate(ref)]
    got = explorer_data(systems, refs, [], tokenize=tokenize)
    assert (got.ref, got.hyps, got.ops, got.ngram) == _explorer_plain(systems, refs, tokenize)
