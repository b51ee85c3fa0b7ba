"""Build of the optional compiled kernel ``mtscore._ckernel`` (all metadata is in pyproject.toml).

The extension is optional: where no C compiler is available the install still succeeds and the BLEU
fast path runs on the numba kernels instead (``mtscore.text.fast.kernel_backend()`` says which)."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("mtscore._ckernel", ["src/mtscore/_ckernel.c"], extra_compile_args=["-O3"],
                             optional=True)])
