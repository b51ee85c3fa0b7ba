"""A metric's parameters are declared beside its Config (its ``PARAMS``), and everything else is generated
from the declarations: adding a parameter to one metric touches that metric's module only. Here GTM gains a
parameter the way its module would declare it (a Config field and a ``Param`` with a command-line flag), and
the generated parameter page (scripts/gen_parameters_doc.py -> docs/parameters.md), ``mtscore metrics``,
``--help``, the option, the inline form, the error messages and the signature (its declared key) all pick it up
with no other change."""
from __future__ import annotations

import dataclasses
import importlib.util
from typing import ClassVar

import pytest

import mtscore
from conftest import ROOT
from mtscore import params as P
from mtscore.cli.main import build_parser, main
from mtscore.cli.options import make_metric
from mtscore.metrics.gtm import GTM, GTMConfig

SAMPLE = ROOT / "src" / "mtscore" / "data" / "sample"
REF, HYP = str(SAMPLE / "newstest2017.en-de.ref.de"), str(SAMPLE / "online-B.de")


@dataclasses.dataclass(frozen=True)
class _GTMConfigPlus(GTMConfig):
    # what the new parameter adds to src/mtscore/metrics/gtm.py: its declaration and its field
    PARAMS: ClassVar = GTMConfig.PARAMS + (
        P.Param("gap_limit", "int", 0, lo=0, hi=5, flags=("--gtm-gap-limit",), common=True,
                help="longest gap bridged inside a run (0: none)", sig="gap", sig_when="not_default"),)
    gap_limit: int = 0


@pytest.fixture
def gtm_plus(monkeypatch):
    monkeypatch.setattr(GTM, "Config", _GTMConfigPlus)
    yield


def _page() -> str:
    spec = importlib.util.spec_from_file_location("gen_parameters_doc", ROOT / "scripts" / "gen_parameters_doc.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.page()


def test_the_generated_parameter_page_lists_it(gtm_plus):
    gtm = _page().split("### `gtm`", 1)[1].split("\n### ", 1)[0]
    row = next(line for line in gtm.splitlines() if line.startswith("| `gap_limit`"))
    assert ("| int | 0 | an integer in 0..5 | `--gtm-gap-limit` | `gap` (if not default) "
            "| longest gap bridged inside a run (0: none) |") in row


def test_metrics_command_and_help_show_it(gtm_plus, capsys):
    assert main(["metrics", "gtm"]) == 0
    assert "gap_limit" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "--gtm-gap-limit" in capsys.readouterr().out


def test_the_option_and_the_inline_parameter_reach_the_config(gtm_plus, capsys):
    args = build_parser(["score", "-m", "gtm"]).parse_args(["score", "-r", REF, "-i", HYP, "-m", "gtm",
                                                              "--gtm-gap-limit", "2"])
    assert make_metric("gtm", args).config.gap_limit == 2
    assert make_metric("gtm:gap_limit=3").config.gap_limit == 3
    assert main(["score", "-q", "-r", REF, "-i", HYP, "-m", "gtm", "--gtm-gap-limit", "9"]) == 2
    assert "--gtm-gap-limit: must be an integer in 0..5, got '9'" in capsys.readouterr().err
    assert main(["score", "-q", "-r", REF, "-i", HYP, "-m", "bleu", "--gtm-gap-limit", "1"]) == 2
    assert "--gtm-gap-limit: applies to gtm, and none of the selected metrics (bleu) has it" in capsys.readouterr().err


def test_the_signature_writes_it_by_its_declaration(gtm_plus, capsys):
    version = f"version:mtscore-{mtscore.__version__}"
    sig = "nrefs:1|case:mixed|tok:13a|e:1|measure:f|match:greedy|mref:best-f"  # GTM's entries, unchanged
    assert make_metric("gtm").signature(1) == f"{sig}|{version}"  # at its default: not written
    assert make_metric("gtm:gap_limit=3").signature(1) == f"{sig}|gap:3|{version}"
    assert main(["score", "-q", "-r", REF, "-i", HYP, "-m", "gtm", "--gtm-gap-limit", "2"]) == 0
    assert f"GTM|{sig}|gap:2|{version}" in capsys.readouterr().out
    assert main(["metrics", "gtm"]) == 0
    assert "option --gtm-gap-limit; signature gap (if not default)" in capsys.readouterr().out


def test_without_it_nothing_is_left_behind():
    assert "gap_limit" not in P.config_params(GTM.Config)
    assert "--gtm-gap-limit" not in _page()
    assert "gap:" not in make_metric("gtm:exponent=1.2").signature(1)
