"""The everyday job, whole process, side by side with the peers.

Every measurement runs one command line as a fresh process (interpreter start, imports, reading, scoring,
printing); runs of the compared commands alternate so that load on a shared machine hits them alike. The
table reports the median wall time, the median CPU time (user + sys of the process tree: the fairer number
on an oversubscribed machine), the peak memory of the whole process tree (RSS summed over the process and
its children, sampled every 10 ms) and the ratio peer / mtscore of the medians.

Sections (``--sections``, comma-separated; default all but ``scale10m``):

* ``wmt17``: WMT17 en-de one system (3,004 lines, ../shared/data/wmt17-en-de): ``mtscore score -m bleu chrf
  ter`` vs ``sacrebleu -m bleu chrf ter``, and ``-m bleu chrf``;
* ``wmt21zh``: WMT21 en-zh one system (../shared/data/wmt21): ``mtscore score -m bleu --tokenize zh`` vs
  ``sacrebleu -m bleu -tok zh`` (the zh tokenizer: compiled in mtscore);
* ``small``: a 10-line file, ``-m bleu``;
* ``demo``: ``mtscore demo`` first and second run after a fresh install into a new venv
  (``--system-site-packages``, ``pip install --no-build-isolation --no-deps``: the extensions are compiled);
* ``synth100k``: 100k synthetic segments (benchmarks/synth.py, 1 reference): chrF, TER, corpus BLEU vs
  sacreBLEU's CLI, and ``--sentence-level -f tsv`` (BLEU) vs a loop over sacreBLEU ``sentence_score``;
  single rows: ``synth100k:chrf``, ``synth100k:ter``, ``synth100k:bleu``, ``synth100k:tsv`` (e.g.
  ``--sections synth100k:chrf,synth100k:tsv,synth100k:bleu`` skips sacreBLEU's ~330 s TER run);
* ``threads``: the default (one process, kernel threads) vs ``--jobs 1 --threads 1`` at 3k, 100k and 1M segments (BLEU + chrF at 3k and
  100k, BLEU at 1M), ``--runs`` alternating runs each (at least 5 for the "never slower" check);
* ``native``: 1M segments corpus BLEU, mtscore default vs ``benchmarks/native_bleu.c`` (gcc -O2, one
  thread: reads the files, 13a, clipped 1-4-gram counts with an exact hash table; prints the same BLEU);
* ``scale10m``: 10M segments corpus BLEU (the 1M corpus repeated 10 times, so the BLEU must equal the 1M
  one), pinned to 2 cores (``taskset``), read as a stream; peak memory of the process tree.

Usage: ``python benchmarks/bench_everyday.py [--sections wmt17,small,synth100k:chrf] [--runs 5] [--out results.md]``.
Prints a Markdown table per section (``--out`` also writes them to a file).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
sys.path.insert(0, HERE)

PY = sys.executable
# Both tools are started the same way, by this interpreter with ``-m`` (no shell wrapper such as a pyenv shim
# in front of either: a shim costs tens of milliseconds, which decides the 10-line comparison).
MT = [PY, "-m", "mtscore"]
SB = [PY, "-m", "sacrebleu"]


def _tree_rss(pid: int) -> int:
    import psutil

    try:
        p = psutil.Process(pid)
        procs = [p] + p.children(recursive=True)
    except psutil.Error:
        return 0
    total = 0
    for q in procs:
        try:
            total += q.memory_info().rss
        except psutil.Error:
            pass
    return total


def run(cmd, env=None, stdout_path=None):
    """(wall s, cpu s of the tree, peak tree RSS MB, stdout text) of one whole-process run."""
    before = os.times()
    out = open(stdout_path, "w") if stdout_path else subprocess.PIPE
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=env, text=True)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(p.pid))
            time.sleep(0.01)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    so, se = p.communicate()
    wall = time.perf_counter() - t0
    done.set()
    th.join()
    after = os.times()
    if stdout_path:
        out.close()
        so = ""
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({p.returncode}): {se[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, peak[0] / 2 ** 20, so


def compare(label_cmds, runs, env=None):
    """Alternating runs of each (label, cmd); medians per label."""
    res = {label: [] for label, _ in label_cmds}
    outs = {}
    for _ in range(runs):
        for label, cmd in label_cmds:
            w, c, m, so = run(cmd, env=env)
            res[label].append((w, c, m))
            outs[label] = so
    med = {label: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), max(x[2] for x in v))
           for label, v in res.items()}
    return med, outs, res


def table(title, rows, note=""):
    lines = [f"### {title}", "", "| command | wall s (median) | CPU s (median) | peak MB (tree) | ratio (wall) |",
             "|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.0f} | {r[4]} |")
    if note:
        lines += ["", note]
    return "\n".join(lines)


def load_note():
    return f"Load while measuring: `{os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}` " \
           f"(1/5/15 min) on {os.cpu_count()} cores."


def pair_rows(med, mt_label, peer_label, mt_name, peer_name):
    m, p = med[mt_label], med[peer_label]
    return [(mt_name, *m, ""), (peer_name, *p, f"{p[0] / m[0]:.1f}x (CPU {p[1] / m[1]:.1f}x)")]


def first_score(text: str) -> str:
    """The score of ``mtscore score -f json`` output, to sacreBLEU's one decimal (with the full value)."""
    import json

    d = json.loads(text)
    v = d["rows"][0][d["columns"][1]]
    return f"`{v:.1f}` ({v!r})"


# ---------------------------------------------------------------------------------------------------------
def sec_wmt17(args):
    d = os.path.join(DATA, "wmt17-en-de")
    ref = os.path.join(d, "newstest2017.en-de.ref0.de")
    hyp = os.path.join(d, "systems", "newstest2017.online-B.0.en-de")
    out = []
    for metrics in (["bleu", "chrf", "ter"], ["bleu", "chrf"]):
        med, outs, _ = compare([("mt", MT + ["score", "-q", "-m", *metrics, "-r", ref, "-i", hyp]),
                                ("sb", SB + [ref, "-i", hyp, "-m", *metrics, "-b"])], args.runs)
        out.append(table(f"WMT17 en-de, one system (3,004 lines): -m {' '.join(metrics)}",
                         pair_rows(med, "mt", "sb", f"`mtscore score -m {' '.join(metrics)}`",
                                   f"`sacrebleu -m {' '.join(metrics)} -b`"),
                         f"sacreBLEU printed: `{' '.join(outs['sb'].split())}`. " + load_note()))
    return out


def sec_wmt21zh(args):
    d = os.path.join(DATA, "wmt21")
    ref = os.path.join(d, "references", "newstest2021.en-zh.ref.A.zh")
    hyp = os.path.join(d, "system-outputs", "newstest2021.en-zh.hyp.Facebook-AI.zh")
    med, outs, _ = compare([("mt", MT + ["score", "-q", "-m", "bleu", "--tokenize", "zh", "-r", ref, "-i", hyp,
                                         "-f", "json"]),
                            ("sb", SB + [ref, "-i", hyp, "-m", "bleu", "-tok", "zh", "-b"])], args.runs)
    return [table("WMT21 en-zh, one system (1,002 lines): -m bleu --tokenize zh",
                  pair_rows(med, "mt", "sb", "`mtscore score -m bleu --tokenize zh`", "`sacrebleu -m bleu -tok zh -b`"),
                  f"mtscore printed {first_score(outs['mt'])}, sacreBLEU `{' '.join(outs['sb'].split())}`. "
                  + load_note())]


def sec_small(args):
    tmp = tempfile.mkdtemp()
    d = os.path.join(DATA, "wmt17-en-de")
    for src, dst in ((os.path.join(d, "newstest2017.en-de.ref0.de"), "ref"),
                     (os.path.join(d, "systems", "newstest2017.online-B.0.en-de"), "hyp")):
        with open(src, encoding="utf-8") as fh, open(os.path.join(tmp, dst), "w", encoding="utf-8") as o:
            o.writelines(fh.readlines()[:10])
    ref, hyp = os.path.join(tmp, "ref"), os.path.join(tmp, "hyp")
    med, _, _ = compare([("mt", MT + ["score", "-q", "-m", "bleu", "-r", ref, "-i", hyp]),
                         ("sb", SB + [ref, "-i", hyp, "-m", "bleu", "-b"])], args.runs)
    return [table("10-line file, -m bleu", pair_rows(med, "mt", "sb", "`mtscore score -m bleu`",
                                                     "`sacrebleu -m bleu -b`"), load_note())]


def sec_demo(args):
    tmp = tempfile.mkdtemp()
    venv = os.path.join(tmp, "venv")
    subprocess.run([PY, "-m", "venv", "--system-site-packages", venv], check=True)
    vpy = os.path.join(venv, "bin", "python")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MTSCORE_", "VIRTUAL_ENV"))}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", HOME=tmp)
    t0 = time.perf_counter()
    subprocess.run([vpy, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", ROOT], check=True, env=env,
                   cwd=tmp, stderr=subprocess.DEVNULL)
    install = time.perf_counter() - t0
    exe = os.path.join(venv, "bin", "mtscore")
    first = run([exe, "demo"], env=env)
    later = [run([exe, "demo"], env=env) for _ in range(max(1, args.runs - 1))]
    second = (statistics.median(x[0] for x in later), statistics.median(x[1] for x in later), max(x[2] for x in later))
    rows = [("first `mtscore demo` after install", first[0], first[1], first[2], ""),
            ("later runs (median)", *second, f"first/later {first[0] / second[0]:.2f}x")]
    return [table("First `mtscore demo` after a fresh install (new venv)", rows,
                  f"`pip install --no-build-isolation --no-deps .` took {install:.1f} s (compiling the C extensions). "
                  + load_note())]


def _synth(n, seed=0):
    from synth import write_corpus

    d = os.path.join(tempfile.gettempdir(), "mtscore-bench", f"synth-{n}-1-{seed}")
    hyp, refs = write_corpus(d, n, 1, seed)
    return hyp, refs[0]


SB_SENT = r'''
import sys
from sacrebleu.metrics import BLEU
hyp, ref = sys.argv[1:3]
with open(hyp, encoding="utf-8") as f: hyps = f.read().split("\n")[:-1]
with open(ref, encoding="utf-8") as f: refs = f.read().split("\n")[:-1]
b = BLEU(effective_order=True)
out = ["segment\tBLEU"] + [f"{i}\t{b.sentence_score(h, [r]).score:.2f}" for i, (h, r) in enumerate(zip(hyps, refs), 1)]
sys.stdout.write("\n".join(out) + "\n")
'''


def _alternating(mt_cmd, peer_cmd, runs, peer_runs):
    """``runs`` runs of mtscore and ``peer_runs`` (<= runs) of the slow peer, alternating while both run."""
    mt, sb = [], []
    for i in range(max(runs, peer_runs)):
        if i < runs:
            mt.append(run(mt_cmd))
        if i < peer_runs:
            sb.append(run(peer_cmd))
    return mt, sb


SYNTH100K_ROWS = ("chrf", "ter", "bleu", "tsv")


def sec_synth100k(args, rows=SYNTH100K_ROWS):
    hyp, ref = _synth(args.n100k)
    out = []
    runs_peer = max(1, args.peer_runs)
    for metric, name in (("chrf", "chrF"), ("ter", "TER"), ("bleu", "corpus BLEU")):
        if metric not in rows:
            continue
        mt, sb = _alternating(MT + ["score", "-q", "-m", metric, "-f", "json", "-r", ref, "-i", hyp],
                              SB + [ref, "-i", hyp, "-m", metric, "-b"], args.runs, runs_peer)
        m = tuple(statistics.median(x[i] for x in mt) for i in range(3))
        p = tuple(statistics.median(x[i] for x in sb) for i in range(3))
        out.append(table(f"{args.n100k:,} synthetic segments: {name}",
                         [(f"`mtscore score -m {metric}`", *m, ""),
                          (f"`sacrebleu -m {metric} -b` ({runs_peer} run(s))", *p,
                           f"{p[0] / m[0]:.1f}x (CPU {p[1] / m[1]:.1f}x)")],
                         f"mtscore printed {first_score(mt[0][3])}, sacreBLEU `{sb[0][3].strip()}`. " + load_note()))
    if "tsv" not in rows:
        return out
    mt, sb = _alternating(MT + ["score", "-q", "-m", "bleu", "--sentence-level", "-f", "tsv", "-r", ref, "-i", hyp],
                          [PY, "-c", SB_SENT, hyp, ref], args.runs, runs_peer)
    same = mt[0][3].split("\n")[1:] == sb[0][3].split("\n")[1:]
    m = tuple(statistics.median(x[i] for x in mt) for i in range(3))
    p = tuple(statistics.median(x[i] for x in sb) for i in range(3))
    out.append(table(f"{args.n100k:,} synthetic segments: sentence BLEU, TSV",
                     [("`mtscore score -m bleu --sentence-level -f tsv`", *m, ""),
                      (f"loop over sacreBLEU `sentence_score`, TSV ({runs_peer} run(s))", *p,
                       f"{p[0] / m[0]:.1f}x (CPU {p[1] / m[1]:.1f}x)")],
                     f"Segment scores identical to the last printed digit: {'yes' if same else 'NO'}. " + load_note()))
    return out


def sec_threads(args):
    out = []
    for n, metrics in ((3004, ["bleu", "chrf"]), (args.n100k, ["bleu", "chrf"]), (args.n1m, ["bleu"])):
        if n == 3004:
            d = os.path.join(DATA, "wmt17-en-de")
            ref, hyp = os.path.join(d, "newstest2017.en-de.ref0.de"), os.path.join(d, "systems",
                                                                                   "newstest2017.online-B.0.en-de")
        else:
            hyp, ref = _synth(n)
        base = MT + ["score", "-q", "-m", *metrics, "-r", ref, "-i", hyp]
        med, outs, raw = compare([("default", base), ("t1", base + ["--jobs", "1", "--threads", "1"])],
                                 max(5, args.runs))
        assert outs["default"] == outs["t1"]
        d_, t_ = med["default"], med["t1"]
        verdict = "yes" if d_[0] <= 1.05 * t_[0] else "NO"
        out.append(table(f"{n:,} segments, -m {' '.join(metrics)}: default vs one process, one thread "
                         f"({max(5, args.runs)} alternating runs)",
                         [("default (one process, kernel threads)", *d_, ""),
                          ("`--jobs 1 --threads 1`", *t_, f"{t_[0] / d_[0]:.2f}x")],
                         f"Default within 5% of `--jobs 1 --threads 1` or faster: {verdict} (`--jobs 1` alone is the "
                         "default's one process). Same output: yes. " + load_note()))
    return out


def sec_native(args):
    hyp, ref = _synth(args.n1m)
    exe = os.path.join(tempfile.gettempdir(), "mtscore-bench", "native_bleu")
    subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(HERE, "native_bleu.c"), "-lm"], check=True)
    med, outs, _ = compare([("mt", MT + ["score", "-q", "-m", "bleu", "-f", "json", "-r", ref, "-i", hyp]),
                            ("c", [exe, hyp, ref])], args.runs)
    import json

    mt_score = json.loads(outs["mt"])["rows"][0]["BLEU"]
    c_score = float(outs["c"].split()[0])
    rows = [("mtscore default (`score -m bleu`)", *med["mt"], ""),
            ("native C loop (gcc -O2, 1 thread)", *med["c"], f"mtscore/C {med['mt'][0] / med['c'][0]:.2f}x")]
    return [table(f"{args.n1m:,} synthetic segments: corpus BLEU vs a native C loop", rows,
                  f"BLEU: mtscore {mt_score!r}, native C {c_score!r} (same to {abs(mt_score - c_score):.1e}). "
                  + load_note())]


def _repeated(n, base):
    """``n`` segments as the ``base``-segment synthetic corpus repeated ``n // base`` times (every count, and so
    the corpus BLEU, is exactly that of the base corpus: a check of the 10M run)."""
    hyp1, ref1 = _synth(base)
    d = os.path.join(tempfile.gettempdir(), "mtscore-bench", f"synth-{base}x{n // base}")
    os.makedirs(d, exist_ok=True)
    out = []
    for src in (hyp1, ref1):
        dst = os.path.join(d, os.path.basename(src))
        if not os.path.exists(dst):
            with open(src, "rb") as fh:
                data = fh.read()
            with open(dst + ".part", "wb") as o:
                for _ in range(n // base):
                    o.write(data)
            os.replace(dst + ".part", dst)
        out.append(dst)
    return out


def sec_scale10m(args):
    if args.n10m % args.n1m:
        raise SystemExit("--n10m must be a multiple of --n1m")
    hyp, ref = _repeated(args.n10m, args.n1m)
    cpus = sorted(os.sched_getaffinity(0))[:2]
    cmd = ["taskset", "-c", ",".join(map(str, cpus))] + MT + ["score", "-q", "-m", "bleu", "-f", "json", "-r", ref,
                                                              "-i", hyp]
    w, c, m, so = run(cmd)
    import json

    got = json.loads(so)["rows"][0]["BLEU"]
    h1, r1 = _synth(args.n1m)
    base = json.loads(run(MT + ["score", "-q", "-m", "bleu", "-f", "json", "-r", r1, "-i", h1])[3])["rows"][0]["BLEU"]
    verdict = "yes" if w < 30 and m < 1024 else "NO"
    return [table(f"{args.n10m:,} segments: corpus BLEU on 2 cores (taskset -c {','.join(map(str, cpus))}), streamed",
                  [("`mtscore score -m bleu`", w, c, m, "")],
                  f"The corpus is the {args.n1m:,}-segment synthetic one repeated {args.n10m // args.n1m} times "
                  f"({os.path.getsize(hyp) / 2 ** 30:.2f} + {os.path.getsize(ref) / 2 ** 30:.2f} GiB); BLEU "
                  f"{got!r}, the {args.n1m:,}-segment corpus {base!r} (equal: {'yes' if got == base else 'NO'}). "
                  f"Under 30 s and 1 GB: {verdict}. " + load_note())]


SECTIONS = {"wmt17": sec_wmt17, "wmt21zh": sec_wmt21zh, "small": sec_small, "demo": sec_demo, "synth100k": sec_synth100k,
            "threads": sec_threads, "native": sec_native, "scale10m": sec_scale10m}
# sections whose rows can be picked one by one with ``section:row``
SECTION_ROWS = {"synth100k": SYNTH100K_ROWS}


def parse_sections(spec: str) -> list:
    """``wmt17,synth100k:chrf,synth100k:tsv`` -> ``[("wmt17", None), ("synth100k", ("chrf", "tsv"))]``: sections
    in the order first named, a section named with rows runs only those rows (in the section's own order)."""
    order, rows = [], {}
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        name, _, row = item.partition(":")
        if name not in SECTIONS:
            raise SystemExit(f"--sections: unknown section {name!r}; known: {', '.join(SECTIONS)}")
        if row and row not in SECTION_ROWS.get(name, ()):
            known = ", ".join(f"{name}:{r}" for r in SECTION_ROWS.get(name, ())) or "none"
            raise SystemExit(f"--sections: unknown row {item!r}; rows of {name}: {known}")
        if name not in rows:
            order.append(name)
            rows[name] = set()
        if rows[name] is None or not row:
            rows[name] = None  # the whole section
        else:
            rows[name].add(row)
    return [(n, None if rows[n] is None else tuple(r for r in SECTION_ROWS[n] if r in rows[n])) for n in order]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sections", default="wmt17,wmt21zh,small,demo,synth100k,threads,native",
                    help="comma-separated sections; section:row picks single rows (synth100k:chrf,synth100k:tsv)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--peer-runs", type=int, default=1, help="runs of the slow peers on 100k segments")
    ap.add_argument("--n100k", type=int, default=100_000)
    ap.add_argument("--n1m", type=int, default=1_000_000)
    ap.add_argument("--n10m", type=int, default=10_000_000)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    # the environment may set PYTHONDONTWRITEBYTECODE: without .pyc files every run would spend ~0.2 s compiling
    # mtscore's modules, which an installed package never does
    subprocess.run([PY, "-m", "compileall", "-q", os.path.join(ROOT, "src")], check=True, stdout=subprocess.DEVNULL)
    parts = []
    for name, rows in parse_sections(args.sections):
        for t in (SECTIONS[name](args) if rows is None else SECTIONS[name](args, rows)):
            print(t + "\n", flush=True)
            parts.append(t)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write("\n\n".join(parts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
