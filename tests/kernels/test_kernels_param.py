"""The kernel implementation is an explicit parameter: ``--kernels auto|c|reference`` on every command
that has ``--threads``, ``kernels=`` in ``mtscore.score``; ``$MTSCORE_KERNELS`` is an override of the default only.
The choice each kernel call resolves is recorded through :func:`mtscore.text.fast.kernel_backend` (no timing)."""
import json

import pytest

import mtscore
from mtscore.cli.main import main
from mtscore.text import fast
from conftest import data_path

SAMPLE = mtscore.__path__[0] + "/data/sample"
REF, HYP = f"{SAMPLE}/newstest2017.en-de.ref.de", f"{SAMPLE}/uedin-nmt.de"


@pytest.fixture
def seen(monkeypatch):
    """The backends that the kernel calls of the test resolve."""
    got = []
    real = fast.kernel_backend

    def spy(backend=None):
        got.append(real(backend))
        return got[-1]
    monkeypatch.setattr(fast, "kernel_backend", spy)
    for mod in ("mtscore.ckernels", "mtscore.metrics.bleu", "mtscore.metrics.ter", "mtscore.meta._kernels"):
        module = __import__(mod, fromlist=["x"])
        if hasattr(module, "kernel_backend"):
            monkeypatch.setattr(module, "kernel_backend", spy)
    return got


def _score(capsys, *extra):
    assert main(["score", "-r", REF, "-i", HYP, "-m", "bleu", "chrf", "ter", "-f", "json", "-w", "6", *extra]) == 0
    return json.loads(capsys.readouterr().out)["results"]


def test_cli_choice_wins_over_the_environment_and_numbers_do_not_change(capsys, monkeypatch, seen):
    monkeypatch.setenv("MTSCORE_KERNELS", "c")
    compiled = _score(capsys)
    assert seen and set(seen) == {"c"}
    seen.clear()
    reference = _score(capsys, "--kernels", "reference")
    assert seen and set(seen) == {"reference"}  # the explicit option, ahead of MTSCORE_KERNELS=c
    assert reference == compiled
    seen.clear()
    monkeypatch.setenv("MTSCORE_KERNELS", "reference")
    assert _score(capsys, "--kernels", "c") == compiled and set(seen) == {"c"}
    seen.clear()
    assert _score(capsys) == compiled and set(seen) == {"reference"}  # without the option: the variable


def test_api_kernels_parameter(monkeypatch, seen):
    monkeypatch.delenv("MTSCORE_KERNELS", raising=False)
    hyps, refs = ["the cat sat on the mat", "a b c d e"], ["the cat sat on a mat", "a b c d f"]
    ref_run = mtscore.score(hyps, refs, ["bleu", "chrf", "ter"], kernels="reference")
    assert seen and set(seen) == {"reference"}
    seen.clear()
    c_run = mtscore.score(hyps, refs, ["bleu", "chrf", "ter"], kernels="c")
    assert set(seen) == {"c"}
    assert {k: v.score for k, v in ref_run.items()} == {k: v.score for k, v in c_run.items()}
    assert fast.current_kernel_choice() is None  # the block ends with the call


@pytest.mark.parametrize("argv", [["score", "-r", REF, "-i", HYP], ["meta", "--help"], ["analyse", "lengths", "-h"]])
def test_every_command_with_threads_has_kernels(argv, capsys):
    if "--help" in argv or "-h" in argv:
        with pytest.raises(SystemExit):
            main(argv)
        assert "--kernels" in capsys.readouterr().out
    else:
        assert main([*argv, "--kernels", "numba"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--kernels: must be one of: auto, c, reference, got 'numba'" in err


def test_api_rejects_a_bad_choice():
    with pytest.raises(mtscore.errors.InvalidParameterError, match="kernels: must be one of: auto, c, reference"):
        mtscore.score(["a"], ["a"], kernels="fast")


def test_worker_processes_get_the_choice(capsys, monkeypatch):
    """--jobs 2 with an unusable MTSCORE_KERNELS in the environment: the workers use the parent's --kernels."""
    monkeypatch.setenv("MTSCORE_KERNELS", "bogus")
    ref = data_path("wmt17-en-de") / "newstest2017.en-de.ref0.de"
    hyp = data_path("wmt17-en-de") / "systems" / "newstest2017.uedin-nmt.4722.en-de"
    assert main(["score", "-r", str(ref), "-i", str(hyp), "--jobs", "2", "--chunk-size", "1000", "--kernels", "c",
                 "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    monkeypatch.delenv("MTSCORE_KERNELS")
    assert main(["score", "-r", str(ref), "-i", str(hyp), "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == out["results"]


def test_sacrebleu_drop_in_has_kernels_among_mtscore_options(capsys, seen):
    args = ["sacrebleu", REF, "-i", HYP, "-m", "bleu", "chrf", "-b"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    seen.clear()
    assert main([*args, "--kernels", "reference"]) == 0
    assert capsys.readouterr().out == plain and seen and set(seen) == {"reference"}
