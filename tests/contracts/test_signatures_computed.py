"""Signatures derived from what was computed: ``meta --level seg -m bleu`` and ``analyse docs -m bleu``
use effective-order sentence BLEU and sign ``eff:yes`` (they signed ``eff:no``); system level signs ``eff:no``.
The numbers are checked against sacreBLEU's sentence BLEU with effective order, so the signature is tested
against the computation, not against a string."""
from __future__ import annotations

import json

import pytest
from sacrebleu.metrics import BLEU as SB

from conftest import cli_output

REF = ["the cat sat on the mat", "hello world , how are you", "a dog ran far away", "it is raining today",
       "one two three four five", "the house is big"]
SYS = {"s0": ["the cat sat on the mat", "hello world", "a dog ran away", "it rains today", "one two three", "house big"],
       "s1": ["a cat sat", "hello world , how are you", "a dog ran far", "raining", "one two three four five",
              "the house is big"],
       "s2": ["cat", "world", "dog", "it is raining today", "five", "the big house"]}


cli = cli_output  # mtscore in this process; its stdout


@pytest.fixture
def mtme(tmp_path):
    root = tmp_path / "mt"
    for sub in ("sources", "references", "human-scores", "system-outputs/aa-en"):
        (root / sub).mkdir(parents=True)
    (root / "sources" / "aa-en.txt").write_text("".join(f"src {i}\n" for i in range(len(REF))))
    (root / "references" / "aa-en.refA.txt").write_text("".join(r + "\n" for r in REF))
    for s, hyps in SYS.items():
        (root / "system-outputs" / "aa-en" / f"{s}.txt").write_text("".join(h + "\n" for h in hyps))
    (root / "human-scores" / "aa-en.mqm.seg.score").write_text(
        "".join(f"{s}\t{(k + 1) * (i % 3 + 1)}\n" for k, s in enumerate(SYS) for i in range(len(REF))))
    return root


def _sig(text: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith("BLEU|"))


def test_meta_seg_signs_effective_order(mtme):
    seg = _sig(cli("meta", "--data", mtme, "--lp", "aa-en", "-m", "bleu", "--level", "seg"))
    sys_ = _sig(cli("meta", "--data", mtme, "--lp", "aa-en", "-m", "bleu", "--level", "sys"))
    assert "|eff:yes|" in seg and "|eff:no|" in sys_
    # what the segment level correlates: effective-order sentence BLEU (sacreBLEU's sentence_score)
    from mtscore.meta.evaluate import from_metric
    from mtscore.metrics.registry import get_metric_class
    ms = from_metric(get_metric_class("bleu")(), SYS, [[r] for r in REF])
    sb = SB(effective_order=True)
    for k, s in enumerate(SYS):
        assert list(ms.seg[k]) == pytest.approx([sb.sentence_score(h, [r]).score for h, r in zip(SYS[s], REF)],
                                                abs=1e-9)
    assert "|eff:yes|" in ms.seg_signature and "|eff:no|" in ms.signature


def test_analyse_docs_signs_effective_order(tmp_path):
    (tmp_path / "r.txt").write_text("".join(r + "\n" for r in REF))
    (tmp_path / "h.txt").write_text("".join(h + "\n" for h in SYS["s2"]))
    (tmp_path / "d.txt").write_text("d1\nd1\nd2\nd2\nd3\nd3\n")
    out = cli("analyse", "docs", "-r", tmp_path / "r.txt", "-i", tmp_path / "h.txt", "--docs", tmp_path / "d.txt",
              "-m", "bleu", "-f", "json", "-w", "10")
    obj = json.loads(out)
    assert "eff:yes" in json.dumps(obj) and "eff:no" not in json.dumps(obj)
    sb = SB(effective_order=True)
    want = [sb.sentence_score(" ".join(SYS["s2"][i:i + 2]), [" ".join(REF[i:i + 2])]).score for i in (0, 2, 4)]
    rows = [r for t in obj["tables"] for r in t["rows"] if r["document"] != "(all documents)"]
    got = [r["h"] for r in rows]
    assert got == pytest.approx(want, abs=1e-9)
