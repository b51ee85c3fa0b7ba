"""Tokenizers are identical to sacreBLEU 2.6's on every line of the real data and on tricky strings."""
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from mtscore.io import read_lines
from mtscore.tokenize import TOKENIZERS, get_tokenizer, tokenize_corpus
from mtscore.errors import InvalidParameterError
from conftest import DATA, data_path

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International  # noqa: E402
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh  # noqa: E402
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar  # noqa: E402

PEERS = {"13a": Tokenizer13a(), "intl": TokenizerV14International(), "zh": TokenizerZh(), "char": TokenizerChar()}


def test_spec_examples():
    s = "Hello, world! It's 3.14 and 1,000 (approx.) in 2019."
    assert get_tokenizer("13a")(s) == "Hello , world ! It's 3.14 and 1,000 ( approx . ) in 2019 ."
    assert get_tokenizer("intl")(s) == "Hello , world ! It ' s 3.14 and 1,000 ( approx . ) in 2019."
    assert get_tokenizer("13a")("5-6pm") == "5 - 6pm"
    assert get_tokenizer("13a")("x-1 e-mail") == "x-1 e-mail"
    assert get_tokenizer("13a")("“quote” — ok…") == "“quote” — ok…"
    assert get_tokenizer("intl")("我爱北京。Hello, 世界!") == "我爱北京 。 Hello , 世界 !"
    assert get_tokenizer("zh")("Dr. Smith's “quote” — ok…") == "Dr . Smith's “ quote ” — ok …"
    assert get_tokenizer("13a")("a &amp;lt; b &quot;c&quot; <skipped>") == 'a < b " c "'


def test_zh_quirk_and_fixed_ranges():
    # U+2014 EM DASH is "Chinese" under sacreBLEU's range quirk, not under the fixed ranges.
    assert get_tokenizer("zh")("a—b") == "a — b"
    assert get_tokenizer("zh-fixed")("a—b") == "a—b"
    # An Extension-B ideograph is never split by the quirky table but is by the fixed one.
    assert get_tokenizer("zh")("x\U00020001y") == "x\U00020001y"
    assert get_tokenizer("zh-fixed")("x\U00020001y") == "x \U00020001 y"


def test_zh_quirk_matches_sacrebleu_on_every_bmp_char():
    ours = get_tokenizer("zh")
    peer = PEERS["zh"]
    for cp in range(0x20, 0x10000, 7):
        ch = chr(cp)
        if 0xD800 <= cp <= 0xDFFF:
            continue
        line = f"a{ch}b"
        assert ours(line) == peer(line), hex(cp)


def _post_13a_by_substitution(text):
    from mtscore.tokenize import _rules
    text = _rules._RE_SYMBOLS.sub(r" \1 ", text)
    text = _rules._RE_PERIOD_COMMA_AFTER.sub(r"\1 \2 ", text)
    text = _rules._RE_PERIOD_COMMA_BEFORE.sub(r" \1 \2", text)
    return _rules._RE_DASH.sub(r"\1 \2 ", text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("a1 .,-(\n\t") + ["中", "。", "\u3000"]), max_size=30).map("".join))
def test_post_13a_split_form_is_the_four_substitutions(text):
    """The regular-expression path runs the 13a substitutions as split + join (a scan in C, no Python call per
    match); the result is the string the four re.sub calls give, spaces included."""
    from mtscore.tokenize import _rules
    assert _rules._post_13a(text) == _post_13a_by_substitution(text)
    assert _rules._spaced_zh(text, "zh") == _rules._re_zh("zh").sub(r" \1 ", text)


def test_unknown_tokenizer_lists_valid_names():
    with pytest.raises(InvalidParameterError, match="13a.*intl"):
        get_tokenizer("moses")


KNOWN = Path(__file__).resolve().parents[1] / "known_answers" / "sacrebleu-tokenized-real-data.json"


def _real_files():
    root, root21 = data_path("wmt23"), data_path("wmt21")
    files = sorted((root / "references").glob("*.txt")) + sorted((root / "sources").glob("*.txt"))
    files += sorted((root / "system-outputs").glob("*/*.txt"))
    files += sorted((root21 / "references").iterdir()) + sorted((root21 / "sources").iterdir())
    files += sorted((root21 / "system-outputs").iterdir())
    return files


def _real_lines():
    lines = []
    for f in _real_files():
        lines += read_lines(f)
    return lines


@pytest.fixture(scope="module")
def real_lines():
    return _real_lines()


@pytest.fixture(scope="module")
def known_peer_digests():
    """sacreBLEU 2.6.0's tokenization of these very files, as sha256 per tokenizer and case (made by
    scripts/sacrebleu_tokenized_hashes.py; a missing file fails). None when the data folder holds other files or
    another sacreBLEU is installed: then sacreBLEU runs here."""
    known = json.loads(KNOWN.read_text(encoding="utf-8"))
    if known["sacrebleu"] != sacrebleu.__version__:  # another sacreBLEU than the one that made them: run it
        return None
    root = DATA
    files = {str(f.relative_to(root)): hashlib.sha256(f.read_bytes()).hexdigest() for f in _real_files()}
    return known["tokenized"] if files == known["files"] else None


def _digest(lines) -> str:
    h = hashlib.sha256()
    for x in lines:
        h.update(x.encode("utf-8") + b"\n")
    return h.hexdigest()


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_identical_to_sacrebleu_on_real_data(real_lines, known_peer_digests, name, lowercase):
    """Every line of the real data (170k lines) tokenized as sacreBLEU 2.6 tokenizes it. sacreBLEU's own output is
    known by its digest for these files; sacreBLEU runs here (and the first differing lines are shown) when the
    digest or the data differ."""
    got = tokenize_corpus(real_lines, name, lowercase=lowercase)
    assert len(got) == len(real_lines)
    if known_peer_digests is not None and _digest(got) == known_peer_digests[f"{name}:{'lc' if lowercase else 'mixed'}"]:
        return
    peer = PEERS[name]
    expected = [peer((ln.lower() if lowercase else ln).rstrip()) for ln in real_lines]
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(got, expected)) if a != b]
    assert not bad, bad[:3]
    assert known_peer_digests is None, "sacreBLEU gives these lines, but not the stored digest: remake " \
        "tests/known_answers/sacrebleu-tokenized-real-data.json (scripts/sacrebleu_tokenized_hashes.py)"


@pytest.mark.parametrize("name", ["13a", "zh"])
def test_reference_path_identical_to_the_compiled_one_on_real_data(real_lines, name):
    """13a and zh run in the compiled kernel by default (the test above checks it against sacreBLEU on every
    line); the regular-expression path (--kernels reference, or no C compiler at install time) gives the same
    lines on every line of the real data."""
    from mtscore.text.fast import _ckernel, kernel_choice
    if _ckernel is None:
        pytest.fail("the compiled extension is not built: the test suite expects it (pip install -e '.[test]')")
    with kernel_choice("c"):
        compiled = tokenize_corpus(real_lines, name)
    with kernel_choice("reference"):
        reference = tokenize_corpus(real_lines, name)
    assert len(compiled) == len(reference) == len(real_lines)
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(compiled, reference)) if a != b]
    assert not bad, bad[:3]


def test_compiled_tokenizer_edges():
    """The kernel's contract: exactly n_lines lines or None; empty lines stay lines; text it cannot encode (a lone
    surrogate) takes the regular-expression path."""
    from mtscore.text.fast import _ckernel
    if _ckernel is None:
        pytest.fail("the compiled extension is not built: the test suite expects it (pip install -e '.[test]')")
    assert _ckernel.tokenize(b"", 0, True, True) == b""
    assert _ckernel.tokenize(b"a", 0, True, True) is None
    assert _ckernel.tokenize(b"a\nb", 1, True, True) is None and _ckernel.tokenize(b"a", 2, True, True) is None
    assert _ckernel.tokenize(b"\n(x)\n", 3, True, True) == b"\n( x )\n"
    assert _ckernel.tokenize(b".5 x.", 1, False, False) == b".5 x ."  # zh: no padding, ".5" keeps its dot
    assert _ckernel.tokenize(b".5 x.", 1, True, True) == b". 5 x ."  # 13a pads the line: " .5" splits
    lines = ["a\udc80b, c.", "", "x(y)"]
    assert tokenize_corpus(lines, "13a") == [PEERS["13a"](ln) for ln in lines]


TRICKY = st.lists(st.sampled_from(list("aZ09 .,-'\"&;<>()[]{}$%/\\:?!_~`|^@#*+=\t") +
                                          ["&amp;", "&lt;", "&quot;", "<skipped>", "é", "—", "“", "”", "。", "中",
                                           "\u00a0", "\u3000", "\x85", "\u2028", "\r", "½", "€", "٣"]),
                  max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, max_size=6))
def test_corpus_path_equals_line_path_and_sacrebleu(lines):
    for name in ("13a", "intl", "zh", "char"):
        per_line = [PEERS[name](ln.rstrip()) for ln in lines]
        assert tokenize_corpus(lines, name) == per_line
        assert [get_tokenizer(name)(ln.rstrip()) for ln in lines] == per_line
