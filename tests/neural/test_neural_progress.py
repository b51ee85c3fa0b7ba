"""The neural metrics' progress bar (stderr, terminals only, never with -q, never in a pipe) and the warning for a
language the model's encoder was not pre-trained on."""
import io
import json
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

from mtscore import progress as P  # noqa: E402
from mtscore.cli.main import main  # noqa: E402
from mtscore.errors import MtscoreWarning  # noqa: E402
from mtscore.neural import comet_model as cm  # noqa: E402
from mtscore.neural import languages as L  # noqa: E402
from mtscore.neural import runner  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
KA = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
T = KA["triples"]


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _items():
    return [(x["src"], x["mt"], x["ref"]) for x in T]


def test_bar_drawn_on_a_terminal_only(monkeypatch):
    m = cm.load(FIX / "comet-da", "comet", expect=("regression_metric",))
    monkeypatch.setattr(P, "DEFAULT_DELAY", 0.0)
    tty = _Tty()
    monkeypatch.setattr("sys.stderr", tty)
    want, _ = runner.score(m, _items(), 4, "COMET", use_cache=False)
    drawn = tty.getvalue()
    n = len({t for it in _items() for t in it})
    assert "\r" in drawn and "COMET:" in drawn and f"/{n} sentences" in drawn, drawn
    assert drawn.endswith("\r")  # the line is cleared at the end
    # silenced (the CLI's -q), or not a terminal: nothing
    for ctx, stream in ((P.silenced(), _Tty()), (P.silenced(False), io.StringIO())):
        monkeypatch.setattr("sys.stderr", stream)
        with ctx:
            got, _ = runner.score(m, _items(), 4, "COMET", use_cache=False)
        assert stream.getvalue() == "" and got.tobytes() == want.tobytes()


def test_cli_pipe_output_has_no_bar(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(P, "DEFAULT_DELAY", 0.0)
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "c"))
    for name, key in (("s", "src"), ("r", "ref"), ("h", "mt")):
        (tmp_path / name).write_text("\n".join(x[key] for x in T) + "\n", encoding="utf-8")
    rc = main(["score", "-r", str(tmp_path / "r"), "-i", str(tmp_path / "h"), "-m",
               f"comet:model={FIX / 'comet-da'},sources={tmp_path / 's'},cache=false"])
    out, err = capsys.readouterr()
    assert rc == 0 and err == "" and "\r" not in out


def test_language_lists():
    assert len(L.MT5) == 101  # mC4's 101 languages (Latin-script variants share their code)
    # XLM-R's CC-100: 100 entries, of which 6 romanized variants and Traditional Chinese share a code here
    assert len(L.XLMR) == 100 - 7 and {"en", "de", "zh", "ja", "sw", "fil", "uk"} <= L.XLMR
    assert L.unsupported(["en", "de_DE", "iw", "zh-Hant"], "xlmr") == []
    assert L.unsupported(["yo", "haw", "mt"], "xlmr") == ["yo", "haw", "mt"]  # in mT5's list, not in XLM-R's
    assert L.unsupported(["yo", "haw", "mt"], "mt5") == []
    assert L.unsupported(["sa", "as", "or"], "mt5") == ["sa", "as", "or"]  # XLM-R's, not mT5's


def test_unsupported_language_warns_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "c"))
    for name, key in (("s", "src"), ("r", "ref"), ("h", "mt")):
        (tmp_path / name).write_text("\n".join(x[key] for x in T[:3]) + "\n", encoding="utf-8")
    args = ["score", "-r", str(tmp_path / "r"), "-i", str(tmp_path / "h"), "-m",
            f"comet:model={FIX / 'comet-da'},sources={tmp_path / 's'},cache=false", "-f", "json"]
    assert main(args + ["-l", "yo-de"]) == 0
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "'yo'" in err and "XLM-R" in err and "comet-da" in err and "comet" in err
    assert main(args + ["-l", "en-de"]) == 0
    assert capsys.readouterr().err == ""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        L.warn_unsupported("metricx", "metricx-24", "en-as", "mt5")
    assert [str(x.message) for x in w if issubclass(x.category, MtscoreWarning)] == [
        "metricx: language 'as' (-l en-as) is not among the languages mT5, the encoder of metricx-24, was "
        "pre-trained on; scores may be unreliable"]
