"""``sacrebleu.version``: the sacreBLEU API version the drop-in imitates."""
__version__ = "2.6.0"
