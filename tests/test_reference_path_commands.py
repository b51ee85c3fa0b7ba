"""Every command that runs compiled kernels prints the same with ``MTSCORE_KERNELS=reference`` as with ``=c``,
each in a fresh process (as a user's run is: only what the command imports is imported). Found on a checkout whose
extension predated the alignment kernel: ``report`` fell back to the reference of ``align_ops`` that nothing had
registered (``RuntimeError: no reference implementation registered``): the explorer imports only ``ckernels``.
A no-compiler install (tests/test_no_compiler.py) takes the same path for every kernel."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mtscore
from mtscore import ckernels

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = Path(mtscore.__path__[0]) / "data" / "sample"
SYSTEMS = ["uedin-nmt.de", "online-B.de", "LIUM-NMT.de"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The first 40 segments of the built-in sample (the reference path of TER/GTM/LCM is plain Python)."""
    d = tmp_path_factory.mktemp("ref-path")
    for name in ["newstest2017.en-de.ref.de", *SYSTEMS]:
        lines = (SAMPLE / name).read_text(encoding="utf-8").split("\n")[:40]
        (d / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def _run(argv, kernels):
    env = {k: v for k, v in os.environ.items() if k != "MTSCORE_TEST_FAULT"}
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["MTSCORE_KERNELS"] = kernels  # (the analyses without --threads have no --kernels option)
    p = subprocess.run([sys.executable, "-m", "mtscore", *argv], capture_output=True, text=True, env=env,
                       timeout=600)
    assert p.returncode == 0, (argv, kernels, p.stderr[-3000:])
    assert "Traceback" not in p.stderr
    return p.stdout


COMMANDS = {
    "score": lambda d: ["score", "-q", "-r", d / "newstest2017.en-de.ref.de", "-i", *(d / s for s in SYSTEMS),
                        "-m", "bleu", "chrf", "chrf++", "ter", "wer", "nist", "4-grr", "gtm", "lcm", "rose",
                        "--sentence-level", "-f", "tsv"],
    "compare": lambda d: ["compare", "-q", "-r", d / "newstest2017.en-de.ref.de", "-i", *(d / s for s in SYSTEMS),
                          "-m", "bleu", "chrf", "ter", "-f", "json", "--n-samples", "200"],
    "report": lambda d: ["report", "-q", "-r", d / "newstest2017.en-de.ref.de", "-i", *(d / s for s in SYSTEMS),
                         "-o", "/dev/stdout"],  # the HTML page: its explorer aligns words
    "analyse words": lambda d: ["analyse", "words", "-q", "-r", d / "newstest2017.en-de.ref.de",
                                "-i", *(d / s for s in SYSTEMS), "-f", "json"],
    "analyse align": lambda d: ["analyse", "align", "-q", "-r", d / "newstest2017.en-de.ref.de",
                                "-i", *(d / s for s in SYSTEMS), "-f", "json"],
    "analyse ngrams": lambda d: ["analyse", "ngrams", "-q", "-r", d / "newstest2017.en-de.ref.de",
                                 "-i", *(d / s for s in SYSTEMS[:2]), "-f", "json"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_reference_kernels_print_what_compiled_kernels_print(name, sample):
    if ckernels._cmetrics is None:
        pytest.skip("the compiled extension is not built here (the no-compiler test covers that install)")
    argv = [str(x) for x in COMMANDS[name](sample)]
    assert _run(argv, "reference") == _run(argv, "c")


def test_every_kernel_names_the_module_of_its_reference():
    """Each ``register_reference("name", ...)`` in the package is found through ckernels' map, and every kernel
    that ckernels can fall back on has an entry: importing ckernels alone is enough for the reference path."""
    registered = {}
    for path in (ROOT / "src" / "mtscore").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register_reference"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                mod = ".".join(path.relative_to(ROOT / "src" / "mtscore").with_suffix("").parts)
                registered[node.args[0].value] = mod
    fallbacks = set(re.findall(r'_fallback\("(\w+)"', (ROOT / "src" / "mtscore" / "ckernels.py").read_text()))
    assert registered == ckernels._REFERENCE_MODULES
    assert fallbacks <= set(registered), fallbacks - set(registered)
