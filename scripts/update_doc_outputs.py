"""Rewrite every marked example output in README.md and docs/ with what its command prints today:
``python3 scripts/update_doc_outputs.py [PAGE.md ...]``.

A block is marked by the comment line right above its fence, ``<!-- output: mtscore ... -->`` (tests/test_doc_outputs.py
runs the same commands the same way and fails when a block differs). ``{sample}`` stands for the built-in sample's
folder; commands run from the repository root with HOME=/home/me, as the test runs them.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

MARK = re.compile(r"^<!-- (output|error): (mtscore .*?) -->\n```[a-z]*\n(.*?)```", re.S | re.M)
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def argv_of(cmd: str) -> list[str]:
    from mtscore.cli.demo import sample_dir
    return [a.replace("{sample}", str(sample_dir())) for a in shlex.split(cmd)[1:]]


def run(cmd: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``cmd`` run in this process as the doc-output test runs it."""
    from mtscore.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv_of(cmd))
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def update(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    changed = 0

    def fresh(m):
        nonlocal changed
        kind, cmd, old = m.group(1), m.group(2), m.group(3)
        if kind != "output":  # an error block keeps its "..." elisions: edit it by hand
            return m.group(0)
        rc, out, err = run(cmd)
        if rc != 0:
            raise SystemExit(f"{path.name}: {cmd}: exit {rc}: {err}")
        changed += out != old
        return m.group(0)[:m.start(3) - m.start(0)] + out + "```"
    new = MARK.sub(fresh, text)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return changed


if __name__ == "__main__":
    os.chdir(ROOT)
    os.environ["HOME"] = "/home/me"
    for var in ("HF_HOME", "HF_HUB_CACHE", "XDG_CACHE_HOME", "HUGGINGFACE_HUB_CACHE"):
        os.environ.pop(var, None)
    pages = [Path(p).resolve() for p in sys.argv[1:]] or PAGES
    for page in pages:
        n = update(page)
        if n:
            print(f"{page.relative_to(ROOT)}: {n} block(s) rewritten")
