"""Byte-level fuzz of every reader: mutated bytes of small valid files under tmp_path.

Each example must end in success with finite results, or in a one-line MtscoreError whose class maps to a
documented exit code (docs/input.md); never another exception (a traceback), never a hang (a generous alarm
per example is the hang detector, not a timing assertion), and the input file is never changed.
Hypothesis runs derandomized and without an example database. About 60 s on 2 cores.
"""
from __future__ import annotations

import contextlib
import gzip
import json
import math
import os
import signal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtscore.errors import InputError, InvalidParameterError, MtscoreError, OptionalDependencyError, OutputError

ROOT = Path(__file__).resolve().parents[2]
EXIT_OF = [(InputError, 3), (InvalidParameterError, 2), (OptionalDependencyError, 4), (OutputError, 5),
           (MtscoreError, 1)]
FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=int(os.environ.get("FUZZ_N", 60)),
                suppress_health_check=list(HealthCheck))

TOKENS = [b"\n", b"\r\n", b"\r", b"\t", b" ", b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\x00", b"inf", b"-inf", b"nan",
          b"1e999", b"None", b"NA", b"-1", b"0", b"9" * 60, b"[", b"]", b"{", b"}", b'"', b",", b":", b"(", b")",
          b"|||", b" ||| ", b"=", b"<eps>", b"\\", b"\xe2\x80\xa8", b"\x85", b"true", b"null", b"1e308", b"-0"]


@st.composite
def mutated(draw, seed: bytes):
    """``seed`` with a few edits: byte flips, token insertions, deletions, truncation, duplication."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "dup", "replace"]))
        pos = draw(st.integers(0, len(data))) if data else 0
        if op == "flip" and data:
            p = min(pos, len(data) - 1)
            data[p] = draw(st.integers(0, 255))
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from(TOKENS))
        elif op == "delete" and data:
            data[pos:pos + draw(st.integers(1, 8))] = b""
        elif op == "truncate":
            del data[pos:]
        elif op == "dup" and data:
            end = min(len(data), pos + draw(st.integers(1, 40)))
            data[pos:pos] = data[pos:end] * draw(st.integers(1, 3))
        elif op == "replace" and data:
            data[pos:pos + 1] = draw(st.sampled_from(TOKENS))
    return bytes(data)


@contextlib.contextmanager
def hang_guard(seconds: int = 30):
    def on_alarm(signum, frame):
        raise TimeoutError(f"a reader took more than {seconds} s on a tiny file (a hang)")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def check(read, path: Path, validate=None):
    """Run ``read(path)``: success (then ``validate``) or a one-line MtscoreError; the file is unchanged."""
    before = path.read_bytes() if path.is_file() else None
    with hang_guard():
        try:
            out = read(path)
        except MtscoreError as exc:
            msg = str(exc)
            assert msg and "\n" not in msg and "Traceback" not in msg, msg
            assert any(isinstance(exc, cls) for cls, _ in EXIT_OF)
            out = None
    if before is not None:
        assert path.read_bytes() == before, "the reader changed its input"
    if out is not None and validate is not None:
        validate(out)
    return out


def finite(values) -> bool:
    a = np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)
    return not np.isinf(a).any()  # NaN marks a missing value (None) here; inf never passes


# --- plain text, .gz, TSV ---------------------------------------------------------------------------------
TEXT = "the cat sat\r\n\n\ufeffmid BOM\u2028x\nlast line without newline".encode()


@FUZZ
@given(data=mutated(TEXT))
def test_text_readers_agree(tmp_path_factory, data):
    from mtscore.io.stream import LineReader
    from mtscore.io.text import read_lines
    d = tmp_path_factory.mktemp("t")
    p = d / "f.txt"
    p.write_bytes(data)
    whole = check(lambda q: read_lines(q), p)
    streamed = check(lambda q: list(LineReader(str(q), strip_bom=True)), p)
    assert (whole is None) == (streamed is None)
    if whole is not None:
        assert whole == streamed
        assert all("\n" not in ln for ln in whole)


@FUZZ
@given(data=mutated(gzip.compress(TEXT, mtime=0)), raw=st.booleans())
def test_gzip_readers(tmp_path_factory, data, raw):
    from mtscore.io.stream import LineReader
    from mtscore.io.text import read_lines
    p = tmp_path_factory.mktemp("g") / "f.gz"
    # raw: mutate the compressed bytes; else compress mutated text
    p.write_bytes(data if raw else gzip.compress(data, mtime=0))
    whole = check(lambda q: read_lines(q), p)
    streamed = check(lambda q: list(LineReader(str(q), strip_bom=True)), p)
    assert (whole is None) == (streamed is None)
    if whole is not None:
        assert whole == streamed


@FUZZ
@given(data=mutated(b"hyp one\tref one\tref two\nhyp 2\tr\tr2\n\tempty hyp\t\n"))
def test_tsv_reader(tmp_path_factory, data):
    from mtscore.io.text import read_tsv
    p = tmp_path_factory.mktemp("tsv") / "f.tsv"
    p.write_bytes(data)
    rows = check(lambda q: read_tsv(q), p)
    if rows:
        assert len({len(r) for r in rows}) == 1 and len(rows[0]) >= 2


# --- n-best lists -----------------------------------------------------------------------------------------
JSONL = (b'["a b c", "a b"]\n'
         b'[{"text": "x y", "score": -1.5, "features": {"lm": -2, "tm": 0.5}}, {"text": "x", "score": -3}]\n'
         b'{"candidates": ["p q", "q"], "scores": [-1, -2]}\n')
MOSES = (b"0 ||| a b c ||| lm= -1 -2 tm= 0.5 ||| -3.5\n0 ||| a b ||| lm= -1 -1 tm= 1 ||| -1\n"
         b"1 ||| x y ||| LM0=1 WordPenalty=-2 ||| 2\n2 ||| p ||| 0.1 0.2 ||| 0.3 ||| 0-0\n")


def _nbest_ok(nb):
    assert np.all(np.isfinite(nb.features))
    assert not np.isinf(nb.scores).any()  # NaN = no score given; inf never passes
    assert all(isinstance(t, str) for t in nb.texts)


@FUZZ
@given(data=mutated(JSONL))
def test_jsonl_nbest(tmp_path_factory, data):
    from mtscore.search.nbest import read_jsonl_nbest
    p = tmp_path_factory.mktemp("nb") / "n.jsonl"
    p.write_bytes(data)
    check(lambda q: read_jsonl_nbest(q), p, _nbest_ok)


@FUZZ
@given(data=mutated(MOSES), n=st.sampled_from([None, 3]))
def test_moses_nbest(tmp_path_factory, data, n):
    from mtscore.search.nbest import read_moses_nbest
    p = tmp_path_factory.mktemp("nb") / "n.txt"
    p.write_bytes(data)
    check(lambda q: read_moses_nbest(q, n), p, _nbest_ok)


# --- lattices ---------------------------------------------------------------------------------------------
PLF = (b"((('a', 1.0, 1), ('b', 0.5, 2),), (('c', 1.0, 1),), (('d', 1.0, 1),),)\n"
       b"((('x', -0.5, 1),),)\n()\n")
OPENFST = b"0 1 a 0.5\n0 2 b\n1 2 c c 1\n2 3 <eps> 0\n3\n\n0 1 x\n1 0.0\n"


def _lattices_ok(lats):
    for lat in lats:
        assert np.all(np.isfinite(np.asarray(lat.weight, dtype=np.float64)))


@FUZZ
@given(data=mutated(PLF), scores=st.sampled_from(["log", "prob"]))
def test_plf(tmp_path_factory, data, scores):
    from mtscore.search.lattice import read_plf
    p = tmp_path_factory.mktemp("plf") / "l.plf"
    p.write_bytes(data)
    check(lambda q: read_plf(q, scores), p, _lattices_ok)


@FUZZ
@given(data=mutated(OPENFST))
def test_openfst(tmp_path_factory, data):
    from mtscore.search.lattice import read_openfst
    p = tmp_path_factory.mktemp("fst") / "l.fst"
    p.write_bytes(data)
    check(lambda q: read_openfst(q), p, _lattices_ok)


# --- human judgments and mt-metrics-eval score files --------------------------------------------------------
MTME_SEG = b"sysA\t0.5\nsysA\tNone\nsysA\t-1\nsysB\t2\nsysB\t3.25\nsysB\t0\n"
DA = b"SYS SID RAW.SCR Z.SCR N\nsysA 1 70 0.3 1\nsysA 2 50 -0.2 2\nsysB 1 90 1.1 1\nsysB 3 10 -1 1\n"
MQM = (b"system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
       b"sysA\td\t1\t1\tr1\ts\tt\tAccuracy/Mistranslation\tMajor\n"
       b"sysA\td\t1\t2\tr1\ts\tt\tFluency/Punctuation\tMinor\n"
       b"sysB\td\t1\t1\tr2\ts\tt\tNo-error\tNo-error\n")
ESA = b"system\tseg_id\tscore\nsysA\t1\t80\nsysA\t2\t55.5\nsysB\t1\tNone\nsysB\t2\t12\n"
RR = (b"srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,system2Number,system2Id,"
      b"system3Number,system3Id,system4Number,system4Id,system5Number,system5Id,system1rank,system2rank,"
      b"system3rank,system4rank,system5rank\n"
      b"cze,eng,1,d,1,j,1,sysA,2,sysB,3,sysC,4,sysD,5,sysE,1,2,3,3,5\n")

ESA24 = (b"u1,sysA,0,TGT,eng,deu,80,doc1,x,[],1,2\nu1,sysA,1,TGT,eng,deu,55,doc1,x,[],3,4\n"
         b"u2,sysB,0,TGT,eng,deu,70,doc1,x,[],1,2\nu2,sysB,2,SRC,eng,deu,10,doc1,x,[],1,2\n")


def _human_ok(hs):
    if hs.seg is not None:
        assert not np.isinf(hs.seg).any()
    if hs.sys is not None:
        assert finite(hs.sys.values())
    if hs.rr_pairs is not None:
        assert hs.rr_pairs.ndim == 2 and hs.rr_pairs.shape[1] == 3


@FUZZ
@given(kind=st.sampled_from(["mtme", "da", "mqm", "esa", "tsv", "rr", "sys", "domain", "esa24"]), data=st.data())
def test_human_and_score_files(tmp_path_factory, kind, data):
    from mtscore.io import wmt
    from mtscore.meta import human as H
    from mtscore.meta.esa import read_wmt24_esa
    seed = {"mtme": MTME_SEG, "da": DA, "mqm": MQM, "esa": ESA, "tsv": b"sysA\t1\t0.5\nsysB\t1\t-2\nsysB\t2\tNone\n",
            "rr": RR, "sys": b"sysA\t0.5\nsysB\tNone\n", "domain": b"news\tsysA\t1\nweb\tsysA\t2\n",
            "esa24": ESA24}[kind]
    raw = data.draw(mutated(seed))
    p = tmp_path_factory.mktemp("h") / f"h.{kind}"
    p.write_bytes(raw)
    read = {"mtme": lambda q: H.read_mtme_seg(q, 3), "da": lambda q: H.read_wmt_da(q),
            "mqm": lambda q: H.read_mqm_tsv(q), "esa": lambda q: H.read_scored_tsv(q),
            "tsv": lambda q: H.read_plain_tsv(q), "rr": lambda q: H.read_relative_rankings(q),
            "sys": lambda q: wmt.read_sys_scores(q), "domain": lambda q: wmt.read_domain_scores(q),
            "esa24": lambda q: read_wmt24_esa(q, 4, "en-de", offset=1)}[kind]
    validate = _human_ok if kind not in ("sys", "domain") else (lambda d: finite(d.values()) or pytest.fail("inf"))
    check(read, p, validate)


# --- ROSE model JSON --------------------------------------------------------------------------------------
ROSE = (ROOT / "src/mtscore/data/rose/rose-reg.json").read_bytes()


@FUZZ
@given(data=mutated(ROSE))
def test_rose_model(tmp_path_factory, data):
    from mtscore.metrics.rose_features import CORE_FEATURES
    from mtscore.rose.model import load_model
    p = tmp_path_factory.mktemp("rose") / "m.json"
    p.write_bytes(data)

    def ok(model):
        x = np.ones((2, len(model.features)))
        with np.errstate(all="ignore"):
            assert model.decision(x).shape == (2,)
        assert len(model.features) >= len(CORE_FEATURES)
    check(lambda q: load_model(q), p, ok)


# --- statistics folders (score --save-stats) -----------------------------------------------------------------
@pytest.fixture(scope="module")
def stats_seed(tmp_path_factory):
    pytest.importorskip("pyarrow")
    from mtscore.backends.local import CorpusJob, run_job
    from mtscore.backends.store import save_stats
    from mtscore.metrics.registry import get_metric_class
    job = CorpusJob([get_metric_class("bleu")(), get_metric_class("chrf")()], ["a", "b"], keep_segments=True)
    res = run_job(job, [([["the cat", "a dog"], ["cat the", "dog"]], [["the cat"], ["a dog"]])])
    d = tmp_path_factory.mktemp("stats")
    save_stats(res, d)
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


@settings(FUZZ, max_examples=40)
@given(data=st.data())
def test_statistics_folder(tmp_path_factory, stats_seed, data):
    from mtscore.backends.store import load_stats
    names = sorted(stats_seed)
    victim = data.draw(st.sampled_from(names))
    d = tmp_path_factory.mktemp("st")
    for n in names:
        (d / n).write_bytes(data.draw(mutated(stats_seed[n])) if n == victim else stats_seed[n])

    def ok(results):
        for r in results.values():
            assert np.all(np.isfinite(r.rows))
            with np.errstate(all="ignore"):
                score = r.result().score
            assert math.isfinite(score), (r.system, r.metric.display_name, r.summed)
    before = {n: (d / n).read_bytes() for n in names}
    check(lambda q: load_stats(q), d, ok)
    assert {n: (d / n).read_bytes() for n in names} == before


# --- stored metric scores (io/scores.py) ---------------------------------------------------------------------
@FUZZ
@given(kind=st.sampled_from(["lines", "mtme", "tsv", "comet-json"]), data=st.data())
def test_stored_score_files(tmp_path_factory, kind, data):
    from mtscore.io.scores import read_score_file
    seed = {"lines": b"0.5\n-1\nNone\n", "mtme": MTME_SEG, "tsv": b"a\t1\t0.5\na\t2\t1\n",
            "comet-json": json.dumps({"h.txt": [{"src": "s", "mt": "m", "ref": "r", "COMET": 0.5}]}).encode()}[kind]
    p = tmp_path_factory.mktemp("sc") / ("s.json" if kind == "comet-json" else "s.txt")
    p.write_bytes(data.draw(mutated(seed)))
    check(lambda q: read_score_file(str(q), kind), p)


# --- the CLI end to end: exit code and one line ---------------------------------------------------------------
@settings(FUZZ, max_examples=30)
@given(data=mutated(b"the cat sat on the mat\nhello world\n\n"), which=st.sampled_from(["hyp", "ref"]))
def test_cli_score_exit_codes(tmp_path_factory, capfd, data, which):
    from mtscore.cli.main import main
    d = tmp_path_factory.mktemp("cli")
    good = d / "good.txt"
    good.write_bytes(b"the cat sat on a mat\nhello there world\nx\n")
    bad = d / "bad.txt"
    bad.write_bytes(data)
    args = ["score", "-r", str(bad if which == "ref" else good), "-i", str(good if which == "ref" else bad),
            "-m", "bleu", "chrf", "-j", "1", "-q"]
    with hang_guard():
        rc = main(args)
    out, err = capfd.readouterr()
    assert "Traceback" not in err
    if rc == 0:
        assert out and "nan" not in out.lower().split("|")[0]
    else:
        assert rc in (2, 3) and out == "" and len([ln for ln in err.splitlines() if ln.startswith("mtscore: error:")]) == 1
