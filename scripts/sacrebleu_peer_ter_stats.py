"""Known answers for tests/sacrebleu/test_sacrebleu_api.py: sacreBLEU's TER segment statistics (its pure-Python
shift search, ~20 s per run of those tests) of every input those tests give the installed sacreBLEU's TER, keyed by
the sha256 of the metric's class, signature, hypotheses and reference strings (the tests' ``peer_stats_once``).

The script runs the tests that use them with MTSCORE_TEST_RECORD_PEER_STATS set, so that every statistic is
computed by sacreBLEU there (nothing stored is read; the tests still compare everything), and writes the TER ones:

    MTSCORE_TEST_DATA=DATA python scripts/sacrebleu_peer_ter_stats.py > tests/known_answers/sacrebleu-ter-segment-stats.json

DATA: the data folder (../shared/data beside the project). Needs sacrebleu==2.6.0 (the test extra's pin)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ("test_same_objects_as_installed_sacrebleu", "test_bootstrap_ci_identical_and_seed_env",
         "test_paired_ar_with_confidence_identical")


def main() -> None:
    import pytest
    import sacrebleu
    os.environ["MTSCORE_TEST_RECORD_PEER_STATS"] = "1"
    out, sys.stdout = sys.stdout, sys.stderr  # pytest's report to stderr
    try:
        rc = pytest.main(["-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "sacrebleu" /
                          "test_sacrebleu_api.py"), "-k", " or ".join(TESTS)])
    finally:
        sys.stdout = out
    if rc != 0:
        sys.exit(f"the tests failed (exit status {rc}): nothing written")
    module = sys.modules["test_sacrebleu_api"]
    stats = {k: v for k, v in module._PEER_STATS.items() if k.startswith("TER:")}
    json.dump({"sacrebleu": sacrebleu.__version__, "script": "scripts/sacrebleu_peer_ter_stats.py",
               "tests": list(TESTS), "stats": dict(sorted(stats.items()))}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
