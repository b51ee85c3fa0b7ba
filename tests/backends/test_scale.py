"""Streaming, --jobs and the Dask backend give identical results; bad shards give clear errors."""
import json
import random
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from mtscore import BLEU, BLEUSBP
from mtscore.backends.local import CorpusJob, run_job, text_partitions
from mtscore.errors import InputError, MtscoreError
import warnings

from mtscore.errors import InputWarning
from mtscore.io import read_lines, read_segments
from mtscore.io import stream as stream_mod
from mtscore.io.stream import LineReader, iter_parallel_chunks
from mtscore.metrics.registry import metric_names, get_metric
from conftest import data_path, run_cli  # run_cli: a command's variants beside its end-to-end run

SCALE_METRICS = [m for m in ("bleu", "bleu-sbp", "chrf", "ter", "4-grr") if m in metric_names()]


def mscore(*args):
    """``mtscore ARGS`` in a subprocess: the end-to-end path (console entry point, exit code, streams)."""
    p = subprocess.run([sys.executable, "-m", "mtscore", *args], capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


@pytest.mark.parametrize("content", [
    b"", b"\n", b"a", b"a\nb", b"a\nb\n", b"\xef\xbb\xbfbom\r\ncrlf\r\n\nlast", b"x\ry\n\n\n",
    "\u2028inside\x85line\n".encode(),
])
@pytest.mark.parametrize("block", [1, 2, 3, 1 << 20])
def test_line_reader_equals_read_lines(tmp_path, monkeypatch, content, block):
    monkeypatch.setattr(stream_mod, "BLOCK", block)
    p = tmp_path / "f.txt"
    p.write_bytes(content)
    # LineReader reads segment files: a leading BOM stays in segment 1 like read_segments,
    # and strip_bom=True gives read_lines' reading (BOM removed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        assert list(LineReader(str(p))) == read_segments(p)
        assert list(LineReader(str(p), strip_bom=True)) == read_lines(p)


def test_line_reader_reports_line_of_invalid_utf8_across_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(stream_mod, "BLOCK", 4)
    p = tmp_path / "f.txt"
    p.write_bytes(b"one\ntwo\nthree\nfo\xffur\n")
    with pytest.raises(InputError, match=r"f.txt:4: invalid UTF-8"):
        list(LineReader(str(p)))


def test_parallel_chunks_mismatch_names_files(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("1\n2\n3\n4\n5\n")
    b.write_text("1\n2\n3\n")
    with pytest.raises(InputError, match=r"a has 5 lines, .*b has 3 lines"):
        list(iter_parallel_chunks([str(a), str(b)], 2))


def _synthetic(tmp_path, n=3000, nsys=2, nref=2, seed=1):
    rnd = random.Random(seed)
    vocab = [f"w{i}" for i in range(400)] + [",", ".", "the", "a", "Über", "3.5"]
    def sent():
        return " ".join(rnd.choice(vocab) for _ in range(rnd.randint(0, 30)))
    refs = [[sent() for _ in range(n)] for _ in range(nref)]
    syss = [[sent() if rnd.random() < 0.5 else refs[0][i] for i in range(n)] for _ in range(nsys)]
    paths = []
    for k, lines in enumerate(syss + refs):
        p = tmp_path / f"f{k}.txt"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(p))
    return paths[:nsys], paths[nsys:]


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address="127.0.0.1:0")
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def _assert_same(r1, r2):
    assert r1.keys() == r2.keys()
    for k in r1:
        assert np.array_equal(r1[k].summed, r2[k].summed), k
        assert r1[k].result().score == r2[k].result().score
        if r1[k].rows is not None:
            assert np.array_equal(r1[k].rows, r2[k].rows)


def test_serial_jobs_and_dask_identical_on_synthetic(tmp_path, dask_client):
    from mtscore.backends.dask_backend import MemoryShard, TextShard, run_job_dask
    hyps, refs = _synthetic(tmp_path)
    metrics = [get_metric(m) for m in SCALE_METRICS]
    job = CorpusJob(metrics, hyps, keep_segments=True)
    serial = run_job(job, text_partitions(hyps, refs, 500), jobs=1)
    parallel = run_job(job, text_partitions(hyps, refs, 500), jobs=2)
    _assert_same(serial, parallel)
    shards = [MemoryShard(tuple(map(tuple, h)), tuple(map(tuple, r)), i)
              for i, (h, r) in enumerate(text_partitions(hyps, refs, 500))]
    _assert_same(serial, run_job_dask(job, shards, client=dask_client))
    # one big partition vs many: the same statistics and (integer-count) scores
    whole = run_job(job, text_partitions(hyps, refs, 10**9), jobs=1)
    for k in serial:
        assert np.allclose(serial[k].summed, whole[k].summed, rtol=0, atol=1e-6)
        assert np.array_equal(serial[k].rows, whole[k].rows)
    # and the in-memory metric API agrees
    h0 = read_lines(hyps[0])
    rr = [list(s) for s in zip(*(read_lines(r) for r in refs))]
    for m in metrics:
        assert m.corpus(h0, rr).score == pytest.approx(serial[(hyps[0], m.display_name)].result().score, abs=1e-9)


def test_wmt21_serial_jobs_dask_cli_identical(dask_client):
    root = data_path("wmt21")
    refs = [str(root / "references" / f"newstest2021.en-de.ref.{x}.de") for x in "ACD"]
    systems = sorted(str(p) for p in (root / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:3]
    common = ["score", "-r", *refs, "-i", *systems, "-m", *SCALE_METRICS, "-f", "json", "--chunk-size", "300"]
    outs = []
    for extra in (["--jobs", "1"], ["--jobs", "2"], ["--backend", "dask", "--scheduler", dask_client.scheduler.address]):
        rc, out, err = mscore(*common, *extra)
        assert rc == 0, err
        outs.append(json.loads(out)["rows"])
    assert outs[0] == outs[1] == outs[2]


def test_sharded_text_and_parquet_inputs(tmp_path, dask_client):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    hyps, refs = _synthetic(tmp_path, n=900, nsys=1, nref=1)
    h, r = read_lines(hyps[0]), read_lines(refs[0])
    (tmp_path / "hyp").mkdir()
    (tmp_path / "ref").mkdir()
    for k in range(3):
        (tmp_path / "hyp" / f"part-{k}.txt").write_text("\n".join(h[k * 300:(k + 1) * 300]) + "\n")
        (tmp_path / "ref" / f"part-{k}.txt").write_text("\n".join(r[k * 300:(k + 1) * 300]) + "\n")
        pq.write_table(pa.table({"hyp": h[k * 300:(k + 1) * 300], "ref": r[k * 300:(k + 1) * 300]}),
                       tmp_path / f"part-{k}.parquet")
    expected = BLEU().corpus(h, [[x] for x in r]).score
    rc, out, err = mscore("score", "-i", str(tmp_path / "hyp" / "part-*.txt"), "-r", str(tmp_path / "ref" / "part-*.txt"),
                          "-f", "json")
    assert rc == 0, err and json.loads(out)["rows"][0]["BLEU"] == pytest.approx(expected, abs=1e-9)
    assert json.loads(out)["rows"][0]["BLEU"] == pytest.approx(expected, abs=1e-9)
    for run, extra in ((mscore, []), (run_cli, ["--backend", "dask", "--scheduler", dask_client.scheduler.address])):
        rc, out, err = run("score", "--parquet", str(tmp_path / "part-*.parquet"), "--hyp-columns", "hyp",
                           "--ref-columns", "ref", "-f", "json", *extra)
        assert rc == 0, err
        assert json.loads(out)["rows"][0]["BLEU"] == pytest.approx(expected, abs=1e-9)
    # a shard with a different segment count is named
    (tmp_path / "ref" / "part-1.txt").write_text("only\ntwo\n")
    rc, out, err = mscore("score", "-i", str(tmp_path / "hyp" / "part-*.txt"), "-r", str(tmp_path / "ref" / "part-*.txt"))
    assert rc == 3 and out == "" and "part-1.txt has 300 lines" in err and "part-1.txt has 2 lines" in err
    rc, out, err = run_cli("score", "-i", str(tmp_path / "hyp" / "part-*.txt"), "-r",
                               str(tmp_path / "ref" / "part-*.txt"), "--backend", "dask", "--scheduler",
                               dask_client.scheduler.address)
    assert rc == 3 and out == "" and "part-1.txt has 2 lines" in err
    # an unreadable shard is named
    (tmp_path / "part-2.parquet").write_bytes(b"not parquet")
    rc, out, err = run_cli("score", "--parquet", str(tmp_path / "part-*.parquet"), "--hyp-columns", "hyp",
                               "--ref-columns", "ref")
    assert rc == 3 and "part-2.parquet: cannot read as Parquet" in err
    # shard counts that do not match
    (tmp_path / "hyp" / "part-3.txt").write_text("x\n")
    rc, out, err = mscore("score", "-i", str(tmp_path / "hyp" / "part-*.txt"), "-r", str(tmp_path / "ref" / "part-*.txt"))
    assert rc == 3 and "matches 4" in err and "matches 3" in err


def test_save_stats_and_rescore(tmp_path):
    pytest.importorskip("pyarrow")
    hyps, refs = _synthetic(tmp_path, n=400)
    rc, out1, err = mscore("score", "-r", *refs, "-i", *hyps, "-m", "bleu", "bleu-sbp", "-f", "json",
                           "--save-stats", str(tmp_path / "st"))
    assert rc == 0, err
    rc, out2, err = mscore("rescore", str(tmp_path / "st"), "-f", "json")
    assert rc == 0, err
    a, b = json.loads(out1), json.loads(out2)
    assert a["rows"] == b["rows"] and a["notes"] == b["notes"]
    rc, out, err = run_cli("rescore", str(tmp_path / "nothing-here"))
    assert rc == 3 and "no statistics files" in err


def test_killing_a_worker_mid_run_still_gives_the_right_score(tmp_path):
    distributed = pytest.importorskip("distributed")
    from mtscore.backends.dask_backend import TextShard, run_job_dask
    hyps, refs = _synthetic(tmp_path, n=6000, nsys=2, nref=2, seed=3)
    lines = [read_lines(p) for p in hyps + refs]
    shards = []
    for k in range(0, 6000, 200):
        paths = []
        for j, col in enumerate(lines):
            p = tmp_path / f"s{k}_{j}.txt"
            p.write_text("\n".join(col[k:k + 200]) + "\n")
            paths.append(str(p))
        shards.append(TextShard(tuple(paths[:2]), tuple(paths[2:])))
    job = CorpusJob([BLEU(), BLEUSBP()], ["a", "b"], keep_segments=False)
    expected = run_job(job, [sh.load() for sh in shards], jobs=1)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address="127.0.0.1:0")
    client = distributed.Client(cluster)
    try:
        def killer():
            time.sleep(0.3)
            workers = list(client.scheduler_info()["workers"])
            try:
                client.run(lambda: __import__("os")._exit(1), workers=workers[:1], wait=False)
            except Exception:
                pass
        t = threading.Thread(target=killer)
        t.start()
        try:
            got = run_job_dask(job, shards, client=client, retries=3)
        except MtscoreError as exc:  # the other allowed outcome: a clear error, never a wrong score
            assert "shard" in str(exc)
            got = None
        t.join()
        if got is not None:
            for k in expected:
                assert np.array_equal(expected[k].summed, got[k].summed)
    finally:
        client.close()
        cluster.close()


def test_compare_p_values_identical_across_backends(dask_client):
    root = data_path("wmt21")
    refs = [str(root / "references" / "newstest2021.en-de.ref.A.de")]
    systems = sorted(str(p) for p in (root / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:3]
    for test, n in (("bootstrap", "300"), ("ar", "500")):
        common = ["compare", "-r", *refs, "-i", *systems, "-m", *SCALE_METRICS, "--test", test, "--resamples", n,
                  "--seed", "0", "-f", "json", "--chunk-size", "250"]
        outs = []
        # the serial run end to end in a subprocess; the other backends in this process
        for run, extra in ((mscore, ["--jobs", "1"]), (run_cli, ["--jobs", "2"]),
                           (run_cli, ["--backend", "dask", "--scheduler", dask_client.scheduler.address])):
            rc, out, err = run(*common, *extra)
            assert rc == 0, err
            outs.append(json.loads(out))
        assert outs[0] == outs[1] == outs[2]
        rc, out, err = run_cli(*common[:-6], "--seed", "1", "-f", "json", "--jobs", "1")
        assert json.loads(out) != outs[0]  # another seed, other p-values
