"""mtscore audit: deletion stress test, subset paradox, length analysis."""
import json
import subprocess
import sys

import numpy as np
import pytest

from mtscore import BLEU, BLEUSBP
from mtscore.analysis import delete_segments, delete_words, deletion_test, length_analysis, subset_paradox
from mtscore.errors import InputError, InvalidParameterError
from mtscore.io.wmt import load_wmt21
from mtscore.metrics.registry import get_metric, metric_names
from conftest import data_path


def mscore(*args):
    p = subprocess.run([sys.executable, "-m", "mtscore", *args], capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def test_delete_words_and_segments():
    segs = ["a b c d e f g h i j", "k l m n o", "", "p q r s t u v w x y z"]
    out = delete_words(segs, 0.2, "end")
    total = sum(len(s.split()) for s in segs)
    assert total - sum(len(s.split()) for s in out) == round(0.2 * total)
    assert all(o.split() == s.split()[:len(o.split())] for o, s in zip(out, segs))  # prefixes: cut from the end
    rnd = delete_words(segs, 0.2, "random", seed=3)
    assert total - sum(len(s.split()) for s in rnd) == round(0.2 * total)
    assert rnd == delete_words(segs, 0.2, "random", seed=3)
    assert delete_segments(segs, 0.5, "end") == ["a b c d e f g h i j", "k l m n o", "", ""]
    assert len(delete_segments(segs, 0.5, "random", seed=1)) == 4
    assert delete_words(segs, 0.0) == [" ".join(s.split()) for s in segs]
    for bad in (-0.1, 1.0, 1.5):
        with pytest.raises(InvalidParameterError, match=r"rate: .*\[0, 1\)"):
            delete_words(segs, bad)


def test_deletion_reproduces_cwmt2008_on_wmt21():
    d = load_wmt21(data_path("wmt21"), "en-de")
    refs = d.refs_sentence_major(["A", "C", "D"])
    nist_bleu = BLEU(compat="mteval-v11b", lowercase=False)
    nist_bleu.display_name = "NIST-BLEU"
    ms = [BLEU(), nist_bleu, BLEUSBP()]
    if "4-grr" in metric_names():
        ms.append(get_metric("4-grr"))
    rep = deletion_test(refs, ms, use_reference=1, kinds=("words-end", "segments-end"), rates=(0.02, 0.05, 0.1))
    assert 0.05 < rep.critical_rate < 0.1
    for kind in ("words-end", "segments-end"):
        base = rep.scores[(kind, 0.0)]
        assert base[0] == pytest.approx(100.0) and base[1] == pytest.approx(100.0)
        for rate in (0.02, 0.05):
            assert rep.scores[(kind, rate)][1] == pytest.approx(100.0, abs=1e-9)  # NIST-BLEU does not move
        prev = [100.0] * len(ms)
        for rate in (0.02, 0.05, 0.1):
            s = rep.scores[(kind, rate)]
            for j in (0, 2) + ((3,) if len(ms) > 3 else ()):
                assert s[j] < prev[j]  # IBM-BLEU, BLEU-SBP (and 4-GRR) decrease at every rate
            prev = s
    resp = rep.responds()
    assert resp[("BLEU", "words-end")] and resp[("BLEU-SBP", "segments-end")]
    assert not resp[(nist_bleu.display_name, "words-end")]


def test_deletion_bad_input():
    refs = [["a b", "a c"], ["d e", "d f"]]
    with pytest.raises(InvalidParameterError, match="use_reference"):
        deletion_test(refs, [BLEU()], use_reference=2)
    with pytest.raises(InvalidParameterError, match="rate"):
        deletion_test(refs, [BLEU()], rates=(0.5, 1.0))
    with pytest.raises(InvalidParameterError, match="kind"):
        deletion_test(refs, [BLEU()], kinds=("letters",))
    with pytest.raises(InvalidParameterError, match="share the label 'BLEU'"):
        deletion_test(refs, [BLEU(), BLEU(smooth="none")])
    with pytest.raises(InvalidParameterError, match="same number of references"):
        deletion_test([["a"], ["b", "c"]], [BLEU()])


def _genre_toy():
    """Subset X: 10-token reference; Y: 30 tokens. A: 5 and 21 reference tokens; B: 4 tokens, and Y's
    reference plus 16 junk tokens. A is better on X and on Y, B is better combined (found by search)."""
    rx = [f"x{i}" for i in range(10)]
    ry = [f"y{i}" for i in range(30)]
    refs = [[" ".join(rx)], [" ".join(ry)]]
    a = [" ".join(rx[:5]), " ".join(ry[:21])]
    b = [" ".join(rx[:4]), " ".join(ry + [f"j{k}" for k in range(16)])]
    return a, b, refs, ["X", "Y"]


def test_subset_paradox_toy():
    a, b, refs, labels = _genre_toy()
    bleu = BLEU(tokenize="none")
    rep = subset_paradox(bleu, bleu.stats(a, refs), bleu.stats(b, refs), labels)
    x, y = rep.subsets
    assert x.score_a > x.score_b and y.score_a > y.score_b
    assert rep.combined.score_a < rep.combined.score_b
    assert rep.paradox == "A"
    assert rep.combined.score_a == pytest.approx(bleu.corpus(a, refs).score)
    sbp = BLEUSBP(tokenize="none")
    rep2 = subset_paradox(sbp, sbp.stats(a, refs), sbp.stats(b, refs), labels)
    assert rep2.combined.score_a == pytest.approx(sbp.corpus(a, refs).score)
    with pytest.raises(InputError, match="label file has 1 label for 2 segments"):
        subset_paradox(bleu, bleu.stats(a, refs), bleu.stats(b, refs), ["X"])
    with pytest.raises(InputError, match="subset 'Z' has no segments"):
        subset_paradox(bleu, bleu.stats(a, refs), bleu.stats(b, refs), labels, subsets=["X", "Z"])


def test_subset_paradox_cli(tmp_path):
    a, b, refs, labels = _genre_toy()
    for name, lines in (("a", a), ("b", b), ("ref", [r[0] for r in refs]), ("labels", labels)):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    rc, out, err = mscore("audit", "subsets", "-r", str(tmp_path / "ref"), "-i", str(tmp_path / "a"), str(tmp_path / "b"),
                          "--labels", str(tmp_path / "labels"), "-m", "bleu", "bleu-sbp", "--tok", "none", "-f", "json")
    assert rc == 0, err
    assert json.loads(out)["paradox"]["BLEU"] == "A"
    (tmp_path / "labels").write_text("X\n")
    rc, out, err = mscore("audit", "subsets", "-r", str(tmp_path / "ref"), "-i", str(tmp_path / "a"), str(tmp_path / "b"),
                          "--labels", str(tmp_path / "labels"))
    assert rc == 3 and out == "" and "labels has 1 line, each input has 2 lines" in err


def test_length_analysis():
    bleu = BLEU(tokenize="none")
    st = bleu.stats(["a b c", "a b c d e f", "x"], [["a b c d"], ["a b c d e"], ["x y z w v u t s r q p o"]])
    rep = length_analysis(st, buckets=(5, 10))
    names = [r.group for r in rep.rows]
    assert names == ["[0, 5)", "[5, 10)", ">= 10", "(all)"]
    total = rep.rows[-1]
    assert (total.hyp_len, total.ref_len) == (10, 21)
    assert total.bp == pytest.approx(float(np.exp(1 - 21 / 10)))
    assert total.sbp == pytest.approx(float(np.exp(1 - 21 / (3 + 5 + 1))))
    by = length_analysis(st, labels=["p", "q", "p"])
    assert [r.group for r in by.rows] == ["p", "q", "(all)"] and by.rows[0].hyp_len == 4


def test_cli_deletion_and_length(tmp_path):
    r1 = tmp_path / "r1"
    r2 = tmp_path / "r2"
    r1.write_text("the cat sat on the mat today\nhello big world\n")
    r2.write_text("a cat sat on a mat\nhello world\n")
    rc, out, err = mscore("audit", "deletion", "-r", str(r1), str(r2), "--rates", "0.1", "0.3", "-f", "json")
    assert rc == 0, err
    assert len(json.loads(out)["rows"]) == 6
    rc, out, err = mscore("audit", "deletion", "-r", str(r1), str(r2), "--rates", "1.5")
    assert rc == 2 and "rate" in err and out == ""
    rc, out, err = mscore("audit", "length", "-r", str(r1), "-i", str(r2), "-f", "json")
    assert rc == 0 and json.loads(out)["tables"][0]["rows"][-1]["bucket"] == "(all)"


def test_sign_consistency_reproduces_spec_toy(tmp_path):
    """docs/definitions.md §8.2: BLEU and BLEU-SBP contradict themselves (10+/0- both ways, p = 0.00195); 4-GRR does not."""
    refs = [" ".join(f"w{s}x{k}" for k in range(10)) for s in range(10)]
    a = [" ".join([f"w{s}x{k}" for k in range(9)] + ["junk1", "junk2"]) for s in range(10)]
    b = [" ".join(f"w{s}x{k}" for k in range(8)) for s in range(10)]
    for name, lines in (("ref", refs), ("A", a), ("B", b)):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    metrics = ["bleu", "bleu-sbp"] + (["4-grr"] if "4-grr" in metric_names() else [])
    rc, out, err = mscore("audit", "sign", "-r", str(tmp_path / "ref"), "-i", str(tmp_path / "A"), str(tmp_path / "B"),
                          "-m", *metrics, "-f", "json")
    assert rc == 0, err
    obj = json.loads(out)
    assert obj["verdict"]["bleu"] == "contradicts itself" and obj["verdict"]["bleu-sbp"] == "contradicts itself"
    for row in obj["rows"][:2]:
        assert row["p fwd"] == pytest.approx(2 / 2 ** 10) and row["p bwd"] == pytest.approx(2 / 2 ** 10)
    if "4-grr" in metrics:
        assert obj["verdict"]["4-grr"] == "consistent"
        # 4-GRR shown x100 as everywhere (the one output model); the API value is 29/34
        assert obj["rows"][2]["A"] == pytest.approx(100 * 29 / 34) and obj["rows"][2]["B"] == pytest.approx(100 * 26 / 34)
    rc, out, err = mscore("audit", "sign", "-r", str(tmp_path / "ref"), "-i", str(tmp_path / "A"))
    assert rc == 2 and "exactly two systems" in err


@pytest.mark.parametrize("check", ["deletion", "subsets", "length"])
def test_audit_html_pages_are_valid_and_offline(tmp_path, check):
    html5lib = pytest.importorskip("html5lib")
    a, b, refs, labels = _genre_toy()
    for name, lines in (("a", a), ("b", b), ("ref", [r[0] for r in refs]), ("ref2", [r[0] for r in refs]),
                        ("labels", labels)):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    out_html = tmp_path / "page.html"
    if check == "deletion":
        args = ["audit", "deletion", "-r", str(tmp_path / "ref"), str(tmp_path / "ref2"), "--rates", "0.1", "0.3"]
    elif check == "subsets":
        args = ["audit", "subsets", "-r", str(tmp_path / "ref"), "-i", str(tmp_path / "a"), str(tmp_path / "b"),
                "--labels", str(tmp_path / "labels"), "--tok", "none"]
    else:
        args = ["audit", "length", "-r", str(tmp_path / "ref"), "-i", str(tmp_path / "a"), "--labels", str(tmp_path / "labels")]
    rc, out, err = mscore(*args, "-o", str(out_html), "-f", "json")
    assert rc == 0, err
    json.loads(out)  # stdout stays machine-readable
    html = out_html.read_text(encoding="utf-8")
    html5lib.HTMLParser(strict=True).parse(html)
    assert "<svg" in html and "Content-Security-Policy" in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
