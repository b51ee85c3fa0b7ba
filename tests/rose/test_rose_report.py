"""The correlation helpers of scripts/rose_report.py against docs/definitions.md §9 and scipy."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

spec = importlib.util.spec_from_file_location("rose_report", Path(__file__).resolve().parents[2] / "scripts" / "rose_report.py")
rr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rr)


def test_spec_example():
    y = np.array([1, 2, 2, 3, 4], float)  # human
    x = np.array([1, 2.5, 2, 2, 8], float)  # metric
    tau, n = rr.kendall_wmt10(x[:, None], y[:, None])  # 5 systems, one segment
    assert n == 9 and tau == pytest.approx(5 / 9)
    assert rr.pearson(x, y) == pytest.approx(0.8479, abs=1e-4)
    assert rr.spearman(x, y) == pytest.approx(0.7632, abs=1e-4)


def test_against_scipy_and_unrated():
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.integers(0, 5, 8).astype(float)
        y = rng.integers(0, 5, 8).astype(float)
        assert rr.spearman(x, y) == pytest.approx(scipy.stats.spearmanr(x, y)[0], nan_ok=True)
        assert rr.pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y)[0], nan_ok=True)
    H = np.array([[1.0, np.nan], [2.0, 3.0], [2.0, 1.0]])
    M = np.array([[0.0, 5.0], [1.0, 2.0], [1.0, 2.0]])
    # seg 0: pairs (0,1) conc, (0,2) conc, (1,2) human tie dropped; seg 1: (1,2) metric tie -> discordant
    assert rr.kendall_wmt10(M, H) == (pytest.approx(1 / 3), 3)
