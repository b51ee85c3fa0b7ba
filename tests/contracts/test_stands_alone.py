"""The repository stands alone: no source, test, benchmark or doc cites a document outside it (the design and
specification notes it was built from) or a work item by number; definitions live in docs/definitions.md and
the other docs/ pages, which is what the code cites. Read-only."""
from __future__ import annotations

import re

from conftest import ROOT

FOLDERS = ("src", "tests", "benchmarks", "docs", "scripts")
SUFFIXES = {".py", ".c", ".h", ".md", ".sh", ".toml", ".txt", ".cfg"}
# outside documents by name, and work items by number (the same pattern as a reviewer's grep)
OUTSIDE = re.compile(r"\bSPEC\b|\bDESIGN(?:\.md| §| section)|shared/(?:SPEC|DESIGN)|(?i:\b" + "iss" + r"ue[ _-]?[0-9])")
VENDORED = ("tests/fixtures/",)  # third-party files kept byte for byte (their own history)


def test_nothing_cites_an_outside_document_or_a_work_item():
    found = []
    for folder in FOLDERS:
        for p in sorted((ROOT / folder).rglob("*")):
            rel = p.relative_to(ROOT).as_posix()
            if (not p.is_file() or p.suffix not in SUFFIXES or rel.startswith(VENDORED) or "__pycache__" in rel
                    or p.name == "test_stands_alone.py"):  # its own pattern
                continue
            for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if OUTSIDE.search(line):
                    found.append(f"{rel}:{n}: {line.strip()[:120]}")
    assert not found, "cite docs/ instead:\n" + "\n".join(found)
