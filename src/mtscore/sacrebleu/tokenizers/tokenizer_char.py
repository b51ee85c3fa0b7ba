"""sacreBLEU's ``TokenizerChar`` under its module and class name."""
from . import _named

TokenizerChar = _named("TokenizerChar", "char")
