"""Every speed goal of benchmarks/RESULTS.md side by side with its peer, whole process, alternating runs.

Each measurement is one fresh process (interpreter start, imports, reading, work, printing), started by the same
interpreter for both tools (``python -m mtscore`` / ``python -m sacrebleu``); the compared commands alternate,
the tables give medians of wall and CPU time (user + sys of the process tree), the tree's peak memory and the
ratio peer / mtscore (helpers of ``bench_everyday.py``). Where the peer takes tens of seconds it runs fewer times
(``--peer-runs``, said in the table).

Sections (``--sections``, comma-separated; default all):

* ``report``: ``mtscore report`` of 4 WMT17 en-de systems x 3,004 segments, default sections, ``-o page.html``
  (goal < 3 s on 2 cores; no peer);
* ``compare``: ``mtscore compare`` of 9 WMT17 systems, BLEU + chrF, paired bootstrap (1000) vs sacreBLEU's
  ``--paired-bs`` on the same files (goal >= 30x);
* ``sbpbs``: ``mtscore sacrebleu ... --paired-bs`` vs ``sacrebleu ... --paired-bs``, same job (goal >= 30x; the
  outputs are compared, apart from the version in the signature). Both with ``-f text``: sacreBLEU 2.6's JSON
  output of a paired test crashes (float32 is not JSON serializable) when stdout is not a terminal;
* ``small``: a 10-line file, ``mtscore score -m bleu`` and ``mtscore sacrebleu`` vs ``sacrebleu``, from a
  regular install (a new venv, ``pip install --no-deps --no-build-isolation .``, its dependencies from this
  interpreter's site-packages) and from the install this interpreter has (the README's ``pip install -e``)
  (goal >= 1.0x both, both installs);
* ``mbr``: MBR with chrF, 300 segments x 64 candidates (16 WMT17 systems + 3 perturbed copies each), whole
  process: ``mtscore.search.mbr_select`` vs ``fastchrf.pairwise_chrf`` + argmax of the mean (goal >= 10x,
  identical selections, <= 200 MB);
* ``pairwise``: the 1024 x 1024 chrF matrix in process (one process each, the time of the call printed by the
  child): ``mtscore.pairwise`` vs ``fastchrf.pairwise_chrf`` (goal >= 5x; the matrices are compared);
* ``none``: 1M synthetic segments, corpus BLEU ``--tokenize none`` vs ``13a`` (goal: none no slower);
* ``meta``: ``mtscore meta --data ../shared/data/wmt23 --lp zh-en --level seg --ci 200`` (goal < 3 s; no peer);
* ``everyday``: bench_everyday.py's ``wmt17`` section (BLEU+chrF+TER >= 30x, BLEU+chrF >= 10x).

Usage: ``python benchmarks/bench_peers.py [--sections report,compare] [--runs 5] [--peer-runs 2] [--out f.md]``
(run it with the interpreter of the install to measure; ``fastchrf`` must be installed for mbr/pairwise).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_everyday as be  # noqa: E402

PY, MT, SB, DATA, ROOT = be.PY, be.MT, be.SB, be.DATA, be.ROOT
W17 = os.path.join(DATA, "wmt17-en-de")
REF17 = os.path.join(W17, "newstest2017.en-de.ref0.de")


def _systems(k: int) -> list[str]:
    order = os.path.join(W17, "system_order.txt")
    names = [ln.split("\t")[1].strip() for ln in open(order, encoding="utf-8") if ln.strip()]
    return [os.path.join(W17, "systems", n) for n in names[:k]]


def _med(rs):
    return (statistics.median(x[0] for x in rs), statistics.median(x[1] for x in rs), max(x[2] for x in rs))


def _pair_table(title, mt_name, peer_name, mt_cmd, peer_cmd, runs, peer_runs, note=""):
    mt, pe = be._alternating(mt_cmd, peer_cmd, runs, peer_runs)
    m, p = _med(mt), _med(pe)
    rows = [(mt_name, *m, ""), (f"{peer_name} ({peer_runs} run(s))" if peer_runs < runs else peer_name, *p,
                                f"{p[0] / m[0]:.1f}x (CPU {p[1] / m[1]:.1f}x)")]
    return be.table(title, rows, (note + " " if note else "") + be.load_note()), mt[-1][3], pe[-1][3]


def sec_report(args):
    out = os.path.join(tempfile.mkdtemp(), "page.html")
    cmd = MT + ["report", "-q", "-r", REF17, "-i", *sorted(glob.glob(os.path.join(W17, "systems", "*")))[:4],
                "-o", out]
    rs = [be.run(cmd) for _ in range(args.runs)]
    m = _med(rs)
    size = os.path.getsize(out)
    return [be.table("report, 4 WMT17 en-de systems x 3,004 segments, default sections",
                     [("`mtscore report -r REF -i SYS1..SYS4 -o page.html`", *m, "goal < 3 s")],
                     f"Page: {size / 2 ** 20:.2f} MiB. " + be.load_note())]


def sec_compare(args):
    S = _systems(9)
    t, _, _ = _pair_table("compare, 9 WMT17 systems, BLEU + chrF, paired bootstrap (1000 resamples)",
                          "`mtscore compare -m bleu chrf`", "`sacrebleu -m bleu chrf --paired-bs`",
                          MT + ["compare", "-q", "-r", REF17, "-i", *S, "-m", "bleu", "chrf"],
                          SB + [REF17, "-i", *S, "-m", "bleu", "chrf", "--paired-bs", "-f", "text"], args.runs, args.peer_runs)
    return [t]


def sec_sbpbs(args):
    S = _systems(9)
    t, mo, po = _pair_table("`mtscore sacrebleu --paired-bs`, same job", "`mtscore sacrebleu -m bleu chrf --paired-bs`",
                            "`sacrebleu -m bleu chrf --paired-bs`",
                            MT + ["sacrebleu", REF17, "-i", *S, "-m", "bleu", "chrf", "--paired-bs", "-f", "text"],
                            SB + [REF17, "-i", *S, "-m", "bleu", "chrf", "--paired-bs", "-f", "text"], args.runs, args.peer_runs)
    same = mo.replace("mtscore-0.1.0", "V") == po.replace("2.6.0", "V")
    return [t + f"\n\nOutputs identical apart from the version in the signatures: {'yes' if same else 'NO'}."]


def _regular_install() -> str:
    """A new venv with mtscore installed from the checkout (not editable); its dependencies come from this
    interpreter's site-packages through a .pth line (that directory's own .pth files, e.g. an editable
    mtscore, are not processed). Returns its python."""
    import site
    tmp = tempfile.mkdtemp(prefix="mtscore-reg-")
    venv = os.path.join(tmp, "venv")
    subprocess.run([PY, "-m", "venv", venv], check=True)
    vpy = os.path.join(venv, "bin", "python")
    sp = subprocess.run([vpy, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True,
                        capture_output=True, text=True).stdout.strip()
    deps = [p for p in site.getsitepackages() if os.path.isdir(p)]
    with open(os.path.join(sp, "zz_bench_deps.pth"), "w") as fh:
        fh.write("\n".join(deps) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "VIRTUAL_ENV"))}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([vpy, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", ROOT], check=True, env=env,
                   cwd=tmp, stderr=subprocess.DEVNULL)
    return vpy


def sec_small(args):
    tmp = tempfile.mkdtemp()
    for src, dst in ((REF17, "ref"), (_systems(8)[7], "hyp")):
        with open(src, encoding="utf-8") as fh, open(os.path.join(tmp, dst), "w", encoding="utf-8") as o:
            o.writelines(fh.readlines()[:10])
    ref, hyp = os.path.join(tmp, "ref"), os.path.join(tmp, "hyp")
    out = []
    for label, py in (("regular install (pip install .)", _regular_install()),
                      ("this interpreter's install (the README's pip install -e)", PY)):
        where = subprocess.run([py, "-c", "import mtscore, os; print(os.path.dirname(mtscore.__file__))"],
                               capture_output=True, text=True, check=True).stdout.strip()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        med, outs, _ = be.compare([("score", [py, "-m", "mtscore", "score", "-q", "-m", "bleu", "-r", ref, "-i", hyp]),
                                   ("drop", [py, "-m", "mtscore", "sacrebleu", ref, "-i", hyp, "-m", "bleu", "-b"]),
                                   ("sb", [py, "-m", "sacrebleu", ref, "-i", hyp, "-m", "bleu", "-b"])], args.runs,
                                  env=env)
        s, d, p = med["score"], med["drop"], med["sb"]
        rows = [("`mtscore score -m bleu`", *s, f"{p[0] / s[0]:.2f}x (CPU {p[1] / s[1]:.2f}x)"),
                ("`mtscore sacrebleu -m bleu -b`", *d, f"{p[0] / d[0]:.2f}x (CPU {p[1] / d[1]:.2f}x)"),
                ("`sacrebleu -m bleu -b`", *p, "")]
        out.append(be.table(f"10-line file, {label}", rows,
                            f"mtscore imported from `{where}`; ratios: sacreBLEU / mtscore. drop-in printed "
                            f"`{outs['drop'].strip()}`, sacreBLEU `{outs['sb'].strip()}`. " + be.load_note()))
    return out


MBR_CHILD = r"""
import json, resource, sys, time, glob
sys.path.insert(0, {here!r})
from synth import perturb
files = sorted(glob.glob({w17!r} + "/systems/*"))[:16]
sysl = [open(f, encoding="utf-8").read().split("\n")[:300] for f in files]
cands = []
for i in range(300):
    base = [s[i] for s in sysl]
    cands.append(base + [x for r in range(3) for x in perturb(base, 0.15, 100 * i + r)])
which = sys.argv[1]
if which == "mt":
    from mtscore.metrics.registry import get_metric
    from mtscore.search import NBestList, Pool, mbr_select
    pool = Pool.of(NBestList.from_lists(cands))
    sel = mbr_select(pool, get_metric("chrf"))
    rows = [int(r - pool.seg_off[i]) for i, r in enumerate(sel.rows)]
else:
    import numpy as np, fastchrf
    M = fastchrf.pairwise_chrf(cands, cands)
    rows = [int(np.argmax(np.array(m).mean(axis=1))) for m in M]
print(json.dumps(rows))
"""


def sec_mbr(args):
    code = MBR_CHILD.format(here=HERE, w17=W17)
    t, mo, po = _pair_table("MBR with chrF, 300 segments x 64 candidates (whole process, candidates built in both)",
                            "mtscore `mbr_select(pool, chrf)`", "`fastchrf.pairwise_chrf` + argmax",
                            [PY, "-c", code, "mt"], [PY, "-c", code, "fc"], args.runs, args.peer_runs)
    same = json.loads(mo) == json.loads(po)
    return [t + f"\n\nSelections identical: {'yes' if same else 'NO'} (300 segments)."]


PAIR_CHILD = r"""
import json, sys, time, glob
import numpy as np
ref = open({ref!r}, encoding="utf-8").read().split("\n")[:1024]
hyp = open(sorted(glob.glob({w17!r} + "/systems/*"))[0], encoding="utf-8").read().split("\n")[:1024]
which = sys.argv[1]
if which == "mt":
    import mtscore
    mtscore.pairwise("chrf", hyp[:4], ref[:4])  # imports and first use outside the timing
    t = time.perf_counter(); M = mtscore.pairwise("chrf", hyp, ref); t = time.perf_counter() - t
else:
    import fastchrf
    fastchrf.pairwise_chrf([hyp[:4]], [ref[:4]])
    t = time.perf_counter(); M = np.array(fastchrf.pairwise_chrf([hyp], [ref])[0]); t = time.perf_counter() - t
np.save(sys.argv[2], M)
print(t)
"""


def sec_pairwise(args):
    tmp = tempfile.mkdtemp()
    code = PAIR_CHILD.format(ref=REF17, w17=W17)
    mt, fc = [], []
    for i in range(max(args.runs, args.peer_runs)):
        if i < args.runs:
            mt.append(float(be.run([PY, "-c", code, "mt", os.path.join(tmp, "mt.npy")])[3]))
        if i < args.peer_runs:
            fc.append(float(be.run([PY, "-c", code, "fc", os.path.join(tmp, "fc.npy")])[3]))
    import numpy as np
    a, b = np.load(os.path.join(tmp, "mt.npy")), np.load(os.path.join(tmp, "fc.npy"))
    m, f = statistics.median(mt), statistics.median(fc)
    return ["### pairwise chrF matrix 1024 x 1024, in process (the call only)\n\n"
            "| call | s (median) | ratio |\n|---|---:|---:|\n"
            f"| `mtscore.pairwise('chrf', hyps, refs)` | {m:.3f} | |\n"
            f"| `fastchrf.pairwise_chrf([hyps], [refs])` ({len(fc)} run(s)) | {f:.3f} | {f / m:.1f}x |\n\n"
            f"Largest difference between the matrices: {np.abs(a - b).max():.1e} (equal: "
            f"{'yes' if np.array_equal(a, b) else 'no'}). " + be.load_note()]


def sec_none(args):
    hyp, ref = be._synth(1_000_000)
    med, outs, _ = be.compare([("none", MT + ["score", "-q", "-m", "bleu", "--tokenize", "none", "-r", ref, "-i", hyp]),
                               ("13a", MT + ["score", "-q", "-m", "bleu", "-r", ref, "-i", hyp])], args.runs)
    n, t = med["none"], med["13a"]
    rows = [("`mtscore score -m bleu --tokenize none`", *n, ""),
            ("`mtscore score -m bleu` (13a)", *t, f"13a / none: {t[0] / n[0]:.2f}x (CPU {t[1] / n[1]:.2f}x)")]
    return [be.table("1M synthetic segments, corpus BLEU: --tokenize none vs 13a", rows, be.load_note())]


def sec_meta(args):
    cmd = MT + ["meta", "-q", "--data", os.path.join(DATA, "wmt23"), "--lp", "zh-en", "--level", "seg", "--ci", "200"]
    m = _med([be.run(cmd) for _ in range(args.runs)])
    return [be.table("meta, seg-level zh-en (WMT23, BLEU, 15 systems), 200 resamples",
                     [("`mtscore meta --data wmt23 --lp zh-en --level seg --ci 200`", *m, "goal < 3 s")], be.load_note())]


def sec_everyday(args):
    return be.sec_wmt17(args)


SECTIONS = {"report": sec_report, "compare": sec_compare, "sbpbs": sec_sbpbs, "small": sec_small, "mbr": sec_mbr,
            "pairwise": sec_pairwise, "none": sec_none, "meta": sec_meta, "everyday": sec_everyday}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sections", default=",".join(SECTIONS))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--peer-runs", type=int, default=2, help="runs of the slow peers (sacreBLEU paired-bs, fastchrf)")
    ap.add_argument("--out")
    args = ap.parse_args()
    subprocess.run([PY, "-m", "compileall", "-q", os.path.join(ROOT, "src", "mtscore")], check=False,
                   stdout=subprocess.DEVNULL)
    parts = []
    for name in args.sections.split(","):
        for t in SECTIONS[name.strip()](args):
            print(t + "\n", flush=True)
            parts.append(t)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write("\n\n".join(parts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
