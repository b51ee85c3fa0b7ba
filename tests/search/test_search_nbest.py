"""N-best readers, oracles (per segment and corpus level) on constructed and real n-best lists."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import sacrebleu

from conftest import data_path
from mtscore.errors import InputError
from mtscore.io import read_ref_streams
from mtscore.metrics.grr import grr_align
from mtscore.metrics.registry import get_metric
from mtscore.search import (CandidateStats, NBestList, Pool, corpus_oracle, one_best, read_jsonl_nbest,
                            read_moses_nbest, segment_oracle)
from mtscore.search.oracle import coordinate_ascent, segment_argbest


# ---------------------------------------------------------------------------------------------------
# readers
def test_moses_reader_missing_ids_features_and_order(tmp_path):
    p = tmp_path / "nb.txt"
    p.write_text("0 ||| a b ||| LM= -1.5 TM= -1 -2 ||| -3.5\n"
                 "2 ||| c d e ||| LM= -2 TM= -3 -4 ||| -4\n"
                 "0 |||  ||| LM= -9 TM= 0 0 ||| -9\n"
                 "2 ||| c ||| LM= -3 TM= -1 -1 Sparse_x= 1 ||| -5 ||| 0-0\n")
    nb = read_moses_nbest(p, n_segments=4)
    assert nb.n_segments == 4 and nb.n_candidates == 4
    assert nb.segments() == [["a b", ""], [], ["c d e", "c"], []]
    assert nb.empty_segments().tolist() == [1, 3]
    assert nb.feature_names == ("LM", "TM_0", "TM_1", "Sparse_x")
    assert nb.features[3].tolist() == [-3, -1, -1, 1] and nb.features[2].tolist() == [-2, -3, -4, 0]
    assert nb.scores.tolist() == [-3.5, -9, -4, -5]
    assert read_moses_nbest(p).n_segments == 3  # without references: max id + 1


def test_joshua_features_and_no_score(tmp_path):
    p = tmp_path / "nb.txt"
    p.write_text("0 ||| x ||| lm_0=-1.0 tm_pt_0=2\n1 ||| y\n")
    nb = read_moses_nbest(p)
    assert nb.feature_names == ("lm_0", "tm_pt_0") and not nb.has_scores
    assert nb.features.tolist() == [[-1.0, 2.0], [0.0, 0.0]]


@pytest.mark.parametrize("line, msg", [
    ("x ||| a ||| f=1 ||| 1", "segment id"),
    ("-1 ||| a ||| f=1 ||| 1", ">= 0"),
    ("9 ||| a ||| f=1 ||| 1", "out of range"),
    ("0 ||| a ||| f=zz ||| 1", "feature f"),
    ("0 ||| a ||| f=1 ||| score", "total score"),
    ("0 a b", "expected 'i ||| hypothesis"),
    ("", "empty line"),
    ("0 ||| a ||| f=1 f=2 ||| 1", "appears twice"),
])
def test_moses_reader_errors(tmp_path, line, msg):
    p = tmp_path / "nb.txt"
    p.write_text("0 ||| ok ||| f=1 ||| 1\n" + line + "\n")
    with pytest.raises(InputError) as exc:
        read_moses_nbest(p, n_segments=2)
    assert f"{p}:2:" in str(exc.value) and msg in str(exc.value)


def test_jsonl_reader_variants(tmp_path):
    p = tmp_path / "nb.jsonl"
    rows = [["a", "b"], [], [{"text": "c", "score": -1, "features": {"lm": -2}}, {"text": "d", "score": -3}],
            {"candidates": ["e", "f"], "scores": [0.5, 0.25]}]
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    nb = read_jsonl_nbest(p)
    assert nb.segments() == [["a", "b"], [], ["c", "d"], ["e", "f"]]
    assert nb.empty_segments().tolist() == [1]
    assert nb.feature_names == ("lm",)
    assert np.isnan(nb.scores[0]) and nb.scores[2:].tolist() == [-1, -3, 0.5, 0.25]
    with pytest.raises(InputError, match="4 candidate lists for 5"):
        read_jsonl_nbest(p, n_segments=5)


@pytest.mark.parametrize("line, msg", [("", "blank line"), ("[1, 2]", "candidate 0"), ("{\"x\": 1}", "candidates"),
                                       ("[\"a\"", "invalid JSON"), ("{\"candidates\": [\"a\"], \"scores\": []}", "scores")])
def test_jsonl_errors(tmp_path, line, msg):
    p = tmp_path / "nb.jsonl"
    p.write_text("[\"ok\"]\n" + line + "\n")
    with pytest.raises(InputError) as exc:
        read_jsonl_nbest(p)
    assert ":2:" in str(exc.value) and msg in str(exc.value)


# ---------------------------------------------------------------------------------------------------
# constructed lists
REFS = [["the cat sat on the mat"], ["a dog barked loudly"], ["it rains"]]
CANDS = [["the cat sat on a mat", "the cat sat on the mat", "cat mat"],
         ["a dog barked", "dog loudly barked a", "a dog barked loudly today"],
         []]


@pytest.mark.parametrize("name", ["4-grr", "wrr", "wer", "bleu"])
def test_segment_oracle_is_best_sentence_score(name):
    m = get_metric(name, tokenize="none")
    pool = Pool.of(NBestList.from_lists(CANDS))
    cs = CandidateStats(m, pool, REFS)
    sel = segment_oracle(cs)
    assert sel.n_empty == 1 and sel.texts[2] == "" and sel.index.tolist()[2] == -1
    for i, cands in enumerate(CANDS[:2]):
        scores = [float(m.sentence_scores(m.stats([c], [REFS[i]]))[0]) for c in cands]
        best = max(scores) if m.higher_is_better else min(scores)
        assert sel.texts[i] == cands[scores.index(best)]


def test_empty_segment_uses_empty_hypothesis_statistics():
    m = get_metric("bleu", tokenize="none")
    pool = Pool.of(NBestList.from_lists(CANDS))
    cs = CandidateStats(m, pool, REFS)
    sel = one_best(pool)
    expect = m.corpus([c[0] if c else "" for c in CANDS], REFS).score
    assert cs.corpus_score(sel.rows) == pytest.approx(expect, abs=1e-12)


def test_coordinate_ascent_reaches_exhaustive_optimum_on_tiny_lists():
    rng = np.random.default_rng(3)
    words = "a b c d e f".split()
    refs = [[" ".join(rng.choice(words, 5))] for _ in range(4)]
    cands = [[" ".join(rng.choice(words, rng.integers(2, 7))) for _ in range(3)] for _ in range(4)]
    m = get_metric("bleu", tokenize="none")
    pool = Pool.of(NBestList.from_lists(cands))
    cs = CandidateStats(m, pool, refs)
    sel = corpus_oracle(cs)
    best = max(cs.corpus_score([3 * i + j for i, j in enumerate(combo)])
               for combo in itertools.product(range(3), repeat=4))
    assert cs.corpus_score(sel.rows) <= best + 1e-12
    assert cs.corpus_score(sel.rows) >= max(cs.corpus_score(pool.first()), cs.corpus_score(segment_oracle(cs).rows))


def test_segment_argbest_ties_first():
    off = np.array([0, 3, 5])
    assert segment_argbest(np.array([1.0, 2.0, 2.0, 5.0, 5.0]), off).tolist() == [1, 3]
    assert segment_argbest(np.array([1.0, 2.0, 1.0, 5.0, 4.0]), off, higher_is_better=False).tolist() == [0, 4]


# ---------------------------------------------------------------------------------------------------
# real n-best list (Joshua bn-en)
@pytest.fixture(scope="module")
def bn_en():
    d = data_path("nbest-bn-en")
    refs = read_ref_streams([str(d / f"reference.en.{i}") for i in range(4)])
    nb = read_moses_nbest(d / "nbest.txt", n_segments=len(refs))
    return nb, refs


def test_real_one_best_matches_sacrebleu(bn_en):
    nb, refs = bn_en
    pool = Pool.of(nb)
    m = get_metric("bleu", tokenize="none")
    cs = CandidateStats(m, pool, refs)
    sel = one_best(pool)
    sb = sacrebleu.corpus_bleu(sel.texts, [list(s) for s in zip(*refs)], tokenize="none")
    assert cs.corpus_score(sel.rows) == pytest.approx(sb.score, abs=1e-9)
    assert round(sb.score, 2) == 24.17
    assert nb.n_candidates == 805 and len(nb.empty_segments()) == 0


def test_real_4grr_oracle_equals_brute_force(bn_en):
    nb, refs = bn_en
    m = get_metric("4-grr", tokenize="none")
    pool = Pool.of(nb)
    cs = CandidateStats(m, pool, refs)
    sel = segment_oracle(cs)
    assert sel.info["exact"]
    # brute force per segment: every candidate's 4-GRR from grr_align (best ratio over the references)
    best_scores = []
    for i in range(nb.n_segments):
        scores = [max(grr_align(c.split(), r.split(), 4).score for r in refs[i]) for c in nb.segment(i)]
        assert scores[sel.index[i]] == pytest.approx(max(scores), abs=1e-12)
        best_scores.append(max(scores))
    # corpus level: the oracle beats (or ties) every exhaustive combination on the first segments
    segs = [i for i in range(nb.n_segments) if nb.sizes[i] <= 4][:4]
    W = np.array([np.mean([sum(max(0, len(r.split()) - k) for k in range(4)) for r in refs[i]]) for i in segs])
    exhaustive = max(float(np.dot(W, [max(grr_align(nb.segment(i)[j].split(), r.split(), 4).score for r in refs[i])
                                      for i, j in zip(segs, combo)])) / W.sum()
                     for combo in itertools.product(*[range(nb.sizes[i]) for i in segs]))
    ours = float(m.score(cs.values[sel.rows[segs]].sum(0)))
    assert ours == pytest.approx(exhaustive, abs=1e-12)
    # and the oracle's corpus score is at least that of random selections
    rng = np.random.default_rng(0)
    oracle_corpus = cs.corpus_score(sel.rows)
    for _ in range(20):
        rows = pool.seg_off[:-1] + (rng.random(nb.n_segments) * pool.sizes).astype(int)
        assert cs.corpus_score(rows) <= oracle_corpus + 1e-12


@pytest.mark.parametrize("name", ["bleu", "bleu-sbp"])
def test_real_corpus_oracle_not_below_one_best_and_segment_oracle(bn_en, name):
    nb, refs = bn_en
    m = get_metric(name, tokenize="none")
    pool = Pool.of(nb)
    cs = CandidateStats(m, pool, refs)
    co = corpus_oracle(cs)
    achieved = cs.corpus_score(co.rows)
    assert achieved == pytest.approx(co.info["score"], abs=1e-9)
    assert achieved >= cs.corpus_score(pool.first()) and achieved >= cs.corpus_score(segment_oracle(cs).rows)
    # the reported corpus score is the metric of the selected strings (independent of our stats)
    if name == "bleu":
        sb = sacrebleu.corpus_bleu(co.texts, [list(s) for s in zip(*refs)], tokenize="none")
        assert achieved == pytest.approx(sb.score, abs=1e-9)
    # a local optimum: no single swap improves it
    rows, score, _, swaps = coordinate_ascent(cs.values, pool.seg_off, m.score, co.rows)
    assert swaps == 0


def test_real_wer_oracle_matches_jiwer_per_segment(bn_en):
    jiwer = pytest.importorskip("jiwer")
    nb, refs = bn_en
    m = get_metric("wer", tokenize="none")
    cs = CandidateStats(m, Pool.of(nb), [[r[0]] for r in refs])
    sel = segment_oracle(cs)
    for i in range(0, nb.n_segments, 7):
        errs = [jiwer.process_words(refs[i][0], c).wer if c else 1.0 for c in nb.segment(i)]
        assert errs[sel.index[i]] == pytest.approx(min(errs), abs=1e-12)
