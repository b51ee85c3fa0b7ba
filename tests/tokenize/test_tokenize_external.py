"""ja-mecab, ko-mecab and the SentencePiece tokenizers equal sacreBLEU 2.6's (its tokenizer classes are the
oracle), on real text; ja-mecab / char BLEU equal the numbers stored in ../shared/data/wmt23-en-ja.

Runs in about 10 s (MeCab over 17 x 2074 lines; a 2000-piece SentencePiece model trained on 2250 lines)."""
import csv
import json
import sys
from pathlib import Path

import pytest

from mtscore import BLEU
from mtscore.cli.main import main
from mtscore.errors import InputError, InvalidParameterError, OptionalDependencyError
from mtscore.io import read_lines
from mtscore.tokenize import check_tokenizer, get_tokenizer, tokenize_corpus, tokenizer_signature
from mtscore.tokenize import external
from conftest import data_path

sacrebleu = pytest.importorskip("sacrebleu")

TESTS = Path(__file__).resolve().parents[1]


def _raw_lines(path):
    """Lines as sacreBLEU's CLI reads them (a byte-order mark stays part of line 1)."""
    with open(path, encoding="utf-8", newline="\n") as fh:
        return [ln.rstrip() for ln in fh]


def _en_ja():
    root = data_path("wmt23-en-ja")
    ref = root / "generaltest2023.en-ja.ref.refA.ja"
    systems = {p.name.split(".hyp.")[1][:-3]: p for p in sorted((root / "system-outputs").glob("*.ja"))}
    return root, ref, systems


# --- ja-mecab ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ja_peer():
    pytest.importorskip("MeCab")
    from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab
    return TokenizerJaMecab()


def test_ja_mecab_tokens_equal_sacrebleu_on_every_line(ja_peer):
    root, ref, systems = _en_ja()
    lines = []
    for p in [ref, *systems.values()]:
        lines += _raw_lines(p) + read_lines(p)  # with and without a leading byte-order mark
    assert len(lines) > 17 * 2074
    expected = [ja_peer(ln.rstrip()) for ln in lines]
    got = tokenize_corpus(lines, "ja-mecab")
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(got, expected)) if a != b]
    assert not bad, bad[:3]
    assert len(got) == len(expected)
    line = get_tokenizer("ja-mecab")
    assert [line(ln.rstrip()) for ln in lines[:300]] == expected[:300]
    low = [ln for ln in lines[:2074]]
    assert tokenize_corpus(low, "ja-mecab", lowercase=True) == [ja_peer(ln.lower().rstrip()) for ln in low]


def _stored_scores(root):
    with open(root / "sacrebleu-2.6-scores.tsv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    return {r[0]: r[1:] for r in rows[1:]}


def test_ja_mecab_and_char_bleu_equal_stored_sacrebleu_scores(ja_peer):
    root, ref, systems = _en_ja()
    stored = _stored_scores(root)
    refs = [[r] for r in _raw_lines(ref)]
    ja, char = BLEU(tokenize="ja-mecab"), BLEU(tokenize="char")
    for name, path in systems.items():
        hyps = _raw_lines(path)
        r = ja.corpus(hyps, refs)
        assert f"{r.score:.10f}" == stored[name][0], name
        assert "|tok:ja-mecab-0.996-IPA|" in r.signature
        assert f"{char.corpus(hyps, refs).score:.10f}" == stored[name][1], name
    assert len(systems) == len(stored) == 16


def test_char_reproduces_published_en_ja_bleu():
    """WMT23 printed its en-ja BLEU as ja-mecab, but the numbers are sacreBLEU's tok:char (docs/tokenizers.md)."""
    root, ref, systems = _en_ja()
    published = {}
    with open(root / "automatic-scores.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["metric"] == "bleu-refA":
                published[row["system"]] = float(row["score"])
    refs = [[r] for r in _raw_lines(ref)]
    bleu = BLEU(tokenize="char")
    checked = 0
    for name, value in published.items():
        if name in systems:
            assert bleu.corpus(_raw_lines(systems[name]), refs).score == value, name  # every digit
            checked += 1
    assert checked >= 10


def test_ja_mecab_cli_and_every_token_metric(ja_peer, tmp_path, capsys):
    root, ref, systems = _en_ja()
    stored = _stored_scores(root)
    names = ["ONLINE-Y", "GPT4-5shot"]  # files without a byte-order mark
    args = ["score", "-r", str(ref), "-i", *[str(systems[n]) for n in names], "--tokenize", "ja-mecab",
            "-m", "bleu", "nist", "wer", "4-grr", "-f", "json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    # the file names less what all share and means nothing (the folder, the extension .ja); the paths stay in "results"
    assert [r["system"] for r in out["rows"]] == [systems[n].name.rsplit(".", 1)[0] for n in names]
    assert [r["path"] for r in out["results"]] == [str(systems[n]) for n in names]
    for name, row in zip(names, out["rows"]):
        assert f"{row['BLEU']:.10f}" == stored[name][0], name
        for m in ("NIST", "WER", "4-GRR"):
            assert isinstance(row[m], float)
    assert all("tok:ja-mecab-0.996-IPA" in n for n in out["notes"] if "|" in n), out["notes"]


# --- ko-mecab -----------------------------------------------------------------------------------------
def test_ko_mecab_tokens_equal_sacrebleu():
    pytest.importorskip("mecab_ko")
    from sacrebleu.tokenizers.tokenizer_ko_mecab import TokenizerKoMecab
    peer = TokenizerKoMecab()
    lines = read_lines(TESTS / "fixtures" / "korean" / "cpython-cjkencodings.ko.txt")
    try:  # the Korean lines that occur in ../shared/data (a WMT23 system output), when it is there
        for p in [data_path("wmt23", "system-outputs", "zh-en", "ANVITA.txt"),
                  data_path("wmt23-en-ja", "system-outputs", "generaltest2023.en-ja.hyp.NLLB_MBR_BLEU.ja")]:
            lines += [ln for ln in read_lines(p) if any("\uac00" <= c <= "\ud7af" for c in ln)]
    except pytest.skip.Exception:
        pass
    lines += [ln.lower() + "  " for ln in lines]
    assert sum(1 for ln in lines if ln.strip()) >= 20
    assert tokenize_corpus(lines, "ko-mecab") == [peer(ln.rstrip()) for ln in lines]
    assert tokenizer_signature("ko-mecab") == peer.signature()
    r = BLEU(tokenize="ko-mecab").corpus(lines[:5], [[x] for x in lines[5:10]])
    assert "|tok:" + peer.signature() + "|" in r.signature


# --- SentencePiece --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def spm_model(tmp_path_factory):
    spm = pytest.importorskip("sentencepiece")
    text = []
    for p in sorted(data_path("wmt21", "references").iterdir()):
        text += read_lines(p)[:250]
    d = tmp_path_factory.mktemp("spm")
    corpus = d / "train.txt"
    corpus.write_text("\n".join(text) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(d / "m"), vocab_size=2000,
                                   character_coverage=0.99, num_threads=1, minloglevel=2)
    return d / "m.model", text


def _sacrebleu_spm(monkeypatch, cache: Path, key: str):
    from sacrebleu.tokenizers import tokenizer_spm
    monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(cache))
    monkeypatch.setattr(tokenizer_spm, "download_file", lambda *a, **k: pytest.fail("sacreBLEU tried to download"))
    return tokenizer_spm.TokenizerSPM(key)


@pytest.mark.parametrize("name", ["spm", "flores101", "flores200", "spBLEU-1K"])
def test_spm_tokens_equal_sacrebleu(spm_model, tmp_path, monkeypatch, name):
    model, text = spm_model
    cache = tmp_path / "sacrebleu"
    (cache / "models").mkdir(parents=True)
    target = cache / "models" / external.SPM_MODELS[name][0]
    target.write_bytes(model.read_bytes())
    monkeypatch.setenv("SACREBLEU", str(cache))
    monkeypatch.setenv("HOME", str(tmp_path))
    peer = _sacrebleu_spm(monkeypatch, cache, name)
    lines = text[::7] + read_lines(data_path("wmt21", "system-outputs", "newstest2021.en-zh.hyp.NiuTrans.zh"))[:100]
    lines += ["", "  a  b ", "Ünïcödé — ‘quotes’ 1,000.5"]
    expected = [peer(ln.rstrip()) for ln in lines]
    assert tokenize_corpus(lines, name) == expected  # the model found in sacreBLEU's cache
    assert tokenize_corpus(lines, f"{name}:{model}") == expected  # the model given as a path
    assert tokenizer_signature(name) == peer.signature()
    assert tokenizer_signature(f"{name}:{target}") == peer.signature()
    assert tokenizer_signature(f"{name}:{model}") == "spm[m.model]"  # another file: never a FLORES signature
    res = BLEU(tokenize=name).corpus(lines[:50], [[x] for x in lines[50:100]])
    assert f"|tok:{peer.signature()}|" in res.signature


def test_spm_cli_with_model_option(spm_model, tmp_path, monkeypatch, capsys):
    model, text = spm_model
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "empty"))
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("\n".join(text[:40]) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(t[::-1] for t in text[:40]) + "\n", encoding="utf-8")
    assert main(["score", "-r", str(ref), "-i", str(hyp), "--tokenize", "flores200"]) == 3
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "flores200sacrebleuspm" in err and "--spm-model" in err
    assert main(["score", "-r", str(ref), "-i", str(hyp), "--tokenize", "flores200", "--spm-model", str(model),
                 "-w", "6"]) == 0
    out = capsys.readouterr().out
    expected = BLEU(tokenize=f"flores200:{model}").corpus(read_lines(hyp), [[r] for r in read_lines(ref)]).score
    assert f"{expected:.6f}" in out and "tok:spm[m.model]" in out


def test_spm_errors(spm_model, tmp_path, monkeypatch):
    model, _ = spm_model
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    with pytest.raises(InputError, match=r"flores101.*sacrebleu_tokenizer_spm\.model.*--spm-model"):
        tokenize_corpus(["a"], "flores101")
    with pytest.raises(InputError, match="no such SentencePiece model file"):
        tokenize_corpus(["a"], f"spm:{tmp_path / 'missing.model'}")
    bad = tmp_path / "bad.model"
    bad.write_bytes(b"not a model")
    with pytest.raises(InputError, match="not a SentencePiece model"):
        tokenize_corpus(["a"], f"spm:{bad}")
    with pytest.raises(InvalidParameterError, match="only the SentencePiece tokenizers"):
        check_tokenizer(f"13a:{model}")
    with pytest.raises(InvalidParameterError, match="empty model path"):
        check_tokenizer("spm:")


# --- missing extras ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,module,extra", [("ja-mecab", "MeCab", "ja"), ("ko-mecab", "mecab_ko", "ko"),
                                              ("spm", "sentencepiece", "spm")])
def test_missing_extra_names_the_pip_install(name, module, extra, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if the package were absent
    external._mecab_tagger.cache_clear()
    external._spm_processor.cache_clear()
    spec = name if name != "spm" else f"spm:{tmp_path / 'x.model'}"
    (tmp_path / "x.model").write_bytes(b"")
    try:
        with pytest.raises(OptionalDependencyError, match=rf"pip install 'mtscore\[{extra}\]'"):
            tokenize_corpus(["a"], spec)
        f = tmp_path / "t.txt"
        f.write_text("a b\n", encoding="utf-8")
        args = ["score", "-r", str(f), "-i", str(f), "--tokenize", name]
        if name == "spm":
            args += ["--spm-model", str(tmp_path / "x.model")]
        assert main(args) == 4
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"mtscore[{extra}]" in err
    finally:
        external._mecab_tagger.cache_clear()
        external._spm_processor.cache_clear()


# --- every token-level metric ------------------------------------------------------------------------------
def test_every_token_level_metric_uses_the_external_tokenizer(ja_peer):
    """metric(tokenize=ja-mecab) on raw text == metric(tokenize=none) on sacreBLEU's ja-mecab tokens."""
    import dataclasses
    from mtscore.metrics.registry import get_metric_class, metric_names
    root, ref, systems = _en_ja()
    hyps = read_lines(systems["ONLINE-Y"])[:120]
    refs = read_lines(ref)[:120]
    tok_h = [ja_peer(h.rstrip()) for h in hyps]
    tok_r = [[ja_peer(r.rstrip())] for r in refs]
    checked = []
    for name in metric_names():
        cls = get_metric_class(name)
        try:
            fields = {f.name for f in dataclasses.fields(cls.Config)}
        except TypeError:
            continue
        if "tokenize" not in fields or name in ("rose-regpos", "rose-rankpos"):  # POS variants need TextBlob
            continue
        a = cls(tokenize="ja-mecab").corpus(hyps, [[r] for r in refs])
        b = cls(tokenize="none").corpus(tok_h, tok_r)
        assert a.score == b.score, name
        assert "ja-mecab-0.996-IPA" in a.signature, name
        checked.append(name)
    assert {"bleu", "bleu-sbp", "tbleu", "nist", "wer", "per", "4-grr", "gtm", "lcm", "rose"} <= set(checked)
