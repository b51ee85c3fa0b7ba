"""sacreBLEU's ``TokenizerZh`` under its module and class name."""
from . import _named

TokenizerZh = _named("TokenizerZh", "zh")
