"""sacreBLEU's ``TokenizerKoMecab`` under its module and class name."""
from . import _named

TokenizerKoMecab = _named("TokenizerKoMecab", "ko-mecab")
