"""TER: sacreBLEU 2.6 (test-only oracle) on WMT21 en-de, random texts with every option, kernel corner cases.

sacreBLEU's answers on the fixed inputs (WMT21, the corner cases) are stored (tests/known_answers/sacrebleu-ter.json,
made by scripts/sacrebleu_ter_known_answers.py) and used where the same sacreBLEU version made them from the very same
inputs; elsewhere sacreBLEU runs live. The random texts always run it live."""
from __future__ import annotations

import hashlib
import itertools
import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import data_path
from mtscore.errors import InvalidParameterError
from mtscore.io.wmt import load_wmt21
from mtscore.metrics._ter_kernel import ter_edits
from mtscore.metrics.registry import get_metric
from mtscore.metrics.ter import TER
from mtscore.tokenize.tercom import tercom_tokenize, tercom_words

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SBTER  # noqa: E402
from sacrebleu.metrics.lib_ter import translation_edit_rate  # noqa: E402
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer  # noqa: E402

FULL = os.environ.get("MTSCORE_FULL_SWEEP") == "1"
OPTIONS = ("normalized", "no_punct", "asian_support", "case_sensitive")


# -- sacreBLEU's answers on this file's fixed inputs --------------------------------------------------------
KNOWN = Path(__file__).resolve().parents[1] / "known_answers" / "sacrebleu-ter.json"


def _stored() -> dict:
    """sacreBLEU's TER statistics and edit counts on the fixed inputs below (the WMT21 data, the corner cases),
    made by scripts/sacrebleu_ter_known_answers.py (a missing file fails); empty when another sacreBLEU is installed."""
    known = json.loads(KNOWN.read_text(encoding="utf-8"))
    return known["answers"] if known["sacrebleu"] == sacrebleu.__version__ else {}


STORED = _stored()


def _stats_kind(sb) -> str:
    """The statistics call of a sacreBLEU TER with its options."""
    return "stats " + json.dumps({o: getattr(sb, o) for o in OPTIONS})


def peer_key(kind: str, inputs: list) -> str:
    """``kind``: the call, with its options where it has some."""
    return hashlib.sha256(json.dumps([kind, inputs], ensure_ascii=False).encode("utf-8")).hexdigest()


def peer(kind: str, inputs: list, live):
    """sacreBLEU's answer ``live()`` for ``inputs``: the stored one where this sacreBLEU version made it from these
    very inputs (keyed by their sha256), else sacreBLEU runs here (other data, MTSCORE_FULL_SWEEP=1, another
    version)."""
    key = peer_key(kind, inputs)
    return STORED[key] if key in STORED else live()


def sb_stats(sb, hyps, refs_sm):
    width = max(len(r) for r in refs_sm)
    streams = [[seg[k] if k < len(seg) else None for seg in refs_sm] for k in range(width)]
    return np.array(sb._extract_corpus_statistics(hyps, streams), dtype=np.float64)


# -- WMT21 en-de, all 20 systems, 1 and 3 references -----------------------------------------------
@pytest.fixture(scope="module")
def wmt21():
    return load_wmt21(data_path("wmt21"), "en-de")


@pytest.mark.parametrize("nrefs", [1, 3])
def test_wmt21_all_systems_vs_sacrebleu(wmt21, nrefs):
    """Default: every 40th segment (26 of 1002) of all 20 systems, since sacreBLEU's TER takes ~7 ms per
    (segment, reference) pair. MTSCORE_FULL_SWEEP=1: all 1002 segments (tens of minutes in sacreBLEU)."""
    n = len(wmt21.source)
    rows = np.arange(n) if FULL else np.arange(0, n, 40)
    names = ["A", "C", "D"][:nrefs]
    refs_all = wmt21.refs_sentence_major(names)
    refs_sm = [refs_all[i] for i in rows]
    sb = SBTER(references=[[r[k] for r in refs_sm] for k in range(nrefs)])
    ours = get_metric("ter")
    assert len(wmt21.systems) == 20
    for system, all_hyps in wmt21.systems.items():
        hyps = [all_hyps[i] for i in rows]
        expected = np.array(peer(_stats_kind(sb), [hyps, refs_sm], lambda: sb._extract_corpus_statistics(hyps, None)),
                            dtype=np.float64)
        stats = ours.stats(hyps, refs_sm)
        np.testing.assert_array_equal(stats.values, expected, err_msg=system)
        res, sb_res = ours.corpus_from_stats(stats), sb._aggregate_and_compute(expected.tolist())
        assert abs(res.score - sb_res.score) < 1e-9
        assert res.components["num_edits"] == sb_res.num_edits
    assert stats.signature.replace("mtscore-0.1.0", "2.6.0") == str(sb.get_signature())


def test_wmt21_one_system_full_corpus(wmt21):
    """One whole system (1002 segments, reference A), corpus and segment scores."""
    hyps = wmt21.systems["Facebook-AI"]
    ref = wmt21.refs["A"]
    sb = SBTER()
    expected = np.array(peer(_stats_kind(sb), [hyps, [[r] for r in ref]],
                             lambda: sb._extract_corpus_statistics(hyps, [ref])), dtype=np.float64)
    m = TER()
    stats = m.stats(hyps, [[r] for r in ref])
    np.testing.assert_array_equal(stats.values, expected)
    assert abs(m.corpus_from_stats(stats).score - sb._aggregate_and_compute(expected.tolist()).score) < 1e-9
    seg = m.sentence_scores(stats)
    for i in range(0, len(hyps), 50):
        assert abs(seg[i] - sb._compute_score_from_stats(expected[i].tolist()).score) < 1e-9


# -- random texts with every option ------------------------------------------------------------------
WORDS = ["the", "The", "cat", "sat", "on", "mat", ".", ",", "a", "A", "dog's", "1,000", "3.5", "x-1",
         "&amp;", "(hi)", "日本語", "、", "。", "ｆｕｌｌ", "！", "?", "\"q\"", "é", "Nima's,", "it's."]
sentences = st.lists(st.sampled_from(WORDS), max_size=18).map(" ".join)


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.lists(st.tuples(sentences, st.lists(sentences, min_size=1, max_size=3)), min_size=1, max_size=5),
       flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()),
       trailing=st.sampled_from(["", " ", "\t", "  \u00a0"]))
def test_random_vs_sacrebleu(data, flags, trailing):
    params = dict(zip(OPTIONS, flags))
    hyps = [h + trailing for h, _ in data]
    refs = [r for _, r in data]
    sb = SBTER(**params)
    ours = TER(**params)
    stats = ours.stats(hyps, refs)
    expected = sb_stats(sb, hyps, refs)
    np.testing.assert_array_equal(stats.values, expected)
    assert abs(ours.corpus_from_stats(stats).score - sb._aggregate_and_compute(expected.tolist()).score) < 1e-9
    seg = ours.sentence_scores(stats)
    for i, (h, r) in enumerate(zip(hyps, refs)):
        assert abs(seg[i] - sb.sentence_score(h, r).score) < 1e-9


def test_references_are_tokenized_twice_as_sacrebleu_does():
    """sacreBLEU tokenizes a TER reference twice (``_cache_references``, then ``_extract_reference_info``); the
    normalized tokenizer is not idempotent (``Nima's,``: one word after the first pass, two after the second).
    WMT17 en-de reference line 2810 and KIT's output: sacreBLEU counts 29 reference words, one pass 28."""
    ref = ("Der Verein Nima's, gegründet von Dr. Tannaz Westerberg aus Sprakel, und das Junge Theater werden in der "
           "kommenden Spielzeit im Rahmen eines Musiktheaterprojekts zusammenarbeiten.")
    hyp = ("Nima, gegründet von Dr. Tannaz Westerberg aus Sprakel und dem Young Theatre, wird in der nächsten Saison "
           "an einem musikalischen Theaterprojekt arbeiten.")
    once = TercomTokenizer(normalized=True, case_sensitive=True)(ref).split()
    assert len(once) == 28 and "Nima's" in once
    for flags in itertools.product([False, True], repeat=3):
        params = dict(normalized=True, **dict(zip(OPTIONS[1:], flags)))
        sb, ours = SBTER(**params), TER(**params)
        expected = sb_stats(sb, [hyp], [[ref]])
        np.testing.assert_array_equal(ours.stats([hyp], [[ref]]).values, expected)
        assert expected[0, 1] == (25 if params["no_punct"] else 29)
        assert ours.sentence_scores(ours.stats([hyp], [[ref]]))[0] == sb.sentence_score(hyp, [ref]).score


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet="aA bB.,?:;!\"()'s-0123日本、。！（）ｆ\u3200\t", max_size=40),
       flags=st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_tokenizer_without_normalization_is_idempotent(text, flags):
    """Why only ``normalized`` tokenizes the references twice: sacreBLEU's tokenizer in the other modes gives
    the same words on a second pass (so mtscore saves that pass there)."""
    tok = TercomTokenizer(normalized=False, **dict(zip(OPTIONS[1:], flags)))
    once = tok(text.rstrip())
    assert tok(once.rstrip()).split() == once.split()


TOK_ALPHABET = "aA bB.,?:;!\"()'s-0123&quot;&amp;&lt;&gt;\n{}[]@/~`日本ひらがなカタカナ、。！（）ｆ" + "\u31c0\u2e80\u3300\uf900\ufe30\u3200\u3f22\u31f0"


@settings(max_examples=120, deadline=None)
@given(text=st.text(alphabet=TOK_ALPHABET, max_size=40),
       flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()))
def test_tercom_tokenizer_vs_sacrebleu(text, flags):
    params = dict(zip(OPTIONS, flags))
    assert tercom_tokenize(text, **params) == TercomTokenizer(**params)(text)
    assert tercom_words([text], **params)[0].split() == TercomTokenizer(**params)(text.rstrip()).split()


@pytest.mark.parametrize("flags", list(itertools.product([False, True], repeat=4)))
def test_tercom_tokenizer_examples(flags):
    params = dict(zip(OPTIONS, flags))
    sb = TercomTokenizer(**params)
    for s in ["He said: \"It's John's 1,000.5 dogs-3 (ok)!\"", "line\n-break &amp; &lt;tag&gt;",
              "日本語のテキスト、です。（全角）！", "ひらがな", "カタカナ", "'s", "x's", ""]:
        assert tercom_tokenize(s, **params) == sb(s)


# -- kernel corner cases: extreme length ratios, the 1000-candidate limit, repeated words --------------
def _pairs():
    rng = np.random.default_rng(12345)
    cases = [([], []), ([], [1, 2]), ([1, 2], []), ([1], [1]), ([1, 2, 3], [3, 2, 1])]
    for a, b, v in [(3, 120, 3), (120, 3, 3), (1, 80, 2), (80, 1, 2), (60, 60, 2), (45, 50, 3), (30, 30, 1),
                    (25, 28, 6), (70, 20, 4), (20, 70, 4), (12, 13, 30)]:
        for _ in range(2):
            cases.append((list(rng.integers(0, v, a)), list(rng.integers(0, v, b))))
    return cases


@pytest.mark.parametrize("hyp,ref", _pairs())
def test_kernel_vs_translation_edit_rate(hyp, ref):
    hyp, ref = [int(x) for x in hyp], [int(x) for x in ref]
    expected = peer("edits", [hyp, ref], lambda: translation_edit_rate([str(x) for x in hyp], [str(x) for x in ref])[0])
    assert ter_edits(np.array(hyp, dtype=np.int64), np.array(ref, dtype=np.int64)) == expected


# -- behaviour, surface, errors -------------------------------------------------------------------------
def test_empty_segments_match_sacrebleu():
    hyps = ["", "a b c", "", "x y"]
    refs = [["a b"], [""], [""], ["", "x y z"]]
    sb = SBTER()
    m = TER()
    stats = m.stats(hyps, refs)
    np.testing.assert_array_equal(stats.values, sb_stats(sb, hyps, refs))
    # empty reference: one edit per hypothesis word; all-empty: 0; hypothesis words vs empty refs: 100
    assert list(stats.values[:3, 0]) == [2, 3, 0]
    assert m.sentence_scores(stats)[1] == 100.0 and m.sentence_scores(stats)[2] == 0.0
    for i in range(len(hyps)):
        assert m.sentence_scores(stats)[i] == pytest.approx(sb.sentence_score(hyps[i], refs[i]).score, abs=1e-12)


def test_decomposable_and_vectorized():
    m = TER()
    assert m.decomposable and not m.higher_is_better
    stats = m.stats(["a b c d", "the cat sat", "x"], [["a c b d", "a b"], ["the cat sat on it"], ["y z"]])
    v = stats.values.copy()
    seg = m.sentence_scores(stats)
    w = stats.column("ref_len")
    assert m.corpus_from_stats(stats).score == pytest.approx((seg * w).sum() / w.sum(), abs=1e-12)
    batch = np.random.default_rng(0).integers(0, 3, size=(3, 4, len(v))).astype(float)
    out = m.score(batch @ v)
    assert out.shape == (3, 4)
    assert out[1, 2] == m.score(batch[1, 2] @ v)
    np.testing.assert_array_equal(stats.values, v)


def test_signature_and_errors():
    assert TER().signature(1) == "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:mtscore-0.1.0"
    assert TER(normalized=True, no_punct=True, asian_support=True, case_sensitive=True).signature("var") == (
        "nrefs:var|case:mixed|tok:tercom|norm:yes|punct:no|asian:yes|version:mtscore-0.1.0")
    with pytest.raises(InvalidParameterError):
        TER(normalized="yes")
    with pytest.raises(InvalidParameterError):
        TER(lowercase=True)
