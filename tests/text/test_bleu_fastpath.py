"""The compiled BLEU path (text/fast.py) against the plain path and a plain-Python Counter oracle.

Oracle: sacreBLEU's own tokenizers (a peer implementation, test-only) + ``str.split`` +
``collections.Counter`` n-gram counting with per-n-gram max over references, written out here.
Both implementations are tested: the C extension (``mtscore._ckernel``, the default; also with several
threads) and the plain Python/NumPy reference path that runs without it (``MTSCORE_KERNELS=reference``).
"""
from __future__ import annotations

import os
from collections import Counter
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtscore.io import read_lines
from mtscore.metrics.bleu import BLEU, BLEUSBP
from mtscore.text import fast as fastmod
from mtscore.text.fast import bleu_statistics_fast, bleu_statistics_strings, encode_corpus

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402

from conftest import data_path  # noqa: E402

_TOK13A = Tokenizer13a()
BACKENDS = ("c", "reference")


@contextmanager
def kernels(backend: str | None = None, threads: int | None = None):
    """Run BLEU's fast engine on one kernel implementation / thread count."""
    env = {}
    if backend:
        env["MTSCORE_KERNELS"] = backend
    if threads:
        env["MTSCORE_THREADS"] = str(threads)
    with mock.patch.dict(os.environ, env):
        yield


def test_c_extension_is_built():
    """CI installs with a C compiler: the compiled kernels must be there and be the default."""
    assert fastmod._ckernel is not None, "mtscore._ckernel was not built (pip install needs a C compiler)"
    assert fastmod.kernel_backend() == "c"
    with kernels("reference"):
        assert fastmod.kernel_backend() == "reference"

# ---------------------------------------------------------------------------------------------------
# oracle


def _oracle_tokens(line: str, lowercase: bool | str) -> list[str]:
    if lowercase == "ascii":
        line = "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in line)
    elif lowercase:
        line = line.lower()
    return _TOK13A(line.rstrip()).split()


def _ngrams(toks, n):
    return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))


def oracle_stats(hyps, refs, max_order=4, ref_length="closest", lowercase=False, strict=False):
    rows = []
    for hyp, seg_refs in zip(hyps, refs):
        h = _oracle_tokens(hyp, lowercase)
        rs = [_oracle_tokens(r, lowercase) for r in seg_refs]
        lens = [len(r) for r in rs]
        if ref_length == "closest":
            ref_len = min(lens, key=lambda x: (abs(x - len(h)), x))
        elif ref_length == "shortest":
            ref_len = min(lens)
        else:
            ref_len = sum(lens) / len(lens)
        matches, totals = [], []
        for n in range(1, max_order + 1):
            hc = _ngrams(h, n)
            maxref: Counter = Counter()
            for r in rs:
                for g, c in _ngrams(r, n).items():
                    maxref[g] = max(maxref[g], c)
            matches.append(sum(min(c, maxref[g]) for g, c in hc.items()))
            totals.append(max(0, len(h) - n + 1))
        row = [len(h), ref_len] + matches + totals
        if strict:
            row.append(min(len(h), ref_len))
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(len(hyps), -1)


# ---------------------------------------------------------------------------------------------------
# random corpora with the characters the 13a rules care about

_PIECES = [
    "a", "b", "A", "B", "the", "The", "x", "é", "Ü", "ß", "İ", "東", "—", "“", "”", "…", "€", "😀", "\U0001d400",
    "0", "1", "9", "3.14", "1,000", "5-6", "x-1",
    ".", ",", "-", "'", "..", ",.", ".,", "-.", ".-",
    "&", ";", "<", ">", "(", ")", "/", "\\", "\"", "!", "?", "$", "%", "@", "[", "]", "{", "}", "~", "^", "_", "`",
    "|", "*", "+", "=", ":", "#",
    "&amp;", "&lt;", "&gt;", "&quot;", "&amp;lt;", "&AMP;", "<skipped>", "<SKIPPED>", "<skip<skipped>ped>",
    " ", " ", " ", "  ", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u1680", "\u2000",
    "\u200a", "\u200b", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\x00",
]

segment_text = st.lists(st.sampled_from(_PIECES), max_size=14).map("".join)
corpus = st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(segment_text, min_size=n, max_size=n),
    st.lists(st.lists(segment_text, min_size=1, max_size=3), min_size=n, max_size=n)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(segment_text, min_size=1, max_size=8), lower=st.sampled_from([False, True, "ascii"]))
def test_tokens_identical_to_sacrebleu_13a(lines, lower):
    """Every token the kernel produces is exactly sacreBLEU's 13a token (same sequence, bijective ids)."""
    encs = [encode_corpus(lines, "13a", lowercase=lower is True, ascii_lowercase=lower == "ascii", backend=b)
            for b in BACKENDS]
    assert encs[0] is not None and encs[1] is not None
    for a, b in zip(encs[0], encs[1]):  # C and reference: identical ids
        np.testing.assert_array_equal(a, b)
    split = [encode_corpus(lines, "none", ascii_lowercase=lower == "ascii", backend=b) for b in BACKENDS]
    for a, b in zip(split[0], split[1]):  # whitespace split only ("none"): identical too
        np.testing.assert_array_equal(a, b)
    ids, offsets, n_types = encs[0]
    seen: dict[int, str] = {}
    for i, line in enumerate(lines):
        toks = _oracle_tokens(line, lower)
        row = ids[offsets[i]:offsets[i + 1]].tolist()
        assert len(row) == len(toks), (line, toks)
        for t, s in zip(row, toks):
            assert seen.setdefault(t, s) == s
    assert len(set(seen.values())) == len(seen) == n_types


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=corpus, ref_length=st.sampled_from(["closest", "shortest", "average"]),
       lowercase=st.booleans(), order=st.sampled_from([1, 2, 4, 6]))
def test_fast_equals_plain_equals_oracle(data, ref_length, lowercase, order):
    hyps, refs = data
    fast = BLEU(ref_length=ref_length, lowercase=lowercase, max_order=order).stats(hyps, refs).values
    plain = BLEU(ref_length=ref_length, lowercase=lowercase, max_order=order, engine="plain").stats(hyps, refs).values
    oracle = oracle_stats(hyps, refs, order, ref_length, lowercase)
    np.testing.assert_array_equal(fast, oracle)
    np.testing.assert_array_equal(plain, oracle)
    for backend, threads in (("reference", None), ("c", 3)):
        with kernels(backend, threads):
            other = BLEU(ref_length=ref_length, lowercase=lowercase, max_order=order).stats(hyps, refs).values
        np.testing.assert_array_equal(other, oracle)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=corpus, ref_length=st.sampled_from(["closest", "shortest", "average"]))
def test_sbp_and_mteval_ascii_lowercase(data, ref_length):
    hyps, refs = data
    for cls, kw in ((BLEUSBP, {}), (BLEU, {"compat": "mteval-v13a"}), (BLEU, {"compat": "mteval-v11b"})):
        fast = cls(ref_length=ref_length, **kw).stats(hyps, refs).values
        plain = cls(ref_length=ref_length, engine="plain", **kw).stats(hyps, refs).values
        np.testing.assert_array_equal(fast, plain)
        with kernels("reference"):
            np.testing.assert_array_equal(cls(ref_length=ref_length, **kw).stats(hyps, refs).values, plain)
    oracle = oracle_stats(hyps, refs, 4, ref_length, "ascii")
    np.testing.assert_array_equal(BLEU(ref_length=ref_length, compat="mteval-v13a").stats(hyps, refs).values, oracle)
    np.testing.assert_array_equal(BLEUSBP(ref_length=ref_length).stats(hyps, refs).values,
                                  oracle_stats(hyps, refs, 4, ref_length, False, strict=True))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=corpus, tok=st.sampled_from(["intl", "zh", "zh-fixed", "char", "none"]), lowercase=st.booleans())
def test_other_tokenizers_fast_equals_plain(data, tok, lowercase):
    hyps, refs = data
    fast = BLEU(tokenize=tok, lowercase=lowercase).stats(hyps, refs).values
    plain = BLEU(tokenize=tok, lowercase=lowercase, engine="plain").stats(hyps, refs).values
    np.testing.assert_array_equal(fast, plain)
    with kernels("reference"):
        np.testing.assert_array_equal(BLEU(tokenize=tok, lowercase=lowercase).stats(hyps, refs).values, plain)


def test_many_types_and_long_tokens():
    """Forces table growth/rehash, arena growth and > 8-byte tokens sharing their first 8 bytes."""
    rng = np.random.default_rng(0)
    words = [f"prefix12{i}" for i in range(30000)] + [f"w{i}" for i in range(3000)]
    hyps = [" ".join(words[j] for j in rng.integers(0, len(words), 30)) for _ in range(400)]
    refs = [[" ".join(words[j] for j in rng.integers(0, len(words), 30)) + " " + h[:40]] for h in hyps]
    refs[3].append("x" * 100000)  # one very long line
    np.testing.assert_array_equal(BLEU().stats(hyps, refs).values, oracle_stats(hyps, refs))
    lines = hyps + [r for seg in refs for r in seg]
    toks = [t for ln in lines for t in _TOK13A(ln).split()]
    first: dict[str, int] = {}
    expected = [first.setdefault(t, len(first)) for t in toks]
    ref_starts = np.cumsum([0] + [len(seg) for seg in refs])
    for backend in BACKENDS:
        ids, offsets, n_types = encode_corpus(lines, backend=backend)
        assert n_types == len(set(toks))
        assert ids.tolist() == expected
    stats = bleu_statistics_fast(ids, offsets, len(hyps), ref_starts, 4, "closest", backend="c")
    np.testing.assert_array_equal(stats, oracle_stats(hyps, refs))
    # the reference backend counts in BLEU's plain path (metrics.bleu.bleu_statistics), not here
    assert bleu_statistics_fast(ids, offsets, len(hyps), ref_starts, 4, "closest", backend="reference") is None
    with kernels("reference"):
        np.testing.assert_array_equal(BLEU().stats(hyps, refs).values, stats)


def test_long_segments_and_threads():
    """Segments too long for the direct n-gram index of the C kernel (its hash-table path), with
    repeated n-grams, and every thread count: identical to the oracle and to the reference path."""
    rng = np.random.default_rng(1)
    vocab = [f"t{i}" for i in range(900)] + ["&amp;", "3.5", "a-b", "x,y", "Ü", "東京", "😀"]
    hyps, refs = [], []
    for k in range(30):
        n = int(rng.integers(300, 1200)) if k % 3 == 0 else int(rng.integers(0, 40))
        h = [vocab[j] for j in rng.integers(0, len(vocab), n)]
        hyps.append(" ".join(h))
        refs.append([" ".join(h[: n // 2] + [vocab[j] for j in rng.integers(0, len(vocab), n // 2)] + h[n // 3:])
                     for _ in range(1 + k % 3)])
    oracle = oracle_stats(hyps, refs, strict=True)
    for threads in (1, 2, 7, 64):
        got = bleu_statistics_strings(hyps, refs, 4, "closest", strict=True, threads=threads)
        np.testing.assert_array_equal(got, oracle)
    with kernels("reference"):
        np.testing.assert_array_equal(BLEUSBP(ref_length="closest").stats(hyps, refs).values, oracle)


def test_wide_strings_with_entities():
    """Rows whose UTF-8 form is 2-4 bytes per character and that 13a steps 1-2 rewrite (the C kernel keeps
    both the encoded row and its rewritten copy for the whole segment), next to short rows."""
    hyps = ["😀" * 300 + " &amp;lt; &quot;" + "😀😀 x" * 50, "Ü&amp;Ü" * 200, "東京 &lt;skipped&gt; " * 100, "a", ""]
    refs = [["b"], ["Üx"], ["東京 <skipped>"], ["a &amp; 😀" * 100, "c"], ["", "d"]]
    oracle = oracle_stats(hyps, refs)
    np.testing.assert_array_equal(bleu_statistics_strings(hyps, refs, 4, "closest", threads=2), oracle)
    with kernels("reference"):
        np.testing.assert_array_equal(BLEU().stats(hyps, refs).values, oracle)


def test_thread_settings():
    from mtscore.errors import InvalidParameterError

    hyps, refs = ["a b c"] * 10, [["a b d"]] * 10
    for bad in ("0", "-2", "many"):
        with kernels(threads=None), mock.patch.dict(os.environ, {"MTSCORE_THREADS": bad}):
            with pytest.raises(InvalidParameterError, match="MTSCORE_THREADS"):
                BLEU().stats(hyps, refs)
    with pytest.raises(InvalidParameterError, match="threads"):
        bleu_statistics_strings(hyps, refs, 4, "closest", threads=0)
    with mock.patch.dict(os.environ, {"MTSCORE_KERNELS": "gpu"}):
        with pytest.raises(InvalidParameterError, match="MTSCORE_KERNELS"):
            BLEU().stats(hyps, refs)
    with mock.patch.dict(os.environ, {"MTSCORE_KERNELS": "numba"}):  # removed: the message names the replacement
        with pytest.raises(InvalidParameterError, match="MTSCORE_KERNELS=reference"):
            BLEU().stats(hyps, refs)
    assert fastmod._threads(None, 100) == 1  # auto: one thread per 4,096 segments at most
    assert 1 <= fastmod._threads(None, 10**6) <= min(8, fastmod.available_cores())
    with fastmod.kernel_threads(3):
        assert fastmod._threads(None, 10) == 3
    assert fastmod._threads(None, 10) == 1


@pytest.mark.parametrize("hyps, refs", [
    (["a b-\nc d", "plain line ."], [["a bc d"], ["plain line ."]]),  # an embedded newline (API input only)
    (["x \ud800 y", "plain line ."], [["x \ud800 y z"], ["plain line ."]]),  # a lone surrogate
    (["plain line .", "x y"], [["plain line ."], ["x \udfff y z"]]),
])
def test_fallbacks_give_plain_results(hyps, refs):
    """What the compiled kernels do not handle takes the plain path, with the plain path's results."""
    assert bleu_statistics_strings(hyps, refs, 4, "closest") is None
    assert encode_corpus(hyps + [r for seg in refs for r in seg]) is None
    np.testing.assert_array_equal(BLEU().stats(hyps, refs).values,
                                  BLEU(engine="plain").stats(hyps, refs).values)


def test_empty_inputs():
    st_ = BLEU().stats(["", "a"], [["", ""], ["a", ""]]).values
    np.testing.assert_array_equal(st_, oracle_stats(["", "a"], [["", ""], ["a", ""]]))
    assert BLEU().stats([], []).values.shape == (0, 10)


def test_engine_validated():
    from mtscore.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="engine"):
        BLEU(engine="turbo")


# ---------------------------------------------------------------------------------------------------
# real data


def _wmt21(lp, refs_letters, system):
    root = data_path("wmt21")
    tgt = lp.split("-")[1]
    hyps = read_lines(root / "system-outputs" / f"newstest2021.{lp}.hyp.{system}.{tgt}")
    streams = [read_lines(root / "references" / f"newstest2021.{lp}.ref.{x}.{tgt}") for x in refs_letters]
    return hyps, streams


@pytest.mark.parametrize("ref_length", ["closest", "shortest", "average"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_wmt21_en_de_three_refs(ref_length, lowercase):
    hyps, streams = _wmt21("en-de", "ACD", "Facebook-AI")
    refs = [list(x) for x in zip(*streams)]
    fast = BLEU(ref_length=ref_length, lowercase=lowercase).stats(hyps, refs)
    plain = BLEU(ref_length=ref_length, lowercase=lowercase, engine="plain").stats(hyps, refs)
    np.testing.assert_array_equal(fast.values, plain.values)
    if ref_length == "closest":
        sb = sacrebleu.BLEU(lowercase=lowercase).corpus_score(hyps, streams)
        assert abs(BLEU(lowercase=lowercase).corpus_from_stats(fast).score - sb.score) < 1e-9
        if lowercase:  # sentence BLEU, every segment, against sacreBLEU
            sbs = sacrebleu.BLEU(lowercase=True, effective_order=True)
            ours = BLEU(lowercase=True).sentence_scores(fast)
            for i in range(0, len(hyps), 7):
                assert abs(ours[i] - sbs.sentence_score(hyps[i], refs[i]).score) < 1e-9


def test_wmt21_en_zh_tok_zh():
    hyps, streams = _wmt21("en-zh", "AB", "NiuTrans")
    refs = [list(x) for x in zip(*streams)]
    fast = BLEU(tokenize="zh").stats(hyps, refs)
    np.testing.assert_array_equal(fast.values, BLEU(tokenize="zh", engine="plain").stats(hyps, refs).values)
    sb = sacrebleu.BLEU(tokenize="zh").corpus_score(hyps, streams)
    assert abs(BLEU(tokenize="zh").corpus_from_stats(fast).score - sb.score) < 1e-9


@pytest.mark.parametrize("lp", ["zh-en", "en-de"])
def test_wmt23_all_systems(lp):
    root = data_path("wmt23")
    ref = read_lines(root / "references" / f"{lp}.refA.txt")
    refs = [[r] for r in ref]
    systems = sorted((root / "system-outputs" / lp).glob("*.txt"))[:3]
    for k, path in enumerate(systems):
        hyps = read_lines(path)
        rl = ("closest", "shortest", "average")[k % 3]
        fast = BLEU(ref_length=rl).stats(hyps, refs).values
        np.testing.assert_array_equal(fast, BLEU(ref_length=rl, engine="plain").stats(hyps, refs).values)
        sb = sacrebleu.BLEU().corpus_score(hyps, [ref])
        assert abs(BLEU().corpus(hyps, refs).score - sb.score) < 1e-9, path.name
