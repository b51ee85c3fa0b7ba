"""The optional ``comet`` metric (unbabel-comet with a local checkpoint) without weights or the package.

Honest scope: unbabel-comet (and torch) are not installed for the tests. The error paths run for real (no
model, no checkpoint file, no package). The loading/scoring path is checked by putting a stand-in module named
``comet`` into ``sys.modules`` -- it records what mtscore passes to ``load_from_checkpoint`` and ``predict``
(COMET 2.x's interface: a list of {"src", "mt", "ref"} dicts, ``batch_size``, ``gpus``; a result with
``.scores``) and returns scores computed from the texts. This tests mtscore's side of the import boundary,
not COMET's numbers.
"""
import sys
import types

import numpy as np
import pytest

from mtscore.cli.main import main
from mtscore.errors import InvalidParameterError, OptionalDependencyError
from mtscore.metrics.registry import get_metric


@pytest.fixture
def ckpt_dir(tmp_path):
    d = tmp_path / "wmt22-comet-da"
    (d / "checkpoints").mkdir(parents=True)
    (d / "checkpoints" / "model.ckpt").write_bytes(b"not real weights")
    return d


@pytest.fixture
def texts(tmp_path):
    (tmp_path / "src.en").write_text("one\ntwo two\nthree three three\n")
    (tmp_path / "ref.de").write_text("eins\nzwei zwei\ndrei drei drei\n")
    (tmp_path / "a.de").write_text("eins\nzwei\ndrei drei drei\n")
    (tmp_path / "b.de").write_text("x\nzwei zwei\ndrei\n")
    return tmp_path


class FakeComet(types.ModuleType):
    def __init__(self):
        super().__init__("comet")
        self.loaded, self.calls = [], []

    def load_from_checkpoint(self, path):
        self.loaded.append(path)
        fake = self

        class Model:
            def predict(self, samples, batch_size=8, gpus=1):
                fake.calls.append((samples, batch_size, gpus))
                # a deterministic stand-in score: token overlap of mt and ref
                sc = [len(set(s["mt"].split()) & set(s["ref"].split())) / max(1, len(set(s["ref"].split())))
                      for s in samples]
                return types.SimpleNamespace(scores=sc, system_score=sum(sc) / len(sc))
        return Model()


def one_line(capsys):
    err = capsys.readouterr().err.strip()
    assert len(err.split("\n")) == 1 and err.startswith("mtscore: error: "), err
    return err


def test_missing_model_says_what_to_pass(texts, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "comet", FakeComet())
    for spec, needle in (("comet", "no model given"), (f"comet:model={texts}/nothing,sources=x", "is not a checkpoint"),
                         (f"comet:model={texts},sources=x", "has no checkpoints/model.ckpt")):
        rc = main(["score", "-r", str(texts / "ref.de"), "-i", str(texts / "a.de"), "-m", spec])
        err = one_line(capsys)
        assert rc == 2 and needle in err and "comet:model=DIR" in err and "never downloads" in err
        assert "scores:COMET=FILE" in err


def test_missing_sources(ckpt_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "comet", FakeComet())
    with pytest.raises(InvalidParameterError, match="pass sources=FILE"):
        get_metric("comet", model=str(ckpt_dir))


def test_missing_package_is_a_one_line_install_hint(ckpt_dir, texts, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "comet", None)  # import comet -> ImportError, as without the package
    with pytest.raises(OptionalDependencyError):
        get_metric("comet", model=str(ckpt_dir), sources=str(texts / "src.en"))
    rc = main(["score", "-r", str(texts / "ref.de"), "-i", str(texts / "a.de"),
               "-m", f"comet:model={ckpt_dir},sources={texts / 'src.en'}"])
    err = one_line(capsys)
    assert rc == 4 and "unbabel-comet" in err and "pip install 'mtscore[comet]'" in err


def test_loads_the_local_checkpoint_and_scores(ckpt_dir, texts, capsys, monkeypatch):
    fake = FakeComet()
    monkeypatch.setitem(sys.modules, "comet", fake)
    spec = f"comet:model={ckpt_dir},sources={texts / 'src.en'},batch_size=4"
    rc = main(["score", "-r", str(texts / "ref.de"), "-i", str(texts / "a.de"), str(texts / "b.de"), "-m", spec,
               "-w", "4", "-f", "json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert fake.loaded == [str(ckpt_dir / "checkpoints" / "model.ckpt")]  # loaded once, from disk
    samples, bs, gpus = fake.calls[0]
    assert bs == 4 and gpus == 0
    assert samples == [{"src": "one", "mt": "eins", "ref": "eins"}, {"src": "two two", "mt": "zwei", "ref": "zwei zwei"},
                       {"src": "three three three", "mt": "drei drei drei", "ref": "drei drei drei"}]
    import json
    rows = json.loads(out)["rows"]
    # stand-in scores (distinct-token overlap): a.de 1, 1, 1; b.de 0, 1, 1 -> the mean, as comet-score reports
    assert rows[0]["COMET"] == pytest.approx(1.0) and rows[1]["COMET"] == pytest.approx(2 / 3)
    assert "model:wmt22-comet-da|ckpt-bytes:16|agg:mean|dir:higher" in out
    # compare works on it like on any decomposable metric
    rc = main(["compare", "-r", str(texts / "ref.de"), "-i", str(texts / "a.de"), str(texts / "b.de"), "-m", spec,
               "--n", "50"])
    assert rc == 0, capsys.readouterr().err
