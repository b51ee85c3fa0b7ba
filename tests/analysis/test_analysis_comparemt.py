"""The per-system analyses against independent oracles: compare-mt 0.2.10 (word accuracy by frequency bucket,
length buckets, n-gram differences) on ../shared/data/ted-sk-en, jiwer (alignment counts), sacreBLEU
(document-level BLEU on WMT23 with its documents/ files), and plain-Python references."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import data_path
from mtscore.analysis.alignment import align, align_corpus
from mtscore.analysis.buckets import (DEFAULT_LENGTH_CUTOFFS, DEFAULT_LENGTHDIFF_CUTOFFS, Buckets, parse_cutoffs,
                                      score_difference_buckets, sentence_buckets, word_accuracy)
from mtscore.analysis.documents import document_scores, read_doc_ids
from mtscore.analysis.ngrams import ngram_differences
from mtscore.errors import InputError, InvalidParameterError
from mtscore.metrics.bleu import BLEU

bucketers = corpus_utils = ngram_utils = scorers = stat_utils = None  # compare-mt's modules (the fixture below)


@pytest.fixture(scope="module", autouse=True)
def _compare_mt():
    """compare-mt imports nltk and matplotlib (~4 s): it loads when this module's first test runs, not when every
    test worker collects the suite."""
    global bucketers, corpus_utils, ngram_utils, scorers, stat_utils
    pytest.importorskip("compare_mt", reason="needs compare-mt 0.2.10 (test extra)")
    from compare_mt import bucketers, corpus_utils, ngram_utils, scorers, stat_utils  # noqa: F811


@pytest.fixture(scope="module")
def ted():
    d = data_path("ted-sk-en")
    # compare-mt reads tokens as line.strip().split(' '); on these files that equals str.split() (no runs of
    # spaces, no empty lines), which is what mtscore's 'none' tokenizer gives
    ref = corpus_utils.load_tokens(str(d / "ted.ref.detok.eng"))
    s1 = corpus_utils.load_tokens(str(d / "ted.sys1.detok.eng"))
    s2 = corpus_utils.load_tokens(str(d / "ted.sys2.detok.eng"))
    lines = {k: (d / f"ted.{k}.detok.eng").read_text(encoding="utf-8").split("\n")[:-1] for k in ("ref", "sys1", "sys2")}
    assert [x.split() for x in lines["ref"]] == ref
    return d, ref, s1, s2, lines


def test_word_accuracy_by_frequency_equals_compare_mt(ted):
    _, ref, s1, s2, _ = ted
    b = bucketers.FreqWordBucketer(freq_data=ref)
    stats, *_ = b.calc_statistics(ref, [s1, s2])
    ours = word_accuracy({"sys1": s1, "sys2": s2}, ref, n_resamples=0)
    assert ours.buckets == tuple(b.bucket_strs)
    for k in range(2):
        for bi, (mcnt, rcnt, ocnt, rec, prec, fmeas) in enumerate(stats[k]):
            assert (ours.matches[k][bi], ours.ref_words[bi], ours.hyp_words[k][bi]) == (mcnt, rcnt, ocnt)
            assert ours.recall[k][bi].value == pytest.approx(rec, abs=1e-15)
            assert ours.precision[k][bi].value == pytest.approx(prec, abs=1e-15)
            assert ours.fmeasure[k][bi].value == pytest.approx(fmeas, abs=1e-15)


def test_word_accuracy_with_a_counts_file_and_custom_cutoffs(ted, tmp_path):
    _, ref, s1, s2, _ = ted
    counts = Counter(w for seg in s1 for w in seg)  # any counts: here the first system's words
    path = tmp_path / "counts.tsv"
    path.write_text("".join(f"{w}\t{c}\n" for w, c in counts.items()), encoding="utf-8")
    b = bucketers.FreqWordBucketer(freq_count_file=str(path), bucket_cutoffs=[1, 5, 50])
    stats, *_ = b.calc_statistics(ref, [s1, s2])
    from mtscore.analysis.buckets import word_frequencies
    ours = word_accuracy({"a": s1, "b": s2}, ref, buckets=parse_cutoffs("1:5:50"),
                         freqs=word_frequencies(counts_file=str(path)), n_resamples=0)
    for k in range(2):
        assert [x.value for x in ours.fmeasure[k]] == pytest.approx([s[5] for s in stats[k]], abs=1e-15)


def test_word_accuracy_by_part_of_speech_equals_compare_mt(ted):
    """Label buckets (POS tags from TextBlob's bundled tagger, the [pos] extra) against compare-mt's
    LabelWordBucketer given the same tags."""
    pytest.importorskip("textblob", reason="needs textblob (extra [pos], in the test extra)")
    from mtscore.metrics.rose_pos import tag_tokens
    _, ref, s1, s2, _ = ted
    ref, s1, s2 = ref[:300], s1[:300], s2[:300]
    rl, l1, l2 = tag_tokens(ref), tag_tokens(s1), tag_tokens(s2)
    ours = word_accuracy({"sys1": s1, "sys2": s2}, ref, ref_labels=rl, labels={"sys1": l1, "sys2": l2},
                         n_resamples=0)
    assert ours.by == "label" and "NN" in ours.buckets
    b = bucketers.LabelWordBucketer(label_set=list(ours.buckets))
    stats, *_ = b.calc_statistics(ref, [s1, s2], ref_labels=rl, out_labels=[l1, l2])
    for k in range(2):
        assert [s[5] for s in stats[k]][:-1] == pytest.approx([x.value for x in ours.fmeasure[k]], abs=1e-15)
        assert stats[k][-1][:3] == (0, 0, 0)  # compare-mt's 'other' bucket: every tag is in the set


def test_source_word_accuracy_equals_compare_mt(ted):
    """Source-side accuracy by source-word frequency with a reference alignment (here a proportional
    alignment made up for the test: any alignment serves a differential test) against compare-mt's."""
    from mtscore.analysis.buckets import source_word_accuracy
    d, ref, s1, s2, _ = ted
    src = corpus_utils.load_tokens(str(d / "ted.orig.slk"))[:500]
    ref, s1, s2 = ref[:500], s1[:500], s2[:500]
    aligns = [[(i, i * len(r) // len(s)) for i in range(len(s)) if i % 4 != 3] for s, r in zip(src, ref)]
    b = bucketers.FreqWordBucketer(freq_data=src)
    stats, *_ = b.calc_statistics(ref, [s1, s2], src=src, ref_aligns=aligns)
    ours = source_word_accuracy({"sys1": s1, "sys2": s2}, ref, src, aligns, n_resamples=0)
    for k in range(2):
        for bi, (mcnt, rcnt, ocnt, rec, prec, fmeas) in enumerate(stats[k]):
            assert (ours.matches[k][bi], ours.ref_words[bi]) == (mcnt, rcnt)
            assert ours.recall[k][bi].value == pytest.approx(rec, abs=1e-15)


def _comparemt_bleu_from_our_stats(rows: np.ndarray) -> float:
    """compare-mt's BleuScorer from mtscore's BLEU statistics: it counts at least one n-gram per segment and
    order (``max(1, denom)``) and skips orders with no match (log 0 taken as 0)."""
    hyp, ref = rows[:, 0].sum(), rows[:, 1].sum()
    m = rows[:, 2:6].sum(0)
    t = np.maximum(rows[:, 6:10], 1).sum(0)
    if m[0] == 0:
        return 0.0
    logp = sum(0.25 * math.log(mi / ti) for mi, ti in zip(m, t) if mi > 0)
    return 100 * min(1.0, math.exp(1 - ref / hyp)) * math.exp(logp)


def test_length_buckets_equal_compare_mt(ted):
    """BLEU per reference-length bucket and segment counts per length-difference bucket, as compare-mt's
    default sentence-bucket reports. Its BLEU differs from standard BLEU only through ``max(1, denom)`` and
    zero-match orders; the test shows that this is the whole difference (and that ours is sacreBLEU's)."""
    import sacrebleu
    _, ref, s1, s2, lines = ted
    bl = bucketers.create_sentence_bucketer_from_profile("length")
    scorer = scorers.create_scorer_from_profile("bleu")
    bleu = BLEU(tokenize="none", smooth="none")
    refs = [[r] for r in lines["ref"]]
    rl = np.array([len(r) for r in ref])
    for key, toks in (("sys1", s1), ("sys2", s2)):
        cm = [scorer.score_corpus(r, o)[0] for (o, r, _) in bl.create_bucketed_corpus(toks, ref=ref)]
        stats = bleu.stats(lines[key], refs)
        ours = sentence_buckets({key: rl}, Buckets(DEFAULT_LENGTH_CUTOFFS), "reference length",
                                stats={key: stats}, metric=bleu, n_resamples=0)
        idx = Buckets(DEFAULT_LENGTH_CUTOFFS).index(rl)
        for b, expected in enumerate(cm):
            sel = np.flatnonzero(idx == b)
            assert _comparemt_bleu_from_our_stats(stats.values[sel]) == pytest.approx(expected, rel=1e-12)
            ours_b = ours.values[0][b].value
            sb = sacrebleu.corpus_bleu([lines[key][i] for i in sel], [[lines["ref"][i] for i in sel]],
                                       tokenize="none", smooth_method="none").score
            assert ours_b == pytest.approx(sb, rel=1e-12)
            if (stats.values[sel, 6:10] >= 1).all():  # no segment shorter than 4 words: identical to compare-mt
                assert ours_b == pytest.approx(expected, rel=1e-12)
    bd = bucketers.create_sentence_bucketer_from_profile("lengthdiff")
    for toks in (s1, s2):
        cm_counts = [len(o) for (o, _, _) in bd.create_bucketed_corpus(toks, ref=ref)]
        d = np.array([len(h) - len(r) for h, r in zip(toks, ref)])
        ours = sentence_buckets({"s": d}, Buckets(DEFAULT_LENGTHDIFF_CUTOFFS), "length difference")
        assert list(ours.counts[0]) == cm_counts and ours.buckets == tuple(bd.bucket_strs)


def test_ngram_differences_equal_compare_mt(ted):
    _, ref, s1, s2, _ = ted
    c1, c2 = ngram_utils.compare_ngrams(ref, s1), ngram_utils.compare_ngrams(ref, s2)  # (all, match, over, under)
    for compare, k in (("match", 1), ("over", 2), ("under", 3)):
        cm = stat_utils.extract_salient_features(c1[k], c2[k], alpha=1.0)
        ours = ngram_differences(s1, s2, ref, names=("sys1", "sys2"), compare=compare, top=50)
        assert {tuple(g.split(" ")): v for g, v in ours.scores.items()} == cm  # exactly (85k n-grams)
        top = sorted(cm.values(), reverse=True)[:50]
        assert [x.score for x in ours.a_better] == top
        assert [x.score for x in ours.b_better] == sorted(cm.values())[:50]
        for x in ours.a_better:
            assert (x.count_a, x.count_b) == (c1[k][tuple(x.ngram.split(" "))], c2[k][tuple(x.ngram.split(" "))])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=9), st.lists(st.sampled_from("abcde"), max_size=9))
def test_alignment_is_minimal_and_covers_both_sides(hyp, ref):
    a = align(hyp, ref)
    assert [p[1] for p in a.pairs if p[1] is not None] == hyp
    assert [p[2] for p in a.pairs if p[2] is not None] == ref
    # minimal: the number of edits equals the Levenshtein distance (plain-Python oracle)
    d = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, d[0] = d[0], i
        for j, h in enumerate(hyp, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
    assert a.substitutions + a.deletions + a.insertions == d[-1]


def test_alignment_counts_equal_jiwer(ted):
    jiwer = pytest.importorskip("jiwer", reason="needs jiwer (test extra)")
    _, ref, s1, s2, lines = ted
    for toks, key in ((s1, "sys1"), (s2, "sys2")):
        summary = align_corpus(key, toks, ref)
        out = jiwer.process_words(lines["ref"], lines[key])
        assert (summary.hits, summary.substitutions, summary.deletions, summary.insertions) == (
            out.hits, out.substitutions, out.deletions, out.insertions)
        assert summary.wer == pytest.approx(out.wer, abs=1e-15)
        for i in range(0, len(ref), 97):  # per segment too
            o = jiwer.process_words(lines["ref"][i], lines[key][i])
            sg = summary.segments[i]
            assert (sg.hits, sg.substitutions, sg.deletions, sg.insertions) == (
                o.hits, o.substitutions, o.deletions, o.insertions)


def test_document_level_bleu_equals_sacrebleu_on_joined_documents():
    import sacrebleu
    d = data_path("wmt23")
    ref = (d / "references" / "en-de.refA.txt").read_text(encoding="utf-8").split("\n")[:-1]
    ids = read_doc_ids(str(d / "documents" / "en-de.docs"), len(ref))
    systems = {}
    for name in ("ONLINE-A", "ONLINE-B"):
        p = d / "system-outputs" / "en-de" / f"{name}.txt"
        if not p.exists():
            pytest.skip(f"real data not available: {p}")
        systems[name] = p.read_text(encoding="utf-8").split("\n")[:-1]
    bleu = BLEU()
    rep = document_scores(systems, [[r] for r in ref], ids, bleu, n_resamples=200)
    order = list(dict.fromkeys(ids))
    assert [x.doc for x in rep.documents] == order
    join = lambda lines, doc: " ".join(lines[i] for i, x in enumerate(ids) if x == doc)  # noqa: E731
    for k, (name, hyps) in enumerate(systems.items()):
        docs_h = [join(hyps, doc) for doc in order]
        docs_r = [join(ref, doc) for doc in order]
        assert rep.corpus[k] == pytest.approx(sacrebleu.corpus_bleu(docs_h, [docs_r]).score, abs=1e-9)
        sb = sacrebleu.metrics.BLEU(effective_order=True)
        for j in range(0, len(order), 7):
            assert rep.documents[j].scores[k] == pytest.approx(sb.sentence_score(docs_h[j], [docs_r[j]]).score,
                                                                 abs=1e-9)
    from mtscore.significance import MIN_SEGMENTS  # fewer segments: no test (docs/significance.md, "Tiny samples")
    assert all(0 < x.p_value <= 1 for x in rep.documents if x.n_segments >= MIN_SEGMENTS)
    assert all(x.p_value is None for x in rep.documents if x.n_segments < MIN_SEGMENTS)


def test_score_difference_buckets_plain_reference():
    rng = np.random.default_rng(0)
    a, b = rng.normal(20, 10, 300), rng.normal(21, 10, 300)
    r = score_difference_buckets({"A": a, "B": b}, "A", "BLEU")
    d = b - a
    assert r.wins == ((d > 0).sum(),) and r.losses == ((d < 0).sum(),) and sum(r.counts[0]) == 300
    edges = [-np.inf, -10, -5, -1, 0, 1, 5, 10, np.inf]
    assert list(r.counts[0]) == [int(((d >= lo) & (d < hi)).sum()) for lo, hi in zip(edges, edges[1:])]
    lower = score_difference_buckets({"A": a, "B": b}, "A", "TER", higher_is_better=False)
    assert lower.wins == r.losses


def test_bucket_cutoffs_validation():
    for bad in ("", "3:2", "1:x", "1:nan"):
        with pytest.raises(InvalidParameterError):
            parse_cutoffs(bad)


def test_bootstrap_cis_contain_the_estimate(ted):
    _, ref, s1, s2, _ = ted
    r = word_accuracy({"sys1": s1[:400], "sys2": s2[:400]}, ref[:400], n_resamples=200, seed=7)
    for row in r.fmeasure:
        for s in row[1:]:
            assert s.ci[0] <= s.value <= s.ci[1] or s.value == 0


def test_documents_file_errors(tmp_path):
    p = tmp_path / "docs"
    p.write_text("news\td1\nnews\t\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty document id"):
        read_doc_ids(str(p))
    p.write_text("a\tb\tc\n", encoding="utf-8")
    with pytest.raises(InputError, match="columns"):
        read_doc_ids(str(p))
    p.write_text("d1\nd2\n", encoding="utf-8")
    with pytest.raises(InputError, match="docs has 2 lines, each input has 3 lines"):
        read_doc_ids(str(p), 3)


# ------------------------------------------------------------------------------------------------ CLI
def _cli(*args):
    p = subprocess.run([sys.executable, "-m", "mtscore", "analyse", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def test_cli_analyses_run_and_agree_with_the_library(ted, tmp_path):
    d, ref, s1, s2, _ = ted
    files = ["-r", str(d / "ted.ref.detok.eng"), "-i", str(d / "ted.sys1.detok.eng"), str(d / "ted.sys2.detok.eng")]
    rc, out, err = _cli("words", *files, "--tokenize", "none", "--resamples", "0", "-f", "json")
    assert rc == 0, err
    table = json.loads(out)["tables"][0]
    lib = word_accuracy({"a": s1, "b": s2}, ref, n_resamples=0)
    f_cols = [c for c in table["columns"] if c.endswith("F-measure")]
    # the library keeps compare-mt's values; the table writes null (text: -) where a bucket has no word to measure
    assert [[row[c] for row in table["rows"]] for c in f_cols] == [
        [None if lib.ref_words[b] == 0 and lib.hyp_words[k][b] == 0 else x.value for b, x in enumerate(r)]
        for k, r in enumerate(lib.fmeasure)]
    for sub in (["lengths", "--resamples", "50"], ["lengths", "--by", "lengthdiff"], ["wins", "-m", "bleu", "chrf"],
                ["words", "--by", "pos", "--resamples", "0"],
                ["ngrams", "--top", "5"], ["align", "--segments"]):
        rc, out, err = _cli(*sub, *files)
        assert rc == 0 and out.strip() and err == "", (sub, err)
    src = (d / "ted.orig.slk").read_text(encoding="utf-8").split("\n")[:-1]
    al = tmp_path / "align"
    al.write_text("".join(" ".join(f"{i}-{i * len(r) // max(1, len(s.split()))}" for i in range(len(s.split())))
                          + "\n" for s, r in zip(src, ref)), encoding="utf-8")
    rc, out, err = _cli("words", *files, "--tokenize", "none", "--src", str(d / "ted.orig.slk"), "--src-align",
                        str(al), "--resamples", "0")
    assert rc == 0 and "source frequency" in out, err
    rc, out, err = _cli("words", *files, "--src", str(d / "ted.orig.slk"))
    assert rc == 2 and "--src-align" in err
    rc, out, err = _cli("ngrams", *files[:4])
    assert rc == 2 and err.count("\n") == 1 and "two systems" in err
    rc, out, err = _cli("words", *files, "--cutoffs", "5:1")
    assert rc == 2 and "--cutoffs" in err and "increasing" in err
