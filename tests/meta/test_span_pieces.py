"""Span scoring on the pieces between span boundaries (mtscore.meta.spans.segment_counts): equal to a plain
character-by-character scorer written here from docs/meta.md, for every severity mode, and proportional to the
number of spans rather than to their offsets (a span ending at character 10^12)."""
from __future__ import annotations

import random
import signal

import pytest

from mtscore.meta import spans as SP


def _plain(gold, pred, mode, mismatch):
    """Per character: the most severe covering span (partial / ignore), or the WMT25 per-severity counts."""
    n = max([b for _, b, _ in gold + pred] + [0])
    if mode == "wmt25":
        def counts(spans):
            major, minor = [0] * n, [0] * n
            for a, b, s in spans:
                for c in range(a, b):
                    (major if s >= 2 else minor)[c] += 1
            return major, minor
        gM, gm = counts(gold)
        pM, pm = counts(pred)
        credit = sum(min(a, b) + min(x, y) + mismatch * min(max(0, a - b) + max(0, x - y),
                                                              max(0, b - a) + max(0, y - x))
                     for a, b, x, y in zip(gM, pM, gm, pm))
        return credit, sum(pM) + sum(pm), sum(gM) + sum(gm)
    g, p = [0] * n, [0] * n
    for table, spans in ((g, gold), (p, pred)):
        for a, b, s in spans:
            for c in range(a, b):
                table[c] = max(table[c], s)
    credit = sum((1.0 if (mode == "ignore" or x == y) else mismatch) for x, y in zip(g, p) if x and y)
    return credit, sum(1 for y in p if y), sum(1 for x in g if x)


@pytest.mark.parametrize("mode", ["partial", "ignore", "wmt25"])
def test_pieces_equal_characters(mode):
    rnd = random.Random(37)
    severity = {"partial": True, "ignore": False, "wmt25": "wmt25"}[mode]
    for _ in range(400):
        n = rnd.randint(1, 60)

        def spans():
            out = []
            for _ in range(rnd.randint(0, 6)):
                a = rnd.randint(0, n)
                out.append((a, rnd.randint(a, n), rnd.choice((1, 2, 3))))  # empty spans too
            return out
        g, p = spans(), spans()
        mismatch = rnd.choice((0.5, 0.25, 0.0, 1.0))
        got = SP.segment_counts(g, p, severity, mismatch)
        want = _plain(g, p, mode, mismatch)
        assert got[1:] == want[1:] and got[0] == pytest.approx(want[0], abs=1e-9), (g, p, mode)


class _Hang(BaseException):
    pass


def _guarded(fn, *args):
    """A guard against enumerating 10^12 characters (a hang), not a timing claim."""
    def hang(signum, frame):
        raise _Hang("segment_counts enumerates characters")
    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(60)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("mode", [True, False, "wmt25"])
def test_a_span_ending_at_ten_to_the_twelve(mode):
    big = 10 ** 12
    gold = [(0, 3, 2), (5, 9, 1)]
    pred = [(0, big, 2)]
    credit, npred, ngold = _guarded(SP.segment_counts, gold, pred, mode)
    # 3 characters agree (major); 4 are minor in the gold and major in the prediction (0.5 each, or 1 ignoring
    # severities); the prediction marks every one of its 10^12 characters
    assert (npred, ngold) == (big, 7)
    assert credit == {True: 3 + 4 * 0.5, False: 7.0, "wmt25": 3 + 4 * 0.5}[mode]
    assert _guarded(SP.segment_counts, [(0, big, 3), (big - 1, 2 * big, 1)], [(big - 2, big + 2, 3)], True) == \
        (2 + 2 * 0.5, 4, 2 * big)
