#!/usr/bin/env python3
"""Per-segment BLEU statistics of MultEval's example data, for tests/significance/test_runs_multeval.py.

Usage: PYTHONPATH=src python3 tests/known_answers/multeval/make_stats.py MULTEVAL_CHECKOUT

MultEval's example (jhclark/multeval @ bd93ed16197af93dce6ff3273efa04b9cc9d13ce, example/): 3 systems
(baseline, sys1, sys2) x 3 optimizer runs (opt0..opt2), 2489 lowercased tokenized segments, one reference.
The text is not committed (3.3 MB); its per-segment statistics under mtscore's BLEU with tokenize=none
(MultEval's jBLEU splits on whitespace and does not tokenize) are: example-bleu-stats.npz, int32 array
``stats[system, run, segment, column]`` with mtscore's BLEU columns (hyp_len, ref_len, match_1..4, total_1..4).
MultEval's Length metric is 100 * hyp_len / ref_len of the same columns (one reference: no choice of length).
"""
import os
import sys

import numpy as np

from mtscore.io import read_lines
from mtscore.metrics.bleu import BLEU

root = sys.argv[1]
ex = os.path.join(root, "example")
refs = [[r] for r in read_lines(os.path.join(ex, "refs.test2010.lc.tok.en.0"))]
m = BLEU(tokenize="none")
arr = np.stack([np.stack([m.stats(read_lines(os.path.join(ex, f"hyps.lc.tok.en.{s}.opt{k}")), refs).values
                          for k in range(3)]) for s in ("baseline", "sys1", "sys2")])
assert np.array_equal(arr, np.round(arr))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "example-bleu-stats.npz")
np.savez_compressed(out, stats=arr.astype(np.int32), columns=np.array(m.columns))
print(out, arr.shape)
