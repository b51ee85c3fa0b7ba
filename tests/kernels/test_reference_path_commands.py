"""Every command that runs compiled kernels prints the same with ``MTSCORE_KERNELS=reference`` as with ``=c``,
each in a fresh process (as a user's run is: only what the command imports is imported). Found on a checkout whose
extension predated the alignment kernel: ``report`` fell back to the reference of ``align_ops`` that nothing had
registered (``RuntimeError: no reference implementation registered``): the explorer imports only ``ckernels``.
A no-compiler install (tests/contracts/test_no_compiler.py) takes the same path for every kernel."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mtscore
from mtscore import ckernels

ROOT = Path(__file__).resolve().parents[2]
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
                          "-m", "bleu", "chrf", "ter", "-f", "json", "--resamples", "200"],
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


def _imported(node, mod: str, is_pkg: bool) -> set[str]:
    """The modules an import statement names (``from . import x`` names the package's module x too)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    pkg = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = ".".join(pkg[:len(pkg) - node.level + 1] if node.level else [])
    target = ".".join(x for x in (base, node.module or "") if x) if node.level else node.module
    return {target} | {f"{target}.{a.name}" for a in node.names}


def _kernel_imports():
    """(module, kernel, module registering the kernel's reference) for every import of a kernel from ckernels
    that is not answered in its own function by an import of the registering module (the pattern
    ``from . import _ter_kernel  # registers the reference`` beside ``from ..ckernels import ter_pairs``)."""
    src = ROOT / "src" / "mtscore"
    registered, users = {}, []
    for path in sorted(src.rglob("*.py")):
        is_pkg = path.name == "__init__.py"
        mod = "mtscore." + ".".join(path.relative_to(src).with_suffix("").parts)
        mod = mod[:-len(".__init__")] if is_pkg else mod
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register_reference"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                registered[node.args[0].value] = mod
        scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for scope in scopes:
            body = [n for n in ast.walk(scope) if isinstance(n, (ast.Import, ast.ImportFrom))]
            if scope is not tree:  # the function's own imports only (not those of functions inside it)
                inner = [n for n in ast.walk(scope) if n is not scope
                         and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                nested = {id(x) for f in inner for x in ast.walk(f)}
                body = [n for n in body if id(n) not in nested]
            else:
                funcs = {id(x) for f in scopes[1:] for x in ast.walk(f)}
                body = [n for n in body if id(n) not in funcs]
            names = set().union(*(_imported(n, mod, is_pkg) for n in body)) if body else set()
            for n in body:
                if isinstance(n, ast.ImportFrom) and (n.module or "").endswith("ckernels"):
                    users += [(mod, a.name, scope is tree, names) for a in n.names]
    kernels = [(m, k, top, names) for m, k, top, names in users if k in registered]
    return [(m, k, registered[k]) for m, k, top, names in kernels
            if registered[k] != m and (top or registered[k] not in names)], len(kernels)


def test_importing_a_kernel_registers_its_reference():
    """Each module that imports a kernel from ckernels, imported alone in a fresh process, leaves the kernel's
    reference registered (it is the registering module or imports it): the reference path never finds nothing.
    (The report's explorer imported align_ops from ckernels alone.)"""
    cases, scanned = _kernel_imports()
    assert scanned >= 20  # the scan sees the kernel imports (27 when written)
    code = ("import importlib, json, sys; import mtscore.ckernels as c; importlib.import_module(sys.argv[1]); "
            "print(json.dumps(sorted(c._REFERENCES)))")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    missing = []
    for mod in sorted({m for m, _, _ in cases}):
        p = subprocess.run([sys.executable, "-c", code, mod], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr[-2000:]
        have = set(__import__("json").loads(p.stdout))
        missing += [(mod, k, r) for m, k, r in cases if m == mod and k not in have]
    assert not missing, missing
