"""Without a C compiler the install still works: ``CC=/bin/false pip install .`` into a fresh venv
(``--system-site-packages --no-build-isolation --no-deps``: no network) skips the optional extensions, and the
installed mtscore runs the reference kernels with ONE warning line on stderr and prints the same numbers as
this checkout's compiled kernels. numba is not needed: the venv's Python finds a ``numba`` package that refuses
to import. Takes ~30-60 s (building the wheel dominates)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from test_fresh_install import clean_copy

METRICS = ["bleu", "chrf", "chrf++", "ter", "wer", "nist", "4-grr", "gtm", "tbleu", "lcm", "rose"]


def _data(tmp_path):
    h, r1, r2 = tmp_path / "h.txt", tmp_path / "r1.txt", tmp_path / "r2.txt"
    h.write_text("The cat sat on the mat.\nA quick brown fox jumps over it!\n\nÜber 1.000 Häuser, sagte er.\n"
                 "Shifted words are here now\n", encoding="utf-8")
    r1.write_text("The cat is on the mat.\nThe quick brown fox jumped over it.\nNothing\nÜber 1.000 Häuser sagte er.\n"
                  "Here now are shifted words\n", encoding="utf-8")
    r2.write_text("A cat sat on a mat.\nA fast brown fox jumps over it!\n\nMehr als 1.000 Häuser, sagte er.\n"
                  "Words shifted are here now\n", encoding="utf-8")
    return [str(h)], [str(r1), str(r2)]


def _see_outer_packages(py: str) -> None:
    """``--system-site-packages`` shows the nested venv the *base* interpreter's packages, not those of the venv
    running the tests: on a machine whose base Python lacks ``wheel`` (setuptools < 70.1 needs it for
    ``bdist_wheel``) or NumPy, the offline build failed (``invalid command 'bdist_wheel'``). A ``.pth`` file
    adds this interpreter's site-packages after the nested venv's own (plain path lines: their ``.pth`` files,
    e.g. this checkout's editable install, are not processed, so the nested venv imports its own mtscore)."""
    import site
    import sysconfig
    nested = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    outer = [p for p in dict.fromkeys(site.getsitepackages() + [sysconfig.get_paths()["purelib"],
                                                                 sysconfig.get_paths()["platlib"]])
             if os.path.isdir(p) and os.path.realpath(p) != os.path.realpath(nested)]
    with open(os.path.join(nested, "_mtscore_test_outer.pth"), "w", encoding="utf-8") as fh:
        fh.write("".join(p + "\n" for p in outer))


def _score_cmd(python, hyps, refs):
    return [python, "-m", "mtscore", "score", "-q", "-m", *METRICS, "-r", *refs, "-i", *hyps, "--sentence-level",
            "-f", "tsv", "-w", "6"]


@pytest.mark.slow
def test_install_without_compiler_uses_reference_path(tmp_path):
    repo = clean_copy(tmp_path / "mtscore")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    _see_outer_packages(py)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_", "MTSCORE_"))}
    # PIP_COMPILE=0 (pip's --no-compile): no byte-compiling of the installed package by pip (its errors are
    # ignored anyway); the venv's mtscore compiles what it imports
    env.update(HOME=str(tmp_path), PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1",
               PIP_COMPILE="0", CC="/bin/false", LDSHARED="/bin/false")
    blocked = tmp_path / "blocked"  # shadows an installed numba: importing it fails
    (blocked / "numba").mkdir(parents=True)
    (blocked / "numba" / "__init__.py").write_text("raise ImportError('numba is blocked in this test')\n")
    p = subprocess.run([py, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", str(repo)], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    probe = subprocess.run([py, "-c", "import mtscore, mtscore.text.fast as f, mtscore.ckernels as c; "
                            "print(mtscore.__file__); print(f._ckernel is None, c._cmetrics is None)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr
    where, missing = probe.stdout.splitlines()
    assert where.startswith(str(venv)), where  # the venv's copy, not this checkout
    assert missing == "True True"  # no extension was built
    hyps, refs = _data(tmp_path)
    got = subprocess.run(_score_cmd(py, hyps, refs), cwd=tmp_path, env=dict(env, PYTHONPATH=str(blocked)),
                         capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    warnings = got.stderr.splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("mtscore: warning: compiled kernels not built"), got.stderr
    here = dict(os.environ)
    want = subprocess.run(_score_cmd(sys.executable, hyps, refs), cwd=tmp_path, env=here, capture_output=True,
                          text=True)
    assert want.returncode == 0, want.stderr
    assert got.stdout == want.stdout
