"""The compiled meta-evaluation kernels (mtscore._cmeta) against their reference implementations
run as plain Python (``meta._kernels.plain_reference``), on hypothesis-generated grouped,
weighted data (ties, zero and fractional weights, groups on both sides of the direct/Fenwick switch at 48
cells), with 1 and several threads and across chunk boundaries: the results are bit-identical. ~15 s."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtscore.meta import _kernels as K
from mtscore.meta import stats as S

pytestmark = pytest.mark.skipif(K._cmeta is None, reason="the compiled extension mtscore._cmeta is not built")

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
GROUP_KERNELS = ("group_counts", "group_pearson", "group_spearman", "group_minclasses")


@st.composite
def grouped(draw, max_groups=5, max_size=110):
    sizes = draw(st.lists(st.integers(0, max_size), min_size=0, max_size=max_groups))
    n = sum(sizes)
    levels = draw(st.integers(1, 12))  # few levels: many ties
    scale = draw(st.sampled_from([1.0, 0.25, 0.1, 1e-3]))  # 0.1: inexact sums (summation order shows)
    x = np.array(draw(st.lists(st.integers(0, levels), min_size=n, max_size=n)), dtype=np.float64) * scale
    y = np.array(draw(st.lists(st.integers(0, levels), min_size=n, max_size=n)), dtype=np.float64) * scale
    kind = draw(st.sampled_from(["ones", "counts", "fractions"]))
    if kind == "ones":
        w = np.ones(n)
    elif kind == "counts":
        w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.float64)
    else:
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.3, 1.0, 1.7, 2.5]), min_size=n, max_size=n)))
    starts = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    return x, y, w, starts


def _same(a, b):
    if isinstance(a, tuple):
        return all(_same(u, v) for u, v in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


@pytest.fixture(params=[False, True], ids=["one-chunk", "many-chunks"])
def chunks(request, monkeypatch):
    if request.param:  # tiny chunks: every group / resample / pair block in its own call
        monkeypatch.setattr(K, "CHUNK_COST", 1)
    return request.param


@SETTINGS
@given(grouped(), st.integers(1, 4), st.sampled_from([0.1, 1.0, 2.5]))
def test_group_kernels_equal_reference(chunks, data, threads, thr):
    x, y, w, starts = data
    for name in GROUP_KERNELS:
        got = getattr(K, name)(x, y, w, starts, threads=threads)
        want = K.plain_reference(name)(x, y, w, starts)
        assert _same(got, want), name
    got = K.group_darr(x, y, w, starts, thr, threads=threads)
    assert _same(got, K.plain_reference("group_darr")(x, y, w, starts, thr))
    groups = np.arange(len(starts) - 1, dtype=np.int64)[::-1].copy()  # any order of listed groups
    assert _same(K.enumerate_pairs(starts, groups, threads=threads),
                 K.plain_reference("enumerate_pairs")(starts, groups))


@SETTINGS
@given(grouped(max_groups=4, max_size=70), st.integers(0, 4), st.integers(1, 4), st.integers(0, 2 ** 32 - 1))
def test_rows_of_weights_equal_reference_per_row(chunks, data, rows, threads, seed):
    """Weights [rows, cells] (one row per resample): each row equals the reference on that row alone."""
    x, y, _, starts = data
    W = np.random.default_rng(seed).choice([0.0, 1.0, 2.0, 0.5], (rows, len(x)))  # test data only
    G = len(starts) - 1
    for name, cols, extra in [(n, c, ()) for n, c in zip(GROUP_KERNELS, (5, 1, 1, 2))] + [("group_darr", 2, (1.0,))]:
        got = getattr(K, name)(x, y, W, starts, *extra, threads=threads)
        ref = K.plain_reference(name)
        want = np.stack([ref(x, y, W[r], starts, *extra) for r in range(rows)]) if rows else \
            np.zeros((0, G, cols))[..., 0] if cols == 1 else np.zeros((0, G, cols))
        assert _same(got, want), name


@SETTINGS
@given(grouped(max_groups=4, max_size=30), st.integers(0, 5), st.sampled_from(["cells", "groups", "both", "none"]),
       st.sampled_from(["acc_eq", "eq"]), st.integers(1, 3), st.integers(0, 2 ** 32 - 1))
def test_tie_best_equals_reference(chunks, data, rows, weights, variant, threads, seed):
    x, y, _, starts = data
    gr = S.Grouped(x, y, starts)
    p = gr.pairs()
    base, tie = p._vals(variant)
    is_end = np.zeros(len(p.diff), dtype=np.bool_)
    is_end[p.run_end] = True
    rng = np.random.default_rng(seed)  # test data only
    G, n = gr.n_groups, len(x)
    rows = max(rows, 1)
    cw = rng.integers(0, 3, (rows, n)).astype(float) if weights in ("cells", "both") else np.zeros((0, n))
    gw = rng.integers(0, 3, (rows, G)).astype(float) if weights in ("groups", "both") else np.zeros((0, G))
    if weights == "none":
        gw = np.ones((1, G))
    args = (p.a, p.b, p.group, tie - base, base, p.diff, is_end, p.cell_group, G, cw, gw)
    assert _same(K.tie_best(*args, threads=threads), K.plain_reference("tie_best")(*args))


def test_reference_path_without_extension_or_by_override(monkeypatch):
    """No extension (no C compiler) or MTSCORE_KERNELS=reference: the references run, same numbers."""
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 5, 80).astype(float), rng.integers(0, 5, 80).astype(float)
    w, starts = np.ones(80), np.array([0, 30, 80])
    compiled = K.group_counts(x, y, w, starts)
    monkeypatch.setenv("MTSCORE_KERNELS", "reference")
    assert not K.compiled()
    assert _same(K.group_counts(x, y, w, starts), compiled)
    monkeypatch.delenv("MTSCORE_KERNELS")
    monkeypatch.setattr(K, "_cmeta", None)
    assert not K.compiled()
    assert _same(K.group_counts(x, y, w, starts), compiled)


def test_bad_input_is_an_error_not_a_crash():
    x = np.zeros(4)
    with pytest.raises(ValueError, match="group starts"):
        K._cmeta.group_counts(x, x, x, np.array([0, 3, 2, 4]), 1, 0, 1, 0, 3, np.zeros((3, 5)), 1)
    with pytest.raises(ValueError, match="group starts"):
        K._cmeta.group_pearson(x, x, x, np.array([0, 9]), 1, 0, 1, 0, 1, np.zeros(1), 1)
    with pytest.raises(ValueError, match="output shape"):  # 2 rows of weights need [2, G, cols]
        K._cmeta.group_counts(x, x, np.zeros(8), np.array([0, 4]), 2, 0, 2, 0, 1, np.zeros((1, 5)), 1)
    with pytest.raises(ValueError, match="weights must be"):
        K.group_counts(x, x, np.ones((2, 3)), np.array([0, 4]))
    with pytest.raises(ValueError, match="out of range"):
        K.enumerate_pairs(np.array([0, 4]), np.array([1]))
    with pytest.raises(ValueError, match="index outside"):
        K.tie_best(np.array([0]), np.array([7]), np.array([0]), np.zeros(1), np.zeros(1), np.zeros(1),
                   np.ones(1, bool), np.zeros(4, np.int64), 1, np.ones((1, 4)), np.zeros((0, 1)))


@pytest.mark.parametrize("threads", [1, 3])
def test_large_groups_fractional_weights(threads, monkeypatch):
    """Groups far above the Fenwick switch, fractional weights (the summation order shows in the last bit)."""
    rng = np.random.default_rng(7)  # test data only
    sizes = [700, 49, 48, 0, 1, 2, 1500]
    n = sum(sizes)
    x = rng.integers(0, 40, n) * 0.1
    y = rng.integers(0, 25, n) * 0.3
    w = rng.choice([0.0, 0.3, 1.0, 1.7, 2.5], n)
    starts = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    monkeypatch.setattr(K, "CHUNK_COST", 5000)
    for name in GROUP_KERNELS:
        assert _same(getattr(K, name)(x, y, w, starts, threads=threads), K.plain_reference(name)(x, y, w, starts))
    assert _same(K.group_darr(x, y, w, starts, 0.9, threads=threads),
                 K.plain_reference("group_darr")(x, y, w, starts, 0.9))


def test_ctrl_c_is_handled_between_chunks(monkeypatch):
    """The wrappers return to Python between two chunks of bounded work: a pending KeyboardInterrupt (here
    raised by interrupt_main during the first chunk) stops the loop before the next chunk."""
    import _thread

    real = K._cmeta
    calls = []

    class Proxy:
        def __getattr__(self, name):
            fn = getattr(real, name)

            def wrapped(*args):
                calls.append(name)
                if len(calls) == 1:
                    _thread.interrupt_main()
                return fn(*args)
            return wrapped

    monkeypatch.setattr(K, "_cmeta", Proxy())
    monkeypatch.setattr(K, "CHUNK_COST", 1)
    x = np.arange(400, dtype=float)
    starts = np.arange(0, 401, 4)
    with pytest.raises(KeyboardInterrupt):
        K.group_counts(x, x, np.ones(400), starts, threads=1)
    assert 1 <= len(calls) < 100


def test_thread_count_is_validated():
    from mtscore.errors import InvalidParameterError
    x = np.zeros(4)
    for bad in (0, -1, 1.5):
        with pytest.raises(InvalidParameterError, match="threads"):
            K.group_counts(x, x, x, np.array([0, 4]), threads=bad)
