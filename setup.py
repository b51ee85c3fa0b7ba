"""Build of the optional compiled kernels (all metadata is in pyproject.toml): ``mtscore._ckernel``
(13a tokenize + encode, BLEU), ``mtscore._cmetrics`` (chrF, TER, ...) and ``mtscore._cmeta`` (the
meta-evaluation statistics).

The extensions are optional: where no C compiler is available the install still succeeds and mtscore
runs the reference implementations instead, with the same results (one warning line on stderr when a
kernel is first used; ``mtscore.text.fast.kernel_backend()`` says which path runs)."""
import compileall
import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildExt(build_ext):
    """``build_ext``; built in place (``pip install -e``: the extensions go next to the sources) it also writes
    the package's ``.pyc`` files, as pip does for a regular install. Without them every start of an editable
    install compiles every module it imports (~0.1 s CPU for a 10-line ``mtscore score``), and with
    ``PYTHONDONTWRITEBYTECODE`` set it would do so on every run, never caching the result (issue 30).
    A source edited later is recompiled on import as usual (Python checks each ``.pyc`` against its source)."""

    def run(self):
        super().run()
        if self.inplace:
            pkg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src", "mtscore")
            if os.path.isdir(pkg):
                compileall.compile_dir(pkg, quiet=1)


# -ffp-contract=off: no fused multiply-add (bit-identical floats to the reference implementations on every CPU)
_FLAGS = dict(extra_compile_args=["-O3", "-ffp-contract=off"], optional=True)
setup(cmdclass={"build_ext": BuildExt},
      ext_modules=[Extension("mtscore._ckernel", ["src/mtscore/_ckernel.c"], extra_link_args=["-lm"], **_FLAGS),
                   Extension("mtscore._cmetrics", ["src/mtscore/_cmetrics.c"], extra_link_args=["-lm", "-lpthread"],
                             depends=["src/mtscore/_cpool.h"],
                             **_FLAGS),
                   # no fused multiply-add: bit-identical to the reference implementations (meta/_kernels.py)
                   Extension("mtscore._cmeta", ["src/mtscore/_cmeta.c"], extra_link_args=["-lm", "-lpthread"],
                             depends=["src/mtscore/_cpool.h"],
                             extra_compile_args=["-O3", "-ffp-contract=off"], optional=True)])
