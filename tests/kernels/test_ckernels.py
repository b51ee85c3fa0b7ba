"""The compiled metric kernels (mtscore._cmetrics) against their plain reference
implementations (the plain Python functions in the metric modules), on
hypothesis-generated inputs, with 1 and several threads and across chunk boundaries. ~10 s."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_inputs import code_points
from mtscore import ckernels
from mtscore.metrics import _ngram_kernel as ngk
from mtscore.metrics import _ter_kernel as terk
from mtscore.metrics.chrf import _whitespace_table

pytestmark = pytest.mark.skipif(ckernels._cmetrics is None, reason="the compiled extension is not built")


def _py(f):
    return f  # the reference implementations are plain Python functions


ALPHABET = st.sampled_from(list("aab ,.!-\t\u00a0\u3000é中") + ["\U0001f600", "x"])
TEXT = st.text(ALPHABET, max_size=30)
SEGMENTS = st.lists(st.tuples(TEXT, st.lists(TEXT, min_size=1, max_size=3)), min_size=0, max_size=12)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _layout(segs):
    texts, counts = [], []
    for h, refs in segs:
        texts.append(h)
        texts.extend(refs)
        counts.append(len(refs))
    seg_text_off = np.zeros(len(segs) + 1, dtype=np.int64)
    np.cumsum(np.asarray(counts, dtype=np.int64) + 1, out=seg_text_off[1:])
    return texts, seg_text_off, int(sum(counts))


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the reference's uint64 hash wraps, as intended
@SETTINGS
@given(SEGMENTS, st.integers(1, 6), st.integers(1, 4), st.booleans())
def test_chrf_kernels_equal_reference(segs, max_order, threads, whitespace):
    texts, seg_text_off, n_pairs = _layout(segs)
    cps, off = code_points(texts)
    ws = _whitespace_table()
    sym_r, off_r = _py(ngk.drop_whitespace)(cps, off, ws) if not whitespace else (cps, off)
    sym_c, off_c = ckernels.drop_whitespace(cps, off, ws) if not whitespace else (cps, off)
    assert np.array_equal(sym_r, sym_c) and np.array_equal(off_r, off_c)
    want = np.zeros((n_pairs, 3 * max_order + 3))
    got = np.zeros_like(want)
    _py(ngk.ngram_pair_stats)(sym_r, off_r, seg_text_off, max_order, want, 3)
    ckernels.ngram_pair_stats(sym_c, off_c, seg_text_off, max_order, got, 3, threads=threads)
    assert np.array_equal(want, got)
    # chrF++ words: ids equal up to numbering (the kernels number in the same order: identical)
    ids_r, woff_r = _py(ngk.chrf_word_ids)(cps, off, ws)
    ids_c, woff_c = ckernels.chrf_word_ids(cps, off, ws)
    assert np.array_equal(ids_r, ids_c) and np.array_equal(woff_r, woff_c)


SURR_TEXT = st.text(st.sampled_from(list("ab \t\u00a0\u3000\u2028é中\x85") + ["\U0001f600", "\ud800", "\udfff"]),
                    max_size=20)


@SETTINGS
@given(st.lists(st.tuples(SURR_TEXT, st.lists(SURR_TEXT, min_size=1, max_size=3)), max_size=10), st.booleans())
def test_segment_code_points_equals_reference(segs, drop):
    """chrF's layout read from the str objects (1-, 2- and 4-byte strings, lone surrogates, whitespace
    beyond ASCII) equals the reference built through a joined string, UTF-32 and drop_whitespace."""
    hyps, refs = [h for h, _ in segs], [r for _, r in segs]
    ws = _whitespace_table() if drop else None
    want = _py(ngk.segment_code_points)(hyps, refs, ws)
    got = ckernels.segment_code_points(hyps, refs, ws)
    for w, g in zip(want, got):
        assert w.dtype == g.dtype == np.int64 and np.array_equal(w, g)


@SETTINGS
@given(st.integers(0, 8), st.integers(1, 3), st.data(), st.booleans())
def test_segment_code_points_by_columns_equals_rows(n_seg, n_cols, data, drop):
    """The reference columns (streamed partitions) give the layout of the sentence-major rows, on both paths;
    chrF / chrF++ statistics from the columns equal those from the rows."""
    from mtscore.metrics.chrf import CHRF

    hyps = data.draw(st.lists(SURR_TEXT, min_size=n_seg, max_size=n_seg))
    cols = [data.draw(st.lists(SURR_TEXT, min_size=n_seg, max_size=n_seg)) for _ in range(n_cols)]
    rows = [list(r) for r in zip(*cols)] if n_seg else []
    ws = _whitespace_table() if drop else None
    want = _py(ngk.segment_code_points)(hyps, rows, ws)
    from mtscore.text.fast import kernel_choice

    with kernel_choice("reference"):  # the wrapper's own path without the compiled kernels
        plain = ckernels.segment_code_points(hyps, cols, ws, by_columns=True)
    for got in (ckernels.segment_code_points(hyps, cols, ws, by_columns=True), plain):
        for w, g in zip(want, got):
            assert np.array_equal(w, g)
    for m in (CHRF(), CHRF(word_order=2, lowercase=True)):
        assert np.array_equal(m._stats(hyps, rows), m._stats_columns(hyps, cols))


def test_segment_code_points_bad_input_raises():
    with pytest.raises(TypeError, match="expected str, got int"):
        ckernels.segment_code_points(["a", 3], [["a"], ["b"]])
    with pytest.raises(TypeError, match="expected str, got NoneType"):
        ckernels.segment_code_points(["a"], [["a", None]])
    with pytest.raises(ValueError, match="differ in length"):
        ckernels.segment_code_points(["a"], [])
    with pytest.raises(TypeError):
        ckernels.segment_code_points(["a"], [5])
    with pytest.raises(ValueError, match="column differs in length"):
        ckernels.segment_code_points(["a", "b"], [["a"]], by_columns=True)
    with pytest.raises(TypeError, match="expected str, got NoneType"):
        ckernels.segment_code_points(["a"], [[None]], by_columns=True)


def test_chrf_chunks_and_threads(monkeypatch):
    rng = np.random.default_rng(0)
    words = ["a", "b", "ab", "ba", "c.", "(d"]
    segs = [(" ".join(rng.choice(words, rng.integers(0, 8))), [" ".join(rng.choice(words, rng.integers(0, 8)))
                                                                 for _ in range(rng.integers(1, 3))]) for _ in range(300)]
    texts, seg_text_off, n_pairs = _layout(segs)
    cps, off = code_points(texts)
    want = np.zeros((n_pairs, 18))
    ngk.ngram_pair_stats(cps, off, seg_text_off, 6, want, 0)
    monkeypatch.setattr(ckernels, "CHUNK_SEGMENTS", 7)
    for threads in (1, 3, 8):
        got = np.zeros_like(want)
        ckernels.ngram_pair_stats(cps, off, seg_text_off, 6, got, 0, threads=threads)
        assert np.array_equal(want, got)



def _counter_pair_stats(texts, counts, max_order):
    """Plain Counter oracle of ngram_pair_stats: per (segment, reference) pair and order, hypothesis n-grams
    (0 when the reference has none), reference n-grams and clipped matches."""
    from collections import Counter

    rows, t = [], 0
    for c in counts:
        hyp, refs = texts[t], texts[t + 1:t + 1 + c]
        t += 1 + c
        for ref in refs:
            row = []
            for n in range(1, max_order + 1):
                h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
                r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
                n_ref = sum(r.values())
                row += [sum(h.values()) if n_ref else 0, n_ref, sum(min(v, h[g]) for g, v in r.items())]
            rows.append(row)
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), 3 * max_order)


# a text: (length, alphabet size, seed); alphabets of 1e6 and 2**40 symbols make nearly every n-gram distinct, so
# the kernel's hash table fills to its limit and is regrown by long segments between short ones
SYM_TEXT = st.tuples(st.integers(0, 400), st.sampled_from([1, 2, 5, 10**6, 2**40]), st.integers(0, 2**32 - 1))


@SETTINGS
@given(st.lists(st.tuples(SYM_TEXT, st.lists(SYM_TEXT, min_size=1, max_size=3)), min_size=1, max_size=10),
       st.integers(1, 6), st.integers(1, 2))
def test_chrf_kernel_table_reuse_equals_counter(segs, max_order, threads):
    """The compiled kernel keeps one hash table per thread and empties only the slots a segment filled; with
    segments of very different sizes and many distinct n-grams (table regrown mid-run, stale slots of a
    longer segment under a shorter one's smaller mask) every statistic equals a plain Counter count."""
    texts, counts = [], []
    for h, refs in segs:
        for length, alpha, seed in (h, *refs):
            texts.append(np.random.default_rng(seed).integers(0, alpha, length, dtype=np.int64))
        counts.append(len(refs))
    sym = np.concatenate(texts) if texts else np.zeros(0, dtype=np.int64)
    off = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in texts], out=off[1:])
    seg_text_off = np.zeros(len(segs) + 1, dtype=np.int64)
    np.cumsum(np.asarray(counts, dtype=np.int64) + 1, out=seg_text_off[1:])
    got = np.zeros((sum(counts), 3 * max_order))
    ckernels.ngram_pair_stats(sym, off, seg_text_off, max_order, got, 0, threads=threads)
    assert np.array_equal(got, _counter_pair_stats([x.tolist() for x in texts], counts, max_order))

WORDS = st.lists(st.integers(0, 5), max_size=25)


def _ragged(rows):
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    ids = np.asarray([x for r in rows for x in r], dtype=np.int64)
    return ids, off


@SETTINGS
@given(st.lists(st.tuples(WORDS, WORDS), min_size=1, max_size=8), st.integers(1, 3))
def test_ter_kernel_equals_reference(pairs, threads):
    h_ids, h_off = _ragged([p[0] for p in pairs])
    r_ids, r_off = _ragged([p[1] for p in pairs])
    idx = np.arange(len(pairs), dtype=np.int64)
    want = np.array([_py(terk.ter_edits)(h_ids[h_off[k]:h_off[k + 1]], r_ids[r_off[k]:r_off[k + 1]])
                     for k in range(len(pairs))], dtype=np.int64)
    got = ckernels.ter_pairs(h_ids, h_off, r_ids, r_off, idx, idx, threads=threads)
    assert np.array_equal(want, got)


def test_ter_long_and_shift_limit(monkeypatch):
    """Long segments (beam limits, the 1000-candidate stop) and chunking: compiled == plain reference."""
    rng = np.random.default_rng(1)
    rows_h, rows_r = [], []
    for n in (0, 1, 5, 40, 120, 300):
        for m in (0, 3, 60, 200):
            rows_h.append(list(rng.integers(0, 12, n)))
            rows_r.append(list(rng.integers(0, 12, m)))
    h_ids, h_off = _ragged(rows_h)
    r_ids, r_off = _ragged(rows_r)
    idx = np.arange(len(rows_h), dtype=np.int64)
    want = terk.ter_pairs(h_ids, h_off, r_ids, r_off, idx, idx)
    monkeypatch.setattr(ckernels, "CHUNK_PAIRS", 5)
    for threads in (1, 4):
        assert np.array_equal(want, ckernels.ter_pairs(h_ids, h_off, r_ids, r_off, idx, idx, threads=threads))


def test_bad_arguments_raise_not_crash():
    from mtscore import _cmetrics

    z = np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError):
        _cmetrics.ter_pairs(z, np.array([0, 5]), z, np.array([0, 1]), np.array([0]), np.array([0]), 0, 1,
                            np.zeros(1, dtype=np.int64), 1)
    with pytest.raises(ValueError):
        _cmetrics.ngram_pair_stats(z, np.array([0, 1, 2]), np.array([0, 2]), 0, 1, 2, np.zeros((1, 3)), 3, 0, 1)


PAIRS = st.lists(st.tuples(WORDS, st.lists(WORDS, min_size=1, max_size=3)), min_size=1, max_size=8)


def _pairs_layout(segs):
    h_ids, h_off = _ragged([h for h, _ in segs])
    r_ids, r_off = _ragged([r for _, refs in segs for r in refs])
    pair_seg = np.repeat(np.arange(len(segs), dtype=np.int64), [len(refs) for _, refs in segs])
    return h_ids, h_off, r_ids, r_off, pair_seg


@SETTINGS
@given(PAIRS, st.integers(1, 3))
def test_wer_kernel_equals_reference(segs, threads):
    from mtscore.metrics import wer

    args = _pairs_layout(segs)
    assert np.array_equal(_py(wer.levenshtein_pairs_ref)(*args), ckernels.levenshtein_pairs(*args, threads=threads))


@SETTINGS
@given(PAIRS, st.integers(1, 6), st.sampled_from([0.0, 0.5, 1.0, 2.5]), st.sampled_from([0.0, 0.3, 1.0]),
       st.integers(1, 3))
def test_grr_kernel_equals_reference(segs, K, alpha, beta, threads):
    from mtscore.metrics import grr

    args = _pairs_layout(segs)
    want = _py(grr.grr_numerators_ref)(*args, K, alpha, beta)
    got = ckernels.grr_numerators(*args, K, alpha, beta, threads=threads)
    assert np.array_equal(want, got)  # bit-identical: same floating-point steps


def test_grr_kernel_long_rows_regrow_scratch():
    """A long reference after short ones regrows the per-thread scratch (stamps restart)."""
    from mtscore.metrics import grr

    rng = np.random.default_rng(3)
    segs = [(list(rng.integers(0, 4, n)), [list(rng.integers(0, 4, m))]) for n, m in
            [(3, 2), (5, 70), (2, 1), (60, 200), (4, 3), (100, 150)]]
    args = _pairs_layout(segs)
    for K in (1, 4):
        assert np.array_equal(grr.grr_numerators_ref(*args, K, 1.0, 0.5),
                              ckernels.grr_numerators(*args, K, 1.0, 0.5, threads=1))


@SETTINGS
@given(PAIRS, st.sampled_from([1.0, 1.2, 2.0, 3.0]), st.integers(1, 3))
def test_gtm_kernel_equals_reference(segs, e, threads):
    from mtscore.metrics import gtm

    args = _pairs_layout(segs)
    n = len(segs)
    want = (np.zeros(n), np.zeros(n))
    got = (np.zeros(n), np.zeros(n))
    _py(gtm._gtm_kernel_ref)(*args, e, *want)
    ckernels.gtm_kernel(*args, e, *got, threads=threads)
    assert np.array_equal(want[0], got[0]) and np.array_equal(want[1], got[1])


@pytest.mark.filterwarnings("ignore:overflow encountered")
@SETTINGS
@given(PAIRS, st.integers(1, 5))
def test_nist_kernels_equal_reference(segs, max_order):
    """NIST end to end from ids: the reference kernels (uncompiled) and the compiled ones."""
    from mtscore.metrics import nist

    h_ids, h_off, r_ids, r_off, pair_seg = _pairs_layout(segs)
    toks = np.concatenate([h_ids, r_ids])
    off = np.concatenate([h_off, r_off[1:] + h_off[-1]])
    vsize = int(toks.max()) + 1 if len(toks) else 1
    seg_start = np.searchsorted(pair_seg, np.arange(len(segs) + 1)).astype(np.int64)
    cur_r = cur_c = toks
    for n in range(2, max_order + 1):
        cur_r, k_r = _py(nist._next_order_ids_ref)(cur_r, toks, off, n, vsize, len(segs))
        cur_c, k_c = ckernels.nist_next_order_ids(cur_c, toks, off, n, vsize, len(segs))
        assert k_r == k_c and np.array_equal(cur_r, cur_c)
    n_ids = int(max(cur_r.max(initial=-1) + 1, 1))
    info = np.linspace(0.5, 3.0, n_ids)
    hg = cur_r[:len(h_ids)]
    rg = np.where(cur_r[len(h_ids):] < 0, 0, cur_r[len(h_ids):])
    want, got = np.zeros(len(segs)), np.zeros(len(segs))
    _py(nist._clipped_info_ref)(hg, h_off, rg, r_off, seg_start, info, want)
    ckernels.nist_clipped_info(hg, h_off, rg, r_off, seg_start, info, got)
    assert np.array_equal(want, got)


WORD = st.lists(st.sampled_from(list("abcdeéÅ") + ["e\u0301", "A\u030a"]), max_size=12).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.lists(WORD, max_size=6), st.lists(st.lists(WORD, max_size=6), min_size=1, max_size=3)),
                min_size=1, max_size=5), st.sampled_from([0.0, 0.05, 0.2, 0.5, 1.0]), st.booleans())
def test_tbleu_candidate_costs_equal_reference(segs, eps, force):
    from mtscore.metrics import tbleu

    vocab: dict[str, int] = {}
    enc = lambda ws: [vocab.setdefault(w, len(vocab)) for w in ws]  # noqa: E731
    hp = [enc(h) for h, refs in segs for _ in refs]
    rr = [enc(r) for _, refs in segs for r in refs]
    seg = np.repeat(np.arange(len(segs), dtype=np.int64), [len(refs) for _, refs in segs])
    hp_ids, hp_offs = _ragged(hp)
    r_ids, r_offs = _ragged(rr)
    words = sorted(vocab, key=vocab.get)
    codes, offs, masks, nfc = tbleu._nfc_codes(words)
    canon, twin = tbleu._nfc_classes(nfc)
    args = (hp_ids, hp_offs, r_ids, r_offs, seg, codes, offs, masks, canon, twin, eps, force)
    want = tbleu._candidate_costs_ref(*args)
    for budget in (None, 1):  # one call, and one call per segment (chunks at segment boundaries)
        got = tbleu._candidate_costs(*args, budget=budget)
        for a, b in zip(want, got):
            assert np.array_equal(np.asarray(a), np.asarray(b)) and np.asarray(a).dtype == np.asarray(b).dtype
    for w1 in words[:4]:
        for w2 in words[:4]:
            c, o, _, _ = tbleu._nfc_codes([w1, w2])
            n, m = int(o[1]), int(o[2] - o[1])
            assert tbleu._affix_parts(c, 0, n, n, m, np.empty(0, dtype=np.int32)) == tbleu._affix_parts_fast(c, n, m)


def test_bleu_strings_chunks_equal_one_call(monkeypatch):
    from mtscore.text import fast

    if fast._ckernel is None:
        pytest.skip("the compiled extension is not built")
    rng = np.random.default_rng(5)
    words = ["a", "b,", "c.", "d-e", "Ü", "1.000"]
    hyps = [" ".join(rng.choice(words, rng.integers(0, 9))) for _ in range(100)]
    refs = [[" ".join(rng.choice(words, rng.integers(0, 9))) for _ in range(rng.integers(1, 3))] for _ in range(100)]
    want = fast.bleu_statistics_strings(hyps, refs, 4, "closest", threads=1)
    monkeypatch.setattr(fast, "CHUNK_SEGMENTS", 7)
    for threads in (1, 3):
        assert np.array_equal(want, fast.bleu_statistics_strings(hyps, refs, 4, "closest", threads=threads))


def test_table_cells_columnwise_equal_per_cell():
    from mtscore.report.tables import Marked, Table, _cell, _cells

    rows = [[1, 2.345, np.float64(3.14159), "a", float("nan"), None, True, -0.0, Marked(1.5, "*"), (1.0, 2.0)],
            [2, 1e10, np.float64(-1.005), "b\nc", 1.0, 1.5, False, 0.125, Marked(2.0), (None, 3.0)]]
    t = Table(columns=[f"c{i}" for i in range(10)], rows=rows, digits=3, col_digits={"c1": 1})
    assert _cells(t) == [[_cell(v, t.digits_of(i)).replace("\n", " ") for i, v in enumerate(r)] for r in rows]


def test_cli_threads_option(tmp_path):
    import subprocess
    import sys

    h, r = tmp_path / "h.txt", tmp_path / "r.txt"
    h.write_text("a b c d\ne f g\n" * 50, encoding="utf-8")
    r.write_text("a b c e\ne f h\n" * 50, encoding="utf-8")
    outs = []
    for t in ("1", "3"):
        p = subprocess.run([sys.executable, "-m", "mtscore", "score", "-q", "-m", "bleu", "chrf", "ter", "--threads", t,
                            "-r", str(r), "-i", str(h), "--sentence-level", "-f", "tsv"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        outs.append(p.stdout)
    assert outs[0] == outs[1]
    p = subprocess.run([sys.executable, "-m", "mtscore", "score", "-m", "bleu", "--threads", "0", "-r", str(r), "-i",
                        str(h)], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.startswith("mtscore: error: --threads: ") and len(p.stderr.splitlines()) == 1


@SETTINGS
@given(st.integers(1, 300), st.integers(0, 40), st.integers(0, 2 ** 32), st.integers(1, 4))
def test_bootstrap_counts_equal_reference(n_segments, rows, seed, threads):
    from mtscore.significance import _resample

    keys = np.random.default_rng(seed).integers(0, 2 ** 64, size=rows, dtype=np.uint64, endpoint=False)
    want = _resample._bootstrap_counts_kernel_ref(keys, n_segments, np.empty((rows, n_segments)))
    got = ckernels.bootstrap_counts(keys, n_segments, np.full((rows, n_segments), 7.0), threads=threads)
    assert np.array_equal(want, got)
