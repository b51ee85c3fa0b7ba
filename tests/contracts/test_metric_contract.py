"""Registry-driven contract of every metric (after scikit-learn's metrics/tests/test_common.py).

Every name in ``metric_names()`` — the built-in ones and any added later — must appear in FIXTURES below
(the test FAILS for a registered metric without one): how to build it (a model file, a checkpoint ...)
and which checks do not apply to it, with the reason. A metric class may instead provide the classmethod
``contract_fixture(tmp_path) -> Metric``. The checks, on real sentences (the built-in WMT17 sample):

* chunk additivity: the statistics of a corpus are the row-wise concatenation of those of its chunks;
* order invariance: permuting the segments permutes the statistics rows (same corpus score);
* vectorized score: ``score(W @ stats) == [score(w @ stats) for w in W]`` for random resample weights;
* signature stability: two instances with the same parameters (and a pickled copy) sign alike;
* the ``decomposable`` flag is true: a decomposable metric's corpus score is linear in swapping
  segments between two systems (so it is a weighted mean of segment scores with system-independent
  weights, recovered and checked against ``sentence_scores``); a non-decomposable one is not;
* mismatched inputs raise InvalidParameterError, whatever the metric (InputError, naming the file, for
  stored scores).
"""
import pickle
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

from mtscore.cli.demo import load_sample
from mtscore.errors import InputError, InvalidParameterError
from mtscore.metrics.base import Metric, Stats
from mtscore.metrics.registry import get_metric, get_metric_class, metric_names

N = 40


@dataclass
class Fixture:
    make: Callable  # tmp_path -> Metric
    skip: dict = field(default_factory=dict)  # check name -> reason it does not apply
    stats: Callable | None = None  # (metric, hyps, refs, system) -> Stats, for metrics bound to named systems


def _plain(name):
    return Fixture(lambda tmp_path: get_metric(name))


def _scores_metric(tmp_path):
    p = tmp_path / "toy.seg.score"
    systems, refs = load_sample()
    lines = []
    for s, hyps in list(systems.items())[:2]:
        for h in hyps[:N]:
            lines.append(f"{s}\t{len(h.split()) / 10:.6f}")
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return get_metric("scores", **{"name": "TOY", "file": str(p), "direction": "higher"})


def _neural(name, kind):
    def make(tmp_path):
        # the tiny checkpoints of tests/neural/test_neural_comet.py; sources: the references (the model is random)
        pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")
        from pathlib import Path
        _, refs = load_sample()
        src = tmp_path / "src.txt"
        src.write_text("\n".join(r[0] for r in refs[:N]) + "\n", encoding="utf-8")
        return get_metric(name, model=str(Path(__file__).resolve().parents[1] / "fixtures" / "neural" / kind), sources=str(src),
                          cache=False)
    return make


_SOURCES = "sources= is a file aligned with the whole test set (partitionable = False): chunks and permutations misalign it"


_BOUND = "statistics are bound to segment positions of a named system (stored scores), not to the text"
FIXTURES = {name: _plain(name) for name in (
    "bleu", "bleu-sbp", "gtm", "lcm", "tbleu", "nist", "wer", "mwer", "wrr", "per", "mper", "mer", "wil", "wip",
    "cer", "wer-jiwer", "gleu-google", "ribes", "4-grr", "k-grr", "rose", "rose-reg", "rose-rank", "rose-regpos",
    "rose-rankpos", "chrf", "chrf++", "ter")}
FIXTURES["scores"] = Fixture(_scores_metric, {"chunks": _BOUND, "order": _BOUND, "decomposable": _BOUND},
                             stats=lambda m, hyps, refs, system: m.system_stats(system, hyps))
def _metricx(tmp_path):
    pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")
    import json
    from pathlib import Path

    import neural_tiny_mt5
    fix = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
    neural_tiny_mt5.build(tmp_path / "metricx", json.loads((fix / "metricx_known_answers.json").read_text())["seed"])
    _, refs = load_sample()
    src = tmp_path / "src.txt"
    src.write_text("\n".join(r[0] for r in refs[:N]) + "\n", encoding="utf-8")
    return get_metric("metricx", model=str(tmp_path / "metricx"), sources=str(src), tokenizer=str(fix / "mt5-tokenizer"),
                      cache=False)


for _name, _kind in (("comet", "comet-da"), ("cometkiwi", "cometkiwi"), ("xcomet", "xcomet")):
    FIXTURES[_name] = Fixture(_neural(_name, _kind), {"chunks": _SOURCES, "order": _SOURCES, "decomposable": _SOURCES})
FIXTURES["metricx"] = Fixture(_metricx, {"chunks": _SOURCES, "order": _SOURCES, "decomposable": _SOURCES})

_JUDGE = {}


def _judge(name):
    def make(tmp_path):
        # LLM judges against the scripted server of tests/llm (127.0.0.1; its judge scores a translation by its
        # text), started once for this module; sources: the references
        import os
        import sys
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "llm"))
        from llm_scripted_server import ScriptedServer, judge_score, translation_of
        if "server" not in _JUDGE:
            def answer(body, seen):
                text = body["messages"][-1]["content"]
                if "translation:\n```" in text and "Annotated" not in text:  # MQM / ESA spans
                    word = translation_of(body).split()[:1]
                    return ("ok", "Major:\n" + (f'accuracy/omission - "{word[0]}"' if word else "no-error"), "stop")
                return ("ok", str(judge_score(translation_of(body))), "stop")
            _JUDGE["server"] = ScriptedServer(answer, keep_log=False).__enter__()
        _, refs = load_sample()
        src = tmp_path / "src.txt"
        src.write_text("\n".join(r[0] for r in refs[:N]) + "\n", encoding="utf-8")
        m = get_metric(name, model="judge", endpoint=_JUDGE["server"].url, sources=str(src), cache=False,
                       **({"ref": False} if name == "gemba-da" else {}))
        m.check_languages("en-de")
        return m
    return make


for _name in ("gemba-esa", "gemba-mqm", "gemba-da"):
    FIXTURES[_name] = Fixture(_judge(_name), {"chunks": _SOURCES, "order": _SOURCES, "decomposable": _SOURCES})


def _fixture(name):
    cls = get_metric_class(name)
    if hasattr(cls, "contract_fixture"):
        return Fixture(cls.contract_fixture)
    assert name in FIXTURES, (f"metric {name!r} is registered but has no contract fixture: add it to FIXTURES in "
                              "tests/contracts/test_metric_contract.py (or give the class contract_fixture(tmp_path))")
    return FIXTURES[name]


def _perturb(hyps, seed=5):
    """A second system far from the first: halved, emptied, doubled, shuffled or kept segments (so that
    length penalties, brevity rules and empty hypotheses all come into play)."""
    rng = np.random.default_rng(seed)
    out = []
    for h in hyps:
        w = h.split()
        k = rng.integers(5)
        out.append(" ".join(w[:len(w) // 2]) if k == 0 else "" if k == 1 else " ".join(w + w) if k == 2
                   else " ".join(rng.permutation(w)) if k == 3 else h)
    return out


@pytest.fixture(scope="module")
def corpus():
    systems, refs = load_sample()
    a = list(systems)[0]
    return {a: systems[a][:N], list(systems)[1]: _perturb(systems[a][:N])}, refs[:N]


def _stats(fx, m, hyps, refs, system):
    return fx.stats(m, hyps, refs, system) if fx.stats else m.stats(hyps, refs)


def test_every_registered_metric_has_a_fixture():
    missing = [n for n in metric_names() if n not in FIXTURES and not hasattr(get_metric_class(n), "contract_fixture")]
    assert not missing, f"registered metrics without a contract fixture: {missing}"


@pytest.mark.parametrize("name", metric_names())
def test_metric_contract(name, corpus, tmp_path):
    fx = _fixture(name)
    m = fx.make(tmp_path)
    assert isinstance(m, Metric)
    systems, refs = corpus
    (sa, ha), (sb, hb) = systems.items()
    st = _stats(fx, m, ha, refs, sa)
    assert isinstance(st, Stats) and st.values.shape == (N, len(m.columns))
    assert np.all(np.isfinite(st.values))
    full = float(m.score(st.sum()))

    # chunk additivity
    if "chunks" not in fx.skip and m.partitionable:
        parts = [m.stats(ha[a:b], refs[a:b]) for a, b in ((0, 13), (13, 14), (14, N))]
        np.testing.assert_allclose(np.concatenate([p.values for p in parts]), st.values, rtol=1e-12, atol=1e-12)

    # order invariance
    if "order" not in fx.skip:
        perm = np.random.default_rng(1).permutation(N)
        sp = m.stats([ha[i] for i in perm], [refs[i] for i in perm])
        if m.partitionable:
            np.testing.assert_allclose(sp.values, st.values[perm], rtol=1e-12, atol=1e-12)
        assert float(m.score(sp.sum())) == pytest.approx(full, rel=1e-12, abs=1e-12)

    # vectorized score over stacked statistics
    W = np.random.default_rng(2).integers(0, 3, size=(7, N)).astype(np.float64)
    stacked = np.asarray(m.score(W @ st.values), dtype=np.float64)
    one_by_one = np.array([float(m.score(w @ st.values)) for w in W])
    np.testing.assert_allclose(stacked, one_by_one, rtol=1e-12, atol=1e-12, equal_nan=True)
    cube = np.asarray(m.score(np.stack([W @ st.values, W @ st.values])), dtype=np.float64)
    assert cube.shape == (2, 7)

    # signature stability
    m2 = fx.make(tmp_path)
    assert m.signature(1) == m2.signature(1) == pickle.loads(pickle.dumps(m)).signature(1)
    assert m.signature(1).endswith(m.signature(1).rsplit("|", 1)[-1]) and "version:mtscore-" in m.signature(1)
    assert _stats(fx, m2, ha, refs, sa).signature == st.signature

    # the decomposable flag
    if "decomposable" not in fx.skip:
        _check_decomposable(m, fx, ha, hb, refs, sa, sb)

    # mismatched inputs: one error class for every metric that scores text (InvalidParameterError); a metric
    # bound to stored scores reports the mismatch with its file (InputError); both are MtscoreError
    expected = InputError if fx.stats else InvalidParameterError
    with pytest.raises(expected):
        _stats(fx, m, ha[:-1], refs, sa)
    other = Stats("not-" + m.name, tuple(f"c{i}" for i in range(len(m.columns))), st.values, 1, "x")
    with pytest.raises(InvalidParameterError):
        m.corpus_from_stats(other)


def _check_decomposable(m, fx, ha, hb, refs, sa, sb):
    A = _stats(fx, m, ha, refs, sa).values
    B = _stats(fx, m, hb, refs, sb).values
    if not m.partitionable:  # rows depend on the corpus (NIST): swapping rows is not swapping segments
        assert not m.decomposable
        return
    base = float(m.score(A.sum(0)))
    diff = np.flatnonzero(np.any(A != B, axis=1))
    single = np.zeros(len(A))
    for i in diff:
        M = A.copy()
        M[i] = B[i]
        single[i] = float(m.score(M.sum(0))) - base
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(20):
        S = diff[rng.random(len(diff)) < 0.5]
        M = A.copy()
        M[S] = B[S]
        worst = max(worst, abs(float(m.score(M.sum(0))) - base - single[S].sum()))
    scale = max(1e-12, float(np.abs(single).max()) * len(diff))
    linear = worst <= 1e-9 * scale
    assert linear == bool(m.decomposable), (
        f"{m.name}: decomposable={m.decomposable} but swapping segments is {'' if linear else 'not '}additive "
        f"(largest deviation {worst:.3g})")
    if linear:  # recover the weights from single swaps; the corpus score is their weighted mean
        sa_, sb_ = np.asarray(m.sentence_scores(A)), np.asarray(m.sentence_scores(B))
        ok = np.abs(sb_ - sa_) > 1e-9
        w = np.zeros(len(A))
        w[ok] = single[ok] / (sb_[ok] - sa_[ok])
        assert np.all(w[ok] >= -1e-12)
        # swapped-in-turn: the corpus score of B (all swapped) is the base plus all single changes
        assert float(m.score(B.sum(0))) == pytest.approx(base + single.sum(), rel=1e-9, abs=1e-9)
