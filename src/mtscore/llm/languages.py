"""Language names in the judges' prompts.

GEMBA's prompts name languages in English ("English source: ..."). mtscore takes the names from the language pair
(``-l en-de``) through the table below, or verbatim from ``source_lang=``/``target_lang=``. For ``variant=wmt25``
codes may carry a region or script as WMT25's do (``cs_CZ``, ``sr_Cyrl_RS``) and map to the names the WMT25 scorer
printed (``zh_CN`` -> "Simplified Chinese", ``ar_EG`` -> "Egyptian Arabic", ``sr_Cyrl_RS`` -> "Serbian (Cyrilics)"),
so that its prompts are reproduced exactly; a plain code falls back to the table below.
"""
from __future__ import annotations

from ..errors import InvalidParameterError

NAMES = {
    "af": "Afrikaans", "am": "Amharic", "ar": "Arabic", "az": "Azerbaijani", "be": "Belarusian", "bg": "Bulgarian",
    "bho": "Bhojpuri", "bn": "Bengali", "bs": "Bosnian", "ca": "Catalan", "cs": "Czech", "cy": "Welsh",
    "da": "Danish", "de": "German", "el": "Greek", "en": "English", "eo": "Esperanto", "es": "Spanish",
    "et": "Estonian", "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fil": "Filipino", "fr": "French",
    "ga": "Irish", "gl": "Galician", "gu": "Gujarati", "ha": "Hausa", "he": "Hebrew", "hi": "Hindi",
    "hr": "Croatian", "hu": "Hungarian", "hy": "Armenian", "id": "Indonesian", "is": "Icelandic", "it": "Italian",
    "ja": "Japanese", "ka": "Georgian", "kk": "Kazakh", "km": "Khmer", "kn": "Kannada", "ko": "Korean",
    "ky": "Kyrgyz", "lt": "Lithuanian", "lv": "Latvian", "mas": "Maasai", "mk": "Macedonian", "ml": "Malayalam",
    "mn": "Mongolian", "mr": "Marathi", "ms": "Malay", "mt": "Maltese", "my": "Burmese", "ne": "Nepali",
    "nl": "Dutch", "no": "Norwegian", "pa": "Punjabi", "pl": "Polish", "ps": "Pashto", "pt": "Portuguese",
    "ro": "Romanian", "ru": "Russian", "si": "Sinhala", "sk": "Slovak", "sl": "Slovenian", "so": "Somali",
    "sq": "Albanian", "sr": "Serbian", "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "te": "Telugu",
    "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese",
    "xh": "Xhosa", "yo": "Yoruba", "zh": "Chinese", "zu": "Zulu",
}

# the WMT25 general task's codes and the names its automatic evaluation put in the prompts
WMT25_NAMES = {
    "cs": "Czech", "ja": "Japanese", "en": "English", "cs_CZ": "Czech", "ar_EG": "Egyptian Arabic",
    "bn_BD": "Bengali", "bho_IN": "Bhojpuri", "zh_CN": "Simplified Chinese", "et_EE": "Estonian",
    "fa_IR": "Persian", "de_DE": "German", "el_GR": "Greek", "hi_IN": "Hindi", "is_IS": "Icelandic",
    "id_ID": "Indonesian", "it_IT": "Italian", "ja_JP": "Japanese", "kn_IN": "Kannada", "ko_KR": "Korean",
    "lt_LT": "Lithuanian", "mr_IN": "Marathi", "mas_KE": "Maasai", "ro_RO": "Romanian", "ru_RU": "Russian",
    "sr_Latn_RS": "Serbian (Latin)", "sr_Cyrl_RS": "Serbian (Cyrilics)", "sv_SE": "Swedish", "th_TH": "Thai",
    "tr_TR": "Turkish", "uk_UA": "Ukrainian", "vi_VN": "Vietnamese",
}


def name(code: str, variant: str = "gemba", *, parameter: str = "langpair") -> str:
    """The English name of a language code as the variant's prompts spell it."""
    if variant == "wmt25" and code in WMT25_NAMES:
        return WMT25_NAMES[code]
    base = code.replace("-", "_").split("_")[0].lower()
    if base in NAMES:
        return NAMES[base]
    raise InvalidParameterError(
        f"{parameter}: no language name for code {code!r} (known: ISO 639-1 codes such as en, de, zh; "
        "give the names with source_lang=NAME,target_lang=NAME)")
