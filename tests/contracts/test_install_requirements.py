"""The README's two commands resolve with PyPI as the only index: every requirement of the package and of its
extras is a plain name and version range (no local version label such as ``+cpu``, which exists only on
PyTorch's own index; no URL or path), and the README's commands name no other index. Read-only: the resolution
itself, against PyPI with an isolated pip configuration, is done by ``.ci/run`` (it needs the network)."""
from __future__ import annotations

import re

import pytest
from packaging.requirements import Requirement

from conftest import ROOT

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")


def _requirements() -> list[tuple[str, str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = [("dependencies", r) for r in project["dependencies"]]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        out += [(f"[{extra}]", r) for r in reqs]
    return out


def test_every_requirement_is_a_name_and_a_version_range_pypi_can_answer():
    reqs = _requirements()
    assert any(where == "[test]" for where, _ in reqs)
    bad = []
    for where, text in reqs:
        r = Requirement(text)
        if r.url:
            bad.append(f"{where} {text}: a URL or path (PyPI cannot answer it)")
        for spec in r.specifier:
            if "+" in spec.version:
                bad.append(f"{where} {text}: local version label {spec.version!r} (not on PyPI)")
    assert not bad, "\n".join(bad)


def test_readme_commands_name_no_other_index():
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Two commands", 1)[1].split("\n## ", 1)[0]
    fence = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line for line in fence.splitlines() if "pip install" in line]
    assert len(commands) == 2, fence
    for line in commands:
        assert not re.search(r"--(extra-)?index-url|--find-links|\s-f\s|--no-index", line), line
