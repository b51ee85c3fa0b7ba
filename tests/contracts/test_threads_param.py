"""The thread count of the compiled kernels is an explicit parameter: ``--threads N`` on every
command whose work runs threaded kernels, ``threads=`` on the API; ``$MTSCORE_THREADS`` is an override of the
default only. Checked through the function that resolves the count (``mtscore.text.fast._threads``, wrapped
where the kernel wrappers call it), never by timing:

* the output of each command is the same with ``--threads 1``, ``--threads 3`` and the environment's count;
* the count the kernels get is the explicit one when given (over ``MTSCORE_THREADS=2``), else the variable's;
* an invalid count is the parameter table's one-line error (exit 2).
~10 s in all (tiny inputs: every command runs a few times).
"""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import numpy as np
import pytest

import mtscore.ckernels
import mtscore.meta._kernels
import mtscore.text.fast
from mtscore.cli.main import main
from mtscore.errors import InvalidParameterError
from test_params_fuzz import _synthetic_mtme

WORDS = "the a cat dog sat on mat ran far away house big small red blue hello world".split()


def _write(path: Path, lines):
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("threads")
    rng = np.random.default_rng(7)
    n = 40  # several segments per thread with 3 threads
    ref = [" ".join(rng.choice(WORDS, size=int(rng.integers(0, 9)))) for _ in range(n)]
    hyps = {}
    for s, noise in (("a", 0.2), ("b", 0.5), ("c", 0.8)):
        hyps[s] = [" ".join(rng.choice(WORDS) if rng.random() < noise else w for w in r.split()) for r in ref]
        _write(d / f"{s}.txt", hyps[s])
    _write(d / "ref.txt", ref)
    _write(d / "ref2.txt", [" ".join(reversed(r.split())) for r in ref])
    _write(d / "labels.txt", ["x" if i % 3 else "y" for i in range(n)])
    _write(d / "human.tsv", [f"{s}\t{i + 1}\t{float(rng.integers(0, 100))}" for s in hyps for i in range(n)])
    _write(d / "nbest.txt", [f"{i} ||| {h} ||| f0= {k} f1= {-k} ||| {-k}"
                             for i, seg in enumerate(zip(hyps["a"], hyps["b"], hyps["c"])) for k, h in enumerate(seg)])

    def plf(text):
        return "(" + "".join(f"(('{w}',0,1),)," for w in text.split()) + ")" if text else "()"
    _write(d / "lat.plf", [plf(h) for h in hyps["a"]])
    _synthetic_mtme(d / "mtme", "aa-en")
    return d


HYPS = ["-i", "a.txt", "b.txt"]
# every command with --threads (score and compare had it before; the others are new). Commands whose work runs
# no threaded kernel have no --threads: tokenize, rescore (statistics saved), explain (one segment), metrics,
# rose info, analyse ngrams / align (Python counting).
CASES = {
    "score": ["score", "-r", "ref.txt", *HYPS, "-m", "bleu", "chrf", "ter", "--sentence-level", "-f", "tsv"],
    "compare": ["compare", "-r", "ref.txt", *HYPS, "-m", "bleu", "--resamples", "50"],
    "demo": ["demo", "-m", "bleu", "chrf"],
    "meta": ["meta", "-r", "ref.txt", "-i", "a.txt", "b.txt", "c.txt", "--human-file", "human.tsv",
             "--human-format", "tsv", "-m", "bleu", "chrf", "--level", "seg", "--stats", "kendall", "acc_eq*", "--resamples", "20"],
    "report": ["report", "-r", "ref.txt", *HYPS, "-m", "bleu", "--resamples", "20", "-f", "json"],
    "audit deletion": ["audit", "deletion", "-r", "ref.txt", "ref2.txt"],
    "audit subsets": ["audit", "subsets", "-r", "ref.txt", *HYPS, "--labels", "labels.txt"],
    "audit sign": ["audit", "sign", "-r", "ref.txt", *HYPS],
    "audit length": ["audit", "length", "-r", "ref.txt", "-i", "a.txt"],
    "nbest": ["nbest", "nbest.txt", "-r", "ref.txt", "-m", "bleu", "--oracle", "bleu", "--mbr", "bleu"],
    "lattice": ["lattice", "lat.plf", "-r", "ref.txt"],
    "lcm": ["lcm", "-r", "ref.txt", "-i", "a.txt"],
    "analyse words": ["analyse", "words", "-r", "ref.txt", *HYPS, "--resamples", "20"],
    "analyse lengths": ["analyse", "lengths", "-r", "ref.txt", *HYPS, "--resamples", "20"],
    "analyse wins": ["analyse", "wins", "-r", "ref.txt", *HYPS],
    "analyse docs": ["analyse", "docs", "-r", "ref.txt", *HYPS, "--docs", "labels.txt", "--resamples", "20"],
    "rose train": ["rose", "train", "--data", "mtme", "--lp", "aa-en", "-o", "model.json"],
    "sacrebleu": ["sacrebleu", "ref.txt", "-i", "a.txt", "b.txt", "-m", "bleu", "chrf", "ter", "--paired-bs",
                  "-pbsn", "50"],
}


@contextlib.contextmanager
def resolved_counts():
    """Records the thread count of every kernel call (what ``_threads`` returns, at each place that calls it)."""
    seen: list[int] = []
    original = mtscore.text.fast._threads

    def spy(*a, **kw):
        n = original(*a, **kw)
        seen.append(n)
        return n
    mods = (mtscore.text.fast, mtscore.ckernels, mtscore.meta._kernels)
    try:
        for m in mods:
            m._threads = spy
        yield seen
    finally:
        for m in mods:
            m._threads = original


def _run(d: Path, argv, env_threads: str | None = "2"):
    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.get("MTSCORE_THREADS")
    if env_threads is None:
        os.environ.pop("MTSCORE_THREADS", None)
    else:
        os.environ["MTSCORE_THREADS"] = env_threads
    from mtscore.significance import _resample
    _resample._COUNTS_CACHE.clear()  # each run as its own process: bootstrap counts drawn (a kernel), not reused
    _resample._BY_ID.clear()
    try:
        with contextlib.chdir(d), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                resolved_counts() as seen:
            try:
                code = main(list(argv))
            except SystemExit as e:
                code = e.code
        files = {p.name: p.read_text() for p in (d / "model.json",) if p.exists()}
    finally:
        if saved is None:
            os.environ.pop("MTSCORE_THREADS", None)
        else:
            os.environ["MTSCORE_THREADS"] = saved
    return code, out.getvalue(), err.getvalue(), files, seen


@pytest.mark.parametrize("name", sorted(CASES))
def test_explicit_threads_win_and_do_not_change_results(work, name):
    argv = CASES[name]
    runs = {}
    for label, extra in (("1", ["--threads", "1"]), ("3", ["--threads", "3"]), ("env", [])):
        code, out, err, files, seen = _run(work, argv + extra, env_threads="2")
        assert code == 0, (name, label, err)
        assert seen, f"{name}: no compiled kernel ran (then --threads has nothing to steer)"
        want = 2 if label == "env" else int(label)
        assert set(seen) == {want}, (name, label, sorted(set(seen)))  # explicit > MTSCORE_THREADS > default
        runs[label] = (out, files)
    assert runs["1"] == runs["3"] == runs["env"], name


@pytest.mark.parametrize("name", ["meta", "nbest", "analyse words", "rose train", "audit sign", "sacrebleu"])
@pytest.mark.parametrize("bad", ["0", "-2", "x", "1.5", "1025"])
def test_invalid_threads_is_the_parameter_error(work, name, bad):
    code, out, err, _, seen = _run(work, CASES[name] + ["--threads", bad])
    assert code == 2
    assert err == f"mtscore: error: --threads: must be an integer in 1..1024, got '{bad}'\n"
    assert not seen


def test_default_without_variable_is_the_cpus_the_process_may_use(work):
    """No --threads, no MTSCORE_THREADS: the default (at most the CPUs available, one thread per few thousand
    segments: these inputs are small, so 1)."""
    code, out, err, _, seen = _run(work, CASES["meta"], env_threads=None)
    assert code == 0, err
    assert seen and set(seen) == {1}
    assert 1 <= mtscore.text.fast._threads(None, 10 ** 9) <= min(8, mtscore.text.fast.available_cores())


# ------------------------------------------------------------------------------------------------
# API: threads= on the meta functions that run compiled kernels
def _meta_api_values(threads):
    from mtscore import meta
    rng = np.random.default_rng(3)
    x = rng.integers(0, 20, 300).astype(float)
    y = x + rng.normal(0, 5, 300)
    g = np.repeat(np.arange(30), 10)
    return [meta.pearson(x, y, threads=threads), meta.spearman(x, y, threads=threads),
            meta.kendall(x, y, "c", threads=threads), meta.kendall(x, y, "darr", thresh=2.0, threads=threads),
            repr(meta.pair_counts(x, y, threads=threads)), meta.pairwise_accuracy(x, y, threads=threads),
            meta.tie_calibration(x, y, "acc_eq", groups=g, threads=threads).value,
            meta.tie_calibration(x, y, "eq", groups=g, threads=threads).epsilon]


def test_meta_api_threads(monkeypatch):
    monkeypatch.setenv("MTSCORE_THREADS", "2")
    for threads in (1, 3, None):
        with resolved_counts() as seen:
            vals = _meta_api_values(threads)
        assert set(seen) == {2 if threads is None else threads}
        if threads == 1:
            first = vals
        assert vals == first
    for bad in (0, -1, 1.5, "2", True, 1025):
        with pytest.raises(InvalidParameterError, match=r"^threads: must be an integer in 1\.\.1024"):
            _meta_api_values(bad)


def test_meta_config_threads(work, monkeypatch):
    from mtscore.meta.run import MetaConfig
    with pytest.raises(InvalidParameterError, match=r"^threads: must be an integer in 1\.\.1024, got 0$"):
        MetaConfig(threads=0).validate()
    assert MetaConfig(threads=3).signature() == MetaConfig().signature()  # the numbers do not depend on it



def test_none_keeps_the_enclosing_count(monkeypatch):
    """threads=None inside an explicit block (or a command's --threads) keeps the block's count."""
    from mtscore import meta, score
    from mtscore._threadparam import threads_block
    monkeypatch.setenv("MTSCORE_THREADS", "2")
    with resolved_counts() as seen, threads_block(3):
        meta.kendall([1.0, 2, 3, 4], [1.0, 3, 2, 4])
        score(["a b c"] * 5, ["a b d"] * 5, ["bleu", "chrf"])
    assert seen and set(seen) == {3}


# ------------------------------------------------------------------------------------------------
# API: threads= on the significance functions (the bootstrap weights come from a threaded kernel)
def test_significance_api_threads(monkeypatch):
    from mtscore import significance as S
    from mtscore.metrics.registry import get_metric
    rng = np.random.default_rng(5)
    refs = [" ".join(rng.choice(WORDS, 7)) for _ in range(50)]
    systems = {s: [" ".join(w if rng.random() < p else rng.choice(WORDS) for w in r.split()) for r in refs]
               for s, p in (("a", 0.8), ("b", 0.5), ("c", 0.6))}
    m = get_metric("bleu")
    st = {k: m.stats(v, [[r] for r in refs]) for k, v in systems.items()}
    monkeypatch.setenv("MTSCORE_THREADS", "2")

    def run(threads):
        kw = {} if threads is None else {"threads": threads}
        return [repr(S.compare(systems, refs, "bleu", n=200, **kw)),
                repr(S.compare_stats(m, st, test="ar", n=200, n_ci=50, **kw)),
                repr(S.paired_bootstrap(m, st["a"], st["b"], n=200, **kw)),
                repr(S.approximate_randomization(m, st["a"], st["c"], n=200, **kw)),
                repr(S.score_intervals(m, list(st.values()), n=200, **kw))]
    out = {}
    for threads in (1, 3, None):
        with resolved_counts() as seen:
            out[threads] = run(threads)
        assert seen and set(seen) == {2 if threads is None else threads}
    assert out[1] == out[3] == out[None]
    for bad in (0, "3", 2.0, 1025):
        with pytest.raises(InvalidParameterError, match=r"^threads: must be an integer in 1\.\.1024"):
            S.paired_bootstrap(m, st["a"], st["b"], n=20, threads=bad)


# ------------------------------------------------------------------------------------------------
# API: threads= on every library function whose work runs threaded compiled kernels
def _library_values(threads):
    """Each library entry point that runs threaded kernels, with ``threads`` (None: the keyword left out)."""
    from mtscore.analysis import deletion_test
    from mtscore.metrics.registry import get_metric
    from mtscore.metrics.rose_features import extract_features
    from mtscore.search import Pool, expected_utilities, mbr_select, posteriors
    from mtscore.search.lattice_oracle import lattice_oracle, lattice_oracles
    from mtscore.search.mbr import PairwiseUtility
    from mtscore.search.nbest import NBestList
    from mtscore.search.oracle import CandidateStats
    from mtscore.search.lattice import build_lattice
    kw = {} if threads is None else {"threads": threads}
    rng = np.random.default_rng(11)
    refs = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 9)))) for _ in range(30)]
    hyps = [" ".join(rng.choice(WORDS) if rng.random() < 0.4 else w for w in r.split()) for r in refs]
    out = []
    for name in ("bleu", "chrf", "ter", "wer", "4-grr", "gtm", "nist", "lcm"):
        m = get_metric(name)
        out += [m.corpus(hyps, refs, **kw).score, m.stats(hyps, refs, **kw).values.tolist(),
                [r.score for r in m.sentences(hyps, refs, **kw)], m.sentence_scores_of(hyps, refs, **kw).tolist()]
    texts = [t for pair in zip(hyps, refs) for t in pair]
    nb = NBestList(texts, np.arange(0, 2 * len(refs) + 1, 2), np.zeros(len(texts)), np.zeros((len(texts), 0)), (), "mem")
    pool = Pool.of(nb)
    bleu = get_metric("bleu")
    out.append(CandidateStats(bleu, pool, [[r] for r in refs], **kw).values.tolist())
    out.append(list(mbr_select(pool, bleu, **kw).rows))
    out.append(expected_utilities(PairwiseUtility(bleu, pool), posteriors(pool), **kw).tolist())
    lats = []
    for h in hyps:
        w = h.split()
        lats.append(build_lattice(len(w) + 1, 0, list(range(len(w))), list(range(1, len(w) + 1)), w, final=[len(w)]))
    out.append(repr(lattice_oracle(lats[0], refs[0], **kw)))
    out.append(repr(lattice_oracles(lats, [[r] for r in refs], **kw)))
    out.append(repr(deletion_test([[r] for r in refs], [bleu, get_metric("chrf")], rates=(0.0, 0.1), **kw)))
    out.append(extract_features(hyps, [[r] for r in refs], **kw).tolist())
    return out


def test_library_threads(monkeypatch):
    """``threads=`` on Metric.corpus/stats/sentences/sentence_scores_of, the search functions, the deletion test
    and ROSE's features: the kernels get the explicit count (over ``$MTSCORE_THREADS``), the numbers never change,
    and a bad count is the parameter table's error."""
    monkeypatch.setenv("MTSCORE_THREADS", "2")
    out = {}
    for threads in (1, 3, None):
        with resolved_counts() as seen:
            out[threads] = _library_values(threads)
        assert seen and set(seen) == {2 if threads is None else threads}, (threads, sorted(set(seen)))
    assert out[1] == out[3] == out[None]
    from mtscore.metrics.registry import get_metric
    for bad in (0, "3", 2.0, 1025):
        with pytest.raises(InvalidParameterError, match=r"^threads: must be an integer in 1\.\.1024"):
            get_metric("bleu").corpus(["a"], ["a"], threads=bad)


def test_kernel_threads_none_keeps_the_enclosing_count(monkeypatch):
    """``kernel_threads(None)`` (what the runner enters when a command gives no --threads) changes nothing: an
    enclosing ``threads=`` block stays in force, e.g. for the runner's corpus job."""
    from mtscore._threadparam import threads_block
    from mtscore.runner import compute_texts
    from mtscore.metrics.registry import get_metric
    monkeypatch.setenv("MTSCORE_THREADS", "2")
    with resolved_counts() as seen, threads_block(3), mtscore.text.fast.kernel_threads(None):
        compute_texts({"a": ["a b c"] * 5}, [["a b d"]] * 5, [get_metric("chrf")])
    assert seen and set(seen) == {3}
