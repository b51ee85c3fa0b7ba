"""Every example in README.md runs: the shell examples with the built-in sample in place of the template
file names (the README says which names are templates), paths under ../shared/data as they are, and the
Python block as written. A new example with a file name this test does not know fails here, so the README
cannot drift from what the program does."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
SAMPLE = ROOT / "src" / "mtscore" / "data" / "sample"
REF = SAMPLE / "newstest2017.en-de.ref.de"
SYSTEMS = ["LIUM-NMT", "uedin-nmt", "online-B", "PROMT-Rule-based"]

# Arguments the README uses as stand-ins for the reader's own cluster (a test never reaches another host):
# the scheduler address becomes a local cluster of one worker.
SUBSTITUTE_ARGS = {("--scheduler", "tcp://host:8786"): ("--dask-workers", "1")}


def _fenced() -> list[tuple[str, str]]:
    """(language, text) of every fenced block of the README."""
    out, lang, buf = [], None, []
    for line in README.splitlines():
        if line.startswith("```"):
            if lang is None:
                lang, buf = line[3:].strip(), []
            else:
                out.append((lang, "\n".join(buf) + "\n"))
                lang = None
        elif lang is not None:
            buf.append(line)
    return out


def _blocks(lang: str) -> list[str]:
    return [text for lg, text in _fenced() if lg == lang]


def shell_examples() -> list[str]:
    cmds = []
    for block in _blocks("sh"):
        text = block.replace("\\\n", " ")
        cmds += [line.strip() for line in text.splitlines() if line.strip().startswith("mtscore ")]
    return cmds


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """Template files made from the built-in sample (400 segments, 4 systems)."""
    d = tmp_path_factory.mktemp("readme")
    ref = _lines(REF)
    hyps = {s: _lines(SAMPLE / f"{s}.de") for s in SYSTEMS}

    def put(name, lines):
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")

    for name in ("ref.de", "ref.txt", "refA.de"):
        put(name, ref)
    put("refC.de", hyps["online-B"])  # extra reference streams
    put("refD.de", hyps["uedin-nmt"])
    for name in ("sys.de", "sys.txt", "sysA.de"):
        put(name, hyps["LIUM-NMT"])
    put("sysB.de", hyps["PROMT-Rule-based"])
    put("domains.txt", ["news" if i % 3 else "sport" for i in range(len(ref))])
    for k, (lo, hi) in enumerate(((0, 150), (150, 400))):
        put(f"shards/ref-{k}.txt", ref[lo:hi])
        put(f"shards/sys-{k}.txt", hyps["LIUM-NMT"][lo:hi])
    return d


KNOWN = {"ref.de", "ref.txt", "refA.de", "refC.de", "refD.de", "sys.de", "sys.txt", "sysA.de", "sysB.de",
         "domains.txt", "shards/ref-*.txt", "shards/sys-*.txt", "report.html"}


def _prepare(cmd: str, workdir: Path) -> list[str]:
    argv = shlex.split(cmd)[1:]
    for (old_flag, old_val), new in SUBSTITUTE_ARGS.items():
        for i in range(len(argv) - 1):
            if argv[i] == old_flag and argv[i + 1] == old_val:
                argv[i:i + 2] = new
    for a in argv:
        if a.startswith("../shared/data"):
            if not (DATA / a[len("../shared/data/"):]).exists():
                pytest.skip(f"real data not available: {a} (tests read ../shared/data beside the project)")
        elif re.search(r"\.(de|txt|html)$", a) and a not in KNOWN:
            pytest.fail(f"README example names a file this test does not provide: {a!r} (add it to KNOWN)")
    return [a.replace("../shared/data", str(DATA)) for a in argv]


@pytest.mark.parametrize("cmd", shell_examples())
def test_readme_shell_example_runs(cmd, workdir):
    argv = _prepare(cmd, workdir)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "mtscore", *argv], cwd=workdir, capture_output=True, text=True,
                       env=env, timeout=600)
    assert p.returncode == 0, f"{cmd}\n{p.stderr}"
    assert p.stderr.count("Traceback") == 0
    if "-o" in argv:
        out = workdir / argv[argv.index("-o") + 1]
        assert out.stat().st_size > 0
    else:
        assert p.stdout.strip(), cmd


def test_readme_has_examples():
    cmds = shell_examples()
    assert len(cmds) >= 10 and all(c.startswith("mtscore ") for c in cmds)


def test_readme_python_block_runs(tmp_path):
    (block,) = [b for b in _blocks("python")]
    ns: dict = {}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(block, "README.md", "exec"), ns)  # noqa: S102 - the README's own example
    finally:
        os.chdir(cwd)
    res, st = ns["res"], ns["st"]
    assert 0 <= res.score <= 100 and st.values.shape[0] == 2
    assert ns["refs"] == [["the cat is on the mat", "a cat is on the mat"], ["hello world", "hello there world"]]
