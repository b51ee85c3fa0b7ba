"""The report explorer's data (analysis/explore.py) and its embedding (report/explorer.py), without a browser."""
from __future__ import annotations

import json
import re
from collections import Counter

from hypothesis import given, settings, strategies as st

from mtscore.analysis.explore import explorer_data, matched_orders
from mtscore.metrics.bleu import BLEU
from mtscore.report.explorer import SCRIPT, explorer_html, script_hash


def _orders_reference(hyp, refs, max_order=4):
    """Plain reference: for each order, hypothesis n-gram instances matched left to right against the
    maximum reference count; a token's value is the highest order of a matched instance covering it."""
    best = [0] * len(hyp)
    for n in range(1, max_order + 1):
        avail = Counter()
        for r in refs:
            for g, k in Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1)).items():
                avail[g] = max(avail[g], k)
        for i in range(len(hyp) - n + 1):
            g = tuple(hyp[i:i + n])
            if avail[g]:
                avail[g] -= 1
                best[i:i + n] = [n] * n
    return "".join(map(str, best))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=10), st.lists(st.lists(st.sampled_from("abcd"), max_size=10),
                                                                min_size=1, max_size=3))
def test_matched_orders_against_reference(hyp, refs):
    got = matched_orders(hyp, refs)
    assert got == _orders_reference(hyp, refs) and len(got) == len(hyp)
    # a token is in a matched unigram exactly when BLEU's clipped unigram count allows it
    clip = sum(min(c, max(Counter(r)[w] for r in refs)) for w, c in Counter(hyp).items())
    assert sum(ch != "0" for ch in got) >= clip


def test_data_block_cannot_close_the_script_element():
    hyps = {"A": ["</script><script>alert(1)</script>", "ok"], "B": ["x", "y"]}
    refs = [["</script> ref"], ["ok"]]
    bleu = BLEU()
    data = explorer_data(hyps, refs, [(bleu, [bleu.stats(h, refs) for h in hyps.values()])], ["l1", "l2"])
    html = explorer_html(data)
    block = re.search(r'<script type="application/json" id="mx-data">(.*?)</script>', html, re.S).group(1)
    assert "</" not in block
    obj = json.loads(block)
    assert obj["hyps"][0][0] == "< / script > < script > alert ( 1 ) < / script >"  # 13a tokens, as the metrics see
    assert obj["labels"] == ["l1", "l2"] and obj["metrics"][0]["name"] == "BLEU"
    # scores are embedded rounded to 6 decimals
    assert obj["scores"][0][0][1] == round(float(bleu.sentence_scores(bleu.stats(["ok"], [["ok"]]))[0]), 6)


def test_script_hash_is_the_csp_source_of_the_script():
    import base64
    import hashlib
    h = script_hash()
    assert h == "'sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode() + "'"
    assert "fetch(" not in SCRIPT and "XMLHttpRequest" not in SCRIPT and "eval(" not in SCRIPT


def test_bucket_tables_with_an_empty_bucket_render_in_every_format():
    """A bucket without segments has no interval: its row still has every column (regression: the report
    page failed when a length bucket was empty)."""
    import numpy as np
    from mtscore.analysis.buckets import Buckets, sentence_buckets, word_accuracy
    from mtscore.report.analyses import sentence_bucket_table, word_accuracy_table
    from mtscore.report.html import table_html
    from mtscore.report.tables import FORMATS, render_table
    hyps = ["the cat sat", "a dog", "the end", "more words here now"] * 5
    refs = [["the cat sat down"], ["a dog"], ["the end"], ["some words here"]] * 5
    bleu = BLEU()
    lengths = np.array([len(r[0].split()) for r in refs])
    sb = sentence_buckets({"A": lengths, "B": lengths}, Buckets((2, 3, 100)), "reference length",
                          stats={"A": bleu.stats(hyps, refs), "B": bleu.stats(hyps[::-1], refs)}, metric=bleu,
                          n_resamples=20)
    assert sb.counts[0][-1] == 0 and sb.values[0][-1].ci is None
    wa = word_accuracy({"A": [h.split() for h in hyps]}, [r[0].split() for r in refs], n_resamples=20)
    for t in (sentence_bucket_table(sb), word_accuracy_table(wa)):
        assert all(len(row) == len(t.columns) for row in t.rows)
        table_html(t)
        for fmt in FORMATS:
            render_table(t, fmt)
