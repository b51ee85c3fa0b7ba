"""Known answers for tests/metrics/test_chrf.py::test_wmt21_all_systems_vs_sacrebleu: sacreBLEU's chrF / chrF++
segment statistics (sha256), corpus scores, every 37th sentence score and signature on WMT21 en-de (every 4th
segment, the 20 systems, 1 and 3 references), so that the test runs sacreBLEU only when mtscore's statistics, the
data or the installed sacreBLEU differ (it then compares them live, array by array).

    MTSCORE_TEST_DATA=DATA python scripts/sacrebleu_chrf_known_answers.py > tests/known_answers/sacrebleu-chrf-wmt21-en-de.json

DATA: the data folder (../shared/data beside the project). Needs sacrebleu==2.6.0 (the test extra's pin). The
answers are computed by the test module's own peer function (the live path of the test)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"


def main() -> None:
    sys.path[:0] = [str(TESTS / "metrics"), str(TESTS)]
    import sacrebleu
    import test_chrf as t  # noqa: E402  (the test's selection and peer function)
    from conftest import data_path
    from mtscore.io.wmt import load_wmt21
    wmt21 = load_wmt21(data_path("wmt21"), "en-de")
    out = {"sacrebleu": sacrebleu.__version__, "script": "scripts/sacrebleu_chrf_known_answers.py", "answers": {}}
    for nrefs in (1, 3):
        refs_sm, hyps, inputs = t._selection(wmt21, nrefs)
        for word_order in (0, 2):
            answers = t.peer_answers(refs_sm, hyps, word_order, with_stats=False)
            out["answers"][f"{nrefs}:{word_order}"] = {"inputs_sha256": inputs, **answers}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
