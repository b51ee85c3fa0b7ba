"""Known answers for tests/metrics/test_ter.py: sacreBLEU's TER statistics and edit counts on the test's fixed
inputs (WMT21 en-de: every system on every 40th segment with 1 and 3 references, Facebook-AI on all 1002 segments;
the kernel corner cases), keyed by the sha256 of the inputs, so that the test runs sacreBLEU only where its inputs or
the sacreBLEU version differ.

    MTSCORE_TEST_DATA=DATA PYTHONPATH=src python scripts/sacrebleu_ter_known_answers.py \\
        > tests/known_answers/sacrebleu-ter.json

DATA: the data folder (../shared/data beside the project). Needs sacrebleu==2.6.0 (the test extra's pin). The
script runs the test functions themselves with every sacreBLEU call made live and recorded, so the stored inputs
are exactly the test's (and the test's comparisons hold for them)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "metrics")]
    import sacrebleu
    import test_ter as T
    from conftest import data_path
    from mtscore.io.wmt import load_wmt21
    assert not T.FULL, "unset MTSCORE_FULL_SWEEP: the known answers are for the default selection"
    T.STORED.clear()  # every call live
    answers = {}
    live_peer = T.peer

    def recording(kind, inputs, live):
        value = live_peer(kind, inputs, live)
        answers[T.peer_key(kind, inputs)] = np.asarray(value).tolist()
        return value
    T.peer = recording
    wmt21 = load_wmt21(data_path("wmt21"), "en-de")
    for nrefs in (1, 3):
        T.test_wmt21_all_systems_vs_sacrebleu(wmt21, nrefs)
    T.test_wmt21_one_system_full_corpus(wmt21)
    for hyp, ref in T._pairs():
        T.test_kernel_vs_translation_edit_rate(hyp, ref)
    head = {"sacrebleu": sacrebleu.__version__, "script": "scripts/sacrebleu_ter_known_answers.py"}
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(head.items())]
    lines.append('"answers": {\n' + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(answers.items()))
                 + "\n}")
    sys.stdout.write("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    main()
