"""The fault sweep: every command x every input/output class, registry-driven and derandomized,
asserting the outcome class of each case -- a value (exit 0, and the same value as the clean run), a one-line
error with its documented exit code, and nothing lost (no input changed, no output half-written or replaced
where it must not be). In process (``main``), ~1-2 minutes on 2 cores.

Discovered from the parser: the writing commands (every leaf command with an output option: ``-o``,
``--save-stats``, ``--write-selections``) and the commands that read hypothesis/reference files. A new
writing command or reading command without a recipe in ``test_params_fuzz.BASES`` fails this test.

Output classes (file outputs): new, existing, each input of the command (same inode), a hard link to an
input, read-only, a symbolic link, a FIFO, /dev/stdout, /dev/stderr, /dev/fd/N (a pipe), a non-UTF-8 name,
a missing folder, a directory, /dev/fd/N and /proc/self/fd/N open on an input. Folder outputs: new, non-UTF-8
name, missing parent, a file in its place, an input inside it (under one of its names, and under a set's name the
new set does not write), a foreign file named like a set. Input classes (the hypothesis file, else the reference): missing, a directory, not UTF-8,
one line short, CRLF line ends (same value), a byte-order mark (a value, one warning). Reader classes: the
stricter readers (test_fault_regressions.py); the edge recipes (``EDGE_RECIPES``: error-span files, JSON nested
too deeply in every JSON reader, an empty human score file, file names that are not UTF-8). The counts are printed
(``-s``) and asserted: tracebacks 0, silently wrong 0,
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
                     "nbest", "rank"}, sorted(paths)
    assert all(p in BASES for p in paths)


FILE_CLASSES = ("new", "existing", "input", "hardlink", "read-only", "symlink", "fifo", "dev-stdout",
                "dev-stderr", "dev-fd-pipe", "dev-fd-input", "proc-fd-input", "non-utf8", "missing-folder",
                "directory")


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
    # /dev/fd/N and /proc/self/fd/N of a descriptor open for writing on an input (``7<>hyp.txt``): refused as the
    # input's own name is; the input keeps its bytes (Sweep.case compares them)
    for inp in _inputs_of(d, _base(path)):
        for form in ("/dev/fd/{}", "/proc/self/fd/{}"):
            fd = os.open(d / "in" / inp, os.O_RDWR)
            try:
                sweep.case(f"{path} {form.format('N')} open on {inp}", base + [flag, form.format(fd)], 5)
            finally:
                os.close(fd)
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
    if path == "score":  # a statistics folder: an earlier set's files that the new set lacks are removed
        # an input under a set's name that the new set does not write: refused, kept
        shutil.copy(d / "in" / "ref.txt", inside / "07-x.parquet")
        argv = [f"in/{tag}.in/07-x.parquet" if a == "in/ref.txt" else a for a in base]
        sweep.case(f"{path} input named like a set in the folder", argv + [flag, f"in/{tag}.in"], 5)
        # a file named like a set that --save-stats did not write: refused, kept
        foreign = d / "out" / f"{tag}.foreign"
        foreign.mkdir()
        (foreign / "03-y.parquet").write_text("keep")
        sweep.case(f"{path} a foreign file named like a set", base + [flag, str(foreign.relative_to(d))], 5)
        if (foreign / "03-y.parquet").read_text() != "keep":
            COUNTS["lost"] += 1
            sweep.problems.append(f"{path}: a foreign file named like a set was removed")
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
            # the same numbers (as a multiset: a longer path can wrap a text table into other blocks)
            check = (lambda o, e: None if sorted(_numbers(o)) == sorted(_numbers(out0)) else
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


# --- edge recipes: error-span files, deep JSON, an empty human score file, names that are not UTF-8 --------
SPAN_OUT = {"A": "the cat sat", "B": "a b c"}  # in/spans/out/<SYSTEM>.txt, two segments each
SPAN_FILES = {  # under in/spans/
    "gold.rating": 'A\t{"errors": [{"start": 0, "end": 3, "severity": "major"}]}\nA\tNone\n'
                   'B\t{"errors": []}\nB\t{"errors": [{"start": 0, "end": 1, "severity": "minor"}]}\n',
    "ok.json": '{"A": [[{"start": 0, "end": 3, "severity": "major"}], []], "B": [[], []]}',
    "frac.json": '{"A": [[{"start": 1.7, "end": 3, "severity": "major"}], []], "B": [[], []]}',
    "bool.json": '{"A": [[{"start": true, "end": 3, "severity": "major"}], []], "B": [[], []]}',
    "inf.json": '{"A": [[{"start": 0, "end": Infinity, "severity": "major"}], []], "B": [[], []]}',
    "nosev.json": '{"A": [[{"start": 0, "end": 3}], []], "B": [[], []]}',
    "nosev.rating": 'A\t{"errors": [{"start": 0, "end": 3}]}\nA\tNone\nB\tNone\nB\tNone\n',
    "nosev-gemba.json": '[{"system": "A", "seg": 1, "errors": [{"span": "cat"}]}, {"system": "B", "seg": 1, '
                        '"errors": []}]',
    "system.json": '{"A": [[], []], "B": [[], []], "C": [[{"start": 0, "end": 1, "severity": "major"}]]}',
    "segment.json": '{"A": [[], [], [{"start": 0, "end": 1, "severity": "major"}]], "B": [[], []]}',
    "segment.tsv": "system\tseg\tstart\tend\tseverity\nA\t3\t0\t1\tmajor\nB\t1\t0\t1\tminor\n",
    "seg-frac.json": '[{"system": "A", "seg": 1.5, "error_spans": []}, {"system": "B", "seg": 1, "error_spans": []}]',
    "seg-inf.json": '[{"system": "A", "seg": Infinity, "error_spans": []}, {"system": "B", "seg": 1, '
                     '"error_spans": []}]',
    "huge.json": '{"A": [[{"start": 0, "end": 1000000000000, "severity": "major"}], []], "B": [[], []]}',
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "deep.rating": "A\t" + "[" * 100_000 + "]" * 100_000 + "\nA\tNone\nB\tNone\nB\tNone\n",
}


def _micro_p(value: float):
    """A check: the table's first predictor has micro precision ``value`` (JSON output)."""
    def check(out, err):
        got = json.loads(out)["rows"][0]
        p = got["micro P"] if isinstance(got, dict) else got[1]
        return None if abs(p - value) <= 1e-15 else f"micro P {p}, expected {value}"
    return check


def _spans(*argv, outputs=True):
    return ["meta", "--spans", "--gold", "in/spans/gold.rating", *argv] + (
        ["--outputs", "in/spans/out"] if outputs else [])


EDGE_RECIPES = [  # (name, argv, expected exit, check of the value)
    ("spans clean", _spans("--pred", "x=in/spans/ok.json", "-f", "json"), 0, _micro_p(1.0)),
    ("spans clean, no translations", _spans("--pred", "x=in/spans/ok.json", "-f", "json", outputs=False), 0,
     _micro_p(1.0)),
    ("span start 1.7", _spans("--pred", "x=in/spans/frac.json"), 3, None),
    ("span start true", _spans("--pred", "x=in/spans/bool.json"), 3, None),
    ("span end Infinity", _spans("--pred", "x=in/spans/inf.json"), 3, None),
    ("span end Infinity, no translations", _spans("--pred", "x=in/spans/inf.json", outputs=False), 3, None),
    ("span without severity (JSON)", _spans("--pred", "x=in/spans/nosev.json"), 3, None),
    ("span without severity (gold rating)", ["meta", "--spans", "--gold", "in/spans/nosev.rating", "--pred",
                                             "x=in/spans/ok.json"], 3, None),
    ("error without severity (GEMBA)", _spans("--pred", "x=in/spans/nosev-gemba.json"), 3, None),
    ("span on a system that does not exist", _spans("--pred", "x=in/spans/system.json"), 3, None),
    ("span on a system not in the gold file", _spans("--pred", "x=in/spans/system.json", outputs=False), 3, None),
    ("span on a segment that does not exist", _spans("--pred", "x=in/spans/segment.json"), 3, None),
    ("span on a segment beyond the gold file", _spans("--pred", "x=in/spans/segment.json", outputs=False), 3, None),
    ("TSV span on a segment that does not exist", _spans("--pred", "x=in/spans/segment.tsv"), 3, None),
    ("seg 1.5", _spans("--pred", "x=in/spans/seg-frac.json"), 3, None),
    ("seg Infinity", _spans("--pred", "x=in/spans/seg-inf.json"), 3, None),
    ("two --pred with one name", _spans("--pred", "x=in/spans/ok.json", "x=in/spans/ok.json"), 2, None),
    ("--outputs without a system", ["meta", "--spans", "--gold", "in/spans/gold.rating", "--pred",
                                    "x=in/spans/ok.json", "--outputs", "in/spans/out-a"], 3, None),
    ("span ending at 10^12", _spans("--pred", "x=in/spans/huge.json", "-f", "json", outputs=False), 0,
     _micro_p(3 / 10 ** 12)),
    ("span ending at 10^12, with translations", _spans("--pred", "x=in/spans/huge.json"), 3, None),
    ("--pred JSON nested 100,000 deep", _spans("--pred", "x=in/spans/deep.json"), 3, None),
    ("gold rating nested 100,000 deep", ["meta", "--spans", "--gold", "in/spans/deep.rating", "--pred",
                                         "x=in/spans/ok.json"], 3, None),
    ("sources/*.jsonl nested 100,000 deep", ["meta", "--data", "in/mtme-deep-src", "--lp", "aa-en"], 3, None),
    ("system-outputs/*.jsonl nested 100,000 deep", ["meta", "--data", "in/mtme-deep-sys", "--lp", "aa-en"], 3,
     None),
    ("meta --data, empty human seg file", ["meta", "--data", "in/mtme-empty-seg", "--lp", "aa-en"], 3, None),
    ("meta --data, empty human seg file, seg level", ["meta", "--data", "in/mtme-empty-seg", "--lp", "aa-en",
                                                      "--level", "seg"], 3, None),
]
ODD = os.fsdecode(b"in/a\xff.txt")  # an input whose name is not UTF-8
EDGE_RECIPES += [
    ("report -o, an input name not UTF-8", ["report", "-r", "in/ref.txt", "-i", ODD, "in/b.txt", "--resamples", "20",
                                           "-o", "out/edge-odd.html"], 0, "utf8:out/edge-odd.html"),
    ("report -o, a reference name not UTF-8", ["report", "-r", os.fsdecode(b"in/r\xfe.txt"), "-i", "in/a.txt",
                                               "in/b.txt", "--resamples", "20", "--no-explore", "-o",
                                               "out/edge-odd-ref.html"], 0, "utf8:out/edge-odd-ref.html"),
    ("score --save-stats, an input name not UTF-8", ["score", "-r", "in/ref.txt", "-i", ODD, "in/b.txt", "--jobs",
                                                     "1", "--save-stats", "out/edge-odd.stats"], 0,
     "rescore:out/edge-odd.stats"),
]


class _Hang(BaseException):
    pass


def _edge_files(d: Path) -> None:
    sp = d / "spans"
    (sp / "out").mkdir(parents=True)
    (sp / "out-a").mkdir()
    for name, text in SPAN_OUT.items():
        (sp / "out" / f"{name}.txt").write_text(text + "\nsecond line\n")
    (sp / "out-a" / "A.txt").write_text(SPAN_OUT["A"] + "\nsecond line\n")
    for name, text in SPAN_FILES.items():
        (sp / name).write_text(text)
    deep = "[" * 100_000 + "]" * 100_000
    src = d / "mtme"
    n = len((src / "sources" / "aa-en.txt").read_text().splitlines())
    for variant in ("mtme-deep-src", "mtme-deep-sys", "mtme-empty-seg"):
        shutil.copytree(src, d / variant)
    (d / "mtme-deep-src" / "sources" / "aa-en.txt").unlink()
    (d / "mtme-deep-src" / "sources" / "aa-en.jsonl").write_text(
        deep + "\n" + "".join(json.dumps({"source": f"src {i}"}) + "\n" for i in range(1, n)))
    hyp = d / "mtme-deep-sys" / "system-outputs" / "aa-en" / "sys0.txt"
    lines = hyp.read_text().splitlines()
    hyp.unlink()
    hyp.with_suffix(".jsonl").write_text(deep + "\n" + "".join(json.dumps({"hypothesis": x}) + "\n"
                                                               for x in lines[1:]))
    hs = d / "mtme-empty-seg" / "human-scores"
    (hs / "aa-en.mqm.seg.score").write_text("")
    (hs / "aa-en.mqm.sys.score").write_text("sys0\t1\nsys1\t2\nsys2\t3\n")
    shutil.copy(d / "a.txt", os.fsencode(d / "a") + b"\xff.txt")
    shutil.copy(d / "ref.txt", os.fsencode(d / "r") + b"\xfe.txt")


def _edge_check(d: Path, check):
    if not isinstance(check, str):
        return check
    kind, _, target = check.partition(":")

    def run(out, err):
        if kind == "utf8":
            try:
                (d / target).read_bytes().decode("utf-8")
            except UnicodeDecodeError as exc:
                return f"{target} is not UTF-8 ({exc})"
            return None
        rc, o, e, tb = _call(d, ["rescore", target])
        return None if rc == 0 and tb is None and "a\\xff" in o else f"rescore {target}: exit {rc}: {e[:200]}"
    return run


def test_edge_recipes(sweep):
    """Each recipe of ``EDGE_RECIPES``: a value (and the right one), or one error line with its exit code; a
    case that enumerates characters instead of spans stops at the guard (counted as a traceback)."""
    import signal
    d = sweep.d
    sweep.problems = []
    _edge_files(d / "in")

    def hang(signum, frame):
        raise _Hang("no result within the guard: the computation is not proportional to the input")
    old = signal.signal(signal.SIGALRM, hang)
    try:
        for name, argv, code, check in EDGE_RECIPES:
            signal.alarm(60)
            try:
                sweep.case(name, argv, code, _edge_check(d, check))
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)
    assert not sweep.problems, "\n".join(sweep.problems)


# --- the neural score cache as an input, and its failure modes ---------------------------------------
NEURAL = Path(__file__).resolve().parents[1] / "fixtures" / "neural"


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
