"""Registry-driven fuzz of every parameter: random values of every type for every option of
every command and every parameter of every registered metric, through the CLI entry point in process.

Each case must end in exit 0 with a finite result, or in exactly one ``mtscore: error: ...`` line with a
documented exit code (1, 2, 3, 4, 5; docs/input.md) -- never a traceback, never a hang (a per-case alarm),
never a changed input. Options and metrics are discovered from the parser and the registry, so a new
option or metric is fuzzed without a change here.

Metric options (``--chrf-beta`` ...) are the same table entries in every command that takes ``-m``:
they are fuzzed in ``score``. The Dask options (``--backend``, ``--scheduler``, ``--dask-workers`` of ``score``
and ``compare``) run against servers this test starts on 127.0.0.1 only: a LocalCluster of this process
(threads), a peer that accepts and stays silent, one that answers HTTP, a closed port; while they run,
name resolution and connections to any other address fail (a guard on ``socket``), so no fuzzed value reaches
the network. The ``sacrebleu`` drop-in's options (its own parser) are fuzzed through ``mtscore sacrebleu`` in
process; its informative ``sacreBLEU: ...`` lines are allowed beside the result. Paths given to output
options are plain names inside the test's temporary folder (the working directory of each case).
Hypothesis runs derandomized with no example database. About 4-6 minutes on 2 busy cores.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import signal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtscore.cli.main import build_parser, main
from mtscore.metrics.registry import get_metric_class, metric_names

EXAMPLES = 10
CASE_SECONDS = 60
EXIT_CODES = {1, 2, 3, 4, 5}
DASK_OPTIONS = {"--backend", "--scheduler", "--dask-workers"}  # fuzzed by test_fuzz_dask_option
SKIP_OPTIONS = DASK_OPTIONS | {"--help", "--help-all", "--quiet", "--version"}
SKIP_COMMANDS = {"sacrebleu"}  # its own parser: test_fuzz_sacrebleu_option
COUNT_DESTS = {"n", "n_ci", "resamples", "ci", "perm_samples", "max_examples", "max_pairs", "examples", "blocks",
               "bootstrap"}
OUTPUT_DESTS = {"output", "html", "save_stats", "write_selections"}

SEGS = ["the cat is on the mat", "hello world", "", "a dog ran far away"]
HYP_A = ["the cat sat on the mat", "hello world", "", "a dog ran away"]
HYP_B = ["a cat", "hello", "extra", "the dog ran far away"]
HYP_C = ["cat mat", "world hello", "x", "dog"]

SPECIAL = ["nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e-320", "1e999", "0", "1", "-1", "2", "3", "0.5",
           "-0.0", "true", "false", "TRUE", "yes", "no", "on", "off", "None", "null", "", " ", "1_000", "0x10",
           "１２", "٣", "13a", "closest", "average", "best", "none", "exp", "floor", "json", "text", "sys", "seg",
           "a.txt", "ref.txt", "12345", str(2 ** 32), str(10 ** 12), "9" * 5000, "é", "😀", "-", "--", "-x"]

VALUES = st.one_of(
    st.sampled_from(SPECIAL),
    st.integers(-5, 50).map(str),
    st.integers().map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=10),
    st.booleans().map(str),
)


class Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise Hang()


def _write(path: Path, lines):
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    _write(d / "ref.txt", SEGS)
    _write(d / "ref2.txt", ["the cat is on a mat", "hello there world", "", "a dog went far away"])
    _write(d / "a.txt", HYP_A)
    _write(d / "b.txt", HYP_B)
    _write(d / "c.txt", HYP_C)
    _write(d / "labels.txt", ["x", "y", "x", "y"])
    _write(d / "human.tsv", [f"{s}\t{i + 1}\t{v}" for s, vals in (("a", (4, 3, 5, 2)), ("b", (1, 2, 3, 0)),
                                                                     ("c", (0, 1, 1, 1)))
                             for i, v in enumerate(vals)])
    for s, vals in (("a", (0.8, 0.7, 0.9, 0.6)), ("b", (0.3, 0.4, 0.2, 0.5))):
        _write(d / f"comet.{s}.txt", [str(v) for v in vals])
    _write(d / "nbest.txt", [f"{i} ||| {h} ||| f0= {k} f1= {-k} ||| {-k}" for i, seg in enumerate(zip(HYP_A, HYP_B))
                             for k, h in enumerate(seg)])
    def plf(text):
        return "(" + "".join(f"(('{w}',0,1),)," for w in text.split()) + ")" if text else "()"
    _write(d / "lat.plf", [plf(h) for h in HYP_A])
    _synthetic_mtme(d / "mtme", "aa-en")
    with contextlib.chdir(d), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["score", "-r", "ref.txt", "-i", "a.txt", "b.txt", "--jobs", "1", "-m", "bleu", "--save-stats", "stats"])
    assert rc == 0
    return d


def _synthetic_mtme(root: Path, lp: str):
    rng = np.random.default_rng(0)
    words = "the a cat dog sat on mat ran far away house big small red blue".split()
    ref = [" ".join(rng.choice(words, size=6)) for _ in range(12)]
    for sub in ("sources", "references", "human-scores", f"system-outputs/{lp}"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    _write(root / "sources" / f"{lp}.txt", [f"src {i}" for i in range(len(ref))])
    _write(root / "references" / f"{lp}.refA.txt", ref)
    lines = []
    for k, noise in enumerate((0.1, 0.4, 0.8)):
        hyps = []
        for i, r in enumerate(ref):
            toks = r.split()
            bad = rng.random(len(toks)) < noise
            hyps.append(" ".join(rng.choice(words) if b else t for t, b in zip(toks, bad)))
            lines.append(f"sys{k}\t{-float(bad.sum())}")
        _write(root / "system-outputs" / lp / f"sys{k}.txt", hyps)
    _write(root / "human-scores" / f"{lp}.mqm.seg.score", lines)


BASES = {
    "score": ["score", "-r", "ref.txt", "-i", "a.txt", "b.txt", "--jobs", "1"],
    "compare": ["compare", "-r", "ref.txt", "-i", "a.txt", "b.txt", "--jobs", "1", "--resamples", "20"],
    "report": ["report", "-r", "ref.txt", "-i", "a.txt", "b.txt", "--resamples", "20"],
    "meta": ["meta", "-r", "ref.txt", "-i", "a.txt", "b.txt", "c.txt", "--human-file", "human.tsv",
             "--human-format", "tsv"],
    "audit deletion": ["audit", "deletion", "-r", "ref.txt", "ref2.txt"],
    "audit subsets": ["audit", "subsets", "-r", "ref.txt", "-i", "a.txt", "b.txt", "--labels", "labels.txt"],
    "audit sign": ["audit", "sign", "-r", "ref.txt", "-i", "a.txt", "b.txt"],
    "audit length": ["audit", "length", "-r", "ref.txt", "-i", "a.txt"],
    "explain": ["explain", "--hyp", "the cat sat", "--ref", "the cat sat on the mat"],
    "nbest": ["nbest", "nbest.txt", "-r", "ref.txt"],
    "lattice": ["lattice", "lat.plf", "-r", "ref.txt"],
    "lcm": ["lcm", "-r", "ref.txt", "-i", "a.txt"],
    "cache": ["cache"],  # the cache of the session's temporary XDG_CACHE_HOME (conftest)
    "analyse words": ["analyse", "words", "-r", "ref.txt", "-i", "a.txt", "b.txt", "--resamples", "20"],
    "analyse lengths": ["analyse", "lengths", "-r", "ref.txt", "-i", "a.txt", "b.txt", "--resamples", "20"],
    "analyse wins": ["analyse", "wins", "-r", "ref.txt", "-i", "a.txt", "b.txt"],
    "analyse ngrams": ["analyse", "ngrams", "-r", "ref.txt", "-i", "a.txt", "b.txt"],
    "analyse align": ["analyse", "align", "-r", "ref.txt", "-i", "a.txt", "b.txt"],
    "analyse docs": ["analyse", "docs", "-r", "ref.txt", "-i", "a.txt", "b.txt", "--docs", "labels.txt",
                     "--resamples", "20"],
    "rose train": ["rose", "train", "--data", "mtme", "--lp", "aa-en", "-o", "model.json"],
    "rose info": ["rose", "info", "reg"],
    "tokenize": ["tokenize", "ref.txt"],
    "demo": ["demo", "-m", "bleu"],
    "rescore": ["rescore", "stats"],
    "metrics": ["metrics", "bleu"],
    "rank": ["rank", "-r", "ref.txt", "-i", "a.txt", "b.txt", "c.txt", "-m", "bleu", "chrf", "--resamples", "20",
             "--jobs", "1"],
}


def _commands():
    """(command path, parser) for every leaf command of the full parser."""
    out = []

    def walk(p, path):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out.append((path, p))
            return
        for name, sp in subs[0].choices.items():
            walk(sp, f"{path} {name}".strip())
    walk(build_parser(), "")
    return out


def _option_cases():
    cases = []
    for path, p in _commands():
        if path in SKIP_COMMANDS:
            continue
        for a in p._actions:
            if not a.option_strings:
                continue
            flag = max(a.option_strings, key=len)
            if flag in SKIP_OPTIONS or (a.dest.startswith("mopt_") and path != "score"):
                continue  # metric options: one parser path for every command, fuzzed in score
            cases.append((path, flag, a.dest, a.nargs == 0))
    return cases


OPTION_CASES = _option_cases()
METRIC_CASES = [(name, f.name) for name in metric_names()
                for f in __import__("dataclasses").fields(get_metric_class(name).Config)]


def test_every_command_has_a_base_and_every_base_succeeds(work):
    commands = {path for path, _ in _commands()} - SKIP_COMMANDS
    assert commands <= set(BASES), sorted(commands - set(BASES))
    for path, argv in BASES.items():
        code, out, err = _run(work, argv)
        assert code == 0, (path, err)
        _check_finite(out, "")


def _digest(d: Path) -> dict:
    """{path: sha256} of every file under ``d`` (os.walk: a third of rglob's time, twice per case)."""
    out = {}
    for root, _, files in os.walk(d):
        for name in files:
            p = Path(root, name)
            if p.is_file():
                with open(p, "rb") as fh:
                    out[p] = hashlib.sha256(fh.read()).hexdigest()
    return out


@contextlib.contextmanager
def _stdin(f):
    """Standard input ('-' as a file name) is empty, as from </dev/null."""
    import sys
    old = sys.stdin
    sys.stdin = f
    try:
        yield
    finally:
        sys.stdin = old


def _run(d: Path, argv):
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        with contextlib.chdir(d), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                open(os.devnull, encoding="utf-8") as null, _stdin(null):
            try:
                code = main(list(argv))
            except SystemExit as e:  # argparse: --help, or a usage error
                code = e.code if isinstance(e.code, int) else 2
    except Hang:
        pytest.fail(f"no result within {CASE_SECONDS}s: mtscore {' '.join(map(str, argv))}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()


_NONFINITE = re.compile(r"(?<![A-Za-z])(nan|NaN|inf|Infinity)(?![A-Za-z])")


def _check_finite(out: str, value: str):
    text = out.replace(value, "") if value else out
    assert not _NONFINITE.search(text), text[:2000]


def _check(d: Path, argv, value: str, informative=()):
    before = _digest(d)
    code, out, err = _run(d, argv)
    shown = f"mtscore {' '.join(map(str, argv))!r} -> {code}\n{err[:1500]}"
    assert "Traceback" not in err, shown
    lines = err.splitlines()
    errors = [ln for ln in lines if ln.startswith("mtscore: error: ")]
    allowed = ("mtscore: error: ", "mtscore: note: ", "mtscore: warning: ") + tuple(informative)
    others = [ln for ln in lines if not ln.startswith(allowed)]
    if code == 0:
        assert not errors and not others, shown
        _check_finite(out, value)
    else:
        assert code in EXIT_CODES, shown
        assert len(errors) == 1 and not others, shown
    after = _digest(d)
    changed = [str(p) for p in before if after.get(p) != before[p] and p.name not in ("model.json",)]
    assert not changed, (shown, changed)
    for p in set(after) - set(before):  # outputs a case wrote (names under the temporary folder)
        p.unlink()


_FLAGS_CHECKED: set = set()  # (command, flag) of the options without a value already run


def _int(value: str):
    """The integer a plain decimal value spells (short ones only: 5000 digits are not converted), else None."""
    return int(value) if re.fullmatch(r"\s*\+?\d{1,30}\s*", value) else None


def _value_for(dest: str, value: str) -> str:
    if dest in OUTPUT_DESTS:
        return "out_" + re.sub(r"[^A-Za-z0-9_.-]", "_", value)[:20].lstrip(".") or "out"
    return value


@pytest.mark.parametrize("path,flag,dest,is_flag", OPTION_CASES,
                         ids=[f"{p}:{f}" for p, f, _, _ in OPTION_CASES])
@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=VALUES)
def test_fuzz_command_option(work, path, flag, dest, is_flag, value):
    base = BASES[path]
    if is_flag:  # the drawn value is not used: the first example is the whole check, the others would repeat it
        if (path, flag) not in _FLAGS_CHECKED:
            _FLAGS_CHECKED.add((path, flag))
            _check(work, base + [flag], "")
        return
    if dest == "jobs" and (_int(value) or 0) > 2:
        value = "2"  # a valid worker count, but not hundreds of processes on a 2-core machine
    if dest == "chunk_size" and _int(value) is not None and _int(value) < 2:
        value = "2"
    if dest in COUNT_DESTS and 2000 < (_int(value) or 0) <= 10 ** 7:
        value = "2000"  # a valid count; millions of resamples of 4 segments are slow, not wrong
    v = _value_for(dest, value)
    if not v.startswith("-"):
        args = [flag, v]
    else:  # a value that looks like an option is given attached, as a user must
        args = [f"{flag}={v}" if flag.startswith("--") else f"{flag}{v}"]
    _check(work, base + args, v)


@pytest.mark.parametrize("metric,field", METRIC_CASES, ids=[f"{m}:{f}" for m, f in METRIC_CASES])
@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=VALUES)
def test_fuzz_metric_parameter(work, metric, field, value):
    spec = f"{metric}:{field}={value}"
    if metric == "scores":
        spec = f"scores:name=COMET,file=comet.{{system}}.txt,{field}={value}" if field not in ("name", "file") \
            else f"scores:{'name=COMET,file' if field == 'file' else 'file=comet.{system}.txt,name'}={value}"
    _check(work, BASES["score"] + ["-m", spec], value)


# --- the sacreBLEU drop-in: its own parser, through `mtscore sacrebleu` in process ------------------------
def _sacrebleu_cases():
    from mtscore.sacrebleu.sacrebleu import build_parser as sacrebleu_parser
    cases = []
    for a in sacrebleu_parser()._actions:
        if not a.option_strings:
            continue
        flag = max(a.option_strings, key=len)
        if flag in ("--help", "--help-all", "--version", "--quiet"):
            continue
        cases.append((flag, a.dest, a.nargs == 0))
    return cases


SACREBLEU_CASES = _sacrebleu_cases()
SACREBLEU_BASE = ["sacrebleu", "ref.txt", "-i", "a.txt", "b.txt", "-m", "bleu", "chrf", "ter"]
SACREBLEU_COUNTS = {"confidence_n", "paired_ar_n", "paired_bs_n"}


def test_sacrebleu_base_succeeds(work):
    code, out, err = _run(work, SACREBLEU_BASE)
    assert code == 0 and "Traceback" not in err, err
    _check_finite(out, "")


@pytest.mark.parametrize("flag,dest,is_flag", SACREBLEU_CASES, ids=[f for f, _, _ in SACREBLEU_CASES])
@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=VALUES)
def test_fuzz_sacrebleu_option(work, flag, dest, is_flag, value):
    if is_flag:  # as in test_fuzz_command_option: one run is the whole check
        if ("sacrebleu", flag) not in _FLAGS_CHECKED:
            _FLAGS_CHECKED.add(("sacrebleu", flag))
            _check(work, SACREBLEU_BASE + [flag], "", informative=("sacreBLEU: ",))
        return
    if dest in SACREBLEU_COUNTS and 2000 < (_int(value) or 0) <= 10 ** 7:
        value = "2000"  # a valid count; millions of resamples of 4 segments are slow, not wrong
    args = [flag, value] if not value.startswith("-") else [f"{flag}={value}"]
    _check(work, SACREBLEU_BASE + args, value, informative=("sacreBLEU: ",))


# --- Dask: servers of this test on 127.0.0.1 only -------------------------------------------------------
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@contextlib.contextmanager
def _loopback_only():
    """Name resolution and connections to anything but 127.0.0.1 fail while a Dask case runs."""
    import socket
    real_getaddrinfo, real_connect, real_connect_ex = socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex

    def host_ok(host):
        host = host.decode() if isinstance(host, bytes) else host
        return host is None or host in LOOPBACK

    def getaddrinfo(host, *a, **kw):
        if not host_ok(host):
            raise socket.gaierror(socket.EAI_NONAME, f"the fuzz test allows 127.0.0.1 only, not {host!r}")
        return real_getaddrinfo(host, *a, **kw)

    def check(addr):
        if isinstance(addr, tuple) and not host_ok(addr[0]):
            raise ConnectionRefusedError(f"the fuzz test allows 127.0.0.1 only, not {addr[0]!r}")

    def connect(self, addr):
        check(addr)
        return real_connect(self, addr)

    def connect_ex(self, addr):
        check(addr)
        return real_connect_ex(self, addr)
    socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex = getaddrinfo, connect, connect_ex
    try:
        yield
    finally:
        socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex = real_getaddrinfo, real_connect, real_connect_ex


@pytest.fixture(scope="module")
def dask_env(work):
    distributed = pytest.importorskip("distributed")
    from mtscore.backends import dask_backend
    from test_faults_dask import FakeServer
    import socket
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                                       dashboard_address="127.0.0.1:0")
    silent, http = FakeServer(), FakeServer(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    saved = dask_backend.PROBE_TIMEOUT
    dask_backend.PROBE_TIMEOUT = 2.0  # a silent peer costs 2 s, not 10 (the 10 s default: test_faults_dask)
    try:
        yield {"real": cluster.scheduler_address, "silent": f"tcp://127.0.0.1:{silent.port}",
               "http": f"tcp://127.0.0.1:{http.port}", "closed": f"tcp://127.0.0.1:{closed}"}
    finally:
        dask_backend.PROBE_TIMEOUT = saved
        silent.close()
        http.close()
        cluster.close()


ADDRESS_TEMPLATES = ["{real}", "{silent}", "{http}", "{closed}", "tcp://127.0.0.1:0", "tcp://127.0.0.1:99999",
                     "tls://127.0.0.1:1", "inproc://x", "tcp://[::1]:1", "tcp://localhost", "http://{real_hp}",
                     "tcp://10.255.255.1:8786", "tcp://example.invalid:8786", "{real}/x", " {real}", "{real}:1"]
ADDRESSES = st.sampled_from(ADDRESS_TEMPLATES)
DASK_CASES = [(cmd, flag) for cmd in ("score", "compare") for flag in sorted(DASK_OPTIONS)]


@pytest.mark.parametrize("cmd,flag", DASK_CASES, ids=[f"{c}:{f}" for c, f in DASK_CASES])
@settings(max_examples=6, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(drawn=st.one_of(VALUES.map(lambda v: (v, False)), ADDRESSES.map(lambda v: (v, True))))
def test_fuzz_dask_option(work, dask_env, cmd, flag, drawn):
    """--scheduler: any value, and addresses of this test's servers; --backend: any value with the test's
    scheduler; --dask-workers: any value, a valid one on a LocalCluster of 1 worker (processes: slow)."""
    value, is_address = drawn
    real = dask_env["real"]
    if is_address:
        value = value.format(real_hp=real[len("tcp://"):], **dask_env)
    base = BASES[cmd]
    if flag == "--scheduler":
        argv = base + ["--backend", "dask"]
    elif flag == "--backend":
        argv = base + ["--scheduler", real]
    else:
        if (_int(value) or 0) >= 1:
            value = "1"  # a valid count: one worker process (a LocalCluster of hundreds is slow, not wrong)
        argv = base + ["--backend", "dask"]
    args = [flag, value] if not value.startswith("-") else [f"{flag}={value}"]
    with _loopback_only():
        _check(work, argv + args, value)


@pytest.mark.parametrize("cmd", ["score", "compare"])
@pytest.mark.parametrize("template", ADDRESS_TEMPLATES)
def test_dask_scheduler_addresses(work, dask_env, cmd, template):
    """Every address of the list, each command (the fuzz above draws only some): a result on the test's
    scheduler, one line for the others, in a bounded time; never a connection beyond 127.0.0.1."""
    value = template.format(real_hp=dask_env["real"][len("tcp://"):], **dask_env)
    args = ["--scheduler", value] if not value.startswith("-") else [f"--scheduler={value}"]
    with _loopback_only():
        _check(work, BASES[cmd] + ["--backend", "dask"] + args, value)
    if template == "{real}":
        code, out, err = _run(work, BASES[cmd] + ["--backend", "dask"] + args + ["-f", "json"])
        local = _run(work, BASES[cmd] + ["-f", "json"])
        assert code == 0 and json.loads(out) == json.loads(local[1])  # the same result as the local backend


INPUT_FILES = {"ref.txt", "ref2.txt", "a.txt", "b.txt", "c.txt", "labels.txt", "nbest.txt", "lat.plf"}


@pytest.mark.parametrize("path", sorted(BASES) + ["sacrebleu"])
def test_every_command_on_empty_inputs(work, path):
    """Every text input of the command an empty file (distinct files): a finite result (an empty group's
    value printed as -) or one line; e.g. audit length's ratio and analyse wins' mean were nan, mtscore
    sacrebleu raised sacreBLEU's IndexError."""
    base = SACREBLEU_BASE if path == "sacrebleu" else BASES[path]
    argv, k = [], 0
    for tok in base:
        if tok in INPUT_FILES:
            tok = f"empty{k}.txt"
            (work / tok).write_text("")
            k += 1
        argv.append(tok)
    if k == 0:
        pytest.skip(f"{path} reads no text file")
    _check(work, argv, "", informative=("sacreBLEU: ",))


NO_INPUT_FILES = {"explain", "metrics", "cache"}  # read no file (cache: a SQLite file, not a text input)


@pytest.mark.parametrize("action,code,line", [("sigint", 130, "mtscore: interrupted"),
                                               ("oserror", 3, "cannot read: no space left on device")])
@pytest.mark.parametrize("path", sorted(BASES) + ["sacrebleu"])
def test_every_command_interrupted_or_failing_while_reading(work, monkeypatch, path, action, code, line):
    """Ctrl-C (the deterministic hook: SIGINT to this process at the first read) or an I/O error while an
    input is read, in every command: exit 130 with the one line `mtscore: interrupted`, or one error line."""
    from mtscore import _testhooks
    monkeypatch.setenv("MTSCORE_TEST_FAULT", f"read:{action}")
    monkeypatch.setattr(_testhooks, "_seen", {})
    base = SACREBLEU_BASE if path == "sacrebleu" else BASES[path]
    before = _digest(work)
    got, out, err = _run(work, base)
    if path in NO_INPUT_FILES:
        assert got == 0, err
        return
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert got == code and out == "" and len(lines) == 1, (got, err)
    assert lines[0] == line if code == 130 else lines[0].startswith("mtscore: error: ") and line in lines[0].lower()
    after = _digest(work)
    assert {p: h for p, h in after.items() if p in before} == before and set(after) == set(before)
