"""Build of the optional compiled kernels (all metadata is in pyproject.toml): ``mtscore._ckernel``
(13a tokenize + encode, BLEU), ``mtscore._cmetrics`` (chrF, TER, ...) and ``mtscore._cmeta`` (the
meta-evaluation statistics).

The extensions are optional: where no C compiler is available the install still succeeds and mtscore
runs the reference implementations instead, with the same results (one warning line on stderr when a
kernel is first used; ``mtscore.text.fast.kernel_backend()`` says which path runs)."""
from setuptools import Extension, setup

# -ffp-contract=off: no fused multiply-add (bit-identical floats to the reference implementations on every CPU)
_FLAGS = dict(extra_compile_args=["-O3", "-ffp-contract=off"], optional=True)
setup(ext_modules=[Extension("mtscore._ckernel", ["src/mtscore/_ckernel.c"], extra_link_args=["-lm"], **_FLAGS),
                   Extension("mtscore._cmetrics", ["src/mtscore/_cmetrics.c"], extra_link_args=["-lm", "-lpthread"],
                             depends=["src/mtscore/_cpool.h"],
                             **_FLAGS),
                   # no fused multiply-add: bit-identical to the reference implementations (meta/_kernels.py)
                   Extension("mtscore._cmeta", ["src/mtscore/_cmeta.c"], extra_link_args=["-lm", "-lpthread"],
                             depends=["src/mtscore/_cpool.h"],
                             extra_compile_args=["-O3", "-ffp-contract=off"], optional=True)])
