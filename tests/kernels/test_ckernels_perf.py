"""The compiled and vectorized paths of docs/kernels.md against their plain Python references (hypothesis inputs, 1 and
several threads, chunk boundaries): the word alignment (``_cmetrics.align_ops`` vs ``align_ops_ref``), the
report's vectorized analyses (matched orders, n-gram differences, word accuracy) and the difference interval's grid."""
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


# ---------------------------------------------------------------------------------------------------------
# n-gram differences: vectorized counting against the Counter definition (ngrams.ngram_counts)
def _ngram_differences_plain(hyps_a, hyps_b, refs, compare, alpha, min_n, max_n, top, n_examples):
    from mtscore.analysis.ngrams import ngram_counts
    ca, seg_a = ngram_counts(hyps_a, refs, min_n, max_n)
    cb, seg_b = ngram_counts(hyps_b, refs, min_n, max_n)
    da, db = getattr(ca, compare), getattr(cb, compare)
    scores = {g: (da[g] + alpha) / (da[g] + db[g] + 2 * alpha) for g in set(da) | set(db)}
    order = sorted(scores, key=lambda g: (-scores[g], -(da[g] + db[g]), g))

    def item(g, favour_a):
        ex = []
        if compare == "match":
            diffs = [(sa[g] - sb[g]) * (1 if favour_a else -1) for sa, sb in zip(seg_a, seg_b)]
            ex = [i for i in sorted(range(len(diffs)), key=lambda i: (-diffs[i], i))[:n_examples] if diffs[i] > 0]
        return (" ".join(g), scores[g], da[g], db[g], tuple(ex))

    rev = sorted(scores, key=lambda g: (scores[g], -(da[g] + db[g]), g))
    return ([item(g, True) for g in order[:top]], [item(g, False) for g in rev[:top]],
            {" ".join(g): scores[g] for g in order})


def _as_plain(r):
    row = lambda d: (d.ngram, d.score, d.count_a, d.count_b, d.examples)  # noqa: E731
    return [row(d) for d in r.a_better], [row(d) for d in r.b_better], r.scores


@SETTINGS
@given(st.lists(st.tuples(TOKS, TOKS, TOKS), max_size=9), st.sampled_from(["match", "over", "under"]),
       st.sampled_from([0.5, 1.0, 3.0]), st.integers(1, 3), st.integers(0, 2), st.integers(1, 8), st.integers(0, 3))
def test_ngram_differences_equal_plain_counts(segs, compare, alpha, min_n, extra, top, n_examples):
    from mtscore.analysis.ngrams import ngram_differences
    a, b, r = [s[0] for s in segs], [s[1] for s in segs], [s[2] for s in segs]
    got = ngram_differences(a, b, r, compare=compare, alpha=alpha, min_n=min_n, max_n=min_n + extra, top=top,
                            n_examples=n_examples)
    want = _ngram_differences_plain(a, b, r, compare, alpha, min_n, min_n + extra, top, n_examples)
    assert _as_plain(got) == want
    assert list(got.scores) == list(want[2])


def test_ngram_differences_equal_plain_counts_on_wmt17(data):
    from mtscore.analysis.buckets import token_lists
    from mtscore.analysis.ngrams import ngram_differences
    d = data("wmt17-en-de")
    names = sorted(p.name for p in (d / "systems").iterdir())[:2]
    n = 600
    a, b = (token_lists((d / "systems" / s).read_text(encoding="utf-8").split("\n")[:n]) for s in names)
    r = token_lists((d / "newstest2017.en-de.ref0.de").read_text(encoding="utf-8").split("\n")[:n])
    for compare in ("match", "under"):
        got = ngram_differences(a, b, r, compare=compare, top=15)
        want = _ngram_differences_plain(a, b, r, compare, 1.0, 1, 4, 15, 3)
        assert _as_plain(got) == want
        assert list(got.scores) == list(want[2])


# ---------------------------------------------------------------------------------------------------------
# word accuracy by frequency: vectorized counts against the per-segment loop
@SETTINGS
@given(st.lists(st.tuples(TOKS, TOKS, TOKS), max_size=9), st.sampled_from([(1, 2), (1, 2, 3, 10), (2,)]))
def test_word_accuracy_counts_equal_plain_loop(segs, cutoffs):
    from mtscore.analysis import buckets as bk
    ref = [s[2] for s in segs]
    systems = {"a": [s[0] for s in segs], "b": [s[1] for s in segs]}
    b = bk.Buckets(cutoffs)
    freqs = bk.word_frequencies(ref)
    n, B = len(ref), len(b)
    got = [np.zeros((n, B)), np.zeros((2, n, B)), np.zeros((2, n, B))]
    bk._frequency_counts(systems, ("a", "b"), ref, b, freqs, *got)
    want = [np.zeros((n, B)), np.zeros((2, n, B)), np.zeros((2, n, B))]
    fb = lambda ws: b.index([freqs.get(w, 0) for w in ws])  # noqa: E731
    for i, r in enumerate(ref):
        np.add.at(want[0][i], fb(r), 1)
        for k, s in enumerate(("a", "b")):
            h = systems[s][i]
            np.add.at(want[1][k, i], fb(h), 1)
            clipped = bk._clipped(h, r)
            if clipped:
                words = list(clipped)
                np.add.at(want[2][k, i], fb(words), np.array([clipped[w] for w in words], float))
    for x, y in zip(got, want):
        assert np.array_equal(x, y)


# ---------------------------------------------------------------------------------------------------------
# the difference interval's grid: vectorized p-values equal the scalar test at every shift
@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 400), st.sampled_from(["sacrebleu", "koehn", "moses"]),
       st.sampled_from(["sacrebleu", "strict", "inclusive"]), st.booleans(), st.integers(0, 2**31))
def test_difference_interval_grid_equals_scalar_p(n, method, ties, hib, seed):
    from mtscore.significance import core
    rng = np.random.default_rng(seed)
    sa, sb = rng.normal(30, 2, n).round(rng.integers(0, 4)), rng.normal(30.5, 2, n).round(2)
    obs_a, obs_b = float(sa.mean()), float(sb.mean())
    xs = np.union1d(np.linspace(-8, 8, 101), [0.0, obs_b - obs_a])
    got = core._p_grid(sa, sb, obs_a, obs_b, xs, method, ties, hib)
    want = [core._bootstrap_p_at(sa, sb, obs_a, obs_b, float(x), method, ties, hib) for x in xs]
    assert got == want
    one = core._p_one(sa, sb, obs_a, obs_b, method, ties, hib)  # the bisection's one shift at a time
    assert [one(float(x)) for x in xs] == want
    from mtscore.text.fast import kernel_choice
    with kernel_choice("reference"):
        ref_one = core._p_one(sa, sb, obs_a, obs_b, method, ties, hib)
        assert [ref_one(float(x)) for x in xs[::10]] == want[::10]


# ---------------------------------------------------------------------------------------------------------
# --tokenize none on the compiled path: str.lower + str.split inside the kernel, the reference path's numbers
@compiled_only
@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.text(st.sampled_from("aAbΣσ ς\t\xa0\u2003.,"), max_size=20),
                          st.text(st.sampled_from("aAbΣσ ς\t\xa0\u2003.,"), max_size=20)), min_size=1, max_size=6),
       st.booleans())
def test_tokenize_none_compiled_equals_reference(pairs, lowercase):
    from mtscore.metrics.bleu import BLEU
    from mtscore.text.fast import kernel_choice
    hyps, refs = [p[0] for p in pairs], [[p[1]] for p in pairs]
    m = BLEU(tokenize="none", lowercase=lowercase)
    with kernel_choice("reference"):
        want = m.stats(hyps, refs).values
    assert np.array_equal(m.stats(hyps, refs).values, want)
    assert np.array_equal(m._stats_columns(hyps, [[r[0] for r in refs]]), want)  # the streamed partitions' path


# ---------------------------------------------------------------------------------------------------------
# pairwise chrF / chrF++: the kernel against the Counter reference, sacreBLEU's sentence_score and fastchrf
TEXT = st.text(st.sampled_from("ab cA.(!)ü\t"), max_size=14)
CHRF_KW = st.sampled_from([{}, {"word_order": 2}, {"char_order": 3, "beta": 1}, {"eps_smoothing": True},
                           {"whitespace": True, "lowercase": True}, {"char_order": 0, "word_order": 2}])


@compiled_only
@SETTINGS
@given(st.lists(st.lists(TEXT, max_size=6), max_size=5), st.booleans(), st.booleans(), CHRF_KW, st.integers(1, 3))
def test_chrf_pairwise_equals_reference(groups, same, stats, kw, threads):
    from mtscore.metrics.chrf import CHRF
    from mtscore.search.pairwise import chrf_pairwise_ref, chrf_symbols
    m = CHRF(**kw)
    texts = [t for g in groups for t in g]
    syms = chrf_symbols(m, texts)
    seg_off = np.cumsum([0] + [len(g) for g in groups])
    seg_texts = np.arange(len(texts))
    seg_nh = np.array([len(g) // 2 for g in groups], dtype=np.int64)
    c = m.config
    args = (*syms, c.char_order, c.word_order, seg_texts, seg_off, seg_nh, same, c.beta, c.eps_smoothing, stats)
    got, got_off = ckernels.chrf_pairwise(*args, threads=threads)
    want, want_off = chrf_pairwise_ref(*args)
    assert np.array_equal(got, want) and np.array_equal(got_off, want_off)


@SETTINGS
@given(st.lists(TEXT, max_size=5), st.lists(TEXT, max_size=5), st.sampled_from(["chrf", "chrf++"]))
def test_pairwise_equals_sacrebleu_sentence_score(hyps, refs, name):
    sacrebleu = pytest.importorskip("sacrebleu")
    from mtscore.search.pairwise import pairwise
    peer = sacrebleu.metrics.CHRF(word_order=2 if name == "chrf++" else 0)
    want = np.array([[peer.sentence_score(h, [r]).score for r in refs] for h in hyps]).reshape(len(hyps), len(refs))
    assert np.array_equal(pairwise(name, hyps, refs), want)
    own = np.array([[peer.sentence_score(h, [r]).score for r in hyps] for h in hyps]).reshape(len(hyps), len(hyps))
    assert np.array_equal(pairwise(name, hyps), own)


def test_pairwise_equals_fastchrf_on_wmt17(data):
    fastchrf = pytest.importorskip("fastchrf")  # the test-only peer (PyPI fastchrf, the extras' "test")
    from mtscore.search.pairwise import pairwise
    d = data("wmt17-en-de")
    names = sorted(p.name for p in (d / "systems").iterdir())[:2]
    hyps = (d / "systems" / names[0]).read_text(encoding="utf-8").split("\n")[:60]
    refs = (d / "systems" / names[1]).read_text(encoding="utf-8").split("\n")[:50]
    want = np.array(fastchrf.pairwise_chrf([hyps], [refs])[0])
    assert np.allclose(pairwise("chrf", hyps, refs), want, rtol=0, atol=1e-9)


def test_pairwise_other_metrics_are_their_sentence_scores():
    from mtscore.metrics.registry import get_metric
    from mtscore.search.pairwise import pairwise
    hyps, refs = ["the cat sat", "a dog", ""], ["the cat sat down", "dogs"]
    for name in ("bleu", "ter"):
        m = get_metric(name)
        want = np.array([[float(m.sentence_scores(m.stats([h], [[r]]))[0]) for r in refs] for h in hyps])
        assert np.array_equal(pairwise(name, hyps, refs), want)


def test_mbr_chrf_kernel_equals_generic_path():
    from mtscore.metrics.registry import get_metric
    from mtscore.search import NBestList, Pool
    from mtscore.search.mbr import PairwiseUtility, expected_utilities, posteriors
    rng = np.random.default_rng(0)
    words = "the a cat dog sat on mat , . ( ) ! über straße".split()
    lists = [[" ".join(rng.choice(words, rng.integers(0, 12))) for _ in range(rng.integers(0, 9))] for _ in range(30)]
    pool = Pool.of(NBestList.from_lists(lists))
    for name, kw in [("chrf", {}), ("chrf++", {}), ("chrf", {"eps_smoothing": True, "beta": 1.5})]:
        m = get_metric(name, **kw)
        assert PairwiseUtility(m, pool).method == "chrf"
        post = posteriors(pool)
        fast = expected_utilities(PairwiseUtility(m, pool), post)
        assert np.array_equal(fast, expected_utilities(PairwiseUtility(m, pool, "generic"), post))


@compiled_only
@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 5000), st.integers(0, 2**31), st.integers(1, 3))
def test_bootstrap_grid_counts_equal_numpy_reference(n, seed, threads):
    """The kernel's mean is NumPy's pairwise sum (blocks of 128, halves above): same counts at every size."""
    from mtscore.significance import core
    rng = np.random.default_rng(seed)
    sa, sb = rng.normal(30, 3, n) * 10.0 ** rng.integers(-2, 3), rng.normal(30, 3, n)
    xs = np.union1d(rng.normal(0, 3, 37), [0.0])
    diffs = np.abs(rng.normal(0, 1, len(xs)))
    got = ckernels.bootstrap_grid_counts(sa, sb, xs, diffs, threads=threads)
    want = core._grid_counts_ref(sa, sb, xs, diffs)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


# ---------------------------------------------------------------------------------------------------------
# aggregate chrF (not chrF): kernel against the Counter reference and fastchrf.aggregate_chrf; MBR option
@compiled_only
@SETTINGS
@given(st.lists(st.lists(TEXT, max_size=6), max_size=5), st.booleans(), CHRF_KW, st.integers(1, 3))
def test_aggregate_chrf_kernel_equals_reference(groups, same, kw, threads):
    from mtscore.metrics.chrf import CHRF
    from mtscore.search.pairwise import chrf_pairwise_ref, chrf_symbols
    m = CHRF(**kw)
    texts = [t for g in groups for t in g]
    seg_off = np.cumsum([0] + [len(g) for g in groups])
    seg_nh = np.array([len(g) // 2 for g in groups], dtype=np.int64)
    c = m.config
    for stats in (False, True):
        args = (*chrf_symbols(m, texts), c.char_order, c.word_order, np.arange(len(texts)), seg_off, seg_nh, same,
                c.beta, c.eps_smoothing, stats)
        got = ckernels.chrf_pairwise(*args, threads=threads, aggregate=True)
        want = chrf_pairwise_ref(*args, aggregate=True)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_aggregate_chrf_equals_fastchrf_and_mbr_option(data):
    fastchrf = pytest.importorskip("fastchrf")
    from mtscore.metrics.registry import get_metric
    from mtscore.search import NBestList, Pool, mbr_select
    from mtscore.search.pairwise import aggregate_chrf
    d = data("wmt17-en-de")
    sysl = [p.read_text(encoding="utf-8").split("\n")[:20] for p in sorted((d / "systems").iterdir())[:12]]
    cands = [[s[i] for s in sysl] for i in range(20)]
    for c in cands[:5]:
        assert np.allclose(aggregate_chrf(c), fastchrf.aggregate_chrf([c], [c])[0], rtol=0, atol=1e-9)
    sel = mbr_select(Pool.of(NBestList.from_lists(cands)), get_metric("chrf"), method="aggregate")
    want = [int(np.argmax(fastchrf.aggregate_chrf([c], [c])[0])) for c in cands]
    assert [int(r) - 12 * i for i, r in enumerate(sel.rows)] == want
    assert "aggregate" in sel.method and sel.info["utility"] == "aggregate-chrf"
    with pytest.raises(Exception, match="aggregate"):
        mbr_select(Pool.of(NBestList.from_lists(cands)), get_metric("bleu"), method="aggregate")


# ---------------------------------------------------------------------------------------------------------
# chrF statistics of several systems at once (the reference counted once): equal to system by system
SYS_TEXT = st.text(st.sampled_from("ab cA.(!)ü\t\xa0"), max_size=16)


@SETTINGS
@given(st.integers(0, 7), st.integers(1, 4), CHRF_KW, st.data())
def test_chrf_several_systems_equal_one_by_one(n_seg, k, kw, data):
    from mtscore.metrics.base import RefRows
    from mtscore.metrics.chrf import CHRF
    m = CHRF(**kw)
    refs = data.draw(st.lists(SYS_TEXT, min_size=n_seg, max_size=n_seg))
    systems = [data.draw(st.lists(SYS_TEXT, min_size=n_seg, max_size=n_seg)) for _ in range(k)]
    want = [np.asarray(m._stats(h, [[r] for r in refs])) for h in systems]
    for layout in ([[r] for r in refs], RefRows([refs])):
        got = m._stats_systems(systems, layout)
        assert len(got) == k
        for g, w in zip(got, want):
            assert g.shape == w.shape and np.array_equal(g, w)


def test_chrf_several_systems_blocks_reference_kernels_and_wmt17(data, monkeypatch):
    """Real text, segment blocks of a few segments, the plain Python kernels: the same statistics."""
    from mtscore.metrics import chrf as chrf_mod
    from mtscore.metrics.chrf import CHRF
    from mtscore.text.fast import kernel_choice
    d = data("wmt17-en-de")
    names = sorted(p.name for p in (d / "systems").iterdir())[:4]
    n = 120
    systems = [(d / "systems" / s).read_text(encoding="utf-8").split("\n")[:n] for s in names]
    ref = (d / "newstest2017.en-de.ref0.de").read_text(encoding="utf-8").split("\n")[:n]
    refs = [[r] for r in ref]
    for kw in ({}, {"word_order": 2}, {"lowercase": True, "whitespace": True}):
        m = CHRF(**kw)
        want = [np.asarray(m._stats(h, refs)) for h in systems]
        monkeypatch.setattr(chrf_mod, "_BATCH_SYMBOLS", 2000)  # ~3 segments per block
        got = m._stats_systems(systems, refs)
        monkeypatch.undo()
        assert all(np.array_equal(g, w) for g, w in zip(got, want))
        with kernel_choice("reference"):
            ref_got = m._stats_systems([h[:30] for h in systems[:2]], refs[:30])
        assert all(np.array_equal(g, w[:30]) for g, w in zip(ref_got, want))
    two = [[r, r + " x"] for r in ref]  # several references per segment: not this path
    assert CHRF()._stats_systems(systems, two) is None


def test_partition_stats_several_systems_same_results():
    """compare's partition statistics: chrF of all systems at once equals the system-by-system path (sums, rows)."""
    from mtscore.backends import local
    from mtscore.metrics.bleu import BLEU
    from mtscore.metrics.chrf import CHRF
    hyps = [["the cat sat", "a dog", "", "x y"], ["the cat", "dogs bark", "hello", ""], ["a", "b", "c", "d"]]
    refs = [["the cat sat down"], ["a dog barks"], ["hello there"], ["x y z"]]
    metrics = [BLEU(), CHRF(), CHRF(word_order=2)]
    got = local.partition_stats(metrics, hyps, refs, keep_segments=True)
    for i, h in enumerate(hyps):
        for j, m in enumerate(metrics):
            vals = np.asarray(m._stats(h, refs))
            assert np.array_equal(got[i][j][1], vals) and np.array_equal(got[i][j][0], vals.sum(axis=0))


# ---------------------------------------------------------------------------------------------------------
# chrF without NumPy (small inputs): the exact column sums and the score in Python floats
@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.integers(1, 8), st.sampled_from([1, 2, 3, 0.5, 1.5]), st.booleans(), st.data())
def test_chrf_score_py_is_chrf_score(n_orders, beta, eps, data):
    from mtscore.metrics.chrf import chrf_score, chrf_score_py
    small = st.integers(0, 6)
    row = [float(data.draw(st.one_of(small, st.integers(0, 10 ** 9)))) for _ in range(3 * n_orders)]
    want = chrf_score(np.asarray(row), n_orders, beta, eps)
    got = chrf_score_py(row, n_orders, beta, eps)
    assert type(got) is float and got == want and np.float64(got).tobytes() == np.float64(want).tobytes()


@compiled_only
def test_chrf_corpus_sums_equal_numpy_path(data):
    from mtscore.metrics.chrf import CHRF
    from mtscore.text.fast import kernel_choice
    d = data("wmt17-en-de")
    name = sorted(p.name for p in (d / "systems").iterdir())[0]
    hyps = (d / "systems" / name).read_text(encoding="utf-8").split("\n")[:300] + ["", " ", "a"]
    refs = [[r] for r in (d / "newstest2017.en-de.ref0.de").read_text(encoding="utf-8").split("\n")[:300]]
    refs += [["x"], [""], ["a b"]]
    for kw in ({}, {"word_order": 2}, {"lowercase": True, "whitespace": True}, {"char_order": 0, "word_order": 1},
               {"eps_smoothing": True, "beta": 1}):
        m = CHRF(**kw)
        vals = np.asarray(m._stats(hyps, refs))
        sums = m.corpus_sums(hyps, refs)
        assert type(sums) is list and sums == vals.sum(axis=0).tolist()
        a, b = m.result(sums), m.result(vals.sum(axis=0))
        assert a.score == b.score and a.components == b.components and a.signature == b.signature
    assert CHRF().corpus_sums(hyps[:2], [["a", "b"], ["c"]]) is None  # several references: the usual path
    with kernel_choice("reference"):
        assert CHRF().corpus_sums(hyps, refs) is None
    assert CHRF().corpus_sums([], []) == [0.0] * 18


# ---------------------------------------------------------------------------------------------------------
# the "sacrebleu" bootstrap scheme: counts of numpy's drawn indices (compiled) = offsets + bincount (reference)
@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.integers(0, 40), st.integers(1, 300), st.integers(0, 2**31))
def test_index_counts_equal_reference(k, n, seed):
    from mtscore.significance import _resample as rs
    idx = np.random.default_rng(seed).integers(0, n, size=(k, n))
    want = rs._index_counts_ref(idx, n, np.empty((k, n)))
    got = ckernels.index_counts(idx, n, np.full((k, n), 7.0))
    assert np.array_equal(got, want) and np.array_equal(got.sum(axis=1), np.full(k, float(n)))
    with pytest.raises(ValueError, match="outside"):
        bad = idx.copy() if k else np.zeros((1, n), dtype=np.int64)
        bad[-1, -1] = n
        ckernels.index_counts(bad, n, np.empty(bad.shape))


def test_sacrebleu_scheme_counts_unchanged():
    """The scheme's counts are those of sacreBLEU's indices (``default_rng(seed).choice(N, (n, N))``), drawn once
    per generator state; the stream continues exactly after a cached chunk."""
    from mtscore.significance import _resample as rs
    rs._COUNTS_CACHE.clear()
    for N, n, seed in ((3004, 1000, 12345), (17, 5, 1), (1, 3, 0)):
        idx = np.random.default_rng(seed).choice(N, size=(n, N), replace=True)
        want = np.stack([np.bincount(row, minlength=N) for row in idx]).astype(np.float64)
        for _ in range(2):  # drawn, then from the cache
            rng = np.random.default_rng(seed)
            got = np.concatenate(list(rs.bootstrap_weights(N, n, rng, "sacrebleu")))
            assert np.array_equal(got, want)
            ref = np.random.default_rng(seed)
            ref.choice(N, size=(n, N), replace=True)
            assert rng.integers(0, 2 ** 62) == ref.integers(0, 2 ** 62)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=12),
       st.lists(st.floats(-5, 5), max_size=3))
def test_union_sorted_is_union1d(a, b):
    from mtscore.significance.core import _union_sorted
    got, want = _union_sorted(np.array(a, dtype=np.float64), b), np.union1d(np.array(a, dtype=np.float64), b)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))


def test_explorer_on_the_reference_kernels_in_a_fresh_process():
    """``MTSCORE_KERNELS=reference`` (or a build without the extension): the explorer's alignment falls back to
    its registered reference (analysis/explore.py imports the module that registers it)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    code = ("from mtscore.analysis.explore import explorer_data\n"
            "d = explorer_data({'s': ['the cat sat', 'a dog']}, [['the cat sat down'], ['a dog']], [])\n"
            "print(d.ops)\n")
    env = dict(os.environ, MTSCORE_KERNELS="reference",
               PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "(('===D', '=='),)"
