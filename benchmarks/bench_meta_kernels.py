"""Meta-evaluation kernels: the compiled kernels of ``mtscore._cmeta`` with one thread and with the
default threads, against the plain-Python reference implementations (the no-compiler fallback) on a smaller
input. Wall time (``time.perf_counter``) of one thread and of the default threads (alternating runs, best of
``--runs``), and the CPU time (``time.process_time``) of one thread. Every compiled result is checked to equal the reference bit for bit on the small input.

    PYTHONPATH=src python benchmarks/bench_meta_kernels.py [--runs 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from mtscore.meta import _kernels as K
from mtscore.meta import stats as S


def _best(fn, runs, clock):
    fn()  # warm-up
    out = []
    for _ in range(runs):
        t0 = clock()
        fn()
        out.append(clock() - t0)
    return min(out)


def data(n_items, n_sys, seed=0):
    rng = np.random.default_rng(seed)  # benchmark data only
    n = n_items * n_sys
    x = rng.integers(0, 50, n) / 7.0
    y = rng.integers(0, 25, n) * 1.0
    W = rng.integers(0, 3, (20, n)).astype(float)  # 20 resamples
    return x, y, W


def cases(x, y, W, pairs_cells):
    n = len(x)
    item = np.arange(0, n + 1, 15, dtype=np.int64)
    none = np.array([0, n], dtype=np.int64)
    gr = S.Grouped(x[:pairs_cells], y[:pairs_cells], np.array([0, pairs_cells]))
    p = gr.pairs()
    base, tie = p._vals("acc_eq")
    is_end = np.zeros(len(p.diff), np.bool_)
    is_end[p.run_end] = True
    cw = W[:10, :pairs_cells].copy()
    tie_args = (p.a, p.b, p.group, tie - base, base, p.diff, is_end, p.cell_group, 1, cw, np.zeros((0, 1)))
    return {
        "group_counts, groups of 15, 20 resamples": ("group_counts", (x, y, W, item)),
        "group_counts, one group, 20 resamples": ("group_counts", (x, y, W, none)),
        "group_spearman, one group, 20 resamples": ("group_spearman", (x, y, W, none)),
        "group_darr, one group, 20 resamples": ("group_darr", (x, y, W, none, 2.0)),
        f"tie_best, {len(p.a):,} pairs x 10 resamples": ("tie_best", tie_args),
        f"enumerate_pairs, one group of {pairs_cells}": ("enumerate_pairs", (np.array([0, pairs_cells]),
                                                                            np.array([0]))),
    }


def reference(name, args):
    ref = K.plain_reference(name)
    if name.startswith("group_"):  # the references take one row of weights
        x, y, W, st, *extra = args
        return np.stack([ref(x, y, W[r], st, *extra) for r in range(W.shape[0])])
    return ref(*args)


def same(a, b):
    if isinstance(a, tuple):
        return all(same(u, v) for u, v in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if not K.compiled():
        raise SystemExit("mtscore._cmeta is not built: python setup.py build_ext --inplace")
    big = cases(*data(1500, 15), 4000)  # 22,500 cells; 8M pairs
    small = cases(*data(40, 15), 300)  # for the plain-Python reference
    from mtscore.text.fast import _threads
    print(f"default threads: {_threads(None, 10 ** 9, 1)}")
    print(f"{'kernel':44s} {'1 thread':>9s} {'threads':>9s} {'1 thr CPU':>10s} | {'small: C':>9s} {'reference':>9s} same")
    for (label, (name, a)), (_, (_, sa)) in zip(big.items(), small.items()):
        fn = getattr(K, name)
        one, thr = [], []
        for _ in range(args.runs):  # alternating
            one.append(_best(lambda: fn(*a, threads=1), 1, time.perf_counter))
            thr.append(_best(lambda: fn(*a), 1, time.perf_counter))
        one, thr = min(one), min(thr)
        cpu = _best(lambda: fn(*a, threads=1), 1, time.process_time)
        sc = _best(lambda: fn(*sa, threads=1), args.runs, time.process_time)
        sr = _best(lambda: reference(name, sa), 1, time.process_time)
        ok = same(fn(*sa, threads=1), reference(name, sa))
        print(f"{label:44s} {one * 1e3:7.1f}ms {thr * 1e3:7.1f}ms {cpu * 1e3:8.1f}ms | {sc * 1e3:7.2f}ms "
              f"{sr * 1e3:7.0f}ms {ok}")


if __name__ == "__main__":
    main()
