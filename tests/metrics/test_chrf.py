"""chrF / chrF++: published WMT23 scores, sacreBLEU 2.6 (test-only oracle) on WMT21 and random inputs."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import data_path
from kernel_inputs import code_points
from mtscore.errors import InvalidParameterError
from mtscore.io.wmt import load_mtme, load_wmt21
from mtscore.metrics.chrf import CHRF, CHRFPlusPlus, _check_whitespace_table, chrf_words
from mtscore.metrics.registry import get_metric

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF as SBCHRF  # noqa: E402

FULL = os.environ.get("MTSCORE_FULL_SWEEP") == "1"


def sb_stats(sb, hyps, refs_sm):
    """sacreBLEU's per-segment statistics for sentence-major references (variable counts allowed)."""
    width = max(len(r) for r in refs_sm)
    streams = [[seg[k] if k < len(seg) else None for seg in refs_sm] for k in range(width)]
    return np.array(sb._extract_corpus_statistics(hyps, streams), dtype=np.float64)


# -- published WMT23 scores (sacreBLEU defaults) ----------------------------------------------------
def _as_published(lines, path):
    """mt-metrics-eval read the files with a plain ``open()``: a UTF-8 byte-order mark at the start of a
    file stayed in segment 1 (wmt23 en-de AIRC.txt has one). mtscore's readers drop it as an encoding
    mark (io/text.py), so put it back to compare with the stored numbers."""
    with open(path, "rb") as fh:
        bom = fh.read(3) == b"\xef\xbb\xbf"
    return (["\ufeff" + lines[0]] + lines[1:]) if bom and lines else lines


@pytest.mark.parametrize("lp", ["en-de", "he-en", "zh-en"])
def test_wmt23_published_chrf(lp):
    root = data_path("wmt23")
    d = load_mtme(root, lp)
    metric = CHRF()
    checked = 0
    for stored in d.stored_metrics():
        if not stored.startswith("chrF-"):
            continue
        ref_name = stored.split("-", 1)[1]
        refs = [[r] for r in _as_published(d.refs[ref_name], root / "references" / f"{lp}.{ref_name}.txt")]
        sys_scores = d.metric_scores(stored, "sys")
        seg_scores = d.metric_scores(stored, "seg")
        dom_path = root / "metric-scores" / lp / f"{stored}.domain.score"
        dom_scores = d.metric_scores(stored, "domain") if dom_path.exists() else {}
        domains = np.array(d.domains) if d.docs else None
        for system, expected in sys_scores.items():
            hyps = _as_published(d.systems[system], root / "system-outputs" / lp / f"{system}.txt")
            stats = metric.stats(hyps, refs)
            assert abs(metric.corpus_from_stats(stats).score - expected) < 1e-9, (lp, stored, system)
            seg = metric.sentence_scores(stats)
            exp_seg = seg_scores[system]
            for i, e in enumerate(exp_seg):
                if e is not None:
                    assert abs(seg[i] - e) < 1e-9, (lp, stored, system, i)
            for (dom, s), e in dom_scores.items():
                if s == system and e is not None:
                    rows = np.flatnonzero(domains == dom)
                    assert abs(metric.score(stats.values[rows].sum(0)) - e) < 1e-9, (lp, system, dom)
            checked += 1
    assert checked >= 12


# -- sacreBLEU on WMT21 en-de, all systems, 1 and 3 references ---------------------------------------
@pytest.fixture(scope="module")
def wmt21():
    return load_wmt21(data_path("wmt21"), "en-de")


def _segments(n):
    # default: a fixed quarter of the test set (every 4th segment); MTSCORE_FULL_SWEEP=1: all of it
    return np.arange(n) if FULL else np.arange(0, n, 4)


KNOWN = Path(__file__).resolve().parents[1] / "known_answers" / "sacrebleu-chrf-wmt21-en-de.json"


def _sha(a) -> str:
    a = np.ascontiguousarray(a, dtype=np.float64)
    return hashlib.sha256(repr(a.shape).encode() + a.tobytes()).hexdigest()


def _selection(wmt21, nrefs):
    """The test's inputs: (references sentence-major, {system: hypotheses}, their digest)."""
    rows = _segments(len(wmt21.source))
    refs_sm = [wmt21.refs_sentence_major(["A", "C", "D"][:nrefs])[i] for i in rows]
    hyps = {system: [all_hyps[i] for i in rows] for system, all_hyps in wmt21.systems.items()}
    h = hashlib.sha256()
    for seg in refs_sm:
        h.update(("\t".join(seg) + "\n").encode("utf-8"))
    for system in sorted(hyps):
        h.update(("\n" + system + "\n" + "\n".join(hyps[system])).encode("utf-8"))
    return refs_sm, hyps, h.hexdigest()


def peer_answers(refs_sm, hyps, word_order, with_stats=True) -> dict:
    """sacreBLEU's answers: per system the segment statistics (and their digest), the corpus score and name, every
    37th sentence score; its signature. Made by scripts/sacrebleu_chrf_known_answers.py for the known answers."""
    nrefs = len(refs_sm[0])
    sb = SBCHRF(word_order=word_order, references=[[r[k] for r in refs_sm] for k in range(nrefs)])
    out = {"signature": str(sb.get_signature()), "systems": {}}
    for system, h in hyps.items():
        expected = np.array(sb._extract_corpus_statistics(h, None), dtype=np.float64)
        res = sb._aggregate_and_compute(expected.tolist())
        out["systems"][system] = {
            "stats_sha256": _sha(expected), "score": res.score, "name": res.name,
            "sentences": [sb._compute_score_from_stats(expected[i].tolist()).score for i in range(0, len(h), 37)]}
        if with_stats:
            out["systems"][system]["stats"] = expected
    return out


def _known(key: str, inputs: str):
    """The stored answers for these inputs and this sacreBLEU, else None (then sacreBLEU runs here)."""
    known = json.loads(KNOWN.read_text(encoding="utf-8"))  # a missing file fails
    entry = known["answers"].get(key)
    if FULL or known["sacrebleu"] != sacrebleu.__version__ or entry is None or entry["inputs_sha256"] != inputs:
        return None
    return entry


@pytest.mark.parametrize("nrefs", [1, 3])
@pytest.mark.parametrize("word_order", [0, 2])
def test_wmt21_all_systems_vs_sacrebleu(wmt21, nrefs, word_order):
    """Every system's segment statistics, corpus score and name, sentence scores and signature equal sacreBLEU's.
    sacreBLEU's answers for this selection are known answers (statistics by digest); it runs here, and the first
    difference is shown, when mtscore's statistics, the data or the installed sacreBLEU differ from them."""
    refs_sm, hyps, inputs = _selection(wmt21, nrefs)
    ours = get_metric("chrf++" if word_order == 2 else "chrf")
    assert len(hyps) == 20
    results = {system: ours.stats(h, refs_sm) for system, h in hyps.items()}
    peer = _known(f"{nrefs}:{word_order}", inputs)
    if peer is None or any(_sha(st.values) != peer["systems"][s]["stats_sha256"] for s, st in results.items()):
        stored = peer
        peer = peer_answers(refs_sm, hyps, word_order)
        for system, stats in results.items():
            np.testing.assert_array_equal(stats.values, peer["systems"][system]["stats"])
        assert stored is None, "sacreBLEU gives these statistics, but not the stored digests: remake " \
            "tests/known_answers/sacrebleu-chrf-wmt21-en-de.json (scripts/sacrebleu_chrf_known_answers.py)"
    for system, stats in results.items():
        p = peer["systems"][system]
        res = ours.corpus_from_stats(stats)
        assert abs(res.score - p["score"]) < 1e-9
        assert res.name == p["name"]
        sent = ours.sentence_scores(stats)
        for k, i in enumerate(range(0, len(hyps[system]), 37)):
            assert abs(sent[i] - p["sentences"][k]) < 1e-9
        assert stats.signature.replace("mtscore-0.1.0", "2.6.0") == peer["signature"]


# -- random inputs, every option ---------------------------------------------------------------------
ALPHABET = "aabbcc  .,!?()'\"-" + "AÉé日本ß\t\u00a0\u3000İΣσς" + "xyz0123"
texts = st.text(alphabet=ALPHABET, max_size=30)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1, max_size=6),
       char_order=st.integers(0, 7), word_order=st.integers(0, 3), beta=st.sampled_from([1, 2, 3, 0.5]),
       lowercase=st.booleans(), whitespace=st.booleans(), eps_smoothing=st.booleans())
def test_random_vs_sacrebleu(data, char_order, word_order, beta, lowercase, whitespace, eps_smoothing):
    if char_order + word_order == 0:
        char_order = 1
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    params = dict(char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase,
                  whitespace=whitespace, eps_smoothing=eps_smoothing)
    sb = SBCHRF(**params)
    ours = CHRF(**params)
    stats = ours.stats(hyps, refs)
    expected = sb_stats(sb, hyps, refs)
    np.testing.assert_array_equal(stats.values, expected)
    assert abs(ours.corpus_from_stats(stats).score - sb._aggregate_and_compute(expected.tolist()).score) < 1e-9
    sent = ours.sentence_scores(stats)
    for i, (h, r) in enumerate(zip(hyps, refs)):
        assert abs(sent[i] - sb.sentence_score(h, r).score) < 1e-9


def test_best_reference_tie_keeps_first():
    # two references with the same sentence chrF but different statistics: sacreBLEU keeps the first
    hyp, refs = ["ab"], [["abx", "xab"]]
    sb = SBCHRF()
    st1 = CHRF().stats(hyp, refs)
    np.testing.assert_array_equal(st1.values, sb_stats(sb, hyp, refs))
    hyp, refs = ["abcd"], [["abzz", "abcd", "abcd"]]
    np.testing.assert_array_equal(CHRF().stats(hyp, refs).values, sb_stats(sb, hyp, refs))


def test_empty_segments_match_sacrebleu():
    hyps = ["", "a cat", "", "x"]
    refs = [["a cat"], [""], [""], ["", "x"]]
    for eps in (False, True):
        sb = SBCHRF(eps_smoothing=eps, word_order=2)
        ours = CHRFPlusPlus(eps_smoothing=eps)
        stats = ours.stats(hyps, refs)
        np.testing.assert_array_equal(stats.values, sb_stats(sb, hyps, refs))
        sent = ours.sentence_scores(stats)
        for i in range(len(hyps)):
            assert sent[i] == pytest.approx(sb.sentence_score(hyps[i], refs[i]).score, abs=1e-12)
    # documented: an empty hypothesis or reference scores 0 by default
    assert list(CHRF().sentence_scores(CHRF().stats(["", "a"], [["a"], [""]]))) == [0.0, 0.0]


def test_score_vectorized_and_pure():
    m = CHRFPlusPlus()
    stats = m.stats(["the cat sat", "on the mat .", "hello"], [["the cat sat down"], ["on a mat"], ["hi"]])
    v = stats.values.copy()
    w = np.random.default_rng(0).integers(0, 3, size=(4, 5, 3)).astype(float)
    batch = m.score(w @ v)
    assert batch.shape == (4, 5)
    for a in range(4):
        for b in range(5):
            assert batch[a, b] == m.score(w[a, b] @ v)
    np.testing.assert_array_equal(stats.values, v)
    assert m.decomposable is False and m.higher_is_better is True


def test_word_split_rule():
    assert chrf_words("(hi) a. .b ab c,d !") == "(hi ) a . . b ab c,d !"
    sb = SBCHRF(word_order=2)
    for s in ["(hi)", "'quoted'", "x.", ".x", "a\u00a0b.", "...", "a-b-"]:
        assert chrf_words(s).split() == sb._remove_punctuation(s)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.text(alphabet=ALPHABET + "#$%&*+/:;<=>@[]^_`{|}~", max_size=25), max_size=6))
def test_word_kernel_vs_sacrebleu_tokens(lines):
    """The compiled tokenizer + interning gives sacreBLEU's tokens, numbered by first occurrence."""
    from mtscore.metrics._ngram_kernel import chrf_word_ids
    from mtscore.metrics.chrf import _whitespace_table

    sb = SBCHRF(word_order=2)
    index: dict[str, int] = {}
    expected = [[index.setdefault(t, len(index)) for t in sb._remove_punctuation(ln)] for ln in lines]
    cps, off = code_points(lines)
    ids, woff = chrf_word_ids(cps, off, _whitespace_table())
    assert [list(ids[woff[i]:woff[i + 1]]) for i in range(len(lines))] == expected
    assert [chrf_words(ln).split() for ln in lines] == [sb._remove_punctuation(ln) for ln in lines]


def test_whitespace_table_covers_unicode():
    assert _check_whitespace_table()


def test_names_signatures_and_errors():
    assert CHRF().display_name == "chrF2"
    assert CHRFPlusPlus().display_name == "chrF2++"
    assert CHRF(beta=1.0, word_order=1).display_name == "chrF1+"
    assert CHRFPlusPlus().signature(3) == "nrefs:3|case:mixed|eff:yes|nc:6|nw:2|space:no|version:mtscore-0.1.0"
    assert CHRF(lowercase=True, eps_smoothing=True, whitespace=True).signature(1).startswith(
        "nrefs:1|case:lc|eff:no|nc:6|nw:0|space:yes|")
    for bad in (dict(char_order=-1), dict(char_order=0, word_order=0), dict(beta=0), dict(beta="2"),
                dict(word_order=1.5), dict(lowercase="yes"), dict(nope=1)):
        with pytest.raises(InvalidParameterError):
            CHRF(**bad)
