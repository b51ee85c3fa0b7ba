"""script_hint decides most text without the regex module (a CJK-block superset count against the characters
str.split() keeps); the answer is the full regex count's on every text (hypothesis). Takes ~2 s."""
from hypothesis import given, settings
from hypothesis import strategies as st

from mtscore.tokenize import languages as L

_CHARS = st.sampled_from(list("ab Z.\t\n\u3000\x1c\xa0\x85") + ["東", "京", "は", "カ", "한", "국", "\u2e80",
                                                                 "\uff21", "\U00020000", "\u1100", "é", "—"])


def _full(text):
    c = L._script_counts(text)
    cjk = c["han"] + c["kana"] + c["hangul"]
    if c["nonspace"] == 0 or 2 * cjk <= c["nonspace"]:
        return None
    if c["hangul"] >= c["han"] + c["kana"]:
        return "ko-mecab"
    return "ja-mecab" if 10 * c["kana"] >= cjk else "zh"


@settings(max_examples=400, deadline=None)
@given(st.lists(_CHARS, max_size=40).map("".join))
def test_script_hint_is_the_full_count(text):
    assert L.script_hint([text]) == _full(text)
