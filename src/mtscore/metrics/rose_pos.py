"""POS tags for ROSE's extended features: TextBlob's bundled English tagger or pre-tagged input.

The tagger is TextBlob's ``PatternTagger`` machinery (``textblob.en.parser.find_tags``): Brill's
rule-based tagger (lexicon of Brill's tagger v1.14, trained on the Brown corpus and the Penn
Treebank, plus Pattern's morphological and contextual rules), Penn Treebank tags. The model files
(``textblob/en/en-lexicon.txt``, ``en-context.txt``, ``en-morphology.txt``, ``en-entities.txt``)
ship inside the ``textblob`` wheel on PyPI (MIT licence), so nothing is downloaded at run time.
Install with ``pip install 'mtscore[pos]'``. Tokens are tagged as our tokenizer produced them
(one tag per token).
"""
from __future__ import annotations

from typing import Sequence

from ..errors import InputError, InvalidParameterError, OptionalDependencyError, plural

TAGGERS = ("textblob", "pretagged")


def _textblob_parser():
    try:
        from textblob.en import parser  # bundled lexicon + rules, no download
    except ImportError:
        raise OptionalDependencyError("ROSE POS features (rose-regpos, rose-rankpos; or give pre-tagged "
                                      "word/TAG input with pos_tagger='pretagged')", "textblob", "pos") from None
    return parser


def tagger_available(name: str = "textblob") -> bool:
    if name == "pretagged":
        return True
    try:
        _textblob_parser()
        return True
    except OptionalDependencyError:
        return False


def tag_tokens(sentences: Sequence[Sequence[str]], tagger: str = "textblob") -> list[list[str]]:
    """One POS tag per token of each sentence."""
    if tagger != "textblob":
        raise InvalidParameterError.choice("pos_tagger", tagger, ("textblob",))
    parser = _textblob_parser()
    out = []
    cache: dict = {}
    for toks in sentences:
        key = tuple(toks)
        tags = cache.get(key)
        if tags is None:
            tags = [t for _, t in parser.find_tags(list(toks))] if toks else []
            if len(tags) != len(toks):  # pragma: no cover - the tagger keeps tokens 1:1
                raise InputError(f"POS tagger returned {plural(len(tags), 'tag')} for {plural(len(toks), 'token')}")
            cache[key] = tags
        out.append(tags)
    return out


def split_pretagged(lines: Sequence[str], what: str) -> tuple[list[list[str]], list[list[str]]]:
    """``word/TAG word/TAG ...`` -> (words, tags); the tag is what follows the last '/'."""
    words, tags = [], []
    for i, ln in enumerate(lines):
        ws, ts = [], []
        for tok in ln.split():
            w, sep, t = tok.rpartition("/")
            if not sep or not w or not t:
                raise InputError(f"{what} {i + 1}: token {tok!r} is not word/TAG (pre-tagged input needs a "
                                 "'/TAG' suffix on every token)")
            ws.append(w)
            ts.append(t)
        words.append(ws)
        tags.append(ts)
    return words, tags
