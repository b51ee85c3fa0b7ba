"""Reranking, the exact line search / tuner, and the nbest / lattice CLI commands."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import data_path
from mtscore.cli.main import main
from mtscore.errors import InvalidParameterError
from mtscore.io import read_ref_streams
from mtscore.metrics.registry import get_metric
from mtscore.search import CandidateStats, NBestList, Pool, read_moses_nbest
from mtscore.search.oracle import segment_argbest
from mtscore.search.rerank import _envelope, line_search, parse_weights, rerank, split_segments, tune, weights_vector


def test_rerank_is_argmax_of_linear_score():
    rng = np.random.default_rng(0)
    feats = [rng.normal(size=(k, 3)) for k in (3, 1, 4)]
    nb = NBestList.from_lists([[f"c{i}{j}" for j in range(len(f))] for i, f in enumerate(feats)],
                              features=feats, feature_names=("x", "y", "z"))
    w = weights_vector({"x": 1.0, "z": -0.5}, nb.feature_names)
    sel = rerank(Pool.of(nb), w)
    assert sel.index.tolist() == [int(np.argmax(f @ w)) for f in feats]
    with pytest.raises(InvalidParameterError, match="must be one of: x, y, z"):
        weights_vector({"nope": 1.0}, nb.feature_names)
    assert parse_weights("a=1, b=-2.5") == {"a": 1.0, "b": -2.5}


@pytest.mark.parametrize("seed", range(5))
def test_envelope_matches_dense_argmax(seed):
    rng = np.random.default_rng(seed)
    k = 7
    a = rng.integers(-3, 3, k).astype(float)
    b = rng.integers(-2, 3, k).astype(float)
    hull, xs = _envelope(a, b)
    for g in np.linspace(-20, 20, 801):
        if any(abs(g - x) < 1e-9 for x in xs):
            continue
        t = int(np.searchsorted(np.asarray(xs), g))
        best = int(np.argmax(a + g * b))  # first maximiser
        assert hull[t] == best


def test_line_search_matches_grid_on_real_data():
    d = data_path("nbest-bn-en")
    refs = read_ref_streams([str(d / f"reference.en.{i}") for i in range(4)])
    nb = read_moses_nbest(d / "nbest.txt", n_segments=len(refs))
    pool = Pool.of(nb)
    m = get_metric("bleu", tokenize="none")
    cs = CandidateStats(m, pool, refs)
    segs = np.arange(0, 100, 2)
    w = np.zeros(len(nb.feature_names))
    w[nb.feature_index("lm_0")] = 1.0
    direction = np.zeros_like(w)
    direction[nb.feature_index("WordPenalty")] = 1.0
    F = pool.features
    g, score = line_search(cs.values, pool.seg_off, segs, F @ w, F @ direction, m.score)

    def at(gamma):
        rows = segment_argbest(F @ (w + gamma * direction), pool.seg_off)[segs]
        return float(m.score(cs.values[rows].sum(0)))

    assert at(g) == pytest.approx(score, abs=1e-9)
    grid = max(at(x) for x in np.linspace(-30, 30, 1201))
    assert score >= grid - 1e-9


def test_tune_improves_tuning_set_and_is_deterministic():
    d = data_path("nbest-bn-en")
    refs = read_ref_streams([str(d / f"reference.en.{i}") for i in range(4)])
    nb = read_moses_nbest(d / "nbest.txt", n_segments=len(refs))
    pool = Pool.of(nb)
    cs = CandidateStats(get_metric("bleu", tokenize="none"), pool, refs)
    tune_ids, test_ids = split_segments(nb.n_segments, 0.5, seed=7)
    assert len(tune_ids) == 50 and not set(tune_ids) & set(test_ids)
    r1 = tune(cs, tune_ids, seed=7, restarts=1)
    r2 = tune(cs, tune_ids, seed=7, restarts=1)
    assert np.array_equal(r1.weights, r2.weights) and r1.score == r2.score
    assert r1.score >= r1.initial_score
    rows = rerank(pool, r1.weights).rows[tune_ids]
    assert cs.metric.score(cs.values[rows].sum(0)) == pytest.approx(r1.score, abs=1e-9)


# ---------------------------------------------------------------------------------------------------
def test_cli_nbest(capsys, tmp_path):
    d = data_path("nbest-bn-en")
    refs = [str(d / f"reference.en.{i}") for i in range(4)]
    rc = main(["nbest", str(d / "nbest.txt"), "-r", *refs, "--tok", "none", "-m", "bleu", "4-grr",
               "--oracle", "bleu", "4-grr", "--mbr", "bleu", "--weights", "lm_0=1", "-f", "json",
               "--write-selections", str(tmp_path / "sel")])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    rows = {r["selection"]: r for r in out["rows"]}
    assert rows["1-best"]["BLEU"] == pytest.approx(24.166008295033492, abs=1e-9)
    assert rows["oracle(BLEU, corpus)"]["BLEU"] >= rows["oracle(BLEU, per segment)"]["BLEU"] >= rows["1-best"]["BLEU"]
    assert rows["oracle(4-GRR, per segment)"]["4-GRR"] >= rows["oracle(BLEU, corpus)"]["4-GRR"]
    assert (tmp_path / "sel" / "1-best.txt").read_text().count("\n") == 100


def test_cli_nbest_tune_and_empty_lists(capsys, tmp_path):
    nb = tmp_path / "nb.txt"
    nb.write_text("0 ||| a b c ||| f= 1 ||| 1\n0 ||| a b ||| f= 2 ||| 2\n2 ||| x y ||| f= 0 ||| 0\n")
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\nq\nx y\n")
    assert main(["nbest", str(nb), "-r", str(ref), "--tok", "none", "-m", "bleu", "--oracle", "wer"]) == 0
    out = capsys.readouterr().out
    assert "1 of 3 segments has no candidates (ids 1)" in out
    assert main(["nbest", str(nb), "-r", str(ref), "--tok", "none", "--tune", "bleu", "--seed", "3",
                 "--tune-fraction", "0.67", "-f", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| rerank(tuned on BLEU) | tune |" in out and "seed 3" in out


def test_cli_nbest_errors(capsys, tmp_path):
    nb = tmp_path / "nb.txt"
    nb.write_text("5 ||| a ||| f=1 ||| 1\n")
    ref = tmp_path / "ref.txt"
    ref.write_text("a\n")
    assert main(["nbest", str(nb), "-r", str(ref)]) == 3
    assert f"{nb}:1: segment id 5 is out of range" in capsys.readouterr().err
    nb.write_text("0 ||| a ||| f=1\n")
    assert main(["nbest", str(nb), "-r", str(ref), "--mbr", "bleu", "--posterior", "model"]) == 3
    assert "model score" in capsys.readouterr().err


def test_cli_lattice(capsys, tmp_path):
    lat = tmp_path / "l.plf"
    lat.write_text("((('a',0,1),),(('b',0,1),('x',0,1),),(('c',0,1),('*EPS*',0,1),),(('d',0,1),),)\n"
                   "((('the',-0.1,1),('a',-2.3,2),),(('cat',-0.5,1),),(('sat',0,1),),)\n")
    ref = tmp_path / "r.txt"
    ref.write_text("a b c d\nthe dog sat\n")
    assert main(["lattice", str(lat), "-r", str(ref), "-f", "json"]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert cap.err == ""  # the command's own metric uses the current parameter names (no deprecation note)
    assert [r["oracle path"] for r in out["rows"]] == ["a b c d", "the cat sat"]
    assert out["segments"][0]["numerator"] == 10.0
    # on the shown scale, as in every command and format (4-GRR: a fraction, x100; docs/output.md)
    assert out["corpus"]["scale"] == 100
    assert out["corpus"]["score"] == pytest.approx(100 * get_metric("4-grr", tokenize="none").corpus(
        ["a b c d", "the cat sat"], [["a b c d"], ["the dog sat"]]).score)
    bad = tmp_path / "c.fst"
    bad.write_text("0 1 a\n1 0 b\n1\n")
    assert main(["lattice", str(bad), "-r", str(ref)]) == 3
    assert "cyclic" in capsys.readouterr().err
