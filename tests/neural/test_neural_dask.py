"""``--backend dask`` with the neural metrics: the metric runs on the workers, each worker process
loads a model once and keeps it for every later task, and each partition carries its lines of the ``sources=``
file (a worker never reads the client's file). Numbers identical to the local backend over the same partitions
(``--chunk-size``), and equal to unbabel-comet's known answers (tests/fixtures/neural/known_answers.json) to 1e-6.
"""
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")
distributed = pytest.importorskip("distributed")

from mtscore.cli.main import main  # noqa: E402
from mtscore.errors import InvalidParameterError  # noqa: E402
from mtscore.metrics.registry import get_metric  # noqa: E402
from neural_float import comet_tolerance  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
KA = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
TOL = 1e-6
T = KA["triples"]
N = len(T)


def _files(tmp_path):
    """src/ref/a (the known-answer triples) and b (system b: another triple's translation on each line)."""
    for name, lines in (("src.txt", [x["src"] for x in T]), ("ref.txt", [x["ref"] for x in T]),
                        ("a.txt", [x["mt"] for x in T]), ("b.txt", [T[(i + 3) % N]["mt"] for i in range(N)])):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {k: str(tmp_path / f"{k}.txt") for k in ("src", "ref", "a", "b")}


def _specs(f):
    return [f"comet:model={FIX / 'comet-da'},sources={f['src']},batch_size=4,cache=false",
            f"cometkiwi:model={FIX / 'cometkiwi'},sources={f['src']},batch_size=3,cache=false"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address="127.0.0.1:0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _worker_loads(client):
    def loads():
        import mtscore.neural
        return mtscore.neural.loads
    return client.run(loads)


def _run(capsys, args):
    rc = main(args)
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


@pytest.mark.slow  # a LocalCluster of two worker processes that import torch: ~30-60 s on a loaded 2-core machine
def test_dask_workers_run_the_neural_metrics_identical_to_local(tmp_path, client, capsys):
    f = _files(tmp_path)
    common = ["score", "-r", f["ref"], "-i", f["a"], f["b"], "-m", *_specs(f), "--chunk-size", "7", "-f", "json"]
    local = _run(capsys, common)
    before = _worker_loads(client)
    on_dask = _run(capsys, common + ["--backend", "dask", "--scheduler", client.scheduler.address])
    # same partitions and batches; a worker runs torch with another number of threads than this process, and
    # float32 kernels split their sums by thread: equal within the measured float32 bound (tests/neural_float.py)
    tol = {k: comet_tolerance(k) for k in ("comet-da", "cometkiwi")}

    def close(a, b):
        assert len(a) == len(b) and [sorted(r) for r in a] == [sorted(r) for r in b]
        for ra, rb in zip(a, b):
            for col, v in ra.items():
                if isinstance(v, float):
                    assert v == pytest.approx(rb[col], abs=tol["cometkiwi" if "Kiwi" in col else "comet-da"]), col
                else:
                    assert v == rb[col], col
    close(on_dask["rows"], local["rows"])
    seg = ["--sentence-level"]
    local_seg = _run(capsys, common + seg)
    dask_seg = _run(capsys, common + seg + ["--backend", "dask", "--scheduler", client.scheduler.address])
    assert [r["segment"] for r in dask_seg["rows"]] == [r["segment"] for r in local_seg["rows"]]
    close(dask_seg["rows"], local_seg["rows"])
    # the oracle: unbabel-comet's scores of the same checkpoints (system a = the known-answer triples)
    assert [r["segment"] for r in dask_seg["rows"]] == list(range(1, N + 1))
    got = np.array([r["a:COMET"] for r in dask_seg["rows"]])
    np.testing.assert_allclose(got, KA["models"]["comet-da"]["scores"], atol=tol["comet-da"], rtol=0)
    got = np.array([r["a:CometKiwi"] for r in dask_seg["rows"]])
    np.testing.assert_allclose(got, KA["models"]["cometkiwi"]["scores"], atol=tol["cometkiwi"], rtol=0)
    # 3 partitions x 2 systems x 2 metrics ran on the workers; a worker process loaded each model at most once,
    # and the later jobs loaded nothing more (the model is kept in the worker process)
    after = _worker_loads(client)
    assert sum(after.values()) - sum(before.values()) >= 2  # the models were loaded on the workers ...
    assert all(v <= 2 for v in after.values())  # ... once per worker process and model
    _run(capsys, common + ["--backend", "dask", "--scheduler", client.scheduler.address])
    assert _worker_loads(client) == after
    # one partition (the default chunk size) gives the same scores within float32 rounding (batches differ)
    whole = _run(capsys, common[:-4] + ["-f", "json", "--sentence-level"])
    for col in ("a:COMET", "b:COMET", "a:CometKiwi", "b:CometKiwi"):
        t = tol["comet-da" if "COMET" in col else "cometkiwi"]
        np.testing.assert_allclose([r[col] for r in whole["rows"]], [r[col] for r in local_seg["rows"]], atol=t,
                                   rtol=0)


def test_partition_carries_its_source_lines(tmp_path):
    """A Dask task (pickled as it travels) scores its partition with the source lines it carries: the sources
    file is gone by then."""
    from mtscore.backends.dask_backend import MemoryShard, _compute_shard
    f = _files(tmp_path)
    src = Path(f["src"]).read_text(encoding="utf-8").splitlines()
    m = get_metric("comet", model=str(FIX / "comet-da"), sources=f["src"], cache=False)
    lo, hi = 7, 14
    shard = MemoryShard((tuple(x["mt"] for x in T[lo:hi]),), tuple((x["ref"],) for x in T[lo:hi]), 1,
                        {f["src"]: src[lo:hi]})
    blob = pickle.dumps((shard, [m]))
    Path(f["src"]).unlink()
    shard2, metrics = pickle.loads(blob)
    part, refcounts, n = _compute_shard(shard2, metrics, True)
    assert n == hi - lo and refcounts == {1}
    rows = part[0][0][1]
    np.testing.assert_allclose(rows[:, 0], KA["models"]["comet-da"]["scores"][lo:hi], atol=TOL, rtol=0)


def test_source_count_checked_across_partitions(tmp_path, capsys):
    f = _files(tmp_path)
    Path(f["src"]).write_text("\n".join(x["src"] for x in T[:-2]) + "\n", encoding="utf-8")
    rc = main(["score", "-r", f["ref"], "-i", f["a"], "-m", _specs(f)[0], "--chunk-size", "7"])
    err = capsys.readouterr().err
    assert rc != 0 and len(err.strip().splitlines()) == 1
    assert "17 source segments for more hypotheses (at least 19)" in err, err  # partitions of 7, 7, 5 lines
    Path(f["src"]).write_text("\n".join(x["src"] for x in T + T[:1]) + "\n", encoding="utf-8")
    rc = main(["score", "-r", f["ref"], "-i", f["a"], "-m", _specs(f)[0], "--chunk-size", "7"])
    err = capsys.readouterr().err
    assert rc != 0 and "20 source segments for 19 hypotheses" in err, err


def test_sharded_inputs_on_dask_refused_in_one_line(tmp_path):
    from mtscore.runner import Inputs, compute
    f = _files(tmp_path)
    for k in ("a", "ref"):
        for j in (0, 1):
            (tmp_path / f"{k}.{j}").write_text(Path(f[k]).read_text(encoding="utf-8"), encoding="utf-8")
    m = get_metric("comet", model=str(FIX / "comet-da"), sources=f["src"], cache=False)
    with pytest.raises(InvalidParameterError, match="sources= is one file aligned with the whole input"):
        compute(Inputs(refs=[str(tmp_path / "ref.*")], input=[str(tmp_path / "a.*")]), [m], backend="dask")


def test_xcomet_spans_out_over_several_partitions(tmp_path, capsys):
    """--spans-out when the input is cut into partitions (--chunk-size): each system's spans in segment order,
    equal to unbabel-comet's on the tiny XCOMET checkpoint."""
    f = _files(tmp_path)
    out = tmp_path / "spans.json"
    rc = main(["score", "-r", f["ref"], "-i", f["a"], f["b"], "-m",
               f"xcomet:model={FIX / 'xcomet'},sources={f['src']},cache=false", "--chunk-size", "7",
               "--spans-out", str(out), "-f", "json"])
    assert rc == 0, capsys.readouterr().err
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert list(doc) == ["a", "b"] and all(len(v) == N for v in doc.values())
    want = KA["models"]["xcomet"]["error_spans"]
    assert [[(s["start"], s["end"], s["severity"], s["text"]) for s in seg] for seg in doc["a"]] == \
           [[(s["start"], s["end"], s["severity"], s["text"]) for s in seg] for seg in want]
