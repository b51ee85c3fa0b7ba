"""mer / wil / wip / cer / wer-jiwer against jiwer (pinned in the test extra).

1. jiwer's measure tests (tests/test_measures.py, test_cer.py, test_empty_ref.py of jitsi/jiwer @ c1b0d5e): vectors
   only. The "contiguous" transform cases (references and hypotheses of different sentence counts joined into one)
   are ported as single-segment inputs.
2. The installed jiwer as oracle on random corpora: every measure, counts per segment and in total, both CER modes.
"""
from __future__ import annotations

import random

import pytest

from mtscore.errors import InvalidParameterError
from mtscore.metrics.jiwer_measures import CER, MER, WIL, WIP, JiwerWER

jiwer = pytest.importorskip("jiwer")


def _all(ref, hyp, empty_ref="mtscore"):
    refs = [[r] for r in ref]
    out = {}
    for cls, key in ((JiwerWER, "wer"), (MER, "mer"), (WIL, "wil"), (WIP, "wip")):
        out[key] = cls(empty_ref=empty_ref).corpus(hyp, refs).score
    return out


def _m(wer, mer, wil):
    return {"wer": wer, "mer": mer, "wip": 1 - wil, "wil": wil}


def _close(a, b):
    assert set(a) == set(b)
    for k in a:
        assert a[k] == pytest.approx(b[k], abs=1e-15), k


KNOWN = [  # "From WER and RIL to MER and WIL" (Morris et al. 2004), via jiwer's tests
    ("X", "X", _m(0, 0, 0)),
    ("X", "X X Y Y", _m(3, 0.75, 0.75)),
    ("X Y X", "X Z", _m(2 / 3, 2 / 3, 5 / 6)),
    ("X", "Y", _m(1, 1, 1)),
    ("X", "Y Z", _m(2, 1, 1)),
    ("This is a test", "This is a test", _m(0, 0, 0)),
    ("This is a test", "", _m(1, 1, 1)),
    ("This is a test", "This test", _m(0.5, 0.5, 0.5)),
    ("i am a short ground truth", "i am a considerably longer and very much incorrect hypothesis",
     _m(7 / 6, 0.7, 0.85)),
    ("hello this sentence is fractured", "this sentence", _m(0.6, 0.6, 0.6)),
]


@pytest.mark.parametrize("ref,hyp,want", KNOWN)
def test_known_values(ref, hyp, want):
    _close(_all([ref], [hyp]), want)


def test_permutation_cases():
    # jiwer's "permutations" case, evaluated per sentence (the default transform)
    ref, hyp = ["am i good", "i"], ["i good", "i am"]
    got = _all(ref, hyp)
    o = jiwer.process_words(ref, hyp)
    _close(got, {"wer": o.wer, "mer": o.mer, "wip": o.wip, "wil": o.wil})
    assert got == pytest.approx(_m(0.5, 0.4, 7 / 16))


CER_KNOWN = [("This is a test", "This is a test", 0 / 14), ("This is a test", "", 14 / 14),
             ("This is a test", "This test", 5 / 14), ("X", "X", 0), ("X", "X X Y Y", 6), ("X Y X", "X Z", 3 / 5),
             ("X", "Y", 1), ("X", "Y Z", 3)]


@pytest.mark.parametrize("ref,hyp,want", CER_KNOWN)
def test_cer_known_values(ref, hyp, want):
    assert CER().corpus([hyp], [[ref]]).score == pytest.approx(want, abs=1e-15)


def test_cer_permutation_invariance():
    for ref, hyp in ((["i", "am i good"], ["i am", "i good"]), (["am i good", "i"], ["i good", "i am"])):
        assert CER().corpus(hyp, [[r] for r in ref]).score == pytest.approx(0.6, abs=1e-15)


def test_empty_reference_conventions():
    # jiwer's test_empty_ref.py
    for n in range(1, 5):
        got = _all([""] * n, [""] * n, "jiwer")
        assert got == {"wer": 0, "mer": 0, "wip": 1, "wil": 0}
    assert _all([""], ["hello"], "jiwer") == {"wer": 1, "mer": 1, "wip": 0, "wil": 1}
    for i in range(2, 11):
        got = _all([""], [" ".join(str(j) for j in range(i))], "jiwer")
        assert got == {"wer": i, "mer": 1, "wip": 0, "wil": 1}
    assert _all(["hello"], [""], "jiwer") == {"wer": 1, "mer": 1, "wip": 0, "wil": 1}
    got = _all(["hello world", ""], ["hello world", "done"], "jiwer")
    _close(got, {"wer": 1 / 2, "mer": 1 / 3, "wil": 1 / 3, "wip": 2 / 3})
    # mtscore's own rule: a rate with an empty denominator is 0 (no errors) or 1
    got = _all([""], ["a b c"])
    assert got["wer"] == 1.0 and got["mer"] == 1.0 and got["wip"] == 0.0
    st = MER().stats(["hello world", "done"], [["hello world"], [""]])
    assert st.values[:, :4].tolist() == [[2, 0, 0, 0], [0, 0, 0, 1]]


def _rand_line(rng, alphabet, n):
    return " ".join(rng.choice(alphabet) for _ in range(rng.randint(0, n)))


def test_random_corpora_equal_jiwer():
    rng = random.Random(11)
    voc = ["a", "b", "c", "dd", "e"]
    for _ in range(120):
        n = rng.randint(1, 5)
        refs = [_rand_line(rng, voc, 9) for _ in range(n)]
        hyps = [_rand_line(rng, voc, 9) + ("  " if rng.random() < 0.2 else "") for _ in range(n)]
        if not any(r.split() for r in refs):
            continue
        o = jiwer.process_words(refs, hyps)
        rr = [[r] for r in refs]
        m = MER()
        st = m.stats(hyps, rr)
        tot = st.values.sum(axis=0)
        assert tuple(tot[:4]) == (o.hits, o.substitutions, o.deletions, o.insertions)
        assert m.corpus_from_stats(st).score == pytest.approx(o.mer, abs=1e-15)
        assert WIL().corpus(hyps, rr).score == pytest.approx(o.wil, abs=1e-15)
        assert WIP().corpus(hyps, rr).score == pytest.approx(o.wip, abs=1e-15)
        assert JiwerWER().corpus(hyps, rr).score == pytest.approx(o.wer, abs=1e-15)
        # per segment: jiwer on that sentence alone
        seg = m.sentence_scores(st)
        for i, (r, h) in enumerate(zip(refs, hyps)):
            if r.split():
                assert seg[i] == pytest.approx(jiwer.mer(r, h), abs=1e-15)
        ch = CER().corpus(hyps, rr).score
        c = jiwer.process_characters(refs, hyps)
        assert ch == pytest.approx(c.cer, abs=1e-15)


def test_cer_without_spaces_and_options():
    assert CER(cer_spaces=False).corpus(["ab c"], [["abc"]]).score == 0.0
    assert CER().corpus(["ab c"], [["abc"]]).score == pytest.approx(1 / 3)
    assert "spaces:no" in CER(cer_spaces=False).signature(1)
    with pytest.raises(InvalidParameterError, match="empty_ref"):
        MER(empty_ref="x")
    with pytest.raises(InvalidParameterError, match="one reference"):
        MER().stats(["a"], [["a", "b"]])


def test_different_sentence_counts_fail_in_one_line():
    # jiwer's test_fail_on_different_sentence_length: a ValueError there, a one-line InvalidParameterError here
    with pytest.raises(InvalidParameterError, match=r"^refs: 4 reference entries for 1 hypothesis"):
        MER().corpus(["this sentence"], [["hello"], ["this"], ["sentence"], ["is fractured"]])


def test_count_errors_vectors():
    # jiwer's test_count_errors.py (its visualize_error_counts tables): 5 substitutions (sub -> bus 3x, usb, bsu),
    # 1 insertion (ins), 1 deletion (del), 3 hits; characters: the counts of jiwer's alignment (its table lists
    # runs of inserted/deleted characters, not characters)
    ref = ["sub", "sub", "sub", "sub", "sub", "this was", "del", "hit"]
    hyp = ["bus", "bus", "bus", "usb", "bsu", "this was ins", "", "hit"]
    tot = MER().stats(hyp, [[r] for r in ref]).values.sum(axis=0)
    assert tuple(tot[:4]) == (3, 5, 1, 1)
    tot = CER().stats(hyp, [[r] for r in ref]).values.sum(axis=0)
    o = jiwer.process_characters(ref, hyp)
    assert tuple(tot[:4]) == (o.hits, o.substitutions, o.deletions, o.insertions)
