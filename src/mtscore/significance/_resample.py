"""Batched resampling: bootstrap weights and randomization masks drawn in chunks.

Nothing here ever holds ``resamples x segments x columns``: every generator yields one chunk of
weights (``batch x N``) and the caller multiplies it into the statistics (``weights @ stats``),
so memory is O(batch x N).

Two bootstrap schemes draw the same distribution (multinomial counts, N draws with replacement):

* ``"counts"`` (default, fast): a compiled kernel draws each resample's N indices from its own
  SplitMix64 stream (unbiased bounded integers, Lemire's method) and counts them in place. The
  per-resample 64-bit keys come from ``numpy.random.default_rng(seed)``, so results depend only on
  ``seed`` and the resample index, never on the batch size.
* ``"sacrebleu"``: ``rng.integers(0, N, size=(batch, N))`` row chunks, which continue numpy's
  stream exactly like sacreBLEU's single ``rng.choice(N, size=(n, N), replace=True)`` call (same
  indices for the same seed), then counted. Slower (numpy's bounded-integer path), exact p-values.

Approximate-randomization masks are ``rng.integers(2, size=(batch, N), dtype=bool)`` with ``batch``
a multiple of 32, which reproduces sacreBLEU's ``rng.integers(2, size=(n, N), dtype=bool)`` stream
bit for bit (numpy fills booleans from 32-bit words, one word per 32 values of a call).
"""
from __future__ import annotations

import numpy as np

# bytes of weights per chunk (float64 batch x N); a few tens of MB keeps BLAS efficient
CHUNK_BYTES = 32 * 2 ** 20
_EXACT32 = float(2 ** 24)


def batch_rows(n_segments: int, n_total: int, multiple: int = 1, batch: int | None = None) -> int:
    if batch is None:
        batch = max(1, CHUNK_BYTES // (8 * max(1, n_segments)))
    batch = max(multiple, (batch // multiple) * multiple)
    return int(min(batch, max(n_total, 1)))


def _bootstrap_counts_kernel(keys, n_segments, out):
    """:func:`_bootstrap_counts_kernel_ref` on the compiled kernel (``mtscore._cmetrics``, threads over
    resamples) when it is built; same counts."""
    from ..ckernels import bootstrap_counts

    return bootstrap_counts(keys, n_segments, out)


def _bootstrap_counts_kernel_ref(keys, n_segments, out):
    """out[b, :] = counts of n_segments uniform draws from range(n_segments), stream keys[b]."""
    with np.errstate(over="ignore"):  # the uint64 arithmetic of SplitMix64 wraps on purpose
        return _bootstrap_counts_loop(keys, n_segments, out)


def _bootstrap_counts_loop(keys, n_segments, out):
    N = np.uint64(n_segments)
    golden = np.uint64(0x9E3779B97F4A7C15)
    m1 = np.uint64(0xBF58476D1CE4E5B9)
    m2 = np.uint64(0x94D049BB133111EB)
    low = np.uint64(0xFFFFFFFF)
    s30 = np.uint64(30)
    s27 = np.uint64(27)
    s31 = np.uint64(31)
    s32 = np.uint64(32)
    # threshold for Lemire's rejection: (2^32 - N) mod N
    thresh = (np.uint64(4294967296) - N) % N if n_segments else np.uint64(0)  # no segments: no draws
    for b in range(out.shape[0]):
        s = keys[b]
        for j in range(out.shape[1]):
            out[b, j] = 0.0
        for j in range(n_segments):
            while True:
                s = s + golden
                z = s
                z = (z ^ (z >> s30)) * m1
                z = (z ^ (z >> s27)) * m2
                z = z ^ (z >> s31)
                x = z >> s32
                m = x * N
                if (m & low) >= thresh:
                    break
            out[b, np.int64(m >> s32)] += 1.0
    return out


# Bootstrap counts already drawn, by (N, stream keys): a report resamples the same N segments with the same seed
# for every metric, n-gram order and analysis; the counts of one stream key depend on nothing else, so a
# repeated chunk is handed out again (read-only) instead of drawn again, with its float32 copy for
# :func:`project` (the same numbers; at most _CACHE_BYTES held).
_COUNTS_CACHE: dict = {}  # key -> [counts float64 (read-only), {dtype: converted copy}]
_BY_ID: dict = {}  # id(cached counts) -> its entry
_CACHE_BYTES = 96 * 2 ** 20


def _counts_cached(keys, n_segments, out):
    key = (int(n_segments), out.shape, keys.tobytes())
    hit = _COUNTS_CACHE.pop(key, None)
    if hit is not None:
        _COUNTS_CACHE[key] = hit  # most recent last
        return hit[0]
    _bootstrap_counts_kernel(keys, n_segments, out)
    if out.nbytes * 2 > _CACHE_BYTES // 2:
        return out
    return _remember(key, out.copy())


def _remember(key, arr, *extra):
    """Keep ``arr`` (made read-only) under ``key``, oldest entries dropped beyond _CACHE_BYTES; returns ``arr``."""
    arr.flags.writeable = False
    entry = [arr, {}, *extra]
    _COUNTS_CACHE[key] = entry
    _BY_ID[id(arr)] = entry
    while sum(e[0].nbytes * (1 + len(e[1])) for e in _COUNTS_CACHE.values()) > _CACHE_BYTES:
        old = _COUNTS_CACHE.pop(next(iter(_COUNTS_CACHE)))
        _BY_ID.pop(id(old[0]), None)
    return arr


def _state_key(rng: np.random.Generator):
    st = rng.bit_generator.state
    inner = st.get("state")
    if isinstance(inner, dict):
        return (st.get("bit_generator"), tuple(sorted(inner.items())), st.get("has_uint32"), st.get("uinteger"))
    return repr(st)


def _sacrebleu_counts_cached(rng: np.random.Generator, n_segments: int, k: int):
    """One chunk of the ``"sacrebleu"`` scheme: the counts of ``rng.integers(0, N, size=(k, N))``. A chunk drawn
    before from the same generator state (sacreBLEU resamples every system with the same seed) is handed out
    again and the generator is moved to the state the draw leaves, so the stream continues exactly."""
    key = ("sacrebleu", _state_key(rng), int(n_segments), int(k))
    hit = _COUNTS_CACHE.pop(key, None)
    if hit is not None:
        _COUNTS_CACHE[key] = hit
        rng.bit_generator.state = hit[2]
        return hit[0]
    idx = rng.integers(0, n_segments, size=(k, n_segments))
    arr = _index_counts(idx, n_segments, np.empty((k, n_segments), dtype=np.float64))
    del idx
    if arr.nbytes * 2 > _CACHE_BYTES // 2:
        return arr
    return _remember(key, arr, rng.bit_generator.state)


def _index_counts(idx, n_segments, out):
    """:func:`_index_counts_ref` on the compiled kernel (``mtscore._cmetrics.index_counts``) when it is built."""
    from ..ckernels import index_counts

    return index_counts(idx, n_segments, out)


def _index_counts_ref(idx, n_segments, out):
    """``out[r, v]`` = occurrences of ``v`` in ``idx[r]`` (row offsets, then one ``numpy.bincount``)."""
    k = idx.shape[0]
    flat = (np.asarray(idx, dtype=np.int64) + (np.arange(k, dtype=np.int64) * n_segments)[:, None]).ravel()
    if flat.size and (int(np.min(idx)) < 0 or int(np.max(idx)) >= n_segments):
        raise ValueError("index_counts: an index outside [0, n)")
    out[...] = np.bincount(flat, minlength=k * n_segments).reshape(k, n_segments)
    return out


def _cast(weights: np.ndarray, dtype) -> np.ndarray:
    entry = _BY_ID.get(id(weights))
    if entry is None or entry[0] is not weights:
        return weights.astype(dtype)
    conv = entry[1].get(np.dtype(dtype))
    if conv is None:
        conv = entry[1][np.dtype(dtype)] = weights.astype(dtype)
    return conv


def bootstrap_weights(n_segments: int, n: int, rng: np.random.Generator, scheme: str = "counts",
                      batch: int | None = None):
    """Yield float64 count matrices (rows = resamples) covering ``n`` resamples in order.

    The yielded array may be a reused buffer: consume it before asking for the next chunk.
    """
    rows = batch_rows(n_segments, n, 1, batch)
    if scheme == "counts":
        keys = rng.integers(0, 2 ** 64, size=n, dtype=np.uint64, endpoint=False)
        buf = np.empty((rows, n_segments), dtype=np.float64)
        for start in range(0, n, rows):
            k = min(rows, n - start)
            yield _counts_cached(keys[start:start + k], n_segments, buf[:k])
    elif scheme == "sacrebleu":
        for start in range(0, n, rows):
            k = min(rows, n - start)
            yield _sacrebleu_counts_cached(rng, n_segments, k)
    else:  # pragma: no cover - validated by callers
        raise ValueError(scheme)


def ar_masks(rng: np.random.Generator, n_segments: int, n: int, batch: int | None = None):
    """Yield boolean swap masks (rows = trials), sacreBLEU's stream, in chunks of 32k rows."""
    rows = batch_rows(n_segments, n, 32, batch)
    for start in range(0, n, rows):
        k = min(rows, n - start)
        yield rng.integers(2, size=(k, n_segments), dtype=bool)


def exact_dtype(stats: np.ndarray, bound_factor: float | None):
    """float32 when every partial sum of ``weights @ stats`` is an integer below 2**24 (then
    float32 GEMM is exact whatever the summation order), else float64.

    ``bound_factor=None``: 0/1 weights (masks), partial sums <= column sums of abs(stats);
    a number W: non-negative integer weights summing to W per row, partial sums <= W * max abs(stats).
    """
    if stats.size == 0 or not bool((np.floor(stats) == stats).all()):  # (NaN fails here; inf fails the bound)
        return np.float64
    a = np.abs(stats)
    bound = float(a.sum(axis=0).max()) if bound_factor is None else float(a.max()) * bound_factor
    return np.float32 if bound < _EXACT32 else np.float64


def project(weights: np.ndarray, stats_cast: np.ndarray) -> np.ndarray:
    """weights @ stats, in the dtype of ``stats_cast``, returned as float64."""
    w = weights if weights.dtype == stats_cast.dtype else _cast(weights, stats_cast.dtype)
    return np.asarray(w @ stats_cast, dtype=np.float64)

def bootstrap_sums(values: np.ndarray, n: int, seed, scheme: str = "sacrebleu", dtype=np.float32) -> np.ndarray:
    """Summed statistics ``[n, C]`` of ``n`` bootstrap resamples of the rows of ``values`` (in ``dtype``;
    float32 as sacreBLEU holds them). ``scheme="sacrebleu"``: sacreBLEU's indices for ``seed``."""
    values = np.asarray(values, dtype=np.float64)
    N = values.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((n, values.shape[1]), dtype=dtype)
    start = 0
    for w in bootstrap_weights(N, n, rng, scheme):
        k = w.shape[0]
        out[start:start + k] = (w @ values).astype(dtype)
        start += k
    return out



# ------------------------------------------------------------------------------------------------
# the draw generator: every random draw of a resampling or permutation test, by named scheme

SWAP_SCHEMES = ("mtme", "sacrebleu")
SIGN_SCHEMES = ("mtme-spa",)


class Draws:
    """The one source of random draws of the resampling and permutation tests (significance/, meta/).

    ``Draws(seed)`` wraps ``numpy.random.default_rng(seed)`` (PCG64; ``seed`` an int, a sequence of ints or
    None), and every method draws from that one stream in the order it is called, so a fixed seed and call
    sequence reproduce the same draws. Each method names the *scheme* whose numbers it reproduces:

    ===========================  =========================================================================
    method (scheme)              draws
    ===========================  =========================================================================
    bootstrap_weights            bootstrap count chunks [batch, N]: ``"counts"`` (compiled SplitMix64
                                 streams keyed from the generator) or ``"sacrebleu"`` (numpy's bounded
                                 integers: sacreBLEU's ``rng.choice(N, (n, N))`` indices for the same seed)
    bootstrap_counts             the whole [n, N] count matrix of :meth:`bootstrap_weights`; its default
                                 ``"sacrebleu"`` scheme is also mtscore meta's bootstrap (numbers unchanged)
    ar_masks                     approximate-randomization swap masks, sacreBLEU's ``rng.integers(2,
                                 dtype=bool)`` stream (chunks of a multiple of 32 rows)
    swaps(shape, "mtme")         PERM-BOTH swap masks ``U[0, 1) < 0.5`` (mt-metrics-eval
                                 ``PermutationSigDiff``); ``"sacrebleu"``: ``rng.integers(2, dtype=bool)``
    signs(k, N, "mtme-spa")      [k, N] float32 +-1 = round(U[0, 1) in float32) * 2 - 1 (mt-metrics-eval
                                 ``pce.compute_pairwise_p_values``: SPA's paired permutations)
    keep(n, rate)                Bernoulli subsample ``U[0, 1) <= rate`` (mt-metrics-eval ``sample_rate``)
    binomial(n, p)               binomial counts (numpy's generator)
    subsample(n, size)           ``size`` of ``n`` indices without replacement (meta ``--sample-size``)
    permutation(k)               a uniform permutation of range(k)
    distinct_pairs(k)            one uniform ordered pair i != j of range(k) per entry of ``k``
    ===========================  =========================================================================

    A ``Draws`` may be passed where a seed is expected (:meth:`of` accepts a ``Draws``, a
    ``numpy.random.Generator`` or a seed).
    """

    __slots__ = ("rng",)

    def __init__(self, seed=None, *, rng: np.random.Generator | None = None):
        self.rng = np.random.default_rng(seed) if rng is None else rng

    @classmethod
    def of(cls, source=None) -> "Draws":
        """``source`` as a Draws: itself, a wrapped ``numpy.random.Generator`` (its stream continues), or
        ``Draws(source)`` for a seed (an int, a sequence of ints, or None)."""
        if isinstance(source, Draws):
            return source
        if isinstance(source, np.random.Generator):
            return cls(rng=source)
        return cls(source)

    # bootstrap
    def bootstrap_weights(self, n_items: int, n: int, scheme: str = "counts", batch: int | None = None):
        """Chunks of bootstrap counts (see :func:`bootstrap_weights`; may reuse one buffer)."""
        return bootstrap_weights(n_items, n, self.rng, scheme, batch)

    def bootstrap_counts(self, n: int, n_items: int, scheme: str = "sacrebleu") -> np.ndarray:
        """[n, n_items] float64 bootstrap multiplicities (each row sums to n_items)."""
        out = np.empty((n, n_items), dtype=np.float64)
        start = 0
        for w in bootstrap_weights(n_items, n, self.rng, scheme):
            out[start:start + w.shape[0]] = w
            start += w.shape[0]
        return out

    def bootstrap_indices(self, n_items: int, n: int, scheme: str = "sacrebleu", batch: int | None = None):
        """Chunks of resample indices [batch, n_items] (rows = resamples), before counting: ``"sacrebleu"``
        continues numpy's stream like sacreBLEU's single ``rng.choice(N, size=(n, N), replace=True)`` (see
        :func:`sacrebleu_indices`); for sums whose float32 rounding depends on the draw order."""
        if scheme != "sacrebleu":
            raise ValueError(f"bootstrap index scheme: {scheme!r}; valid: sacrebleu")
        return sacrebleu_indices(self.rng, n_items, n, batch)

    # permutations
    def ar_masks(self, n_items: int, n: int, batch: int | None = None):
        """sacreBLEU's approximate-randomization masks in chunks (see :func:`ar_masks`)."""
        return ar_masks(self.rng, n_items, n, batch)

    def swaps(self, shape, scheme: str = "mtme") -> np.ndarray:
        """Boolean swap mask of ``shape``: each entry swapped with probability 1/2."""
        if scheme == "mtme":
            return self.rng.random(shape) < 0.5
        if scheme == "sacrebleu":
            return self.rng.integers(2, size=shape, dtype=bool)
        raise ValueError(f"swap scheme: {scheme!r}; valid: {', '.join(SWAP_SCHEMES)}")

    def signs(self, n_perm: int, n_items: int, scheme: str = "mtme-spa") -> np.ndarray:
        """[n_perm, n_items] float32 matrix of +-1 (paired sign flips)."""
        if scheme != "mtme-spa":
            raise ValueError(f"sign scheme: {scheme!r}; valid: {', '.join(SIGN_SCHEMES)}")
        u = self.rng.random(size=(n_perm, n_items), dtype=np.float32)
        np.rint(u, out=u)
        u *= 2.0
        u -= 1.0
        return u

    # subsampling
    def keep(self, n: int, rate: float) -> np.ndarray:
        """Boolean mask of ``n`` entries, each kept with probability ``rate`` (``U[0, 1) <= rate``)."""
        return self.rng.random(n) <= rate

    def binomial(self, n, p):
        return self.rng.binomial(n, p)

    def subsample(self, n: int, size: int) -> np.ndarray:
        """``size`` distinct indices of range(n), uniformly without replacement, in draw order (numpy's
        ``choice(n, size, replace=False)``; mtscore meta's ``--sample-size``, cf. mt-metrics-eval ``stats.Sample``)."""
        return self.rng.choice(n, size, replace=False)

    def permutation(self, k: int) -> np.ndarray:
        """A uniform permutation of range(k) (numpy's ``permutation``)."""
        return self.rng.permutation(k)

    def stratified_shuffles(self, t: int, R: int, N: int, n_table: int | None = None):
        """MultEval's stratified approximate randomization (:func:`mtscore.significance.runs.stratified_ar`), ``t``
        shuffles of ``R`` runs x ``N`` segments: the swap coins ``[t, R, N]`` (float64 0/1, numpy's
        ``integers(0, 2)``), then one uniform permutation of the ``R`` runs per (shuffle, segment): indices
        ``[t, N]`` into a table of all ``n_table`` = R! permutations when given, else ``[t, N, R]`` permutations
        (argsort of ``U[0, 1)`` keys)."""
        swap = self.rng.integers(0, 2, size=(t, R, N)).astype(np.float64)
        if n_table is not None:
            return swap, self.rng.integers(0, n_table, size=(t, N))
        return swap, np.argsort(self.rng.random((t, N, R)), axis=2)

    def distinct_pairs(self, k) -> tuple[np.ndarray, np.ndarray]:
        """For each ``k[t]`` (>= 2), a uniform ordered pair (i, j), i != j, of range(k[t]); all i are drawn
        first, then all j (j uniform over the k - 1 values other than i)."""
        k = np.asarray(k)
        i = self.rng.integers(0, k)
        j = self.rng.integers(0, np.maximum(k - 1, 1))
        return i, j + (j >= i)



# ------------------------------------------------------------------------------------------------
# sacreBLEU's draws with its float32 arithmetic (the drop-in mtscore.sacrebleu; additive)
def sacrebleu_indices(rng: np.random.Generator, n_segments: int, n: int, batch: int | None = None):
    """Yield resample index chunks (``k x N`` integers, rows = resamples) that continue numpy's stream like
    sacreBLEU's single ``rng.choice(N, size=(n, N), replace=True)`` (the ``"sacrebleu"`` bootstrap scheme's
    draws, before counting)."""
    rows = batch_rows(n_segments, n, 1, batch)
    for start in range(0, n, rows):
        k = min(rows, n - start)
        yield rng.integers(0, n_segments, size=(k, n_segments))


def ordered_sums(values32: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``values32[idx[b]]`` summed row by row in draw order, in the dtype of ``values32``: numpy's
    ``stats[idx].sum(0)`` on float32 statistics, i.e. sacreBLEU's resampled statistics to the bit even when
    they are not integers (TER's average reference length, where float32 rounding depends on the order)."""
    out = np.zeros((idx.shape[0], values32.shape[1]), dtype=values32.dtype)
    for j in range(idx.shape[1]):
        out += values32[idx[:, j]]
    return out


def sacrebleu_bootstrap_sums(values: np.ndarray, n: int, seed) -> np.ndarray:
    """The summed statistics ``[n, C]`` of the ``n`` resamples sacreBLEU 2.6 draws for ``seed`` (a seed or a
    :class:`Draws`; ``default_rng(seed).choice(N, (n, N))``), summed in float32 in draw order as sacreBLEU
    does. When every partial sum is an integer below 2**24 the order cannot matter and the counts path
    (:func:`bootstrap_sums`, same draws) gives the same numbers faster."""
    values = np.asarray(values, dtype=np.float64)
    N = values.shape[0]
    draws = Draws.of(seed)
    out = np.empty((n, values.shape[1]), dtype=np.float32)
    start = 0
    if exact_dtype(values, float(N)) is np.float32:  # float32 GEMM: every partial sum is an exact integer
        v32 = values.astype(np.float32)
        for w in draws.bootstrap_weights(N, n, "sacrebleu"):
            out[start:start + w.shape[0]] = _cast(w, np.float32) @ v32
            start += w.shape[0]
        return out
    v32 = values.astype(np.float32)
    for idx in draws.bootstrap_indices(N, n, "sacrebleu", batch=max(1, CHUNK_BYTES // (16 * max(N, 1)))):
        out[start:start + idx.shape[0]] = ordered_sums(v32, idx)
        start += idx.shape[0]
    return out


def paired_ar_draws(n_segments: int, n: int, seed, n_confidence: int = 0, scheme: str = "sacrebleu"):
    """The draws of one paired approximate-randomization comparison, from one stream (``seed``: a seed or a
    :class:`Draws`).

    ``scheme="sacrebleu"`` (the only one): the ``n`` swap masks (``("swap", chunk)``, :meth:`Draws.ar_masks`),
    then, when ``n_confidence > 0``, resample indices for that many bootstrap resamples continuing the same
    stream (``("bootstrap", index chunk)``, :meth:`Draws.bootstrap_indices`) -- sacreBLEU 2.6's
    ``rng.integers(2, size=(n, N), dtype=bool)`` followed by ``rng.choice(N, size=(n_confidence, N))`` in
    ``_paired_ar_test``. Consume each chunk before asking for the next."""
    if scheme != "sacrebleu":
        raise ValueError(f"paired AR scheme: {scheme!r}; valid: sacrebleu")
    draws = Draws.of(seed)
    for m in draws.ar_masks(n_segments, n):
        yield "swap", m
    if n_confidence > 0:
        for idx in draws.bootstrap_indices(n_segments, n_confidence, "sacrebleu"):
            yield "bootstrap", idx


# the reference(s) of the compiled kernel(s): mtscore.ckernels dispatches here without importing this module
from ..ckernels import register_reference  # noqa: E402

register_reference("bootstrap_counts", _bootstrap_counts_kernel_ref)
register_reference("index_counts", _index_counts_ref)
