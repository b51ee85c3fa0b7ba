"""sacreBLEU's ``TokenizerV14International`` under its module and class name."""
from . import _named

TokenizerV14International = _named("TokenizerV14International", "intl")
