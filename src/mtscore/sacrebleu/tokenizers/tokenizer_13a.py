"""sacreBLEU's ``Tokenizer13a`` under its module and class name."""
from . import _named

Tokenizer13a = _named("Tokenizer13a", "13a")
