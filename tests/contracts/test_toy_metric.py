"""Adding a metric from outside the package: one module written to tmp_path and one registry
line make it available in score, compare, report and meta, in worker processes (--jobs) and on Dask
workers, with no other change. Workers cannot import the module by name (it is not on their path): the
metric's class travels with its module file (Metric.__reduce_ex__)."""
import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from conftest import data_path
from mtscore.cli.main import main
from mtscore.metrics import registry

TOY = '''
from dataclasses import dataclass
from collections import Counter

import numpy as np

from mtscore.metrics.base import Metric


@dataclass(frozen=True)
class ToyConfig:
    lowercase: bool = False


class ToyUnigram(Metric):
    """Clipped unigram precision against the best reference, in percent (whitespace tokens)."""
    name = "toy-unigram"
    display_name = "ToyUni"
    Config = ToyConfig
    columns = ("matches", "hyp_len")
    range = (0.0, 100.0)

    def _stats(self, hyps, refs):
        out = np.zeros((len(hyps), 2))
        for i, (h, rs) in enumerate(zip(hyps, refs)):
            f = str.lower if self.config.lowercase else str
            ht = Counter(f(h).split())
            out[i, 0] = max(sum(min(c, Counter(f(r).split())[w]) for w, c in ht.items()) for r in rs)
            out[i, 1] = sum(ht.values())
        return out

    def score(self, summed):
        s = np.asarray(summed, dtype=np.float64)
        h = s[..., 1]
        return np.where(h > 0, 100.0 * s[..., 0] / np.where(h > 0, h, 1.0), 0.0)

    def signature_items(self, nrefs):
        return [("nrefs", nrefs), ("case", "lc" if self.config.lowercase else "mixed")]
'''


def _oracle(hyps, refs):
    from collections import Counter
    m = t = 0
    for h, r in zip(hyps, refs):
        hc, rc = Counter(h.split()), Counter(r.split())
        m += sum(min(c, rc[w]) for w, c in hc.items())
        t += sum(hc.values())
    return 100.0 * m / t


@pytest.fixture
def toy(tmp_path, monkeypatch):
    snapshot = dict(registry._REGISTRY), dict(registry._CLASSES)
    (tmp_path / "toy_metric.py").write_text(TOY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register("toy-unigram", "toy_metric:ToyUnigram")  # the one registry line
    yield tmp_path
    registry._REGISTRY.clear()
    registry._REGISTRY.update(snapshot[0])
    registry._CLASSES.clear()
    registry._CLASSES.update(snapshot[1])


def _run(*args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main([str(a) for a in args] + ["-q"])
    assert rc == 0
    return buf.getvalue()


def _sample(tmp_path, n=120):
    from mtscore.cli.demo import load_sample
    systems, refs = load_sample()
    files = {}
    for name, lines in [("ref", [r[0] for r in refs])] + [(k, v) for k, v in list(systems.items())[:3]]:
        p = tmp_path / f"{name}.txt"
        p.write_text("\n".join(lines[:n]) + "\n", encoding="utf-8")
        files[name] = p
    return files


def test_toy_metric_in_score_jobs_dask_compare_report(toy):
    f = _sample(toy)
    hyps = {k: f[k].read_text(encoding="utf-8").splitlines() for k in f}
    sysa, sysb = [k for k in f if k != "ref"][:2]
    exp = _oracle(hyps[sysa], hyps["ref"])

    def score(*extra):
        out = json.loads(_run("score", "-r", f["ref"], "-i", f[sysa], f[sysb], "-m", "toy-unigram", "-f", "json",
                              *extra))
        return [row["ToyUni"] for row in out["rows"]]

    serial = score()
    assert serial[0] == pytest.approx(exp, abs=1e-12)
    assert score("--jobs", "2", "--chunk-size", "25") == serial  # forkserver workers: module loaded from its file
    pytest.importorskip("distributed")
    assert score("--backend", "dask", "--dask-workers", "1", "--chunk-size", "40") == serial
    # module:Class given directly as a metric name, with an inline parameter
    out = json.loads(_run("score", "-r", f["ref"], "-i", f[sysa], "-m", f"{toy / 'toy_metric.py'}:ToyUnigram:lowercase=1",
                          "-f", "json"))
    assert next(iter(out["rows"][0].values())) is not None
    # compare and report agree on it
    cmp = json.loads(_run("compare", "-r", f["ref"], "-i", f[sysa], f[sysb], "-m", "toy-unigram", "-f", "json"))
    rep = json.loads(_run("report", "-r", f["ref"], "-i", f[sysa], f[sysb], "-m", "toy-unigram", "-f", "json",
                          "--examples", "0", "--no-subset-ci"))
    assert cmp["comparison"]["metric"] == "toy-unigram"
    p_report = rep["tables"][0]["rows"][1]["p ToyUni"]
    assert p_report == cmp["comparison"]["comparisons"][0]["p_value"]
    assert rep["tables"][0]["rows"][0]["ToyUni"] == pytest.approx(exp, abs=1e-12)


def test_toy_metric_in_meta(toy):
    root = data_path("wmt23")
    out = json.loads(_run("meta", "--data", root, "--lp", "en-de", "-m", "toy-unigram", "bleu", "-f", "json"))
    names = [r["metric"] for r in out["rows"]]
    assert "ToyUni" in names and "BLEU" in names
    row = next(r for r in out["rows"] if r["metric"] == "ToyUni")
    assert row["Pearson r"] is not None and -1.0 <= row["Pearson r"] <= 1.0


def test_registry_errors_are_one_line(toy):
    from mtscore.errors import InvalidParameterError
    with pytest.raises(InvalidParameterError, match="not a subclass"):
        registry.register("bad", dict)
    with pytest.raises(InvalidParameterError, match="cannot load"):
        registry.get_metric_class("no_such_module_xyz:Nope")
    with pytest.raises(InvalidParameterError, match="no such file"):
        registry.get_metric_class(str(toy / "missing.py") + ":Toy")
    assert "toy-unigram" in registry.metric_names()
