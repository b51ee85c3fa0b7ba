"""Per-segment statistics and corpus scores of every metric are bit-identical to the known answers
recorded before the numba -> C port. The file is produced by scripts/make_known_answers.py;
deliberate changes since are listed in tests/known_answers/CHANGES.md. Takes ~20 s."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "tests" / "known_answers" / "metrics.json"
from conftest import DATA  # noqa: E402  (MTSCORE_TEST_DATA)


def _script():
    spec = importlib.util.spec_from_file_location("make_known_answers", ROOT / "scripts" / "make_known_answers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_known_answers_file_exists():
    # fails (never skips) when the file is missing: it cannot be regenerated from an older commit by CI
    assert FILE.is_file(), f"{FILE} is missing (scripts/make_known_answers.py writes it)"
    data = json.loads(FILE.read_text())
    assert len(data["commit"]) == 40 and data["answers"]


@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is absent")
def test_every_metric_bit_identical():
    want = json.loads(FILE.read_text())["answers"]
    got = _script().compute()
    assert sorted(got) == sorted(want), "the set of metrics/slices changed: regenerate and list it in CHANGES.md"
    bad = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
    assert not bad, f"{len(bad)} of {len(want)} known answers differ: {sorted(bad)[:10]}"
