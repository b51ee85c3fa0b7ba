"""mtscore's shim for sacreBLEU 2.6 (the ``sacrebleu`` distribution ``2.6.0+mtscore...``).

``import sacrebleu`` gives :mod:`mtscore.sacrebleu` itself, and ``sacrebleu.X`` (``sacrebleu.metrics``,
``sacrebleu.utils``, ``sacrebleu.dataset``, ``sacrebleu.tokenizers.tokenizer_ter``, ``sacrebleu.sacrebleu``
...) the module ``mtscore.sacrebleu.X``: the same module objects under both names, so classes and
exceptions are one. To go back to the real sacreBLEU: ``pip uninstall sacrebleu && pip install sacrebleu``.
"""
import importlib
import importlib.abc
import importlib.util
import sys

_PREFIX = __name__ + "."


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``sacrebleu.X`` -> the already-imported module ``mtscore.sacrebleu.X``."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX) or fullname.endswith(".__main__"):
            return None  # __main__: found on the package's path (mtscore/sacrebleu/__main__.py) for python -m
        if importlib.util.find_spec("mtscore." + fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return importlib.import_module("mtscore." + spec.name)

    def exec_module(self, module):
        pass


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.insert(0, _Alias())

import mtscore.sacrebleu as _impl  # noqa: E402

sys.modules[__name__] = _impl
