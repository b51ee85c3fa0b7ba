"""``import mtscore.sacrebleu as sacrebleu`` (docs/sacrebleu.md: the Python API).

1. The vectors of sacreBLEU's own API tests (mjpost/sacrebleu @ f615c72: test/test_bleu.py,
   test_sentence_bleu.py, test_chrf.py, test_ter.py, test_tokenizer_ter.py), ported as data: the same
   inputs and expected numbers, checked against mtscore.sacrebleu with the same tolerances.
2. The installed sacreBLEU 2.6 (test-only dependency) as an oracle on real data: the very same floats for
   every attribute of the score objects, the same format() strings, the same signatures but the version.
   sacreBLEU's TER segment statistics of these inputs (its pure-Python shift search, ~20 s) are stored with its
   version (tests/known_answers/sacrebleu-ter-segment-stats.json, scripts/sacrebleu_peer_ter_stats.py) and handed to
   it, by a key made of the inputs themselves; any other input, or another sacreBLEU, is computed by it live.
"""
import hashlib
import json
import os
from collections import namedtuple
from pathlib import Path

import pytest

import mtscore.sacrebleu as sacrebleu
from mtscore import __version__
from mtscore.errors import InvalidParameterError
from mtscore.sacrebleu.metrics import BLEU, CHRF, TER
from mtscore.sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from conftest import data_path

Statistics = namedtuple("Statistics", ["common", "total"])

# ---------------------------------------------------------------------------------------------------
# test_bleu.py
_refs = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]
_hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]

RAW_BLEU = [
    (["this is a test", "another test"], [["ref1", "ref2"]], 0.0),
    (["this is a test"], [["this is a test"]], 1.0),
    (["this is a fest"], [["this is a test"]], 0.223606797749979),
]
CORPUS_BLEU = [
    (_hyps, _refs, {}, 48.530827),
    (("", "", ""), _refs, {}, 0.0),
    (_hyps, _refs, {"tokenize": "none"}, 49.1919566),
    (_hyps, _refs, {"tokenize": "13a"}, 48.530827),
    (_hyps, _refs, {"tokenize": "intl"}, 43.91623493),
    (_hyps, _refs, {"smooth_method": "none"}, 48.530827),
]
EFFECTIVE_ORDER = [(["test"], [["a test"]], 0.3678794411714425), (["a test"], [["a test"]], 1.0),
                   (["a little test"], [["a test"]], 0.03218297948685433)]
DEGENERATE = [((Statistics([0, 0, 0, 0], [4, 4, 2, 1]), 0, 1), 0.0, 0.0),
              ((Statistics([0, 0, 0, 0], [10, 11, 12, 0]), 14, 10), 0.0, 0.0),
              ((Statistics([0, 0, 0, 0], [0, 0, 0, 0]), 0, 0), 0.0, 0.0),
              ((Statistics([6, 5, 4, 0], [6, 5, 4, 3]), 6, 6), 0.0, 0.0),
              ((Statistics([0, 0, 0, 0], [0, 0, 0, 0]), 0, 0), 0.1, 0.0),
              ((Statistics([0, 0, 0, 0], [0, 0, 0, 0]), 1, 5), 0.01, 0.0)]
MAX_ORDER = [(1, "77.65"), (2, "60.50"), (3, "53.93"), (4, "48.53"), (5, "46.14"), (6, "43.28")]


@pytest.mark.parametrize("hyps,refs,expected", RAW_BLEU)
def test_raw_bleu(hyps, refs, expected):
    assert abs(sacrebleu.raw_corpus_bleu(hyps, refs, .01).score / 100 - expected) < 1e-8


@pytest.mark.parametrize("hyps,refs,kwargs,expected", CORPUS_BLEU)
def test_corpus_bleu(hyps, refs, kwargs, expected):
    assert abs(sacrebleu.corpus_bleu(hyps, refs, **kwargs).score - expected) < 1e-8


@pytest.mark.parametrize("hyps,refs,expected", EFFECTIVE_ORDER)
def test_effective_order(hyps, refs, expected):
    assert abs(sacrebleu.raw_corpus_bleu(hyps, refs, .01).score / 100 - expected) < 1e-8


def test_statistics():
    r = sacrebleu.raw_corpus_bleu(["am I am a character sequence"], [["I am a symbol string sequence a a"]], .01)
    assert Statistics(r.counts, r.totals) == Statistics([4, 2, 1, 0], [6, 5, 4, 3])


def test_scoring():
    s = BLEU.compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score / 100
    assert abs(s - 0.8375922397) < 1e-8


def test_offset():
    hyp, ref = ["am I am a character sequence"], [["I am a symbol string sequence a a"]]
    assert abs(sacrebleu.raw_corpus_bleu(hyp, ref, 0.0).score / 100 - 0) < 1e-8
    assert abs(sacrebleu.raw_corpus_bleu(hyp, ref, None).score / 100 - 0.1555722182) < 1e-8
    assert abs(sacrebleu.raw_corpus_bleu(hyp, ref).score / 100 - 0.1555722182) < 1e-8


@pytest.mark.parametrize("stats,offset,expected", DEGENERATE)
def test_degenerate_statistics(stats, offset, expected):
    s = BLEU.compute_bleu(stats[0].common, stats[0].total, stats[1], stats[2], smooth_method="floor",
                          smooth_value=offset).score / 100
    assert s == expected


@pytest.mark.parametrize("order,expected", MAX_ORDER)
def test_max_ngram_order(order, expected):
    assert f"{BLEU(max_ngram_order=order).corpus_score(_hyps, _refs).score:.2f}" == expected


# ---------------------------------------------------------------------------------------------------
# test_sentence_bleu.py
REF = "producţia de zahăr brut se exprimă în zahăr alb;"
SYS = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"
SENT = [("exp", None, False, "13a", 8.493), ("none", None, False, "13a", 0.0),
        ("floor", None, False, "13a", 4.51688), ("floor", 0.1, False, "13a", 4.51688),
        ("floor", 0.5, False, "13a", 10.10), ("add-k", None, False, "13a", 14.882),
        ("add-k", 1, False, "13a", 14.882), ("add-k", 2, False, "13a", 21.389),
        ("exp", None, False, "none", 7.347), ("exp", None, False, "intl", 8.493),
        ("exp", None, False, "char", 40.8759), ("exp", None, True, "char", 42.0267)]
SENT_ZERO = [("exp", None), ("none", None), ("floor", None), ("floor", 0.1), ("add-k", None), ("add-k", 1)]


@pytest.mark.parametrize("method,value,lc,tok,expected", SENT)
def test_sentence_bleu_compat_and_api(method, value, lc, tok, expected):
    s = sacrebleu.compat.sentence_bleu(SYS, [REF], smooth_method=method, smooth_value=value, tokenize=tok,
                                       lowercase=lc, use_effective_order=True)
    assert abs(s.score - expected) < 1e-3
    m = sacrebleu.metrics.BLEU(lowercase=lc, force=False, tokenize=tok, smooth_method=method, smooth_value=value,
                               effective_order=True)
    assert abs(m.sentence_score(SYS, [REF]).score - expected) < 1e-3


@pytest.mark.parametrize("method,value", SENT_ZERO)
def test_sentence_bleu_zero(method, value):
    m = sacrebleu.metrics.BLEU(tokenize="13a", smooth_method=method, smooth_value=value, effective_order=True)
    assert abs(m.sentence_score("this is a cat", ["okay thanks"]).score) < 1e-3


# ---------------------------------------------------------------------------------------------------
# test_chrf.py
CHRF_SENT = [
    ("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
     ["Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."], 39.14078509),
    ("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
     ["A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."], 31.22557079),
    ("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
     ["Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."], 57.15704367),
]
CHRF_EPS = [
    (["abcdefg"], ["hijklmnop"], 0.0), (["a"], ["b"], 0.0), ([""], ["b"], 0.0), ([""], ["ref"], 0.0),
    ([""], ["reference"], 0.0), (["aa"], ["ab"], 8.3333), (["a", "b"], ["a", "c"], 8.3333), (["a"], ["a"], 16.6667),
    (["a b c"], ["a b c"], 50.0), (["a b c"], ["abc"], 50.0),
    ([" risk assessment must be made of those who are qualified and expertise in the sector - these are the "
      "scientists ."], ["risk assessment has to be undertaken by those who are qualified and expert in that area "
                        "- that is the scientists ."], 63.361730),
    ([" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."], 64.1302698),
    (["Niemand hat die Absicht, eine Mauer zu errichten"], ["Niemand hat die Absicht, eine Mauer zu errichten"], 100.0),
]
CHRF_EFF = [(["a"], ["a"], 100.0), ([""], ["reference"], 0.0), (["a b c"], ["a b c"], 100.0),
            (["a b c"], ["abc"], 100.0), ([""], ["c"], 0.0), (["a", "b"], ["a", "c"], 50.0), (["aa"], ["ab"], 25.0)]
CHRF_WS = [
    (["Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."], 67.3481606),
    (["risk assessment must be made of those who are qualified and expertise in the sector - these are the "
      "scientists ."], ["risk assessment has to be undertaken by those who are qualified and expert in that area - "
                        "that is the scientists ."], 65.2414427),
]


@pytest.mark.parametrize("hyps,refs,expected", CHRF_EPS)
def test_chrf_eps(hyps, refs, expected):
    s = sacrebleu.corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, eps_smoothing=True).score
    assert abs(s - expected) < 1e-4


@pytest.mark.parametrize("hyps,refs,expected", CHRF_EFF)
def test_chrf_effective_order(hyps, refs, expected):
    s = sacrebleu.corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, eps_smoothing=False).score
    assert abs(s - expected) < 1e-4


@pytest.mark.parametrize("hyps,refs,expected", CHRF_WS)
def test_chrf_keep_whitespace(hyps, refs, expected):
    s = sacrebleu.corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, remove_whitespace=False).score
    assert abs(s - expected) < 1e-4


@pytest.mark.parametrize("hyp,refs,expected", CHRF_SENT)
def test_chrf_sentence_level(hyp, refs, expected):
    assert abs(sacrebleu.sentence_chrf(hyp, refs, eps_smoothing=True).score - expected) < 1e-4


# ---------------------------------------------------------------------------------------------------
# test_ter.py and test_tokenizer_ter.py
TER_CASES = [
    (["aaaa bbbb cccc dddd"], ["aaaa bbbb cccc dddd"], 0), (["dddd eeee ffff"], ["aaaa bbbb cccc"], 1),
    ([""], ["a"], 1), (["a"], [""], 1), ([""], [""], 0), (["d e f g h a b c"], ["a b c d e f g h"], 1 / 8),
    ([
        'wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , '
        'damit das Bild ungefähr dieselbe Größe aufweist wie die andere Größe .',
        'wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des '
        'Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "',
        'klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie '
        'Werte für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " ein .',
        'Sie können beispielsweise ein Dokument erstellen , das ein Auto über die Bühne enthält .',
        'wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "',
    ], [
        'wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , '
        'damit die Darstellung des Bildes in einer anderen Größe beibehalten wird .',
        'wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des '
        'Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "',
        'klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie für '
        '" Fehlerkorrektur-Level " und " Y / X-Verhältnis " niedrigere Werte ein .',
        'Sie können beispielsweise ein Dokument erstellen , das ein Auto enthalt , das sich über die Bühne bewegt .',
        'wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "',
    ], 0.136),
]
TOK_DEFAULT = [("a b c d", "a b c d"), ("", ""), ("a b c d.", "a b c d."), ("A B C D.", "a b c d.")]
TOK_NO_PUNCT = [("a b c d.", "a b c d"), ("A ; B ) C : D.", "a b c d")]
TOK_NORM = [("a b (c) d.", "a b ( c ) d ."), ("Jim's car.", "jim 's car ."), ("4.2", "4.2")]
TOK_ASIAN = [("美众院公布对特", "美 众 院 公 布 对 特"), ("りの拳銃を持", "りの 拳 銃 を 持")]


@pytest.mark.parametrize("hyps,refs,expected", TER_CASES)
def test_ter(hyps, refs, expected):
    assert abs(sacrebleu.metrics.TER().corpus_score(hyps, [refs]).score - 100 * expected) < 1e-3


@pytest.mark.parametrize("kw,cases", [({}, TOK_DEFAULT), ({"no_punct": True}, TOK_NO_PUNCT),
                                      ({"normalized": True}, TOK_NORM),
                                      ({"normalized": True, "asian_support": True}, TOK_ASIAN)])
def test_tercom_tokenizer(kw, cases):
    tok = TercomTokenizer(**kw)
    for text, expected in cases:
        assert tok(text) == expected


# ---------------------------------------------------------------------------------------------------
# the installed sacreBLEU as an oracle: identical floats, strings and signatures (but the version)
peer = pytest.importorskip("sacrebleu")


def _real(n=400):
    d = data_path("wmt21")
    def lines(p):
        with open(p, encoding="utf-8") as fh:
            return [ln.rstrip("\n") for ln in fh][:n]
    hyp = lines(d / "system-outputs" / "newstest2021.en-de.hyp.Facebook-AI.de")
    refs = [lines(d / "references" / f"newstest2021.en-de.ref.{x}.de") for x in "ACD"]
    return hyp, refs


def _v(s: str) -> str:
    return s.replace(f"mtscore-{__version__}", peer.__version__)


@pytest.mark.parametrize("cls,kw", [
    ("BLEU", {}), ("BLEU", {"tokenize": "intl", "lowercase": True}), ("BLEU", {"smooth_method": "floor"}),
    ("BLEU", {"smooth_method": "add-k", "smooth_value": 2}), ("BLEU", {"effective_order": True, "tokenize": "char"}),
    ("BLEU", {"max_ngram_order": 2}), ("CHRF", {}), ("CHRF", {"word_order": 2}),
    ("CHRF", {"char_order": 4, "beta": 1, "whitespace": True, "lowercase": True, "eps_smoothing": True}),
    ("TER", {}), ("TER", {"normalized": True, "case_sensitive": True}), ("TER", {"no_punct": True}),
])
def test_same_objects_as_installed_sacrebleu(cls, kw, peer_stats_once):
    hyp, refs = _real(120 if cls == "TER" else 400)  # sacreBLEU's TER is slow: a shorter slice
    for nrefs in (1, 3):
        ours, theirs = getattr(sacrebleu, cls)(**kw), getattr(peer, cls)(**kw)
        a, b = ours.corpus_score(hyp, refs[:nrefs]), theirs.corpus_score(hyp, refs[:nrefs])
        assert {k: v for k, v in vars(a).items()} == {k: v for k, v in vars(b).items()}
        assert _v(str(ours.get_signature())) == str(theirs.get_signature())
        assert _v(ours.get_signature().format(short=True)) == theirs.get_signature().format(short=True)
        for w in (1, 4):
            sig = str(theirs.get_signature())
            assert a.format(w, False, sig, True) == b.format(w, False, sig, True)
        for i in (0, 7, 42):
            sa = ours.sentence_score(hyp[i], [r[i] for r in refs[:nrefs]])
            sb = theirs.sentence_score(hyp[i], [r[i] for r in refs[:nrefs]])
            assert vars(sa) == vars(sb)


def test_bootstrap_ci_identical_and_seed_env(monkeypatch, peer_stats_once):
    for cls in ("BLEU", "CHRF", "TER"):
        hyp, refs = _real(100 if cls == "TER" else 300)
        for seed in (None, "3"):
            if seed is not None:
                monkeypatch.setenv("SACREBLEU_SEED", seed)
            a = getattr(sacrebleu, cls)().corpus_score(hyp, refs[:2], n_bootstrap=60)
            b = getattr(peer, cls)().corpus_score(hyp, refs[:2], n_bootstrap=60)
            assert (a._mean, a._ci) == (b._mean, b._ci)
            monkeypatch.delenv("SACREBLEU_SEED", raising=False)


def test_paired_test_identical():
    from mtscore.sacrebleu.significance import PairedTest
    from sacrebleu.significance import PairedTest as PeerPaired
    d = data_path("wmt21")
    hyp, refs = _real(200)
    with open(d / "system-outputs" / "newstest2021.en-de.hyp.HuaweiTSC.de", encoding="utf-8") as fh:
        hyp2 = [ln.rstrip("\n") for ln in fh][:200]
    for test, n in (("bs", 40), ("ar", 64)):
        ours = PairedTest([("a", hyp), ("b", hyp2)], {"BLEU": sacrebleu.BLEU(references=refs), "CHRF": sacrebleu.CHRF(
            references=refs)}, None, test_type=test, n_samples=n)()
        theirs = PeerPaired([("a", hyp), ("b", hyp2)], {"BLEU": peer.BLEU(references=refs), "CHRF": peer.CHRF(
            references=refs)}, None, test_type=test, n_samples=n)()
        assert {k: _v(str(v)) for k, v in ours[0].items()} == {k: str(v) for k, v in theirs[0].items()}
        for k in theirs[1]:
            if k == "System":
                continue
            assert [vars(x) for x in ours[1][k]] == [vars(x) for x in theirs[1][k]]


def test_stream_major_references_with_missing_entries():
    hyps = ["the cat sat on the mat", "hello there world"]
    refs = [["the cat is on the mat", "hello world"], ["a cat sat on the mat", None]]
    a, b = sacrebleu.corpus_bleu(hyps, refs), peer.corpus_bleu(hyps, refs)
    assert a.score == b.score
    m = sacrebleu.BLEU()
    m.corpus_score(hyps, refs)
    assert "nrefs:var" in str(m.get_signature())


@pytest.mark.parametrize("call,needle", [
    (lambda: sacrebleu.corpus_bleu(["a", "b"], [["a"]]), "stream 1 has 1"),
    (lambda: sacrebleu.corpus_bleu(["a"], ["a"]), "should be a sequence of strings"),
    (lambda: sacrebleu.corpus_bleu("a b", [["a b"]]), "`hyps` should be a sequence of strings"),
    (lambda: sacrebleu.BLEU(smooth_method="expo"), "smooth_method: must be one of: none, floor, add-k, exp, got 'expo'"),
    (lambda: sacrebleu.BLEU(tokenize="moses"), "tokenize: must be one of"),
    (lambda: sacrebleu.BLEU(smooth_value=-1, smooth_method="floor"),
     "smooth_value: must be a finite number in [0, 10^6], got -1"),
    (lambda: sacrebleu.BLEU(max_ngram_order=0), "max_ngram_order: must be an integer in 1..9, got 0"),
    (lambda: sacrebleu.CHRF(char_order=-1), "char_order: must be an integer in 0..30, got -1"),
    (lambda: sacrebleu.CHRF(char_order=0, word_order=0),
     "char_order + word_order: must be at least 1 (one n-gram order is needed), got 0"),
    (lambda: sacrebleu.CHRF(beta=0), "beta: must be a finite number with 0 < x <= 1000, got 0"),
    (lambda: sacrebleu.TER(normalized="yes"), "normalized: must be a boolean"),
    (lambda: sacrebleu.BLEU().corpus_score(["a"], [["a"]], n_bootstrap=2.5), "n_bootstrap: must be an integer"),
    (lambda: sacrebleu.BLEU().corpus_score(["a"], None), "no references given"),
    (lambda: sacrebleu.corpus_bleu(["a"], [[None]]), "segment 1 has no reference"),
])
def test_bad_arguments_one_line_errors(call, needle):
    with pytest.raises(InvalidParameterError) as exc:
        call()
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_module_surface():
    # everything sacreBLEU exports but its test-set download helpers (docs/sacrebleu.md)
    not_offered = {"smart_open", "SACREBLEU_DIR", "download_test_set", "get_source_file", "get_reference_files",
                   "get_available_testsets", "get_langpairs_for_testset", "DATASETS"}
    for name in set(peer.__all__) - not_offered:
        assert hasattr(sacrebleu, name), name
    for name in ("BLEUScore", "CHRFScore", "TERScore", "BLEUSignature", "CHRFSignature", "TERSignature"):
        assert hasattr(sacrebleu.metrics, name) and hasattr(peer.metrics.bleu if "BLEU" in name else
                                                            peer.metrics.chrf if "CHRF" in name else
                                                            peer.metrics.ter, name)
    assert sacrebleu.__version__ == "2.6.0" and sacrebleu.MTSCORE_VERSION == __version__
    assert sacrebleu.compat.corpus_bleu is sacrebleu.corpus_bleu
    assert sacrebleu.BLEU.SMOOTH_DEFAULTS == peer.BLEU.SMOOTH_DEFAULTS


def test_submodules_as_sacrebleu_names_them():
    """``from sacrebleu.metrics.bleu import BLEU`` (fairseq, Hugging Face evaluate), ``sacrebleu.metrics.chrf``,
    ``.ter``, ``.base``, ``.helpers`` and ``sacrebleu.tokenizers.tokenizer_*``: every public name of the installed
    sacreBLEU's modules is there, and the metric classes are the package's own."""
    import importlib
    import pkgutil
    import mtscore.sacrebleu.metrics.bleu as bleu_mod
    from mtscore.sacrebleu.metrics.bleu import BLEU as B
    from mtscore.sacrebleu.metrics.chrf import CHRF as C
    from mtscore.sacrebleu.metrics.ter import TER as T
    from mtscore.sacrebleu.metrics.base import Metric, Score, Signature  # noqa: F401
    assert (B, C, T) == (sacrebleu.BLEU, sacrebleu.CHRF, sacrebleu.TER) and bleu_mod.MAX_NGRAM_ORDER == 4
    for mod in ("bleu", "chrf", "ter", "base", "helpers"):
        ours, theirs = importlib.import_module(f"mtscore.sacrebleu.metrics.{mod}"), \
            importlib.import_module(f"sacrebleu.metrics.{mod}")
        public = {n for n, v in vars(theirs).items() if not n.startswith("_") and getattr(v, "__module__", None)
                  == theirs.__name__}
        assert public and all(hasattr(ours, n) for n in public), (mod, public - set(dir(ours)))
    for info in pkgutil.iter_modules(peer.tokenizers.__path__):
        if info.name.startswith("tokenizer_"):
            ours = importlib.import_module(f"mtscore.sacrebleu.tokenizers.{info.name}")
            theirs = importlib.import_module(f"sacrebleu.tokenizers.{info.name}")
            classes = [n for n, v in vars(theirs).items() if isinstance(v, type) and v.__module__ == theirs.__name__]
            assert all(hasattr(ours, n) for n in classes), (info.name, classes)
    import mtscore.sacrebleu.tokenizers.tokenizer_13a as t13a
    line = "Hello, world! It's 3.5% \"better\"."
    assert t13a.Tokenizer13a()(line) == peer.tokenizers.tokenizer_13a.Tokenizer13a()(line)
    from mtscore.sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp as PeerRegexp
    hyp, _ = _real(200)
    for s in hyp + [line, "1\n.5", "a.\nb", "x,y 1,000 a-b 2-3 {x}"]:
        assert TokenizerRegexp()(s) == PeerRegexp()(s), s
    assert TokenizerRegexp().signature() == PeerRegexp().signature() == "re"


def test_ngram_helpers_equal_sacrebleus_on_real_text():
    """extract_word_ngrams / extract_all_word_ngrams / extract_char_ngrams / extract_all_char_ngrams against the
    installed sacreBLEU's on real lines (with empty and whitespace-only ones), every order and whitespace option."""
    from mtscore.sacrebleu.metrics import helpers as ours
    from sacrebleu.metrics import helpers as theirs
    hyp, refs = _real(60)
    lines = hyp + refs[0][:20] + ["", "   ", "a", "ab  c\td", "x " * 7]
    assert sacrebleu.extract_word_ngrams is ours.extract_word_ngrams
    assert sacrebleu.extract_char_ngrams is ours.extract_char_ngrams
    for line in lines:
        toks = line.split()
        for lo, hi in ((1, 4), (2, 3), (1, 1), (3, 9)):
            assert ours.extract_all_word_ngrams(line, lo, hi) == theirs.extract_all_word_ngrams(line, lo, hi)
        for n in (1, 2, 4, 12):
            assert ours.extract_word_ngrams(toks, n) == theirs.extract_word_ngrams(toks, n)
            for ws in (False, True):
                assert ours.extract_char_ngrams(line, n, ws) == theirs.extract_char_ngrams(line, n, ws)
        for ws in (False, True):
            assert ours.extract_all_char_ngrams(line, 6, ws) == theirs.extract_all_char_ngrams(line, 6, ws)
    # the vector of sacreBLEU's docstring-level behaviour: orders joined by one space, counts
    assert ours.extract_word_ngrams(["a", "b", "a", "b"], 2) == {"a b": 2, "b a": 1}
    assert ours.extract_all_word_ngrams("a b a", 1, 2) == ({("a",): 2, ("b",): 1, ("a", "b"): 1, ("b", "a"): 1}, 3)


_PEER_STATS: dict = {}
# sacreBLEU's TER segment statistics of the inputs below, made by scripts/sacrebleu_peer_ter_stats.py (which runs
# these tests with RECORD_PEER_STATS set: then nothing stored is used and every statistic is sacreBLEU's, live)
KNOWN_TER_STATS = Path(__file__).resolve().parents[1] / "known_answers" / "sacrebleu-ter-segment-stats.json"
RECORD_PEER_STATS = "MTSCORE_TEST_RECORD_PEER_STATS"
_STORED: list = []


def _stored_ter_stats() -> dict:
    """key -> sacreBLEU's statistics, when the stored file was made with the installed sacreBLEU (a missing file
    fails); {} when recording or another sacreBLEU is installed (then sacreBLEU computes them here)."""
    if not _STORED:
        if os.environ.get(RECORD_PEER_STATS):
            _STORED.append({})
        else:
            known = json.loads(KNOWN_TER_STATS.read_text(encoding="utf-8"))
            _STORED.append(known["stats"] if known["sacrebleu"] == peer.__version__ else {})
    return _STORED[0]


@pytest.fixture()
def peer_stats_once(monkeypatch):
    """sacreBLEU's per-segment statistics are a pure function of a metric's class and settings (its signature), the
    hypotheses and the reference strings; its PairedTest recomputes them in every call (TER's: ~2 s of Python per
    system). Computed once per input here and handed back to every later call (the resampling, the test, the score
    objects and the output stay sacreBLEU's). The key is the sha256 of the class, settings, hypotheses and
    reference strings (those given, or those that made the metric's reference cache); sacreBLEU's TER statistics of
    these keys are stored (``KNOWN_TER_STATS``, with sacreBLEU's version): a key not stored is computed live."""
    from sacrebleu.metrics.base import Metric as PeerMetric
    original, original_cache = PeerMetric._extract_corpus_statistics, PeerMetric._cache_references

    def cache(self, references):
        ref_cache = original_cache(self, references)
        self._mtscore_test_refs = (ref_cache, [list(r) for r in references])  # the strings that made ref_cache
        return ref_cache

    def once(self, hypotheses, references):
        if references:
            refs = [list(r) for r in references]
        else:
            made = getattr(self, "_mtscore_test_refs", None)
            refs = made[1] if made is not None and self._ref_cache and made[0] is self._ref_cache else None
        if refs is None:  # (sacreBLEU decides: it raises when there are no references)
            return original(self, hypotheses, references)
        # the settings: the signature (its nrefs may not be known yet: the strings say it) and every plain attribute
        # (the signature leaves out some, e.g. BLEU's max_ngram_order), but what a call sets
        settings = [self._SIGNATURE_TYPE({**self.__dict__, "num_refs": len(refs)}).format(), sorted(
            (k, v) for k, v in vars(self).items() if isinstance(v, (str, int, float, bool, type(None)))
            and k not in ("num_refs", "n_bootstrap", "seed", "_ref_cache"))]
        blob = json.dumps([type(self).__name__, settings, list(hypotheses), refs])
        key = f"{type(self).__name__}:{hashlib.sha256(blob.encode('utf-8')).hexdigest()}"
        if key not in _PEER_STATS:
            stored = _stored_ter_stats().get(key)
            if stored is None:
                _PEER_STATS[key] = original(self, hypotheses, references)
                return [list(x) for x in _PEER_STATS[key]]
            _PEER_STATS[key] = stored
        if references:  # what sacreBLEU's call does besides: its reference cache sets num_refs (the signature's)
            original_cache(self, references)
        return [list(x) for x in _PEER_STATS[key]]
    monkeypatch.setattr(PeerMetric, "_cache_references", cache)
    monkeypatch.setattr(PeerMetric, "_extract_corpus_statistics", once)


@pytest.mark.parametrize("seed", ["12345", "0012", "none"])
def test_paired_ar_with_confidence_identical(seed, monkeypatch, peer_stats_once):
    """``PairedTest(..., test_type='ar', n_ar_confidence=K)``: bootstrap means and intervals in the AR test
    (K=0: 1000 resamples), and the ``bs:K`` signature field, as sacreBLEU computes them -- also in 'bs' mode,
    where sacreBLEU's signature then says bs:K."""
    from mtscore.sacrebleu.significance import PairedTest
    from sacrebleu.significance import PairedTest as PeerPaired
    monkeypatch.setenv("SACREBLEU_SEED", seed)
    d = data_path("wmt21")
    hyp, refs = _real(150)
    systems = [("a", hyp)]
    for name in ("HuaweiTSC", "NVIDIA-NeMo"):
        with open(d / "system-outputs" / f"newstest2021.en-de.hyp.{name}.de", encoding="utf-8") as fh:
            systems.append((name, [ln.rstrip("\n") for ln in fh][:150]))
    for test, n, k in (("ar", 64, 50), ("ar", 32, 0), ("bs", 30, 20), ("ar", 32, -1)):
        ours = PairedTest(systems, {"BLEU": sacrebleu.BLEU(references=refs), "CHRF": sacrebleu.CHRF(
            references=refs), "TER": sacrebleu.TER(references=refs)}, None, test_type=test, n_samples=n,
            n_ar_confidence=k, n_jobs=2)()
        theirs = PeerPaired(systems, {"BLEU": peer.BLEU(references=refs), "CHRF": peer.CHRF(references=refs),
                                      "TER": peer.TER(references=refs)}, None, test_type=test, n_samples=n,
                            n_ar_confidence=k)()
        assert {m: _v(str(v)) for m, v in ours[0].items()} == {m: str(v) for m, v in theirs[0].items()}
        for m in theirs[1]:
            if m == "System":
                assert ours[1][m] == theirs[1][m]
                continue
            a, b = [vars(x) for x in ours[1][m]], [vars(x) for x in theirs[1][m]]
            if seed == "none":  # unseeded: the same fields only
                assert [sorted(k for k, v in x.items() if v is not None) for x in a] == \
                    [sorted(k for k, v in x.items() if v is not None) for x in b]
            else:
                assert a == b, (test, k, m)
        if k != -1 and seed != "none":
            assert all(x.mean is not None for x in ours[1]["BLEU"])


@pytest.mark.parametrize("kw,needle", [
    ({"n_ar_confidence": -2}, "n_ar_confidence: must be an integer in -1..10^7, got -2"),
    ({"n_ar_confidence": 2.5}, "n_ar_confidence: must be an integer in -1..10^7, got 2.5"),
    ({"n_jobs": -1}, "n_jobs: must be an integer in 0..1024, got -1"),
])
def test_paired_test_bad_arguments(kw, needle):
    from mtscore.sacrebleu.significance import PairedTest
    with pytest.raises(InvalidParameterError) as exc:
        PairedTest([("a", ["x"]), ("b", ["y"])], {"BLEU": sacrebleu.BLEU(references=[["x"]])}, None, **kw)
    assert str(exc.value) == needle


def test_api_arguments_checked_by_the_parameter_table():
    """Every argument of mtscore.sacrebleu's table (params.SACREBLEU_API) is checked there: a bad value gets
    params.message(name, rule, value), the one template."""
    from mtscore.params import SACREBLEU_API, message
    from mtscore.sacrebleu.significance import PairedTest
    makers = {"BLEU": ("lowercase", "force", "effective_order", "max_ngram_order", "smooth_value"),
              "CHRF": ("lowercase", "whitespace", "eps_smoothing", "char_order", "word_order", "beta"),
              "TER": ("normalized", "no_punct", "asian_support", "case_sensitive")}
    seen = set()
    for cls, names in makers.items():
        for name in names:
            p = SACREBLEU_API[name]
            bad = "yes" if p.kind == "bool" else (p.hi + 1 if p.kind == "int" else -1.0)
            with pytest.raises(InvalidParameterError) as exc:
                getattr(sacrebleu, cls)(**{name: bad})
            assert str(exc.value) == message(name, p.rule(), bad)
            seen.add(name)
    for name in ("n_samples", "n_ar_confidence", "n_jobs"):
        p = SACREBLEU_API[name]
        with pytest.raises(InvalidParameterError) as exc:
            PairedTest([("a", ["x"]), ("b", ["y"])], {"BLEU": sacrebleu.BLEU(references=[["x"]])}, None,
                       **{name: p.hi + 1})
        assert str(exc.value) == message(name, p.rule(), p.hi + 1)
        seen.add(name)
    with pytest.raises(InvalidParameterError) as exc:
        sacrebleu.BLEU().corpus_score(["a"], [["a"]], n_bootstrap="9")
    assert str(exc.value) == message("n_bootstrap", SACREBLEU_API["n_bootstrap"].rule(), "9")
    assert seen | {"n_bootstrap"} == set(SACREBLEU_API)
