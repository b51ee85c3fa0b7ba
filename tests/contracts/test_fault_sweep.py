"""The fault sweep: every command x every input/output class, registry-driven and derandomized,
asserting the outcome class of each case -- a value (exit 0, and the same value as the clean run), a one-line
error with its documented exit code, and nothing lost (no input changed, no output half-written or replaced
where it must not be). In process (``main``), ~1-2 minutes on 2 cores.

Discovered from the parser: the writing commands (every leaf command with an output option: ``-o``,
``--save-stats``, ``--write-selections``) and the commands that read hypothesis/reference files. A new
writing command or reading command without a recipe in ``test_params_fuzz.BASES`` fails this test.

Output classes (file outputs): new, existing, each input of the command (same inode), a hard link to an
input, read-only, a symbolic link, a FIFO, /dev/stdout, /dev/stderr, /dev/fd/N (a pipe), a non-UTF-8 name,
a missing folder, a directory. Folder outputs: new, non-UTF-8 name, missing parent, a file in its place, an
input inside it. Input classes (the hypothesis file, else the reference): missing, a directory, not UTF-8,
one line short, CRLF line ends (same value), a byte-order mark (a value, one warning). Reader classes: the
stricter readers (test_fault_regressions.py). The counts are printed (``-s``) and asserted: tracebacks 0, silently wrong 0,
lost 0.
"""
from __future__ import annotations

import contextlib
import hashlib
import re
import io
import json
import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from mtscore.cli.main import OUTPUT_DESTS, main
from test_params_fuzz import BASES, _commands, work  # noqa: F401  (work: the module fixture with the inputs)

COUNTS = {"cases": 0, "values": 0, "errors": 0, "tracebacks": 0, "silently wrong": 0, "lost": 0}
FOLDER_DESTS = {"save_stats", "write_selections"}
NOT_WRITERS = {"rescore", "tokenize", "metrics", "demo", "explain", "rose info", "lattice", "lcm", "compare",
               "score"}  # score writes only with --save-stats: a folder writer


from mtscore.params import DeprecatedOption  # noqa: E402


def _writers():
    """(command path, flag, dest) of every output option of every leaf command."""
    out = []
    for path, p in _commands():
        for a in p._actions:
            if a.dest == "spans_out":  # score --spans-out needs an XCOMET model: tests/neural/test_neural_spans.py
                continue
            if isinstance(a, DeprecatedOption):  # a hidden former spelling (--html) of an output option swept already
                continue
            if a.dest in OUTPUT_DESTS and a.option_strings:
                out.append((path, max(a.option_strings, key=len) if a.dest in FOLDER_DESTS else a.option_strings[0],
                            a.dest))
    return out


WRITERS = _writers()


def _base(path: str) -> list[str]:
    argv = list(BASES[path])
    if "-o" in argv:  # rose train's base names its output
        k = argv.index("-o")
        del argv[k:k + 2]
    if path == "report":
        argv += ["--no-explore"]
    return argv


def _digest(d: Path, skip=()) -> dict:
    out = {}
    for p in sorted(d.rglob("*")):
        rel = os.fsencode(p.relative_to(d))
        if p.is_file() and not p.is_symlink() and not any(str(p).startswith(str(s)) for s in skip):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _call(d: Path, argv):
    """(exit code, stdout, stderr, traceback or None), in ``d``."""
    out, err = io.StringIO(), io.StringIO()
    tb = None
    with contextlib.chdir(d), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as exc:
            rc = exc.code
        except BaseException as exc:  # noqa: BLE001 - a traceback is what the sweep counts
            import traceback
            rc, tb = -1, traceback.format_exc()
    return rc, out.getvalue(), err.getvalue(), tb


def _one_error_line(err: str) -> bool:
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("mtscore: warning:")
             and not ln.startswith("mtscore: note:")]
    return len(lines) == 1 and lines[0].startswith("mtscore: error:") and "Traceback" not in err


class Sweep:
    def __init__(self, d: Path):
        self.d = d
        self.problems: list[str] = []

    def case(self, name, argv, expect, out_check=None, protect=None):
        """Run one case. ``expect``: 0 (a value) or an exit code (a one-line error). ``out_check()``: None
        when the value is right, else what is wrong. ``protect``: inputs that must keep their bytes."""
        COUNTS["cases"] += 1
        before = _digest(self.d / "in")
        rc, out, err, tb = _call(self.d, argv)
        after = _digest(self.d / "in")
        if tb is not None or "Traceback" in err:
            COUNTS["tracebacks"] += 1
            self.problems.append(f"{name}: traceback\n{tb or err}")
            return rc, out, err
        if before != after:
            COUNTS["lost"] += 1
            self.problems.append(f"{name}: an input changed: "
                                 f"{sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))}")
        if expect == 0:
            if rc != 0:
                self.problems.append(f"{name}: expected a value, got exit {rc}: {err.strip()[:300]}")
                return rc, out, err
            COUNTS["values"] += 1
            wrong = out_check(out, err) if out_check else None
            if wrong:
                COUNTS["silently wrong"] += 1
                self.problems.append(f"{name}: wrong value: {wrong}")
        else:
            COUNTS["errors"] += 1
            if rc != expect or not _one_error_line(err):
                if rc == 0:
                    COUNTS["silently wrong"] += 1
                self.problems.append(f"{name}: expected one error line and exit {expect}, got exit {rc}: {err[:300]}")
        return rc, out, err


@pytest.fixture(scope="module")
def sweep(work, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("sweep")
    shutil.copytree(work, d / "in", symlinks=True)
    (d / "out").mkdir()
    return Sweep(d)


def _numbers(text: str) -> list[str]:
    """The numbers of an output (names differ with the file names; the values may not)."""
    return re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])", text)


def _inputs_of(d: Path, argv) -> list[str]:
    """The existing files named by the arguments (relative to ``d / 'in'``), and files inside --data folders."""
    out = []
    for a in argv:
        p = d / "in" / a
        if p.is_file():
            out.append(a)
        elif p.is_dir():
            out += sorted(str(q.relative_to(d / "in")) for q in p.rglob("*.txt"))[:1]
            out += sorted(str(q.relative_to(d / "in")) for q in p.rglob("*.score"))[:1]
    return list(dict.fromkeys(out))


def _in(argv):
    """Arguments that name files of the work folder, made relative to the sweep's root."""
    return [f"in/{a}" if isinstance(a, str) and not a.startswith("-") and ("." in a or a in ("mtme", "stats"))
            and not a.startswith("in/") else a for a in argv]


def test_every_writer_has_a_recipe():
    paths = {p for p, _, _ in WRITERS}
    assert paths == {"report", "meta", "audit deletion", "audit subsets", "audit length", "rose train", "score",
                     "nbest"}, sorted(paths)
    assert all(p in BASES for p in paths)


FILE_CLASSES = ("new", "existing", "input", "hardlink", "read-only", "symlink", "fifo", "dev-stdout",
                "dev-stderr", "dev-fd-pipe", "non-utf8", "missing-folder", "directory")


def _norm(data: bytes) -> bytes:
    """A ROSE model records the command that trained it (with its -o path): compared without that line."""
    return re.sub(rb'"command": "[^\n]*', b'"command"', data)


def _reader_thread(path, sink):
    def run():
        with open(path, "rb") as fh:
            sink.append(fh.read())
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("path,flag,dest", [w for w in WRITERS if w[2] not in FOLDER_DESTS],
                         ids=[w[0].replace(" ", "-") for w in WRITERS if w[2] not in FOLDER_DESTS])
def test_file_outputs(sweep, path, flag, dest):
    d = sweep.d
    sweep.problems = []
    base = _in(_base(path))
    tag = path.replace(" ", "-")
    new = f"out/{tag}.new"
    rc, out0, err0 = sweep.case(f"{path} new", base + [flag, new], 0)
    assert rc == 0, err0
    want = _norm((d / new).read_bytes())
    assert want

    def same_file(p):
        return lambda out, err: None if _norm(Path(d / p).read_bytes()) == want else f"{p} differs from the clean run"

    # an existing regular file: replaced atomically, same bytes as the clean run
    ex = d / "out" / f"{tag}.existing"
    ex.write_text("old")
    sweep.case(f"{path} existing", base + [flag, str(ex.relative_to(d))], 0, same_file(ex.relative_to(d)))
    # every input of the command (same inode): refused, unchanged
    for k, inp in enumerate(_inputs_of(d, _base(path))):
        sweep.case(f"{path} input {inp}", base + [flag, f"in/{inp}"], 5)
        link = d / "out" / f"{tag}.hard{k}"
        if not link.exists():
            os.link(d / "in" / inp, link)
        sweep.case(f"{path} hardlink to {inp}", base + [flag, str(link.relative_to(d))], 5)
        link.unlink()
    # read-only
    ro = d / "out" / f"{tag}.ro"
    ro.write_text("keep")
    ro.chmod(0o444)
    sweep.case(f"{path} read-only", base + [flag, str(ro.relative_to(d))], 5,
               )
    if ro.read_text() != "keep" or stat.S_IMODE(ro.stat().st_mode) != 0o444:
        COUNTS["lost"] += 1
        sweep.problems.append(f"{path} read-only: replaced")
    # a symbolic link to a regular file: the target gets the bytes, the link stays
    tgt = d / "out" / f"{tag}.target"
    tgt.write_text("old")
    sl = d / "out" / f"{tag}.symlink"
    sl.symlink_to(tgt.name)
    sweep.case(f"{path} symlink", base + [flag, str(sl.relative_to(d))], 0,
               lambda o, e: None if sl.is_symlink() and _norm(tgt.read_bytes()) == want else "link replaced or target wrong")
    # a FIFO: written through
    fifo = d / "out" / f"{tag}.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = _reader_thread(fifo, got)
    sweep.case(f"{path} fifo", base + [flag, str(fifo.relative_to(d))], 0,
               lambda o, e: (t.join(30), None if got and _norm(got[0]) == want and stat.S_ISFIFO(os.lstat(fifo).st_mode)
                             else "FIFO not written through")[1])
    if t.is_alive():  # nothing was written: unblock the reader
        with open(fifo, "wb"):
            pass
    # /dev/stdout and /dev/stderr: written through the stream, nothing printed before or after lost
    text = want.decode("utf-8")
    shown = out0.replace(new, "/dev/stdout")

    def through(stream: str, name: str) -> str | None:
        n = _norm(stream.encode()).decode()
        return None if text in n else f"{name}: the output is not there"
    sweep.case(f"{path} /dev/stdout", base + [flag, "/dev/stdout"], 0,
               lambda o, e: through(o, "stdout") or (None if _norm(o.encode()).decode().replace(text, "", 1) == shown
                                                     else "stdout text lost or changed"))
    sweep.case(f"{path} /dev/stderr", base + [flag, "/dev/stderr"], 0,
               lambda o, e: through(e, "stderr") or (None if o == out0.replace(new, "/dev/stderr")
                                                     else "stdout text changed"))
    # /dev/fd/N of a pipe (a process substitution >(...))
    r, w = os.pipe()
    got2: list[bytes] = []

    def drain():
        with os.fdopen(r, "rb") as fh:
            got2.append(fh.read())
    t2 = threading.Thread(target=drain, daemon=True)
    t2.start()
    try:
        sweep.case(f"{path} /dev/fd pipe", base + [flag, f"/dev/fd/{w}"], 0)
    finally:
        os.close(w)
    t2.join(30)
    if not got2 or _norm(got2[0]) != want:
        COUNTS["silently wrong"] += 1
        sweep.problems.append(f"{path} /dev/fd pipe: the pipe did not get the output")
    # a name that is not UTF-8
    odd = os.fsdecode(b"out/" + tag.encode() + b"-\xff.out")
    sweep.case(f"{path} non-UTF-8 name", base + [flag, odd], 0, same_file(odd))
    # a missing folder, a directory
    sweep.case(f"{path} missing folder", base + [flag, "out/no/such/dir/x.out"], 5)
    sweep.case(f"{path} directory", base + [flag, "out"], 5)
    assert not sweep.problems, "\n".join(sweep.problems)
    assert not list((d / "out").glob(".*mtscore-tmp")), "temporary files left"


@pytest.mark.parametrize("path,flag", [(w[0], w[1]) for w in WRITERS if w[2] in FOLDER_DESTS],
                         ids=[w[0] for w in WRITERS if w[2] in FOLDER_DESTS])
def test_folder_outputs(sweep, path, flag):
    d = sweep.d
    sweep.problems = []
    base = _in(_base(path))
    tag = path.replace(" ", "-")
    rc, out0, err0 = sweep.case(f"{path} new folder", base + [flag, f"out/{tag}.dir"], 0)
    assert rc == 0, err0
    names = sorted(p.name for p in (d / "out" / f"{tag}.dir").iterdir())
    assert names
    odd = os.fsdecode(b"out/" + tag.encode() + b"-\xff.dir")
    sweep.case(f"{path} non-UTF-8 folder", base + [flag, odd], 0,
               lambda o, e: None if sorted(os.listdir(os.fsencode(d / odd))) == sorted(map(os.fsencode, names))
               else "other files")
    sweep.case(f"{path} missing parent", base + [flag, "out/no/such/x.dir"], 5)
    (d / "out" / f"{tag}.file").write_text("keep")
    sweep.case(f"{path} a file in its place", base + [flag, f"out/{tag}.file"], 5)
    # an input inside the folder, under the name of one of its outputs: the reference
    inside = d / "in" / f"{tag}.in"
    inside.mkdir()
    shutil.copy(d / "in" / "ref.txt", inside / names[0])
    argv = [f"in/{tag}.in/{names[0]}" if a == "in/ref.txt" else a for a in base]
    sweep.case(f"{path} input inside the folder", argv + [flag, f"in/{tag}.in"], 5)
    assert (inside / names[0]).read_bytes() == (d / "in" / "ref.txt").read_bytes()
    assert not sweep.problems, "\n".join(sweep.problems)


# --- input classes x every command that reads hypothesis / reference files -----------------------------
def _readers():
    out = []
    for path, p in _commands():
        opts = {s for a in p._actions for s in a.option_strings}
        if path in BASES and ("-r" in opts or path == "tokenize") and "--data" not in BASES[path] \
                and {"ref.txt", "a.txt"} & set(BASES[path]):  # explain's base gives its text inline
            out.append(path)
    return out


READERS = _readers()
INPUT_CLASSES = {  # name -> (how the file is made from the clean one, expected exit code)
    "missing": (None, 3),
    "directory": ("dir", 3),
    "not-utf8": (lambda b: b"\xff\xfe" + b, 3),
    "one-line-short": (lambda b: b"".join(b.splitlines(keepends=True)[:-1]), 3),
    "crlf": (lambda b: b.replace(b"\n", b"\r\n"), 0),
    "bom": (lambda b: b"\xef\xbb\xbf" + b, 0),
}


def test_every_reader_is_swept():
    assert {"score", "compare", "report", "meta", "audit subsets", "audit sign", "audit length", "audit deletion",
            "nbest", "lcm", "tokenize", "analyse words", "analyse docs"} <= set(READERS), READERS


@pytest.mark.parametrize("path", READERS, ids=[p.replace(" ", "-") for p in READERS])
def test_input_classes(sweep, path):
    d = sweep.d
    base = _in(_base(path))
    victim = "in/a.txt" if "in/a.txt" in base else "in/ref.txt"
    if path in ("tokenize", "audit deletion", "nbest", "lattice"):
        victim = "in/ref.txt"
    if path == "tokenize" and "one-line-short" in INPUT_CLASSES:
        pass
    sweep.problems = []
    rc, out0, err0 = sweep.case(f"{path} clean", base, 0)
    assert rc == 0, err0
    clean = (d / victim).read_bytes()
    for name, (make, code) in INPUT_CLASSES.items():
        if path == "tokenize" and name == "one-line-short":
            continue  # one file: no other to disagree with
        if path == "audit deletion" and name == "one-line-short":
            continue  # one reference stream given twice as two files? both are the victim's siblings
        repl = f"in/cls-{path.replace(' ', '-')}-{name}/{Path(victim).name}"  # same name: same system name
        target = d / repl
        if make is not None:
            target.parent.mkdir(exist_ok=True)
        if make == "dir":
            target.mkdir(exist_ok=True)
        elif make is not None:
            target.write_bytes(make(clean))
        argv = [repl if a == victim else a for a in base]
        if name == "crlf":
            check = (lambda o, e: None if _numbers(o) == _numbers(out0) else
                     f"CRLF changed the numbers: {_numbers(o)} vs {_numbers(out0)}")
        elif name == "bom":
            check = (lambda o, e: None if "byte-order mark" in e or path == "nbest" else "no BOM warning")
        else:
            check = None
        sweep.case(f"{path} input {name}", argv, code, check)
    assert not sweep.problems, "\n".join(sweep.problems)


# --- the stricter readers -------------------------------------------------------------------
def test_reader_classes(sweep):
    sweep.problems = []
    d = sweep.d / "in"
    (d / "nb-glued.txt").write_text("0 ||| the cat sat ||| f0= 1 ||| -1\n1 ||| hello world|||f0= 2 ||| -2\n"
                                    "2 ||| x ||| f0= 1 ||| -1\n3 ||| a dog ||| f0= 1 ||| -1\n")
    (d / "s-huge.tsv").write_text("a\t1\t0.5\na\t2\t0.5\na\t3\t0.5\na\t3000000000\t0.5\n")
    comet = {"deep.json": "[" * 50000 + "]" * 50000,
             "intmt.json": json.dumps({"a.txt": [{"mt": 1, "COMET": 0.5}] * 4}),
             "bigint.json": '{"a.txt": [' + ",".join(['{"mt": "x", "COMET": ' + "9" * 400 + "}"] * 4) + "]}",
             "hugeint.json": '{"a.txt": [{"mt": "x", "COMET": ' + "9" * 5000 + "}]}"}
    for n, t in comet.items():
        (d / n).write_text(t)
    cases = [("nbest glued separator", ["nbest", "in/nb-glued.txt", "-r", "in/ref.txt"], 3),
             ("nbest repeated weight", ["nbest", "in/nbest.txt", "-r", "in/ref.txt", "--weights", "f0=1,f0=2"], 2),
             ("tsv id beyond the file", ["score", "-r", "in/ref.txt", "-i", "in/a.txt", "-m",
                                         "scores:X=in/s-huge.tsv,format=tsv,direction=higher"], 3)]
    cases += [(f"comet json {n}", ["score", "-r", "in/ref.txt", "-i", "in/a.txt", "-m", f"scores:COMET=in/{n}"], 3)
              for n in comet]
    for name, argv, code in cases:
        sweep.case(name, argv, code)
    assert not sweep.problems, "\n".join(sweep.problems)


# --- the neural score cache as an input, and its failure modes ---------------------------------------
NEURAL = Path(__file__).parent / "fixtures" / "neural"


def test_score_cache_classes(sweep, monkeypatch):
    """The cache file (``$MTSCORE_CACHE_DIR/neural.sqlite``) is an input of every run: no output option may
    replace it or a link to it. ``mtscore cache`` on an unusable cache, a locked cache, a cache of another
    schema, unreadable entries, checkpoints with NaN weights or a malformed hparams.yaml: one line each (or,
    for unreadable entries, the same value again with one warning)."""
    pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")
    import sqlite3

    from mtscore.neural.cache import ScoreCache, key
    d = sweep.d
    sweep.problems = []
    cdir = d / "nn-cache"
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(cdir))
    monkeypatch.delenv("MTSCORE_NO_CACHE", raising=False)
    c = ScoreCache()
    c.put_many([(key("fp", "", "k", ("x",)), 0.25, None)])
    c.close()
    db = cdir / "neural.sqlite"
    link = d / "out" / "cache-link.sqlite"
    link.symlink_to(db)
    kept = db.read_bytes()
    # every file output, and score --spans-out, naming the cache or a link to it: refused before any work
    xc = f"xcomet:model={NEURAL / 'xcomet'},sources=in/ref.txt"
    writers = [(_in(_base(p)), f) for p, f, dest in WRITERS if dest not in FOLDER_DESTS]
    writers.append((["score", "-r", "in/ref.txt", "-i", "in/a.txt", "-m", xc], "--spans-out"))
    for base, flag in writers:
        for target in (db, link):
            sweep.case(f"{base[0]} {flag} the score cache ({target.name})", base + [flag, str(target)], 5)
    if db.read_bytes() != kept or not link.is_symlink():
        COUNTS["lost"] += 1
        sweep.problems.append("the score cache was replaced by an output")
    # mtscore cache: a file named by MTSCORE_CACHE_DIR, a folder in the cache's place, other schemas, a lock
    (d / "nn-file").write_text("x")
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(d / "nn-file"))
    sweep.case("cache: MTSCORE_CACHE_DIR names a file", ["cache"], 5)
    (d / "nn-dir" / "neural.sqlite").mkdir(parents=True)
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(d / "nn-dir"))
    sweep.case("cache: neural.sqlite is a folder", ["cache"], 5)
    for name, make in (("another schema", lambda con: con.execute("CREATE TABLE scores (id INTEGER)")),
                       ("another schema version", lambda con: (
                           con.execute("CREATE TABLE scores (k BLOB PRIMARY KEY, v BLOB NOT NULL, extra TEXT)"),
                           con.execute("PRAGMA user_version = 99")))):
        other = d / f"nn-{name.replace(' ', '-')}"
        other.mkdir()
        with sqlite3.connect(other / "neural.sqlite") as con:
            make(con)
        monkeypatch.setenv("MTSCORE_CACHE_DIR", str(other))
        sweep.case(f"cache: {name}", ["cache"], 3)
    (d / "nn-garbage").mkdir()
    (d / "nn-garbage" / "neural.sqlite").write_bytes(b"not sqlite " * 50)
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(d / "nn-garbage"))
    sweep.case("cache: not an SQLite file", ["cache"], 3)
    sweep.case("cache --clear: not an SQLite file", ["cache", "--clear"], 3)
    if (d / "nn-garbage" / "neural.sqlite").read_bytes() != b"not sqlite " * 50:
        COUNTS["lost"] += 1
        sweep.problems.append("cache --clear replaced a file that is not a cache")
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(cdir))
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "0.3")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        rc, _, err = sweep.case("cache: locked by another process", ["cache"], 5)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    if "mtscore: warning:" not in err or "locked by another process" not in err:
        COUNTS["silently wrong"] += 1
        sweep.problems.append("a locked cache was waited for without a word")
    monkeypatch.delenv("MTSCORE_CACHE_WAIT")
    # unreadable entries (a truncated value, a malformed span entry): recomputed, the same value, one warning
    tri = ["-r", "in/ref.txt", "-i", "in/a.txt", "--sentence-level", "-f", "json"]
    for spec in (f"comet:model={NEURAL / 'comet-da'},sources=in/ref.txt", xc):
        rc, clean, _ = sweep.case(f"{spec.split(':')[0]} clean", ["score", *tri, "-m", spec], 0)
        with sqlite3.connect(db) as con:
            con.execute("UPDATE scores SET v = substr(v, 1, 3)")
            con.execute("UPDATE scores SET extra = '[{\"start\": 1.7}]' WHERE extra IS NOT NULL")
        sweep.case(f"{spec.split(':')[0]} unreadable cache entries", ["score", *tri, "-m", spec], 0,
                   lambda o, e, clean=clean: None if _numbers(o) == _numbers(clean) and "unreadable" in e
                   else "not recomputed, or no warning")
    # checkpoints: NaN weights, hparams.yaml nested 50,000 deep, a string where a list belongs
    import torch
    bad = {}
    for name in ("nan", "deep", "string"):
        bad[name] = d / f"nn-ckpt-{name}"
        shutil.copytree(NEURAL / "comet-da", bad[name])
    ck = bad["nan"] / "checkpoints" / "model.ckpt"
    sd = torch.load(str(ck), weights_only=True)
    next(v for k, v in sd["state_dict"].items() if k.startswith("encoder.")).view(-1)[3] = float("nan")
    torch.save(sd, str(ck))
    hp = (NEURAL / "comet-da" / "hparams.yaml").read_text()
    (bad["deep"] / "hparams.yaml").write_text(hp + "extra: " + "[" * 50000 + "]" * 50000 + "\n")
    (bad["string"] / "hparams.yaml").write_text(hp.replace("hidden_sizes:\n- 48\n- 24\n", "hidden_sizes: '48,24'\n"))
    for name, folder in bad.items():
        sweep.case(f"comet checkpoint: {name}", ["score", "-r", "in/ref.txt", "-i", "in/a.txt", "-m",
                                                 f"comet:model={folder},sources=in/ref.txt,cache=false"], 3)
    assert not sweep.problems, "\n".join(sweep.problems)


def test_counts(sweep):
    """Last: the sweep's totals (printed with -s; the closing note quotes them)."""
    print("\nfault sweep:", ", ".join(f"{k} {v}" for k, v in COUNTS.items()))
    assert COUNTS["cases"] > 150
    assert COUNTS["tracebacks"] == 0 and COUNTS["silently wrong"] == 0 and COUNTS["lost"] == 0
