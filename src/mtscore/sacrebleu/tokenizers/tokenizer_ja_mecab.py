"""sacreBLEU's ``TokenizerJaMecab`` under its module and class name."""
from . import _named

TokenizerJaMecab = _named("TokenizerJaMecab", "ja-mecab")
