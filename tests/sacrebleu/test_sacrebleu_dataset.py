"""sacreBLEU's test-set API in the drop-in: the registry as data, equal to sacreBLEU 2.6's; the
``Dataset`` classes against sacreBLEU's own (same fields, same references, byte-identical text files made
from the same raw WMT/IWSLT/MTNT/plain files); ``sacrebleu.utils``; never a download; and the other public
names callers import (``metrics.lib_ter``, ``TercomTokenizer.ASIAN_PUNCT``, ``SPM_MODELS``,
``_compute_p_value``), each against the installed sacreBLEU 2.6.0 (a test-only dependency)."""
import hashlib
import importlib.util
import json
import os
import random
import shutil
import tarfile
from pathlib import Path

import numpy as np
import pytest

from conftest import data_path

sb = pytest.importorskip("sacrebleu")
import sacrebleu.dataset as sb_dataset  # noqa: E402
import sacrebleu.utils as sb_utils  # noqa: E402

import mtscore.sacrebleu as ours  # noqa: E402
from mtscore.errors import InputError, InvalidParameterError, MtscoreError  # noqa: E402
from mtscore.sacrebleu import dataset as our_dataset, utils as our_utils  # noqa: E402
from mtscore.sacrebleu.dataset import TestSetNotDownloaded  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_sacrebleu_is_2_6_0():
    assert sb.__version__ == "2.6.0" and our_dataset.REGISTRY_VERSION == "2.6.0"


def test_registry_file_is_what_sacrebleu_says():
    spec = importlib.util.spec_from_file_location("sacrebleu_registry", ROOT / "scripts" / "sacrebleu_registry.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with open(our_dataset.REGISTRY_FILE, encoding="utf-8") as f:
        data = json.load(f)
    assert data == json.loads(json.dumps(mod.registry()))
    assert len(data["datasets"]) == 67


def test_datasets_are_sacrebleus():
    assert list(our_dataset.DATASETS) == list(sb_dataset.DATASETS)
    assert our_dataset.SUBSETS == sb_dataset.SUBSETS
    assert our_dataset.COUNTRIES == sb_dataset.COUNTRIES and our_dataset.DOMAINS == sb_dataset.DOMAINS
    for name, theirs in sb_dataset.DATASETS.items():
        mine = our_dataset.DATASETS[name]
        assert type(mine).__name__ == type(theirs).__name__, name
        for attr in ("name", "data", "description", "citation", "md5", "langpairs", "kwargs", "_outdir", "_rawdir"):
            assert getattr(mine, attr) == getattr(theirs, attr), (name, attr)
        for url in theirs.data:
            assert mine._get_tarball_filename(url) == theirs._get_tarball_filename(url)
        for pair in theirs.langpairs:
            assert mine._get_txt_file_path(pair, "ref:A") == theirs._get_txt_file_path(pair, "ref:A")
            if type(theirs).__name__ == "WMTXMLDataset":  # its fields come from the raw XML (tested below)
                assert mine._get_langpair_allowed_refs(pair) == theirs._get_langpair_allowed_refs(pair), (name, pair)
            else:
                assert mine.fieldnames(pair) == theirs.fieldnames(pair), (name, pair)


def test_utils_lists_are_sacrebleus():
    assert our_utils.get_available_testsets() == sb_utils.get_available_testsets()
    pairs = sorted({p for d in sb_dataset.DATASETS.values() for p in d.langpairs})
    for pair in pairs:
        assert our_utils.get_available_testsets_for_langpair(pair) == sb_utils.get_available_testsets_for_langpair(pair)
    for name in list(sb_dataset.DATASETS) + ["wmt05", "nope"]:
        assert our_utils.get_langpairs_for_testset(name) == sb_utils.get_langpairs_for_testset(name)
    assert our_utils.SACREBLEU_DIR == sb_utils.SACREBLEU_DIR
    assert our_utils.my_log(0.0) == sb_utils.my_log(0.0) and our_utils.my_log(2.5) == sb_utils.my_log(2.5)
    assert our_utils.sum_of_lists([[1, 2.5], [3, 4]]) == sb_utils.sum_of_lists([[1, 2.5], [3, 4]])


def test_top_level_names_are_sacrebleus():
    """Every name of sacreBLEU's ``__all__`` and its public modules exist in the drop-in."""
    assert set(sb.__all__) <= set(ours.__all__)
    for name in sb.__all__:
        assert hasattr(ours, name), name
    import mtscore.sacrebleu.sacrebleu as cli
    import mtscore.sacrebleu.__main__  # noqa: F401
    assert callable(cli.main)
    assert ours.DATASETS is our_dataset.DATASETS and ours.get_source_file is our_utils.get_source_file
    from mtscore.sacrebleu.version import __version__
    assert __version__ == ours.__version__ == "2.6.0"


# -- files: byte-identical to what sacreBLEU's process_to_text writes --------------------------------------
def _sgm(doc_attrs, lines, side):
    out = [f'<{side}set setid="t" srclang="any">']
    for k, (attrs, seg) in enumerate(zip(doc_attrs, lines)):
        out.append("<doc " + " ".join(f'{a}="{v}"' for a, v in attrs) + ">")
        out += [f'<seg id="{i}">  {s}\t </seg>' for i, s in enumerate(seg, 1)]
        out.append("</doc>")
    return "\n".join(out + [f"</{side}set>"]) + "\n"


def _xml(docs, src_lang, tgt_lang):
    from xml.sax.saxutils import escape, quoteattr
    out = ['<?xml version="1.0" encoding="utf-8"?>', '<dataset id="t">', '<collection id="general">']
    for attrs, src, refs, hyps in docs:
        out.append("<doc " + " ".join(f"{k}={quoteattr(v)}" for k, v in attrs) + ">")
        out.append(f'<src lang="{src_lang}"><p>' + "".join(f'<seg id="{i}">{escape(s)}</seg>'
                                                          for i, s in enumerate(src, 1)) + "</p></src>")
        for tr, lines in refs.items():
            tr_attr = f' translator="{tr}"' if tr else ""
            out.append(f'<ref lang="{tgt_lang}"{tr_attr}><p>' + "".join(
                f'<seg id="{i}">{escape(s)}</seg>' for i, s in lines.items()) + "</p></ref>")
        for sys_name, lines in hyps.items():
            out.append(f'<hyp system="{sys_name}" lang="{tgt_lang}"><p>' + "".join(
                f'<seg id="{i}">{escape(s)}</seg>' for i, s in enumerate(lines, 1)) + "</p></hyp>")
        out.append("</doc>")
    return "\n".join(out + ["</collection>", "</dataset>"]) + "\n"


def _write_raw(ds, rawdir: Path, text):
    """Raw files for every language pair of ``ds`` in its format, from real sentences ``text``; a non-empty
    stand-in for each archive (so neither tool downloads)."""
    kind = type(ds).__name__
    rawdir.mkdir(parents=True, exist_ok=True)
    for url in ds.data:
        (rawdir / ds._get_tarball_filename(url)).write_bytes(b"x")
    rng = random.Random(ds.name)
    for pair, entry in ds.langpairs.items():
        n = rng.randint(12, 30)
        lines = [text[(rng.randrange(len(text)))] + ("  " if i % 4 == 0 else "") for i in range(n)]
        if kind == "WMTXMLDataset":
            rel = entry["path"] if isinstance(entry, dict) else entry[0]
            translators = (entry.get("refs") if isinstance(entry, dict) else None) or ds.kwargs.get("refs") or [""]
            translators = list(translators) + ["Z"]
            docs = []
            for d in range(0, n, 5):
                src = lines[d:d + 5]
                refs = {t: {i: f"{t} {s}" for i, s in enumerate(src, 1) if not (t == "Z" and i == 2)}
                        for t in translators}
                if d == 5:
                    refs = {t: {i: s for i, s in r.items() if i != 3} for t, r in refs.items()}  # no reference
                attrs = [("id", f"doc{d}"), ("origlang", "en" if d % 2 else "de")] + (
                    [("domain", "news" if d % 3 else "speech")] if d < 100 else [])
                docs.append((attrs, src, refs, {"sysA": [s.upper() for s in src]}))
            docs.insert(1, ([("id", "suite"), ("origlang", "en"), ("testsuite", "x")], ["a"], {translators[0]: {1: "b"}},
                            {}))
            (rawdir / rel).parent.mkdir(parents=True, exist_ok=True)
            (rawdir / rel).write_text(_xml(docs, *pair.split("-")), encoding="utf-8")
        elif kind == "TSVDataset":
            path = rawdir / entry[0].split(":")[-1]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f"id{i}\t{s}\tREF {s}\n" for i, s in enumerate(lines)), encoding="utf-8")
        else:
            docs = [[("docid", f"d{k}"), ("genre", "news"), ("origlang", "xx" if k % 2 else "en")] for k in range(3)]
            for k, rel in enumerate(entry):
                path = rawdir / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                side = [f"{s} {k}" for s in lines]
                if rel.endswith((".sgm", ".xml")):
                    chunks = [side[:5], side[5:9], side[9:]]
                    path.write_text(_sgm(docs, chunks, "src" if k == 0 else "ref"), encoding="utf-8")
                else:
                    path.write_bytes("".join(f"{s}\r\n" if i % 3 == 0 else f"{s} \n"
                                             for i, s in enumerate(side)).encode("utf-8"))


FORMATS = ["wmt17", "wmt08", "wmt20/tworefs", "wmt19/google/ar", "iwslt17", "mtnt1.1/test", "mtedx/test",
           "wmt20/robust/set1", "wmt21", "wmt22", "wmt23", "wmt24"]


@pytest.mark.parametrize("name", FORMATS)
def test_text_files_byte_identical_to_sacrebleus(name, tmp_path, monkeypatch):
    text = [ln for ln in (data_path("wmt17-en-de") / "newstest2017.en-de.ref0.de").read_text(
        encoding="utf-8").split("\n")[:400] if ln]
    theirs, mine = sb_dataset.DATASETS[name], our_dataset.DATASETS[name]
    for ds, d in ((theirs, tmp_path / "sb"), (mine, tmp_path / "ours")):
        monkeypatch.setattr(ds, "_outdir", str(d / name))
        monkeypatch.setattr(ds, "_rawdir", str(d / name / "raw"))
    _write_raw(theirs, Path(theirs._rawdir), text)
    _write_raw(mine, Path(mine._rawdir), text)
    for pair in theirs.langpairs:
        f_sb, f_ours = theirs.get_files(pair), mine.get_files(pair)
        assert [os.path.relpath(f, tmp_path / "sb") for f in f_sb] == \
               [os.path.relpath(f, tmp_path / "ours") for f in f_ours], pair
        assert mine.fieldnames(pair) == theirs.fieldnames(pair)
        assert [os.path.basename(f) for f in mine.get_reference_files(pair)] == \
               [os.path.basename(f) for f in theirs.get_reference_files(pair)]
        assert os.path.basename(mine.get_source_file(pair)) == os.path.basename(theirs.get_source_file(pair))
        assert list(mine.source(pair)) == list(theirs.source(pair))
        assert list(mine.references(pair)) == list(theirs.references(pair))
    made = sorted(p.relative_to(tmp_path / "sb") for p in (tmp_path / "sb").rglob("*") if p.is_file()
                  and not p.name.endswith(".lock"))
    assert made == sorted(p.relative_to(tmp_path / "ours") for p in (tmp_path / "ours").rglob("*") if p.is_file())
    texts = [r for r in made if "raw" not in r.parts]
    assert len(texts) >= 2 * len(theirs.langpairs)  # source and references (and metadata) of every pair
    for rel in made:
        assert (tmp_path / "ours" / rel).read_bytes() == (tmp_path / "sb" / rel).read_bytes(), rel


# -- offline: the cache, never a download ---------------------------------------------------------------------
def test_text_files_in_the_cache_are_used_as_they_are(tmp_path, monkeypatch):
    ds = our_dataset.DATASETS["wmt17"]
    monkeypatch.setattr(ds, "_outdir", str(tmp_path / "wmt17"))
    monkeypatch.setattr(ds, "_rawdir", str(tmp_path / "wmt17" / "raw"))
    (tmp_path / "wmt17").mkdir()
    for f in ds.fieldnames("de-en"):
        (tmp_path / "wmt17" / f"wmt17.de-en.{f}").write_text(f"{f} 1\n{f} 2\n", encoding="utf-8")
    assert ours.get_source_file("wmt17", "de-en") == str(tmp_path / "wmt17" / "wmt17.de-en.src")
    assert ours.get_reference_files("wmt17", "de-en") == [str(tmp_path / "wmt17" / "wmt17.de-en.ref")]
    assert len(ours.download_test_set("wmt17", "de-en")) == 5
    with ours.smart_open(ours.get_source_file("wmt17", "de-en")) as f:
        assert f.read() == "src 1\nsrc 2\n"


def test_a_missing_test_set_names_the_file_to_place_where(tmp_path, monkeypatch):
    ds = our_dataset.DATASETS["wmt21"]
    monkeypatch.setattr(ds, "_outdir", str(tmp_path / "wmt21"))
    monkeypatch.setattr(ds, "_rawdir", str(tmp_path / "wmt21" / "raw"))
    for call in (lambda: ours.get_source_file("wmt21", "en-de"), lambda: ours.get_reference_files("wmt21", "en-de"),
                 lambda: ours.download_test_set("wmt21", "en-de"), lambda: ds.maybe_download()):
        with pytest.raises(TestSetNotDownloaded) as exc:
            call()
        e = exc.value
        assert isinstance(e, OSError) and isinstance(e, InputError) and isinstance(e, MtscoreError)
        want = tmp_path / "wmt21" / "raw" / "wmt21.test.tgz"
        assert e.path == str(want) and e.url == ds.data[0]
        assert str(want) in str(e) and ds.data[0] in str(e) and ds.md5[0] in str(e) and "never downloads" in str(e)
    assert not any(tmp_path.iterdir())  # nothing written
    with pytest.raises(InvalidParameterError, match="No such test set nope"):
        ours.get_source_file("nope", "en-de")
    with pytest.raises(InvalidParameterError, match="No such language pair wmt17/xx-yy"):
        our_dataset.DATASETS["wmt17"].fieldnames("xx-yy")
    with pytest.raises(TestSetNotDownloaded, match="never downloads"):
        our_utils.download_file("https://example.invalid/x.tgz", str(tmp_path / "x.tgz"))


def test_an_archive_placed_by_hand_is_checked_and_unpacked(tmp_path, monkeypatch):
    """The archive sacreBLEU would fetch, placed in ``raw/``: its md5 sum checked, unpacked, the text files made."""
    monkeypatch.setattr(our_dataset.base._utils, "SACREBLEU_DIR", str(tmp_path))
    src = tmp_path / "pack"
    (src / "test").mkdir(parents=True)
    (src / "test" / "s.en").write_text("one \ntwo\n", encoding="utf-8")
    (src / "test" / "r.de").write_text("eins\nzwei \n", encoding="utf-8")
    tgz = tmp_path / "pack.tgz"
    with tarfile.open(tgz, "w:gz") as t:
        t.add(src / "test", arcname="test")
    md5 = hashlib.md5(tgz.read_bytes()).hexdigest()
    ds = our_dataset.PlainTextDataset("mine/set", data=["https://example.invalid/pack.tgz"], md5=[md5],
                                      langpairs={"en-de": ["test/s.en", "test/r.de"]})
    raw = tmp_path / "mine/set" / "raw"
    with pytest.raises(TestSetNotDownloaded) as exc:
        ds.get_files("en-de")
    assert exc.value.path == str(raw / "mine_set.pack.tgz")
    raw.mkdir(parents=True)
    (raw / "mine_set.pack.tgz").write_bytes(b"not the archive")
    with pytest.raises(InputError, match=f"md5 sum of .* is .*registry says {md5}"):
        ds.get_files("en-de")
    shutil.copy(tgz, raw / "mine_set.pack.tgz")
    src_file, ref_file = ds.get_files("en-de")
    assert Path(src_file).read_text(encoding="utf-8") == "one\ntwo\n"
    assert Path(ref_file).read_text(encoding="utf-8") == "eins\nzwei\n"


# -- the other public names ------------------------------------------------------------------------------------
def test_lib_ter_is_sacrebleus():
    from sacrebleu.metrics import lib_ter as theirs
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as TheirTok
    from mtscore.sacrebleu.metrics import lib_ter as mine
    d = data_path("wmt17-en-de")
    refs = (d / "newstest2017.en-de.ref0.de").read_text(encoding="utf-8").split("\n")[:300]
    hyps = (d / "systems" / "newstest2017.LIUM-NMT.4900.en-de").read_text(encoding="utf-8").split("\n")[:300]
    tok = TheirTok()
    for h, r in zip(hyps, refs):
        wh, wr = tok(h).split(), tok(r).split()
        assert mine.translation_edit_rate(wh, wr) == theirs.translation_edit_rate(wh, wr)
    assert mine.translation_edit_rate(["a", "b"], []) == theirs.translation_edit_rate(["a", "b"], [])
    rng = random.Random(7)
    for _ in range(200):
        trace = "".join(rng.choice(" sid") for _ in range(rng.randint(0, 30)))
        assert mine.trace_to_alignment(trace) == theirs.trace_to_alignment(trace)
    for k in ("_COST_INS", "_COST_DEL", "_COST_SUB", "_MAX_SHIFT_SIZE", "_MAX_SHIFT_DIST", "_BEAM_WIDTH",
              "_MAX_SHIFT_CANDIDATES", "_INT_INFINITY", "_OP_INS", "_OP_DEL", "_OP_NOP", "_OP_SUB", "_OP_UNDEF"):
        assert getattr(mine, k) == getattr(theirs, k), k


def test_tokenizer_constants_are_sacrebleus():
    import re
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as TheirTok
    from sacrebleu.tokenizers.tokenizer_spm import SPM_MODELS as THEIR_SPM
    from mtscore.sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as MyTok
    from mtscore.sacrebleu.tokenizers.tokenizer_spm import SPM_MODELS
    assert MyTok.ASIAN_PUNCT == TheirTok.ASIAN_PUNCT and MyTok.FULL_WIDTH_PUNCT == TheirTok.FULL_WIDTH_PUNCT
    assert SPM_MODELS == THEIR_SPM
    # the classes are the ones the tokenizer implements: every such character is split off with asian_support
    for pat in (MyTok.ASIAN_PUNCT, MyTok.FULL_WIDTH_PUNCT):
        chars = [chr(c) for c in range(0x3000, 0x10000) if re.fullmatch(pat, chr(c))]
        assert chars
        for c in chars:
            s = f"x{c}y"
            mine = MyTok(normalized=True, asian_support=True)(s)
            assert mine == TheirTok(normalized=True, asian_support=True)(s), hex(ord(c))


def test_compute_p_value_is_sacrebleus():
    from sacrebleu.significance import _compute_p_value as theirs
    from mtscore.sacrebleu.significance import _compute_p_value as mine
    rng = np.random.default_rng(3)
    for n in (1, 10, 1000):
        stats = rng.normal(size=n)
        for diff in (-1.0, 0.0, 0.3, float(stats[0])):
            assert mine(stats, diff) == theirs(stats, diff)
