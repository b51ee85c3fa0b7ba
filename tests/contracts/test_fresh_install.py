"""The README's first command, as written, in a clean copy of the repository: it creates a venv, installs
mtscore with the package index this machine is configured with, and runs the main job on the built-in
sample. Everything happens under the test's temporary folder (the venv, HOME, pip's cache)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from test_readme import _blocks

SYSTEMS = ("LIUM-NMT", "uedin-nmt", "online-B", "PROMT-Rule-based")


def first_command() -> str:
    block = next(b for b in _blocks("sh") if "# 1." in b)
    lines = block.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("# 1."))
    return lines[i + 1].strip()


def clean_copy(dest: Path) -> Path:
    """The files a fresh clone has: git's tracked files plus untracked ones it does not ignore."""
    if shutil.which("git") and (ROOT / ".git").exists():
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f and (ROOT / f).is_file()]
    else:
        skip = {".venv", "build", "dist", "__pycache__", ".git"}
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not skip & set(p.relative_to(ROOT).parts) and p.suffix not in (".so", ".pyc")]
    for f in files:
        target = dest / f
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, target)
    return dest


@pytest.mark.slow
def test_readme_first_command_in_a_fresh_venv(tmp_path):
    cmd = first_command()
    assert cmd.startswith("python3 -m venv .venv") and cmd.endswith("mtscore demo")
    repo = clean_copy(tmp_path / "mtscore")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_", "MTSCORE_"))}
    env.update(HOME=str(home), PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(ROOT)))
    p = subprocess.run(["bash", "-c", cmd], cwd=repo, env=env, capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Traceback" not in p.stderr
    out = p.stdout.splitlines()
    assert any(line.startswith("Built-in sample") for line in out), p.stdout[-2000:]
    rows = [line for line in out if line.split() and line.split()[0] in SYSTEMS]
    assert [r.split()[0] for r in rows] == list(SYSTEMS)
    # the installed program is the copy's, not the checkout's
    exe = repo / ".venv" / "bin" / "mtscore"
    assert exe.exists()
