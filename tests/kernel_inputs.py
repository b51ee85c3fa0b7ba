"""Input layouts of the compiled kernels, shared by the kernel tests (tests/kernels) and the metric tests that
call a kernel directly (tests/metrics/test_chrf.py)."""
import numpy as np


def code_points(texts: list[str]):
    """Code points of all texts concatenated (int64) and the text offsets (the kernels' input layout)."""
    lens = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    off = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    cps = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    return cps, off
