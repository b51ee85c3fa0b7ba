"""``mtscore sacrebleu`` against sacreBLEU 2.6's own command line (docs/sacrebleu.md: the command line).

Every case of the grid runs sacreBLEU's CLI (``sacrebleu.sacrebleu.main``, in-process with its
``sys.argv``/stdin/stdout pointed at files: the real CLI code, without a Python start-up per case) and
the drop-in on the same files, and compares stdout byte for byte after mapping our signature version
(``version:mtscore-X``) to sacreBLEU's. Data: 150-line slices of ../shared/data (wmt17 en-de with a
BOM in online-A, wmt21 en-de with three references, wmt21 en-zh), plus copies with CRLF line ends,
empty lines and trailing blanks, wmt23 en-ja (ja-mecab); 80 command lines, plus 10 with test sets from a
sacreBLEU-cache-shaped folder, plus 21 with --origlang/--subset/-d/--list on a cache holding raw WMT17/WMT19
SGM and WMT23 XML files (text fields written by sacreBLEU's own process_to_text). sacreBLEU's stdout of each case
is also stored as a digest (see ``same_as_sacrebleu``): it runs again only where mtscore's output differs from it.
"""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import data_path

sacrebleu_pkg = pytest.importorskip("sacrebleu")
from sacrebleu import sacrebleu as sb_main  # noqa: E402

from mtscore import __version__  # noqa: E402
from mtscore.sacrebleu.sacrebleu import run as ours_run  # noqa: E402
from mtscore.errors import MtscoreError  # noqa: E402

N = 150


def _slice(src, dst, n=N, start=0):
    with open(src, "rb") as fh:
        lines = fh.read().split(b"\n")
    dst.write_bytes(b"\n".join(lines[start:start + n]) + b"\n")
    return dst


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d17 = data_path("wmt17-en-de")
    d21 = data_path("wmt21")
    t = tmp_path_factory.mktemp("sbgrid")
    f = {}
    f["ref"] = _slice(d17 / "newstest2017.en-de.ref0.de", t / "ref.de")
    sysdir = d17 / "systems"
    f["A"] = _slice(sysdir / "newstest2017.online-A.0.en-de", t / "online-A.de")  # starts with a BOM
    f["B"] = _slice(sysdir / "newstest2017.LIUM-NMT.4900.en-de", t / "LIUM.de")
    f["C"] = _slice(sysdir / "newstest2017.KIT.4950.en-de", t / "KIT.de")
    assert f["A"].read_bytes().startswith(b"\xef\xbb\xbf")
    for x in "ACD":
        f[f"r21{x}"] = _slice(d21 / "references" / f"newstest2021.en-de.ref.{x}.de", t / f"r21.{x}.de", 120)
    f["h21"] = _slice(d21 / "system-outputs" / "newstest2021.en-de.hyp.Facebook-AI.de", t / "h21.de", 120)
    f["h21b"] = _slice(d21 / "system-outputs" / "newstest2021.en-de.hyp.HuaweiTSC.de", t / "h21b.de", 120)
    f["zref"] = _slice(d21 / "references" / "newstest2021.en-zh.ref.A.zh", t / "ref.zh", 100)
    f["zhyp"] = _slice(d21 / "system-outputs" / "newstest2021.en-zh.hyp.Facebook-AI.zh", t / "hyp.zh", 100)
    dja = data_path("wmt23-en-ja")
    f["jref"] = _slice(dja / "generaltest2023.en-ja.ref.refA.ja", t / "ref.ja", 100)
    f["jhyp"] = _slice(dja / "system-outputs" / "generaltest2023.en-ja.hyp.ONLINE-Y.ja", t / "y.ja", 100)
    f["jhyp2"] = _slice(dja / "system-outputs" / "generaltest2023.en-ja.hyp.SKIM.ja", t / "skim.ja", 100)
    # TAB-separated references for -nr 2
    ra = f["r21A"].read_text(encoding="utf-8").split("\n")[:-1]
    rc = f["r21C"].read_text(encoding="utf-8").split("\n")[:-1]
    f["r21tsv"] = t / "r21.tsv"
    f["r21tsv"].write_text("".join(f"{a}\t{c}\n" for a, c in zip(ra, rc)), encoding="utf-8")
    # dirty copies: CRLF, empty lines, trailing blanks, a BOM in the reference
    hyp = f["B"].read_text(encoding="utf-8").split("\n")[:-1]
    ref = f["ref"].read_text(encoding="utf-8").split("\n")[:-1]
    hyp = [("" if i % 17 == 3 else h + ("  " if i % 5 == 0 else "")) for i, h in enumerate(hyp)]
    ref = [("" if i % 29 == 5 else r) for i, r in enumerate(ref)]
    f["dh"] = t / "dirty.hyp"
    f["dh"].write_bytes(("\r\n".join(hyp) + "\r\n").encode("utf-8"))
    f["dr"] = t / "dirty.ref"
    f["dr"].write_bytes(("\ufeff" + "\n".join(ref)).encode("utf-8"))  # BOM, no final newline
    # two systems as TAB-separated columns on standard input
    a = f["A"].read_text(encoding="utf-8").split("\n")[:-1]
    b = f["B"].read_text(encoding="utf-8").split("\n")[:-1]
    f["stdin2"] = t / "two.tsv"
    f["stdin2"].write_text("".join(f"{x}\t{y}\n" for x, y in zip(a, b)), encoding="utf-8")
    return f


class _Fd:
    """Stands in for sys.stdin/sys.stdout: sacreBLEU's main() re-opens ``fileno()`` itself."""

    def __init__(self, fd):
        self.fd = fd

    def fileno(self):
        return self.fd


def run_sacrebleu(argv, stdin_path, tmp_path):
    """sacreBLEU 2.6's CLI, in-process: (exit status, stdout bytes)."""
    out_path = tmp_path / "sb.out"
    saved = sys.argv, sys.stdin, sys.stdout
    code = 0
    with open(stdin_path if stdin_path else os.devnull, "rb") as fin, open(out_path, "wb") as fout:
        # main() opens these descriptors with closefd=True: give it duplicates it may close
        sys.argv = ["sacrebleu", *argv]
        sys.stdin, sys.stdout = _Fd(os.dup(fin.fileno())), _Fd(os.dup(fout.fileno()))
        try:
            sb_main.main()
        except SystemExit as exc:
            code = exc.code or 0
        finally:
            opened = sys.stdin, sys.stdout
            sys.argv, sys.stdin, sys.stdout = saved
            for f in opened:
                if isinstance(f, _Fd):
                    os.close(f.fd)
                else:
                    f.close()  # flushes what main() printed
    return code, out_path.read_bytes()


def run_ours(argv, stdin_path):
    out = io.StringIO()
    err = io.StringIO()
    data = open(stdin_path, "rb").read() if stdin_path else b""
    code = ours_run(argv, stdin=io.TextIOWrapper(io.BytesIO(data)), stdout=out, stderr=err,
                    environ={"NO_COLOR": "1"})
    return code, out.getvalue().encode("utf-8")


def normalize(b: bytes) -> bytes:
    v = f"mtscore-{__version__}".encode()
    return (b.replace(b"version:" + v, b"version:2.6.0").replace(b"v:" + v, b"v:2.6.0")
            .replace(b'"version": "' + v + b'"', b'"version": "2.6.0"'))


# sacreBLEU's stdout of each grid case is known by its sha256 (tests/known_answers/sacrebleu-cli-stdout.json): when
# mtscore's output has that digest, the case holds without running sacreBLEU again (it takes ~95% of this file's
# time); otherwise sacreBLEU runs here and decides. The grid runs in its corpus folder with the files named relative
# to it, so that its tables (systems named by their files) are the same on every run; a case whose output names
# the temporary files by absolute paths differs from the stored digest on every run and always runs sacreBLEU. To remake the file, run this
# module in one process with MTSCORE_RECORD_SACREBLEU_CLI=FILE: sacreBLEU then runs on every case and its digests
# are written to FILE (the only write outside the temporary folders, and only when asked).
KNOWN_STDOUT = Path(__file__).resolve().parents[1] / "known_answers" / "sacrebleu-cli-stdout.json"
_KNOWN = json.loads(KNOWN_STDOUT.read_text(encoding="utf-8"))  # a missing file fails
if _KNOWN["sacrebleu"] != sacrebleu_pkg.__version__:  # digests of another sacreBLEU: every case runs it
    _KNOWN["stdout_sha256"] = {}
_RECORD = os.environ.get("MTSCORE_RECORD_SACREBLEU_CLI")


def same_as_sacrebleu(request, ours: str, run_peer) -> None:
    """``ours`` (normalized stdout) equals sacreBLEU's stdout for this case: by the stored digest, else live."""
    key = request.node.nodeid.split("::", 1)[1]
    digest = hashlib.sha256(ours.encode("utf-8")).hexdigest()
    if not _RECORD and _KNOWN["stdout_sha256"].get(key) == digest:
        return
    code_sb, out_sb = run_peer()
    assert code_sb == 0 and out_sb, "sacreBLEU itself failed on this case"
    assert ours == out_sb.decode("utf-8")
    if _RECORD:
        rec = json.loads(Path(_RECORD).read_text(encoding="utf-8")) if Path(_RECORD).exists() else \
            {"sacrebleu": sacrebleu_pkg.__version__, "stdout_sha256": {}}
        rec["stdout_sha256"][key] = hashlib.sha256(out_sb).hexdigest()
        Path(_RECORD).write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# (argv with file keys in {braces}, stdin file key or None)
GRID = [
    # single system, metrics x formats x width x score-only
    ("{ref} -i {A}", None),
    ("{ref} -i {A} -f text", None),
    ("{ref} -i {A} -f latex", None),
    ("{ref} -i {A} -m bleu chrf ter", None),
    ("{ref} -i {A} -m bleu chrf ter -f text", None),
    ("{ref} -i {A} -m ter chrf bleu -f text -w 3", None),
    ("{ref} -i {A} -m bleu chrf ter -b", None),
    ("{ref} -i {A} -m bleu chrf ter -b -f text -w 0", None),
    ("{ref} -i {A} -m chrf -w 4", None),
    ("{ref} -i {A} -m chrf --chrf-word-order 2 -f text", None),
    ("{ref} -i {A} -m chrf -cw 2 -cc 4 --chrf-beta 3 --chrf-whitespace --chrf-lowercase", None),
    ("{ref} -i {A} -m chrf --chrf-eps-smoothing -f text -w 5", None),
    ("{ref} -i {A} -m ter --ter-case-sensitive -f text", None),
    ("{ref} -i {A} -m ter --ter-normalized --ter-no-punct", None),
    ("{ref} -i {A} -m ter --ter-asian-support --ter-normalized -f text -w 2", None),
    ("{ref} -i {A} --short -f text", None),
    ("{ref} -i {A} -m bleu chrf ter --short -f text -w 2", None),
    ("{ref} -i {A} --short", None),  # json ignores --short
    # tokenizers, lowercase, smoothing
    ("{ref} -i {A} -tok intl -f text", None),
    ("{ref} -i {A} -tok char -lc", None),
    ("{ref} -i {A} -tok none -f text -w 3", None),
    ("{ref} -i {A} -lc -f text", None),
    ("{ref} -i {A} -tok 13a -lc -b -w 4", None),
    ("{ref} -i {A} -s floor -f text", None),
    ("{ref} -i {A} -s floor -sv 0.3 -f text -w 3", None),
    ("{ref} -i {A} -s add-k -f text", None),
    ("{ref} -i {A} -s add-k -sv 2 -f json", None),
    ("{ref} -i {A} -s none -f text -w 3", None),
    ("{zref} -i {zhyp} -tok zh -f text -w 3", None),
    ("{zref} -i {zhyp} -m bleu chrf -tok zh", None),
    ("{zref} -i {zhyp} -tok char -f text", None),
    ("{zref} -i {zhyp} -m ter --ter-asian-support --ter-normalized -f text", None),
    # Japanese: -l en-ja picks ja-mecab as sacreBLEU does (needs mtscore[ja]: mecab-python3 + ipadic)
    ("{jref} -i {jhyp} -l en-ja -f text", None),
    ("{jref} -i {jhyp} -tok ja-mecab -m bleu chrf", None),
    ("{jref} -i {jhyp} -tok char -f text -w 4 -l en-ja", None),
    ("{jref} -i {jhyp} {jhyp2} -l en-ja -f text --paired-ar -parn 32", None),
    # standard input
    ("{ref}", "A"),
    ("{ref} -m bleu chrf ter -f text", "B"),
    ("{ref} -b", "A"),
    ("{ref} -f text", "dh"),
    ("{ref} -f text -m bleu chrf", "stdin2"),
    ("{ref} --paired-bs -pbsn 20 -f text", "stdin2"),
    ("{ref} --paired-ar -parn 64 -f latex", "stdin2"),
    # several references
    ("{r21A} {r21C} {r21D} -i {h21} -f text", None),
    ("{r21A} {r21C} {r21D} -i {h21} -m bleu chrf ter", None),
    ("{r21A} {r21C} -i {h21} -m bleu chrf ter -f text -w 3 -lc", None),
    ("{r21tsv} -nr 2 -i {h21} -f text -m bleu chrf", None),
    ("{r21A} {r21C} {r21D} -i {h21} {h21b} -f text -m bleu chrf ter", None),
    ("{r21A} {r21C} -i {h21} {h21b} --paired-bs -pbsn 30 -f text -m bleu chrf", None),
    # BOM / CRLF / empty lines / trailing blanks
    ("{dr} -i {dh} -f text -m bleu chrf ter", None),
    ("{dr} -i {dh} -m bleu chrf ter -w 4", None),
    ("{ref} -i {dh} -tok intl -lc -f text", None),
    ("{dr} -i {A} -f text -m chrf -cw 2", None),
    # confidence intervals
    ("{ref} -i {A} --confidence -cin 30 -f text", None),
    ("{ref} -i {A} -m bleu chrf ter --confidence -cin 25", None),
    ("{ref} -i {A} -m bleu chrf ter --confidence -cin 25 -f text -w 3", None),
    ("{ref} -i {B} -ci -cin 40 -b -f text", None),
    ("{ref} -i {A} --confidence -cin 1", None),  # one resample: the score without an interval, as sacreBLEU
    ("{ref} -i {A} -m bleu chrf ter --confidence -cin 1 -f text", None),
    ("{r21A} {r21C} -i {h21} -m bleu ter -ci -cin 20 -f text", None),
    ("{r21A} {r21C} {r21D} -i {h21} -m ter -ci -cin 30 -w 6", None),  # non-integer TER statistics: float32 order
    # several systems: tables, paired tests
    ("{ref} -i {A} {B} {C}", None),
    ("{ref} -i {A} {B} {C} -f text", None),
    ("{ref} -i {A} {B} -f latex -m bleu chrf ter", None),
    ("{ref} -i {A} {B} {C} -f text -w 3 -m chrf ter --short", None),
    ("{ref} -i {A} {B} {C} --paired-bs -pbsn 25 -f text", None),
    ("{ref} -i {A} {B} {C} --paired-bs -pbsn 25", None),  # JSON works for BLEU (float64 means)
    ("{ref} -i {A} {B} --paired-bs -pbsn 20 -f text -m bleu chrf ter", None),
    ("{ref} -i {A} {B} --paired-bs -pbsn 20 -f latex -m chrf -w 2", None),
    ("{ref} -i {A} {B} {C} --paired-ar -parn 50 -f text -m bleu chrf ter", None),
    ("{ref} -i {A} {B} --paired-ar -parn 70 -m bleu chrf ter", None),
    ("{ref} -i {A} {B} --paired-ar -parn 40 -f latex --short -w 2", None),
    ("{ref} -i {A} {A} {B} --paired-ar -parn 33 -f text", None),  # baseline given twice: ignored
    ("{dr} -i {dh} {A} --paired-bs -pbsn 15 -f text -m ter", None),
    ("{ref} -i {A} {B} {C} --paired-bs -pbsn 20 -j 2 -f text -m bleu chrf", None),  # -j: same output
    ("{r21A} {r21C} {r21D} -i {h21} {h21b} --paired-bs -pbsn 25 -m ter -f text -w 5", None),
    # sentence level
    ("{ref} -i {A} -sl", None),
    ("{ref} -i {A} -sl -m chrf -w 3", None),
    ("{ref} -i {A} -sl -m ter -b", None),
    ("{r21A} {r21C} -i {h21} -sl --short -w 2", None),
]


def _argv(template, files, relative=False):
    """``relative``: the files by their names (the process then runs in their folder)."""
    return [(files[t[1:-1]].name if relative else str(files[t[1:-1]])) if t.startswith("{") else t
            for t in template.split()]


@pytest.mark.parametrize("template,stdin", GRID, ids=[g[0] + (f" <{g[1]}" if g[1] else "") for g in GRID])
def test_same_stdout_as_sacrebleu(template, stdin, corpus, tmp_path, monkeypatch, request):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    if "{jref}" in template and ("-tok char" not in template):
        pytest.importorskip("MeCab", reason="ja-mecab needs mtscore[ja] (mecab-python3, ipadic)")
        pytest.importorskip("ipadic", reason="ja-mecab needs mtscore[ja] (mecab-python3, ipadic)")
    # in the corpus folder, the files named relative to it: the tables name the systems by these names, the same
    # on every run, so that sacreBLEU's stored digests hold (test_colors_only_on_a_terminal compares a table of
    # absolute paths with sacreBLEU's, live)
    monkeypatch.chdir(corpus["ref"].parent)
    argv = _argv(template, corpus, relative=True)
    stdin_path = corpus[stdin] if stdin else None
    code, out = run_ours(argv, stdin_path)
    assert code == 0
    same_as_sacrebleu(request, normalize(out).decode("utf-8"), lambda: run_sacrebleu(argv, stdin_path, tmp_path))


def test_grid_is_big_enough():
    assert len(GRID) >= 60


def test_environment_variables_honoured(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    argv = _argv("{ref} -i {A} -m bleu chrf --confidence -cin 30", corpus)
    for env in ({"SACREBLEU_FORMAT": "text"}, {"SACREBLEU_SEED": "7"}, {"SACREBLEU_SEED": "7", "SACREBLEU_FORMAT": "TEXT"}):
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        code_sb, out_sb = run_sacrebleu(argv, None, tmp_path)
        out = io.StringIO()
        assert ours_run(argv, stdout=out, stderr=io.StringIO(), environ={"NO_COLOR": "1", **env}) == 0
        assert normalize(out.getvalue().encode()).decode() == out_sb.decode()
        for k in env:
            monkeypatch.delenv(k)


def test_colors_only_on_a_terminal(corpus, tmp_path, monkeypatch):
    class TTY(io.StringIO):
        def isatty(self):
            return True
    argv = _argv("{ref} -i {A} {B} -f text", corpus)
    out = io.StringIO()  # (the table of systems named by absolute paths, as sacreBLEU's)
    assert ours_run(argv, stdout=out, stderr=io.StringIO(), environ={"NO_COLOR": "1"}) == 0
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    assert normalize(out.getvalue().encode()) == run_sacrebleu(argv, None, tmp_path)[1]
    assert str(corpus["B"]) in out.getvalue()
    out = TTY()
    ours_run(argv, stdout=out, stderr=io.StringIO(), environ={})
    assert "\x1b[36mSystem\x1b[0m" in out.getvalue()  # cyan headers, as sacreBLEU on a terminal
    out = TTY()
    ours_run(argv, stdout=out, stderr=io.StringIO(), environ={"NO_COLOR": "1"})
    assert "\x1b[" not in out.getvalue()
    out = io.StringIO()
    ours_run(argv + ["--no-color"], stdout=out, stderr=io.StringIO(), environ={})
    assert "\x1b[" not in out.getvalue()


def test_paired_bs_json_where_sacrebleu_crashes(corpus):
    """sacreBLEU's JSON for a paired bootstrap of chrF/TER crashes (float32 is not JSON serializable);
    the drop-in prints the JSON it means."""
    out = io.StringIO()
    argv = _argv("{ref} -i {A} {B} --paired-bs -pbsn 20 -m bleu ter", corpus)
    assert ours_run(argv, stdout=out, stderr=io.StringIO(), environ={}) == 0
    rows = json.loads(out.getvalue())
    assert rows[0]["system"].startswith("Baseline: ") and set(rows[1]["TER"]) == {"score", "p_value", "mean", "ci"}


# -- bad input: one-line errors with the option, the rule and the value ------------------------------
def _cli(*args, stdin=b""):
    p = subprocess.run([sys.executable, "-m", "mtscore", "sacrebleu", *args], input=stdin, capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


@pytest.mark.parametrize("args,needle", [
    (["-w", "-1"], "-w/--width: must be an integer in 0..1000, got '-1'"),
    (["-w", "two"], "-w/--width: must be an integer in 0..1000, got 'two'"),
    (["--confidence-n", "0", "-ci"], "-cin/--confidence-n: must be an integer in 1..10^7, got '0'"),
    (["--paired-bs-n", "0"], "-pbsn/--paired-bs-n: must be an integer in 1..10^7, got '0'"),
    (["--paired-ar-n", "-5"], "-parn/--paired-ar-n: must be an integer in 1..10^7, got '-5'"),
    (["-nr", "0"], "-nr/--num-refs: must be an integer in 1..10000, got '0'"),
    (["-j", "-1"], "-j/--paired-jobs: must be an integer in 0..1024, got '-1'"),
    (["-cc", "-1"], "-cc/--chrf-char-order: must be an integer in 0..30, got '-1'"),
    (["-cw", "-2"], "-cw/--chrf-word-order: must be an integer in 0..10, got '-2'"),
    (["--chrf-beta", "0"], "--chrf-beta: must be an integer in 1..1000, got '0'"),
    (["-m", "chrf", "-cc", "0"], "-cc/--chrf-char-order + -cw/--chrf-word-order: must be at least 1 (one n-gram "
                                 "order is needed), got 0"),
    (["-sv", "-0.5"], "-sv/--smooth-value: must be a finite number in [0, 10^6], got '-0.5'"),
    (["-sv", "nan"], "-sv/--smooth-value: must be a finite number in [0, 10^6], got 'nan'"),
    (["-e", "no-such-codec"], "-e/--encoding: must be a text encoding Python knows (e.g. utf-8, latin-1), "
                              "got 'no-such-codec'"),
    (["-l", "english"], "-l/--language-pair: must be SRC-TRG (e.g. en-de), got 'english'"),
    (["-tok", "moses"], "argument --tokenize/-tok: invalid choice: 'moses'"),
    (["-m", "bleurt"], "invalid choice: 'bleurt'"),
    (["--download", "wmt14"], "--download: mtscore never downloads"),
])
def test_bad_options_one_line_errors(args, needle, corpus):
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(corpus["A"]), *args)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err, err


def test_bad_input_one_line_errors(corpus, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\xfe broken\n")
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(bad))
    assert rc == 3 and f"{bad}:2: cannot decode as utf-8" in err and len(err.strip().splitlines()) == 1
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(tmp_path / "missing.txt"))
    assert rc == 3 and "missing.txt: no such file" in err
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(corpus["zhyp"]))
    assert rc == 3 and "different lengths" in err and "has 100 lines" in err and "has 150 lines" in err
    one = tmp_path / "one.txt"
    one.write_text("one line\n", encoding="utf-8")
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(one))
    assert rc == 3 and f"{one} has 1 line," in err and len(err.strip().splitlines()) == 1
    rc, out, err = _cli(str(corpus["ref"]), stdin=b"a\tb\nc\n")
    assert rc == 3 and "<stdin>:2:" in err and "TAB-separated" in err
    rc, out, err = _cli(str(corpus["r21tsv"]), "-nr", "3", "-i", str(corpus["h21"]))
    assert rc == 3 and "r21.tsv:1: expected 3 TAB-separated references" in err
    rc, out, err = _cli("-i", str(corpus["A"]))
    assert rc == 2 and "references:" in err
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(corpus["A"]), "-t", "wmt17", "-l", "en-de")
    assert rc == 2 and "give either a test set or reference files" in err and len(err.strip().splitlines()) == 1
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(corpus["A"]), str(corpus["B"]), "-ci")
    assert rc == 2 and "-ci/--confidence" in err
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(corpus["A"]), "--paired-bs")
    assert rc == 2 and "paired tests need several systems" in err
    rc, out, err = _cli(str(corpus["ref"]), "-i", str(corpus["A"]), "-sl", "-m", "bleu", "chrf")
    assert rc == 2 and "only one metric" in err


def test_version_and_help_and_stdin_through_the_real_command(corpus):
    rc, out, err = _cli("--version")
    assert rc == 0 and "mtscore" in out and "2.6.0" in out
    rc, out, err = _cli("-h")
    assert rc == 0 and "--paired-bs" in out
    rc, out, err = _cli(str(corpus["ref"]), "-b", "-f", "text", stdin=corpus["A"].read_bytes())
    assert rc == 0
    hyps = [ln.rstrip() for ln in corpus["A"].read_text(encoding="utf-8").split("\n")[:-1]]
    refs = [ln.rstrip() for ln in corpus["ref"].read_text(encoding="utf-8").split("\n")[:-1]]
    assert out == f"{sacrebleu_pkg.corpus_bleu(hyps, [refs]).score:.1f}\n"


def test_errors_are_mtscore_errors():
    with pytest.raises(MtscoreError):
        ours_run(["ref", "-w", "-3"], stdout=io.StringIO(), stderr=io.StringIO(), environ={})


# -- test sets from a sacreBLEU-cache-shaped folder (-t/-l/--echo/--list), both tools on the same cache ---
@pytest.fixture(scope="module")
def sb_cache(tmp_path_factory):
    """wmt17 en-de as sacreBLEU 2.6 leaves it in its cache (src, ref, docid, genre, origlang), built from
    ../shared/data/wmt17-en-de (which has no source side: a stand-in text is used for src)."""
    d17 = data_path("wmt17-en-de")
    root = tmp_path_factory.mktemp("sbcache")
    w = root / "wmt17"
    w.mkdir()
    ref = (d17 / "newstest2017.en-de.ref0.de").read_bytes()
    n = ref.count(b"\n")
    (w / "wmt17.en-de.ref").write_bytes(ref)
    (w / "wmt17.en-de.src").write_bytes(b"".join(b"source %d\n" % i for i in range(n)))
    (w / "wmt17.en-de.docid").write_bytes(b"".join(b"doc%d\n" % (i // 20) for i in range(n)))
    (w / "wmt17.en-de.genre").write_bytes(b"news\n" * n)
    (w / "wmt17.en-de.origlang").write_bytes(b"".join(b"en\n" if i % 2 else b"de\n" for i in range(n)))
    files = {"A": d17 / "systems" / "newstest2017.online-A.0.en-de",
             "B": d17 / "systems" / "newstest2017.LIUM-NMT.4900.en-de"}
    twice = root / "AA.de"
    twice.write_bytes(files["A"].read_bytes() * 2)
    files["AA"] = twice
    return root, files


TESTSET_GRID = [
    ("-t wmt17 -l en-de -i {A}", None),
    ("-t wmt17 -l en-de -i {A} -f text -m bleu chrf -w 3", None),
    ("-t wmt17 -l en-de -i {A} {B} -f text", None),
    ("-t wmt17 -l en-de -b", "A"),
    ("-t wmt17,wmt17 -l en-de -i {AA} -f text", None),
    ("-t wmt17 -l en-de --echo src ref docid", None),
    ("-t wmt17 -l en-de --echo ref", None),
    ("-t wmt17 -l en-de --echo all", None),
    ("-t wmt17 -l en-de --list", None),
    ("-t wmt17 --list", None),  # every pair of the registry, fields from its metadata
]


@pytest.mark.parametrize("template,stdin", TESTSET_GRID, ids=[g[0] for g in TESTSET_GRID])
def test_testsets_same_stdout_as_sacrebleu(template, stdin, sb_cache, tmp_path, monkeypatch, request):
    root, files = sb_cache
    ds = sb_main.DATASETS["wmt17"]  # sacreBLEU fixed its cache folder at import: point it at ours
    monkeypatch.setattr(ds, "_outdir", str(root / "wmt17"))
    monkeypatch.setattr(ds, "_rawdir", str(root / "wmt17" / "raw"))
    monkeypatch.setenv("NO_COLOR", "1")
    argv = _argv(template, files)
    stdin_path = files[stdin] if stdin else None
    out = io.StringIO()
    data = open(stdin_path, "rb").read() if stdin_path else b""
    code = ours_run(argv, stdin=io.TextIOWrapper(io.BytesIO(data)), stdout=out, stderr=io.StringIO(),
                    environ={"NO_COLOR": "1", "SACREBLEU": str(root), "HOME": str(tmp_path)})
    assert code == 0
    same_as_sacrebleu(request, normalize(out.getvalue().encode()).decode(),
                      lambda: run_sacrebleu(argv, stdin_path, tmp_path))


def test_list_shows_the_registry_with_what_is_on_disk_marked(sb_cache, tmp_path):
    """``--list``: sacreBLEU's registry (its 67 test sets, its lines), the ones on disk marked; ``-t NAME --list``
    exits 0 for a registry test set that is not on disk (its fields come from the registry)."""
    root, _ = sb_cache
    env = {"SACREBLEU": str(root), "HOME": str(tmp_path)}
    out = io.StringIO()
    assert ours_run(["--list"], stdout=out, stderr=io.StringIO(), environ=env) == 0
    lines = out.getvalue().split("\n")
    assert lines[0] == "The available test sets are:" and lines[-1] == ""
    assert len(lines) == 2 + len(sacrebleu_pkg.DATASETS)
    marked = [ln for ln in lines if "[on disk" in ln]
    assert marked == [f"{'wmt17':<30}: {sacrebleu_pkg.DATASETS['wmt17'].description.strip()}  [on disk: en-de]"]
    out = io.StringIO()
    assert ours_run(["-t", "wmt18", "--list"], stdout=out, stderr=io.StringIO(), environ=env) == 0
    assert out.getvalue().split("\n")[0] == "cs-en: src, ref, docid, genre, origlang"


def test_testset_errors(sb_cache, tmp_path):
    root, files = sb_cache
    env = {"SACREBLEU": str(root), "HOME": str(tmp_path)}
    for argv, needle in ((["-t", "wmt17", "-i", str(files["A"])], "-l/--language-pair: a test set (-t) needs"),
                         (["-t", "wmt99", "-l", "en-de", "-i", str(files["A"])], "test set 'wmt99' for en-de not found"),
                         (["REF", "-t", "wmt17", "-l", "en-de"], "give either a test set or reference files"),
                         (["-t", "wmt17", "-l", "en-de", "--subset", "news", "-i", str(files["A"])],
                          "--subset: no subset annotation available for test set wmt17"),
                         (["--download", "wmt17"], "--download: mtscore never downloads")):
        with pytest.raises(MtscoreError) as exc:
            ours_run(argv, stdout=io.StringIO(), stderr=io.StringIO(), environ=env)
        assert needle in str(exc.value), (argv, str(exc.value))


# -- --origlang / --subset / -d/--detail: raw WMT files in a sacreBLEU cache, text fields written by sacreBLEU --
def _sgm(path, docs, side):
    """A WMT SGM file (up to WMT20's layout): ``docs`` = [(attributes, lines)]."""
    path.parent.mkdir(parents=True, exist_ok=True)
    out = [f'<{side}set setid="test" srclang="any">']
    for attrs, lines in docs:
        out.append("<doc " + " ".join(f'{k}="{v}"' for k, v in attrs) + ">")
        out += [f'<seg id="{i}">{ln}</seg>' for i, ln in enumerate(lines, 1)]
        out.append("</doc>")
    out.append(f"</{side}set>")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _wmt_xml(path, docs, src_lang, tgt_lang):
    """A WMT21+ XML file: ``docs`` = [(attributes, src lines, {translator: ref lines})]."""
    from xml.sax.saxutils import escape, quoteattr
    path.parent.mkdir(parents=True, exist_ok=True)
    out = ['<?xml version="1.0" encoding="utf-8"?>', '<dataset id="test">', '<collection id="general">']
    for attrs, src, refs in docs:
        out.append("<doc " + " ".join(f"{k}={quoteattr(v)}" for k, v in attrs) + ">")
        out.append(f'<src lang="{src_lang}"><p>' + "".join(f'<seg id="{i}">{escape(s)}</seg>'
                                                          for i, s in enumerate(src, 1)) + "</p></src>")
        for tr, lines in refs.items():
            out.append(f'<ref lang="{tgt_lang}" translator="{tr}"><p>' + "".join(
                f'<seg id="{i}">{escape(s)}</seg>' for i, s in enumerate(lines, 1)) + "</p></ref>")
        out.append("</doc>")
    out += ["</collection>", "</dataset>"]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _lines(path):
    return path.read_text(encoding="utf-8").split("\n")[:-1]


META_SETS = ("wmt17", "wmt19", "wmt23")


@pytest.fixture(scope="module")
def meta_cache(tmp_path_factory):
    """A sacreBLEU cache with the raw WMT files of three test sets, from ../shared/data, and the text fields that
    sacreBLEU's own ``process_to_text`` writes from them (nothing is downloaded: a non-empty tarball stands in).

    - wmt17 en-de (SGM): the wmt17 reference and two systems, documents of 20 lines; the origlang attributes
      are synthetic (every third document ``de``, the others ``en``, document 5 without one).
    - wmt19 en-de (SGM): the first 635 lines of the same data in 127 documents of 5 lines whose docids are those
      of sacreBLEU's WMT19 subset annotations (read from the installed package), the last 4 not annotated.
    - wmt23 en-de (XML): mt-metrics-eval's WMT23 en-de (557 segments) with its real documents and domains;
      synthetic origlang (documents of the ``speech`` domain say ``de``); plus a testsuite document and a
      segment without reference, which sacreBLEU skips.
    """
    from sacrebleu.dataset import DATASETS, SUBSETS
    import sacrebleu.utils as sbu
    root = tmp_path_factory.mktemp("sbmeta")
    d17, d23 = data_path("wmt17-en-de"), data_path("wmt23")
    ref17 = _lines(d17 / "newstest2017.en-de.ref0.de")
    sys17 = {k: _lines(d17 / "systems" / f) for k, f in (("A", "newstest2017.online-A.0.en-de"),
                                                         ("B", "newstest2017.LIUM-NMT.4900.en-de"))}
    files = {}
    saved = {n: (DATASETS[n]._outdir, DATASETS[n]._rawdir) for n in META_SETS}
    try:
        for n in META_SETS:
            ds = DATASETS[n]
            ds._outdir, ds._rawdir = str(root / n), str(root / n / "raw")
            (root / n / "raw").mkdir(parents=True)
            for url in ds.data:  # maybe_download() finds its tarball and downloads nothing
                (root / n / "raw" / ds._get_tarball_filename(url)).write_bytes(b"x")
        # wmt17
        docs_src, docs_ref = [], []
        for k in range(0, len(ref17), 20):
            attrs = [("docid", f"doc{k // 20}"), ("genre", "news")]
            if k // 20 != 5:
                attrs.append(("origlang", "de" if (k // 20) % 3 == 0 else "en"))
            docs_src.append((attrs, [f"source {i}" for i in range(k, min(k + 20, len(ref17)))]))
            docs_ref.append((attrs, ref17[k:k + 20]))
        raw = root / "wmt17" / "raw"
        _sgm(raw / DATASETS["wmt17"].langpairs["en-de"][0], docs_src, "src")
        _sgm(raw / DATASETS["wmt17"].langpairs["en-de"][1], docs_ref, "ref")
        DATASETS["wmt17"].process_to_text("en-de")
        for k, v in sys17.items():
            files[k] = root / f"{k}.de"
            files[k].write_text("\n".join(v) + "\n", encoding="utf-8")
        files["AA"] = root / "AA.de"
        files["AA"].write_text("\n".join(sys17["A"] * 2) + "\n", encoding="utf-8")
        # wmt19
        ids = list(SUBSETS["wmt19"]) + ["unannotated.1", "unannotated.2", "unannotated.3", "unannotated.4"]
        docs_src, docs_ref = [], []
        for d, docid in enumerate(ids):
            attrs = [("docid", docid), ("genre", "news"), ("origlang", "en" if d % 4 else "de")]
            docs_src.append((attrs, [f"source {i}" for i in range(5 * d, 5 * d + 5)]))
            docs_ref.append((attrs, ref17[5 * d:5 * d + 5]))
        raw = root / "wmt19" / "raw"
        _sgm(raw / DATASETS["wmt19"].langpairs["en-de"][0], docs_src, "src")
        _sgm(raw / DATASETS["wmt19"].langpairs["en-de"][1], docs_ref, "ref")
        DATASETS["wmt19"].process_to_text("en-de")
        files["S19"] = root / "s19.de"
        files["S19"].write_text("\n".join(sys17["A"][:5 * len(ids)]) + "\n", encoding="utf-8")
        # wmt23
        src = _lines(d23 / "sources" / "en-de.txt")
        ref = _lines(d23 / "references" / "en-de.refA.txt")
        meta = [ln.split("\t") for ln in _lines(d23 / "documents" / "en-de.docs")]
        docs, i = [], 0
        while i < len(meta):
            j = i
            while j < len(meta) and meta[j][1] == meta[i][1]:
                j += 1
            domain, docid = meta[i]
            docs.append(([("id", docid), ("origlang", "de" if domain == "speech" else "en"), ("domain", domain)],
                         src[i:j], {"refA": ref[i:j]}))
            i = j
        docs[3][1].append("a source segment without a reference")  # skipped by sacreBLEU
        docs.insert(2, ([("id", "suite"), ("origlang", "en"), ("domain", "news"), ("testsuite", "yes")],
                        ["test suite"], {"refA": ["Testsuite"]}))
        _wmt_xml(root / "wmt23" / "raw" / DATASETS["wmt23"].langpairs["en-de"][0], docs, "en", "de")
        DATASETS["wmt23"].process_to_text("en-de")
        for k, name in (("X23", "ONLINE-A"), ("Y23", "GPT4-5shot")):
            files[k] = d23 / "system-outputs" / "en-de" / f"{name}.txt"
    finally:
        for n, (o, r) in saved.items():
            DATASETS[n]._outdir, DATASETS[n]._rawdir = o, r
    return root, files


META_GRID = [
    ("-t wmt17 -l en-de -i {A} --origlang de -f text", None),
    ("-t wmt17 -l en-de -i {A} --origlang non-de -m bleu chrf", None),
    ("-t wmt17 -l en-de -i {A} {B} -ol en -f text", None),
    ("-t wmt17 -l en-de -ol de -b", "B"),
    ("-t wmt17 -l en-de --origlang de --echo src ref docid origlang", None),
    ("-t wmt17,wmt17 -l en-de -i {AA} -ol en -f text -w 3", None),
    ("-t wmt17 -l en-de -i {A} -d", None),
    ("-t wmt17 -l en-de -i {A} -d -m bleu chrf -w 2", None),
    ("-t wmt17 -l en-de -i {A} --origlang de -sl -b", None),
    ("-t wmt19 -l en-de -i {S19} --subset country:GB -f text", None),
    ("-t wmt19 -l en-de -i {S19} --subset politics --origlang en", None),
    ("-t wmt19 -l en-de -i {S19} -d -f text", None),
    ("-t wmt19 -l en-de --subset US|EU --echo docid src", None),
    ("-t wmt23 -l en-de -i {X23} --subset speech -f text", None),
    ("-t wmt23 -l en-de -i {X23} --origlang en --subset news|social -m bleu chrf ter", None),
    ("-t wmt23 -l en-de -i {X23} -d -m bleu chrf", None),
    ("-t wmt23 -l en-de -i {X23} {Y23} --origlang non-de --paired-bs -pbsn 20 -f text", None),
    ("-t wmt23 -l en-de --echo all --origlang de", None),
    ("-t wmt23 -l en-de -i {Y23} --subset social -d -w 4", None),
    ("-t wmt23 -l en-de --list", None),
    ("-t wmt19 -l en-de --list", None),
]


def _point_sacrebleu_at(root, monkeypatch):
    from sacrebleu.dataset import DATASETS
    import sacrebleu.utils as sbu
    for n in META_SETS:
        monkeypatch.setattr(DATASETS[n], "_outdir", str(root / n))
        monkeypatch.setattr(DATASETS[n], "_rawdir", str(root / n / "raw"))
    monkeypatch.setattr(sbu, "SACREBLEU_DIR", str(root))  # filter_subset reads the raw files from there


def _ours(argv, env, stdin_path=None):
    out = io.StringIO()
    data = open(stdin_path, "rb").read() if stdin_path else b""
    code = ours_run(argv, stdin=io.TextIOWrapper(io.BytesIO(data)), stdout=out, stderr=io.StringIO(), environ=env)
    assert code == 0
    return normalize(out.getvalue().encode()).decode()


@pytest.mark.parametrize("template,stdin", META_GRID, ids=[g[0] for g in META_GRID])
def test_subsets_same_stdout_as_sacrebleu(template, stdin, meta_cache, tmp_path, monkeypatch, request):
    root, files = meta_cache
    _point_sacrebleu_at(root, monkeypatch)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    argv = _argv(template, files)
    stdin_path = files[stdin] if stdin else None
    env = {"NO_COLOR": "1", "SACREBLEU": str(root), "HOME": str(tmp_path)}
    same_as_sacrebleu(request, _ours(argv, env, stdin_path), lambda: run_sacrebleu(argv, stdin_path, tmp_path))


def test_subsets_from_text_fields_without_raw_files(meta_cache, tmp_path):
    """Without the raw WMT files the metadata fields sacreBLEU extracted (origlang, domain, docid) give the
    same output (the registry still says which rule applies)."""
    root, files = meta_cache
    bare = tmp_path / "bare"
    shutil.copytree(root, bare, ignore=shutil.ignore_patterns("raw"))
    with_raw = {"NO_COLOR": "1", "SACREBLEU": str(root), "HOME": str(tmp_path)}
    without = {**with_raw, "SACREBLEU": str(bare)}
    from mtscore.io import testsets as ts
    assert ts.find_testset("wmt23", "en-de", environ=with_raw).raw is not None
    assert ts.find_testset("wmt23", "en-de", environ=without).raw is None
    for template in ("-t wmt19 -l en-de -i {S19} --subset country:GB -f text",
                     "-t wmt19 -l en-de -i {S19} -d -f text",
                     "-t wmt23 -l en-de -i {X23} -d -m bleu chrf",
                     "-t wmt23 -l en-de --echo all --origlang de",
                     "-t wmt17 -l en-de -i {A} --origlang de -f text"):
        argv = _argv(template, files)
        assert _ours(argv, without) == _ours(argv, with_raw), template


def test_subset_errors_and_where_sacrebleu_crashes(meta_cache, tmp_path, monkeypatch):
    root, files = meta_cache
    _point_sacrebleu_at(root, monkeypatch)
    env = {"NO_COLOR": "1", "SACREBLEU": str(root), "HOME": str(tmp_path)}
    cases = (
        (["-t", "wmt17", "-l", "en-de", "-i", str(files["A"]), "--subset", "news"],
         "--subset: no subset annotation available for test set wmt17"),
        (["-t", "wmt17", "-l", "en-de", "-i", str(files["A"]), "--origlang", "fr"],
         "test set 'wmt17' contains no sentence with origlang=fr"),
        (["-t", "wmt23", "-l", "en-de", "-i", str(files["X23"]), "--subset", "news("],
         "--subset: must be a regular expression, got 'news('"),
        ([str(files["A"]), "-i", str(files["A"]), "--origlang", "de"],
         "--origlang/--subset: filtering by document metadata needs a test set (-t)"),
    )
    for argv, needle in cases:
        with pytest.raises(MtscoreError) as exc:
            ours_run(argv, stdout=io.StringIO(), stderr=io.StringIO(), environ=env)
        assert needle in str(exc.value) and "\n" not in str(exc.value), (argv, str(exc.value))
    # -d with --origlang: sacreBLEU iterates over the characters of the value and crashes; the drop-in breaks
    # down by that original language: the same rows as -d alone, for it
    full = _ours(_argv("-t wmt23 -l en-de -i {X23} -d", files), env).split("\n")
    one = _ours(_argv("-t wmt23 -l en-de -i {X23} -d -ol de", files), env).split("\n")
    squeeze = lambda lines: [" ".join(ln.split()) for ln in lines]  # noqa: E731 (key padding differs)
    assert squeeze(one[1:]) == squeeze([ln for ln in full[1:] if ln.startswith("origlang=de ")] + [""])
    assert len(one) == 4
    sb = run_sacrebleu(_argv("-t wmt23 -l en-de -i {X23} -ol de -b", files), None, tmp_path)
    assert one[0].split(" = ")[1].split()[0] == sb[1].decode().strip()  # the filtered score itself: sacreBLEU's


def test_subset_of_mt_metrics_eval_folder(tmp_path):
    """mt-metrics-eval folders have domains (documents/PAIR.docs) but no original language."""
    src = data_path("wmt23")
    mtme = tmp_path / "mtme" / "wmt23"
    for sub in ("sources", "references", "documents"):
        shutil.copytree(src / sub, mtme / sub)
    env = {"NO_COLOR": "1", "MTME_DATA": str(tmp_path / "mtme"), "HOME": str(tmp_path)}
    hyp = src / "system-outputs" / "zh-en" / "ONLINE-A.txt"
    out = _ours(["-t", "wmt23", "-l", "zh-en", "-i", str(hyp), "--subset", "^news$", "-b", "-w", "6"], env)
    domains = [ln.split("\t")[0] for ln in _lines(src / "documents" / "zh-en.docs")]
    keep = [d == "news" for d in domains]
    hyps = [h for h, k in zip(_lines(hyp), keep) if k]
    refs = [r for r, k in zip(_lines(src / "references" / "zh-en.refA.txt"), keep) if k]
    assert out == f"{sacrebleu_pkg.corpus_bleu(hyps, [refs]).score:.6f}\n"
    with pytest.raises(MtscoreError, match="--origlang: test set wmt23/zh-en has no original-language metadata"):
        ours_run(["-t", "wmt23", "-l", "zh-en", "-i", str(hyp), "-ol", "zh"], stdout=io.StringIO(),
                 stderr=io.StringIO(), environ=env)


def test_list_is_sacrebleus_list_with_local_test_sets_marked(meta_cache, tmp_path, monkeypatch):
    """``--list [-l PAIR]``: sacreBLEU's lines (header, ``NAME<padding>: description``, sorted; a pair matches in
    either direction), each test set on disk followed by ``  [on disk: PAIRS]``."""
    root, files = meta_cache
    _point_sacrebleu_at(root, monkeypatch)
    env = {"NO_COLOR": "1", "SACREBLEU": str(root), "HOME": str(tmp_path)}
    for argv in (["--list", "-l", "de-en"], ["--list", "-l", "en-de"], ["--list"]):
        sb = run_sacrebleu(argv, None, tmp_path)[1].decode().split("\n")
        ours = _ours(argv, env).split("\n")
        marked = [ln + "  [on disk: en-de]" if ln.split(" ")[0] in META_SETS else ln for ln in sb]
        assert ours == marked, argv
        assert sum("[on disk" in ln for ln in ours) == 3


def test_numeric_options_come_from_the_parameter_table():
    """Every numeric option of the drop-in is an entry of mtscore.params.SACREBLEU_OPTIONS (one
    validation path): its default is sacreBLEU's, and a value outside its bounds gets params.message."""
    import argparse
    from mtscore.params import SACREBLEU_OPTIONS, message
    from mtscore.sacrebleu.sacrebleu import build_parser
    saved = sys.argv
    try:
        sys.argv = ["sacrebleu", "REF"]
        peer = sb_main.parse_args()
    finally:
        sys.argv = saved
    ours = build_parser()
    numeric = {a.dest for a in ours._actions if isinstance(a, argparse._StoreAction) and a.type not in (None, str)
               and a.dest != "bleu_tokenize"}
    # --threads, --kernels: mtscore's own options, from the general table entries params.OPTIONS[...]
    assert numeric == set(SACREBLEU_OPTIONS) | {"threads", "kernels"}
    for name, p in SACREBLEU_OPTIONS.items():
        assert getattr(peer, name) == p.default, name  # sacreBLEU's default
        label = "/".join(sorted(p.flags, key=len))
        bad = str(p.lo - 1) if p.kind == "int" else "-0.5"
        with pytest.raises(MtscoreError) as exc:
            ours_run(["REF", p.flags[0], bad], stdout=io.StringIO(), stderr=io.StringIO(), environ={})
        assert str(exc.value) == message(label, p.rule(), bad)
