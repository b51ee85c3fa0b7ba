"""The languages the neural metrics' encoders were pre-trained on, and the one-line warning for the others.

* XLM-R (COMET, CometKiwi; XLM-R XL for XCOMET): the 100 languages of CC-100 (Conneau et al. 2020, "Unsupervised
  Cross-lingual Representation Learning at Scale", table 6; the list unbabel-comet's README gives). Romanized
  variants (bn/hi/my/ta/te/ur) share their language's code here.
* mT5 (MetricX): the 101 languages of mC4 (Xue et al. 2021, "mT5: A massively multilingual pre-trained
  text-to-text transformer", table 6). Latin-script variants (bg/el/hi/ja/ru/zh-Latn) share their code.

Codes are ISO 639-1 (two letters) where one exists, else ISO 639-2/3 (fil, ceb, haw, hmn); a region or script
suffix (``zh_CN``, ``pt-BR``, ``sr_Latn``) is ignored, and a few older or equivalent codes are mapped (``iw`` ->
``he``, ``tl`` -> ``fil``, ``nb``/``nn`` -> ``no``). No torch here: the check runs before a model is loaded.
"""
from __future__ import annotations

import warnings

XLMR = frozenset("""
af am ar as az be bg bn br bs ca cs cy da de el en eo es et eu fa fi fr fy ga gd gl gu ha he hi hr hu hy id is it
ja jv ka kk km kn ko ku ky la lo lt lv mg mk ml mn mr ms my ne nl no om or pa pl ps pt ro ru sa sd si sk sl so sq
sr su sv sw ta te th fil tr ug uk ur uz vi xh yi zh
""".split())

MT5 = frozenset("""
af am ar az be bg bn ca ceb co cs cy da de el en eo es et eu fa fi fil fr fy ga gd gl gu ha haw hi hmn ht hu hy id
ig is it he ja jv ka kk km kn ko ku ky la lb lo lt lv mg mi mk ml mn mr ms mt my ne nl no ny pa pl ps pt ro ru sd
si sk sl sm sn so sq sr st su sv sw ta te tg th tr uk ur uz vi xh yi yo zh zu
""".split())

ENCODERS = {"xlmr": ("XLM-R", XLMR), "mt5": ("mT5", MT5)}
_ALIASES = {"iw": "he", "tl": "fil", "nb": "no", "nn": "no", "in": "id", "ji": "yi", "jw": "jv", "zho": "zh",
            "eng": "en", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr", "spa": "es", "rus": "ru", "jpn": "ja",
            "ces": "cs", "cze": "cs", "ukr": "uk", "heb": "he", "isl": "is", "ice": "is", "hin": "hi", "ben": "bn",
            "kor": "ko", "por": "pt", "ita": "it", "pol": "pl", "tur": "tr", "ara": "ar", "est": "et", "fin": "fi",
            "lit": "lt", "lav": "lv", "hrv": "hr", "srp": "sr", "slk": "sk", "slv": "sl", "ron": "ro", "rum": "ro",
            "vie": "vi", "tha": "th", "ind": "id", "msa": "ms", "may": "ms", "nld": "nl", "dut": "nl", "swe": "sv",
            "dan": "da", "nor": "no", "nob": "no", "hun": "hu", "ell": "el", "gre": "el", "bul": "bg", "kaz": "kk",
            "tam": "ta", "tel": "te", "urd": "ur", "pus": "ps", "fas": "fa", "per": "fa", "khm": "km", "mya": "my",
            "bur": "my", "amh": "am", "hau": "ha", "som": "so", "swa": "sw", "xho": "xh", "zul": "zu", "yor": "yo",
            "ibo": "ig", "tgl": "fil", "cat": "ca", "eus": "eu", "baq": "eu", "glg": "gl", "cym": "cy", "wel": "cy",
            "gle": "ga", "mlt": "mt", "ltz": "lb", "afr": "af", "sqi": "sq", "alb": "sq", "mkd": "mk", "mac": "mk",
            "bel": "be", "hye": "hy", "arm": "hy", "kat": "ka", "geo": "ka", "aze": "az", "uzb": "uz", "kir": "ky",
            "tgk": "tg", "mon": "mn", "nep": "ne", "mar": "mr", "guj": "gu", "pan": "pa", "kan": "kn", "mal": "ml",
            "sin": "si", "jav": "jv", "sun": "su", "mlg": "mg", "lao": "lo", "epo": "eo", "lat": "la"}


def normalize(code: str) -> str:
    """The language of a code as the lists above name it (region/script suffix dropped, aliases mapped)."""
    c = code.strip().replace("-", "_").split("_", 1)[0].lower()
    return _ALIASES.get(c, c)


def unsupported(langs, encoder: str) -> list[str]:
    """The codes among ``langs`` (as given) whose language ``encoder`` (``xlmr`` or ``mt5``) was not trained on."""
    known = ENCODERS[encoder][1]
    return [x for x in dict.fromkeys(langs) if x and normalize(x) not in known]


def warn_unsupported(metric: str, model: str, langpair: str | None, encoder: str) -> list[str]:
    """One warning line for the languages of ``langpair`` (``SRC-TGT``) that ``encoder`` does not cover; returns
    them."""
    if not langpair or "-" not in langpair:
        return []
    src, tgt = langpair.split("-", 1)
    bad = unsupported([src, tgt], encoder)
    if bad:
        from ..errors import MtscoreWarning
        name, known = ENCODERS[encoder]
        warnings.warn(f"{metric}: {'languages' if len(bad) > 1 else 'language'} "
                      f"{' and '.join(repr(b) for b in bad)} (-l {langpair}) {'are' if len(bad) > 1 else 'is'} not "
                      f"among the languages {name}, the encoder of {model}, was pre-trained on; scores may be "
                      "unreliable", MtscoreWarning, stacklevel=2)
    return bad
