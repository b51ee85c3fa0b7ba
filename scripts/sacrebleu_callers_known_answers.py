"""Known answers for tests/sacrebleu/test_sacrebleu_callers.py: the real sacreBLEU's results for the vendored
callers (Hugging Face evaluate's metric scripts, lm-evaluation-harness's metric functions) on the first LINES
segments of WMT17 en-de and WMT21 en-de, as tests/fixtures/sacrebleu_callers/run_callers.py prints them, with the
sacreBLEU version and the sha256 of every input (the data files read, run_callers.py and the vendored callers), so
that the test runs the real sacreBLEU only when the shim's results, the inputs or the installed sacreBLEU differ.

    python scripts/sacrebleu_callers_known_answers.py DATA 60 > tests/fixtures/sacrebleu_callers/known_first_60_segments.json

DATA: the data folder (../shared/data beside the project). Needs sacrebleu==2.6.0 (the test extra's pin) installed
and mtscore's shim NOT on PYTHONPATH (the script checks that the real sacreBLEU ran)."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

CALLERS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "sacrebleu_callers"


def input_files(data: Path) -> dict:
    """name -> path of every file the callers' results depend on: the data run_callers.py reads, itself and the
    vendored callers."""
    d17, d21 = data / "wmt17-en-de", data / "wmt21"
    files = [d17 / "newstest2017.en-de.ref0.de"]
    files += [d17 / "systems" / f"newstest2017.{s}.en-de" for s in ("online-A.0", "LIUM-NMT.4900", "KIT.4950")]
    files += [d21 / "references" / f"newstest2021.en-de.ref.{r}.de" for r in "ACD"]
    files += [d21 / "system-outputs" / f"newstest2021.en-de.hyp.{s}.de" for s in ("Facebook-AI", "Online-W", "UEdin")]
    out = {str(f.relative_to(data)): f for f in files}
    for f in sorted(CALLERS.rglob("*.py")):
        out[f"sacrebleu_callers/{f.relative_to(CALLERS).as_posix()}"] = f
    return out


def input_digests(data: Path) -> dict:
    return {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in input_files(data).items()}


def main() -> None:
    import sacrebleu
    data, lines = Path(sys.argv[1]).resolve(), int(sys.argv[2])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "SACREBLEU"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    r = subprocess.run([sys.executable, str(CALLERS / "run_callers.py"), str(data), str(lines)], env=env,
                       capture_output=True, text=True, check=True)
    res = json.loads(r.stdout)
    if res["sacrebleu_module"] != "sacrebleu" or sacrebleu.__name__ != "sacrebleu":
        sys.exit("the real sacreBLEU must run (mtscore's shim is on the path)")
    out = {"sacrebleu": sacrebleu.__version__, "script": "scripts/sacrebleu_callers_known_answers.py",
           "inputs": input_digests(data), **res}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
